# Batch normalization through the official API. Included from tests-c/CMakeLists.txt.
#
# bnorm_sweep: forward (training, inference), backward and backward data, every flag
# and their combinations, the ReLU post-op, f32 / bf16 / f16 / s8, 2-D to 5-D, compared
# with a double reference computed in the test; on the CPU engine (bnorm_sweep, with its
# @ref run against Intel's library), on each OpenCL runtime (bnorm_sweep_ocl@pocl,
# @intel) and on the Level Zero test driver (bnorm_sweep_ze@ze, @ze-validation).
dnnl_c_test(bnorm_sweep SOURCES bnorm/bnorm_sweep.c LABELS "api;cpu" ARGS cpu TIMEOUT 120)
dnnl_c_test(bnorm_sweep_ocl SOURCES bnorm/bnorm_sweep.c LABELS "api" OPENCL ARGS gpu TIMEOUT 300)
target_link_libraries(bnorm_sweep PRIVATE m)
target_link_libraries(bnorm_sweep_ocl PRIVATE m)
dnnl_ze_test(bnorm_sweep_ze NO_VALIDATION SOURCES bnorm/bnorm_sweep.c LABELS "api" TIMEOUT 300
             ENVIRONMENT ONEDNN_GPU_RUNTIME=ze)
if(TARGET bnorm_sweep_ze)
  target_link_libraries(bnorm_sweep_ze PRIVATE m)
endif()

# bnorm_bad_input: bad descriptors get upstream's status and leave the output untouched
# (its @ref run proves the statuses); execution arguments are checked on ours only.
dnnl_c_test(bnorm_bad_input SOURCES bnorm/bnorm_bad_input.c LABELS "api;cpu" ARGS cpu TIMEOUT 60)
dnnl_c_test(bnorm_bad_input_ocl SOURCES bnorm/bnorm_bad_input.c LABELS "api" OPENCL ARGS gpu
            TIMEOUT 120)
