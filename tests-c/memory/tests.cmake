# Memory objects on the CPU engine (the OpenCL ones live in interop/ocl/).
# Included from tests-c/CMakeLists.txt.

dnnl_c_test(memory_cpu_create SOURCES memory/cpu_create.c LABELS "api;cpu" TIMEOUT 60)
dnnl_c_test(memory_cpu_data_handle SOURCES memory/cpu_data_handle.c LABELS "api;cpu" TIMEOUT 60)
dnnl_c_test(memory_cpu_map SOURCES memory/cpu_map.c LABELS "api;cpu" TIMEOUT 60)
dnnl_c_test(memory_host_scalar SOURCES memory/host_scalar.c LABELS "api;cpu" TIMEOUT 60)
dnnl_c_test(memory_cpu_handles SOURCES memory/cpu_memory_handles.c LABELS "api;cpu;ours-only"
            TIMEOUT 60)
# INT64_MAX-byte allocations are dnnl_out_of_memory (issue 15): the CPU engine (with
# its reference run), each OpenCL runtime (and Intel's with USM through SVM), and a
# Level Zero engine over the test driver.
dnnl_c_test(memory_alloc_int64_max SOURCES memory/alloc_int64_max.c LABELS "api;cpu"
            ARGS cpu TIMEOUT 60)
find_package(OpenCL QUIET)
if(OpenCL_FOUND)
  dnnl_c_test(memory_alloc_int64_max_ocl SOURCES memory/alloc_int64_max.c LABELS "api" OPENCL
              ARGS gpu TIMEOUT 120)
  target_compile_definitions(memory_alloc_int64_max_ocl PRIVATE DNNL_TEST_OPENCL)
  target_link_libraries(memory_alloc_int64_max_ocl PRIVATE OpenCL::OpenCL)
  dnnl_ocl_svm_twin(memory_alloc_int64_max_ocl ARGS gpu)
endif()
if(COMMAND dnnl_ze_test)
  dnnl_ze_test(memory_ze_alloc_int64_max SOURCES memory/ze_alloc_int64_max.c LABELS "api"
               TIMEOUT 120)
endif()
