# Inner product through the official API, compared with references computed
# in the test (with matmul/common.h, which it shares with the matmul test). It
# runs on the CPU engine (<name>) and on every OpenCL runtime (<name>_ocl@pocl,
# <name>_ocl@intel; skipped without a device). The names keep the matmul_
# prefix they were registered with when the file lived in matmul/.
# Included from tests-c/CMakeLists.txt.

dnnl_c_test(matmul_inner_product SOURCES inner_product/inner_product.c LABELS "api;cpu"
            ARGS cpu TIMEOUT 120)
dnnl_c_test(matmul_inner_product_ocl SOURCES inner_product/inner_product.c LABELS "api"
            OPENCL ARGS gpu TIMEOUT 300)
foreach(t matmul_inner_product matmul_inner_product_ocl)
  target_link_libraries(${t} PRIVATE m)
endforeach()

# Int8 inner product forward: a sweep against an exact integer reference (ip_int8.c).
dnnl_c_test(inner_product_ip_int8 SOURCES inner_product/ip_int8.c LABELS "api;cpu" ARGS cpu
            TIMEOUT 120)
dnnl_c_test(inner_product_ip_int8_ocl SOURCES inner_product/ip_int8.c LABELS "api" OPENCL
            ARGS gpu TIMEOUT 600)
foreach(t inner_product_ip_int8 inner_product_ip_int8_ocl)
  target_link_libraries(${t} PRIVATE m)
endforeach()
