# Reduction through the official API. Included from tests-c/CMakeLists.txt.
#
# reduction_sweep: every algorithm, p / eps, reduced axes, layouts, types and post-ops
# against a reference computed in the test; on the CPU engine (with its @ref run against
# Intel's library), on each OpenCL runtime and on the Level Zero test driver.
dnnl_c_test(reduction_sweep SOURCES reduction/reduction_sweep.c LABELS "api;cpu" ARGS cpu
            TIMEOUT 120)
dnnl_c_test(reduction_sweep_ocl SOURCES reduction/reduction_sweep.c LABELS "api" OPENCL
            ARGS gpu TIMEOUT 300)
dnnl_ze_test(reduction_sweep_ze NO_VALIDATION SOURCES reduction/reduction_sweep.c LABELS "api" TIMEOUT 300
             ENVIRONMENT ONEDNN_GPU_RUNTIME=ze)
foreach(t reduction_sweep reduction_sweep_ocl reduction_sweep_ze)
  if(TARGET ${t})
    target_link_libraries(${t} PRIVATE m)
  endif()
endforeach()

# reduction_bad_input: bad descriptors get upstream's status (its @ref run proves them);
# an undersized destination at execution is refused with the destination untouched.
dnnl_c_test(reduction_bad_input SOURCES reduction/reduction_bad_input.c LABELS "api;cpu"
            ARGS cpu TIMEOUT 60)
dnnl_c_test(reduction_bad_input_ocl SOURCES reduction/reduction_bad_input.c LABELS "api"
            OPENCL ARGS gpu TIMEOUT 120)
