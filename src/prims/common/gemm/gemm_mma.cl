/* GEMM on NVIDIA tensor cores (sm_80 and later) through inline PTX:
 * mma.sync.aligned.m16n8k16 with f16 or bf16 operands, or (MMA_TF32, f32
 * operands where the floating-point math mode allows tf32) m16n8k8 on
 * tf32 values rounded from f32 (cvt.rna) as the fragments are read, with
 * f32 accumulation; or (MMA_INT8) m16n8k32 with u8/s8 operands and s32
 * accumulation; or (MMA_WGMMA, compute capability 9.0) wgmma.mma_async,
 * warpgroup products reading both operands from the local tiles (f16, bf16;
 * tf32 and int8 with B_KN). Built after gemm.cl (its type macros, hooks'
 * defaults and epilogue switches), with the same kernel parameters as
 * gemm_tiled, so the host launches either with one argument list.
 *
 * Tiling: a work-group of MMA_WARPS_M x MMA_WARPS_N warps computes a block
 * of C, each warp a 64 x MMA_WN sub-block (4 x MMA_TJ tiles of 16 x 8),
 * walking K in steps of MMA_K (64 bytes: 32 16-bit values, 16 f32, 64
 * int8) through local memory. Local tiles hold the raw values, As[m][k]
 * (k fastest) and Bs[k][n] (n fastest) or, with B_KN, Bs[n][k]; rows are
 * unpadded and their 16-byte chunks swizzled so that fragment reads
 * (ldmatrix, 8 rows at a time) hit distinct banks. With 16-byte loads of
 * both operands (ASYNC) the tiles come by cp.async into MMA_STAGES stages,
 * MMA_STAGES - 1 K steps in flight during the current one's products (the
 * host picks 128 x 128 blocks of 4 warps and 3 stages, 48 KiB of local
 * memory: on an H200, 4 stages, 128 x 256 and 256 x 128 blocks, 8 warps of
 * 64 x 32, and the fragments of the next k read before the current
 * products all measured no faster); otherwise the next K step's global loads go to
 * registers before the current step's products (as gemm_tiled does).
 *
 * Operand loads: A_VEC8 (A's k index contiguous, rows and offsets multiples
 * of 16 bytes) and B_VEC8 (B's n index, or with B_KN its k index,
 * likewise) load 16 bytes at once; B_N4 (integers, B's n index contiguous,
 * rows and offsets multiples of 4 bytes) 4 bytes at once, transposed into
 * the k-fastest tile in registers; otherwise element by element, the fast
 * index across neighbouring work-items (A_K_FAST / B_N_FAST). Edges are
 * zero-filled; blocks inside C take copies without bounds checks.
 *
 * Fragments (PTX ISA, mma.m16n8k16, lane = 4 * g + q):
 *   A: {(g, 2q..2q+1), (g+8, 2q..), (g, 2q+8..), (g+8, 2q+8..)}
 *   B: {(2q..2q+1, g), (2q+8.., g)}   (k, n)
 *   C: {(g, 2q), (g, 2q+1), (g+8, 2q), (g+8, 2q+1)}
 * m16n8k8 (tf32): A {(g, q), (g+8, q), (g, q+4), (g+8, q+4)},
 *   B {(q, g), (q+4, g)}, C as above;
 * m16n8k32 (int8, 4 bytes a word): A {(g, 4q..4q+3), (g+8, 4q..),
 *   (g, 4q+16..), (g+8, 4q+16..)}, B {(4q..4q+3, g), (4q+16.., g)}, C as
 *   above. */

#ifndef A_VEC8
#define A_VEC8 0
#endif
#ifndef B_VEC8
#define B_VEC8 0
#endif
#ifndef MMA_TF32
#define MMA_TF32 0
#endif
#ifndef MMA_INT8
#define MMA_INT8 0
#endif
#if MMA_INT8
#define MMA_SHAPE "m16n8k32"
#elif MMA_TF32
#define MMA_SHAPE "m16n8k8"
#define MMA_TYPE "tf32"
#elif MMA_BF16
#define MMA_SHAPE "m16n8k16"
#define MMA_TYPE "bf16"
#else
#define MMA_SHAPE "m16n8k16"
#define MMA_TYPE "f16"
#endif

/* The raw element (MMA_ET, MMA_ES bytes), MMA_V of them per 16 bytes;
 * MMA_KS: the k of one mma. */
#if MMA_INT8
#define MMA_ET uchar
#define MMA_ES 1
#define MMA_V 16
#define MMA_KS 32
#elif MMA_TF32
#define MMA_ET uint
#define MMA_ES 4
#define MMA_V 4
#define MMA_KS 8
#else
#define MMA_ET ushort
#define MMA_ES 2
#define MMA_V 8
#define MMA_KS 16
#endif

/* MMA_STAGES local stages with cp.async (ASYNC), one register-staged
 * stage otherwise. */
#ifndef MMA_STAGES
#define MMA_STAGES 2
#endif
#ifndef MMA_WGMMA
#define MMA_WGMMA 0
#endif
#if MMA_WGMMA
/* MMA_WGMMA (sm_90a; f16, bf16 or, with B_KN, tf32 and int8 operands;
 * cp.async copies): WGM_WGS warpgroups of 4 warps stacked along M, each
 * computing WGM_I blocks of 64 x WGM_N with wgmma.mma_async (operands read
 * from the local tiles through matrix descriptors; the accumulator of one
 * 64 x WGM_N block, per warp 16 rows, has mma.sync's 16 x 8 tile layout
 * WGM_N / 8 times). */
#if !defined(WGM_WGS) || !defined(WGM_I) || !defined(WGM_N)
#error "MMA_WGMMA needs WGM_WGS, WGM_I and WGM_N"
#endif
#if WGM_N % 64 != 0
#error "MMA_WGMMA: WGM_N a multiple of 64"
#endif
/* WGM_DEPTH: wgmma groups in flight after a K step's are issued (1: each
 * waited for at once; 2: the next K step's copies and products are issued
 * while the last one's run, one stage fewer copied ahead). */
#ifndef WGM_DEPTH
#define WGM_DEPTH 1
#endif
#define MMA_TJ (WGM_N / 8)
#define MMA_TI WGM_I
#define MMA_M (64 * WGM_I * WGM_WGS)
#define MMA_N WGM_N
#define MMA_WG (128 * WGM_WGS)
#else
/* The block: MMA_WARPS_M x MMA_WARPS_N warps, each computing a 64 x MMA_WN
 * sub-block (4 x MMA_TJ tiles of 16 x 8). */
#ifndef MMA_WARPS_M
#define MMA_WARPS_M 2
#endif
#ifndef MMA_WARPS_N
#define MMA_WARPS_N 4
#endif
#ifndef MMA_WN
#define MMA_WN 32
#endif
#define MMA_TJ (MMA_WN / 8)
#define MMA_TI 4
#define MMA_M (MMA_WARPS_M * 64)
#define MMA_N (MMA_WARPS_N * MMA_WN)
#define MMA_WG (32 * MMA_WARPS_M * MMA_WARPS_N)
#endif
#define MMA_K (64 / MMA_ES)

/* Local tiles without padding, their 16-byte chunks swizzled so that the
 * rows one ldmatrix phase (or a warp's tf32 fragment words) reads hit
 * distinct banks: As[m][k] (4 chunks a row, chunk ^ (m / 2) % 4) and
 * Bs[k][n] (chunk ^ k % 8; tf32: ^ 2 (k % 4)). */
#define A_IDX(m, k) ((m) * MMA_K + ((((k) / MMA_V) ^ (((m) >> 1) & 3)) * MMA_V) + (k) % MMA_V)
#if MMA_TF32
#define B_SWZ(k) (((k) & 3) << 1)
#define B_SWZ_ROWS 4
#else
#define B_SWZ(k) ((k) & 7)
#define B_SWZ_ROWS 8
#endif
/* B_KN: B's tile is Bs[n][k] (k fastest, as A's), for a B whose k index
 * is contiguous, and always for integers (their fragment packs 4 k of one
 * n in a word, and ldmatrix transposes only 16-bit elements). */
#ifndef B_KN
#define B_KN MMA_INT8
#endif
#if MMA_INT8 && !B_KN
#error "integers need B_KN"
#endif
#if MMA_WGMMA && MMA_TF32 && !B_KN
#error "wgmma takes tf32 only K-major: B_KN"
#endif
#if B_KN
#define B_IDX(k, n) A_IDX(n, k)
#undef B_SWZ_ROWS
#define B_SWZ_ROWS 8
#elif MMA_WGMMA
/* wgmma's MN-major B with 128-byte swizzling: 64-column slabs of
 * MMA_K rows of 128 bytes each, chunk ^ k % 8. (A's tile, and B_KN's, is
 * already wgmma's K-major layout with 64-byte swizzling: 64-byte rows,
 * chunk ^ (row / 2) % 4.) */
#define B_ROW 64
#define B_IDX(k, n) \
    (((n) / 64) * (MMA_K * 64) + (k) * 64 + (((((n) % 64) / MMA_V) ^ ((k) & 7)) * MMA_V) + (n) % MMA_V)
#else
#define B_IDX(k, n) ((k) * MMA_N + ((((n) / MMA_V) ^ B_SWZ(k)) * MMA_V) + (n) % MMA_V)
#endif
#ifndef B_ROW
#define B_ROW MMA_N
#endif
/* A_MN: A's tile is M-major as wgmma's MN-major B (64-row slabs of MMA_K
 * rows of 128 bytes, chunk ^ k % 8), for an A whose m index is contiguous
 * and gathered 16 bytes at a time along m (MMA_A_AT's runs), which wgmma
 * reads transposed (16-bit types). */
#ifndef A_MN
#define A_MN 0
#endif
#if A_MN && !(MMA_WGMMA && !MMA_TF32 && !MMA_INT8)
#error "A_MN: wgmma of 16-bit types only"
#endif
#define A_IDX_MN(k, m) \
    (((m) / 64) * (MMA_K * 64) + (k) * 64 + (((((m) % 64) / MMA_V) ^ ((k) & 7)) * MMA_V) + (m) % MMA_V)

/* d += a * b for one 16 x 8 tile (d: 4 floats, a: 4 words, b: 2 words). */
#if MMA_INT8
/* Integers: s32 accumulators (wrapping), u8 or s8 operands. */
#if MMA_A_U8 && MMA_B_U8
#define MMA_TYPES "u8.u8"
#elif MMA_A_U8
#define MMA_TYPES "u8.s8"
#elif MMA_B_U8
#define MMA_TYPES "s8.u8"
#else
#define MMA_TYPES "s8.s8"
#endif
#define MMA_ACC_T int
#define MMA(d, a, b) \
    __asm__ __volatile__("mma.sync.aligned." MMA_SHAPE ".row.col.s32." MMA_TYPES \
                         ".s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};" \
                         : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]) \
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
#else
#define MMA_ACC_T float
#define MMA(d, a, b) \
    __asm__ __volatile__("mma.sync.aligned." MMA_SHAPE ".row.col.f32." MMA_TYPE "." MMA_TYPE \
                         ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};" \
                         : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) \
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
#endif

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

#if MMA_WGMMA
/* wgmma (sm_90a). NVIDIA's OpenCL compiler targets sm_90, where ptxas
 * refuses these instructions, so they are written as PTX comments "//@..."
 * that the host (runtime/ocl/program.rs, DNNL_PTX_ARCH_SPECIFIC) uncomments
 * in the built PTX before building it again for sm_90a. */
#define WG_FENCE() __asm__ __volatile__("//@wgmma.fence.sync.aligned;\n" ::: "memory")
#define WG_COMMIT() __asm__ __volatile__("//@wgmma.commit_group.sync.aligned;\n" ::: "memory")
#define WG_WAIT0() __asm__ __volatile__("//@wgmma.wait_group.sync.aligned 0;\n" ::: "memory")
#if WGM_DEPTH == 1
#define WG_WAIT_STEP() WG_WAIT0()
#elif WGM_DEPTH == 2
#define WG_WAIT_STEP() __asm__ __volatile__("//@wgmma.wait_group.sync.aligned 1;\n" ::: "memory")
#else
#error "WGM_DEPTH: 1 or 2"
#endif
/* cp.async's writes made visible to wgmma's (async proxy) reads. */
#define PROXY_FENCE() __asm__ __volatile__("fence.proxy.async.shared::cta;" ::: "memory")
/* Each K step's tiles published to wgmma. */
#define STEP_FENCE() PROXY_FENCE()
/* An accumulator register kept in place until the products are waited
 * for. */
#define ACC_HOLD(x) __asm__ __volatile__("" : WG_C(x) :: "memory")

/* A matrix descriptor: the tile at p, leading and stride byte offsets,
 * swizzle mode (1: 128 bytes, 2: 64 bytes). */
inline ulong wg_desc(local const void *p, uint lbo, uint sbo, uint swizzle) {
    const uint addr = (uint)(ulong)p;
    return (ulong)((addr & 0x3FFFF) >> 4) | ((ulong)((lbo >> 4) & 0x3FFF) << 16)
            | ((ulong)((sbo >> 4) & 0x3FFF) << 32) | ((ulong)swizzle << 62);
}
/* K-major tiles (A's; B's with B_KN): 64-byte rows, 64-byte swizzling,
 * 8-row groups 512 bytes apart. MN-major B: 128-byte swizzling, 8-row
 * groups 1024 bytes apart, 64-column slabs MMA_K * 128 bytes apart. */
#define K_MAJOR_DESC(p) wg_desc(p, 16, 512, 2)
#define MN_MAJOR_DESC(p) wg_desc(p, MMA_K * 128, 1024, 1)
#if A_MN
#define A_DESC(st, m, k) MN_MAJOR_DESC(&As[st][A_IDX_MN(k, m)])
#define WG_TA "1"
#else
#define A_DESC(st, m, k) K_MAJOR_DESC(&As[st][A_IDX(m, k)])
#define WG_TA "0"
#endif
#if B_KN
#define B_DESC(p) K_MAJOR_DESC(p)
#define WG_TB "0"
#else
#define B_DESC(p) MN_MAJOR_DESC(p)
#define WG_TB "1"
#endif

/* One wgmma's K (32 bytes), shape and types (WG_SHAPE), operands after the
 * descriptors (WG_TAIL: scale-d, and for 16-bit types the scales of A and
 * B and both layouts) and accumulator constraint (WG_C). */
#define WG_KS (32 / MMA_ES)
#if MMA_INT8
#define WG_SHAPE "k32.s32." MMA_TYPES
#define WG_TAIL ", p"
#define WG_C(x) "+r"(x)
#elif MMA_TF32
/* tf32 from the f32 bits in local memory (the low 13 mantissa bits
 * dropped). */
#define WG_SHAPE "k8.f32.tf32.tf32"
#define WG_TAIL ", p, 1, 1"
#define WG_C(x) "+f"(x)
#elif MMA_BF16
#define WG_SHAPE "k16.f32.bf16.bf16"
#define WG_TAIL ", p, 1, 1, " WG_TA ", " WG_TB
#define WG_C(x) "+f"(x)
#else
#define WG_SHAPE "k16.f32.f16.f16"
#define WG_TAIL ", p, 1, 1, " WG_TA ", " WG_TB
#define WG_C(x) "+f"(x)
#endif

/* The accumulator operands: 32, 64 or 128 registers (8, 16 or 32 tiles
 * of 4) from tile j; and the names of 32 of them in the instruction,
 * WG_Rlo_hi. */
#define WG_T(c, d, j) c(d[j][0]), c(d[j][1]), c(d[j][2]), c(d[j][3])
#define WG_T8(c, d, j) \
    WG_T(c, d, j), WG_T(c, d, j + 1), WG_T(c, d, j + 2), WG_T(c, d, j + 3), \
    WG_T(c, d, j + 4), WG_T(c, d, j + 5), WG_T(c, d, j + 6), WG_T(c, d, j + 7)
#define WG_T16(c, d, j) WG_T8(c, d, j), WG_T8(c, d, j + 8)
#define WG_T32(c, d, j) WG_T16(c, d, j), WG_T16(c, d, j + 16)
#define WG_R0_31 \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15," \
    "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31"
#define WG_R32_63 \
    "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
    "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63"
#define WG_R64_95 \
    "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79," \
    "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95"
#define WG_R96_127 \
    "%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111," \
    "%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127"
/* One wgmma of a 64 x n block: its accumulator registers (regs, as a
 * string), their operands (ops), and the operand numbers of the
 * descriptors and of scale-d (da_, db_, one). */
#define WGMMA_ASM(n, regs, da_, db_, one, ops, da, db, sh, tail) \
    __asm__ __volatile__("{\n.reg .pred p;\nsetp.ne.b32 p, " one ", 0;\n" \
                         "//@wgmma.mma_async.sync.aligned.m64n" n sh " {" regs "}, " da_ ", " db_ \
                         tail ";\n}\n" \
                         : ops \
                         : "l"(da), "l"(db), "r"(1) : "memory")
/* d (a 64 x N accumulator block: N / 8 tiles of 4 values) += the 64 x K A
 * tile of descriptor da times the K x N B tile of db; sh: the shape's K and
 * the types, tail: the operands after the descriptors, c: the
 * accumulators' constraint. */
#define WGMMA_N64(d, da, db, sh, tail, c) \
    WGMMA_ASM("64", WG_R0_31, "%32", "%33", "%34", WG_T8(c, d, 0), da, db, sh, tail)
#define WGMMA_N128(d, da, db, sh, tail, c) \
    WGMMA_ASM("128", WG_R0_31 "," WG_R32_63, "%64", "%65", "%66", WG_T16(c, d, 0), da, db, sh, \
              tail)
#define WGMMA_N256(d, da, db, sh, tail, c) \
    WGMMA_ASM("256", WG_R0_31 "," WG_R32_63 "," WG_R64_95 "," WG_R96_127, "%128", "%129", \
              "%130", WG_T32(c, d, 0), da, db, sh, tail)
#define WGMMA_CAT(n) WGMMA_N##n
#define WGMMA_OF(n) WGMMA_CAT(n)
#define WGMMA(d, da, db) WGMMA_OF(WGM_N)(d, da, db, WG_SHAPE, WG_TAIL, WG_C)
#else
#define STEP_FENCE()
#endif

/* ASYNC (A_VEC8 and B_VEC8): tiles go from global to local memory with
 * cp.async (16 bytes, the bytes past `bytes` zero-filled), two stages: the
 * next K step's copies run while the current one's products do. */
#define ASYNC (A_VEC8 && B_VEC8)
#if MMA_WGMMA && !ASYNC
#error "MMA_WGMMA: cp.async copies only"
#endif
#if B_KN && !ASYNC && B_VEC8
#error "B_KN: 16-byte loads of B only with cp.async"
#endif
#define CP_ASYNC16(dst, src, bytes) \
    __asm__ __volatile__("cp.async.cg.shared.global [%0], [%1], 16, %2;" \
                         :: "r"((uint)(ulong)(dst)), "l"((ulong)(src)), "r"(bytes) : "memory")
#define CP_ASYNC16_FULL(dst, src) \
    __asm__ __volatile__("cp.async.cg.shared.global [%0], [%1], 16;" \
                         :: "r"((uint)(ulong)(dst)), "l"((ulong)(src)) : "memory")
#define CP_COMMIT() __asm__ __volatile__("cp.async.commit_group;" ::: "memory")
#define CP_WAIT(n) __asm__ __volatile__("cp.async.wait_group " #n ";" ::: "memory")
/* AHEAD K steps copied ahead of the one multiplied; wait until at most
 * AHEAD - 1 groups are in flight. */
#if MMA_WGMMA
#define AHEAD (MMA_STAGES - WGM_DEPTH)
#else
#define AHEAD (MMA_STAGES - 1)
#endif
#if AHEAD == 1
#define CP_WAIT_AHEAD() CP_WAIT(0)
#elif AHEAD == 2
#define CP_WAIT_AHEAD() CP_WAIT(1)
#elif AHEAD == 3
#define CP_WAIT_AHEAD() CP_WAIT(2)
#elif AHEAD == 4
#define CP_WAIT_AHEAD() CP_WAIT(3)
#elif AHEAD == 5
#define CP_WAIT_AHEAD() CP_WAIT(4)
#else
#error "MMA_STAGES: 2 to 6 (wgmma; mma.sync 2 to 4), more than WGM_DEPTH"
#endif

/* Loads per work-item and K step: 16 bytes or single. */
#define A_L8 (MMA_M * MMA_K / MMA_V / MMA_WG)
#define B_L8 (MMA_K * MMA_N / MMA_V / MMA_WG)
#define A_L1 (MMA_M * MMA_K / MMA_WG)
#define B_L1 (MMA_K * MMA_N / MMA_WG)

/* MMA_V values of a row from p (16-byte aligned when ALIGNED), the ones
 * from lim on zero. */
inline uint4 load8(global const MMA_ET *p, long lim) {
#if MMA_INT8
    if (lim >= MMA_V) return as_uint4(vload16(0, p));
    uchar16 v = (uchar16)(0);
    for (int i = 0; i < MMA_V; ++i)
        if (i < lim) ((uchar *)&v)[i] = p[i];
    return as_uint4(v);
#else
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
#endif
}

#ifndef B_N4
#define B_N4 0
#endif
#if B_N4 && !(MMA_INT8 && B_N_FAST && !B_VEC8)
#error "B_N4: integers, B n-fastest, without 16-byte loads of B"
#endif
#if B_N4
/* 4 bytes along n from p (4-byte aligned), the ones from lim on zero. */
inline uint load4n(global const uchar *p, long lim) {
    if (lim >= 4) return *(global const uint *)p;
    uchar4 v = (uchar4)(0);
    if (lim > 0) v.s0 = p[0];
    if (lim > 1) v.s1 = p[1];
    if (lim > 2) v.s2 = p[2];
    return as_uint(v);
}
#endif

/* The element index of A's (gm, gk) and B's (gk, gn) for the loads one
 * element at a time, -1 for a zero (outside the matrix, or a padding tap
 * of a convolution, whose conv.cl defines them before this file). */
#ifdef MMA_A_AT
/* A gathered: with A_VEC8, MMA_A_AT(gm, gk) also gives a run of MMA_V
 * contiguous values from a gk that is a multiple of MMA_V (the host
 * checks). */
#define MMA_A_GATHERED 1
#else
#define MMA_A_GATHERED 0
#define MMA_A_AT(gm, gk) ((gm) < M && (gk) < K ? a_base + (gm) * a_rs + (gk) * a_cs : -1)
#endif
#ifdef MMA_B_AT
/* B gathered: with B_VEC8, MMA_B_AT(gk, gn) also gives a run of MMA_V
 * contiguous values along n (along k with B_KN) from an index that is a
 * multiple of MMA_V. */
#define MMA_B_GATHERED 1
#else
#define MMA_B_GATHERED 0
#define MMA_B_AT(gk, gn) ((gk) < K && (gn) < N ? b_base + (gk) * b_rs + (gn) * b_cs : -1)
#endif
/* A gathered run of MMA_V values (16 bytes) at element index at, zero
 * where at < 0: into registers, or copied into local memory. */
inline uint4 load_run(global const MMA_ET *p, long at) {
    return at >= 0 ? *(global const uint4 *)(p + at) : (uint4)(0);
}
#define LOAD_RUN(p, at) load_run(p, at)
#define COPY_RUN(dst, p, at) \
    { \
        const long at_ = (at); \
        CP_ASYNC16(dst, at_ >= 0 ? (p) + at_ : (p), at_ >= 0 ? 16 : 0); \
    }

#if A_VEC8
#if MMA_A_GATHERED
#define FETCH_A_RUN(t, gm, gk) pa[t] = LOAD_RUN(a, MMA_A_AT(gm, gk))
#else
#define FETCH_A_RUN(t, gm, gk) \
    pa[t] = (gm) < M ? load8(a + a_base + (gm) * a_rs + (gk), K - (gk)) : (uint4)(0)
#endif
#define A_REGS uint4 pa[A_L8]
#define FETCH_A8(k0) \
    _Pragma("unroll") for (int t = 0; t < A_L8; ++t) { \
        const int i = lid + t * MMA_WG; \
        const int mm = i / (MMA_K / MMA_V), kk = (i % (MMA_K / MMA_V)) * MMA_V; \
        const long gm = m0 + mm, gk = (k0) + kk; \
        FETCH_A_RUN(t, gm, gk); \
    }
#define STORE_A8() \
    _Pragma("unroll") for (int t = 0; t < A_L8; ++t) { \
        const int i = lid + t * MMA_WG; \
        const int mm = i / (MMA_K / MMA_V), kk = (i % (MMA_K / MMA_V)) * MMA_V; \
        *(local uint4 *)&As[0][A_IDX(mm, kk)] = pa[t]; \
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
        const long at = MMA_A_AT(gm, gk); \
        pa[t] = at >= 0 ? a[at] : 0; \
    }
#define STORE_A8() \
    _Pragma("unroll") for (int t = 0; t < A_L1; ++t) { \
        const int i = lid + t * MMA_WG; \
        A_AT(i); \
        As[0][A_IDX(mm, kk)] = pa[t]; \
    }
#endif

#if B_VEC8
#if MMA_B_GATHERED
#define FETCH_B_RUN(t, gk, gn) pb[t] = LOAD_RUN(b, MMA_B_AT(gk, gn))
#else
#define FETCH_B_RUN(t, gk, gn) \
    pb[t] = (gk) < K ? load8(b + b_base + (gk) * b_rs + (gn), N - (gn)) : (uint4)(0)
#endif
#define B_REGS uint4 pb[B_L8]
#define FETCH_B8(k0) \
    _Pragma("unroll") for (int t = 0; t < B_L8; ++t) { \
        const int i = lid + t * MMA_WG; \
        const int kk = i / (MMA_N / MMA_V), nn = (i % (MMA_N / MMA_V)) * MMA_V; \
        const long gk = (k0) + kk, gn = n0 + nn; \
        FETCH_B_RUN(t, gk, gn); \
    }
#define STORE_B8() \
    _Pragma("unroll") for (int t = 0; t < B_L8; ++t) { \
        const int i = lid + t * MMA_WG; \
        const int kk = i / (MMA_N / MMA_V), nn = (i % (MMA_N / MMA_V)) * MMA_V; \
        *(local uint4 *)&Bs[0][B_IDX(kk, nn)] = pb[t]; \
    }
#elif B_N4
/* Integers from an n-fastest B (rows and offsets multiples of 4 bytes),
 * for the k-fastest tile: a work-item reads quads of 4 k x 4 n (4-byte
 * words along n; a warp's lanes 8 quads along n by 4 along k, so each row
 * read fills whole 32-byte sectors), and stores them transposed, one word
 * (4 k of one n, the fragment's packing) per n. */
#define B_L4 (MMA_K * MMA_N / 16 / MMA_WG)
#define B_REGS uint pb[B_L4][4]
#define B_QUAD(i) \
    const int nq = ((i) / (8 * (MMA_K / 4))) * 8 + (i) % 8, kq = ((i) / 8) % (MMA_K / 4)
#define FETCH_B8(k0) \
    _Pragma("unroll") for (int t = 0; t < B_L4; ++t) { \
        const int i = lid + t * MMA_WG; \
        B_QUAD(i); \
        const long gn = n0 + nq * 4; \
        _Pragma("unroll") for (int r = 0; r < 4; ++r) { \
            const long gk = (k0) + kq * 4 + r; \
            pb[t][r] = gk < K ? load4n(b + b_base + gk * b_rs + gn, N - gn) : 0; \
        } \
    }
#define STORE_B8() \
    _Pragma("unroll") for (int t = 0; t < B_L4; ++t) { \
        const int i = lid + t * MMA_WG; \
        B_QUAD(i); \
        const uchar4 r0 = as_uchar4(pb[t][0]), r1 = as_uchar4(pb[t][1]); \
        const uchar4 r2 = as_uchar4(pb[t][2]), r3 = as_uchar4(pb[t][3]); \
        *(local uint *)&Bs[0][B_IDX(kq * 4, nq * 4)] = as_uint((uchar4)(r0.s0, r1.s0, r2.s0, r3.s0)); \
        *(local uint *)&Bs[0][B_IDX(kq * 4, nq * 4 + 1)] = as_uint((uchar4)(r0.s1, r1.s1, r2.s1, r3.s1)); \
        *(local uint *)&Bs[0][B_IDX(kq * 4, nq * 4 + 2)] = as_uint((uchar4)(r0.s2, r1.s2, r2.s2, r3.s2)); \
        *(local uint *)&Bs[0][B_IDX(kq * 4, nq * 4 + 3)] = as_uint((uchar4)(r0.s3, r1.s3, r2.s3, r3.s3)); \
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
        const long at = MMA_B_AT(gk, gn); \
        pb[t] = at >= 0 ? b[at] : 0; \
    }
#define STORE_B8() \
    _Pragma("unroll") for (int t = 0; t < B_L1; ++t) { \
        const int i = lid + t * MMA_WG; \
        B_AT(i); \
        Bs[0][B_IDX(kk, nn)] = pb[t]; \
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
#define STAGES MMA_STAGES
#else
#define STAGES 1
#endif
    /* wgmma's swizzling repeats every 1024 bytes (each stage's size a
     * multiple of it). */
    local MMA_ET As[STAGES][MMA_M * MMA_K] __attribute__((aligned(MMA_WGMMA ? 1024 : 16)));
    local MMA_ET Bs[STAGES][MMA_K * MMA_N] __attribute__((aligned(MMA_WGMMA ? 1024 : 16)));

    const int lid = get_local_id(0);
    const int warp = lid / 32, lane = lid % 32;
    const int g = lane / 4, q = lane % 4;
#if MMA_WGMMA
    /* The warpgroup's first row, and this warp's within its 64-row
     * blocks (MMA_ROW_STEP apart). */
    const int wgm = (warp / 4) * 64 * WGM_I;
    const int wm = wgm + (warp % 4) * 16, wn = 0;
#define MMA_ROW_STEP 64
#else
    const int wm = (warp / MMA_WARPS_N) * 64, wn = (warp % MMA_WARPS_N) * MMA_WN;
#define MMA_ROW_STEP 16
#endif
    const long n0 = (long)get_group_id(0) * MMA_N;
    const long m0 = (long)get_group_id(1) * MMA_M;
    const long g2 = get_global_id(2);
    const long i0 = g2 / nb1, i1 = g2 % nb1;
    const long a_base = a_off + i0 * a_b0 + i1 * a_b1;
    const long b_base = b_off + i0 * b_b0 + i1 * b_b1;
    /* This lane's ldmatrix rows: A's (row, k offset) within a 16 x 16
     * tile (tf32: 16 x 8), B's (k, n offset) within a 16 x 16 pair of
     * tiles. */
    const int a_row = (lane % 8) + ((lane / 8) % 2) * 8, a_kof = (lane / 16) * MMA_V;
    const int b_k = (lane % 8) + ((lane / 8) % 2) * 8, b_nof = (lane / 16) * 8;
    /* B_KN: B's (n, k offset) within a pair of n tiles. */
    const int bn_row = (lane % 8) + (lane / 16) * 8, bk_kof = ((lane / 8) % 2) * MMA_V;

    MMA_ACC_T acc[MMA_TI][MMA_TJ][4];
#pragma unroll
    for (int i = 0; i < MMA_TI; ++i)
#pragma unroll
        for (int j = 0; j < MMA_TJ; ++j)
#pragma unroll
            for (int r = 0; r < 4; ++r)
                acc[i][j][r] = 0;

/* The products of the local tiles As[st], Bs[st], MMA_KS of k at a time.
 * A's fragments come by ldmatrix (tf32: 32-bit elements in 8 x 4
 * matrices, which ldmatrix moves as 8 x 8 16-bit ones; integers: 8 x 16
 * bytes), so do B's from Bs[n][k] (B_KN), or transposed from Bs[k][n]
 * (16-bit), or word by word (tf32 from Bs[k][n]); tf32 values are rounded
 * from f32 (cvt.rna) once read. */
#if MMA_TF32
#define TO_MMA(x) tf32(x)
#else
#define TO_MMA(x) (x)
#endif
#define LOAD_A_FRAGS(st, kk) \
    _Pragma("unroll") for (int i = 0; i < 4; ++i) { \
        LDSM_X4(fa[i], &As[st][A_IDX(wm + i * 16 + a_row, (kk) + a_kof)]); \
        _Pragma("unroll") for (int r = 0; r < 4; ++r) fa[i][r] = TO_MMA(fa[i][r]); \
    }
#if B_KN
#define LOAD_B_FRAGS(st, kk) \
    _Pragma("unroll") for (int j = 0; j < MMA_TJ; j += 2) { \
        uint r_[4]; \
        LDSM_X4(r_, &Bs[st][B_IDX((kk) + bk_kof, wn + j * 8 + bn_row)]); \
        fb[j][0] = TO_MMA(r_[0]); \
        fb[j][1] = TO_MMA(r_[1]); \
        fb[j + 1][0] = TO_MMA(r_[2]); \
        fb[j + 1][1] = TO_MMA(r_[3]); \
    }
#elif MMA_TF32
#define LOAD_B_FRAGS(st, kk) \
    _Pragma("unroll") for (int j = 0; j < MMA_TJ; ++j) { \
        fb[j][0] = tf32(Bs[st][B_IDX((kk) + q, wn + j * 8 + g)]); \
        fb[j][1] = tf32(Bs[st][B_IDX((kk) + q + 4, wn + j * 8 + g)]); \
    }
#else
#define LOAD_B_FRAGS(st, kk) \
    _Pragma("unroll") for (int j = 0; j < MMA_TJ; j += 2) \
        LDSM_X4_T(fb[j][0], fb[j][1], fb[j + 1][0], fb[j + 1][1], \
                  &Bs[st][B_IDX((kk) + b_k, wn + j * 8 + b_nof)]);
#endif
#if MMA_WGMMA
/* The products of stage st by wgmma, waited for (but WGM_DEPTH - 1
 * groups) before the next K step. */
#define COMPUTE(st) \
    { \
        WG_FENCE(); \
        _Pragma("unroll") for (int kk = 0; kk < MMA_K; kk += WG_KS) { \
            const ulong db_ = B_DESC(&Bs[st][B_IDX(kk, 0)]); \
            _Pragma("unroll") for (int i = 0; i < MMA_TI; ++i) \
                WGMMA(acc[i], A_DESC(st, wgm + i * 64, kk), db_); \
        } \
        WG_COMMIT(); \
        WG_WAIT_STEP(); \
        ACC_HOLD_ALL(); \
    }
#define ACC_HOLD_ALL() \
    _Pragma("unroll") for (int i = 0; i < MMA_TI; ++i) \
        _Pragma("unroll") for (int j = 0; j < MMA_TJ; ++j) \
            _Pragma("unroll") for (int r = 0; r < 4; ++r) ACC_HOLD(acc[i][j][r])
#else
#define COMPUTE(st) \
    _Pragma("unroll") for (int kk = 0; kk < MMA_K; kk += MMA_KS) { \
        uint fa[4][4], fb[MMA_TJ][2]; \
        LOAD_A_FRAGS(st, kk); \
        LOAD_B_FRAGS(st, kk); \
        _Pragma("unroll") for (int i = 0; i < 4; ++i) \
            _Pragma("unroll") for (int j = 0; j < MMA_TJ; ++j) \
                MMA(acc[i][j], fa[i], fb[j]); \
    }
#endif

#if ASYNC
/* Copies of the K step at k0 into stage st (A_MN: A's runs along m). */
#if A_MN
#define A_RUN_POS(i) const int kk = (i) / (MMA_M / MMA_V), mm = ((i) % (MMA_M / MMA_V)) * MMA_V
#define A_RUN_DST(st, mm, kk) &As[st][A_IDX_MN(kk, mm)]
#else
#define A_RUN_POS(i) const int mm = (i) / (MMA_K / MMA_V), kk = ((i) % (MMA_K / MMA_V)) * MMA_V
#define A_RUN_DST(st, mm, kk) &As[st][A_IDX(mm, kk)]
#endif
#define COPY_TILES(k0, st) \
    _Pragma("unroll") for (int t = 0; t < A_L8; ++t) { \
        const int i = lid + t * MMA_WG; \
        A_RUN_POS(i); \
        const long gm = m0 + mm, gk = (k0) + kk; \
        COPY_A_RUN(A_RUN_DST(st, mm, kk), gm, gk); \
    } \
    COPY_B(k0, st)
#if MMA_A_GATHERED
#define COPY_A_RUN(dst, gm, gk) COPY_RUN(dst, a, MMA_A_AT(gm, gk))
#elif A_MN
#error "A_MN: a gathered A (MMA_A_AT) only"
#else
#define COPY_A_RUN(dst, gm, gk) \
    { \
        const int bytes = (gm) < M ? (int)clamp((K - (gk)) * MMA_ES, 0L, 16L) : 0; \
        CP_ASYNC16(dst, bytes ? a + a_base + (gm) * a_rs + (gk) : a, bytes); \
    }
#endif
#if B_KN
#define COPY_B(k0, st) \
    _Pragma("unroll") for (int t = 0; t < B_L8; ++t) { \
        const int i = lid + t * MMA_WG; \
        const int nn = i / (MMA_K / MMA_V), kk = (i % (MMA_K / MMA_V)) * MMA_V; \
        const long gk = (k0) + kk, gn = n0 + nn; \
        COPY_B_RUN(&Bs[st][B_IDX(kk, nn)], gk, gn, gn < N, K - gk, b + b_base + gn * b_cs + gk); \
    }
#else
#define COPY_B(k0, st) \
    _Pragma("unroll") for (int t = 0; t < B_L8; ++t) { \
        const int i = lid + t * MMA_WG; \
        const int kk = i / (MMA_N / MMA_V), nn = (i % (MMA_N / MMA_V)) * MMA_V; \
        const long gk = (k0) + kk, gn = n0 + nn; \
        COPY_B_RUN(&Bs[st][B_IDX(kk, nn)], gk, gn, gk < K, N - gn, b + b_base + gk * b_rs + gn); \
    }
#endif
/* B's run at (gk, gn) into dst: gathered, or plain at src where inside (in),
 * lim values left in the run's direction. */
#if MMA_B_GATHERED
#define COPY_B_RUN(dst, gk, gn, in, lim, src) COPY_RUN(dst, b, MMA_B_AT(gk, gn))
#else
#define COPY_B_RUN(dst, gk, gn, in, lim, src) \
    { \
        const int bytes = (in) ? (int)clamp((lim) * MMA_ES, 0L, 16L) : 0; \
        CP_ASYNC16(dst, bytes ? (src) : b, bytes); \
    }
#endif

/* The same for a K step inside A and B where the block is inside C: no
 * bounds, this work-item's addresses set up once. Chunk t of A is row
 * t * MMA_WG / A_CPR further down, of B row t * MMA_WG / B_CPR; both
 * keep the rows' swizzle (multiples of its period). */
#define A_CPR (MMA_K / MMA_V)
#if B_KN
#define B_CPR (MMA_K / MMA_V)
#else
#define B_CPR (MMA_N / MMA_V)
#endif
#if (MMA_WG / B_CPR) % B_SWZ_ROWS != 0 || (MMA_WG / A_CPR) % 8 != 0
#error "the copy rows must keep the swizzle"
#endif
    /* (An operand gathered: never, COPY_FAST reads plain rows.) */
    const bool interior =
            !MMA_A_GATHERED && !MMA_B_GATHERED && m0 + MMA_M <= M && n0 + MMA_N <= N;
    global const MMA_ET *const a_row0 =
            a + a_base + (m0 + lid / A_CPR) * a_rs + (lid % A_CPR) * MMA_V;
#if B_KN
    global const MMA_ET *const b_row0 =
            b + b_base + (n0 + lid / B_CPR) * b_cs + (lid % B_CPR) * MMA_V;
    const long b_tstride = (MMA_WG / B_CPR) * b_cs;
    const int b_dst = B_IDX((lid % B_CPR) * MMA_V, lid / B_CPR);
#define B_STEP(k0) (k0)
#define B_TROWS MMA_K
#else
    global const MMA_ET *const b_row0 =
            b + b_base + (lid / B_CPR) * b_rs + n0 + (lid % B_CPR) * MMA_V;
    const long b_tstride = (MMA_WG / B_CPR) * b_rs;
    const int b_dst = B_IDX(lid / B_CPR, (lid % B_CPR) * MMA_V);
#define B_STEP(k0) ((k0) * b_rs)
#define B_TROWS B_ROW
#endif
    const long a_tstride = (MMA_WG / A_CPR) * a_rs;
    const int a_dst = A_IDX(lid / A_CPR, (lid % A_CPR) * MMA_V);
#define COPY_FAST(k0, st) \
    { \
        global const MMA_ET *pa_ = a_row0 + (k0); \
        _Pragma("unroll") for (int t = 0; t < A_L8; ++t) \
            CP_ASYNC16_FULL(&As[st][a_dst + t * (MMA_WG / A_CPR) * MMA_K], pa_ + t * a_tstride); \
        global const MMA_ET *pb_ = b_row0 + B_STEP(k0); \
        _Pragma("unroll") for (int t = 0; t < B_L8; ++t) \
            CP_ASYNC16_FULL(&Bs[st][b_dst + t * (MMA_WG / B_CPR) * B_TROWS], pb_ + t * b_tstride); \
    }
#define COPY_STEP(k0, st) \
    if (interior && (k0) + MMA_K <= K) { \
        COPY_FAST(k0, st); \
    } else { \
        COPY_TILES(k0, st); \
    }

    /* AHEAD K steps in flight ahead of the one multiplied; one barrier
     * per step both publishes the step's tiles and frees the stage the
     * next copies overwrite (multiplied the step before, or with
     * WGM_DEPTH 2 the one before that). */
    const long steps = (K + MMA_K - 1) / MMA_K;
#pragma unroll
    for (int s = 0; s < AHEAD; ++s) {
        if (s < steps) COPY_STEP(s * MMA_K, s);
        CP_COMMIT();
    }
    int rd = 0, wr = AHEAD;
    for (long kt = 0; kt < steps; ++kt) {
        CP_WAIT_AHEAD();
        STEP_FENCE();
        barrier(CLK_LOCAL_MEM_FENCE);
        if (kt + AHEAD < steps) COPY_STEP((kt + AHEAD) * MMA_K, wr);
        CP_COMMIT();
        COMPUTE(rd);
        rd = rd == STAGES - 1 ? 0 : rd + 1;
        wr = wr == STAGES - 1 ? 0 : wr + 1;
    }
#if MMA_WGMMA && WGM_DEPTH > 1
    WG_WAIT0();
    ACC_HOLD_ALL();
#endif
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

    /* The epilogue, element by element as gemm_tiled's (gemm.cl), through
     * its hooks (C_INDEX, PO_SET: a convolution's addressing). */
    const long c_base = c_off + i0 * c_b0 + i1 * c_b1;
    const long bias_base = bias_off + i0 * bias_b0 + i1 * bias_b1;
    const float common = epilogue_common(scales_src, scales_wei);
    const float dst_inv = DST_SCALES ? 1.0f / scales_dst[0] : 1.0f;
#if PO_ON
    long pos[PO_NB + 2];
    epilogue_batch_pos(pos, batch_base, g2);
#endif
#pragma unroll
    for (int i = 0; i < MMA_TI; ++i)
#pragma unroll
        for (int j = 0; j < MMA_TJ; ++j)
#pragma unroll
            for (int r = 0; r < 4; ++r) {
                const long gm = m0 + wm + i * MMA_ROW_STEP + g + (r / 2) * 8;
                const long gn = n0 + wn + j * 8 + 2 * q + (r % 2);
                if (gm >= M || gn >= N) continue;
                const long at = C_INDEX(gm, gn);
                PO_SET(gm, gn);
#if C_EXACT
                c[at] = acc[i][j][r];
                continue;
#endif
                float v = epilogue_value((float)acc[i][j][r] * common, WEI_SCALE_OF(gn), bias,
                        bias_base + gm * bias_rs + gn * bias_cs, c, at, dst_inv,
                        PO_POS POST_OPS_ARGS);
                EPILOGUE_END(v, gn);
                ST_C(c, at, v);
            }
}

/* One mma of the configured type: builds only where the driver takes the
 * PTX (the host's probe before choosing this kernel). */
#if MMA_WGMMA
kernel void mma_probe(global float *out) {
    local MMA_ET t[64 * MMA_K] __attribute__((aligned(1024)));
    for (int i = get_local_id(0); i < 64 * MMA_K; i += get_local_size(0)) t[i] = 0x3c00;
    PROXY_FENCE();
    barrier(CLK_LOCAL_MEM_FENCE);
    MMA_ACC_T d[8][4];
    for (int j = 0; j < 8; ++j)
        for (int r = 0; r < 4; ++r) d[j][r] = 0;
    WG_FENCE();
    WGMMA_N64(d, K_MAJOR_DESC(t), B_DESC(t), WG_SHAPE, WG_TAIL, WG_C);
    WG_COMMIT();
    WG_WAIT0();
    out[get_global_id(0)] = d[0][0];
}
#else
kernel void mma_probe(global float *out) {
    MMA_ACC_T d[4] = {0, 0, 0, 0};
    const uint x[4] = {0x3c003c00u, 0x3c003c00u, 0x3c003c00u, 0x3c003c00u};
    const uint y[2] = {0x3c003c00u, 0x3c003c00u};
    MMA(d, x, y);
    out[get_global_id(0)] = (float)d[0];
}
#endif

/* B copied K-major for wgmma, which takes tf32 only so (the host's b_copy:
 * an n-fastest B goes through the scratchpad): out[out_off + z * out_s +
 * n * kp + k] = B(k, n) of matrix z rounded to tf32 as mma.sync's fragment
 * reads round it, zero for K <= k < kp. Matrix z = z0 * n1 + z1 (global id 2) of B
 * sits at b_off + z0 * b_s0 + z1 * b_s1. 32 x 32 tiles through local
 * memory, work-groups of 32 x 8: reads run along n, writes along k. */
#if MMA_TF32
kernel void b_k_major(global const float *b, long b_off, long b_rs, long b_cs, long b_s0,
        long b_s1, long n1, global float *out, long out_off, long out_s, long K, long kp,
        long N) {
    local float t[32][33];
    const long z = get_global_id(2);
    const long src = b_off + (z / n1) * b_s0 + (z % n1) * b_s1;
    const long dst = out_off + z * out_s;
    const int lx = get_local_id(0), ly = get_local_id(1);
    const long k0 = get_group_id(0) * 32, n0 = get_group_id(1) * 32;
    for (int i = 0; i < 32; i += 8) {
        const long k = k0 + ly + i, n = n0 + lx;
        t[ly + i][lx] = k < K && n < N ? b[src + k * b_rs + n * b_cs] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = 0; i < 32; i += 8) {
        const long n = n0 + ly + i, k = k0 + lx;
        if (n < N && k < kp) out[dst + n * kp + k] = as_float(tf32(as_uint(t[lx][ly + i])));
    }
}
#endif
