//! RNN on the CPU engine (`cpu:rnn_gemm`).
//!
//! Layer: prims. Every tensor is read into a dense f32 array in logical
//! order first (any blocked layout, views included) and the outputs are
//! stored from dense arrays last, so inputs that alias outputs are read
//! before anything is written. Each direction runs through all layers on
//! its own (rnn.md). Per (layer, direction): the layer weights' GEMM over
//! all steps at once, then step by step the iteration weights' GEMM and
//! the cell's element-wise math. The GEMMs run on the CPU GEMM engine's
//! packed microkernels (`gemm::blocked`), which split the output's tiles
//! over the host's threads when large enough.
//!
//! Workspace: the f32 arrays of [`WsLayout`] for each (layer, direction),
//! steps in processing order (right2left: the last time step first). The
//! forward pass computes in it (inference: in a private copy); training
//! copies it out; backward reads it back.

use std::sync::Arc;

mod int8;

use super::{Activation, Cell, Dims, RnnOp, WsLayout};
use crate::abi::*;
use crate::core::engine::Engine;
use crate::core::error::{Error, Result};
use crate::core::gpu::Event;
use crate::core::memory_desc::MAX_NDIMS;
use crate::core::primitive::{ExecContext, Implementation, OpDesc};
use crate::prims::common::buffers::{Buffer, host_bytes, host_bytes_mut};
use crate::prims::common::dt::{Elem, bf16_to_f32, f16_to_f32, f32_to_bf16, f32_to_f16};
use crate::prims::common::gemm::blas::{Out, f32_bytes};
use crate::prims::common::gemm::blocked::{self, Path};
use crate::prims::common::host::Raw;
use crate::prims::common::layout::Layout;

/// Builds the implementation for `op`.
pub(super) fn create(op: &Arc<RnnOp>, _: &Engine) -> Result<Arc<dyn Implementation>> {
    Ok(Arc::new(CpuRnn { op: op.clone() }))
}

struct CpuRnn {
    op: Arc<RnnOp>,
}

impl Implementation for CpuRnn {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        if self.op.is_backward() {
            backward(&self.op, ctx)?;
        } else {
            forward(&self.op, ctx)?;
        }
        Ok(None)
    }
}

/// When the last dimension of `l` is contiguous (no inner blocks, stride
/// 1): the element offset of each logical row, in row-major order.
fn row_offsets(l: &Layout) -> Option<Vec<i64>> {
    let nd = l.ndims;
    if !l.inner_blocks().is_empty() || nd == 0 || l.outer_strides()[nd - 1] != 1 {
        return None;
    }
    let rows: i64 = l.dims[..nd - 1].iter().product();
    let mut out = Vec::with_capacity(rows.max(0) as usize);
    let mut idx = [0i64; MAX_NDIMS];
    for _ in 0..rows {
        let off: i64 = (0..nd)
            .map(|d| (idx[d] + l.padded_offsets[d]) * l.outer_strides()[d])
            .sum();
        out.push(l.offset0 + off);
        for d in (0..nd - 1).rev() {
            idx[d] += 1;
            if idx[d] < l.dims[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    Some(out)
}

/// Calls `f(flat, offset)` for every logical element of `l` (row-major
/// flat index, element offset from the buffer start).
fn for_each_offset(l: &Layout, mut f: impl FnMut(usize, i64)) {
    let n = l.nelems();
    if n == 0 {
        return;
    }
    let nd = l.ndims;
    let mut idx = [0i64; MAX_NDIMS];
    let mut p = [0i64; MAX_NDIMS];
    for flat in 0..n as usize {
        for d in 0..nd {
            p[d] = idx[d] + l.padded_offsets[d];
        }
        f(flat, l.offset(&p[..nd]));
        for d in (0..nd).rev() {
            idx[d] += 1;
            if idx[d] < l.dims[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// The tensors of one execution.
struct Io<'a> {
    op: &'a RnnOp,
    ctx: &'a ExecContext<'a>,
}

impl Io<'_> {
    fn layout(&self, arg: i32) -> Result<(Layout, Raw)> {
        let md = self
            .op
            .arg_md(arg)
            .ok_or_else(|| Error::runtime(format!("argument {arg} is not the op's")))?;
        let layout = Layout::new(md)?;
        let buffer = Buffer::of(self.ctx.arg(arg)?)?;
        let raw = Raw::of(&buffer, &layout, "an RNN tensor")?;
        Ok((layout, raw))
    }

    /// The logical values of `arg`, or `None` where the op has no such
    /// argument.
    fn load(&self, arg: i32) -> Result<Option<Vec<f32>>> {
        if !self.op.has(arg) {
            return Ok(None);
        }
        let (layout, raw) = self.layout(arg)?;
        let mut out = vec![0f32; layout.nelems() as usize];
        if let Some(rows) = row_offsets(&layout) {
            let len = layout.dims[layout.ndims - 1] as usize;
            if len > 0 {
                for (chunk, off) in out.chunks_exact_mut(len).zip(rows) {
                    raw.load_run(off, chunk);
                }
            }
        } else {
            for_each_offset(&layout, |i, off| out[i] = raw.load(off));
        }
        Ok(Some(out))
    }

    /// Stores `values` (logical order) as `arg`, where the op has it.
    fn store(&self, arg: i32, values: &[f32]) -> Result<()> {
        if !self.op.has(arg) {
            return Ok(());
        }
        let (layout, raw) = self.layout(arg)?;
        if let Some(rows) = row_offsets(&layout) {
            let len = layout.dims[layout.ndims - 1] as usize;
            if len > 0 {
                for (chunk, off) in values.chunks_exact(len).zip(rows) {
                    raw.store_run(off, chunk);
                }
            }
        } else {
            for_each_offset(&layout, |i, off| raw.store(off, values[i]));
        }
        Ok(())
    }

    /// The workspace's bytes as f32 values.
    fn load_ws(&self, elems: usize) -> Result<Vec<f32>> {
        let buffer = Buffer::of(self.ctx.arg(DNNL_ARG_WORKSPACE)?)?;
        buffer.check_holds(elems * 4, "workspace")?;
        // SAFETY: the workspace memory holds `elems * 4` bytes (checked for
        // our own allocations; the C contract otherwise), nothing writes it
        // while this view lives.
        let bytes = unsafe { host_bytes(buffer.host_addr(), elems * 4) };
        Ok(bytes
            .chunks_exact(4)
            .map(|c| f32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    fn store_ws(&self, values: &[f32]) -> Result<()> {
        let buffer = Buffer::of(self.ctx.arg(DNNL_ARG_WORKSPACE)?)?;
        buffer.check_holds(values.len() * 4, "workspace")?;
        // SAFETY: as for `load_ws`; this is the only view of the workspace.
        let bytes = unsafe { host_bytes_mut(buffer.host_addr(), values.len() * 4) };
        for (c, v) in bytes.chunks_exact_mut(4).zip(values) {
            c.copy_from_slice(&v.to_ne_bytes());
        }
        Ok(())
    }
}

/// A matrix operand: values, offset of element (0, 0), row and column strides.
#[derive(Clone, Copy)]
struct Mat<'a> {
    v: &'a [f32],
    off: usize,
    rs: usize,
    cs: usize,
}

fn mat(v: &[f32], off: usize, rs: usize, cs: usize) -> Mat<'_> {
    Mat { v, off, rs, cs }
}

impl Mat<'_> {
    /// Whether an `rows x cols` matrix lies inside the values.
    fn fits(&self, rows: usize, cols: usize) -> bool {
        rows == 0
            || cols == 0
            || self.off + (rows - 1) * self.rs + (cols - 1) * self.cs < self.v.len()
    }
}

/// `c[m x n]` (rows `ldc` apart from `c_off`) = `c` (when `acc`, else 0)
/// plus `a[m x k] · b[k x n]`, split over the host's threads when large.
#[allow(clippy::too_many_arguments)]
fn gemm(
    m: usize,
    n: usize,
    k: usize,
    a: Mat,
    b: Mat,
    c: &mut [f32],
    c_off: usize,
    ldc: usize,
    acc: bool,
) -> Result<()> {
    if m == 0 || n == 0 {
        return Ok(());
    }
    let c_fits = c_off + (m - 1) * ldc + n <= c.len() && (m == 1 || n <= ldc);
    if !a.fits(m, k) || !b.fits(k, n) || !c_fits {
        return Err(Error::runtime("RNN GEMM operand out of bounds"));
    }
    if k == 0 {
        if !acc {
            for r in 0..m {
                c[c_off + r * ldc..c_off + r * ldc + n].fill(0.0);
            }
        }
        return Ok(());
    }
    let first = |_: usize| (a.off as i64, b.off as i64);
    let problem = blocked::Problem {
        m,
        n,
        k,
        batches: 1,
        a: blocked::Mat {
            bytes: f32_bytes(a.v),
            elem: Elem::F32,
            rs: a.rs as i64,
            cs: a.cs as i64,
        },
        b: blocked::Mat {
            bytes: f32_bytes(b.v),
            elem: Elem::F32,
            rs: b.rs as i64,
            cs: b.cs as i64,
        },
        first: &first,
    };
    let out = Out(c.as_mut_ptr().wrapping_add(c_off));
    let store = |t: &blocked::Tile, values: &mut [f32]| {
        for r in 0..t.rows {
            // SAFETY: row m0 + r, columns n0..n0 + cols of the output: inside
            // c (checked above) and this tile's alone (each element is in
            // one tile).
            let row = unsafe { out.row((t.m0 + r) * ldc + t.n0, t.cols) };
            let sums = &values[r * t.ld..][..t.cols];
            if acc {
                for (o, &v) in row.iter_mut().zip(sums) {
                    *o += v;
                }
            } else {
                row.copy_from_slice(sums);
            }
        }
    };
    blocked::run(Path::current(Elem::F32, Elem::F32), &problem, &store);
    Ok(())
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

fn activate(act: Activation, alpha: f32, x: f32) -> f32 {
    match act {
        Activation::Relu => {
            if x > 0.0 {
                x
            } else {
                x * alpha
            }
        }
        Activation::Tanh => x.tanh(),
        Activation::Logistic => sigmoid(x),
    }
}

/// The derivative of the activation at pre-activation `a` (output `h`).
fn activate_deriv(act: Activation, alpha: f32, a: f32, h: f32) -> f32 {
    match act {
        Activation::Relu => {
            if a > 0.0 {
                1.0
            } else {
                alpha
            }
        }
        Activation::Tanh => 1.0 - h * h,
        Activation::Logistic => h * (1.0 - h),
    }
}

/// Sizes as `usize` and the offsets of one (layer, direction).
#[derive(Clone, Copy)]
struct Shape {
    l: usize,
    d: usize,
    t: usize,
    n: usize,
    slc: usize,
    sic: usize,
    dhc: usize,
    dic: usize,
    dlc: usize,
    /// Gates times DHC: a row of the gates.
    gw: usize,
    /// Gates of the bias.
    bg: usize,
    w: usize,
    ws: WsLayout,
}

impl Shape {
    fn new(op: &RnnOp) -> Shape {
        let d: &Dims = op.dims();
        let u = |v: i64| v as usize;
        Shape {
            l: u(d.l),
            d: u(d.d),
            t: u(d.t),
            n: u(d.n),
            slc: u(d.slc),
            sic: u(d.sic),
            dhc: u(d.dhc),
            dic: u(d.dic),
            dlc: u(d.dlc),
            gw: u(d.g * d.dhc),
            bg: u(d.g) + usize::from(op.cell().lbr()),
            w: u(op.ws_layout().w),
            ws: *op.ws_layout(),
        }
    }

    /// The index of (layer, direction) in `{L, D, ...}` tensors.
    fn ld(&self, l: usize, d: usize) -> usize {
        l * self.d + d
    }

    fn block(&self, l: usize, d: usize) -> usize {
        self.ld(l, d) * self.ws.block as usize
    }

    /// The time step processed at step `s` of direction `d`.
    fn time(&self, op: &RnnOp, d: usize, s: usize) -> usize {
        let reverse = op.direction() == dnnl_unidirectional_right2left || (d == 1 && self.d == 2);
        if reverse { self.t - 1 - s } else { s }
    }

    /// The channel offset and whether it sums, of direction `d` in dst_layer.
    fn dst_part(&self, op: &RnnOp, d: usize) -> (usize, bool) {
        match op.direction() {
            dnnl_bidirectional_concat => (d * self.dic, false),
            dnnl_bidirectional_sum => (0, d == 1),
            _ => (0, false),
        }
    }
}

/// The forward inputs, dense.
struct Inputs {
    src_layer: Vec<f32>,
    src_iter: Option<Vec<f32>>,
    src_iter_c: Option<Vec<f32>>,
    attention: Option<Vec<f32>>,
    wl: Vec<f32>,
    wi: Vec<f32>,
    peephole: Option<Vec<f32>>,
    projection: Option<Vec<f32>>,
    bias: Vec<f32>,
}

impl Inputs {
    fn read(io: &Io, sh: &Shape) -> Result<Inputs> {
        let need = |arg| {
            io.load(arg)?
                .ok_or_else(|| Error::runtime(format!("argument {arg} missing")))
        };
        Ok(Inputs {
            src_layer: need(DNNL_ARG_SRC_LAYER)?,
            src_iter: io.load(DNNL_ARG_SRC_ITER)?,
            src_iter_c: io.load(DNNL_ARG_SRC_ITER_C)?,
            attention: io.load(DNNL_ARG_AUGRU_ATTENTION)?,
            wl: need(DNNL_ARG_WEIGHTS_LAYER)?,
            wi: need(DNNL_ARG_WEIGHTS_ITER)?,
            peephole: io.load(DNNL_ARG_WEIGHTS_PEEPHOLE)?,
            projection: io.load(DNNL_ARG_WEIGHTS_PROJECTION)?,
            bias: io
                .load(DNNL_ARG_BIAS)?
                .unwrap_or_else(|| vec![0.0; sh.l * sh.d * sh.bg * sh.dhc]),
        })
    }

    /// src_layer in the processing order of direction `d`: row `s * N + n`.
    fn src_steps(&self, op: &RnnOp, sh: &Shape, d: usize) -> Vec<f32> {
        let row = sh.n * sh.slc;
        let mut out = vec![0f32; sh.t * row];
        for s in 0..sh.t {
            let t = sh.time(op, d, s);
            out[s * row..(s + 1) * row].copy_from_slice(&self.src_layer[t * row..(t + 1) * row]);
        }
        out
    }
}

fn forward(op: &RnnOp, ctx: &ExecContext) -> Result<()> {
    if let Some(q) = op.quant() {
        return int8::forward(op, q, ctx);
    }
    let io = Io { op, ctx };
    let sh = Shape::new(op);
    let inp = Inputs::read(&io, &sh)?;
    let mut ws = vec![0f32; sh.ws.elems(op.dims()) as usize];
    for d in 0..sh.d {
        let xs = inp.src_steps(op, &sh, d);
        for l in 0..sh.l {
            forward_layer(op, &sh, &inp, &mut ws, &xs, l, d)?;
        }
    }
    // The outputs.
    let mut dst = vec![0f32; sh.t * sh.n * sh.dlc];
    for d in 0..sh.d {
        let (ch, sum) = sh.dst_part(op, d);
        let base = sh.block(sh.l - 1, d) + sh.ws.h as usize;
        for s in 0..sh.t {
            let t = sh.time(op, d, s);
            for n in 0..sh.n {
                let h = &ws[base + ((s + 1) * sh.n + n) * sh.w..][..sh.dic];
                let out = &mut dst[(t * sh.n + n) * sh.dlc + ch..][..sh.dic];
                if sum {
                    out.iter_mut().zip(h).for_each(|(o, v)| *o += v);
                } else {
                    out.copy_from_slice(h);
                }
            }
        }
    }
    io.store(DNNL_ARG_DST_LAYER, &dst)?;
    if op.has(DNNL_ARG_DST_ITER) {
        let mut h = vec![0f32; sh.l * sh.d * sh.n * sh.dic];
        let mut c = vec![0f32; sh.l * sh.d * sh.n * sh.dhc];
        for l in 0..sh.l {
            for d in 0..sh.d {
                let base = sh.block(l, d);
                for n in 0..sh.n {
                    let hs = base + sh.ws.h as usize + (sh.t * sh.n + n) * sh.w;
                    h[(sh.ld(l, d) * sh.n + n) * sh.dic..][..sh.dic]
                        .copy_from_slice(&ws[hs..hs + sh.dic]);
                    if op.cell() == Cell::Lstm {
                        let cs = base + sh.ws.c as usize + (sh.t * sh.n + n) * sh.dhc;
                        c[(sh.ld(l, d) * sh.n + n) * sh.dhc..][..sh.dhc]
                            .copy_from_slice(&ws[cs..cs + sh.dhc]);
                    }
                }
            }
        }
        io.store(DNNL_ARG_DST_ITER, &h)?;
        io.store(DNNL_ARG_DST_ITER_C, &c)?;
    }
    if op.prop_kind() == dnnl_forward_training {
        io.store_ws(&ws)?;
    }
    Ok(())
}

/// The rounding of a hidden state stored in data type `dt` (bf16, f16),
/// `None` for f32.
fn state_rounding(dt: dnnl_data_type_t) -> Option<fn(f32) -> f32> {
    match dt {
        dnnl_bf16 => Some(|v| bf16_to_f32(f32_to_bf16(v))),
        dnnl_f16 => Some(|v| f16_to_f32(f32_to_f16(v))),
        _ => None,
    }
}

/// One (layer, direction) forward, into its workspace block.
fn forward_layer(
    op: &RnnOp,
    sh: &Shape,
    inp: &Inputs,
    ws: &mut [f32],
    xs: &[f32],
    l: usize,
    d: usize,
) -> Result<()> {
    let (t_n, n, dhc, gw, w) = (sh.t * sh.n, sh.n, sh.dhc, sh.gw, sh.w);
    let base = sh.block(l, d);
    let (below, here) = ws.split_at_mut(base);
    let lay = sh.ws;
    let (go, ho, co, hho, lbro) = (
        lay.gates as usize,
        lay.h as usize,
        lay.c as usize,
        lay.hh as usize,
        lay.lbr as usize,
    );
    let ld = sh.ld(l, d);
    let wl_off = ld * sh.slc * gw;
    let wi_off = ld * sh.sic * gw;
    // The layer GEMM over all steps.
    let x = if l == 0 {
        mat(xs, 0, sh.slc, 1)
    } else {
        let below_h = sh.block(l - 1, d) + ho + n * w;
        mat(below, below_h, w, 1)
    };
    gemm(
        t_n,
        gw,
        sh.slc,
        x,
        mat(&inp.wl, wl_off, gw, 1),
        here,
        go,
        gw,
        false,
    )?;
    // The initial states.
    for i in 0..n {
        if let Some(si) = &inp.src_iter {
            here[ho + i * w..ho + i * w + sh.sic]
                .copy_from_slice(&si[(ld * n + i) * sh.sic..][..sh.sic]);
        }
        if let (Some(sc), Cell::Lstm) = (&inp.src_iter_c, op.cell()) {
            here[co + i * dhc..co + (i + 1) * dhc]
                .copy_from_slice(&sc[(ld * n + i) * dhc..][..dhc]);
        }
    }
    let bias = &inp.bias[ld * sh.bg * dhc..][..sh.bg * dhc];
    let wi = &inp.wi;
    let mut tmp = vec![0f32; n * gw];
    let mut rh = vec![0f32; n * dhc];
    for s in 0..sh.t {
        let t = sh.time(op, d, s);
        let g_at = go + s * n * gw;
        let hp_at = ho + s * n * w;
        let h_at = ho + (s + 1) * n * w;
        match op.cell() {
            Cell::Vanilla | Cell::Lstm | Cell::Gru | Cell::Augru => {
                // GRU: the update and reset gates here, the output gate
                // once the reset gate is known.
                let cols = if op.cell().gru_like() { 2 * dhc } else { gw };
                let (gates, states) = here.split_at_mut(ho);
                let hp = mat(states, hp_at - ho, w, 1);
                gemm(
                    n,
                    cols,
                    sh.sic,
                    hp,
                    mat(wi, wi_off, gw, 1),
                    gates,
                    g_at,
                    gw,
                    true,
                )?;
            }
            Cell::LbrGru | Cell::LbrAugru => {
                let hp = mat(here, hp_at, w, 1);
                gemm(
                    n,
                    gw,
                    sh.sic,
                    hp,
                    mat(wi, wi_off, gw, 1),
                    &mut tmp,
                    0,
                    gw,
                    false,
                )?;
            }
        }
        let att = |i: usize| inp.attention.as_ref().map_or(0.0, |a| a[t * n + i]);
        match op.cell() {
            Cell::Vanilla => {
                let act = op.activation().unwrap_or(Activation::Tanh);
                for i in 0..n {
                    for j in 0..dhc {
                        let a = here[g_at + i * gw + j] + bias[j];
                        here[g_at + i * gw + j] = a;
                        here[h_at + i * w + j] = activate(act, op.alpha(), a);
                    }
                }
            }
            Cell::Lstm => {
                let c_at = co + s * n * dhc;
                for i in 0..n {
                    for j in 0..dhc {
                        let g = g_at + i * gw;
                        let cp = here[c_at + i * dhc + j];
                        let p = |k: usize| {
                            inp.peephole
                                .as_ref()
                                .map_or(0.0, |pw| pw[(ld * 3 + k) * dhc + j])
                        };
                        let ig = sigmoid(here[g + j] + bias[j] + p(0) * cp);
                        let fg = sigmoid(here[g + dhc + j] + bias[dhc + j] + p(1) * cp);
                        let ct = (here[g + 2 * dhc + j] + bias[2 * dhc + j]).tanh();
                        let c = fg * cp + ig * ct;
                        let og = sigmoid(here[g + 3 * dhc + j] + bias[3 * dhc + j] + p(2) * c);
                        let hh = og * c.tanh();
                        here[g + j] = ig;
                        here[g + dhc + j] = fg;
                        here[g + 2 * dhc + j] = ct;
                        here[g + 3 * dhc + j] = og;
                        here[c_at + (n + i) * dhc + j] = c;
                        if inp.projection.is_some() {
                            here[hho + (s * n + i) * dhc + j] = hh;
                        } else {
                            here[h_at + i * w + j] = hh;
                        }
                    }
                }
                if let Some(r) = &inp.projection {
                    let (states, hhs) = here.split_at_mut(hho);
                    let hh = mat(hhs, s * n * dhc, dhc, 1);
                    let r = mat(r, ld * dhc * sh.dic, sh.dic, 1);
                    gemm(n, sh.dic, dhc, hh, r, states, h_at, w, false)?;
                }
            }
            Cell::Gru | Cell::Augru => {
                for i in 0..n {
                    let g = g_at + i * gw;
                    for j in 0..dhc {
                        let u = sigmoid(here[g + j] + bias[j]);
                        let r = sigmoid(here[g + dhc + j] + bias[dhc + j]);
                        here[g + j] = u;
                        here[g + dhc + j] = r;
                        rh[i * dhc + j] = r * here[hp_at + i * w + j];
                    }
                }
                let woff = wi_off + 2 * dhc;
                gemm(
                    n,
                    dhc,
                    sh.sic,
                    mat(&rh, 0, dhc, 1),
                    mat(wi, woff, gw, 1),
                    here,
                    g_at + 2 * dhc,
                    gw,
                    true,
                )?;
                for i in 0..n {
                    let g = g_at + i * gw;
                    let a = att(i);
                    for j in 0..dhc {
                        let o = (here[g + 2 * dhc + j] + bias[2 * dhc + j]).tanh();
                        here[g + 2 * dhc + j] = o;
                        let u = (1.0 - a) * here[g + j];
                        let hp = here[hp_at + i * w + j];
                        here[h_at + i * w + j] = u * hp + (1.0 - u) * o;
                    }
                }
            }
            Cell::LbrGru | Cell::LbrAugru => {
                for i in 0..n {
                    let g = g_at + i * gw;
                    let a = att(i);
                    for j in 0..dhc {
                        let tr = &tmp[i * gw..];
                        let u = sigmoid(here[g + j] + tr[j] + bias[j]);
                        let r = sigmoid(here[g + dhc + j] + tr[dhc + j] + bias[dhc + j]);
                        let lin = tr[2 * dhc + j] + bias[3 * dhc + j];
                        let o = (here[g + 2 * dhc + j] + bias[2 * dhc + j] + r * lin).tanh();
                        here[g + j] = u;
                        here[g + dhc + j] = r;
                        here[g + 2 * dhc + j] = o;
                        here[lbro + (s * n + i) * dhc + j] = lin;
                        let ut = (1.0 - a) * u;
                        let hp = here[hp_at + i * w + j];
                        here[h_at + i * w + j] = ut * hp + (1.0 - ut) * o;
                    }
                }
            }
        }
        if let Some(round) = state_rounding(op.data_type()) {
            // The states are kept in the data type, as upstream keeps them.
            for i in 0..n {
                for v in &mut here[h_at + i * w..h_at + i * w + sh.dic] {
                    *v = round(*v);
                }
            }
        }
    }
    Ok(())
}

/// Weight gradients, dense, accumulated.
struct Grads {
    wl: Vec<f32>,
    wi: Vec<f32>,
    peephole: Option<Vec<f32>>,
    projection: Option<Vec<f32>>,
    bias: Option<Vec<f32>>,
}

fn backward(op: &RnnOp, ctx: &ExecContext) -> Result<()> {
    let io = Io { op, ctx };
    let sh = Shape::new(op);
    let inp = Inputs::read(&io, &sh)?;
    let ws = io.load_ws(sh.ws.elems(op.dims()) as usize)?;
    let overwrite = op.overwrites_diff_weights();
    let grad = |arg: i32, len: usize| -> Result<Option<Vec<f32>>> {
        if !op.has(arg) {
            return Ok(None);
        }
        if overwrite {
            return Ok(Some(vec![0.0; len]));
        }
        io.load(arg)
    };
    let (gw, dhc) = (sh.gw, sh.dhc);
    let ld_all = sh.l * sh.d;
    let mut gr = Grads {
        wl: grad(DNNL_ARG_DIFF_WEIGHTS_LAYER, ld_all * sh.slc * gw)?
            .ok_or_else(|| Error::runtime("diff_weights_layer missing"))?,
        wi: grad(DNNL_ARG_DIFF_WEIGHTS_ITER, ld_all * sh.sic * gw)?
            .ok_or_else(|| Error::runtime("diff_weights_iter missing"))?,
        peephole: grad(DNNL_ARG_DIFF_WEIGHTS_PEEPHOLE, ld_all * 3 * dhc)?,
        projection: grad(DNNL_ARG_DIFF_WEIGHTS_PROJECTION, ld_all * dhc * sh.dic)?,
        bias: grad(DNNL_ARG_DIFF_BIAS, ld_all * sh.bg * dhc)?,
    };
    let ddl = io
        .load(DNNL_ARG_DIFF_DST_LAYER)?
        .ok_or_else(|| Error::runtime("diff_dst_layer missing"))?;
    let ddi = io.load(DNNL_ARG_DIFF_DST_ITER)?;
    let ddc = io.load(DNNL_ARG_DIFF_DST_ITER_C)?;
    let mut dsl = vec![0f32; sh.t * sh.n * sh.slc];
    let mut dsi = vec![0f32; ld_all * sh.n * sh.sic];
    let mut dsc = vec![0f32; ld_all * sh.n * dhc];
    let mut datt = vec![0f32; sh.t * sh.n];
    for d in 0..sh.d {
        let xs = inp.src_steps(op, &sh, d);
        // The gradient reaching the top layer's outputs, by step.
        let (ch, _) = sh.dst_part(op, d);
        let mut dh_out = vec![0f32; sh.t * sh.n * sh.dic];
        for s in 0..sh.t {
            let t = sh.time(op, d, s);
            for i in 0..sh.n {
                dh_out[(s * sh.n + i) * sh.dic..][..sh.dic]
                    .copy_from_slice(&ddl[(t * sh.n + i) * sh.dlc + ch..][..sh.dic]);
            }
        }
        for l in (0..sh.l).rev() {
            let ctx = LayerBwd {
                op,
                sh: &sh,
                inp: &inp,
                ws: &ws,
                xs: &xs,
                l,
                d,
            };
            let dx = ctx.run(
                &dh_out,
                ddi.as_deref(),
                ddc.as_deref(),
                &mut gr,
                &mut dsi,
                &mut dsc,
                &mut datt,
            )?;
            if l == 0 {
                for s in 0..sh.t {
                    let t = sh.time(op, d, s);
                    let row = sh.n * sh.slc;
                    let src = &dx[s * row..(s + 1) * row];
                    dsl[t * row..(t + 1) * row]
                        .iter_mut()
                        .zip(src)
                        .for_each(|(o, v)| *o += v);
                }
            } else {
                dh_out = dx;
            }
        }
    }
    io.store(DNNL_ARG_DIFF_SRC_LAYER, &dsl)?;
    io.store(DNNL_ARG_DIFF_SRC_ITER, &dsi)?;
    io.store(DNNL_ARG_DIFF_SRC_ITER_C, &dsc)?;
    io.store(DNNL_ARG_DIFF_AUGRU_ATTENTION, &datt)?;
    io.store(DNNL_ARG_DIFF_WEIGHTS_LAYER, &gr.wl)?;
    io.store(DNNL_ARG_DIFF_WEIGHTS_ITER, &gr.wi)?;
    if let Some(p) = &gr.peephole {
        io.store(DNNL_ARG_DIFF_WEIGHTS_PEEPHOLE, p)?;
    }
    if let Some(p) = &gr.projection {
        io.store(DNNL_ARG_DIFF_WEIGHTS_PROJECTION, p)?;
    }
    if let Some(b) = &gr.bias {
        io.store(DNNL_ARG_DIFF_BIAS, b)?;
    }
    Ok(())
}

/// One (layer, direction) backward.
struct LayerBwd<'a> {
    op: &'a RnnOp,
    sh: &'a Shape,
    inp: &'a Inputs,
    ws: &'a [f32],
    xs: &'a [f32],
    l: usize,
    d: usize,
}

impl LayerBwd<'_> {
    /// Walks the steps back from the gradient of this layer's outputs
    /// (`dh_out`, by step); accumulates the weight gradients, writes
    /// diff_src_iter(_c) and the attention's gradient, and returns the
    /// gradient of the layer's input (by step, `T * N * SLC`).
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        dh_out: &[f32],
        ddi: Option<&[f32]>,
        ddc: Option<&[f32]>,
        gr: &mut Grads,
        dsi: &mut [f32],
        dsc: &mut [f32],
        datt: &mut [f32],
    ) -> Result<Vec<f32>> {
        let (op, sh, ws) = (self.op, self.sh, self.ws);
        let (n, dhc, gw, w, sic, dic) = (sh.n, sh.dhc, sh.gw, sh.w, sh.sic, sh.dic);
        let ld = sh.ld(self.l, self.d);
        let base = sh.block(self.l, self.d);
        let lay = sh.ws;
        let (go, ho, co, hho, lbro) = (
            base + lay.gates as usize,
            base + lay.h as usize,
            base + lay.c as usize,
            base + lay.hh as usize,
            base + lay.lbr as usize,
        );
        let wl_off = ld * sh.slc * gw;
        let wi_off = ld * sic * gw;
        let wi = &self.inp.wi;
        let bias_len = sh.bg * dhc;
        let mut dbias = vec![0f32; bias_len];
        let mut dpeep = [vec![0f32; dhc], vec![0f32; dhc], vec![0f32; dhc]];
        // Gradients carried from step to step.
        let mut dhn = vec![0f32; n * w];
        let mut dcn = vec![0f32; n * dhc];
        if let Some(ddi) = ddi {
            for i in 0..n {
                dhn[i * w..i * w + dic].copy_from_slice(&ddi[(ld * n + i) * dic..][..dic]);
            }
        }
        if let (Some(ddc), Cell::Lstm) = (ddc, op.cell()) {
            dcn.copy_from_slice(&ddc[ld * n * dhc..][..n * dhc]);
        }
        let mut da = vec![0f32; sh.t * n * gw];
        let mut dai = vec![0f32; n * gw];
        let mut dh = vec![0f32; n * dic];
        let mut dhh = vec![0f32; n * dhc];
        let mut dhp = vec![0f32; n * w];
        let mut rh = vec![0f32; n * dhc];
        let mut drh = vec![0f32; n * sic];
        for s in (0..sh.t).rev() {
            let t = sh.time(op, self.d, s);
            let g_at = go + s * n * gw;
            let hp_at = ho + s * n * w;
            let h_at = ho + (s + 1) * n * w;
            for i in 0..n {
                for j in 0..dic {
                    dh[i * dic + j] = dh_out[(s * n + i) * dic + j] + dhn[i * w + j];
                }
            }
            // LSTMP: through the projection first.
            if let (Some(r), Some(dr)) = (&self.inp.projection, gr.projection.as_mut()) {
                let r_off = ld * dhc * dic;
                let hh = mat(ws, hho + s * n * dhc, 1, dhc);
                gemm(dhc, dic, n, hh, mat(&dh, 0, dic, 1), dr, r_off, dic, true)?;
                gemm(
                    n,
                    dhc,
                    dic,
                    mat(&dh, 0, dic, 1),
                    mat(r, r_off, 1, dic),
                    &mut dhh,
                    0,
                    dhc,
                    false,
                )?;
            } else {
                for i in 0..n {
                    dhh[i * dhc..(i + 1) * dhc]
                        .copy_from_slice(&dh[i * dic..i * dic + dhc.min(dic)]);
                }
            }
            dhp.fill(0.0);
            let das = &mut da[s * n * gw..(s + 1) * n * gw];
            let att = |i: usize| self.inp.attention.as_ref().map_or(0.0, |a| a[t * n + i]);
            match op.cell() {
                Cell::Vanilla => {
                    let act = op.activation().unwrap_or(Activation::Tanh);
                    for i in 0..n {
                        for j in 0..dhc {
                            let a = ws[g_at + i * gw + j];
                            let h = ws[h_at + i * w + j];
                            das[i * gw + j] =
                                dhh[i * dhc + j] * activate_deriv(act, op.alpha(), a, h);
                        }
                    }
                }
                Cell::Lstm => {
                    let peep = self.inp.peephole.as_ref();
                    let c_at = co + s * n * dhc;
                    for i in 0..n {
                        let g = g_at + i * gw;
                        for j in 0..dhc {
                            let p = |k: usize| peep.map_or(0.0, |pw| pw[(ld * 3 + k) * dhc + j]);
                            let (ig, fg, ct, og) = (
                                ws[g + j],
                                ws[g + dhc + j],
                                ws[g + 2 * dhc + j],
                                ws[g + 3 * dhc + j],
                            );
                            let cp = ws[c_at + i * dhc + j];
                            let c = ws[c_at + (n + i) * dhc + j];
                            let tc = c.tanh();
                            let dv = dhh[i * dhc + j];
                            let do_pre = dv * tc * og * (1.0 - og);
                            let dc = dcn[i * dhc + j] + dv * og * (1.0 - tc * tc) + do_pre * p(2);
                            let di_pre = dc * ct * ig * (1.0 - ig);
                            let df_pre = dc * cp * fg * (1.0 - fg);
                            let dct_pre = dc * ig * (1.0 - ct * ct);
                            dcn[i * dhc + j] = dc * fg + di_pre * p(0) + df_pre * p(1);
                            if peep.is_some() {
                                dpeep[0][j] += di_pre * cp;
                                dpeep[1][j] += df_pre * cp;
                                dpeep[2][j] += do_pre * c;
                            }
                            let row = &mut das[i * gw..];
                            row[j] = di_pre;
                            row[dhc + j] = df_pre;
                            row[2 * dhc + j] = dct_pre;
                            row[3 * dhc + j] = do_pre;
                        }
                    }
                }
                Cell::Gru | Cell::Augru | Cell::LbrGru | Cell::LbrAugru => {
                    let lbr = op.cell().lbr();
                    for i in 0..n {
                        let g = g_at + i * gw;
                        let a = att(i);
                        let mut da_sum = 0f32;
                        for j in 0..dhc {
                            let (u, r, o) = (ws[g + j], ws[g + dhc + j], ws[g + 2 * dhc + j]);
                            let hp = ws[hp_at + i * w + j];
                            let dv = dhh[i * dhc + j];
                            // AUGRU as upstream computes it (checked against
                            // Intel's library): the attention scales the
                            // update gate's gradient and has its own, but
                            // h_prev's and o's gradients take u, not the
                            // attended (1 - a) u of the forward pass.
                            let dg0 = dv * (hp - o) * u * (1.0 - u);
                            da_sum -= dg0 * u;
                            let du_pre = dg0 * (1.0 - a);
                            let do_pre = dv * (1.0 - u) * (1.0 - o * o);
                            dhp[i * w + j] = dv * u;
                            let row = &mut das[i * gw..];
                            row[j] = du_pre;
                            row[2 * dhc + j] = do_pre;
                            if lbr {
                                let lin = ws[lbro + (s * n + i) * dhc + j];
                                let dr_pre = do_pre * lin * r * (1.0 - r);
                                row[dhc + j] = dr_pre;
                                dai[i * gw + j] = du_pre;
                                dai[i * gw + dhc + j] = dr_pre;
                                dai[i * gw + 2 * dhc + j] = do_pre * r;
                            } else {
                                rh[i * dhc + j] = r * hp;
                            }
                        }
                        if op.cell().augru() {
                            datt[t * n + i] += da_sum;
                        }
                    }
                    if !lbr {
                        // o's iteration part saw r * h_prev.
                        let wo = mat(wi, wi_off + 2 * dhc, 1, gw);
                        gemm(
                            n,
                            sic,
                            dhc,
                            mat(das, 2 * dhc, gw, 1),
                            wo,
                            &mut drh,
                            0,
                            sic,
                            false,
                        )?;
                        for i in 0..n {
                            for j in 0..dhc {
                                let r = ws[g_at + i * gw + dhc + j];
                                let hp = ws[hp_at + i * w + j];
                                let dr = drh[i * sic + j] * hp;
                                dhp[i * w + j] += drh[i * sic + j] * r;
                                das[i * gw + dhc + j] = dr * r * (1.0 - r);
                            }
                        }
                    }
                }
            }
            // Through the iteration weights.
            let hp = mat(ws, hp_at, 1, w);
            let dwi_off = wi_off;
            match op.cell() {
                Cell::Vanilla | Cell::Lstm => {
                    let wt = mat(wi, wi_off, 1, gw);
                    gemm(n, sic, gw, mat(das, 0, gw, 1), wt, &mut dhp, 0, w, true)?;
                    gemm(
                        sic,
                        gw,
                        n,
                        hp,
                        mat(das, 0, gw, 1),
                        &mut gr.wi,
                        dwi_off,
                        gw,
                        true,
                    )?;
                }
                Cell::Gru | Cell::Augru => {
                    let wt = mat(wi, wi_off, 1, gw);
                    gemm(
                        n,
                        sic,
                        2 * dhc,
                        mat(das, 0, gw, 1),
                        wt,
                        &mut dhp,
                        0,
                        w,
                        true,
                    )?;
                    gemm(
                        sic,
                        2 * dhc,
                        n,
                        hp,
                        mat(das, 0, gw, 1),
                        &mut gr.wi,
                        dwi_off,
                        gw,
                        true,
                    )?;
                    let rht = mat(&rh, 0, 1, dhc);
                    gemm(
                        sic,
                        dhc,
                        n,
                        rht,
                        mat(das, 2 * dhc, gw, 1),
                        &mut gr.wi,
                        dwi_off + 2 * dhc,
                        gw,
                        true,
                    )?;
                }
                Cell::LbrGru | Cell::LbrAugru => {
                    let wt = mat(wi, wi_off, 1, gw);
                    gemm(n, sic, gw, mat(&dai, 0, gw, 1), wt, &mut dhp, 0, w, true)?;
                    gemm(
                        sic,
                        gw,
                        n,
                        hp,
                        mat(&dai, 0, gw, 1),
                        &mut gr.wi,
                        dwi_off,
                        gw,
                        true,
                    )?;
                    for i in 0..n {
                        for j in 0..dhc {
                            dbias[3 * dhc + j] += dai[i * gw + 2 * dhc + j];
                        }
                    }
                }
            }
            std::mem::swap(&mut dhn, &mut dhp);
        }
        // diff_src_iter(_c): what reached the initial states.
        for i in 0..n {
            dsi[(ld * n + i) * sic..][..sic].copy_from_slice(&dhn[i * w..i * w + sic]);
        }
        if op.cell() == Cell::Lstm {
            dsc[ld * n * dhc..][..n * dhc].copy_from_slice(&dcn);
        }
        // The layer weights, the bias and the input's gradient, over all steps.
        let t_n = sh.t * n;
        let x = if self.l == 0 {
            mat(self.xs, 0, 1, sh.slc)
        } else {
            mat(
                ws,
                sh.block(self.l - 1, self.d) + lay.h as usize + n * w,
                1,
                w,
            )
        };
        gemm(
            sh.slc,
            gw,
            t_n,
            x,
            mat(&da, 0, gw, 1),
            &mut gr.wl,
            wl_off,
            gw,
            true,
        )?;
        for row in da.chunks_exact(gw) {
            for (b, v) in dbias.iter_mut().zip(row) {
                *b += v;
            }
        }
        if let Some(b) = gr.bias.as_mut() {
            for (o, v) in b[ld * bias_len..][..bias_len].iter_mut().zip(&dbias) {
                *o += v;
            }
        }
        if let Some(p) = gr.peephole.as_mut() {
            for (k, part) in dpeep.iter().enumerate() {
                for (o, v) in p[(ld * 3 + k) * dhc..][..dhc].iter_mut().zip(part) {
                    *o += v;
                }
            }
        }
        let mut dx = vec![0f32; t_n * sh.slc];
        let wlt = mat(&self.inp.wl, wl_off, 1, gw);
        gemm(
            t_n,
            sh.slc,
            gw,
            mat(&da, 0, gw, 1),
            wlt,
            &mut dx,
            0,
            sh.slc,
            false,
        )?;
        Ok(dx)
    }
}

#[cfg(test)]
mod gemm_tests {
    use super::*;

    /// `gemm` against an f64 reference: row-major and transposed operands
    /// with offsets, padded output rows, overwrite and accumulate, sizes
    /// off the microkernel's blocks and large enough for several threads
    /// and K slices, on the current path (the portable one under
    /// `ONEDNN_MAX_CPU_ISA=sse41`).
    #[test]
    fn gemm_matches_a_reference() {
        for &(m, n, k) in &[
            (1, 1, 1),
            (5, 7, 3),
            (13, 33, 17),
            (64, 129, 300),
            (131, 70, 515),
        ] {
            for trans in [false, true] {
                for acc in [false, true] {
                    let value = |i: usize, s: usize| ((i * s + 3) % 19) as f32 / 8.0 - 1.0;
                    // A: m x k from offset 2 (k x m stored when transposed);
                    // B: k x n from offset 1 (n x k stored when transposed).
                    let (a_off, b_off, c_off) = (2, 1, 3);
                    let av: Vec<f32> = (0..a_off + m * k).map(|i| value(i, 7)).collect();
                    let bv: Vec<f32> = (0..b_off + k * n).map(|i| value(i, 5)).collect();
                    let (a, b) = if trans {
                        (mat(&av, a_off, 1, m), mat(&bv, b_off, 1, k))
                    } else {
                        (mat(&av, a_off, k, 1), mat(&bv, b_off, n, 1))
                    };
                    let ldc = n + 4;
                    let c0: Vec<f32> = (0..c_off + m * ldc).map(|i| value(i, 3)).collect();
                    let mut c = c0.clone();
                    gemm(m, n, k, a, b, &mut c, c_off, ldc, acc).unwrap();
                    for i in 0..m {
                        for j in 0..n {
                            let dot: f64 = (0..k)
                                .map(|kk| {
                                    let x = av[a.off + i * a.rs + kk * a.cs] as f64;
                                    x * bv[b.off + kk * b.rs + j * b.cs] as f64
                                })
                                .sum();
                            let at = c_off + i * ldc + j;
                            let want = dot + if acc { c0[at] as f64 } else { 0.0 };
                            assert!(
                                (c[at] as f64 - want).abs() <= 1e-4 * (1.0 + want.abs()),
                                "{m}x{n}x{k} trans {trans} acc {acc} ({i}, {j}): {} vs {want}",
                                c[at]
                            );
                        }
                        // The padding between rows stays as it was.
                        for j in n..ldc {
                            let at = c_off + i * ldc + j;
                            if at < c.len() {
                                assert_eq!(c[at].to_bits(), c0[at].to_bits());
                            }
                        }
                    }
                    assert_eq!(c[..c_off], c0[..c_off]);
                }
            }
        }
    }

    #[test]
    fn gemm_with_no_depth_clears_or_keeps() {
        let (a, b) = (vec![0f32; 1], vec![0f32; 1]);
        let mut c = vec![5f32; 6];
        gemm(
            2,
            3,
            0,
            mat(&a, 0, 0, 1),
            mat(&b, 0, 3, 1),
            &mut c,
            0,
            3,
            true,
        )
        .unwrap();
        assert_eq!(c, [5.0; 6]);
        gemm(
            2,
            3,
            0,
            mat(&a, 0, 0, 1),
            mat(&b, 0, 3, 1),
            &mut c,
            0,
            3,
            false,
        )
        .unwrap();
        assert_eq!(c, [0.0; 6]);
    }

    #[test]
    fn gemm_refuses_operands_out_of_bounds() {
        let (a, b) = (vec![1f32; 6], vec![1f32; 6]);
        let mut c = vec![0f32; 4];
        // A 2 x 3 fits, B 3 x 2 fits, C 2 x 2 with ldc 2 fits: fine.
        assert!(
            gemm(
                2,
                2,
                3,
                mat(&a, 0, 3, 1),
                mat(&b, 0, 2, 1),
                &mut c,
                0,
                2,
                false
            )
            .is_ok()
        );
        assert_eq!(c, [3.0; 4]);
        // A from offset 1 runs past its values.
        assert!(
            gemm(
                2,
                2,
                3,
                mat(&a, 1, 3, 1),
                mat(&b, 0, 2, 1),
                &mut c,
                0,
                2,
                false
            )
            .is_err()
        );
        // C rows that overlap (ldc < n).
        assert!(
            gemm(
                2,
                2,
                3,
                mat(&a, 0, 3, 1),
                mat(&b, 0, 2, 1),
                &mut c,
                0,
                1,
                false
            )
            .is_err()
        );
        // C past its end.
        assert!(
            gemm(
                2,
                2,
                3,
                mat(&a, 0, 3, 1),
                mat(&b, 0, 2, 1),
                &mut c,
                1,
                2,
                false
            )
            .is_err()
        );
    }
}
