# Primitive attribute and post-op tests (dnnl_primitive_attr_*, dnnl_post_ops_*).
# Included from tests-c/CMakeLists.txt.

dnnl_c_test(attr_basic SOURCES attr/basic.c LABELS "api;cpu")
dnnl_c_test(attr_quant SOURCES attr/quant.c LABELS "api;cpu")
dnnl_c_test(attr_post_ops SOURCES attr/post_ops.c LABELS "api;cpu")
dnnl_c_test(attr_default_fpmath_env SOURCES attr/default_fpmath_env.c LABELS "api;cpu"
            ENVIRONMENT "ONEDNN_DEFAULT_FPMATH_MODE=TF32")
dnnl_c_test(attr_ours_only SOURCES attr/ours_only.c LABELS "api;cpu;ours-only")
