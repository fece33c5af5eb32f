/* Eltwise forward and backward on OpenCL devices.
 *
 * Built by src/prims/eltwise/ocl.rs with -D macros:
 *   ALG_<NAME>          the algorithm (ALG_RELU, ALG_GELU_ERF, ALG_TANH_DST, ...)
 *   A_DT, B_DT, C_DT    element types of input 0 (src/data), input 1 (diff_dst)
 *                       and the output: F32 F16 BF16 S32 S8 U8
 *   eltwise_{fwd,bwd}_dense: ITEMS (float4 per work-item), IDX_T (uint or
 *                       ulong), ALIGNED (1: every pointer is aligned to its
 *                       4-vector)
 *   eltwise_{fwd,bwd}_strided: TOTAL (elements of the output walk; selects
 *                       these kernels instead of the dense ones), P<d>
 *                       (padded positions of work-item t), A_OFF, B_OFF, C_OFF
 *                       (element offsets), INB (inside the logical tensor)
 * A program holds the forward and the backward kernel, so the two primitives
 * of a training step share one build when their options agree.
 *
 * Everything is computed in float. f16 goes through vload_half/vstore_half
 * (no cl_khr_fp16 needed: NVIDIA has none), bf16 through ushort bit
 * operations. Integer stores round to nearest even and saturate. */

#ifndef A_DT
#define A_DT F32
#endif
#ifndef B_DT
#define B_DT F32
#endif
#ifndef C_DT
#define C_DT F32
#endif
#ifndef ITEMS
#define ITEMS 1
#endif
#ifndef IDX_T
#define IDX_T uint
#endif
#ifndef ALIGNED
#define ALIGNED 0
#endif

#define A_T CAT(T_, A_DT)
#define B_T CAT(T_, B_DT)
#define C_T CAT(T_, C_DT)
#define LOAD_A(p, i) CAT(LD_, A_DT)(p, i)
#define LOAD_B(p, i) CAT(LD_, B_DT)(p, i)
#define STORE_C(p, i, v) CAT(ST_, C_DT)(p, i, v)
#define LOAD4_A(p, i) CAT(LD4_, A_DT)(p, i)
#define LOAD4_B(p, i) CAT(LD4_, B_DT)(p, i)
#define STORE4_C(p, i, v) CAT(ST4_, C_DT)(p, i, v)

/* The forward function: eltwise_alg.cl's, for this build's algorithm. */
float fwd(float s, float alpha, float beta) { return eltwise_fwd(ELT_ID, s, alpha, beta); }

/* The source gradient for destination gradient dd; x is the source (or the
 * destination for the _DST algorithms). */
float bwd(float dd, float x, float alpha, float beta) {
#if defined(ALG_TANH)
    float t = tanh(x);
    return dd * (1.0f - t * t);
#elif defined(ALG_TANH_DST)
    return dd * (1.0f - x * x);
#elif defined(ALG_ELU)
    return x > 0.0f ? dd : dd * alpha * exp(x);
#elif defined(ALG_ELU_DST)
    return x > 0.0f ? dd : dd * (x + alpha);
#elif defined(ALG_SQUARE)
    return dd * 2.0f * x;
#elif defined(ALG_ABS)
    return x > 0.0f ? dd : (x < 0.0f ? -dd : 0.0f);
#elif defined(ALG_SQRT)
    return dd / (2.0f * sqrt(x));
#elif defined(ALG_SQRT_DST)
    return dd / (2.0f * x);
#elif defined(ALG_LINEAR)
    return dd * alpha;
#elif defined(ALG_SOFT_RELU)
    return dd * logistic_f(alpha * x);
#elif defined(ALG_HARDSIGMOID)
    float v = alpha * x + beta;
    return (v > 0.0f && v < 1.0f) ? dd * alpha : 0.0f;
#elif defined(ALG_LOGISTIC)
    float v = logistic_f(x);
    return dd * v * (1.0f - v);
#elif defined(ALG_LOGISTIC_DST)
    return dd * x * (1.0f - x);
#elif defined(ALG_EXP)
    return dd * exp(x);
#elif defined(ALG_EXP_DST)
    return dd * x;
#elif defined(ALG_GELU_TANH)
    /* 1 + tanh(g) = 2 logistic(2g), 1 - tanh(g) = 2 logistic(-2g). */
    float g = SQRT_2_OVER_PI * x * (1.0f + GELU_TANH_C * x * x);
    float dg = SQRT_2_OVER_PI * (1.0f + 3.0f * GELU_TANH_C * x * x);
    return dd * logistic_f(2.0f * g) * (1.0f + 2.0f * x * logistic_f(-2.0f * g) * dg);
#elif defined(ALG_SWISH)
    float v = logistic_f(alpha * x);
    return dd * (v + alpha * x * v * (1.0f - v));
#elif defined(ALG_LOG)
    return dd / x;
#elif defined(ALG_CLIP)
    return (alpha < x && x <= beta) ? dd : 0.0f;
#elif defined(ALG_CLIP_V2) || defined(ALG_CLIP_V2_DST)
    return (alpha < x && x < beta) ? dd : 0.0f;
#elif defined(ALG_POW)
    return beta == 0.0f ? 0.0f : dd * alpha * beta * pow(x, beta - 1.0f);
#elif defined(ALG_GELU_ERF)
    float cdf = 0.5f * fast_erfc_f(-x * M_SQRT1_2_F);
    float pdf = INV_SQRT_2PI * exp(-0.5f * x * x);
    return dd * (cdf + x * pdf);
#elif defined(ALG_MISH)
    /* t = tanh(soft_relu(x)), 1 - t^2 = 4 (p + 1) / (p + 2)^2, logistic(x) = n / (n + 1). */
    if (x > 20.0f) return dd;
    float n = exp(x), p = n * (n + 2.0f), q = p + 2.0f;
    return dd * (p / q + x * (4.0f * (p + 1.0f) / (q * q)) * (n / (n + 1.0f)));
#elif defined(ALG_HARDSWISH)
    float v = alpha * x + beta;
    return v <= 0.0f ? 0.0f : (v >= 1.0f ? dd : dd * (2.0f * alpha * x + beta));
#else /* ALG_RELU, ALG_RELU_DST */
    return x > 0.0f ? dd : dd * alpha;
#endif
}

float4 fwd4(float4 s, float alpha, float beta) {
    return (float4)(fwd(s.s0, alpha, beta), fwd(s.s1, alpha, beta), fwd(s.s2, alpha, beta),
            fwd(s.s3, alpha, beta));
}
float4 bwd4(float4 dd, float4 x, float alpha, float beta) {
    return (float4)(bwd(dd.s0, x.s0, alpha, beta), bwd(dd.s1, x.s1, alpha, beta),
            bwd(dd.s2, x.s2, alpha, beta), bwd(dd.s3, x.s3, alpha, beta));
}

#ifndef TOTAL
/* Dense tensors of one layout, as flat arrays of n elements starting at the
 * given element offsets. Work-item g handles 4-vectors g, g + G, ...,
 * g + (ITEMS - 1) G (G: the global size), so every access of a work-group is
 * contiguous and each work-item has ITEMS loads in flight; the n % 4 last
 * elements go to the first work-items. */
#define DENSE_BODY(LOAD_INPUTS, COMPUTE4, COMPUTE1) \
    const IDX_T n = (IDX_T)n_; \
    const IDX_T nvec = n / 4; \
    const IDX_T g = (IDX_T)get_global_id(0); \
    const IDX_T gsz = (IDX_T)get_global_size(0); \
    /* Uniform but for the last work-items: all ITEMS vectors exist. */ \
    const bool full = g + (ITEMS - 1) * gsz < nvec; \
    float4 x[ITEMS], d[ITEMS]; \
    for (int k = 0; k < ITEMS; ++k) { \
        x[k] = d[k] = (float4)(0.0f); \
        if (full || g + k * gsz < nvec) { \
            LOAD_INPUTS(g + k * gsz); \
        } \
    } \
    for (int k = 0; k < ITEMS; ++k) \
        x[k] = COMPUTE4; \
    for (int k = 0; k < ITEMS; ++k) \
        if (full || g + k * gsz < nvec) STORE4_C(c, g + k * gsz, x[k]); \
    if (g < n - nvec * 4) { \
        const IDX_T i = nvec * 4 + g; \
        STORE_C(c, i, COMPUTE1); \
    }

#define FWD_LOAD(v) x[k] = LOAD4_A(a, v)
#define BWD_LOAD(v) \
    x[k] = LOAD4_A(a, v); \
    d[k] = LOAD4_B(b, v)

/* c = f(a) */
__kernel void eltwise_fwd_dense(global A_T *a, long a_off, global C_T *c, long c_off,
        ulong n_, float alpha, float beta) {
    a += a_off;
    c += c_off;
    DENSE_BODY(FWD_LOAD, fwd4(x[k], alpha, beta), fwd(LOAD_A(a, i), alpha, beta))
}

/* c = f'(a) * b */
__kernel void eltwise_bwd_dense(global A_T *a, long a_off, global B_T *b, long b_off,
        global C_T *c, long c_off, ulong n_, float alpha, float beta) {
    a += a_off;
    b += b_off;
    c += c_off;
    DENSE_BODY(BWD_LOAD, bwd4(d[k], x[k], alpha, beta),
            bwd(LOAD_B(b, i), LOAD_A(a, i), alpha, beta))
}

#else
/* Any layouts: work-item t is the t-th element of the output in memory order
 * (so writes coalesce); its padded position gives the inputs' offsets.
 * Padding of the output is written with zeros. */
#ifndef B_OFF
#define B_OFF A_OFF
#endif
#ifdef INB
#define PADDING_ZERO \
    if (!(INB)) { \
        STORE_C(c, C_OFF, 0.0f); \
        return; \
    }
#else
#define PADDING_ZERO
#endif
#define POSITIONS \
    const long t = get_global_id(0); \
    if (t >= TOTAL) return; \
    DECL_POSITIONS \
    PADDING_ZERO

/* Post-ops (WITH_POST_OPS; the prelude of prims::common::post_ops) take the
 * logical position: the padded one less O<d>, the padded offsets. */
#ifndef O0
#define O0 0
#endif
#ifndef O1
#define O1 0
#endif
#ifndef O2
#define O2 0
#endif
#ifndef O3
#define O3 0
#endif
#ifndef O4
#define O4 0
#endif
#ifndef O5
#define O5 0
#endif
#ifndef O6
#define O6 0
#endif
#ifndef O7
#define O7 0
#endif
#ifndef O8
#define O8 0
#endif
#ifndef O9
#define O9 0
#endif
#ifndef O10
#define O10 0
#endif
#ifndef O11
#define O11 0
#endif

__kernel void eltwise_fwd_strided(
        global A_T *a, global C_T *c, float alpha, float beta POST_OPS_PARAMS) {
    POSITIONS
    float v = fwd(LOAD_A(a, A_OFF), alpha, beta);
#ifdef WITH_POST_OPS
    const long pos[12] = {p0 - O0, p1 - O1, p2 - O2, p3 - O3, p4 - O4, p5 - O5, p6 - O6,
            p7 - O7, p8 - O8, p9 - O9, p10 - O10, p11 - O11};
    float old = 0.0f;
#if POST_OPS_SUM
    old = CAT(LD_, PO_SUM_DT)((global CAT(T_, PO_SUM_DT) *)c, C_OFF);
#endif
    v = post_ops(v, old, pos POST_OPS_ARGS);
#endif
    STORE_C(c, C_OFF, v);
}

__kernel void eltwise_bwd_strided(
        global A_T *a, global B_T *b, global C_T *c, float alpha, float beta) {
    POSITIONS
    STORE_C(c, C_OFF, bwd(LOAD_B(b, B_OFF), LOAD_A(a, A_OFF), alpha, beta));
}
#endif
