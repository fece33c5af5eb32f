//! RNN on GPU engines (`ocl:rnn_gemm`): the CPU implementation's algorithm
//! (`cpu.rs`) on the device, every value kept there. The launch code
//! serves OpenCL and Level Zero engines through `core::gpu`.
//!
//! Layer: prims. Execution first copies the inputs into dense f32 arrays
//! of the scratchpad (`rnn_copy` of `rnn.cl`: any plain strided layout,
//! f32, bf16 or f16, src_layer in each direction's processing order), so that
//! inputs aliasing outputs are read before anything is written. Per
//! (direction, layer): one GEMM of the layer weights over all steps into
//! the workspace's gates, then per step one GEMM of the iteration weights
//! over the previous hidden state (GRU: two, the second over `r * h_prev`)
//! into the scratchpad and the cell's element-wise kernel; LSTMP projects
//! with one more GEMM. The GEMMs are `gemm.cl`'s tiled kernel (`GemmKernels`)
//! on dense f32 operands. The workspace has the CPU's layout ([`WsLayout`]),
//! so its size query answers the same on every engine; inference computes
//! in the scratchpad instead. Backward walks the steps back as `cpu.rs`
//! does, keeping the gates' gradients of every step, then computes the
//! weight gradients with one GEMM each over all steps and adds them
//! (or, with `diff_weights_overwrite`, stores them) into the user's.
//! Every command waits for the one before it (`ctx.deps` first); the
//! returned event is the last one. int8 inference (u8 data, s8 weights)
//! runs `ocl/int8.rs`: the same steps with `gemm.cl`'s integer GEMM.

mod int8;

use std::sync::Arc;

use super::{Cell, RnnOp};
use crate::abi::*;
use crate::core::engine::Engine;
use crate::core::error::{Error, Result};
use crate::core::gpu::{Event, GpuEngine, Kernel, KernelArg, Queue};
use crate::core::primitive::{ExecContext, Implementation, OpDesc};
use crate::prims::common::buffers::Buffer;
use crate::prims::common::dt::{CL_TYPES, Elem};
use crate::prims::common::gemm::ocl::{GemmKernels, GemmShape, Tiles};
use crate::prims::common::gemm::{Epilogue, Gemm, Operand};
use crate::prims::common::layout::Layout;
use crate::prims::common::post_ops::PostOpsPlan;

const RNN_CL: &str = include_str!("rnn.cl");

/// The program of `rnn.cl` (int8: with its int8 kernels and the op's
/// scales, [`int8::defines`]).
fn source(op: &RnnOp) -> String {
    let q8 = op.quant().map_or_else(String::new, int8::defines);
    format!("{q8}{CL_TYPES}{RNN_CL}")
}

/// Every argument the op reads or writes (but the workspace).
fn tensor_args(op: &RnnOp) -> Vec<i32> {
    let mut v = op.inputs();
    v.extend(op.outputs());
    v.retain(|a| *a != DNNL_ARG_WORKSPACE);
    v
}

/// `ocl:rnn_gemm` runs `op` on `engine`: f32, bf16 or f16 data (f16
/// forward only, as `check_types` allows) or int8 inference (u8 data, s8
/// weights, as `check_types` allows), plain strided layouts.
pub(super) fn accepts(op: &RnnOp, engine: &Engine) -> Result<()> {
    engine.gpu("rnn")?;
    let dt = op.data_type();
    if dt == dnnl_u8 {
        int8::accepts(op)?;
    } else if dt != dnnl_f32 && dt != dnnl_bf16 && dt != dnnl_f16 {
        return Err(Error::unimplemented(format!(
            "ocl:rnn_gemm runs f32, bf16, f16 and int8 (u8) data, not {}",
            super::dt_name(dt)
        )));
    }
    for arg in tensor_args(op) {
        let md = op
            .arg_md(arg)
            .ok_or_else(|| Error::runtime(format!("argument {arg} has no descriptor")))?;
        let l = Layout::new(md)?;
        if !l.inner_blocks().is_empty() {
            return Err(Error::unimplemented(format!(
                "ocl:rnn_gemm takes plain strided layouts; argument {arg} is blocked"
            )));
        }
        if !matches!(
            l.elem,
            Elem::F32 | Elem::Bf16 | Elem::F16 | Elem::U8 | Elem::S8
        ) {
            return Err(Error::unimplemented(format!(
                "ocl:rnn_gemm takes f32, bf16, f16, u8 and s8 tensors; argument {arg} is not"
            )));
        }
    }
    Ok(())
}

/// Sizes of the problem as `i64`.
#[derive(Clone, Copy)]
struct Sz {
    l: i64,
    d: i64,
    t: i64,
    n: i64,
    slc: i64,
    sic: i64,
    dhc: i64,
    dic: i64,
    gw: i64,
    bg: i64,
    w: i64,
}

impl Sz {
    fn of(op: &RnnOp) -> Sz {
        let d = op.dims();
        Sz {
            l: d.l,
            d: d.d,
            t: d.t,
            n: d.n,
            slc: d.slc,
            sic: d.sic,
            dhc: d.dhc,
            dic: d.dic,
            gw: d.g * d.dhc,
            bg: d.g + i64::from(op.cell().lbr()),
            w: op.ws_layout().w,
        }
    }
}

/// Where each dense array lives in the scratchpad (f32 elements; 0-sized
/// where unused).
#[derive(Clone, Copy, Default)]
struct Scratch {
    xs: i64,
    wl: i64,
    wi: i64,
    peep: i64,
    proj: i64,
    bias: i64,
    att: i64,
    it: i64,
    rh: i64,
    /// The workspace of inference.
    ws: i64,
    ddl: i64,
    dout: i64,
    dx: i64,
    dh: i64,
    dhh: i64,
    da: i64,
    dai: i64,
    drh: i64,
    dhe: i64,
    dhn: i64,
    dhg: i64,
    dc: i64,
    dwl: i64,
    dwi: i64,
    dproj: i64,
    dbias: i64,
    dpeep: i64,
    datt_parts: i64,
    datt: i64,
    /// int8: the s8 weights' column sums (layer, iteration: `L * D * GW`
    /// each; projection `L * D * DIC`), the projection GEMM's sums, the
    /// last layer's states as f32 by direction and dst_layer's values.
    comp: i64,
    pj: i64,
    q8_top: i64,
    q8_dst: i64,
    total: i64,
}

impl Scratch {
    fn of(op: &RnnOp) -> Scratch {
        let s = Sz::of(op);
        let bwd = op.is_backward();
        let lstm = op.cell() == Cell::Lstm;
        let lbr = op.cell().lbr();
        let gru = op.cell().gru_like() && !lbr;
        let has = |arg| op.has(arg);
        let tn = s.t * s.n;
        let ld = s.l * s.d;
        let mut at = 0i64;
        let mut take = |len: i64| {
            let here = at;
            // 16-element alignment for the GEMMs' vector loads.
            at += (len.max(0) + 15) / 16 * 16;
            here
        };
        let inference = !bwd && op.prop_kind() != dnnl_forward_training;
        let mut r = Scratch {
            xs: take(s.d * tn * s.slc),
            wl: take(ld * s.slc * s.gw),
            wi: take(ld * s.sic * s.gw),
            peep: take(if has(DNNL_ARG_WEIGHTS_PEEPHOLE) {
                ld * 3 * s.dhc
            } else {
                0
            }),
            proj: take(if has(DNNL_ARG_WEIGHTS_PROJECTION) {
                ld * s.dhc * s.dic
            } else {
                0
            }),
            bias: take(ld * s.bg * s.dhc),
            att: take(if has(DNNL_ARG_AUGRU_ATTENTION) { tn } else { 0 }),
            it: take(s.n * s.gw),
            rh: take(if gru {
                if bwd { tn * s.dhc } else { s.n * s.dhc }
            } else {
                0
            }),
            ws: take(if inference {
                op.ws_layout().elems(op.dims())
            } else {
                0
            }),
            ..Scratch::default()
        };
        if op.quant().is_some() {
            r.comp = take(ld * (2 * s.gw + s.dic));
            r.pj = take(s.n * s.dic);
            r.q8_top = take(s.d * tn * s.dic);
            r.q8_dst = take(tn * s.dic * s.d);
        }
        if bwd {
            r.ddl = take(s.d * tn * s.dic);
            r.dout = take(tn * s.dic.max(s.slc));
            r.dx = take(tn * s.slc.max(s.dic));
            r.dh = take(tn * s.dic);
            r.dhh = take(s.n * s.dhc);
            r.da = take(tn * s.gw);
            r.dai = take(if lbr { tn * s.gw } else { 0 });
            r.drh = take(if gru { s.n * s.sic } else { 0 });
            r.dhe = take(s.n * s.w);
            r.dhn = take(s.n * s.w);
            r.dhg = take(s.n * s.sic);
            r.dc = take(if lstm { s.n * s.dhc } else { 0 });
            r.dwl = take(s.slc * s.gw);
            r.dwi = take(s.sic * s.gw);
            r.dproj = take(if has(DNNL_ARG_WEIGHTS_PROJECTION) {
                s.dhc * s.dic
            } else {
                0
            });
            r.dbias = take(s.bg * s.dhc);
            r.dpeep = take(3 * s.dhc);
            r.datt_parts = take(if op.cell().augru() { tn * s.dhc } else { 0 });
            r.datt = take(tn);
        }
        r.total = at;
        r
    }
}

/// The scratchpad's bytes.
pub(super) fn scratchpad_bytes(op: &RnnOp) -> usize {
    (Scratch::of(op).total * 4) as usize
}

/// Builds the implementation for `op` on `engine` (its kernels built now).
pub(super) fn create(op: &Arc<RnnOp>, engine: &Engine) -> Result<Arc<dyn Implementation>> {
    let ocl = engine.gpu("rnn")?;
    let src = source(op);
    let k = |name: &str| ocl.kernel(&src, "", name);
    let epi = Epilogue {
        src_scale: false,
        wei_scale: None,
        dst_scale: false,
        zp_src: None,
        zp_wei: None,
        zp_dst: None,
        post_ops: PostOpsPlan::none(),
    };
    // Every GEMM takes the tiles of the one each step waits for, the
    // iteration GEMM (N x SIC by SIC x G·DHC): on an H200, LSTM N64 C1024
    // took 0.156 ms a step with the 128 x 128 tiles of `Tiles::for_device`,
    // where that GEMM alone ran in 0.074 ms through matmul's choice.
    let d = op.dims();
    let tiles = Tiles::for_gemm(
        ocl,
        Some(GemmShape {
            m: d.n,
            n: d.g * d.dhc,
            k: d.sic,
            copies: 1,
            wide: true,
            small: true,
            double: false,
        }),
    );
    let gemm = GemmKernels::new(Elem::F32, Elem::F32, Elem::F32, None, &epi, tiles);
    let bwd = if op.is_backward() {
        Some(BwdKernels {
            dh: k("rnn_bwd_dh")?,
            carry: k("rnn_bwd_carry")?,
            cell: k("rnn_bwd_cell")?,
            bias: k("rnn_bwd_bias")?,
            peephole: k("rnn_bwd_peephole")?,
            attention: k("rnn_bwd_attention")?,
        })
    } else {
        None
    };
    let q8 = if op.quant().is_some() {
        Some(int8::Kernels {
            col_sum: k("rnn_q8_col_sum")?,
            cell: k("rnn_q8_cell")?,
            proj: k("rnn_q8_proj")?,
            dst: k("rnn_q8_dst")?,
            gemm: GemmKernels::new(Elem::U8, Elem::S8, Elem::S32, None, &epi, tiles),
        })
    } else {
        None
    };
    Ok(Arc::new(OclRnn {
        op: op.clone(),
        scratch: Scratch::of(op),
        copy: k("rnn_copy")?,
        zero: k("rnn_zero")?,
        fwd_cell: k("rnn_fwd_cell")?,
        bwd,
        q8,
        gemm,
        tiles,
    }))
}

struct BwdKernels {
    dh: Kernel,
    carry: Kernel,
    cell: Kernel,
    bias: Kernel,
    peephole: Kernel,
    attention: Kernel,
}

/// The implementation (holds no engine: execution takes it from the stream).
struct OclRnn {
    op: Arc<RnnOp>,
    scratch: Scratch,
    copy: Kernel,
    zero: Kernel,
    fwd_cell: Kernel,
    bwd: Option<BwdKernels>,
    /// int8 inference's kernels.
    q8: Option<int8::Kernels>,
    gemm: GemmKernels,
    tiles: Tiles,
}

/// A strided view of up to 5 dimensions into a buffer: offset, strides
/// (elements), the element type as `rnn.cl` codes it ([`elem_code`]).
#[derive(Clone, Copy)]
struct View<'a> {
    buf: &'a Buffer,
    off: i64,
    elem: i32,
    st: [i64; 5],
}

/// A matrix operand of a GEMM: buffer, offset, row and column strides.
type Mat<'a> = (&'a Buffer, i64, i64, i64);

/// One execution: the queue and the chain of commands.
struct Run<'a> {
    imp: &'a OclRnn,
    q: Queue<'a>,
    ocl: GpuEngine<'a>,
    last: Vec<Event>,
}

impl<'a> Run<'a> {
    fn launch(&mut self, kernel: &Kernel, args: &[KernelArg], global: &[usize]) -> Result<()> {
        if global.contains(&0) {
            return Ok(());
        }
        let local: Vec<usize> = if global.len() == 2 {
            vec![global[0].min(32), 1]
        } else {
            vec![64.min(global[0])]
        };
        let global: Vec<usize> = global
            .iter()
            .zip(&local)
            .map(|(g, l)| g.div_ceil(*l) * l)
            .collect();
        let e = self
            .q
            .enqueue_kernel(kernel, args, &global, Some(&local), &self.last)?;
        self.last = vec![e];
        Ok(())
    }

    /// `dst (+)= src` over `dims` (leading ones where fewer than five).
    fn copy(&mut self, src: View, dst: View, dims: &[i64], add: bool) -> Result<()> {
        let mut n = [1i64; 5];
        n[5 - dims.len()..].copy_from_slice(dims);
        let total: i64 = n.iter().product();
        if total == 0 {
            return Ok(());
        }
        let mut args = vec![
            src.buf.kernel_arg()?,
            KernelArg::I64(src.off),
            KernelArg::I32(src.elem),
        ];
        args.extend(src.st.iter().map(|&s| KernelArg::I64(s)));
        args.push(dst.buf.kernel_arg()?);
        args.push(KernelArg::I64(dst.off));
        args.push(KernelArg::I32(dst.elem));
        args.extend(dst.st.iter().map(|&s| KernelArg::I64(s)));
        args.extend(n[1..].iter().map(|&s| KernelArg::I64(s)));
        args.push(KernelArg::I32(i32::from(add)));
        args.push(KernelArg::I64(total));
        let kernel = &self.imp.copy;
        self.launch(kernel, &args, &[total as usize])
    }

    fn zero(&mut self, buf: &Buffer, off: i64, count: i64) -> Result<()> {
        let args = [
            buf.kernel_arg()?,
            KernelArg::I64(off),
            KernelArg::I64(count),
        ];
        let kernel = &self.imp.zero;
        self.launch(kernel, &args, &[count.max(0) as usize])
    }

    /// `c[m x n]` (rows `c.2` apart) = `a[m x k] · b[k x n]`.
    fn gemm(
        &mut self,
        m: i64,
        n: i64,
        k: i64,
        a: Mat,
        b: Mat,
        c: (&Buffer, i64, i64),
    ) -> Result<()> {
        let kernels = &self.imp.gemm;
        self.gemm_with(kernels, [Elem::F32; 3], m, n, k, a, b, c)
    }

    /// [`Self::gemm`] with `kernels` on operands of types `elems` (A, B,
    /// C; offsets and strides in their elements).
    #[allow(clippy::too_many_arguments)]
    fn gemm_with(
        &mut self,
        kernels: &GemmKernels,
        elems: [Elem; 3],
        m: i64,
        n: i64,
        k: i64,
        a: Mat,
        b: Mat,
        c: (&Buffer, i64, i64),
    ) -> Result<()> {
        if m == 0 || n == 0 {
            return Ok(());
        }
        if k == 0 {
            // f32 or s32 zeros alike.
            for r in 0..m {
                self.zero(c.0, c.1 + r * c.2, n)?;
            }
            return Ok(());
        }
        let op = |elem, off, rs, cs| Operand {
            elem,
            off,
            rs,
            cs,
            bytes: 0,
        };
        let g = Gemm {
            m,
            n,
            k,
            batch: Vec::new(),
            a: op(elems[0], a.1, a.2, a.3),
            b: op(elems[1], b.1, b.2, b.3),
            c: op(elems[2], c.1, c.2, 1),
            bias: None,
        };
        let misaligned = [a.0, b.0]
            .iter()
            .any(|x| x.usm_addr().is_some_and(|p| p % 16 != 0));
        let kernel = kernels.kernel(self.ocl, &g, misaligned)?;
        let none = Buffer::None;
        let z = KernelArg::I64(0);
        let mut args = vec![
            a.0.kernel_arg()?,
            KernelArg::I64(a.1),
            KernelArg::I64(a.2),
            KernelArg::I64(a.3),
            z,
            z,
            b.0.kernel_arg()?,
            KernelArg::I64(b.1),
            KernelArg::I64(b.2),
            KernelArg::I64(b.3),
            z,
            z,
            c.0.kernel_arg()?,
            KernelArg::I64(c.1),
            KernelArg::I64(c.2),
            KernelArg::I64(1),
            z,
            z,
            none.kernel_arg()?,
            z,
            z,
            z,
            z,
            z,
            KernelArg::I64(m),
            KernelArg::I64(n),
            KernelArg::I64(k),
            KernelArg::I64(1),
            z,
        ];
        for _ in 0..6 {
            args.push(KernelArg::NullMem);
        }
        let t = self.imp.tiles;
        let (tm, tn) = (t.wg_m * t.rm, t.wg_n * t.rn);
        let global = [
            (n as usize).div_ceil(tn) * t.wg_n,
            (m as usize).div_ceil(tm) * t.wg_m,
            1,
        ];
        let local = [t.wg_n, t.wg_m, 1];
        let e = self
            .q
            .enqueue_kernel(&kernel, &args, &global, Some(&local), &self.last)?;
        self.last = vec![e];
        Ok(())
    }
}

/// The view of user tensor `arg` (its own strides and offset).
fn user_view<'b>(op: &RnnOp, arg: i32, buf: &'b Buffer) -> Result<(View<'b>, Vec<i64>)> {
    let md = op
        .arg_md(arg)
        .ok_or_else(|| Error::runtime(format!("argument {arg} is not the op's")))?;
    let l = Layout::new(md)?;
    let nd = l.ndims;
    let strides = l.outer_strides();
    let mut st = [0i64; 5];
    let mut off = l.offset0;
    for k in 0..nd {
        st[5 - nd + k] = strides[k];
        off += l.padded_offsets[k] * strides[k];
    }
    let bytes = l.byte_range().1;
    buf.check_holds(bytes, "an RNN tensor")?;
    Ok((
        View {
            buf,
            off,
            elem: elem_code(l.elem),
            st,
        },
        l.dims[..nd].to_vec(),
    ))
}

/// `rnn.cl`'s codes of element types: f32, bf16, f16, u8, s8.
const ELEM_F32: i32 = 0;
const ELEM_BF16: i32 = 1;
const ELEM_F16: i32 = 2;
const ELEM_U8: i32 = 3;
const ELEM_S8: i32 = 4;

/// `rnn.cl`'s code of `elem` (one of those `accepts` lets through).
fn elem_code(elem: Elem) -> i32 {
    match elem {
        Elem::Bf16 => ELEM_BF16,
        Elem::F16 => ELEM_F16,
        Elem::U8 => ELEM_U8,
        Elem::S8 => ELEM_S8,
        _ => ELEM_F32,
    }
}

/// A dense f32 view of `dims` (up to 5) at `off`.
fn dense<'b>(buf: &'b Buffer, off: i64, dims: &[i64]) -> View<'b> {
    let mut st = [0i64; 5];
    let mut s = 1;
    for (k, d) in dims.iter().enumerate().rev() {
        st[5 - dims.len() + k] = s;
        s *= d;
    }
    View {
        buf,
        off,
        elem: ELEM_F32,
        st,
    }
}

/// The `{L, D, N, cols}` states of every workspace block (`block` f32
/// elements apart): at `off` of the first, rows `row` apart, of type
/// `elem` (u8: offsets and strides in bytes).
fn ws_states<'b>(buf: &'b Buffer, off: i64, elem: i32, row: i64, s: &Sz, block: i64) -> View<'b> {
    let unit = if elem == ELEM_U8 { 4 } else { 1 };
    View {
        buf,
        off,
        elem,
        st: [0, unit * s.d * block, unit * block, row, 1],
    }
}

/// Whether direction `d` walks the time steps backwards.
fn reverse(op: &RnnOp, d: i64, s: &Sz) -> bool {
    op.direction() == dnnl_unidirectional_right2left || (d == 1 && s.d == 2)
}

fn cell_code(c: Cell) -> i32 {
    match c {
        Cell::Vanilla => 0,
        Cell::Lstm => 1,
        Cell::Gru => 2,
        Cell::LbrGru => 3,
        Cell::Augru => 4,
        Cell::LbrAugru => 5,
    }
}

fn act_code(op: &RnnOp) -> i32 {
    match op.activation() {
        Some(super::Activation::Relu) => 0,
        Some(super::Activation::Logistic) => 2,
        _ => 1,
    }
}

/// The user buffers of one execution.
struct Bufs {
    args: Vec<(i32, Buffer)>,
    scratch: Buffer,
    ws: Buffer,
}

impl Bufs {
    fn get(&self, arg: i32) -> Option<&Buffer> {
        self.args.iter().find(|(a, _)| *a == arg).map(|(_, b)| b)
    }
}

impl Implementation for OclRnn {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let op = &self.op;
        let q = ctx.queue()?;
        let ocl = ctx.stream.engine().gpu("rnn")?;
        let mut args = Vec::new();
        for arg in tensor_args(op) {
            args.push((arg, Buffer::of(ctx.arg(arg)?)?));
        }
        let scratch = Buffer::of(ctx.scratchpad()?)?;
        scratch.check_holds(scratchpad_bytes(op), "scratchpad")?;
        let ws_bytes = (op.ws_layout().elems(op.dims()) * 4) as usize;
        let ws = if op.arg_md(DNNL_ARG_WORKSPACE).is_some() {
            let b = Buffer::of(ctx.arg(DNNL_ARG_WORKSPACE)?)?;
            b.check_holds(ws_bytes, "workspace")?;
            b
        } else {
            Buffer::None
        };
        let bufs = Bufs { args, scratch, ws };
        let mut run = Run {
            imp: self,
            q,
            ocl,
            last: ctx.deps.to_vec(),
        };
        self.load_inputs(&mut run, &bufs)?;
        if let Some(k) = &self.q8 {
            self.forward_int8(k, &mut run, &bufs)?;
        } else if op.is_backward() {
            self.backward(&mut run, &bufs)?;
        } else {
            self.forward(&mut run, &bufs)?;
        }
        match run.last.len() {
            1 => Ok(run.last.pop()),
            _ => Ok(Some(run.q.marker(&run.last)?)),
        }
    }
}

/// Where one (layer, direction)'s values live: its index `ld`, its
/// workspace block's parts (f32 offsets into the workspace buffer: gates,
/// hidden states, cell states, LSTMP and LBR values), the block of the
/// layer below in the same direction (its hidden states; meaningful above
/// layer 0) and its dense f32 weights in the scratchpad.
#[derive(Clone, Copy)]
struct LayerAt {
    ld: i64,
    gates: i64,
    h: i64,
    c: i64,
    hh: i64,
    lbr: i64,
    prev_h: i64,
    wl: i64,
    wi: i64,
}

impl OclRnn {
    /// Where layer `l` of direction `d` lives.
    fn layer_at(&self, b: &Bufs, l: i64, d: i64) -> LayerAt {
        let op = &*self.op;
        let s = Sz::of(op);
        let sp = &self.scratch;
        let lay = *op.ws_layout();
        let (_, ws0) = self.ws(b);
        let ld = l * s.d + d;
        let base = ws0 + ld * lay.block;
        LayerAt {
            ld,
            gates: base + lay.gates,
            h: base + lay.h,
            c: base + lay.c,
            hh: base + lay.hh,
            lbr: base + lay.lbr,
            prev_h: base - s.d * lay.block + lay.h,
            wl: sp.wl + ld * s.slc * s.gw,
            wi: sp.wi + ld * s.sic * s.gw,
        }
    }

    /// The workspace: the user's (training, backward) or the scratchpad's,
    /// and its offset.
    fn ws<'b>(&self, b: &'b Bufs) -> (&'b Buffer, i64) {
        if matches!(b.ws, Buffer::None) {
            (&b.scratch, self.scratch.ws)
        } else {
            (&b.ws, 0)
        }
    }

    /// The dense copies of the inputs every pass reads.
    fn load_inputs(&self, run: &mut Run, b: &Bufs) -> Result<()> {
        let op = &*self.op;
        let s = Sz::of(op);
        let sp = &self.scratch;
        let sc = &b.scratch;
        let need = |arg: i32| {
            b.get(arg)
                .ok_or_else(|| Error::runtime(format!("argument {arg} missing")))
        };
        // int8: u8 src_layer and s8 weights stay integers (their bytes at
        // four times their regions' offsets), for the integer GEMMs.
        let int8 = op.quant().is_some();
        let held = |arg: i32, at: i64, dims: &[i64]| {
            let v = dense(sc, at, dims);
            match arg {
                DNNL_ARG_SRC_LAYER if int8 => int8::bytes(v, ELEM_U8),
                DNNL_ARG_WEIGHTS_LAYER | DNNL_ARG_WEIGHTS_ITER | DNNL_ARG_WEIGHTS_PROJECTION
                    if int8 =>
                {
                    int8::bytes(v, ELEM_S8)
                }
                _ => v,
            }
        };
        // src_layer in each direction's processing order.
        let src = need(DNNL_ARG_SRC_LAYER)?;
        let (v, dims) = user_view(op, DNNL_ARG_SRC_LAYER, src)?;
        for d in 0..s.d {
            let mut v = v;
            if reverse(op, d, &s) {
                v.off += (s.t - 1) * v.st[2];
                v.st[2] = -v.st[2];
            }
            let dst = held(DNNL_ARG_SRC_LAYER, sp.xs + d * s.t * s.n * s.slc, &dims);
            run.copy(v, dst, &dims, false)?;
        }
        for (arg, at) in [
            (DNNL_ARG_WEIGHTS_LAYER, sp.wl),
            (DNNL_ARG_WEIGHTS_ITER, sp.wi),
            (DNNL_ARG_WEIGHTS_PEEPHOLE, sp.peep),
            (DNNL_ARG_WEIGHTS_PROJECTION, sp.proj),
            (DNNL_ARG_AUGRU_ATTENTION, sp.att),
            (DNNL_ARG_BIAS, sp.bias),
        ] {
            if !op.has(arg) {
                continue;
            }
            let (v, dims) = user_view(op, arg, need(arg)?)?;
            // Logical order whatever the layout (backward's ldgoi too).
            run.copy(v, held(arg, at, &dims), &dims, false)?;
        }
        if !op.has(DNNL_ARG_BIAS) && !op.is_backward() {
            run.zero(sc, sp.bias, s.l * s.d * s.bg * s.dhc)?;
        }
        Ok(())
    }

    fn forward(&self, run: &mut Run, b: &Bufs) -> Result<()> {
        let op = &*self.op;
        let s = Sz::of(op);
        let lay = *op.ws_layout();
        let (ws, ws0) = self.ws(b);
        let block = lay.block;
        run.zero(ws, ws0, lay.elems(op.dims()))?;
        // The initial states.
        let states = [
            (DNNL_ARG_SRC_ITER, lay.h, s.w, s.sic),
            (DNNL_ARG_SRC_ITER_C, lay.c, s.dhc, s.dhc),
        ];
        for (arg, part, row, cols) in states {
            if let Some(buf) = b.get(arg) {
                let (v, _) = user_view(op, arg, buf)?;
                let dst = ws_states(ws, ws0 + part, ELEM_F32, row, &s, block);
                run.copy(v, dst, &[s.l, s.d, s.n, cols], false)?;
            }
        }
        for d in 0..s.d {
            for l in 0..s.l {
                self.forward_layer(run, b, l, d)?;
            }
        }
        // The outputs.
        if let Some(buf) = b.get(DNNL_ARG_DST_LAYER) {
            let (v, _) = user_view(op, DNNL_ARG_DST_LAYER, buf)?;
            for d in 0..s.d {
                let (ch, add) = match op.direction() {
                    dnnl_bidirectional_concat => (d * s.dic, false),
                    dnnl_bidirectional_sum => (0, d == 1),
                    _ => (0, false),
                };
                let mut v = v;
                v.off += ch * v.st[4];
                if reverse(op, d, &s) {
                    v.off += (s.t - 1) * v.st[2];
                    v.st[2] = -v.st[2];
                }
                let base = ws0 + (s.l - 1) * s.d * block + d * block + lay.h + s.n * s.w;
                let src = View {
                    buf: ws,
                    off: base,
                    elem: ELEM_F32,
                    st: [0, 0, s.n * s.w, s.w, 1],
                };
                run.copy(src, v, &[s.t, s.n, s.dic], add)?;
            }
        }
        let finals = [
            (DNNL_ARG_DST_ITER, lay.h + s.t * s.n * s.w, s.w, s.dic),
            (DNNL_ARG_DST_ITER_C, lay.c + s.t * s.n * s.dhc, s.dhc, s.dhc),
        ];
        for (arg, part, row, cols) in finals {
            if let Some(buf) = b.get(arg) {
                let (v, _) = user_view(op, arg, buf)?;
                let src = ws_states(ws, ws0 + part, ELEM_F32, row, &s, block);
                run.copy(src, v, &[s.l, s.d, s.n, cols], false)?;
            }
        }
        Ok(())
    }

    fn forward_layer(&self, run: &mut Run, b: &Bufs, l: i64, d: i64) -> Result<()> {
        let op = &*self.op;
        let s = Sz::of(op);
        let sp = &self.scratch;
        let sc = &b.scratch;
        let (ws, _) = self.ws(b);
        let at = self.layer_at(b, l, d);
        let (n, dhc, gw, w) = (s.n, s.dhc, s.gw, s.w);
        // The layer GEMM over all steps.
        let x: Mat = if l == 0 {
            (sc, sp.xs + d * s.t * n * s.slc, s.slc, 1)
        } else {
            (ws, at.prev_h + n * w, w, 1)
        };
        run.gemm(
            s.t * n,
            gw,
            s.slc,
            x,
            (sc, at.wl, gw, 1),
            (ws, at.gates, gw),
        )?;
        let cell = op.cell();
        let lbr = cell.lbr();
        let gru = cell.gru_like() && !lbr;
        let projection = op.has(DNNL_ARG_WEIGHTS_PROJECTION);
        let rounding = match op.data_type() {
            dnnl_bf16 => ELEM_BF16,
            dnnl_f16 => ELEM_F16,
            _ => ELEM_F32,
        };
        for st in 0..s.t {
            let t = if reverse(op, d, &s) { s.t - 1 - st } else { st };
            let g_at = at.gates + st * n * gw;
            let hp_at = at.h + st * n * w;
            let h_at = at.h + (st + 1) * n * w;
            let cols = if gru { 2 * dhc } else { gw };
            run.gemm(
                n,
                cols,
                s.sic,
                (ws, hp_at, w, 1),
                (sc, at.wi, gw, 1),
                (sc, sp.it, gw),
            )?;
            let opt = |on: bool, at: i64| if on { at } else { -1 };
            let cell_args = |part: i32| -> Result<Vec<KernelArg>> {
                Ok(vec![
                    KernelArg::I32(cell_code(cell)),
                    KernelArg::I32(act_code(op)),
                    KernelArg::F32(op.alpha()),
                    KernelArg::I32(rounding),
                    KernelArg::I32(part),
                    KernelArg::I64(n),
                    KernelArg::I64(dhc),
                    KernelArg::I64(gw),
                    KernelArg::I64(w),
                    ws.kernel_arg()?,
                    KernelArg::I64(g_at),
                    KernelArg::I64(hp_at),
                    KernelArg::I64(h_at),
                    KernelArg::I64(at.c + st * n * dhc),
                    KernelArg::I64(opt(projection, at.hh + st * n * dhc)),
                    KernelArg::I64(at.lbr + st * n * dhc),
                    sc.kernel_arg()?,
                    KernelArg::I64(sp.it),
                    KernelArg::I64(sp.bias + at.ld * s.bg * dhc),
                    KernelArg::I64(opt(
                        op.has(DNNL_ARG_WEIGHTS_PEEPHOLE),
                        sp.peep + at.ld * 3 * dhc,
                    )),
                    KernelArg::I64(opt(op.has(DNNL_ARG_AUGRU_ATTENTION), sp.att + t * n)),
                    KernelArg::I64(sp.rh),
                ])
            };
            let grid = [dhc as usize, n as usize];
            let kernel = &self.fwd_cell;
            run.launch(kernel, &cell_args(0)?, &grid)?;
            if gru {
                // The output gate's iteration part over r * h_prev.
                run.gemm(
                    n,
                    dhc,
                    s.sic,
                    (sc, sp.rh, dhc, 1),
                    (sc, at.wi + 2 * dhc, gw, 1),
                    (sc, sp.it + 2 * dhc, gw),
                )?;
                run.launch(kernel, &cell_args(1)?, &grid)?;
            }
            if projection {
                let r_off = sp.proj + at.ld * dhc * s.dic;
                run.gemm(
                    n,
                    s.dic,
                    dhc,
                    (ws, at.hh + st * n * dhc, dhc, 1),
                    (sc, r_off, s.dic, 1),
                    (ws, h_at, w),
                )?;
            }
        }
        Ok(())
    }

    fn backward(&self, run: &mut Run, b: &Bufs) -> Result<()> {
        let op = &*self.op;
        let s = Sz::of(op);
        let sp = &self.scratch;
        let sc = &b.scratch;
        let tn = s.t * s.n;
        // The gradient of dst_layer, each direction's part in its
        // processing order (read before anything is written).
        let ddl = b
            .get(DNNL_ARG_DIFF_DST_LAYER)
            .ok_or_else(|| Error::runtime("diff_dst_layer missing"))?;
        let (v, _) = user_view(op, DNNL_ARG_DIFF_DST_LAYER, ddl)?;
        for d in 0..s.d {
            let ch = if op.direction() == dnnl_bidirectional_concat {
                d * s.dic
            } else {
                0
            };
            let mut v = v;
            v.off += ch * v.st[4];
            if reverse(op, d, &s) {
                v.off += (s.t - 1) * v.st[2];
                v.st[2] = -v.st[2];
            }
            let dims = [s.t, s.n, s.dic];
            run.copy(v, dense(sc, sp.ddl + d * tn * s.dic, &dims), &dims, false)?;
        }
        for d in 0..s.d {
            let mut dout = sp.ddl + d * tn * s.dic;
            let mut spare = [sp.dx, sp.dout];
            for l in (0..s.l).rev() {
                let dx = spare[0];
                self.backward_layer(run, b, l, d, dout, dx)?;
                if l == 0 {
                    if let Some(buf) = b.get(DNNL_ARG_DIFF_SRC_LAYER) {
                        let (mut v, _) = user_view(op, DNNL_ARG_DIFF_SRC_LAYER, buf)?;
                        if reverse(op, d, &s) {
                            v.off += (s.t - 1) * v.st[2];
                            v.st[2] = -v.st[2];
                        }
                        let dims = [s.t, s.n, s.slc];
                        run.copy(dense(sc, dx, &dims), v, &dims, d > 0)?;
                    }
                } else {
                    dout = dx;
                    spare.swap(0, 1);
                }
            }
        }
        if let (Some(buf), Some(k)) = (b.get(DNNL_ARG_DIFF_AUGRU_ATTENTION), &self.bwd) {
            let args = [
                KernelArg::I64(tn),
                KernelArg::I64(s.dhc),
                sc.kernel_arg()?,
                KernelArg::I64(sp.datt_parts),
                KernelArg::I64(sp.datt),
            ];
            run.launch(&k.attention, &args, &[tn as usize])?;
            let (v, _) = user_view(op, DNNL_ARG_DIFF_AUGRU_ATTENTION, buf)?;
            let dims = [s.t, s.n, 1];
            run.copy(dense(sc, sp.datt, &dims), v, &dims, false)?;
        }
        Ok(())
    }

    /// The slice `(l, d)` of user tensor `arg` (`{L, D, ...}`).
    fn slice<'b>(&self, b: &'b Bufs, arg: i32, l: i64, d: i64) -> Result<Option<View<'b>>> {
        let Some(buf) = b.get(arg) else {
            return Ok(None);
        };
        let (mut v, dims) = user_view(&self.op, arg, buf)?;
        let first = 5 - dims.len();
        v.off += l * v.st[first] + d * v.st[first + 1];
        v.st[first] = 0;
        v.st[first + 1] = 0;
        Ok(Some(v))
    }

    /// One (layer, direction) backward: from the gradient of its output by
    /// step (`dout`, rows DIC) to its input's (`dx`, rows SLC), the weight
    /// gradients and diff_src_iter(_c).
    fn backward_layer(
        &self,
        run: &mut Run,
        b: &Bufs,
        l: i64,
        d: i64,
        dout: i64,
        dx: i64,
    ) -> Result<()> {
        let op = &*self.op;
        let k = self
            .bwd
            .as_ref()
            .ok_or_else(|| Error::runtime("backward kernels missing"))?;
        let s = Sz::of(op);
        let sp = &self.scratch;
        let sc = &b.scratch;
        let (ws, _) = self.ws(b);
        let at = self.layer_at(b, l, d);
        let (n, dhc, gw, w, sic, dic) = (s.n, s.dhc, s.gw, s.w, s.sic, s.dic);
        let tn = s.t * n;
        let cell = op.cell();
        let lbr = cell.lbr();
        let gru = cell.gru_like() && !lbr;
        let lstm = cell == Cell::Lstm;
        let projection = op.has(DNNL_ARG_WEIGHTS_PROJECTION);
        // The gradients carried from step to step.
        run.zero(sc, sp.dhn, n * w)?;
        run.zero(sc, sp.dhe, n * w)?;
        if let Some(v) = self.slice(b, DNNL_ARG_DIFF_DST_ITER, l, d)? {
            let dst = View {
                buf: sc,
                off: sp.dhn,
                elem: ELEM_F32,
                st: [0, 0, 0, w, 1],
            };
            run.copy(v, dst, &[n, dic], false)?;
        }
        if lstm {
            run.zero(sc, sp.dc, n * dhc)?;
            if let Some(v) = self.slice(b, DNNL_ARG_DIFF_DST_ITER_C, l, d)? {
                run.copy(v, dense(sc, sp.dc, &[n, dhc]), &[n, dhc], false)?;
            }
        }
        let opt = |on: bool, at: i64| if on { at } else { -1 };
        for st in (0..s.t).rev() {
            let t = if reverse(op, d, &s) { s.t - 1 - st } else { st };
            let g_at = at.gates + st * n * gw;
            let hp_at = at.h + st * n * w;
            let h_at = at.h + (st + 1) * n * w;
            let dh_at = sp.dh + st * n * dic;
            let da_at = sp.da + st * n * gw;
            let dai_at = sp.dai + st * n * gw;
            let args = [
                KernelArg::I64(n),
                KernelArg::I64(dic),
                KernelArg::I64(w),
                sc.kernel_arg()?,
                KernelArg::I64(dh_at),
                KernelArg::I64(dout + st * n * dic),
                KernelArg::I64(sp.dhn),
            ];
            run.launch(&k.dh, &args, &[dic as usize, n as usize])?;
            let dhh = if projection {
                let r_off = sp.proj + at.ld * dhc * dic;
                run.gemm(
                    n,
                    dhc,
                    dic,
                    (sc, dh_at, dic, 1),
                    (sc, r_off, 1, dic),
                    (sc, sp.dhh, dhc),
                )?;
                (sp.dhh, dhc)
            } else {
                (dh_at, dic)
            };
            let cell_args = |part: i32| -> Result<Vec<KernelArg>> {
                Ok(vec![
                    KernelArg::I32(cell_code(cell)),
                    KernelArg::I32(act_code(op)),
                    KernelArg::F32(op.alpha()),
                    KernelArg::I32(part),
                    KernelArg::I64(n),
                    KernelArg::I64(dhc),
                    KernelArg::I64(gw),
                    KernelArg::I64(w),
                    KernelArg::I64(sic),
                    ws.kernel_arg()?,
                    KernelArg::I64(g_at),
                    KernelArg::I64(hp_at),
                    KernelArg::I64(h_at),
                    KernelArg::I64(at.c + st * n * dhc),
                    KernelArg::I64(at.lbr + st * n * dhc),
                    sc.kernel_arg()?,
                    KernelArg::I64(dhh.0),
                    KernelArg::I64(dhh.1),
                    KernelArg::I64(da_at),
                    KernelArg::I64(sp.dc),
                    KernelArg::I64(sp.dhe),
                    KernelArg::I64(dai_at),
                    KernelArg::I64(sp.rh + st * n * dhc),
                    KernelArg::I64(sp.drh),
                    KernelArg::I64(opt(
                        op.has(DNNL_ARG_WEIGHTS_PEEPHOLE),
                        sp.peep + at.ld * 3 * dhc,
                    )),
                    KernelArg::I64(opt(op.has(DNNL_ARG_AUGRU_ATTENTION), sp.att + t * n)),
                    KernelArg::I64(opt(cell.augru(), sp.datt_parts + st * n * dhc)),
                ])
            };
            let grid = [dhc as usize, n as usize];
            run.launch(&k.cell, &cell_args(0)?, &grid)?;
            if gru {
                // o's iteration part saw r * h_prev.
                run.gemm(
                    n,
                    sic,
                    dhc,
                    (sc, da_at + 2 * dhc, gw, 1),
                    (sc, at.wi + 2 * dhc, 1, gw),
                    (sc, sp.drh, sic),
                )?;
                run.launch(&k.cell, &cell_args(1)?, &grid)?;
            }
            // Through the iteration weights.
            let (a_at, depth) = match cell {
                Cell::Vanilla | Cell::Lstm => (da_at, gw),
                Cell::Gru | Cell::Augru => (da_at, 2 * dhc),
                Cell::LbrGru | Cell::LbrAugru => (dai_at, gw),
            };
            run.gemm(
                n,
                sic,
                depth,
                (sc, a_at, gw, 1),
                (sc, at.wi, 1, gw),
                (sc, sp.dhg, sic),
            )?;
            let args = [
                KernelArg::I64(n),
                KernelArg::I64(sic),
                KernelArg::I64(w),
                sc.kernel_arg()?,
                KernelArg::I64(sp.dhn),
                KernelArg::I64(sp.dhe),
                KernelArg::I64(sp.dhg),
            ];
            run.launch(&k.carry, &args, &[w as usize, n as usize])?;
        }
        // diff_src_iter(_c): what reached the initial states.
        if let Some(v) = self.slice(b, DNNL_ARG_DIFF_SRC_ITER, l, d)? {
            let src = View {
                buf: sc,
                off: sp.dhn,
                elem: ELEM_F32,
                st: [0, 0, 0, w, 1],
            };
            run.copy(src, v, &[n, sic], false)?;
        }
        if lstm && let Some(v) = self.slice(b, DNNL_ARG_DIFF_SRC_ITER_C, l, d)? {
            run.copy(dense(sc, sp.dc, &[n, dhc]), v, &[n, dhc], false)?;
        }
        // The weight gradients over all steps.
        let hp_all: Mat = (ws, at.h, 1, w);
        match cell {
            Cell::Gru | Cell::Augru => {
                run.gemm(
                    sic,
                    2 * dhc,
                    tn,
                    hp_all,
                    (sc, sp.da, gw, 1),
                    (sc, sp.dwi, gw),
                )?;
                run.gemm(
                    sic,
                    dhc,
                    tn,
                    (sc, sp.rh, 1, dhc),
                    (sc, sp.da + 2 * dhc, gw, 1),
                    (sc, sp.dwi + 2 * dhc, gw),
                )?;
            }
            _ => {
                let da_all = if lbr { sp.dai } else { sp.da };
                run.gemm(sic, gw, tn, hp_all, (sc, da_all, gw, 1), (sc, sp.dwi, gw))?;
            }
        }
        let x: Mat = if l == 0 {
            (sc, sp.xs + d * tn * s.slc, 1, s.slc)
        } else {
            (ws, at.prev_h + n * w, 1, w)
        };
        run.gemm(s.slc, gw, tn, x, (sc, sp.da, gw, 1), (sc, sp.dwl, gw))?;
        if projection {
            run.gemm(
                dhc,
                dic,
                tn,
                (ws, at.hh, 1, dhc),
                (sc, sp.dh, dic, 1),
                (sc, sp.dproj, dic),
            )?;
        }
        let bias_len = s.bg * dhc;
        let args = [
            KernelArg::I64(tn),
            KernelArg::I64(gw),
            KernelArg::I64(dhc),
            KernelArg::I64(bias_len),
            sc.kernel_arg()?,
            KernelArg::I64(sp.da),
            KernelArg::I64(sp.dai),
            KernelArg::I64(sp.dbias),
        ];
        run.launch(&k.bias, &args, &[bias_len as usize])?;
        if op.has(DNNL_ARG_WEIGHTS_PEEPHOLE) {
            let args = [
                KernelArg::I64(s.t),
                KernelArg::I64(n),
                KernelArg::I64(dhc),
                KernelArg::I64(gw),
                ws.kernel_arg()?,
                KernelArg::I64(at.c),
                sc.kernel_arg()?,
                KernelArg::I64(sp.da),
                KernelArg::I64(sp.dpeep),
            ];
            run.launch(&k.peephole, &args, &[dhc as usize])?;
        }
        let add = !op.overwrites_diff_weights();
        let g = gw / dhc;
        for (arg, at, dims) in [
            (DNNL_ARG_DIFF_WEIGHTS_LAYER, sp.dwl, vec![s.slc, g, dhc]),
            (DNNL_ARG_DIFF_WEIGHTS_ITER, sp.dwi, vec![sic, g, dhc]),
            (DNNL_ARG_DIFF_WEIGHTS_PEEPHOLE, sp.dpeep, vec![3, dhc]),
            (DNNL_ARG_DIFF_WEIGHTS_PROJECTION, sp.dproj, vec![dhc, dic]),
            (DNNL_ARG_DIFF_BIAS, sp.dbias, vec![s.bg, dhc]),
        ] {
            if let Some(v) = self.slice(b, arg, l, d)? {
                run.copy(dense(sc, at, &dims), v, &dims, add)?;
            }
        }
        // The input's gradient.
        run.gemm(
            tn,
            s.slc,
            gw,
            (sc, sp.da, gw, 1),
            (sc, at.wl, 1, gw),
            (sc, dx, s.slc),
        )?;
        Ok(())
    }
}
