/* Int8 matmul (u8/s8 src, s8/u8 weights) through the official API, against an exact
 * integer reference computed here: a sweep over data types (dst f32, s32, s8, u8,
 * bf16, f16; bias none or any of them), zero points (src common / per K, weights
 * common / per N, dst common / per N), scales (src, weights common / per N, dst),
 * post-ops (eltwise relu, sum with a zero point, binary add per N, prelu per N),
 * 2-D and 3-D shapes with broadcast batches, transposed weights and odd sizes.
 * Scales are powers of two and every value an integer or a multiple of 1/8, so
 * that the f32 epilogue is exact: integer dsts must match exactly (rounding half
 * to even, saturating), f32 exactly, bf16 / f16 within one rounding. Then an s32
 * result beyond 2^24 (exact only through integer accumulation and store), run-time
 * dimensions, and bad input (unsupported types and masks) with upstream's statuses.
 * In a reference run on a CPU without VNNI s8 weights are kept in s7 [-64, 63]
 * (reference_saturates_int8(), check.h).
 *
 * Usage: matmul_int8 [cpu|gpu]. With gpu, the test skips (77) when the library
 * sees no OpenCL device. */
#include "common.h"

static int on_gpu, s7;

/* common.h's helpers this test does not call. */
static inline void unused_common(void) { (void)compare, (void)values; }

enum { ZP_NONE, ZP_COMMON, ZP_DIM };
enum { PO_NONE, PO_RELU, PO_SUM, PO_BINARY, PO_PRELU, PO_COUNT };

typedef struct {
    int nd; /* 2 or 3 */
    int64_t bs, bw, m, n, k;
    dnnl_data_type_t sdt, wdt, ddt, bdt; /* bdt undef: no bias */
    int wtrans;
    int zs, zw, zd;     /* ZP_*: src per K, weights and dst per N */
    int ss, sw, sd;     /* src / dst scale on; weights 0 none, 1 common, 2 per N */
    int po;
} case_t;

static const char *dt_name(dnnl_data_type_t dt) { return dnnl_dt2str(dt); }

/* Integer data of dt: the full range for u8 / s8, small values otherwise. */
static double int_value(dnnl_data_type_t dt, int64_t i, int seed) {
    uint64_t h = (uint64_t)(i * 2654435761u + (uint64_t)seed * 40503u);
    h ^= h >> 13;
    switch (dt) {
        case dnnl_u8: return (double)(h % 256);
        case dnnl_s8: return (double)(h % 256) - 128;
        case dnnl_s32: return (double)(h % 15) - 7;
        default: return (double)(h % 33) / 8.0 - 2.0; /* float bias / old dst */
    }
}

static float *fvals(int64_t n, dnnl_data_type_t dt, int seed) {
    float *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    for (int64_t i = 0; i < n; i++)
        v[i] = rounded(dt, (float)int_value(dt, i, seed));
    return v;
}

/* Weights of dt: fvals(), s8 ones in s7 where Intel's library would saturate. */
static float *wvals(int64_t n, dnnl_data_type_t dt, int seed) {
    float *v = fvals(n, dt, seed);
    for (int64_t i = 0; i < n && s7 && dt == dnnl_s8; i++) v[i] = (float)s7_of_s8((int)v[i]);
    return v;
}

static dnnl_memory_t vec_memory(dnnl_data_type_t dt, int64_t n, const float *v) {
    dnnl_dims_t d = {n};
    dnnl_memory_desc_t md = md_tag(1, d, dt, dnnl_a);
    dnnl_memory_t m = filled(md, v);
    CHECK(dnnl_memory_desc_destroy(md));
    return m;
}

static double zp_src_at(const case_t *c, int64_t k) {
    return c->zs == ZP_NONE ? 0 : c->zs == ZP_COMMON ? 3 : (double)(k % 5) - 2;
}
static double zp_wei_at(const case_t *c, int64_t n) {
    return c->zw == ZP_NONE ? 0 : c->zw == ZP_COMMON ? -2 : (double)(n % 4) - 1;
}
static double zp_dst_at(const case_t *c, int64_t n) {
    return c->zd == ZP_NONE ? 0 : c->zd == ZP_COMMON ? 5 : (double)(n % 7) - 3;
}
static double wscale_at(const case_t *c, int64_t n) {
    return c->sw == 0 ? 1 : c->sw == 1 ? 0.25 : ldexp(1.0, (int)(n % 3) - 1);
}
static double prelu_at(int64_t n) { return n % 2 ? 0.5 : 0.25; }
static double binary_at(int64_t n) { return (double)(n % 9) / 8.0 - 0.5; }

static void run_case(const case_t *c, const char *what) {
    int nd = c->nd;
    int64_t b = c->bs > c->bw ? c->bs : c->bw;
    dnnl_dims_t sd, wd, dd, bd, nvec;
    if (nd == 2) {
        sd[0] = c->m, sd[1] = c->k;
        wd[0] = c->k, wd[1] = c->n;
        dd[0] = c->m, dd[1] = c->n;
        bd[0] = 1, bd[1] = c->n;
        nvec[0] = 1, nvec[1] = c->n;
    } else {
        sd[0] = c->bs, sd[1] = c->m, sd[2] = c->k;
        wd[0] = c->bw, wd[1] = c->k, wd[2] = c->n;
        dd[0] = b, dd[1] = c->m, dd[2] = c->n;
        bd[0] = b, bd[1] = 1, bd[2] = c->n;
        nvec[0] = 1, nvec[1] = 1, nvec[2] = c->n;
    }
    dnnl_format_tag_t plain = nd == 2 ? dnnl_ab : dnnl_abc;
    dnnl_format_tag_t wtag = c->wtrans ? (nd == 2 ? dnnl_ba : dnnl_acb) : plain;
    int with_bias = c->bdt != dnnl_data_type_undef;
    dnnl_memory_desc_t smd = md_tag(nd, sd, c->sdt, plain);
    dnnl_memory_desc_t wmd = md_tag(nd, wd, c->wdt, wtag);
    dnnl_memory_desc_t dmd = md_tag(nd, dd, c->ddt, plain);
    dnnl_memory_desc_t bmd = with_bias ? md_tag(nd, bd, c->bdt, plain) : NULL;
    dnnl_memory_desc_t vmd = md_tag(nd, nvec, dnnl_f32, plain);

    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    int last = 1 << (nd - 1);
    if (c->zs) CHECK(dnnl_primitive_attr_set_zero_points_mask(attr, DNNL_ARG_SRC, c->zs == ZP_DIM ? last : 0));
    if (c->zw) CHECK(dnnl_primitive_attr_set_zero_points_mask(attr, DNNL_ARG_WEIGHTS, c->zw == ZP_DIM ? last : 0));
    if (c->zd) CHECK(dnnl_primitive_attr_set_zero_points_mask(attr, DNNL_ARG_DST, c->zd == ZP_DIM ? last : 0));
    if (c->ss) CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0));
    if (c->sw) CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_WEIGHTS, c->sw == 2 ? last : 0));
    if (c->sd) CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_DST, 0));
    dnnl_post_ops_t po = NULL;
    CHECK(dnnl_post_ops_create(&po));
    switch (c->po) {
        case PO_RELU: CHECK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.25f, 0.f)); break;
        case PO_SUM: CHECK(dnnl_post_ops_append_sum(po, 0.5f, 1, dnnl_data_type_undef)); break;
        case PO_BINARY: CHECK(dnnl_post_ops_append_binary(po, dnnl_binary_add, vmd)); break;
        case PO_PRELU: CHECK(dnnl_post_ops_append_prelu(po, last)); break;
        default: break;
    }
    CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
    CHECK(dnnl_post_ops_destroy(po));

    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_matmul_primitive_desc_create(&pd, engine, smd, wmd, bmd, dmd, attr);
    CHECK(dnnl_primitive_attr_destroy(attr));
    if (reference_lacks(st, what)) goto done;
    if (st != dnnl_success) {
        fprintf(stderr, "%s: create returned %s\n", what, check_status_str(st));
        failures++;
        goto done;
    }
    expect_impl(pd, on_gpu);

    int64_t ns = c->bs * c->m * c->k, nw = c->bw * c->k * c->n, ndst = b * c->m * c->n;
    int64_t nb = with_bias ? b * c->n : 0;
    if (nd == 2) nb = with_bias ? c->n : 0;
    float *s = fvals(ns, c->sdt, 1), *w = wvals(nw, c->wdt, 2);
    float *old = fvals(ndst, c->ddt, 3), *bias = fvals(nb, c->bdt, 4);
    /* The weights in logical (b, k, n) order; fill() places them per layout. */
    dnnl_memory_t sm = filled(smd, s), wm = filled(wmd, w), dm = filled(dmd, old);
    dnnl_memory_t bm = with_bias ? filled(bmd, bias) : NULL;

    float zs_v[256], zw_v[256], zd_v[256], sw_v[256], pr_v[256], bin_v[256];
    EXPECT(c->k <= 256 && c->n <= 256);
    for (int64_t i = 0; i < c->k; i++) zs_v[i] = (float)zp_src_at(c, i);
    for (int64_t i = 0; i < c->n; i++) {
        zw_v[i] = (float)zp_wei_at(c, i);
        zd_v[i] = (float)zp_dst_at(c, i);
        sw_v[i] = (float)wscale_at(c, i);
        pr_v[i] = (float)prelu_at(i);
        bin_v[i] = (float)binary_at(i);
    }
    float half = 0.5f, two = 2.0f;
    dnnl_exec_arg_t args[16];
    int na = 0;
    args[na++] = (dnnl_exec_arg_t){DNNL_ARG_SRC, sm};
    args[na++] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, wm};
    args[na++] = (dnnl_exec_arg_t){DNNL_ARG_DST, dm};
    if (with_bias) args[na++] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, bm};
    dnnl_memory_t extra[10];
    int ne = 0;
#define EXTRA(arg, dt, n, v) \
    do { \
        extra[ne] = vec_memory(dt, n, v); \
        args[na++] = (dnnl_exec_arg_t){arg, extra[ne++]}; \
    } while (0)
    if (c->zs) EXTRA(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, dnnl_s32, c->zs == ZP_DIM ? c->k : 1, zs_v);
    if (c->zw) EXTRA(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_WEIGHTS, dnnl_s32, c->zw == ZP_DIM ? c->n : 1, zw_v);
    if (c->zd) EXTRA(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, dnnl_s32, c->zd == ZP_DIM ? c->n : 1, zd_v);
    if (c->ss) EXTRA(DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, dnnl_f32, 1, &half);
    if (c->sw) EXTRA(DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, dnnl_f32, c->sw == 2 ? c->n : 1, sw_v);
    if (c->sd) EXTRA(DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, dnnl_f32, 1, &two);
#undef EXTRA
    /* Binary and prelu operands: 1 x N (1 x 1 x N), dst's number of dimensions. */
    if (c->po == PO_BINARY || c->po == PO_PRELU) {
        extra[ne] = filled(vmd, c->po == PO_BINARY ? bin_v : pr_v);
        int arg = c->po == PO_BINARY ? DNNL_ARG_SRC_1 : DNNL_ARG_WEIGHTS;
        args[na++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | arg, extra[ne++]};
    }
    run(pd, na, args);

    float *got = malloc((size_t)(ndst > 0 ? ndst : 1) * sizeof *got);
    int padding_ok;
    read_back(dm, got, &padding_ok);
    for (int64_t bi = 0; bi < b; bi++)
        for (int64_t mi = 0; mi < c->m; mi++)
            for (int64_t ni = 0; ni < c->n; ni++) {
                int64_t sb = c->bs == 1 ? 0 : bi, wb = c->bw == 1 ? 0 : bi;
                int64_t acc = 0;
                for (int64_t ki = 0; ki < c->k; ki++) {
                    int64_t a = (int64_t)s[(sb * c->m + mi) * c->k + ki] - (int64_t)zp_src_at(c, ki);
                    int64_t x = (int64_t)w[(wb * c->k + ki) * c->n + ni] - (int64_t)zp_wei_at(c, ni);
                    acc += a * x;
                }
                double f = (double)acc * (c->ss ? 0.5 : 1.0) * wscale_at(c, ni);
                if (with_bias) f += bias[(nd == 2 ? 0 : bi * c->n) + ni];
                int64_t at = (bi * c->m + mi) * c->n + ni;
                switch (c->po) {
                    case PO_RELU: f = f < 0 ? 0.25 * f : f; break;
                    case PO_SUM: f += 0.5 * ((double)old[at] - 1); break;
                    case PO_BINARY: f += binary_at(ni); break;
                    case PO_PRELU: f = f < 0 ? prelu_at(ni) * f : f; break;
                    default: break;
                }
                f = f / (c->sd ? 2.0 : 1.0) + zp_dst_at(c, ni);
                if (!matches(c->ddt, got[at], f, 0)) {
                    fprintf(stderr, "%s: dst (%lld, %lld, %lld): got %.9g, want %.9g\n", what,
                            (long long)bi, (long long)mi, (long long)ni, got[at], f);
                    failures++;
                    goto compared;
                }
            }
compared:
    free(got);
    free(s), free(w), free(old), free(bias);
    for (int i = 0; i < ne; i++) CHECK(dnnl_memory_destroy(extra[i]));
    CHECK(dnnl_memory_destroy(sm));
    CHECK(dnnl_memory_destroy(wm));
    CHECK(dnnl_memory_destroy(dm));
    if (bm) CHECK(dnnl_memory_destroy(bm));
    CHECK(dnnl_primitive_desc_destroy(pd));
done:
    CHECK(dnnl_memory_desc_destroy(smd));
    CHECK(dnnl_memory_desc_destroy(wmd));
    CHECK(dnnl_memory_desc_destroy(dmd));
    if (bmd) CHECK(dnnl_memory_desc_destroy(bmd));
    CHECK(dnnl_memory_desc_destroy(vmd));
}

/* src x s8 weights -> s32 with K = 2001, every src value `a`, every weight `w` but
 * those of row 7, `w7`: s8 -127 x -127 (one -125) sums to 32273875, odd and beyond
 * 2^24, which an f32 accumulation or store cannot hold (ours is exact). u8 255 x s8
 * 127 (one 125) sums to 64801875, and each two products to 64770, past s16: a kernel
 * whose pair sums saturate at s16 (AVX2's vpmaddubsw) must not be chosen for it. */
static void beyond_f32(dnnl_data_type_t sdt, int a, int w, int w7) {
    int64_t m = 3, n = 5, k = 2001;
    dnnl_dims_t sd = {m, k}, wd = {k, n}, dd = {m, n};
    dnnl_memory_desc_t smd = md_tag(2, sd, sdt, dnnl_ab);
    dnnl_memory_desc_t wmd = md_tag(2, wd, dnnl_s8, dnnl_ab);
    dnnl_memory_desc_t dmd = md_tag(2, dd, dnnl_s32, dnnl_ab);
    dnnl_primitive_desc_t pd = NULL;
    CHECK(dnnl_matmul_primitive_desc_create(&pd, engine, smd, wmd, NULL, dmd, NULL));
    float *s = malloc((size_t)(m * k) * sizeof *s), *wv = malloc((size_t)(k * n) * sizeof *wv);
    for (int64_t i = 0; i < m * k; i++) s[i] = (float)a;
    for (int64_t i = 0; i < k * n; i++) wv[i] = (float)((i / n) == 7 ? w7 : w); /* one row off */
    dnnl_memory_t sm = filled(smd, s), wm = filled(wmd, wv), dm = memory(dmd);
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, dm}};
    run(pd, 3, args);
    int32_t *p = NULL;
    CHECK(dnnl_memory_map_data(dm, (void **)&p));
    int32_t want = (int32_t)((int64_t)a * w * (k - 1) + (int64_t)a * w7);
    /* Intel's library (reference runs) goes through f32 for s8 x s8: 32273876. For
     * u8 x s8 on hosts without VNNI it saturates the pair sums at s16, as its
     * documentation on int8 computations says: that check is ours only. */
    int32_t slack = library_is_ours() ? 0 : 2;
    int check = sdt != dnnl_u8 || library_is_ours();
    static int reported = 0;
    if (!check && !reported++)
        printf("part skipped: u8 x s8 pair sums past s16 are checked on our library only "
               "(Intel's saturates them on hosts without VNNI, as documented)\n");
    for (int64_t i = 0; check && i < m * n; i++)
        if (p[i] < want - slack || p[i] > want + slack) {
            fprintf(stderr, "beyond f32 (%s): element %lld: got %d, want %d\n",
                    sdt == dnnl_u8 ? "u8" : "s8", (long long)i, p[i], want);
            failures++;
            break;
        }
    CHECK(dnnl_memory_unmap_data(dm, p));
    free(s), free(wv);
    CHECK(dnnl_memory_destroy(sm));
    CHECK(dnnl_memory_destroy(wm));
    CHECK(dnnl_memory_destroy(dm));
    CHECK(dnnl_primitive_desc_destroy(pd));
    CHECK(dnnl_memory_desc_destroy(smd));
    CHECK(dnnl_memory_desc_destroy(wmd));
    CHECK(dnnl_memory_desc_destroy(dmd));
}

/* Run-time M, N and K with a src zero point and weights scales per N. */
static void runtime_dims(void) {
    int64_t m = 7, n = 9, k = 13;
    dnnl_dims_t rd = {DNNL_RUNTIME_DIM_VAL, DNNL_RUNTIME_DIM_VAL};
    dnnl_dims_t rs = {DNNL_RUNTIME_DIM_VAL, 1};
    dnnl_memory_desc_t srt = md_strides(2, rd, dnnl_u8, rs);
    dnnl_memory_desc_t wrt = md_strides(2, rd, dnnl_s8, rs);
    dnnl_memory_desc_t drt = md_strides(2, rd, dnnl_s8, rs);
    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    CHECK(dnnl_primitive_attr_set_zero_points_mask(attr, DNNL_ARG_SRC, 0));
    CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_WEIGHTS, 2));
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_matmul_primitive_desc_create(&pd, engine, srt, wrt, NULL, drt, attr);
    CHECK(dnnl_primitive_attr_destroy(attr));
    if (!reference_lacks(st, "run-time dims")) {
        CHECK(st);
        dnnl_dims_t sd = {m, k}, wd = {k, n}, dd = {m, n};
        dnnl_memory_desc_t smd = md_tag(2, sd, dnnl_u8, dnnl_ab);
        dnnl_memory_desc_t wmd = md_tag(2, wd, dnnl_s8, dnnl_ab);
        dnnl_memory_desc_t dmd = md_tag(2, dd, dnnl_s8, dnnl_ab);
        float *s = fvals(m * k, dnnl_u8, 5), *w = wvals(k * n, dnnl_s8, 6);
        float zp = 100, sc[16];
        for (int i = 0; i < n; i++) sc[i] = ldexp(1.0, -(i % 4) - 6);
        dnnl_memory_t sm = filled(smd, s), wm = filled(wmd, w), dm = memory(dmd);
        dnnl_memory_t zm = vec_memory(dnnl_s32, 1, &zp), scm = vec_memory(dnnl_f32, n, sc);
        dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, dm},
                {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zm},
                {DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, scm}};
        run(pd, 5, args);
        float got[64];
        int padding_ok;
        read_back(dm, got, &padding_ok);
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                double acc = 0;
                for (int64_t kk = 0; kk < k; kk++) acc += (s[i * k + kk] - zp) * w[kk * n + j];
                if (!matches(dnnl_s8, got[i * n + j], acc * sc[j], 0)) {
                    fprintf(stderr, "run-time dims: (%lld, %lld): got %g, want %g\n",
                            (long long)i, (long long)j, got[i * n + j], acc * sc[j]);
                    failures++;
                    i = m;
                    break;
                }
            }
        free(s), free(w);
        dnnl_memory_t ms[] = {sm, wm, dm, zm, scm};
        for (int i = 0; i < 5; i++) CHECK(dnnl_memory_destroy(ms[i]));
        CHECK(dnnl_memory_desc_destroy(smd));
        CHECK(dnnl_memory_desc_destroy(wmd));
        CHECK(dnnl_memory_desc_destroy(dmd));
        CHECK(dnnl_primitive_desc_destroy(pd));
    }
    CHECK(dnnl_memory_desc_destroy(srt));
    CHECK(dnnl_memory_desc_destroy(wrt));
    CHECK(dnnl_memory_desc_destroy(drt));
}

/* Creates a 2-D u8 x s8 -> f32 matmul with the attr set by `set` (arg, mask). */
static dnnl_status_t with_mask(int zp, int arg, int mask) {
    dnnl_dims_t sd = {4, 6}, wd = {6, 5}, dd = {4, 5};
    dnnl_memory_desc_t smd = md_tag(2, sd, dnnl_u8, dnnl_ab);
    dnnl_memory_desc_t wmd = md_tag(2, wd, dnnl_s8, dnnl_ab);
    dnnl_memory_desc_t dmd = md_tag(2, dd, dnnl_f32, dnnl_ab);
    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    if (zp)
        CHECK(dnnl_primitive_attr_set_zero_points_mask(attr, arg, mask));
    else
        CHECK(dnnl_primitive_attr_set_scales_mask(attr, arg, mask));
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_matmul_primitive_desc_create(&pd, engine, smd, wmd, NULL, dmd, attr);
    if (st == dnnl_success) CHECK(dnnl_primitive_desc_destroy(pd));
    CHECK(dnnl_primitive_attr_destroy(attr));
    CHECK(dnnl_memory_desc_destroy(smd));
    CHECK(dnnl_memory_desc_destroy(wmd));
    CHECK(dnnl_memory_desc_destroy(dmd));
    return st;
}

static void bad_input(void) {
    dnnl_dims_t sd = {4, 6}, wd = {6, 5}, dd = {4, 5};
    dnnl_memory_desc_t s8 = md_tag(2, sd, dnnl_s8, dnnl_ab);
    dnnl_memory_desc_t wf = md_tag(2, wd, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_t w32 = md_tag(2, wd, dnnl_s32, dnnl_ab);
    dnnl_memory_desc_t df = md_tag(2, dd, dnnl_f32, dnnl_ab);
    dnnl_primitive_desc_t pd = NULL;
    /* Int8 src with f32 or s32 weights: invalid arguments (upstream's answer). */
    CHECK_STATUS(dnnl_matmul_primitive_desc_create(&pd, engine, s8, wf, NULL, df, NULL),
            dnnl_invalid_arguments);
    CHECK_STATUS(dnnl_matmul_primitive_desc_create(&pd, engine, s8, w32, NULL, df, NULL),
            dnnl_invalid_arguments);
    /* Masks upstream refuses: src zero point per M (1), dst zero point per M (1),
     * src scales per K (2), dst scales per M x N beyond... per M only (1). */
    CHECK_STATUS(with_mask(1, DNNL_ARG_SRC, 1), dnnl_unimplemented);
    CHECK_STATUS(with_mask(1, DNNL_ARG_DST, 1), dnnl_unimplemented);
    CHECK_STATUS(with_mask(0, DNNL_ARG_SRC, 2), dnnl_unimplemented);
    CHECK_STATUS(with_mask(0, DNNL_ARG_DST, 1), dnnl_unimplemented);
    /* Masks both take. */
    CHECK(with_mask(1, DNNL_ARG_SRC, 2));
    CHECK(with_mask(1, DNNL_ARG_WEIGHTS, 2));
    CHECK(with_mask(1, DNNL_ARG_DST, 2));
    CHECK(with_mask(0, DNNL_ARG_WEIGHTS, 2));
    /* Ours refuses what it does not compute (upstream takes them): src zero points
     * per M x K, weights zero points per K. */
    if (library_is_ours()) {
        CHECK_STATUS(with_mask(1, DNNL_ARG_SRC, 3), dnnl_unimplemented);
        CHECK_STATUS(with_mask(1, DNNL_ARG_WEIGHTS, 1), dnnl_unimplemented);
    }
    dnnl_memory_desc_t mds[] = {s8, wf, w32, df};
    for (int i = 0; i < 4; i++) CHECK(dnnl_memory_desc_destroy(mds[i]));
}

int main(int argc, char **argv) {
    on_gpu = argc > 1 && strncmp(argv[1], "gpu", 3) == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    s7 = reference_saturates_int8();

    static const dnnl_data_type_t dsts[] = {dnnl_f32, dnnl_s32, dnnl_s8, dnnl_u8, dnnl_bf16, dnnl_f16};
    static const dnnl_data_type_t biases[] = {dnnl_data_type_undef, dnnl_f32, dnnl_s32, dnnl_s8,
            dnnl_u8, dnnl_bf16, dnnl_f16};
    /* Hand-picked: plain s32, every dst type, the widest epilogue, GPU-sized blocks. */
    case_t fixed[] = {
            {2, 1, 1, 33, 17, 65, dnnl_u8, dnnl_s8, dnnl_s32, dnnl_data_type_undef, 0, 0, 0, 0, 0, 0, 0, 0},
            {2, 1, 1, 1, 1, 1, dnnl_s8, dnnl_s8, dnnl_s32, dnnl_data_type_undef, 0, 0, 0, 0, 0, 0, 0, 0},
            {3, 3, 1, 7, 9, 5, dnnl_s8, dnnl_u8, dnnl_u8, dnnl_s32, 1, 1, 1, 1, 1, 1, 0, PO_SUM},
            {2, 1, 1, 19, 40, 70, dnnl_u8, dnnl_s8, dnnl_s8, dnnl_f32, 1, 2, 2, 2, 1, 2, 1, PO_RELU},
            {3, 1, 2, 12, 5, 31, dnnl_u8, dnnl_s8, dnnl_f32, dnnl_bf16, 0, 2, 1, 1, 0, 2, 0, PO_BINARY},
            {3, 2, 2, 5, 17, 4, dnnl_s8, dnnl_s8, dnnl_bf16, dnnl_data_type_undef, 1, 1, 2, 0, 1, 1, 1, PO_PRELU},
            /* Several blocks and K steps of a GPU tile, n-fastest weights with rows of
             * whole 4-byte words (NVIDIA: 4-byte loads transposed in registers), a
             * batch of them (N at the test's limit, 256), then rows of N not a multiple of 4. */
            {3, 2, 2, 130, 256, 200, dnnl_u8, dnnl_s8, dnnl_s32, dnnl_data_type_undef, 0, 0, 0, 0, 0, 0, 0, 0},
            {2, 1, 1, 67, 131, 97, dnnl_s8, dnnl_u8, dnnl_f32, dnnl_f32, 0, 0, 1, 0, 1, 1, 1, PO_RELU},
    };
    char what[160];
    int nfixed = (int)(sizeof fixed / sizeof *fixed);
    for (int i = 0; i < nfixed; i++) {
        snprintf(what, sizeof what, "fixed case %d", i);
        run_case(&fixed[i], what);
    }
    /* The sweep: every dst type x bias type x zero points x scales x post-ops
     * combination drawn from a seeded stream (fewer on OpenCL: each epilogue is a
     * kernel build). */
    rng_seed(16);
    int count = on_gpu ? 36 : 120;
    for (int i = 0; i < count; i++) {
        case_t c;
        memset(&c, 0, sizeof c);
        int r = (int)(rng_uniform() * 1e6 + 1e6);
        c.nd = 2 + (r & 1);
        c.bs = c.nd == 3 ? 1 + (r >> 1) % 3 : 1;
        c.bw = c.nd == 3 ? ((r >> 3) % 2 ? c.bs : 1) : 1;
        if (c.nd == 3 && c.bs == 1) c.bw = 1 + (r >> 4) % 2;
        c.m = 1 + (int)((rng_uniform() + 1) * 17) % 37;
        c.n = 1 + (int)((rng_uniform() + 1) * 23) % 45;
        c.k = 1 + (int)((rng_uniform() + 1) * 31) % 70;
        c.sdt = (r >> 5) % 2 ? dnnl_u8 : dnnl_s8;
        c.wdt = (r >> 6) % 4 ? dnnl_s8 : dnnl_u8;
        c.ddt = dsts[i % 6];
        c.bdt = biases[(i / 6 + r) % 7];
        c.wtrans = (r >> 7) % 2;
        c.zs = (r >> 8) % 3;
        c.zw = (r >> 10) % 3;
        c.zd = (r >> 12) % 3;
        c.ss = (r >> 14) % 2;
        c.sw = (r >> 15) % 3;
        c.sd = (r >> 17) % 2;
        c.po = (i / 6 + (r >> 18)) % PO_COUNT;
        snprintf(what, sizeof what,
                "sweep %d: %dD batch %lld/%lld MNK %lld %lld %lld %s x %s%s -> %s bias %s "
                "zp %d%d%d scales %d%d%d po %d",
                i, c.nd, (long long)c.bs, (long long)c.bw,
                (long long)c.m, (long long)c.n, (long long)c.k, dt_name(c.sdt), dt_name(c.wdt),
                c.wtrans ? "(T)" : "", dt_name(c.ddt),
                c.bdt == dnnl_data_type_undef ? "none" : dt_name(c.bdt), c.zs, c.zw, c.zd, c.ss,
                c.sw, c.sd, c.po);
        run_case(&c, what);
    }
    beyond_f32(dnnl_s8, -127, -127, -125);
    beyond_f32(dnnl_u8, 255, 127, 125);
    runtime_dims();
    bad_input();

    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("matmul_int8: all cases passed\n");
    return 0;
}
