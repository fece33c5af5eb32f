//! int8 RNN inference on GPU engines: LSTM (projection included) and GRU
//! with u8 data and s8 weights, the semantics of the CPU's `cpu/int8.rs`
//! on the device.
//!
//! Layer: prims. `load_inputs` keeps src_layer (u8) and the weights (s8)
//! as bytes in the scratchpad. The GEMMs are `gemm.cl`'s integer GEMM
//! (u8 x s8, s32 sums, no epilogue); the data shift is compensated in
//! `rnn.cl`'s `rnn_q8_cell` with the weights' column sums
//! (`(acc - shift * comp) / (scale * wscale)`), which the GEMM core's zero
//! points can't express (the shift is a float). The gate math is f32 as on
//! the CPU; each new state is quantized to u8 and those bytes (in the
//! workspace's hidden-state rows) are what the next step's iteration GEMM
//! and the next layer's GEMM read. GRU's `r * h_prev` and LSTMP's cell
//! output are quantized for their GEMMs; cell states stay f32. An absent
//! src_iter is the zero state: the first step skips the iteration GEMM.
//! The weights scales are compiled into the program ([`defines`]).

use super::{
    Bufs, ELEM_F32, ELEM_U8, Mat, OclRnn, Run, Sz, View, dense, reverse, user_view, ws_states,
};
use crate::abi::*;
use crate::core::error::{Error, Result};
use crate::core::gpu::{Kernel, KernelArg};
use crate::prims::common::dt::Elem;
use crate::prims::common::gemm::ocl::GemmKernels;
use crate::prims::rnn::{Cell, Quant, RnnOp};

/// Scales in a program's constant tables at most (64 KiB: OpenCL's
/// least constant buffer size).
const MAX_TABLE: usize = 16 * 1024;

/// The int8 kernels.
pub(super) struct Kernels {
    pub col_sum: Kernel,
    pub cell: Kernel,
    pub proj: Kernel,
    pub dst: Kernel,
    /// u8 x s8 -> s32.
    pub gemm: GemmKernels,
}

/// What `ocl:rnn_gemm` takes of an int8 op (`check_types` has allowed
/// it): the scales fit the program's constant tables.
pub(super) fn accepts(op: &RnnOp) -> Result<()> {
    let q = op
        .quant()
        .ok_or_else(|| Error::runtime("int8 RNN without quantization parameters"))?;
    let table = |v: &[f32]| if all_same(v) { 0 } else { v.len() };
    if table(&q.weights) + table(&q.projection) > MAX_TABLE {
        return Err(Error::unimplemented(format!(
            "ocl:rnn_gemm takes at most {MAX_TABLE} distinct int8 weights scales"
        )));
    }
    Ok(())
}

fn all_same(v: &[f32]) -> bool {
    v.iter().all(|x| x.to_bits() == v[0].to_bits())
}

/// The program's prefix for `q`: `RNN_Q8` and the scales as
/// `RNN_Q8_WS(g)` (weights, by gate column) and `RNN_Q8_PS(k)`
/// (projection, by channel), exact (their bits).
pub(super) fn defines(q: &Quant) -> String {
    let mut s = String::from("#define RNN_Q8 1\n");
    for (name, v) in [("WS", &q.weights), ("PS", &q.projection)] {
        if v.is_empty() {
            s += &format!("#define RNN_Q8_{name}(x) 1.0f\n");
        } else if all_same(v) {
            s += &format!(
                "#define RNN_Q8_{name}(x) as_float({:#x}u)\n",
                v[0].to_bits()
            );
        } else {
            let bits: Vec<String> = v.iter().map(|x| format!("{:#x}u", x.to_bits())).collect();
            s += &format!(
                "constant uint rnn_q8_{name}[{}] = {{{}}};\n#define RNN_Q8_{name}(x) as_float(rnn_q8_{name}[x])\n",
                v.len(),
                bits.join(",")
            );
        }
    }
    s
}

/// `v` (a dense f32 view at an f32 offset) as a view of `elem` bytes at
/// four times its offset.
pub(super) fn bytes(mut v: View, elem: i32) -> View {
    v.off *= 4;
    v.elem = elem;
    v
}

impl OclRnn {
    /// int8 forward inference.
    pub(super) fn forward_int8(&self, k: &Kernels, run: &mut Run, b: &Bufs) -> Result<()> {
        let op = &*self.op;
        let q = op
            .quant()
            .ok_or_else(|| Error::runtime("int8 RNN without quantization parameters"))?;
        let s = Sz::of(op);
        let sp = &self.scratch;
        let sc = &b.scratch;
        let lay = *op.ws_layout();
        let (ws, ws0) = self.ws(b);
        let block = lay.block;
        let ld_all = s.l * s.d;
        run.zero(ws, ws0, lay.elems(op.dims()))?;
        // The s8 weights' column sums over the rows each GEMM reads (the
        // layers after the first read DIC channels of their SLC rows).
        let mut sums = vec![
            (sp.wl, s.slc, s.gw, sp.comp),
            (sp.wi, s.sic, s.gw, sp.comp + ld_all * s.gw),
        ];
        if op.has(DNNL_ARG_WEIGHTS_PROJECTION) {
            sums.push((sp.proj, s.dhc, s.dic, sp.comp + 2 * ld_all * s.gw));
        }
        for (k_sums, (w_at, rows, cols, out)) in sums.into_iter().enumerate() {
            for ld in 0..ld_all {
                let read = if k_sums == 0 && ld >= s.d {
                    s.dic
                } else {
                    rows
                };
                let args = [
                    sc.kernel_arg()?,
                    KernelArg::I64(4 * w_at + ld * rows * cols),
                    KernelArg::I64(read),
                    KernelArg::I64(cols),
                    sc.kernel_arg()?,
                    KernelArg::I64(out + ld * cols),
                ];
                run.launch(&k.col_sum, &args, &[cols as usize])?;
            }
        }
        // The initial states: u8 hidden states into the state rows' bytes,
        // f32 cell states.
        let h_bytes = |ld: i64, st: i64| 4 * (ws0 + ld * block + lay.h) + st * s.n * s.w;
        if let Some(buf) = b.get(DNNL_ARG_SRC_ITER) {
            let (v, _) = user_view(op, DNNL_ARG_SRC_ITER, buf)?;
            let dst = ws_states(ws, h_bytes(0, 0), ELEM_U8, s.w, &s, block);
            run.copy(v, dst, &[s.l, s.d, s.n, s.sic], false)?;
        }
        if let Some(buf) = b.get(DNNL_ARG_SRC_ITER_C) {
            let (v, _) = user_view(op, DNNL_ARG_SRC_ITER_C, buf)?;
            let dst = ws_states(ws, ws0 + lay.c, ELEM_F32, s.dhc, &s, block);
            run.copy(v, dst, &[s.l, s.d, s.n, s.dhc], false)?;
        }
        for d in 0..s.d {
            for l in 0..s.l {
                self.layer_int8(k, q, run, b, l, d)?;
            }
        }
        // dst_layer: the last layer's states by direction in time order,
        // then their values.
        let tn = s.t * s.n;
        if let Some(buf) = b.get(DNNL_ARG_DST_LAYER) {
            for d in 0..s.d {
                let src = View {
                    buf: ws,
                    off: h_bytes((s.l - 1) * s.d + d, 1),
                    elem: ELEM_U8,
                    st: [0, 0, s.n * s.w, s.w, 1],
                };
                let dims = [s.t, s.n, s.dic];
                let mut dst = dense(sc, sp.q8_top + d * tn * s.dic, &dims);
                if reverse(op, d, &s) {
                    dst.off += (s.t - 1) * dst.st[2];
                    dst.st[2] = -dst.st[2];
                }
                run.copy(src, dst, &dims, false)?;
            }
            let (v, dims) = user_view(op, DNNL_ARG_DST_LAYER, buf)?;
            let f32_dst = v.elem == ELEM_F32;
            let sum = op.direction() == dnnl_bidirectional_sum;
            let args = [
                KernelArg::I32(s.d as i32),
                KernelArg::I32(i32::from(sum)),
                KernelArg::I32(i32::from(f32_dst)),
                KernelArg::F32(q.scale),
                KernelArg::F32(q.shift),
                KernelArg::I64(tn),
                KernelArg::I64(s.dic),
                KernelArg::I64(dims[2]),
                sc.kernel_arg()?,
                KernelArg::I64(sp.q8_top),
                KernelArg::I64(sp.q8_dst),
            ];
            run.launch(&k.dst, &args, &[s.dic as usize, tn as usize])?;
            run.copy(dense(sc, sp.q8_dst, &dims), v, &dims, false)?;
        }
        if let Some(buf) = b.get(DNNL_ARG_DST_ITER) {
            let (v, _) = user_view(op, DNNL_ARG_DST_ITER, buf)?;
            let src = ws_states(ws, h_bytes(0, s.t), ELEM_U8, s.w, &s, block);
            run.copy(src, v, &[s.l, s.d, s.n, s.dic], false)?;
        }
        if let Some(buf) = b.get(DNNL_ARG_DST_ITER_C) {
            let (v, _) = user_view(op, DNNL_ARG_DST_ITER_C, buf)?;
            let src = ws_states(
                ws,
                ws0 + lay.c + s.t * s.n * s.dhc,
                ELEM_F32,
                s.dhc,
                &s,
                block,
            );
            run.copy(src, v, &[s.l, s.d, s.n, s.dhc], false)?;
        }
        Ok(())
    }

    /// One (layer, direction) of int8 inference.
    fn layer_int8(
        &self,
        k: &Kernels,
        q: &Quant,
        run: &mut Run,
        b: &Bufs,
        l: i64,
        d: i64,
    ) -> Result<()> {
        let op = &*self.op;
        let s = Sz::of(op);
        let sp = &self.scratch;
        let sc = &b.scratch;
        let (ws, _) = self.ws(b);
        let at = self.layer_at(b, l, d);
        let ld = at.ld;
        let ld_all = s.l * s.d;
        let (n, dhc, gw, w, sic, dic) = (s.n, s.dhc, s.gw, s.w, s.sic, s.dic);
        let (go, co, hho) = (at.gates, at.c, at.hh);
        let h_bytes = |st: i64| 4 * at.h + st * n * w;
        let elems = [Elem::U8, Elem::S8, Elem::S32];
        // Byte offsets of this (layer, direction)'s s8 weights (bytes from
        // their regions' starts, which are four times the f32 offsets).
        let wl_at = 4 * sp.wl + (at.wl - sp.wl);
        let wi_at = 4 * sp.wi + (at.wi - sp.wi);
        // The layer GEMM over all steps: layer 0 reads src_layer, the
        // others the previous layer's states (DIC channels, as the CPU).
        let (x, cin): (Mat, i64) = if l == 0 {
            ((sc, 4 * (sp.xs + d * s.t * n * s.slc), s.slc, 1), s.slc)
        } else {
            ((ws, 4 * at.prev_h + n * w, w, 1), dic)
        };
        run.gemm_with(
            &k.gemm,
            elems,
            s.t * n,
            gw,
            cin,
            x,
            (sc, wl_at, gw, 1),
            (ws, go, gw),
        )?;
        let compl_at = sp.comp + ld * gw;
        let compi_at = sp.comp + (ld_all + ld) * gw;
        let gru = op.cell() == Cell::Gru;
        let projection = op.has(DNNL_ARG_WEIGHTS_PROJECTION);
        let initial = b.get(DNNL_ARG_SRC_ITER).is_some();
        for st in 0..s.t {
            let zero = st == 0 && !initial;
            let g_at = go + st * n * gw;
            if !zero {
                let cols = if gru { 2 * dhc } else { gw };
                run.gemm_with(
                    &k.gemm,
                    elems,
                    n,
                    cols,
                    sic,
                    (ws, h_bytes(st), w, 1),
                    (sc, wi_at, gw, 1),
                    (sc, sp.it, gw),
                )?;
            }
            let hh_at = if projection {
                4 * (hho + st * n * dhc)
            } else {
                -1
            };
            let cell_args = |part: i32| -> Result<Vec<KernelArg>> {
                Ok(vec![
                    KernelArg::I32(super::cell_code(op.cell())),
                    KernelArg::I32(part),
                    KernelArg::I32(i32::from(zero)),
                    KernelArg::F32(q.scale),
                    KernelArg::F32(q.shift),
                    KernelArg::I64(n),
                    KernelArg::I64(dhc),
                    KernelArg::I64(gw),
                    KernelArg::I64(w),
                    ws.kernel_arg()?,
                    KernelArg::I64(g_at),
                    KernelArg::I64(co + st * n * dhc),
                    sc.kernel_arg()?,
                    KernelArg::I64(sp.it),
                    KernelArg::I64(sp.bias + ld * s.bg * dhc),
                    KernelArg::I64(compl_at),
                    KernelArg::I64(compi_at),
                    KernelArg::I64(h_bytes(st)),
                    KernelArg::I64(h_bytes(st + 1)),
                    KernelArg::I64(hh_at),
                    KernelArg::I64(4 * sp.rh),
                ])
            };
            let grid = [dhc as usize, n as usize];
            run.launch(&k.cell, &cell_args(0)?, &grid)?;
            if gru {
                // The output gate's iteration part over the quantized
                // r * h_prev.
                if !zero {
                    run.gemm_with(
                        &k.gemm,
                        elems,
                        n,
                        dhc,
                        sic,
                        (sc, 4 * sp.rh, dhc, 1),
                        (sc, wi_at + 2 * dhc, gw, 1),
                        (sc, sp.it + 2 * dhc, gw),
                    )?;
                }
                run.launch(&k.cell, &cell_args(1)?, &grid)?;
            }
            if projection {
                let r_at = 4 * sp.proj + ld * dhc * dic;
                run.gemm_with(
                    &k.gemm,
                    elems,
                    n,
                    dic,
                    dhc,
                    (ws, hh_at, dhc, 1),
                    (sc, r_at, dic, 1),
                    (sc, sp.pj, dic),
                )?;
                let args = [
                    KernelArg::F32(q.scale),
                    KernelArg::F32(q.shift),
                    KernelArg::I64(n),
                    KernelArg::I64(dic),
                    KernelArg::I64(w),
                    sc.kernel_arg()?,
                    KernelArg::I64(sp.pj),
                    KernelArg::I64(sp.comp + 2 * ld_all * gw + ld * dic),
                    ws.kernel_arg()?,
                    KernelArg::I64(h_bytes(st + 1)),
                ];
                run.launch(&k.proj, &args, &[dic as usize, n as usize])?;
            }
        }
        Ok(())
    }
}
