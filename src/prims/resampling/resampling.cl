/* Resampling forward and backward on OpenCL devices.
 *
 * Built by src/prims/resampling/ocl.rs after types.cl, positions.cl and the
 * post-ops prelude, with -D macros:
 *   S_DT, D_DT         element types: the src side (src, diff_src) and the
 *                      dst side (dst, diff_dst)
 *   IDX_T              the type of the work-item index and positions (int or
 *                      long: 64-bit arithmetic is slow on GPUs)
 *   TAP_T              the type of the tap arithmetic (int where (2I + 3) O
 *                      fits in every slot, else long)
 *   TOTAL, P<d>        the output's elements in memory order and the
 *                      position of element t (prims::common::cl_walk)
 *   N_POS, C_POS, Y0..Y2  the output's minibatch, channel and spatial
 *                      positions (depth, height, width; 0 for the slots a
 *                      1D or 2D op leaves out)
 *   I<j>, O<j>         src and dst sizes per slot (1 for missing slots)
 *   LIN<j>             1 where slot j interpolates linearly (0: nearest, or
 *                      a slot the op leaves out)
 *   EMPTY_IN           the input has no elements (the output gets zeros,
 *                      then the post-ops)
 *   OUT_OFF            the output element's offset
 *   VEC, VEC_P, VEC_STRIDE  forward: outputs per work-item (1, or 4 where
 *                      the walk's innermost loop moves one dimension by one
 *                      f32 element, a multiple of 4 of them), that loop's
 *                      position variable (p<d>) and offset step
 *   IN_OFF             the input element's offset, from n, c and its
 *                      spatial position z0, z1, z2
 *   BWD                builds resampling_bwd instead of resampling_fwd
 *   NDIMS, LPOS, WITH_POST_OPS  the post-ops' logical dst position
 *
 * Indices are exact integers: nearest reads floor((2o + 1) I / 2O), linear
 * floor and ceil of ((2o + 1) I - O) / 2O with weight rem / 2O; indices are
 * clamped to [0, I - 1]. Forward: one work-item per dst element. Backward:
 * one work-item per diff_src element, gathering from the outputs that read
 * it (no atomics). */

#pragma OPENCL FP_CONTRACT OFF

#ifndef TAP_T
#define TAP_T long
#endif
#ifndef VEC
#define VEC 1
#define VEC_P p0
#define VEC_STRIDE 0
#endif

#define S_T CAT(T_, S_DT)
#define D_T CAT(T_, D_DT)

/* The taps of output position o: indices i0, i1 and the weight w of i1. */
inline void taps(TAP_T o, TAP_T I, TAP_T O, int lin, TAP_T *i0, TAP_T *i1, float *w) {
    if (lin) {
        const TAP_T den = 2 * O, num = (2 * o + 1) * I - O;
        const TAP_T f = num >= 0 ? num / den : -((-num + den - 1) / den);
        const TAP_T rem = num - f * den;
        *i0 = clamp(f, (TAP_T)0, I - 1);
        *i1 = clamp(rem ? f + 1 : f, (TAP_T)0, I - 1);
        *w = (float)rem / (float)den;
    } else {
        *i0 = *i1 = min((2 * o + 1) * I / (2 * O), I - 1);
        *w = 0.0f;
    }
}

/* The weight with which output position o reads source index i. */
inline float weight(TAP_T o, TAP_T i, TAP_T I, TAP_T O, int lin) {
    TAP_T a, b;
    float w;
    taps(o, I, O, lin, &a, &b, &w);
    float v = 0.0f;
    if (a == i) v += 1.0f - w;
    if (b == i) v += w;
    return v;
}

/* The output positions that may read source index i (see touching() in
 * mod.rs): [*lo, *hi]. */
inline void touching(TAP_T i, TAP_T I, TAP_T O, int lin, TAP_T *lo, TAP_T *hi) {
    const TAP_T a = lin ? 2 * i - 1 : 2 * i, b = lin ? 2 * i + 3 : 2 * i + 2;
    const TAP_T nl = a * O - I, nh = b * O - I, d = 2 * I;
    const TAP_T fl = nl >= 0 ? nl / d : -((-nl + d - 1) / d);
    const TAP_T fh = nh >= 0 ? nh / d : -((-nh + d - 1) / d);
    *lo = i == 0 ? 0 : max(fl, (TAP_T)0);
    *hi = i == I - 1 ? O - 1 : min(fh + 1, O - 1);
}

#define POSITIONS \
    const IDX_T t = (IDX_T)get_global_id(0); \
    if (t >= TOTAL) return; \
    DECL_POSITIONS

#ifndef BWD
/* The interpolated source at output position (n, c, y0, y1, y2). */
inline float resample(global S_T *src, IDX_T n, IDX_T c, TAP_T y0, TAP_T y1, TAP_T y2) {
    float acc = 0.0f;
#if !EMPTY_IN
    TAP_T a0, a1, b0, b1, e0, e1;
    float wa, wb, we;
    taps(y0, I0, O0, LIN0, &a0, &a1, &wa);
    taps(y1, I1, O1, LIN1, &b0, &b1, &wb);
    taps(y2, I2, O2, LIN2, &e0, &e1, &we);
    const TAP_T ia[2] = {a0, a1}, ib[2] = {b0, b1}, ie[2] = {e0, e1};
    const float fa[2] = {1.0f - wa, wa}, fb[2] = {1.0f - wb, wb}, fe[2] = {1.0f - we, we};
    for (int ka = 0; ka < 1 + LIN0; ++ka) {
        const IDX_T z0 = ia[ka];
        for (int kb = 0; kb < 1 + LIN1; ++kb) {
            const IDX_T z1 = ib[kb];
            const float wab = fa[ka] * fb[kb];
            for (int ke = 0; ke < 1 + LIN2; ++ke) {
                const IDX_T z2 = ie[ke];
                acc += wab * fe[ke] * CAT(LD_, S_DT)(src, IN_OFF);
            }
        }
    }
#endif
    return acc;
}

#ifdef VTAPS
/* The VEC outputs of one work-item along a linear slot 2 that is the walk's
 * innermost dimension, where VEC outputs span a whole number VQ of inputs:
 * output vbase + j reads columns VQ (vbase / VEC) + VF<j> and + VG<j>
 * (VG = VF + 1 where the remainder VREM<j> of 2 VDEN is non-zero, else VF)
 * with weight VREM<j> / VDEN of the second, whatever vbase (the taps()
 * arithmetic shifted by whole periods). The VR columns from VRMIN on are
 * read once per row (clamped as taps() clamps) and shared by the VEC
 * outputs; sums in resample()'s order, so the results are the same. */
inline void resample_row(global S_T *src, IDX_T n, IDX_T c, TAP_T y0, TAP_T y1, long vbase,
                         float *ya) {
    const int vf[4] = {VF0, VF1, VF2, VF3}, vg[4] = {VG0, VG1, VG2, VG3};
    const float vw[4] = {(float)VREM0 / (float)VDEN, (float)VREM1 / (float)VDEN,
                         (float)VREM2 / (float)VDEN, (float)VREM3 / (float)VDEN};
    for (int j = 0; j < VEC; ++j) ya[j] = 0.0f;
#if !EMPTY_IN
    TAP_T a0, a1, b0, b1;
    float wa, wb;
    taps(y0, I0, O0, LIN0, &a0, &a1, &wa);
    taps(y1, I1, O1, LIN1, &b0, &b1, &wb);
    const TAP_T ia[2] = {a0, a1}, ib[2] = {b0, b1};
    const float fa[2] = {1.0f - wa, wa}, fb[2] = {1.0f - wb, wb};
    const TAP_T base = (TAP_T)(vbase / VEC) * VQ + VRMIN;
    for (int ka = 0; ka < 1 + LIN0; ++ka) {
        const IDX_T z0 = ia[ka];
        for (int kb = 0; kb < 1 + LIN1; ++kb) {
            const IDX_T z1 = ib[kb];
            const float wab = fa[ka] * fb[kb];
            float col[VR];
#pragma unroll
            for (int r = 0; r < VR; ++r) {
                const IDX_T z2 = clamp(base + r, (TAP_T)0, (TAP_T)(I2 - 1));
                col[r] = CAT(LD_, S_DT)(src, IN_OFF);
            }
#pragma unroll
            for (int j = 0; j < VEC; ++j) {
                ya[j] += wab * (1.0f - vw[j]) * col[vf[j]];
                ya[j] += wab * vw[j] * col[vg[j]];
            }
        }
    }
#endif
}
#endif

/* VEC consecutive outputs of the innermost loop per work-item; inside the
 * loop VEC_P (that loop's position p<d>) is shadowed by output j's. */
__kernel void resampling_fwd(global S_T *src, global D_T *dst POST_OPS_PARAMS) {
    const IDX_T t = (IDX_T)get_global_id(0) * VEC;
    if (t >= TOTAL) return;
    DECL_POSITIONS
    const IDX_T out0 = OUT_OFF;
    const long vbase = VEC_P;
    float ya[VEC];
#ifdef VTAPS
    resample_row(src, N_POS, C_POS, Y0, Y1, vbase, ya);
#endif
    for (int j = 0; j < VEC; ++j) {
        const long VEC_P = vbase + j;
#ifdef VTAPS
        float acc = ya[j];
#else
        float acc = resample(src, N_POS, C_POS, Y0, Y1, Y2);
#endif
#ifdef WITH_POST_OPS
        const long pos[NDIMS] = {LPOS};
#if POST_OPS_SUM
        const float old = CAT(LD_, PO_SUM_DT)((global CAT(T_, PO_SUM_DT) *)dst, out0 + j * VEC_STRIDE);
#else
        const float old = 0.0f;
#endif
        acc = post_ops(acc, old, pos POST_OPS_ARGS);
#endif
        ya[j] = acc;
    }
#if VEC == 4
    /* f32 dst, contiguous along the loop: one float4 where aligned. */
    if (((ulong)(dst + out0)) % 16 == 0) {
        *(global float4 *)(dst + out0) = (float4)(ya[0], ya[1], ya[2], ya[3]);
        return;
    }
#endif
    for (int j = 0; j < VEC; ++j)
        CAT(ST_, D_DT)(dst, out0 + j * VEC_STRIDE, ya[j]);
}

#else
__kernel void resampling_bwd(global D_T *dd, global S_T *ds) {
    POSITIONS
    const IDX_T n = N_POS, c = C_POS, x0 = Y0, x1 = Y1, x2 = Y2;
    float acc = 0.0f;
#if !EMPTY_IN
    TAP_T lo0, hi0, lo1, hi1, lo2, hi2;
    touching(x0, I0, O0, LIN0, &lo0, &hi0);
    touching(x1, I1, O1, LIN1, &lo1, &hi1);
    touching(x2, I2, O2, LIN2, &lo2, &hi2);
    for (IDX_T z0 = lo0; z0 <= hi0; ++z0) {
        const float w0 = weight(z0, x0, I0, O0, LIN0);
        if (w0 == 0.0f) continue;
        for (IDX_T z1 = lo1; z1 <= hi1; ++z1) {
            const float w1 = weight(z1, x1, I1, O1, LIN1);
            if (w1 == 0.0f) continue;
            const float w01 = w0 * w1;
            for (IDX_T z2 = lo2; z2 <= hi2; ++z2) {
                const float w2 = weight(z2, x2, I2, O2, LIN2);
                if (w2 == 0.0f) continue;
                acc += w01 * w2 * CAT(LD_, D_DT)(dd, IN_OFF);
            }
        }
    }
#endif
    CAT(ST_, S_DT)(ds, OUT_OFF, acc);
}
#endif
