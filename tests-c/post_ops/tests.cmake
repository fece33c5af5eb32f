# Post-ops through the official API (matmul, inner product, eltwise, binary,
# softmax), compared with references computed in the test. Runs on the CPU
# engine (post_ops) and on every OpenCL runtime (post_ops_ocl@pocl,
# post_ops_ocl@intel; skipped without a device).
# Labelled ours-only: some chains (a sum after softmax or eltwise, say) are
# ones we apply where upstream may refuse them. Included from tests-c/CMakeLists.txt.

dnnl_c_test(post_ops SOURCES post_ops/post_ops.c LABELS "api;cpu;ours-only" ARGS cpu TIMEOUT 60)
dnnl_c_test(post_ops_ocl SOURCES post_ops/post_ops.c LABELS "api;ours-only" OPENCL ARGS gpu TIMEOUT 120)
# The references use libm.
target_link_libraries(post_ops PRIVATE m)
target_link_libraries(post_ops_ocl PRIVATE m)

# The post-op sweep (sweep.c): every eltwise and binary algorithm, sum with a type and
# zero point, prelu, broadcast operands, in generated chains, on every kind that applies
# post-ops; on the CPU engine, each OpenCL runtime and the Level Zero test driver.
dnnl_c_test(post_ops_sweep SOURCES post_ops/sweep.c LABELS "api;cpu;ours-only" ARGS cpu TIMEOUT 120)
dnnl_c_test(post_ops_sweep_ocl SOURCES post_ops/sweep.c LABELS "api;ours-only" OPENCL ARGS gpu
            TIMEOUT 600)
target_link_libraries(post_ops_sweep PRIVATE m)
target_link_libraries(post_ops_sweep_ocl PRIVATE m)
dnnl_ze_test(post_ops_sweep_ze NO_VALIDATION SOURCES post_ops/sweep.c LABELS "api;ours-only" TIMEOUT 600
             ENVIRONMENT ONEDNN_GPU_RUNTIME=ze)
if(TARGET post_ops_sweep_ze)
  target_link_libraries(post_ops_sweep_ze PRIVATE m)
endif()
