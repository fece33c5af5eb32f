# Shuffle through the official API. Included from tests-c/CMakeLists.txt.
#
# shuffle_sweep: every axis, group sizes, layouts, types, both directions, against the
# definition computed in the test; on the CPU engine (with its @ref run against Intel's
# library), on each OpenCL runtime and on the Level Zero test driver.
dnnl_c_test(shuffle_sweep SOURCES shuffle/shuffle_sweep.c LABELS "api;cpu" ARGS cpu TIMEOUT 120)
dnnl_c_test(shuffle_sweep_ocl SOURCES shuffle/shuffle_sweep.c LABELS "api" OPENCL ARGS gpu
            TIMEOUT 300)
dnnl_ze_test(shuffle_sweep_ze NO_VALIDATION SOURCES shuffle/shuffle_sweep.c LABELS "api" TIMEOUT 300
             ENVIRONMENT ONEDNN_GPU_RUNTIME=ze)
foreach(t shuffle_sweep shuffle_sweep_ocl shuffle_sweep_ze)
  if(TARGET ${t})
    target_link_libraries(${t} PRIVATE m)
  endif()
endforeach()

# shuffle_bad_input: bad descriptors get upstream's status (its @ref run proves them); an
# undersized destination at execution is refused with the destination untouched.
dnnl_c_test(shuffle_bad_input SOURCES shuffle/shuffle_bad_input.c LABELS "api;cpu" ARGS cpu
            TIMEOUT 60)
dnnl_c_test(shuffle_bad_input_ocl SOURCES shuffle/shuffle_bad_input.c LABELS "api" OPENCL
            ARGS gpu TIMEOUT 120)
