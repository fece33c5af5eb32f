# The in-repository Level Zero driver (crates/ze-ocl-driver) alone, through the real
# loader, with and without the validation layer (dnnl_ze_test). Its kernels are
# OpenCL C compiled to SPIR-V here with clang-15 and llvm-spirv-15 (Debian packages of
# the same names); without them the test skips and says so.
find_program(DNNL_CLANG15 clang-15)
find_program(DNNL_LLVM_SPIRV15 llvm-spirv-15)
set(_ze_drv_dir "${CMAKE_CURRENT_LIST_DIR}")
set(_ze_drv_spv "${CMAKE_CURRENT_BINARY_DIR}/ze_driver_kernels.spv")
set(_ze_drv_env)
if(DNNL_CLANG15 AND DNNL_LLVM_SPIRV15)
  add_custom_command(OUTPUT "${_ze_drv_spv}"
    COMMAND "${DNNL_CLANG15}" -c -target spir64 -O2 -emit-llvm
            -o "${CMAKE_CURRENT_BINARY_DIR}/ze_driver_kernels.bc" "${_ze_drv_dir}/kernels.cl"
    COMMAND "${DNNL_LLVM_SPIRV15}" "${CMAKE_CURRENT_BINARY_DIR}/ze_driver_kernels.bc"
            -o "${_ze_drv_spv}"
    DEPENDS "${_ze_drv_dir}/kernels.cl"
    COMMENT "OpenCL C -> SPIR-V (tests-c/ze_driver/kernels.cl)"
    VERBATIM)
  add_custom_target(ze_driver_kernels DEPENDS "${_ze_drv_spv}")
  set(_ze_drv_env "ZE_DRIVER_TEST_SPV=${_ze_drv_spv}")
endif()
dnnl_ze_test(ze_driver_smoke SOURCES ze_driver/smoke.c LABELS "ze_driver;ours-only" TIMEOUT 60
             ENVIRONMENT ${_ze_drv_env})
if(TARGET ze_driver_smoke AND TARGET ze_driver_kernels)
  add_dependencies(ze_driver_smoke ze_driver_kernels)
endif()

# ZE_OCL_DEVICE_TYPE: the driver reports its (CPU) device as a GPU when asked, so a
# program that asks for GPU drivers only finds it and runs primitives through our Level
# Zero engine; unset, or set to something else, no GPU driver is there (gpu_type.c).
foreach(_variant gpu unset bogus)
  set(_env "ONEDNN_GPU_RUNTIME=ze")
  if(NOT _variant STREQUAL "unset")
    list(APPEND _env "ZE_OCL_DEVICE_TYPE=${_variant}")
  endif()
  dnnl_ze_test(ze_driver_gpu_type_${_variant} SOURCES ze_driver/gpu_type.c
               LABELS "ze_driver;ours-only" TIMEOUT 120 ENVIRONMENT ${_env})
  if(TARGET ze_driver_gpu_type_${_variant})
    target_link_libraries(ze_driver_gpu_type_${_variant} PRIVATE m)
  endif()
endforeach()

# The Level Zero primitive tests once more on a device the driver reports as a GPU:
# the library's choices for GPUs must work there too.
dnnl_ze_test(ze_primitives_as_gpu SOURCES interop/ze/primitives.c LABELS "api;ze"
             TIMEOUT 120 ENVIRONMENT "ZE_OCL_DEVICE_TYPE=gpu")
if(TARGET ze_primitives_as_gpu)
  target_link_libraries(ze_primitives_as_gpu PRIVATE m)
endif()
