/* Shuffle with bad input: each gets Intel's v3.13 status (the @ref run checks them there),
 * never a crash, and a refused creation writes nothing:
 *   - a backward or undefined prop kind forward, src `any`, an axis outside 0..ndims
 *     (negative ones too), a group size that does not divide the axis size (0, negative,
 *     larger than it), dst or diff_dst of other dimensions, NULL descriptors, an axis of
 *     no elements: invalid_arguments;
 *   - src and dst of other types or layouts, backward diff_src `any` (plain) with a
 *     channels-last diff_dst, run-time dimensions, f64, attributes with scales or
 *     post-ops: unimplemented;
 *   - a group size of 1 or of the axis size, a zero dimension off the axis: accepted;
 *   - execution (ours only): an undersized dst, one of another type, no dst:
 *     invalid_arguments, the dst untouched.
 *
 * Usage: shuffle_bad_input [cpu|gpu]; with gpu it skips (77) without an OpenCL device. */
#include "bad_input.h"

static void create_checks(void) {
    const dnnl_dim_t s[] = {2, 12, 3, 5}, other[] = {2, 12, 3, 6}, zero_c[] = {2, 0, 3, 5},
                     zero_n[] = {0, 12, 3, 5}, rt[] = {2, DNNL_RUNTIME_DIM_VAL, 3, 5};
    const_dnnl_memory_desc_t src = md(4, s, dnnl_f32);
    const_dnnl_memory_desc_t nhwc = md_with_tag(4, s, dnnl_f32, dnnl_acdb);
    const_dnnl_memory_desc_t any = md_with_tag(4, s, dnnl_f32, dnnl_format_tag_any);
    const_dnnl_memory_desc_t zc = md(4, zero_c, dnnl_f32), zn = md(4, zero_n, dnnl_f32);
    const_dnnl_memory_desc_t rtd = md(4, rt, dnnl_f32);
    const struct {
        const char *what;
        dnnl_prop_kind_t pk;
        const_dnnl_memory_desc_t src, dst;
        int axis;
        dnnl_dim_t group;
        dnnl_status_t want;
    } fwd[] = {
            {"good", dnnl_forward_training, src, src, 1, 4, dnnl_success},
            {"group size 1", dnnl_forward_inference, src, src, 1, 1, dnnl_success},
            {"group size of the axis", dnnl_forward_training, src, src, 1, 12, dnnl_success},
            {"dst any", dnnl_forward_training, nhwc, any, 1, 4, dnnl_success},
            {"zero batch", dnnl_forward_training, zn, zn, 1, 4, dnnl_success},
            {"prop kind backward", dnnl_backward, src, src, 1, 4, dnnl_invalid_arguments},
            {"prop kind backward data", dnnl_backward_data, src, src, 1, 4,
                    dnnl_invalid_arguments},
            {"prop kind undef", dnnl_prop_kind_undef, src, src, 1, 4, dnnl_invalid_arguments},
            {"group size not a divisor", dnnl_forward_training, src, src, 1, 5,
                    dnnl_invalid_arguments},
            {"group size 0", dnnl_forward_training, src, src, 1, 0, dnnl_invalid_arguments},
            {"group size -4", dnnl_forward_training, src, src, 1, -4, dnnl_invalid_arguments},
            {"group size above the axis", dnnl_forward_training, src, src, 1, 24,
                    dnnl_invalid_arguments},
            {"axis 4", dnnl_forward_training, src, src, 4, 2, dnnl_invalid_arguments},
            {"axis -1", dnnl_forward_training, src, src, -1, 5, dnnl_invalid_arguments},
            {"axis -3", dnnl_forward_training, src, src, -3, 4, dnnl_invalid_arguments},
            {"dst of other dimensions", dnnl_forward_training, src, md(4, other, dnnl_f32), 1, 4,
                    dnnl_invalid_arguments},
            {"src any", dnnl_forward_training, any, src, 1, 4, dnnl_invalid_arguments},
            {"NULL dst", dnnl_forward_training, src, NULL, 1, 4, dnnl_invalid_arguments},
            {"NULL src", dnnl_forward_training, NULL, src, 1, 4, dnnl_invalid_arguments},
            {"axis of no elements", dnnl_forward_training, zc, zc, 1, 3,
                    dnnl_invalid_arguments},
            {"dst of another type", dnnl_forward_training, src, md(4, s, dnnl_bf16), 1, 4,
                    dnnl_unimplemented},
            {"dst of another layout", dnnl_forward_training, nhwc, src, 1, 4,
                    dnnl_unimplemented},
            {"f64", dnnl_forward_training, md(4, s, dnnl_f64), md(4, s, dnnl_f64), 1, 4,
                    dnnl_unimplemented},
            {"run-time dimension", dnnl_forward_training, rtd, rtd, 2, 3, dnnl_unimplemented},
    };
    for (size_t i = 0; i < sizeof fwd / sizeof *fwd; i++) {
        dnnl_primitive_desc_t pd = UNTOUCHED;
        dnnl_status_t st = dnnl_shuffle_forward_primitive_desc_create(
                &pd, engine, fwd[i].pk, fwd[i].src, fwd[i].dst, fwd[i].axis, fwd[i].group, NULL);
        expect_pd(fwd[i].what, st, pd, fwd[i].want);
    }
    const struct {
        const char *what;
        const_dnnl_memory_desc_t ds, dd;
        int axis;
        dnnl_dim_t group;
        dnnl_status_t want;
    } bwd[] = {
            {"good backward", src, src, 1, 4, dnnl_success},
            {"backward, diff_dst any", nhwc, any, 1, 4, dnnl_success},
            {"backward, both any", any, any, 1, 3, dnnl_success},
            {"backward, diff_src any and diff_dst channels-last", any, nhwc, 1, 4,
                    dnnl_unimplemented},
            {"backward, diff_dst of other dimensions", src, md(4, other, dnnl_f32), 1, 4,
                    dnnl_invalid_arguments},
            {"backward, group size not a divisor", src, src, 1, 5, dnnl_invalid_arguments},
            {"backward, negative axis", src, src, -3, 4, dnnl_invalid_arguments},
            {"backward, NULL diff_dst", src, NULL, 1, 4, dnnl_invalid_arguments},
            {"backward, other types", md(4, s, dnnl_bf16), src, 1, 4, dnnl_unimplemented},
    };
    for (size_t i = 0; i < sizeof bwd / sizeof *bwd; i++) {
        dnnl_primitive_desc_t pd = UNTOUCHED;
        dnnl_status_t st = dnnl_shuffle_backward_primitive_desc_create(
                &pd, engine, bwd[i].ds, bwd[i].dd, bwd[i].axis, bwd[i].group, NULL, NULL);
        expect_pd(bwd[i].what, st, pd, bwd[i].want);
    }
    /* Attributes: scales and post-ops are refused; a user scratchpad is accepted. */
    dnnl_primitive_attr_t scales = NULL, post = NULL, user = NULL;
    dnnl_post_ops_t ops = NULL;
    CHECK(dnnl_primitive_attr_create(&scales));
    CHECK(dnnl_primitive_attr_set_scales_mask(scales, DNNL_ARG_SRC, 0));
    CHECK(dnnl_primitive_attr_create(&post));
    CHECK(dnnl_post_ops_create(&ops));
    CHECK(dnnl_post_ops_append_eltwise(ops, dnnl_eltwise_relu, 0, 0));
    CHECK(dnnl_primitive_attr_set_post_ops(post, ops));
    CHECK(dnnl_primitive_attr_create(&user));
    CHECK(dnnl_primitive_attr_set_scratchpad_mode(user, dnnl_scratchpad_mode_user));
    const struct {
        const char *what;
        dnnl_primitive_attr_t attr;
        dnnl_status_t want;
    } attrs[] = {{"src scales", scales, dnnl_unimplemented},
            {"eltwise post-op", post, dnnl_unimplemented}, {"user scratchpad", user, dnnl_success}};
    for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++) {
        dnnl_primitive_desc_t pd = UNTOUCHED;
        dnnl_status_t st = dnnl_shuffle_forward_primitive_desc_create(
                &pd, engine, dnnl_forward_training, src, src, 1, 4, attrs[i].attr);
        expect_pd(attrs[i].what, st, pd, attrs[i].want);
    }
    CHECK(dnnl_post_ops_destroy(ops));
    CHECK(dnnl_primitive_attr_destroy(scales));
    CHECK(dnnl_primitive_attr_destroy(post));
    CHECK(dnnl_primitive_attr_destroy(user));
}

static void execution(void) {
    if (!library_is_ours()) {
        printf("note: execution arguments: not checked here (Intel's library does not check "
               "them; it writes past an undersized destination)\n");
        return;
    }
    const dnnl_dim_t s[] = {4, 8, 6};
    const_dnnl_memory_desc_t src = md(3, s, dnnl_f32);
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_shuffle_forward_primitive_desc_create(
            &pd, engine, dnnl_forward_inference, src, src, 1, 2, NULL));
    dnnl_primitive_t prim = NULL;
    CHECK(dnnl_primitive_create(&prim, pd));
    dnnl_memory_t sm = NULL;
    CHECK(dnnl_memory_create(&sm, src, engine, DNNL_MEMORY_ALLOCATE));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, sm}};
    expect_refused_dsts(prim, 2, args, 3, s);
    CHECK(dnnl_memory_destroy(sm));
    CHECK(dnnl_primitive_destroy(prim));
    CHECK(dnnl_primitive_desc_destroy(pd));
}

int main(int argc, char **argv) {
    bad_input_open(argc, argv);
    create_checks();
    execution();
    return bad_input_close("shuffle_bad_input");
}
