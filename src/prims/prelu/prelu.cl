/* PReLU forward and backward on OpenCL devices: a work-item per element, in
 * the output's memory order.
 *
 * Built by src/prims/prelu/ocl.rs after types.cl, with -D macros:
 *   N                 elements
 *   OFF0 .. OFF5      element offsets of work-item t in each tensor: forward
 *                     src, weights, dst; backward src, weights, diff_dst,
 *                     diff_src, diff_weights, and the products (OFF5, dense)
 *   T0_DT .. T4_DT    their element types
 *   PRODUCTS          backward: 1 writes min(src, 0) * diff_dst to the f32
 *                     products buffer (summed afterwards), 0 to diff_weights */

#define T0_T CAT(T_, T0_DT)
#define T1_T CAT(T_, T1_DT)
#define T2_T CAT(T_, T2_DT)
#ifdef BWD
#define T3_T CAT(T_, T3_DT)
#define T4_T CAT(T_, T4_DT)
#endif

#ifndef BWD
__kernel void prelu_fwd(global const T0_T *s, global const T1_T *w, global T2_T *d) {
    const long t = get_global_id(0);
    if (t >= N) return;
    const float x = CAT(LD_, T0_DT)(s, OFF0);
    CAT(ST_, T2_DT)(d, OFF2, x > 0.0f ? x : x * CAT(LD_, T1_DT)(w, OFF1));
}

#else
__kernel void prelu_bwd(global const T0_T *s, global const T1_T *w, global const T2_T *dd,
        global T3_T *ds, global T4_T *dw, global float *products) {
    const long t = get_global_id(0);
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
