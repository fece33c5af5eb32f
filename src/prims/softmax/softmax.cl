/* Softmax forward and backward on OpenCL devices, one row (every position
 * but the axis) at a time.
 *
 * Built by src/prims/softmax/ocl.rs after types.cl and the post-ops prelude,
 * with -D macros:
 *   A_DT, B_DT, D_DT   element types: forward src (A) and dst (D); backward
 *                      dst (A), diff_dst (B) and diff_src (D)
 *   ALG_LOG            the log variant (else accurate)
 *   ROWS               number of rows; P<d> the padded position of row r
 *                      (the axis left out)
 *   INROW              whether the row lies inside the logical tensor
 *   AX_LO, AX_LEN, AX_PADDED  the axis in the output: first logical padded
 *                      position, logical length, padded length
 *   A_OFF, B_OFF, D_OFF element offsets from p<d> and the axis position i
 *   WG                 work-items per row (a power of two); 0: one row per
 *                      work-item
 *   BWD                builds softmax_bwd instead of softmax_fwd
 *   SCALE_SRC, SCALE_DST  forward scales; NDIMS, LPOS for post-ops */

#define A_T CAT(T_, A_DT)
#define B_T CAT(T_, B_DT)
#define D_T CAT(T_, D_DT)
#define LD_A(i) CAT(LD_, A_DT)(a, A_OFF)
#define LD_B(i) CAT(LD_, B_DT)(b, B_OFF)

#if WG == 0
#define ROW_SETUP \
    const long r = get_global_id(0); \
    if (r >= ROWS) return; \
    const long lid = 0; \
    const long step = 1;
#define REDUCE_MAX(v) (v)
#define REDUCE_SUM(v) (v)
#else
#define ROW_SETUP \
    const long r = get_group_id(0); \
    const long lid = get_local_id(0); \
    const long step = WG; \
    local float red[WG];
#define REDUCE_MAX(v) wg_max(v, red, lid)
#define REDUCE_SUM(v) wg_sum(v, red, lid)

float wg_max(float v, local float *red, long lid) {
    red[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s) red[lid] = fmax(red[lid], red[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float m = red[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return m;
}
float wg_sum(float v, local float *red, long lid) {
    red[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s) red[lid] += red[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float m = red[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return m;
}
#endif

/* The axis positions of this work-item: padded i = AX_LO + j. */
#define FOR_AXIS for (long j = lid, i = AX_LO + lid; j < AX_LEN; j += step, i += step)
/* Padding along the axis (or the whole row) gets zeros. */
#define ZERO_PAD(all) \
    for (long i = lid; i < AX_PADDED; i += step) \
        if ((all) || i < AX_LO || i >= AX_LO + AX_LEN) CAT(ST_, D_DT)(d, D_OFF, 0.0f);

#ifndef BWD
__kernel void softmax_fwd(global A_T *a, global D_T *d, global float *ssc,
        global float *dsc POST_OPS_PARAMS) {
    ROW_SETUP
    DECL_POSITIONS
    if (!(INROW)) {
        ZERO_PAD(1)
        return;
    }
    float m = -INFINITY;
    FOR_AXIS m = fmax(m, LD_A(i));
    m = REDUCE_MAX(m);
    float s = 0.0f;
    FOR_AXIS s += exp(LD_A(i) - m);
    s = REDUCE_SUM(s);
#if SCALE_SRC
    const float sa = ssc[0];
#else
    const float sa = 1.0f;
#endif
#if SCALE_DST
    const float sd = dsc[0];
#else
    const float sd = 1.0f;
#endif
#ifdef ALG_LOG
    const float ls = log(s);
#endif
    FOR_AXIS {
#ifdef ALG_LOG
        float v = LD_A(i) - m - ls;
#else
        float v = exp(LD_A(i) - m) / s;
#endif
        const long pos[NDIMS] = {LPOS};
#if POST_OPS_SUM
        float old = CAT(LD_, PO_SUM_DT)((global CAT(T_, PO_SUM_DT) *)d, D_OFF);
#else
        float old = 0.0f;
#endif
        v = post_ops(v * sa, old, pos POST_OPS_ARGS) / sd;
        CAT(ST_, D_DT)(d, D_OFF, v);
    }
    ZERO_PAD(0)
}

#else
__kernel void softmax_bwd(global A_T *a, global B_T *b, global D_T *d) {
    ROW_SETUP
    DECL_POSITIONS
    if (!(INROW)) {
        ZERO_PAD(1)
        return;
    }
    float s = 0.0f;
#ifdef ALG_LOG
    FOR_AXIS s += LD_B(i);
#else
    FOR_AXIS s += LD_B(i) * LD_A(i);
#endif
    s = REDUCE_SUM(s);
    FOR_AXIS {
#ifdef ALG_LOG
        float v = LD_B(i) - exp(LD_A(i)) * s;
#else
        float v = LD_A(i) * (LD_B(i) - s);
#endif
        CAT(ST_, D_DT)(d, D_OFF, v);
    }
    ZERO_PAD(0)
}
#endif
