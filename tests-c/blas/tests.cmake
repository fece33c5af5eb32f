# The BLAS-style GEMMs (dnnl_sgemm, dnnl_gemm_u8s8s32, dnnl_gemm_s8s8s32) and the
# threadpool interop functions, on the host; each also runs against Intel's library
# (<name>@ref). Included from tests-c/CMakeLists.txt.

dnnl_c_test(blas_sgemm_sweep SOURCES blas/sgemm_sweep.c LABELS "api;cpu" TIMEOUT 300)
dnnl_c_test(blas_gemm_int8_sweep SOURCES blas/gemm_int8_sweep.c LABELS "api;cpu" TIMEOUT 300)
dnnl_c_test(blas_gemm_bad_input SOURCES blas/gemm_bad_input.c LABELS "api;cpu")
foreach(t blas_sgemm_sweep blas_gemm_int8_sweep blas_gemm_bad_input)
  target_link_libraries(${t} PRIVATE m)
endforeach()

# dnnl_threadpool_interop_*: absent from Intel's non-threadpool build (@ref), present
# and dnnl_unimplemented here.
dnnl_c_test(blas_threadpool_interop SOURCES blas/threadpool_interop.c LABELS "api;cpu")
target_link_libraries(blas_threadpool_interop PRIVATE ${CMAKE_DL_LIBS})
