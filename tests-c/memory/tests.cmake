# Memory objects on the CPU engine (the OpenCL ones live in interop/ocl/).
# Included from tests-c/CMakeLists.txt.

dnnl_c_test(memory_cpu_create SOURCES memory/cpu_create.c LABELS "api;cpu" TIMEOUT 60)
dnnl_c_test(memory_cpu_data_handle SOURCES memory/cpu_data_handle.c LABELS "api;cpu" TIMEOUT 60)
dnnl_c_test(memory_cpu_map SOURCES memory/cpu_map.c LABELS "api;cpu" TIMEOUT 60)
dnnl_c_test(memory_host_scalar SOURCES memory/host_scalar.c LABELS "api;cpu" TIMEOUT 60)
dnnl_c_test(memory_cpu_handles SOURCES memory/cpu_memory_handles.c LABELS "api;cpu;ours-only"
            TIMEOUT 60)
