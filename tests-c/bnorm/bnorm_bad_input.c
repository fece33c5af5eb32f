/* Batch normalization with bad input: each gets a status, never a crash, and nothing is
 * written to a refused output (the primitive descriptor pointer keeps what it held; a
 * refused execution leaves the destination and the bytes after it as they were). The
 * statuses are Intel's v3.13 answers (the @ref run checks them there):
 *   - a forward prop kind for backward and the reverse, unknown flags, a 1-D src, dst or
 *     diff tensors of other dimensions, a forward src `any`, NULL descriptors:
 *     invalid_arguments (a backward src `any` is taken, as the plain layout);
 *   - post-ops other than one ReLU, a ReLU with a negative slope in training, scales,
 *     s8 in training or without global stats, src and dst of different types, a fused
 *     ReLU backward without the forward hint (no workspace): unimplemented;
 *   - execution (ours alone: upstream does not check execution arguments): an
 *     undersized destination, statistics of the wrong shape, a missing workspace or
 *     mean: invalid_arguments, the memories untouched.
 *
 * Usage: bnorm_bad_input [cpu|gpu]. With gpu, the test skips (77) when the library sees
 * no OpenCL device. */
#include "bad_input.h"

/* A forward creation that must fail with `want`, leaving *pd as it was. */
static void fwd(const char *what, dnnl_prop_kind_t prop, const_dnnl_memory_desc_t src,
        const_dnnl_memory_desc_t dst, unsigned flags, const_dnnl_primitive_attr_t attr,
        dnnl_status_t want) {
    dnnl_primitive_desc_t pd = UNTOUCHED;
    dnnl_status_t st =
            dnnl_batch_normalization_forward_primitive_desc_create(&pd, engine, prop, src, dst, 1e-3f, flags, attr);
    expect_pd(what, st, pd, want);
}

static void bwd(const char *what, dnnl_prop_kind_t prop, const_dnnl_memory_desc_t dsrc,
        const_dnnl_memory_desc_t ddst, const_dnnl_memory_desc_t src, unsigned flags,
        const_dnnl_primitive_desc_t hint, dnnl_status_t want) {
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_batch_normalization_backward_primitive_desc_create(
            &pd, engine, prop, dsrc, ddst, src, 1e-3f, flags, hint, NULL);
    expect_status(what, st, want);
    if (st == dnnl_success) CHECK(dnnl_primitive_desc_destroy(pd));
}

static dnnl_primitive_attr_t relu_attr(int count, float alpha, dnnl_alg_kind_t alg) {
    dnnl_post_ops_t po = NULL;
    dnnl_primitive_attr_t a = NULL;
    CHECK(dnnl_post_ops_create(&po));
    for (int i = 0; i < count; i++)
        CHECK(dnnl_post_ops_append_eltwise(po, alg, alpha, 0.f));
    CHECK(dnnl_primitive_attr_create(&a));
    CHECK(dnnl_primitive_attr_set_post_ops(a, po));
    CHECK(dnnl_post_ops_destroy(po));
    return a;
}

static void descriptors(void) {
    const dnnl_dim_t d4[4] = {2, 3, 4, 5}, d4b[4] = {2, 3, 4, 6}, d1[1] = {6};
    const_dnnl_memory_desc_t s = md_with_tag(4, d4, dnnl_f32, dnnl_nchw);
    const_dnnl_memory_desc_t other = md_with_tag(4, d4b, dnnl_f32, dnnl_nchw);
    const_dnnl_memory_desc_t any = md_with_tag(4, d4, dnnl_f32, dnnl_format_tag_any);
    const_dnnl_memory_desc_t s1 = md_with_tag(1, d1, dnnl_f32, dnnl_a);
    const_dnnl_memory_desc_t s8 = md_with_tag(4, d4, dnnl_s8, dnnl_nchw);
    const_dnnl_memory_desc_t bf = md_with_tag(4, d4, dnnl_bf16, dnnl_nchw);

    fwd("forward with prop backward", dnnl_backward, s, s, 0, NULL, dnnl_invalid_arguments);
    fwd("forward with unknown flags", dnnl_forward_training, s, s, 0x20, NULL, dnnl_invalid_arguments);
    fwd("forward of a 1-D src", dnnl_forward_inference, s1, s1, 0, NULL, dnnl_invalid_arguments);
    fwd("forward with dst of other dims", dnnl_forward_inference, s, other, 0, NULL, dnnl_invalid_arguments);
    fwd("forward with src any", dnnl_forward_inference, any, any, 0, NULL, dnnl_invalid_arguments);
    fwd("forward with a NULL src", dnnl_forward_inference, NULL, s, 0, NULL, dnnl_invalid_arguments);
    fwd("forward with a NULL dst", dnnl_forward_inference, s, NULL, 0, NULL, dnnl_invalid_arguments);
    fwd("s8 training", dnnl_forward_training, s8, s8, 1, NULL, dnnl_unimplemented);
    fwd("s8 without global stats", dnnl_forward_inference, s8, s8, 0, NULL, dnnl_unimplemented);
    fwd("f32 src, bf16 dst", dnnl_forward_inference, s, bf, 1, NULL, dnnl_unimplemented);

    dnnl_primitive_attr_t tanh = relu_attr(1, 0.f, dnnl_eltwise_tanh);
    dnnl_primitive_attr_t two = relu_attr(2, 0.f, dnnl_eltwise_relu);
    dnnl_primitive_attr_t leaky = relu_attr(1, 0.5f, dnnl_eltwise_relu);
    dnnl_primitive_attr_t scales = NULL;
    CHECK(dnnl_primitive_attr_create(&scales));
    CHECK(dnnl_primitive_attr_set_scales_mask(scales, DNNL_ARG_SRC, 0));
    fwd("a tanh post-op", dnnl_forward_inference, s, s, 0, tanh, dnnl_unimplemented);
    fwd("two ReLU post-ops", dnnl_forward_inference, s, s, 0, two, dnnl_unimplemented);
    fwd("a leaky ReLU post-op in training", dnnl_forward_training, s, s, 0, leaky, dnnl_unimplemented);
    fwd("src scales", dnnl_forward_inference, s, s, 0, scales, dnnl_unimplemented);
    /* The good ones beside them. */
    fwd("a leaky ReLU post-op in inference", dnnl_forward_inference, s, s, 0, leaky, dnnl_success);
    CHECK(dnnl_primitive_attr_destroy(tanh));
    CHECK(dnnl_primitive_attr_destroy(two));
    CHECK(dnnl_primitive_attr_destroy(leaky));
    CHECK(dnnl_primitive_attr_destroy(scales));

    bwd("backward with prop forward", dnnl_forward_training, s, s, s, 0, NULL, dnnl_invalid_arguments);
    bwd("backward with unknown flags", dnnl_backward, s, s, s, 0x40, NULL, dnnl_invalid_arguments);
    bwd("backward with diff_dst of other dims", dnnl_backward, s, other, s, 0, NULL, dnnl_invalid_arguments);
    bwd("backward with diff_src of other dims", dnnl_backward, other, s, s, 0, NULL, dnnl_invalid_arguments);
    /* Upstream takes a backward src of `any` (the plain layout). */
    bwd("backward with src any", dnnl_backward, s, s, any, 0, NULL, dnnl_success);
    bwd("backward with a NULL diff_dst", dnnl_backward, s, NULL, s, 0, NULL, dnnl_invalid_arguments);
    bwd("backward with a fused ReLU and no hint", dnnl_backward, s, s, s, 8, NULL, dnnl_unimplemented);
    bwd("backward with any diffs", dnnl_backward, any, any, s, 0, NULL, dnnl_success);
}

/* ---- execution (ours: upstream does not check execution arguments) ------------------ */

static dnnl_memory_t mem(const_dnnl_memory_desc_t m) {
    dnnl_memory_t x = NULL;
    CHECK(dnnl_memory_create(&x, m, engine, DNNL_MEMORY_ALLOCATE));
    return x;
}

static void execution(void) {
    if (!library_is_ours()) {
        printf("note: execution arguments: not checked here (Intel's library does not check "
               "them)\n");
        return;
    }
    const dnnl_dim_t d4[4] = {2, 3, 4, 5}, small[4] = {2, 3, 4, 4}, c[1] = {3}, c4[1] = {4};
    const_dnnl_memory_desc_t s = md_with_tag(4, d4, dnnl_f32, dnnl_nchw);
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_batch_normalization_forward_primitive_desc_create(&pd, engine, dnnl_forward_training,
            s, s, 1e-3f, 8 /* fuse_norm_relu */, NULL));
    dnnl_primitive_t prim = NULL;
    CHECK(dnnl_primitive_create(&prim, pd));
    const_dnnl_memory_desc_t ws_md = dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0);
    dnnl_memory_t sm = mem(s), mean = mem(md_with_tag(1, c, dnnl_f32, dnnl_a)), var = mem(md_with_tag(1, c, dnnl_f32, dnnl_a));
    dnnl_memory_t ws = mem(ws_md);
    size_t full = dnnl_memory_desc_get_size(s);
    struct {
        const char *what;
        const_dnnl_memory_desc_t m;
        int arg;
    } bad[] = {
            {"dst one column short", md_with_tag(4, small, dnnl_f32, dnnl_nchw), DNNL_ARG_DST},
            {"bf16 dst for an f32 primitive", md_with_tag(4, d4, dnnl_bf16, dnnl_nchw), DNNL_ARG_DST},
            {"a mean of 4 channels", md_with_tag(1, c4, dnnl_f32, dnnl_a), DNNL_ARG_MEAN},
    };
    dnnl_memory_t dm = mem(s);
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm},
            {DNNL_ARG_MEAN, mean}, {DNNL_ARG_VARIANCE, var},
            {DNNL_ARG_WORKSPACE, ws}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char what[96];
        snprintf(what, sizeof what, "execution with %s", bad[i].what);
        expect_refused_output(prim, 5, args, bad[i].arg == DNNL_ARG_DST ? 1 : 2, bad[i].m,
                full + 64, what);
    }
    dnnl_exec_arg_t no_ws[] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}, {DNNL_ARG_MEAN, mean},
            {DNNL_ARG_VARIANCE, var}};
    expect_status("execution without the workspace", dnnl_primitive_execute(prim, stream, 4, no_ws),
            dnnl_invalid_arguments);
    dnnl_exec_arg_t no_mean[] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}, {DNNL_ARG_VARIANCE, var},
            {DNNL_ARG_WORKSPACE, ws}};
    expect_status("execution without the mean", dnnl_primitive_execute(prim, stream, 4, no_mean),
            dnnl_invalid_arguments);
    CHECK(dnnl_stream_wait(stream));
    dnnl_memory_t ms[] = {sm, mean, var, ws, dm};
    for (size_t i = 0; i < sizeof ms / sizeof *ms; i++)
        CHECK(dnnl_memory_destroy(ms[i]));
    CHECK(dnnl_primitive_destroy(prim));
    CHECK(dnnl_primitive_desc_destroy(pd));
}

int main(int argc, char **argv) {
    bad_input_open(argc, argv);
    descriptors();
    execution();
    return bad_input_close("bnorm_bad_input");
}
