/* Eltwise forward formulas (oneDNN's; prims::common::eltwise_alg's OpenCL
 * side), shared by the eltwise kernels (eltwise.cl) and post-ops
 * (prims::common::post_ops): the helpers, then
 * eltwise_fwd(alg, s, alpha, beta). Needs nothing before it. */
#ifndef DNNL_ELTWISE_FWD_CL
#define DNNL_ELTWISE_FWD_CL

/* The formulas (oneDNN's). */
#define EXP_OVERFLOW 88.72283172607421875f
#define SQRT_2_OVER_PI 0.79788458347320556640625f
#define GELU_TANH_C 0.044715f
#define INV_SQRT_2PI 0.3989422804014327f

float logistic_f(float x) { return 1.0f / (1.0f + exp(-x)); }
float soft_relu_f(float x, float alpha) {
    float v = alpha * x;
    return v < EXP_OVERFLOW ? log1p(exp(v)) / alpha : x;
}
/* tanh(soft_relu(x)) = p / (p + 2) with p = e^x (e^x + 2): one exp instead of
 * exp, log1p and tanh; exactly 1 in float beyond x = 20. */
float mish_p(float x) {
    float n = exp(x);
    return n * (n + 2.0f);
}
/* erfc (prims::common::eltwise_alg::erfc's formula): Numerical Recipes' fit
 * erfc(z) = t e^(-z^2 + P(t)), t = 1 / (1 + z/2), relative error a few 1e-7,
 * with z^2 split exactly as hi^2 + lo so the large part of the exponent is
 * not rounded. Builtin erfc is very slow on some runtimes (PoCL). */
float fast_erfc_f(float x) {
    float z = fabs(x);
    float t = 1.0f / (1.0f + 0.5f * z);
    float p = -1.26551223f + t * (1.00002368f + t * (0.37409196f + t * (0.09678418f
        + t * (-0.18628806f + t * (0.27886807f + t * (-1.13520398f
        + t * (1.48851587f + t * (-0.82215223f + t * 0.17087277f))))))));
    float hi = as_float(as_uint(z) & 0xFFFFF000u);
    float lo = z - hi;
    float r = t * exp(-hi * hi) * exp(p - lo * (z + hi));
    return x >= 0.0f ? r : 2.0f - r;
}
float hardsigmoid_f(float x, float alpha, float beta) {
    float v = alpha * x + beta;
    return v <= 0.0f ? 0.0f : (v >= 1.0f ? 1.0f : v);
}

/* The forward function of algorithm alg (an ELT_* below, the index of
 * prims::eltwise::Alg::cl_id, always a compile-time constant at the call, so
 * the switch folds away). The _use_dst_for_bwd variants use their base's id. */
#define ELT_RELU 0
#define ELT_TANH 1
#define ELT_ELU 2
#define ELT_SQUARE 3
#define ELT_ABS 4
#define ELT_SQRT 5
#define ELT_LINEAR 6
#define ELT_SOFT_RELU 7
#define ELT_HARDSIGMOID 8
#define ELT_LOGISTIC 9
#define ELT_EXP 10
#define ELT_GELU_TANH 11
#define ELT_SWISH 12
#define ELT_LOG 13
#define ELT_CLIP 14
#define ELT_CLIP_V2 15
#define ELT_POW 16
#define ELT_GELU_ERF 17
#define ELT_ROUND 18
#define ELT_MISH 19
#define ELT_HARDSWISH 20

inline float eltwise_fwd(int alg, float s, float alpha, float beta) {
    switch (alg) {
    case ELT_TANH: return tanh(s);
    case ELT_ELU: return s > 0.0f ? s : alpha * expm1(s);
    case ELT_SQUARE: return s * s;
    case ELT_ABS: return fabs(s);
    case ELT_SQRT: return sqrt(s);
    case ELT_LINEAR: return alpha * s + beta;
    case ELT_SOFT_RELU: return soft_relu_f(s, alpha);
    case ELT_HARDSIGMOID: return hardsigmoid_f(s, alpha, beta);
    case ELT_LOGISTIC: return logistic_f(s);
    case ELT_EXP: return exp(s);
    /* 0.5 (1 + tanh(g)) = logistic(2g): no cancellation in the left tail. */
    case ELT_GELU_TANH:
        return s * logistic_f(2.0f * SQRT_2_OVER_PI * s * (1.0f + GELU_TANH_C * s * s));
    case ELT_SWISH: return s * logistic_f(alpha * s);
    case ELT_LOG: return log(s);
    case ELT_CLIP:
    case ELT_CLIP_V2: {
        float v = s > alpha ? s : alpha;
        return v > beta ? beta : v;
    }
    case ELT_POW: return alpha * pow(s, beta);
    case ELT_GELU_ERF: return 0.5f * s * fast_erfc_f(-s * M_SQRT1_2_F);
    case ELT_ROUND: return rint(s);
    case ELT_MISH: {
        if (s > 20.0f) return s;
        float p = mish_p(s);
        return s * (p / (p + 2.0f));
    }
    case ELT_HARDSWISH: return s * hardsigmoid_f(s, alpha, beta);
    default: return s > 0.0f ? s : s * alpha; /* ELT_RELU */
    }
}

#endif
