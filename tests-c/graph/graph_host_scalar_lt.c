/* Logical tensors with the host_scalar property, as oneDNN v3.13's library gives them
 * (probed against Intel's libdnnl.so.3; the @ref twin checks it again):
 * - dnnl_graph_logical_tensor_init, _init_with_dims and _init_with_strides accept a
 *   host scalar only with 0 dimensions and data type f32, s32 or s64; any other data
 *   type (f16, bf16, s8, u8, boolean, f64, f8, 4-bit, undef, unknown values) and any
 *   other number of dimensions (1, 2, 12, 13, unknown -1) is dnnl_invalid_arguments,
 *   whatever the layout type (strided, any, undef);
 * - an accepted one has 0 dimensions and the host_scalar property;
 * - adding one to an op and the op to a graph checks nothing more about it: the op's
 *   schema decides (Multiply takes an f32 host scalar as its second input, and even a
 *   struct filled by hand with 1 dimension), and the graph finalizes and partitions. */
#include "graph/graph_util.h"

#define HS dnnl_graph_tensor_property_host_scalar

static void init_rules(void) {
    const dnnl_data_type_t good[] = {dnnl_f32, dnnl_s32, dnnl_s64};
    const dnnl_data_type_t bad[] = {dnnl_f16, dnnl_bf16, dnnl_s8, dnnl_u8, dnnl_boolean,
            dnnl_f64, dnnl_f8_e4m3, dnnl_f8_e5m2, dnnl_s4, dnnl_u4, dnnl_e8m0,
            dnnl_f4_e2m1, dnnl_data_type_undef, (dnnl_data_type_t)100};
    const dnnl_graph_layout_type_t layouts[] = {dnnl_graph_layout_type_strided,
            dnnl_graph_layout_type_any, dnnl_graph_layout_type_undef};
    const dnnl_dims_t one = {1}, strides = {1, 1};
    dnnl_graph_logical_tensor_t lt;
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        for (int l = 0; l < 3; l++) {
            memset(&lt, 0xab, sizeof lt);
            CHECK(dnnl_graph_logical_tensor_init(&lt, 7, good[i], 0, layouts[l], HS));
            EXPECT(lt.id == 7 && lt.ndims == 0 && lt.data_type == good[i] && lt.property == HS);
            CHECK(dnnl_graph_logical_tensor_init_with_dims(&lt, 7, good[i], 0, one, layouts[l], HS));
            EXPECT(lt.ndims == 0 && lt.property == HS);
        }
        CHECK(dnnl_graph_logical_tensor_init_with_dims(
                &lt, 7, good[i], 0, NULL, dnnl_graph_layout_type_strided, HS));
        CHECK(dnnl_graph_logical_tensor_init_with_strides(&lt, 7, good[i], 0, one, strides, HS));
        EXPECT(lt.ndims == 0 && lt.property == HS && lt.data_type == good[i]);
        CHECK(dnnl_graph_logical_tensor_init_with_strides(&lt, 7, good[i], 0, NULL, NULL, HS));
        const int32_t nds[] = {1, 2, 12, 13, -1};
        for (int n = 0; n < 5; n++) {
            for (int l = 0; l < 3; l++)
                CHECK_STATUS(dnnl_graph_logical_tensor_init(&lt, 7, good[i], nds[n], layouts[l], HS),
                        dnnl_invalid_arguments);
            if (nds[n] > 2) continue; /* the arrays below hold up to 2 values */
            CHECK_STATUS(dnnl_graph_logical_tensor_init_with_dims(&lt, 7, good[i], nds[n], strides,
                                 dnnl_graph_layout_type_strided, HS),
                    dnnl_invalid_arguments);
            CHECK_STATUS(dnnl_graph_logical_tensor_init_with_strides(
                                 &lt, 7, good[i], nds[n], strides, strides, HS),
                    dnnl_invalid_arguments);
        }
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        for (int l = 0; l < 3; l++)
            CHECK_STATUS(dnnl_graph_logical_tensor_init(&lt, 7, bad[i], 0, layouts[l], HS),
                    dnnl_invalid_arguments);
        CHECK_STATUS(dnnl_graph_logical_tensor_init_with_dims(
                             &lt, 7, bad[i], 0, one, dnnl_graph_layout_type_strided, HS),
                dnnl_invalid_arguments);
        CHECK_STATUS(dnnl_graph_logical_tensor_init_with_strides(&lt, 7, bad[i], 0, one, strides, HS),
                dnnl_invalid_arguments);
    }
    /* The same values are fine for the other properties. */
    CHECK(dnnl_graph_logical_tensor_init(&lt, 7, dnnl_f16, 2, dnnl_graph_layout_type_strided,
            dnnl_graph_tensor_property_constant));
    CHECK(dnnl_graph_logical_tensor_init(&lt, 7, dnnl_s8, 1, dnnl_graph_layout_type_any,
            dnnl_graph_tensor_property_variable));
    printf("host scalar logical tensors at init: ok\n");
}

/* x (2x3 f32) * s (host scalar) -> y; returns add_op's status and, on success, checks
 * that the graph finalizes into one partition. */
static dnnl_status_t multiply_by(const dnnl_graph_logical_tensor_t *s) {
    const int64_t dims[] = {2, 3};
    dnnl_graph_logical_tensor_t in[2] = {lt_f32(0, 2, dims), *s}, out = lt_f32(2, 2, dims);
    dnnl_graph_op_t op;
    CHECK(dnnl_graph_op_create(&op, 0, dnnl_graph_op_multiply, "mul"));
    CHECK(dnnl_graph_op_add_input(op, &in[0]));
    CHECK(dnnl_graph_op_add_input(op, &in[1]));
    CHECK(dnnl_graph_op_add_output(op, &out));
    dnnl_graph_graph_t g;
    CHECK(dnnl_graph_graph_create(&g, dnnl_cpu));
    dnnl_status_t st = dnnl_graph_add_op(g, op);
    CHECK(dnnl_graph_op_destroy(op));
    if (st == dnnl_success) {
        CHECK(dnnl_graph_graph_finalize(g));
        CHECK(dnnl_graph_graph_filter(g, dnnl_graph_partition_policy_fusion));
        size_t n = 0;
        CHECK(dnnl_graph_graph_get_partition_num(g, &n));
        EXPECT(n == 1);
    }
    CHECK(dnnl_graph_graph_destroy(g));
    return st;
}

static void in_ops(void) {
    dnnl_graph_logical_tensor_t s;
    CHECK(dnnl_graph_logical_tensor_init_with_dims(
            &s, 1, dnnl_f32, 0, NULL, dnnl_graph_layout_type_strided, HS));
    CHECK(multiply_by(&s));
    /* Filled by hand past init's rules: the op and the graph do not look again. */
    s.ndims = 1;
    s.dims[0] = 1;
    s.layout.strides[0] = 1;
    CHECK(multiply_by(&s));
    printf("host scalar logical tensors in ops and graphs: ok\n");
}

int main(void) {
    init_rules();
    in_ops();
    printf("graph_host_scalar_lt: ok\n");
    return 0;
}
