/* Convolution and deconvolution (dnnl_convolution_* and dnnl_deconvolution_*: forward
 * training and inference, backward data, backward weights with and without the bias
 * gradient) through the official API, compared with a reference computed here in double
 * straight from the definitions (doc/primitives/convolution.md):
 *   - 1-D, 2-D and 3-D; odd sizes; strides 1 to 3; dilations (oneDNN's 0 = dense);
 *     asymmetric padding, a last window partly in the padding, windows wholly in the
 *     padding, a negative right padding; groups (5-D goihw-style weights) and depthwise;
 *   - layouts: plain user tags (nchw, nhwc and their 1-D and 3-D kin; oihw, hwio,
 *     goihw, hwigo) placed by this file's own offset function, and `any` for the
 *     primitive, filled and read back through reorders from and to the plain layout;
 *   - f32; f16 and bf16 (f32 accumulation); int8 (u8 or s8 src, s8 weights, dst s32,
 *     f32, s8, u8 or bf16) with src, weights (per tensor or per output channel) and dst
 *     scales and a src zero point, integers exact (round half to even, saturation);
 *   - post-ops on forward: eltwise, sum (scale, zero point, data type), binary add and
 *     mul per channel and on the full tensor, prelu, and chains of them;
 *   - the queries: memory descriptors (by query and by execution argument), prop kind,
 *     alg kind, strides, dilations, paddings, inputs and outputs, memory consumption,
 *     scratchpad (user mode: the queried size is all the primitive needs), impl info;
 *   - convolution_auto (must create), convolution_winograd (success or unimplemented).
 *
 * Deconvolution is the transposed convolution. Both are checked through one geometry: a
 * wide side X (conv src, deconv dst) of channels CX and a narrow side Y (conv dst, deconv
 * src) of channels CY, with Y's spatial size floor((X - DK + PL + PR) / S) + 1. Conv
 * forward and deconv backward data gather X into Y; deconv forward and conv backward
 * data scatter Y into X; both backward weights correlate X with Y. Conv weights are
 * (G, CY/G, CX/G, K...), deconv weights (G, CX/G, CY/G, K...): OC/G, IC/G of each.
 *
 * A case Intel's library (the @ref run) answers dnnl_unimplemented for is skipped with a
 * `SKIP: <case>: Intel's library: unimplemented here` line and counted; on ours every
 * case must run. In a reference run on a CPU without VNNI the s8 weights are kept in s7
 * [-64, 63] (reference_saturates_int8(), check.h): the saturating cases still saturate
 * their destination. Each failure names its case; the last line says how many ran.
 *
 * Usage: conv_sweep [cpu|gpu]. Without an argument under ONEDNN_GPU_RUNTIME=ze it runs
 * on the Level Zero engine (dnnl_ze_test). On a GPU engine without a device: skip (77).
 * A GPU engine runs a representative subset (each case's `gpu` props: every direction of
 * both kinds, 1-D to 3-D, groups, depthwise, dilation, nhwc and any, bf16, f16, int8
 * with scales, zero points and saturation, post-op chains), since each new shape there
 * costs a program build (about 2 s on PoCL); CONV_SWEEP_FULL=1 runs every case. */
#include <stdarg.h>

#include "eltwise_ref.h"
#include "prim_util.h"

static const char *where;
static int on_gpu, full, s7, n_run, n_skipped, failures;

/* prim_util.h's helpers this test does not call (static: unused ones warn). */
static inline void unused_helpers(void) {
    (void)fill;
    (void)read_back;
    (void)layout_of;
    (void)offset_of;
    (void)rounded;
}

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

/* ---- plain layouts, placed by this test ------------------------------------------- */

/* A tensor in a plain user layout: dims in logical order, and the order of the
 * dimensions in memory, outer to inner, as format tag letters ("acdb": nhwc). */
typedef struct {
    int ndims;
    dnnl_dims_t dims;
    dnnl_data_type_t dt;
    const char *order;
    int64_t nelems;
} tensor_t;

static const struct {
    const char *letters;
    dnnl_format_tag_t tag;
} plain_tags[] = {
        {"a", dnnl_a}, {"abc", dnnl_abc}, {"acb", dnnl_acb}, {"cba", dnnl_cba},
        {"abcd", dnnl_abcd}, {"acdb", dnnl_acdb}, {"cdba", dnnl_cdba}, {"dcab", dnnl_dcab},
        {"abcde", dnnl_abcde}, {"acdeb", dnnl_acdeb}, {"cdeba", dnnl_cdeba},
        {"decab", dnnl_decab}, {"abcdef", dnnl_abcdef}, {"defcab", dnnl_defcab},
};

static dnnl_format_tag_t tag_of(const char *letters) {
    for (size_t i = 0; i < sizeof plain_tags / sizeof *plain_tags; i++)
        if (strcmp(plain_tags[i].letters, letters) == 0) return plain_tags[i].tag;
    fprintf(stderr, "conv_sweep: no format tag for %s\n", letters);
    exit(1);
}

static tensor_t tensor(int ndims, const dnnl_dim_t *dims, dnnl_data_type_t dt, const char *order) {
    tensor_t t;
    memset(&t, 0, sizeof t);
    t.ndims = ndims;
    t.dt = dt;
    t.order = order;
    t.nelems = 1;
    for (int d = 0; d < ndims; d++) {
        t.dims[d] = dims[d];
        t.nelems *= dims[d];
    }
    EXPECT((int)strlen(order) == ndims);
    return t;
}

/* Where the idx-th logical element (row-major numbering) of t lives, in elements. */
static int64_t plain_offset(const tensor_t *t, int64_t idx) {
    int64_t pos[DNNL_MAX_NDIMS], off = 0;
    for (int d = t->ndims - 1; d >= 0; d--) {
        pos[d] = idx % t->dims[d];
        idx /= t->dims[d];
    }
    for (int k = 0; k < t->ndims; k++) {
        int d = t->order[k] - 'a';
        off = off * t->dims[d] + pos[d];
    }
    return off;
}

static dnnl_memory_desc_t user_md(const tensor_t *t) {
    return md_tag(t->ndims, t->dims, t->dt, tag_of(t->order));
}

/* Writes v (logical order) into m, laid out as t, each value stored as type `as`. */
static void write_plain(dnnl_memory_t m, const tensor_t *t, dnnl_data_type_t as, const float *v) {
    const_dnnl_memory_desc_t md;
    CHECK(dnnl_memory_get_memory_desc(m, &md));
    size_t bytes = (size_t)t->nelems * dt_size(t->dt);
    EXPECT(dnnl_memory_desc_get_size(md) == bytes);
    void *p = NULL;
    CHECK(dnnl_memory_map_data(m, &p));
    memset(p, 0, bytes);
    for (int64_t i = 0; i < t->nelems; i++)
        store(as, p, plain_offset(t, i), v[i]);
    CHECK(dnnl_memory_unmap_data(m, p));
}

static void read_plain(dnnl_memory_t m, const tensor_t *t, float *v) {
    void *p = NULL;
    CHECK(dnnl_memory_map_data(m, &p));
    for (int64_t i = 0; i < t->nelems; i++)
        v[i] = load(t->dt, p, plain_offset(t, i));
    CHECK(dnnl_memory_unmap_data(m, p));
}

/* An execution argument: the user's memory in its plain layout and the primitive's
 * memory (the same object unless the primitive chose another layout through `any`). */
typedef struct {
    tensor_t t;
    dnnl_memory_t user, prim;
} arg_t;

/* An input holds v; an output is first filled with a value no case computes, so that an
 * element the primitive leaves unwritten shows. */
static arg_t make_arg(const tensor_t *t, const_dnnl_memory_desc_t prim_md, const float *v,
        dnnl_data_type_t store_as) {
    arg_t a;
    a.t = *t;
    dnnl_memory_desc_t umd = user_md(t);
    a.user = memory(umd);
    float *init = NULL;
    if (!v) {
        init = malloc(sizeof(float) * (size_t)t->nelems);
        for (int64_t i = 0; i < t->nelems; i++)
            init[i] = 99.f;
    }
    write_plain(a.user, t, store_as ? store_as : t->dt, v ? v : init);
    free(init);
    if (dnnl_memory_desc_equal(umd, prim_md)) {
        a.prim = a.user;
    } else {
        a.prim = memory(prim_md);
        reorder_into(a.user, a.prim);
    }
    CHECK(dnnl_memory_desc_destroy(umd));
    return a;
}

static void read_arg(const arg_t *a, float *v) {
    if (a->prim != a->user) reorder_into(a->prim, a->user);
    read_plain(a->user, &a->t, v);
}

static void free_arg(arg_t *a) {
    if (a->prim && a->prim != a->user) CHECK(dnnl_memory_destroy(a->prim));
    if (a->user) CHECK(dnnl_memory_destroy(a->user));
    a->prim = a->user = NULL;
}

/* ---- cases -------------------------------------------------------------------------- */

enum { CONV, DECONV };
/* What a case runs: forward training and inference, backward data, backward weights
 * without and with the bias gradient. */
enum { FWD_T = 1, FWD_I = 2, BWD_D = 4, BWD_W = 8, BWD_WB = 16 };
#define ALL_PROPS (FWD_T | FWD_I | BWD_D | BWD_W | BWD_WB)

typedef enum { PO_ELT = 1, PO_SUM, PO_BIN_CH, PO_BIN_FULL, PO_PRELU } po_kind_t;
typedef struct {
    po_kind_t kind;
    dnnl_alg_kind_t alg; /* PO_ELT: eltwise algorithm; PO_BIN_*: binary add or mul */
    float alpha, beta;   /* PO_ELT */
    float scale;         /* PO_SUM */
    int32_t zp;          /* PO_SUM */
    dnnl_data_type_t dt; /* PO_SUM: undef, or the type the old dst is read as */
} po_t;
#define ELT(a, al, be) {.kind = PO_ELT, .alg = (a), .alpha = (al), .beta = (be)}
#define SUM(s, z, t) {.kind = PO_SUM, .scale = (s), .zp = (z), .dt = (t)}
#define BIN_CH(a) {.kind = PO_BIN_CH, .alg = (a)}
#define BIN_FULL(a) {.kind = PO_BIN_FULL, .alg = (a)}
#define PRELU {.kind = PO_PRELU}
#define MAX_PO 6

typedef struct {
    const char *name;
    int kind, sp;           /* CONV or DECONV; spatial dimensions */
    int64_t mb, g, ic, oc;  /* the primitive's own IC and OC (totals over groups) */
    /* Per spatial dimension, outer to inner. x: spatial size of the wide side (conv src,
     * deconv dst); the narrow side's follows. */
    int64_t x[3], k[3], s[3], d[3], pl[3], pr[3];
    int props, bias;        /* bias: forward with a bias */
    int gpu;                /* the props a GPU engine runs (CONV_SWEEP_FULL=1: all) */
    int cl;                 /* channels last: nhwc user activations, hwio / hwigo weights */
    int any;                /* the primitive's src, weights and dst descriptors: `any` */
    int wgroups;            /* weights with the group dimension although g == 1 */
    int user_sp;            /* scratchpad mode user */
    dnnl_alg_kind_t alg;    /* 0: direct */
    /* Types: src (and diff_src), weights, dst (and diff_dst), bias (and diff_bias),
     * diff_weights; 0: f32 (diff_weights: the weights' type). */
    dnnl_data_type_t sdt, wdt, ddt, bdt, dwdt;
    int big;                /* int8 inputs near the types' limits (saturation) */
    float ssc, dsc;         /* src, dst scale (mask 0); 0: none */
    int wsc;                /* weights scale: 0 none, 1 per tensor, 2 per output channel */
    int32_t szp;            /* src zero point (mask 0); 0: none */
    int npo;
    po_t po[MAX_PO];
} case_t;

/* The geometry in the X / Y terms above, spatial dims padded to 3 (leading ones of size 1). */
typedef struct {
    int sp, deconv;
    int64_t mb, g, cx, cy, cxg, cyg;
    int64_t x[3], y[3], k[3], s[3], d[3], pl[3], pr[3];
    int64_t xs, ys, ks;
} geo_t;

static geo_t geometry(const case_t *c) {
    geo_t g;
    memset(&g, 0, sizeof g);
    g.sp = c->sp;
    g.deconv = c->kind == DECONV;
    g.mb = c->mb;
    g.g = c->g;
    g.cx = g.deconv ? c->oc : c->ic;
    g.cy = g.deconv ? c->ic : c->oc;
    g.cxg = g.cx / g.g;
    g.cyg = g.cy / g.g;
    g.xs = g.ys = g.ks = 1;
    for (int i = 0; i < 3; i++) {
        int j = i - (3 - c->sp); /* the case's index, or < 0 for a padding dimension */
        g.x[i] = j < 0 ? 1 : c->x[j];
        g.k[i] = j < 0 ? 1 : c->k[j];
        g.s[i] = j < 0 ? 1 : c->s[j];
        g.d[i] = j < 0 ? 0 : c->d[j];
        g.pl[i] = j < 0 ? 0 : c->pl[j];
        g.pr[i] = j < 0 ? 0 : c->pr[j];
        int64_t dk = 1 + (g.k[i] - 1) * (g.d[i] + 1);
        g.y[i] = (g.x[i] - dk + g.pl[i] + g.pr[i]) / g.s[i] + 1;
        g.xs *= g.x[i];
        g.ys *= g.y[i];
        g.ks *= g.k[i];
    }
    return g;
}

/* One term of the convolution sum: X element, Y element and weight (logical indices). */
typedef struct {
    int64_t x, y, w;
} term_t;

/* Every term: for each Y position and kernel position the X position it reads,
 * y * S + k * (D + 1) - PL, when that lies inside X (the padding contributes nothing). */
static term_t *terms(const geo_t *g, int64_t *count) {
    int64_t cap = g->mb * g->g * g->cyg * g->cxg * g->ys * g->ks, n = 0;
    term_t *t = malloc(sizeof(term_t) * (size_t)(cap > 0 ? cap : 1));
    for (int64_t mb = 0; mb < g->mb; mb++)
        for (int64_t gg = 0; gg < g->g; gg++)
            for (int64_t cyg = 0; cyg < g->cyg; cyg++)
                for (int64_t cxg = 0; cxg < g->cxg; cxg++)
                    for (int64_t yl = 0; yl < g->ys; yl++)
                        for (int64_t kl = 0; kl < g->ks; kl++) {
                            int64_t yp[3], kp[3], xl = 0, r = yl, q = kl, inside = 1;
                            for (int i = 2; i >= 0; i--) {
                                yp[i] = r % g->y[i];
                                r /= g->y[i];
                                kp[i] = q % g->k[i];
                                q /= g->k[i];
                            }
                            for (int i = 0; i < 3; i++) {
                                int64_t xi = yp[i] * g->s[i] + kp[i] * (g->d[i] + 1) - g->pl[i];
                                if (xi < 0 || xi >= g->x[i]) inside = 0;
                                xl = xl * g->x[i] + xi;
                            }
                            if (!inside) continue;
                            int64_t cx = gg * g->cxg + cxg, cy = gg * g->cyg + cyg;
                            t[n].x = (mb * g->cx + cx) * g->xs + xl;
                            t[n].y = (mb * g->cy + cy) * g->ys + yl;
                            t[n].w = (g->deconv ? (gg * g->cxg + cxg) * g->cyg + cyg
                                                : (gg * g->cyg + cyg) * g->cxg + cxg)
                                            * g->ks
                                    + kl;
                            n++;
                        }
    *count = n;
    return t;
}

/* ---- values ---------------------------------------------------------------------------- */

/* Deterministic values a type holds exactly: multiples of 1/8 in [-9/8, 1] for floating
 * point, small integers for int8, or values near the limits (big). */
static float *gen(int64_t n, dnnl_data_type_t dt, int big, uint64_t seed) {
    float *v = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    rng_seed(seed);
    for (int64_t i = 0; i < n; i++) {
        double r = rng_uniform();
        int64_t u = (int64_t)((r + 1) * 1000);
        if (dt == dnnl_u8)
            v[i] = big ? (float)(200 + u % 56) : (float)(u % 16);
        else if (dt == dnnl_s8)
            v[i] = big ? (float)((u & 1 ? 1 : -1) * (100 + u / 2 % 28)) : (float)(u % 15 - 7);
        else
            v[i] = (float)floor(r * 9) / 8.0f;
    }
    return v;
}

static const char *prop_name(int prop) {
    switch (prop) {
        case FWD_T: return "forward training";
        case FWD_I: return "forward inference";
        case BWD_D: return "backward data";
        case BWD_W: return "backward weights";
        default: return "backward weights + bias";
    }
}

/* The relative error a float case allows per unit of the terms' magnitude: an f32
 * accumulation of n terms, or the epsilon of f16 / bf16 where those are involved. */
static double rel_bound(const case_t *c, int64_t n) {
    double b = F32_EPS * (double)(n + 2);
    /* Winograd's transforms lose a few more bits. */
    if (c->alg == dnnl_convolution_winograd) b = 1.0 / 1024;
    dnnl_data_type_t dts[] = {c->sdt, c->wdt, c->ddt, c->dwdt};
    for (int i = 0; i < 4; i++) {
        if (dts[i] == dnnl_bf16 && b < 1.0 / 128) b = 1.0 / 128;
        if (dts[i] == dnnl_f16 && b < 1.0 / 1024) b = 1.0 / 1024;
    }
    return b;
}

/* The Lipschitz constant of an eltwise algorithm the cases use (how much an error in its
 * argument can grow). */
static double lipschitz(const po_t *p) {
    double a = fabs((double)p->alpha);
    switch (p->alg) {
        case dnnl_eltwise_relu:
        case dnnl_eltwise_elu: return a > 1 ? a : 1;
        case dnnl_eltwise_linear: return a;
        case dnnl_eltwise_tanh:
        case dnnl_eltwise_clip:
        case dnnl_eltwise_clip_v2:
        case dnnl_eltwise_logistic: return 1;
        default: return 2;
    }
}

static int piecewise_linear(dnnl_alg_kind_t alg) {
    return alg == dnnl_eltwise_relu || alg == dnnl_eltwise_linear || alg == dnnl_eltwise_clip
            || alg == dnnl_eltwise_clip_v2;
}

/* Compares an output with the reference: each element within its bound (integers exact
 * when the bound is 0). Prints up to three mismatches with their logical coordinates. */
static void compare(const char *what, const char *name, const tensor_t *t, const float *got,
        const double *want, const double *bound) {
    int64_t bad = 0;
    for (int64_t i = 0; i < t->nelems; i++) {
        if (matches(t->dt, got[i], want[i], bound[i])) continue;
        if (bad < 3) {
            char pos[128];
            int n = 0;
            int64_t r = i, p[DNNL_MAX_NDIMS];
            for (int d = t->ndims - 1; d >= 0; d--) {
                p[d] = r % t->dims[d];
                r /= t->dims[d];
            }
            for (int d = 0; d < t->ndims; d++)
                n += snprintf(pos + n, sizeof pos - (size_t)n, "%s%lld", d ? "," : "", (long long)p[d]);
            fflush(stdout);
            fprintf(stderr, "FAIL: %s: %s (%s) at (%s): got %.9g, want %.9g (bound %.3g)\n", what,
                    name, dnnl_dt2str(t->dt), pos, got[i], want[i], bound[i]);
        }
        bad++;
    }
    if (bad) {
        fail(what, "%s: %lld of %lld elements differ", name, (long long)bad, (long long)t->nelems);
    }
}

/* ---- one primitive ----------------------------------------------------------------- */

typedef struct {
    const case_t *c;
    geo_t g;
    term_t *terms;
    int64_t nterms;
    float *xv, *yv, *wv, *bv; /* X side, Y side, weights, bias (logical order) */
    float *old;               /* forward dst before a sum post-op */
    float *po_v[MAX_PO];      /* binary operands, prelu weights */
    float *wsc;               /* weights scales */
} data_t;

static const dnnl_dim_t *tail(const int64_t *a, int sp) { return (const dnnl_dim_t *)a + (3 - sp); }

static dnnl_status_t make_pd(dnnl_primitive_desc_t *pd, const data_t *v, int prop,
        dnnl_alg_kind_t alg, const_dnnl_memory_desc_t xmd, const_dnnl_memory_desc_t ymd,
        const_dnnl_memory_desc_t wmd, const_dnnl_memory_desc_t bmd,
        const_dnnl_primitive_desc_t hint, const_dnnl_primitive_attr_t attr) {
    const geo_t *g = &v->g;
    const dnnl_dim_t *s = tail(g->s, g->sp), *d = tail(g->d, g->sp);
    const dnnl_dim_t *pl = tail(g->pl, g->sp), *pr = tail(g->pr, g->sp);
    const_dnnl_memory_desc_t src = g->deconv ? ymd : xmd, dst = g->deconv ? xmd : ymd;
    if (prop == FWD_T || prop == FWD_I) {
        dnnl_prop_kind_t pk = prop == FWD_T ? dnnl_forward_training : dnnl_forward_inference;
        return g->deconv ? dnnl_deconvolution_forward_primitive_desc_create(
                                   pd, engine, pk, alg, src, wmd, bmd, dst, s, d, pl, pr, attr)
                         : dnnl_convolution_forward_primitive_desc_create(
                                   pd, engine, pk, alg, src, wmd, bmd, dst, s, d, pl, pr, attr);
    }
    if (prop == BWD_D)
        return g->deconv ? dnnl_deconvolution_backward_data_primitive_desc_create(
                                   pd, engine, alg, src, wmd, dst, s, d, pl, pr, hint, attr)
                         : dnnl_convolution_backward_data_primitive_desc_create(
                                   pd, engine, alg, src, wmd, dst, s, d, pl, pr, hint, attr);
    return g->deconv ? dnnl_deconvolution_backward_weights_primitive_desc_create(
                               pd, engine, alg, src, wmd, bmd, dst, s, d, pl, pr, hint, attr)
                     : dnnl_convolution_backward_weights_primitive_desc_create(
                               pd, engine, alg, src, wmd, bmd, dst, s, d, pl, pr, hint, attr);
}

/* A queried descriptor: the one asked for, or for `any` one of the same dims and type in
 * a blocked layout. */
static void check_md(const char *what, const char *name, const_dnnl_memory_desc_t got,
        const_dnnl_memory_desc_t asked, const tensor_t *t, int any) {
    if (!got) {
        fail(what, "no %s descriptor", name);
        return;
    }
    if (!any) {
        if (!dnnl_memory_desc_equal(got, asked)) fail(what, "the %s descriptor is not the one given", name);
        return;
    }
    int nd = 0;
    dnnl_data_type_t dt;
    dnnl_format_kind_t fk;
    const dnnl_dims_t *dims;
    CHECK(dnnl_memory_desc_query(got, dnnl_query_ndims_s32, &nd));
    CHECK(dnnl_memory_desc_query(got, dnnl_query_data_type, &dt));
    CHECK(dnnl_memory_desc_query(got, dnnl_query_format_kind, &fk));
    CHECK(dnnl_memory_desc_query(got, dnnl_query_dims, &dims));
    if (nd != t->ndims || dt != t->dt || fk != dnnl_blocked
            || memcmp(*dims, t->dims, sizeof(dnnl_dim_t) * (size_t)nd) != 0)
        fail(what, "the %s descriptor chosen for any: %d dims, type %s, format kind %d", name, nd,
                dnnl_dt2str(dt), (int)fk);
}

static void check_dims_query(const char *what, const_dnnl_primitive_desc_t pd, dnnl_query_t q,
        const char *name, const int64_t *want, int sp) {
    const dnnl_dims_t *p = NULL;
    dnnl_status_t st = dnnl_primitive_desc_query(pd, q, 0, &p);
    if (st != dnnl_success || !p) {
        fail(what, "query %s: %s", name, check_status_str(st));
        return;
    }
    for (int i = 0; i < sp; i++)
        if ((*p)[i] != want[3 - sp + i]) {
            fail(what, "query %s: [%d] is %lld, want %lld", name, i, (long long)(*p)[i],
                    (long long)want[3 - sp + i]);
            return;
        }
}

/* The queries every primitive answers. */
static void check_queries(const char *what, const_dnnl_primitive_desc_t pd, const data_t *v,
        int prop, dnnl_alg_kind_t alg, int n_inputs, int n_outputs) {
    dnnl_prop_kind_t pk = dnnl_prop_kind_undef;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_prop_kind, 0, &pk));
    dnnl_prop_kind_t want_pk = prop == FWD_T ? dnnl_forward_training
            : prop == FWD_I                  ? dnnl_forward_inference
            : prop == BWD_D                  ? dnnl_backward_data
                                             : dnnl_backward_weights;
    if (pk != want_pk) fail(what, "prop kind %s, want %s", dnnl_prop_kind2str(pk), dnnl_prop_kind2str(want_pk));
    dnnl_alg_kind_t ak = dnnl_alg_kind_undef;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_alg_kind, 0, &ak));
    /* convolution_auto resolves to an algorithm (upstream answers direct). */
    int alg_ok = alg == dnnl_convolution_auto ? ak == dnnl_convolution_direct || ak == dnnl_convolution_auto
                                              : ak == alg;
    if (!alg_ok) fail(what, "alg kind %s, want %s", dnnl_alg_kind2str(ak), dnnl_alg_kind2str(alg));
    check_dims_query(what, pd, dnnl_query_strides, "strides", v->g.s, v->g.sp);
    check_dims_query(what, pd, dnnl_query_dilations, "dilations", v->g.d, v->g.sp);
    check_dims_query(what, pd, dnnl_query_padding_l, "padding_l", v->g.pl, v->g.sp);
    check_dims_query(what, pd, dnnl_query_padding_r, "padding_r", v->g.pr, v->g.sp);
    int ni = dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0);
    int no = dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_outputs_s32, 0);
    if (ni != n_inputs || no != n_outputs)
        fail(what, "%d inputs and %d outputs, want %d and %d", ni, no, n_inputs, n_outputs);
    int64_t mem = -1;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_memory_consumption_s64, 0, &mem));
    if (mem < 0) fail(what, "memory consumption %lld", (long long)mem);
    const char *impl = NULL;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
    if (!impl || !impl[0]) fail(what, "empty impl info");
    /* The scratchpad: a descriptor (of size 0 in the library mode, where the library
     * owns it), the same by execution argument. */
    const_dnnl_memory_desc_t sp = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    if (!sp) fail(what, "no scratchpad descriptor");
    else if (!v->c->user_sp && dnnl_memory_desc_get_size(sp) != 0)
        fail(what, "a scratchpad of %zu bytes in the library mode", dnnl_memory_desc_get_size(sp));
    else if (!dnnl_memory_desc_equal(sp, dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_SCRATCHPAD)))
        fail(what, "the scratchpad descriptor differs by execution argument");
}

/* The forward attributes after the accumulation: scales, bias, post-ops, dst scale; on
 * want (in place) and bound. e: the dst element, c its channel. */
static void fwd_epilogue(const data_t *v, int64_t e, int64_t c, double *want, double *bound, int exact) {
    const case_t *cs = v->c;
    double w = *want, b = *bound;
    double sc = (cs->ssc ? cs->ssc : 1.0) * (cs->wsc ? v->wsc[cs->wsc == 1 ? 0 : c] : 1.0);
    w *= sc;
    b *= fabs(sc);
    if (cs->bias) w += v->bv[c];
    for (int k = 0; k < cs->npo; k++) {
        const po_t *p = &cs->po[k];
        double nw = w, own = 0;
        switch (p->kind) {
            case PO_ELT: {
                alg_t a = {p->alg, p->alpha, p->beta};
                nw = fwd_ref(a, (float)w);
                own = exact && piecewise_linear(p->alg) ? 0 : fwd_bound(a, (float)w, nw);
                b = b * lipschitz(p);
                break;
            }
            case PO_SUM: nw = w + p->scale * ((double)v->old[e] - p->zp); break;
            case PO_BIN_CH:
            case PO_BIN_FULL: {
                double s1 = v->po_v[k][p->kind == PO_BIN_CH ? c : e];
                nw = p->alg == dnnl_binary_add ? w + s1 : w * s1;
                if (p->alg == dnnl_binary_mul) b *= fabs(s1);
                break;
            }
            case PO_PRELU: {
                double a = v->po_v[k][c];
                nw = w > 0 ? w : a * w;
                b *= fabs(a) > 1 ? fabs(a) : 1;
                break;
            }
        }
        if (!exact) own += F32_EPS * fabs(nw);
        w = nw;
        b += own;
    }
    if (cs->dsc) {
        w /= cs->dsc;
        b /= cs->dsc;
    }
    *want = w;
    *bound = b;
}

static void run_prop(data_t *v, int prop) {
    const case_t *c = v->c;
    const geo_t *g = &v->g;
    char what[192];
    snprintf(what, sizeof what, "%s: %s", c->name, prop_name(prop));
    int fwd = prop == FWD_T || prop == FWD_I, bwd_w = prop == BWD_W || prop == BWD_WB;
    int with_bias = fwd ? c->bias : prop == BWD_WB;
    dnnl_alg_kind_t alg = c->alg ? c->alg : g->deconv ? dnnl_deconvolution_direct : dnnl_convolution_direct;
    dnnl_data_type_t sdt = c->sdt ? c->sdt : dnnl_f32, ddt = c->ddt ? c->ddt : dnnl_f32;
    dnnl_data_type_t wdt = c->wdt ? c->wdt : dnnl_f32, bdt = c->bdt ? c->bdt : dnnl_f32;
    if (bwd_w && c->dwdt) wdt = c->dwdt;
    int sp = g->sp, nd = sp + 2, wg = g->g > 1 || c->wgroups;

    /* Tensors, in the user's plain layouts. */
    static const char *act[2][3] = {{"abc", "abcd", "abcde"}, {"acb", "acdb", "acdeb"}};
    static const char *wei[2][2][3] = {{{"abc", "abcd", "abcde"}, {"cba", "cdba", "cdeba"}},
            {{"abcd", "abcde", "abcdef"}, {"dcab", "decab", "defcab"}}};
    dnnl_dims_t xd = {g->mb, g->cx}, yd = {g->mb, g->cy}, wd, bd = {g->deconv ? g->cx : g->cy};
    int w0 = 0;
    if (wg) wd[w0++] = g->g;
    wd[w0++] = g->deconv ? g->cxg : g->cyg; /* OC / G */
    wd[w0++] = g->deconv ? g->cyg : g->cxg; /* IC / G */
    for (int i = 0; i < sp; i++) {
        xd[2 + i] = g->x[3 - sp + i];
        yd[2 + i] = g->y[3 - sp + i];
        wd[w0 + i] = g->k[3 - sp + i];
    }
    tensor_t X = tensor(nd, xd, g->deconv ? ddt : sdt, act[c->cl][sp - 1]);
    tensor_t Y = tensor(nd, yd, g->deconv ? sdt : ddt, act[c->cl][sp - 1]);
    tensor_t W = tensor(nd + wg, wd, wdt, wei[wg][c->cl][sp - 1]);
    tensor_t B = tensor(1, bd, bdt, "a");
    dnnl_memory_desc_t xu = user_md(&X), yu = user_md(&Y), wu = user_md(&W), bu = user_md(&B);
    dnnl_memory_desc_t xa = md_tag(nd, xd, X.dt, dnnl_format_tag_any);
    dnnl_memory_desc_t ya = md_tag(nd, yd, Y.dt, dnnl_format_tag_any);
    dnnl_memory_desc_t wa = md_tag(nd + wg, wd, wdt, dnnl_format_tag_any);
    const_dnnl_memory_desc_t xmd = c->any ? xa : xu, ymd = c->any ? ya : yu, wmd = c->any ? wa : wu;

    /* Attributes. */
    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    if (c->user_sp) CHECK(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
    int64_t oc = fwd ? (g->deconv ? g->cx : g->cy) : 0;
    dnnl_dims_t dst_dims, ch_dims;
    memcpy(dst_dims, g->deconv ? xd : yd, sizeof dst_dims);
    for (int i = 0; i < nd; i++)
        ch_dims[i] = i == 1 ? oc : 1;
    int n_po_inputs = 0;
    if (fwd) {
        if (c->ssc) CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0));
        if (c->wsc) CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_WEIGHTS,
                c->wsc == 1 ? 0 : wg ? (1 << 0) | (1 << 1) : 1 << 0));
        if (c->dsc) CHECK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_DST, 0));
        if (c->szp) CHECK(dnnl_primitive_attr_set_zero_points_mask(attr, DNNL_ARG_SRC, 0));
        if (c->npo) {
            dnnl_post_ops_t ops = NULL;
            CHECK(dnnl_post_ops_create(&ops));
            for (int k = 0; k < c->npo; k++) {
                const po_t *p = &c->po[k];
                if (p->kind == PO_ELT) CHECK(dnnl_post_ops_append_eltwise(ops, p->alg, p->alpha, p->beta));
                if (p->kind == PO_SUM) CHECK(dnnl_post_ops_append_sum(ops, p->scale, p->zp, p->dt));
                if (p->kind == PO_PRELU) CHECK(dnnl_post_ops_append_prelu(ops, 1 << 1));
                if (p->kind == PO_BIN_CH || p->kind == PO_BIN_FULL) {
                    dnnl_memory_desc_t m = md_tag(nd, p->kind == PO_BIN_CH ? ch_dims : dst_dims,
                            dnnl_f32, tag_of(act[0][sp - 1]));
                    CHECK(dnnl_post_ops_append_binary(ops, p->alg, m));
                    CHECK(dnnl_memory_desc_destroy(m));
                }
                if (p->kind != PO_ELT && p->kind != PO_SUM) n_po_inputs++;
            }
            CHECK(dnnl_primitive_attr_set_post_ops(attr, ops));
            CHECK(dnnl_post_ops_destroy(ops));
        }
    }

    /* The forward primitive descriptor a backward one is hinted with. */
    dnnl_primitive_desc_t hint = NULL, pd = NULL;
    if (!fwd && make_pd(&hint, v, FWD_T, alg, xmd, ymd, wmd, with_bias ? bu : NULL, NULL, NULL)
                    != dnnl_success)
        hint = NULL;
    dnnl_status_t st = make_pd(&pd, v, prop, alg, xmd, ymd, wmd, with_bias ? bu : NULL, hint, attr);
    int winograd = alg == dnnl_convolution_winograd;
    if (winograd) printf("note: %s: convolution_winograd: %s\n", what, check_status_str(st));
    if ((winograd && st == dnnl_unimplemented) || reference_lacks(st, what)) {
        if (!winograd) n_skipped++;
        goto out;
    }
    if (st != dnnl_success) {
        fail(what, "primitive descriptor creation returned %s", check_status_str(st));
        goto out;
    }
    n_run++;

    /* Queries. */
    const_dnnl_memory_desc_t qx, qy, qw, qb;
    dnnl_query_t q_src = fwd || bwd_w ? dnnl_query_src_md : dnnl_query_diff_src_md;
    dnnl_query_t q_dst = fwd ? dnnl_query_dst_md : dnnl_query_diff_dst_md;
    dnnl_query_t q_w = bwd_w ? dnnl_query_diff_weights_md : dnnl_query_weights_md;
    int a_src = fwd || bwd_w ? DNNL_ARG_SRC : DNNL_ARG_DIFF_SRC;
    int a_dst = fwd ? DNNL_ARG_DST : DNNL_ARG_DIFF_DST;
    int a_w = bwd_w ? DNNL_ARG_DIFF_WEIGHTS : DNNL_ARG_WEIGHTS;
    int a_b = bwd_w ? DNNL_ARG_DIFF_BIAS : DNNL_ARG_BIAS;
    const_dnnl_memory_desc_t qsrc = dnnl_primitive_desc_query_md(pd, q_src, 0);
    const_dnnl_memory_desc_t qdst = dnnl_primitive_desc_query_md(pd, q_dst, 0);
    qw = dnnl_primitive_desc_query_md(pd, q_w, 0);
    qb = dnnl_primitive_desc_query_md(pd, q_w, 1);
    qx = g->deconv ? qdst : qsrc;
    qy = g->deconv ? qsrc : qdst;
    check_md(what, "X-side", qx, xmd, &X, c->any);
    check_md(what, "Y-side", qy, ymd, &Y, c->any);
    check_md(what, "weights", qw, wmd, &W, c->any);
    if (with_bias) check_md(what, "bias", qb, bu, &B, 0);
    else if (qb && dnnl_memory_desc_get_size(qb) != 0)
        fail(what, "a bias descriptor without a bias");
    if (!dnnl_memory_desc_equal(qsrc, dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, a_src))
            || !dnnl_memory_desc_equal(qdst, dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, a_dst))
            || !dnnl_memory_desc_equal(qw, dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, a_w))
            || (with_bias && !dnnl_memory_desc_equal(qb, dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, a_b))))
        fail(what, "a descriptor by execution argument differs from the one by query");
    check_queries(what, pd, v, prop, alg, fwd ? 2 + with_bias + n_po_inputs : 2, bwd_w ? 1 + with_bias : 1);

    /* Memories are made from the descriptors by execution argument (equal to the ones by
     * query above, or a failure was counted), so that the results are still checked. */
    qsrc = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, a_src);
    qdst = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, a_dst);
    qw = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, a_w);
    qb = with_bias ? dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, a_b) : NULL;
    qx = g->deconv ? qdst : qsrc;
    qy = g->deconv ? qsrc : qdst;
    {
        const_dnnl_memory_desc_t need[] = {qx, qy, qw, with_bias ? qb : qx};
        for (int i = 0; i < 4; i++)
            if (!need[i] || dnnl_memory_desc_get_size(need[i]) == 0) {
                fail(what, "an argument's descriptor is empty: not executed");
                goto out;
            }
    }

    /* Memories and execution. */
    {
        arg_t ax = {0}, ay = {0}, aw = {0}, ab = {0}, apo[MAX_PO];
        memset(apo, 0, sizeof apo);
        dnnl_memory_t extra[8] = {0};
        int nextra = 0;
        dnnl_exec_arg_t args[24];
        int nargs = 0;
        /* Inputs: fwd the src side; bwd_d the diff_dst side; bwd_w both. */
        int x_in = g->deconv ? prop == BWD_D || bwd_w : fwd || bwd_w;
        int y_in = g->deconv ? fwd || bwd_w : prop == BWD_D || bwd_w;
        int sum_po = -1;
        for (int k = 0; k < c->npo; k++)
            if (fwd && c->po[k].kind == PO_SUM) sum_po = k;
        const float *x_init = x_in ? v->xv : NULL, *y_init = y_in ? v->yv : NULL;
        dnnl_data_type_t sum_as = sum_po >= 0 ? c->po[sum_po].dt : dnnl_data_type_undef;
        if (sum_po >= 0 && g->deconv) x_init = v->old;
        if (sum_po >= 0 && !g->deconv) y_init = v->old;
        ax = make_arg(&X, qx, x_init, g->deconv ? sum_as : 0);
        ay = make_arg(&Y, qy, y_init, g->deconv ? 0 : sum_as);
        aw = make_arg(&W, qw, bwd_w ? NULL : v->wv, 0);
        if (with_bias) ab = make_arg(&B, qb, bwd_w ? NULL : v->bv, 0);
        args[nargs++] = (dnnl_exec_arg_t){g->deconv ? a_dst : a_src, ax.prim};
        args[nargs++] = (dnnl_exec_arg_t){g->deconv ? a_src : a_dst, ay.prim};
        args[nargs++] = (dnnl_exec_arg_t){a_w, aw.prim};
        if (with_bias) args[nargs++] = (dnnl_exec_arg_t){a_b, ab.prim};
        if (fwd) {
            dnnl_dims_t one = {1}, ocd = {oc};
            float ssc = c->ssc, dsc = c->dsc, szp = (float)c->szp;
            struct {
                int on, arg;
                const float *val;
                int64_t n;
                dnnl_data_type_t dt;
            } q[] = {{c->ssc != 0, DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, &ssc, 1, dnnl_f32},
                    {c->wsc != 0, DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, v->wsc, c->wsc == 1 ? 1 : oc, dnnl_f32},
                    {c->dsc != 0, DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, &dsc, 1, dnnl_f32},
                    {c->szp != 0, DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, &szp, 1, dnnl_s32}};
            for (size_t i = 0; i < sizeof q / sizeof *q; i++) {
                if (!q[i].on) continue;
                tensor_t t = tensor(1, q[i].n == 1 ? one : ocd, q[i].dt, "a");
                dnnl_memory_desc_t m = user_md(&t);
                extra[nextra] = memory(m);
                write_plain(extra[nextra], &t, q[i].dt, q[i].val);
                args[nargs++] = (dnnl_exec_arg_t){q[i].arg, extra[nextra++]};
                CHECK(dnnl_memory_desc_destroy(m));
            }
            for (int k = 0; k < c->npo; k++) {
                po_kind_t kind = c->po[k].kind;
                if (kind == PO_ELT || kind == PO_SUM) continue;
                tensor_t t = tensor(nd, kind == PO_BIN_FULL ? dst_dims : ch_dims, dnnl_f32, act[0][sp - 1]);
                dnnl_memory_desc_t m = user_md(&t);
                apo[k] = make_arg(&t, m, v->po_v[k], 0);
                int arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(k) | (kind == PO_PRELU ? DNNL_ARG_WEIGHTS : DNNL_ARG_SRC_1);
                /* A binary operand's descriptor is the one given (upstream answers prelu
                 * weights with the zero descriptor). */
                const_dnnl_memory_desc_t qm = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
                if (kind != PO_PRELU && (!qm || !dnnl_memory_desc_equal(qm, m)))
                    fail(what, "post-op %d: the operand's descriptor by execution argument", k);
                args[nargs++] = (dnnl_exec_arg_t){arg, apo[k].prim};
                CHECK(dnnl_memory_desc_destroy(m));
            }
        }
        if (c->user_sp) {
            const_dnnl_memory_desc_t spmd = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
            if (spmd && dnnl_memory_desc_get_size(spmd) > 0) {
                extra[nextra] = memory(spmd);
                args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, extra[nextra++]};
            }
        }
        dnnl_primitive_t p = NULL;
        st = dnnl_primitive_create(&p, pd);
        /* Ours checks execution arguments: a user scratchpad must be given (upstream
         * does not check; the primitive would write through a NULL buffer). */
        if (st == dnnl_success && library_is_ours() && args[nargs - 1].arg == DNNL_ARG_SCRATCHPAD) {
            dnnl_status_t none = dnnl_primitive_execute(p, stream, nargs - 1, args);
            if (none != dnnl_invalid_arguments)
                fail(what, "execution without its user scratchpad returned %s", check_status_str(none));
        }
        if (st == dnnl_success) st = dnnl_primitive_execute(p, stream, nargs, args);
        if (st == dnnl_success) st = dnnl_stream_wait(stream);
        if (p) CHECK(dnnl_primitive_destroy(p));
        if (st != dnnl_success) {
            fail(what, "primitive creation or execution returned %s", check_status_str(st));
        } else {
            /* The reference. */
            int exact = is_int_dt(sdt);
            const tensor_t *ot = bwd_w ? &W : (g->deconv == fwd) ? &X : &Y;
            int64_t n = ot->nelems;
            double *want = calloc((size_t)n, sizeof(double)), *mag = calloc((size_t)n, sizeof(double));
            int64_t *cnt = calloc((size_t)n, sizeof(int64_t));
            float *xs = v->xv, *ys = v->yv, *shifted = NULL;
            if (fwd && c->szp) {
                /* The zero point shifts the src elements; the padding stays 0. */
                const float *src = g->deconv ? v->yv : v->xv;
                int64_t ns = g->deconv ? Y.nelems : X.nelems;
                shifted = malloc(sizeof(float) * (size_t)ns);
                for (int64_t i = 0; i < ns; i++)
                    shifted[i] = src[i] - (float)c->szp;
                if (g->deconv) ys = shifted;
                else xs = shifted;
            }
            for (int64_t i = 0; i < v->nterms; i++) {
                const term_t *t = &v->terms[i];
                double pr;
                int64_t o;
                if (bwd_w) {
                    pr = (double)xs[t->x] * ys[t->y];
                    o = t->w;
                } else if (ot == &Y) { /* gather */
                    pr = (double)xs[t->x] * v->wv[t->w];
                    o = t->y;
                } else { /* scatter */
                    pr = (double)ys[t->y] * v->wv[t->w];
                    o = t->x;
                }
                want[o] += pr;
                mag[o] += fabs(pr);
                cnt[o]++;
            }
            double *bound = calloc((size_t)n, sizeof(double));
            int64_t sp_size = ot == &X ? g->xs : g->ys, chans = ot == &X ? g->cx : g->cy;
            for (int64_t e = 0; e < n && !bwd_w; e++) {
                int64_t ch = e / sp_size % chans;
                bound[e] = exact ? 0 : rel_bound(c, cnt[e]) * (mag[e] + (with_bias ? fabs(v->bv[ch]) : 0));
                if (fwd) fwd_epilogue(v, e, ch, &want[e], &bound[e], exact);
            }
            for (int64_t e = 0; e < n && bwd_w; e++)
                bound[e] = rel_bound(c, cnt[e]) * mag[e];
            float *got = malloc(sizeof(float) * (size_t)n);
            read_arg(bwd_w ? &aw : ot == &X ? &ax : &ay, got);
            const char *oname = bwd_w ? "diff_weights" : fwd ? "dst" : "diff_src";
            compare(what, oname, ot, got, want, bound);
            if (c->big) {
                /* The case must reach the limits of the destination type. */
                int64_t sat = 0;
                for (int64_t e = 0; e < n; e++)
                    sat += nearbyint(want[e]) != saturate(ot->dt, want[e]);
                if (!sat) fail(what, "no element saturates (the case is meant to)");
            }
            if (prop == BWD_WB) {
                /* diff_bias: the sum of diff_dst over the minibatch and space. */
                const float *dd = g->deconv ? v->xv : v->yv;
                int64_t ns = g->deconv ? g->xs : g->ys, nc = g->deconv ? g->cx : g->cy;
                double *bw = calloc((size_t)nc, sizeof(double)), *bb = calloc((size_t)nc, sizeof(double));
                for (int64_t mb = 0; mb < g->mb; mb++)
                    for (int64_t ch = 0; ch < nc; ch++)
                        for (int64_t s = 0; s < ns; s++) {
                            double d = dd[(mb * nc + ch) * ns + s];
                            bw[ch] += d;
                            bb[ch] += fabs(d);
                        }
                for (int64_t ch = 0; ch < nc; ch++)
                    bb[ch] *= rel_bound(c, g->mb * ns);
                float *gb = malloc(sizeof(float) * (size_t)nc);
                read_arg(&ab, gb);
                compare(what, "diff_bias", &B, gb, bw, bb);
                free(gb);
                free(bw);
                free(bb);
            }
            free(got);
            free(bound);
            free(shifted);
            free(cnt);
            free(want);
            free(mag);
        }
        free_arg(&ax);
        free_arg(&ay);
        free_arg(&aw);
        free_arg(&ab);
        for (int k = 0; k < MAX_PO; k++)
            free_arg(&apo[k]);
        for (int i = 0; i < nextra; i++)
            CHECK(dnnl_memory_destroy(extra[i]));
    }

out:
    if (pd) CHECK(dnnl_primitive_desc_destroy(pd));
    if (hint) CHECK(dnnl_primitive_desc_destroy(hint));
    CHECK(dnnl_primitive_attr_destroy(attr));
    dnnl_memory_desc_t mds[] = {xu, yu, wu, bu, xa, ya, wa};
    for (int i = 0; i < 7; i++)
        CHECK(dnnl_memory_desc_destroy(mds[i]));
}

static void run_case(const case_t *c, uint64_t seed) {
    data_t v;
    memset(&v, 0, sizeof v);
    v.c = c;
    v.g = geometry(c);
    const geo_t *g = &v.g;
    EXPECT(g->cx % g->g == 0 && g->cy % g->g == 0);
    for (int i = 0; i < 3; i++)
        EXPECT(g->y[i] > 0);
    v.terms = terms(g, &v.nterms);
    dnnl_data_type_t sdt = c->sdt ? c->sdt : dnnl_f32, ddt = c->ddt ? c->ddt : dnnl_f32;
    dnnl_data_type_t wdt = c->wdt ? c->wdt : dnnl_f32;
    int64_t nx = g->mb * g->cx * g->xs, ny = g->mb * g->cy * g->ys;
    int64_t nw = g->g * g->cxg * g->cyg * g->ks, ndst = g->deconv ? nx : ny;
    int64_t oc = g->deconv ? g->cx : g->cy;
    /* X and Y: src values on the src side, diff_dst values (of the dst type) on the other. */
    v.xv = gen(nx, g->deconv ? ddt : sdt, c->big, seed * 16 + 1);
    v.yv = gen(ny, g->deconv ? sdt : ddt, c->big, seed * 16 + 2);
    v.wv = gen(nw, wdt, c->big, seed * 16 + 3);
    for (int64_t i = 0; i < nw && s7 && wdt == dnnl_s8; i++) v.wv[i] = (float)s7_of_s8((int)v.wv[i]);
    v.bv = gen(oc, dnnl_f32, 0, seed * 16 + 4);
    for (int k = 0; k < c->npo; k++) {
        const po_t *p = &c->po[k];
        if (p->kind == PO_SUM) {
            v.old = gen(ndst, p->dt ? p->dt : ddt, 0, seed * 16 + 5);
        } else if (p->kind == PO_BIN_CH || p->kind == PO_BIN_FULL) {
            v.po_v[k] = gen(p->kind == PO_BIN_CH ? oc : ndst, dnnl_f32, 0, seed * 16 + 6 + (uint64_t)k);
        } else if (p->kind == PO_PRELU) {
            v.po_v[k] = malloc(sizeof(float) * (size_t)oc);
            for (int64_t i = 0; i < oc; i++)
                v.po_v[k][i] = (float)((i % 5) - 2) / 4.0f; /* -1/2 .. 1/2 */
        }
    }
    v.wsc = malloc(sizeof(float) * (size_t)oc);
    for (int64_t i = 0; i < oc; i++)
        v.wsc[i] = c->wsc == 2 ? ldexpf(1.0f, (int)(i % 4) - 2) : 0.25f; /* 1/4 .. 2 */
    static const int props[] = {FWD_T, FWD_I, BWD_D, BWD_W, BWD_WB};
    int run = on_gpu && !full ? c->gpu : c->props;
    for (size_t i = 0; i < sizeof props / sizeof *props; i++)
        if (run & props[i]) run_prop(&v, props[i]);
    free(v.terms);
    free(v.xv);
    free(v.yv);
    free(v.wv);
    free(v.bv);
    free(v.old);
    free(v.wsc);
    for (int k = 0; k < MAX_PO; k++)
        free(v.po_v[k]);
}

/* Geometries used by several cases. */
#define G_2D .sp = 2, .mb = 2, .g = 1, .ic = 3, .oc = 5, .x = {7, 9}, .k = {3, 3}, .s = {1, 1}, \
             .pl = {1, 1}, .pr = {1, 1}
#define G_2D_S2 .sp = 2, .mb = 2, .g = 1, .ic = 4, .oc = 6, .x = {9, 10}, .k = {3, 2}, \
                .s = {2, 3}, .pl = {1, 0}, .pr = {2, 1}
#define G_2D_G2 .sp = 2, .mb = 2, .g = 2, .ic = 4, .oc = 6, .x = {6, 7}, .k = {3, 3}, \
                .s = {2, 2}, .pl = {1, 1}, .pr = {1, 0}
#define G_DE_2D .sp = 2, .mb = 2, .g = 1, .ic = 3, .oc = 5, .x = {7, 9}, .k = {3, 3}, \
                .s = {2, 2}, .pl = {1, 1}, .pr = {1, 1}

static const case_t cases[] = {
        /* ---- convolution, f32: geometry and layouts ---- */
        {"conv 2d 3x3 pad 1 nchw", CONV, G_2D, .props = ALL_PROPS, .gpu = FWD_T | BWD_D | BWD_WB, .bias = 1},
        {"conv 2d stride 2x3 asymmetric padding, last window partial, nhwc hwio", CONV, G_2D_S2,
                .props = ALL_PROPS, .gpu = FWD_I, .bias = 1, .cl = 1},
        {"conv 2d dilation 1x2 any", CONV, .sp = 2, .mb = 2, .g = 1, .ic = 3, .oc = 4, .x = {8, 7},
                .k = {3, 2}, .s = {1, 2}, .d = {1, 2}, .pl = {2, 0}, .pr = {1, 3}, .props = ALL_PROPS,
                .bias = 1, .any = 1, .user_sp = 1},
        {"conv 1d stride 2 dilation 1 ncw", CONV, .sp = 1, .mb = 2, .g = 1, .ic = 3, .oc = 5,
                .x = {11}, .k = {3}, .s = {2}, .d = {1}, .pl = {1}, .pr = {0}, .props = ALL_PROPS,
                .bias = 1},
        {"conv 1d nwc wio any", CONV, .sp = 1, .mb = 3, .g = 1, .ic = 5, .oc = 2, .x = {6},
                .k = {4}, .s = {1}, .pl = {0}, .pr = {2}, .props = FWD_T | BWD_D | BWD_WB, .cl = 1,
                .any = 1, .bias = 1},
        {"conv 3d ncdhw", CONV, .sp = 3, .mb = 1, .g = 1, .ic = 2, .oc = 3, .x = {4, 5, 6},
                .k = {2, 3, 3}, .s = {1, 2, 1}, .d = {0, 0, 1}, .pl = {0, 1, 2}, .pr = {1, 1, 0},
                .props = ALL_PROPS, .gpu = BWD_WB, .bias = 1},
        {"conv 3d ndhwc dhwio any", CONV, .sp = 3, .mb = 2, .g = 1, .ic = 3, .oc = 2,
                .x = {3, 4, 5}, .k = {1, 2, 3}, .s = {2, 1, 2}, .d = {1, 0, 0}, .pl = {0, 0, 1},
                .pr = {0, 1, 1}, .props = FWD_T | BWD_D | BWD_WB, .bias = 1, .cl = 1, .any = 1},
        {"conv 2d groups 2 goihw", CONV, G_2D_G2, .props = ALL_PROPS, .bias = 1},
        {"conv 2d groups 3 nhwc hwigo", CONV, .sp = 2, .mb = 2, .g = 3, .ic = 6, .oc = 9,
                .x = {5, 5}, .k = {2, 3}, .s = {1, 1}, .d = {1, 0}, .pl = {0, 1}, .pr = {1, 1},
                .props = ALL_PROPS, .gpu = BWD_D, .cl = 1},
        {"conv 2d groups 3 any", CONV, .sp = 2, .mb = 1, .g = 3, .ic = 3, .oc = 6, .x = {6, 5},
                .k = {3, 3}, .s = {2, 1}, .pl = {1, 1}, .pr = {1, 1}, .props = FWD_T | BWD_D | BWD_WB,
                .bias = 1, .any = 1},
        {"conv 2d depthwise", CONV, .sp = 2, .mb = 2, .g = 5, .ic = 5, .oc = 5, .x = {7, 6},
                .k = {3, 3}, .s = {1, 2}, .pl = {1, 1}, .pr = {1, 1}, .props = ALL_PROPS, .bias = 1},
        {"conv 1d depthwise nwc any", CONV, .sp = 1, .mb = 2, .g = 4, .ic = 4, .oc = 4, .x = {9},
                .k = {5}, .s = {2}, .pl = {2}, .pr = {2}, .props = FWD_T | BWD_D | BWD_WB, .bias = 1,
                .cl = 1, .any = 1},
        {"conv 2d g == 1 with 5-d weights", CONV, G_2D, .props = FWD_T | BWD_D | BWD_W, .wgroups = 1},
        {"conv 2d 1x1 stride 2, unread last column", CONV, .sp = 2, .mb = 2, .g = 1, .ic = 5,
                .oc = 3, .x = {5, 6}, .k = {1, 1}, .s = {2, 2}, .props = ALL_PROPS, .bias = 1,
                .cl = 1},
        {"conv 2d kernel as large as the input", CONV, .sp = 2, .mb = 3, .g = 1, .ic = 2, .oc = 3,
                .x = {3, 4}, .k = {3, 4}, .s = {1, 1}, .props = ALL_PROPS, .bias = 1},
        {"conv 2d windows wholly in the padding", CONV, .sp = 2, .mb = 1, .g = 1, .ic = 2, .oc = 3,
                .x = {4, 4}, .k = {2, 2}, .s = {1, 1}, .pl = {2, 3}, .pr = {2, 0}, .props = ALL_PROPS,
                .bias = 1},
        /* ---- deconvolution, f32 ---- */
        {"deconv 2d stride 2 nchw", DECONV, G_DE_2D, .props = ALL_PROPS, .gpu = FWD_T, .bias = 1},
        {"deconv 2d stride 3x2 dilation, uncovered rows, nhwc hwio", DECONV, .sp = 2, .mb = 2,
                .g = 1, .ic = 4, .oc = 3, .x = {10, 9}, .k = {2, 3}, .s = {3, 2}, .d = {1, 0},
                .pl = {0, 1}, .pr = {1, 0}, .props = ALL_PROPS, .gpu = FWD_T, .bias = 1, .cl = 1},
        {"deconv 1d stride 3 any", DECONV, .sp = 1, .mb = 2, .g = 1, .ic = 5, .oc = 3, .x = {12},
                .k = {4}, .s = {3}, .pl = {1}, .pr = {2}, .props = FWD_T | BWD_D | BWD_WB, .bias = 1,
                .any = 1, .user_sp = 1},
        {"deconv 3d ncdhw", DECONV, .sp = 3, .mb = 1, .g = 1, .ic = 2, .oc = 3, .x = {5, 4, 6},
                .k = {3, 2, 2}, .s = {2, 1, 2}, .pl = {1, 0, 0}, .pr = {1, 1, 0}, .props = ALL_PROPS,
                .bias = 1},
        {"deconv 2d groups 2 any", DECONV, .sp = 2, .mb = 2, .g = 2, .ic = 4, .oc = 6,
                .x = {8, 7}, .k = {3, 3}, .s = {2, 2}, .pl = {1, 1}, .pr = {0, 1},
                .props = FWD_T | BWD_D | BWD_WB, .gpu = BWD_WB, .bias = 1, .any = 1},
        {"deconv 2d groups 3 (IC 6, OC 3) goihw", DECONV, .sp = 2, .mb = 1, .g = 3, .ic = 6,
                .oc = 3, .x = {5, 6}, .k = {2, 2}, .s = {1, 2}, .pl = {0, 0}, .pr = {0, 0},
                .props = ALL_PROPS, .bias = 1},
        {"deconv 2d depthwise nhwc", DECONV, .sp = 2, .mb = 2, .g = 3, .ic = 3, .oc = 3,
                .x = {6, 6}, .k = {2, 2}, .s = {2, 2}, .props = ALL_PROPS, .bias = 1, .cl = 1},
        /* ---- f16 and bf16 ---- */
        {"conv 2d bf16", CONV, G_2D, .props = ALL_PROPS, .gpu = FWD_T, .bias = 1, .sdt = dnnl_bf16,
                .wdt = dnnl_bf16, .ddt = dnnl_bf16},
        {"conv 2d bf16 -> f32, any", CONV, G_2D_S2, .props = FWD_I, .bias = 1, .any = 1, .cl = 1,
                .sdt = dnnl_bf16, .wdt = dnnl_bf16},
        {"conv 2d bf16, f32 diff_weights, any", CONV, G_2D_S2, .props = BWD_WB, .any = 1,
                .cl = 1, .sdt = dnnl_bf16, .wdt = dnnl_bf16, .ddt = dnnl_bf16, .dwdt = dnnl_f32},
        {"conv 2d f16", CONV, G_2D, .props = ALL_PROPS, .gpu = FWD_T, .bias = 1, .sdt = dnnl_f16,
                .wdt = dnnl_f16, .ddt = dnnl_f16},
        {"conv 2d f16 groups any", CONV, G_2D_G2, .props = FWD_T | BWD_D | BWD_WB, .bias = 1,
                .any = 1, .sdt = dnnl_f16, .wdt = dnnl_f16, .ddt = dnnl_f16},
        {"deconv 2d bf16", DECONV, G_DE_2D, .props = ALL_PROPS, .bias = 1, .sdt = dnnl_bf16,
                .wdt = dnnl_bf16, .ddt = dnnl_bf16},
        {"deconv 2d f16", DECONV, G_DE_2D, .props = FWD_T | BWD_D | BWD_WB, .bias = 1,
                .sdt = dnnl_f16, .wdt = dnnl_f16, .ddt = dnnl_f16},
        /* ---- int8: forward only ---- */
        {"conv int8 u8 s8 -> s32", CONV, G_2D_S2, .props = FWD_I, .bias = 1, .cl = 1,
                .sdt = dnnl_u8, .wdt = dnnl_s8, .ddt = dnnl_s32},
        {"conv int8 u8 s8 -> f32, scales per oc, src zero point", CONV, G_2D, .props = FWD_T,
                .bias = 1, .cl = 1, .sdt = dnnl_u8, .wdt = dnnl_s8, .ddt = dnnl_f32, .ssc = 0.5f,
                .wsc = 2, .szp = 3},
        {"conv int8 s8 s8 -> s8, scales per tensor, relu", CONV, G_2D, .props = FWD_I, .bias = 1,
                .cl = 1, .sdt = dnnl_s8, .wdt = dnnl_s8, .ddt = dnnl_s8, .ssc = 0.5f, .wsc = 1,
                .dsc = 2.0f, .npo = 1, .po = {ELT(dnnl_eltwise_relu, 0.25f, 0)}},
        {"conv int8 u8 s8 -> u8, groups, scales per oc, zero point, any", CONV, G_2D_G2,
                .props = FWD_I, .gpu = FWD_I, .bias = 1, .any = 1, .sdt = dnnl_u8, .wdt = dnnl_s8,
                .ddt = dnnl_u8, .ssc = 0.25f, .wsc = 2, .dsc = 0.5f, .szp = 5},
        {"conv int8 s8 s8 -> bf16 depthwise", CONV, .sp = 2, .mb = 2, .g = 5, .ic = 5, .oc = 5,
                .x = {7, 6}, .k = {3, 3}, .s = {1, 2}, .pl = {1, 1}, .pr = {1, 1}, .props = FWD_I,
                .bias = 1, .cl = 1, .sdt = dnnl_s8, .wdt = dnnl_s8, .ddt = dnnl_bf16, .ssc = 0.5f,
                .wsc = 2},
        {"conv int8 u8 s8 -> s8 saturating", CONV, G_2D, .props = FWD_I, .cl = 1, .sdt = dnnl_u8,
                .wdt = dnnl_s8, .ddt = dnnl_s8, .big = 1},
        {"conv int8 u8 s8 -> u8 saturating, any, scales", CONV, G_2D_S2, .props = FWD_I, .any = 1,
                .sdt = dnnl_u8, .wdt = dnnl_s8, .ddt = dnnl_u8, .big = 1, .ssc = 0.5f, .wsc = 1,
                .dsc = 4.0f},
        {"conv int8 u8 s8 -> s8, sum as u8 with a zero point", CONV, G_2D, .props = FWD_I, .gpu = FWD_I,
                .bias = 1, .cl = 1, .sdt = dnnl_u8, .wdt = dnnl_s8, .ddt = dnnl_s8, .ssc = 0.5f,
                .wsc = 2, .dsc = 2.0f, .npo = 2,
                .po = {SUM(0.5f, 3, dnnl_u8), ELT(dnnl_eltwise_relu, 0.5f, 0)}},
        {"deconv int8 u8 s8 -> s8, scales per oc, zero point", DECONV, G_DE_2D, .props = FWD_I,
                .bias = 1, .cl = 1, .sdt = dnnl_u8, .wdt = dnnl_s8, .ddt = dnnl_s8, .ssc = 0.5f,
                .wsc = 2, .dsc = 0.5f, .szp = 2},
        {"deconv int8 s8 s8 -> f32 groups", DECONV, .sp = 2, .mb = 2, .g = 2, .ic = 4, .oc = 6,
                .x = {8, 7}, .k = {3, 3}, .s = {2, 2}, .pl = {1, 1}, .pr = {0, 1}, .props = FWD_I,
                .bias = 1, .cl = 1, .sdt = dnnl_s8, .wdt = dnnl_s8, .ddt = dnnl_f32, .wsc = 2},
        /* ---- post-ops (forward) ---- */
        {"conv post-op relu alpha", CONV, G_2D, .props = FWD_T, .bias = 1, .npo = 1,
                .po = {ELT(dnnl_eltwise_relu, 0.25f, 0)}},
        {"conv post-op tanh, no bias", CONV, G_2D_S2, .props = FWD_I, .cl = 1, .npo = 1,
                .po = {ELT(dnnl_eltwise_tanh, 0, 0)}},
        {"conv post-op clip", CONV, G_2D, .props = FWD_T, .bias = 1, .any = 1, .npo = 1,
                .po = {ELT(dnnl_eltwise_clip, -0.5f, 0.75f)}},
        {"conv post-op sum", CONV, G_2D_S2, .props = FWD_T, .bias = 1, .cl = 1, .npo = 1,
                .po = {SUM(0.5f, 0, dnnl_data_type_undef)}},
        {"conv post-op binary add per channel", CONV, G_2D, .props = FWD_T, .bias = 1, .npo = 1,
                .po = {BIN_CH(dnnl_binary_add)}},
        {"conv post-op binary mul full tensor", CONV, G_2D_S2, .props = FWD_T, .cl = 1, .npo = 1,
                .po = {BIN_FULL(dnnl_binary_mul)}},
        {"conv post-op prelu per channel", CONV, G_2D_G2, .props = FWD_T, .bias = 1, .npo = 1,
                .po = {PRELU}},
        {"conv post-op chain, any", CONV, G_2D, .props = FWD_T, .gpu = FWD_T, .bias = 1, .any = 1, .user_sp = 1,
                .npo = 6,
                .po = {ELT(dnnl_eltwise_linear, 2.0f, 0.5f), SUM(0.5f, 0, dnnl_data_type_undef),
                        BIN_CH(dnnl_binary_mul), PRELU, BIN_FULL(dnnl_binary_add),
                        ELT(dnnl_eltwise_elu, 0.5f, 0)}},
        {"conv 3d post-op chain", CONV, .sp = 3, .mb = 1, .g = 1, .ic = 2, .oc = 3,
                .x = {4, 5, 6}, .k = {2, 3, 3}, .s = {1, 2, 1}, .d = {0, 0, 1}, .pl = {0, 1, 2},
                .pr = {1, 1, 0}, .props = FWD_I, .cl = 1, .npo = 3,
                .po = {BIN_CH(dnnl_binary_add), ELT(dnnl_eltwise_logistic, 0, 0),
                        BIN_FULL(dnnl_binary_mul)}},
        {"deconv post-op chain", DECONV, G_DE_2D, .props = FWD_T, .gpu = FWD_T, .bias = 1, .cl = 1, .npo = 4,
                .po = {SUM(1.0f, 0, dnnl_data_type_undef), BIN_CH(dnnl_binary_add),
                        ELT(dnnl_eltwise_tanh, 0, 0), PRELU}},
        /* ---- algorithms ---- */
        {"conv 2d convolution_auto", CONV, G_2D, .props = FWD_T | BWD_D | BWD_WB, .bias = 1,
                .alg = dnnl_convolution_auto},
};

/* convolution_winograd: whatever the library answers, success or unimplemented, and
 * with success results as close as Winograd's transforms allow. */
static void winograd(void) {
    case_t c = {"conv 2d convolution_winograd", CONV, .sp = 2, .mb = 1, .g = 1, .ic = 16, .oc = 16,
            .x = {6, 6}, .k = {3, 3}, .s = {1, 1}, .pl = {1, 1}, .pr = {1, 1}, .props = FWD_I,
            .bias = 1, .any = 1, .alg = dnnl_convolution_winograd};
    run_case(&c, 999);
}

int main(int argc, char **argv) {
    /* Level Zero runs get no argument (dnnl_ze_test), but ONEDNN_GPU_RUNTIME=ze. */
    const char *rt = getenv("ONEDNN_GPU_RUNTIME");
    where = argc > 1 ? argv[1] : rt && strcmp(rt, "ze") == 0 ? "ze" : "cpu";
    on_gpu = strcmp(where, "cpu") != 0;
    const char *f = getenv("CONV_SWEEP_FULL");
    full = f && strcmp(f, "1") == 0;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0)
        SKIP(strcmp(where, "ze") == 0 ? "no Level Zero device" : "no OpenCL device");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
    s7 = reference_saturates_int8();

    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        run_case(&cases[i], i + 1);
    winograd();

    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    printf("conv_sweep on %s%s: %d primitives run, %d skipped (unimplemented by this library), "
           "%d failures\n",
            where, on_gpu && !full ? " (the GPU subset; CONV_SWEEP_FULL=1 runs all)" : "", n_run,
            n_skipped, failures);
    return failures ? 1 : 0;
}
