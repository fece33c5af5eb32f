//! The implementations of transfer plans (see `plan.rs`) that reorder, sum
//! and concat list through [`plan_impls`]: [`Host`] (`cpu:*`, the CPU
//! engine, `run_host` over the arguments' host buffers), and on GPU engines
//! (the launch code serves OpenCL and Level Zero engines through
//! `core::gpu`), best first:
//! - [`Copy`] (`ocl:*_copy`): one dense source, same type and layout as the
//!   destination, no scaling: `clEnqueueCopyBuffer` (buffers), or the
//!   generic kernel (USM);
//! - for reorders only ([`reorder_impls`]), the blocked fast path
//!   (`ocl:reorder_blocked`, `blocked.rs` over `blocked.cl`): layouts with
//!   blocks, and plain ones the transposition does not take;
//! - [`Transpose`] (`ocl:*_transpose`): one pass, both offsets linear in
//!   the walk, no padding or quantization, the source most contiguous along
//!   another loop than the destination's innermost (nchw to nhwc, ab to
//!   ba): 32x32 tiles through local memory (`xfer_tile`, in the same
//!   program), so reads and writes both coalesce;
//! - [`Generic`] (`ocl:*_generic`): `xfer.cl`'s one kernel, enqueued once
//!   per pass, in order, after the execution's events. Everything about the
//!   problem is a kernel argument (by-value structs, under the 1024 bytes
//!   of parameters every device takes), so an engine builds the program
//!   once for every shape, layout and type pair (twice with tensors too
//!   large for `int` indices). Where offsets are linear in the walk (plain,
//!   permuted and strided layouts, a blocked layout walked along its own
//!   blocks) the kernel adds strides instead of dividing. It takes up to 6
//!   dimensions and 4 inner blocks per layout;
//! - [`CrossEngine`] (`ocl:cross_engine_host`): one side is host memory of
//!   a CPU engine. The stream is drained, the OpenCL side mapped, the plan
//!   run on the host (`run_host`), and the mapping written back: a reorder
//!   between engines is a host transfer in any case.
//!
//! Layer: prims, over `core` (engine, memory, `core::gpu`).

// Dimension loops index several parallel arrays by the same `d`.
#![allow(clippy::needless_range_loop)]

use std::ffi::CStr;
use std::sync::Arc;

use super::plan::{Pass, Plan, Quant, QuantArg, SCRATCH_ARG, linear, plan_inputs, run_host};
use crate::abi::{DNNL_ARG_ATTR_SCALES, DNNL_ARG_ATTR_ZERO_POINTS};
use crate::core::engine::{Backend, Engine};
use crate::core::error::{Error, Result};
use crate::core::gpu::{Event, Kernel, KernelArg};
use crate::core::primitive::{ExecContext, Impl, Implementation};
use crate::prims::common::buffers::Buffer;
use crate::prims::common::dt::Elem;
use crate::prims::common::layout::Layout;

/// The kernel's source: the shared element types, then `xfer.cl`.
pub const SOURCE: &str = concat!(include_str!("../types.cl"), include_str!("xfer.cl"));

const MAXD: usize = 6;
const MAXL: usize = 8;
const MAXI: usize = 4;
const LOCAL: usize = 256;

/// Why `layout` cannot go to the generic kernel, if it cannot.
pub fn kernel_limits(layout: &Layout) -> Result<()> {
    if layout.ndims > MAXD || layout.inner_blocks().len() > MAXI {
        return Err(Error::unimplemented(format!(
            "the OpenCL kernel takes up to {MAXD} dimensions and {MAXI} inner blocks"
        )));
    }
    Ok(())
}

pub(super) fn plan_limits(plan: &Plan) -> Result<()> {
    kernel_limits(&plan.dst)?;
    if !plan.dst.is_non_overlapping() {
        return Err(Error::unimplemented(
            "the destination layout overlaps itself",
        ));
    }
    for pass in &plan.passes {
        if pass.loops.len() > MAXL {
            return Err(Error::unimplemented("too many loops for the OpenCL kernel"));
        }
        if let Some((_, l)) = &pass.src {
            kernel_limits(l)?;
        }
    }
    Ok(())
}

fn elem_code(e: Elem) -> i32 {
    match e {
        Elem::F32 => 0,
        Elem::F16 => 1,
        Elem::Bf16 => 2,
        Elem::S32 => 3,
        Elem::S8 => 4,
        Elem::U8 => 5,
    }
}

/// `lay_t`'s bytes: `shift` maps the kernel's logical positions to the
/// layout's padded ones.
fn lay_bytes(l: &Layout, shift: &[i64]) -> Vec<u8> {
    let mut v = vec![l.offset0];
    let mut outer = [0i64; MAXD];
    let mut blk = [1i64; MAXD];
    let mut sh = [0i64; MAXD];
    let n = l.ndims;
    outer[..n].copy_from_slice(l.outer_strides());
    blk[..n].copy_from_slice(l.block_sizes());
    sh[..n].copy_from_slice(&shift[..n]);
    v.extend(outer);
    v.extend(blk);
    v.extend(sh);
    let inner = l.inner_blocks();
    let mut cols = [[1i64; MAXI], [1i64; MAXI], [0i64; MAXI]];
    let mut dims = [0i32; MAXI];
    for (b, &(dim, div, size, stride)) in inner.iter().enumerate() {
        dims[b] = dim as i32;
        cols[0][b] = div;
        cols[1][b] = size;
        cols[2][b] = stride;
    }
    for c in cols {
        v.extend(c);
    }
    let mut bytes: Vec<u8> = v.iter().flat_map(|x| x.to_ne_bytes()).collect();
    bytes.extend(dims.iter().flat_map(|x| x.to_ne_bytes()));
    bytes
}

/// Flags of the kernel for a pass's linear walks.
const F_LIN_SRC: i32 = 32;
const F_LIN_DST: i32 = 64;
const F_BOUNDS: i32 = 128;

/// `walk_t`'s bytes, and the flags for linear offsets and bounds.
fn walk_bytes(pass: &Pass, dst: &Layout) -> (Vec<u8>, i32) {
    let n = dst.ndims;
    let mut flags = 0;
    let (mut soff0, mut sstr_v) = (0, vec![0; pass.loops.len()]);
    if let Some((_, sl)) = &pass.src {
        let start: Vec<i64> = (0..n).map(|d| pass.base[d] + pass.shift[d]).collect();
        if let Some((o, s)) = linear(sl, &pass.loops, &start) {
            flags |= F_LIN_SRC;
            (soff0, sstr_v) = (o, s);
        }
    }
    let (mut doff0, mut dstr_v) = (0, vec![0; pass.loops.len()]);
    if let Some((o, s)) = linear(dst, &pass.loops, &pass.base[..n]) {
        flags |= F_LIN_DST;
        (doff0, dstr_v) = (o, s);
    }
    if dst.has_padding() || pass.skip_inside {
        flags |= F_BOUNDS;
    }
    let mut size = [1i64; MAXL];
    let mut dim = [0i32; MAXL];
    let mut unit = [0i64; MAXL];
    let mut sstr = [0i64; MAXL];
    let mut dstr = [0i64; MAXL];
    // Right-aligned: the kernel peels loops from the last one.
    let off = MAXL - pass.loops.len();
    for (k, l) in pass.loops.iter().enumerate() {
        size[off + k] = l.size;
        dim[off + k] = l.dim as i32;
        unit[off + k] = l.unit;
        sstr[off + k] = sstr_v[k];
        dstr[off + k] = dstr_v[k];
    }
    let mut v = vec![pass.total];
    v.extend(size);
    v.extend(unit);
    v.extend(sstr);
    v.extend(dstr);
    v.push(soff0);
    v.push(doff0);
    let mut base = [0i64; MAXD];
    let mut dims = [1i64; MAXD];
    for d in 0..n {
        base[d] = pass.base[d] - dst.padded_offsets[d];
        dims[d] = dst.dims[d];
    }
    v.extend(base);
    v.extend(dims);
    let mut bytes: Vec<u8> = v.iter().flat_map(|x| x.to_ne_bytes()).collect();
    bytes.extend(dim.iter().flat_map(|x| x.to_ne_bytes()));
    (bytes, flags)
}

/// Whether every index of `plan` fits the kernel's `int` build.
pub(super) fn fits_int(plan: &Plan) -> bool {
    let limit = i64::from(i32::MAX) / 2;
    let ext = |l: &Layout| l.offset0 + l.extent() < limit && l.padded_nelems() < limit;
    ext(&plan.dst)
        && plan.scratch.as_ref().is_none_or(ext)
        && plan
            .passes
            .iter()
            .all(|p| p.total < limit && p.src.as_ref().is_none_or(|(_, l)| ext(l)))
}

/// The generic kernel for `plan` on `engine`.
fn build(engine: &Engine, plan: &Plan) -> Result<(Kernel, usize)> {
    build_with(engine, !fits_int(plan))
}

/// The generic kernel with `int` or (`long_idx`) `long` indices.
fn build_with(engine: &Engine, long_idx: bool) -> Result<(Kernel, usize)> {
    let ocl = engine.gpu("reorder")?;
    let options = if long_idx { "-DIDX_T=long" } else { "" };
    let kernel = ocl.kernel(SOURCE, options, "xfer")?;
    let local = ocl.work_group_size(&kernel)?.clamp(1, LOCAL);
    Ok((kernel, local))
}

/// Whether the plan runs through its scratch tensor (the scratchpad).
fn scratchpad_used(plan: &Plan) -> bool {
    plan.scratch.as_ref().is_some_and(|l| l.padded_nelems() > 0)
}

/// The buffers of a plan's arguments, checked against what the plan reads
/// and writes.
pub(super) fn buffers(plan: &Plan, ctx: &ExecContext) -> Result<Vec<(i32, Buffer)>> {
    let mut out = Vec::new();
    for (arg, bytes) in plan_inputs(plan) {
        let memory = ctx.arg(arg)?;
        let b = if is_quant(arg) {
            Buffer::values(memory, bytes, "scales or zero points")?
        } else {
            Buffer::of(memory)?
        };
        if bytes > 0 {
            b.check_holds(bytes, "input")?;
        }
        out.push((arg, b));
    }
    let d = Buffer::of(ctx.arg(plan.dst_arg)?)?;
    if plan.dst.padded_nelems() > 0 {
        d.check_holds(plan.dst.byte_range().1, "destination")?;
    }
    out.push((plan.dst_arg, d));
    Ok(out)
}

/// Whether `arg` is a quantization array (scales or zero points).
fn is_quant(arg: i32) -> bool {
    arg & (DNNL_ARG_ATTR_SCALES | DNNL_ARG_ATTR_ZERO_POINTS) != 0
}

pub(super) fn find(buffers: &[(i32, Buffer)], arg: i32) -> Result<&Buffer> {
    buffers
        .iter()
        .find(|(a, _)| *a == arg)
        .map(|(_, b)| b)
        .ok_or_else(|| Error::invalid(format!("execution argument {arg} is missing")))
}

/// Enqueues every pass of `plan` with `kernel`.
fn enqueue_plan(plan: &Plan, kernel: &Kernel, local: usize, ctx: &ExecContext) -> Result<Event> {
    let queue = ctx.queue()?;
    let mut bufs = buffers(plan, ctx)?;
    if scratchpad_used(plan) {
        bufs.push((SCRATCH_ARG, Buffer::of(ctx.scratchpad()?)?));
    }
    let mut last: Option<Event> = None;
    if plan.dst.padded_nelems() > 0 {
        for pass in plan.passes.iter().filter(|p| p.total > 0) {
            let (tgt, tgt_arg) = match (&plan.scratch, pass.to_scratch) {
                (Some(l), true) => (l, SCRATCH_ARG),
                _ => (&plan.dst, plan.dst_arg),
            };
            let dst = find(&bufs, tgt_arg)?;
            let null = Buffer::None;
            let n = tgt.ndims;
            let dst_shift: Vec<i64> = tgt.padded_offsets[..n].to_vec();
            let (src, src_lay) = match &pass.src {
                Some((arg, l)) => {
                    let shift: Vec<i64> = (0..n).map(|d| pass.shift[d] + dst_shift[d]).collect();
                    (find(&bufs, *arg)?, lay_bytes(l, &shift))
                }
                None => (&null, lay_bytes(tgt, &dst_shift)),
            };
            let sdt = pass.src.as_ref().map_or(0, |(_, l)| elem_code(l.elem));
            let dst_lay = lay_bytes(tgt, &dst_shift);
            let (walk, lin_flags) = walk_bytes(pass, tgt);
            let q = pass.quant;
            let mut flags = lin_flags;
            let mut quant = Vec::new();
            for (bit, p) in [
                (1, q.src_scale),
                (2, q.dst_scale),
                (4, q.src_zp),
                (8, q.dst_zp),
            ] {
                match p {
                    Some(QuantArg { arg, mask }) => {
                        flags |= bit;
                        quant.push((Some(find(&bufs, arg)?), mask));
                    }
                    None => quant.push((None, 0)),
                }
            }
            if pass.skip_inside {
                flags |= 16;
            }
            let mut args = vec![
                src.kernel_arg()?,
                KernelArg::Bytes(&src_lay),
                KernelArg::I32(sdt),
                dst.kernel_arg()?,
                KernelArg::Bytes(&dst_lay),
                KernelArg::I32(elem_code(tgt.elem)),
                KernelArg::Bytes(&walk),
                KernelArg::F32(pass.alpha),
                KernelArg::F32(pass.beta),
                KernelArg::I32(flags),
            ];
            for (b, mask) in &quant {
                args.push(match b {
                    Some(b) => b.kernel_arg()?,
                    None => KernelArg::NullMem,
                });
                args.push(KernelArg::I32(*mask));
            }
            let global = (pass.total as usize).div_ceil(local) * local;
            let wait: Vec<Event> = match &last {
                Some(e) => vec![e.clone()],
                None => ctx.deps.to_vec(),
            };
            last = Some(queue.enqueue_kernel(kernel, &args, &[global], Some(&[local]), &wait)?);
        }
    }
    match last {
        Some(e) => Ok(e),
        None => queue.marker(ctx.deps),
    }
}

/// What the implementations of a plan need of their op (reorder, sum and
/// concat are each a plan).
pub trait PlanOp: Send + Sync + 'static {
    /// The plan.
    fn plan(&self) -> &Arc<Plan>;
    /// Whether the op is between a CPU and a GPU engine.
    fn cross(&self) -> bool {
        false
    }
}

/// The implementations of a plan, best first, named for the kind:
/// `names` are those of the CPU, copy, generic and transposing ones.
pub const fn plan_impls<O: PlanOp>(names: [&'static CStr; 4]) -> [Impl<O>; 5] {
    [
        Impl::cpu(names[0], accepts_host::<O>, create_host::<O>).with_scratchpad(scratchpad::<O>),
        Impl::gpu(names[1], accepts_copy::<O>, create_copy::<O>),
        Impl::gpu(names[3], accepts_transpose::<O>, create_transpose::<O>),
        Impl::gpu(names[2], accepts_generic::<O>, create_generic::<O>)
            .with_scratchpad(scratchpad::<O>),
        Impl::gpu(
            c"ocl:cross_engine_host",
            accepts_cross::<O>,
            create_cross::<O>,
        ),
    ]
}

/// The implementations of a reorder's plan: [`plan_impls`] with the blocked
/// fast path (`blocked.rs`, `names[4]`) after the copy: it leaves the
/// transpositions of plain layouts to [`Transpose`](accepts_transpose).
pub const fn reorder_impls<O: PlanOp>(names: [&'static CStr; 5]) -> [Impl<O>; 6] {
    let [host, copy, transpose, generic, cross] =
        plan_impls([names[0], names[1], names[2], names[3]]);
    [
        host,
        copy,
        Impl::gpu(
            names[4],
            super::blocked::accepts::<O>,
            super::blocked::create::<O>,
        ),
        transpose,
        generic,
        cross,
    ]
}

/// The bytes of the plan's f32 scratch tensor, if it has one.
fn scratchpad<O: PlanOp>(op: &O) -> usize {
    op.plan()
        .scratch
        .as_ref()
        .filter(|l| l.padded_nelems() > 0)
        .map_or(0, |l| l.byte_range().1)
}

/// GPU kernels run plans on one GPU engine (not between engines).
pub(super) fn same_engine<O: PlanOp>(op: &O) -> Result<()> {
    if op.cross() {
        return Err(Error::unimplemented("not an OpenCL engine on both sides"));
    }
    Ok(())
}

fn accepts_generic<O: PlanOp>(op: &O, _: &Engine) -> Result<()> {
    same_engine(op)?;
    plan_limits(op.plan())
}

fn create_generic<O: PlanOp>(op: &Arc<O>, engine: &Engine) -> Result<Arc<dyn Implementation>> {
    let (kernel, local) = build(engine, op.plan())?;
    Ok(Arc::new(GenericImpl {
        plan: op.plan().clone(),
        kernel,
        local,
    }))
}

struct GenericImpl {
    plan: Arc<Plan>,
    kernel: Kernel,
    local: usize,
}

/// The generic implementation built with `long` indices whatever the size
/// (tests of the build used for huge tensors).
#[cfg(test)]
pub fn generic_long(engine: &Engine, plan: Arc<Plan>) -> Result<Arc<dyn Implementation>> {
    let (kernel, local) = build_with(engine, true)?;
    Ok(Arc::new(GenericImpl {
        plan,
        kernel,
        local,
    }))
}

impl Implementation for GenericImpl {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        Ok(Some(enqueue_plan(
            &self.plan,
            &self.kernel,
            self.local,
            ctx,
        )?))
    }
}

/// The tile loops of a transposing plan: one pass, both offsets linear, no
/// padding or quantization, and the source more contiguous along another
/// loop than the destination's innermost; positions in `walk_t`'s arrays.
pub(super) fn transpose_loops(plan: &Plan) -> Option<(i32, i32)> {
    let [pass] = &plan.passes[..] else {
        return None;
    };
    let (_, sl) = pass.src.as_ref()?;
    if plan.dst.has_padding() || pass.quant != Quant::default() || plan.scratch.is_some() {
        return None;
    }
    let n = plan.dst.ndims;
    let start: Vec<i64> = (0..n).map(|d| pass.base[d] + pass.shift[d]).collect();
    let (_, ss) = linear(sl, &pass.loops, &start)?;
    let (_, ds) = linear(&plan.dst, &pass.loops, &pass.base[..n])?;
    let nl = pass.loops.len();
    if nl < 2 || ds[nl - 1] != 1 {
        return None;
    }
    let ka = nl - 1;
    let kb = (0..nl - 1).min_by_key(|&k| ss[k].abs())?;
    if ss[kb].abs() >= ss[ka].abs() || pass.loops[ka].size < 8 || pass.loops[kb].size < 8 {
        return None;
    }
    let off = (MAXL - nl) as i32;
    Some((off + ka as i32, off + kb as i32))
}

/// A transposing reorder through local-memory tiles.
fn accepts_transpose<O: PlanOp>(op: &O, _: &Engine) -> Result<()> {
    same_engine(op)?;
    plan_limits(op.plan())?;
    transpose_loops(op.plan())
        .map(|_| ())
        .ok_or_else(|| Error::unimplemented("not a transposition of linear layouts"))
}

fn create_transpose<O: PlanOp>(op: &Arc<O>, engine: &Engine) -> Result<Arc<dyn Implementation>> {
    let plan = op.plan();
    let ocl = engine.gpu("reorder")?;
    let options = if fits_int(plan) { "" } else { "-DIDX_T=long" };
    let kernel = ocl.kernel(SOURCE, options, "xfer_tile")?;
    if ocl.work_group_size(&kernel)? < 256 {
        return Err(Error::unimplemented(
            "the tile kernel needs work-groups of 256",
        ));
    }
    let (ka, kb) =
        transpose_loops(plan).ok_or_else(|| Error::Runtime("not a transposition".into()))?;
    Ok(Arc::new(TransposeImpl {
        plan: plan.clone(),
        kernel,
        ka,
        kb,
    }))
}

struct TransposeImpl {
    plan: Arc<Plan>,
    kernel: Kernel,
    ka: i32,
    kb: i32,
}

impl Implementation for TransposeImpl {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let plan = &self.plan;
        let queue = ctx.queue()?;
        let bufs = buffers(plan, ctx)?;
        let pass = &plan.passes[0];
        if pass.total == 0 {
            return Ok(Some(queue.marker(ctx.deps)?));
        }
        let Some((src_arg, sl)) = &pass.src else {
            return Err(Error::Runtime("a transposition without a source".into()));
        };
        let (walk, _) = walk_bytes(pass, &plan.dst);
        let off = MAXL - pass.loops.len();
        let na = pass.loops[self.ka as usize - off].size as usize;
        let nb = pass.loops[self.kb as usize - off].size as usize;
        let nz = pass.total as usize / (na * nb);
        let args = [
            find(&bufs, *src_arg)?.kernel_arg()?,
            KernelArg::I32(elem_code(sl.elem)),
            find(&bufs, plan.dst_arg)?.kernel_arg()?,
            KernelArg::I32(elem_code(plan.dst.elem)),
            KernelArg::Bytes(&walk),
            KernelArg::I32(self.ka),
            KernelArg::I32(self.kb),
            KernelArg::F32(pass.alpha),
            KernelArg::F32(pass.beta),
        ];
        let global = [na.div_ceil(32) * 32, nb.div_ceil(32) * 8, nz];
        let e = queue.enqueue_kernel(&self.kernel, &args, &global, Some(&[32, 8, 1]), ctx.deps)?;
        Ok(Some(e))
    }
}

/// Whether `plan` is a plain copy of its one source.
pub fn is_plain_copy(plan: &Plan) -> bool {
    let [pass] = &plan.passes[..] else {
        return false;
    };
    let Some((_, src)) = &pass.src else {
        return false;
    };
    let compact = |l: &Layout| l.is_compact();
    src.elem == plan.dst.elem
        && compact(src)
        && compact(&plan.dst)
        && src.same_layout(&plan.dst)
        && pass.alpha == 1.0
        && pass.beta == 0.0
        && pass.quant == Default::default()
        && plan.scratch.is_none()
}

/// A plain copy: one pass, dense, same type and layout, no scaling.
fn accepts_copy<O: PlanOp>(op: &O, _: &Engine) -> Result<()> {
    same_engine(op)?;
    if !is_plain_copy(op.plan()) {
        return Err(Error::unimplemented(
            "not a plain copy (types, layouts or scaling differ)",
        ));
    }
    plan_limits(op.plan())
}

fn create_copy<O: PlanOp>(op: &Arc<O>, engine: &Engine) -> Result<Arc<dyn Implementation>> {
    // Built now for USM memory, which clEnqueueCopyBuffer cannot copy.
    let (kernel, local) = build(engine, op.plan())?;
    Ok(Arc::new(CopyImpl {
        plan: op.plan().clone(),
        kernel,
        local,
    }))
}

struct CopyImpl {
    plan: Arc<Plan>,
    kernel: Kernel,
    local: usize,
}

impl Implementation for CopyImpl {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let plan = &self.plan;
        let queue = ctx.queue()?;
        let bufs = buffers(plan, ctx)?;
        if plan.dst.padded_nelems() == 0 {
            return Ok(Some(queue.marker(ctx.deps)?));
        }
        let Some((src_arg, src)) = &plan.passes[0].src else {
            return Err(Error::Runtime("a copy without a source".into()));
        };
        let (s, d) = (find(&bufs, *src_arg)?, find(&bufs, plan.dst_arg)?);
        if let (Buffer::Mem(sm), Buffer::Mem(dm), Some(q)) = (s, d, queue.as_ocl()) {
            let size = plan.dst.elem.size();
            let bytes = plan.dst.padded_nelems() as usize * size;
            let ocl_deps: Vec<_> = ctx
                .deps
                .iter()
                .filter_map(|e| e.as_ocl().cloned())
                .collect();
            let (src_at, dst_at) = (
                src.offset0 as usize * size,
                plan.dst.offset0 as usize * size,
            );
            if sm == dm {
                // In place: the very same elements copy onto themselves; any
                // other overlap clEnqueueCopyBuffer refuses (CL_MEM_COPY_OVERLAP).
                if src_at == dst_at {
                    return Ok(Some(queue.marker(ctx.deps)?));
                }
                if src_at < dst_at + bytes && dst_at < src_at + bytes {
                    return Err(Error::invalid(
                        "the source and destination of the copy overlap in one buffer",
                    ));
                }
            }
            let e = q.copy_buffer(sm, src_at, dm, dst_at, bytes, &ocl_deps)?;
            return Ok(Some(Event::Ocl(e)));
        }
        Ok(Some(enqueue_plan(plan, &self.kernel, self.local, ctx)?))
    }
}

/// A reorder between a CPU and a GPU engine (primitive on the GPU one).
fn accepts_cross<O: PlanOp>(op: &O, _: &Engine) -> Result<()> {
    if !op.cross() {
        return Err(Error::unimplemented(
            "not a reorder between a CPU and an OpenCL engine",
        ));
    }
    non_overlapping(op.plan())
}

fn create_cross<O: PlanOp>(op: &Arc<O>, _: &Engine) -> Result<Arc<dyn Implementation>> {
    Ok(Arc::new(CrossImpl {
        plan: op.plan().clone(),
    }))
}

/// Plans whose destination overlaps itself are refused.
fn non_overlapping(plan: &Plan) -> Result<()> {
    if !plan.dst.is_non_overlapping() {
        return Err(Error::unimplemented(
            "the destination layout overlaps itself",
        ));
    }
    Ok(())
}

struct CrossImpl {
    plan: Arc<Plan>,
}

impl Implementation for CrossImpl {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let queue = ctx.queue()?;
        Event::wait_all(ctx.deps)?;
        ctx.stream.wait()?;
        let plan = &self.plan;
        for (arg, bytes) in plan_inputs(plan) {
            if is_quant(arg) {
                Buffer::values(ctx.arg(arg)?, bytes, "scales or zero points")?;
            }
        }
        let mut args: Vec<i32> = plan_inputs(plan).into_iter().map(|(a, _)| a).collect();
        args.push(plan.dst_arg);
        args.sort_unstable();
        args.dedup();
        // Host addresses: host memory directly, OpenCL memory mapped.
        let mut mapped = Vec::new();
        let mut addrs = Vec::new();
        let result = (|| -> Result<()> {
            for &arg in &args {
                let memory = ctx.arg(arg)?;
                if matches!(memory.engine().backend(), Backend::Cpu) {
                    let b = Buffer::of(memory)?;
                    addrs.push((arg, b.host_addr()));
                } else {
                    let a = memory.map(0)?;
                    mapped.push((memory.clone(), a));
                    addrs.push((arg, a));
                }
            }
            run_host(plan, &|arg| {
                addrs
                    .iter()
                    .find(|(a, _)| *a == arg)
                    .map(|(_, addr)| *addr)
                    .ok_or_else(|| Error::invalid(format!("execution argument {arg} is missing")))
            })
        })();
        for (memory, a) in mapped {
            memory.unmap(0, a)?;
        }
        result?;
        Ok(Some(queue.marker(&[])?))
    }
}

/// The CPU engine's implementation of a plan.
fn accepts_host<O: PlanOp>(op: &O, _: &Engine) -> Result<()> {
    non_overlapping(op.plan())
}

fn create_host<O: PlanOp>(op: &Arc<O>, _: &Engine) -> Result<Arc<dyn Implementation>> {
    Ok(Arc::new(HostImpl {
        plan: op.plan().clone(),
    }))
}

struct HostImpl {
    plan: Arc<Plan>,
}

impl Implementation for HostImpl {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let plan = &self.plan;
        let mut bufs = buffers(plan, ctx)?;
        if scratchpad_used(plan) {
            bufs.push((SCRATCH_ARG, Buffer::of(ctx.scratchpad()?)?));
        }
        run_host(plan, &|arg| Ok(find(&bufs, arg)?.host_addr()))?;
        Ok(None)
    }
}
