/* Behaviour that is ours alone: upstream crashes on these calls or accepts
 * what we refuse (see the README's deliberate differences). */
#include "attr_check.h"

static const dnnl_status_t bad = dnnl_invalid_arguments;

/* NULL, destroyed and wrong-kind handles are detected, never dereferenced. */
static void handles(void) {
    dnnl_primitive_attr_t attr = new_attr();
    dnnl_post_ops_t po = new_post_ops();
    dnnl_memory_desc_t md = md2d(2, 3, dnnl_u8, dnnl_ab);
    int value = 0;
    CHECK(dnnl_primitive_attr_destroy(NULL)); /* as upstream */
    CHECK(dnnl_post_ops_destroy(NULL));
    /* Wrong kinds. */
    CHECK_STATUS(dnnl_primitive_attr_get_deterministic((const_dnnl_primitive_attr_t)po, &value), bad);
    CHECK_STATUS(dnnl_primitive_attr_set_deterministic((dnnl_primitive_attr_t)md, 1), bad);
    CHECK_STATUS(dnnl_post_ops_append_prelu((dnnl_post_ops_t)attr, 0), bad);
    CHECK_STATUS(dnnl_primitive_attr_set_post_ops(attr, (const_dnnl_post_ops_t)attr), bad);
    CHECK_STATUS(dnnl_primitive_attr_set_dropout(attr, (const_dnnl_memory_desc_t)po), bad);
    CHECK_STATUS(dnnl_post_ops_append_binary(po, dnnl_binary_add, (const_dnnl_memory_desc_t)attr), bad);
    CHECK_STATUS(dnnl_primitive_attr_destroy((dnnl_primitive_attr_t)po), bad);
    CHECK_STATUS(dnnl_post_ops_destroy((dnnl_post_ops_t)attr), bad);
    EXPECT(dnnl_post_ops_len((const_dnnl_post_ops_t)attr) == 0);
    /* Garbage. */
    CHECK_STATUS(dnnl_primitive_attr_set_deterministic((dnnl_primitive_attr_t)(uintptr_t)0xdeadbeef, 1), bad);
    CHECK_STATUS(dnnl_post_ops_append_binary_v2(po, dnnl_binary_mul, md, (const_dnnl_memory_desc_t)(uintptr_t)0x1234), bad);
    /* Destroyed: a second destroy and any use are refused. */
    dnnl_primitive_attr_t dead = new_attr();
    dnnl_post_ops_t dead_po = new_post_ops();
    CHECK(dnnl_primitive_attr_destroy(dead));
    CHECK(dnnl_post_ops_destroy(dead_po));
    CHECK_STATUS(dnnl_primitive_attr_destroy(dead), bad);
    CHECK_STATUS(dnnl_post_ops_destroy(dead_po), bad);
    CHECK_STATUS(dnnl_primitive_attr_get_deterministic(dead, &value), bad);
    CHECK_STATUS(dnnl_primitive_attr_clone(&dead, dead), bad);
    CHECK_STATUS(dnnl_post_ops_append_sum(dead_po, 1.f, 0, dnnl_f32), bad);
    EXPECT(dnnl_post_ops_len(dead_po) == 0);
    EXPECT(dnnl_post_ops_get_kind(dead_po, 0) == dnnl_undefined_primitive);
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(dnnl_post_ops_destroy(po));
    CHECK(dnnl_primitive_attr_destroy(attr));
}

/* Handles the attributes and post-ops own cannot be destroyed by the caller,
 * and die with their owner. */
static void owned_handles(void) {
    dnnl_primitive_attr_t attr = new_attr();
    dnnl_post_ops_t po = new_post_ops();
    dnnl_memory_desc_t mask = md2d(2, 3, dnnl_u8, dnnl_ab), src1 = md2d(2, 3, dnnl_f32, dnnl_ab);
    CHECK(dnnl_primitive_attr_set_dropout(attr, mask));
    CHECK(dnnl_post_ops_append_binary(po, dnnl_binary_add, src1));
    CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
    const_dnnl_post_ops_t view = NULL;
    const_dnnl_memory_desc_t got_mask = NULL, got_src1 = NULL, got_zero = NULL;
    CHECK(dnnl_primitive_attr_get_post_ops(attr, &view));
    CHECK(dnnl_primitive_attr_get_dropout(attr, &got_mask));
    CHECK(dnnl_post_ops_get_params_binary_v2(view, 0, NULL, &got_src1, &got_zero));
    CHECK_STATUS(dnnl_post_ops_destroy((dnnl_post_ops_t)view), bad);
    CHECK_STATUS(dnnl_memory_desc_destroy((dnnl_memory_desc_t)got_mask), bad);
    CHECK_STATUS(dnnl_memory_desc_destroy((dnnl_memory_desc_t)got_src1), bad);
    CHECK_STATUS(dnnl_memory_desc_destroy((dnnl_memory_desc_t)got_zero), bad);
    EXPECT(dnnl_post_ops_len(view) == 1);
    /* Replacing the dropout releases the old mask descriptor. */
    CHECK(dnnl_primitive_attr_set_dropout(attr, mask));
    int ndims = 0;
    CHECK_STATUS(dnnl_memory_desc_query(got_mask, dnnl_query_ndims_s32, &ndims), bad);
    /* Destroying the attributes ends their post-ops handle. */
    CHECK(dnnl_primitive_attr_destroy(attr));
    EXPECT(dnnl_post_ops_len(view) == 0);
    CHECK_STATUS(dnnl_post_ops_append_prelu((dnnl_post_ops_t)view, 0), bad);
    /* The detached post-ops still have their own descriptors. */
    CHECK(dnnl_post_ops_get_params_binary(po, 0, NULL, &got_src1));
    CHECK(dnnl_memory_desc_query(got_src1, dnnl_query_ndims_s32, &ndims));
    EXPECT(ndims == 2);
    CHECK(dnnl_memory_desc_destroy(mask));
    CHECK(dnnl_memory_desc_destroy(src1));
    CHECK(dnnl_post_ops_destroy(po));
}

/* Calls upstream crashes on: NULL descriptors and NULL group dimensions. */
static void null_arguments(void) {
    dnnl_primitive_attr_t attr = new_attr();
    dnnl_post_ops_t po = new_post_ops();
    dnnl_memory_desc_t md = md2d(2, 3, dnnl_f32, dnnl_ab);
    CHECK_STATUS(dnnl_primitive_attr_set_scales(attr, DNNL_ARG_WEIGHTS, 3, 2, NULL, dnnl_f32), bad);
    CHECK_STATUS(dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_WEIGHTS, 3, 2, NULL, dnnl_s32), bad);
    CHECK_STATUS(dnnl_primitive_attr_set_precomputed_reductions(attr, DNNL_ARG_SRC, 3, 2, NULL, dnnl_s32), bad);
    CHECK_STATUS(dnnl_post_ops_append_binary(po, dnnl_binary_add, NULL), bad);
    CHECK_STATUS(dnnl_post_ops_append_binary_v2(po, dnnl_binary_add, NULL, md), bad);
    /* select needs its third operand. */
    CHECK_STATUS(dnnl_post_ops_append_binary(po, dnnl_binary_select, md), bad);
    CHECK_STATUS(dnnl_post_ops_append_binary_v2(po, dnnl_binary_select, md, NULL), bad);
    EXPECT(dnnl_post_ops_len(po) == 0);
    /* Without a third operand, v2 reports the zero descriptor (upstream: an
     * uninitialised one). */
    const_dnnl_memory_desc_t src2 = NULL;
    CHECK(dnnl_post_ops_append_binary_v2(po, dnnl_binary_sub, md, NULL));
    CHECK(dnnl_post_ops_get_params_binary_v2(po, 0, NULL, NULL, &src2));
    EXPECT(src2 != NULL && md_ndims(src2) == 0);
    CHECK(dnnl_memory_desc_destroy(md));
    CHECK(dnnl_post_ops_destroy(po));
    CHECK(dnnl_primitive_attr_destroy(attr));
}

/* Upstream's prelu getter does not check the entry's kind, nor a negative
 * index (it reads whatever lies there); ours refuses both, as the other
 * getters do. */
static void prelu_getter(void) {
    dnnl_post_ops_t po = new_post_ops();
    int mask = 7;
    CHECK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0, 0));
    CHECK(dnnl_post_ops_append_prelu(po, 3));
    CHECK_STATUS(dnnl_post_ops_get_params_prelu(po, 0, &mask), bad);
    CHECK_STATUS(dnnl_post_ops_get_params_prelu(po, -1, &mask), bad);
    EXPECT(mask == 7);
    CHECK(dnnl_post_ops_get_params_prelu(po, 1, &mask));
    EXPECT(mask == 3);
    CHECK(dnnl_post_ops_destroy(po));
}

/* Values that are not enumerators of their type: upstream stores them. */
static void non_enumerators(void) {
    dnnl_primitive_attr_t attr = new_attr();
    dnnl_post_ops_t po = new_post_ops();
    dnnl_rounding_mode_t mode;
    CHECK_STATUS(dnnl_primitive_attr_set_rounding(attr, DNNL_ARG_DST, (dnnl_rounding_mode_t)5), bad);
    CHECK_STATUS(dnnl_primitive_attr_set_rounding(attr, DNNL_ARG_DST, (dnnl_rounding_mode_t)-1), bad);
    CHECK(dnnl_primitive_attr_get_rounding(attr, DNNL_ARG_DST, &mode));
    EXPECT(mode == dnnl_rounding_mode_environment);
    CHECK_STATUS(dnnl_post_ops_append_sum(po, 1.f, 0, (dnnl_data_type_t)999), bad);
    CHECK_STATUS(dnnl_post_ops_append_dw(po, (dnnl_data_type_t)999, dnnl_f32, dnnl_f32, 3, 1, 1), bad);
    CHECK_STATUS(dnnl_post_ops_append_dw(po, dnnl_f32, (dnnl_data_type_t)999, dnnl_f32, 3, 1, 1), bad);
    EXPECT(dnnl_post_ops_len(po) == 0);
    CHECK(dnnl_post_ops_destroy(po));
    CHECK(dnnl_primitive_attr_destroy(attr));
}

int main(void) {
    handles();
    owned_handles();
    null_arguments();
    prelu_getter();
    non_enumerators();
    printf("attributes: our own rules hold\n");
    return 0;
}
