# Engine tests that need no OpenCL (the OpenCL ones live in interop/ocl/).
# Included from tests-c/CMakeLists.txt.

dnnl_c_test(engine_cpu SOURCES engine/cpu_engine.c LABELS "api;cpu" TIMEOUT 60)
dnnl_c_test(engine_cpu_handles SOURCES engine/cpu_engine_handles.c LABELS "api;cpu;ours-only"
            TIMEOUT 60)
# No OpenCL platform at all: <build>/icd/none is an empty vendors directory.
dnnl_c_test(engine_no_opencl SOURCES engine/no_opencl.c LABELS "api;cpu" TIMEOUT 60
            ENVIRONMENT "OCL_ICD_VENDORS=${DNNL_OCL_ICD_ROOT}/none")
# The engines CI must see (no device is a failure, not a skip): a GPU engine on each
# OpenCL runtime, and the Level Zero test driver's device (scripts/test.sh).
find_package(OpenCL QUIET)
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
