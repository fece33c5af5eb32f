/* GEMM for matmul and inner product: C[m, n] = sum_k A[m, k] * B[k, n], per
 * batch, followed by the epilogue (scales, bias, post-ops, store conversion).
 * Preceded by types.cl and the post-ops prelude (POST_OPS_PARAMS, post_ops).
 *
 * Tiling (the tuning switches, all -D macros):
 * - WG_M x WG_N work-items per work-group (local size (WG_N, WG_M, 1));
 * - each work-item computes an RM x RN register tile, at rows
 *   ty + i * WG_M and columns tx + j * WG_N of the block tile, so that
 *   neighbouring work-items store neighbouring columns (coalesced) and read
 *   neighbouring local-memory words (no bank conflicts); with VLDS 1 (RM and
 *   RN multiples of 4), in runs of 4: rows 4 ty + i % 4 + (i / 4) 4 WG_M,
 *   columns likewise, so each run is one 16-byte local read (a quarter of
 *   the local-memory instructions per product);
 * - a work-group computes a TM x TN block tile (TM = WG_M * RM,
 *   TN = WG_N * RN), walking K in steps of TK through local memory;
 * - A_K_FAST / B_N_FAST say which index of A and B runs fastest in memory
 *   (1: k for A, n for B, as in row-major operands): neighbouring
 *   work-items then load neighbouring elements of that index (coalesced).
 *   They change speed only, never results;
 * - A_VEC4 / B_VEC4 (with A_K_FAST / B_N_FAST): the fast index has stride 1,
 *   so tile loads are 4-wide: through aligned vector pointers when ALIGNED
 *   is 1 (types.cl; the host sets it when every row of a 4-wide operand
 *   starts at a multiple of 4 elements), else vload4 / vload_half4.
 * Shapes, strides and offsets are arguments (one build serves every shape,
 * transposed operands and broadcast batches alike; stride 0 broadcasts).
 * Edges (any M, N, K) are handled by bounds checks on loads and stores.
 *
 * Integer GEMMs (ACC_INT 1: u8/s8 operands) load, keep in local memory and
 * accumulate ints, exactly: the zero points are subtracted as the tiles are
 * loaded (GZP_A 0/1/2: none, one value, one per k; GZP_B 0/1/3: none, one
 * value, one per n), so the accumulator is sum (a - zp_a)(b - zp_b) in
 * wrapping 32-bit arithmetic; the epilogue converts it to float, then
 * scales, bias, post-ops, dst scale, dst zero point (GZP_C 0/1/3) and the
 * rounding, saturating store. C_EXACT: an s32 C with no epilogue stores the
 * int accumulator itself.
 *
 * Batches: the third NDRange dimension enumerates the two innermost
 * (merged) batch dimensions (nb1 the inner one's size); the host loops over
 * the outer ones, adding their offsets. batch_base is the row-major index of
 * the launch's first batch among dst's batch dimensions (for post-ops). */

#ifndef A_DT
#define A_DT F32
#endif
#ifndef B_DT
#define B_DT F32
#endif
#ifndef C_DT
#define C_DT F32
#endif
#ifndef BIAS_DT
#define BIAS_DT F32
#endif
#ifndef WITH_BIAS
#define WITH_BIAS 0
#endif
#ifndef SRC_SCALES
#define SRC_SCALES 0
#endif
/* 0: none, 1: one value, 2: one per n. */
#ifndef WEI_SCALES
#define WEI_SCALES 0
#endif
#ifndef DST_SCALES
#define DST_SCALES 0
#endif
/* PO_ON: post-ops apply; PO_NB batch dimensions of sizes PO_BATCH_DIMS. */
#ifndef PO_ON
#define PO_ON 0
#endif
#ifndef PO_NB
#define PO_NB 0
#endif

#ifndef ACC_INT
#define ACC_INT 0
#endif
#ifndef GZP_A
#define GZP_A 0
#endif
#ifndef GZP_B
#define GZP_B 0
#endif
#ifndef GZP_C
#define GZP_C 0
#endif
#ifndef C_EXACT
#define C_EXACT 0
#endif

/* The accumulator type and the operand loads into it. */
#if ACC_INT
#define ACC_T int
#define ACC4_T int4
#define LDK_A(p, i) convert_int((p)[i])
#define LDK_B(p, i) convert_int((p)[i])
#define LDK4_A(p, i) convert_int4(vload4((i), (p)))
#define LDK4_B(p, i) convert_int4(vload4((i), (p)))
#define MAD(a, b, c) ((a) * (b) + (c))
#else
#define ACC_T float
#define ACC4_T float4
#define LDK_A(p, i) LD_A(p, i)
#define LDK_B(p, i) LD_B(p, i)
#define LDK4_A(p, i) LD4_A(p, i)
#define LDK4_B(p, i) LD4_B(p, i)
#define MAD(a, b, c) fma(a, b, c)
#endif
/* Zero points of A (by k) and B (by n), subtracted at loads. */
#if GZP_A == 2
#define ZPA(gk) zp_a[gk]
#define ZPA4(gk) vload4(0, zp_a + (gk))
#elif GZP_A == 1
#define ZPA(gk) zp_a[0]
#define ZPA4(gk) ((int4)(zp_a[0]))
#else
#define ZPA(gk) 0
#define ZPA4(gk) 0
#endif
#if GZP_B == 3
#define ZPB(gn) zp_b[gn]
#define ZPB4(gn) vload4(0, zp_b + (gn))
#elif GZP_B == 1
#define ZPB(gn) zp_b[0]
#define ZPB4(gn) ((int4)(zp_b[0]))
#else
#define ZPB(gn) 0
#define ZPB4(gn) 0
#endif

#ifndef WG_M
#define WG_M 16
#endif
#ifndef WG_N
#define WG_N 16
#endif
#ifndef RM
#define RM 4
#endif
#ifndef RN
#define RN 4
#endif
#ifndef TK
#define TK 16
#endif
/* DBUF: two local buffers (one barrier per K step) instead of one. */
#ifndef DBUF
#define DBUF 0
#endif
#define AW As[wbuf]
#define BW Bs[wbuf]
#define AR As[rbuf]
#define BR Bs[rbuf]
#ifndef A_K_FAST
#define A_K_FAST 1
#endif
#ifndef B_N_FAST
#define B_N_FAST 1
#endif
#ifndef A_VEC4
#define A_VEC4 0
#endif
#ifndef B_VEC4
#define B_VEC4 0
#endif

/* Hooks a caller with its own addressing defines before this file (the
 * convolution's implicit GEMM, conv.cl): A_VALUE(gm, gk) and
 * B_VALUE(gk, gn) give an operand element (0 outside), C_INDEX(gm, gn) the
 * element of C, CHANNEL(gn) the per-column scale's index, PO_POSITION(pos,
 * gm, gn) the post-ops' logical position (PO_NB + 2 entries),
 * EPILOGUE_END(v, gn) a last step before the store, EXTRA_PARAMS more
 * kernel parameters (before the post-ops'). Row-wise work a gather can do
 * once per load slot t instead of at every K step: A_PREP_DECL declares its
 * per-slot state, A_PREP(t, gm) fills it, and A_VALUE_T(t, gm, gk) /
 * A_LOAD4(t, gm, gk, v) (4-wide, into float4 v) read A with it;
 * A_STEP(k0) declares what a 4-wide K step shares (before its loads). The
 * defaults are a strided matrix per batch. */
#ifndef A_VALUE_T
#define A_VALUE_T(t, gm, gk) A_VALUE(gm, gk)
#endif
#ifndef A_STEP
#define A_STEP(k0)
#endif
#ifndef A_LOAD4
#define A_LOAD4(t, gm, gk, v) \
    if ((gm) < M) { \
        const long at = a_base + (gm) * a_rs + (gk); \
        if ((gk) + 3 < K) { \
            v = LDK4_A(a + at, 0) - ZPA4(gk); \
        } else { \
            if ((gk) < K) v.s0 = LDK_A(a, at) - ZPA(gk); \
            if ((gk) + 1 < K) v.s1 = LDK_A(a, at + 1) - ZPA((gk) + 1); \
            if ((gk) + 2 < K) v.s2 = LDK_A(a, at + 2) - ZPA((gk) + 2); \
        } \
    }
#endif
#ifndef A_VALUE
#define A_VALUE(gm, gk) \
    ((gm) < M && (gk) < K ? LDK_A(a, a_base + (gm) * a_rs + (gk) * a_cs) - ZPA(gk) : 0)
#endif
#ifndef B_VALUE
#define B_VALUE(gk, gn) \
    ((gk) < K && (gn) < N ? LDK_B(b, b_base + (gk) * b_rs + (gn) * b_cs) - ZPB(gn) : 0)
#endif
#ifndef C_INDEX
#define C_INDEX(gm, gn) (c_base + (gm) * c_rs + (gn) * c_cs)
#endif
#ifndef CHANNEL
#define CHANNEL(gn) (gn)
#endif
#if GZP_C == 3
#define EPILOGUE_END(v, gn) v += (float)zp_c[gn]
#elif GZP_C == 1
#define EPILOGUE_END(v, gn) v += (float)zp_c[0]
#endif
#ifndef EPILOGUE_END
#define EPILOGUE_END(v, gn)
#endif
#ifndef EXTRA_PARAMS
/* The integer GEMM's zero points (unused otherwise). */
#define EXTRA_PARAMS , global const int *zp_a, global const int *zp_b, global const int *zp_c
#endif

#define TM (WG_M * RM)
/* Load slots of A per work-item (A_PREP's arrays). */
#if A_VEC4
#define A_SLOTS LA4
#else
#define A_SLOTS LA
#endif
#define TN (WG_N * RN)
#define WG (WG_M * WG_N)
#ifndef VLDS
#define VLDS 0
#endif
#if VLDS
/* Local rows padded by 4 words: runs of 4 stay 16-byte aligned; with two
 * buffers unpadded (128 x 256 blocks then fit in 48 KiB). */
#if DBUF
#define PAD 0
#else
#define PAD 4
#endif
#define ROW_OF(i) (ty * 4 + ((i) & 3) + ((i) >> 2) * (WG_M * 4))
#define COL_OF(j) (tx * 4 + ((j) & 3) + ((j) >> 2) * (WG_N * 4))
#else
/* Local rows padded by one word: column walks hit distinct banks. */
#define PAD 1
#define ROW_OF(i) (ty + (i) * WG_M)
#define COL_OF(j) (tx + (j) * WG_N)
#endif

#define T_A CAT(T_, A_DT)
#define T_B CAT(T_, B_DT)
#define T_C CAT(T_, C_DT)
#define T_BIAS CAT(T_, BIAS_DT)
#define LD_A(p, i) CAT(LD_, A_DT)(p, i)
#define LD_B(p, i) CAT(LD_, B_DT)(p, i)
#define LD_C(p, i) CAT(LD_, C_DT)(p, i)
#define ST_C(p, i, v) CAT(ST_, C_DT)(p, i, v)
/* 1 where C's elements are f32 (the 16-byte stores of VLDS). */
#define C_IS_F32_F32 1
#define C_IS_F32 CAT(C_IS_F32_, C_DT)
#define LD_BIAS(p, i) CAT(LD_, BIAS_DT)(p, i)
#define LD4_A(p, i) CAT(LD4_, A_DT)(p, i)
#define LD4_B(p, i) CAT(LD4_, B_DT)(p, i)

/* Loads per work-item and K step: scalar (LA, LB) or 4-wide (LA4, LB4). */
#define LA ((TM * TK + WG - 1) / WG)
#define LB ((TK * TN + WG - 1) / WG)
#define LA4 ((TM * TK / 4 + WG - 1) / WG)
#define LB4 ((TK * TN / 4 + WG - 1) / WG)

/* Which tile element the t-th load of a work-item fetches: (kk, mm) of A,
 * (kk, nn) of B, the fast index running across neighbouring work-items. */
#if A_VEC4
#define A_POS(i) const int kk = ((i) % (TK / 4)) * 4, mm = (i) / (TK / 4)
#elif A_K_FAST
#define A_POS(i) const int kk = (i) % TK, mm = (i) / TK
#else
#define A_POS(i) const int mm = (i) % TM, kk = (i) / TM
#endif
#if B_VEC4
#define B_POS(i) const int nn = ((i) % (TN / 4)) * 4, kk = (i) / (TN / 4)
#elif B_N_FAST
#define B_POS(i) const int nn = (i) % TN, kk = (i) / TN
#else
#define B_POS(i) const int kk = (i) % TK, nn = (i) / TK
#endif

/* A's tile at K step k0 into pa (zeros outside the matrix). */
#if A_VEC4
#define FETCH_A(k0) \
    A_STEP(k0); \
    _Pragma("unroll") for (int t = 0; t < LA4; ++t) { \
        const int i = lid + t * WG; \
        ACC4_T v = (ACC4_T)(0); \
        if (i < TM * TK / 4) { \
            A_POS(i); \
            const long gm = m0 + mm, gk = (k0) + kk; \
            A_LOAD4(t, gm, gk, v); \
        } \
        pa[t] = v; \
    }
#define STORE_A() \
    _Pragma("unroll") for (int t = 0; t < LA4; ++t) { \
        const int i = lid + t * WG; \
        if (i < TM * TK / 4) { \
            A_POS(i); \
            AW[kk][mm] = pa[t].s0; \
            AW[kk + 1][mm] = pa[t].s1; \
            AW[kk + 2][mm] = pa[t].s2; \
            AW[kk + 3][mm] = pa[t].s3; \
        } \
    }
#else
#define FETCH_A(k0) \
    _Pragma("unroll") for (int t = 0; t < LA; ++t) { \
        const int i = lid + t * WG; \
        ACC_T v = 0; \
        if (i < TM * TK) { \
            A_POS(i); \
            const long gm = m0 + mm, gk = (k0) + kk; \
            v = A_VALUE_T(t, gm, gk); \
        } \
        pa[t] = v; \
    }
#define STORE_A() \
    _Pragma("unroll") for (int t = 0; t < LA; ++t) { \
        const int i = lid + t * WG; \
        if (i < TM * TK) { \
            A_POS(i); \
            AW[kk][mm] = pa[t]; \
        } \
    }
#endif

/* B's tile at K step k0 into pb. */
#if B_VEC4
#define FETCH_B(k0) \
    _Pragma("unroll") for (int t = 0; t < LB4; ++t) { \
        const int i = lid + t * WG; \
        ACC4_T v = (ACC4_T)(0); \
        if (i < TK * TN / 4) { \
            B_POS(i); \
            const long gk = (k0) + kk, gn = n0 + nn; \
            if (gk < K) { \
                const long at = b_base + gk * b_rs + gn; \
                if (gn + 3 < N) { \
                    v = LDK4_B(b + at, 0) - ZPB4(gn); \
                } else { \
                    if (gn < N) v.s0 = LDK_B(b, at) - ZPB(gn); \
                    if (gn + 1 < N) v.s1 = LDK_B(b, at + 1) - ZPB(gn + 1); \
                    if (gn + 2 < N) v.s2 = LDK_B(b, at + 2) - ZPB(gn + 2); \
                } \
            } \
        } \
        pb[t] = v; \
    }
#define STORE_B() \
    _Pragma("unroll") for (int t = 0; t < LB4; ++t) { \
        const int i = lid + t * WG; \
        if (i < TK * TN / 4) { \
            B_POS(i); \
            vstore4(pb[t], 0, &BW[kk][nn]); \
        } \
    }
#else
#define FETCH_B(k0) \
    _Pragma("unroll") for (int t = 0; t < LB; ++t) { \
        const int i = lid + t * WG; \
        ACC_T v = 0; \
        if (i < TK * TN) { \
            B_POS(i); \
            const long gk = (k0) + kk, gn = n0 + nn; \
            v = B_VALUE(gk, gn); \
        } \
        pb[t] = v; \
    }
#define STORE_B() \
    _Pragma("unroll") for (int t = 0; t < LB; ++t) { \
        const int i = lid + t * WG; \
        if (i < TK * TN) { \
            B_POS(i); \
            BW[kk][nn] = pb[t]; \
        } \
    }
#endif

/* The epilogue's parts every GEMM kernel shares (gemm_tiled here,
 * gemm_mma in gemm_mma.cl). The factor every value takes: the common src
 * and weights scales. */
inline float epilogue_common(global const float *scales_src, global const float *scales_wei) {
    float common = 1.0f;
#if SRC_SCALES
    common *= scales_src[0];
#endif
#if WEI_SCALES == 1
    common *= scales_wei[0];
#endif
    return common;
}

/* The post-ops' batch positions pos[0..PO_NB) of launch batch g2 (a
 * caller with its own PO_POSITION sets them itself). */
inline void epilogue_batch_pos(long *pos, long batch_base, long g2) {
#if PO_ON && PO_NB > 0 && !defined(PO_POSITION)
    const long bd[PO_NB] = {PO_BATCH_DIMS};
    long rest = batch_base + g2;
    for (int d = PO_NB - 1; d >= 0; --d) {
        pos[d] = rest % bd[d];
        rest /= bd[d];
    }
#endif
}

/* One value v (the accumulator times epilogue_common) through the rest:
 * the per-column weights scale ws (WEI_SCALES 2), the bias element at
 * bias_at, the post-ops at pos (the sum reading C's element at), the dst
 * scale (dst_inv: its inverse). The caller ends with EPILOGUE_END and the
 * store. */
inline float epilogue_value(float v, float ws, global const T_BIAS *bias, long bias_at,
        global T_C *c, long at, float dst_inv, const long *pos POST_OPS_PARAMS) {
#if WEI_SCALES == 2
    v *= ws;
#endif
#if WITH_BIAS
    v += LD_BIAS(bias, bias_at);
#endif
#if PO_ON
#if POST_OPS_SUM
    const float old = CAT(LD_, PO_SUM_DT)((global CAT(T_, PO_SUM_DT) *)c, at);
#else
    const float old = 0.0f;
#endif
    v = post_ops(v, old, pos POST_OPS_ARGS);
#endif
#if DST_SCALES
    v *= dst_inv;
#endif
    return v;
}

/* The weights scale of column gn, the post-ops' position array. */
#if WEI_SCALES == 2
#define WEI_SCALE_OF(gn) scales_wei[CHANNEL(gn)]
#else
#define WEI_SCALE_OF(gn) 1.0f
#endif
#if PO_ON
#define PO_POS pos
#else
#define PO_POS 0
#endif
/* The post-ops' position of C's element (gm, gn). */
#if PO_ON && defined(PO_POSITION)
#define PO_SET(gm, gn) PO_POSITION(pos, gm, gn)
#elif PO_ON
#define PO_SET(gm, gn) (pos[PO_NB] = (gm), pos[PO_NB + 1] = (gn))
#else
#define PO_SET(gm, gn) ((void)0)
#endif
/* gemm_tiled's epilogue of acc[i][j], C's element (gm, gn) at index at:
 * declares its value v, ready to store. */
#define EPILOGUE_V(v, i, j, gm, gn, at) \
    PO_SET(gm, gn); \
    float v = epilogue_value((float)acc[i][j] * common, WEI_SCALE_OF(gn), bias, \
            bias_base + (gm) * bias_rs + (gn) * bias_cs, c, at, dst_inv, PO_POS POST_OPS_ARGS); \
    EPILOGUE_END(v, gn)

__attribute__((reqd_work_group_size(WG_N, WG_M, 1)))
kernel void gemm_tiled(global const T_A *a, long a_off, long a_rs, long a_cs,
        long a_b0, long a_b1, global const T_B *b, long b_off, long b_rs,
        long b_cs, long b_b0, long b_b1, global T_C *c, long c_off, long c_rs,
        long c_cs, long c_b0, long c_b1, global const T_BIAS *bias,
        long bias_off, long bias_rs, long bias_cs, long bias_b0, long bias_b1,
        long M, long N, long K, long nb1, long batch_base,
        global const float *scales_src, global const float *scales_wei,
        global const float *scales_dst EXTRA_PARAMS POST_OPS_PARAMS) {
    local ACC_T As[DBUF + 1][TK][TM + PAD] __attribute__((aligned(16)));
    local ACC_T Bs[DBUF + 1][TK][TN + PAD] __attribute__((aligned(16)));

    const int tx = get_local_id(0);
    const int ty = get_local_id(1);
    const int lid = ty * WG_N + tx;
    const long n0 = (long)get_group_id(0) * TN;
    const long m0 = (long)get_group_id(1) * TM;
    const long g2 = get_global_id(2);
    const long i0 = g2 / nb1, i1 = g2 % nb1;
    const long a_base = a_off + i0 * a_b0 + i1 * a_b1;
    const long b_base = b_off + i0 * b_b0 + i1 * b_b1;

    ACC_T acc[RM][RN];
#pragma unroll
    for (int i = 0; i < RM; ++i)
#pragma unroll
        for (int j = 0; j < RN; ++j)
            acc[i][j] = 0;

    /* Tile loads go through registers: the next K step's global loads are
     * issued before the current step's products, so their latency hides
     * behind the arithmetic (one local buffer and two barriers per step, or
     * with DBUF two buffers and one barrier). */
#if A_VEC4
    ACC4_T pa[LA4];
#else
    ACC_T pa[LA];
#endif
#if B_VEC4
    ACC4_T pb[LB4];
#else
    ACC_T pb[LB];
#endif
#ifdef A_PREP
    /* Per load slot, what the rows need once (the caller's hook). */
    A_PREP_DECL;
    _Pragma("unroll") for (int t = 0; t < A_SLOTS; ++t) {
        const int i = lid + t * WG;
        if (i < TM * TK / (A_VEC4 ? 4 : 1)) {
            A_POS(i);
            A_PREP(t, m0 + mm);
        }
    }
#endif
    FETCH_A(0);
    FETCH_B(0);
    /* DBUF: two local buffers, the next K step's tiles stored into the
     * other one after this step's products, one barrier per step. */
#if DBUF
    int cur = 0;
    {
        const int wbuf = 0;
        STORE_A();
        STORE_B();
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
    for (long k0 = 0; k0 < K; k0 += TK) {
        const bool more = k0 + TK < K;
#if DBUF
        const int rbuf = cur;
#else
        const int wbuf = 0, rbuf = 0;
        STORE_A();
        STORE_B();
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
        if (more) {
            FETCH_A(k0 + TK);
            FETCH_B(k0 + TK);
        }

#pragma unroll
        for (int kk = 0; kk < TK; ++kk) {
            ACC_T ra[RM], rb[RN];
#if VLDS
#pragma unroll
            for (int i = 0; i < RM; i += 4) {
                const ACC4_T v = *(local const ACC4_T *)&AR[kk][ROW_OF(i)];
                ra[i] = v.s0;
                ra[i + 1] = v.s1;
                ra[i + 2] = v.s2;
                ra[i + 3] = v.s3;
            }
#pragma unroll
            for (int j = 0; j < RN; j += 4) {
                const ACC4_T v = *(local const ACC4_T *)&BR[kk][COL_OF(j)];
                rb[j] = v.s0;
                rb[j + 1] = v.s1;
                rb[j + 2] = v.s2;
                rb[j + 3] = v.s3;
            }
#else
#pragma unroll
            for (int i = 0; i < RM; ++i)
                ra[i] = AR[kk][ROW_OF(i)];
#pragma unroll
            for (int j = 0; j < RN; ++j)
                rb[j] = BR[kk][COL_OF(j)];
#endif
#pragma unroll
            for (int i = 0; i < RM; ++i)
#pragma unroll
                for (int j = 0; j < RN; ++j)
                    acc[i][j] = MAD(ra[i], rb[j], acc[i][j]);
        }
#if DBUF
        if (more) {
            const int wbuf = cur ^ 1;
            STORE_A();
            STORE_B();
        }
        cur ^= 1;
#endif
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    /* The epilogue. */
    const long c_base = c_off + i0 * c_b0 + i1 * c_b1;
    const long bias_base = bias_off + i0 * bias_b0 + i1 * bias_b1;
    const float common = epilogue_common(scales_src, scales_wei);
    const float dst_inv = DST_SCALES ? 1.0f / scales_dst[0] : 1.0f;
#if PO_ON
    long pos[PO_NB + 2];
#ifndef PO_POSITION
    epilogue_batch_pos(pos, batch_base, g2);
#endif
#endif
#if VLDS && !C_EXACT && C_IS_F32
    /* Runs of 4 columns: one 16-byte store where C's 4 elements are
     * contiguous and aligned (neighbouring work-items then store
     * neighbouring runs), else 4 stores. */
#pragma unroll
    for (int i = 0; i < RM; ++i) {
        const long gm = m0 + ROW_OF(i);
        if (gm >= M) continue;
#pragma unroll
        for (int j0 = 0; j0 < RN; j0 += 4) {
            float vs[4];
            long ats[4];
#pragma unroll
            for (int u = 0; u < 4; ++u) {
                const int j = j0 + u;
                const long gn = n0 + COL_OF(j);
                ats[u] = -1;
                if (gn >= N) continue;
                const long at = C_INDEX(gm, gn);
                ats[u] = at;
                EPILOGUE_V(v, i, j, gm, gn, at);
                vs[u] = v;
            }
            if (ats[3] >= 0 && ats[1] == ats[0] + 1 && ats[2] == ats[0] + 2
                    && ats[3] == ats[0] + 3 && ((ulong)(c + ats[0])) % 16 == 0) {
                *(global float4 *)(c + ats[0]) = (float4)(vs[0], vs[1], vs[2], vs[3]);
            } else {
#pragma unroll
                for (int u = 0; u < 4; ++u)
                    if (ats[u] >= 0) c[ats[u]] = vs[u];
            }
        }
    }
#else
#pragma unroll
    for (int i = 0; i < RM; ++i) {
        const long gm = m0 + ROW_OF(i);
        if (gm >= M) continue;
#pragma unroll
        for (int j = 0; j < RN; ++j) {
            const long gn = n0 + COL_OF(j);
            if (gn >= N) continue;
            const long at = C_INDEX(gm, gn);
#if C_EXACT
            c[at] = acc[i][j];
            continue;
#endif
            EPILOGUE_V(v, i, j, gm, gn, at);
            ST_C(c, at, v);
        }
    }
#endif
}

/* Column sums (inner product's bias gradient): out[j] = sum_r x[r, j]. One
 * work-item per column; neighbours read neighbouring columns. */
kernel void col_sum(global const T_A *x, long x_off, long x_rs, long x_cs,
        long rows, long cols, global T_C *out, long out_off, long out_s) {
    const long j = get_global_id(0);
    if (j >= cols) return;
    float s = 0.0f;
    for (long r = 0; r < rows; ++r)
        s += LD_A(x, x_off + r * x_rs + j * x_cs);
    ST_C(out, out_off + j * out_s, s);
}
