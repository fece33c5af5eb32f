/* A differential run against Intel's CPU library.
 *
 * FUZZ_CONFIGS seeded random configurations (default 600 on the CPU engine,
 * 60 on OpenCL) of every implemented kind -- eltwise forward and backward,
 * binary, softmax forward and backward, reorder, sum, concat, matmul, inner
 * product forward, backward data and backward weights -- with random shapes,
 * data types, layouts (plain, permuted, blocked, `any`) and attributes that
 * both libraries have (post-ops: eltwise, binary, sum; scales; zero points),
 * over the same inputs, are run through both libraries: Intel's (the
 * directory holding its libdnnl.so.3 is DNNL_REFERENCE_LIBDIR, without which
 * this skips with 77: PyPI onednn, v3.13, which scripts/test.sh installs and
 * whose CPU engine is a SYCL device over Intel's OpenCL runtime -- what it
 * must see comes in DNNL_FUZZ_REFERENCE_ENV, `VAR=value|...`, set in its child
 * only; or onednn-cpu-gomp, v3.2) on its CPU engine, and ours on the CPU
 * engine or, with `gpu`, on the first OpenCL engine. The
 * two export the same symbols, so each is dlopen'ed in a forked child of its
 * own (this program does not link to either) and the results come back
 * through shared memory. Outputs are compared element by element with a
 * tolerance from the output type and the op (floating outputs: 1e-5 of
 * max(|x|, 1) for exact ops, 1e-4 with transcendental functions, 4 ulps for
 * bf16 and f16; integer outputs: 1). Both refusing a configuration is fine;
 * one refusing is printed and counted apart (ours_refused, ref_refused), not
 * as a wrong result. Where the two disagree on a binary, matmul or inner
 * product configuration, the values are also computed here from the
 * definitions: when ours matches them, the difference is Intel's, printed and
 * counted apart (ref_wrong).
 *
 * With Intel's library older than v3.13 (PyPI onednn-cpu-gomp 2023.2.0 is
 * v3.2; scripts/test.sh gives PyPI onednn, v3.13), the differences between
 * v3.2 and v3.13 (which we follow) are not compared:
 *  - reorder with destination scales and a sum post-op: v3.13 computes
 *    (src_scale*(src - src_zp) + beta*dst_old)/dst_scale + dst_zp, v3.2
 *    computed src_scale*src/dst_scale + beta*dst_old;
 *  - reorder with a sum post-op and a destination zero point (v3.13: the
 *    zero point after the sum, the old value as stored);
 *  - eltwise forward with a sum post-op: upstream documents binary post-ops
 *    only for eltwise; v3.2 accepts a sum and ignores it (swish then logistic
 *    then sum 0.5 of src 0, dst -1.5 gives 0.5 there, -0.25 here), ours applies
 *    it as every other kind does;
 *  - binary `select` (a third source) does not exist in v3.2: not generated.
 * Such configurations are counted as `excluded`.
 *
 * Usage: differential [cpu|gpu]. Environment: DNNL_REFERENCE_LIBDIR,
 * DNNL_FUZZ_REFERENCE_ENV, FUZZ_SEED, FUZZ_CONFIGS, FUZZ_FIRST, FUZZ_DIFF_ALL
 * (compare the excluded configurations too) (README.md). */
#include "fuzz.h"

#include <dlfcn.h>
#include <math.h>

#ifndef DNNL_OURS_LIB
#error "DNNL_OURS_LIB (the path of our libdnnl.so.3) must be defined"
#endif

/* ---- the API of the library a child loaded -------------------------------------- */

#define API(X) \
    X(engine_create) X(engine_destroy) X(stream_create) X(stream_destroy) X(stream_wait) \
    X(memory_desc_create_with_tag) X(memory_desc_destroy) X(memory_desc_query) \
    X(memory_desc_get_size) X(memory_create) X(memory_destroy) X(memory_map_data) \
    X(memory_unmap_data) X(primitive_attr_create) X(primitive_attr_destroy) \
    X(primitive_attr_set_scales_mask) X(primitive_attr_set_zero_points_mask) \
    X(primitive_attr_set_post_ops) X(post_ops_create) X(post_ops_destroy) \
    X(post_ops_append_eltwise) X(post_ops_append_sum) X(post_ops_append_binary) \
    X(eltwise_forward_primitive_desc_create) X(eltwise_backward_primitive_desc_create) \
    X(binary_primitive_desc_create) X(softmax_forward_primitive_desc_create) \
    X(softmax_backward_primitive_desc_create) X(reorder_primitive_desc_create) \
    X(sum_primitive_desc_create) X(concat_primitive_desc_create) \
    X(matmul_primitive_desc_create) X(inner_product_forward_primitive_desc_create) \
    X(inner_product_backward_data_primitive_desc_create) \
    X(inner_product_backward_weights_primitive_desc_create) X(primitive_desc_query_md) \
    X(primitive_desc_destroy) X(primitive_create) X(primitive_destroy) X(primitive_execute) \
    X(set_verbose) X(version)

typedef struct {
#define FIELD(name) __typeof__(&dnnl_##name) name;
    API(FIELD)
#undef FIELD
} api_t;
static api_t A;

/* dlopen(path), first loading from `dir` each dependency the dynamic loader
 * cannot find by itself (recursively). NULL, with the reason printed, when it
 * cannot. */
static void *open_with_deps(const char *dir, const char *path, int flags, int depth) {
    for (int tries = 0; tries < 64; tries++) {
        void *h = dlopen(path, flags);
        if (h) return h;
        char err[1024];
        const char *e = dlerror();
        snprintf(err, sizeof err, "%s", e ? e : "?");
        const char *colon = strstr(err, ": cannot open shared object file");
        const char *name = colon;
        while (name && name > err && name[-1] != ' ') name--;
        if (!colon || depth > 16 || colon - name <= 0 || colon - name > 200) {
            printf("cannot load %s: %s\n", path, err);
            return NULL;
        }
        char dep[4400];
        snprintf(dep, sizeof dep, "%.4095s/%.*s", dir, (int)(colon - name), name);
        if (strcmp(dep, path) == 0 || !open_with_deps(dir, dep, RTLD_NOW | RTLD_GLOBAL, depth + 1))
            return NULL;
    }
    return NULL;
}

/* Loads library `path` into this (child) process; 0 when it cannot. Intel's
 * build needs SYCL, TBB and the compiler runtime from its own directory (which
 * the reference runs put on LD_LIBRARY_PATH): they are loaded from there. */
static int load_api(const char *path) {
    char dir[4096];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    void *h = open_with_deps(dir, path, RTLD_NOW | RTLD_LOCAL, 0);
    if (!h) return 0;
#define LOAD(name) \
    if (!(A.name = (__typeof__(A.name))dlsym(h, "dnnl_" #name))) { \
        printf("%s has no dnnl_%s\n", path, #name); \
        return 0; \
    }
    API(LOAD)
#undef LOAD
    return 1;
}

/* ---- configurations --------------------------------------------------------------- */

enum {
    K_ELTWISE, K_ELTWISE_BWD, K_BINARY, K_SOFTMAX, K_SOFTMAX_BWD, K_REORDER, K_SUM, K_CONCAT,
    K_MATMUL, K_IP, K_IP_BWD_DATA, K_IP_BWD_WEIGHTS, K_COUNT
};
static const char *kind_name[K_COUNT] = {"eltwise", "eltwise_bwd", "binary", "softmax",
        "softmax_bwd", "reorder", "sum", "concat", "matmul", "inner_product", "ip_bwd_data",
        "ip_bwd_weights"};

#define MAXT 8  /* tensors of a configuration */
#define MAXPO 3 /* post-ops */
#define MAXV 8192 /* output values kept per configuration */

typedef struct {
    int used, out, in; /* an output; an input (a sum post-op's dst is both) */
    int arg, nd;
    dnnl_dims_t dims;
    dnnl_data_type_t dt;
    dnnl_format_tag_t tag;
    int positive; /* inputs that must be positive (log, sqrt, ...) */
} tensor_t;

typedef struct {
    int kind, n; /* n: sources of sum and concat */
    tensor_t t[MAXT];
    dnnl_alg_kind_t alg;
    float alpha, beta;
    int axis, prop, approx;
    float scales[4];
    int npo;
    struct {
        int kind; /* 0 eltwise, 1 sum, 2 binary */
        dnnl_alg_kind_t alg;
        float alpha, beta, scale;
        int tensor; /* binary: the tensor of its source */
    } po[MAXPO];
    int nscale, nzp;
    int scale_arg[3], scale_mask[3], zp_arg[2];
    uint64_t data_seed;
} cfg_t;

static const dnnl_format_tag_t plain_tags[6][6] = {
        {0},
        {dnnl_a},
        {dnnl_ab, dnnl_ba},
        {dnnl_abc, dnnl_acb, dnnl_bac, dnnl_cba},
        {dnnl_abcd, dnnl_acdb, dnnl_bacd, dnnl_aBcd8b, dnnl_aBcd16b, dnnl_ABcd16b16a},
        {dnnl_abcde, dnnl_acdeb, dnnl_aBcde16b},
};
static const int nplain[6] = {0, 1, 2, 4, 6, 3};

static rng_t R;
/* FUZZ_SELFTEST=1 (README.md): changes one value of ours in every 50th
 * configuration -- which must fail the run. FUZZ_SELFTEST=2 checks the third
 * opinion against both libraries wherever they agree (and prints how often
 * it was applied and differed). */
static int selftest;

static dnnl_format_tag_t rtag(int nd) {
    return plain_tags[nd][rng_below(&R, (uint64_t)nplain[nd])];
}

static dnnl_data_type_t rfloat_dt(void) {
    uint64_t k = rng_below(&R, 10);
    return k < 6 ? dnnl_f32 : k < 9 ? dnnl_bf16 : dnnl_f16;
}

static dnnl_data_type_t rany_dt(void) {
    static const dnnl_data_type_t dts[] = {dnnl_f32, dnnl_f32, dnnl_bf16, dnnl_f16, dnnl_s8,
            dnnl_u8, dnnl_s32};
    return RNG_PICK(&R, dts);
}

static int64_t nelems(const tensor_t *t) {
    int64_t n = 1;
    for (int d = 0; d < t->nd; d++) n *= t->dims[d];
    return n;
}

static tensor_t *tensor(cfg_t *c, int i, int arg, int nd, const dnnl_dim_t *dims,
        dnnl_data_type_t dt, dnnl_format_tag_t tag, int out) {
    tensor_t *t = &c->t[i];
    t->used = 1;
    t->out = out;
    t->in = !out;
    t->arg = arg;
    t->nd = nd;
    memcpy(t->dims, dims, sizeof(dnnl_dim_t) * (size_t)nd);
    t->dt = dt;
    t->tag = tag;
    return t;
}

static void rdims(int nd, dnnl_dim_t *dims, int max) {
    for (int d = 0; d < nd; d++) dims[d] = rng_int(&R, 1, max);
}

static const dnnl_alg_kind_t elt_algs[] = {dnnl_eltwise_relu, dnnl_eltwise_tanh, dnnl_eltwise_elu,
        dnnl_eltwise_square, dnnl_eltwise_abs, dnnl_eltwise_sqrt, dnnl_eltwise_linear,
        dnnl_eltwise_soft_relu, dnnl_eltwise_hardsigmoid, dnnl_eltwise_logistic, dnnl_eltwise_exp,
        dnnl_eltwise_gelu_tanh, dnnl_eltwise_swish, dnnl_eltwise_log, dnnl_eltwise_clip,
        dnnl_eltwise_clip_v2, dnnl_eltwise_pow, dnnl_eltwise_gelu_erf, dnnl_eltwise_round,
        dnnl_eltwise_mish, dnnl_eltwise_hardswish};
static const dnnl_alg_kind_t elt_dst_algs[] = {dnnl_eltwise_relu_use_dst_for_bwd,
        dnnl_eltwise_tanh_use_dst_for_bwd, dnnl_eltwise_elu_use_dst_for_bwd,
        dnnl_eltwise_sqrt_use_dst_for_bwd, dnnl_eltwise_logistic_use_dst_for_bwd,
        dnnl_eltwise_exp_use_dst_for_bwd, dnnl_eltwise_clip_v2_use_dst_for_bwd};
static const dnnl_alg_kind_t bin_algs[] = {dnnl_binary_add, dnnl_binary_mul, dnnl_binary_max,
        dnnl_binary_min, dnnl_binary_div, dnnl_binary_sub, dnnl_binary_ge, dnnl_binary_gt,
        dnnl_binary_le, dnnl_binary_lt, dnnl_binary_eq, dnnl_binary_ne};

/* alpha and beta that make sense for an eltwise algorithm; whether it is
 * computed with transcendental functions; whether it needs positive inputs. */
static void elt_params(dnnl_alg_kind_t alg, float *alpha, float *beta, int *approx, int *positive) {
    *alpha = 0.0f;
    *beta = 0.0f;
    *approx = 1;
    *positive = 0;
    switch ((int)alg) {
        case dnnl_eltwise_relu:
        case dnnl_eltwise_relu_use_dst_for_bwd:
            *alpha = rng_pct(&R, 50) ? 0.0f : 0.25f;
            *approx = 0;
            break;
        case dnnl_eltwise_linear: *alpha = 0.5f, *beta = 0.25f, *approx = 0; break;
        case dnnl_eltwise_square:
        case dnnl_eltwise_abs:
        case dnnl_eltwise_round: *approx = 0; break;
        case dnnl_eltwise_clip:
        case dnnl_eltwise_clip_v2:
        case dnnl_eltwise_clip_v2_use_dst_for_bwd: *alpha = -1.0f, *beta = 1.5f, *approx = 0; break;
        case dnnl_eltwise_elu:
        case dnnl_eltwise_elu_use_dst_for_bwd:
        case dnnl_eltwise_soft_relu:
        case dnnl_eltwise_swish: *alpha = 1.0f; break;
        case dnnl_eltwise_hardsigmoid: *alpha = 0.25f, *beta = 0.5f, *approx = 0; break;
        case dnnl_eltwise_hardswish: *alpha = 0.25f, *beta = 0.5f, *approx = 0; break;
        case dnnl_eltwise_pow: *alpha = 1.0f, *beta = 2.0f; break;
        case dnnl_eltwise_sqrt:
        case dnnl_eltwise_sqrt_use_dst_for_bwd:
        case dnnl_eltwise_log: *positive = 1; break;
        default: break;
    }
}

/* Post-ops for a primitive whose destination is tensor `dst`; binary sources
 * go to tensors 5 and 6. `sum_ok`: the kind takes a sum. */
static void rpost_ops(cfg_t *c, int dst, int sum_ok) {
    if (rng_pct(&R, 50)) return;
    int n = rng_int(&R, 1, 2);
    for (int k = 0; k < n && c->npo < MAXPO; k++) {
        int what = (int)rng_below(&R, sum_ok ? 3 : 2);
        if (what == 1) what = 2; /* eltwise or binary when no sum */
        if (sum_ok && rng_pct(&R, 30)) what = 1;
        int i = c->npo++;
        c->po[i].kind = what;
        if (what == 0) {
            static const dnnl_alg_kind_t algs[] = {dnnl_eltwise_relu, dnnl_eltwise_linear,
                    dnnl_eltwise_tanh, dnnl_eltwise_logistic, dnnl_eltwise_clip, dnnl_eltwise_abs};
            c->po[i].alg = RNG_PICK(&R, algs);
            int approx, pos;
            elt_params(c->po[i].alg, &c->po[i].alpha, &c->po[i].beta, &approx, &pos);
            c->approx |= approx;
        } else if (what == 1) {
            c->po[i].scale = rng_pct(&R, 50) ? 1.0f : 0.5f;
            c->t[dst].in = 1;
        } else {
            static const dnnl_alg_kind_t algs[] = {dnnl_binary_add, dnnl_binary_mul,
                    dnnl_binary_max, dnnl_binary_min, dnnl_binary_sub};
            c->po[i].alg = RNG_PICK(&R, algs);
            int ti = 5 + (c->t[5].used ? 1 : 0);
            if (ti > 6) {
                c->npo--;
                break;
            }
            dnnl_dims_t d;
            for (int j = 0; j < c->t[dst].nd; j++) d[j] = rng_pct(&R, 50) ? c->t[dst].dims[j] : 1;
            tensor(c, ti, DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_1, c->t[dst].nd, d,
                    dnnl_f32, plain_tags[c->t[dst].nd][0], 0);
            c->po[i].tensor = ti;
        }
    }
}

static void make_config(cfg_t *c, uint64_t index, uint64_t seed) {
    memset(c, 0, sizeof *c);
    R = rng_for(seed, index);
    c->data_seed = rng_u64(&R);
    c->kind = (int)rng_below(&R, K_COUNT);
    c->prop = dnnl_forward_inference;
    int nd = rng_int(&R, 1, 5);
    dnnl_dims_t d0, d1, d2;
    rdims(nd, d0, nd > 3 ? 6 : 9);
    switch (c->kind) {
        case K_ELTWISE: {
            c->alg = RNG_PICK(&R, elt_algs);
            int pos;
            elt_params(c->alg, &c->alpha, &c->beta, &c->approx, &pos);
            dnnl_data_type_t dt = rng_pct(&R, 10) ? RNG_PICK(&R, ((dnnl_data_type_t[]){dnnl_s8, dnnl_u8, dnnl_s32}))
                                                  : rfloat_dt();
            if (dt == dnnl_s8 || dt == dnnl_u8 || dt == dnnl_s32) {
                c->alg = rng_pct(&R, 50) ? dnnl_eltwise_relu : dnnl_eltwise_linear;
                elt_params(c->alg, &c->alpha, &c->beta, &c->approx, &pos);
            }
            dnnl_format_tag_t tag = rtag(nd);
            tensor(c, 0, DNNL_ARG_SRC, nd, d0, dt, tag, 0)->positive = pos;
            tensor(c, 1, DNNL_ARG_DST, nd, d0, dt, rng_pct(&R, 20) ? dnnl_format_tag_any : tag, 1);
            rpost_ops(c, 1, 1);
            break;
        }
        case K_ELTWISE_BWD: {
            int use_dst = rng_pct(&R, 30);
            c->alg = use_dst ? RNG_PICK(&R, elt_dst_algs) : RNG_PICK(&R, elt_algs);
            if (c->alg == dnnl_eltwise_round) c->alg = dnnl_eltwise_relu;
            int pos;
            elt_params(c->alg, &c->alpha, &c->beta, &c->approx, &pos);
            dnnl_data_type_t dt = rng_pct(&R, 80) ? dnnl_f32 : dnnl_bf16;
            dnnl_format_tag_t tag = rtag(nd);
            tensor(c, 0, use_dst ? DNNL_ARG_DST : DNNL_ARG_SRC, nd, d0, dt, tag, 0)->positive = 1;
            tensor(c, 1, DNNL_ARG_DIFF_DST, nd, d0, dt, tag, 0);
            tensor(c, 2, DNNL_ARG_DIFF_SRC, nd, d0, dt, tag, 1);
            c->prop = dnnl_backward_data;
            break;
        }
        case K_BINARY: {
            c->alg = RNG_PICK(&R, bin_algs);
            for (int k = 0; k < nd; k++) d1[k] = rng_pct(&R, 30) ? 1 : d0[k];
            dnnl_data_type_t dt = rany_dt();
            dnnl_format_tag_t tag = rtag(nd);
            tensor(c, 0, DNNL_ARG_SRC_0, nd, d0, dt, tag, 0);
            tensor(c, 1, DNNL_ARG_SRC_1, nd, d1, rng_pct(&R, 70) ? dt : rany_dt(), plain_tags[nd][0], 0)
                    ->positive = c->alg == dnnl_binary_div;
            tensor(c, 2, DNNL_ARG_DST, nd, d0, rng_pct(&R, 70) ? dt : rany_dt(),
                    rng_pct(&R, 20) ? dnnl_format_tag_any : tag, 1);
            if (rng_pct(&R, 25)) {
                c->scale_arg[c->nscale] = rng_pct(&R, 50) ? DNNL_ARG_SRC_0 : DNNL_ARG_SRC_1;
                c->scale_mask[c->nscale++] = 0;
            }
            rpost_ops(c, 2, 1);
            break;
        }
        case K_SOFTMAX:
        case K_SOFTMAX_BWD: {
            c->alg = rng_pct(&R, 50) ? dnnl_softmax_accurate : dnnl_softmax_log;
            c->axis = rng_int(&R, 0, nd - 1);
            c->approx = 1;
            dnnl_format_tag_t tag = rtag(nd);
            if (c->kind == K_SOFTMAX) {
                dnnl_data_type_t dt = rfloat_dt();
                tensor(c, 0, DNNL_ARG_SRC, nd, d0, dt, tag, 0);
                tensor(c, 1, DNNL_ARG_DST, nd, d0, rng_pct(&R, 80) ? dt : rfloat_dt(),
                        rng_pct(&R, 20) ? dnnl_format_tag_any : tag, 1);
            } else {
                c->prop = dnnl_backward_data;
                tensor(c, 0, DNNL_ARG_DST, nd, d0, dnnl_f32, tag, 0);
                tensor(c, 1, DNNL_ARG_DIFF_DST, nd, d0, dnnl_f32, tag, 0);
                tensor(c, 2, DNNL_ARG_DIFF_SRC, nd, d0, dnnl_f32, tag, 1);
            }
            break;
        }
        case K_REORDER: {
            dnnl_data_type_t sdt = rany_dt(), ddt = rany_dt();
            tensor(c, 0, DNNL_ARG_FROM, nd, d0, sdt, rtag(nd), 0);
            tensor(c, 1, DNNL_ARG_TO, nd, d0, ddt, rtag(nd), 1);
            if (rng_pct(&R, 30)) {
                c->scale_arg[c->nscale] = DNNL_ARG_SRC;
                c->scale_mask[c->nscale++] = rng_pct(&R, 60) ? 0 : 1 << rng_int(&R, 0, nd - 1);
            }
            if (rng_pct(&R, 20)) {
                c->scale_arg[c->nscale] = DNNL_ARG_DST;
                c->scale_mask[c->nscale++] = 0;
            }
            int ints = (sdt == dnnl_s8 || sdt == dnnl_u8) && (ddt == dnnl_s8 || ddt == dnnl_u8);
            if (ints && rng_pct(&R, 30)) c->zp_arg[c->nzp++] = rng_pct(&R, 50) ? DNNL_ARG_SRC : DNNL_ARG_DST;
            if (rng_pct(&R, 20)) {
                c->npo = 1;
                c->po[0].kind = 1;
                c->po[0].scale = rng_pct(&R, 50) ? 1.0f : 0.5f;
                c->t[1].in = 1;
            }
            break;
        }
        case K_SUM:
        case K_CONCAT: {
            c->n = rng_int(&R, 2, 4);
            c->axis = rng_int(&R, 0, nd - 1);
            dnnl_data_type_t dt = rany_dt();
            memcpy(d2, d0, sizeof d2);
            d2[c->axis] = 0;
            static const float sc[] = {1.0f, 0.5f, 2.0f, -1.0f};
            for (int k = 0; k < c->n; k++) {
                memcpy(d1, d0, sizeof d1);
                if (c->kind == K_CONCAT) d1[c->axis] = rng_int(&R, 1, 5);
                d2[c->axis] += d1[c->axis];
                tensor(c, k, DNNL_ARG_MULTIPLE_SRC + k, nd, d1, rng_pct(&R, 80) ? dt : rany_dt(), rtag(nd), 0);
                c->scales[k] = RNG_PICK(&R, sc);
            }
            tensor(c, 4, DNNL_ARG_DST, nd, c->kind == K_SUM ? d0 : d2, rng_pct(&R, 80) ? dt : rany_dt(),
                    rng_pct(&R, 30) ? dnnl_format_tag_any : rtag(nd), 1);
            break;
        }
        case K_MATMUL: {
            nd = rng_int(&R, 2, 4);
            dnnl_dim_t M = rng_int(&R, 1, 16), K = rng_int(&R, 1, 32), N = rng_int(&R, 1, 16);
            rdims(nd, d0, 3);
            for (int k = 0; k < nd - 2; k++) d1[k] = rng_pct(&R, 30) ? 1 : d0[k];
            d0[nd - 2] = M;
            d0[nd - 1] = K;
            d1[nd - 2] = K;
            d1[nd - 1] = N;
            memcpy(d2, d0, sizeof d2);
            d2[nd - 1] = N;
            int ints = rng_pct(&R, 25);
            dnnl_data_type_t st = ints ? (rng_pct(&R, 50) ? dnnl_s8 : dnnl_u8) : (rng_pct(&R, 70) ? dnnl_f32 : dnnl_bf16);
            dnnl_data_type_t wt = ints ? dnnl_s8 : st;
            dnnl_data_type_t dt = ints ? RNG_PICK(&R, ((dnnl_data_type_t[]){dnnl_f32, dnnl_s32, dnnl_s8, dnnl_u8}))
                                       : (rng_pct(&R, 50) ? st : dnnl_f32);
            dnnl_format_tag_t ttag = nd == 2 ? dnnl_ba : nd == 3 ? dnnl_acb : dnnl_abdc;
            tensor(c, 0, DNNL_ARG_SRC, nd, d0, st, rng_pct(&R, 20) ? ttag : plain_tags[nd][0], 0);
            tensor(c, 1, DNNL_ARG_WEIGHTS, nd, d1, wt,
                    rng_pct(&R, 20) ? dnnl_format_tag_any : rng_pct(&R, 30) ? ttag : plain_tags[nd][0], 0);
            tensor(c, 3, DNNL_ARG_DST, nd, d2, dt, plain_tags[nd][0], 1);
            if (rng_pct(&R, 40)) {
                dnnl_dims_t db;
                for (int k = 0; k < nd; k++) db[k] = 1;
                db[nd - 1] = N;
                tensor(c, 2, DNNL_ARG_BIAS, nd, db, ints ? dnnl_f32 : dt, plain_tags[nd][0], 0);
            }
            if (rng_pct(&R, 30)) {
                int arg = RNG_PICK(&R, ((int[]){DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST}));
                c->scale_arg[c->nscale] = arg;
                c->scale_mask[c->nscale++] = arg == DNNL_ARG_WEIGHTS && rng_pct(&R, 50) ? 1 << (nd - 1) : 0;
            }
            if (ints && rng_pct(&R, 25)) c->zp_arg[c->nzp++] = rng_pct(&R, 50) ? DNNL_ARG_SRC : DNNL_ARG_DST;
            rpost_ops(c, 3, 1);
            break;
        }
        default: { /* inner product */
            nd = rng_pct(&R, 50) ? 2 : 4;
            rdims(nd, d0, nd == 2 ? 24 : 5);
            dnnl_dim_t OC = rng_int(&R, 1, 16);
            memcpy(d1, d0, sizeof d1);
            d1[0] = OC;
            dnnl_dims_t dd = {d0[0], OC}, db = {OC};
            dnnl_data_type_t dt = c->kind == K_IP && rng_pct(&R, 30) ? dnnl_bf16 : dnnl_f32;
            dnnl_format_tag_t stag = rtag(nd);
            dnnl_format_tag_t wtag = rng_pct(&R, 50) ? dnnl_format_tag_any : stag;
            if (c->kind == K_IP) {
                tensor(c, 0, DNNL_ARG_SRC, nd, d0, dt, stag, 0);
                tensor(c, 1, DNNL_ARG_WEIGHTS, nd, d1, dt, wtag, 0);
                if (rng_pct(&R, 50)) tensor(c, 2, DNNL_ARG_BIAS, 1, db, dnnl_f32, dnnl_a, 0);
                tensor(c, 3, DNNL_ARG_DST, 2, dd, rng_pct(&R, 50) ? dt : dnnl_f32, dnnl_ab, 1);
                rpost_ops(c, 3, 1);
            } else if (c->kind == K_IP_BWD_DATA) {
                c->prop = dnnl_backward_data;
                tensor(c, 0, DNNL_ARG_DIFF_SRC, nd, d0, dt, stag, 1);
                tensor(c, 1, DNNL_ARG_WEIGHTS, nd, d1, dt, wtag, 0);
                tensor(c, 2, DNNL_ARG_DIFF_DST, 2, dd, dt, dnnl_ab, 0);
            } else {
                c->prop = dnnl_backward_weights;
                tensor(c, 0, DNNL_ARG_SRC, nd, d0, dt, stag, 0);
                tensor(c, 1, DNNL_ARG_DIFF_WEIGHTS, nd, d1, dt, wtag, 1);
                if (rng_pct(&R, 50)) tensor(c, 2, DNNL_ARG_DIFF_BIAS, 1, db, dnnl_f32, dnnl_a, 1);
                tensor(c, 3, DNNL_ARG_DIFF_DST, 2, dd, dt, dnnl_ab, 0);
            }
            break;
        }
    }
}

/* A configuration whose result v3.2 and v3.13 define differently (see the top),
 * when Intel's library is older than v3.13. */
static const char *excluded_by_version(const cfg_t *c);
static int ref_major, ref_minor;
static const char *excluded(const cfg_t *c) {
    /* Int8 weights of `any`: Intel's picks a blocked layout whose extra part (the
     * zero-point compensation) only its reorder writes; this harness stores the
     * values alone, so Intel's result is not the problem's. */
    if ((c->kind == K_MATMUL || c->kind == K_IP) && (c->t[0].dt == dnnl_s8 || c->t[0].dt == dnnl_u8)
            && c->t[1].tag == dnnl_format_tag_any)
        return "int8 weights of `any` (Intel's need its reorder's compensation)";
    if (ref_major > 3 || (ref_major == 3 && ref_minor >= 13)) return NULL;
    return excluded_by_version(c);
}
static const char *excluded_by_version(const cfg_t *c) {
    if (c->kind == K_ELTWISE)
        for (int k = 0; k < c->npo; k++)
            if (c->po[k].kind == 1) return "eltwise with a sum post-op (v3.2 ignores the sum)";
    if (c->kind != K_REORDER || c->npo == 0) return NULL;
    for (int k = 0; k < c->nscale; k++)
        if (c->scale_arg[k] == DNNL_ARG_DST)
            return "reorder with dst scales and a sum post-op (v3.2 and v3.13 order them differently)";
    for (int k = 0; k < c->nzp; k++)
        if (c->zp_arg[k] == DNNL_ARG_DST)
            return "reorder with a sum post-op and a dst zero point (ordered as v3.13 does)";
    return NULL;
}

static int describe(const cfg_t *c, char *out, size_t n) {
    int k = snprintf(out, n, "%s", kind_name[c->kind]);
    if (c->kind == K_ELTWISE || c->kind == K_ELTWISE_BWD || c->kind == K_BINARY || c->kind == K_SOFTMAX
            || c->kind == K_SOFTMAX_BWD)
        k += snprintf(out + k, n - (size_t)k, " alg %d (%g, %g)", (int)c->alg, (double)c->alpha, (double)c->beta);
    if (c->kind == K_SOFTMAX || c->kind == K_SOFTMAX_BWD || c->kind == K_CONCAT)
        k += snprintf(out + k, n - (size_t)k, " axis %d", c->axis);
    for (int i = 0; i < MAXT && (size_t)k < n; i++) {
        const tensor_t *t = &c->t[i];
        if (!t->used) continue;
        k += snprintf(out + k, n - (size_t)k, " [arg %d%s {", t->arg, t->out ? " out" : "");
        for (int d = 0; d < t->nd; d++) k += snprintf(out + k, n - (size_t)k, "%s%" PRId64, d ? "," : "", t->dims[d]);
        k += snprintf(out + k, n - (size_t)k, "} dt %d tag %d]", (int)t->dt, (int)t->tag);
    }
    for (int i = 0; i < c->npo; i++)
        k += snprintf(out + k, n - (size_t)k, " po%d:%s(alg %d, %g)", i,
                c->po[i].kind == 0 ? "eltwise" : c->po[i].kind == 1 ? "sum" : "binary", (int)c->po[i].alg,
                (double)(c->po[i].kind == 1 ? c->po[i].scale : c->po[i].alpha));
    for (int i = 0; i < c->nscale; i++)
        k += snprintf(out + k, n - (size_t)k, " scale(arg %d, mask %d)", c->scale_arg[i], c->scale_mask[i]);
    for (int i = 0; i < c->nzp; i++) k += snprintf(out + k, n - (size_t)k, " zp(arg %d)", c->zp_arg[i]);
    if (c->kind == K_SUM) k += snprintf(out + k, n - (size_t)k, " scales %g,%g,%g,%g", (double)c->scales[0],
                                  (double)c->scales[1], (double)c->scales[2], (double)c->scales[3]);
    return k;
}

/* ---- values ----------------------------------------------------------------------- */

static float f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    float f;
    if (exp == 0) {
        f = (float)man / 16777216.0f;
        return sign ? -f : f;
    }
    bits = exp == 0x1f ? sign | 0x7f800000u | (man << 13) : sign | ((exp + 112) << 23) | (man << 13);
    memcpy(&f, &bits, 4);
    return f;
}

/* Only for the inputs, which are exact in every type (multiples of 0.25 up to 8). */
static uint16_t f32_to_f16_exact(float f) {
    if (f == 0.0f) return signbit(f) ? 0x8000 : 0;
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000, e = ((x >> 23) & 0xff) - 127 + 15, man = (x >> 13) & 0x3ff;
    return (uint16_t)(sign | (e << 10) | man);
}

static float load(dnnl_data_type_t dt, const unsigned char *p) {
    switch (dt) {
        case dnnl_f32: {
            float f;
            memcpy(&f, p, 4);
            return f;
        }
        case dnnl_bf16: {
            uint32_t b = (uint32_t)(p[0] | (p[1] << 8)) << 16;
            float f;
            memcpy(&f, &b, 4);
            return f;
        }
        case dnnl_f16: return f16_to_f32((uint16_t)(p[0] | (p[1] << 8)));
        case dnnl_s32: {
            int32_t i;
            memcpy(&i, p, 4);
            return (float)i;
        }
        case dnnl_s8: return (float)(int8_t)p[0];
        default: return (float)p[0];
    }
}

static void store(dnnl_data_type_t dt, unsigned char *p, float v) {
    switch (dt) {
        case dnnl_f32: memcpy(p, &v, 4); break;
        case dnnl_bf16: {
            uint32_t b;
            memcpy(&b, &v, 4);
            p[0] = (unsigned char)(b >> 16);
            p[1] = (unsigned char)(b >> 24);
            break;
        }
        case dnnl_f16: {
            uint16_t h = f32_to_f16_exact(v);
            memcpy(p, &h, 2);
            break;
        }
        case dnnl_s32: {
            int32_t i = (int32_t)v;
            memcpy(p, &i, 4);
            break;
        }
        case dnnl_s8: p[0] = (unsigned char)(int8_t)v; break;
        default: p[0] = (unsigned char)v; break;
    }
}

static size_t dt_size(dnnl_data_type_t dt) {
    return dt == dnnl_f32 || dt == dnnl_s32 ? 4 : dt == dnnl_bf16 || dt == dnnl_f16 ? 2 : 1;
}

/* The value of logical element j of tensor i: exact in every type. */
static float value(const cfg_t *c, int i, int64_t j) {
    const tensor_t *t = &c->t[i];
    rng_t r = rng_for(c->data_seed + (uint64_t)i * 0x9e37, (uint64_t)j);
    int v = (int)rng_below(&r, 17) - 8; /* -8..8 */
    if (t->positive && (t->dt == dnnl_s8 || t->dt == dnnl_s32 || t->dt == dnnl_u8))
        return (float)(abs(v) + 1); /* a divisor: never 0 */
    if (t->dt == dnnl_s8 || t->dt == dnnl_s32) return (float)v;
    if (t->dt == dnnl_u8) return (float)(v + 8);
    float f = (float)v * 0.25f;
    if (t->positive) f = fabsf(f) + 0.25f;
    return f;
}

/* ---- a layout walk (as the library that made the descriptor says) ------------------ */


static int layout_of(const_dnnl_memory_desc_t md, layout_t *l) {
    const dnnl_dims_t *p = NULL;
    memset(l, 0, sizeof *l);
    if (A.memory_desc_query(md, dnnl_query_ndims_s32, &l->ndims)) return 0;
    if (A.memory_desc_query(md, dnnl_query_dims, &p)) return 0;
    memcpy(l->dims, *p, sizeof l->dims);
    if (A.memory_desc_query(md, dnnl_query_padded_offsets, &p)) return 0;
    memcpy(l->padded_offsets, *p, sizeof l->dims);
    if (A.memory_desc_query(md, dnnl_query_strides, &p)) return 0;
    memcpy(l->strides, *p, sizeof l->dims);
    if (A.memory_desc_query(md, dnnl_query_inner_nblks_s32, &l->nblks)) return 0;
    if (A.memory_desc_query(md, dnnl_query_inner_blks, &p)) return 0;
    memcpy(l->blks, *p, sizeof l->dims);
    if (A.memory_desc_query(md, dnnl_query_inner_idxs, &p)) return 0;
    memcpy(l->idxs, *p, sizeof l->dims);
    if (A.memory_desc_query(md, dnnl_query_submemory_offset_s64, &l->offset0)) return 0;
    l->nelems = 1;
    for (int d = 0; d < l->ndims; d++) l->nelems *= l->dims[d];
    return 1;
}

/* ---- running a configuration in a child ------------------------------------------------ */

typedef struct {
    int pd_status, exec_status, done;
    int64_t nvals;
} result_t;

#define BATCH 200
typedef struct {
    int ref_major, ref_minor, ref_patch; /* Intel's library's version, from its child */
    cfg_t cfg[BATCH];
    result_t res[2][BATCH];
    float vals[2][BATCH][MAXV];
} batch_t;
static batch_t *B;
static uint64_t batch_first;
static int ours_gpu;

static dnnl_engine_t engine;
static dnnl_stream_t stream;

static dnnl_status_t create_pd(const cfg_t *c, dnnl_primitive_desc_t *pd, const_dnnl_memory_desc_t *md,
        const_dnnl_primitive_attr_t attr) {
    switch (c->kind) {
        case K_ELTWISE:
            return A.eltwise_forward_primitive_desc_create(pd, engine, dnnl_forward_inference, c->alg,
                    md[0], md[1], c->alpha, c->beta, attr);
        case K_ELTWISE_BWD:
            return A.eltwise_backward_primitive_desc_create(pd, engine, c->alg, md[2], md[1], md[0],
                    c->alpha, c->beta, NULL, attr);
        case K_BINARY: return A.binary_primitive_desc_create(pd, engine, c->alg, md[0], md[1], md[2], attr);
        case K_SOFTMAX:
            return A.softmax_forward_primitive_desc_create(pd, engine, dnnl_forward_inference, c->alg,
                    md[0], md[1], c->axis, attr);
        case K_SOFTMAX_BWD:
            return A.softmax_backward_primitive_desc_create(pd, engine, c->alg, md[2], md[1], md[0],
                    c->axis, NULL, attr);
        case K_REORDER: return A.reorder_primitive_desc_create(pd, md[0], engine, md[1], engine, attr);
        case K_SUM: return A.sum_primitive_desc_create(pd, engine, md[4], c->n, c->scales, md, attr);
        case K_CONCAT: return A.concat_primitive_desc_create(pd, engine, md[4], c->n, c->axis, md, attr);
        case K_MATMUL: return A.matmul_primitive_desc_create(pd, engine, md[0], md[1], md[2], md[3], attr);
        case K_IP:
            return A.inner_product_forward_primitive_desc_create(pd, engine, dnnl_forward_inference, md[0],
                    md[1], md[2], md[3], attr);
        case K_IP_BWD_DATA:
            return A.inner_product_backward_data_primitive_desc_create(pd, engine, md[0], md[1], md[2], NULL, attr);
        default:
            return A.inner_product_backward_weights_primitive_desc_create(pd, engine, md[0], md[1], md[2],
                    md[3], NULL, attr);
    }
}

/* Runs configuration c; the outputs' logical values go to vals. */
static void run_config(const cfg_t *c, result_t *res, float *vals) {
    res->pd_status = res->exec_status = dnnl_success;
    res->nvals = 0;
    dnnl_memory_desc_t md[MAXT] = {0};
    for (int i = 0; i < MAXT; i++)
        if (c->t[i].used && A.memory_desc_create_with_tag(&md[i], c->t[i].nd, c->t[i].dims, c->t[i].dt, c->t[i].tag)) {
            res->pd_status = dnnl_invalid_arguments;
            goto out;
        }
    dnnl_primitive_attr_t attr = NULL;
    dnnl_post_ops_t po = NULL;
    if (c->npo || c->nscale || c->nzp) {
        A.primitive_attr_create(&attr);
        A.post_ops_create(&po);
        for (int k = 0; k < c->npo; k++) {
            if (c->po[k].kind == 0)
                A.post_ops_append_eltwise(po, c->po[k].alg, c->po[k].alpha, c->po[k].beta);
            else if (c->po[k].kind == 1)
                A.post_ops_append_sum(po, c->po[k].scale, 0, dnnl_data_type_undef);
            else
                A.post_ops_append_binary(po, c->po[k].alg, md[c->po[k].tensor]);
        }
        dnnl_status_t s = A.primitive_attr_set_post_ops(attr, po);
        for (int k = 0; k < c->nscale && s == dnnl_success; k++)
            s = A.primitive_attr_set_scales_mask(attr, c->scale_arg[k], c->scale_mask[k]);
        for (int k = 0; k < c->nzp && s == dnnl_success; k++)
            s = A.primitive_attr_set_zero_points_mask(attr, c->zp_arg[k], 0);
        if (s != dnnl_success) {
            res->pd_status = s;
            goto out_attr;
        }
    }
    {
        dnnl_primitive_desc_t pd = NULL;
        const_dnnl_memory_desc_t cmd[MAXT];
        for (int i = 0; i < MAXT; i++) cmd[i] = md[i];
        res->pd_status = create_pd(c, &pd, cmd, attr);
        if (res->pd_status != dnnl_success) goto out_attr;
        dnnl_primitive_t prim = NULL;
        res->exec_status = A.primitive_create(&prim, pd);
        if (res->exec_status != dnnl_success) {
            A.primitive_desc_destroy(pd);
            goto out_attr;
        }
        dnnl_memory_t mem[MAXT + 6] = {0};
        dnnl_exec_arg_t args[MAXT + 6];
        int nargs = 0;
        for (int i = 0; i < MAXT; i++) {
            const tensor_t *t = &c->t[i];
            if (!t->used) continue;
            const_dnnl_memory_desc_t qmd = A.primitive_desc_query_md(pd, dnnl_query_exec_arg_md, t->arg);
            A.memory_create(&mem[nargs], qmd ? qmd : md[i], engine, DNNL_MEMORY_ALLOCATE);
            layout_t l;
            void *p = NULL;
            if (mem[nargs] && layout_of(qmd ? qmd : md[i], &l) && A.memory_map_data(mem[nargs], &p) == dnnl_success) {
                memset(p, 0, A.memory_desc_get_size(qmd ? qmd : md[i]));
                if (t->in)
                    for (int64_t j = 0; j < l.nelems; j++)
                        store(t->dt, (unsigned char *)p + offset_of(&l, j) * (int64_t)dt_size(t->dt), value(c, i, j));
                A.memory_unmap_data(mem[nargs], p);
            }
            args[nargs].arg = t->arg;
            args[nargs].memory = mem[nargs];
            nargs++;
        }
        /* Scales (0.5, 1, 1.5, 2, ...) and zero points (1, 2, ...). */
        for (int k = 0; k < c->nscale + c->nzp; k++) {
            int zp = k >= c->nscale, arg = zp ? c->zp_arg[k - c->nscale] : c->scale_arg[k];
            int mask = zp ? 0 : c->scale_mask[k];
            dnnl_dim_t count = 1;
            for (int i = 0; i < MAXT; i++)
                if (c->t[i].used && c->t[i].arg == arg)
                    for (int d = 0; d < c->t[i].nd; d++)
                        if (mask & (1 << d)) count *= c->t[i].dims[d];
            dnnl_dims_t d = {count};
            dnnl_memory_desc_t smd = NULL;
            A.memory_desc_create_with_tag(&smd, 1, d, zp ? dnnl_s32 : dnnl_f32, dnnl_a);
            A.memory_create(&mem[nargs], smd, engine, DNNL_MEMORY_ALLOCATE);
            A.memory_desc_destroy(smd);
            void *p = NULL;
            if (mem[nargs] && A.memory_map_data(mem[nargs], &p) == dnnl_success) {
                for (dnnl_dim_t j = 0; j < count; j++) {
                    if (zp)
                        ((int32_t *)p)[j] = (int32_t)(1 + j % 3);
                    else
                        ((float *)p)[j] = 0.5f * (float)(1 + j % 4);
                }
                A.memory_unmap_data(mem[nargs], p);
            }
            args[nargs].arg = (zp ? DNNL_ARG_ATTR_ZERO_POINTS : DNNL_ARG_ATTR_SCALES) | arg;
            args[nargs].memory = mem[nargs];
            nargs++;
        }
        res->exec_status = A.primitive_execute(prim, stream, nargs, args);
        if (res->exec_status == dnnl_success) res->exec_status = A.stream_wait(stream);
        if (res->exec_status == dnnl_success) {
            int m = 0;
            for (int i = 0; i < MAXT; i++) {
                const tensor_t *t = &c->t[i];
                if (t->used && t->out) {
                    const_dnnl_memory_desc_t qmd = A.primitive_desc_query_md(pd, dnnl_query_exec_arg_md, t->arg);
                    layout_t l;
                    void *p = NULL;
                    if (layout_of(qmd, &l) && A.memory_map_data(mem[m], &p) == dnnl_success) {
                        for (int64_t j = 0; j < l.nelems && res->nvals < MAXV; j++)
                            vals[res->nvals++] = load(t->dt, (unsigned char *)p + offset_of(&l, j) * (int64_t)dt_size(t->dt));
                        A.memory_unmap_data(mem[m], p);
                    }
                }
                if (t->used) m++;
            }
        }
        for (int k = 0; k < nargs; k++) A.memory_destroy(mem[k]);
        A.primitive_destroy(prim);
        A.primitive_desc_destroy(pd);
    }
out_attr:
    if (po) A.post_ops_destroy(po);
    if (attr) A.primitive_attr_destroy(attr);
out:
    for (int i = 0; i < MAXT; i++)
        if (md[i]) A.memory_desc_destroy(md[i]);
}

/* The body of a child: library `which` (0 Intel's, 1 ours) over a batch. */
static void body(uint64_t start, uint64_t end, void *arg) {
    int which = *(int *)arg;
    char path[4096];
    if (which == 0) {
        snprintf(path, sizeof path, "%s/libdnnl.so.3", getenv("DNNL_REFERENCE_LIBDIR"));
        /* What Intel's library needs to see (its build runs the CPU engine on a
         * SYCL CPU device: Intel's OpenCL runtime), in its child only. */
        const char *env = getenv("DNNL_FUZZ_REFERENCE_ENV");
        char buf[4096];
        if (env && *env) {
            snprintf(buf, sizeof buf, "%s", env);
            for (char *kv = strtok(buf, "|"); kv; kv = strtok(NULL, "|")) {
                char *eq = strchr(kv, '=');
                if (eq) {
                    *eq = 0;
                    setenv(kv, eq + 1, 1);
                }
            }
        }
    } else {
        snprintf(path, sizeof path, "%s", DNNL_OURS_LIB);
    }
    if (!load_api(path)) _exit(3);
    if (!getenv("ONEDNN_VERBOSE")) A.set_verbose(0);
    if (which == 0) {
        const dnnl_version_t *v = A.version();
        B->ref_major = v->major;
        B->ref_minor = v->minor;
        B->ref_patch = v->patch;
    }
    int gpu = which == 1 && ours_gpu;
    if (A.engine_create(&engine, gpu ? dnnl_gpu : dnnl_cpu, 0) != dnnl_success
            || A.stream_create(&stream, engine, dnnl_stream_default_flags) != dnnl_success) {
        printf("%s: no %s engine\n", which ? "ours" : "Intel's", gpu ? "OpenCL" : "CPU");
        _exit(4);
    }
    for (uint64_t i = start; i < end; i++) {
        uint64_t k = i - batch_first;
        fz->item = i;
        fz->step = 0;
        fz->ring_pos = 0;
        char d[600];
        describe(&B->cfg[k], d, sizeof d);
        fuzz_call("%s: %s", which ? "ours" : "Intel's", d);
        alarm(120);
        run_config(&B->cfg[k], &B->res[which][k], B->vals[which][k]);
        B->res[which][k].done = 1;
        fuzz_check_panic();
    }
    A.stream_destroy(stream);
    A.engine_destroy(engine);
}

/* ---- comparing -------------------------------------------------------------------------- */

enum {
    X_CONFIGS, X_COMPARED, X_VALUES, X_OURS_REFUSED, X_REF_REFUSED, X_BOTH_REFUSED, X_EXCLUDED,
    X_REF_CRASHES, X_REF_WRONG
};

static uint64_t refused_by_kind[2][K_COUNT]; /* 0: Intel's, 1: ours */
static double tolerance(const cfg_t *c, dnnl_data_type_t dt, float ref);

/* ---- a third opinion ------------------------------------------------------------------- */

/* The logical index into a tensor of `t`'s dims of the element at logical
 * index j of `full` (dimensions of 1 in t broadcast). */
static int64_t bcast_index(const tensor_t *t, const tensor_t *full, int64_t j) {
    int64_t pos[DNNL_MAX_NDIMS], idx = 0;
    for (int d = full->nd - 1; d >= 0; d--) {
        pos[d] = j % full->dims[d];
        j /= full->dims[d];
    }
    for (int d = 0; d < t->nd; d++) idx = idx * t->dims[d] + (t->dims[d] == 1 ? 0 : pos[d]);
    return idx;
}

static float binary_op(dnnl_alg_kind_t alg, float a, float b) {
    switch ((int)alg) {
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
        default: return a != b;
    }
}

static float to_dt(dnnl_data_type_t dt, float v) {
    double lo = dt == dnnl_s8 ? -128 : dt == dnnl_u8 ? 0 : -2147483648.0;
    double hi = dt == dnnl_s8 ? 127 : dt == dnnl_u8 ? 255 : 2147483520.0;
    if (dt != dnnl_s8 && dt != dnnl_u8 && dt != dnnl_s32) return v;
    double r = nearbyint((double)v);
    return (float)(r < lo ? lo : r > hi ? hi : r);
}

/* Post-ops applied to value x of dst element j; 0 in *ok for one this does not know. */
static float post_ops(const cfg_t *c, float x, int64_t j, int dst, int *ok) {
    for (int k = 0; k < c->npo; k++) {
        float a = c->po[k].alpha, b = c->po[k].beta;
        if (c->po[k].kind == 1) {
            x += c->po[k].scale * value(c, dst, j);
        } else if (c->po[k].kind == 2) {
            int t = c->po[k].tensor;
            x = binary_op(c->po[k].alg, x, value(c, t, bcast_index(&c->t[t], &c->t[dst], j)));
        } else {
            switch ((int)c->po[k].alg) {
                case dnnl_eltwise_relu: x = x > 0 ? x : a * x; break;
                case dnnl_eltwise_linear: x = a * x + b; break;
                case dnnl_eltwise_tanh: x = tanhf(x); break;
                case dnnl_eltwise_logistic: x = 1.0f / (1.0f + expf(-x)); break;
                case dnnl_eltwise_clip: x = x < a ? a : x > b ? b : x; break;
                case dnnl_eltwise_abs: x = fabsf(x); break;
                default: *ok = 0; break;
            }
        }
    }
    return x;
}

/* The scale of `arg` for element index `n` of its masked dimension (the
 * memories hold 0.5 * (1 + i % 4)); 1 when the arg has none. */
static float scale_of(const cfg_t *c, int arg, int64_t n) {
    for (int k = 0; k < c->nscale; k++)
        if (c->scale_arg[k] == arg) return 0.5f * (float)(1 + (c->scale_mask[k] ? n % 4 : 0));
    return 1.0f;
}

static int64_t prod(const tensor_t *t, int from, int to) {
    int64_t n = 1;
    for (int d = from; d < to; d++) n *= t->dims[d];
    return n;
}

/* The values a configuration must give, computed here from the definitions
 * (oneDNN's order: scales, the op, bias, post-ops in order, the dst scale,
 * then the conversion to dst's type), for binary, matmul and the three inner
 * products; 0 for other kinds, or a post-op or attribute this does not know. */
static int arbiter(const cfg_t *c, float *out, int64_t n) {
    int ok = 1;
    if (c->nzp) return 0;
    for (int k = 0; k < c->nscale; k++)
        if (c->scale_mask[k] != 0 && !(c->kind == K_MATMUL && c->scale_arg[k] == DNNL_ARG_WEIGHTS)) return 0;
    if (c->kind == K_BINARY) {
        const tensor_t *dst = &c->t[2];
        if (nelems(dst) != n) return 0;
        float s0 = scale_of(c, DNNL_ARG_SRC_0, 0), s1 = scale_of(c, DNNL_ARG_SRC_1, 0);
        for (int64_t j = 0; j < n; j++) {
            float x = binary_op(c->alg, s0 * value(c, 0, j), s1 * value(c, 1, bcast_index(&c->t[1], dst, j)));
            out[j] = to_dt(dst->dt, post_ops(c, x, j, 2, &ok));
        }
        return ok;
    }
    if (c->kind == K_MATMUL) {
        const tensor_t *src = &c->t[0], *w = &c->t[1], *dst = &c->t[3];
        int nd = dst->nd;
        int64_t M = dst->dims[nd - 2], N = dst->dims[nd - 1], K = src->dims[nd - 1];
        if (nelems(dst) != n) return 0;
        for (int64_t j = 0; j < n; j++) {
            int64_t pos[DNNL_MAX_NDIMS], r = j;
            for (int d = nd - 1; d >= 0; d--) {
                pos[d] = r % dst->dims[d];
                r /= dst->dims[d];
            }
            int64_t sb = 0, wb = 0;
            for (int d = 0; d < nd - 2; d++) {
                sb = sb * src->dims[d] + (src->dims[d] == 1 ? 0 : pos[d]);
                wb = wb * w->dims[d] + (w->dims[d] == 1 ? 0 : pos[d]);
            }
            int64_t m = pos[nd - 2], col = pos[nd - 1];
            float acc = 0.0f;
            for (int64_t k = 0; k < K; k++)
                acc += value(c, 0, (sb * M + m) * K + k) * value(c, 1, (wb * K + k) * N + col);
            float x = scale_of(c, DNNL_ARG_SRC, 0) * scale_of(c, DNNL_ARG_WEIGHTS, col) * acc;
            if (c->t[2].used) x += value(c, 2, bcast_index(&c->t[2], dst, j));
            x = post_ops(c, x, j, 3, &ok) / scale_of(c, DNNL_ARG_DST, 0);
            out[j] = to_dt(dst->dt, x);
        }
        return ok;
    }
    if (c->kind == K_IP) {
        const tensor_t *src = &c->t[0], *dst = &c->t[3];
        int64_t N = src->dims[0], K = prod(src, 1, src->nd), OC = dst->dims[1];
        if (N * OC != n) return 0;
        for (int64_t i = 0; i < N; i++)
            for (int64_t o = 0; o < OC; o++) {
                float acc = 0.0f;
                for (int64_t k = 0; k < K; k++) acc += value(c, 0, i * K + k) * value(c, 1, o * K + k);
                if (c->t[2].used) acc += value(c, 2, o);
                out[i * OC + o] = to_dt(dst->dt, post_ops(c, acc, i * OC + o, 3, &ok));
            }
        return ok;
    }
    if (c->kind == K_IP_BWD_DATA) {
        const tensor_t *ds = &c->t[0], *dd = &c->t[2];
        int64_t N = ds->dims[0], K = prod(ds, 1, ds->nd), OC = dd->dims[1];
        if (N * K != n) return 0;
        for (int64_t i = 0; i < N; i++)
            for (int64_t k = 0; k < K; k++) {
                float acc = 0.0f;
                for (int64_t o = 0; o < OC; o++) acc += value(c, 2, i * OC + o) * value(c, 1, o * K + k);
                out[i * K + k] = acc;
            }
        return 1;
    }
    if (c->kind == K_IP_BWD_WEIGHTS) {
        const tensor_t *src = &c->t[0], *dd = &c->t[3];
        int64_t N = src->dims[0], K = prod(src, 1, src->nd), OC = dd->dims[1];
        if (OC * K + (c->t[2].used ? OC : 0) != n) return 0;
        for (int64_t o = 0; o < OC; o++) {
            float db = 0.0f;
            for (int64_t k = 0; k < K; k++) {
                float acc = 0.0f;
                for (int64_t i = 0; i < N; i++) acc += value(c, 3, i * OC + o) * value(c, 0, i * K + k);
                out[o * K + k] = acc;
            }
            for (int64_t i = 0; i < N; i++) db += value(c, 3, i * OC + o);
            if (c->t[2].used) out[OC * K + o] = db;
        }
        return 1;
    }
    return 0;
}

/* How many of `got` differ from `want` beyond the tolerance. */
static int64_t count_bad(const cfg_t *c, const float *want, const float *got, int64_t n) {
    int64_t bad = 0, j = 0;
    for (int i = 0; i < MAXT; i++) {
        const tensor_t *t = &c->t[i];
        if (!t->used || !t->out) continue;
        for (int64_t e = 0; e < nelems(t) && j < n; e++, j++) {
            float a = want[j], b = got[j];
            if (!((isnan(a) && isnan(b)) || a == b
                        || (isfinite(a) && isfinite(b) && fabs((double)a - (double)b) <= tolerance(c, t->dt, a))))
                bad++;
        }
    }
    return bad;
}

static double tolerance(const cfg_t *c, dnnl_data_type_t dt, float ref) {
    double scale = fabs((double)ref) > 1.0 ? fabs((double)ref) : 1.0;
    switch (dt) {
        case dnnl_f32: return (c->approx ? 1e-4 : 1e-5) * scale;
        case dnnl_bf16: return 4.0 / 256.0 * scale;
        case dnnl_f16: return 4.0 / 2048.0 * scale;
        default: return 1.0;
    }
}

static void compare(uint64_t index, const cfg_t *c, const result_t *ref, const result_t *ours,
        const float *rv, const float *ov) {
    char d[600];
    FUZZ_ADD(fz->extra[X_CONFIGS], 1);
    const char *why = getenv("FUZZ_DIFF_ALL") ? NULL : excluded(c);
    if (why) {
        FUZZ_ADD(fz->extra[X_EXCLUDED], 1);
        return;
    }
    int ref_ok = ref->done && ref->pd_status == dnnl_success && ref->exec_status == dnnl_success;
    int ours_ok = ours->done && ours->pd_status == dnnl_success && ours->exec_status == dnnl_success;
    if (!ref_ok && !ours_ok) {
        FUZZ_ADD(fz->extra[X_BOTH_REFUSED], 1);
        return;
    }
    if (!ref_ok || !ours_ok) {
        describe(c, d, sizeof d);
        int which = ours_ok ? X_REF_REFUSED : X_OURS_REFUSED;
        refused_by_kind[ours_ok ? 0 : 1][c->kind]++;
        uint64_t seen = FUZZ_ADD(fz->extra[which], 1);
        const result_t *r = ours_ok ? ref : ours;
        if (seen < (uint64_t)fz->max_print)
            printf("%s refuses config %" PRIu64 " (%s, status %d): %s\n", ours_ok ? "Intel's" : "ours",
                    index, !r->done ? "did not finish" : r->pd_status ? "at creation" : "at execution",
                    r->pd_status ? r->pd_status : r->exec_status, d);
        return;
    }
    FUZZ_ADD(fz->extra[X_COMPARED], 1);
    if (ref->nvals != ours->nvals) {
        describe(c, d, sizeof d);
        fz->item = index;
        fuzz_wrong("config %" PRIu64 ": %" PRId64 " output values from Intel's, %" PRId64 " from ours: %s",
                index, ref->nvals, ours->nvals, d);
        return;
    }
    /* The output types, in the order the values were read. */
    int64_t j = 0, bad = 0, first = -1;
    for (int i = 0; i < MAXT; i++) {
        const tensor_t *t = &c->t[i];
        if (!t->used || !t->out) continue;
        int64_t n = nelems(t);
        for (int64_t e = 0; e < n && j < ref->nvals; e++, j++) {
            float a = rv[j], b = ov[j];
            int same = (isnan(a) && isnan(b)) || a == b
                    || (isfinite(a) && isfinite(b) && fabs((double)a - (double)b) <= tolerance(c, t->dt, a));
            if (!same) {
                if (first < 0) first = j;
                bad++;
            }
        }
    }
    FUZZ_ADD(fz->extra[X_VALUES], (uint64_t)ref->nvals);
    if (selftest == 2) {
        /* Checks the third opinion itself where the libraries agree. */
        static float third[MAXV];
        static uint64_t applied, differs;
        if (!bad && arbiter(c, third, ref->nvals)) {
            applied++;
            if (count_bad(c, third, rv, ref->nvals)) {
                differs++;
                describe(c, d, sizeof d);
                printf("the definition differs from both libraries in config %" PRIu64 ": %s\n", index, d);
            }
        }
        if (index % 1000 == 999) printf("third opinion: %" PRIu64 " configurations, %" PRIu64 " differ\n", applied, differs);
    }
    if (fz->trace) {
        /* The first values of every tensor, to write a reproducer from. */
        for (int i = 0; i < MAXT; i++) {
            if (!c->t[i].used || !c->t[i].in) continue;
            printf("  input arg %d:", c->t[i].arg);
            for (int64_t e = 0; e < nelems(&c->t[i]) && e < 12; e++) printf(" %g", (double)value(c, i, e));
            printf("\n");
        }
        printf("  Intel's:");
        for (int64_t e = 0; e < ref->nvals && e < 12; e++) printf(" %g", (double)rv[e]);
        printf("\n  ours:   ");
        for (int64_t e = 0; e < ours->nvals && e < 12; e++) printf(" %g", (double)ov[e]);
        printf("\n");
    }
    if (bad) {
        static float third[MAXV];
        describe(c, d, sizeof d);
        fz->item = index;
        if (arbiter(c, third, ref->nvals) && count_bad(c, third, ov, ours->nvals) == 0) {
            /* Ours agrees with the definition; Intel's does not. */
            if (FUZZ_ADD(fz->extra[X_REF_WRONG], 1) < (uint64_t)fz->max_print)
                printf("Intel's differs from ours and from the definition in config %" PRIu64
                       " (%" PRId64 " values; first: value %" PRId64 ", Intel's %g, ours %g): %s\n",
                        index, bad, first, (double)rv[first], (double)ov[first], d);
            return;
        }
        fuzz_wrong("config %" PRIu64 ": %" PRId64 " of %" PRId64 " values differ (first: value %" PRId64
                   ", Intel's %g, ours %g): %s",
                index, bad, ref->nvals, first, (double)rv[first], (double)ov[first], d);
    }
}

int main(int argc, char **argv) {
    ours_gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    fuzz_init("differential", ours_gpu ? "gpu" : "cpu", 0xd1ff);
    selftest = (int)fuzz_env_u64("FUZZ_SELFTEST", 0);
    fuzz_name_extra(X_CONFIGS, "configs");
    fuzz_name_extra(X_COMPARED, "compared");
    fuzz_name_extra(X_VALUES, "values");
    fuzz_name_extra(X_OURS_REFUSED, "ours_refused");
    fuzz_name_extra(X_REF_REFUSED, "ref_refused");
    fuzz_name_extra(X_BOTH_REFUSED, "both_refused");
    fuzz_name_extra(X_EXCLUDED, "excluded");
    fuzz_name_extra(X_REF_CRASHES, "ref_crashes");
    fuzz_name_extra(X_REF_WRONG, "ref_wrong");
    const char *ref = getenv("DNNL_REFERENCE_LIBDIR");
    if (!ref || !*ref) SKIP("DNNL_REFERENCE_LIBDIR is not set (the directory of Intel's libdnnl.so.3)");
    char path[4096];
    snprintf(path, sizeof path, "%s/libdnnl.so.3", ref);
    if (access(path, R_OK) != 0) {
        char why[4200];
        snprintf(why, sizeof why, "%s is not readable", path);
        SKIP(why);
    }
    B = mmap(NULL, sizeof(batch_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    EXPECT(B != MAP_FAILED);
    {
        /* Intel's library must load (in a child: it is never loaded here). */
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) _exit(load_api(path) ? 0 : 3);
        int st = 0;
        waitpid(pid, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            char why[4200];
            snprintf(why, sizeof why, "Intel's library %s does not load (see above)", path);
            SKIP(why);
        }
    }
    if (ours_gpu) {
        /* Asked in a child: the parent must not start OpenCL before forking. */
        pid_t pid = fork();
        if (pid == 0) {
            if (!load_api(DNNL_OURS_LIB)) _exit(3);
            dnnl_engine_t e = NULL;
            _exit(A.engine_create(&e, dnnl_gpu, 0) == dnnl_success ? 0 : 3);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) SKIP("no OpenCL device");
    }
    uint64_t first = fuzz_env_u64("FUZZ_FIRST", 0);
    uint64_t count = fuzz_env_u64("FUZZ_CONFIGS", getenv("FUZZ_FIRST") ? 1 : ours_gpu ? 60 : 600);
    printf("differential[%s]: configurations %" PRIu64 "..%" PRIu64 ", Intel's library from %s\n", fz->mode,
            first, first + count - 1, ref);
    for (uint64_t b = first; b < first + count; b += BATCH) {
        uint64_t end = b + BATCH < first + count ? b + BATCH : first + count;
        batch_first = b;
        memset(B->res, 0, sizeof B->res);
        for (uint64_t i = b; i < end; i++) make_config(&B->cfg[i - b], i, fz->seed);
        /* Intel's library first: a crash there is its own, counted apart. */
        int which = 0;
        uint64_t c0 = fz->crashes;
        fuzz_run(b, end, 600, body, &which, "differential (Intel's library)");
        fz->extra[X_REF_CRASHES] += fz->crashes - c0;
        fz->crashes = c0;
        if (b == first && B->ref_major)
            printf("Intel's library is v%d.%d.%d%s\n", B->ref_major, B->ref_minor, B->ref_patch,
                    B->ref_major == 3 && B->ref_minor < 13 ? ": the v3.2/v3.13 differences are excluded" : "");
        ref_major = B->ref_major;
        ref_minor = B->ref_minor;
        which = 1;
        fuzz_run(b, end, 600, body, &which, ours_gpu ? "differential gpu" : "differential cpu");
        for (uint64_t i = b; i < end; i++)
            if (selftest == 1 && i % 50 == 0 && B->res[1][i - b].nvals) B->vals[1][i - b][0] += 1.0f;
        for (uint64_t i = b; i < end; i++)
            compare(i, &B->cfg[i - b], &B->res[0][i - b], &B->res[1][i - b], B->vals[0][i - b], B->vals[1][i - b]);
    }
    for (int w = 1; w >= 0; w--) {
        printf("%s refused, by kind:", w ? "ours" : "Intel's");
        for (int k = 0; k < K_COUNT; k++)
            if (refused_by_kind[w][k]) printf(" %s %" PRIu64, kind_name[k], refused_by_kind[w][k]);
        printf("\n");
    }
    return fuzz_finish();
}
