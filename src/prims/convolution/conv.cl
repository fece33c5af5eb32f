/* The convolution's implicit GEMM for gemm.cl's tiled kernel (and, for
 * floats on NVIDIA tensor cores, gemm_mma.cl's, which reads MMA_A_AT /
 * MMA_B_AT and the epilogue hooks) (see
 * prims/convolution/geometry.rs for the roles X, W, Y and the three
 * directions). Defined before gemm.cl, after types.cl and the post-ops
 * prelude. Everything about the problem is baked in with -D:
 *   DIR 0 (compute Y), 1 (compute X), 2 (compute W);
 *   G, IC, OC (per group), MB; ID IH IW, OD OH OW, KD KH KW, SD SH SW,
 *   DD DH DW (dilation + 1), PD PH PW (left padding);
 *   X_OFF X_N X_C X_D X_H X_W, Y_* alike, W_OFF W_G W_OC W_IC W_KD W_KH W_KW:
 *   element offsets and strides;
 *   A_GATHER, B_GATHER, C_GATHER: the operand is addressed here (else it is
 *   a plain strided matrix, gemm.cl's default, with strides as arguments);
 *   ZP_SRC 0/1/2 (none, common, per channel), ZP_DST likewise;
 *   NSP: spatial dimensions of the computed tensor (post-op positions);
 *   IDX: int or long, the type of element offsets;
 *   COL_KI: backward weights' columns tap-major, channels innermost.
 * The group is the kernel's third NDRange index (i1 in gemm.cl). */

#define I_SP (ID * IH * IW)
#define O_SP (OD * OH * OW)
#define K_SP (KD * KH * KW)

#ifndef ZP_SRC
#define ZP_SRC 0
#endif
/* The type of element offsets: int where every tensor and the GEMM's M and
 * K fit in 2^31 (the host says), long otherwise. */
#ifndef IDX
#define IDX long
#endif
#ifndef CONV_UNIFORM
#define CONV_UNIFORM 0
#endif
#ifndef ZP_DST
#define ZP_DST 0
#endif

inline IDX conv_x_at(IDX g, IDX n, IDX c, int d, int h, int w) {
    return X_OFF + n * X_N + (g * IC + c) * X_C + d * (IDX)X_D + h * (IDX)X_H
            + w * (IDX)X_W;
}
inline IDX conv_y_at(IDX g, IDX n, IDX c, int d, int h, int w) {
    return Y_OFF + n * Y_N + (g * OC + c) * Y_C + d * (IDX)Y_D + h * (IDX)Y_H
            + w * (IDX)Y_W;
}
inline IDX conv_w_at(IDX g, IDX oc, IDX ic, int kk) {
    const int kd = kk / (KH * KW), kh = (kk / KW) % KH, kw = kk % KW;
    return W_OFF + g * W_G + oc * W_OC + ic * W_IC + kd * (IDX)W_KD
            + kh * (IDX)W_KH + kw * (IDX)W_KW;
}

/* Tap kk of output o (od, oh, ow) in X: 0 when outside. */
#define TAP(od, oh, ow, kk, id, ih, iw) \
    const int kd_ = (kk) / (KH * KW), kh_ = ((kk) / KW) % KH, kw_ = (kk) % KW; \
    const int id = (od) * SD - PD + kd_ * DD; \
    const int ih = (oh) * SH - PH + kh_ * DH; \
    const int iw = (ow) * SW - PW + kw_ * DW; \
    const bool inside = id >= 0 && id < ID && ih >= 0 && ih < IH && iw >= 0 && iw < IW

/* A column of backward weights' C (and B) is (ic, tap), ic outer; with
 * COL_KI (gemm_mma, where X's channels are contiguous) (tap, ic), ic inner,
 * so that neighbouring columns are neighbouring channels. */
#ifndef COL_KI
#define COL_KI 0
#endif
#if COL_KI
#define COL_IC(col) ((col) % IC)
#define COL_TAP(col) ((col) / IC)
#else
#define COL_IC(col) ((col) / K_SP)
#define COL_TAP(col) ((col) % K_SP)
#endif

#if DIR == 0
#define A_CH IC
#define C_CH OC
#elif DIR == 1
#define A_CH OC
#define C_CH IC
#else
#define A_CH OC
#define C_CH 0
#endif

/* Backward weights split over depth (SPLIT_K): the third NDRange index
 * runs over (part, group), part i0 covering depth i0 * KCHUNK onwards; the
 * kernel's K is KCHUNK, its C the parts' f32 partial sums in the
 * scratchpad, which conv_w_reduce adds up. */
#ifndef SPLIT_K
#define SPLIT_K 0
#endif
#if SPLIT_K
#define DEPTH(gk) ((IDX)i0 * KCHUNK + (gk))
#define DEPTH_OK(gk) ((gk) < K && DEPTH(gk) < KTOT)
#else
#define DEPTH(gk) (gk)
#define DEPTH_OK(gk) ((gk) < K)
#endif
/* Plain operands of a split take the part's depth too (the host leaves
 * their 4-wide loads off). */
#if SPLIT_K && !A_GATHER
#define A_VALUE(gm, gk) \
    ((gm) < M && DEPTH_OK(gk) ? LD_A(a, a_base + (gm) * a_rs + DEPTH(gk) * a_cs) : 0.0f)
#endif
#if SPLIT_K && !B_GATHER
#define B_VALUE(gk, gn) \
    (DEPTH_OK(gk) && (gn) < N ? LD_B(b, b_base + DEPTH(gk) * b_rs + (gn) * b_cs) : 0.0f)
#endif

/* Backward weights' element indices (-1: a zero): A's (oc, depth d) in Y,
 * B's (depth d, column col) in X; gathered loads of both kernels read
 * through them, gemm_mma's at the depth of the kernel's part (SPLIT_K),
 * whether the host calls the operand plain or not. */
#if DIR == 2
inline IDX conv_wa_at(IDX g, IDX oc, IDX d) {
    const IDX n = d / O_SP;
    const int r = d % O_SP;
    return conv_y_at(g, n, oc, r / (OH * OW), (r / OW) % OH, r % OW);
}
inline IDX conv_wb_at(IDX g, IDX d, IDX col) {
    const IDX n = d / O_SP;
    const int r = d % O_SP;
    const int od = r / (OH * OW), oh = (r / OW) % OH, ow = r % OW;
    const int kk = COL_TAP(col);
    TAP(od, oh, ow, kk, id, ih, iw);
    return inside ? conv_x_at(g, n, COL_IC(col), id, ih, iw) : -1;
}
#define MMA_A_AT(gm, gk) ((gm) < M && DEPTH_OK(gk) ? conv_wa_at(i1, gm, DEPTH(gk)) : -1)
#define MMA_B_AT(gk, gn) (DEPTH_OK(gk) && (gn) < N ? conv_wb_at(i1, DEPTH(gk), gn) : -1)
#endif

/* Backward weights gathers A from Y one element at a time (forward and
 * backward data gather through A_PREP below). */
#if A_GATHER && DIR == 2
inline float conv_a(global const CAT(T_, A_DT) *a, IDX g, IDX m, IDX k) {
    return CAT(LD_, A_DT)(a, conv_wa_at(g, m, k));
}
#undef A_VALUE
#define A_VALUE(gm, gk) \
    ((gm) < M && DEPTH_OK(gk) ? conv_a(a, i1, gm, DEPTH(gk)) : 0.0f)
#endif

/* The rows' part of A's address, once per load slot (gemm.cl's A_PREP):
 * the row's base element and the first input position of its window
 * (DIR 0), or its position plus the padding (DIR 1). */
#if A_GATHER && DIR < 2
#define A_PREP_DECL \
    IDX a_rb[A_SLOTS], a_tap[A_SLOTS]; \
    int a_d0[A_SLOTS], a_h0[A_SLOTS], a_w0[A_SLOTS]
#if DIR == 0
#define A_PREP(t, gm) \
    do { \
        const IDX gm_ = (gm); \
        a_rb[t] = -1; \
        if (gm_ < M) { \
            const IDX n_ = gm_ / O_SP; \
            const int r_ = gm_ % O_SP; \
            a_rb[t] = X_OFF + n_ * X_N + (IDX)i1 * IC * X_C; \
            a_d0[t] = (r_ / (OH * OW)) * SD - PD; \
            a_h0[t] = ((r_ / OW) % OH) * SH - PH; \
            a_w0[t] = (r_ % OW) * SW - PW; \
        } \
    } while (0)
/* Element offset of depth gk of a prepared row, or -1 (a zero). */
inline IDX conv_a_off(IDX rb, int d0, int h0, int w0, IDX gk) {
    const int kk = gk / IC, c = gk % IC;
    const int kd = kk / (KH * KW), kh = (kk / KW) % KH, kw = kk % KW;
    const int id = d0 + kd * DD, ih = h0 + kh * DH, iw = w0 + kw * DW;
    if (id < 0 || id >= ID || ih < 0 || ih >= IH || iw < 0 || iw >= IW) return -1;
    return rb + c * X_C + id * (IDX)X_D + ih * (IDX)X_H + iw * (IDX)X_W;
}
#else
#define A_PREP(t, gm) \
    do { \
        const IDX gm_ = (gm); \
        a_rb[t] = -1; \
        if (gm_ < M) { \
            const IDX n_ = gm_ / I_SP; \
            const int r_ = gm_ % I_SP; \
            a_rb[t] = Y_OFF + n_ * Y_N + (IDX)i1 * OC * Y_C; \
            a_d0[t] = (r_ / (IH * IW)) + PD; \
            a_h0[t] = ((r_ / IW) % IH) + PH; \
            a_w0[t] = (r_ % IW) + PW; \
        } \
    } while (0)
inline IDX conv_a_off(IDX rb, int d0, int h0, int w0, IDX gk) {
    const int kk = gk / OC, c = gk % OC;
    const int kd = kk / (KH * KW), kh = (kk / KW) % KH, kw = kk % KW;
    const int td = d0 - kd * DD, th = h0 - kh * DH, tw = w0 - kw * DW;
    if (td < 0 || th < 0 || tw < 0) return -1;
    if (td % SD || th % SH || tw % SW) return -1;
    const int od = td / SD, oh = th / SH, ow = tw / SW;
    if (od >= OD || oh >= OH || ow >= OW) return -1;
    return rb + c * Y_C + od * (IDX)Y_D + oh * (IDX)Y_H + ow * (IDX)Y_W;
}
#endif
#define A_AT_T(t, gk) \
    (a_rb[t] < 0 || (gk) >= K ? -1 \
            : conv_a_off(a_rb[t], a_d0[t], a_h0[t], a_w0[t], (gk)))
/* gemm_mma's element index of A's (gm, gk) (-1: a zero), the row found as
 * A_PREP finds it. */
#if DIR == 0
inline IDX conv_a_at(IDX g, IDX gm, IDX gk) {
    const IDX n = gm / O_SP;
    const int r = gm % O_SP;
    return conv_a_off(X_OFF + n * X_N + g * IC * X_C, (r / (OH * OW)) * SD - PD,
            ((r / OW) % OH) * SH - PH, (r % OW) * SW - PW, gk);
}
#else
inline IDX conv_a_at(IDX g, IDX gm, IDX gk) {
    const IDX n = gm / I_SP;
    const int r = gm % I_SP;
    return conv_a_off(Y_OFF + n * Y_N + g * OC * Y_C, r / (IH * IW) + PD, (r / IW) % IH + PH,
            r % IW + PW, gk);
}
#endif
#define MMA_A_AT(gm, gk) ((gm) < M && (gk) < K ? conv_a_at(i1, gm, gk) : -1)
#if ZP_SRC == 2
#define ZP_AT(gk) ((float)zp_src[i1 * A_CH + (gk) % A_CH])
#define ZP4_AT(gk) convert_float4(vload4(0, zp_src + i1 * A_CH + (gk) % A_CH))
#elif ZP_SRC == 1
#define ZP_AT(gk) ((float)zp_src[0])
#define ZP4_AT(gk) ((float4)((float)zp_src[0]))
#else
#define ZP_AT(gk) 0.0f
#define ZP4_AT(gk) ((float4)(0.0f))
#endif
inline float conv_a_load(global const CAT(T_, A_DT) *a, IDX at, float zp) {
    return at < 0 ? 0.0f : CAT(LD_, A_DT)(a, at) - zp;
}
#define A_VALUE_T(t, gm, gk) conv_a_load(a, A_AT_T(t, gk), ZP_AT(gk))
#if CONV_UNIFORM && DIR == 0
/* Every depth of a K step lies in one tap (the host sets CONV_UNIFORM where
 * TK divides IC), and the IC / TK steps of a tap share it: at a tap's first
 * step each slot's window element is found once (a_tap, -1 outside the
 * input); the other steps only add their channel. */
#define A_STEP(k0) \
    const int c_s = (int)((k0) % IC); \
    if (c_s == 0) { \
        const int kk_s = (int)((k0) / IC); \
        const int sd_ = (kk_s / (KH * KW)) * DD, sh_ = ((kk_s / KW) % KH) * DH, \
                  sw_ = (kk_s % KW) * DW; \
        _Pragma("unroll") for (int t_ = 0; t_ < A_SLOTS; ++t_) { \
            const int id_ = a_d0[t_] + sd_, ih_ = a_h0[t_] + sh_, iw_ = a_w0[t_] + sw_; \
            a_tap[t_] = a_rb[t_] >= 0 && id_ >= 0 && id_ < ID && ih_ >= 0 && ih_ < IH \
                            && iw_ >= 0 && iw_ < IW \
                    ? a_rb[t_] + id_ * (IDX)X_D + ih_ * (IDX)X_H + iw_ * (IDX)X_W \
                    : -1; \
        } \
    }
#define A_LOAD4(t, gm, gk, v) \
    do { \
        if (a_tap[t] >= 0) { \
            const int c_ = c_s + (int)((gk) % TK); \
            v = CAT(LD4_, A_DT)(a + a_tap[t] + c_, 0) - ZP4_AT(c_); \
        } \
    } while (0)
#elif CONV_UNIFORM && DIR == 1
/* The same for backward data: one tap per K step where TK divides OC. */
#define A_STEP(k0) \
    const int kk_s = (int)((k0) / OC), c_s = (int)((k0) % OC); \
    const int sd_ = (kk_s / (KH * KW)) * DD, sh_ = ((kk_s / KW) % KH) * DH, \
              sw_ = (kk_s % KW) * DW
#define A_LOAD4(t, gm, gk, v) \
    do { \
        const int td_ = a_d0[t] - sd_, th_ = a_h0[t] - sh_, tw_ = a_w0[t] - sw_; \
        if (a_rb[t] >= 0 && td_ >= 0 && th_ >= 0 && tw_ >= 0 && td_ % SD == 0 \
                && th_ % SH == 0 && tw_ % SW == 0) { \
            const int od_ = td_ / SD, oh_ = th_ / SH, ow_ = tw_ / SW; \
            if (od_ < OD && oh_ < OH && ow_ < OW) { \
                const int c_ = c_s + (int)((gk) % TK); \
                const IDX at_ = a_rb[t] + c_ + od_ * (IDX)Y_D + oh_ * (IDX)Y_H \
                        + ow_ * (IDX)Y_W; \
                v = CAT(LD4_, A_DT)(a + at_, 0) - ZP4_AT(c_); \
            } \
        } \
    } while (0)
#else
/* 4 channels at once: the host sets A_VEC4 only where the channels are
 * contiguous and their count a multiple of 4 (a run never leaves a tap). */
#define A_LOAD4(t, gm, gk, v) \
    do { \
        const IDX at_ = A_AT_T(t, gk); \
        if (at_ >= 0) v = CAT(LD4_, A_DT)(a + at_, 0) - ZP4_AT(gk); \
    } while (0)
#endif
#endif

#if B_GATHER
inline float conv_b(global const CAT(T_, B_DT) *b, IDX g, IDX k, IDX col) {
#if DIR == 0
    return CAT(LD_, B_DT)(b, conv_w_at(g, col, k % IC, k / IC));
#elif DIR == 1
    return CAT(LD_, B_DT)(b, conv_w_at(g, k % OC, col, k / OC));
#else
    const IDX at = conv_wb_at(g, k, col);
    return at < 0 ? 0.0f : CAT(LD_, B_DT)(b, at);
#endif
}
#undef B_VALUE
#define B_VALUE(gk, gn) \
    (DEPTH_OK(gk) && (gn) < N ? conv_b(b, i1, DEPTH(gk), gn) : 0.0f)
#endif
/* gemm_mma's element index of B's (gk, gn) (forward and backward data). */
#if B_GATHER && DIR < 2
inline IDX conv_b_at(IDX g, IDX k, IDX col) {
#if DIR == 0
    return conv_w_at(g, col, k % IC, k / IC);
#else
    return conv_w_at(g, k % OC, col, k / OC);
#endif
}
#define MMA_B_AT(gk, gn) ((gk) < K && (gn) < N ? conv_b_at(i1, gk, gn) : -1)
#endif

#if C_GATHER
inline IDX conv_c_at(IDX g, IDX m, IDX col) {
#if DIR == 0
    const IDX n = m / O_SP;
    const int r = m % O_SP;
    return conv_y_at(g, n, col, r / (OH * OW), (r / OW) % OH, r % OW);
#elif DIR == 1
    const IDX n = m / I_SP;
    const int r = m % I_SP;
    return conv_x_at(g, n, col, r / (IH * IW), (r / IW) % IH, r % IW);
#else
    return conv_w_at(g, m, COL_IC(col), COL_TAP(col));
#endif
}
#if SPLIT_K
#define C_INDEX(gm, gn) ((((IDX)i0 * G + i1) * M + (gm)) * N + (gn))
#else
#define C_INDEX(gm, gn) conv_c_at(i1, gm, gn)
#endif
#endif

#define CHANNEL(gn) (i1 * C_CH + (gn))

/* The post-ops' position: n, channel, then NSP spatial indices. */
#if DIR == 0
#define SP_D OD
#define SP_H OH
#define SP_W OW
#else
#define SP_D ID
#define SP_H IH
#define SP_W IW
#endif
inline void conv_pos(long *pos, long g, long m, long col) {
    const long sp = SP_D * SP_H * SP_W;
    const long r = m % sp;
    pos[0] = m / sp;
    pos[1] = g * C_CH + col;
#if NSP == 3
    pos[2] = r / (SP_H * SP_W);
    pos[3] = (r / SP_W) % SP_H;
    pos[4] = r % SP_W;
#elif NSP == 2
    pos[2] = (r / SP_W) % SP_H;
    pos[3] = r % SP_W;
#else
    pos[2] = r % SP_W;
#endif
}
#define PO_POSITION(pos, gm, gn) conv_pos(pos, i1, gm, gn)

#if ZP_DST == 1
#define EPILOGUE_END(v, gn) v += (float)zp_dst[0]
#elif ZP_DST == 2
#define EPILOGUE_END(v, gn) v += (float)zp_dst[CHANNEL(gn)]
#endif

#define EXTRA_PARAMS , global const int *zp_src, global const int *zp_dst

/* The bias gradient: out[c] = sum over n and spatial positions of
 * t[n, c, ...] (t: X or Y, strides as arguments). One work-group per
 * channel (the launch's local size a power of two, at most BIAS_WG): its
 * work-items stride through the channel's elements (w fastest, so that
 * neighbours load neighbours) and add their sums up in local memory. */
#define BIAS_WG 256
kernel void conv_bias_sum(global const CAT(T_, A_DT) *t, long t_off, long t_n, long t_c,
        long t_d, long t_h, long t_w, long mb, long sd, long sh, long sw,
        long channels, global CAT(T_, BS_DT) *out, long out_off, long out_s) {
    const long c = get_group_id(0);
    const int l = get_local_id(0), ln = get_local_size(0);
    const long hw = sh * sw, per_n = sd * hw;
    const long base = t_off + c * t_c;
    float s = 0.0f;
    for (long r = l; r < mb * per_n; r += ln) {
        const long n = r / per_n, q = r % per_n;
        s += CAT(LD_, A_DT)(t,
                base + n * t_n + q / hw * t_d + q % hw / sw * t_h
                        + q % sw * t_w);
    }
    local float red[BIAS_WG];
    red[l] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = ln / 2; k > 0; k >>= 1) {
        if (l < k) red[l] += red[l + k];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0 && c < channels) CAT(ST_, BS_DT)(out, out_off + c * out_s, red[0]);
}

#if SPLIT_K
/* The parts' sums of backward weights, stored into W (type W_DT). One
 * work-item per element of W's GEMM (group, row, column). */
kernel void conv_w_reduce(global const float *part, global CAT(T_, W_DT) *w,
        long parts, long M, long N) {
    const long i = get_global_id(0);
    if (i >= (long)G * M * N) return;
    const long g = i / (M * N), m = (i / N) % M, n = i % N;
    float s = 0.0f;
    for (long p = 0; p < parts; ++p)
        s += part[((p * G + g) * M + m) * N + n];
    CAT(ST_, W_DT)(w, conv_w_at(g, m, COL_IC(n), COL_TAP(n)), s);
}
#endif
