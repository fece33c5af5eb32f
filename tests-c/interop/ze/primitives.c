/* Every primitive kind of the API on a Level Zero engine (each kind that runs on
 * OpenCL engines runs on ze engines too), compared with references computed here in
 * double:
 *   eltwise forward (relu with a slope, gelu_erf, tanh, logistic) and backward (relu
 *   from src, logistic from dst); binary (add with a per-channel src1, mul with a
 *   scalar src1 into f16); softmax (accurate and log); reorder (nchw -> nChw16c with
 *   zero padding, nChw16c -> nchw, f32 -> s8 nhwc with rounding and saturation,
 *   f32 -> f16); sum with scales; concat along a middle axis; matmul with bias and a
 *   ReLU post-op; inner product with bias.
 * The engine and the stream are over the test's own driver, device, context and
 * immediate command list; memory is the library's (DNNL_MEMORY_ALLOCATE: device USM),
 * filled and read through map/unmap (tests-c/prim_util.h). Each distinct kernel is
 * compiled at run time on Level Zero, so the sweep is a representative set, not every
 * shape the OpenCL and CPU tests cover. */
#include <math.h>

#include "prim_util.h"
#include "ze_util.h"

static int failures;

/* Compares n values against the reference; prints the first few mismatches. */
static void compare(const char *what, const float *got, const double *want, int64_t n,
        double rtol, double atol) {
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        double tol = atol + rtol * fabs(want[i]);
        if ((double)got[i] == want[i]) continue; /* infinities too */
        if (!(fabs((double)got[i] - want[i]) <= tol)) {
            if (bad < 5)
                fprintf(stderr, "%s: [%lld] = %.9g, want %.9g\n", what, (long long)i,
                        got[i], want[i]);
            bad++;
        }
    }
    if (bad) {
        fprintf(stderr, "%s: %d of %lld values wrong\n", what, bad, (long long)n);
        failures++;
    } else {
        printf("%s: ok\n", what);
    }
}

static dnnl_primitive_t make(dnnl_primitive_desc_t pd) {
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_primitive_create(&p, pd));
    CHECK(dnnl_primitive_desc_destroy(pd));
    return p;
}

static void run(dnnl_primitive_t p, int nargs, const dnnl_exec_arg_t *args) {
    CHECK(dnnl_primitive_execute(p, stream, nargs, args));
    CHECK(dnnl_stream_wait(stream));
    CHECK(dnnl_primitive_destroy(p));
}

static float *values(int64_t n, float lo, float hi, int salt) {
    float *v = malloc((size_t)n * sizeof(float));
    EXPECT(v != NULL);
    for (int64_t i = 0; i < n; i++)
        v[i] = lo + (hi - lo) * (float)((i * 37 + salt * 11) % 101) / 100.f;
    return v;
}

/* A memory of md filled with v. */
static dnnl_memory_t filled(const_dnnl_memory_desc_t md, const float *v) {
    dnnl_memory_t m = memory(md);
    fill(m, v);
    return m;
}

/* The logical values of m; padding must be zero. */
static float *read_all(dnnl_memory_t m, int64_t n) {
    float *v = malloc((size_t)n * sizeof(float));
    EXPECT(v != NULL);
    int padding_ok = 0;
    read_back(m, v, &padding_ok);
    EXPECT(padding_ok);
    return v;
}

/* ---- eltwise ---------------------------------------------------------------------- */

#define NE (2 * 19 * 5 * 3)
static const dnnl_dim_t edims[4] = {2, 19, 5, 3};

static double elt_fwd(dnnl_alg_kind_t alg, float alpha, double x) {
    switch (alg) {
        case dnnl_eltwise_relu: return x > 0 ? x : alpha * x;
        case dnnl_eltwise_tanh: return tanh(x);
        case dnnl_eltwise_logistic:
        case dnnl_eltwise_logistic_use_dst_for_bwd: return 1.0 / (1.0 + exp(-x));
        default: return 0.5 * x * erfc(-x / sqrt(2.0)); /* gelu_erf */
    }
}

static void eltwise(void) {
    dnnl_memory_desc_t md = md_tag(4, edims, dnnl_f32, dnnl_nchw);
    float *x = values(NE, -3.f, 3.f, 1), *dd = values(NE, -1.f, 1.f, 2);
    dnnl_memory_t src = filled(md, x), dst = memory(md), ddm = filled(md, dd), ds = memory(md);
    double *want = malloc(NE * sizeof(double));
    struct {
        dnnl_alg_kind_t alg;
        float alpha;
        const char *name;
    } algs[] = {{dnnl_eltwise_relu, 0.1f, "relu"}, {dnnl_eltwise_gelu_erf, 0.f, "gelu_erf"},
            {dnnl_eltwise_tanh, 0.f, "tanh"},
            /* last: dst keeps logistic(x) for the backward pass from dst below */
            {dnnl_eltwise_logistic_use_dst_for_bwd, 0.f, "logistic"}};
    for (int a = 0; a < 4; a++) {
        dnnl_primitive_desc_t pd = NULL;
        CHECK(dnnl_eltwise_forward_primitive_desc_create(&pd, engine, dnnl_forward_training,
                algs[a].alg, md, md, algs[a].alpha, 0.f, NULL));
        dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
        run(make(pd), 2, args);
        float *y = read_all(dst, NE);
        for (int i = 0; i < NE; i++)
            want[i] = elt_fwd(algs[a].alg, algs[a].alpha, x[i]);
        char what[64];
        snprintf(what, sizeof what, "eltwise %s forward", algs[a].name);
        compare(what, y, want, NE, 1e-5, 1e-6);
        free(y);
    }

    /* Backward: relu from src (the slope below 0), logistic from dst. */
    dnnl_primitive_desc_t hint = NULL, pd = NULL;
    CHECK(dnnl_eltwise_forward_primitive_desc_create(&hint, engine, dnnl_forward_training,
            dnnl_eltwise_relu, md, md, 0.1f, 0.f, NULL));
    CHECK(dnnl_eltwise_backward_primitive_desc_create(
            &pd, engine, dnnl_eltwise_relu, md, md, md, 0.1f, 0.f, hint, NULL));
    CHECK(dnnl_primitive_desc_destroy(hint));
    dnnl_exec_arg_t bargs[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, ddm},
            {DNNL_ARG_DIFF_SRC, ds}};
    run(make(pd), 3, bargs);
    float *g = read_all(ds, NE);
    for (int i = 0; i < NE; i++)
        want[i] = dd[i] * (x[i] > 0 ? 1.0 : 0.1);
    compare("eltwise relu backward (from src)", g, want, NE, 1e-6, 1e-7);
    free(g);

    CHECK(dnnl_eltwise_forward_primitive_desc_create(&hint, engine, dnnl_forward_training,
            dnnl_eltwise_logistic_use_dst_for_bwd, md, md, 0.f, 0.f, NULL));
    CHECK(dnnl_eltwise_backward_primitive_desc_create(&pd, engine,
            dnnl_eltwise_logistic_use_dst_for_bwd, md, md, md, 0.f, 0.f, hint, NULL));
    CHECK(dnnl_primitive_desc_destroy(hint));
    dnnl_exec_arg_t dargs[] = {{DNNL_ARG_DST, dst}, {DNNL_ARG_DIFF_DST, ddm},
            {DNNL_ARG_DIFF_SRC, ds}};
    run(make(pd), 3, dargs);
    g = read_all(ds, NE);
    for (int i = 0; i < NE; i++) {
        double y = 1.0 / (1.0 + exp(-(double)x[i]));
        want[i] = dd[i] * y * (1.0 - y);
    }
    compare("eltwise logistic backward (from dst)", g, want, NE, 1e-5, 1e-6);
    free(g);

    dnnl_memory_t ms[] = {src, dst, ddm, ds};
    for (int i = 0; i < 4; i++)
        CHECK(dnnl_memory_destroy(ms[i]));
    CHECK(dnnl_memory_desc_destroy(md));
    free(x);
    free(dd);
    free(want);
}

/* ---- binary ----------------------------------------------------------------------- */

static void binary(void) {
    const dnnl_dim_t cdims[4] = {1, 19, 1, 1}, one[4] = {1, 1, 1, 1};
    dnnl_memory_desc_t md = md_tag(4, edims, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_t cmd = md_tag(4, cdims, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_t smd = md_tag(4, one, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_t hmd = md_tag(4, edims, dnnl_f16, dnnl_nhwc);
    float *a = values(NE, -4.f, 4.f, 3), *c = values(19, -1.f, 1.f, 4), s = 1.5f;
    dnnl_memory_t am = filled(md, a), cm = filled(cmd, c), sm = filled(smd, &s);
    dnnl_memory_t dst = memory(md), hdst = memory(hmd);
    double *want = malloc(NE * sizeof(double));

    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_binary_primitive_desc_create(&pd, engine, dnnl_binary_add, md, cmd, md, NULL));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC_0, am}, {DNNL_ARG_SRC_1, cm}, {DNNL_ARG_DST, dst}};
    run(make(pd), 3, args);
    float *got = read_all(dst, NE);
    for (int i = 0; i < NE; i++)
        want[i] = (double)a[i] + c[(i / 15) % 19];
    compare("binary add, src1 broadcast per channel", got, want, NE, 1e-6, 1e-6);
    free(got);

    CHECK(dnnl_binary_primitive_desc_create(&pd, engine, dnnl_binary_mul, md, smd, hmd, NULL));
    dnnl_exec_arg_t margs[] = {{DNNL_ARG_SRC_0, am}, {DNNL_ARG_SRC_1, sm}, {DNNL_ARG_DST, hdst}};
    run(make(pd), 3, margs);
    got = read_all(hdst, NE);
    for (int i = 0; i < NE; i++)
        want[i] = rounded(dnnl_f16, a[i] * s);
    compare("binary mul, scalar src1, f16 nhwc dst", got, want, NE, 0, 0);
    free(got);

    dnnl_memory_t ms[] = {am, cm, sm, dst, hdst};
    for (int i = 0; i < 5; i++)
        CHECK(dnnl_memory_destroy(ms[i]));
    dnnl_memory_desc_t mds[] = {md, cmd, smd, hmd};
    for (int i = 0; i < 4; i++)
        CHECK(dnnl_memory_desc_destroy(mds[i]));
    free(a);
    free(c);
    free(want);
}

/* ---- softmax ---------------------------------------------------------------------- */

static void softmax(void) {
    enum { R = 6, C = 37 };
    const dnnl_dim_t dims[2] = {R, C};
    dnnl_memory_desc_t md = md_tag(2, dims, dnnl_f32, dnnl_ab);
    float *x = values(R * C, -5.f, 5.f, 5);
    dnnl_memory_t src = filled(md, x), dst = memory(md);
    double want[R * C];
    for (int logsm = 0; logsm < 2; logsm++) {
        dnnl_primitive_desc_t pd = NULL;
        CHECK(dnnl_softmax_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
                logsm ? dnnl_softmax_log : dnnl_softmax_accurate, md, md, 1, NULL));
        dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
        run(make(pd), 2, args);
        float *y = read_all(dst, R * C);
        for (int r = 0; r < R; r++) {
            double mx = -INFINITY, sum = 0;
            for (int j = 0; j < C; j++)
                mx = fmax(mx, x[r * C + j]);
            for (int j = 0; j < C; j++)
                sum += exp(x[r * C + j] - mx);
            for (int j = 0; j < C; j++)
                want[r * C + j] = logsm ? x[r * C + j] - mx - log(sum)
                                        : exp(x[r * C + j] - mx) / sum;
        }
        compare(logsm ? "softmax log, axis 1" : "softmax accurate, axis 1", y, want, R * C,
                1e-5, 1e-6);
        free(y);
    }
    CHECK(dnnl_memory_destroy(src));
    CHECK(dnnl_memory_destroy(dst));
    CHECK(dnnl_memory_desc_destroy(md));
    free(x);
}

/* ---- reorder ---------------------------------------------------------------------- */

/* Reorders src (holding v) into a new memory of dmd; returns its logical values. */
static float *reorder_to(dnnl_memory_t src, const_dnnl_memory_desc_t dmd, int64_t n,
        dnnl_memory_t *keep) {
    const_dnnl_memory_desc_t smd = NULL;
    CHECK(dnnl_memory_get_memory_desc(src, &smd));
    dnnl_memory_t dst = memory(dmd);
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_reorder_primitive_desc_create(&pd, smd, engine, dmd, engine, NULL));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}};
    run(make(pd), 2, args);
    float *got = read_all(dst, n);
    if (keep)
        *keep = dst;
    else
        CHECK(dnnl_memory_destroy(dst));
    return got;
}

static void reorder(void) {
    dnnl_memory_desc_t plain = md_tag(4, edims, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_t blocked = md_tag(4, edims, dnnl_f32, dnnl_nChw16c);
    dnnl_memory_desc_t s8 = md_tag(4, edims, dnnl_s8, dnnl_nhwc);
    const dnnl_dim_t dims2[2] = {13, 29};
    dnnl_memory_desc_t f32ab = md_tag(2, dims2, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t f16ab = md_tag(2, dims2, dnnl_f16, dnnl_ab);
    float *v = values(NE, -200.f, 200.f, 6);
    for (int i = 0; i < NE; i += 7)
        v[i] += 0.5f; /* ties: round half to even */
    double *want = malloc(NE * sizeof(double));
    dnnl_memory_t src = filled(plain, v), blk = NULL;

    for (int i = 0; i < NE; i++)
        want[i] = v[i];
    float *got = reorder_to(src, blocked, NE, &blk); /* read_all checks the zero padding */
    compare("reorder f32 nchw -> nChw16c (padded channels zero)", got, want, NE, 0, 0);
    free(got);
    got = reorder_to(blk, plain, NE, NULL);
    compare("reorder f32 nChw16c -> nchw", got, want, NE, 0, 0);
    free(got);
    for (int i = 0; i < NE; i++)
        want[i] = saturate(dnnl_s8, v[i]);
    got = reorder_to(src, s8, NE, NULL);
    compare("reorder f32 nchw -> s8 nhwc (rounding, saturation)", got, want, NE, 0, 0);
    free(got);

    float *w = values(13 * 29, -70000.f, 70000.f, 7);
    w[0] = 1e-6f;
    w[1] = 0.1f;
    dnnl_memory_t wm = filled(f32ab, w);
    for (int i = 0; i < 13 * 29; i++)
        want[i] = rounded(dnnl_f16, w[i]);
    got = reorder_to(wm, f16ab, 13 * 29, NULL);
    compare("reorder f32 -> f16 (overflow to inf, subnormals)", got, want, 13 * 29, 0, 0);
    free(got);

    dnnl_memory_t ms[] = {src, blk, wm};
    for (int i = 0; i < 3; i++)
        CHECK(dnnl_memory_destroy(ms[i]));
    dnnl_memory_desc_t mds[] = {plain, blocked, s8, f32ab, f16ab};
    for (int i = 0; i < 5; i++)
        CHECK(dnnl_memory_desc_destroy(mds[i]));
    free(v);
    free(w);
    free(want);
}

/* ---- sum, concat ------------------------------------------------------------------ */

static void sum(void) {
    enum { R = 7, C = 11, NS = 3 };
    const dnnl_dim_t dims[2] = {R, C};
    dnnl_memory_desc_t md = md_tag(2, dims, dnnl_f32, dnnl_ab);
    const float scales[NS] = {1.f, -2.f, 0.5f};
    const_dnnl_memory_desc_t mds[NS] = {md, md, md};
    float *v[NS];
    dnnl_memory_t src[NS], dst = memory(md);
    dnnl_exec_arg_t args[NS + 1];
    for (int s = 0; s < NS; s++) {
        v[s] = values(R * C, -3.f, 3.f, 10 + s);
        src[s] = filled(md, v[s]);
        args[s] = (dnnl_exec_arg_t) {DNNL_ARG_MULTIPLE_SRC + s, src[s]};
    }
    args[NS] = (dnnl_exec_arg_t) {DNNL_ARG_DST, dst};
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_sum_primitive_desc_create(&pd, engine, md, NS, scales, mds, NULL));
    run(make(pd), NS + 1, args);
    float *got = read_all(dst, R * C);
    double want[R * C];
    for (int i = 0; i < R * C; i++) {
        want[i] = 0;
        for (int s = 0; s < NS; s++)
            want[i] += (double)scales[s] * v[s][i];
    }
    compare("sum of three with scales 1, -2, 0.5", got, want, R * C, 1e-6, 1e-6);
    free(got);
    for (int s = 0; s < NS; s++) {
        CHECK(dnnl_memory_destroy(src[s]));
        free(v[s]);
    }
    CHECK(dnnl_memory_destroy(dst));
    CHECK(dnnl_memory_desc_destroy(md));
}

static void concat(void) {
    enum { NS = 3 };
    const int ch[NS] = {3, 5, 1};
    dnnl_memory_desc_t mds[NS];
    dnnl_memory_t src[NS];
    float *v[NS];
    dnnl_exec_arg_t args[NS + 1];
    for (int s = 0; s < NS; s++) {
        const dnnl_dim_t dims[3] = {2, ch[s], 4};
        mds[s] = md_tag(3, dims, dnnl_f32, dnnl_abc);
        v[s] = values(2 * ch[s] * 4, -10.f, 10.f, 20 + s);
        src[s] = filled(mds[s], v[s]);
        args[s] = (dnnl_exec_arg_t) {DNNL_ARG_MULTIPLE_SRC + s, src[s]};
    }
    const dnnl_dim_t ddims[3] = {2, 9, 4};
    dnnl_memory_desc_t dmd = md_tag(3, ddims, dnnl_f32, dnnl_abc);
    dnnl_memory_t dst = memory(dmd);
    args[NS] = (dnnl_exec_arg_t) {DNNL_ARG_DST, dst};
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_concat_primitive_desc_create(
            &pd, engine, dmd, NS, 1, (const const_dnnl_memory_desc_t *)mds, NULL));
    run(make(pd), NS + 1, args);
    float *got = read_all(dst, 2 * 9 * 4);
    double want[2 * 9 * 4];
    for (int n = 0; n < 2; n++)
        for (int c = 0; c < 9; c++) {
            int s = c < 3 ? 0 : c < 8 ? 1 : 2, base = s == 0 ? 0 : s == 1 ? 3 : 8;
            for (int k = 0; k < 4; k++)
                want[(n * 9 + c) * 4 + k] = v[s][(n * ch[s] + (c - base)) * 4 + k];
        }
    compare("concat of three along axis 1", got, want, 2 * 9 * 4, 0, 0);
    free(got);
    for (int s = 0; s < NS; s++) {
        CHECK(dnnl_memory_destroy(src[s]));
        CHECK(dnnl_memory_desc_destroy(mds[s]));
        free(v[s]);
    }
    CHECK(dnnl_memory_destroy(dst));
    CHECK(dnnl_memory_desc_destroy(dmd));
}

/* ---- matmul, inner product -------------------------------------------------------- */

static void matmul(void) {
    enum { M = 17, K = 40, N = 23 };
    const dnnl_dim_t ad[2] = {M, K}, wd[2] = {K, N}, bd[2] = {1, N}, cd[2] = {M, N};
    dnnl_memory_desc_t amd = md_tag(2, ad, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t wmd = md_tag(2, wd, dnnl_f32, dnnl_ba); /* transposed weights */
    dnnl_memory_desc_t bmd = md_tag(2, bd, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t cmd = md_tag(2, cd, dnnl_f32, dnnl_ab);
    float *a = values(M * K, -1.f, 1.f, 30), *w = values(K * N, -1.f, 1.f, 31);
    float *b = values(N, -2.f, 2.f, 32);
    dnnl_memory_t am = filled(amd, a), wm = filled(wmd, w), bm = filled(bmd, b);
    dnnl_memory_t cm = memory(cmd);

    dnnl_post_ops_t ops = NULL;
    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_post_ops_create(&ops));
    CHECK(dnnl_post_ops_append_eltwise(ops, dnnl_eltwise_relu, 0.f, 0.f));
    CHECK(dnnl_primitive_attr_create(&attr));
    CHECK(dnnl_primitive_attr_set_post_ops(attr, ops));
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_matmul_primitive_desc_create(&pd, engine, amd, wmd, bmd, cmd, attr));
    CHECK(dnnl_primitive_attr_destroy(attr));
    CHECK(dnnl_post_ops_destroy(ops));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_BIAS, bm},
            {DNNL_ARG_DST, cm}};
    run(make(pd), 4, args);
    float *got = read_all(cm, M * N);
    double want[M * N];
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double acc = b[j];
            for (int k = 0; k < K; k++)
                acc += (double)a[i * K + k] * w[k * N + j]; /* logical (k, j) */
            want[i * N + j] = acc > 0 ? acc : 0;
        }
    compare("matmul (transposed weights) + bias, relu post-op", got, want, M * N, 1e-5, 1e-5);
    free(got);
    dnnl_memory_t ms[] = {am, wm, bm, cm};
    dnnl_memory_desc_t mds[] = {amd, wmd, bmd, cmd};
    for (int i = 0; i < 4; i++) {
        CHECK(dnnl_memory_destroy(ms[i]));
        CHECK(dnnl_memory_desc_destroy(mds[i]));
    }
    free(a);
    free(w);
    free(b);
}

static void inner_product(void) {
    enum { MB = 5, IC = 3, H = 4, W = 2, OC = 7, ICK = IC * H * W };
    const dnnl_dim_t sd[4] = {MB, IC, H, W}, wd[4] = {OC, IC, H, W}, bd[1] = {OC},
                     dd[2] = {MB, OC};
    dnnl_memory_desc_t smd = md_tag(4, sd, dnnl_f32, dnnl_nchw);
    dnnl_memory_desc_t wmd = md_tag(4, wd, dnnl_f32, dnnl_oihw);
    dnnl_memory_desc_t bmd = md_tag(1, bd, dnnl_f32, dnnl_a);
    dnnl_memory_desc_t dmd = md_tag(2, dd, dnnl_f32, dnnl_nc);
    float *s = values(MB * ICK, -1.f, 1.f, 40), *w = values(OC * ICK, -1.f, 1.f, 41);
    float *b = values(OC, -1.f, 1.f, 42);
    dnnl_memory_t sm = filled(smd, s), wm = filled(wmd, w), bm = filled(bmd, b);
    dnnl_memory_t dm = memory(dmd);
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_inner_product_forward_primitive_desc_create(
            &pd, engine, dnnl_forward_inference, smd, wmd, bmd, dmd, NULL));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_BIAS, bm},
            {DNNL_ARG_DST, dm}};
    run(make(pd), 4, args);
    float *got = read_all(dm, MB * OC);
    double want[MB * OC];
    for (int n = 0; n < MB; n++)
        for (int o = 0; o < OC; o++) {
            double acc = b[o];
            for (int k = 0; k < ICK; k++)
                acc += (double)s[n * ICK + k] * w[o * ICK + k];
            want[n * OC + o] = acc;
        }
    compare("inner product (4-D src) + bias", got, want, MB * OC, 1e-5, 1e-5);
    free(got);
    dnnl_memory_t ms[] = {sm, wm, bm, dm};
    dnnl_memory_desc_t mds[] = {smd, wmd, bmd, dmd};
    for (int i = 0; i < 4; i++) {
        CHECK(dnnl_memory_destroy(ms[i]));
        CHECK(dnnl_memory_desc_destroy(mds[i]));
    }
    free(s);
    free(w);
    free(b);
}

int main(void) {
    ze_user_t u = ze_user_or_skip();
    ze_command_list_handle_t list = ze_immediate_list(&u);
    engine = ze_engine(&u);
    CHECK(dnnl_ze_interop_stream_create(&stream, engine, list, 0));

    eltwise();
    binary();
    softmax();
    reorder();
    sum();
    concat();
    matmul();
    inner_product();

    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    ZE_CHECK(zeCommandListDestroy(list));
    ze_user_destroy(&u);
    if (failures) {
        fprintf(stderr, "%d primitive case(s) wrong on the ze engine\n", failures);
        return 1;
    }
    printf("every primitive kind on a ze engine: ok\n");
    return 0;
}
