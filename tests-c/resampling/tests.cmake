# Resampling through the official API. Included from tests-c/CMakeLists.txt.
#
# resampling_sweep: forward (training, inference) and backward of both algorithms compared
# with a reference computed in the test (shapes, factors, layouts, types, post-ops,
# queries); on the CPU engine (resampling_sweep, with its @ref run against Intel's
# library), on each OpenCL runtime (resampling_sweep_ocl@pocl, @intel) and on the Level
# Zero test driver (resampling_sweep_ze@ze, @ze-validation).
dnnl_c_test(resampling_sweep SOURCES resampling/resampling_sweep.c LABELS "api;cpu" ARGS cpu
            TIMEOUT 120)
dnnl_c_test(resampling_sweep_ocl SOURCES resampling/resampling_sweep.c LABELS "api" OPENCL
            ARGS gpu TIMEOUT 300)
target_link_libraries(resampling_sweep PRIVATE m)
target_link_libraries(resampling_sweep_ocl PRIVATE m)
dnnl_ze_test(resampling_sweep_ze NO_VALIDATION SOURCES resampling/resampling_sweep.c LABELS "api" TIMEOUT 300
             ENVIRONMENT ONEDNN_GPU_RUNTIME=ze)
if(TARGET resampling_sweep_ze)
  target_link_libraries(resampling_sweep_ze PRIVATE m)
endif()

# resampling_bad_input: bad descriptors get upstream's status (its @ref run proves them);
# undersized outputs at execution are checked on ours only.
dnnl_c_test(resampling_bad_input SOURCES resampling/resampling_bad_input.c LABELS "api;cpu"
            ARGS cpu TIMEOUT 60)
dnnl_c_test(resampling_bad_input_ocl SOURCES resampling/resampling_bad_input.c LABELS "api"
            OPENCL ARGS gpu TIMEOUT 120)
