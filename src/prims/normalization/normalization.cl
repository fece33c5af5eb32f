/* Batch, layer and group normalization on OpenCL devices, over the
 * canonical view (n, c, sp) of src/prims/normalization/mod.rs: stat
 * s = PER_N ? n * G + c / CG : c, scale and shift per channel c.
 *
 * Built by src/prims/normalization/ocl.rs after types.cl and the post-ops
 * prelude, with -D macros:
 *   N, C, SP, G, CG, PER_N, S (stats), M (elements per stat)
 *   SRC_DT, OUT_DT, DD_DT, ADD_DT, SS_DT, DSS_DT   element types of src,
 *                 dst / diff_src, diff_dst, src_1 / diff_src_1, scale and
 *                 shift, diff_scale and diff_shift
 *   SRC_OFF, OUT_OFF, DD_OFF, ADD_OFF   element offsets from n, c, sp
 *   MV_OFF        offset of stat s in mean / variance (user memory)
 *   SS_OFF, DSS_OFF  offset of channel c in scale / shift and their diffs
 *   STATS_IN_SCRATCH  mean and variance live in the scratchpad (inference
 *                 that computes them); MEAN_BASE, VAR_BASE their places
 *   CHAN_BASE, SUM_BASE  per-channel sums (diff_shift, diff_scale) and
 *                 per-stat sums (A, B) in the scratchpad, two arrays each
 *   EPS           epsilon; USE_SCALE, USE_SHIFT, GLOBAL, WRITE_STATS,
 *                 ADD (src_1 added / diff_src_1 written), RELU (0 or 1)
 *                 with RELU_ALPHA, WS (the workspace is written / read),
 *                 SCALE_SRC, SCALE_DST (forward quantization scales)
 *   RMS           RMS normalization: no mean, the mean square for variance
 *   FUSED4        nrm_fused_fwd over rows of contiguous f32 (one stat per n,
 *                 G = 1, SP = 1): float4 per work-item held in registers
 *                 (0: the general loops only)
 *   NDIMS, LPOS   the logical position of (n, c, sp), for post-ops
 *   WG            work-group size (a power of two)
 *   the reduction (nrm_reduce, nrm_finish): MODE 0 sum of x, 1 sum of
 *                 (x - mean)^2, 2 per-channel sums of dd and dd * xhat,
 *                 3 per-stat sums of scale * dd and scale * dd * xhat;
 *                 CHAN_DOMAIN (outputs are channels, reduced over n and
 *                 sp) or stats; O outputs, RED elements each, in NCHUNK
 *                 chunks of CHUNK; SL outputs per work-group (lanes), RL
 *                 work-items per output (SL * RL = WG); PART_BASE
 *   the element-wise kernels: CLAST (t runs over n, sp, c: channels
 *                 innermost in memory) else over n, c, sp; VEC4 (forward,
 *                 not CLAST, f32 src and dst with contiguous rows, SP a
 *                 multiple of 4): 4 consecutive elements of a row per
 *                 work-item, moved as one float4 where both addresses are
 *                 16-byte aligned (else element by element), so the
 *                 position arithmetic, the statistics and the parameters
 *                 are paid once per 4 elements. */

#define T_SRC CAT(T_, SRC_DT)
#define T_OUT CAT(T_, OUT_DT)
#define T_DD CAT(T_, DD_DT)
#define T_ADD CAT(T_, ADD_DT)
#define T_SS CAT(T_, SS_DT)
#define T_DSS CAT(T_, DSS_DT)
#define LD_X() CAT(LD_, SRC_DT)(src, SRC_OFF)
#define LD_DD() CAT(LD_, DD_DT)(dd, DD_OFF)

#if STATS_IN_SCRATCH
#define MEAN_AT scr[MEAN_BASE + s]
#define VAR_AT scr[VAR_BASE + s]
#else
#define MEAN_AT mean[MV_OFF]
#define VAR_AT var[MV_OFF]
#endif
/* RMS normalization has no mean. */
#if RMS
#define MEAN_VAL 0.0f
#else
#define MEAN_VAL MEAN_AT
#endif

/* The type of element positions (int where the host says they fit). */
#ifndef NIDX
#define NIDX long
#endif
#if PER_N
#define STAT_OF(n, c) ((n) * G + (c) / CG)
/* (n, c, sp) of element r of stat s. */
#define STAT_ELEM(s, r) \
    const NIDX n = (s) / G; \
    const NIDX c = ((s) % G) * CG + (r) / SP; \
    const NIDX sp = (r) % SP;
#else
#define STAT_OF(n, c) (c)
#define STAT_ELEM(s, r) \
    const NIDX n = (r) / SP; \
    const NIDX c = (s); \
    const NIDX sp = (r) % SP;
#endif

#define NRM_PARAMS \
    global const T_SRC *src, global T_OUT *out, global const T_DD *dd, global T_ADD *add, \
            global uchar *ws, global float *mean, global float *var, \
            global const T_SS *scale, global const T_SS *shift, global T_DSS *dscale, \
            global T_DSS *dshift, global const float *ssc, global const float *dsc, \
            global float *scr POST_OPS_PARAMS

/* diff_dst at (n, c, sp), masked by the workspace. */
#if WS
#define LD_DDM() (ws[(n * C + c) * SP + sp] ? LD_DD() : 0.0f)
#else
#define LD_DDM() LD_DD()
#endif

#if USE_SCALE
#define GAMMA(c) CAT(LD_, SS_DT)(scale, SS_OFF)
#else
#define GAMMA(c) 1.0f
#endif

float wg_sum(float v, local float *red, int lid) {
    red[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int st = WG / 2; st > 0; st >>= 1) {
        if (lid < st) red[lid] += red[lid + st];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float r = red[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

/* The forward result at (n, c, sp) from x and the stat's mean and 1/sigma;
 * writes the workspace; then scales and post-ops. */
#define FWD_VALUE(x, m, inv) \
    float y = ((x) - (m)) * (inv) * GAMMA(c); \
    SHIFT_ADD \
    ADD_SRC1 \
    RELU_WS \
    { \
        const long pos[NDIMS] = {LPOS}; \
        y = post_ops(y * SRC_SCALE, 0.0f, pos POST_OPS_ARGS) / DST_SCALE; \
    }
#define FWD_ELEM(m, inv) \
    { \
        FWD_VALUE(LD_X(), m, inv) \
        CAT(ST_, OUT_DT)(out, OUT_OFF, y); \
    }
#if USE_SHIFT
#define SHIFT_ADD y += CAT(LD_, SS_DT)(shift, SS_OFF);
#else
#define SHIFT_ADD
#endif
#if ADD
#define ADD_SRC1 y += CAT(LD_, ADD_DT)(add, ADD_OFF);
#else
#define ADD_SRC1
#endif
#if RELU && WS
#define RELU_WS \
    ws[(n * C + c) * SP + sp] = y > 0.0f; \
    if (!(y > 0.0f)) y *= RELU_ALPHA;
#elif RELU
#define RELU_WS \
    if (!(y > 0.0f)) y *= RELU_ALPHA;
#else
#define RELU_WS
#endif

#if SCALE_SRC
#define SRC_SCALE ssc[0]
#else
#define SRC_SCALE 1.0f
#endif
#if SCALE_DST
#define DST_SCALE dsc[0]
#else
#define DST_SCALE 1.0f
#endif

/* The fused kernel's statistics of stat s, stored by work-item 0 where
 * they are outputs (RMS: the variance only). */
#if WRITE_STATS && RMS
#define STORE_STATS(m, v) \
    if (lid == 0) VAR_AT = (v);
#elif WRITE_STATS
#define STORE_STATS(m, v) \
    if (lid == 0) { \
        MEAN_AT = (m); \
        VAR_AT = (v); \
    }
#else
#define STORE_STATS(m, v)
#endif

#ifdef NRM_FUSED_FWD
/* One work-group per stat: mean, variance (two passes over the stat's
 * elements, the second from cache), then the normalized elements. */
__kernel void nrm_fused_fwd(NRM_PARAMS) {
    local float red[WG];
    const NIDX s = get_group_id(0);
    const int lid = get_local_id(0);
#if FUSED4
    /* Rows of f32 (layer normalization: one stat per n, channels contiguous):
     * FUSED4 float4 per work-item, read once and held in registers for the
     * three passes, where the row's addresses are 16-byte aligned (the same
     * for the whole work-group, so the barriers stay uniform). */
    NIDX in0, out0;
    {
        const NIDX n = s, c = 0, sp = 0;
        in0 = SRC_OFF;
        out0 = OUT_OFF;
    }
    global const float *xs = src + in0;
    global float *ys = out + out0;
    if ((((ulong)xs) | ((ulong)ys)) % 16 == 0) {
        float4 xv[FUSED4];
        float a = 0.0f;
        for (int k = 0; k < FUSED4; ++k) {
            const NIDX r4 = lid + k * WG;
            xv[k] = r4 < M / 4 ? ((global const float4 *)xs)[r4] : (float4)(0.0f);
            a += (xv[k].s0 + xv[k].s1) + (xv[k].s2 + xv[k].s3);
        }
#if RMS
        const float m = 0.0f;
#else
        const float m = wg_sum(a, red, lid) / M;
#endif
        float q = 0.0f;
        for (int k = 0; k < FUSED4; ++k) {
            if (lid + k * WG < M / 4) {
                const float4 d = xv[k] - m;
                q += (d.s0 * d.s0 + d.s1 * d.s1) + (d.s2 * d.s2 + d.s3 * d.s3);
            }
        }
        const float v = wg_sum(q, red, lid) / M;
        STORE_STATS(m, v)
        const float inv = 1.0f / sqrt(v + EPS);
        for (int k = 0; k < FUSED4; ++k) {
            const NIDX r4 = lid + k * WG;
            if (r4 < M / 4) {
                const float xa[4] = {xv[k].s0, xv[k].s1, xv[k].s2, xv[k].s3};
                float ya[4];
                for (int j = 0; j < 4; ++j) {
                    const NIDX n = s, c = 4 * r4 + j, sp = 0;
                    FWD_VALUE(xa[j], m, inv)
                    ya[j] = y;
                }
                ((global float4 *)ys)[r4] = (float4)(ya[0], ya[1], ya[2], ya[3]);
            }
        }
        return;
    }
#endif
#if RMS
    const float m = 0.0f;
#else
    float a = 0.0f;
    for (NIDX r = lid; r < M; r += WG) {
        STAT_ELEM(s, r)
        a += LD_X();
    }
    const float m = wg_sum(a, red, lid) / M;
#endif
    float q = 0.0f;
    for (NIDX r = lid; r < M; r += WG) {
        STAT_ELEM(s, r)
        const float d = LD_X() - m;
        q += d * d;
    }
    const float v = wg_sum(q, red, lid) / M;
    STORE_STATS(m, v)
    const float inv = 1.0f / sqrt(v + EPS);
    for (NIDX r = lid; r < M; r += WG) {
        STAT_ELEM(s, r)
        FWD_ELEM(m, inv)
    }
}
#endif

#ifdef NRM_REDUCE
/* Partial sums of chunk k of output o: SL outputs per work-group, RL
 * work-items each, reduced through local memory. */
__kernel void nrm_reduce(NRM_PARAMS) {
    local float red1[WG], red2[WG];
    const int lid = get_local_id(0);
    const int lo = lid % SL, lr = lid / SL;
    const long grp = get_group_id(0);
    const long k = grp % NCHUNK;
    const long o = (grp / NCHUNK) * SL + lo;
    float a1 = 0.0f, a2 = 0.0f;
    if (o < O) {
        const long r0 = k * CHUNK;
        const long r1 = min(r0 + CHUNK, (long)RED);
        for (long r = r0 + lr; r < r1; r += RL) {
#if CHAN_DOMAIN
            const long n = r / SP, c = o, sp = r % SP;
#else
            STAT_ELEM(o, r)
#endif
#if MODE == 0
            a1 += LD_X();
#else
            const long s = STAT_OF(n, c);
#if MODE == 1
            const float d = LD_X() - MEAN_VAL;
            a1 += d * d;
#else
            const float xh = (LD_X() - MEAN_VAL) / sqrt(VAR_AT + EPS);
#if MODE == 2
            const float g = LD_DDM();
#else
            const float g = LD_DDM() * GAMMA(c);
#endif
            a1 += g;
            a2 += g * xh;
#endif
#endif
        }
    }
    red1[lid] = a1;
    red2[lid] = a2;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int st = RL / 2; st > 0; st >>= 1) {
        if (lr < st) {
            red1[lid] += red1[lid + st * SL];
            red2[lid] += red2[lid + st * SL];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lr == 0 && o < O) {
        scr[PART_BASE + (o * NCHUNK + k) * 2] = red1[lid];
        scr[PART_BASE + (o * NCHUNK + k) * 2 + 1] = red2[lid];
    }
}

/* One work-item per output: the chunks' sums, in order. */
__kernel void nrm_finish(NRM_PARAMS) {
    const long o = get_global_id(0);
    if (o >= O) return;
    float a1 = 0.0f, a2 = 0.0f;
    for (long k = 0; k < NCHUNK; k++) {
        a1 += scr[PART_BASE + (o * NCHUNK + k) * 2];
        a2 += scr[PART_BASE + (o * NCHUNK + k) * 2 + 1];
    }
#if MODE == 0
    const long s = o;
    MEAN_AT = a1 / RED;
#elif MODE == 1
    const long s = o;
    VAR_AT = a1 / RED;
#elif MODE == 2
    scr[CHAN_BASE + o] = a1;
    scr[CHAN_BASE + C + o] = a2;
    const long c = o;
#if WRITE_DSHIFT
    CAT(ST_, DSS_DT)(dshift, DSS_OFF, a1);
#endif
#if WRITE_DSCALE
    CAT(ST_, DSS_DT)(dscale, DSS_OFF, a2);
#endif
#else
    scr[SUM_BASE + o] = a1;
    scr[SUM_BASE + S + o] = a2;
#endif
}
#endif

/* The canonical (n, c, sp) of element t, in the output's memory order. */
#if CLAST
#define ELEM_OF(t) \
    const NIDX c = (t) % C; \
    const NIDX sp = ((t) / C) % SP; \
    const NIDX n = (t) / (C * SP);
#else
#define ELEM_OF(t) \
    const NIDX sp = (t) % SP; \
    const NIDX c = ((t) / SP) % C; \
    const NIDX n = (t) / (C * SP);
#endif

#ifdef NRM_FWD
#if VEC4
/* 4 elements of a row per work-item; the statistics are known. */
__kernel void nrm_fwd(NRM_PARAMS) {
    if (get_global_id(0) >= (size_t)N * C * SP / 4) return;
    const NIDX t0 = (NIDX)get_global_id(0) * 4;
    const NIDX sp0 = t0 % SP;
    const NIDX c = (t0 / SP) % C;
    const NIDX n = t0 / (C * SP);
    const NIDX s = STAT_OF(n, c);
    const float m = MEAN_VAL;
    const float inv = 1.0f / sqrt(VAR_AT + EPS);
    NIDX in0, out0;
    {
        const NIDX sp = sp0;
        in0 = SRC_OFF;
        out0 = OUT_OFF;
    }
    global const float *xs = src + in0;
    global float *ys = out + out0;
    if ((((ulong)xs) | ((ulong)ys)) % 16 == 0) {
        const float4 xv = *(global const float4 *)xs;
        const float xa[4] = {xv.s0, xv.s1, xv.s2, xv.s3};
        float ya[4];
        for (int j = 0; j < 4; ++j) {
            const NIDX sp = sp0 + j;
            FWD_VALUE(xa[j], m, inv)
            ya[j] = y;
        }
        *(global float4 *)ys = (float4)(ya[0], ya[1], ya[2], ya[3]);
    } else {
        for (int j = 0; j < 4; ++j) {
            const NIDX sp = sp0 + j;
            FWD_VALUE(xs[j], m, inv)
            ys[j] = y;
        }
    }
}
#else
/* One work-item per element; the statistics are known. */
__kernel void nrm_fwd(NRM_PARAMS) {
    if (get_global_id(0) >= (size_t)N * C * SP) return;
    const NIDX t = get_global_id(0);
    ELEM_OF(t)
    const NIDX s = STAT_OF(n, c);
    const float m = MEAN_VAL;
    const float inv = 1.0f / sqrt(VAR_AT + EPS);
    FWD_ELEM(m, inv)
}
#endif
#endif

#ifdef NRM_BWD
/* One work-item per element: diff_src (and diff_src_1). */
__kernel void nrm_bwd(NRM_PARAMS) {
    if (get_global_id(0) >= (size_t)N * C * SP) return;
    const NIDX t = get_global_id(0);
    ELEM_OF(t)
    const NIDX s = STAT_OF(n, c);
    const float inv = 1.0f / sqrt(VAR_AT + EPS);
    const float d = LD_DDM();
#if ADD
    CAT(ST_, ADD_DT)(add, ADD_OFF, d);
#endif
    const float g = GAMMA(c);
#if GLOBAL
    const float v = d * g * inv;
#else
#if PER_N
    const float a = scr[SUM_BASE + s], b = scr[SUM_BASE + S + s];
#else
    const float a = scr[CHAN_BASE + c] * g, b = scr[CHAN_BASE + C + c] * g;
#endif
    const float xh = (LD_X() - MEAN_VAL) * inv;
    const float v = (g * d - a / M - xh * b / M) * inv;
#endif
    CAT(ST_, OUT_DT)(out, OUT_OFF, v);
}
#endif
