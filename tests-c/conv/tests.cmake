# Convolution and deconvolution through the official API. Included from
# tests-c/CMakeLists.txt (each <area>/tests.cmake is).
#
# conv_sweep: forward, backward data and backward weights of both kinds compared with a
# reference computed in the test (geometry, layouts, f32 / f16 / bf16 / int8, scales and
# zero points, post-ops, queries); on the CPU engine (conv_sweep, with its @ref run
# against Intel's library), on each OpenCL runtime (conv_sweep_ocl@pocl, @intel) and on
# the Level Zero test driver (conv_sweep_ze@ze, @ze-validation).
dnnl_c_test(conv_sweep SOURCES conv/conv_sweep.c LABELS "api;cpu" ARGS cpu TIMEOUT 120)
dnnl_c_test(conv_sweep_ocl SOURCES conv/conv_sweep.c LABELS "api" OPENCL ARGS gpu TIMEOUT 300)
target_link_libraries(conv_sweep PRIVATE m)
target_link_libraries(conv_sweep_ocl PRIVATE m)
dnnl_ze_test(conv_sweep_ze NO_VALIDATION SOURCES conv/conv_sweep.c LABELS "api" TIMEOUT 300
             ENVIRONMENT ONEDNN_GPU_RUNTIME=ze)
if(TARGET conv_sweep_ze)
  target_link_libraries(conv_sweep_ze PRIVATE m)
endif()

# conv_bad_input: bad descriptors get upstream's status and leave the output untouched
# (its @ref run proves the statuses); execution arguments are checked on ours only.
dnnl_c_test(conv_bad_input SOURCES conv/conv_bad_input.c LABELS "api;cpu" ARGS cpu TIMEOUT 60)
dnnl_c_test(conv_bad_input_ocl SOURCES conv/conv_bad_input.c LABELS "api" OPENCL ARGS gpu
            TIMEOUT 120)
