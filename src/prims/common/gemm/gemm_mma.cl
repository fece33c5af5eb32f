/* GEMM on NVIDIA tensor cores (sm_80 and later) through inline PTX:
 * mma.sync.aligned.m16n8k16 with f16 or bf16 operands, or (MMA_TF32, f32
 * operands where the floating-point math mode allows tf32) m16n8k8 on
 * tf32 values rounded from f32 (cvt.rna) as the fragments are read; f32
 * accumulation. Built after gemm.cl (its type macros, hooks' defaults and
 * epilogue switches), with the same kernel parameters as gemm_tiled, so the
 * host launches either with one argument list.
 *
 * Tiling: a work-group of 8 warps (256 work-items, local size (256, 1, 1))
 * computes a 128 x 128 block of C, walking K in steps of MMA_K (32 16-bit
 * or 16 f32 values: 64 bytes) through local memory; warp w takes the 64 x
 * 32 sub-block at rows (w / 4) * 64 and columns (w % 4) * 32: 4 x 4 tiles
 * of 16 x 8, each one mma per 16 (tf32: 8) K. Local tiles hold the raw
 * values: As[m][k] (k fastest) and Bs[k][n] (n fastest), rows padded by 16
 * bytes so that the 8 rows an ldmatrix phase reads (16-bit) or a warp's
 * fragment words (tf32) hit distinct banks. With 16-byte loads of both
 * operands
 * (ASYNC) the tiles come by cp.async into two stages, the next K step's
 * copies in flight during the current one's products; otherwise the next
 * K step's global loads go to registers before the current step's
 * products (as gemm_tiled does).
 *
 * Operand loads: A_VEC8 (A's k index contiguous, rows and offsets multiples
 * of MMA_V elements, 16 bytes) and B_VEC8 (B's n index contiguous, likewise)
 * load 16 bytes at once; otherwise element by element, the fast index
 * across neighbouring work-items (A_K_FAST / B_N_FAST). Edges are
 * zero-filled.
 *
 * Fragments (PTX ISA, mma.m16n8k16, lane = 4 * g + q):
 *   A: {(g, 2q..2q+1), (g+8, 2q..), (g, 2q+8..), (g+8, 2q+8..)}
 *   B: {(2q..2q+1, g), (2q+8.., g)}   (k, n)
 *   C: {(g, 2q), (g, 2q+1), (g+8, 2q), (g+8, 2q+1)}
 * and m16n8k8 (tf32): A {(g, q), (g+8, q), (g, q+4), (g+8, q+4)},
 *   B {(q, g), (q+4, g)}, C as above. */

#ifndef A_VEC8
#define A_VEC8 0
#endif
#ifndef B_VEC8
#define B_VEC8 0
#endif
#ifndef MMA_TF32
#define MMA_TF32 0
#endif
#if MMA_TF32
#define MMA_SHAPE "m16n8k8"
#define MMA_TYPE "tf32"
#elif MMA_BF16
#define MMA_SHAPE "m16n8k16"
#define MMA_TYPE "bf16"
#else
#define MMA_SHAPE "m16n8k16"
#define MMA_TYPE "f16"
#endif

/* The raw element (MMA_ET, MMA_ES bytes), MMA_V of them per 16 bytes. */
#if MMA_TF32
#define MMA_ET uint
#define MMA_ES 4
#define MMA_V 4
#else
#define MMA_ET ushort
#define MMA_ES 2
#define MMA_V 8
#endif

#define MMA_M 128
#define MMA_N 128
#define MMA_K (64 / MMA_ES)
#define MMA_WG 256
#define A_LD (MMA_K + MMA_V)
#define B_LD (MMA_N + 8)

/* d += a * b for one 16 x 8 tile (d: 4 floats, a: 4 words, b: 2 words). */
#define MMA(d, a, b) \
    __asm__ __volatile__("mma.sync.aligned." MMA_SHAPE ".row.col.f32." MMA_TYPE "." MMA_TYPE \
                         ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};" \
                         : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) \
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))

/* f32 bits rounded to tf32 (nearest, ties away). */
inline uint tf32(uint x) {
    uint r;
    __asm__("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(as_float(x)));
    return r;
}

/* Fragments from local memory (PTX ldmatrix): 4 8x8 matrices of 16-bit
 * values, lane l giving the address of row l % 8 of matrix l / 8; .trans
 * delivers them transposed (B's fragments from its n-fastest rows). */
#define LDSM_X4(r, p) \
    __asm__ __volatile__("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" \
                         : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) \
                         : "r"((uint)(ulong)(p)))
#define LDSM_X4_T(r0, r1, r2, r3, p) \
    __asm__ __volatile__("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" \
                         : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) \
                         : "r"((uint)(ulong)(p)))

/* ASYNC (A_VEC8 and B_VEC8): tiles go from global to local memory with
 * cp.async (16 bytes, the bytes past `bytes` zero-filled), two stages: the
 * next K step's copies run while the current one's products do. */
#define ASYNC (A_VEC8 && B_VEC8)
#define CP_ASYNC16(dst, src, bytes) \
    __asm__ __volatile__("cp.async.cg.shared.global [%0], [%1], 16, %2;" \
                         :: "r"((uint)(ulong)(dst)), "l"((ulong)(src)), "r"(bytes) : "memory")
#define CP_COMMIT() __asm__ __volatile__("cp.async.commit_group;" ::: "memory")
#define CP_WAIT(n) __asm__ __volatile__("cp.async.wait_group " #n ";" ::: "memory")

/* Loads per work-item and K step: 16 bytes or single. */
#define A_L8 (MMA_M * MMA_K / MMA_V / MMA_WG)
#define B_L8 (MMA_K * MMA_N / MMA_V / MMA_WG)
#define A_L1 (MMA_M * MMA_K / MMA_WG)
#define B_L1 (MMA_K * MMA_N / MMA_WG)

/* MMA_V values of a row from p (16-byte aligned when ALIGNED), the ones
 * from lim on zero. */
inline uint4 load8(global const MMA_ET *p, long lim) {
    if (lim >= MMA_V) {
#if ALIGNED
        return *(global const uint4 *)p;
#elif MMA_TF32
        return vload4(0, p);
#else
        return as_uint4(vload8(0, p));
#endif
    }
#if MMA_TF32
    uint4 v = (uint4)(0);
    if (lim > 0) v.s0 = p[0];
    if (lim > 1) v.s1 = p[1];
    if (lim > 2) v.s2 = p[2];
    return v;
#else
    ushort8 v = (ushort8)(0);
    if (lim > 0) v.s0 = p[0];
    if (lim > 1) v.s1 = p[1];
    if (lim > 2) v.s2 = p[2];
    if (lim > 3) v.s3 = p[3];
    if (lim > 4) v.s4 = p[4];
    if (lim > 5) v.s5 = p[5];
    if (lim > 6) v.s6 = p[6];
    return as_uint4(v);
#endif
}

#if A_VEC8
#define A_REGS uint4 pa[A_L8]
#define FETCH_A8(k0) \
    _Pragma("unroll") for (int t = 0; t < A_L8; ++t) { \
        const int i = lid + t * MMA_WG; \
        const int mm = i / (MMA_K / MMA_V), kk = (i % (MMA_K / MMA_V)) * MMA_V; \
        const long gm = m0 + mm, gk = (k0) + kk; \
        pa[t] = gm < M ? load8(a + a_base + gm * a_rs + gk, K - gk) : (uint4)(0); \
    }
#define STORE_A8() \
    _Pragma("unroll") for (int t = 0; t < A_L8; ++t) { \
        const int i = lid + t * MMA_WG; \
        const int mm = i / (MMA_K / MMA_V), kk = (i % (MMA_K / MMA_V)) * MMA_V; \
        *(local uint4 *)&As[0][mm * A_LD + kk] = pa[t]; \
    }
#else
#define A_REGS MMA_ET pa[A_L1]
#if A_K_FAST
#define A_AT(i) const int kk = (i) % MMA_K, mm = (i) / MMA_K
#else
#define A_AT(i) const int mm = (i) % MMA_M, kk = (i) / MMA_M
#endif
#define FETCH_A8(k0) \
    _Pragma("unroll") for (int t = 0; t < A_L1; ++t) { \
        const int i = lid + t * MMA_WG; \
        A_AT(i); \
        const long gm = m0 + mm, gk = (k0) + kk; \
        pa[t] = gm < M && gk < K ? a[a_base + gm * a_rs + gk * a_cs] : 0; \
    }
#define STORE_A8() \
    _Pragma("unroll") for (int t = 0; t < A_L1; ++t) { \
        const int i = lid + t * MMA_WG; \
        A_AT(i); \
        As[0][mm * A_LD + kk] = pa[t]; \
    }
#endif

#if B_VEC8
#define B_REGS uint4 pb[B_L8]
#define FETCH_B8(k0) \
    _Pragma("unroll") for (int t = 0; t < B_L8; ++t) { \
        const int i = lid + t * MMA_WG; \
        const int kk = i / (MMA_N / MMA_V), nn = (i % (MMA_N / MMA_V)) * MMA_V; \
        const long gk = (k0) + kk, gn = n0 + nn; \
        pb[t] = gk < K ? load8(b + b_base + gk * b_rs + gn, N - gn) : (uint4)(0); \
    }
#define STORE_B8() \
    _Pragma("unroll") for (int t = 0; t < B_L8; ++t) { \
        const int i = lid + t * MMA_WG; \
        const int kk = i / (MMA_N / MMA_V), nn = (i % (MMA_N / MMA_V)) * MMA_V; \
        *(local uint4 *)&Bs[0][kk * B_LD + nn] = pb[t]; \
    }
#else
#define B_REGS MMA_ET pb[B_L1]
#if B_N_FAST
#define B_AT(i) const int nn = (i) % MMA_N, kk = (i) / MMA_N
#else
#define B_AT(i) const int kk = (i) % MMA_K, nn = (i) / MMA_K
#endif
#define FETCH_B8(k0) \
    _Pragma("unroll") for (int t = 0; t < B_L1; ++t) { \
        const int i = lid + t * MMA_WG; \
        B_AT(i); \
        const long gk = (k0) + kk, gn = n0 + nn; \
        pb[t] = gk < K && gn < N ? b[b_base + gk * b_rs + gn * b_cs] : 0; \
    }
#define STORE_B8() \
    _Pragma("unroll") for (int t = 0; t < B_L1; ++t) { \
        const int i = lid + t * MMA_WG; \
        B_AT(i); \
        Bs[0][kk * B_LD + nn] = pb[t]; \
    }
#endif

__attribute__((reqd_work_group_size(MMA_WG, 1, 1)))
kernel void gemm_mma(global const MMA_ET *a, long a_off, long a_rs, long a_cs,
        long a_b0, long a_b1, global const MMA_ET *b, long b_off, long b_rs,
        long b_cs, long b_b0, long b_b1, global T_C *c, long c_off, long c_rs,
        long c_cs, long c_b0, long c_b1, global const T_BIAS *bias,
        long bias_off, long bias_rs, long bias_cs, long bias_b0, long bias_b1,
        long M, long N, long K, long nb1, long batch_base,
        global const float *scales_src, global const float *scales_wei,
        global const float *scales_dst EXTRA_PARAMS POST_OPS_PARAMS) {
#if ASYNC
    local MMA_ET As[2][MMA_M * A_LD] __attribute__((aligned(16)));
    local MMA_ET Bs[2][MMA_K * B_LD] __attribute__((aligned(16)));
#else
    local MMA_ET As[1][MMA_M * A_LD] __attribute__((aligned(16)));
    local MMA_ET Bs[1][MMA_K * B_LD] __attribute__((aligned(16)));
#endif

    const int lid = get_local_id(0);
    const int warp = lid / 32, lane = lid % 32;
    const int g = lane / 4, q = lane % 4;
    const int wm = (warp / 4) * 64, wn = (warp % 4) * 32;
    const long n0 = (long)get_group_id(0) * MMA_N;
    const long m0 = (long)get_group_id(1) * MMA_M;
    const long g2 = get_global_id(2);
    const long i0 = g2 / nb1, i1 = g2 % nb1;
    const long a_base = a_off + i0 * a_b0 + i1 * a_b1;
    const long b_base = b_off + i0 * b_b0 + i1 * b_b1;
    /* This lane's ldmatrix rows: A's (row, k offset) within a 16 x 16
     * tile, B's (k, n offset) within a 16 x 16 pair of tiles. */
    const int a_row = (lane % 8) + ((lane / 8) % 2) * 8, a_kof = (lane / 16) * 8;
    const int b_k = (lane % 8) + ((lane / 8) % 2) * 8, b_nof = (lane / 16) * 8;

    float acc[4][4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
#pragma unroll
            for (int r = 0; r < 4; ++r)
                acc[i][j][r] = 0.0f;

/* The products of the local tiles of stage st. */
#if MMA_TF32
#define COMPUTE(st) \
    _Pragma("unroll") for (int kk = 0; kk < MMA_K; kk += 8) { \
        uint fa[4][4], fb[4][2]; \
        _Pragma("unroll") for (int i = 0; i < 4; ++i) { \
            local const uint *r0 = &As[st][(wm + i * 16 + g) * A_LD + kk + q]; \
            fa[i][0] = tf32(r0[0]); \
            fa[i][1] = tf32(r0[8 * A_LD]); \
            fa[i][2] = tf32(r0[4]); \
            fa[i][3] = tf32(r0[8 * A_LD + 4]); \
        } \
        _Pragma("unroll") for (int j = 0; j < 4; ++j) { \
            local const uint *col = &Bs[st][(kk + q) * B_LD + wn + j * 8 + g]; \
            fb[j][0] = tf32(col[0]); \
            fb[j][1] = tf32(col[4 * B_LD]); \
        } \
        _Pragma("unroll") for (int i = 0; i < 4; ++i) \
            _Pragma("unroll") for (int j = 0; j < 4; ++j) \
                MMA(acc[i][j], fa[i], fb[j]); \
    }
#else
#define COMPUTE(st) \
    _Pragma("unroll") for (int kk = 0; kk < MMA_K; kk += 16) { \
        uint fa[4][4], fb[4][2]; \
        _Pragma("unroll") for (int i = 0; i < 4; ++i) \
            LDSM_X4(fa[i], &As[st][(wm + i * 16 + a_row) * A_LD + kk + a_kof]); \
        _Pragma("unroll") for (int j = 0; j < 4; j += 2) \
            LDSM_X4_T(fb[j][0], fb[j][1], fb[j + 1][0], fb[j + 1][1], \
                      &Bs[st][(kk + b_k) * B_LD + wn + j * 8 + b_nof]); \
        _Pragma("unroll") for (int i = 0; i < 4; ++i) \
            _Pragma("unroll") for (int j = 0; j < 4; ++j) \
                MMA(acc[i][j], fa[i], fb[j]); \
    }
#endif

#if ASYNC
/* Copies of the K step at k0 into stage st. */
#define COPY_TILES(k0, st) \
    _Pragma("unroll") for (int t = 0; t < A_L8; ++t) { \
        const int i = lid + t * MMA_WG; \
        const int mm = i / (MMA_K / MMA_V), kk = (i % (MMA_K / MMA_V)) * MMA_V; \
        const long gm = m0 + mm, gk = (k0) + kk; \
        const int bytes = gm < M ? (int)clamp((K - gk) * MMA_ES, 0L, 16L) : 0; \
        CP_ASYNC16(&As[st][mm * A_LD + kk], bytes ? a + a_base + gm * a_rs + gk : a, bytes); \
    } \
    _Pragma("unroll") for (int t = 0; t < B_L8; ++t) { \
        const int i = lid + t * MMA_WG; \
        const int kk = i / (MMA_N / MMA_V), nn = (i % (MMA_N / MMA_V)) * MMA_V; \
        const long gk = (k0) + kk, gn = n0 + nn; \
        const int bytes = gk < K ? (int)clamp((N - gn) * MMA_ES, 0L, 16L) : 0; \
        CP_ASYNC16(&Bs[st][kk * B_LD + nn], bytes ? b + b_base + gk * b_rs + gn : b, bytes); \
    } \
    CP_COMMIT()

    COPY_TILES(0, 0);
    int st = 0;
    for (long k0 = 0; k0 < K; k0 += MMA_K) {
        if (k0 + MMA_K < K) {
            COPY_TILES(k0 + MMA_K, st ^ 1);
            CP_WAIT(1);
        } else {
            CP_WAIT(0);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (st) {
            COMPUTE(1);
        } else {
            COMPUTE(0);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        st ^= 1;
    }
#else
    A_REGS;
    B_REGS;
    FETCH_A8(0);
    FETCH_B8(0);
    for (long k0 = 0; k0 < K; k0 += MMA_K) {
        STORE_A8();
        STORE_B8();
        barrier(CLK_LOCAL_MEM_FENCE);
        if (k0 + MMA_K < K) {
            FETCH_A8(k0 + MMA_K);
            FETCH_B8(k0 + MMA_K);
        }
        COMPUTE(0);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif

    /* The epilogue, element by element as gemm_tiled's (gemm.cl). */
    const long c_base = c_off + i0 * c_b0 + i1 * c_b1;
    const long bias_base = bias_off + i0 * bias_b0 + i1 * bias_b1;
    const float common = epilogue_common(scales_src, scales_wei);
    const float dst_inv = DST_SCALES ? 1.0f / scales_dst[0] : 1.0f;
#if PO_ON
    long pos[PO_NB + 2];
    epilogue_batch_pos(pos, batch_base, g2);
#endif
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
#pragma unroll
            for (int r = 0; r < 4; ++r) {
                const long gm = m0 + wm + i * 16 + g + (r / 2) * 8;
                const long gn = n0 + wn + j * 8 + 2 * q + (r % 2);
                if (gm >= M || gn >= N) continue;
                const long at = c_base + gm * c_rs + gn * c_cs;
#if PO_ON
                pos[PO_NB] = gm;
                pos[PO_NB + 1] = gn;
#endif
                float v = epilogue_value(acc[i][j][r] * common, WEI_SCALE_OF(gn), bias,
                        bias_base + gm * bias_rs + gn * bias_cs, c, at, dst_inv,
                        PO_POS POST_OPS_ARGS);
                EPILOGUE_END(v, gn);
                ST_C(c, at, v);
            }
}

/* One mma of the configured type: builds only where the driver takes the
 * PTX (the host's probe before choosing this kernel). */
kernel void mma_probe(global float *out) {
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    const uint x[4] = {0x3c003c00u, 0x3c003c00u, 0x3c003c00u, 0x3c003c00u};
    const uint y[2] = {0x3c003c00u, 0x3c003c00u};
    MMA(d, x, y);
    out[get_global_id(0)] = d[0];
}
