/* PReLU forward and backward on OpenCL devices: a work-item per element, in
 * the output's memory order.
 *
 * Built by src/prims/prelu/ocl.rs after types.cl, with -D macros:
 *   N                 elements
 *   IDX_T             the type of the work-item index and offsets (int where
 *                     every offset fits: 64-bit division is slow on GPUs)
 *   OFF0 .. OFF5      element offsets of work-item t in each tensor: forward
 *                     src, weights, dst; backward src, weights, diff_dst,
 *                     diff_src, diff_weights, and the products (OFF5, dense)
 *   T0_DT .. T4_DT    their element types
 *   VEC, INC0 .. INC2 forward: consecutive elements of the innermost
 *                     dimension per work-item (1, or 4 where its extent is a
 *                     multiple of 4 and f32 src and dst are contiguous along
 *                     it; work-item i starts at element i * VEC) and each
 *                     tensor's offset step along it
 *   PRODUCTS          backward: 1 writes min(src, 0) * diff_dst to the f32
 *                     products buffer (summed afterwards), 0 to diff_weights */

#ifndef IDX_T
#define IDX_T long
#endif

#ifndef VEC
#define VEC 1
#define INC0 0
#define INC1 0
#define INC2 0
#endif

#define T0_T CAT(T_, T0_DT)
#define T1_T CAT(T_, T1_DT)
#define T2_T CAT(T_, T2_DT)
#ifdef BWD
#define T3_T CAT(T_, T3_DT)
#define T4_T CAT(T_, T4_DT)
#endif

#ifndef BWD
__kernel void prelu_fwd(global const T0_T *s, global const T1_T *w, global T2_T *d) {
    const IDX_T t = (IDX_T)get_global_id(0) * VEC;
    if (t >= N) return;
    const IDX_T o0 = OFF0, o1 = OFF1, o2 = OFF2;
#if VEC == 4
    /* f32 src and dst, contiguous along the innermost dimension: one float4
     * each where both addresses are 16-byte aligned. */
    global const float *xs = s + o0;
    global float *ys = d + o2;
    if ((((ulong)xs) | ((ulong)ys)) % 16 == 0) {
        const float4 x = *(global const float4 *)xs;
        const float4 a = (float4)(CAT(LD_, T1_DT)(w, o1), CAT(LD_, T1_DT)(w, o1 + INC1),
                CAT(LD_, T1_DT)(w, o1 + 2 * INC1), CAT(LD_, T1_DT)(w, o1 + 3 * INC1));
        *(global float4 *)ys = select(x * a, x, x > 0.0f);
        return;
    }
#endif
    for (int j = 0; j < VEC; ++j) {
        const float x = CAT(LD_, T0_DT)(s, o0 + j * INC0);
        CAT(ST_, T2_DT)(d, o2 + j * INC2, x > 0.0f ? x : x * CAT(LD_, T1_DT)(w, o1 + j * INC1));
    }
}

#else
__kernel void prelu_bwd(global const T0_T *s, global const T1_T *w, global const T2_T *dd,
        global T3_T *ds, global T4_T *dw, global float *products) {
    const IDX_T t = (IDX_T)get_global_id(0);
    if (t >= N) return;
    const float x = CAT(LD_, T0_DT)(s, OFF0);
    const float g = CAT(LD_, T2_DT)(dd, OFF2);
    CAT(ST_, T3_DT)(ds, OFF3, x > 0.0f ? g : g * CAT(LD_, T1_DT)(w, OFF1));
#if PRODUCTS
    products[OFF5] = fmin(x, 0.0f) * g;
#else
    CAT(ST_, T4_DT)(dw, OFF4, fmin(x, 0.0f) * g);
#endif
}
#endif
