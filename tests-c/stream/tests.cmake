# Stream tests that need no OpenCL (the OpenCL ones live in interop/ocl/).
# Included from tests-c/CMakeLists.txt.

dnnl_c_test(stream_cpu SOURCES stream/cpu_stream.c LABELS "api;cpu" TIMEOUT 60)
dnnl_c_test(stream_cpu_invalid SOURCES stream/cpu_stream_invalid.c LABELS "api;cpu;ours-only"
            TIMEOUT 60)
