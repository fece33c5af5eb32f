# Pooling through the official API. Included from tests-c/CMakeLists.txt.
#
# pooling_sweep: forward (training with the workspace, inference) and backward of every
# algorithm compared with a reference computed in the test (geometry, layouts, types,
# post-ops, queries); on the CPU engine (pooling_sweep, with its @ref run against Intel's
# library), on each OpenCL runtime (pooling_sweep_ocl@pocl, @intel) and on the Level Zero
# test driver (pooling_sweep_ze@ze, @ze-validation).
dnnl_c_test(pooling_sweep SOURCES pooling/pooling_sweep.c LABELS "api;cpu" ARGS cpu TIMEOUT 120)
dnnl_c_test(pooling_sweep_ocl SOURCES pooling/pooling_sweep.c LABELS "api" OPENCL ARGS gpu
            TIMEOUT 300)
target_link_libraries(pooling_sweep PRIVATE m)
target_link_libraries(pooling_sweep_ocl PRIVATE m)
dnnl_ze_test(pooling_sweep_ze NO_VALIDATION SOURCES pooling/pooling_sweep.c LABELS "api" TIMEOUT 300
             ENVIRONMENT ONEDNN_GPU_RUNTIME=ze)
if(TARGET pooling_sweep_ze)
  target_link_libraries(pooling_sweep_ze PRIVATE m)
endif()

# pooling_bad_input: bad descriptors get upstream's status (its @ref run proves them);
# execution without the workspace and undersized outputs are checked on ours only.
dnnl_c_test(pooling_bad_input SOURCES pooling/pooling_bad_input.c LABELS "api;cpu" ARGS cpu
            TIMEOUT 60)
dnnl_c_test(pooling_bad_input_ocl SOURCES pooling/pooling_bad_input.c LABELS "api" OPENCL
            ARGS gpu TIMEOUT 120)
