/* Two different logical tensors under one id make a graph that does not finalize, as
 * in oneDNN v3.13 (probed against Intel's libdnnl.so.3; the @ref twin checks it again):
 * dnnl_graph_graph_finalize returns dnnl_invalid_graph (add_op accepted both ops) and
 * dnnl_graph_graph_filter then refuses the graph too. "Different" is what
 * dnnl_graph_logical_tensor_is_equal sees: dimensions, property (undef is not
 * variable), a shape left unknown against a known one, layout any against strided,
 * other strides. It does not matter where the two meet: the output of one op and the
 * input of the next, two inputs of one op, the inputs of two ops, the outputs of two
 * ops. The same logical tensor twice, or one that differs only in strides past its
 * dimensions (which is_equal does not read), is fine. */
#include "graph/graph_util.h"

static dnnl_graph_logical_tensor_t strided(size_t id, int64_t rows) {
    const int64_t dims[] = {rows, 3};
    return lt_f32(id, 2, dims);
}

/* relu(0 -> 1) then relu(second -> 2), `second` being tensor 1 as the next op sees it. */
static dnnl_status_t chain(const dnnl_graph_logical_tensor_t *second) {
    dnnl_graph_logical_tensor_t a = strided(0, 2), b = strided(1, 2), c = strided(2, 2);
    dnnl_graph_graph_t g;
    CHECK(dnnl_graph_graph_create(&g, dnnl_cpu));
    add_and_destroy(g, make_op(0, dnnl_graph_op_relu, "r0", 1, &a, 1, &b));
    add_and_destroy(g, make_op(1, dnnl_graph_op_relu, "r1", 1, second, 1, &c));
    dnnl_status_t st = dnnl_graph_graph_finalize(g);
    if (st == dnnl_success) {
        CHECK(dnnl_graph_graph_filter(g, dnnl_graph_partition_policy_fusion));
        size_t n = 0;
        CHECK(dnnl_graph_graph_get_partition_num(g, &n));
        EXPECT(n == 2);
    } else {
        CHECK_STATUS(dnnl_graph_graph_filter(g, dnnl_graph_partition_policy_fusion),
                dnnl_invalid_graph);
    }
    CHECK(dnnl_graph_graph_destroy(g));
    return st;
}

static void chains(void) {
    const dnnl_status_t bad = dnnl_invalid_graph;
    dnnl_graph_logical_tensor_t b = strided(1, 2);
    CHECK(chain(&b));
    b.layout.strides[5] = 77; /* past ndims */
    CHECK(chain(&b));
    b = strided(1, 4);
    CHECK_STATUS(chain(&b), bad);
    b = strided(1, 2);
    b.property = dnnl_graph_tensor_property_constant;
    CHECK_STATUS(chain(&b), bad);
    b.property = dnnl_graph_tensor_property_undef;
    CHECK_STATUS(chain(&b), bad);
    CHECK(dnnl_graph_logical_tensor_init(
            &b, 1, dnnl_f32, 2, dnnl_graph_layout_type_strided, dnnl_graph_tensor_property_variable));
    CHECK_STATUS(chain(&b), bad);
    CHECK(dnnl_graph_logical_tensor_init(
            &b, 1, dnnl_f32, -1, dnnl_graph_layout_type_strided, dnnl_graph_tensor_property_variable));
    CHECK_STATUS(chain(&b), bad);
    const dnnl_dims_t dims = {2, 3}, col_major = {1, 2};
    CHECK(dnnl_graph_logical_tensor_init_with_dims(&b, 1, dnnl_f32, 2, dims,
            dnnl_graph_layout_type_any, dnnl_graph_tensor_property_variable));
    CHECK_STATUS(chain(&b), bad);
    CHECK(dnnl_graph_logical_tensor_init_with_strides(
            &b, 1, dnnl_f32, 2, dims, col_major, dnnl_graph_tensor_property_variable));
    CHECK_STATUS(chain(&b), bad);
    printf("one id, two logical tensors between a producer and a consumer: ok\n");
}

static void elsewhere(void) {
    dnnl_graph_graph_t g;
    /* Two inputs of one op. */
    dnnl_graph_logical_tensor_t in[2] = {strided(0, 2), strided(0, 4)}, out = strided(2, 2);
    CHECK(dnnl_graph_graph_create(&g, dnnl_cpu));
    add_and_destroy(g, make_op(0, dnnl_graph_op_add, "add", 2, in, 1, &out));
    CHECK_STATUS(dnnl_graph_graph_finalize(g), dnnl_invalid_graph);
    CHECK(dnnl_graph_graph_destroy(g));
    /* The inputs of two ops. */
    dnnl_graph_logical_tensor_t o1 = strided(2, 2), o2 = strided(3, 4);
    CHECK(dnnl_graph_graph_create(&g, dnnl_cpu));
    add_and_destroy(g, make_op(0, dnnl_graph_op_relu, "r0", 1, &in[0], 1, &o1));
    add_and_destroy(g, make_op(1, dnnl_graph_op_relu, "r1", 1, &in[1], 1, &o2));
    CHECK_STATUS(dnnl_graph_graph_finalize(g), dnnl_invalid_graph);
    CHECK(dnnl_graph_graph_destroy(g));
    /* The outputs of two ops. */
    dnnl_graph_logical_tensor_t x1 = strided(0, 2), x2 = strided(1, 4);
    dnnl_graph_logical_tensor_t y1 = strided(2, 2), y2 = strided(2, 4);
    CHECK(dnnl_graph_graph_create(&g, dnnl_cpu));
    add_and_destroy(g, make_op(0, dnnl_graph_op_relu, "r0", 1, &x1, 1, &y1));
    add_and_destroy(g, make_op(1, dnnl_graph_op_relu, "r1", 1, &x2, 1, &y2));
    CHECK_STATUS(dnnl_graph_graph_finalize(g), dnnl_invalid_graph);
    CHECK(dnnl_graph_graph_destroy(g));
    printf("one id, two logical tensors as inputs or outputs: ok\n");
}

int main(void) {
    chains();
    elsewhere();
    printf("graph_dup_id: ok\n");
    return 0;
}
