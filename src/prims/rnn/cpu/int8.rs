//! int8 RNN inference on the CPU engine: LSTM (projection included; a
//! peephole is refused upstream and here) and GRU with u8 data and s8
//! weights (rnn.md's int8 configuration).
//!
//! Layer: prims. The quantization is the attributes' (`Quant`): u8 data
//! `q = x * scale + shift` (rounded to nearest even, saturated), s8 weights
//! `w_s8 = w * wscale` per tensor or per gate and channel. Per (layer,
//! direction) the layer GEMM over all steps and per step the iteration GEMM
//! run on the integers with s32 accumulation; the sums are dequantized to
//! f32 with the weights' column sums compensating the shift:
//! `(acc - shift * sum_k w_s8) / (scale * wscale)`. The gate math is f32;
//! each new hidden state is quantized to u8 and that u8 state is what the
//! next step and the next layer read (GRU's `r * h` is quantized for its
//! GEMM the same way; LSTMP quantizes the cell output for the projection's
//! GEMM, dequantized with the projection scales). Cell states stay f32. An
//! absent src_iter is the f32 zero state (it adds nothing to the GEMMs).
//! dst_layer / dst_iter u8 take the quantized states; an f32 dst_layer
//! takes them dequantized (as Intel's library writes it). bidirectional_sum
//! adds the two directions' dequantized states and quantizes the sum
//! (rnn.md; Intel's library adds the u8 values, counting the shift twice).

use super::{Inputs, Io, Shape};
use crate::abi::*;
use crate::core::error::{Error, Result};
use crate::core::primitive::{ExecContext, OpDesc};
use crate::prims::common::parallel;
use crate::prims::rnn::{Cell, Quant, RnnOp};

/// `c[m x n] = a[m x k] · b[k x n]` on integers (u8 and s8 values), s32
/// accumulation; `a` rows `lda` apart from `a_off`, `b` rows `ldb` apart
/// from `b_off`; split by rows over the host's threads when large.
#[allow(clippy::too_many_arguments)]
fn igemm(
    m: usize,
    n: usize,
    k: usize,
    a: &[i32],
    a_off: usize,
    lda: usize,
    b: &[i32],
    b_off: usize,
    ldb: usize,
) -> Result<Vec<i32>> {
    let fits = |v: &[i32], off: usize, rows: usize, ld: usize, cols: usize| {
        rows == 0 || cols == 0 || off + (rows - 1) * ld + cols <= v.len()
    };
    if !fits(a, a_off, m, lda, k) || !fits(b, b_off, k, ldb, n) {
        return Err(Error::runtime("int8 RNN GEMM operand out of bounds"));
    }
    let mut c = vec![0i32; m * n];
    if n == 0 {
        return Ok(c);
    }
    // Rows `r0..` of c into `block`.
    let rows = |r0: usize, block: &mut [i32]| {
        for (i, row) in block.chunks_exact_mut(n).enumerate() {
            let a_row = &a[a_off + (r0 + i) * lda..][..k];
            for (p, &av) in a_row.iter().enumerate() {
                if av == 0 {
                    continue;
                }
                let brow = &b[b_off + p * ldb..][..n];
                for (o, &bv) in row.iter_mut().zip(brow) {
                    *o = o.wrapping_add(av.wrapping_mul(bv));
                }
            }
        }
    };
    if m * n * k < 1 << 16 || parallel::max_threads() == 1 {
        rows(0, &mut c);
    } else {
        let mut blocks = Vec::new();
        let mut rest = c.as_mut_slice();
        for r in parallel::split(m, 4) {
            let (block, tail) = rest.split_at_mut(r.len() * n);
            blocks.push((r.start, block));
            rest = tail;
        }
        parallel::run_all(blocks, |(r0, block)| rows(r0, block));
    }
    Ok(c)
}

/// The column sums of the `k x n` s8 matrix at `off` (rows `ld` apart).
fn column_sums(b: &[i32], off: usize, k: usize, n: usize, ld: usize) -> Vec<i32> {
    let mut sums = vec![0i32; n];
    for p in 0..k {
        for (s, &v) in sums.iter_mut().zip(&b[off + p * ld..][..n]) {
            *s = s.wrapping_add(v);
        }
    }
    sums
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

impl Quant {
    /// u8 of `x`: rounded to nearest even and saturated (NaN: 0).
    fn quantize(&self, x: f32) -> i32 {
        let q = (x * self.scale + self.shift).round_ties_even();
        if q.is_nan() {
            0
        } else {
            q.clamp(0.0, 255.0) as i32
        }
    }

    fn dequantize(&self, q: i32) -> f32 {
        (q as f32 - self.shift) / self.scale
    }

    /// The f32 value of an s32 sum over u8 data and s8 weights whose
    /// column sum is `comp` and scale `wscale`.
    fn dequantize_acc(&self, acc: i32, comp: i32, wscale: f32) -> f32 {
        (acc as f32 - self.shift * comp as f32) / (self.scale * wscale)
    }
}

fn ints(v: &[f32]) -> Vec<i32> {
    v.iter().map(|&x| x as i32).collect()
}

/// What one (layer, direction) produced: by processing step, the f32
/// states and their u8 values (`T * N * DIC` each), and the last step's
/// cell state (`N * DHC`).
struct LayerOut {
    h: Vec<f32>,
    q: Vec<i32>,
    c_last: Vec<f32>,
}

pub(super) fn forward(op: &RnnOp, q: &Quant, ctx: &ExecContext) -> Result<()> {
    let io = Io { op, ctx };
    let sh = Shape::new(op);
    let inp = Inputs::read(&io, &sh)?;
    let wl = ints(&inp.wl);
    let wi = ints(&inp.wi);
    let wr = inp.projection.as_deref().map(ints);
    let (t, n, dic) = (sh.t, sh.n, sh.dic);
    // The last layer's states of each direction, by time step.
    let mut top_q = vec![vec![0i32; t * n * dic]; sh.d];
    let mut dst_iter = vec![0f32; sh.l * sh.d * n * dic];
    let mut dst_iter_c = vec![0f32; sh.l * sh.d * n * sh.dhc];
    for (d, top) in top_q.iter_mut().enumerate() {
        let mut x = ints(&inp.src_steps(op, &sh, d));
        let mut cin = sh.slc;
        for l in 0..sh.l {
            let layer = Layer {
                op,
                q,
                sh: &sh,
                inp: &inp,
                wl: &wl,
                wi: &wi,
                wr: wr.as_deref(),
                l,
                d,
            };
            let out = layer.run(&x, cin)?;
            let ld = sh.ld(l, d);
            for i in 0..n {
                let last = ((t - 1) * n + i) * dic;
                for (o, &v) in dst_iter[(ld * n + i) * dic..][..dic]
                    .iter_mut()
                    .zip(&out.q[last..last + dic])
                {
                    *o = v as f32;
                }
            }
            dst_iter_c[ld * n * sh.dhc..][..n * sh.dhc].copy_from_slice(&out.c_last);
            if l + 1 == sh.l {
                for s in 0..t {
                    let tt = sh.time(op, d, s);
                    let (from, to) = (s * n * dic, tt * n * dic);
                    top[to..to + n * dic].copy_from_slice(&out.q[from..from + n * dic]);
                }
            }
            x = out.q;
            cin = dic;
        }
    }
    let f32_dst = op
        .arg_md(DNNL_ARG_DST_LAYER)
        .is_some_and(|m| m.data_type() == dnnl_f32);
    // dst_layer: the u8 states, dequantized for an f32 dst_layer (as
    // Intel's library writes them); bidirectional_sum adds the two
    // directions' f32 values and quantizes the sum.
    let mut dst = vec![0f32; t * n * sh.dlc];
    let sum = op.direction() == dnnl_bidirectional_sum;
    for (d, qd) in top_q.iter().enumerate() {
        let (ch, _) = sh.dst_part(op, d);
        for row in 0..t * n {
            let out = &mut dst[row * sh.dlc + ch..][..dic];
            for (o, &v) in out.iter_mut().zip(&qd[row * dic..][..dic]) {
                *o = if sum {
                    *o + q.dequantize(v)
                } else if f32_dst {
                    q.dequantize(v)
                } else {
                    v as f32
                };
            }
        }
    }
    if sum {
        for v in &mut dst {
            let u = q.quantize(*v);
            *v = if f32_dst { q.dequantize(u) } else { u as f32 };
        }
    }
    io.store(DNNL_ARG_DST_LAYER, &dst)?;
    io.store(DNNL_ARG_DST_ITER, &dst_iter)?;
    io.store(DNNL_ARG_DST_ITER_C, &dst_iter_c)?;
    Ok(())
}

/// One (layer, direction).
struct Layer<'a> {
    op: &'a RnnOp,
    q: &'a Quant,
    sh: &'a Shape,
    inp: &'a Inputs,
    wl: &'a [i32],
    wi: &'a [i32],
    wr: Option<&'a [i32]>,
    l: usize,
    d: usize,
}

impl Layer<'_> {
    /// Runs the steps over the layer's u8 input `x` (by step, `cin`
    /// channels a row).
    fn run(&self, x: &[i32], cin: usize) -> Result<LayerOut> {
        let (sh, q) = (self.sh, self.q);
        let (t, n, dhc, dic, sic, gw) = (sh.t, sh.n, sh.dhc, sh.dic, sh.sic, sh.gw);
        let ld = sh.ld(self.l, self.d);
        let wl_off = ld * sh.slc * gw;
        let wi_off = ld * sic * gw;
        let gl = igemm(t * n, gw, cin, x, 0, cin, self.wl, wl_off, gw)?;
        let comp_l = column_sums(self.wl, wl_off, cin, gw, gw);
        let comp_i = column_sums(self.wi, wi_off, sic, gw, gw);
        let bias = &self.inp.bias[ld * sh.bg * dhc..][..sh.bg * dhc];
        let ws = &q.weights;
        let peep = |k: usize, j: usize| {
            self.inp
                .peephole
                .as_ref()
                .map_or(0.0, |p| p[(ld * 3 + k) * dhc + j])
        };
        // The state: u8 values, their f32 values, and whether it is the
        // absent src_iter (f32 zeros, adding nothing to the GEMMs).
        let mut hq = vec![0i32; n * sic];
        let mut hf = vec![0f32; n * sic];
        let mut zero_state = true;
        if let Some(si) = &self.inp.src_iter {
            for (k, &v) in si[ld * n * sic..][..n * sic].iter().enumerate() {
                hq[k] = v as i32;
                hf[k] = q.dequantize(hq[k]);
            }
            zero_state = false;
        }
        let mut c = vec![0f32; n * dhc];
        if let Some(sc) = &self.inp.src_iter_c {
            c.copy_from_slice(&sc[ld * n * dhc..][..n * dhc]);
        }
        let mut out = LayerOut {
            h: vec![0f32; t * n * dic],
            q: vec![0i32; t * n * dic],
            c_last: Vec::new(),
        };
        let mut pre = vec![0f32; n * gw];
        let mut hh = vec![0f32; n * dhc];
        for s in 0..t {
            // The layer and iteration parts of every gate (GRU: its output
            // gate's iteration part comes once r is known).
            let gi = if zero_state {
                vec![0i32; n * gw]
            } else {
                igemm(n, gw, sic, &hq, 0, sic, self.wi, wi_off, gw)?
            };
            let iter_gates = if self.op.cell() == Cell::Gru {
                2 * dhc
            } else {
                gw
            };
            for i in 0..n {
                for g in 0..gw {
                    let row = (s * n + i) * gw;
                    let mut v = q.dequantize_acc(gl[row + g], comp_l[g], ws[g]) + bias[g];
                    if g < iter_gates && !zero_state {
                        v += q.dequantize_acc(gi[i * gw + g], comp_i[g], ws[g]);
                    }
                    pre[i * gw + g] = v;
                }
            }
            let h_now = &mut out.h[s * n * dic..][..n * dic];
            match self.op.cell() {
                Cell::Lstm => {
                    for i in 0..n {
                        let p = &pre[i * gw..][..gw];
                        for j in 0..dhc {
                            let cp = c[i * dhc + j];
                            let ig = sigmoid(p[j] + peep(0, j) * cp);
                            let fg = sigmoid(p[dhc + j] + peep(1, j) * cp);
                            let ct = p[2 * dhc + j].tanh();
                            let cn = fg * cp + ig * ct;
                            let og = sigmoid(p[3 * dhc + j] + peep(2, j) * cn);
                            c[i * dhc + j] = cn;
                            hh[i * dhc + j] = og * cn.tanh();
                        }
                    }
                    if let Some(wr) = self.wr {
                        // LSTMP: the cell output quantized, through the
                        // projection's s8 weights.
                        let hhq: Vec<i32> = hh.iter().map(|&v| q.quantize(v)).collect();
                        let r_off = ld * dhc * dic;
                        let acc = igemm(n, dic, dhc, &hhq, 0, dhc, wr, r_off, dic)?;
                        let comp = column_sums(wr, r_off, dhc, dic, dic);
                        for i in 0..n {
                            for k in 0..dic {
                                h_now[i * dic + k] =
                                    q.dequantize_acc(acc[i * dic + k], comp[k], q.projection[k]);
                            }
                        }
                    } else {
                        h_now.copy_from_slice(&hh);
                    }
                }
                Cell::Gru => {
                    // u, r; then o over the quantized r * h_prev.
                    let mut rhq = vec![0i32; n * sic];
                    for i in 0..n {
                        for j in 0..dhc {
                            let u = sigmoid(pre[i * gw + j]);
                            let r = sigmoid(pre[i * gw + dhc + j]);
                            pre[i * gw + j] = u;
                            rhq[i * sic + j] = q.quantize(r * hf[i * sic + j]);
                        }
                    }
                    let go = if zero_state {
                        vec![0i32; n * dhc]
                    } else {
                        igemm(n, dhc, sic, &rhq, 0, sic, self.wi, wi_off + 2 * dhc, gw)?
                    };
                    for i in 0..n {
                        for j in 0..dhc {
                            let g = 2 * dhc + j;
                            let mut v = pre[i * gw + g];
                            if !zero_state {
                                v += q.dequantize_acc(go[i * dhc + j], comp_i[g], ws[g]);
                            }
                            let o = v.tanh();
                            let u = pre[i * gw + j];
                            h_now[i * dic + j] = u * hf[i * sic + j] + (1.0 - u) * o;
                        }
                    }
                }
                other => {
                    return Err(Error::runtime(format!(
                        "int8 RNN cell {other:?} reached the CPU implementation"
                    )));
                }
            }
            // The new state, u8, for the next step and layer.
            let q_now = &mut out.q[s * n * dic..][..n * dic];
            for (o, &v) in q_now.iter_mut().zip(h_now.iter()) {
                *o = q.quantize(v);
            }
            for i in 0..n {
                for k in 0..sic.min(dic) {
                    hq[i * sic + k] = q_now[i * dic + k];
                    hf[i * sic + k] = q.dequantize(hq[i * sic + k]);
                }
            }
            zero_state = false;
        }
        out.c_last = c;
        Ok(out)
    }
}
