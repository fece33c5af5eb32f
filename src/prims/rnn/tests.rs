//! RNN against an f64 reference written from rnn.md: every cell kind and
//! direction, several layers and steps, odd sizes, SLC, SIC and DHC
//! different where the rules allow, optional tensors absent and present,
//! LSTM peephole and projection, AUGRU attention, the vanilla activations;
//! forward, and backward against the reference's gradients (central finite
//! differences of the f64 forward, in f64), weight gradients accumulated or
//! overwritten; then one test per descriptor rule and the queries.

#![allow(
    non_upper_case_globals,
    clippy::too_many_arguments,
    clippy::needless_range_loop
)]

use std::sync::Arc;

use super::*;
use crate::core::engine::{Engine, EngineKind};
use crate::core::memory_desc::MemoryDesc;
use crate::core::primitive::PrimitiveDesc;
use crate::prims::common::dt::Elem;
use crate::prims::common::testutil::{
    TestMem, engine_name, engines, exec, md, memory, read, rounded,
};

/// A problem.
#[derive(Clone, Debug)]
struct P {
    cell: Cell,
    act: Activation,
    alpha: f32,
    dir: dnnl_rnn_direction_t,
    l: usize,
    t: usize,
    n: usize,
    slc: usize,
    sic: usize,
    dhc: usize,
    /// DIC: DHC, or the projection's output.
    dic: usize,
    peephole: bool,
    projection: bool,
    src_iter: bool,
    dst_iter: bool,
    bias: bool,
    /// The type of the layer and iteration data and weights.
    dt: dnnl_data_type_t,
}

impl P {
    fn new(
        cell: Cell,
        dir: dnnl_rnn_direction_t,
        l: usize,
        t: usize,
        n: usize,
        slc: usize,
        sic: usize,
        dhc: usize,
    ) -> P {
        P {
            cell,
            act: Activation::Tanh,
            alpha: 0.0,
            dir,
            l,
            t,
            n,
            slc,
            sic,
            dhc,
            dic: dhc,
            peephole: false,
            projection: false,
            src_iter: true,
            dst_iter: true,
            bias: true,
            dt: dnnl_f32,
        }
    }
    fn d(&self) -> usize {
        if matches!(self.dir, dnnl_bidirectional_concat | dnnl_bidirectional_sum) {
            2
        } else {
            1
        }
    }
    fn g(&self) -> usize {
        self.cell.gates() as usize
    }
    fn bg(&self) -> usize {
        self.g() + usize::from(self.cell.lbr())
    }
    fn dlc(&self) -> usize {
        if self.dir == dnnl_bidirectional_concat {
            2 * self.dic
        } else {
            self.dic
        }
    }
    fn lstm(&self) -> bool {
        self.cell == Cell::Lstm
    }
}

/// The dense inputs, in the order [`Vals::arrays`] lists them.
#[derive(Clone)]
struct Vals {
    src_layer: Vec<f64>,
    src_iter: Vec<f64>,
    src_iter_c: Vec<f64>,
    att: Vec<f64>,
    wl: Vec<f64>,
    wi: Vec<f64>,
    wp: Vec<f64>,
    wr: Vec<f64>,
    bias: Vec<f64>,
}

impl Vals {
    fn arrays(&mut self) -> [&mut Vec<f64>; 9] {
        [
            &mut self.src_layer,
            &mut self.src_iter,
            &mut self.src_iter_c,
            &mut self.att,
            &mut self.wl,
            &mut self.wi,
            &mut self.wp,
            &mut self.wr,
            &mut self.bias,
        ]
    }
}

struct Out {
    dst_layer: Vec<f64>,
    dst_iter: Vec<f64>,
    dst_iter_c: Vec<f64>,
}

/// Deterministic values in `[-scale, scale]`.
fn rand(n: usize, seed: u64, scale: f64) -> Vec<f64> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let u = (x >> 11) as f64 / (1u64 << 53) as f64;
            // Rounded to f32 so that both sides see the same inputs.
            f64::from(((2.0 * u - 1.0) * scale) as f32)
        })
        .collect()
}

fn values(p: &P) -> Vals {
    let mut v = values_f32(p);
    if p.dt == dnnl_bf16 {
        let round = |a: &mut Vec<f64>| {
            for x in a.iter_mut() {
                *x = f64::from(rounded(Elem::Bf16, *x as f32));
            }
        };
        round(&mut v.src_layer);
        round(&mut v.src_iter);
        round(&mut v.att);
        round(&mut v.wl);
        round(&mut v.wi);
    }
    v
}

fn values_f32(p: &P) -> Vals {
    let (l, d, n, t, g) = (p.l, p.d(), p.n, p.t, p.g());
    Vals {
        src_layer: rand(t * n * p.slc, 1, 1.0),
        src_iter: if p.src_iter {
            rand(l * d * n * p.sic, 2, 1.0)
        } else {
            vec![]
        },
        src_iter_c: if p.src_iter && p.lstm() {
            rand(l * d * n * p.dhc, 3, 1.0)
        } else {
            vec![]
        },
        att: if p.cell.augru() {
            rand(t * n, 4, 1.0).iter().map(|v| v.abs()).collect()
        } else {
            vec![]
        },
        wl: rand(l * d * p.slc * g * p.dhc, 5, 0.6),
        wi: rand(l * d * p.sic * g * p.dhc, 6, 0.6),
        wp: if p.peephole {
            rand(l * d * 3 * p.dhc, 7, 0.6)
        } else {
            vec![]
        },
        wr: if p.projection {
            rand(l * d * p.dhc * p.dic, 8, 0.6)
        } else {
            vec![]
        },
        bias: if p.bias {
            rand(l * d * p.bg() * p.dhc, 9, 0.5)
        } else {
            vec![]
        },
    }
}

fn sig(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The forward pass, from rnn.md.
fn reference(p: &P, v: &Vals) -> Out {
    let (dd, n, g, dhc, dic) = (p.d(), p.n, p.g(), p.dhc, p.dic);
    let mut out = Out {
        dst_layer: vec![0.0; p.t * n * p.dlc()],
        dst_iter: vec![0.0; p.l * dd * n * dic],
        dst_iter_c: vec![0.0; p.l * dd * n * dhc],
    };
    for d in 0..dd {
        let reverse = p.dir == dnnl_unidirectional_right2left || d == 1;
        // The layer input per time step: N x C.
        let mut x: Vec<Vec<f64>> = (0..p.t)
            .map(|t| v.src_layer[t * n * p.slc..(t + 1) * n * p.slc].to_vec())
            .collect();
        let mut xc = p.slc;
        for l in 0..p.l {
            let ld = l * dd + d;
            let mut h: Vec<f64> = if p.src_iter {
                v.src_iter[ld * n * p.sic..(ld + 1) * n * p.sic].to_vec()
            } else {
                vec![0.0; n * p.sic]
            };
            let mut hc = p.sic;
            let mut c: Vec<f64> = if p.src_iter && p.lstm() {
                v.src_iter_c[ld * n * dhc..(ld + 1) * n * dhc].to_vec()
            } else {
                vec![0.0; n * dhc]
            };
            let mut ys = vec![vec![]; p.t];
            for s in 0..p.t {
                let t = if reverse { p.t - 1 - s } else { s };
                // W x + B and U h per gate.
                let wx = |i: usize, gate: usize, j: usize| {
                    let mut acc = if p.bias {
                        v.bias[(ld * p.bg() + gate) * dhc + j]
                    } else {
                        0.0
                    };
                    for k in 0..xc {
                        acc += v.wl[((ld * p.slc + k) * g + gate) * dhc + j] * x[t][i * xc + k];
                    }
                    acc
                };
                let uh = |i: usize, gate: usize, j: usize, hv: &[f64]| {
                    let mut acc = 0.0;
                    for k in 0..hc {
                        acc += v.wi[((ld * p.sic + k) * g + gate) * dhc + j] * hv[i * hc + k];
                    }
                    acc
                };
                let bias = |gate: usize, j: usize| {
                    if p.bias {
                        v.bias[(ld * p.bg() + gate) * dhc + j]
                    } else {
                        0.0
                    }
                };
                let mut hn = vec![0.0; n * dic];
                let mut cn = vec![0.0; n * dhc];
                for i in 0..n {
                    let a = if p.cell.augru() {
                        v.att[t * n + i]
                    } else {
                        0.0
                    };
                    let mut hh = vec![0.0; dhc];
                    for j in 0..dhc {
                        match p.cell {
                            Cell::Vanilla => {
                                let z = wx(i, 0, j) + uh(i, 0, j, &h);
                                hn[i * dic + j] = match p.act {
                                    Activation::Relu => {
                                        if z > 0.0 {
                                            z
                                        } else {
                                            z * f64::from(p.alpha)
                                        }
                                    }
                                    Activation::Tanh => z.tanh(),
                                    Activation::Logistic => sig(z),
                                };
                            }
                            Cell::Lstm => {
                                let pw = |k: usize| {
                                    if p.peephole {
                                        v.wp[(ld * 3 + k) * dhc + j]
                                    } else {
                                        0.0
                                    }
                                };
                                let cp = c[i * dhc + j];
                                let ig = sig(wx(i, 0, j) + uh(i, 0, j, &h) + pw(0) * cp);
                                let fg = sig(wx(i, 1, j) + uh(i, 1, j, &h) + pw(1) * cp);
                                let ct = (wx(i, 2, j) + uh(i, 2, j, &h)).tanh();
                                let cc = fg * cp + ig * ct;
                                let og = sig(wx(i, 3, j) + uh(i, 3, j, &h) + pw(2) * cc);
                                cn[i * dhc + j] = cc;
                                hh[j] = og * cc.tanh();
                            }
                            Cell::Gru | Cell::Augru => {
                                let u = sig(wx(i, 0, j) + uh(i, 0, j, &h));
                                // r for every channel of this row, for U_o (r * h).
                                let rh: Vec<f64> = (0..hc)
                                    .map(|k| sig(wx(i, 1, k) + uh(i, 1, k, &h)) * h[i * hc + k])
                                    .collect();
                                let mut uo = 0.0;
                                for k in 0..hc {
                                    uo += v.wi[((ld * p.sic + k) * g + 2) * dhc + j] * rh[k];
                                }
                                let o = (wx(i, 2, j) + uo).tanh();
                                let ut = (1.0 - a) * u;
                                hn[i * dic + j] = ut * h[i * hc + j] + (1.0 - ut) * o;
                            }
                            Cell::LbrGru | Cell::LbrAugru => {
                                let u = sig(wx(i, 0, j) + uh(i, 0, j, &h));
                                let r = sig(wx(i, 1, j) + uh(i, 1, j, &h));
                                let o = (wx(i, 2, j) + r * (uh(i, 2, j, &h) + bias(3, j))).tanh();
                                let ut = (1.0 - a) * u;
                                hn[i * dic + j] = ut * h[i * hc + j] + (1.0 - ut) * o;
                            }
                        }
                    }
                    if p.lstm() {
                        for jo in 0..dic {
                            hn[i * dic + jo] = if p.projection {
                                (0..dhc)
                                    .map(|k| v.wr[(ld * dhc + k) * dic + jo] * hh[k])
                                    .sum()
                            } else {
                                hh[jo]
                            };
                        }
                    }
                }
                h = hn;
                hc = dic;
                c = cn;
                ys[t] = h.clone();
            }
            out.dst_iter[ld * n * dic..(ld + 1) * n * dic].copy_from_slice(&h);
            if p.lstm() {
                out.dst_iter_c[ld * n * dhc..(ld + 1) * n * dhc].copy_from_slice(&c);
            }
            x = ys;
            xc = dic;
        }
        for t in 0..p.t {
            for i in 0..n {
                for j in 0..dic {
                    let (ch, sum) = match p.dir {
                        dnnl_bidirectional_concat => (d * dic + j, false),
                        dnnl_bidirectional_sum => (j, d == 1),
                        _ => (j, false),
                    };
                    let o = &mut out.dst_layer[(t * n + i) * p.dlc() + ch];
                    *o = if sum {
                        *o + x[t][i * dic + j]
                    } else {
                        x[t][i * dic + j]
                    };
                }
            }
        }
    }
    out
}

/// The gradients of `sum(dst * diff_dst)` with respect to every input
/// array, by central differences of the f64 reference.
fn ref_grads(p: &P, v: &Vals, ddl: &[f64], ddi: &[f64], ddc: &[f64]) -> Vec<Vec<f64>> {
    let loss = |v: &Vals| {
        let o = reference(p, v);
        let mut s: f64 = o.dst_layer.iter().zip(ddl).map(|(a, b)| a * b).sum();
        if p.dst_iter {
            s += o.dst_iter.iter().zip(ddi).map(|(a, b)| a * b).sum::<f64>();
            if p.lstm() {
                s += o
                    .dst_iter_c
                    .iter()
                    .zip(ddc)
                    .map(|(a, b)| a * b)
                    .sum::<f64>();
            }
        }
        s
    };
    let h = 1e-6;
    let mut w = v.clone();
    let lens: Vec<usize> = w.arrays().iter().map(|a| a.len()).collect();
    let mut grads = Vec::new();
    for (k, &len) in lens.iter().enumerate() {
        let mut g = vec![0.0; len];
        for (e, ge) in g.iter_mut().enumerate() {
            let x0 = w.arrays()[k][e];
            w.arrays()[k][e] = x0 + h;
            let up = loss(&w);
            w.arrays()[k][e] = x0 - h;
            let down = loss(&w);
            w.arrays()[k][e] = x0;
            *ge = (up - down) / (2.0 * h);
        }
        grads.push(g);
    }
    grads
}

/// AUGRU's gradients as upstream computes them (one layer, left2right:
/// the only AUGRU problems upstream takes). Upstream's backward is not the
/// exact gradient of its forward: the attention scales the update gate's
/// gradient and has its own (`-sum dG0 * u`), but h_prev's and o's
/// gradients take `u` where the forward has `(1 - a) u`. Written from the
/// values Intel's library gives on this machine, in the order of
/// [`Vals::arrays`].
fn augru_grads(p: &P, v: &Vals, ddl: &[f64], ddi: &[f64]) -> Vec<Vec<f64>> {
    let (n, dhc, slc, t_n) = (p.n, p.dhc, p.slc, p.t);
    let g = 3;
    let wl = |k: usize, gate: usize, j: usize| v.wl[(k * g + gate) * dhc + j];
    let wi = |k: usize, gate: usize, j: usize| v.wi[(k * g + gate) * dhc + j];
    let bias = |gate: usize, j: usize| if p.bias { v.bias[gate * dhc + j] } else { 0.0 };
    let x = |t: usize, i: usize, k: usize| v.src_layer[(t * n + i) * slc + k];
    // The forward pass, keeping each step's gates.
    let mut hs = vec![if p.src_iter {
        v.src_iter.clone()
    } else {
        vec![0.0; n * dhc]
    }];
    let mut gates = Vec::new();
    for t in 0..t_n {
        let hp = hs[t].clone();
        let mut hn = vec![0.0; n * dhc];
        let mut gt = vec![[0.0f64; 4]; n * dhc];
        for i in 0..n {
            let a = v.att[t * n + i];
            let pre = |gate: usize, j: usize| {
                let mut s = bias(gate, j);
                for k in 0..slc {
                    s += wl(k, gate, j) * x(t, i, k);
                }
                s
            };
            let uh = |gate: usize, j: usize, h: &dyn Fn(usize) -> f64| {
                (0..dhc).map(|k| wi(k, gate, j) * h(k)).sum::<f64>()
            };
            let r: Vec<f64> = (0..dhc)
                .map(|j| sig(pre(1, j) + uh(1, j, &|k| hp[i * dhc + k])))
                .collect();
            for j in 0..dhc {
                let u = sig(pre(0, j) + uh(0, j, &|k| hp[i * dhc + k]));
                let (o, lin) = if p.cell.lbr() {
                    let lin = uh(2, j, &|k| hp[i * dhc + k]) + bias(3, j);
                    ((pre(2, j) + r[j] * lin).tanh(), lin)
                } else {
                    (
                        (pre(2, j) + uh(2, j, &|k| r[k] * hp[i * dhc + k])).tanh(),
                        0.0,
                    )
                };
                let ut = (1.0 - a) * u;
                hn[i * dhc + j] = ut * hp[i * dhc + j] + (1.0 - ut) * o;
                gt[i * dhc + j] = [u, r[j], o, lin];
            }
        }
        hs.push(hn);
        gates.push(gt);
    }
    let mut gr = vec![
        vec![0.0; v.src_layer.len()],
        vec![0.0; v.src_iter.len()],
        vec![],
        vec![0.0; v.att.len()],
        vec![0.0; v.wl.len()],
        vec![0.0; v.wi.len()],
        vec![],
        vec![],
        vec![0.0; v.bias.len()],
    ];
    let mut dhn: Vec<f64> = if p.dst_iter {
        ddi.to_vec()
    } else {
        vec![0.0; n * dhc]
    };
    for t in (0..t_n).rev() {
        let hp = &hs[t];
        let mut dhp = vec![0.0; n * dhc];
        for i in 0..n {
            let a = v.att[t * n + i];
            let gt = &gates[t][i * dhc..(i + 1) * dhc];
            let dh: Vec<f64> = (0..dhc)
                .map(|j| ddl[(t * n + i) * dhc + j] + dhn[i * dhc + j])
                .collect();
            let mut du = vec![0.0; dhc];
            let mut dr = vec![0.0; dhc];
            let mut dout = vec![0.0; dhc];
            let mut dgi = vec![0.0; dhc];
            for j in 0..dhc {
                let [u, _, o, _] = gt[j];
                let dg0 = dh[j] * (hp[i * dhc + j] - o) * u * (1.0 - u);
                gr[3][t * n + i] -= dg0 * u;
                du[j] = dg0 * (1.0 - a);
                dout[j] = dh[j] * (1.0 - u) * (1.0 - o * o);
                dhp[i * dhc + j] += dh[j] * u;
            }
            if p.cell.lbr() {
                for j in 0..dhc {
                    let [_, r, _, lin] = gt[j];
                    dr[j] = dout[j] * lin * r * (1.0 - r);
                    dgi[j] = dout[j] * r;
                }
            } else {
                for k in 0..dhc {
                    let r = gt[k][1];
                    let drh: f64 = (0..dhc).map(|j| dout[j] * wi(k, 2, j)).sum();
                    dr[k] = drh * hp[i * dhc + k] * r * (1.0 - r);
                    dhp[i * dhc + k] += drh * r;
                    dgi[k] = 0.0;
                }
            }
            for k in 0..dhc {
                let h = hp[i * dhc + k];
                for j in 0..dhc {
                    dhp[i * dhc + k] += du[j] * wi(k, 0, j) + dr[j] * wi(k, 1, j);
                    gr[5][(k * g) * dhc + j] += h * du[j];
                    gr[5][(k * g + 1) * dhc + j] += h * dr[j];
                    if p.cell.lbr() {
                        dhp[i * dhc + k] += dgi[j] * wi(k, 2, j);
                        gr[5][(k * g + 2) * dhc + j] += h * dgi[j];
                    } else {
                        gr[5][(k * g + 2) * dhc + j] += gt[k][1] * h * dout[j];
                    }
                }
            }
            for (gate, da) in [&du, &dr, &dout].into_iter().enumerate() {
                for j in 0..dhc {
                    if p.bias {
                        gr[8][gate * dhc + j] += da[j];
                    }
                    for k in 0..slc {
                        gr[4][(k * g + gate) * dhc + j] += x(t, i, k) * da[j];
                        gr[0][(t * n + i) * slc + k] += wl(k, gate, j) * da[j];
                    }
                }
            }
            if p.cell.lbr() && p.bias {
                for j in 0..dhc {
                    gr[8][3 * dhc + j] += dgi[j];
                }
            }
        }
        dhn = dhp;
    }
    if p.src_iter {
        gr[1] = dhn;
    }
    gr
}

fn cpu() -> Arc<Engine> {
    Engine::create(EngineKind::Cpu, 0).unwrap()
}

fn f32s(v: &[f64]) -> Vec<f32> {
    v.iter().map(|&x| x as f32).collect()
}

fn dims(v: &[usize]) -> Vec<i64> {
    v.iter().map(|&x| x as i64).collect()
}

/// The descriptors of a problem (all plain, f32), forward and diff.
fn descs(p: &P, backward: bool) -> RnnDescs {
    let (l, d, n, t, g) = (p.l, p.d(), p.n, p.t, p.g());
    let m = |dv: &[usize], tag| Some(Arc::new(md(&dims(dv), dnnl_f32, tag)));
    let x = |dv: &[usize], tag| Some(Arc::new(md(&dims(dv), p.dt, tag)));
    let lstm = p.lstm();
    let mut r = RnnDescs {
        src_layer: x(&[t, n, p.slc], dnnl_tnc),
        src_iter: p
            .src_iter
            .then(|| x(&[l, d, n, p.sic], dnnl_ldnc))
            .flatten(),
        src_iter_c: (p.src_iter && lstm)
            .then(|| m(&[l, d, n, p.dhc], dnnl_ldnc))
            .flatten(),
        attention: p.cell.augru().then(|| x(&[t, n, 1], dnnl_tnc)).flatten(),
        weights_layer: x(&[l, d, p.slc, g, p.dhc], dnnl_ldigo),
        weights_iter: x(&[l, d, p.sic, g, p.dhc], dnnl_ldigo),
        weights_peephole: p
            .peephole
            .then(|| m(&[l, d, 3, p.dhc], dnnl_ldgo))
            .flatten(),
        weights_projection: p
            .projection
            .then(|| m(&[l, d, p.dhc, p.dic], dnnl_ldio))
            .flatten(),
        bias: p
            .bias
            .then(|| m(&[l, d, p.bg(), p.dhc], dnnl_ldgo))
            .flatten(),
        dst_layer: x(&[t, n, p.dlc()], dnnl_tnc),
        dst_iter: p
            .dst_iter
            .then(|| x(&[l, d, n, p.dic], dnnl_ldnc))
            .flatten(),
        dst_iter_c: (p.dst_iter && lstm)
            .then(|| m(&[l, d, n, p.dhc], dnnl_ldnc))
            .flatten(),
        ..RnnDescs::default()
    };
    if backward {
        // The gradients are f32 whatever the data type.
        let f32_of = |m: &Option<Arc<MemoryDesc>>| {
            m.as_ref().map(|m| {
                Arc::new(md(
                    m.dims(),
                    dnnl_f32,
                    if m.ndims() == 3 { dnnl_tnc } else { dnnl_ldnc },
                ))
            })
        };
        r.diff_src_layer = f32_of(&r.src_layer);
        r.diff_src_iter = f32_of(&r.src_iter);
        r.diff_src_iter_c = r.src_iter_c.clone();
        r.diff_attention = f32_of(&r.attention);
        r.diff_weights_layer = m(&[l, d, p.slc, g, p.dhc], dnnl_ldigo);
        r.diff_weights_iter = m(&[l, d, p.sic, g, p.dhc], dnnl_ldigo);
        r.diff_weights_peephole = r.weights_peephole.clone();
        r.diff_weights_projection = r.weights_projection.clone();
        r.diff_bias = r.bias.clone();
        r.diff_dst_layer = f32_of(&r.dst_layer);
        r.diff_dst_iter = f32_of(&r.dst_iter);
        r.diff_dst_iter_c = r.dst_iter_c.clone();
    }
    r
}

fn params(p: &P, prop: dnnl_prop_kind_t, flags: u32) -> RnnParams {
    RnnParams {
        prop_kind: prop,
        cell: p.cell.to_c(),
        activation: if p.cell == Cell::Vanilla {
            match p.act {
                Activation::Relu => dnnl_eltwise_relu,
                Activation::Tanh => dnnl_eltwise_tanh,
                Activation::Logistic => dnnl_eltwise_logistic,
            }
        } else {
            dnnl_alg_kind_undef
        },
        direction: p.dir,
        flags,
        alpha: p.alpha,
        beta: 0.0,
    }
}

fn fwd_op(p: &P, prop: dnnl_prop_kind_t) -> RnnOp {
    RnnOp::new(
        params(p, prop, 0),
        &descs(p, false),
        false,
        None,
        &Default::default(),
    )
    .unwrap()
}

fn check(got: &[f32], want: &[f64], tol: f64, what: &str, p: &P) {
    assert_eq!(got.len(), want.len(), "{what}: length, {p:?}");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let err = (f64::from(g) - w).abs();
        assert!(
            err <= tol * (1.0 + w.abs()),
            "{what}[{i}]: got {g}, want {w} ({p:?})"
        );
    }
}

/// [`check`] naming the engine and implementation `on`.
fn check_on(on: &str, got: &[f32], want: &[f64], tol: f64, what: &str, p: &P) {
    check(got, want, tol, &format!("{what} on {on}"), p);
}

/// Memory of `arg`'s descriptor in `op` holding `values`.
fn mem_of(e: &Arc<Engine>, op: &RnnOp, arg: i32, values: &[f64]) -> TestMem {
    memory(e, op.arg_md(arg).unwrap(), &f32s(values))
}

/// Runs forward training and backward on every engine (the CPU one, the
/// OpenCL devices and the Level Zero test driver) and checks every output
/// against the reference.
fn run(p: &P, overwrite: bool) {
    // The reference (its gradients by finite differences) once for all
    // engines.
    let v = values(p);
    let want = reference(p, &v);
    let ddl = rand(want.dst_layer.len(), 11, 1.0);
    let ddi = if p.dst_iter {
        rand(want.dst_iter.len(), 12, 1.0)
    } else {
        vec![0.0; want.dst_iter.len()]
    };
    let ddc = if p.dst_iter && p.lstm() {
        rand(want.dst_iter_c.len(), 13, 1.0)
    } else {
        vec![0.0; want.dst_iter_c.len()]
    };
    let grads = if p.cell.augru() {
        augru_grads(p, &v, &ddl, &ddi)
    } else {
        ref_grads(p, &v, &ddl, &ddi, &ddc)
    };
    let r = Expected {
        v,
        want,
        ddl,
        ddi,
        ddc,
        grads,
    };
    for e in engines() {
        run_on(&e, p, overwrite, &r);
    }
}

/// A problem's values, the reference's outputs, the output gradients
/// and the reference's gradients.
struct Expected {
    v: Vals,
    want: Out,
    ddl: Vec<f64>,
    ddi: Vec<f64>,
    ddc: Vec<f64>,
    grads: Vec<Vec<f64>>,
}

/// The implementation an engine runs.
fn impl_of(e: &Arc<Engine>) -> &'static str {
    if e.kind() == EngineKind::Cpu {
        "cpu:rnn_gemm"
    } else {
        "ocl:rnn_gemm"
    }
}

fn run_on(e: &Arc<Engine>, p: &P, overwrite: bool, r: &Expected) {
    let (tol_f, tol_b) = if p.dt == dnnl_bf16 {
        (2e-2, 4e-2)
    } else {
        (2e-5, 2e-4)
    };
    let e = e.clone();
    let what = format!("{} ({})", impl_of(&e), engine_name(&e));
    let (v, want) = (&r.v, &r.want);
    // Forward.
    let op = fwd_op(p, dnnl_forward_training);
    let ws_md = op.arg_md(DNNL_ARG_WORKSPACE).unwrap().clone();
    let ws = memory(&e, &ws_md, &[]);
    let zeros = |len| vec![0.0; len];
    let mut args = vec![
        (
            DNNL_ARG_SRC_LAYER,
            mem_of(&e, &op, DNNL_ARG_SRC_LAYER, &v.src_layer),
        ),
        (
            DNNL_ARG_WEIGHTS_LAYER,
            mem_of(&e, &op, DNNL_ARG_WEIGHTS_LAYER, &v.wl),
        ),
        (
            DNNL_ARG_WEIGHTS_ITER,
            mem_of(&e, &op, DNNL_ARG_WEIGHTS_ITER, &v.wi),
        ),
        (
            DNNL_ARG_DST_LAYER,
            mem_of(&e, &op, DNNL_ARG_DST_LAYER, &zeros(want.dst_layer.len())),
        ),
        (DNNL_ARG_WORKSPACE, ws.same()),
    ];
    let opt = [
        (DNNL_ARG_SRC_ITER, &v.src_iter),
        (DNNL_ARG_SRC_ITER_C, &v.src_iter_c),
        (DNNL_ARG_AUGRU_ATTENTION, &v.att),
        (DNNL_ARG_WEIGHTS_PEEPHOLE, &v.wp),
        (DNNL_ARG_WEIGHTS_PROJECTION, &v.wr),
        (DNNL_ARG_BIAS, &v.bias),
        (DNNL_ARG_DST_ITER, &want.dst_iter),
        (DNNL_ARG_DST_ITER_C, &want.dst_iter_c),
    ];
    for (arg, vals) in opt {
        if op.has(arg) {
            // Outputs start as garbage: they must be written.
            let init: Vec<f64> = if matches!(arg, DNNL_ARG_DST_ITER | DNNL_ARG_DST_ITER_C) {
                vec![7.0; vals.len()]
            } else {
                vals.clone()
            };
            args.push((arg, mem_of(&e, &op, arg, &init)));
        }
    }
    let a: Vec<(i32, &TestMem)> = args.iter().map(|(k, m)| (*k, m)).collect();
    let name = exec(&e, Arc::new(fwd_op(p, dnnl_forward_training)), &a);
    assert_eq!(name, impl_of(&e), "{what}");
    let get = |arg: i32| read(&args.iter().find(|(k, _)| *k == arg).unwrap().1);
    check_on(
        &what,
        &get(DNNL_ARG_DST_LAYER),
        &want.dst_layer,
        tol_f,
        "dst_layer",
        p,
    );
    if p.dst_iter {
        check_on(
            &what,
            &get(DNNL_ARG_DST_ITER),
            &want.dst_iter,
            tol_f,
            "dst_iter",
            p,
        );
        if p.lstm() {
            check_on(
                &what,
                &get(DNNL_ARG_DST_ITER_C),
                &want.dst_iter_c,
                tol_f,
                "dst_iter_c",
                p,
            );
        }
    }
    // Inference gives the same results without a workspace.
    let inf = fwd_op(p, dnnl_forward_inference);
    assert!(inf.arg_md(DNNL_ARG_WORKSPACE).is_none());
    let a_inf: Vec<(i32, &TestMem)> = args
        .iter()
        .filter(|(k, _)| *k != DNNL_ARG_WORKSPACE)
        .map(|(k, m)| (*k, m))
        .collect();
    exec(&e, Arc::new(inf), &a_inf);
    check_on(
        &what,
        &get(DNNL_ARG_DST_LAYER),
        &want.dst_layer,
        tol_f,
        "dst_layer (inference)",
        p,
    );

    // Backward.
    let (ddl, ddi, ddc, grads) = (&r.ddl, &r.ddi, &r.ddc, &r.grads);
    let flags = if overwrite {
        dnnl_rnn_flags_diff_weights_overwrite.0
    } else {
        0
    };
    let hint = fwd_op(p, dnnl_forward_training);
    let bop = RnnOp::new(
        params(p, dnnl_backward, flags),
        &descs(p, true),
        true,
        Some(&hint),
        &Default::default(),
    )
    .unwrap();
    let mut bargs: Vec<(i32, TestMem)> = vec![(DNNL_ARG_WORKSPACE, ws.same())];
    for (arg, m) in &args {
        if *arg != DNNL_ARG_WORKSPACE && bop.has(*arg) {
            bargs.push((*arg, m.same()));
        }
    }
    bargs.push((
        DNNL_ARG_DIFF_DST_LAYER,
        mem_of(&e, &bop, DNNL_ARG_DIFF_DST_LAYER, ddl),
    ));
    if p.dst_iter {
        bargs.push((
            DNNL_ARG_DIFF_DST_ITER,
            mem_of(&e, &bop, DNNL_ARG_DIFF_DST_ITER, ddi),
        ));
        if p.lstm() {
            bargs.push((
                DNNL_ARG_DIFF_DST_ITER_C,
                mem_of(&e, &bop, DNNL_ARG_DIFF_DST_ITER_C, ddc),
            ));
        }
    }
    // The grads in `Vals::arrays` order, with their diff arguments; the
    // weight gradients start from non-zero values, to which backward adds
    // (unless it overwrites).
    let diff_args = [
        DNNL_ARG_DIFF_SRC_LAYER,
        DNNL_ARG_DIFF_SRC_ITER,
        DNNL_ARG_DIFF_SRC_ITER_C,
        DNNL_ARG_DIFF_AUGRU_ATTENTION,
        DNNL_ARG_DIFF_WEIGHTS_LAYER,
        DNNL_ARG_DIFF_WEIGHTS_ITER,
        DNNL_ARG_DIFF_WEIGHTS_PEEPHOLE,
        DNNL_ARG_DIFF_WEIGHTS_PROJECTION,
        DNNL_ARG_DIFF_BIAS,
    ];
    let mut expected = Vec::new();
    for (k, &arg) in diff_args.iter().enumerate() {
        if !bop.has(arg) {
            continue;
        }
        let weights = k >= 4;
        let init = rand(grads[k].len(), 20 + k as u64, 1.0);
        let want: Vec<f64> = if weights && !overwrite {
            init.iter().zip(&grads[k]).map(|(a, b)| a + b).collect()
        } else {
            grads[k].clone()
        };
        bargs.push((arg, mem_of(&e, &bop, arg, &init)));
        expected.push((arg, want));
    }
    let b: Vec<(i32, &TestMem)> = bargs.iter().map(|(k, m)| (*k, m)).collect();
    let name = exec(&e, Arc::new(bop), &b);
    assert_eq!(name, impl_of(&e), "backward, {what}");
    for (arg, want) in expected {
        let got = read(&bargs.iter().find(|(k, _)| *k == arg).unwrap().1);
        check_on(&what, &got, &want, tol_b, &format!("diff arg {arg}"), p);
    }
}

const DIRS: [dnnl_rnn_direction_t; 4] = [
    dnnl_unidirectional_left2right,
    dnnl_unidirectional_right2left,
    dnnl_bidirectional_concat,
    dnnl_bidirectional_sum,
];

const CELLS: [Cell; 6] = [
    Cell::Vanilla,
    Cell::Lstm,
    Cell::Gru,
    Cell::LbrGru,
    Cell::Augru,
    Cell::LbrAugru,
];

#[test]
fn every_cell_and_direction_two_layers() {
    for cell in CELLS {
        for dir in DIRS {
            // AUGRU takes one layer, left2right.
            if cell.augru() && dir != dnnl_unidirectional_left2right {
                continue;
            }
            let l = if cell.augru() { 1 } else { 2 };
            run(&P::new(cell, dir, l, 3, 3, 5, 5, 5), false);
        }
    }
}

#[test]
fn every_cell_and_direction_slc_differs() {
    for cell in CELLS {
        for dir in DIRS {
            if cell.augru() && dir != dnnl_unidirectional_left2right {
                continue;
            }
            run(&P::new(cell, dir, 1, 4, 2, 7, 5, 5), cell == Cell::Gru);
        }
    }
}

#[test]
fn one_step_with_sic_slc_dhc_all_different() {
    for cell in [Cell::Vanilla, Cell::Lstm] {
        for dir in DIRS {
            run(&P::new(cell, dir, 1, 1, 3, 7, 3, 5), false);
        }
    }
}

#[test]
fn lstm_peephole_and_projection() {
    for dir in DIRS {
        for (peephole, projection) in [(true, false), (false, true), (true, true)] {
            let mut p = P::new(Cell::Lstm, dir, 2, 3, 2, 3, 3, 5);
            p.peephole = peephole;
            p.projection = projection;
            if projection {
                p.dic = 3;
            } else {
                p.slc = 5;
                p.sic = 5;
            }
            run(&p, projection);
        }
    }
}

#[test]
fn optional_tensors_absent() {
    for cell in CELLS {
        let dir = if cell.augru() {
            dnnl_unidirectional_left2right
        } else {
            dnnl_bidirectional_concat
        };
        let mut p = P::new(cell, dir, 1, 3, 2, 4, 4, 4);
        p.src_iter = false;
        p.dst_iter = false;
        p.bias = false;
        run(&p, false);
        let mut p = P::new(cell, dnnl_unidirectional_left2right, 1, 2, 3, 4, 4, 4);
        p.src_iter = false;
        run(&p, true);
    }
}

#[test]
fn vanilla_activations() {
    for (act, alpha) in [
        (Activation::Relu, 0.0),
        (Activation::Relu, 0.25),
        (Activation::Logistic, 0.0),
    ] {
        for dir in DIRS {
            let mut p = P::new(Cell::Vanilla, dir, 2, 3, 3, 5, 5, 5);
            p.act = act;
            p.alpha = alpha;
            run(&p, false);
        }
    }
}

/// The reference's own gradients agree with a hand-derived one on a
/// one-step vanilla tanh cell (a check of the finite differences).
#[test]
fn reference_gradient_spot_check() {
    let p = P::new(
        Cell::Vanilla,
        dnnl_unidirectional_left2right,
        1,
        1,
        1,
        2,
        2,
        1,
    );
    let v = values(&p);
    let out = reference(&p, &v);
    let h = out.dst_layer[0];
    let grads = ref_grads(&p, &v, &[1.0], &[0.0], &[]);
    // d h / d bias = 1 - h^2; d h / d x_k = (1 - h^2) * W_k.
    assert!((grads[8][0] - (1.0 - h * h)).abs() < 1e-7);
    for k in 0..2 {
        assert!((grads[0][k] - (1.0 - h * h) * v.wl[k]).abs() < 1e-7);
    }
}

// --- the descriptor -------------------------------------------------------

fn try_fwd(p: &P, edit: impl FnOnce(&mut RnnDescs, &mut RnnParams)) -> Result<RnnOp> {
    let mut d = descs(p, false);
    let mut pr = params(p, dnnl_forward_training, 0);
    edit(&mut d, &mut pr);
    RnnOp::new(pr, &d, false, None, &Default::default())
}

fn some(dv: &[i64], tag: dnnl_format_tag_t) -> Option<Arc<MemoryDesc>> {
    Some(Arc::new(md(dv, dnnl_f32, tag)))
}

fn status(r: Result<RnnOp>) -> dnnl_status_t {
    match r {
        Ok(_) => dnnl_success,
        Err(e) => e.status(),
    }
}

#[test]
fn bad_input_is_refused() {
    let lstm = P::new(Cell::Lstm, dnnl_unidirectional_left2right, 2, 3, 2, 4, 4, 4);
    let gru = P::new(Cell::Gru, dnnl_bidirectional_concat, 1, 3, 2, 4, 4, 4);
    let van = P::new(
        Cell::Vanilla,
        dnnl_unidirectional_left2right,
        1,
        2,
        2,
        3,
        3,
        3,
    );
    let aug = P::new(
        Cell::Augru,
        dnnl_unidirectional_left2right,
        1,
        2,
        2,
        3,
        3,
        3,
    );
    let aug2 = P::new(
        Cell::Augru,
        dnnl_unidirectional_left2right,
        2,
        2,
        2,
        3,
        3,
        3,
    );
    let aug_r2l = P::new(
        Cell::LbrAugru,
        dnnl_unidirectional_right2left,
        1,
        2,
        2,
        3,
        3,
        3,
    );
    let cases: Vec<(&str, &P, Box<dyn FnOnce(&mut RnnDescs, &mut RnnParams)>)> = vec![
        (
            "prop kind",
            &lstm,
            Box::new(|_, p| p.prop_kind = dnnl_backward),
        ),
        (
            "cell kind",
            &lstm,
            Box::new(|_, p| p.cell = dnnl_eltwise_relu),
        ),
        (
            "direction",
            &lstm,
            Box::new(|_, p| p.direction = dnnl_rnn_direction_t(9)),
        ),
        ("flags", &lstm, Box::new(|_, p| p.flags = 2)),
        (
            "src_layer missing",
            &lstm,
            Box::new(|d, _| d.src_layer = None),
        ),
        (
            "weights_iter missing",
            &lstm,
            Box::new(|d, _| d.weights_iter = None),
        ),
        (
            "src_layer rank",
            &lstm,
            Box::new(|d, _| d.src_layer = some(&[3, 2, 4, 1], dnnl_abcd)),
        ),
        (
            "directions",
            &lstm,
            Box::new(|d, _| {
                d.weights_layer = some(&[2, 2, 4, 4, 4], dnnl_ldigo);
            }),
        ),
        (
            "gates",
            &lstm,
            Box::new(|d, _| {
                d.weights_layer = some(&[2, 1, 4, 3, 4], dnnl_ldigo);
                d.weights_iter = some(&[2, 1, 4, 3, 4], dnnl_ldigo);
            }),
        ),
        (
            "weights_iter dims",
            &lstm,
            Box::new(|d, _| d.weights_iter = some(&[2, 1, 4, 4, 5], dnnl_ldigo)),
        ),
        (
            "dst_layer channels",
            &lstm,
            Box::new(|d, _| d.dst_layer = some(&[3, 2, 5], dnnl_tnc)),
        ),
        (
            "dst_layer steps",
            &lstm,
            Box::new(|d, _| d.dst_layer = some(&[2, 2, 4], dnnl_tnc)),
        ),
        (
            "L > 1: SLC = DLC",
            &lstm,
            Box::new(|d, _| {
                d.src_layer = some(&[3, 2, 5], dnnl_tnc);
                d.weights_layer = some(&[2, 1, 5, 4, 4], dnnl_ldigo);
            }),
        ),
        (
            "T > 1: SIC = DIC",
            &lstm,
            Box::new(|d, _| {
                d.src_iter = some(&[2, 1, 2, 5], dnnl_ldnc);
                d.weights_iter = some(&[2, 1, 5, 4, 4], dnnl_ldigo);
            }),
        ),
        (
            "src_iter dims",
            &lstm,
            Box::new(|d, _| d.src_iter = some(&[2, 1, 3, 4], dnnl_ldnc)),
        ),
        (
            "src_iter_c without src_iter",
            &lstm,
            Box::new(|d, _| d.src_iter = None),
        ),
        (
            "dst_iter without dst_iter_c",
            &lstm,
            Box::new(|d, _| d.dst_iter_c = None),
        ),
        (
            "bias dims",
            &lstm,
            Box::new(|d, _| d.bias = some(&[2, 1, 3, 4], dnnl_ldgo)),
        ),
        (
            "peephole dims",
            &lstm,
            Box::new(|d, _| d.weights_peephole = some(&[2, 1, 4, 4], dnnl_ldgo)),
        ),
        (
            "projection dims",
            &lstm,
            Box::new(|d, _| d.weights_projection = some(&[2, 1, 5, 4], dnnl_ldio)),
        ),
        (
            "concat: DLC = 2 DIC",
            &gru,
            Box::new(|d, _| d.dst_layer = some(&[3, 2, 4], dnnl_tnc)),
        ),
        (
            "GRU: SIC = DHC",
            &gru,
            Box::new(|d, _| {
                d.src_layer = some(&[1, 2, 4], dnnl_tnc);
                d.dst_layer = some(&[1, 2, 8], dnnl_tnc);
                d.src_iter = some(&[1, 2, 2, 3], dnnl_ldnc);
                d.weights_iter = some(&[1, 2, 3, 3, 4], dnnl_ldigo);
            }),
        ),
        (
            "peephole on GRU",
            &gru,
            Box::new(|d, _| d.weights_peephole = some(&[1, 2, 3, 4], dnnl_ldgo)),
        ),
        (
            "vanilla activation",
            &van,
            Box::new(|_, p| p.activation = dnnl_eltwise_abs),
        ),
        (
            "AUGRU attention dims",
            &aug,
            Box::new(|d, _| d.attention = some(&[2, 2, 2], dnnl_tnc)),
        ),
        ("AUGRU layers", &aug2, Box::new(|_, _| {})),
        ("AUGRU direction", &aug_r2l, Box::new(|_, _| {})),
        (
            "zero dimension",
            &lstm,
            Box::new(|d, _| {
                d.src_layer = some(&[3, 0, 4], dnnl_tnc);
            }),
        ),
    ];
    for (what, p, edit) in cases {
        let st = status(try_fwd(p, edit));
        assert_eq!(st, dnnl_invalid_arguments, "{what}");
    }
    // Accepted as upstream: an AUGRU without the attention (it reads as 0).
    let st = status(try_fwd(&aug, |d: &mut RnnDescs, _: &mut RnnParams| {
        d.attention = None
    }));
    assert_eq!(st, dnnl_success, "AUGRU without attention");
    // Unimplemented: other data types.
    let st = status(try_fwd(&lstm, |d, _| {
        d.src_layer = Some(Arc::new(md(&[3, 2, 4], dnnl_bf16, dnnl_tnc)));
    }));
    assert_eq!(st, dnnl_unimplemented, "bf16");
    // The unchanged problems are accepted.
    assert_eq!(status(try_fwd(&lstm, |_, _| {})), dnnl_success);
    assert_eq!(status(try_fwd(&gru, |_, _| {})), dnnl_success);
}

#[test]
fn backward_rules() {
    let p = P::new(Cell::Gru, dnnl_unidirectional_left2right, 1, 3, 2, 4, 4, 4);
    let hint = fwd_op(&p, dnnl_forward_training);
    let bwd = |edit: &dyn Fn(&mut RnnDescs), prop, hint: Option<&RnnOp>| {
        let mut d = descs(&p, true);
        edit(&mut d);
        status(RnnOp::new(
            params(&p, prop, 0),
            &d,
            true,
            hint,
            &Default::default(),
        ))
    };
    assert_eq!(bwd(&|_| {}, dnnl_backward, Some(&hint)), dnnl_success);
    assert_eq!(
        bwd(&|_| {}, dnnl_forward_training, Some(&hint)),
        dnnl_invalid_arguments
    );
    // No hint, or an inference one: accepted as upstream (the workspace
    // layout is the problem's).
    assert_eq!(bwd(&|_| {}, dnnl_backward, None), dnnl_success);
    let inference = fwd_op(&p, dnnl_forward_inference);
    assert_eq!(bwd(&|_| {}, dnnl_backward, Some(&inference)), dnnl_success);
    assert_eq!(
        bwd(&|d| d.diff_src_iter = None, dnnl_backward, Some(&hint)),
        dnnl_invalid_arguments
    );
    assert_eq!(
        bwd(
            &|d| d.diff_bias = some(&[1, 1, 3, 5], dnnl_ldgo),
            dnnl_backward,
            Some(&hint)
        ),
        dnnl_invalid_arguments
    );
    assert_eq!(
        bwd(
            &|d| {
                d.src_iter = None;
            },
            dnnl_backward,
            Some(&hint)
        ),
        dnnl_invalid_arguments
    );
}

#[test]
fn any_layouts_workspace_and_queries() {
    let p = P::new(Cell::Lstm, dnnl_bidirectional_concat, 1, 3, 2, 4, 4, 4);
    let mut d = descs(&p, false);
    let any = |m: &Option<Arc<MemoryDesc>>| {
        m.as_ref()
            .map(|m| Arc::new(md(m.dims(), dnnl_f32, dnnl_format_tag_any)))
    };
    d.weights_layer = any(&d.weights_layer);
    d.weights_iter = any(&d.weights_iter);
    d.dst_layer = any(&d.dst_layer);
    d.bias = any(&d.bias);
    let op = RnnOp::new(
        params(&p, dnnl_forward_training, 0),
        &d,
        false,
        None,
        &Default::default(),
    )
    .unwrap();
    let wl = op.arg_md(DNNL_ARG_WEIGHTS_LAYER).unwrap();
    assert_eq!(**wl, md(wl.dims(), dnnl_f32, dnnl_ldigo));
    assert_eq!(
        **op.arg_md(DNNL_ARG_DST_LAYER).unwrap(),
        md(&[3, 2, 8], dnnl_f32, dnnl_tnc)
    );
    assert!(op.verbose_any_format(DNNL_ARG_WEIGHTS_LAYER));
    assert!(!op.verbose_any_format(DNNL_ARG_SRC_LAYER));
    let ws = op.arg_md(DNNL_ARG_WORKSPACE).unwrap();
    assert!(ws.size(0) > 0);
    assert_eq!(op.inputs().len(), 6);
    assert_eq!(op.outputs().len(), 4);
    assert_eq!(
        op.query_s32(dnnl_query_cell_kind),
        Some(dnnl_vanilla_lstm.0 as i32)
    );
    assert_eq!(
        op.query_s32(dnnl_query_direction),
        Some(dnnl_bidirectional_concat.0 as i32)
    );
    assert_eq!(op.query_s32(dnnl_query_activation_kind), Some(0));
    assert_eq!(
        op.md_query_arg(dnnl_query_weights_md, 2),
        Some(DNNL_ARG_BIAS)
    );
    assert_eq!(op.verbose_problem(), "l1t3mb2sic4slc4dhc4dic4");
    assert_eq!(
        op.verbose_aux(),
        "alg:vanilla_lstm direction:bidirectional_concat activation:undef flags:"
    );
    // Backward `any` weights resolve to ldgoi, diff weights to ldigo.
    let mut bd = descs(&p, true);
    bd.weights_layer = any(&bd.weights_layer);
    bd.diff_weights_layer = any(&bd.diff_weights_layer);
    let b = RnnOp::new(
        params(&p, dnnl_backward, 0),
        &bd,
        true,
        Some(&op),
        &Default::default(),
    )
    .unwrap();
    let bwl = b.arg_md(DNNL_ARG_WEIGHTS_LAYER).unwrap();
    assert_eq!(**bwl, md(bwl.dims(), dnnl_f32, dnnl_ldgoi));
    let dwl = b.arg_md(DNNL_ARG_DIFF_WEIGHTS_LAYER).unwrap();
    assert_eq!(**dwl, md(dwl.dims(), dnnl_f32, dnnl_ldigo));
    assert_eq!(b.arg_md(DNNL_ARG_WORKSPACE), op.arg_md(DNNL_ARG_WORKSPACE));
    // Through the framework: a primitive descriptor takes the CPU implementation.
    let pd = PrimitiveDesc::create(cpu(), Arc::new(op)).unwrap();
    assert_eq!(pd.impl_name().to_str().unwrap(), "cpu:rnn_gemm");
}

/// Weights in ldgoi (the backward `any` layout) and ntc data give the
/// same results as plain ones.
#[test]
fn other_layouts() {
    for e in engines() {
        other_layouts_on(&e);
    }
}

fn other_layouts_on(e: &Arc<Engine>) {
    let p = P::new(
        Cell::LbrGru,
        dnnl_unidirectional_right2left,
        1,
        3,
        2,
        5,
        4,
        4,
    );
    let e = e.clone();
    let v = values(&p);
    let want = reference(&p, &v);
    let mut d = descs(&p, false);
    d.src_layer = some(&[3, 2, 5], dnnl_ntc);
    d.dst_layer = some(&[3, 2, 4], dnnl_ntc);
    d.weights_layer = some(&[1, 1, 5, 3, 4], dnnl_ldgoi);
    let op = RnnOp::new(
        params(&p, dnnl_forward_inference, 0),
        &d,
        false,
        None,
        &Default::default(),
    )
    .unwrap();
    let args = [
        (
            DNNL_ARG_SRC_LAYER,
            mem_of(&e, &op, DNNL_ARG_SRC_LAYER, &v.src_layer),
        ),
        (
            DNNL_ARG_SRC_ITER,
            mem_of(&e, &op, DNNL_ARG_SRC_ITER, &v.src_iter),
        ),
        (
            DNNL_ARG_WEIGHTS_LAYER,
            mem_of(&e, &op, DNNL_ARG_WEIGHTS_LAYER, &v.wl),
        ),
        (
            DNNL_ARG_WEIGHTS_ITER,
            mem_of(&e, &op, DNNL_ARG_WEIGHTS_ITER, &v.wi),
        ),
        (DNNL_ARG_BIAS, mem_of(&e, &op, DNNL_ARG_BIAS, &v.bias)),
        (
            DNNL_ARG_DST_LAYER,
            mem_of(&e, &op, DNNL_ARG_DST_LAYER, &want.dst_layer),
        ),
        (
            DNNL_ARG_DST_ITER,
            mem_of(&e, &op, DNNL_ARG_DST_ITER, &want.dst_iter),
        ),
    ];
    for (_, m) in &args[5..] {
        crate::prims::common::testutil::write(m, &vec![3.0; 64]);
    }
    let a: Vec<(i32, &TestMem)> = args.iter().map(|(k, m)| (*k, m)).collect();
    let name = exec(&e, Arc::new(op), &a);
    let what = format!("{name} ({})", engine_name(&e));
    assert_eq!(name, impl_of(&e), "{what}");
    check_on(
        &what,
        &read(&args[5].1),
        &want.dst_layer,
        2e-5,
        "dst_layer ntc",
        &p,
    );
    check_on(
        &what,
        &read(&args[6].1),
        &want.dst_iter,
        2e-5,
        "dst_iter",
        &p,
    );
}

/// With zero attention AUGRU is GRU: the AUGRU gradients written from
/// upstream's behaviour then agree with the finite differences.
#[test]
fn augru_reference_without_attention_is_exact() {
    for cell in [Cell::Augru, Cell::LbrAugru] {
        let p = P::new(cell, dnnl_unidirectional_left2right, 1, 3, 2, 4, 3, 3);
        let mut v = values(&p);
        v.att.iter_mut().for_each(|a| *a = 0.0);
        let out = reference(&p, &v);
        let ddl = rand(out.dst_layer.len(), 11, 1.0);
        let ddi = rand(out.dst_iter.len(), 12, 1.0);
        let fd = ref_grads(&p, &v, &ddl, &ddi, &[]);
        let up = augru_grads(&p, &v, &ddl, &ddi);
        for k in [0, 1, 4, 5, 8] {
            for (a, b) in fd[k].iter().zip(&up[k]) {
                assert!((a - b).abs() < 1e-6, "{cell:?} array {k}: {a} vs {b}");
            }
        }
    }
}

/// bf16 data (f32 bias, cell state and gradients): every cell and
/// direction, forward and backward, within bf16's precision.
#[test]
fn bf16_data() {
    for cell in CELLS {
        for dir in DIRS {
            if cell.augru() && dir != dnnl_unidirectional_left2right {
                continue;
            }
            let l = if cell.augru() { 1 } else { 2 };
            let mut p = P::new(cell, dir, l, 3, 3, 5, 5, 5);
            p.dt = dnnl_bf16;
            run(&p, false);
        }
    }
    let mut p = P::new(Cell::Lstm, dnnl_bidirectional_sum, 1, 3, 2, 4, 4, 4);
    p.dt = dnnl_bf16;
    p.peephole = true;
    run(&p, true);
}

/// GPU engines answer `unimplemented` for what `ocl:rnn_gemm` does not
/// run: blocked weights (which the CPU engine runs) and data other than
/// f32 and bf16 (f16, should the descriptor accept it).
#[test]
fn gpu_refusals() {
    let p = P::new(
        Cell::Lstm,
        dnnl_unidirectional_left2right,
        1,
        2,
        2,
        4,
        32,
        32,
    );
    let mut d = descs(&p, false);
    d.weights_layer = some(&[1, 1, 4, 4, 32], dnnl_ldgOi32o);
    let op = |d: &RnnDescs, p: &P| {
        RnnOp::new(
            params(p, dnnl_forward_inference, 0),
            d,
            false,
            None,
            &Default::default(),
        )
        .map(Arc::new)
    };
    let blocked = op(&d, &p).unwrap();
    assert!(PrimitiveDesc::create(cpu(), blocked.clone()).is_ok());
    let mut p16 = p.clone();
    p16.dt = dnnl_f16;
    let f16 = op(&descs(&p16, false), &p16);
    for e in engines() {
        if e.kind() == EngineKind::Cpu {
            continue;
        }
        let status = |r: Result<PrimitiveDesc>| r.err().map(|e| e.status());
        let r = PrimitiveDesc::create(e.clone(), blocked.clone());
        assert_eq!(status(r), Some(dnnl_unimplemented), "{}", engine_name(&e));
        if let Ok(f16) = &f16 {
            let r = PrimitiveDesc::create(e.clone(), f16.clone());
            assert_eq!(status(r), Some(dnnl_unimplemented), "{}", engine_name(&e));
        }
    }
}
