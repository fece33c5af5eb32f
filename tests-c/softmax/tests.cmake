# Softmax through the official API, compared with references computed in the
# test. It runs on the CPU engine (<name>) and on every OpenCL runtime
# (<name>_ocl@pocl, <name>_ocl@intel; skipped without a device). The names keep
# the binary_ prefix they were registered with when the file lived in binary/.
# Included from tests-c/CMakeLists.txt.

dnnl_c_test(binary_softmax SOURCES softmax/softmax.c LABELS "api;cpu" ARGS cpu TIMEOUT 120)
dnnl_c_test(binary_softmax_ocl SOURCES softmax/softmax.c LABELS "api" OPENCL ARGS gpu
            TIMEOUT 300)
# The reference uses libm.
foreach(t binary_softmax binary_softmax_ocl)
  target_link_libraries(${t} PRIVATE m)
endforeach()
