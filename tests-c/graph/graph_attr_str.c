/* dnnl_graph_op_set_attr_str reads its value as oneDNN v3.13's library does
 * (probed against Intel's libdnnl.so.3; the @ref twin checks it again):
 * - the value is a NUL-terminated string, read to its NUL whatever value_len says:
 *   a value_len shorter than the string does not cut it ("none" with 2 stays
 *   "none", "nonexx" with 4 stays "nonexx", an invalid auto_broadcast value), and
 *   one longer than the string does not add the bytes after the NUL;
 * - value_len 0 is refused with dnnl_invalid_arguments, as is a NULL value; the
 *   attribute is then not set (the op keeps its default).
 * What was stored shows through add_op (an auto_broadcast value other than "none"
 * and "numpy" breaks the Add schema: dnnl_invalid_graph_op) and through compile
 * (inputs 2x3 and 1x3 broadcast with "numpy", the default, but not with "none"). */
#include "graph/graph_util.h"

/* An Add of a 2x3 and a `rows`x3 input with auto_broadcast set from `value` and
 * `len` (`set` is what set_attr_str must return); returns add_op's status. */
static dnnl_status_t add_op_with(const char *value, size_t len, dnnl_status_t set,
        int64_t rows, dnnl_graph_graph_t *graph) {
    const int64_t a_dims[] = {2, 3}, b_dims[] = {rows, 3};
    dnnl_graph_logical_tensor_t io[3] = {lt_f32(0, 2, a_dims), lt_f32(1, 2, b_dims),
            lt_dims(2, dnnl_f32, 2, a_dims, dnnl_graph_layout_type_strided,
                    dnnl_graph_tensor_property_variable)};
    dnnl_graph_op_t op = make_op(0, dnnl_graph_op_add, "add", 2, io, 1, &io[2]);
    CHECK_STATUS(dnnl_graph_op_set_attr_str(op, dnnl_graph_op_attr_auto_broadcast, value, len),
            set);
    CHECK(dnnl_graph_graph_create(graph, dnnl_cpu));
    dnnl_status_t st = dnnl_graph_add_op(*graph, op);
    CHECK(dnnl_graph_op_destroy(op));
    return st;
}

/* add_op's status for `value` with `len` on same-shape inputs. */
static dnnl_status_t stored_is_valid(const char *value, size_t len, dnnl_status_t set) {
    dnnl_graph_graph_t g;
    dnnl_status_t st = add_op_with(value, len, set, 2, &g);
    CHECK(dnnl_graph_graph_destroy(g));
    return st;
}

/* Compiles the broadcasting Add (2x3 + 1x3) set from `value` and `len`;
 * returns compile's status. */
static dnnl_status_t broadcast_compile(dnnl_engine_t eng, const char *value, size_t len,
        dnnl_status_t set) {
    dnnl_graph_graph_t g;
    CHECK(add_op_with(value, len, set, 1, &g));
    CHECK(dnnl_graph_graph_finalize(g));
    CHECK(dnnl_graph_graph_filter(g, dnnl_graph_partition_policy_fusion));
    size_t n = 0;
    CHECK(dnnl_graph_graph_get_partition_num(g, &n));
    EXPECT(n == 1);
    dnnl_graph_partition_t p;
    CHECK(dnnl_graph_graph_get_partitions(g, 1, &p));
    const int64_t a_dims[] = {2, 3}, b_dims[] = {1, 3};
    dnnl_graph_logical_tensor_t a = lt_f32(0, 2, a_dims), b = lt_f32(1, 2, b_dims), c;
    CHECK(dnnl_graph_logical_tensor_init(
            &c, 2, dnnl_f32, 2, dnnl_graph_layout_type_strided, dnnl_graph_tensor_property_variable));
    const dnnl_graph_logical_tensor_t *ins[] = {&a, &b}, *outs[] = {&c};
    dnnl_graph_compiled_partition_t cp;
    CHECK(dnnl_graph_compiled_partition_create(&cp, p));
    dnnl_status_t st = dnnl_graph_partition_compile(p, cp, 2, ins, 1, outs, eng);
    if (st == dnnl_success) {
        dnnl_graph_logical_tensor_t q;
        CHECK(dnnl_graph_compiled_partition_query_logical_tensor(cp, 2, &q));
        EXPECT(q.ndims == 2 && q.dims[0] == 2 && q.dims[1] == 3);
    }
    CHECK(dnnl_graph_compiled_partition_destroy(cp));
    CHECK(dnnl_graph_partition_destroy(p));
    CHECK(dnnl_graph_graph_destroy(g));
    return st;
}

int main(void) {
    const dnnl_status_t ok = dnnl_success, ia = dnnl_invalid_arguments;
    /* Lengths do not cut: a prefix that would be invalid is read whole... */
    CHECK_STATUS(stored_is_valid("none", 2, ok), ok);
    CHECK_STATUS(stored_is_valid("numpy", 1, ok), ok);
    /* ...and a valid prefix of an invalid value is not what is stored. */
    CHECK_STATUS(stored_is_valid("nonexx", 4, ok), dnnl_invalid_graph_op);
    CHECK_STATUS(stored_is_valid("numpy_", 5, ok), dnnl_invalid_graph_op);
    /* A length past the NUL reads nothing after it. */
    const char padded[8] = {'n', 'o', 'n', 'e', '\0', 'x', 'y', 'z'};
    CHECK_STATUS(stored_is_valid(padded, sizeof padded, ok), ok);
    /* 0 and NULL are refused and leave the attribute unset. */
    CHECK_STATUS(stored_is_valid("bogus", 0, ia), ok);
    CHECK_STATUS(stored_is_valid(NULL, 4, ia), ok);
    printf("set_attr_str statuses and stored values at add_op: ok\n");

    dnnl_engine_t eng;
    CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    /* "none" given with a short length is still "none": no broadcast. */
    CHECK_STATUS(broadcast_compile(eng, "none", 2, ok), dnnl_invalid_shape);
    CHECK_STATUS(broadcast_compile(eng, padded, sizeof padded, ok), dnnl_invalid_shape);
    CHECK_STATUS(broadcast_compile(eng, "numpy", 1, ok), ok);
    /* A refused "none" leaves the default, numpy: the inputs broadcast. */
    CHECK_STATUS(broadcast_compile(eng, "none", 0, ia), ok);
    CHECK(dnnl_engine_destroy(eng));
    printf("set_attr_str values at compile: ok\ngraph_attr_str: ok\n");
    return 0;
}
