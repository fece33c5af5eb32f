# Engine tests that need no OpenCL (the OpenCL ones live in interop/ocl/).
# Included from tests-c/CMakeLists.txt.

dnnl_c_test(engine_cpu SOURCES engine/cpu_engine.c LABELS "api;cpu" TIMEOUT 60)
dnnl_c_test(engine_cpu_handles SOURCES engine/cpu_engine_handles.c LABELS "api;cpu;ours-only"
            TIMEOUT 60)
# No OpenCL platform at all: <build>/icd/none is an empty vendors directory.
dnnl_c_test(engine_no_opencl SOURCES engine/no_opencl.c LABELS "api;cpu" TIMEOUT 60
            ENVIRONMENT "OCL_ICD_VENDORS=${DNNL_OCL_ICD_ROOT}/none")
# Impossible allocations are dnnl_out_of_memory on every engine (issue 18), and
# ONEDNN_VERBOSE=error says which size failed on which device. The program asks
# OpenCL for the device's largest allocation.
find_package(OpenCL QUIET)
if(OpenCL_FOUND)
  dnnl_c_test(engine_alloc_oom SOURCES engine/alloc_out_of_memory.c LABELS "api;cpu;ours-only"
              ARGS cpu TIMEOUT 120)
  dnnl_c_test(engine_alloc_oom_ocl SOURCES engine/alloc_out_of_memory.c LABELS "api" OPENCL
              ARGS gpu TIMEOUT 120 ENVIRONMENT "ONEDNN_VERBOSE=error")
  target_link_libraries(engine_alloc_oom PRIVATE OpenCL::OpenCL)
  target_link_libraries(engine_alloc_oom_ocl PRIVATE OpenCL::OpenCL)
  foreach(_rt IN LISTS DNNL_OCL_RUNTIMES)
    set_tests_properties(engine_alloc_oom_ocl@${_rt} PROPERTIES
      PASS_REGULAR_EXPRESSION "common,error,dnnl_memory_create,out_of_memory,allocating 1099511627776 bytes of an OpenCL buffer on OpenCL device '[^']+' failed.*impossible allocations \\(gpu\\): out_of_memory"
      FAIL_REGULAR_EXPRESSION "runtime_error")
  endforeach()
  # Create-use-destroy cycles: bounded resident size (CPU engine), OpenCL reference
  # counts back to 1 after each cycle (each runtime).
  dnnl_c_test(engine_cycles SOURCES engine/create_destroy_cycles.c LABELS "api;cpu;ours-only" ARGS cpu
              TIMEOUT 300)
  dnnl_c_test(engine_cycles_ocl SOURCES engine/create_destroy_cycles.c LABELS "api" OPENCL
              ARGS gpu TIMEOUT 300)
  target_link_libraries(engine_cycles PRIVATE OpenCL::OpenCL)
  target_link_libraries(engine_cycles_ocl PRIVATE OpenCL::OpenCL)
else()
  message(STATUS "tests-c/engine: OpenCL headers or ICD loader not found: engine_alloc_oom and engine_cycles not built")
endif()
# The same on a Level Zero engine (through the loader and the in-repository driver).
if(COMMAND dnnl_ze_test)
  dnnl_ze_test(engine_ze_alloc_oom SOURCES engine/ze_alloc_out_of_memory.c LABELS "api;ze"
               TIMEOUT 120)
endif()
# The engines CI must see (no device is a failure, not a skip): a GPU engine on each
# OpenCL runtime, and the Level Zero test driver's device (scripts/test.sh).
if(OpenCL_FOUND)
  dnnl_c_test(engine_ci_engines SOURCES engine/ci_engines.c LABELS "api;ours-only" OPENCL
              TIMEOUT 120)
  target_link_libraries(engine_ci_engines PRIVATE OpenCL::OpenCL)
  target_compile_definitions(engine_ci_engines PRIVATE CL_TARGET_OPENCL_VERSION=300)
else()
  add_test(NAME engine_ci_engines COMMAND sh -c "echo 'SKIP: OpenCL headers or ICD loader not found at configure time'; exit 77")
  set_tests_properties(engine_ci_engines PROPERTIES SKIP_RETURN_CODE 77 LABELS "api;ours-only")
endif()
dnnl_ze_test(engine_ci_ze_engines SOURCES engine/ci_ze_engines.c LABELS "api;ours-only"
             TIMEOUT 120)
