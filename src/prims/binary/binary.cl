/* Binary on OpenCL devices: d = binary_op(ALG, s0 * a, s1 * b, c).
 *
 * Built by src/prims/binary/ocl.rs after types.cl, binary_alg.cl and the
 * post-ops prelude, with -D macros:
 *   ALG                    the algorithm (BinaryAlg::cl_id)
 *   A_DT, B_DT, C_DT, D_DT element types of src0, src1, src2 and dst
 *   HAS_C                  1: src2 (select's condition) is read
 *   SCALE0, SCALE1         1: src0 / src1 are multiplied by their scale
 *   binary_generic only: TOTAL (padded elements of dst), P<d> (padded
 *   position of work-item t), A_OFF B_OFF C_OFF D_OFF (element offsets, the
 *   broadcast dimensions of the inputs at 0), INB (inside the logical
 *   tensor), NDIMS and LPOS (the logical position, for post-ops).
 * Without TOTAL, binary_dense: flat arrays of n elements, float4 at a time. */

#ifndef C_DT
#define C_DT U8
#endif
#ifndef HAS_C
#define HAS_C 0
#endif
#ifndef SCALE0
#define SCALE0 0
#endif
#ifndef SCALE1
#define SCALE1 0
#endif

#define A_T CAT(T_, A_DT)
#define B_T CAT(T_, B_DT)
#define C_T CAT(T_, C_DT)
#define D_T CAT(T_, D_DT)

#if SCALE0
#define LOAD_S0 const float s0 = sc0[0];
#else
#define LOAD_S0 const float s0 = 1.0f;
#endif
#if SCALE1
#define LOAD_S1 const float s1 = sc1[0];
#else
#define LOAD_S1 const float s1 = 1.0f;
#endif

#ifndef TOTAL
__kernel void binary_dense(global A_T *a, long a_off, global B_T *b, long b_off,
        global C_T *c, long c_off, global D_T *d, long d_off, ulong n,
        global float *sc0, global float *sc1) {
    LOAD_S0
    LOAD_S1
    a += a_off;
    b += b_off;
    c += c_off;
    d += d_off;
    const ulong g = get_global_id(0);
    const ulong nvec = n / 4;
    if (g < nvec) {
        float4 x = CAT(LD4_, A_DT)(a, g) * s0;
        float4 y = CAT(LD4_, B_DT)(b, g) * s1;
#if HAS_C
        float4 z = CAT(LD4_, C_DT)(c, g);
#else
        float4 z = (float4)(0.0f);
#endif
        float4 r = (float4)(binary_op(ALG, x.s0, y.s0, z.s0), binary_op(ALG, x.s1, y.s1, z.s1),
                binary_op(ALG, x.s2, y.s2, z.s2), binary_op(ALG, x.s3, y.s3, z.s3));
        CAT(ST4_, D_DT)(d, g, r);
    }
    if (g < n - nvec * 4) {
        const ulong i = nvec * 4 + g;
#if HAS_C
        float z = CAT(LD_, C_DT)(c, i);
#else
        float z = 0.0f;
#endif
        CAT(ST_, D_DT)(d, i,
                binary_op(ALG, CAT(LD_, A_DT)(a, i) * s0, CAT(LD_, B_DT)(b, i) * s1, z));
    }
}

#else
#ifndef C_OFF
#define C_OFF 0
#endif

/* One work-item per padded dst element, in dst's memory order (writes
 * coalesce); dst's padding gets zeros. */
__kernel void binary_generic(global A_T *a, global B_T *b, global C_T *c,
        global D_T *d, global float *sc0, global float *sc1 POST_OPS_PARAMS) {
    const long t = get_global_id(0);
    if (t >= TOTAL) return;
    DECL_POSITIONS
#ifdef INB
    if (!(INB)) {
        CAT(ST_, D_DT)(d, D_OFF, 0.0f);
        return;
    }
#endif
    LOAD_S0
    LOAD_S1
#if HAS_C
    float z = CAT(LD_, C_DT)(c, C_OFF);
#else
    float z = 0.0f;
#endif
    float v = binary_op(
            ALG, CAT(LD_, A_DT)(a, A_OFF) * s0, CAT(LD_, B_DT)(b, B_OFF) * s1, z);
    const long pos[NDIMS] = {LPOS};
#if POST_OPS_SUM
    float old = CAT(LD_, PO_SUM_DT)((global CAT(T_, PO_SUM_DT) *)d, D_OFF);
#else
    float old = 0.0f;
#endif
    v = post_ops(v, old, pos POST_OPS_ARGS);
    CAT(ST_, D_DT)(d, D_OFF, v);
}
#endif
