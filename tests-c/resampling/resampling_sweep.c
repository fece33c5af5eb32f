/* Resampling (dnnl_resampling_forward/backward_primitive_desc_create) through the
 * official API, compared with a reference computed here in double from the definitions
 * (doc/primitives/resampling.md):
 *   - resampling_nearest and resampling_linear, forward training and inference, backward
 *     data;
 *   - 1-D, 2-D and 3-D; upsampling, downsampling and non-integer factors (ties of the
 *     nearest rounding included: 6 -> 5 and 2 -> 3 have source coordinates at exactly
 *     k + 0.5, which round away from zero);
 *   - the shape given by dst, or by the factors with dst NULL ((dim_t)(I * F), of src's
 *     type and layout); the factors query answers O / I;
 *   - layouts: plain user tags (ncw/nwc, nchw/nhwc, ncdhw/ndhwc) placed by prim_util.h's
 *     offset function, padded strides, dst / diff_src given as `any` (ours must answer
 *     src's layout);
 *   - types: f32, bf16, f16, s8, u8, s32 and mixed src/dst; integers round half to even
 *     and saturate;
 *   - post-ops on forward: eltwise, binary (per channel), sum, sum then eltwise.
 *
 * A case Intel's library (the @ref run) answers dnnl_unimplemented for is skipped with a
 * `note: <case>: unimplemented by this library` line and counted (f16 on a CPU without
 * it); on ours every case must run. Each failure names its case; the last line says how
 * many ran.
 *
 * Usage: resampling_sweep [cpu|gpu]. Without an argument under ONEDNN_GPU_RUNTIME=ze it
 * runs on the Level Zero engine (dnnl_ze_test). On a GPU engine without a device: skip
 * (77). A GPU engine runs the cases marked `gpu`; RESAMPLING_SWEEP_FULL=1 runs every
 * case. */
#include <stdarg.h>

#include "prim_util.h"

static const char *where;
static int on_gpu, full, n_run, n_skipped, failures;

static void fail(const char *what, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fflush(stdout);
    fprintf(stderr, "FAIL: %s: ", what);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    failures++;
}

enum { NEAREST, LINEAR };
static const dnnl_alg_kind_t algs[] = {dnnl_resampling_nearest, dnnl_resampling_linear};
static const char *alg_names[] = {"nearest", "linear"};

enum { PO_NONE, PO_ELTWISE, PO_BINARY, PO_SUM, PO_SUM_ELTWISE };
static const char *po_names[] = {"", " +eltwise", " +binary", " +sum", " +sum+eltwise"};

/* How dst is given: its descriptor, `any`, or NULL (the factors give the shape). */
enum { DST_GIVEN, DST_ANY, DST_NULL };

/* Layouts: channels first, channels last, channels first with padded strides. */
enum { L_FIRST, L_LAST, L_STRIDED };

typedef struct {
    int nsp;
    dnnl_dim_t mb, c, i[3], o[3]; /* o: ignored with DST_NULL */
    float f[3];                   /* factors: passed with DST_NULL (and case 0 of the rest) */
    int layout;
    dnnl_data_type_t sdt, ddt;
    int dst, post, gpu;
} case_t;

static const case_t cases[] = {
        /* 1-D: up 2x, down to a non-integer factor. */
        {1, 2, 3, {5}, {10}, {0}, L_FIRST, dnnl_f32, dnnl_f32, DST_GIVEN, PO_NONE, 1},
        {1, 1, 4, {7}, {3}, {0}, L_LAST, dnnl_f32, dnnl_f32, DST_ANY, PO_NONE, 0},
        /* 2-D: up 2x; ties of nearest (6 -> 5, 2 -> 3); factors with dst NULL. */
        {2, 2, 3, {5, 7}, {10, 14}, {0}, L_FIRST, dnnl_f32, dnnl_f32, DST_GIVEN, PO_NONE, 0},
        {2, 1, 5, {6, 2}, {5, 3}, {0}, L_LAST, dnnl_f32, dnnl_f32, DST_ANY, PO_NONE, 1},
        {2, 2, 2, {4, 4}, {0}, {0.8f, 1.75f}, L_FIRST, dnnl_f32, dnnl_f32, DST_NULL, PO_NONE, 0},
        {2, 1, 3, {9, 13}, {4, 5}, {0}, L_FIRST, dnnl_f32, dnnl_f32, DST_GIVEN, PO_NONE, 0},
        /* 3-D. */
        {3, 1, 3, {3, 4, 5}, {5, 6, 3}, {0}, L_FIRST, dnnl_f32, dnnl_f32, DST_GIVEN, PO_NONE, 1},
        {3, 2, 2, {2, 3, 4}, {0}, {2.0f, 1.0f, 2.5f}, L_LAST, dnnl_f32, dnnl_f32, DST_NULL,
                PO_NONE, 0},
        /* Padded strides. */
        {2, 2, 3, {5, 6}, {7, 9}, {0}, L_STRIDED, dnnl_f32, dnnl_f32, DST_GIVEN, PO_NONE, 1},
        /* Types. */
        {2, 2, 3, {5, 6}, {8, 4}, {0}, L_LAST, dnnl_bf16, dnnl_bf16, DST_GIVEN, PO_NONE, 0},
        {2, 2, 3, {5, 6}, {8, 4}, {0}, L_FIRST, dnnl_f16, dnnl_f16, DST_GIVEN, PO_NONE, 1},
        {2, 2, 3, {5, 6}, {8, 4}, {0}, L_LAST, dnnl_s8, dnnl_s8, DST_GIVEN, PO_NONE, 1},
        {2, 2, 3, {5, 6}, {8, 4}, {0}, L_FIRST, dnnl_u8, dnnl_u8, DST_ANY, PO_NONE, 0},
        {2, 2, 3, {5, 6}, {8, 4}, {0}, L_FIRST, dnnl_s32, dnnl_s32, DST_GIVEN, PO_NONE, 0},
        {2, 2, 3, {5, 6}, {8, 4}, {0}, L_LAST, dnnl_s8, dnnl_u8, DST_GIVEN, PO_NONE, 0},
        {2, 2, 3, {5, 6}, {8, 4}, {0}, L_LAST, dnnl_u8, dnnl_f32, DST_GIVEN, PO_NONE, 0},
        {2, 2, 3, {5, 6}, {8, 4}, {0}, L_FIRST, dnnl_f32, dnnl_s8, DST_GIVEN, PO_NONE, 0},
        {2, 2, 3, {5, 6}, {8, 4}, {0}, L_FIRST, dnnl_bf16, dnnl_f32, DST_GIVEN, PO_NONE, 0},
        {2, 2, 3, {5, 6}, {8, 4}, {0}, L_FIRST, dnnl_f32, dnnl_bf16, DST_GIVEN, PO_NONE, 0},
        /* Post-ops. */
        {2, 2, 4, {5, 6}, {7, 12}, {0}, L_LAST, dnnl_f32, dnnl_f32, DST_GIVEN, PO_ELTWISE, 0},
        {2, 2, 4, {5, 6}, {7, 12}, {0}, L_FIRST, dnnl_f32, dnnl_f32, DST_GIVEN, PO_BINARY, 1},
        {2, 2, 4, {5, 6}, {7, 12}, {0}, L_FIRST, dnnl_f32, dnnl_f32, DST_GIVEN, PO_SUM, 1},
        {2, 2, 4, {5, 6}, {7, 12}, {0}, L_LAST, dnnl_u8, dnnl_s8, DST_GIVEN, PO_SUM_ELTWISE, 0},
        {2, 2, 4, {5, 6}, {7, 12}, {0}, L_FIRST, dnnl_s8, dnnl_f32, DST_GIVEN, PO_BINARY, 0},
};

/* ---- geometry ----------------------------------------------------------------------- */

static int nd_of(const case_t *c) { return c->nsp + 2; }

static dnnl_dim_t out_of(const case_t *c, int x) {
    return c->dst == DST_NULL ? (dnnl_dim_t)((float)c->i[x] * c->f[x]) : c->o[x];
}

static void dims_of(const case_t *c, int dst, dnnl_dims_t d) {
    d[0] = c->mb;
    d[1] = c->c;
    for (int x = 0; x < c->nsp; x++)
        d[2 + x] = dst ? out_of(c, x) : c->i[x];
}

static int64_t count(int nd, const dnnl_dim_t *d) {
    int64_t n = 1;
    for (int k = 0; k < nd; k++)
        n *= d[k];
    return n;
}

static dnnl_format_tag_t user_tag(const case_t *c) {
    static const dnnl_format_tag_t first[] = {dnnl_abc, dnnl_abcd, dnnl_abcde};
    static const dnnl_format_tag_t last[] = {dnnl_acb, dnnl_acdb, dnnl_acdeb};
    return c->layout == L_LAST ? last[c->nsp - 1] : first[c->nsp - 1];
}

/* A descriptor of the case's layout: its tag, or channels first with gaps after each
 * row and each plane. */
static dnnl_memory_desc_t user_md(const case_t *c, int nd, const dnnl_dim_t *d, dnnl_data_type_t dt,
        int any) {
    if (any) return md_tag(nd, d, dt, dnnl_format_tag_any);
    if (c->layout != L_STRIDED) return md_tag(nd, d, dt, user_tag(c));
    dnnl_dims_t st;
    dnnl_dim_t s = 1;
    for (int k = nd - 1; k >= 0; k--) {
        st[k] = s;
        s *= d[k] + (k >= 2 ? 3 : 1);
    }
    return md_strides(nd, d, dt, st);
}

/* The taps of output position o along a dimension of I source and O output elements:
 * source indices (clamped) and weights, from the doc's formulas in exact arithmetic. */
static int taps_of(int alg, dnnl_dim_t o, dnnl_dim_t I, dnnl_dim_t O, dnnl_dim_t *idx, double *w) {
    double x = ((double)(2 * o + 1) * (double)I - (double)O) / (2.0 * (double)O);
    if (alg == NEAREST) {
        /* round half away from zero; x > -0.5 */
        dnnl_dim_t r = (dnnl_dim_t)floor(x + 0.5);
        idx[0] = r < 0 ? 0 : r > I - 1 ? I - 1 : r;
        w[0] = 1.0;
        return 1;
    }
    double f = floor(x);
    dnnl_dim_t a = (dnnl_dim_t)f, b = (dnnl_dim_t)ceil(x);
    idx[0] = a < 0 ? 0 : a > I - 1 ? I - 1 : a;
    idx[1] = b < 0 ? 0 : b > I - 1 ? I - 1 : b;
    w[1] = x - f;
    w[0] = 1.0 - w[1];
    return 2;
}

/* For each output element (row-major) and each source element it reads: visit(o, s, w). */
typedef void (*visit_fn)(void *ctx, int64_t o, int64_t s, double w);

static void mapping(const case_t *c, int alg, void *ctx, visit_fn visit) {
    dnnl_dims_t sd, dd;
    dims_of(c, 0, sd);
    dims_of(c, 1, dd);
    int nd = nd_of(c);
    int64_t n_out = count(nd, dd);
    for (int64_t o = 0; o < n_out; o++) {
        dnnl_dim_t pos[5];
        int64_t r = o;
        for (int d = nd - 1; d >= 0; d--) {
            pos[d] = r % dd[d];
            r /= dd[d];
        }
        dnnl_dim_t idx[3][2] = {{0, 0}, {0, 0}, {0, 0}};
        double w[3][2] = {{1, 0}, {1, 0}, {1, 0}};
        int nt[3] = {1, 1, 1};
        for (int x = 0; x < c->nsp; x++)
            nt[x] = taps_of(alg, pos[2 + x], sd[2 + x], dd[2 + x], idx[x], w[x]);
        for (int a = 0; a < nt[0]; a++)
            for (int b = 0; b < nt[1]; b++)
                for (int e = 0; e < nt[2]; e++) {
                    dnnl_dim_t sp[3] = {idx[0][a], idx[1][b], idx[2][e]};
                    int64_t s = pos[0] * sd[1] + pos[1];
                    for (int x = 0; x < c->nsp; x++)
                        s = s * sd[2 + x] + sp[x];
                    visit(ctx, o, s, w[0][a] * w[1][b] * w[2][e]);
                }
    }
}

typedef struct {
    const float *src, *dd;
    double *acc, *mag, *diff_src, *dmag;
} ref_t;

static void fwd_visit(void *p, int64_t o, int64_t s, double w) {
    ref_t *r = p;
    r->acc[o] += w * r->src[s];
    r->mag[o] += fabs(w * r->src[s]);
}

static void bwd_visit(void *p, int64_t o, int64_t s, double w) {
    ref_t *r = p;
    r->diff_src[s] += w * r->dd[o];
    r->dmag[s] += fabs(w * r->dd[o]) + fabs(r->diff_src[s]);
}

/* ---- running a case ----------------------------------------------------------------- */

static float src_value(dnnl_data_type_t dt, int64_t i) {
    int v = (int)((i * 97 + 13) % 251);
    if (dt == dnnl_u8) return (float)v;
    if (dt == dnnl_s8) return (float)(v - 125);
    return (float)(v - 125) * (dt == dnnl_s32 ? 1000.0f : 0.25f);
}

static int executes(dnnl_primitive_desc_t pd, int nargs, dnnl_exec_arg_t *args) {
    dnnl_primitive_t prim = NULL;
    CHECK(dnnl_primitive_create(&prim, pd));
    CHECK(dnnl_primitive_execute(prim, stream, nargs, args));
    CHECK(dnnl_stream_wait(stream));
    CHECK(dnnl_primitive_destroy(prim));
    n_run++;
    return 1;
}

static void check_queries(dnnl_primitive_desc_t pd, const case_t *c, int alg, dnnl_prop_kind_t prop,
        const char *what) {
    dnnl_prop_kind_t p;
    dnnl_alg_kind_t a;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_prop_kind, 0, &p));
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_alg_kind, 0, &a));
    /* Training and inference compute the same: both answer forward_training (as
     * Intel's library does). */
    dnnl_prop_kind_t want_prop = prop == dnnl_forward_inference ? dnnl_forward_training : prop;
    if (p != want_prop) fail(what, "prop kind %d", (int)p);
    if (a != algs[alg]) fail(what, "alg kind %d", (int)a);
    const float *f = NULL;
    if (dnnl_primitive_desc_query(pd, dnnl_query_factors, 0, &f) != dnnl_success || !f) {
        fail(what, "query factors failed");
        return;
    }
    for (int x = 0; x < c->nsp; x++) {
        float want = (float)out_of(c, x) / (float)c->i[x];
        if (f[x] != want) fail(what, "factor %d is %.9g, not %.9g", x, f[x], want);
    }
}

static void run(const case_t *c, int ci, int alg, dnnl_prop_kind_t prop) {
    static const char *dst_names[] = {"", " dst any", " dst NULL"};
    static const char *layout_names[] = {"", "", " padded strides"};
    char what[200];
    snprintf(what, sizeof what, "case %d (%dD %s%s %s->%s%s%s) %s %s", ci, c->nsp,
            dnnl_fmt_tag2str(user_tag(c)), layout_names[c->layout], dnnl_dt2str(c->sdt),
            dnnl_dt2str(c->ddt), dst_names[c->dst], po_names[c->post], alg_names[alg],
            prop == dnnl_forward_training ? "training" : "inference");
    int nd = nd_of(c);
    dnnl_dims_t sd, dd;
    dims_of(c, 0, sd);
    dims_of(c, 1, dd);
    int64_t ns = count(nd, sd), no = count(nd, dd);
    dnnl_memory_desc_t smd = user_md(c, nd, sd, c->sdt, 0);
    dnnl_memory_desc_t dmd = c->dst == DST_NULL ? NULL : user_md(c, nd, dd, c->ddt, c->dst == DST_ANY);
    dnnl_dims_t bd = {1, c->c, 1, 1, 1};
    dnnl_memory_desc_t bmd = md_tag(nd, bd, dnnl_f32, nd == 3 ? dnnl_abc : nd == 4 ? dnnl_abcd : dnnl_abcde);
    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    if (c->post != PO_NONE) {
        dnnl_post_ops_t po = NULL;
        CHECK(dnnl_post_ops_create(&po));
        if (c->post == PO_SUM || c->post == PO_SUM_ELTWISE)
            CHECK(dnnl_post_ops_append_sum(po, 0.5f, 0, dnnl_data_type_undef));
        if (c->post == PO_ELTWISE || c->post == PO_SUM_ELTWISE)
            CHECK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_linear, 0.5f, -3.0f));
        if (c->post == PO_BINARY) CHECK(dnnl_post_ops_append_binary(po, dnnl_binary_add, bmd));
        CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
        CHECK(dnnl_post_ops_destroy(po));
    }
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_resampling_forward_primitive_desc_create(&pd, engine, prop, algs[alg],
            c->dst == DST_NULL ? c->f : NULL, smd, dmd, attr);
    CHECK(dnnl_primitive_attr_destroy(attr));
    if (st == dnnl_unimplemented && !library_is_ours()) {
        printf("note: %s: unimplemented by this library\n", what);
        n_skipped++;
        goto out;
    }
    if (st != dnnl_success) {
        fail(what, "forward creation: %s", check_status_str(st));
        goto out;
    }
    check_queries(pd, c, alg, prop, what);
    const_dnnl_memory_desc_t qd = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    if (c->dst == DST_ANY && library_is_ours()) expect_tag(qd, user_tag(c));
    if (c->dst == DST_NULL) {
        /* src's type and layout, the factors' shape. */
        dnnl_memory_desc_t want = md_tag(nd, dd, c->sdt, user_tag(c));
        if (!dnnl_memory_desc_equal(qd, want)) fail(what, "dst from the factors is not src's layout");
        CHECK(dnnl_memory_desc_destroy(want));
    }
    dnnl_data_type_t ddt = c->dst == DST_NULL ? c->sdt : c->ddt;
    int nin = dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0);
    int nout = dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_outputs_s32, 0);
    if (nin != 1 + (c->post == PO_BINARY) || nout != 1) fail(what, "%d inputs, %d outputs", nin, nout);

    float *x = malloc(sizeof(float) * (size_t)ns), *y = malloc(sizeof(float) * (size_t)no);
    float *old = malloc(sizeof(float) * (size_t)no), *b = malloc(sizeof(float) * (size_t)c->c);
    for (int64_t i = 0; i < ns; i++)
        x[i] = src_value(c->sdt, i);
    for (int64_t i = 0; i < no; i++)
        old[i] = rounded(ddt, (float)((i * 7) % 9) - 4.0f);
    for (int64_t i = 0; i < c->c; i++)
        b[i] = (float)(i % 3) - 1.5f;
    dnnl_memory_t src = memory(smd), dst = memory(qd), bin = memory(bmd);
    fill(src, x);
    fill(dst, old);
    fill(bin, b);
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    int nargs = 2;
    if (c->post == PO_BINARY)
        args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, bin};
    executes(pd, nargs, args);
    int padding_ok = 1;
    read_back(dst, y, &padding_ok);

    ref_t r = {x, NULL, calloc((size_t)no, sizeof(double)), calloc((size_t)no, sizeof(double)),
            NULL, NULL};
    mapping(c, alg, &r, fwd_visit);
    int bad = 0;
    for (int64_t o = 0; o < no && bad < 5; o++) {
        double want = r.acc[o];
        /* Up to 8 products of f32 weights, summed in f32. */
        double bound = 16.0 * F32_EPS * r.mag[o];
        int ch = (int)(o / count(nd - 2, dd + 2) % c->c);
        if (c->post == PO_SUM || c->post == PO_SUM_ELTWISE) want += 0.5 * old[o];
        if (c->post == PO_ELTWISE || c->post == PO_SUM_ELTWISE) want = 0.5 * want - 3.0;
        if (c->post == PO_BINARY) want += b[ch];
        /* Integers: a result within rounding of a half way point may round either way. */
        if (is_int_dt(ddt) && bound < 1e-3 * (r.mag[o] + 1.0)) bound = 1e-3 * (r.mag[o] + 1.0);
        if (!matches(ddt, y[o], want, bound)) {
            fail(what, "dst element %lld: got %.9g, want %.9g", (long long)o, y[o], want);
            bad++;
        }
    }

    /* Backward data after training, without post-ops. */
    if (prop == dnnl_forward_training && c->post == PO_NONE && ddt == c->sdt) {
        char bwhat[220];
        snprintf(bwhat, sizeof bwhat, "%s backward", what);
        dnnl_memory_desc_t dsmd = user_md(c, nd, sd, c->sdt, c->dst == DST_ANY);
        dnnl_primitive_desc_t bpd = NULL;
        st = dnnl_resampling_backward_primitive_desc_create(&bpd, engine, algs[alg],
                c->dst == DST_NULL ? c->f : NULL, dsmd, c->dst == DST_NULL ? NULL : qd, pd, NULL);
        CHECK(dnnl_memory_desc_destroy(dsmd));
        if (st == dnnl_unimplemented && !library_is_ours()) {
            printf("note: %s: unimplemented by this library\n", bwhat);
            n_skipped++;
        } else if (st != dnnl_success) {
            fail(bwhat, "creation: %s", check_status_str(st));
        } else {
            check_queries(bpd, c, alg, dnnl_backward_data, bwhat);
            const_dnnl_memory_desc_t qds = dnnl_primitive_desc_query_md(bpd, dnnl_query_diff_src_md, 0);
            const_dnnl_memory_desc_t qdd = dnnl_primitive_desc_query_md(bpd, dnnl_query_diff_dst_md, 0);
            if (c->dst == DST_ANY && library_is_ours()) expect_tag(qds, user_tag(c));
            float *g = malloc(sizeof(float) * (size_t)no), *gx = malloc(sizeof(float) * (size_t)ns);
            for (int64_t o = 0; o < no; o++)
                g[o] = rounded(c->sdt, (float)((o * 13 % 17) - 8) * (is_int_dt(c->sdt) ? 1.0f : 0.25f));
            dnnl_memory_t ddm = memory(qdd), dsm = memory(qds);
            fill(ddm, g);
            dnnl_exec_arg_t bargs[2] = {{DNNL_ARG_DIFF_DST, ddm}, {DNNL_ARG_DIFF_SRC, dsm}};
            executes(bpd, 2, bargs);
            read_back(dsm, gx, &padding_ok);
            r.dd = g;
            r.diff_src = calloc((size_t)ns, sizeof(double));
            r.dmag = calloc((size_t)ns, sizeof(double));
            mapping(c, alg, &r, bwd_visit);
            bad = 0;
            for (int64_t i = 0; i < ns && bad < 5; i++) {
                /* Ours sums in f32; Intel's library sums bf16 and f16 gradients in
                 * their own type. */
                double unit = library_is_ours() || is_int_dt(c->sdt) ? F32_EPS : ulp_of(c->sdt, 1.0);
                double bound = 4.0 * unit * r.dmag[i];
                if (is_int_dt(c->sdt) && bound < 1e-3 * (r.dmag[i] + 1.0)) bound = 1e-3 * (r.dmag[i] + 1.0);
                if (!matches(c->sdt, gx[i], r.diff_src[i], bound)) {
                    fail(bwhat, "diff_src element %lld: got %.9g, want %.9g", (long long)i, gx[i],
                            r.diff_src[i]);
                    bad++;
                }
            }
            free(r.diff_src);
            free(r.dmag);
            free(g);
            free(gx);
            CHECK(dnnl_memory_destroy(ddm));
            CHECK(dnnl_memory_destroy(dsm));
            CHECK(dnnl_primitive_desc_destroy(bpd));
        }
    }
    free(r.acc);
    free(r.mag);
    free(x);
    free(y);
    free(old);
    free(b);
    CHECK(dnnl_memory_destroy(src));
    CHECK(dnnl_memory_destroy(dst));
    CHECK(dnnl_memory_destroy(bin));
    CHECK(dnnl_primitive_desc_destroy(pd));
out:
    CHECK(dnnl_memory_desc_destroy(smd));
    if (dmd) CHECK(dnnl_memory_desc_destroy(dmd));
    CHECK(dnnl_memory_desc_destroy(bmd));
}

int main(int argc, char **argv) {
    const char *rt = getenv("ONEDNN_GPU_RUNTIME");
    where = argc > 1 ? argv[1] : rt && strcmp(rt, "ze") == 0 ? "ze" : "cpu";
    on_gpu = strcmp(where, "cpu") != 0;
    const char *f = getenv("RESAMPLING_SWEEP_FULL");
    full = f && strcmp(f, "1") == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0)
        SKIP(strcmp(where, "ze") == 0 ? "no Level Zero device" : "no OpenCL device");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));

    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const case_t *c = &cases[i];
        if (on_gpu && !full && !c->gpu) continue;
        for (int alg = 0; alg < 2; alg++) {
            run(c, (int)i + 1, alg, dnnl_forward_training);
            if (!on_gpu || full) run(c, (int)i + 1, alg, dnnl_forward_inference);
        }
    }

    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    printf("resampling_sweep on %s%s: %d primitives run, %d skipped (unimplemented by this "
           "library), %d failures\n",
            where, on_gpu && !full ? " (the GPU subset; RESAMPLING_SWEEP_FULL=1 runs all)" : "",
            n_run, n_skipped, failures);
    return failures ? 1 : 0;
}
