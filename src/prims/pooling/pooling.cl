/* Pooling forward and backward on OpenCL devices.
 *
 * Built by src/prims/pooling/ocl.rs after types.cl, positions.cl and the
 * post-ops prelude, with -D macros:
 *   S_DT, D_DT, W_DT   element types: the src side (src, diff_src), the dst
 *                      side (dst, diff_dst) and the workspace (U8 or S32)
 *   ALG_MAX, ALG_AVG_INCL, ALG_AVG_EXCL  the algorithm
 *   WS                 the workspace is written (forward) or read (backward)
 *   IDX_T              the type of the work-item index and of element
 *                      offsets and positions (int where every tensor's
 *                      offsets fit: 64-bit arithmetic is slow on GPUs)
 *   TOTAL, P<d>        the output's padded elements in memory order and the
 *                      padded position of element t (prims::common::cl_walk)
 *   INB                whether p<d> lies inside the logical output
 *   N_POS, C_POS, Y0..Y2  the output's logical minibatch, channel and
 *                      spatial positions (depth, height, width; 0 for the
 *                      slots a 1D or 2D op leaves out)
 *   K<j>, S<j>, DL<j>, PL<j>, I<j>, O<j>  window, stride, distance between
 *                      taps, left padding, src and dst sizes per slot
 *   OUT_OFF            the output element's offset
 *   VEC, VEC_P, VEC_STRIDE  forward: outputs per work-item (1, or 4 where
 *                      the walk's innermost loop moves one dimension by one
 *                      f32 element, a multiple of 4 of them), that loop's
 *                      position variable (p<d>) and offset step
 *   ROW4               VEC 4 along slot 2 at stride 1: the four windows'
 *                      source rows are loaded once (pool4)
 *   IN_OFF             the input element's offset, from n, c and its
 *                      spatial position z0, z1, z2 (forward: the src tap;
 *                      backward: the diff_dst element)
 *   W_OFF              the workspace element's offset: forward, of the dst
 *                      element (from p<d>); backward, of the diff_dst
 *                      element (like IN_OFF)
 *   LOWEST             where a max starts (the lowest value of the src type)
 *   BWD                builds pooling_bwd instead of pooling_fwd
 *   NDIMS, LPOS, WITH_POST_OPS  the post-ops' logical dst position
 *
 * Forward: one work-item per dst element, reading its window. Backward: one
 * work-item per diff_src element, gathering from every window covering it
 * (no atomics). */

#ifndef VEC
#define VEC 1
#define VEC_P p0
#define VEC_STRIDE 0
#endif

#define S_T CAT(T_, S_DT)
#define D_T CAT(T_, D_DT)
#define W_T CAT(T_, W_DT)

/* Taps of output position o (one slot) that fall inside the source. */
long taps_inside(long o, long s, long d, long p, long k, long i) {
    const long start = o * s - p;
    const long first = start >= 0 ? 0 : (-start + d - 1) / d;
    const long last_pos = i - 1 - start;
    if (last_pos < 0) return 0;
    const long last = min(k - 1, last_pos / d);
    return max(last - first + 1, 0L);
}

#define DIVISOR(z0, z1, z2) \
    ((float)(taps_inside(z0, S0, DL0, PL0, K0, I0) * taps_inside(z1, S1, DL1, PL1, K1, I1) \
            * taps_inside(z2, S2, DL2, PL2, K2, I2)))

#define POSITIONS \
    const IDX_T t = (IDX_T)get_global_id(0); \
    if (t >= TOTAL) return; \
    DECL_POSITIONS

#ifndef BWD
/* The pooled value of the window at output position (n, c, y0, y1, y2);
 * max: *best is the tap that gave it. */
inline float pool(global S_T *src, IDX_T n, IDX_T c, IDX_T y0, IDX_T y1, IDX_T y2, int *best) {
#ifdef ALG_MAX
    float acc = LOWEST;
#else
    float acc = 0.0f;
#endif
    *best = 0;
    for (int k0 = 0; k0 < K0; ++k0) {
        const IDX_T z0 = y0 * S0 + k0 * DL0 - PL0;
        if (z0 < 0 || z0 >= I0) continue;
        for (int k1 = 0; k1 < K1; ++k1) {
            const IDX_T z1 = y1 * S1 + k1 * DL1 - PL1;
            if (z1 < 0 || z1 >= I1) continue;
            for (int k2 = 0; k2 < K2; ++k2) {
                const IDX_T z2 = y2 * S2 + k2 * DL2 - PL2;
                if (z2 < 0 || z2 >= I2) continue;
                const float v = CAT(LD_, S_DT)(src, IN_OFF);
#ifdef ALG_MAX
                if (v > acc) {
                    acc = v;
                    *best = (k0 * K1 + k1) * K2 + k2;
                }
#else
                acc += v;
#endif
            }
        }
    }
#if defined(ALG_AVG_EXCL)
    acc /= DIVISOR(y0, y1, y2);
#elif defined(ALG_AVG_INCL)
    acc /= (float)(K0 * K1 * K2);
#endif
    return acc;
}

#if ROW4
/* Outputs y2 .. y2 + 3 of one row at stride 1 along slot 2: each source row
 * segment their windows cover is loaded once for the four. A tap outside the
 * source reads as the value that changes nothing (0 for a sum; LOWEST for a
 * max, which no tap beats: the same result and workspace as pool()). */
#define SEG (4 + (K2 - 1) * DL2)
#ifdef ALG_MAX
#define ABSENT LOWEST
#else
#define ABSENT 0.0f
#endif
inline void pool4(global S_T *src, IDX_T n, IDX_T c, IDX_T y0, IDX_T y1, IDX_T y2, float *acc,
        int *best) {
    for (int j = 0; j < 4; ++j) {
        acc[j] = ABSENT;
        best[j] = 0;
    }
    for (int k0 = 0; k0 < K0; ++k0) {
        const IDX_T z0 = y0 * S0 + k0 * DL0 - PL0;
        if (z0 < 0 || z0 >= I0) continue;
        for (int k1 = 0; k1 < K1; ++k1) {
            const IDX_T z1 = y1 * S1 + k1 * DL1 - PL1;
            if (z1 < 0 || z1 >= I1) continue;
            float seg[SEG];
            for (int i = 0; i < SEG; ++i) {
                const IDX_T z2 = y2 - PL2 + i;
                seg[i] = z2 >= 0 && z2 < I2 ? CAT(LD_, S_DT)(src, IN_OFF) : ABSENT;
            }
            for (int k2 = 0; k2 < K2; ++k2) {
                for (int j = 0; j < 4; ++j) {
                    const float v = seg[j + k2 * DL2];
#ifdef ALG_MAX
                    if (v > acc[j]) {
                        acc[j] = v;
                        best[j] = (k0 * K1 + k1) * K2 + k2;
                    }
#else
                    acc[j] += v;
#endif
                }
            }
        }
    }
    for (int j = 0; j < 4; ++j) {
#if defined(ALG_AVG_EXCL)
        acc[j] /= DIVISOR(y0, y1, y2 + j);
#elif defined(ALG_AVG_INCL)
        acc[j] /= (float)(K0 * K1 * K2);
#endif
    }
}
#endif

/* VEC consecutive outputs of the innermost loop per work-item; inside the
 * loop VEC_P (that loop's position p<d>) is shadowed by output j's. */
__kernel void pooling_fwd(global S_T *src, global D_T *dst, global W_T *ws POST_OPS_PARAMS) {
    const IDX_T t = (IDX_T)get_global_id(0) * VEC;
    if (t >= TOTAL) return;
    DECL_POSITIONS
    const IDX_T out0 = OUT_OFF;
    const long vbase = VEC_P;
    float ya[VEC];
#if ROW4
    float pa[4];
    int pb[4];
#ifdef INB
    if (INB)
#endif
        pool4(src, N_POS, C_POS, Y0, Y1, Y2, pa, pb);
#endif
    for (int j = 0; j < VEC; ++j) {
        const long VEC_P = vbase + j;
#ifdef INB
        if (!(INB)) {
            ya[j] = 0.0f;
#if WS
            ws[W_OFF] = 0;
#endif
            continue;
        }
#endif
#if ROW4
        const int best = pb[j];
        float acc = pa[j];
#else
        int best;
        float acc = pool(src, N_POS, C_POS, Y0, Y1, Y2, &best);
#endif
#ifdef WITH_POST_OPS
        const long pos[NDIMS] = {LPOS};
        acc = post_ops(acc, 0.0f, pos POST_OPS_ARGS);
#endif
        ya[j] = acc;
#if WS
        ws[W_OFF] = (W_T)best;
#endif
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
__kernel void pooling_bwd(global D_T *dd, global W_T *ws, global S_T *ds) {
    POSITIONS
#ifdef INB
    if (!(INB)) {
        CAT(ST_, S_DT)(ds, OUT_OFF, 0.0f);
        return;
    }
#endif
    const IDX_T n = N_POS, c = C_POS, y0 = Y0, y1 = Y1, y2 = Y2;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K0; ++k0) {
        const IDX_T a0 = y0 + PL0 - k0 * DL0;
        if (a0 < 0 || a0 % S0 != 0 || a0 / S0 >= O0) continue;
        const IDX_T z0 = a0 / S0;
        for (int k1 = 0; k1 < K1; ++k1) {
            const IDX_T a1 = y1 + PL1 - k1 * DL1;
            if (a1 < 0 || a1 % S1 != 0 || a1 / S1 >= O1) continue;
            const IDX_T z1 = a1 / S1;
            for (int k2 = 0; k2 < K2; ++k2) {
                const IDX_T a2 = y2 + PL2 - k2 * DL2;
                if (a2 < 0 || a2 % S2 != 0 || a2 / S2 >= O2) continue;
                const IDX_T z2 = a2 / S2;
#if defined(ALG_MAX)
                if ((int)ws[W_OFF] == (k0 * K1 + k1) * K2 + k2) acc += CAT(LD_, D_DT)(dd, IN_OFF);
#elif defined(ALG_AVG_EXCL)
                acc += CAT(LD_, D_DT)(dd, IN_OFF) / DIVISOR(z0, z1, z2);
#else
                acc += CAT(LD_, D_DT)(dd, IN_OFF);
#endif
            }
        }
    }
#ifdef ALG_AVG_INCL
    acc /= (float)(K0 * K1 * K2);
#endif
    CAT(ST_, S_DT)(ds, OUT_OFF, acc);
}
#endif
