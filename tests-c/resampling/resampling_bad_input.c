/* Resampling with bad input: each gets a status, never a crash, and nothing is written
 * to a refused destination (the primitive descriptor pointer keeps what it held; a
 * refused execution leaves the destination and the bytes after it as they were). The
 * statuses are Intel's v3.13 answers (the @ref run checks them there):
 *   - bad prop kinds (forward with backward_data) and alg kinds (pooling_max, forward
 *     and backward): invalid_arguments;
 *   - neither dst nor factors, src given as `any`, 2-D or 6-D tensors, minibatch,
 *     channels or ranks that differ: invalid_arguments;
 *   - backward with diff_src and diff_dst both `any`: unimplemented;
 *   - prelu post-ops, a sum of another data type size, scales, any attribute on
 *     backward: unimplemented;
 *   - accepted: factors inconsistent with a given dst (the op uses O / I), a hint of
 *     another kind or shape on backward (not read), zero-sized spatial dimensions;
 *   - checked on ours alone (Intel's library builds a negative shape from it, or does
 *     not check): a negative factor (invalid_arguments), undersized destinations at
 *     execution (invalid_arguments, nothing written).
 *
 * Usage: resampling_bad_input [cpu|gpu]. With gpu, the test skips (77) when the library
 * sees no OpenCL device. */
#include "bad_input.h"

/* A descriptor of dims (the plain tag, or `tag`), destroyed at the end. */
static const_dnnl_memory_desc_t md_t(int nd, const dnnl_dim_t *dims, dnnl_data_type_t dt, dnnl_format_tag_t tag) {
    return tag ? md_with_tag(nd, dims, dt, tag) : md(nd, dims, dt);
}

/* Forward creation must return `want` and leave *pd as it was when refused. */
static void fwd(const char *what, dnnl_prop_kind_t pk, dnnl_alg_kind_t alg, const float *factors,
        const_dnnl_memory_desc_t src, const_dnnl_memory_desc_t dst, const_dnnl_primitive_attr_t attr,
        dnnl_status_t want) {
    dnnl_primitive_desc_t pd = (dnnl_primitive_desc_t)&failures; /* must stay */
    dnnl_status_t got = dnnl_resampling_forward_primitive_desc_create(&pd, engine, pk, alg, factors, src, dst, attr);
    expect_status(what, got, want);
    if (got == dnnl_success) CHECK(dnnl_primitive_desc_destroy(pd));
    else if (pd != (dnnl_primitive_desc_t)&failures) {
        fprintf(stderr, "FAIL: %s: the refused call wrote the descriptor\n", what);
        failures++;
    }
}

static void bwd(const char *what, dnnl_alg_kind_t alg, const float *factors, const_dnnl_memory_desc_t diff_src,
        const_dnnl_memory_desc_t diff_dst, const_dnnl_primitive_desc_t hint, const_dnnl_primitive_attr_t attr,
        dnnl_status_t want) {
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t got = dnnl_resampling_backward_primitive_desc_create(&pd, engine, alg, factors, diff_src, diff_dst, hint, attr);
    expect_status(what, got, want);
    if (got == dnnl_success) CHECK(dnnl_primitive_desc_destroy(pd));
}

static void descriptors(void) {
    const dnnl_dim_t sd[] = {2, 3, 5, 7}, dd[] = {2, 3, 10, 14};
    const_dnnl_memory_desc_t src = md(4, sd, dnnl_f32), dst = md(4, dd, dnnl_f32);
    const dnnl_alg_kind_t nn = dnnl_resampling_nearest, lin = dnnl_resampling_linear;
    const dnnl_prop_kind_t tr = dnnl_forward_training;
    const float f2[] = {2.0f, 2.0f}, f3[] = {3.0f, 3.0f}, neg[] = {-1.0f, 2.0f};

    fwd("the reference case", tr, nn, NULL, src, dst, NULL, dnnl_success);
    fwd("factors inconsistent with dst (ignored)", tr, lin, f3, src, dst, NULL, dnnl_success);
    fwd("dst from the factors", tr, lin, f2, src, NULL, NULL, dnnl_success);
    fwd("neither dst nor factors", tr, nn, NULL, src, NULL, NULL, dnnl_invalid_arguments);
    fwd("forward with backward_data", dnnl_backward_data, nn, NULL, src, dst, NULL, dnnl_invalid_arguments);
    fwd("forward with pooling_max", tr, dnnl_pooling_max, NULL, src, dst, NULL, dnnl_invalid_arguments);
    bwd("backward with pooling_max", dnnl_pooling_max, NULL, src, dst, NULL, NULL, dnnl_invalid_arguments);
    fwd("src any", tr, nn, NULL, md_t(4, sd, dnnl_f32, dnnl_format_tag_any), dst, NULL, dnnl_invalid_arguments);
    const dnnl_dim_t d2[] = {2, 3}, d6[] = {2, 3, 2, 2, 2, 2};
    fwd("2-D tensors", tr, nn, NULL, md(2, d2, dnnl_f32), md(2, d2, dnnl_f32), NULL, dnnl_invalid_arguments);
    fwd("6-D tensors", tr, nn, NULL, md(6, d6, dnnl_f32), md(6, d6, dnnl_f32), NULL, dnnl_invalid_arguments);
    const dnnl_dim_t dn[] = {3, 3, 10, 14}, dc[] = {2, 4, 10, 14}, d3[] = {2, 3, 10};
    fwd("minibatch differs", tr, nn, NULL, src, md(4, dn, dnnl_f32), NULL, dnnl_invalid_arguments);
    fwd("channels differ", tr, nn, NULL, src, md(4, dc, dnnl_f32), NULL, dnnl_invalid_arguments);
    fwd("ranks differ", tr, nn, NULL, src, md(3, d3, dnnl_f32), NULL, dnnl_invalid_arguments);
    bwd("backward channels differ", lin, NULL, src, md(4, dc, dnnl_f32), NULL, NULL, dnnl_invalid_arguments);
    const dnnl_dim_t dz[] = {2, 3, 0, 14}, sz[] = {2, 3, 0, 7};
    fwd("zero-sized dst", tr, lin, NULL, src, md(4, dz, dnnl_f32), NULL, dnnl_success);
    fwd("zero-sized src and dst", tr, lin, NULL, md(4, sz, dnnl_f32), md(4, dz, dnnl_f32), NULL, dnnl_success);
    bwd("backward both any", nn, NULL, md_t(4, sd, dnnl_f32, dnnl_format_tag_any),
            md_t(4, dd, dnnl_f32, dnnl_format_tag_any), NULL, NULL, dnnl_unimplemented);
    bwd("backward diff_src any", nn, NULL, md_t(4, sd, dnnl_f32, dnnl_format_tag_any), dst, NULL, NULL,
            dnnl_success);
    if (library_is_ours())
        fwd("a negative factor", tr, nn, neg, src, NULL, NULL, dnnl_invalid_arguments);

    /* Attributes. */
    const dnnl_dim_t bd[] = {1, 3, 1, 1};
    for (int a = 0; a < 5; a++) {
        dnnl_primitive_attr_t attr = NULL;
        CHECK(dnnl_primitive_attr_create(&attr));
        dnnl_post_ops_t po = NULL;
        CHECK(dnnl_post_ops_create(&po));
        const char *what = "";
        switch (a) {
            case 0: what = "a prelu post-op"; CHECK(dnnl_post_ops_append_prelu(po, 2)); break;
            case 1: what = "a sum post-op of type s8 on f32"; CHECK(dnnl_post_ops_append_sum(po, 1.0f, 0, dnnl_s8)); break;
            case 2: what = "src scales"; CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0)); break;
            case 3: what = "a sum post-op on backward"; CHECK(dnnl_post_ops_append_sum(po, 1.0f, 0, dnnl_data_type_undef)); break;
            default: what = "a binary post-op on backward"; CHECK(dnnl_post_ops_append_binary(po, dnnl_binary_add, md(4, bd, dnnl_f32))); break;
        }
        CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
        CHECK(dnnl_post_ops_destroy(po));
        if (a < 3) fwd(what, tr, lin, NULL, src, dst, attr, dnnl_unimplemented);
        else bwd(what, lin, NULL, src, dst, NULL, attr, dnnl_unimplemented);
        CHECK(dnnl_primitive_attr_destroy(attr));
    }

    /* Backward hints: not read. */
    dnnl_primitive_desc_t lin_pd = NULL, pool_pd = NULL;
    CHECK(dnnl_resampling_forward_primitive_desc_create(&lin_pd, engine, tr, lin, NULL, src, dst, NULL));
    const dnnl_dim_t k2[] = {2, 2}, z[] = {0, 0};
    CHECK(dnnl_pooling_forward_primitive_desc_create(&pool_pd, engine, tr, dnnl_pooling_avg_include_padding, dst,
            src, k2, k2, z, z, z, NULL));
    bwd("a hint of the other algorithm", nn, NULL, src, dst, lin_pd, NULL, dnnl_success);
    const dnnl_dim_t d11[] = {2, 3, 11, 14};
    bwd("a hint of another shape", lin, NULL, src, md(4, d11, dnnl_f32), lin_pd, NULL, dnnl_success);
    bwd("a pooling hint", lin, NULL, src, dst, pool_pd, NULL, dnnl_success);
    CHECK(dnnl_primitive_desc_destroy(lin_pd));
    CHECK(dnnl_primitive_desc_destroy(pool_pd));
}

/* ---- execution (ours: upstream does not check execution arguments) ------------------ */

static void execution(void) {
    if (!library_is_ours()) {
        printf("note: execution arguments: not checked here (Intel's library does not check "
               "them)\n");
        return;
    }
    const dnnl_dim_t sd[] = {2, 3, 5, 7}, dd[] = {2, 3, 10, 14};
    const_dnnl_memory_desc_t src = md(4, sd, dnnl_f32), dst = md(4, dd, dnnl_f32);
    dnnl_primitive_desc_t fpd = NULL, bpd = NULL;
    CHECK(dnnl_resampling_forward_primitive_desc_create(&fpd, engine, dnnl_forward_training,
            dnnl_resampling_linear, NULL, src, dst, NULL));
    CHECK(dnnl_resampling_backward_primitive_desc_create(&bpd, engine, dnnl_resampling_linear, NULL, src, dst,
            fpd, NULL));
    dnnl_primitive_t fp = NULL, bp = NULL;
    CHECK(dnnl_primitive_create(&fp, fpd));
    CHECK(dnnl_primitive_create(&bp, bpd));
    dnnl_memory_t sm = NULL, dm = NULL;
    CHECK(dnnl_memory_create(&sm, src, engine, DNNL_MEMORY_ALLOCATE));
    CHECK(dnnl_memory_create(&dm, dst, engine, DNNL_MEMORY_ALLOCATE));
    dnnl_exec_arg_t no_dst[] = {{DNNL_ARG_SRC, sm}};
    expect_status("forward without dst", dnnl_primitive_execute(fp, stream, 1, no_dst), dnnl_invalid_arguments);
    /* Undersized outputs: nothing written. */
    const dnnl_dim_t short_w[] = {2, 3, 10, 13}, short_n[] = {1, 3, 10, 14}, short_s[] = {2, 3, 5, 6};
    struct {
        const char *what;
        const_dnnl_memory_desc_t m;
        int backward;
    } bad[] = {
            {"dst one column short", md(4, short_w, dnnl_f32), 0},
            {"dst one image short", md(4, short_n, dnnl_f32), 0},
            {"bf16 dst for an f32 primitive", md(4, dd, dnnl_bf16), 0},
            {"diff_src one column short", md(4, short_s, dnnl_f32), 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        unsigned char *buf = NULL;
        size_t full = dnnl_memory_desc_get_size(bad[i].backward ? src : dst);
        dnnl_memory_t m = canary_memory(bad[i].m, &buf, full + 64);
        dnnl_exec_arg_t fargs[] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, m}};
        dnnl_exec_arg_t bargs[] = {{DNNL_ARG_DIFF_DST, dm}, {DNNL_ARG_DIFF_SRC, m}};
        dnnl_status_t st = dnnl_primitive_execute(bad[i].backward ? bp : fp, stream, 2, bad[i].backward ? bargs : fargs);
        CHECK(dnnl_stream_wait(stream));
        expect_status(bad[i].what, st, dnnl_invalid_arguments);
        if (!untouched(m, buf, full + 64)) {
            fprintf(stderr, "FAIL: %s: the refused execution wrote memory\n", bad[i].what);
            failures++;
        }
        CHECK(dnnl_memory_destroy(m));
        free(buf);
    }
    CHECK(dnnl_memory_destroy(sm));
    CHECK(dnnl_memory_destroy(dm));
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
        fprintf(stderr, "resampling_bad_input: %d failures\n", failures);
        return 1;
    }
    printf("resampling_bad_input on %s: every bad input refused with upstream's status\n", on_gpu ? "gpu" : "cpu");
    return 0;
}
