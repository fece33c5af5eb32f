/* The graph API on the CPU engine: every function of dnnl_graph.h apart
 * from allocators and tensors (tests-c/graph_ocl), their error cases, and
 * one-op partitions of each lowered kind executed and compared with values
 * computed here, plus the int8 Dequantize -> MatMul -> Quantize pattern as
 * one partition. */
#include <unistd.h>

#include "graph_util.h"

static dnnl_engine_t eng;
static dnnl_stream_t strm;

#define IA dnnl_invalid_arguments

static void logical_tensors(void) {
    dnnl_graph_logical_tensor_t lt, other;
    uint8_t eq;
    size_t size;
    CHECK(dnnl_graph_logical_tensor_init(&lt, 1, dnnl_f32, DNNL_GRAPH_UNKNOWN_NDIMS,
            dnnl_graph_layout_type_any, dnnl_graph_tensor_property_undef));
    EXPECT(lt.ndims == -1 && lt.dims[0] == DNNL_GRAPH_UNKNOWN_DIM);
    CHECK(dnnl_graph_logical_tensor_get_mem_size(&lt, &size));
    EXPECT(size == SIZE_MAX);
    CHECK_STATUS(dnnl_graph_logical_tensor_init(&lt, 1, dnnl_f32, 13,
            dnnl_graph_layout_type_strided, dnnl_graph_tensor_property_undef), IA);
    CHECK_STATUS(dnnl_graph_logical_tensor_init(NULL, 1, dnnl_f32, 2,
            dnnl_graph_layout_type_strided, dnnl_graph_tensor_property_undef), IA);
    int64_t dims[] = {2, 0, 4};
    lt = lt_dims(1, dnnl_f32, 3, dims, dnnl_graph_layout_type_strided, dnnl_graph_tensor_property_undef);
    EXPECT(lt.layout.strides[0] == 4 && lt.layout.strides[1] == 4 && lt.layout.strides[2] == 1);
    CHECK(dnnl_graph_logical_tensor_get_mem_size(&lt, &size));
    EXPECT(size == 0);
    int64_t unknown[] = {2, DNNL_GRAPH_UNKNOWN_DIM};
    lt = lt_dims(1, dnnl_f32, 2, unknown, dnnl_graph_layout_type_strided, dnnl_graph_tensor_property_undef);
    EXPECT(lt.layout.strides[0] == DNNL_GRAPH_UNKNOWN_DIM);
    CHECK_STATUS(dnnl_graph_logical_tensor_init_with_dims(&lt, 1, dnnl_f32, 2, NULL,
            dnnl_graph_layout_type_strided, dnnl_graph_tensor_property_undef), IA);
    CHECK(dnnl_graph_logical_tensor_init_with_dims(&lt, 1, dnnl_f32, 0, NULL,
            dnnl_graph_layout_type_strided, dnnl_graph_tensor_property_undef));
    CHECK(dnnl_graph_logical_tensor_get_mem_size(&lt, &size));
    EXPECT(size == 4);
    int64_t d23[] = {2, 3}, col[] = {1, 2};
    CHECK(dnnl_graph_logical_tensor_init_with_strides(&lt, 5, dnnl_f32, 2, d23, col,
            dnnl_graph_tensor_property_constant));
    CHECK(dnnl_graph_logical_tensor_get_mem_size(&lt, &size));
    EXPECT(size == 24 && lt.layout_type == dnnl_graph_layout_type_strided);
    other = lt;
    other.dims[7] = 99; /* past ndims: ignored */
    CHECK(dnnl_graph_logical_tensor_is_equal(&lt, &other, &eq));
    EXPECT(eq == 1);
    other.property = dnnl_graph_tensor_property_variable;
    CHECK(dnnl_graph_logical_tensor_is_equal(&lt, &other, &eq));
    EXPECT(eq == 0);
    CHECK_STATUS(dnnl_graph_logical_tensor_is_equal(&lt, NULL, &eq), IA);
    CHECK_STATUS(dnnl_graph_logical_tensor_get_mem_size(NULL, &size), IA);
    printf("logical tensors: ok\n");
}

static void ops(void) {
    dnnl_graph_op_t op;
    CHECK_STATUS(dnnl_graph_op_create(&op, 1, dnnl_graph_op_relu, NULL), IA);
    CHECK(dnnl_graph_op_create(&op, 42, dnnl_graph_op_elu, "elu"));
    float alpha = 0.5f;
    int64_t axes[] = {0, 1};
    uint8_t yes = 1;
    CHECK(dnnl_graph_op_set_attr_f32(op, dnnl_graph_op_attr_alpha, &alpha, 1));
    CHECK(dnnl_graph_op_set_attr_s64(op, dnnl_graph_op_attr_axes, axes, 2));
    CHECK(dnnl_graph_op_set_attr_bool(op, dnnl_graph_op_attr_keep_dims, &yes, 1));
    CHECK(dnnl_graph_op_set_attr_str(op, dnnl_graph_op_attr_auto_broadcast, "numpy", 5));
    CHECK_STATUS(dnnl_graph_op_set_attr_f32(op, dnnl_graph_op_attr_alpha, NULL, 1), IA);
    size_t id;
    dnnl_graph_op_kind_t kind;
    CHECK(dnnl_graph_op_get_id(op, &id));
    CHECK(dnnl_graph_op_get_kind(op, &kind));
    EXPECT(id == 42 && kind == dnnl_graph_op_elu);
    CHECK_STATUS(dnnl_graph_op_get_id(op, NULL), IA);
    CHECK(dnnl_graph_op_destroy(op));
    CHECK_STATUS(dnnl_graph_op_destroy(op), IA);
    CHECK_STATUS(dnnl_graph_op_get_id(op, &id), IA);
    printf("ops: ok\n");
}

static dnnl_graph_logical_tensor_t T(size_t id) {
    int64_t d[] = {2, 3};
    return lt_f32(id, 2, d);
}

static dnnl_graph_op_t unary(size_t id, dnnl_graph_op_kind_t kind, size_t in, size_t out) {
    dnnl_graph_logical_tensor_t i = T(in), o = T(out);
    return make_op(id, kind, "u", 1, &i, 1, &o);
}

static void graphs(void) {
    dnnl_graph_graph_t g;
    CHECK_STATUS(dnnl_graph_graph_create(&g, dnnl_any_engine), IA);
    CHECK(dnnl_graph_graph_create_with_fpmath_mode(&g, dnnl_cpu, dnnl_fpmath_mode_bf16));
    dnnl_fpmath_mode_t mode;
    int apply;
    CHECK(dnnl_graph_graph_get_fpmath_mode(g, &mode, &apply));
    EXPECT(mode == dnnl_fpmath_mode_bf16 && apply == 0);
    CHECK(dnnl_graph_graph_set_fpmath_mode(g, dnnl_fpmath_mode_strict, 1));
    CHECK(dnnl_graph_graph_get_fpmath_mode(g, &mode, &apply));
    EXPECT(mode == dnnl_fpmath_mode_strict && apply == 1);

    /* Schema checks at add_op. */
    dnnl_graph_logical_tensor_t two[] = {T(1), T(2)}, o = T(3);
    dnnl_graph_op_t op = make_op(1, dnnl_graph_op_relu, "relu2", 2, two, 1, &o);
    CHECK_STATUS(dnnl_graph_add_op(g, op), dnnl_invalid_graph_op);
    CHECK(dnnl_graph_op_destroy(op));
    op = unary(2, dnnl_graph_op_elu, 1, 2);
    CHECK_STATUS(dnnl_graph_add_op(g, op), dnnl_invalid_graph_op); /* alpha is required */
    int64_t one = 1;
    CHECK(dnnl_graph_op_set_attr_s64(op, dnnl_graph_op_attr_alpha, &one, 1));
    CHECK_STATUS(dnnl_graph_add_op(g, op), dnnl_invalid_graph_op); /* alpha is f32 */
    CHECK(dnnl_graph_op_destroy(op));
    op = unary(3, dnnl_graph_op_softmax, 1, 2);
    float axis_f = 1;
    CHECK(dnnl_graph_op_set_attr_f32(op, dnnl_graph_op_attr_axis, &axis_f, 1));
    CHECK_STATUS(dnnl_graph_add_op(g, op), dnnl_invalid_graph_op);
    CHECK(dnnl_graph_op_destroy(op));
    op = unary(4, dnnl_graph_op_end, 1, 2); /* End has no output */
    CHECK_STATUS(dnnl_graph_add_op(g, op), dnnl_invalid_graph_op);
    CHECK(dnnl_graph_op_destroy(op));
    CHECK_STATUS(dnnl_graph_add_op(g, NULL), IA);

    /* A valid chain, an op id added twice, an End. */
    add_and_destroy(g, unary(10, dnnl_graph_op_relu, 1, 2));
    add_and_destroy(g, unary(10, dnnl_graph_op_tanh, 7, 8)); /* same id: ignored */
    add_and_destroy(g, unary(11, dnnl_graph_op_wildcard, 2, 3));
    int64_t d[] = {2, 3}, k[] = {1, 3, 1, 1};
    dnnl_graph_logical_tensor_t conv_in[] = {T(3), lt_f32(20, 4, k)}, conv_out = lt_f32(4, 4, k);
    conv_in[0] = lt_f32(3, 2, d);
    add_and_destroy(g, unary(12, dnnl_graph_op_sigmoid, 3, 5));
    dnnl_graph_logical_tensor_t end_in = T(5);
    dnnl_graph_op_t end;
    CHECK(dnnl_graph_op_create(&end, 13, dnnl_graph_op_end, "end"));
    CHECK(dnnl_graph_op_add_input(end, &end_in));
    add_and_destroy(g, end);
    (void)conv_in;
    (void)conv_out;

    size_t n = 99;
    CHECK(dnnl_graph_graph_get_partition_num(g, &n));
    EXPECT(n == 0);
    CHECK_STATUS(dnnl_graph_graph_filter(g, dnnl_graph_partition_policy_fusion), dnnl_invalid_graph);
    uint8_t fin;
    CHECK(dnnl_graph_graph_is_finalized(g, &fin));
    EXPECT(fin == 0);
    CHECK(dnnl_graph_graph_finalize(g));
    CHECK(dnnl_graph_graph_finalize(g));
    CHECK(dnnl_graph_graph_is_finalized(g, &fin));
    EXPECT(fin == 1);
    op = unary(14, dnnl_graph_op_relu, 5, 6);
    CHECK_STATUS(dnnl_graph_add_op(g, op), dnnl_invalid_graph);
    CHECK(dnnl_graph_op_destroy(op));
    CHECK_STATUS(dnnl_graph_graph_set_fpmath_mode(g, dnnl_fpmath_mode_bf16, 0), dnnl_invalid_graph);
    CHECK(dnnl_graph_graph_filter(g, dnnl_graph_partition_policy_fusion));
    CHECK(dnnl_graph_graph_get_partition_num(g, &n));
    EXPECT(n == 3); /* relu, wildcard (unsupported), sigmoid; End belongs to none */
    dnnl_graph_partition_t parts[3];
    CHECK_STATUS(dnnl_graph_graph_get_partitions(g, 2, parts), IA);
    CHECK(dnnl_graph_graph_get_partitions(g, 3, parts));
    const uint8_t want_sup[] = {1, 0, 1};
    for (int i = 0; i < 3; i++) {
        uint8_t sup;
        dnnl_engine_kind_t ek;
        size_t pid;
        CHECK(dnnl_graph_partition_is_supported(parts[i], &sup));
        EXPECT(sup == want_sup[i]);
        CHECK(dnnl_graph_partition_get_engine_kind(parts[i], &ek));
        EXPECT(ek == dnnl_cpu);
        CHECK(dnnl_graph_partition_get_id(parts[i], &pid));
        size_t ids[2];
        CHECK_STATUS(dnnl_graph_partition_get_ops(parts[i], 2, ids), IA);
    }
    dnnl_graph_compiled_partition_t cp;
    CHECK(dnnl_graph_compiled_partition_create(&cp, parts[1]));
    dnnl_graph_logical_tensor_t in2 = T(2), out3 = T(3);
    const dnnl_graph_logical_tensor_t *pin[] = {&in2}, *pout[] = {&out3};
    CHECK_STATUS(dnnl_graph_partition_compile(parts[1], cp, 1, pin, 1, pout, eng), IA);
    dnnl_graph_logical_tensor_t q;
    CHECK_STATUS(dnnl_graph_compiled_partition_query_logical_tensor(cp, 3, &q), IA);
    CHECK(dnnl_graph_compiled_partition_destroy(cp));
    for (int i = 0; i < 3; i++) CHECK(dnnl_graph_partition_destroy(parts[i]));
    CHECK(dnnl_graph_graph_filter(g, dnnl_graph_partition_policy_debug));
    CHECK(dnnl_graph_graph_get_partition_num(g, &n));
    EXPECT(n == 3);
    CHECK(dnnl_graph_graph_destroy(g));
    CHECK_STATUS(dnnl_graph_graph_destroy(g), IA);

    /* A cycle, an op reading its own output, one id with two shapes. */
    CHECK(dnnl_graph_graph_create(&g, dnnl_cpu));
    add_and_destroy(g, unary(1, dnnl_graph_op_relu, 1, 2));
    add_and_destroy(g, unary(2, dnnl_graph_op_tanh, 2, 1));
    CHECK_STATUS(dnnl_graph_graph_finalize(g), dnnl_invalid_graph);
    CHECK(dnnl_graph_graph_destroy(g));
    CHECK(dnnl_graph_graph_create(&g, dnnl_cpu));
    add_and_destroy(g, unary(1, dnnl_graph_op_relu, 1, 1));
    CHECK_STATUS(dnnl_graph_graph_finalize(g), dnnl_invalid_graph);
    CHECK(dnnl_graph_graph_destroy(g));
    CHECK(dnnl_graph_graph_create(&g, dnnl_cpu));
    add_and_destroy(g, unary(1, dnnl_graph_op_relu, 1, 2));
    int64_t other[] = {4, 5};
    dnnl_graph_logical_tensor_t i2 = lt_f32(2, 2, other), o3 = lt_f32(3, 2, other);
    add_and_destroy(g, make_op(2, dnnl_graph_op_tanh, "t", 1, &i2, 1, &o3));
    CHECK_STATUS(dnnl_graph_graph_finalize(g), dnnl_invalid_graph);
    CHECK(dnnl_graph_graph_destroy(g));
    /* Two ops producing one id: accepted, as upstream. */
    CHECK(dnnl_graph_graph_create(&g, dnnl_cpu));
    add_and_destroy(g, unary(1, dnnl_graph_op_relu, 1, 2));
    add_and_destroy(g, unary(2, dnnl_graph_op_tanh, 3, 2));
    CHECK(dnnl_graph_graph_finalize(g));
    CHECK(dnnl_graph_graph_destroy(g));
    printf("graphs and partitions: ok\n");
}

/* Compiles a one-op partition of `op` with inputs `ins` and output `out`
 * (its layout may be any), runs it on host data, and reads the output. */
static void run_op(dnnl_graph_op_t op, int nin, const dnnl_graph_logical_tensor_t *ins,
        void *const *in_data, dnnl_graph_logical_tensor_t out, void *out_data,
        size_t *out_inplace) {
    dnnl_graph_partition_t p;
    CHECK(dnnl_graph_partition_create_with_op(&p, op, dnnl_cpu));
    uint8_t sup;
    CHECK(dnnl_graph_partition_is_supported(p, &sup));
    EXPECT(sup == 1);
    dnnl_graph_compiled_partition_t cp;
    CHECK(dnnl_graph_compiled_partition_create(&cp, p));
    const dnnl_graph_logical_tensor_t *pin[4], *pout[] = {&out};
    for (int i = 0; i < nin; i++) pin[i] = &ins[i];
    CHECK(dnnl_graph_partition_compile(p, cp, nin, pin, 1, pout, eng));
    dnnl_graph_logical_tensor_t resolved;
    CHECK(dnnl_graph_compiled_partition_query_logical_tensor(cp, out.id, &resolved));
    EXPECT(resolved.layout_type == dnnl_graph_layout_type_strided && resolved.ndims >= 0);
    size_t npairs;
    const dnnl_graph_inplace_pair_t *pairs;
    CHECK(dnnl_graph_compiled_partition_get_inplace_ports(cp, &npairs, &pairs));
    if (out_inplace) *out_inplace = npairs;
    dnnl_graph_tensor_t ti[4], to;
    for (int i = 0; i < nin; i++) CHECK(dnnl_graph_tensor_create(&ti[i], &ins[i], eng, in_data[i]));
    CHECK(dnnl_graph_tensor_create(&to, &resolved, eng, out_data));
    CHECK(dnnl_graph_compiled_partition_execute(cp, strm, nin, (const_dnnl_graph_tensor_t *)ti, 1, (const_dnnl_graph_tensor_t *)&to));
    /* Wrong tensor counts and a tensor of an unknown id are refused. */
    CHECK_STATUS(dnnl_graph_compiled_partition_execute(cp, strm, nin - 1, (const_dnnl_graph_tensor_t *)ti, 1, (const_dnnl_graph_tensor_t *)&to), IA);
    CHECK_STATUS(dnnl_graph_compiled_partition_execute(cp, strm, 1, (const_dnnl_graph_tensor_t *)&to, nin, (const_dnnl_graph_tensor_t *)ti), IA);
    CHECK_STATUS(dnnl_graph_compiled_partition_execute(cp, NULL, nin, (const_dnnl_graph_tensor_t *)ti, 1, (const_dnnl_graph_tensor_t *)&to), IA);
    for (int i = 0; i < nin; i++) CHECK(dnnl_graph_tensor_destroy(ti[i]));
    CHECK(dnnl_graph_tensor_destroy(to));
    CHECK(dnnl_graph_compiled_partition_destroy(cp));
    CHECK(dnnl_graph_partition_destroy(p));
    CHECK(dnnl_graph_op_destroy(op));
}

static dnnl_graph_logical_tensor_t any_out(size_t id, dnnl_data_type_t dt) {
    dnnl_graph_logical_tensor_t lt;
    CHECK(dnnl_graph_logical_tensor_init(&lt, id, dt, DNNL_GRAPH_UNKNOWN_NDIMS,
            dnnl_graph_layout_type_any, dnnl_graph_tensor_property_variable));
    return lt;
}

static void executions(void) {
    float a[6] = {-1, 2, -3, 4, -5, 6}, b[3] = {10, 20, 30}, out[6], want[6];
    int64_t d23[] = {2, 3}, d3[] = {3}, d32[] = {3, 2}, d6[] = {6};
    dnnl_graph_logical_tensor_t la = lt_f32(1, 2, d23), lb = lt_f32(2, 1, d3);
    size_t npairs;
    dnnl_graph_logical_tensor_t o9 = any_out(9, dnnl_f32), o9u8 = any_out(9, dnnl_u8);

    /* ReLU (in place possible). */
    dnnl_graph_op_t op = make_op(1, dnnl_graph_op_relu, "relu", 1, &la, 1, &o9);
    void *in1[] = {a};
    run_op(op, 1, &la, in1, any_out(9, dnnl_f32), out, &npairs);
    for (int i = 0; i < 6; i++) want[i] = a[i] > 0 ? a[i] : 0;
    expect_close(out, want, 6, 0, "relu");
    EXPECT(npairs == 1);

    /* Add with numpy broadcasting of a 1-D operand. */
    dnnl_graph_logical_tensor_t lab[] = {la, lb};
    op = make_op(2, dnnl_graph_op_add, "add", 2, lab, 1, &o9);
    void *in2[] = {a, b};
    run_op(op, 2, lab, in2, any_out(9, dnnl_f32), out, NULL);
    for (int i = 0; i < 6; i++) want[i] = a[i] + b[i % 3];
    expect_close(out, want, 6, 0, "add");

    /* SquaredDifference. */
    op = make_op(3, dnnl_graph_op_squared_difference, "sqd", 2, lab, 1, &o9);
    run_op(op, 2, lab, in2, any_out(9, dnnl_f32), out, NULL);
    for (int i = 0; i < 6; i++) want[i] = (a[i] - b[i % 3]) * (a[i] - b[i % 3]);
    expect_close(out, want, 6, 1e-6f, "squared_difference");

    /* BiasAdd (NXC: the last axis). */
    op = make_op(4, dnnl_graph_op_bias_add, "bias", 2, lab, 1, &o9);
    run_op(op, 2, lab, in2, any_out(9, dnnl_f32), out, NULL);
    for (int i = 0; i < 6; i++) want[i] = a[i] + b[i % 3];
    expect_close(out, want, 6, 0, "bias_add");

    /* SoftMax over axis 1. */
    op = make_op(5, dnnl_graph_op_softmax, "sm", 1, &la, 1, &o9);
    int64_t axis = 1;
    CHECK(dnnl_graph_op_set_attr_s64(op, dnnl_graph_op_attr_axis, &axis, 1));
    run_op(op, 1, &la, in1, any_out(9, dnnl_f32), out, NULL);
    for (int r = 0; r < 2; r++) {
        float mx = -1e30f, s = 0;
        for (int c = 0; c < 3; c++) mx = fmaxf(mx, a[r * 3 + c]);
        for (int c = 0; c < 3; c++) s += expf(a[r * 3 + c] - mx);
        for (int c = 0; c < 3; c++) want[r * 3 + c] = expf(a[r * 3 + c] - mx) / s;
    }
    expect_close(out, want, 6, 1e-5f, "softmax");

    /* StaticTranspose [2,3] -> [3,2]. */
    op = make_op(6, dnnl_graph_op_static_transpose, "tr", 1, &la, 1, &o9);
    int64_t order[] = {1, 0};
    CHECK(dnnl_graph_op_set_attr_s64(op, dnnl_graph_op_attr_order, order, 2));
    run_op(op, 1, &la, in1, any_out(9, dnnl_f32), out, NULL);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 2; c++) want[r * 2 + c] = a[c * 3 + r];
    expect_close(out, want, 6, 0, "transpose");

    /* StaticReshape [2,3] -> [6] (shape given with -1). */
    op = make_op(7, dnnl_graph_op_static_reshape, "rs", 1, &la, 1, &o9);
    int64_t shape[] = {-1};
    uint8_t no = 0;
    CHECK(dnnl_graph_op_set_attr_s64(op, dnnl_graph_op_attr_shape, shape, 1));
    CHECK(dnnl_graph_op_set_attr_bool(op, dnnl_graph_op_attr_special_zero, &no, 1));
    run_op(op, 1, &la, in1, lt_f32(9, 1, d6), out, NULL);
    expect_close(out, a, 6, 0, "reshape");

    /* Concat along axis 0: [2,3] + [2,3]. */
    dnnl_graph_logical_tensor_t la2 = lt_f32(2, 2, d23), lcat[] = {la, la2};
    op = make_op(8, dnnl_graph_op_concat, "cat", 2, lcat, 1, &o9);
    int64_t zero = 0;
    CHECK(dnnl_graph_op_set_attr_s64(op, dnnl_graph_op_attr_axis, &zero, 1));
    float cat[12], a2[6] = {7, 8, 9, 10, 11, 12};
    void *incat[] = {a, a2};
    run_op(op, 2, lcat, incat, any_out(9, dnnl_f32), cat, NULL);
    expect_close(cat, a, 6, 0, "concat[0]");
    expect_close(cat + 6, a2, 6, 0, "concat[1]");

    /* Quantize per tensor (scale 0.5, zero point 3) to u8, then Dequantize. */
    op = make_op(9, dnnl_graph_op_quantize, "q", 1, &la, 1, &o9u8);
    float scale = 0.5f;
    int64_t zp = 3;
    CHECK(dnnl_graph_op_set_attr_f32(op, dnnl_graph_op_attr_scales, &scale, 1));
    CHECK(dnnl_graph_op_set_attr_s64(op, dnnl_graph_op_attr_zps, &zp, 1));
    CHECK(dnnl_graph_op_set_attr_str(op, dnnl_graph_op_attr_qtype, "per_tensor", 10));
    uint8_t qv[6];
    run_op(op, 1, &la, in1, any_out(9, dnnl_u8), qv, NULL);
    for (int i = 0; i < 6; i++) {
        float v = nearbyintf(a[i] / scale) + 3;
        uint8_t w = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        EXPECT(qv[i] == w);
    }
    dnnl_graph_logical_tensor_t lq = lt_dims(1, dnnl_u8, 2, d23, dnnl_graph_layout_type_strided,
            dnnl_graph_tensor_property_variable);
    op = make_op(10, dnnl_graph_op_dequantize, "dq", 1, &lq, 1, &o9);
    CHECK(dnnl_graph_op_set_attr_f32(op, dnnl_graph_op_attr_scales, &scale, 1));
    CHECK(dnnl_graph_op_set_attr_s64(op, dnnl_graph_op_attr_zps, &zp, 1));
    void *inq[] = {qv};
    run_op(op, 1, &lq, inq, any_out(9, dnnl_f32), out, NULL);
    for (int i = 0; i < 6; i++) want[i] = ((float)qv[i] - 3) * scale;
    expect_close(out, want, 6, 0, "dequantize");

    /* GELU (erf) and its backward op exist as eltwise primitives. */
    op = make_op(11, dnnl_graph_op_gelu, "gelu", 1, &la, 1, &o9);
    run_op(op, 1, &la, in1, any_out(9, dnnl_f32), out, NULL);
    for (int i = 0; i < 6; i++) want[i] = 0.5f * a[i] * (1 + erff(a[i] / sqrtf(2)));
    expect_close(out, want, 6, 1e-5f, "gelu");
    dnnl_graph_logical_tensor_t lbw[] = {la, lt_f32(2, 2, d23)};
    op = make_op(12, dnnl_graph_op_relu_backward, "relu_bw", 2, lbw, 1, &o9);
    uint8_t use_src = 0;
    CHECK(dnnl_graph_op_set_attr_bool(op, dnnl_graph_op_attr_use_dst, &use_src, 1));
    /* A gradient of both signs and no two values alike: a kernel that ignores it, or
     * mixes its elements up, fails. */
    float dd[6] = {0.75f, -1.5f, 2.25f, -3.5f, 0.125f, -0.625f};
    void *inbw[] = {a, dd};
    run_op(op, 2, lbw, inbw, any_out(9, dnnl_f32), out, NULL);
    for (int i = 0; i < 6; i++) want[i] = a[i] > 0 ? dd[i] : 0;
    expect_close(out, want, 6, 0, "relu_backward");

    /* MatMul with transpose_b: [2,3] x [2,3]^T. */
    dnnl_graph_logical_tensor_t lmm[] = {la, lt_f32(2, 2, d23)};
    op = make_op(13, dnnl_graph_op_matmul, "mm", 2, lmm, 1, &o9);
    uint8_t yes = 1;
    CHECK(dnnl_graph_op_set_attr_bool(op, dnnl_graph_op_attr_transpose_b, &yes, 1));
    void *inmm[] = {a, a2};
    float mm[4], mmw[4];
    run_op(op, 2, lmm, inmm, any_out(9, dnnl_f32), mm, NULL);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            mmw[i * 2 + j] = 0;
            for (int k = 0; k < 3; k++) mmw[i * 2 + j] += a[i * 3 + k] * a2[j * 3 + k];
        }
    expect_close(mm, mmw, 4, 1e-5f, "matmul");
    (void)d32;
    printf("one-op partitions (ReLU, Add, SquaredDifference, BiasAdd, SoftMax, StaticTranspose, "
           "StaticReshape, Concat, Quantize, Dequantize, GELU, ReLUBackward, MatMul): ok\n");
}

/* Dequantize(u8 src) + Dequantize(s8 constant weights) -> MatMul -> ReLU ->
 * Quantize(u8) is one partition. */
static void int8_pattern(void) {
    enum { M = 2, K = 4, N = 3 };
    int64_t dmk[] = {M, K}, dkn[] = {K, N}, dmn[] = {M, N};
    dnnl_graph_logical_tensor_t xs = lt_dims(1, dnnl_u8, 2, dmk, dnnl_graph_layout_type_strided, dnnl_graph_tensor_property_variable),
            xw = lt_dims(2, dnnl_s8, 2, dkn, dnnl_graph_layout_type_strided, dnnl_graph_tensor_property_constant),
            fs = lt_f32(3, 2, dmk), fw = lt_f32(4, 2, dkn), mo = lt_f32(5, 2, dmn), ro = lt_f32(6, 2, dmn),
            qo = lt_dims(7, dnnl_u8, 2, dmn, dnnl_graph_layout_type_strided, dnnl_graph_tensor_property_variable);
    /* Powers of two: the f32 arithmetic is exact, and so is the u8 result. */
    float ss = 0.5f, sw = 0.25f, so = 0.25f;
    int64_t zs = 10, zw = 0, zo = 5;
    dnnl_graph_graph_t g;
    CHECK(dnnl_graph_graph_create(&g, dnnl_cpu));
    dnnl_graph_op_t op = make_op(1, dnnl_graph_op_dequantize, "dq_src", 1, &xs, 1, &fs);
    CHECK(dnnl_graph_op_set_attr_f32(op, dnnl_graph_op_attr_scales, &ss, 1));
    CHECK(dnnl_graph_op_set_attr_s64(op, dnnl_graph_op_attr_zps, &zs, 1));
    add_and_destroy(g, op);
    op = make_op(2, dnnl_graph_op_dequantize, "dq_wei", 1, &xw, 1, &fw);
    CHECK(dnnl_graph_op_set_attr_f32(op, dnnl_graph_op_attr_scales, &sw, 1));
    CHECK(dnnl_graph_op_set_attr_s64(op, dnnl_graph_op_attr_zps, &zw, 1));
    add_and_destroy(g, op);
    dnnl_graph_logical_tensor_t mmin[] = {fs, fw};
    add_and_destroy(g, make_op(3, dnnl_graph_op_matmul, "mm", 2, mmin, 1, &mo));
    add_and_destroy(g, make_op(4, dnnl_graph_op_relu, "relu", 1, &mo, 1, &ro));
    op = make_op(5, dnnl_graph_op_quantize, "q", 1, &ro, 1, &qo);
    CHECK(dnnl_graph_op_set_attr_f32(op, dnnl_graph_op_attr_scales, &so, 1));
    CHECK(dnnl_graph_op_set_attr_s64(op, dnnl_graph_op_attr_zps, &zo, 1));
    add_and_destroy(g, op);
    CHECK(dnnl_graph_graph_finalize(g));
    CHECK(dnnl_graph_graph_filter(g, dnnl_graph_partition_policy_fusion));
    size_t n;
    CHECK(dnnl_graph_graph_get_partition_num(g, &n));
    EXPECT(n == 1);
    dnnl_graph_partition_t p;
    CHECK(dnnl_graph_graph_get_partitions(g, 1, &p));
    CHECK(dnnl_graph_partition_get_op_num(p, &n));
    EXPECT(n == 5);
    dnnl_graph_compiled_partition_t cp;
    CHECK(dnnl_graph_compiled_partition_create(&cp, p));
    const dnnl_graph_logical_tensor_t *pin[] = {&xs, &xw}, *pout[] = {&qo};
    CHECK(dnnl_graph_partition_compile(p, cp, 2, pin, 1, pout, eng));
    dnnl_graph_logical_tensor_t sp;
    CHECK(dnnl_graph_compiled_partition_get_scratchpad_logical_tensor(cp, &sp));
    EXPECT(sp.id == SIZE_MAX && sp.ndims == 1 && sp.data_type == dnnl_u8);
    EXPECT(sp.dims[0] >= (int64_t)(M * K * 4 + M * N * 4)); /* dequantized src, f32 result */
    uint8_t src[M * K], dst[M * N], want[M * N];
    int8_t wei[K * N];
    for (int i = 0; i < M * K; i++) src[i] = (uint8_t)(i * 9 % 31);
    for (int i = 0; i < K * N; i++) wei[i] = (int8_t)(i * 5 % 17 - 8);
    dnnl_graph_tensor_t ts, tw, td;
    CHECK(dnnl_graph_tensor_create(&ts, &xs, eng, src));
    CHECK(dnnl_graph_tensor_create(&tw, &xw, eng, wei));
    CHECK(dnnl_graph_tensor_create(&td, &qo, eng, dst));
    const_dnnl_graph_tensor_t ins[] = {ts, tw}, outs[] = {td};
    CHECK(dnnl_graph_compiled_partition_execute(cp, strm, 2, ins, 1, outs));
    for (int m = 0; m < M; m++)
        for (int j = 0; j < N; j++) {
            float acc = 0;
            for (int k = 0; k < K; k++) acc += ((float)src[m * K + k] - zs) * ss * (float)wei[k * N + j] * sw;
            acc = acc > 0 ? acc : 0;
            float q = nearbyintf(acc / so + zo); /* round(x / scale + zp) */
            want[m * N + j] = (uint8_t)(q < 0 ? 0 : q > 255 ? 255 : q);
        }
    for (int i = 0; i < M * N; i++)
        if (dst[i] != want[i]) {
            fprintf(stderr, "int8 [%d]: got %d want %d\n", i, dst[i], want[i]);
            exit(1);
        }
    /* With a user scratchpad holding the temporaries. */
    uint8_t *scratch = malloc((size_t)sp.dims[0]);
    dnnl_graph_tensor_t tsp;
    CHECK(dnnl_graph_tensor_create(&tsp, &sp, eng, scratch));
    memset(dst, 0, sizeof dst);
    CHECK(dnnl_graph_compiled_partition_execute_v2(cp, strm, 2, ins, 1, outs, tsp));
    for (int i = 0; i < M * N; i++)
        if (dst[i] != want[i]) {
            fprintf(stderr, "int8 with a user scratchpad [%d]: got %d want %d\n", i, dst[i], want[i]);
            exit(1);
        }
    CHECK(dnnl_graph_tensor_destroy(tsp));
    free(scratch);
    CHECK(dnnl_graph_tensor_destroy(ts));
    CHECK(dnnl_graph_tensor_destroy(tw));
    CHECK(dnnl_graph_tensor_destroy(td));
    CHECK(dnnl_graph_compiled_partition_destroy(cp));
    CHECK(dnnl_graph_partition_destroy(p));
    CHECK(dnnl_graph_graph_destroy(g));
    printf("int8 Dequantize/MatMul/ReLU/Quantize: one partition, matches the reference\n");
}

static void settings(void) {
    int cap, flag;
    size_t mb;
    CHECK(dnnl_graph_get_compiled_partition_cache_capacity(&cap));
    EXPECT(cap == 1024);
    CHECK_STATUS(dnnl_graph_set_compiled_partition_cache_capacity(-1), IA);
    CHECK(dnnl_graph_set_compiled_partition_cache_capacity(16));
    CHECK(dnnl_graph_get_compiled_partition_cache_capacity(&cap));
    EXPECT(cap == 16);
    CHECK(dnnl_graph_get_constant_tensor_cache(&flag));
    EXPECT(flag == 0);
    CHECK(dnnl_graph_set_constant_tensor_cache(5));
    CHECK(dnnl_graph_get_constant_tensor_cache(&flag));
    EXPECT(flag == 1);
    CHECK_STATUS(dnnl_graph_set_constant_tensor_cache(-1), IA);
    CHECK(dnnl_graph_get_constant_tensor_cache_capacity(dnnl_cpu, &mb));
    EXPECT(mb == SIZE_MAX >> 20);
    CHECK(dnnl_graph_set_constant_tensor_cache(0));
    CHECK(dnnl_graph_get_constant_tensor_cache_capacity(dnnl_cpu, &mb));
    EXPECT(mb == 0);
    CHECK(dnnl_graph_set_constant_tensor_cache_capacity(dnnl_gpu, 64));
    CHECK(dnnl_graph_get_constant_tensor_cache_capacity(dnnl_gpu, &mb));
    EXPECT(mb == 64);
    CHECK_STATUS(dnnl_graph_set_dump_mode((dnnl_graph_dump_mode_t)7), IA);
    /* Graph dumps go to the working directory. */
    CHECK(dnnl_graph_set_dump_mode(dnnl_graph_dump_mode_graph));
    dnnl_graph_graph_t g;
    CHECK(dnnl_graph_graph_create(&g, dnnl_cpu));
    add_and_destroy(g, unary(1, dnnl_graph_op_relu, 1, 2));
    CHECK(dnnl_graph_graph_finalize(g));
    CHECK(dnnl_graph_graph_destroy(g));
    CHECK(dnnl_graph_set_dump_mode(dnnl_graph_dump_mode_none));
    int found = 0;
    char name[64];
    for (int i = 1; i < 1000 && !found; i++) {
        snprintf(name, sizeof name, "graph-%d.json", i);
        if (access(name, F_OK) == 0) {
            found = 1;
            unlink(name);
        }
    }
    EXPECT(found);
    printf("settings (caches, dump): ok\n");
}

int main(void) {
    CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    logical_tensors();
    ops();
    graphs();
    executions();
    int8_pattern();
    settings();
    CHECK(dnnl_stream_destroy(strm));
    CHECK(dnnl_engine_destroy(eng));
    return 0;
}
