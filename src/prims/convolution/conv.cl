/* The convolution's implicit GEMM for gemm.cl's tiled kernel (see
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
 *   NSP: spatial dimensions of the computed tensor (post-op positions).
 * The group is the kernel's third NDRange index (i1 in gemm.cl). */

#define I_SP (ID * IH * IW)
#define O_SP (OD * OH * OW)
#define K_SP (KD * KH * KW)

#ifndef ZP_SRC
#define ZP_SRC 0
#endif
#ifndef ZP_DST
#define ZP_DST 0
#endif

inline long conv_x_at(long g, long n, long c, int d, int h, int w) {
    return X_OFF + n * X_N + (g * IC + c) * X_C + d * (long)X_D + h * (long)X_H
            + w * (long)X_W;
}
inline long conv_y_at(long g, long n, long c, int d, int h, int w) {
    return Y_OFF + n * Y_N + (g * OC + c) * Y_C + d * (long)Y_D + h * (long)Y_H
            + w * (long)Y_W;
}
inline long conv_w_at(long g, long oc, long ic, int kk) {
    const int kd = kk / (KH * KW), kh = (kk / KW) % KH, kw = kk % KW;
    return W_OFF + g * W_G + oc * W_OC + ic * W_IC + kd * (long)W_KD
            + kh * (long)W_KH + kw * (long)W_KW;
}

/* Tap kk of output o (od, oh, ow) in X: 0 when outside. */
#define TAP(od, oh, ow, kk, id, ih, iw) \
    const int kd_ = (kk) / (KH * KW), kh_ = ((kk) / KW) % KH, kw_ = (kk) % KW; \
    const int id = (od) * SD - PD + kd_ * DD; \
    const int ih = (oh) * SH - PH + kh_ * DH; \
    const int iw = (ow) * SW - PW + kw_ * DW; \
    const bool inside = id >= 0 && id < ID && ih >= 0 && ih < IH && iw >= 0 && iw < IW

#if ZP_SRC == 1
#define SUB_ZP(v, c) ((v) - (float)zp_src[0])
#elif ZP_SRC == 2
#define SUB_ZP(v, c) ((v) - (float)zp_src[g * A_CH + (c)])
#else
#define SUB_ZP(v, c) (v)
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

#if A_GATHER
inline float conv_a(global const CAT(T_, A_DT) *a, long g, long m, long k,
        global const int *zp_src) {
#if DIR == 0
    const long n = m / O_SP;
    const int r = m % O_SP;
    const int od = r / (OH * OW), oh = (r / OW) % OH, ow = r % OW;
    const int kk = k / IC, c = k % IC;
    TAP(od, oh, ow, kk, id, ih, iw);
    if (!inside) return 0.0f;
    return SUB_ZP(CAT(LD_, A_DT)(a, conv_x_at(g, n, c, id, ih, iw)), c);
#elif DIR == 1
    const long n = m / I_SP;
    const int r = m % I_SP;
    const int id = r / (IH * IW), ih = (r / IW) % IH, iw = r % IW;
    const int kk = k / OC, c = k % OC;
    const int kd = kk / (KH * KW), kh = (kk / KW) % KH, kw = kk % KW;
    const int td = id + PD - kd * DD, th = ih + PH - kh * DH, tw = iw + PW - kw * DW;
    if (td < 0 || th < 0 || tw < 0) return 0.0f;
    if (td % SD || th % SH || tw % SW) return 0.0f;
    const int od = td / SD, oh = th / SH, ow = tw / SW;
    if (od >= OD || oh >= OH || ow >= OW) return 0.0f;
    return SUB_ZP(CAT(LD_, A_DT)(a, conv_y_at(g, n, c, od, oh, ow)), c);
#else
    const long n = k / O_SP;
    const int r = k % O_SP;
    const int od = r / (OH * OW), oh = (r / OW) % OH, ow = r % OW;
    return CAT(LD_, A_DT)(a, conv_y_at(g, n, m, od, oh, ow));
#endif
}
#undef A_VALUE
#define A_VALUE(gm, gk) \
    ((gm) < M && (gk) < K ? conv_a(a, i1, gm, gk, zp_src) : 0.0f)
#endif

#if B_GATHER
inline float conv_b(global const CAT(T_, B_DT) *b, long g, long k, long col) {
#if DIR == 0
    return CAT(LD_, B_DT)(b, conv_w_at(g, col, k % IC, k / IC));
#elif DIR == 1
    return CAT(LD_, B_DT)(b, conv_w_at(g, k % OC, col, k / OC));
#else
    const long n = k / O_SP;
    const int r = k % O_SP;
    const int od = r / (OH * OW), oh = (r / OW) % OH, ow = r % OW;
    const int c = col / K_SP, kk = col % K_SP;
    TAP(od, oh, ow, kk, id, ih, iw);
    if (!inside) return 0.0f;
    return CAT(LD_, B_DT)(b, conv_x_at(g, n, c, id, ih, iw));
#endif
}
#undef B_VALUE
#define B_VALUE(gk, gn) ((gk) < K && (gn) < N ? conv_b(b, i1, gk, gn) : 0.0f)
#endif

#if C_GATHER
inline long conv_c_at(long g, long m, long col) {
#if DIR == 0
    const long n = m / O_SP;
    const int r = m % O_SP;
    return conv_y_at(g, n, col, r / (OH * OW), (r / OW) % OH, r % OW);
#elif DIR == 1
    const long n = m / I_SP;
    const int r = m % I_SP;
    return conv_x_at(g, n, col, r / (IH * IW), (r / IW) % IH, r % IW);
#else
    return conv_w_at(g, m, col / K_SP, col % K_SP);
#endif
}
#define C_INDEX(gm, gn) conv_c_at(i1, gm, gn)
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
 * t[n, c, ...] (t: X or Y, strides as arguments), one work-item per
 * channel. */
kernel void conv_bias_sum(global const CAT(T_, A_DT) *t, long t_off, long t_n, long t_c,
        long t_d, long t_h, long t_w, long mb, long sd, long sh, long sw,
        long channels, global CAT(T_, BS_DT) *out, long out_off, long out_s) {
    const long c = get_global_id(0);
    if (c >= channels) return;
    float s = 0.0f;
    for (long n = 0; n < mb; ++n)
        for (long d = 0; d < sd; ++d)
            for (long h = 0; h < sh; ++h)
                for (long w = 0; w < sw; ++w)
                    s += CAT(LD_, A_DT)(t,
                            t_off + n * t_n + c * t_c + d * t_d + h * t_h
                                    + w * t_w);
    CAT(ST_, BS_DT)(out, out_off + c * out_s, s);
}
