/* The post-op sweep: every eltwise algorithm and every binary algorithm as a post-op,
 * sum (scale, zero point, data type), prelu, binary operands of several types broadcast
 * over every kind of mask, in chains of many post-ops, on each primitive kind that
 * applies post-ops (matmul, inner product, eltwise, binary, softmax), on the engine
 * the argument names:
 *   cpu   the CPU engine
 *   gpu   OpenCL engine 0 (registered once per OpenCL runtime)
 *   ze    the Level Zero engine 0 (registered through the Level Zero loader with the
 *         test driver, under ONEDNN_GPU_RUNTIME=ze)
 *
 * The chains are generated from a fixed seed: each algorithm is one unit, with the
 * guards its domain needs (abs and a shift before sqrt, log and non-integer pow; a clip
 * before exp, square and integer pow; a refreshing add after a comparison), the units
 * are shuffled and packed into chains of up to MAX_CHAIN post-ops, so that each kind
 * builds only a handful of programs per engine (the OpenCL and Level Zero ones compile
 * each chain). Each kind also gets a chain into an integer destination where it has one
 * (the sum then reads the old destination as another type of the same size, with a
 * zero point).
 *
 * The reference evaluates each element's chain in double and carries an error bound
 * along it: the primitive's own result comes with its f32 error (accumulation length
 * times the magnitudes for matmul and inner product, the softmax bounds, exact for
 * relu and add); each post-op maps the interval (value +- bound) through its function
 * (so a comparison or a round whose threshold lies inside the interval widens the bound
 * to cover both outcomes) and adds its own f32 error. The result must lie within the
 * final bound plus the rounding to the destination type (prim_util.h: matches). So that
 * the check cannot pass by being loose, at most a tenth of a chain's elements may end
 * with a bound above 1e-3 of their magnitude (or of 1, for smaller results).
 *
 * Debugging: SWEEP_DEBUG=1 lists the elements with a loose bound; SWEEP_TRACE=<element>
 * with SWEEP_CHAIN=<text of the chain's name> prints that element's reference, step by
 * step, with its bound. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "eltwise_ref.h"
#include "prim_util.h"

enum { MATMUL, IP, ELTWISE, BINARY, SOFTMAX, NKINDS };
static const char *kind_name[] = {"matmul", "inner_product", "eltwise", "binary", "softmax"};

enum { MAX_CHAIN = 14, MAX_STEPS = 160 };

typedef enum { ST_ELT, ST_BIN, ST_SUM, ST_PRELU } step_kind_t;

typedef struct {
    step_kind_t kind;
    alg_t elt;               /* ST_ELT */
    dnnl_alg_kind_t bin;     /* ST_BIN */
    int mask;                /* operand dims: bit d set = full along d (ST_BIN, ST_PRELU) */
    dnnl_data_type_t dt;     /* src1's type (ST_BIN) */
    float scale;             /* ST_SUM */
    int32_t zp;              /* ST_SUM */
    dnnl_data_type_t sum_dt; /* ST_SUM: undef, or a type the size of dst's */
} step_t;

static int failures, checked, unchecked_loose;

/* ---- the steps ------------------------------------------------------------------ */

static step_t elt(dnnl_alg_kind_t alg, float alpha, float beta) {
    step_t s;
    memset(&s, 0, sizeof s);
    s.kind = ST_ELT;
    s.elt.alg = alg;
    s.elt.alpha = alpha;
    s.elt.beta = beta;
    return s;
}

static int rng_int(int n) { return (int)((rng_uniform() + 1.0) * 0.5 * n) % n; }

/* A mask over ndims dimensions: every kind of broadcast, chosen by the generator. */
static int random_mask(int ndims) {
    int full = (1 << ndims) - 1;
    switch (rng_int(5)) {
        case 0: return full;               /* no broadcast */
        case 1: return 0;                  /* a scalar */
        case 2: return 1 << 1;             /* per channel */
        case 3: return full & ~1;          /* broadcast along the batch */
        default: return rng_int(full + 1); /* any */
    }
}

static step_t bin(dnnl_alg_kind_t alg, int ndims) {
    static const dnnl_data_type_t dts[] = {dnnl_f32, dnnl_bf16, dnnl_s8, dnnl_f16};
    step_t s;
    memset(&s, 0, sizeof s);
    s.kind = ST_BIN;
    s.bin = alg;
    s.mask = random_mask(ndims);
    s.dt = dts[rng_int(4)];
    return s;
}

static step_t prelu(int ndims) {
    step_t s;
    memset(&s, 0, sizeof s);
    s.kind = ST_PRELU;
    s.mask = random_mask(ndims);
    return s;
}

static step_t sum(float scale, int32_t zp, dnnl_data_type_t dt) {
    step_t s;
    memset(&s, 0, sizeof s);
    s.kind = ST_SUM;
    s.scale = scale;
    s.zp = zp;
    s.sum_dt = dt;
    return s;
}

/* One algorithm with its guards. */
typedef struct {
    step_t s[4];
    int n;
} unit_t;

static unit_t unit1(step_t a) { return (unit_t){{a}, 1}; }
static unit_t unit2(step_t a, step_t b) { return (unit_t){{a, b}, 2}; }
static unit_t unit3(step_t a, step_t b, step_t c) { return (unit_t){{a, b, c}, 3}; }

/* Every eltwise algorithm (the forward value of the _use_dst_for_bwd ones is their
 * base algorithm's) and every binary algorithm, each with its guards. */
static int all_units(unit_t *u, int ndims) {
    const step_t pos_abs = elt(dnnl_eltwise_abs, 0, 0), pos_shift = elt(dnnl_eltwise_linear, 1.f, 0.25f);
    const step_t clip4 = elt(dnnl_eltwise_clip, -4.f, 4.f);
    int n = 0;
    u[n++] = unit1(elt(dnnl_eltwise_relu, 0.2f, 0));
    u[n++] = unit1(elt(dnnl_eltwise_relu, 0, 0));
    u[n++] = unit1(elt(dnnl_eltwise_tanh, 0, 0));
    u[n++] = unit1(elt(dnnl_eltwise_elu, 0.7f, 0));
    u[n++] = unit2(clip4, elt(dnnl_eltwise_square, 0, 0));
    u[n++] = unit1(elt(dnnl_eltwise_abs, 0, 0));
    u[n++] = unit3(pos_abs, pos_shift, elt(dnnl_eltwise_sqrt, 0, 0));
    u[n++] = unit1(elt(dnnl_eltwise_linear, 1.5f, -0.5f));
    u[n++] = unit1(elt(dnnl_eltwise_soft_relu, 2.5f, 0));
    u[n++] = unit1(elt(dnnl_eltwise_soft_relu, -1.f, 0));
    u[n++] = unit1(elt(dnnl_eltwise_hardsigmoid, 0.2f, 0.5f));
    u[n++] = unit1(elt(dnnl_eltwise_logistic, 0, 0));
    u[n++] = unit2(clip4, elt(dnnl_eltwise_exp, 0, 0));
    u[n++] = unit1(elt(dnnl_eltwise_gelu_tanh, 0, 0));
    u[n++] = unit1(elt(dnnl_eltwise_swish, 0.5f, 0));
    u[n++] = unit3(pos_abs, pos_shift, elt(dnnl_eltwise_log, 0, 0));
    u[n++] = unit1(elt(dnnl_eltwise_clip, -1.f, 2.f));
    u[n++] = unit1(elt(dnnl_eltwise_clip_v2, -1.f, 2.f));
    u[n++] = unit2(clip4, elt(dnnl_eltwise_pow, 1.5f, 2.f));
    u[n++] = unit3(pos_abs, pos_shift, elt(dnnl_eltwise_pow, 2.f, 0.5f));
    u[n++] = unit1(elt(dnnl_eltwise_gelu_erf, 0, 0));
    u[n++] = unit2(elt(dnnl_eltwise_linear, 3.f, 0.f), elt(dnnl_eltwise_round, 0, 0));
    u[n++] = unit1(elt(dnnl_eltwise_mish, 0, 0));
    u[n++] = unit1(elt(dnnl_eltwise_hardswish, 1.f / 6.f, 0.5f));
    u[n++] = unit1(elt(dnnl_eltwise_relu_use_dst_for_bwd, 0.2f, 0));
    u[n++] = unit1(elt(dnnl_eltwise_tanh_use_dst_for_bwd, 0, 0));
    u[n++] = unit1(elt(dnnl_eltwise_elu_use_dst_for_bwd, 0.7f, 0));
    u[n++] = unit3(pos_abs, pos_shift, elt(dnnl_eltwise_sqrt_use_dst_for_bwd, 0, 0));
    u[n++] = unit1(elt(dnnl_eltwise_logistic_use_dst_for_bwd, 0, 0));
    u[n++] = unit2(clip4, elt(dnnl_eltwise_exp_use_dst_for_bwd, 0, 0));
    u[n++] = unit1(elt(dnnl_eltwise_clip_v2_use_dst_for_bwd, -1.f, 2.f));
    const dnnl_alg_kind_t arith[] = {dnnl_binary_add, dnnl_binary_mul, dnnl_binary_max,
            dnnl_binary_min, dnnl_binary_div, dnnl_binary_sub, dnnl_binary_select};
    for (size_t i = 0; i < sizeof arith / sizeof *arith; i++)
        u[n++] = arith[i] == dnnl_binary_mul ? unit2(clip4, bin(arith[i], ndims)) : unit1(bin(arith[i], ndims));
    const dnnl_alg_kind_t cmp[] = {dnnl_binary_ge, dnnl_binary_gt, dnnl_binary_le, dnnl_binary_lt,
            dnnl_binary_eq, dnnl_binary_ne};
    for (size_t i = 0; i < sizeof cmp / sizeof *cmp; i++) {
        /* A full-size f32 addend afterwards, so the chain goes on with varied values. */
        step_t refresh = bin(dnnl_binary_add, ndims);
        refresh.mask = (1 << ndims) - 1;
        refresh.dt = dnnl_f32;
        u[n++] = unit2(bin(cmp[i], ndims), refresh);
    }
    u[n++] = unit1(prelu(ndims));
    u[n++] = unit1(prelu(ndims));
    return n;
}

/* Chains (MAX_CHAIN steps at most) from the shuffled units; the first chain starts
 * with a sum (scale 0.5, zero point 1), the second with one of scale -1 and the
 * destination's type given explicitly. */
static int make_chains(step_t chains[][MAX_CHAIN], int *len, int ndims, dnnl_data_type_t dst_dt, uint64_t seed) {
    rng_seed(seed);
    unit_t u[64];
    int n = all_units(u, ndims);
    for (int i = n - 1; i > 0; i--) {
        int j = rng_int(i + 1);
        unit_t t = u[i];
        u[i] = u[j];
        u[j] = t;
    }
    int nchains = 0, k = 0;
    while (k < n) {
        int l = 0;
        if (nchains == 0) chains[nchains][l++] = sum(0.5f, 1, dnnl_data_type_undef);
        if (nchains == 1) chains[nchains][l++] = sum(-1.f, 0, dst_dt);
        while (k < n && l + u[k].n <= MAX_CHAIN) {
            for (int i = 0; i < u[k].n; i++)
                chains[nchains][l++] = u[k].s[i];
            k++;
        }
        len[nchains++] = l;
    }
    return nchains;
}

/* ---- the reference ------------------------------------------------------------- */

static double bin_ref(dnnl_alg_kind_t alg, double a, double b, double c) {
    switch (alg) {
        case dnnl_binary_add: return a + b;
        case dnnl_binary_mul: return a * b;
        case dnnl_binary_max: return a > b ? a : b;
        case dnnl_binary_min: return a < b ? a : b;
        case dnnl_binary_div: return a / b;
        case dnnl_binary_sub: return a - b;
        case dnnl_binary_ge: return a >= b;
        case dnnl_binary_gt: return a > b;
        case dnnl_binary_le: return a <= b;
        case dnnl_binary_lt: return a < b;
        case dnnl_binary_eq: return a == b;
        case dnnl_binary_ne: return a != b;
        default: return c != 0 ? a : b;
    }
}

typedef struct {
    const step_t *step;
    double b, c; /* ST_BIN: src1, src2; ST_PRELU: weight in b; ST_SUM: old (as sum_dt) in b */
} bound_step_t;

static double step_value(const bound_step_t *s, double x) {
    switch (s->step->kind) {
        case ST_ELT: return fwd_ref(s->step->elt, (float)x);
        case ST_BIN: return bin_ref(s->step->bin, x, s->b, s->c);
        case ST_PRELU: return x > 0 ? x : x * s->b;
        default: return x + s->step->scale * (s->b - s->step->zp);
    }
}

static int is_f32(double v) { return (double)(float)v == v; }

/* The step's own f32 error at input x, output y. Where the input is exact (err 0) and
 * a correctly rounded operation's result is an f32, the step is exact too. */
static double step_error(const bound_step_t *s, double x, double y, int exact_in) {
    const step_t *t = s->step;
    switch (t->kind) {
        case ST_ELT: {
            double lin = (double)t->elt.alpha * x + t->elt.beta;
            switch (base_alg(t->elt.alg)) {
                /* No rounding at all. */
                case dnnl_eltwise_abs:
                case dnnl_eltwise_clip:
                case dnnl_eltwise_clip_v2:
                case dnnl_eltwise_round: return 0;
                case dnnl_eltwise_relu: return x > 0 || (exact_in && is_f32(y)) ? 0 : F32_EPS * fabs(y);
                case dnnl_eltwise_linear: return exact_in && is_f32(y) && is_f32((double)t->elt.alpha * x) ? 0 : fwd_bound(t->elt, (float)x, y);
                /* Clamped: exactly 0 or 1 (hardswish: 0 or x) once alpha x + beta is
                 * clear of the edge by more than its rounding. */
                case dnnl_eltwise_hardsigmoid:
                case dnnl_eltwise_hardswish: {
                    double e = F32_EPS * (fabs((double)t->elt.alpha * x) + fabs(lin));
                    if (lin < -e || lin > 1 + e) return 0;
                    return fwd_bound(t->elt, (float)x, y);
                }
                default: return fwd_bound(t->elt, (float)x, y);
            }
        }
        case ST_BIN:
            switch (t->bin) {
                case dnnl_binary_add:
                case dnnl_binary_sub:
                case dnnl_binary_mul: return exact_in && is_f32(y) ? 0 : F32_EPS * fabs(y);
                case dnnl_binary_div: return 3 * F32_EPS * fabs(y);
                default: return 0; /* max, min, select, comparisons: exact */
            }
        case ST_PRELU: return x > 0 || (exact_in && is_f32(y)) ? 0 : F32_EPS * fabs(y);
        default: {
            double term = t->scale * (s->b - t->zp);
            return exact_in && is_f32(term) && is_f32(y) ? 0 : F32_EPS * (fabs(y) + fabs(term));
        }
    }
}

/* Maps (v, err) through the step: the value at v, the bound from the function's values
 * over the interval, plus the step's own error. */
static void apply(const bound_step_t *s, double *v, double *err) {
    /* The library holds x as an f32: within half an ulp of the reference's x, unless
     * that is an f32 itself. */
    double x = *v, e = *err + (is_f32(x) ? 0 : 0.5 * ulp_of(dnnl_f32, x)), y = step_value(s, x), spread = 0;
    if (e > 0) {
        const double at[] = {-1, -0.5, -0.25, 0.25, 0.5, 1};
        for (int i = 0; i < 6; i++)
            spread = fmax(spread, fabs(step_value(s, x + at[i] * e) - y));
    }
    *v = y;
    *err = spread + step_error(s, x, y, *err == 0 && is_f32(x));
}

/* ---- one chain on one kind ------------------------------------------------------- */

typedef struct {
    dnnl_memory_desc_t md;
    dnnl_memory_t mem;
    float *v;
    int arg;
    layout_t l;
} operand_t;

static int64_t bcast_index(const layout_t *op, const layout_t *dst, int64_t idx) {
    int64_t pos[DNNL_MAX_NDIMS], f = 0;
    for (int d = dst->ndims - 1; d >= 0; d--) {
        pos[d] = idx % dst->dims[d];
        idx /= dst->dims[d];
    }
    for (int d = 0; d < dst->ndims; d++)
        f = f * op->dims[d] + (op->dims[d] == 1 ? 0 : pos[d]);
    return f;
}

static dnnl_format_tag_t plain(int ndims) {
    return ndims == 2 ? dnnl_ab : ndims == 3 ? dnnl_abc : dnnl_abcd;
}

static float *values(int64_t n, dnnl_data_type_t dt, double lo, double hi) {
    float *v = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; i < n; i++)
        v[i] = rounded(dt, (float)(0.25 * nearbyint(4 * (lo + (hi - lo) * 0.5 * (rng_uniform() + 1)))));
    return v;
}

static dnnl_status_t create(int kind, const_dnnl_memory_desc_t a, const_dnnl_memory_desc_t b,
        const_dnnl_memory_desc_t d, const_dnnl_primitive_attr_t attr, dnnl_primitive_desc_t *pd) {
    switch (kind) {
        case MATMUL: return dnnl_matmul_primitive_desc_create(pd, engine, a, b, NULL, d, attr);
        case IP:
            return dnnl_inner_product_forward_primitive_desc_create(
                    pd, engine, dnnl_forward_inference, a, b, NULL, d, attr);
        case ELTWISE:
            return dnnl_eltwise_forward_primitive_desc_create(
                    pd, engine, dnnl_forward_inference, dnnl_eltwise_relu, a, d, 0.f, 0.f, attr);
        case BINARY: return dnnl_binary_primitive_desc_create(pd, engine, dnnl_binary_add, a, b, d, attr);
        default:
            return dnnl_softmax_forward_primitive_desc_create(
                    pd, engine, dnnl_forward_inference, dnnl_softmax_accurate, a, d, 1, attr);
    }
}

/* The kind's own result at dst element i and its f32 error. */
static void base(int kind, const layout_t *la, const float *a, const float *b, const layout_t *ld,
        int64_t i, double *v, double *err) {
    switch (kind) {
        case MATMUL: { /* (batch, M, K) x (batch, K, N) */
            int64_t M = ld->dims[1], N = ld->dims[2], K = la->dims[2];
            int64_t bt = i / (M * N), m = i / N % M, n = i % N;
            double s = 0, mag = 0;
            for (int64_t k = 0; k < K; k++) {
                double p = (double)a[(bt * M + m) * K + k] * b[(bt * K + k) * N + n];
                s += p;
                mag += fabs(p);
            }
            *v = s;
            *err = F32_EPS * (double)(K + 2) * mag;
            break;
        }
        case IP: { /* (MB, IC) x (OC, IC) */
            int64_t OC = ld->dims[1], IC = la->dims[1], mb = i / OC, o = i % OC;
            double s = 0, mag = 0;
            for (int64_t k = 0; k < IC; k++) {
                double p = (double)a[mb * IC + k] * b[o * IC + k];
                s += p;
                mag += fabs(p);
            }
            *v = s;
            *err = F32_EPS * (double)(IC + 2) * mag;
            break;
        }
        case ELTWISE:
            *v = a[i] > 0 ? a[i] : 0;
            *err = 0;
            break;
        case BINARY:
            *v = (double)a[i] + b[i];
            *err = F32_EPS * fabs(*v);
            break;
        default: { /* softmax over the last of 2 dims */
            int64_t C = ld->dims[1], r = i / C;
            double mx = -INFINITY, s = 0;
            for (int64_t k = 0; k < C; k++)
                mx = fmax(mx, a[r * C + k]);
            for (int64_t k = 0; k < C; k++)
                s += exp(a[r * C + k] - mx);
            *v = exp(a[i] - mx) / s;
            *err = F32_EPS * *v * (2 * fabs(a[i] - mx) + (double)C + 16) + 0x1p-126;
        }
    }
}

static void run_chain(int kind, const step_t *chain, int len, dnnl_data_type_t dst_dt, const char *what) {
    /* Shapes: dst 3-D for matmul, 4-D for eltwise and binary, 2-D otherwise. */
    dnnl_dims_t ad, bd, dd;
    int nd;
    switch (kind) {
        case MATMUL:
            nd = 3;
            memcpy(ad, (dnnl_dims_t){2, 5, 9}, sizeof ad);
            memcpy(bd, (dnnl_dims_t){2, 9, 7}, sizeof bd);
            memcpy(dd, (dnnl_dims_t){2, 5, 7}, sizeof dd);
            break;
        case IP:
            nd = 2;
            memcpy(ad, (dnnl_dims_t){6, 11}, sizeof ad);
            memcpy(bd, (dnnl_dims_t){13, 11}, sizeof bd);
            memcpy(dd, (dnnl_dims_t){6, 13}, sizeof dd);
            break;
        case SOFTMAX:
            nd = 2;
            memcpy(ad, (dnnl_dims_t){6, 13}, sizeof ad);
            memcpy(dd, ad, sizeof dd);
            break;
        default:
            nd = 4;
            memcpy(ad, (dnnl_dims_t){2, 3, 4, 5}, sizeof ad);
            memcpy(bd, ad, sizeof bd);
            memcpy(dd, ad, sizeof dd);
    }
    dnnl_data_type_t src_dt = kind == ELTWISE ? dst_dt : dnnl_f32;
    dnnl_memory_desc_t amd = md_tag(nd, ad, src_dt, plain(nd));
    dnnl_memory_desc_t bmd = kind == ELTWISE || kind == SOFTMAX ? NULL : md_tag(nd, bd, dnnl_f32, plain(nd));
    dnnl_memory_desc_t dmd = md_tag(nd, dd, dst_dt, plain(nd));
    layout_t la = layout_of(amd), ld = layout_of(dmd);

    dnnl_post_ops_t po = NULL;
    CHECK(dnnl_post_ops_create(&po));
    operand_t ops[2 * MAX_CHAIN];
    int nops = 0, src1_of[MAX_CHAIN], src2_of[MAX_CHAIN];
    for (int i = 0; i < len; i++) {
        const step_t *s = &chain[i];
        src1_of[i] = src2_of[i] = -1;
        dnnl_dims_t od;
        for (int d = 0; d < nd; d++)
            od[d] = s->mask >> d & 1 ? dd[d] : 1;
        switch (s->kind) {
            case ST_ELT: CHECK(dnnl_post_ops_append_eltwise(po, s->elt.alg, s->elt.alpha, s->elt.beta)); break;
            case ST_SUM: CHECK(dnnl_post_ops_append_sum(po, s->scale, s->zp, s->sum_dt)); break;
            case ST_PRELU: {
                operand_t *o = &ops[nops];
                src1_of[i] = nops++;
                o->md = md_tag(nd, od, dnnl_f32, plain(nd));
                o->arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_WEIGHTS;
                o->v = values(layout_of(o->md).nelems, dnnl_f32, -0.5, 1.0);
                CHECK(dnnl_post_ops_append_prelu(po, s->mask));
                break;
            }
            case ST_BIN: {
                operand_t *o = &ops[nops];
                src1_of[i] = nops++;
                o->md = md_tag(nd, od, s->dt, plain(nd));
                o->arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_1;
                int64_t n = layout_of(o->md).nelems;
                if (s->bin == dnnl_binary_div) {
                    o->v = values(n, s->dt, 0.5, 2.0);
                    for (int64_t k = 0; k < n; k++) {
                        if (o->v[k] == 0) o->v[k] = 1; /* an s8 0.5 rounds to 0 */
                        if (k % 2) o->v[k] = -o->v[k];
                    }
                } else {
                    o->v = values(n, s->dt, -2.0, 2.0);
                }
                if (s->bin == dnnl_binary_select) {
                    operand_t *c = &ops[nops];
                    src2_of[i] = nops++;
                    c->md = md_tag(nd, dd, dnnl_s8, plain(nd));
                    c->arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_2;
                    int64_t nc = layout_of(c->md).nelems;
                    c->v = malloc(sizeof(float) * (size_t)nc);
                    for (int64_t k = 0; k < nc; k++)
                        c->v[k] = (float)(rng_uniform() > 0);
                    CHECK(dnnl_post_ops_append_binary_v2(po, s->bin, o->md, c->md));
                } else {
                    CHECK(dnnl_post_ops_append_binary(po, s->bin, o->md));
                }
                break;
            }
        }
    }
    dnnl_primitive_attr_t attr = NULL;
    CHECK(dnnl_primitive_attr_create(&attr));
    CHECK(dnnl_primitive_attr_set_post_ops(attr, po));
    CHECK(dnnl_post_ops_destroy(po));
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = create(kind, amd, bmd, dmd, attr, &pd);
    CHECK(dnnl_primitive_attr_destroy(attr));
    if (st != dnnl_success) {
        fprintf(stderr, "%s: descriptor creation: %s\n", what, dnnl_status2str(st));
        failures++;
    } else {
        for (int i = 0; i < nops; i++) {
            ops[i].l = layout_of(ops[i].md);
            ops[i].mem = memory(ops[i].md);
            fill(ops[i].mem, ops[i].v);
        }
        /* Inputs: quarters (exact in every type); old dst values for the sum. */
        float *a = values(la.nelems, src_dt, -3.0, 3.0);
        float *b = bmd ? values(layout_of(bmd).nelems, dnnl_f32, -2.0, 2.0) : NULL;
        float *old = values(ld.nelems, dst_dt, is_int_dt(dst_dt) ? -60.0 : -3.0, is_int_dt(dst_dt) ? 60.0 : 3.0);
        dnnl_memory_t ma = memory(amd), mb = bmd ? memory(bmd) : NULL, md = memory(dmd);
        fill(ma, a);
        if (mb) fill(mb, b);
        fill(md, old);
        dnnl_exec_arg_t args[4 + 2 * MAX_CHAIN];
        int nargs = 0;
        args[nargs++] = (dnnl_exec_arg_t){kind == BINARY ? DNNL_ARG_SRC_0 : DNNL_ARG_SRC, ma};
        if (mb) args[nargs++] = (dnnl_exec_arg_t){kind == BINARY ? DNNL_ARG_SRC_1 : DNNL_ARG_WEIGHTS, mb};
        args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_DST, md};
        for (int i = 0; i < nops; i++)
            args[nargs++] = (dnnl_exec_arg_t){ops[i].arg, ops[i].mem};
        dnnl_primitive_t p = NULL;
        CHECK(dnnl_primitive_create(&p, pd));
        CHECK(dnnl_primitive_execute(p, stream, nargs, args));
        CHECK(dnnl_stream_wait(stream));
        CHECK(dnnl_primitive_destroy(p));
        float *got = malloc(sizeof(float) * (size_t)ld.nelems);
        int padding_ok;
        read_back(md, got, &padding_ok);

        int bad = 0, loose = 0;
        const char *te = getenv("SWEEP_TRACE"), *tc = getenv("SWEEP_CHAIN");
        int64_t trace = te ? atoll(te) : -1;
        const char *trace_chain = tc ? tc : "";
        for (int64_t i = 0; i < ld.nelems; i++) {
            double v, err;
            base(kind, &la, a, b, &ld, i, &v, &err);
            for (int k = 0; k < len; k++) {
                bound_step_t bs = {&chain[k], 0, 0};
                if (chain[k].kind == ST_SUM) {
                    /* The old value as the sum reads it: dst's bytes as sum_dt. */
                    dnnl_data_type_t sdt = chain[k].sum_dt == dnnl_data_type_undef ? dst_dt : chain[k].sum_dt;
                    unsigned char bytes[4];
                    store(dst_dt, bytes, 0, old[i]);
                    bs.b = load(sdt, bytes, 0);
                } else if (src1_of[k] >= 0) {
                    const operand_t *o = &ops[src1_of[k]];
                    bs.b = o->v[bcast_index(&o->l, &ld, i)];
                    if (src2_of[k] >= 0) bs.c = ops[src2_of[k]].v[i];
                }
                apply(&bs, &v, &err);
                if (trace == i && strstr(what, trace_chain))
                    fprintf(stderr, "    step %d (kind %d): %g +- %g (b %g)\n", k, chain[k].kind, v, err, bs.b);
            }
            checked++;
            if (err > 1e-3 * fmax(fabs(v), 1.0)) {
                loose++;
                if (getenv("SWEEP_DEBUG")) fprintf(stderr, "  loose %.40s %lld: %g +- %g\n", what, (long long)i, v, err);
            }
            if (!matches(dst_dt, got[i], v, err)) {
                if (bad++ < 3)
                    fprintf(stderr, "%s: element %lld: got %.9g, want %.9g (bound %.3g)\n", what,
                            (long long)i, got[i], v, err);
            }
        }
        if (bad) {
            fprintf(stderr, "%s: %d of %lld elements wrong\n", what, bad, (long long)ld.nelems);
            failures++;
        }
        if (loose * 10 > ld.nelems) {
            fprintf(stderr, "%s: %d of %lld elements have a loose bound: the check would say "
                            "little\n", what, loose, (long long)ld.nelems);
            failures++;
        }
        unchecked_loose += loose;
        free(a);
        free(b);
        free(old);
        free(got);
        CHECK(dnnl_memory_destroy(ma));
        if (mb) CHECK(dnnl_memory_destroy(mb));
        CHECK(dnnl_memory_destroy(md));
        for (int i = 0; i < nops; i++)
            CHECK(dnnl_memory_destroy(ops[i].mem));
        CHECK(dnnl_primitive_desc_destroy(pd));
    }
    for (int i = 0; i < nops; i++) {
        CHECK(dnnl_memory_desc_destroy(ops[i].md));
        free(ops[i].v);
    }
    CHECK(dnnl_memory_desc_destroy(amd));
    if (bmd) CHECK(dnnl_memory_desc_destroy(bmd));
    CHECK(dnnl_memory_desc_destroy(dmd));
}

static void describe(const step_t *chain, int len, char *out, size_t size) {
    size_t n = 0;
    for (int i = 0; i < len && n + 1 < size; i++) {
        const step_t *s = &chain[i];
        const char *name = s->kind == ST_ELT ? dnnl_alg_kind2str(s->elt.alg) + 8
                : s->kind == ST_BIN          ? dnnl_alg_kind2str(s->bin) + 7
                : s->kind == ST_SUM          ? "sum"
                                             : "prelu";
        n += (size_t)snprintf(out + n, size - n, "%s%s", i ? "," : "", name);
    }
}

int main(int argc, char **argv) {
    /* Level Zero runs get no argument (dnnl_ze_test), but ONEDNN_GPU_RUNTIME=ze. */
    const char *rt = getenv("ONEDNN_GPU_RUNTIME");
    const char *where = argc > 1 ? argv[1] : rt && strcmp(rt, "ze") == 0 ? "ze" : "cpu";
    int gpu = strcmp(where, "cpu") != 0;
    if (gpu && dnnl_engine_get_count(dnnl_gpu) == 0)
        SKIP(strcmp(where, "ze") == 0 ? "no Level Zero device" : "no OpenCL device");
    CHECK(dnnl_engine_create(&engine, gpu ? dnnl_gpu : dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));

    int nchains_total = 0;
    for (int kind = 0; kind < NKINDS; kind++) {
        int nd = kind == MATMUL ? 3 : kind == ELTWISE || kind == BINARY ? 4 : 2;
        step_t chains[16][MAX_CHAIN];
        int len[16];
        int n = make_chains(chains, len, nd, dnnl_f32, 1000 + (uint64_t)kind);
        for (int c = 0; c < n; c++) {
            char what[512];
            int w = snprintf(what, sizeof what, "%s on %s, chain %d: ", kind_name[kind], where, c);
            describe(chains[c], len[c], what + w, sizeof what - (size_t)w);
            run_chain(kind, chains[c], len[c], dnnl_f32, what);
        }
        nchains_total += n;
        /* An integer destination: the sum reads it as the other 8-bit type, with a zero
         * point; a chain of a few post-ops, scaled up so that rounding matters. */
        if (kind == ELTWISE || kind == BINARY || kind == SOFTMAX) {
            dnnl_data_type_t dt = kind == SOFTMAX ? dnnl_u8 : dnnl_s8;
            rng_seed(2000 + (uint64_t)kind);
            step_t chain[MAX_CHAIN];
            int l = 0;
            chain[l++] = sum(0.5f, 3, dt == dnnl_s8 ? dnnl_u8 : dnnl_s8);
            chain[l++] = elt(dnnl_eltwise_tanh, 0, 0);
            chain[l++] = bin(dnnl_binary_mul, nd);
            chain[l++] = prelu(nd);
            chain[l++] = elt(dnnl_eltwise_linear, 37.f, 5.f);
            char what[512];
            int w = snprintf(what, sizeof what, "%s on %s, %s dst: ", kind_name[kind], where, dnnl_dt2str(dt));
            describe(chain, l, what + w, sizeof what - (size_t)w);
            run_chain(kind, chain, l, dt, what);
            nchains_total++;
        }
    }
    CHECK(dnnl_stream_destroy(stream));
    CHECK(dnnl_engine_destroy(engine));
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("post-op sweep on %s: %d chains over %d kinds, %d elements checked (%d with a bound "
           "above 1e-3 relative)\n", where, nchains_total, NKINDS, checked, unchecked_loose);
    return 0;
}
