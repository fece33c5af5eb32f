//! LRN on GPU engines: builds `lrn.cl` specialised for one op (a work-item
//! per element in the output's memory order) and enqueues it; backward
//! enqueues its two kernels, the first writing the scratchpad. OpenCL and
//! Level Zero engines, through `core::gpu`.
//!
//! Layer: prims. The scratchpad (backward) holds two f32 per element. A
//! forward in place (src's buffer as dst) is refused: each window reads its
//! neighbours while other work-items write them.

use std::sync::Arc;

use super::LrnOp;
use crate::core::engine::Engine;
use crate::core::error::{Error, Result};
use crate::core::gpu::{Event, Kernel};
use crate::core::primitive::{ExecContext, Implementation};
use crate::prims::common::buffers::Buffer;
use crate::runtime::kernel_arg::KernelArg;

/// Work-group size.
const LOCAL: usize = 256;

/// The scratchpad bytes: backward, two f32 per element.
pub(super) fn scratchpad(op: &LrnOp) -> usize {
    if op.is_backward() {
        op.nelems() as usize * 8
    } else {
        0
    }
}

fn list(v: impl Iterator<Item = i64>) -> String {
    v.map(|x| x.to_string()).collect::<Vec<_>>().join(",")
}

fn options(op: &LrnOp) -> String {
    let src = op.layout(0);
    let out = op.layout(if op.is_backward() { 2 } else { 1 });
    let nd = src.ndims;
    let dims = &src.dims[..nd];
    // The walk: the output's dimensions from the largest stride down.
    let mut order: Vec<usize> = (0..nd).collect();
    order.sort_by_key(|&d| std::cmp::Reverse((out.outer_strides()[d], nd - d)));
    let mut div = vec![0i64; nd];
    let mut s = 1;
    for &d in order.iter().rev() {
        div[d] = s;
        s *= dims[d];
    }
    let reach = op.half().unwrap_or(-1);
    let win = 2 * reach.max(0) + 1;
    let total = win.pow(nd as u32 - 2);
    let mut o = format!(
        "-DDT={} -DNDIMS={nd} -DN={} -DDIMS_INIT={} -DDIV_INIT={} -DSX_INIT={} -DX_OFF0={} \
         -DSO_INIT={} -DO_OFF0={} -DACROSS={} -DREACH={reach} -DWIN={win} -DWIN_TOTAL={total}",
        src.elem.cl_name(),
        op.nelems(),
        list(dims.iter().copied()),
        list(div.into_iter()),
        list(src.outer_strides().iter().copied()),
        src.offset0,
        list(out.outer_strides().iter().copied()),
        out.offset0,
        u8::from(op.across()),
    );
    if op.is_backward() {
        let g = op.layout(1);
        o += &format!(
            " -DBWD -DSG_INIT={} -DG_OFF0={}",
            list(g.outer_strides().iter().copied()),
            g.offset0
        );
    }
    o
}

/// Builds the implementation for `op` on `engine`.
pub(super) fn create(op: &Arc<LrnOp>, engine: &Engine) -> Result<Arc<dyn Implementation>> {
    let ocl = engine.gpu("lrn")?;
    let source = format!(
        "{}{}",
        include_str!("../common/types.cl"),
        include_str!("lrn.cl")
    );
    let options = options(op);
    let mut kernels = Vec::new();
    let names: &[&str] = if op.is_backward() {
        &["lrn_bwd_terms", "lrn_bwd"]
    } else {
        &["lrn_fwd"]
    };
    let mut local = LOCAL;
    for name in names {
        let kernel = ocl.kernel(&source, &options, name)?;
        local = local.min(ocl.work_group_size(&kernel)?.max(1));
        kernels.push(kernel);
    }
    Ok(Arc::new(OclLrn {
        op: op.clone(),
        kernels,
        local,
    }))
}

/// The implementation; it holds no engine.
struct OclLrn {
    op: Arc<LrnOp>,
    /// Forward: `lrn_fwd`; backward: `lrn_bwd_terms`, `lrn_bwd`.
    kernels: Vec<Kernel>,
    local: usize,
}

impl Implementation for OclLrn {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let op = &self.op;
        let queue = ctx.queue()?;
        let n = op.nelems() as usize;
        if n == 0 {
            return Ok(Some(queue.marker(ctx.deps)?));
        }
        let mut bufs = Vec::new();
        for (arg, layout) in op.layouts() {
            let b = Buffer::of(ctx.arg(arg)?)?;
            b.check_holds(layout.byte_range().1, "tensor")?;
            bufs.push(b);
        }
        let global = n.div_ceil(self.local) * self.local;
        let (ad, beta, k) = (op.alpha_div(), op.beta(), op.k());
        if !op.is_backward() {
            if bufs[0].same_as(&bufs[1]) {
                return Err(Error::invalid(
                    "lrn forward in place (src's buffer as dst) is not supported on GPU engines",
                ));
            }
            let args = [
                bufs[0].kernel_arg()?,
                bufs[1].kernel_arg()?,
                KernelArg::F32(ad),
                KernelArg::F32(beta),
                KernelArg::F32(k),
            ];
            let event = queue.enqueue_kernel(
                &self.kernels[0],
                &args,
                &[global],
                Some(&[self.local]),
                ctx.deps,
            )?;
            return Ok(Some(event));
        }
        let scratch = Buffer::of(ctx.scratchpad()?)?;
        scratch.check_holds(scratchpad(op), "scratchpad")?;
        let terms = [
            bufs[0].kernel_arg()?,
            bufs[1].kernel_arg()?,
            scratch.kernel_arg()?,
            KernelArg::F32(ad),
            KernelArg::F32(beta),
            KernelArg::F32(k),
        ];
        let first = queue.enqueue_kernel(
            &self.kernels[0],
            &terms,
            &[global],
            Some(&[self.local]),
            ctx.deps,
        )?;
        let args = [
            bufs[0].kernel_arg()?,
            bufs[1].kernel_arg()?,
            bufs[2].kernel_arg()?,
            scratch.kernel_arg()?,
            KernelArg::F32(ad),
            KernelArg::F32(beta),
        ];
        let event = queue.enqueue_kernel(
            &self.kernels[1],
            &args,
            &[global],
            Some(&[self.local]),
            &[first],
        )?;
        Ok(Some(event))
    }
}
