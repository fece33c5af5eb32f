/* Pooling (dnnl_pooling_forward/backward_primitive_desc_create) through the official
 * API, compared with a reference computed here in double from the definitions
 * (doc/primitives/pooling.md):
 *   - pooling_max, pooling_avg_include_padding, pooling_avg_exclude_padding;
 *   - 1-D, 2-D and 3-D; odd sizes; strides 1 to 3; dilations (oneDNN's 0 = dense);
 *     asymmetric padding, a negative right padding, windows partly and wholly in the
 *     padding (max: the lowest value of the source type; avg_include: 0);
 *   - forward training (max writes the workspace, whose descriptor is queried: u8 for
 *     windows of at most 255 positions, s32 beyond, laid out like dst) and inference
 *     (no workspace); backward data for every algorithm, max through the forward's
 *     workspace;
 *   - layouts: plain user tags (ncw/nwc, nchw/nhwc, ncdhw/ndhwc) placed by prim_util.h's
 *     offset function, dst / diff_src given as `any` (ours must answer src's layout);
 *     nChw16c with channel padding on the CPU;
 *   - types: f32, bf16, f16, s8, u8, s32 and mixed src/dst (s8 -> u8, u8 -> f32,
 *     f32 -> s8, bf16 -> f32, ...); integers exact (round half to even, saturation);
 *   - post-ops on forward: eltwise and binary (per channel);
 *   - the queries: memory descriptors, workspace, prop kind, alg kind, kernel, strides,
 *     dilations, paddings, inputs and outputs.
 *
 * A case Intel's library (the @ref run) answers dnnl_unimplemented for is skipped with a
 * `note: <case>: unimplemented by this library` line and counted; on ours every case
 * must run. Each failure names its case; the last line says how many ran.
 *
 * Usage: pooling_sweep [cpu|gpu]. Without an argument under ONEDNN_GPU_RUNTIME=ze it
 * runs on the Level Zero engine (dnnl_ze_test). On a GPU engine without a device: skip
 * (77). A GPU engine runs the cases marked `gpu` (each new shape costs a program build
 * there); POOLING_SWEEP_FULL=1 runs every case. */
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

/* prim_util.h's helpers this test does not call (static: unused ones warn). */
static inline void unused_helpers(void) {
    (void)offset_of;
    (void)md_strides;
}

enum { ALG_MAX, ALG_INCL, ALG_EXCL };
static const dnnl_alg_kind_t algs[] = {
        dnnl_pooling_max, dnnl_pooling_avg_include_padding, dnnl_pooling_avg_exclude_padding};
static const char *alg_names[] = {"max", "avg_include", "avg_exclude"};

/* Post-ops of a forward case. */
enum { PO_NONE, PO_ELTWISE, PO_BINARY };

typedef struct {
    int nsp; /* spatial dimensions: 1 to 3 */
    dnnl_dim_t mb, c, i[3], k[3], s[3], dil[3], pl[3], pr[3];
    int channels_last; /* nwc / nhwc / ndhwc instead of ncw / nchw / ncdhw */
    int blocked;       /* nChw16c (2-D only) */
    dnnl_data_type_t sdt, ddt;
    int dst_any, post, gpu;
} case_t;

/* The cases: shapes and windows, then layouts, types, post-ops, and whether a GPU runs
 * it. Spatial arrays hold nsp values. */
static const case_t cases[] = {
        /* 1-D: asymmetric padding, a last window partly in the padding. */
        {1, 2, 3, {9}, {3}, {2}, {0}, {1}, {1}, 0, 0, dnnl_f32, dnnl_f32, 0, PO_NONE, 1},
        /* 1-D nwc, dilation, negative right padding. */
        {1, 1, 5, {10}, {2}, {2}, {1}, {0}, {-1}, 1, 0, dnnl_f32, dnnl_f32, 1, PO_NONE, 0},
        /* 2-D nchw 2x2 stride 2, odd sizes (the last row and column dropped). */
        {2, 2, 3, {7, 9}, {2, 2}, {2, 2}, {0, 0}, {0, 0}, {0, 0}, 0, 0, dnnl_f32, dnnl_f32, 0,
                PO_NONE, 1},
        /* 2-D nhwc 3x3 stride 1 pad 1, dst any. */
        {2, 2, 5, {6, 5}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {1, 1}, 1, 0, dnnl_f32, dnnl_f32, 1,
                PO_NONE, 1},
        /* 2-D: strides 3 and 1, dilation, asymmetric padding. */
        {2, 1, 4, {8, 7}, {2, 3}, {3, 1}, {1, 0}, {1, 0}, {0, 2}, 0, 0, dnnl_f32, dnnl_f32, 0,
                PO_NONE, 0},
        /* 2-D: windows wholly in the padding (max, avg_include only). */
        {2, 1, 2, {4, 4}, {2, 2}, {2, 2}, {0, 0}, {2, 2}, {2, 2}, 0, 0, dnnl_f32, dnnl_f32, 0,
                PO_NONE, 1},
        /* 3-D ncdhw and ndhwc. */
        {3, 1, 3, {5, 4, 6}, {2, 2, 3}, {2, 1, 2}, {0, 1, 0}, {1, 0, 1}, {0, 0, 1}, 0, 0, dnnl_f32,
                dnnl_f32, 0, PO_NONE, 1},
        {3, 2, 2, {4, 5, 3}, {3, 2, 2}, {1, 2, 1}, {0, 0, 0}, {1, 0, 0}, {1, 1, 1}, 1, 0, dnnl_f32,
                dnnl_f32, 1, PO_NONE, 0},
        /* Types. */
        {2, 2, 3, {6, 7}, {3, 2}, {2, 2}, {0, 0}, {1, 0}, {1, 1}, 1, 0, dnnl_bf16, dnnl_bf16, 0,
                PO_NONE, 1},
        {2, 2, 3, {6, 7}, {3, 2}, {2, 2}, {0, 0}, {1, 0}, {1, 1}, 0, 0, dnnl_f16, dnnl_f16, 0,
                PO_NONE, 1},
        {2, 2, 3, {6, 7}, {3, 2}, {2, 2}, {0, 0}, {1, 0}, {1, 1}, 1, 0, dnnl_s8, dnnl_s8, 0,
                PO_NONE, 1},
        {2, 2, 3, {6, 7}, {3, 2}, {2, 2}, {0, 0}, {1, 0}, {1, 1}, 1, 0, dnnl_u8, dnnl_u8, 1,
                PO_NONE, 0},
        {2, 2, 3, {6, 7}, {3, 2}, {2, 2}, {0, 0}, {1, 0}, {1, 1}, 0, 0, dnnl_s32, dnnl_s32, 0,
                PO_NONE, 0},
        {2, 2, 3, {6, 7}, {3, 2}, {2, 2}, {0, 0}, {1, 0}, {1, 1}, 1, 0, dnnl_s8, dnnl_u8, 0,
                PO_NONE, 1},
        {2, 2, 3, {6, 7}, {3, 2}, {2, 2}, {0, 0}, {1, 0}, {1, 1}, 1, 0, dnnl_u8, dnnl_f32, 0,
                PO_NONE, 0},
        {2, 2, 3, {6, 7}, {3, 2}, {2, 2}, {0, 0}, {1, 0}, {1, 1}, 0, 0, dnnl_f32, dnnl_s8, 0,
                PO_NONE, 0},
        {2, 2, 3, {6, 7}, {3, 2}, {2, 2}, {0, 0}, {1, 0}, {1, 1}, 0, 0, dnnl_bf16, dnnl_f32, 0,
                PO_NONE, 0},
        {2, 2, 3, {6, 7}, {3, 2}, {2, 2}, {0, 0}, {1, 0}, {1, 1}, 0, 0, dnnl_f32, dnnl_bf16, 0,
                PO_NONE, 0},
        /* Post-ops. */
        {2, 2, 4, {5, 6}, {2, 2}, {1, 2}, {0, 0}, {0, 1}, {0, 1}, 1, 0, dnnl_f32, dnnl_f32, 0,
                PO_ELTWISE, 1},
        {2, 2, 4, {5, 6}, {2, 2}, {1, 2}, {0, 0}, {0, 1}, {0, 1}, 0, 0, dnnl_f32, dnnl_f32, 0,
                PO_BINARY, 1},
        {2, 2, 4, {5, 6}, {2, 2}, {1, 2}, {0, 0}, {0, 1}, {0, 1}, 0, 0, dnnl_u8, dnnl_s8, 0,
                PO_BINARY, 0},
        /* A window of more than 255 positions: an s32 workspace. */
        {2, 1, 2, {16, 17}, {16, 17}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, 0, 0, dnnl_f32, dnnl_f32,
                0, PO_NONE, 1},
        /* nChw16c: 19 channels padded to 32. */
        {2, 1, 19, {5, 5}, {2, 2}, {2, 2}, {0, 0}, {0, 0}, {1, 1}, 0, 1, dnnl_f32, dnnl_f32, 0,
                PO_NONE, 0},
};

/* ---- geometry ----------------------------------------------------------------------- */

static dnnl_dim_t range_of(const case_t *c, int x) { return (c->k[x] - 1) * (c->dil[x] + 1) + 1; }

static dnnl_dim_t out_of(const case_t *c, int x) {
    return (c->i[x] - range_of(c, x) + c->pl[x] + c->pr[x]) / c->s[x] + 1;
}

static int nd_of(const case_t *c) { return c->nsp + 2; }

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
    if (c->blocked) return dnnl_aBcd16b;
    static const dnnl_format_tag_t first[] = {dnnl_abc, dnnl_abcd, dnnl_abcde};
    static const dnnl_format_tag_t last[] = {dnnl_acb, dnnl_acdb, dnnl_acdeb};
    return c->channels_last ? last[c->nsp - 1] : first[c->nsp - 1];
}

/* The taps of output position o along x inside the source: their kernel index and
 * source position. */
static int taps(const case_t *c, int x, dnnl_dim_t o, dnnl_dim_t *k_of, dnnl_dim_t *i_of) {
    int n = 0;
    for (dnnl_dim_t k = 0; k < c->k[x]; k++) {
        dnnl_dim_t i = o * c->s[x] + k * (c->dil[x] + 1) - c->pl[x];
        if (i < 0 || i >= c->i[x]) continue;
        k_of[n] = k;
        i_of[n++] = i;
    }
    return n;
}

/* The lowest value of dt: where a max starts (so a window wholly in the padding). */
static double lowest(dnnl_data_type_t dt) {
    switch (dt) {
        case dnnl_f32: return -3.4028234663852886e38;
        case dnnl_f16: return -65504.0;
        case dnnl_bf16: return -3.3895313892515355e38;
        case dnnl_s32: return -2147483648.0;
        case dnnl_s8: return -128.0;
        default: return 0.0;
    }
}

/* Visits every window of every output element: for output element `o` (row-major),
 * each source element of its window (row-major index, kernel index). */
typedef void (*visit_fn)(void *ctx, int64_t o, int64_t src, int64_t kidx);
typedef void (*done_fn)(void *ctx, int64_t o, int ntaps);

static void windows(const case_t *c, void *ctx, visit_fn visit, done_fn done) {
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
        dnnl_dim_t kk[3][32], ii[3][32];
        int nt[3] = {1, 1, 1};
        dnnl_dim_t kdim[3] = {1, 1, 1};
        for (int x = 0; x < 3; x++) {
            kk[x][0] = 0;
            ii[x][0] = 0;
        }
        for (int x = 0; x < c->nsp; x++) {
            EXPECT(c->k[x] <= 32);
            nt[x] = taps(c, x, pos[2 + x], kk[x], ii[x]);
            kdim[x] = c->k[x];
        }
        int total = 0;
        for (int a = 0; a < nt[0]; a++)
            for (int b = 0; b < nt[1]; b++)
                for (int e = 0; e < nt[2]; e++) {
                    dnnl_dim_t sp[3] = {ii[0][a], ii[1][b], ii[2][e]};
                    int64_t s = pos[0] * sd[1] + pos[1];
                    for (int x = 0; x < c->nsp; x++)
                        s = s * sd[2 + x] + sp[x];
                    int64_t kidx = (kk[0][a] * kdim[1] + kk[1][b]) * kdim[2] + kk[2][e];
                    visit(ctx, o, s, kidx);
                    total++;
                }
        done(ctx, o, total);
    }
}

typedef struct {
    const case_t *c;
    int alg;
    const float *src, *dd;
    double *acc, *diff_src;
    int64_t *arg;
    double *best;
    int *ntaps;
    double start;
} ref_t;

static void fwd_visit(void *p, int64_t o, int64_t s, int64_t kidx) {
    ref_t *r = p;
    double v = r->src[s];
    if (r->alg == ALG_MAX) {
        if (v > r->best[o]) {
            r->best[o] = v;
            r->arg[o] = s;
        }
        (void)kidx;
    } else {
        r->acc[o] += v;
    }
}

static void fwd_done(void *p, int64_t o, int n) { ((ref_t *)p)->ntaps[o] = n; }

static void bwd_visit(void *p, int64_t o, int64_t s, int64_t kidx) {
    ref_t *r = p;
    (void)kidx;
    if (r->alg == ALG_MAX) {
        if (r->arg[o] == s) r->diff_src[s] += r->dd[o];
        return;
    }
    int64_t window = 1;
    for (int x = 0; x < r->c->nsp; x++)
        window *= r->c->k[x];
    r->diff_src[s] += r->dd[o] / (r->alg == ALG_INCL ? (double)window : (double)r->ntaps[o]);
}

static void noop_done(void *p, int64_t o, int n) {
    (void)p;
    (void)o;
    (void)n;
}

/* ---- running a case ----------------------------------------------------------------- */

/* Source values: integers (exact in every type, in s8 and u8 range), rarely repeated
 * inside one window, so the max is unique. */
static float src_value(dnnl_data_type_t dt, int64_t i) {
    int v = (int)((i * 97 + 13) % 251);
    if (dt == dnnl_u8) return (float)v;
    if (dt == dnnl_s8) return (float)(v - 125);
    return (float)(v - 125) * (dt == dnnl_s32 ? 1000.0f : 0.25f);
}

static int64_t window_of(const case_t *c) {
    int64_t w = 1;
    for (int x = 0; x < c->nsp; x++)
        w *= c->k[x];
    return w;
}

static void check_dims_query(dnnl_primitive_desc_t pd, dnnl_query_t q, const dnnl_dim_t *want,
        int n, const char *what, const char *name) {
    const dnnl_dims_t *got = NULL;
    if (dnnl_primitive_desc_query(pd, q, 0, &got) != dnnl_success || !got) {
        fail(what, "query %s failed", name);
        return;
    }
    for (int x = 0; x < n; x++)
        if ((*got)[x] != want[x]) fail(what, "query %s[%d] is %ld, not %ld", name, x, (long)(*got)[x], (long)want[x]);
}

static void check_queries(dnnl_primitive_desc_t pd, const case_t *c, int alg, dnnl_prop_kind_t prop,
        const char *what) {
    dnnl_prop_kind_t p;
    dnnl_alg_kind_t a;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_prop_kind, 0, &p));
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_alg_kind, 0, &a));
    if (p != prop) fail(what, "prop kind %d", (int)p);
    if (a != algs[alg]) fail(what, "alg kind %d", (int)a);
    check_dims_query(pd, dnnl_query_kernel, c->k, c->nsp, what, "kernel");
    check_dims_query(pd, dnnl_query_strides, c->s, c->nsp, what, "strides");
    check_dims_query(pd, dnnl_query_dilations, c->dil, c->nsp, what, "dilations");
    check_dims_query(pd, dnnl_query_padding_l, c->pl, c->nsp, what, "padding_l");
    check_dims_query(pd, dnnl_query_padding_r, c->pr, c->nsp, what, "padding_r");
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

/* Forward (and, for training with a float source, backward) of one case, algorithm
 * and propagation kind. */
static void run(const case_t *c, int ci, int alg, dnnl_prop_kind_t prop) {
    char what[200];
    snprintf(what, sizeof what, "case %d (%dD %s %s->%s%s%s) %s %s", ci, c->nsp,
            dnnl_fmt_tag2str(user_tag(c)), dnnl_dt2str(c->sdt), dnnl_dt2str(c->ddt),
            c->dst_any ? " dst any" : "", c->post == PO_ELTWISE ? " +eltwise" : c->post == PO_BINARY ? " +binary" : "",
            alg_names[alg], prop == dnnl_forward_training ? "training" : "inference");
    int nd = nd_of(c);
    dnnl_dims_t sd, dd;
    dims_of(c, 0, sd);
    dims_of(c, 1, dd);
    int64_t ns = count(nd, sd), no = count(nd, dd);
    dnnl_memory_desc_t smd = md_tag(nd, sd, c->sdt, user_tag(c));
    dnnl_memory_desc_t dmd = md_tag(nd, dd, c->ddt, c->dst_any ? dnnl_format_tag_any : user_tag(c));
    dnnl_dims_t bd = {1, c->c, 1, 1, 1};
    dnnl_memory_desc_t bmd = md_tag(nd, bd, dnnl_f32, nd == 3 ? dnnl_abc : nd == 4 ? dnnl_abcd : dnnl_abcde);
    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    if (c->post != PO_NONE) {
        dnnl_post_ops_t po = NULL;
        CHECK(dnnl_post_ops_create(&po));
        if (c->post == PO_ELTWISE)
            CHECK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_linear, 0.5f, -3.0f));
        else
            CHECK(dnnl_post_ops_append_binary(po, dnnl_binary_add, bmd));
        CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
        CHECK(dnnl_post_ops_destroy(po));
    }
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_pooling_forward_primitive_desc_create(&pd, engine, prop, algs[alg], smd,
            dmd, c->s, c->k, c->dil, c->pl, c->pr, attr);
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
    if (c->dst_any && library_is_ours()) expect_tag(qd, user_tag(c));
    const_dnnl_memory_desc_t qws = dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0);
    int with_ws = alg == ALG_MAX && prop == dnnl_forward_training;
    if (with_ws) {
        dnnl_data_type_t wdt;
        int wnd = 0;
        CHECK(dnnl_memory_desc_query(qws, dnnl_query_data_type, &wdt));
        CHECK(dnnl_memory_desc_query(qws, dnnl_query_ndims_s32, &wnd));
        if (wdt != (window_of(c) <= 255 ? dnnl_u8 : dnnl_s32) || wnd != nd)
            fail(what, "workspace descriptor: %s, %d dimensions", dnnl_dt2str(wdt), wnd);
    } else if (qws && dnnl_memory_desc_get_size(qws) != 0) {
        fail(what, "a workspace without max training");
    }
    int nin = dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0);
    int nout = dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_outputs_s32, 0);
    if (nin != 1 + (c->post == PO_BINARY) || nout != 1 + with_ws)
        fail(what, "%d inputs, %d outputs", nin, nout);

    float *x = malloc(sizeof(float) * (size_t)ns), *y = malloc(sizeof(float) * (size_t)no);
    float *b = malloc(sizeof(float) * (size_t)c->c);
    for (int64_t i = 0; i < ns; i++)
        x[i] = src_value(c->sdt, i);
    for (int64_t i = 0; i < c->c; i++)
        b[i] = (float)(i % 3) - 1.5f;
    dnnl_memory_t src = memory(smd), dst = memory(qd), ws = with_ws ? memory(qws) : NULL, bin = memory(bmd);
    fill(src, x);
    fill(bin, b);
    dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    int nargs = 2;
    if (ws) args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_WORKSPACE, ws};
    if (c->post == PO_BINARY)
        args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, bin};
    executes(pd, nargs, args);
    int padding_ok = 1;
    read_back(dst, y, &padding_ok);
    if (!padding_ok) fail(what, "dst padding is not zero");

    /* Reference. */
    ref_t r = {c, alg, x, NULL, calloc((size_t)no, sizeof(double)), NULL,
            malloc(sizeof(int64_t) * (size_t)no), malloc(sizeof(double) * (size_t)no),
            malloc(sizeof(int) * (size_t)no), lowest(c->sdt)};
    for (int64_t o = 0; o < no; o++) {
        r.best[o] = r.start;
        r.arg[o] = -1;
    }
    windows(c, &r, fwd_visit, fwd_done);
    int bad = 0;
    for (int64_t o = 0; o < no && bad < 5; o++) {
        double want = alg == ALG_MAX ? r.best[o]
                : alg == ALG_INCL    ? r.acc[o] / (double)window_of(c)
                                     : r.acc[o] / r.ntaps[o];
        double bound = 0;
        double maxabs = c->sdt == dnnl_s32 ? 125000.0 : 250.0;
        if (alg != ALG_MAX) bound = (double)window_of(c) * F32_EPS * maxabs * 2.0;
        int ch = (int)(o / count(nd - 2, dd + 2) % c->c);
        if (c->post == PO_ELTWISE) want = 0.5 * want - 3.0;
        if (c->post == PO_BINARY) want += b[ch];
        /* Integers: an average exactly half way may round either way. */
        if (is_int_dt(c->ddt) && fabs(want - floor(want) - 0.5) < 1e-9) bound = 0.5;
        if (!matches(c->ddt, y[o], want, bound)) {
            fail(what, "dst element %lld: got %.9g, want %.9g", (long long)o, y[o], want);
            bad++;
        }
    }

    /* Backward data, float types, after training. */
    int float_src = c->sdt == dnnl_f32 || c->sdt == dnnl_bf16 || c->sdt == dnnl_f16;
    if (prop == dnnl_forward_training && float_src && c->ddt == c->sdt && c->post == PO_NONE) {
        char bwhat[220];
        snprintf(bwhat, sizeof bwhat, "%s backward", what);
        dnnl_memory_desc_t dsmd = md_tag(nd, sd, c->sdt, c->dst_any ? dnnl_format_tag_any : user_tag(c));
        dnnl_primitive_desc_t bpd = NULL;
        st = dnnl_pooling_backward_primitive_desc_create(&bpd, engine, algs[alg], dsmd, qd, c->s, c->k,
                c->dil, c->pl, c->pr, pd, NULL);
        CHECK(dnnl_memory_desc_destroy(dsmd));
        if (st == dnnl_unimplemented && !library_is_ours()) {
            printf("note: %s: unimplemented by this library\n", bwhat);
            n_skipped++;
        } else if (st != dnnl_success) {
            fail(bwhat, "creation: %s", check_status_str(st));
        } else {
            check_queries(bpd, c, alg, dnnl_backward_data, bwhat);
            const_dnnl_memory_desc_t qds = dnnl_primitive_desc_query_md(bpd, dnnl_query_diff_src_md, 0);
            if (c->dst_any && library_is_ours()) expect_tag(qds, user_tag(c));
            if (with_ws && !dnnl_memory_desc_equal(qws, dnnl_primitive_desc_query_md(bpd, dnnl_query_workspace_md, 0)))
                fail(bwhat, "the workspace differs from the forward's");
            float *g = malloc(sizeof(float) * (size_t)no), *gx = malloc(sizeof(float) * (size_t)ns);
            for (int64_t o = 0; o < no; o++)
                g[o] = rounded(c->sdt, (float)((o * 13 % 17) - 8) * 0.25f);
            dnnl_memory_t ddm = memory(qd), dsm = memory(qds);
            fill(ddm, g);
            dnnl_exec_arg_t bargs[3] = {{DNNL_ARG_DIFF_DST, ddm}, {DNNL_ARG_DIFF_SRC, dsm}};
            int nb = 2;
            if (ws) bargs[nb++] = (dnnl_exec_arg_t){DNNL_ARG_WORKSPACE, ws};
            executes(bpd, nb, bargs);
            read_back(dsm, gx, &padding_ok);
            if (!padding_ok) fail(bwhat, "diff_src padding is not zero");
            r.dd = g;
            r.diff_src = calloc((size_t)ns, sizeof(double));
            windows(c, &r, bwd_visit, noop_done);
            bad = 0;
            for (int64_t i = 0; i < ns && bad < 5; i++) {
                /* Contributions of at most 2 each, summed in f32 (ours); Intel's
                 * library sums bf16 gradients in bf16. */
                double unit = library_is_ours() ? F32_EPS : ulp_of(c->sdt, 1.0);
                double bound = (double)window_of(c) * 4.0 * unit;
                if (!matches(c->sdt, gx[i], r.diff_src[i], bound)) {
                    fail(bwhat, "diff_src element %lld: got %.9g, want %.9g", (long long)i, gx[i],
                            r.diff_src[i]);
                    bad++;
                }
            }
            free(r.diff_src);
            free(g);
            free(gx);
            CHECK(dnnl_memory_destroy(ddm));
            CHECK(dnnl_memory_destroy(dsm));
            CHECK(dnnl_primitive_desc_destroy(bpd));
        }
    }
    free(r.acc);
    free(r.arg);
    free(r.best);
    free(r.ntaps);
    free(x);
    free(y);
    free(b);
    CHECK(dnnl_memory_destroy(src));
    CHECK(dnnl_memory_destroy(dst));
    CHECK(dnnl_memory_destroy(bin));
    if (ws) CHECK(dnnl_memory_destroy(ws));
    CHECK(dnnl_primitive_desc_destroy(pd));
out:
    CHECK(dnnl_memory_desc_destroy(smd));
    CHECK(dnnl_memory_desc_destroy(dmd));
    CHECK(dnnl_memory_desc_destroy(bmd));
}

int main(int argc, char **argv) {
    (void)unused_helpers;
    const char *rt = getenv("ONEDNN_GPU_RUNTIME");
    where = argc > 1 ? argv[1] : rt && strcmp(rt, "ze") == 0 ? "ze" : "cpu";
    on_gpu = strcmp(where, "cpu") != 0;
    const char *f = getenv("POOLING_SWEEP_FULL");
    full = f && strcmp(f, "1") == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0)
        SKIP(strcmp(where, "ze") == 0 ? "no Level Zero device" : "no OpenCL device");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));

    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const case_t *c = &cases[i];
        if (on_gpu && !full && !c->gpu) continue;
        for (int alg = 0; alg < 3; alg++) {
            /* avg_exclude_padding refuses padding as large as the window (bad input). */
            int excl_ok = 1;
            for (int x = 0; x < c->nsp; x++)
                if (c->pl[x] >= range_of(c, x) || c->pr[x] >= range_of(c, x)) excl_ok = 0;
            if (alg == ALG_EXCL && !excl_ok) continue;
            run(c, (int)i + 1, alg, dnnl_forward_training);
            if (!on_gpu || full) run(c, (int)i + 1, alg, dnnl_forward_inference);
        }
    }

    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    printf("pooling_sweep on %s%s: %d primitives run, %d skipped (unimplemented by this library), "
           "%d failures\n",
            where, on_gpu && !full ? " (the GPU subset; POOLING_SWEEP_FULL=1 runs all)" : "", n_run,
            n_skipped, failures);
    return failures ? 1 : 0;
}
