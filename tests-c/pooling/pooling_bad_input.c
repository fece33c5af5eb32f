/* Pooling with bad input: each gets a status, never a crash, and nothing is written to a
 * refused destination (the primitive descriptor pointer keeps what it held; a refused
 * execution leaves the destination and the bytes after it as they were). The statuses
 * are Intel's v3.13 answers (the @ref run checks them there):
 *   - bad prop kinds (forward with backward_data) and alg kinds (eltwise_relu, forward and
 *     backward): invalid_arguments;
 *   - src given as `any`, 2-D or 6-D tensors, minibatch or channels that differ, an
 *     output size inconsistent with the window: invalid_arguments;
 *   - a zero stride, a negative dilation or padding_l, a padding_r below minus the
 *     stride, avg_exclude_padding with padding as large as the window: invalid_arguments
 *     (a padding_r of exactly minus the stride is accepted);
 *   - max backward whose hint has no matching workspace (an inference hint, an average
 *     pooling hint, a hint whose dst layout differs): unimplemented;
 *   - sum and prelu post-ops, scales, any attribute on backward, integer backward types:
 *     unimplemented;
 *   - checked on ours alone (Intel's library crashes or does not check): max backward
 *     without a hint (unimplemented), src and dst of different ranks (invalid_arguments;
 *     Intel's accepts them), execution without the workspace, undersized destinations
 *     and workspaces (invalid_arguments, nothing written).
 *
 * Usage: pooling_bad_input [cpu|gpu]. With gpu, the test skips (77) when the library sees
 * no OpenCL device. */
#include "bad_input.h"

/* A descriptor of dims (the plain tag, or `tag`), destroyed at the end. */
static const_dnnl_memory_desc_t md_t(int nd, const dnnl_dim_t *dims, dnnl_data_type_t dt, dnnl_format_tag_t tag) {
    return tag ? md_with_tag(nd, dims, dt, tag) : md(nd, dims, dt);
}

static const dnnl_dim_t s2[] = {2, 2}, k2[] = {2, 2}, z[] = {0, 0}, one[] = {1, 1};

/* Forward creation must return `want` and leave *pd as it was. */
static void fwd(const char *what, dnnl_prop_kind_t pk, dnnl_alg_kind_t alg, const_dnnl_memory_desc_t src,
        const_dnnl_memory_desc_t dst, const dnnl_dim_t *st, const dnnl_dim_t *k, const dnnl_dim_t *dil,
        const dnnl_dim_t *pl, const dnnl_dim_t *pr, const_dnnl_primitive_attr_t attr, dnnl_status_t want) {
    dnnl_primitive_desc_t pd = (dnnl_primitive_desc_t)&failures; /* must stay */
    dnnl_status_t got = dnnl_pooling_forward_primitive_desc_create(&pd, engine, pk, alg, src, dst, st, k, dil, pl, pr, attr);
    expect_status(what, got, want);
    if (got == dnnl_success) CHECK(dnnl_primitive_desc_destroy(pd));
    else if (pd != (dnnl_primitive_desc_t)&failures) {
        fprintf(stderr, "FAIL: %s: the refused call wrote the descriptor\n", what);
        failures++;
    }
}

static void bwd(const char *what, dnnl_alg_kind_t alg, const_dnnl_memory_desc_t diff_src,
        const_dnnl_memory_desc_t diff_dst, const_dnnl_primitive_desc_t hint,
        const_dnnl_primitive_attr_t attr, dnnl_status_t want) {
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t got = dnnl_pooling_backward_primitive_desc_create(&pd, engine, alg, diff_src, diff_dst, s2, k2, z, z, z, hint, attr);
    expect_status(what, got, want);
    if (got == dnnl_success) CHECK(dnnl_primitive_desc_destroy(pd));
}

static dnnl_primitive_desc_t forward_pd(dnnl_prop_kind_t pk, dnnl_alg_kind_t alg,
        const_dnnl_memory_desc_t src, const_dnnl_memory_desc_t dst) {
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_pooling_forward_primitive_desc_create(&pd, engine, pk, alg, src, dst, s2, k2, z, z, z, NULL));
    return pd;
}

static void descriptors(void) {
    const dnnl_dim_t sd[] = {2, 3, 8, 8}, dd[] = {2, 3, 4, 4};
    const_dnnl_memory_desc_t src = md(4, sd, dnnl_f32), dst = md(4, dd, dnnl_f32);
    const dnnl_alg_kind_t max = dnnl_pooling_max, incl = dnnl_pooling_avg_include_padding,
                          excl = dnnl_pooling_avg_exclude_padding;
    const dnnl_prop_kind_t tr = dnnl_forward_training, inf = dnnl_forward_inference;
    fwd("the good descriptor", tr, max, src, dst, s2, k2, z, z, z, NULL, dnnl_success);
    fwd("forward with backward_data", dnnl_backward_data, max, src, dst, s2, k2, z, z, z, NULL, dnnl_invalid_arguments);
    fwd("alg eltwise_relu", tr, dnnl_eltwise_relu, src, dst, s2, k2, z, z, z, NULL, dnnl_invalid_arguments);
    fwd("src any", inf, max, md_t(4, sd, dnnl_f32, dnnl_format_tag_any), dst, s2, k2, z, z, z, NULL,
            dnnl_invalid_arguments);
    const dnnl_dim_t d2[] = {2, 3}, d6[] = {2, 3, 4, 4, 4, 4};
    fwd("2-D tensors", inf, max, md(2, d2, dnnl_f32), md(2, d2, dnnl_f32), s2, k2, z, z, z, NULL,
            dnnl_invalid_arguments);
    fwd("6-D tensors", inf, max, md(6, d6, dnnl_f32), md(6, d6, dnnl_f32), one, one, z, z, z, NULL,
            dnnl_invalid_arguments);
    const dnnl_dim_t dc[] = {2, 4, 4, 4}, dn[] = {3, 3, 4, 4}, d5[] = {2, 3, 5, 5};
    fwd("channels differ", inf, max, src, md(4, dc, dnnl_f32), s2, k2, z, z, z, NULL, dnnl_invalid_arguments);
    fwd("minibatch differs", inf, max, src, md(4, dn, dnnl_f32), s2, k2, z, z, z, NULL, dnnl_invalid_arguments);
    fwd("output size inconsistent", inf, max, src, md(4, d5, dnnl_f32), s2, k2, z, z, z, NULL,
            dnnl_invalid_arguments);
    const dnnl_dim_t zero2[] = {0, 0}, neg[] = {-1, -1}, m2[] = {-2, -2}, m3[] = {-3, -3};
    const dnnl_dim_t d3[] = {2, 3, 3, 3}, d2x2[] = {2, 3, 2, 2}, d6x6[] = {2, 3, 6, 6}, d5x5[] = {2, 3, 5, 5};
    fwd("zero stride", inf, max, src, dst, zero2, k2, z, z, z, NULL, dnnl_invalid_arguments);
    fwd("negative dilation", inf, max, src, dst, s2, k2, neg, z, z, NULL, dnnl_invalid_arguments);
    fwd("negative padding_l", inf, max, src, dst, s2, k2, z, neg, one, NULL, dnnl_invalid_arguments);
    fwd("padding_r of minus the stride", inf, max, src, md(4, d3, dnnl_f32), s2, k2, z, z, m2, NULL, dnnl_success);
    fwd("padding_r below minus the stride", inf, max, src, md(4, d2x2, dnnl_f32), s2, k2, z, z, m3, NULL,
            dnnl_invalid_arguments);
    const dnnl_dim_t p2[] = {2, 2}, p1[] = {1, 1};
    fwd("avg_exclude, padding as large as the window", inf, excl, src, md(4, d6x6, dnnl_f32), s2, k2, z, p2,
            p2, NULL, dnnl_invalid_arguments);
    fwd("avg_exclude, padding_r as large as the window", inf, excl, src, md(4, d5x5, dnnl_f32), s2, k2, z, z,
            p2, NULL, dnnl_invalid_arguments);
    fwd("avg_include, windows wholly in the padding", inf, incl, src, md(4, d6x6, dnnl_f32), s2, k2, z, p2,
            p2, NULL, dnnl_success);
    fwd("avg_exclude, padding below the window", inf, excl, src, md(4, d5x5, dnnl_f32), s2, k2, z, p1, p1,
            NULL, dnnl_success);

    /* Attributes. */
    const dnnl_dim_t bd[] = {1, 3, 1, 1};
    for (int a = 0; a < 4; a++) {
        dnnl_primitive_attr_t attr = NULL;
        CHECK(dnnl_primitive_attr_create(&attr));
        dnnl_post_ops_t po = NULL;
        CHECK(dnnl_post_ops_create(&po));
        const char *what = "";
        switch (a) {
            case 0: what = "a sum post-op"; CHECK(dnnl_post_ops_append_sum(po, 1.0f, 0, dnnl_data_type_undef)); break;
            case 1: what = "a prelu post-op"; CHECK(dnnl_post_ops_append_prelu(po, 2)); break;
            case 2: what = "src scales"; CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0)); break;
            default: what = "a binary post-op on backward"; CHECK(dnnl_post_ops_append_binary(po, dnnl_binary_add, md(4, bd, dnnl_f32))); break;
        }
        CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
        CHECK(dnnl_post_ops_destroy(po));
        if (a < 3) fwd(what, tr, incl, src, dst, s2, k2, z, z, z, attr, dnnl_unimplemented);
        else {
            fwd("a binary post-op on forward", tr, incl, src, dst, s2, k2, z, z, z, attr, dnnl_success);
            bwd(what, incl, src, dst, NULL, attr, dnnl_unimplemented);
        }
        CHECK(dnnl_primitive_attr_destroy(attr));
    }

    /* Backward. */
    dnnl_primitive_desc_t train = forward_pd(tr, max, src, dst), infer = forward_pd(inf, max, src, dst),
                          avg = forward_pd(tr, incl, src, dst);
    dnnl_primitive_desc_t nhwc = forward_pd(tr, max, md_t(4, sd, dnnl_f32, dnnl_acdb), md_t(4, dd, dnnl_f32, dnnl_acdb));
    bwd("max backward with the training hint", max, src, dst, train, NULL, dnnl_success);
    bwd("max backward with an inference hint", max, src, dst, infer, NULL, dnnl_unimplemented);
    bwd("max backward with an average pooling hint", max, src, dst, avg, NULL, dnnl_unimplemented);
    bwd("max backward, nchw, with an nhwc hint", max, src, dst, nhwc, NULL, dnnl_unimplemented);
    bwd("avg backward without a hint", incl, src, dst, NULL, NULL, dnnl_success);
    bwd("backward alg eltwise_relu", dnnl_eltwise_relu, src, dst, NULL, NULL, dnnl_invalid_arguments);
    bwd("backward output size inconsistent", incl, src, md(4, d5, dnnl_f32), NULL, NULL, dnnl_invalid_arguments);
    bwd("backward s8", incl, md(4, sd, dnnl_s8), md(4, dd, dnnl_s8), NULL, NULL, dnnl_unimplemented);
    bwd("backward s32 diff_dst", incl, src, md(4, dd, dnnl_s32), NULL, NULL, dnnl_unimplemented);
    if (library_is_ours()) {
        bwd("max backward without a hint (ours; Intel's library crashes)", max, src, dst, NULL, NULL,
                dnnl_unimplemented);
        const dnnl_dim_t s3[] = {2, 3, 8};
        fwd("src and dst of different ranks (ours; Intel's library accepts them)", inf, max, md(3, s3, dnnl_f32),
                dst, s2, k2, z, z, z, NULL, dnnl_invalid_arguments);
        fwd("NULL dilation and padding_r: dense, padding_l (ours; Intel's library crashes)", inf, max, src, dst,
                s2, k2, NULL, z, NULL, NULL, dnnl_success);
        fwd("NULL kernel", inf, max, src, dst, s2, NULL, z, z, z, NULL, dnnl_invalid_arguments);
        fwd("NULL strides", inf, max, src, dst, NULL, k2, z, z, z, NULL, dnnl_invalid_arguments);
    }
    CHECK(dnnl_primitive_desc_destroy(train));
    CHECK(dnnl_primitive_desc_destroy(infer));
    CHECK(dnnl_primitive_desc_destroy(avg));
    CHECK(dnnl_primitive_desc_destroy(nhwc));
}

/* ---- execution (ours: upstream does not check execution arguments) ------------------ */

static void execution(void) {
    if (!library_is_ours()) {
        printf("note: execution arguments: not checked here (Intel's library does not check "
               "them)\n");
        return;
    }
    const dnnl_dim_t sd[] = {2, 3, 8, 8}, dd[] = {2, 3, 4, 4};
    const_dnnl_memory_desc_t src = md(4, sd, dnnl_f32), dst = md(4, dd, dnnl_f32);
    dnnl_primitive_desc_t fpd = forward_pd(dnnl_forward_training, dnnl_pooling_max, src, dst);
    const_dnnl_memory_desc_t ws = dnnl_primitive_desc_query_md(fpd, dnnl_query_workspace_md, 0);
    dnnl_primitive_desc_t bpd = NULL;
    CHECK(dnnl_pooling_backward_primitive_desc_create(&bpd, engine, dnnl_pooling_max, src, dst, s2, k2, z, z, z, fpd, NULL));
    dnnl_primitive_t fp = NULL, bp = NULL;
    CHECK(dnnl_primitive_create(&fp, fpd));
    CHECK(dnnl_primitive_create(&bp, bpd));
    dnnl_memory_t sm = NULL, dm = NULL, wm = NULL;
    CHECK(dnnl_memory_create(&sm, src, engine, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_create(&dm, dst, engine, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_create(&wm, ws, engine, DNNL_MEMORY_ALLOCATE));
    dnnl_exec_arg_t no_ws[] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}};
    expect_status("forward training without the workspace", dnnl_primitive_execute(fp, stream, 2, no_ws),
            dnnl_invalid_arguments);
    dnnl_exec_arg_t bwd_no_ws[] = {{DNNL_ARG_DIFF_DST, dm}, {DNNL_ARG_DIFF_SRC, sm}};
    expect_status("max backward without the workspace", dnnl_primitive_execute(bp, stream, 2, bwd_no_ws),
            dnnl_invalid_arguments);
    CHECK(dnnl_stream_wait(stream));
    /* Undersized destinations and workspaces: nothing written. */
    size_t full = dnnl_memory_desc_get_size(dst);
    const dnnl_dim_t short_w[] = {2, 3, 4, 3}, short_n[] = {1, 3, 4, 4};
    struct {
        const char *what;
        const_dnnl_memory_desc_t m;
        int arg;
    } bad[] = {
            {"dst one column short", md(4, short_w, dnnl_f32), DNNL_ARG_DST},
            {"dst one image short", md(4, short_n, dnnl_f32), DNNL_ARG_DST},
            {"bf16 dst for an f32 primitive", md(4, dd, dnnl_bf16), DNNL_ARG_DST},
            {"workspace one column short", md(4, short_w, dnnl_u8), DNNL_ARG_WORKSPACE},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        unsigned char *buf = NULL;
        dnnl_memory_t m = canary_memory(bad[i].m, &buf, full + 64);
        dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, bad[i].arg == DNNL_ARG_DST ? m : dm},
                {DNNL_ARG_WORKSPACE, bad[i].arg == DNNL_ARG_WORKSPACE ? m : wm}};
        dnnl_status_t st = dnnl_primitive_execute(fp, stream, 3, args);
        CHECK(dnnl_stream_wait(stream));
        expect_status(bad[i].what, st, dnnl_invalid_arguments);
        if (!untouched(m, buf, full + 64)) {
            fprintf(stderr, "FAIL: execution with a %s wrote to it or past it\n", bad[i].what);
            failures++;
        }
        CHECK(dnnl_memory_destroy(m));
        free(buf);
    }
    CHECK(dnnl_memory_destroy(sm));
    CHECK(dnnl_memory_destroy(dm));
    CHECK(dnnl_memory_destroy(wm));
    CHECK(dnnl_primitive_destroy(fp));
    CHECK(dnnl_primitive_destroy(bp));
    CHECK(dnnl_primitive_desc_destroy(fpd));
    CHECK(dnnl_primitive_desc_destroy(bpd));
}

int main(int argc, char **argv) {
    on_gpu = argc > 1 && strncmp(argv[1], "gpu", 3) == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    descriptors();
    execution();
    free_mds();
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    if (failures) {
        fprintf(stderr, "pooling_bad_input: %d failures\n", failures);
        return 1;
    }
    printf("pooling_bad_input on %s: every bad input refused with upstream's status\n", on_gpu ? "gpu" : "cpu");
    return 0;
}
