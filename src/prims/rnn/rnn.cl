/* RNN on GPU engines (`ocl:rnn_gemm`, src/prims/rnn/ocl.rs): the kernels
 * besides the GEMMs (gemm.cl's gemm_tiled runs those).
 *
 * Everything is f32 in dense arrays of the scratchpad or the workspace
 * (ocl.rs says where each lives); `rnn_copy` moves tensors between those
 * and the user's memories (any plain strided layout, f32, bf16 or f16,
 * time reversed by a negative stride). Element types are coded 0 f32,
 * 1 bf16, 2 f16, 3 u8, 4 s8 (ocl.rs's ELEM_*; int8 copies move integer
 * values, stored rounded and saturated). The cell kernels run one work-item per
 * (batch row i, channel j): dimension 0 is j, dimension 1 is i. Offsets
 * are in f32 elements. Cells: 0 vanilla, 1 LSTM, 2 GRU, 3 LBR-GRU,
 * 4 AUGRU, 5 LBR-AUGRU; activations: 0 relu, 1 tanh, 2 logistic. A
 * negative offset marks an absent tensor (read as zeros). */

#define C_VANILLA 0
#define C_LSTM 1
#define C_GRU 2
#define C_LBR_GRU 3
#define C_AUGRU 4
#define C_LBR_AUGRU 5

inline float rnn_sigmoid(float x) { return 1.0f / (1.0f + exp(-x)); }

#define E_F32 0
#define E_BF16 1
#define E_F16 2
#define E_U8 3
#define E_S8 4

inline float rnn_round_bf16(float v) {
    uint u = as_uint(v);
    if (isnan(v)) return v;
    u = (u + 0x7fff + ((u >> 16) & 1)) & 0xffff0000u;
    return as_float(u);
}

/* v rounded to the nearest f16 (ties to even) and back. */
inline float rnn_round_f16(float v) {
    ushort b;
    vstore_half_rte(v, 0, (private half *)&b);
    return vload_half(0, (private const half *)&b);
}

/* v rounded to element type e (E_*) and back. */
inline float rnn_round(int e, float v) {
    if (e == E_BF16) return rnn_round_bf16(v);
    if (e == E_F16) return rnn_round_f16(v);
    return v;
}

inline float rnn_load(global const uchar *p, int e, long i) {
    if (e == E_BF16) return as_float(((uint)((global const ushort *)p)[i]) << 16);
    if (e == E_F16) return LD_F16(p, i);
    if (e == E_U8) return (float)p[i];
    if (e == E_S8) return (float)((global const char *)p)[i];
    return ((global const float *)p)[i];
}

/* dst[view] (+)= src[view] over a tensor of up to 5 dimensions n0..n4
 * (element (i0..i4) at off + Σ ik * sk in each), `total` elements. */
kernel void rnn_copy(global const uchar *src, long s_off, int s_e, long s0, long s1,
        long s2, long s3, long s4, global uchar *dst, long d_off, int d_e, long t0,
        long t1, long t2, long t3, long t4, long n1, long n2, long n3, long n4, int add,
        long total) {
    const long x = get_global_id(0);
    if (x >= total) return;
    long r = x;
    const long i4 = r % n4;
    r /= n4;
    const long i3 = r % n3;
    r /= n3;
    const long i2 = r % n2;
    r /= n2;
    const long i1 = r % n1;
    const long i0 = r / n1;
    const long si = s_off + i0 * s0 + i1 * s1 + i2 * s2 + i3 * s3 + i4 * s4;
    const long di = d_off + i0 * t0 + i1 * t1 + i2 * t2 + i3 * t3 + i4 * t4;
    float v = rnn_load(src, s_e, si);
    if (add) v += rnn_load(dst, d_e, di);
    if (d_e == E_BF16)
        ((global ushort *)dst)[di] = f32_to_bf16(v);
    else if (d_e == E_F16)
        ST_F16(dst, di, v);
    else if (d_e == E_U8)
        dst[di] = convert_uchar_sat_rte(v);
    else if (d_e == E_S8)
        ((global char *)dst)[di] = convert_char_sat_rte(v);
    else
        ((global float *)dst)[di] = v;
}

/* p[off .. off + count) = 0. */
kernel void rnn_zero(global float *p, long off, long count) {
    const long x = get_global_id(0);
    if (x < count) p[off + x] = 0.0f;
}

inline float rnn_act(int act, float alpha, float x) {
    if (act == 0) return x > 0.0f ? x : x * alpha;
    if (act == 1) return tanh(x);
    return rnn_sigmoid(x);
}

/* One forward step's element-wise part. ws: gates at g_at (rows gw apart,
 * the layer GEMM's values), previous / new hidden state at hp_at / h_at
 * (rows w apart), LSTM cell states at c_at (previous; the new one n rows
 * later), LSTMP hidden states at hh_at, LBR values at lbr_at. sc: the
 * iteration GEMM's values at it_at (rows gw apart; GRU part 1: the output
 * gate's columns), bias at bias_at, peephole at peep_at, this step's
 * attention at att_at, GRU's r * h_prev at rh_at. GRU-like cells without
 * LBR run part 0 (gates u, r) and part 1 (gate o, h). */
kernel void rnn_fwd_cell(int cell, int act, float alpha, int round, int part, long n,
        long dhc, long gw, long w, global float *ws, long g_at, long hp_at, long h_at,
        long c_at, long hh_at, long lbr_at, global float *sc, long it_at, long bias_at,
        long peep_at, long att_at, long rh_at) {
    const long j = get_global_id(0);
    const long i = get_global_id(1);
    if (j >= dhc || i >= n) return;
    global float *g = ws + g_at + i * gw;
    global const float *it = sc + it_at + i * gw;
    global const float *b = sc + bias_at;
    float h = 0.0f;
    if (cell == C_VANILLA) {
        const float a = g[j] + it[j] + b[j];
        g[j] = a;
        h = rnn_act(act, alpha, a);
    } else if (cell == C_LSTM) {
        const float cp = ws[c_at + i * dhc + j];
        float p0 = 0.0f, p1 = 0.0f, p2 = 0.0f;
        if (peep_at >= 0) {
            p0 = sc[peep_at + j];
            p1 = sc[peep_at + dhc + j];
            p2 = sc[peep_at + 2 * dhc + j];
        }
        const float ig = rnn_sigmoid(g[j] + it[j] + b[j] + p0 * cp);
        const float fg = rnn_sigmoid(g[dhc + j] + it[dhc + j] + b[dhc + j] + p1 * cp);
        const float ct = tanh(g[2 * dhc + j] + it[2 * dhc + j] + b[2 * dhc + j]);
        const float c = fg * cp + ig * ct;
        const float og = rnn_sigmoid(g[3 * dhc + j] + it[3 * dhc + j] + b[3 * dhc + j] + p2 * c);
        g[j] = ig;
        g[dhc + j] = fg;
        g[2 * dhc + j] = ct;
        g[3 * dhc + j] = og;
        ws[c_at + (n + i) * dhc + j] = c;
        h = og * tanh(c);
        if (hh_at >= 0) {
            ws[hh_at + i * dhc + j] = h;
            return;
        }
    } else {
        /* GRU-like cells: SIC = DHC, the previous state's row is whole. */
        const float hp = ws[hp_at + i * w + j];
        const float a = att_at >= 0 ? sc[att_at + i] : 0.0f;
        const int lbr = cell == C_LBR_GRU || cell == C_LBR_AUGRU;
        float u, o;
        if (lbr) {
            u = rnn_sigmoid(g[j] + it[j] + b[j]);
            const float r = rnn_sigmoid(g[dhc + j] + it[dhc + j] + b[dhc + j]);
            const float lin = it[2 * dhc + j] + b[3 * dhc + j];
            o = tanh(g[2 * dhc + j] + b[2 * dhc + j] + r * lin);
            g[j] = u;
            g[dhc + j] = r;
            g[2 * dhc + j] = o;
            ws[lbr_at + i * dhc + j] = lin;
        } else if (part == 0) {
            u = rnn_sigmoid(g[j] + it[j] + b[j]);
            const float r = rnn_sigmoid(g[dhc + j] + it[dhc + j] + b[dhc + j]);
            g[j] = u;
            g[dhc + j] = r;
            sc[rh_at + i * dhc + j] = r * hp;
            return;
        } else {
            u = g[j];
            o = tanh(g[2 * dhc + j] + it[2 * dhc + j] + b[2 * dhc + j]);
            g[2 * dhc + j] = o;
        }
        const float ut = (1.0f - a) * u;
        h = ut * hp + (1.0f - ut) * o;
    }
    ws[h_at + i * w + j] = rnn_round(round, h);
}

/* Backward: the gradient reaching this step's output, dh (rows dic apart,
 * at dh_at of sc) = the layer output's (dout_at, rows dic apart) plus
 * what the next step carried (dhn_at, rows w apart). */
kernel void rnn_bwd_dh(long n, long dic, long w, global float *sc, long dh_at, long dout_at,
        long dhn_at) {
    const long j = get_global_id(0);
    const long i = get_global_id(1);
    if (j >= dic || i >= n) return;
    sc[dh_at + i * dic + j] = sc[dout_at + i * dic + j] + sc[dhn_at + i * w + j];
}

/* Backward: the carried gradient dhn (rows w apart) = the element-wise
 * part dhe (rows w apart) + the iteration GEMM's dhg (rows sic apart) for
 * the first sic channels; dhe is cleared for the next step. */
kernel void rnn_bwd_carry(long n, long sic, long w, global float *sc, long dhn_at,
        long dhe_at, long dhg_at) {
    const long j = get_global_id(0);
    const long i = get_global_id(1);
    if (j >= w || i >= n) return;
    float v = sc[dhe_at + i * w + j];
    if (j < sic) v += sc[dhg_at + i * sic + j];
    sc[dhn_at + i * w + j] = v;
    sc[dhe_at + i * w + j] = 0.0f;
}

/* One backward step's element-wise part: the gates' gradients into da
 * (at da_at of sc, rows gw apart), from dhh (dhh_at, rows dhh_rs apart)
 * and the forward values in ws (as rnn_fwd_cell's offsets). LSTM carries
 * dc in place at dc_at (rows dhc). GRU-like cells write dhe (rows w; the
 * part of h_prev's gradient outside the GEMMs), the LBR cells the
 * iteration GEMM's gradients at dai_at (rows gw), AUGRU each element's
 * part of the attention's gradient at datt_at (rows dhc). GRU without LBR
 * runs part 0 (u, o; r * h_prev kept at rh_at) and part 1 (r, from the
 * output gate's h-gradient drh at drh_at, rows sic apart). */
kernel void rnn_bwd_cell(int cell, int act, float alpha, int part, long n, long dhc,
        long gw, long w, long sic, global const float *ws, long g_at, long hp_at, long h_at,
        long c_at, long lbr_at, global float *sc, long dhh_at, long dhh_rs, long da_at,
        long dc_at, long dhe_at, long dai_at, long rh_at, long drh_at, long peep_at,
        long att_at, long datt_at) {
    const long j = get_global_id(0);
    const long i = get_global_id(1);
    if (j >= dhc || i >= n) return;
    global const float *g = ws + g_at + i * gw;
    global float *da = sc + da_at + i * gw;
    /* Read by the GRU-like cells only (SIC = DHC there). */
    const float hp = cell == C_LSTM || cell == C_VANILLA ? 0.0f : ws[hp_at + i * w + j];
    if (cell != C_LSTM && cell != C_VANILLA && part == 1) {
        const float r = g[dhc + j];
        const float drh = sc[drh_at + i * sic + j];
        sc[dhe_at + i * w + j] += drh * r;
        da[dhc + j] = drh * hp * r * (1.0f - r);
        return;
    }
    const float dv = sc[dhh_at + i * dhh_rs + j];
    if (cell == C_VANILLA) {
        const float a = g[j];
        const float h = ws[h_at + i * w + j];
        float d;
        if (act == 0)
            d = a > 0.0f ? 1.0f : alpha;
        else if (act == 1)
            d = 1.0f - h * h;
        else
            d = h * (1.0f - h);
        da[j] = dv * d;
    } else if (cell == C_LSTM) {
        float p0 = 0.0f, p1 = 0.0f, p2 = 0.0f;
        if (peep_at >= 0) {
            p0 = sc[peep_at + j];
            p1 = sc[peep_at + dhc + j];
            p2 = sc[peep_at + 2 * dhc + j];
        }
        const float ig = g[j], fg = g[dhc + j], ct = g[2 * dhc + j], og = g[3 * dhc + j];
        const float cp = ws[c_at + i * dhc + j];
        const float c = ws[c_at + (n + i) * dhc + j];
        const float tc = tanh(c);
        const float do_pre = dv * tc * og * (1.0f - og);
        const float dc = sc[dc_at + i * dhc + j] + dv * og * (1.0f - tc * tc) + do_pre * p2;
        const float di_pre = dc * ct * ig * (1.0f - ig);
        const float df_pre = dc * cp * fg * (1.0f - fg);
        const float dct_pre = dc * ig * (1.0f - ct * ct);
        sc[dc_at + i * dhc + j] = dc * fg + di_pre * p0 + df_pre * p1;
        da[j] = di_pre;
        da[dhc + j] = df_pre;
        da[2 * dhc + j] = dct_pre;
        da[3 * dhc + j] = do_pre;
    } else {
        const int lbr = cell == C_LBR_GRU || cell == C_LBR_AUGRU;
        const float a = att_at >= 0 ? sc[att_at + i] : 0.0f;
        const float u = g[j], r = g[dhc + j], o = g[2 * dhc + j];
        /* AUGRU as upstream computes it (see mod.rs). */
        const float dg0 = dv * (hp - o) * u * (1.0f - u);
        if (datt_at >= 0) sc[datt_at + i * dhc + j] = -dg0 * u;
        const float du_pre = dg0 * (1.0f - a);
        const float do_pre = dv * (1.0f - u) * (1.0f - o * o);
        sc[dhe_at + i * w + j] = dv * u;
        da[j] = du_pre;
        da[2 * dhc + j] = do_pre;
        if (lbr) {
            const float lin = ws[lbr_at + i * dhc + j];
            const float dr_pre = do_pre * lin * r * (1.0f - r);
            da[dhc + j] = dr_pre;
            global float *dai = sc + dai_at + i * gw;
            dai[j] = du_pre;
            dai[dhc + j] = dr_pre;
            dai[2 * dhc + j] = do_pre * r;
        } else {
            sc[rh_at + i * dhc + j] = r * hp;
        }
    }
}

/* The bias gradient of one (layer, direction): out[j] = Σ over `rows`
 * rows of da (rows gw apart) of column j for j < gw; the LBR cells' extra
 * gate (j >= gw) sums the iteration gradients' output column. */
kernel void rnn_bwd_bias(long rows, long gw, long dhc, long bias_len, global float *sc,
        long da_at, long dai_at, long out_at) {
    const long j = get_global_id(0);
    if (j >= bias_len) return;
    float s = 0.0f;
    if (j < gw) {
        for (long r = 0; r < rows; ++r) s += sc[da_at + r * gw + j];
    } else {
        const long col = 2 * dhc + (j - gw);
        for (long r = 0; r < rows; ++r) s += sc[dai_at + r * gw + col];
    }
    sc[out_at + j] = s;
}

/* The peephole gradient of one (layer, direction): out[k * dhc + j] sums
 * over steps and batch rows the input (k 0), forget (1) gates' gradients
 * times the previous cell state and the output gate's (2) times the new
 * one; the steps' cell states are n rows apart from c_at. */
kernel void rnn_bwd_peephole(long steps, long n, long dhc, long gw, global const float *ws,
        long c_at, global float *sc, long da_at, long out_at) {
    const long j = get_global_id(0);
    if (j >= dhc) return;
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f;
    for (long s = 0; s < steps; ++s) {
        for (long i = 0; i < n; ++i) {
            const long row = s * n + i;
            const float cp = ws[c_at + row * dhc + j];
            const float c = ws[c_at + (row + n) * dhc + j];
            s0 += sc[da_at + row * gw + j] * cp;
            s1 += sc[da_at + row * gw + dhc + j] * cp;
            s2 += sc[da_at + row * gw + 3 * dhc + j] * c;
        }
    }
    sc[out_at + j] = s0;
    sc[out_at + dhc + j] = s1;
    sc[out_at + 2 * dhc + j] = s2;
}

/* The attention's gradient: out[r] = Σ_j parts[r * dhc + j], `rows` rows. */
kernel void rnn_bwd_attention(long rows, long dhc, global float *sc, long parts_at,
        long out_at) {
    const long r = get_global_id(0);
    if (r >= rows) return;
    float s = 0.0f;
    for (long j = 0; j < dhc; ++j) s += sc[parts_at + r * dhc + j];
    sc[out_at + r] = s;
}

#ifdef RNN_Q8
/* int8 inference (ocl/int8.rs; the CPU's cpu/int8.rs on the device). The
 * program is built with RNN_Q8_WS(g) and RNN_Q8_PS(k) defined: the weights
 * scales of gate column g and the projection's of channel k. u8 states
 * live in the scratchpad as bytes (offsets in bytes, rows w apart); the
 * GEMMs' s32 sums sit where the f32 values would (gates in the workspace
 * rows gw apart, the iteration GEMM's at it_at); column sums of the s8
 * weights (comp) are f32. Each sum is dequantized as the CPU does:
 * (acc - shift * comp) / (scale * wscale); no contraction into fma, so the
 * f32 operations are the CPU's. */

/* u8 of x: x * scale + shift rounded to nearest even, saturated; NaN 0. */
inline uchar rnn_q8(float x, float scale, float shift) {
#pragma OPENCL FP_CONTRACT OFF
    const float q = rint(x * scale + shift);
    if (isnan(q)) return 0;
    return (uchar)clamp(q, 0.0f, 255.0f);
}

inline float rnn_dq8(uchar q, float scale, float shift) {
#pragma OPENCL FP_CONTRACT OFF
    return ((float)q - shift) / scale;
}

inline float rnn_dq8_acc(int acc, float comp, float wscale, float scale, float shift) {
#pragma OPENCL FP_CONTRACT OFF
    return ((float)acc - shift * comp) / (scale * wscale);
}

/* out[j] = Σ_r w[r * cols + j] over the s8 matrix at byte w_at. */
kernel void rnn_q8_col_sum(global const char *w, long w_at, long rows, long cols,
        global float *out, long out_at) {
    const long j = get_global_id(0);
    if (j >= cols) return;
    int s = 0;
    for (long r = 0; r < rows; ++r) s += w[w_at + r * cols + j];
    out[out_at + j] = (float)s;
}

/* One step of an int8 LSTM or GRU cell, one work-item per (i, j < dhc).
 * ws: the layer GEMM's sums at g_at (rows gw), cell states at c_at
 * (previous; the new one n rows later). sc: the iteration GEMM's sums at
 * it_at (rows gw), f32 bias at bias_at, column sums at compl_at / compi_at.
 * u8 bytes of ws: the previous state at hp_at (rows w; unread when `zero`,
 * the absent src_iter, which adds nothing to the sums), the new one at
 * h_at, LSTMP's quantized cell output at hh_at (rows dhc; -1 without
 * projection: the state is the cell output); of sc: GRU's quantized
 * r * h_prev at rh_at (rows dhc). GRU runs part 0 (u, kept as f32 over its gate's sum; r * h_prev)
 * and part 1 (o over the GEMM of r * h_prev; h). */
kernel void rnn_q8_cell(int cell, int part, int zero, float scale, float shift, long n,
        long dhc, long gw, long w, global float *ws, long g_at, long c_at, global float *sc,
        long it_at, long bias_at, long compl_at, long compi_at, long hp_at, long h_at,
        long hh_at, long rh_at) {
#pragma OPENCL FP_CONTRACT OFF
    const long j = get_global_id(0);
    const long i = get_global_id(1);
    if (j >= dhc || i >= n) return;
    global int *gl = (global int *)ws + g_at + i * gw;
    global const int *it = (global const int *)sc + it_at + i * gw;
    global uchar *bytes = (global uchar *)ws;
    global const float *cl = sc + compl_at;
    global const float *ci = sc + compi_at;
    global const float *b = sc + bias_at;
#define PRE(g, with_iter) \
    (rnn_dq8_acc(gl[g], cl[g], RNN_Q8_WS(g), scale, shift) + b[g] \
            + ((with_iter) && !zero ? rnn_dq8_acc(it[g], ci[g], RNN_Q8_WS(g), scale, shift) : 0.0f))
    if (cell == C_LSTM) {
        const float cp = ws[c_at + i * dhc + j];
        const float ig = rnn_sigmoid(PRE(j, 1));
        const float fg = rnn_sigmoid(PRE(dhc + j, 1));
        const float ct = tanh(PRE(2 * dhc + j, 1));
        const float c = fg * cp + ig * ct;
        const float og = rnn_sigmoid(PRE(3 * dhc + j, 1));
        ws[c_at + (n + i) * dhc + j] = c;
        const float hh = og * tanh(c);
        if (hh_at >= 0)
            bytes[hh_at + i * dhc + j] = rnn_q8(hh, scale, shift);
        else
            bytes[h_at + i * w + j] = rnn_q8(hh, scale, shift);
        return;
    }
    const float hf = zero ? 0.0f : rnn_dq8(bytes[hp_at + i * w + j], scale, shift);
    global float *u_f32 = (global float *)gl;
    if (part == 0) {
        const float u = rnn_sigmoid(PRE(j, 1));
        const float r = rnn_sigmoid(PRE(dhc + j, 1));
        u_f32[j] = u;
        ((global uchar *)sc)[rh_at + i * dhc + j] = rnn_q8(r * hf, scale, shift);
        return;
    }
    const float u = u_f32[j];
    const float o = tanh(PRE(2 * dhc + j, 1));
    bytes[h_at + i * w + j] = rnn_q8(u * hf + (1.0f - u) * o, scale, shift);
#undef PRE
}

/* LSTMP: the new u8 state (bytes of ws at h_at, rows w) from the
 * projection GEMM's sums at pj_at of sc (rows dic) and its column sums at
 * comp_at. */
kernel void rnn_q8_proj(float scale, float shift, long n, long dic, long w, global float *sc,
        long pj_at, long comp_at, global uchar *ws, long h_at) {
    const long k = get_global_id(0);
    const long i = get_global_id(1);
    if (k >= dic || i >= n) return;
    const int acc = ((global const int *)sc)[pj_at + i * dic + k];
    const float h = rnn_dq8_acc(acc, sc[comp_at + k], RNN_Q8_PS(k), scale, shift);
    ws[h_at + i * w + k] = rnn_q8(h, scale, shift);
}

/* dst_layer's values (dense f32 at out_at, rows dlc) from the last layer's
 * u8 states of each direction (their values as f32 at in_at, `rows` rows
 * of dic per direction, in time order): concat places direction d at
 * channel d * dic; sum adds the dequantized states and quantizes the sum.
 * An f32 dst_layer takes the dequantized values. */
kernel void rnn_q8_dst(int dirs, int sum, int f32_dst, float scale, float shift, long rows,
        long dic, long dlc, global float *sc, long in_at, long out_at) {
#pragma OPENCL FP_CONTRACT OFF
    const long j = get_global_id(0);
    const long r = get_global_id(1);
    if (j >= dic || r >= rows) return;
    global const float *in = sc + in_at + r * dic + j;
    global float *out = sc + out_at + r * dlc + j;
    if (sum) {
        const float v = rnn_dq8((uchar)in[0], scale, shift)
                + rnn_dq8((uchar)in[rows * dic], scale, shift);
        const uchar u = rnn_q8(v, scale, shift);
        out[0] = f32_dst ? rnn_dq8(u, scale, shift) : (float)u;
        return;
    }
    for (int d = 0; d < dirs; ++d) {
        const uchar u = (uchar)in[d * rows * dic];
        out[d * dic] = f32_dst ? rnn_dq8(u, scale, shift) : (float)u;
    }
}
#endif
