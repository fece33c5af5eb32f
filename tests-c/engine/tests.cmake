# Engine tests that need no OpenCL (the OpenCL ones live in interop/ocl/).
# Included from tests-c/CMakeLists.txt.

dnnl_c_test(engine_cpu SOURCES engine/cpu_engine.c LABELS "api;cpu" TIMEOUT 60)
dnnl_c_test(engine_cpu_handles SOURCES engine/cpu_engine_handles.c LABELS "api;cpu;ours-only"
            TIMEOUT 60)
# No OpenCL platform at all: <build>/icd/none is an empty vendors directory.
dnnl_c_test(engine_no_opencl SOURCES engine/no_opencl.c LABELS "api;cpu" TIMEOUT 60
            ENVIRONMENT "OCL_ICD_VENDORS=${DNNL_OCL_ICD_ROOT}/none")
