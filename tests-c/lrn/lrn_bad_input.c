/* LRN with bad input: each gets Intel's v3.13 status (the @ref run checks them there),
 * never a crash, and a refused creation writes nothing:
 *   - an algorithm other than the two LRN ones, a backward or undefined prop kind
 *     forward, src `any` forward, a tensor of 1 dimension, dst / diff_dst / src of other
 *     dimensions, a negative local size, NULL descriptors: invalid_arguments;
 *   - s8, u8, s32, f64 tensors, dst of another type or layout than src, diff_src and
 *     diff_dst of other layouts, diff_src `any` (src's layout) with a channels-last
 *     diff_dst, attributes with scales or post-ops: unimplemented;
 *   - a local size of 0, larger than the channels, even; any alpha, beta, k; a hint of
 *     other parameters; backward src in another layout or `any`: accepted;
 *   - execution (ours only): an undersized dst, one of another type, no dst:
 *     invalid_arguments, the dst untouched.
 *
 * Usage: lrn_bad_input [cpu|gpu]; with gpu it skips (77) without an OpenCL device. */
#include "bad_input.h"

static void create_checks(void) {
    const dnnl_dim_t s[] = {2, 7, 4, 5}, other[] = {2, 7, 4, 6}, one[] = {7};
    const_dnnl_memory_desc_t src = md(4, s, dnnl_f32);
    const_dnnl_memory_desc_t nhwc = md_with_tag(4, s, dnnl_f32, dnnl_acdb);
    const_dnnl_memory_desc_t any = md_with_tag(4, s, dnnl_f32, dnnl_format_tag_any);
    const_dnnl_memory_desc_t oth = md(4, other, dnnl_f32), o1 = md(1, one, dnnl_f32);
    const dnnl_alg_kind_t AC = dnnl_lrn_across_channels, WC = dnnl_lrn_within_channel;
    const struct {
        const char *what;
        dnnl_prop_kind_t pk;
        dnnl_alg_kind_t alg;
        const_dnnl_memory_desc_t src, dst;
        dnnl_dim_t ls;
        float alpha, beta, k;
        dnnl_status_t want;
    } fwd[] = {
            {"good", dnnl_forward_training, AC, src, src, 5, 1e-4f, 0.75f, 1.f, dnnl_success},
            {"within", dnnl_forward_inference, WC, src, src, 3, 1e-4f, 0.75f, 1.f, dnnl_success},
            {"local size 0", dnnl_forward_training, AC, src, src, 0, 1e-4f, 0.75f, 1.f,
                    dnnl_success},
            {"local size 4", dnnl_forward_training, AC, src, src, 4, 1e-4f, 0.75f, 1.f,
                    dnnl_success},
            {"local size 100", dnnl_forward_training, WC, src, src, 100, 1e-4f, 0.75f, 1.f,
                    dnnl_success},
            {"negative alpha, beta, k", dnnl_forward_training, AC, src, src, 5, -1.f, -1.f, -1.f,
                    dnnl_success},
            {"dst any", dnnl_forward_training, AC, nhwc, any, 5, 1e-4f, 0.75f, 1.f, dnnl_success},
            {"prop kind backward", dnnl_backward, AC, src, src, 5, 1e-4f, 0.75f, 1.f,
                    dnnl_invalid_arguments},
            {"prop kind undef", dnnl_prop_kind_undef, AC, src, src, 5, 1e-4f, 0.75f, 1.f,
                    dnnl_invalid_arguments},
            {"algorithm eltwise_relu", dnnl_forward_training, dnnl_eltwise_relu, src, src, 5,
                    1e-4f, 0.75f, 1.f, dnnl_invalid_arguments},
            {"local size -1", dnnl_forward_training, AC, src, src, -1, 1e-4f, 0.75f, 1.f,
                    dnnl_invalid_arguments},
            {"src any", dnnl_forward_training, AC, any, src, 5, 1e-4f, 0.75f, 1.f,
                    dnnl_invalid_arguments},
            {"dst of other dimensions", dnnl_forward_training, AC, src, oth, 5, 1e-4f, 0.75f,
                    1.f, dnnl_invalid_arguments},
            {"1 dimension", dnnl_forward_training, AC, o1, o1, 5, 1e-4f, 0.75f, 1.f,
                    dnnl_invalid_arguments},
            {"NULL dst", dnnl_forward_training, AC, src, NULL, 5, 1e-4f, 0.75f, 1.f,
                    dnnl_invalid_arguments},
            {"s8", dnnl_forward_training, AC, md(4, s, dnnl_s8), md(4, s, dnnl_s8), 5, 1e-4f,
                    0.75f, 1.f, dnnl_unimplemented},
            {"s32", dnnl_forward_training, WC, md(4, s, dnnl_s32), md(4, s, dnnl_s32), 3, 1e-4f,
                    0.75f, 1.f, dnnl_unimplemented},
            {"f64", dnnl_forward_training, AC, md(4, s, dnnl_f64), md(4, s, dnnl_f64), 5, 1e-4f,
                    0.75f, 1.f, dnnl_unimplemented},
            {"dst of another type", dnnl_forward_training, AC, src, md(4, s, dnnl_bf16), 5,
                    1e-4f, 0.75f, 1.f, dnnl_unimplemented},
            {"dst of another layout", dnnl_forward_training, AC, nhwc, src, 5, 1e-4f, 0.75f,
                    1.f, dnnl_unimplemented},
    };
    for (size_t i = 0; i < sizeof fwd / sizeof *fwd; i++) {
        dnnl_primitive_desc_t pd = UNTOUCHED;
        dnnl_status_t st = dnnl_lrn_forward_primitive_desc_create(&pd, engine, fwd[i].pk,
                fwd[i].alg, fwd[i].src, fwd[i].dst, fwd[i].ls, fwd[i].alpha, fwd[i].beta,
                fwd[i].k, NULL);
        expect_pd(fwd[i].what, st, pd, fwd[i].want);
    }
    dnnl_primitive_desc_t hint = NULL;
    CHECK(dnnl_lrn_forward_primitive_desc_create(
            &hint, engine, dnnl_forward_training, AC, src, src, 5, 1e-4f, 0.75f, 1.f, NULL));
    const struct {
        const char *what;
        dnnl_alg_kind_t alg;
        const_dnnl_memory_desc_t ds, dd, src;
        dnnl_dim_t ls;
        dnnl_status_t want;
    } bwd[] = {
            {"good backward", AC, src, src, src, 5, dnnl_success},
            {"backward, hint of another algorithm and size", WC, src, src, src, 3, dnnl_success},
            {"backward, src channels-last", AC, src, src, nhwc, 5, dnnl_success},
            {"backward, src any", AC, src, src, any, 5, dnnl_success},
            {"backward, every tensor any", AC, any, any, any, 5, dnnl_success},
            {"backward, diff_src any, diff_dst channels-last", AC, any, nhwc, src, 5,
                    dnnl_unimplemented},
            {"backward, diff_src and diff_dst of other layouts", AC, nhwc, src, src, 5,
                    dnnl_unimplemented},
            {"backward, other types", AC, src, src, md(4, s, dnnl_bf16), 5, dnnl_unimplemented},
            {"backward, diff_dst of other dimensions", AC, src, oth, src, 5,
                    dnnl_invalid_arguments},
            {"backward, src of other dimensions", AC, src, src, oth, 5, dnnl_invalid_arguments},
            {"backward, algorithm eltwise_relu", dnnl_eltwise_relu, src, src, src, 5,
                    dnnl_invalid_arguments},
            {"backward, NULL src", AC, src, src, NULL, 5, dnnl_invalid_arguments},
    };
    for (size_t i = 0; i < sizeof bwd / sizeof *bwd; i++) {
        dnnl_primitive_desc_t pd = UNTOUCHED;
        dnnl_status_t st = dnnl_lrn_backward_primitive_desc_create(&pd, engine, bwd[i].alg,
                bwd[i].ds, bwd[i].dd, bwd[i].src, bwd[i].ls, 1e-4f, 0.75f, 1.f, hint, NULL);
        expect_pd(bwd[i].what, st, pd, bwd[i].want);
    }
    CHECK(dnnl_primitive_desc_destroy(hint));
    dnnl_primitive_attr_t scales = NULL, post = NULL;
    dnnl_post_ops_t ops = NULL;
    CHECK(dnnl_primitive_attr_create(&scales));
    CHECK(dnnl_primitive_attr_set_scales_mask(scales, DNNL_ARG_SRC, 0));
    CHECK(dnnl_primitive_attr_create(&post));
    CHECK(dnnl_post_ops_create(&ops));
    CHECK(dnnl_post_ops_append_eltwise(ops, dnnl_eltwise_relu, 0, 0));
    CHECK(dnnl_primitive_attr_set_post_ops(post, ops));
    dnnl_primitive_attr_t attrs[] = {scales, post};
    const char *names[] = {"src scales", "eltwise post-op"};
    for (int i = 0; i < 2; i++) {
        dnnl_primitive_desc_t pd = UNTOUCHED;
        dnnl_status_t st = dnnl_lrn_forward_primitive_desc_create(&pd, engine,
                dnnl_forward_training, AC, src, src, 5, 1e-4f, 0.75f, 1.f, attrs[i]);
        expect_pd(names[i], st, pd, dnnl_unimplemented);
    }
    CHECK(dnnl_post_ops_destroy(ops));
    CHECK(dnnl_primitive_attr_destroy(scales));
    CHECK(dnnl_primitive_attr_destroy(post));
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
    CHECK(dnnl_lrn_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
            dnnl_lrn_across_channels, src, src, 3, 1e-4f, 0.75f, 1.f, NULL));
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
    return bad_input_close("lrn_bad_input");
}
