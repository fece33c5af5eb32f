/* The eltwise algorithms' forward reference in double, and the error bound of an f32
 * evaluation, shared by the eltwise test (primitives/eltwise.c) and the post-op sweep
 * (post_ops/sweep.c). Include after prim_util.h. */
#ifndef DNNL_TESTS_C_ELTWISE_REF_H
#define DNNL_TESTS_C_ELTWISE_REF_H

#include <math.h>

#include "prim_util.h"

typedef struct {
    dnnl_alg_kind_t alg;
    float alpha, beta;
} alg_t;

#define PI 3.14159265358979323846

static inline double logistic(double x) { return 1.0 / (1.0 + exp(-x)); }
static inline double soft_relu(double x, double a) { return log1p(exp(a * x)) / a; }
static inline double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

static inline dnnl_alg_kind_t base_alg(dnnl_alg_kind_t alg) {
    switch (alg) {
        case dnnl_eltwise_relu_use_dst_for_bwd: return dnnl_eltwise_relu;
        case dnnl_eltwise_tanh_use_dst_for_bwd: return dnnl_eltwise_tanh;
        case dnnl_eltwise_elu_use_dst_for_bwd: return dnnl_eltwise_elu;
        case dnnl_eltwise_sqrt_use_dst_for_bwd: return dnnl_eltwise_sqrt;
        case dnnl_eltwise_logistic_use_dst_for_bwd: return dnnl_eltwise_logistic;
        case dnnl_eltwise_exp_use_dst_for_bwd: return dnnl_eltwise_exp;
        case dnnl_eltwise_clip_v2_use_dst_for_bwd: return dnnl_eltwise_clip_v2;
        default: return alg;
    }
}

static inline int use_dst(dnnl_alg_kind_t alg) { return base_alg(alg) != alg; }

static inline double fwd_ref(alg_t a, float xf) {
    double x = xf, al = a.alpha, be = a.beta, c = sqrt(2.0 / PI);
    float lin = a.alpha * xf + a.beta; /* as the library rounds it, for the branches */
    switch (base_alg(a.alg)) {
        case dnnl_eltwise_relu: return x > 0 ? x : al * x;
        case dnnl_eltwise_tanh: return tanh(x);
        case dnnl_eltwise_elu: return x > 0 ? x : al * expm1(x);
        case dnnl_eltwise_square: return x * x;
        case dnnl_eltwise_abs: return fabs(x);
        case dnnl_eltwise_sqrt: return sqrt(x);
        case dnnl_eltwise_linear: return al * x + be;
        case dnnl_eltwise_soft_relu: return a.alpha * xf < 88.72283f ? soft_relu(x, al) : x;
        case dnnl_eltwise_hardsigmoid: return clampd(lin, 0, 1);
        case dnnl_eltwise_logistic: return logistic(x);
        case dnnl_eltwise_exp: return exp(x);
        case dnnl_eltwise_gelu_tanh: return 0.5 * x * (1 + tanh(c * x * (1 + 0.044715 * x * x)));
        case dnnl_eltwise_swish: return x * logistic(al * x);
        case dnnl_eltwise_log: return log(x);
        case dnnl_eltwise_clip:
        case dnnl_eltwise_clip_v2: return clampd(x, al, be);
        case dnnl_eltwise_pow: return al * pow(x, be);
        case dnnl_eltwise_gelu_erf: return 0.5 * x * erfc(-x / sqrt(2.0));
        case dnnl_eltwise_round: return nearbyint(x);
        case dnnl_eltwise_mish: return x * tanh(soft_relu(x, 1.0));
        case dnnl_eltwise_hardswish: return x * clampd(lin, 0, 1);
        default: return NAN;
    }
}

/* The error of an f32 evaluation of the algorithm at x, before the final rounding to
 * the destination type. Piecewise-linear algorithms are a rounding or two from exact;
 * the others within a few ulps of the result, plus a few ulps of the argument's scale
 * where their formulas cancel (tanh and elu near 0, soft_relu, log, the GELUs far to
 * the left); pow's relative error grows with |beta log x|. */
static inline double fwd_bound(alg_t a, float x, double want) {
    double s = 1 + fabs((double)x) * fmax(1.0, fabs((double)a.alpha));
    switch (base_alg(a.alg)) {
        case dnnl_eltwise_relu:
        case dnnl_eltwise_abs:
        case dnnl_eltwise_clip:
        case dnnl_eltwise_clip_v2:
        case dnnl_eltwise_round:
        case dnnl_eltwise_square: return F32_EPS * fabs(want);
        /* alpha x + beta: one rounding of the product (none with a fused multiply-add),
         * one of the sum. */
        case dnnl_eltwise_linear:
        case dnnl_eltwise_hardsigmoid: return F32_EPS * (fabs((double)a.alpha * x) + fabs(want));
        case dnnl_eltwise_pow:
            return F32_EPS * fabs(want) * (8 + 4 * fabs(a.beta * log(fabs((double)x) + 1e-30)));
        default: return F32_EPS * (8 * fabs(want) + 4 * s);
    }
}

#endif
