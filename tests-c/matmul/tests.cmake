# Matmul through the official API, compared with references computed in the
# test (common.h is shared with inner_product/). It runs on the CPU engine
# (<name>) and on every OpenCL runtime (<name>_ocl@pocl, <name>_ocl@intel;
# skipped without a device).
# Included from tests-c/CMakeLists.txt.

dnnl_c_test(matmul_matmul SOURCES matmul/matmul.c LABELS "api;cpu" ARGS cpu TIMEOUT 120)
dnnl_c_test(matmul_matmul_ocl SOURCES matmul/matmul.c LABELS "api" OPENCL ARGS gpu
            TIMEOUT 300)
foreach(t matmul_matmul matmul_matmul_ocl)
  target_link_libraries(${t} PRIVATE m)
endforeach()

# `any` resolved for shapes with dimensions of 1 and batch dimensions (strides checked).
dnnl_c_test(matmul_any SOURCES matmul/matmul_any.c LABELS "api;cpu" ARGS cpu)
dnnl_c_test(matmul_any_ocl SOURCES matmul/matmul_any.c LABELS "api" OPENCL ARGS gpu)
# Int8 matmul: a sweep against an exact integer reference (matmul_int8.c).
dnnl_c_test(matmul_matmul_int8 SOURCES matmul/matmul_int8.c LABELS "api;cpu" ARGS cpu
            TIMEOUT 120)
dnnl_c_test(matmul_matmul_int8_ocl SOURCES matmul/matmul_int8.c LABELS "api" OPENCL ARGS gpu
            TIMEOUT 600)
foreach(t matmul_matmul_int8 matmul_matmul_int8_ocl)
  target_link_libraries(${t} PRIVATE m)
endforeach()
