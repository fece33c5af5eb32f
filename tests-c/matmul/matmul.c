/* Matmul (dnnl_matmul_primitive_desc_create) through the official API,
 * compared with a reference computed here in double:
 *   - odd shapes, batch broadcast, bias broadcast, transposed weights (ba),
 *     bf16 and f16 inputs, format any (row-major), run-time dimensions,
 *     scales (src, per-N weights, dst);
 *   - the queries (src/weights/bias/dst memory descriptors, exec_arg_md,
 *     inputs and outputs, implementation);
 *   - bad input: K mismatch and wrong numbers of dimensions
 *     (dnnl_invalid_arguments), NULL handles, an s8 src with f32 weights
 *     (dnnl_invalid_arguments), f32 src with s8 weights and zero points of a float
 *     matmul (dnnl_unimplemented). Int8 is matmul_int8.c's.
 *
 * Usage: matmul_matmul [cpu|gpu]. With gpu, the test skips (77) when the
 * library sees no OpenCL device. */
#include "common.h"

static int on_gpu;

/* A 3-D (batch, M, K) x (batch, K, N) case; a batch of 1 in src or weights
 * broadcasts; the bias (optional) is (bb, bm, N) with bb, bm 1 or full. */
typedef struct {
    int64_t bs, bw, m, n, k;
    int bias_b, bias_m; /* bias dims: full (1) or broadcast (0) */
    int with_bias;
    dnnl_data_type_t dt, dst_dt;
    dnnl_format_tag_t wtag; /* abc or acb (transposed weights) */
} case_t;

static void run_case(case_t c, const char *what) {
    int64_t b = c.bs > c.bw ? c.bs : c.bw;
    dnnl_dims_t sd = {c.bs, c.m, c.k}, wd = {c.bw, c.k, c.n}, dd = {b, c.m, c.n};
    dnnl_dims_t bd = {c.bias_b ? b : 1, c.bias_m ? c.m : 1, c.n};
    dnnl_memory_desc_t smd = md_tag(3, sd, c.dt, dnnl_abc);
    dnnl_memory_desc_t wmd = md_tag(3, wd, c.dt, c.wtag);
    dnnl_memory_desc_t dmd = md_tag(3, dd, c.dst_dt, dnnl_abc);
    dnnl_memory_desc_t bmd = md_tag(3, bd, dnnl_f32, dnnl_abc);
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_matmul_primitive_desc_create(&pd, engine, smd, wmd,
            c.with_bias ? bmd : NULL, dmd, NULL);
    if (reference_lacks(st, what)) {
        CHECK(dnnl_memory_desc_destroy(smd));
        CHECK(dnnl_memory_desc_destroy(wmd));
        CHECK(dnnl_memory_desc_destroy(dmd));
        CHECK(dnnl_memory_desc_destroy(bmd));
        return;
    }
    CHECK(st);
    expect_impl(pd, on_gpu);
    EXPECT(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), smd));
    EXPECT(dnnl_memory_desc_equal(
            dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), wmd));
    EXPECT(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), dmd));
    if (c.with_bias) {
        EXPECT(dnnl_memory_desc_equal(
                dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 1), bmd));
        EXPECT(dnnl_memory_desc_equal(
                dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_BIAS), bmd));
    }
    EXPECT(dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0)
            == 2 + c.with_bias);
    EXPECT(dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_outputs_s32, 0) == 1);

    float *s = values(c.bs * c.m * c.k, 1), *w = values(c.bw * c.k * c.n, 2);
    float *bv = values(bd[0] * bd[1] * bd[2], 3);
    dnnl_memory_t sm = filled(smd, s), wm = filled(wmd, w), bm = filled(bmd, bv);
    dnnl_memory_t dm = memory(dmd);
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, dm},
            {DNNL_ARG_BIAS, bm}};
    run(pd, c.with_bias ? 4 : 3, args);

    int64_t total = b * c.m * c.n;
    double *want = calloc((size_t)total + 1, sizeof *want);
    double *mag = calloc((size_t)total + 1, sizeof *mag);
    for (int64_t i = 0; i < b; i++)
        for (int64_t m = 0; m < c.m; m++)
            for (int64_t n = 0; n < c.n; n++) {
                int64_t o = (i * c.m + m) * c.n + n;
                for (int64_t k = 0; k < c.k; k++) {
                    double p = (double)s[((c.bs == 1 ? 0 : i) * c.m + m) * c.k + k]
                            * w[((c.bw == 1 ? 0 : i) * c.k + k) * c.n + n];
                    want[o] += p;
                    mag[o] += fabs(p);
                }
                if (c.with_bias) {
                    double v = bv[((c.bias_b ? i : 0) * bd[1] + (c.bias_m ? m : 0)) * c.n + n];
                    want[o] += v;
                    mag[o] += fabs(v);
                }
            }
    compare(what, dm, want, mag, total, c.k + c.with_bias);
    free(want);
    free(mag);
    free(s);
    free(w);
    free(bv);
    CHECK(dnnl_memory_destroy(sm));
    CHECK(dnnl_memory_destroy(wm));
    CHECK(dnnl_memory_destroy(bm));
    CHECK(dnnl_memory_destroy(dm));
    CHECK(dnnl_primitive_desc_destroy(pd));
    CHECK(dnnl_memory_desc_destroy(smd));
    CHECK(dnnl_memory_desc_destroy(wmd));
    CHECK(dnnl_memory_desc_destroy(dmd));
    CHECK(dnnl_memory_desc_destroy(bmd));
}

/* Format any: plain row-major for src, weights and dst. */
static void format_any(void) {
    dnnl_dims_t sd = {3, 4}, wd = {4, 5}, dd = {3, 5};
    dnnl_memory_desc_t sa = md_tag(2, sd, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_t wa = md_tag(2, wd, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_t da = md_tag(2, dd, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_t sp = md_tag(2, sd, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t wp = md_tag(2, wd, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t dp = md_tag(2, dd, dnnl_f32, dnnl_ab);
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_matmul_primitive_desc_create(&pd, engine, sa, wa, NULL, da, NULL));
    EXPECT(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), sp));
    /* Upstream picks a blocked layout of its own for weights. */
    if (library_is_ours())
        EXPECT(dnnl_memory_desc_equal(
                dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), wp));
    EXPECT(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), dp));
    /* No bias: the zero descriptor. */
    const_dnnl_memory_desc_t none = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 1);
    int nd = -1;
    EXPECT(none == NULL || (dnnl_memory_desc_query(none, dnnl_query_ndims_s32, &nd) == 0 && nd == 0));
    CHECK(dnnl_primitive_desc_destroy(pd));
    dnnl_memory_desc_t all[] = {sa, wa, da, sp, wp, dp};
    for (int i = 0; i < 6; i++)
        CHECK(dnnl_memory_desc_destroy(all[i]));
}

/* M, N, K given at execution. */
static void runtime_dims(void) {
    const int64_t R = DNNL_RUNTIME_DIM_VAL, m = 9, n = 14, k = 11;
    dnnl_dims_t rd = {R, R};
    dnnl_memory_desc_t sr = md_tag(2, rd, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t wr = md_tag(2, rd, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t dr = md_tag(2, rd, dnnl_f32, dnnl_ab);
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_matmul_primitive_desc_create(&pd, engine, sr, wr, NULL, dr, NULL));
    dnnl_dims_t sd = {m, k}, wd = {k, n}, dd = {m, n};
    dnnl_memory_desc_t smd = md_tag(2, sd, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t wmd = md_tag(2, wd, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t dmd = md_tag(2, dd, dnnl_f32, dnnl_ab);
    float *s = values(m * k, 1), *w = values(k * n, 2);
    dnnl_memory_t sm = filled(smd, s), wm = filled(wmd, w), dm = memory(dmd);
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, dm}};
    run(pd, 3, args);
    double want[9 * 14] = {0}, mag[9 * 14] = {0};
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++)
            for (int64_t kk = 0; kk < k; kk++) {
                double p = (double)s[i * k + kk] * w[kk * n + j];
                want[i * n + j] += p;
                mag[i * n + j] += fabs(p);
            }
    compare("run-time dims", dm, want, mag, m * n, k);
    /* A K that disagrees at execution. */
    dnnl_dims_t wd2 = {k + 1, n};
    dnnl_memory_desc_t wmd2 = md_tag(2, wd2, dnnl_f32, dnnl_ab);
    dnnl_memory_t wm2 = memory(wmd2);
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_primitive_create(&p, pd));
    dnnl_exec_arg_t bad[] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, wm2}, {DNNL_ARG_DST, dm}};
    /* Ours checks execution arguments; upstream runs it (reading past the buffer). */
    if (library_is_ours()) CHECK_STATUS(dnnl_primitive_execute(p, stream, 3, bad), dnnl_invalid_arguments);
    CHECK(dnnl_primitive_destroy(p));
    free(s);
    free(w);
    dnnl_memory_t mems[] = {sm, wm, dm, wm2};
    for (int i = 0; i < 4; i++)
        CHECK(dnnl_memory_destroy(mems[i]));
    dnnl_memory_desc_t mds[] = {sr, wr, dr, smd, wmd, dmd, wmd2};
    for (int i = 0; i < 7; i++)
        CHECK(dnnl_memory_desc_destroy(mds[i]));
    CHECK(dnnl_primitive_desc_destroy(pd));
}

/* dst = (src_scale * wei_scale[n] * acc) / dst_scale. */
static void scales(void) {
    const int64_t m = 5, n = 6, k = 7;
    dnnl_dims_t sd = {m, k}, wd = {k, n}, dd = {m, n}, one = {1}, nd = {n};
    dnnl_memory_desc_t smd = md_tag(2, sd, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t wmd = md_tag(2, wd, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t dmd = md_tag(2, dd, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t omd = md_tag(1, one, dnnl_f32, dnnl_a);
    dnnl_memory_desc_t nmd = md_tag(1, nd, dnnl_f32, dnnl_a);
    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0));
    CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_WEIGHTS, 1 << 1));
    CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_DST, 0));
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_matmul_primitive_desc_create(&pd, engine, smd, wmd, NULL, dmd, attr));
    float *s = values(m * k, 1), *w = values(k * n, 2);
    float ssc = 0.5f, dsc = 4.0f, wsc[6] = {0.25f, 0.5f, 0.75f, 1.f, 1.25f, 1.5f};
    dnnl_memory_t sm = filled(smd, s), wm = filled(wmd, w), dm = memory(dmd);
    dnnl_memory_t ssm = filled(omd, &ssc), dsm = filled(omd, &dsc), wsm = filled(nmd, wsc);
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, dm},
            {DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, ssm},
            {DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, wsm},
            {DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, dsm}};
    run(pd, 6, args);
    double want[5 * 6] = {0}, mag[5 * 6] = {0};
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            for (int64_t kk = 0; kk < k; kk++) {
                double p = (double)s[i * k + kk] * w[kk * n + j];
                want[i * n + j] += p;
                mag[i * n + j] += fabs(p);
            }
            want[i * n + j] *= ssc * wsc[j] / dsc;
            mag[i * n + j] *= ssc * wsc[j] / dsc;
        }
    compare("scales", dm, want, mag, m * n, k + 3);
    free(s);
    free(w);
    dnnl_memory_t mems[] = {sm, wm, dm, ssm, dsm, wsm};
    for (int i = 0; i < 6; i++)
        CHECK(dnnl_memory_destroy(mems[i]));
    dnnl_memory_desc_t mds[] = {smd, wmd, dmd, omd, nmd};
    for (int i = 0; i < 5; i++)
        CHECK(dnnl_memory_desc_destroy(mds[i]));
    CHECK(dnnl_primitive_desc_destroy(pd));
    CHECK(dnnl_primitive_attr_destroy(attr));
}

static void bad_input(void) {
    dnnl_dims_t sd = {2, 3}, wd = {4, 5}, wd3 = {1, 3, 5}, dd = {2, 5}, wok = {3, 5};
    dnnl_memory_desc_t smd = md_tag(2, sd, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t wbad = md_tag(2, wd, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t w3 = md_tag(3, wd3, dnnl_f32, dnnl_abc);
    dnnl_memory_desc_t wmd = md_tag(2, wok, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t dmd = md_tag(2, dd, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t s8 = md_tag(2, sd, dnnl_s8, dnnl_ab);
    dnnl_memory_desc_t w8 = md_tag(2, wok, dnnl_s8, dnnl_ab);
    dnnl_primitive_desc_t pd = NULL;
    /* K mismatch, wrong number of dimensions. */
    CHECK_STATUS(dnnl_matmul_primitive_desc_create(&pd, engine, smd, wbad, NULL, dmd, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_matmul_primitive_desc_create(&pd, engine, smd, w3, NULL, dmd, NULL),
            dnnl_invalid_arguments);
    /* NULL handles (a NULL bias is allowed): upstream dereferences them. */
    if (library_is_ours()) {
        CHECK_STATUS(dnnl_matmul_primitive_desc_create(NULL, engine, smd, wmd, NULL, dmd, NULL),
                dnnl_invalid_arguments);
        CHECK_STATUS(dnnl_matmul_primitive_desc_create(&pd, NULL, smd, wmd, NULL, dmd, NULL),
                dnnl_invalid_arguments);
        CHECK_STATUS(dnnl_matmul_primitive_desc_create(&pd, engine, NULL, wmd, NULL, dmd, NULL),
                dnnl_invalid_arguments);
        CHECK_STATUS(dnnl_matmul_primitive_desc_create(&pd, engine, smd, wmd, NULL, NULL, NULL),
                dnnl_invalid_arguments);
    }
    /* Int8 src with f32 weights: invalid; f32 src with s8 weights and zero points of
     * a float matmul: unimplemented (as upstream; matmul_int8.c tests int8). */
    CHECK_STATUS(dnnl_matmul_primitive_desc_create(&pd, engine, s8, wmd, NULL, dmd, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_matmul_primitive_desc_create(&pd, engine, smd, w8, NULL, dmd, NULL),
            dnnl_unimplemented);
    {
        dnnl_primitive_attr_t attr = NULL;
        CHECK(dnnl_primitive_attr_create(&attr));
        CHECK(dnnl_primitive_attr_set_zero_points_mask(attr, DNNL_ARG_SRC, 0));
        CHECK_STATUS(dnnl_matmul_primitive_desc_create(&pd, engine, smd, wmd, NULL, dmd, attr),
                dnnl_unimplemented);
        CHECK(dnnl_primitive_attr_destroy(attr));
    }
    dnnl_memory_desc_t mds[] = {smd, wbad, w3, wmd, dmd, s8, w8};
    for (int i = 0; i < 7; i++)
        CHECK(dnnl_memory_desc_destroy(mds[i]));
}

int main(int argc, char **argv) {
    on_gpu = argc > 1 && strncmp(argv[1], "gpu", 3) == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));

    const case_t cases[] = {
            {1, 1, 33, 17, 65, 0, 0, 1, dnnl_f32, dnnl_f32, dnnl_abc},
            {1, 1, 1, 1, 1, 0, 0, 0, dnnl_f32, dnnl_f32, dnnl_abc},
            {3, 1, 7, 9, 5, 1, 0, 1, dnnl_f32, dnnl_f32, dnnl_abc},
            {1, 2, 12, 5, 31, 0, 1, 1, dnnl_f32, dnnl_f32, dnnl_acb},
            {2, 2, 5, 0, 3, 0, 0, 0, dnnl_f32, dnnl_f32, dnnl_abc},
            {2, 2, 5, 4, 0, 0, 0, 1, dnnl_f32, dnnl_f32, dnnl_abc},
            {2, 1, 19, 18, 37, 0, 0, 1, dnnl_bf16, dnnl_f32, dnnl_acb},
            {1, 1, 19, 18, 37, 0, 0, 0, dnnl_f16, dnnl_f16, dnnl_abc},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        /* K = 0 with a bias: dst = bias. Intel's v3.13.2 CPU leaves dst unwritten. */
        if (cases[i].k == 0 && cases[i].with_bias && !library_is_ours()) continue;
        char what[64];
        snprintf(what, sizeof what, "case %zu", i);
        run_case(cases[i], what);
    }
    format_any();
    runtime_dims();
    scales();
    bad_input();

    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("matmul: all cases passed\n");
    return 0;
}
