# LRN through the official API. Included from tests-c/CMakeLists.txt.
#
# lrn_sweep: both algorithms, local sizes, parameters, layouts, types, both directions,
# against a reference computed in the test; on the CPU engine (with its @ref run against
# Intel's library), on each OpenCL runtime and on the Level Zero test driver.
dnnl_c_test(lrn_sweep SOURCES lrn/lrn_sweep.c LABELS "api;cpu" ARGS cpu TIMEOUT 120)
dnnl_c_test(lrn_sweep_ocl SOURCES lrn/lrn_sweep.c LABELS "api" OPENCL ARGS gpu TIMEOUT 300)
dnnl_ze_test(lrn_sweep_ze NO_VALIDATION SOURCES lrn/lrn_sweep.c LABELS "api" TIMEOUT 300
             ENVIRONMENT ONEDNN_GPU_RUNTIME=ze)
foreach(t lrn_sweep lrn_sweep_ocl lrn_sweep_ze)
  if(TARGET ${t})
    target_link_libraries(${t} PRIVATE m)
  endif()
endforeach()

# lrn_bad_input: bad descriptors get upstream's status (its @ref run proves them); an
# undersized destination at execution is refused with the destination untouched.
dnnl_c_test(lrn_bad_input SOURCES lrn/lrn_bad_input.c LABELS "api;cpu" ARGS cpu TIMEOUT 60)
dnnl_c_test(lrn_bad_input_ocl SOURCES lrn/lrn_bad_input.c LABELS "api" OPENCL ARGS gpu
            TIMEOUT 120)
