/* The recurrent primitives (dnnl_{vanilla_rnn,lstm,gru,lbr_gru,augru,lbr_augru}_*)
 * through the official API, compared with a reference computed here in double straight
 * from the equations of doc/primitives/rnn.md:
 *   - cells: vanilla RNN (relu with a slope, tanh, logistic), LSTM with and without
 *     peephole and projection, GRU, linear-before-reset GRU, AUGRU, LBR-AUGRU;
 *   - directions left2right, right2left, bidirectional concat and sum (each direction a
 *     stack of its own through all layers; the last layer's outputs concatenated or
 *     summed into dst_layer); 1 to 3 layers, 1 to 5 iterations, odd sizes;
 *   - src_iter, src_iter_c, dst_iter, dst_iter_c and the bias present and absent;
 *   - forward inference and training, backward (every diff_* output, against the
 *     reference's hand-written gradients, themselves checked once by central finite
 *     differences in double); diff_weights_* and diff_bias accumulate across backward
 *     runs unless dnnl_rnn_flags_diff_weights_overwrite is set (as Intel's library does);
 *   - layouts: tnc and ntc data, ldigo / ldio / ldgo weights placed by this file's own
 *     offset function, and `any`, filled and read back through reorders;
 *   - f32; bf16 (bias and cell state f32); f16 forward (everything f16; Intel's CPU
 *     library has none without AVX512-FP16: its run skips those cases; over 12 steps the
 *     outputs within one f16 step of the reference, which keeps the states in f16 as the
 *     library must: unrounded states drift past that); int8 LSTM, LSTMP
 *     and GRU inference (u8 data and iteration states, s8 weights; rnn data scale and
 *     shift, weights and projection scales per tensor and per channel; dst_layer u8 or
 *     f32; src_iter absent);
 *   - queries: every argument's descriptor (by exec_arg_md), the workspace, prop kind,
 *     cell kind, direction, activation kind, alpha, beta, flags, impl info.
 *
 * Where Intel's library departs from rnn.md, the test says so in a `note:` line:
 *   - its AUGRU / LBR-AUGRU backward is not the gradient of its forward: both libraries
 *     are checked against its formulas, the drop-in behaviour (AUGRU_BACKWARD_AS_UPSTREAM;
 *     0 checks them against the true gradient, which the finite differences verify);
 *   - its left-to-right backward without src_iter takes h_0 for h_{-1} in
 *     diff_weights_iter, and its u8 bidirectional sum adds the data shift twice: the @ref
 *     run skips those cases (case_t's upstream_bug), this library is checked against
 *     rnn.md.
 *
 * On this library, while it answers dnnl_unimplemented to the very first creation, the
 * test prints `SKIP: rnn not implemented by this library` and exits 77. A case Intel's
 * library (the @ref run) answers dnnl_unimplemented for is skipped with a
 * `note: <case>: unimplemented by this library` line and counted; on ours every case
 * after the first creation must run. Each failure names its case; the last line says
 * how many cases ran and how many were skipped.
 *
 * Usage: rnn_sweep [cpu|gpu]. On a GPU engine without a device: skip (77). A GPU engine
 * runs a representative subset (each case's `gpu`: every cell, each direction, layers,
 * absent states, peephole with projection, `any`, ntc, bf16, f16, int8), since each new shape
 * there costs program builds; RNN_SWEEP_FULL=1 runs every case. RNN_SWEEP_ONLY=<text>
 * runs the cases whose name holds it; RNN_SWEEP_VERBOSE=1 prints each check's margin. */
#include <stdarg.h>

#include "prim_util.h"

static int on_gpu, n_run, n_skipped, failures, created_once;
static int verbose;

/* prim_util.h's helpers this test does not call (static: unused ones warn). */
static inline void unused_helpers(void) {
    (void)fill;
    (void)read_back;
    (void)layout_of;
    (void)offset_of;
    (void)rounded;
    (void)matches;
    (void)md_strides;
    (void)expect_tag;
    (void)plain_twin;
    (void)through_plain;
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

/* A tensor in a plain user layout: logical dims, and the order of the dimensions in
 * memory, outer to inner, as format tag letters (tnc "abc", ntc "bac", ldnc "abcd",
 * ldigo "abcde", ldgoi "abdec", ldgo / ldio "abcd", ldoi "abdc"). */
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
        {"abc", dnnl_abc}, {"bac", dnnl_bac}, {"abcd", dnnl_abcd}, {"abdc", dnnl_abdc},
        {"abcde", dnnl_abcde}, {"abdec", dnnl_abdec},
};

static dnnl_format_tag_t tag_of(const char *letters) {
    for (size_t i = 0; i < sizeof plain_tags / sizeof *plain_tags; i++)
        if (strcmp(plain_tags[i].letters, letters) == 0) return plain_tags[i].tag;
    fprintf(stderr, "rnn_sweep: no format tag for %s\n", letters);
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

static void write_plain(dnnl_memory_t m, const tensor_t *t, const float *v) {
    const_dnnl_memory_desc_t md;
    CHECK(dnnl_memory_get_memory_desc(m, &md));
    size_t bytes = (size_t)t->nelems * dt_size(t->dt);
    EXPECT(dnnl_memory_desc_get_size(md) == bytes);
    void *p = NULL;
    CHECK(dnnl_memory_map_data(m, &p));
    for (int64_t i = 0; i < t->nelems; i++)
        store(t->dt, p, plain_offset(t, i), v[i]);
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

/* A plain memory holding v (or, for an output without v, a value no case computes, so
 * that an element the primitive leaves unwritten shows), and the primitive's memory of
 * prim_md, a reorder of it where the layouts differ. */
static arg_t make_arg(const tensor_t *t, const_dnnl_memory_desc_t prim_md, const float *v) {
    arg_t a;
    a.t = *t;
    dnnl_memory_desc_t umd = user_md(t);
    a.user = memory(umd);
    float *init = NULL;
    if (!v) {
        init = malloc(sizeof(float) * (size_t)t->nelems);
        for (int64_t i = 0; i < t->nelems; i++)
            init[i] = is_int_dt(t->dt) ? 77.f : 99.f;
    }
    write_plain(a.user, t, v ? v : init);
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

enum { VANILLA, LSTM, GRU, LBR_GRU, AUGRU, LBR_AUGRU };
static const char *cell_names[] = {"vanilla_rnn", "lstm", "gru", "lbr_gru", "augru", "lbr_augru"};
static const dnnl_alg_kind_t cell_algs[] = {dnnl_vanilla_rnn, dnnl_vanilla_lstm, dnnl_vanilla_gru,
        dnnl_lbr_gru, dnnl_vanilla_augru, dnnl_lbr_augru};
/* What a case runs: forward inference, forward training, backward. */
enum { INF = 1, TRAIN = 2, BWD = 4 };
#define ALL_PROPS (INF | TRAIN | BWD)

typedef struct {
    const char *name;
    int cell;
    dnnl_alg_kind_t act; /* vanilla: relu, tanh or logistic */
    float alpha, beta;
    dnnl_rnn_direction_t dir;
    int L, T, N, SLC, DHC, DIC; /* DIC: the projection's size (0: no projection) */
    int SIC; /* src_iter's channels where they differ from DIC (T = 1 only) */
    int peephole;
    int no_src_iter, no_src_iter_c, no_dst_iter, no_dst_iter_c, no_bias;
    int props;
    int ntc;   /* src_layer / dst_layer in ntc rather than tnc */
    int any;   /* every descriptor of the primitive `any` */
    int ldgoi; /* backward weights given as ldgoi (and projection as ldoi) */
    dnnl_data_type_t dt; /* f32 (undef), bf16, f16 or u8 (int8 inference) */
    dnnl_data_type_t dst_dt; /* int8: u8 or f32 dst_layer (dst_iter is u8) */
    int wmask; /* int8: 0 per tensor, else per gate and channel (mask 24) */
    int f16_steps; /* f16: dst_layer and dst_iter within one f16 step of the reference */
    int accumulate; /* backward twice without the overwrite flag, then with it */
    /* What Intel's library gets wrong in this case's backward: the @ref run skips the
     * backward, saying so (this library runs it) */
    const char *upstream_bug;
    int upstream_bug_forward; /* the bug is the forward's: the @ref run skips the case */
    int gpu; /* in the GPU subset */
} case_t;

/* ---- the reference, in double ----------------------------------------------------------- */

/* 1: the AUGRU backward of both libraries is checked against Intel's formulas (see
 * geo_t's augru_as_upstream), 0: against the gradient of rnn.md's forward. */
#define AUGRU_BACKWARD_AS_UPSTREAM 1

/* Sizes of a case: G gates, Gb bias gates (LBR: one more), D directions, DIC the output
 * (and recurrent) channels, DLC dst_layer's channels. */
typedef struct {
    int cell, L, D, T, N, SLC, SIC, DHC, DIC, DLC, G, Gb, peephole, proj;
    int dir; /* dnnl_rnn_direction_t */
    int has_src_iter, has_src_iter_c, has_bias, has_attn;
    dnnl_alg_kind_t act;
    double alpha;
    /* int8: h is stored quantized (u8 = round(scale * h + shift)), and read back
     * dequantized; bf16 / f16: h is stored in that type. */
    dnnl_data_type_t state_dt;
    double qscale, qshift;
    /* The backward of Intel's library for AUGRU and LBR-AUGRU is not the gradient of
     * its forward: it takes u for ũ = (1 - a) * u in the gradients of h_{t-1} and of
     * the o gate, and multiplies the attention's by one more u * (1 - u). With this set
     * the reference computes those formulas (AUGRU_BACKWARD_AS_UPSTREAM). */
    int augru_as_upstream;
} geo_t;

static int64_t n_src_layer(const geo_t *g) { return (int64_t)g->T * g->N * g->SLC; }
static int64_t n_src_iter(const geo_t *g) { return (int64_t)g->L * g->D * g->N * g->SIC; }
static int64_t n_state_c(const geo_t *g) { return (int64_t)g->L * g->D * g->N * g->DHC; }
static int64_t n_wl(const geo_t *g) { return (int64_t)g->L * g->D * g->SLC * g->G * g->DHC; }
static int64_t n_wi(const geo_t *g) { return (int64_t)g->L * g->D * g->SIC * g->G * g->DHC; }
static int64_t n_wp(const geo_t *g) { return (int64_t)g->L * g->D * 3 * g->DHC; }
static int64_t n_wr(const geo_t *g) { return (int64_t)g->L * g->D * g->DHC * g->DIC; }
static int64_t n_bias(const geo_t *g) { return (int64_t)g->L * g->D * g->Gb * g->DHC; }
static int64_t n_attn(const geo_t *g) { return (int64_t)g->T * g->N; }
static int64_t n_dst_layer(const geo_t *g) { return (int64_t)g->T * g->N * g->DLC; }
static int64_t n_dst_iter(const geo_t *g) { return (int64_t)g->L * g->D * g->N * g->DIC; }

/* The inputs (logical row-major, as in rnn.md's shapes) and outputs of a run. */
typedef struct {
    double *src_layer, *src_iter, *src_iter_c, *wl, *wi, *wp, *wr, *bias, *attn;
    double *dst_layer, *dst_iter, *dst_iter_c;
    /* per cell (l, d, t, n): the layer's output h, cell state c, activated gates,
     * LBR's U_o h + b_u', LSTM's tanh(c) * o before the projection */
    double *H, *C, *gates, *nh, *m;
    double max_terms; /* the largest sum of |terms| of a gate's pre-activation */
} ref_t;

/* Gradients: of src_layer, src_iter, src_iter_c, the weights, bias and attention. */
typedef struct {
    double *src_layer, *src_iter, *src_iter_c, *wl, *wi, *wp, *wr, *bias, *attn;
} grads_t;

#define SL(t, n, c) (((int64_t)(t) * g->N + (n)) * g->SLC + (c))
#define SI(l, d, n, c) ((((int64_t)(l) * g->D + (d)) * g->N + (n)) * g->SIC + (c))
#define SC(l, d, n, c) ((((int64_t)(l) * g->D + (d)) * g->N + (n)) * g->DHC + (c))
#define WL(l, d, i, q, o) (((((int64_t)(l) * g->D + (d)) * g->SLC + (i)) * g->G + (q)) * g->DHC + (o))
#define WI(l, d, i, q, o) (((((int64_t)(l) * g->D + (d)) * g->SIC + (i)) * g->G + (q)) * g->DHC + (o))
#define WP(l, d, q, o) ((((int64_t)(l) * g->D + (d)) * 3 + (q)) * g->DHC + (o))
#define WR(l, d, j, k) ((((int64_t)(l) * g->D + (d)) * g->DHC + (j)) * g->DIC + (k))
#define BI(l, d, q, o) ((((int64_t)(l) * g->D + (d)) * g->Gb + (q)) * g->DHC + (o))
#define DL(t, n, c) (((int64_t)(t) * g->N + (n)) * g->DLC + (c))
#define DI(l, d, n, c) ((((int64_t)(l) * g->D + (d)) * g->N + (n)) * g->DIC + (c))
/* per cell state */
#define CELL(l, d, t, n) ((((int64_t)(l) * g->D + (d)) * g->T + (t)) * g->N + (n))

static double sigm(double x) { return 1.0 / (1.0 + exp(-x)); }

static double act_f(const geo_t *g, double a) {
    switch (g->act) {
        case dnnl_eltwise_relu: return a > 0 ? a : g->alpha * a;
        case dnnl_eltwise_logistic: return sigm(a);
        default: return tanh(a);
    }
}

static double act_df(const geo_t *g, double a) {
    switch (g->act) {
        case dnnl_eltwise_relu: return a > 0 ? 1.0 : g->alpha;
        case dnnl_eltwise_logistic: return sigm(a) * (1 - sigm(a));
        default: return 1 - tanh(a) * tanh(a);
    }
}

/* The value a stored state takes: quantized and dequantized (int8), or rounded to the
 * state's type (bf16, f16). */
static double store_state(const geo_t *g, double h) {
    if (g->state_dt == dnnl_u8) {
        double q = saturate(dnnl_u8, g->qscale * h + g->qshift);
        return (q - g->qshift) / g->qscale;
    }
    if (g->state_dt == dnnl_bf16 || g->state_dt == dnnl_f16) return rounded(g->state_dt, (float)h);
    return h;
}

/* Does direction slot d run right to left? */
static int r2l(const geo_t *g, int d) {
    return g->dir == dnnl_unidirectional_right2left || (g->D == 2 && d == 1);
}

static double *dalloc(int64_t n) { return calloc((size_t)(n > 0 ? n : 1), sizeof(double)); }

static void ref_alloc(const geo_t *g, ref_t *r) {
    int64_t cells = (int64_t)g->L * g->D * g->T * g->N;
    r->dst_layer = dalloc(n_dst_layer(g));
    r->dst_iter = dalloc(n_dst_iter(g));
    r->dst_iter_c = dalloc(n_state_c(g));
    r->H = dalloc(cells * g->DIC);
    r->C = dalloc(cells * g->DHC);
    r->gates = dalloc(cells * g->G * g->DHC);
    r->nh = dalloc(cells * g->DHC);
    r->m = dalloc(cells * g->DHC);
}

static void ref_free_outputs(ref_t *r) {
    double **p[] = {&r->dst_layer, &r->dst_iter, &r->dst_iter_c, &r->H, &r->C, &r->gates, &r->nh, &r->m};
    for (size_t i = 0; i < sizeof p / sizeof *p; i++) {
        free(*p[i]);
        *p[i] = NULL;
    }
}

/* The forward pass: fills r's outputs and saved states from its inputs. */
static void ref_forward(const geo_t *g, ref_t *r) {
    int G = g->G, H = g->DHC;
    double *acc = dalloc(G * H), *accx = dalloc(G * H), *terms = dalloc(G * H);
    r->max_terms = 0;
    for (int d = 0; d < g->D; d++)
        for (int l = 0; l < g->L; l++)
            for (int s = 0; s < g->T; s++) {
                int t = r2l(g, d) ? g->T - 1 - s : s;
                int tp = r2l(g, d) ? t + 1 : t - 1;
                int cin = l == 0 ? g->SLC : g->DIC;
                for (int n = 0; n < g->N; n++) {
                    const double *x = l == 0 ? &r->src_layer[SL(t, n, 0)] : &r->H[CELL(l - 1, d, t, n) * g->DIC];
                    double zero[64] = {0};
                    const double *hp = s > 0 ? &r->H[CELL(l, d, tp, n) * g->DIC]
                            : g->has_src_iter ? &r->src_iter[SI(l, d, n, 0)] : zero;
                    const double *cp = s > 0 ? &r->C[CELL(l, d, tp, n) * H]
                            : g->has_src_iter_c ? &r->src_iter_c[SC(l, d, n, 0)] : zero;
                    for (int q = 0; q < G; q++)
                        for (int o = 0; o < H; o++) {
                            double b = g->has_bias ? r->bias[BI(l, d, q, o)] : 0, sx = b, sh = 0, ax = fabs(b), ah = 0;
                            for (int i = 0; i < cin; i++) {
                                sx += x[i] * r->wl[WL(l, d, i, q, o)];
                                ax += fabs(x[i] * r->wl[WL(l, d, i, q, o)]);
                            }
                            for (int i = 0; i < g->SIC; i++) {
                                sh += hp[i] * r->wi[WI(l, d, i, q, o)];
                                ah += fabs(hp[i] * r->wi[WI(l, d, i, q, o)]);
                            }
                            accx[q * H + o] = sx;
                            acc[q * H + o] = sx + sh;
                            terms[q * H + o] = ax + ah;
                            if (ax + ah > r->max_terms) r->max_terms = ax + ah;
                        }
                    int64_t cell = CELL(l, d, t, n);
                    double *gt = &r->gates[cell * G * H], *h = &r->H[cell * g->DIC], *c = &r->C[cell * H];
                    double hv[64];
                    switch (g->cell) {
                        case VANILLA:
                            for (int o = 0; o < H; o++) {
                                gt[o] = acc[o];
                                hv[o] = act_f(g, acc[o]);
                            }
                            break;
                        case LSTM:
                            for (int o = 0; o < H; o++) {
                                double pi = g->peephole ? r->wp[WP(l, d, 0, o)] * cp[o] : 0;
                                double pf = g->peephole ? r->wp[WP(l, d, 1, o)] * cp[o] : 0;
                                double i_ = sigm(acc[0 * H + o] + pi), f_ = sigm(acc[1 * H + o] + pf);
                                double c_ = tanh(acc[2 * H + o]);
                                c[o] = f_ * cp[o] + i_ * c_;
                                double po = g->peephole ? r->wp[WP(l, d, 2, o)] * c[o] : 0;
                                double o_ = sigm(acc[3 * H + o] + po);
                                gt[0 * H + o] = i_;
                                gt[1 * H + o] = f_;
                                gt[2 * H + o] = c_;
                                gt[3 * H + o] = o_;
                                /* int8 LSTMP: the projection's GEMM takes the cell output
                                 * quantized as the states are (both libraries) */
                                r->m[cell * H + o] = g->proj ? store_state(g, tanh(c[o]) * o_) : tanh(c[o]) * o_;
                            }
                            if (g->proj) {
                                for (int k = 0; k < g->DIC; k++) {
                                    double s2 = 0;
                                    for (int j = 0; j < H; j++)
                                        s2 += r->wr[WR(l, d, j, k)] * r->m[cell * H + j];
                                    hv[k] = s2;
                                }
                            } else {
                                for (int o = 0; o < H; o++)
                                    hv[o] = r->m[cell * H + o];
                            }
                            break;
                        default: { /* the GRU family */
                            int lbr = g->cell == LBR_GRU || g->cell == LBR_AUGRU;
                            double a = g->has_attn ? r->attn[t * g->N + n] : 0;
                            for (int o = 0; o < H; o++) {
                                gt[0 * H + o] = sigm(acc[0 * H + o]);
                                gt[1 * H + o] = sigm(acc[1 * H + o]);
                            }
                            for (int o = 0; o < H; o++) {
                                double pre = accx[2 * H + o];
                                if (lbr) {
                                    double nh = g->has_bias ? r->bias[BI(l, d, 3, o)] : 0, an = fabs(nh);
                                    for (int i = 0; i < g->SIC; i++) {
                                        nh += hp[i] * r->wi[WI(l, d, i, 2, o)];
                                        an += fabs(hp[i] * r->wi[WI(l, d, i, 2, o)]);
                                    }
                                    r->nh[cell * H + o] = nh;
                                    pre += gt[1 * H + o] * nh;
                                    if (terms[2 * H + o] + an > r->max_terms) r->max_terms = terms[2 * H + o] + an;
                                } else {
                                    for (int i = 0; i < g->SIC; i++)
                                        pre += gt[1 * H + i] * hp[i] * r->wi[WI(l, d, i, 2, o)];
                                }
                                double o_ = tanh(pre);
                                gt[2 * H + o] = o_;
                                double ut = (1 - a) * gt[0 * H + o];
                                hv[o] = ut * hp[o] + (1 - ut) * o_;
                            }
                            break;
                        }
                    }
                    for (int k = 0; k < g->DIC; k++)
                        h[k] = store_state(g, hv[k]);
                }
            }
    /* dst_layer from the last layer; dst_iter / dst_iter_c from each stack's last step */
    for (int t = 0; t < g->T; t++)
        for (int n = 0; n < g->N; n++)
            for (int k = 0; k < g->DIC; k++) {
                double h0 = r->H[CELL(g->L - 1, 0, t, n) * g->DIC + k];
                if (g->D == 1) {
                    r->dst_layer[DL(t, n, k)] = h0;
                } else {
                    double h1 = r->H[CELL(g->L - 1, 1, t, n) * g->DIC + k];
                    if (g->dir == dnnl_bidirectional_concat) {
                        r->dst_layer[DL(t, n, k)] = h0;
                        r->dst_layer[DL(t, n, g->DIC + k)] = h1;
                    } else {
                        r->dst_layer[DL(t, n, k)] = store_state(g, h0 + h1);
                    }
                }
            }
    for (int l = 0; l < g->L; l++)
        for (int d = 0; d < g->D; d++) {
            int tl = r2l(g, d) ? 0 : g->T - 1;
            for (int n = 0; n < g->N; n++) {
                for (int k = 0; k < g->DIC; k++)
                    r->dst_iter[DI(l, d, n, k)] = r->H[CELL(l, d, tl, n) * g->DIC + k];
                for (int o = 0; o < g->DHC; o++)
                    r->dst_iter_c[SC(l, d, n, o)] = r->C[CELL(l, d, tl, n) * g->DHC + o];
            }
        }
    free(acc);
    free(accx);
    free(terms);
}

static void grads_alloc(const geo_t *g, grads_t *gr) {
    gr->src_layer = dalloc(n_src_layer(g));
    gr->src_iter = dalloc(n_src_iter(g));
    gr->src_iter_c = dalloc(n_state_c(g));
    gr->wl = dalloc(n_wl(g));
    gr->wi = dalloc(n_wi(g));
    gr->wp = dalloc(n_wp(g));
    gr->wr = dalloc(n_wr(g));
    gr->bias = dalloc(n_bias(g));
    gr->attn = dalloc(n_attn(g));
}

static void grads_free(grads_t *gr) {
    double **p[] = {&gr->src_layer, &gr->src_iter, &gr->src_iter_c, &gr->wl, &gr->wi, &gr->wp, &gr->wr,
            &gr->bias, &gr->attn};
    for (size_t i = 0; i < sizeof p / sizeof *p; i++) {
        free(*p[i]);
        *p[i] = NULL;
    }
}

/* The backward pass, written by hand from the forward: the gradients of
 *   J = sum(dd_layer * dst_layer) + sum(dd_iter * dst_iter) + sum(dd_iter_c * dst_iter_c)
 * with respect to every input, from r's saved states (ref_forward ran). */
static void ref_backward(const geo_t *g, const ref_t *r, const double *dd_layer, const double *dd_iter,
        const double *dd_iter_c, grads_t *gr) {
    int G = g->G, H = g->DHC, DIC = g->DIC, cin_max = g->SLC > DIC ? g->SLC : DIC;
    int DW = g->SIC > DIC ? g->SIC : DIC; /* h's gradient: DIC wide, SIC at the first step */
    double *dup = dalloc((int64_t)g->T * g->N * cin_max), *dx = dalloc((int64_t)g->T * g->N * cin_max);
    double *dh = dalloc((int64_t)g->N * DW), *dc = dalloc((int64_t)g->N * H);
    double *da = dalloc(G * H);
    for (int d = 0; d < g->D; d++) {
        /* the gradient reaching the last layer's outputs */
        for (int t = 0; t < g->T; t++)
            for (int n = 0; n < g->N; n++)
                for (int k = 0; k < DIC; k++) {
                    int col = g->dir == dnnl_bidirectional_concat ? d * DIC + k : k;
                    dup[((int64_t)t * g->N + n) * DIC + k] = dd_layer[DL(t, n, col)];
                }
        for (int l = g->L - 1; l >= 0; l--) {
            int cin = l == 0 ? g->SLC : DIC;
            memset(dx, 0, sizeof(double) * (size_t)g->T * g->N * cin_max);
            for (int n = 0; n < g->N; n++) {
                for (int k = 0; k < DIC; k++)
                    dh[n * DW + k] = dd_iter ? dd_iter[DI(l, d, n, k)] : 0;
                for (int o = 0; o < H; o++)
                    dc[n * H + o] = dd_iter_c ? dd_iter_c[SC(l, d, n, o)] : 0;
            }
            for (int s = g->T - 1; s >= 0; s--) {
                int t = r2l(g, d) ? g->T - 1 - s : s;
                int tp = r2l(g, d) ? t + 1 : t - 1;
                for (int n = 0; n < g->N; n++) {
                    int64_t cell = CELL(l, d, t, n);
                    const double *x = l == 0 ? &r->src_layer[SL(t, n, 0)] : &r->H[CELL(l - 1, d, t, n) * DIC];
                    double zero[64] = {0};
                    const double *hp = s > 0 ? &r->H[CELL(l, d, tp, n) * DIC]
                            : g->has_src_iter ? &r->src_iter[SI(l, d, n, 0)] : zero;
                    const double *cp = s > 0 ? &r->C[CELL(l, d, tp, n) * H]
                            : g->has_src_iter_c ? &r->src_iter_c[SC(l, d, n, 0)] : zero;
                    const double *gt = &r->gates[cell * G * H];
                    double dhv[64], dhp[64] = {0}, dcp[64] = {0};
                    for (int k = 0; k < DIC; k++)
                        dhv[k] = dh[n * DW + k] + dup[((int64_t)t * g->N + n) * DIC + k];
                    switch (g->cell) {
                        case VANILLA:
                            for (int o = 0; o < H; o++)
                                da[o] = dhv[o] * act_df(g, gt[o]);
                            break;
                        case LSTM: {
                            const double *c = &r->C[cell * H], *m = &r->m[cell * H];
                            double dm[64];
                            if (g->proj) {
                                for (int j = 0; j < H; j++) {
                                    double s2 = 0;
                                    for (int k = 0; k < DIC; k++) {
                                        s2 += r->wr[WR(l, d, j, k)] * dhv[k];
                                        gr->wr[WR(l, d, j, k)] += m[j] * dhv[k];
                                    }
                                    dm[j] = s2;
                                }
                            } else {
                                for (int j = 0; j < H; j++)
                                    dm[j] = dhv[j];
                            }
                            for (int o = 0; o < H; o++) {
                                double i_ = gt[o], f_ = gt[H + o], c_ = gt[2 * H + o], o_ = gt[3 * H + o];
                                double tc = tanh(c[o]);
                                double dao = dm[o] * tc * o_ * (1 - o_);
                                double dct = dc[n * H + o] + dm[o] * o_ * (1 - tc * tc);
                                if (g->peephole) {
                                    dct += r->wp[WP(l, d, 2, o)] * dao;
                                    gr->wp[WP(l, d, 2, o)] += dao * c[o];
                                }
                                double dai = dct * c_ * i_ * (1 - i_);
                                double daf = dct * cp[o] * f_ * (1 - f_);
                                double dag = dct * i_ * (1 - c_ * c_);
                                dcp[o] = dct * f_;
                                if (g->peephole) {
                                    dcp[o] += r->wp[WP(l, d, 0, o)] * dai + r->wp[WP(l, d, 1, o)] * daf;
                                    gr->wp[WP(l, d, 0, o)] += dai * cp[o];
                                    gr->wp[WP(l, d, 1, o)] += daf * cp[o];
                                }
                                da[o] = dai;
                                da[H + o] = daf;
                                da[2 * H + o] = dag;
                                da[3 * H + o] = dao;
                            }
                            break;
                        }
                        default: { /* the GRU family */
                            int lbr = g->cell == LBR_GRU || g->cell == LBR_AUGRU;
                            double a = g->has_attn ? r->attn[t * g->N + n] : 0, datt = 0;
                            double drh[64] = {0};
                            for (int o = 0; o < H; o++) {
                                double u = gt[o], o_ = gt[2 * H + o], ut = (1 - a) * u;
                                double dut = dhv[o] * (hp[o] - o_);
                                /* Intel's library (as_upstream): u where the forward
                                 * has ũ, and one more u(1 - u) in the attention's */
                                double uh = g->augru_as_upstream ? u : ut;
                                dhp[o] += dhv[o] * uh;
                                datt -= g->augru_as_upstream ? dut * u * u * (1 - u) : dut * u;
                                da[o] = dut * (1 - a) * u * (1 - u);
                                da[2 * H + o] = dhv[o] * (1 - uh) * (1 - o_ * o_);
                            }
                            if (g->has_attn) gr->attn[t * g->N + n] += datt;
                            if (lbr) {
                                for (int o = 0; o < H; o++) {
                                    double rr = gt[H + o], dao = da[2 * H + o];
                                    da[H + o] = dao * r->nh[cell * H + o] * rr * (1 - rr);
                                    double dnh = dao * rr;
                                    if (g->has_bias) gr->bias[BI(l, d, 3, o)] += dnh;
                                    for (int i = 0; i < g->SIC; i++) {
                                        dhp[i] += r->wi[WI(l, d, i, 2, o)] * dnh;
                                        gr->wi[WI(l, d, i, 2, o)] += hp[i] * dnh;
                                    }
                                }
                            } else {
                                for (int i = 0; i < g->SIC; i++) {
                                    double rr = gt[H + i];
                                    for (int o = 0; o < H; o++) {
                                        drh[i] += r->wi[WI(l, d, i, 2, o)] * da[2 * H + o];
                                        gr->wi[WI(l, d, i, 2, o)] += rr * hp[i] * da[2 * H + o];
                                    }
                                    dhp[i] += drh[i] * rr;
                                    da[H + i] = drh[i] * hp[i] * rr * (1 - rr);
                                }
                            }
                            break;
                        }
                    }
                    /* the gates' pre-activations back to x, h_prev and the weights;
                     * the GRU family's o gate went through its own U_o path above */
                    int gru = g->cell >= GRU;
                    for (int q = 0; q < G; q++)
                        for (int o = 0; o < H; o++) {
                            double dq = da[q * H + o];
                            if (g->has_bias) gr->bias[BI(l, d, q, o)] += dq;
                            for (int i = 0; i < cin; i++) {
                                dx[((int64_t)t * g->N + n) * cin_max + i] += r->wl[WL(l, d, i, q, o)] * dq;
                                gr->wl[WL(l, d, i, q, o)] += x[i] * dq;
                            }
                            if (gru && q == 2) continue;
                            for (int i = 0; i < g->SIC; i++) {
                                dhp[i] += r->wi[WI(l, d, i, q, o)] * dq;
                                gr->wi[WI(l, d, i, q, o)] += hp[i] * dq;
                            }
                        }
                    for (int k = 0; k < (s == 0 ? g->SIC : DIC); k++)
                        dh[n * DW + k] = dhp[k];
                    for (int o = 0; o < H; o++)
                        dc[n * H + o] = dcp[o];
                }
            }
            for (int n = 0; n < g->N; n++) {
                for (int k = 0; k < g->SIC; k++)
                    gr->src_iter[SI(l, d, n, k)] += dh[n * DW + k];
                for (int o = 0; o < H; o++)
                    gr->src_iter_c[SC(l, d, n, o)] += dc[n * H + o];
            }
            for (int t = 0; t < g->T; t++)
                for (int n = 0; n < g->N; n++)
                    for (int i = 0; i < cin; i++) {
                        double v = dx[((int64_t)t * g->N + n) * cin_max + i];
                        if (l == 0)
                            gr->src_layer[SL(t, n, i)] += v;
                        else
                            dup[((int64_t)t * g->N + n) * DIC + i] = v;
                    }
        }
    }
    free(dup);
    free(dx);
    free(dh);
    free(dc);
    free(da);
}

/* J of ref_backward's comment, after a forward pass. */
static double ref_objective(const geo_t *g, ref_t *r, const double *dd_layer, const double *dd_iter,
        const double *dd_iter_c) {
    ref_free_outputs(r);
    ref_alloc(g, r);
    ref_forward(g, r);
    double j = 0;
    for (int64_t i = 0; i < n_dst_layer(g); i++)
        j += dd_layer[i] * r->dst_layer[i];
    for (int64_t i = 0; i < n_dst_iter(g); i++)
        j += dd_iter[i] * r->dst_iter[i];
    if (g->cell == LSTM)
        for (int64_t i = 0; i < n_state_c(g); i++)
            j += dd_iter_c[i] * r->dst_iter_c[i];
    return j;
}

/* ---- random inputs -------------------------------------------------------------------- */

static void rand_fill(double *v, int64_t n, double scale) {
    for (int64_t i = 0; i < n; i++)
        v[i] = scale * rng_uniform();
}

static void rand_inputs(const geo_t *g, ref_t *r) {
    double ws = 1.5 / sqrt((double)(g->SLC + g->SIC));
    r->src_layer = dalloc(n_src_layer(g));
    r->src_iter = dalloc(n_src_iter(g));
    r->src_iter_c = dalloc(n_state_c(g));
    r->wl = dalloc(n_wl(g));
    r->wi = dalloc(n_wi(g));
    r->wp = dalloc(n_wp(g));
    r->wr = dalloc(n_wr(g));
    r->bias = dalloc(n_bias(g));
    r->attn = dalloc(n_attn(g));
    rand_fill(r->src_layer, n_src_layer(g), 1.0);
    if (g->has_src_iter) rand_fill(r->src_iter, n_src_iter(g), 1.0);
    if (g->has_src_iter_c) rand_fill(r->src_iter_c, n_state_c(g), 1.0);
    rand_fill(r->wl, n_wl(g), ws);
    rand_fill(r->wi, n_wi(g), ws);
    if (g->peephole) rand_fill(r->wp, n_wp(g), 0.5);
    if (g->proj) rand_fill(r->wr, n_wr(g), 1.0 / sqrt((double)g->DHC));
    if (g->has_bias) rand_fill(r->bias, n_bias(g), 0.5);
    for (int64_t i = 0; i < n_attn(g) && g->has_attn; i++)
        r->attn[i] = 0.5 + 0.5 * rng_uniform();
}

static void ref_free(ref_t *r) {
    ref_free_outputs(r);
    double **p[] = {&r->src_layer, &r->src_iter, &r->src_iter_c, &r->wl, &r->wi, &r->wp, &r->wr, &r->bias,
            &r->attn};
    for (size_t i = 0; i < sizeof p / sizeof *p; i++) {
        free(*p[i]);
        *p[i] = NULL;
    }
}

/* ---- the reference's own check: its gradients against finite differences --------------- */

static void finite_difference_check(int cell, int peephole, int proj, dnnl_rnn_direction_t dir) {
    geo_t geo = {.cell = cell, .L = 2, .D = dir >= dnnl_bidirectional_concat ? 2 : 1, .T = 3, .N = 2,
            .SLC = 3, .DHC = 3, .peephole = peephole, .proj = proj, .dir = dir, .has_src_iter = 1,
            .has_src_iter_c = cell == LSTM, .has_bias = 1, .has_attn = cell == AUGRU || cell == LBR_AUGRU,
            .act = dnnl_eltwise_tanh, .alpha = 0, .state_dt = dnnl_f32};
    const geo_t *g = &geo;
    geo.DIC = proj ? 2 : geo.DHC;
    geo.SLC = geo.DIC; /* L > 1 */
    geo.SIC = geo.DIC;
    geo.DLC = dir == dnnl_bidirectional_concat ? 2 * geo.DIC : geo.DIC;
    geo.G = cell == VANILLA ? 1 : cell == LSTM ? 4 : 3;
    geo.Gb = geo.G + (cell == LBR_GRU || cell == LBR_AUGRU);
    char what[96];
    snprintf(what, sizeof what, "reference gradients of %s%s%s (finite differences)", cell_names[cell],
            peephole ? " peephole" : "", proj ? " projection" : "");
    rng_seed(4242 + (uint64_t)cell);
    ref_t r;
    memset(&r, 0, sizeof r);
    rand_inputs(g, &r);
    double *ddl = dalloc(n_dst_layer(g)), *ddi = dalloc(n_dst_iter(g)), *ddc = dalloc(n_state_c(g));
    rand_fill(ddl, n_dst_layer(g), 1);
    rand_fill(ddi, n_dst_iter(g), 1);
    rand_fill(ddc, n_state_c(g), 1);
    ref_objective(g, &r, ddl, ddi, ddc);
    grads_t gr;
    grads_alloc(g, &gr);
    ref_backward(g, &r, ddl, ddi, cell == LSTM ? ddc : NULL, &gr);
    struct {
        const char *name;
        double *v, *grad;
        int64_t n;
    } params[] = {{"src_layer", r.src_layer, gr.src_layer, n_src_layer(g)},
            {"src_iter", r.src_iter, gr.src_iter, n_src_iter(g)},
            {"src_iter_c", r.src_iter_c, gr.src_iter_c, cell == LSTM ? n_state_c(g) : 0},
            {"weights_layer", r.wl, gr.wl, n_wl(g)}, {"weights_iter", r.wi, gr.wi, n_wi(g)},
            {"weights_peephole", r.wp, gr.wp, peephole ? n_wp(g) : 0},
            {"weights_projection", r.wr, gr.wr, proj ? n_wr(g) : 0}, {"bias", r.bias, gr.bias, n_bias(g)},
            {"attention", r.attn, gr.attn, geo.has_attn ? n_attn(g) : 0}};
    int bad = 0;
    for (size_t p = 0; p < sizeof params / sizeof *params; p++)
        for (int64_t i = 0; i < params[p].n; i++) {
            double keep = params[p].v[i], e = 1e-6;
            params[p].v[i] = keep + e;
            double jp = ref_objective(g, &r, ddl, ddi, ddc);
            params[p].v[i] = keep - e;
            double jm = ref_objective(g, &r, ddl, ddi, ddc);
            params[p].v[i] = keep;
            double fd = (jp - jm) / (2 * e), an = params[p].grad[i];
            if (fabs(fd - an) > 1e-6 * (1 + fabs(fd)) && bad++ < 5)
                fail(what, "d/d %s[%lld]: analytic %.9g, finite difference %.9g", params[p].name, (long long)i,
                        an, fd);
        }
    grads_free(&gr);
    ref_free(&r);
    free(ddl);
    free(ddi);
    free(ddc);
}

/* ---- the library side ----------------------------------------------------------------- */

/* Argument slots, in the order the descriptors are passed. */
enum {
    A_SRC_LAYER, A_SRC_ITER, A_SRC_ITER_C, A_ATTN, A_WL, A_WI, A_WP, A_WR, A_BIAS, A_DST_LAYER, A_DST_ITER,
    A_DST_ITER_C, N_FWD_ARGS
};
static const int fwd_arg_ids[N_FWD_ARGS] = {DNNL_ARG_SRC_LAYER, DNNL_ARG_SRC_ITER, DNNL_ARG_SRC_ITER_C,
        DNNL_ARG_AUGRU_ATTENTION, DNNL_ARG_WEIGHTS_LAYER, DNNL_ARG_WEIGHTS_ITER, DNNL_ARG_WEIGHTS_PEEPHOLE,
        DNNL_ARG_WEIGHTS_PROJECTION, DNNL_ARG_BIAS, DNNL_ARG_DST_LAYER, DNNL_ARG_DST_ITER,
        DNNL_ARG_DST_ITER_C};
static const int bwd_arg_ids[N_FWD_ARGS] = {DNNL_ARG_DIFF_SRC_LAYER, DNNL_ARG_DIFF_SRC_ITER,
        DNNL_ARG_DIFF_SRC_ITER_C, DNNL_ARG_DIFF_AUGRU_ATTENTION, DNNL_ARG_DIFF_WEIGHTS_LAYER,
        DNNL_ARG_DIFF_WEIGHTS_ITER, DNNL_ARG_DIFF_WEIGHTS_PEEPHOLE, DNNL_ARG_DIFF_WEIGHTS_PROJECTION,
        DNNL_ARG_DIFF_BIAS, DNNL_ARG_DIFF_DST_LAYER, DNNL_ARG_DIFF_DST_ITER, DNNL_ARG_DIFF_DST_ITER_C};
static const char *arg_names[N_FWD_ARGS] = {"src_layer", "src_iter", "src_iter_c", "attention",
        "weights_layer", "weights_iter", "weights_peephole", "weights_projection", "bias", "dst_layer",
        "dst_iter", "dst_iter_c"};

/* The tensors of a case: present or not (t.ndims == 0), their user layouts and types. */
typedef struct {
    tensor_t t[N_FWD_ARGS];
} tensors_t;

static void case_tensors(const case_t *c, const geo_t *g, int diff, int bwd_weights_ldgoi, tensors_t *ts) {
    memset(ts, 0, sizeof *ts);
    dnnl_data_type_t dt = c->dt ? c->dt : dnnl_f32, wdt = dt, sdt = dt, ddt = dt, cdt = dnnl_f32;
    if (dt == dnnl_u8) {
        wdt = dnnl_s8;
        ddt = c->dst_dt ? c->dst_dt : dnnl_u8;
    }
    if (dt == dnnl_f16) cdt = dnnl_f16;
    dnnl_data_type_t bdt = dt == dnnl_f16 ? dnnl_f16 : dnnl_f32;
    if (diff) wdt = sdt = ddt = cdt = bdt = dnnl_f32; /* rnn.md: every diff_* is f32 */
    const char *layer = c->ntc ? "bac" : "abc";
    dnnl_dims_t sl = {g->T, g->N, g->SLC}, si = {g->L, g->D, g->N, g->SIC}, sc = {g->L, g->D, g->N, g->DHC},
                at = {g->T, g->N, 1}, wl = {g->L, g->D, g->SLC, g->G, g->DHC},
                wi = {g->L, g->D, g->SIC, g->G, g->DHC}, wp = {g->L, g->D, 3, g->DHC},
                wr = {g->L, g->D, g->DHC, g->DIC}, b = {g->L, g->D, g->Gb, g->DHC},
                dl = {g->T, g->N, g->DLC}, di = {g->L, g->D, g->N, g->DIC};
    const char *word = bwd_weights_ldgoi ? "abdec" : "abcde";
    ts->t[A_SRC_LAYER] = tensor(3, sl, sdt, layer);
    if (g->has_src_iter) ts->t[A_SRC_ITER] = tensor(4, si, sdt, "abcd");
    if (g->has_src_iter_c) ts->t[A_SRC_ITER_C] = tensor(4, sc, cdt, "abcd");
    if (g->has_attn) ts->t[A_ATTN] = tensor(3, at, sdt, "abc");
    ts->t[A_WL] = tensor(5, wl, wdt, word);
    ts->t[A_WI] = tensor(5, wi, wdt, word);
    if (g->peephole) ts->t[A_WP] = tensor(4, wp, diff ? dnnl_f32 : cdt == dnnl_f16 ? dnnl_f16 : dnnl_f32, "abcd");
    if (g->proj) ts->t[A_WR] = tensor(4, wr, wdt, bwd_weights_ldgoi ? "abdc" : "abcd");
    if (g->has_bias) ts->t[A_BIAS] = tensor(4, b, bdt, "abcd");
    ts->t[A_DST_LAYER] = tensor(3, dl, ddt, layer);
    /* int8: dst_iter is u8 as src_iter whatever dst_layer's type (Intel's library
     * answers unimplemented to an f32 dst_iter) */
    if (!c->no_dst_iter) ts->t[A_DST_ITER] = tensor(4, di, dt == dnnl_u8 ? sdt : ddt, "abcd");
    if (g->cell == LSTM && !c->no_dst_iter_c) ts->t[A_DST_ITER_C] = tensor(4, sc, cdt, "abcd");
}

/* The descriptors passed to the creation: the user's, or `any` for the case's `any`;
 * NULL for an absent tensor. */
static void case_mds(const case_t *c, const tensors_t *ts, dnnl_memory_desc_t *mds) {
    for (int a = 0; a < N_FWD_ARGS; a++) {
        const tensor_t *t = &ts->t[a];
        mds[a] = NULL;
        if (!t->ndims) continue;
        int any = c->any && a != A_BIAS && a != A_WP && a != A_ATTN;
        mds[a] = any ? md_tag(t->ndims, t->dims, t->dt, dnnl_format_tag_any) : user_md(t);
    }
}

static void free_mds(dnnl_memory_desc_t *mds, int n) {
    for (int a = 0; a < n; a++)
        if (mds[a]) CHECK(dnnl_memory_desc_destroy(mds[a]));
}

static dnnl_prop_kind_t prop_of(int prop) {
    return prop == INF ? dnnl_forward_inference : prop == TRAIN ? dnnl_forward_training : dnnl_backward;
}

static dnnl_status_t create_fwd(dnnl_primitive_desc_t *pd, const case_t *c, int prop, dnnl_memory_desc_t *m,
        unsigned flags, const_dnnl_primitive_attr_t attr) {
    dnnl_prop_kind_t pk = prop_of(prop);
    switch (c->cell) {
        case VANILLA:
            return dnnl_vanilla_rnn_forward_primitive_desc_create(pd, engine, pk, c->act, c->dir, m[A_SRC_LAYER],
                    m[A_SRC_ITER], m[A_WL], m[A_WI], m[A_BIAS], m[A_DST_LAYER], m[A_DST_ITER], flags, c->alpha,
                    c->beta, attr);
        case LSTM:
            return dnnl_lstm_forward_primitive_desc_create(pd, engine, pk, c->dir, m[A_SRC_LAYER], m[A_SRC_ITER],
                    m[A_SRC_ITER_C], m[A_WL], m[A_WI], m[A_WP], m[A_WR], m[A_BIAS], m[A_DST_LAYER], m[A_DST_ITER],
                    m[A_DST_ITER_C], flags, attr);
        case GRU:
            return dnnl_gru_forward_primitive_desc_create(pd, engine, pk, c->dir, m[A_SRC_LAYER], m[A_SRC_ITER],
                    m[A_WL], m[A_WI], m[A_BIAS], m[A_DST_LAYER], m[A_DST_ITER], flags, attr);
        case LBR_GRU:
            return dnnl_lbr_gru_forward_primitive_desc_create(pd, engine, pk, c->dir, m[A_SRC_LAYER],
                    m[A_SRC_ITER], m[A_WL], m[A_WI], m[A_BIAS], m[A_DST_LAYER], m[A_DST_ITER], flags, attr);
        case AUGRU:
            return dnnl_augru_forward_primitive_desc_create(pd, engine, pk, c->dir, m[A_SRC_LAYER], m[A_SRC_ITER],
                    m[A_ATTN], m[A_WL], m[A_WI], m[A_BIAS], m[A_DST_LAYER], m[A_DST_ITER], flags, attr);
        default:
            return dnnl_lbr_augru_forward_primitive_desc_create(pd, engine, pk, c->dir, m[A_SRC_LAYER],
                    m[A_SRC_ITER], m[A_ATTN], m[A_WL], m[A_WI], m[A_BIAS], m[A_DST_LAYER], m[A_DST_ITER], flags,
                    attr);
    }
}

static dnnl_status_t create_bwd(dnnl_primitive_desc_t *pd, const case_t *c, dnnl_memory_desc_t *m,
        dnnl_memory_desc_t *dm, unsigned flags, const_dnnl_primitive_desc_t hint) {
    switch (c->cell) {
        case VANILLA:
            return dnnl_vanilla_rnn_backward_primitive_desc_create(pd, engine, dnnl_backward, c->act, c->dir,
                    m[A_SRC_LAYER], m[A_SRC_ITER], m[A_WL], m[A_WI], m[A_BIAS], m[A_DST_LAYER], m[A_DST_ITER],
                    dm[A_SRC_LAYER], dm[A_SRC_ITER], dm[A_WL], dm[A_WI], dm[A_BIAS], dm[A_DST_LAYER],
                    dm[A_DST_ITER], flags, c->alpha, c->beta, hint, NULL);
        case LSTM:
            return dnnl_lstm_backward_primitive_desc_create(pd, engine, dnnl_backward, c->dir, m[A_SRC_LAYER],
                    m[A_SRC_ITER], m[A_SRC_ITER_C], m[A_WL], m[A_WI], m[A_WP], m[A_WR], m[A_BIAS],
                    m[A_DST_LAYER], m[A_DST_ITER], m[A_DST_ITER_C], dm[A_SRC_LAYER], dm[A_SRC_ITER],
                    dm[A_SRC_ITER_C], dm[A_WL], dm[A_WI], dm[A_WP], dm[A_WR], dm[A_BIAS], dm[A_DST_LAYER],
                    dm[A_DST_ITER], dm[A_DST_ITER_C], flags, hint, NULL);
        case GRU:
            return dnnl_gru_backward_primitive_desc_create(pd, engine, dnnl_backward, c->dir, m[A_SRC_LAYER],
                    m[A_SRC_ITER], m[A_WL], m[A_WI], m[A_BIAS], m[A_DST_LAYER], m[A_DST_ITER], dm[A_SRC_LAYER],
                    dm[A_SRC_ITER], dm[A_WL], dm[A_WI], dm[A_BIAS], dm[A_DST_LAYER], dm[A_DST_ITER], flags, hint,
                    NULL);
        case LBR_GRU:
            return dnnl_lbr_gru_backward_primitive_desc_create(pd, engine, dnnl_backward, c->dir,
                    m[A_SRC_LAYER], m[A_SRC_ITER], m[A_WL], m[A_WI], m[A_BIAS], m[A_DST_LAYER], m[A_DST_ITER],
                    dm[A_SRC_LAYER], dm[A_SRC_ITER], dm[A_WL], dm[A_WI], dm[A_BIAS], dm[A_DST_LAYER],
                    dm[A_DST_ITER], flags, hint, NULL);
        case AUGRU:
            return dnnl_augru_backward_primitive_desc_create(pd, engine, dnnl_backward, c->dir, m[A_SRC_LAYER],
                    m[A_SRC_ITER], m[A_ATTN], m[A_WL], m[A_WI], m[A_BIAS], m[A_DST_LAYER], m[A_DST_ITER],
                    dm[A_SRC_LAYER], dm[A_SRC_ITER], dm[A_ATTN], dm[A_WL], dm[A_WI], dm[A_BIAS],
                    dm[A_DST_LAYER], dm[A_DST_ITER], flags, hint, NULL);
        default:
            return dnnl_lbr_augru_backward_primitive_desc_create(pd, engine, dnnl_backward, c->dir,
                    m[A_SRC_LAYER], m[A_SRC_ITER], m[A_ATTN], m[A_WL], m[A_WI], m[A_BIAS], m[A_DST_LAYER],
                    m[A_DST_ITER], dm[A_SRC_LAYER], dm[A_SRC_ITER], dm[A_ATTN], dm[A_WL], dm[A_WI], dm[A_BIAS],
                    dm[A_DST_LAYER], dm[A_DST_ITER], flags, hint, NULL);
    }
}

/* The first creation on ours: unimplemented means the whole kind is missing (skip);
 * after it ours runs every case, on the CPU and GPU engines alike. Intel's gaps (f16 on
 * a CPU without AVX512-FP16, its other gaps) are skipped with a note and counted. */
static int creation_refused(dnnl_status_t st, const char *what) {
    if (st == dnnl_success) {
        created_once = 1;
        return 0;
    }
    if (st == dnnl_unimplemented) {
        if (library_is_ours() && !created_once) SKIP("rnn not implemented by this library");
        if (!library_is_ours()) {
            printf("note: %s: unimplemented by this library\n", what);
            n_skipped++;
            return 1;
        }
    }
    fail(what, "creation returned %s", check_status_str(st));
    return 1;
}

/* ---- queries ------------------------------------------------------------------------------- */

static void expect_md_dims(const char *what, const char *arg, const_dnnl_memory_desc_t md, const tensor_t *t) {
    int nd = 0;
    dnnl_data_type_t dt = dnnl_data_type_undef;
    const dnnl_dims_t *dims = NULL;
    if (!md || dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &nd) != dnnl_success || nd == 0) {
        if (t->ndims) fail(what, "query of %s: no descriptor", arg);
        return;
    }
    if (!t->ndims) {
        fail(what, "query of %s: a %d-D descriptor for an absent tensor", arg, nd);
        return;
    }
    CHECK(dnnl_memory_desc_query(md, dnnl_query_data_type, &dt));
    CHECK(dnnl_memory_desc_query(md, dnnl_query_dims, &dims));
    int same = nd == t->ndims && dt == t->dt;
    for (int d = 0; same && d < nd; d++)
        same = (*dims)[d] == t->dims[d];
    if (!same) fail(what, "query of %s: dims or data type differ from the tensor's", arg);
}

static void check_queries(const char *what, const case_t *c, const_dnnl_primitive_desc_t pd, int prop,
        const tensors_t *ts, const tensors_t *dts, unsigned flags) {
    dnnl_prop_kind_t pk = dnnl_prop_kind_undef;
    dnnl_alg_kind_t cell = dnnl_alg_kind_undef, act = dnnl_alg_kind_undef;
    dnnl_rnn_direction_t dir = dnnl_rnn_direction_undef;
    unsigned qflags = 99;
    float alpha = -1, beta = -1;
    dnnl_status_t st[7] = {
            dnnl_primitive_desc_query(pd, dnnl_query_prop_kind, 0, &pk),
            dnnl_primitive_desc_query(pd, dnnl_query_cell_kind, 0, &cell),
            dnnl_primitive_desc_query(pd, dnnl_query_direction, 0, &dir),
            dnnl_primitive_desc_query(pd, dnnl_query_activation_kind, 0, &act),
            dnnl_primitive_desc_query(pd, dnnl_query_flags, 0, &qflags),
            dnnl_primitive_desc_query(pd, dnnl_query_alpha_f32, 0, &alpha),
            dnnl_primitive_desc_query(pd, dnnl_query_beta_f32, 0, &beta),
    };
    if (verbose)
        printf("  %s: query statuses %d %d %d %d %d %d %d: prop %d cell %d dir %d act %d flags %u alpha %g beta %g\n",
                what, st[0], st[1], st[2], st[3], st[4], st[5], st[6], (int)pk, (int)cell, (int)dir, (int)act, qflags,
                alpha, beta);
    /* Intel's library answers these, and unimplemented to dnnl_query_flags and
     * dnnl_query_beta_f32; the activation and alpha are the vanilla cell's (the other
     * cells: undef and 0) */
    static const char *qnames[] = {"prop_kind", "cell_kind", "direction", "activation_kind", "flags", "alpha_f32",
            "beta_f32"};
    for (int k = 0; k < 7; k++) {
        dnnl_status_t want = k == 4 || k == 6 ? dnnl_unimplemented : dnnl_success;
        if (st[k] != want)
            fail(what, "dnnl_query_%s returned %s, want %s", qnames[k], check_status_str(st[k]),
                    check_status_str(want));
    }
    (void)flags;
    dnnl_alg_kind_t want_act = c->cell == VANILLA ? c->act : dnnl_alg_kind_undef;
    float want_alpha = c->cell == VANILLA ? c->alpha : 0;
    if (pk != prop_of(prop)) fail(what, "dnnl_query_prop_kind: %d", (int)pk);
    if (cell != cell_algs[c->cell]) fail(what, "dnnl_query_cell_kind: %d", (int)cell);
    if (dir != c->dir) fail(what, "dnnl_query_direction: %d", (int)dir);
    if (act != want_act) fail(what, "dnnl_query_activation_kind: %d, want %d", (int)act, (int)want_act);
    if (alpha != want_alpha) fail(what, "dnnl_query_alpha_f32: %g, want %g", alpha, want_alpha);
    const char *impl = NULL;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
    if (!impl || !impl[0]) fail(what, "dnnl_query_impl_info_str: empty");
    if (verbose) printf("  %s: impl %s\n", what, impl ? impl : "(null)");
    for (int a = 0; a < N_FWD_ARGS; a++) {
        expect_md_dims(what, arg_names[a], dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, fwd_arg_ids[a]),
                &ts->t[a]);
        if (dts) {
            char name[64];
            snprintf(name, sizeof name, "diff_%s", arg_names[a]);
            expect_md_dims(what, name, dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, bwd_arg_ids[a]),
                    &dts->t[a]);
        }
    }
    /* src_md, weights_md and dst_md by index (and their diff_ twins), as Intel's library
     * numbers them: layer 0, iter 1, iter_c 2; weights layer 0, iter 1, then peephole,
     * projection and bias, each where present */
    static const struct {
        dnnl_query_t q, dq;
        int index, slot;
    } by_index[] = {{dnnl_query_src_md, dnnl_query_diff_src_md, 0, A_SRC_LAYER},
            {dnnl_query_src_md, dnnl_query_diff_src_md, 1, A_SRC_ITER},
            {dnnl_query_src_md, dnnl_query_diff_src_md, 2, A_SRC_ITER_C},
            {dnnl_query_weights_md, dnnl_query_diff_weights_md, 0, A_WL},
            {dnnl_query_weights_md, dnnl_query_diff_weights_md, 1, A_WI},
            {dnnl_query_weights_md, dnnl_query_diff_weights_md, 2, A_WP},
            {dnnl_query_weights_md, dnnl_query_diff_weights_md, 3, A_WR},
            {dnnl_query_weights_md, dnnl_query_diff_weights_md, 4, A_BIAS},
            {dnnl_query_dst_md, dnnl_query_diff_dst_md, 0, A_DST_LAYER},
            {dnnl_query_dst_md, dnnl_query_diff_dst_md, 1, A_DST_ITER},
            {dnnl_query_dst_md, dnnl_query_diff_dst_md, 2, A_DST_ITER_C}};
    for (size_t k = 0; k < sizeof by_index / sizeof *by_index; k++) {
        int a = by_index[k].slot;
        for (int diff = 0; diff < (dts ? 2 : 1); diff++) {
            const tensors_t *tt = diff ? dts : ts;
            if (!tt->t[a].ndims) continue;
            /* the weights after weights_iter are numbered among those present */
            int index = by_index[k].index;
            if (a == A_WR) index -= !ts->t[A_WP].ndims;
            if (a == A_BIAS) index -= !ts->t[A_WP].ndims + !ts->t[A_WR].ndims;
            const_dnnl_memory_desc_t got = dnnl_primitive_desc_query_md(pd, diff ? by_index[k].dq : by_index[k].q,
                    index);
            const_dnnl_memory_desc_t want = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md,
                    diff ? bwd_arg_ids[a] : fwd_arg_ids[a]);
            if (!got || !dnnl_memory_desc_equal(got, want))
                fail(what, "%s%s_md(%d) is not %s%s's descriptor", diff ? "diff_" : "",
                        by_index[k].q == dnnl_query_src_md ? "src" : by_index[k].q == dnnl_query_dst_md ? "dst" : "weights",
                        index, diff ? "diff_" : "", arg_names[a]);
        }
    }
    int n_in = -1, n_out = -1, want_in = 0, want_out = 0;
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_num_of_inputs_s32, 0, &n_in));
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_num_of_outputs_s32, 0, &n_out));
    for (int a = 0; a < N_FWD_ARGS; a++) {
        if (!ts->t[a].ndims) continue;
        if (a < A_DST_LAYER || dts) want_in++; /* backward: the forward's outputs are inputs */
        if (a >= A_DST_LAYER && !dts) want_out++;
        if (dts && dts->t[a].ndims) {
            if (a < A_DST_LAYER) want_out++;
            else want_in++;
        }
    }
    if (prop == TRAIN) want_out++; /* the workspace */
    if (prop == BWD) want_in++;
    if (verbose) printf("  %s: inputs %d outputs %d (counted %d %d)\n", what, n_in, n_out, want_in, want_out);
    if (n_in != want_in || n_out != want_out)
        fail(what, "dnnl_query_num_of_inputs_s32 / outputs: %d / %d, want %d / %d", n_in, n_out, want_in, want_out);
    const_dnnl_memory_desc_t ws = dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0);
    size_t ws_size = ws ? dnnl_memory_desc_get_size(ws) : 0;
    if (prop != INF && ws_size == 0) fail(what, "dnnl_query_workspace_md: empty for training");
    if (prop == INF && ws_size != 0) fail(what, "dnnl_query_workspace_md: %zu bytes for inference", ws_size);
}

/* ---- comparisons ------------------------------------------------------------------------- */

/* got against want; tol(i) the bound of element i. Reports the first few differences. */
static void compare(const char *what, const char *arg, const float *got, const double *want, int64_t n,
        double atol, double rtol) {
    int bad = 0;
    double worst = 0;
    for (int64_t i = 0; i < n; i++) {
        double tol = atol + rtol * fabs(want[i]), err = fabs(got[i] - want[i]);
        if (!(err <= tol)) {
            if (bad++ < 5)
                fail(what, "%s[%lld]: got %.9g, want %.9g (bound %.3g)", arg, (long long)i, got[i], want[i], tol);
        }
        if (tol > 0 && err / tol > worst) worst = err / tol;
    }
    if (bad > 5) fail(what, "%s: %d values differ", arg, bad);
    if (verbose) printf("  %s: %s: worst error %.3f of the bound\n", what, arg, worst);
}

/* The spacing of f16 values at v (subnormals below 2^-14). */
static double f16_step(double v) {
    double a = fabs(v) < 0x1p-14 ? 0x1p-14 : fabs(v);
    return ldexp(1.0, ilogb(a) - 10);
}

/* f16 hidden states are kept in f16 between steps, in the reference as in the library:
 * each f16 output is within one f16 step of the reference's value (rounded to f16, as the
 * library stores it) and 95% of them equal it. A library that does not round its states
 * drifts from it by several steps over a long sequence, inside the bound of `compare`. */
static void compare_f16_steps(const char *what, const char *arg, const float *got, const double *want,
        int64_t n) {
    int64_t exact = 0, bad = 0;
    for (int64_t i = 0; i < n; i++) {
        double w = rounded(dnnl_f16, (float)want[i]), err = fabs(got[i] - w);
        if (!(err <= f16_step(w)) && bad++ < 5)
            fail(what, "%s[%lld]: got %.9g, want %.9g (more than one f16 step)", arg, (long long)i, got[i], w);
        exact += err == 0;
    }
    if (bad > 5) fail(what, "%s: %lld values more than one f16 step off", arg, (long long)bad);
    if (exact * 20 < n * 19)
        fail(what, "%s: %lld of %lld values equal the reference's (95%% expected)", arg, (long long)exact,
                (long long)n);
    if (verbose) printf("  %s: %s: %lld of %lld values equal the reference's\n", what, arg, (long long)exact,
            (long long)n);
}

static float *fvec(int64_t n) { return calloc((size_t)(n > 0 ? n : 1), sizeof(float)); }

/* A double array as the tensor's type holds it (the values the library is given). */
static float *as_stored(const double *v, int64_t n, dnnl_data_type_t dt) {
    float *f = fvec(n);
    for (int64_t i = 0; i < n; i++)
        f[i] = rounded(dt, (float)v[i]);
    return f;
}

/* ---- running a case ------------------------------------------------------------------------ */

static void make_geo(const case_t *c, geo_t *g) {
    memset(g, 0, sizeof *g);
    g->cell = c->cell;
    g->L = c->L;
    g->D = c->dir >= dnnl_bidirectional_concat ? 2 : 1;
    g->T = c->T;
    g->N = c->N;
    g->SLC = c->SLC;
    g->DHC = c->DHC;
    g->proj = c->DIC != 0;
    g->DIC = c->DIC ? c->DIC : c->DHC;
    g->SIC = c->SIC ? c->SIC : g->DIC;
    g->DLC = c->dir == dnnl_bidirectional_concat ? 2 * g->DIC : g->DIC;
    g->G = c->cell == VANILLA ? 1 : c->cell == LSTM ? 4 : 3;
    g->Gb = g->G + (c->cell == LBR_GRU || c->cell == LBR_AUGRU);
    g->peephole = c->peephole;
    g->dir = c->dir;
    g->has_src_iter = !c->no_src_iter;
    g->has_src_iter_c = c->cell == LSTM && !c->no_src_iter_c;
    g->has_bias = !c->no_bias;
    g->has_attn = c->cell == AUGRU || c->cell == LBR_AUGRU;
    g->act = c->cell == VANILLA ? c->act : dnnl_eltwise_tanh;
    g->alpha = c->alpha;
    g->state_dt = c->dt ? c->dt : dnnl_f32;
    g->qscale = 63.0;
    g->qshift = 64.0;
    g->augru_as_upstream = g->has_attn && AUGRU_BACKWARD_AS_UPSTREAM;
}

/* The int8 quantization: u8 data = round(scale * x + shift), s8 weights = round(w * ws)
 * with ws per tensor or per gate and output channel; the projection's per tensor or
 * per output channel (mask 8). */
static double wscale_of(const case_t *c, const geo_t *g, int q, int o) {
    (void)g;
    return c->wmask ? 100.0 + 3 * q + o : 110.0;
}

static double pscale_of(const case_t *c, int k) { return c->wmask ? 90.0 + 2 * k : 95.0; }

static void quantize_inputs(const case_t *c, const geo_t *g, ref_t *r, float **qsl, float **qsi, float **qwl,
        float **qwi, float **qwr) {
    if (g->proj) {
        *qwr = fvec(n_wr(g));
        for (int64_t i = 0; i < n_wr(g); i++) {
            double s = pscale_of(c, (int)(i % g->DIC));
            (*qwr)[i] = (float)saturate(dnnl_s8, r->wr[i] * s);
            r->wr[i] = (*qwr)[i] / s;
        }
    }
    *qsl = fvec(n_src_layer(g));
    *qsi = fvec(n_src_iter(g));
    *qwl = fvec(n_wl(g));
    *qwi = fvec(n_wi(g));
    for (int64_t i = 0; i < n_src_layer(g); i++) {
        (*qsl)[i] = (float)saturate(dnnl_u8, g->qscale * r->src_layer[i] + g->qshift);
        r->src_layer[i] = ((*qsl)[i] - g->qshift) / g->qscale;
    }
    for (int64_t i = 0; i < n_src_iter(g) && g->has_src_iter; i++) {
        (*qsi)[i] = (float)saturate(dnnl_u8, g->qscale * r->src_iter[i] + g->qshift);
        r->src_iter[i] = ((*qsi)[i] - g->qshift) / g->qscale;
    }
    for (int64_t i = 0; i < n_wl(g); i++) {
        int o = (int)(i % g->DHC), q = (int)(i / g->DHC % g->G);
        double s = wscale_of(c, g, q, o);
        (*qwl)[i] = (float)saturate(dnnl_s8, r->wl[i] * s);
        r->wl[i] = (*qwl)[i] / s;
    }
    for (int64_t i = 0; i < n_wi(g); i++) {
        int o = (int)(i % g->DHC), q = (int)(i / g->DHC % g->G);
        double s = wscale_of(c, g, q, o);
        (*qwi)[i] = (float)saturate(dnnl_s8, r->wi[i] * s);
        r->wi[i] = (*qwi)[i] / s;
    }
}

/* Runs the case's forward with prop (INF or TRAIN), checks its outputs against r; with
 * a workspace out pointer, leaves the workspace (and the primitive's args) to the
 * backward pass. */
typedef struct {
    arg_t args[N_FWD_ARGS];
    dnnl_memory_t ws;
    dnnl_primitive_desc_t pd;
} fwd_run_t;

static int run_forward(const case_t *c, const geo_t *g, ref_t *r, int prop, const tensors_t *ts, float **in,
        fwd_run_t *run, const char *what) {
    dnnl_memory_desc_t mds[N_FWD_ARGS];
    case_mds(c, ts, mds);
    dnnl_primitive_attr_t attr = NULL;
    float *wscales = NULL;
    if (c->dt == dnnl_u8) {
        CHECK(dnnl_primitive_attr_create(&attr));
        CHECK(dnnl_primitive_attr_set_rnn_data_qparams(attr, (float)g->qscale, (float)g->qshift));
        int64_t ns = c->wmask ? (int64_t)g->G * g->DHC : 1;
        wscales = fvec(ns);
        for (int64_t i = 0; i < ns; i++)
            wscales[i] = (float)wscale_of(c, g, (int)(i / g->DHC), (int)(i % g->DHC));
        CHECK(dnnl_primitive_attr_set_rnn_weights_qparams(attr, ns, c->wmask ? 24 : 0, wscales));
        if (g->proj) {
            float ps[64];
            int64_t np = c->wmask ? g->DIC : 1;
            for (int64_t k = 0; k < np; k++)
                ps[k] = (float)pscale_of(c, (int)k);
            CHECK(dnnl_primitive_attr_set_rnn_weights_projection_qparams(attr, np, c->wmask ? 8 : 0, ps));
        }
    }
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = create_fwd(&pd, c, prop, mds, 0, attr);
    free_mds(mds, N_FWD_ARGS);
    if (creation_refused(st, what)) {
        if (attr) CHECK(dnnl_primitive_attr_destroy(attr));
        free(wscales);
        return 0;
    }
    check_queries(what, c, pd, prop, ts, NULL, 0);
    memset(run, 0, sizeof *run);
    run->pd = pd;
    dnnl_exec_arg_t ea[N_FWD_ARGS + 1];
    int na = 0;
    for (int a = 0; a < N_FWD_ARGS; a++) {
        if (!ts->t[a].ndims) continue;
        const_dnnl_memory_desc_t pmd = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, fwd_arg_ids[a]);
        run->args[a] = make_arg(&ts->t[a], pmd, a < A_DST_LAYER ? in[a] : NULL);
        ea[na++] = (dnnl_exec_arg_t){fwd_arg_ids[a], run->args[a].prim};
    }
    const_dnnl_memory_desc_t wsmd = dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0);
    if (wsmd && dnnl_memory_desc_get_size(wsmd) > 0) {
        run->ws = memory(wsmd);
        ea[na++] = (dnnl_exec_arg_t){DNNL_ARG_WORKSPACE, run->ws};
    }
    dnnl_primitive_t p = NULL;
    CHECK(dnnl_primitive_create(&p, pd));
    CHECK(dnnl_primitive_execute(p, stream, na, ea));
    CHECK(dnnl_stream_wait(stream));
    CHECK(dnnl_primitive_destroy(p));
    if (attr) CHECK(dnnl_primitive_attr_destroy(attr));
    free(wscales);

    /* bounds: the type's epsilon (f32: 1e-7 for Intel's approximate exp and tanh)
     * times twice the largest sum of |terms| of a gate (the states are rounded to the
     * type in the reference as in the library); int8 two and a half quantization steps */
    dnnl_data_type_t dt = c->dt ? c->dt : dnnl_f32;
    double eps = dt == dnnl_bf16 ? 1.0 / 256 : dt == dnnl_f16 ? 1.0 / 2048 : 1e-7;
    double atol = eps * 2 * (1 + r->max_terms), rtol = 0;
    if (dt == dnnl_u8) atol = 2.5 / g->qscale;
    struct {
        int a;
        const double *want;
        int64_t n;
    } outs[] = {{A_DST_LAYER, r->dst_layer, n_dst_layer(g)}, {A_DST_ITER, r->dst_iter, n_dst_iter(g)},
            {A_DST_ITER_C, r->dst_iter_c, n_state_c(g)}};
    for (int k = 0; k < 3; k++) {
        if (!ts->t[outs[k].a].ndims) continue;
        float *got = fvec(outs[k].n);
        read_arg(&run->args[outs[k].a], got);
        if (ts->t[outs[k].a].dt == dnnl_u8) {
            double *wq = dalloc(outs[k].n);
            for (int64_t i = 0; i < outs[k].n; i++)
                wq[i] = g->qscale * outs[k].want[i] + g->qshift;
            compare(what, arg_names[outs[k].a], got, wq, outs[k].n, 2.5, 0);
            free(wq);
        } else {
            double at = outs[k].a == A_DST_ITER_C && dt == dnnl_u8 ? 2.5 / g->qscale * 4 : atol;
            compare(what, arg_names[outs[k].a], got, outs[k].want, outs[k].n, at, rtol);
            if (c->f16_steps && outs[k].a != A_DST_ITER_C && !reference_has_fp16())
                compare_f16_steps(what, arg_names[outs[k].a], got, outs[k].want, outs[k].n);
        }
        free(got);
    }
    return 1;
}

static void free_fwd_run(fwd_run_t *run) {
    for (int a = 0; a < N_FWD_ARGS; a++)
        free_arg(&run->args[a]);
    if (run->ws) CHECK(dnnl_memory_destroy(run->ws));
    if (run->pd) CHECK(dnnl_primitive_desc_destroy(run->pd));
    memset(run, 0, sizeof *run);
}

/* The backward pass after a forward training run: every diff_* against the reference;
 * with c->accumulate, the diff weights accumulate over a second forward + backward, and
 * the overwrite flag makes them the one run's gradients again. */
static void run_backward(const case_t *c, const geo_t *g, ref_t *r, const tensors_t *ts, float **in,
        const char *what) {
    tensors_t dts;
    case_tensors(c, g, 1, c->ldgoi, &dts);
    /* the backward's own forward tensors: weights as ldgoi where the case asks */
    tensors_t bts;
    case_tensors(c, g, 0, c->ldgoi, &bts);
    dnnl_memory_desc_t mds[N_FWD_ARGS], dmds[N_FWD_ARGS];
    case_mds(c, &bts, mds);
    case_mds(c, &dts, dmds);
    /* the backward's weights `any` unless the case gives ldgoi: Intel's CPU backward
     * implements no plain ldigo weights */
    for (int a = A_WL; a <= A_WI && !c->ldgoi; a++) {
        CHECK(dnnl_memory_desc_destroy(mds[a]));
        mds[a] = md_tag(bts.t[a].ndims, bts.t[a].dims, bts.t[a].dt, dnnl_format_tag_any);
    }
    if (g->proj && !c->ldgoi) {
        CHECK(dnnl_memory_desc_destroy(mds[A_WR]));
        mds[A_WR] = md_tag(4, bts.t[A_WR].dims, bts.t[A_WR].dt, dnnl_format_tag_any);
    }

    /* random output gradients */
    double *dd[N_FWD_ARGS] = {0};
    float *ddf[N_FWD_ARGS] = {0};
    int64_t nout[N_FWD_ARGS] = {0};
    nout[A_DST_LAYER] = n_dst_layer(g);
    nout[A_DST_ITER] = n_dst_iter(g);
    nout[A_DST_ITER_C] = n_state_c(g);
    for (int a = A_DST_LAYER; a <= A_DST_ITER_C; a++) {
        if (!dts.t[a].ndims) continue;
        dd[a] = dalloc(nout[a]);
        rand_fill(dd[a], nout[a], 1.0);
        ddf[a] = as_stored(dd[a], nout[a], dts.t[a].dt);
        for (int64_t i = 0; i < nout[a]; i++)
            dd[a][i] = ddf[a][i];
    }
    grads_t gr;
    grads_alloc(g, &gr);
    ref_backward(g, r, dd[A_DST_LAYER], dd[A_DST_ITER], dd[A_DST_ITER_C], &gr);

    if (g->augru_as_upstream)
        printf("note: %s: checked against the formulas of Intel's AUGRU backward, which is not the gradient of "
               "its forward (u for (1 - a) * u; the attention's one more u * (1 - u))\n",
                what);
    int rounds = c->accumulate ? 3 : 1;
    for (int round = 0; round < rounds; round++) {
        unsigned flags = round == 2 ? dnnl_rnn_flags_diff_weights_overwrite : 0;
        char rwhat[256];
        snprintf(rwhat, sizeof rwhat, "%s%s", what,
                round == 1 ? " (second run: accumulated)" : round == 2 ? " (diff_weights_overwrite)" : "");
        fwd_run_t fr;
        char fwhat[300];
        snprintf(fwhat, sizeof fwhat, "%s: its forward training", rwhat);
        if (!run_forward(c, g, r, TRAIN, ts, in, &fr, fwhat)) break;
        dnnl_primitive_desc_t pd = NULL;
        dnnl_status_t st = create_bwd(&pd, c, mds, dmds, flags, fr.pd);
        if (creation_refused(st, rwhat)) {
            free_fwd_run(&fr);
            break;
        }
        check_queries(rwhat, c, pd, BWD, &bts, &dts, flags);
        /* forward arguments: the forward's user values, in the backward's layouts */
        arg_t bargs[N_FWD_ARGS], dargs[N_FWD_ARGS];
        memset(bargs, 0, sizeof bargs);
        memset(dargs, 0, sizeof dargs);
        dnnl_exec_arg_t ea[2 * N_FWD_ARGS + 1];
        int na = 0;
        float *outv[N_FWD_ARGS] = {0};
        for (int a = 0; a < N_FWD_ARGS; a++) {
            if (!bts.t[a].ndims) continue;
            const float *v = in[a];
            if (a >= A_DST_LAYER) {
                outv[a] = fvec(ts->t[a].nelems);
                read_arg(&fr.args[a], outv[a]);
                v = outv[a];
            }
            const_dnnl_memory_desc_t pmd = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, fwd_arg_ids[a]);
            /* ldgoi: the same logical values, transposed by the tensor's order */
            bargs[a] = make_arg(&bts.t[a], pmd, v);
            ea[na++] = (dnnl_exec_arg_t){fwd_arg_ids[a], bargs[a].prim};
        }
        /* the diff weights start from zero (first run), from the first run's values
         * (second), from garbage (overwrite) */
        for (int a = 0; a < N_FWD_ARGS; a++) {
            if (!dts.t[a].ndims) continue;
            const_dnnl_memory_desc_t pmd = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, bwd_arg_ids[a]);
            const float *v = NULL;
            float *init = NULL;
            if (a >= A_WL && a <= A_BIAS) {
                init = fvec(dts.t[a].nelems);
                for (int64_t i = 0; i < dts.t[a].nelems; i++)
                    init[i] = round == 2 ? 5.f : 0.f;
                v = init;
            }
            if (a >= A_DST_LAYER) v = ddf[a];
            dargs[a] = make_arg(&dts.t[a], pmd, v);
            free(init);
            ea[na++] = (dnnl_exec_arg_t){bwd_arg_ids[a], dargs[a].prim};
        }
        ea[na++] = (dnnl_exec_arg_t){DNNL_ARG_WORKSPACE, fr.ws};
        dnnl_primitive_t p = NULL;
        CHECK(dnnl_primitive_create(&p, pd));
        CHECK(dnnl_primitive_execute(p, stream, na, ea));
        CHECK(dnnl_stream_wait(stream));
        if (round == 1) {
            /* the second run into the same diff weights: forward training again (the
             * backward spent the workspace), then backward */
            fwd_run_t fr2;
            char f2[300];
            snprintf(f2, sizeof f2, "%s: its second forward", rwhat);
            if (run_forward(c, g, r, TRAIN, ts, in, &fr2, f2)) {
                for (int k = 0; k < na; k++)
                    if (ea[k].arg == DNNL_ARG_WORKSPACE) ea[k].memory = fr2.ws;
                CHECK(dnnl_primitive_execute(p, stream, na, ea));
                CHECK(dnnl_stream_wait(stream));
                free_fwd_run(&fr2);
            }
        }
        CHECK(dnnl_primitive_destroy(p));
        /* compare */
        dnnl_data_type_t dt = c->dt ? c->dt : dnnl_f32;
        double rtol = dt == dnnl_bf16 ? 2.0 / 256 : 2e-5;
        struct {
            int a;
            const double *want;
            int64_t n;
            int weights;
        } gs[] = {{A_SRC_LAYER, gr.src_layer, n_src_layer(g), 0}, {A_SRC_ITER, gr.src_iter, n_src_iter(g), 0},
                {A_SRC_ITER_C, gr.src_iter_c, n_state_c(g), 0}, {A_ATTN, gr.attn, n_attn(g), 0},
                {A_WL, gr.wl, n_wl(g), 1}, {A_WI, gr.wi, n_wi(g), 1}, {A_WP, gr.wp, n_wp(g), 1},
                {A_WR, gr.wr, n_wr(g), 1}, {A_BIAS, gr.bias, n_bias(g), 1}};
        for (size_t k = 0; k < sizeof gs / sizeof *gs; k++) {
            int a = gs[k].a;
            if (!dts.t[a].ndims) continue;
            float *got = fvec(gs[k].n);
            read_arg(&dargs[a], got);
            double *want = dalloc(gs[k].n), scale = 0;
            for (int64_t i = 0; i < gs[k].n; i++) {
                want[i] = gs[k].want[i] * (round == 1 && gs[k].weights ? 2 : 1);
                if (fabs(want[i]) > scale) scale = fabs(want[i]);
            }
            char name[64];
            snprintf(name, sizeof name, "diff_%s", arg_names[a]);
            compare(rwhat, name, got, want, gs[k].n, rtol * (1 + scale), 0);
            free(want);
            free(got);
        }
        for (int a = 0; a < N_FWD_ARGS; a++) {
            free_arg(&bargs[a]);
            free_arg(&dargs[a]);
            free(outv[a]);
        }
        CHECK(dnnl_primitive_desc_destroy(pd));
        free_fwd_run(&fr);
    }
    free_mds(mds, N_FWD_ARGS);
    free_mds(dmds, N_FWD_ARGS);
    for (int a = 0; a < N_FWD_ARGS; a++) {
        free(dd[a]);
        free(ddf[a]);
    }
    grads_free(&gr);
}

static void run_case(const case_t *c, int index) {
    geo_t geo;
    make_geo(c, &geo);
    const geo_t *g = &geo;
    rng_seed(1000 + (uint64_t)index);
    ref_t r;
    memset(&r, 0, sizeof r);
    rand_inputs(g, &r);
    tensors_t ts;
    case_tensors(c, g, 0, 0, &ts);
    /* the inputs as the library gets them, and the reference from the same values */
    float *in[N_FWD_ARGS] = {0};
    double *vals[N_FWD_ARGS] = {r.src_layer, r.src_iter, r.src_iter_c, r.attn, r.wl, r.wi, r.wp, r.wr, r.bias};
    int64_t ns[N_FWD_ARGS] = {n_src_layer(g), n_src_iter(g), n_state_c(g), n_attn(g), n_wl(g), n_wi(g), n_wp(g),
            n_wr(g), n_bias(g)};
    if (c->dt == dnnl_u8) quantize_inputs(c, g, &r, &in[A_SRC_LAYER], &in[A_SRC_ITER], &in[A_WL], &in[A_WI], &in[A_WR]);
    for (int a = 0; a < A_DST_LAYER; a++) {
        if (in[a]) continue;
        in[a] = as_stored(vals[a], ns[a], ts.t[a].ndims ? ts.t[a].dt : dnnl_f32);
        for (int64_t i = 0; i < ns[a]; i++)
            vals[a][i] = in[a][i];
    }
    ref_alloc(g, &r);
    ref_forward(g, &r);

    static const int props[] = {INF, TRAIN};
    for (int k = 0; k < 2; k++) {
        if (!(c->props & props[k])) continue;
        if (c->upstream_bug_forward && !library_is_ours()) {
            printf("note: %s: skipped on Intel's library: %s\n", c->name, c->upstream_bug);
            n_skipped++;
            continue;
        }
        char what[160];
        snprintf(what, sizeof what, "%s: forward %s", c->name, props[k] == INF ? "inference" : "training");
        fwd_run_t run;
        if (run_forward(c, g, &r, props[k], &ts, in, &run, what)) {
            n_run++;
            free_fwd_run(&run);
        }
    }
    if (c->props & BWD && c->upstream_bug && !c->upstream_bug_forward && !library_is_ours()) {
        printf("note: %s: backward: skipped on Intel's library: %s\n", c->name, c->upstream_bug);
        n_skipped++;
    } else if (c->props & BWD) {
        char what[160];
        snprintf(what, sizeof what, "%s: backward", c->name);
        int before = n_skipped;
        run_backward(c, g, &r, &ts, in, what);
        if (n_skipped == before) n_run++;
    }
    for (int a = 0; a < N_FWD_ARGS; a++)
        free(in[a]);
    ref_free(&r);
}

/* ---- the cases -------------------------------------------------------------------------- */

#define L2R dnnl_unidirectional_left2right
#define R2L dnnl_unidirectional_right2left
#define BCAT dnnl_bidirectional_concat
#define BSUM dnnl_bidirectional_sum

/* Intel's backward without src_iter, left to right: diff_weights_iter takes the first
 * step's output h_0 for h_{-1} (0 when src_iter is absent) */
#define NO_SRC_ITER_BUG "without src_iter its diff_weights_iter uses h_0 for h_-1"

static const case_t cases[] = {
        /* vanilla RNN: each activation, every direction */
        {"vanilla tanh l2r L1 T3 N3 SLC5 DHC7", VANILLA, dnnl_eltwise_tanh, .dir = L2R, .L = 1, .T = 3, .N = 3,
                .SLC = 5, .DHC = 7, .props = ALL_PROPS, .gpu = 1},
        {"vanilla relu(0.1) r2l L2 T4 N1 C6 ntc", VANILLA, dnnl_eltwise_relu, .alpha = 0.1f, .dir = R2L, .L = 2,
                .T = 4, .N = 1, .SLC = 6, .DHC = 6, .props = ALL_PROPS, .ntc = 1},
        {"vanilla logistic bi-concat L2 T3 N2 C5 any", VANILLA, dnnl_eltwise_logistic, .dir = BCAT, .L = 2,
                .T = 3, .N = 2, .SLC = 5, .DHC = 5, .props = ALL_PROPS, .any = 1, .gpu = 1},
        {"vanilla tanh bi-sum L1 T1 N3 SLC4 DHC3 no iter states", VANILLA, dnnl_eltwise_tanh, .dir = BSUM,
                .L = 1, .T = 1, .N = 3, .SLC = 4, .DHC = 3, .no_src_iter = 1, .no_dst_iter = 1,
                .props = ALL_PROPS},
        {"vanilla relu(0) l2r L1 T1 N2 SLC3 SIC6 DHC4", VANILLA, dnnl_eltwise_relu, .dir = L2R, .L = 1, .T = 1,
                .N = 2, .SLC = 3, .SIC = 6, .DHC = 4, .props = ALL_PROPS},
        /* LSTM */
        {"lstm l2r L1 T3 N3 SLC5 DHC7", LSTM, .dir = L2R, .L = 1, .T = 3, .N = 3, .SLC = 5, .DHC = 7,
                .props = ALL_PROPS, .accumulate = 1},
        {"lstm bi-concat L2 T3 N2 C5 any", LSTM, .dir = BCAT, .L = 2, .T = 3, .N = 2, .SLC = 5, .DHC = 5,
                .props = ALL_PROPS, .any = 1, .gpu = 1},
        {"lstm peephole r2l L2 T4 N3 C6", LSTM, .dir = R2L, .L = 2, .T = 4, .N = 3, .SLC = 6, .DHC = 6,
                .peephole = 1, .props = ALL_PROPS},
        {"lstm bi-concat L1 T1 N3 SLC4 SIC2 DHC5", LSTM, .dir = BCAT, .L = 1, .T = 1, .N = 3, .SLC = 4, .SIC = 2,
                .DHC = 5, .props = ALL_PROPS},
        {"lstm projection l2r L1 T3 N2 SLC5 DHC7 DIC4", LSTM, .dir = L2R, .L = 1, .T = 3, .N = 2, .SLC = 5,
                .DHC = 7, .DIC = 4, .props = ALL_PROPS},
        {"lstm peephole projection bi-sum L2 T2 N3 DHC6 DIC5", LSTM, .dir = BSUM, .L = 2, .T = 2, .N = 3,
                .SLC = 5, .DHC = 6, .DIC = 5, .peephole = 1, .props = ALL_PROPS, .gpu = 1},
        {"lstm l2r L3 T5 N1 C3 no src_iter(_c) dst_iter(_c)", LSTM, .dir = L2R, .L = 3, .T = 5, .N = 1, .SLC = 3,
                .DHC = 3, .no_src_iter = 1, .no_src_iter_c = 1, .no_dst_iter = 1, .no_dst_iter_c = 1,
                .props = ALL_PROPS, .upstream_bug = NO_SRC_ITER_BUG, .gpu = 1},
        {"lstm r2l L3 T3 N2 C3 no src_iter(_c)", LSTM, .dir = R2L, .L = 3, .T = 3, .N = 2, .SLC = 3, .DHC = 3,
                .no_src_iter = 1, .no_src_iter_c = 1, .props = BWD},
        /* GRU family */
        {"gru l2r L1 T3 N3 SLC5 DHC7", GRU, .dir = L2R, .L = 1, .T = 3, .N = 3, .SLC = 5, .DHC = 7,
                .props = ALL_PROPS, .accumulate = 1, .gpu = 1},
        {"gru bi-sum L2 T3 N2 C5 any", GRU, .dir = BSUM, .L = 2, .T = 3, .N = 2, .SLC = 5, .DHC = 5,
                .props = ALL_PROPS, .any = 1},
        {"lbr_gru r2l L2 T4 N3 C6 ntc", LBR_GRU, .dir = R2L, .L = 2, .T = 4, .N = 3, .SLC = 6, .DHC = 6,
                .props = ALL_PROPS, .ntc = 1, .gpu = 1},
        {"lbr_gru bi-concat L1 T3 N2 SLC4 DHC5 no src_iter", LBR_GRU, .dir = BCAT, .L = 1, .T = 3, .N = 2,
                .SLC = 4, .DHC = 5, .no_src_iter = 1, .props = ALL_PROPS, .accumulate = 1},
        {"augru l2r L1 T3 N3 SLC5 DHC7", AUGRU, .dir = L2R, .L = 1, .T = 3, .N = 3, .SLC = 5, .DHC = 7,
                .props = ALL_PROPS, .gpu = 1},
        {"augru l2r L2 T2 N2 C4", AUGRU, .dir = L2R, .L = 1, .T = 2, .N = 2, .SLC = 4, .DHC = 4,
                .props = ALL_PROPS},
        {"lbr_augru l2r L1 T4 N3 SLC3 DHC5 any", LBR_AUGRU, .dir = L2R, .L = 1, .T = 4, .N = 3, .SLC = 3,
                .DHC = 5, .props = ALL_PROPS, .any = 1, .gpu = 1},
        {"lbr_augru l2r L1 T3 N2 C4 ntc", LBR_AUGRU, .dir = L2R, .L = 1, .T = 3, .N = 2, .SLC = 4, .DHC = 4,
                .props = ALL_PROPS, .ntc = 1},
        /* the bias absent */
        {"gru l2r L1 T2 N2 C4 no bias", GRU, .dir = L2R, .L = 1, .T = 2, .N = 2, .SLC = 4, .DHC = 4,
                .no_bias = 1, .props = INF},
        /* backward with ldgoi weights */
        {"vanilla tanh l2r L1 T3 N2 SLC3 DHC5 backward ldgoi", VANILLA, dnnl_eltwise_tanh, .dir = L2R, .L = 1,
                .T = 3, .N = 2, .SLC = 3, .DHC = 5, .props = BWD, .ldgoi = 1},
        /* bf16 */
        {"bf16 vanilla relu l2r L2 T3 N3 C8", VANILLA, dnnl_eltwise_relu, .dir = L2R, .L = 2, .T = 3, .N = 3,
                .SLC = 8, .DHC = 8, .props = ALL_PROPS, .dt = dnnl_bf16},
        {"bf16 lstm bi-concat L1 T3 N2 SLC6 DHC8 any", LSTM, .dir = BCAT, .L = 1, .T = 3, .N = 2, .SLC = 6,
                .DHC = 8, .props = ALL_PROPS, .dt = dnnl_bf16, .any = 1, .gpu = 1},
        {"bf16 gru r2l L2 T3 N3 C8", GRU, .dir = R2L, .L = 2, .T = 3, .N = 3, .SLC = 8, .DHC = 8,
                .props = ALL_PROPS, .dt = dnnl_bf16},
        {"bf16 lbr_gru bi-sum L1 T3 N2 C8", LBR_GRU, .dir = BSUM, .L = 1, .T = 3, .N = 2, .SLC = 8, .DHC = 8,
                .props = INF | TRAIN, .dt = dnnl_bf16},
        /* f16 */
        {"f16 lstm l2r L1 T3 N2 C8", LSTM, .dir = L2R, .L = 1, .T = 3, .N = 2, .SLC = 8, .DHC = 8,
                .props = INF | TRAIN, .dt = dnnl_f16},
        {"f16 gru l2r L1 T3 N2 C8", GRU, .dir = L2R, .L = 1, .T = 3, .N = 2, .SLC = 8, .DHC = 8, .props = INF,
                .dt = dnnl_f16},
        {"f16 vanilla tanh bi-concat L2 T3 N2 C6", VANILLA, dnnl_eltwise_tanh, .dir = BCAT, .L = 2, .T = 3,
                .N = 2, .SLC = 6, .DHC = 6, .props = INF | TRAIN, .dt = dnnl_f16},
        {"f16 lstm peephole bi-sum L2 T3 N3 C6 any", LSTM, .dir = BSUM, .L = 2, .T = 3, .N = 3, .SLC = 6,
                .DHC = 6, .peephole = 1, .props = INF | TRAIN, .dt = dnnl_f16, .any = 1, .gpu = 1},
        {"f16 lbr_gru r2l L1 T4 N2 SLC5 DHC7 no src_iter", LBR_GRU, .dir = R2L, .L = 1, .T = 4, .N = 2,
                .SLC = 5, .DHC = 7, .no_src_iter = 1, .props = INF | TRAIN, .dt = dnnl_f16, .gpu = 1},
        {"f16 augru l2r L1 T3 N2 C5 ntc", AUGRU, .dir = L2R, .L = 1, .T = 3, .N = 2, .SLC = 5, .DHC = 5,
                .props = INF | TRAIN, .dt = dnnl_f16, .ntc = 1, .gpu = 1},
        {"f16 lbr_augru l2r L1 T3 N2 C4", LBR_AUGRU, .dir = L2R, .L = 1, .T = 3, .N = 2, .SLC = 4, .DHC = 4,
                .props = INF, .dt = dnnl_f16},
        /* f16 states rounded after every step: long enough for unrounded states to drift */
        {"f16 gru l2r L1 T12 N4 C16 states kept in f16", GRU, .dir = L2R, .L = 1, .T = 12, .N = 4, .SLC = 16,
                .DHC = 16, .props = INF, .dt = dnnl_f16, .f16_steps = 1, .gpu = 1},
        {"f16 lstm l2r L1 T12 N4 C16 states kept in f16", LSTM, .dir = L2R, .L = 1, .T = 12, .N = 4, .SLC = 16,
                .DHC = 16, .props = INF, .dt = dnnl_f16, .f16_steps = 1, .gpu = 1},
        /* int8 inference */
        {"int8 lstm l2r L1 T3 N3 SLC5 DHC7 dst u8 per tensor", LSTM, .dir = L2R, .L = 1, .T = 3, .N = 3,
                .SLC = 5, .DHC = 7, .props = INF, .dt = dnnl_u8, .dst_dt = dnnl_u8, .any = 1, .gpu = 1},
        {"int8 lstm l2r L2 T3 N2 C6 dst f32 per gate and channel", LSTM, .dir = L2R, .L = 2, .T = 3, .N = 2,
                .SLC = 6, .DHC = 6, .props = INF, .dt = dnnl_u8, .dst_dt = dnnl_f32, .wmask = 1, .any = 1, .gpu = 1},
        {"int8 gru l2r L1 T3 N3 SLC5 DHC7 dst u8 per gate and channel", GRU, .dir = L2R, .L = 1, .T = 3, .N = 3,
                .SLC = 5, .DHC = 7, .props = INF, .dt = dnnl_u8, .dst_dt = dnnl_u8, .wmask = 1, .any = 1, .gpu = 1},
        {"int8 lstm bi-concat L2 T3 N2 C6 dst u8 per gate and channel", LSTM, .dir = BCAT, .L = 2, .T = 3,
                .N = 2, .SLC = 6, .DHC = 6, .props = INF, .dt = dnnl_u8, .dst_dt = dnnl_u8, .wmask = 1, .any = 1},
        {"int8 lstm bi-sum L1 T3 N2 C6 dst u8 per tensor", LSTM, .dir = BSUM, .L = 1, .T = 3, .N = 2, .SLC = 6,
                .DHC = 6, .props = INF, .dt = dnnl_u8, .dst_dt = dnnl_u8, .any = 1,
                .upstream_bug = "its u8 bidirectional sum adds the data shift twice (q0 + q1, not q0 + q1 - shift)",
                .upstream_bug_forward = 1, .gpu = 1},
        {"int8 gru bi-concat L1 T2 N2 C6 dst f32 per tensor", GRU, .dir = BCAT, .L = 1, .T = 2, .N = 2,
                .SLC = 6, .DHC = 6, .props = INF, .dt = dnnl_u8, .dst_dt = dnnl_f32, .any = 1},
        {"int8 lstm r2l L2 T3 N2 C5 dst u8 per tensor", LSTM, .dir = R2L, .L = 2, .T = 3, .N = 2, .SLC = 5,
                .DHC = 5, .props = INF, .dt = dnnl_u8, .dst_dt = dnnl_u8, .any = 1},
        {"int8 lstm projection l2r L1 T3 N2 SLC5 DHC7 DIC4 dst f32 per channel", LSTM, .dir = L2R, .L = 1,
                .T = 3, .N = 2, .SLC = 5, .DHC = 7, .DIC = 4, .props = INF, .dt = dnnl_u8, .dst_dt = dnnl_f32,
                .wmask = 1, .any = 1, .gpu = 1},
        {"int8 lstm projection bi-concat L2 T2 N3 DHC6 DIC5 dst u8 per tensor", LSTM, .dir = BCAT, .L = 2,
                .T = 2, .N = 3, .SLC = 5, .DHC = 6, .DIC = 5, .props = INF, .dt = dnnl_u8, .dst_dt = dnnl_u8,
                .any = 1},
        {"int8 gru r2l L2 T3 N2 C6 dst u8 per gate and channel no src_iter", GRU, .dir = R2L, .L = 2, .T = 3,
                .N = 2, .SLC = 6, .DHC = 6, .no_src_iter = 1, .props = INF, .dt = dnnl_u8, .dst_dt = dnnl_u8,
                .wmask = 1, .any = 1, .gpu = 1},
        /* plain ldigo s8 weights: ours takes them (its `any`); Intel's library packs */
        {"int8 gru l2r L2 T3 N3 C5 dst u8 per gate and channel ldigo weights", GRU, .dir = L2R, .L = 2, .T = 3,
                .N = 3, .SLC = 5, .DHC = 5, .props = INF, .dt = dnnl_u8, .dst_dt = dnnl_u8, .wmask = 1},
        {"int8 lstm l2r L1 T4 N2 C6 dst f32 no src_iter(_c) dst_iter(_c)", LSTM, .dir = L2R, .L = 1, .T = 4,
                .N = 2, .SLC = 6, .DHC = 6, .no_src_iter = 1, .no_src_iter_c = 1, .no_dst_iter = 1,
                .no_dst_iter_c = 1, .props = INF, .dt = dnnl_u8, .dst_dt = dnnl_f32, .any = 1, .gpu = 1},
};

int main(int argc, char **argv) {
    const char *where = argc > 1 ? argv[1] : "cpu";
    on_gpu = strcmp(where, "gpu") == 0;
    verbose = getenv("RNN_SWEEP_VERBOSE") != NULL;
    (void)unused_helpers;
    if (on_gpu && dnnl_engine_get_count(dnnl_gpu) == 0) SKIP("no OpenCL device");
    CHECK(dnnl_engine_create(&engine, on_gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));

    const char *only = getenv("RNN_SWEEP_ONLY"), *f = getenv("RNN_SWEEP_FULL");
    int full = !on_gpu || (f && strcmp(f, "1") == 0);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        if ((full || cases[i].gpu) && (!only || strstr(cases[i].name, only))) run_case(&cases[i], (int)i + 1);

    /* the reference's gradients, once per cell kind, by finite differences */
    finite_difference_check(VANILLA, 0, 0, BCAT);
    finite_difference_check(LSTM, 1, 1, BCAT);
    finite_difference_check(LSTM, 0, 0, BSUM);
    finite_difference_check(GRU, 0, 0, R2L);
    finite_difference_check(LBR_GRU, 0, 0, BCAT);
    finite_difference_check(AUGRU, 0, 0, L2R);
    finite_difference_check(LBR_AUGRU, 0, 0, BSUM);

    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    printf("rnn_sweep on %s%s: %d runs (forward inference, training, backward) done, %d skipped (unimplemented by this library, or an Intel bug: see the notes), %d failures\n", where,
            full ? "" : " (the GPU subset; RNN_SWEEP_FULL=1 runs all)", n_run, n_skipped, failures);
    return failures ? 1 : 0;
}
