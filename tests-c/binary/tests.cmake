# Binary through the official API, compared with references computed in the
# test. It runs on the CPU engine (<name>) and on every OpenCL runtime
# (<name>_ocl@pocl, <name>_ocl@intel; skipped without a device).
# Included from tests-c/CMakeLists.txt.

dnnl_c_test(binary_binary SOURCES binary/binary.c LABELS "api;cpu" ARGS cpu TIMEOUT 120)
dnnl_c_test(binary_binary_ocl SOURCES binary/binary.c LABELS "api" OPENCL ARGS gpu
            TIMEOUT 300)
# The references use libm.
foreach(t binary_binary binary_binary_ocl)
  target_link_libraries(${t} PRIVATE m)
endforeach()
