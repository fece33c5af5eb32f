//! Reduction on GPU engines: `common::reduce::ocl`'s kernels over the
//! arguments' buffers.
//!
//! Layer: prims.

use std::sync::Arc;

use super::ReductionOp;
use crate::abi::{DNNL_ARG_DST, DNNL_ARG_SRC};
use crate::core::engine::Engine;
use crate::core::error::Result;
use crate::core::gpu::Event;
use crate::core::primitive::{ExecContext, Implementation};
use crate::prims::common::buffers::Buffer;
use crate::prims::common::reduce::ocl::{self, Kernels};

/// The scratchpad bytes (partial results of long reductions).
pub(super) fn scratchpad(op: &ReductionOp) -> usize {
    ocl::scratchpad(op.reduce())
}

/// Builds the implementation for `op` on `engine`.
pub(super) fn create(op: &Arc<ReductionOp>, engine: &Engine) -> Result<Arc<dyn Implementation>> {
    let kernels = Kernels::new(op.reduce(), engine.gpu("reduction")?)?;
    Ok(Arc::new(OclReduction {
        op: op.clone(),
        kernels,
    }))
}

/// The implementation; it holds no engine.
struct OclReduction {
    op: Arc<ReductionOp>,
    kernels: Kernels,
}

impl Implementation for OclReduction {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let r = self.op.reduce();
        let queue = ctx.queue()?;
        let (ls, ld) = (r.src_layout(), r.dst_layout());
        let src = Buffer::of(ctx.arg(DNNL_ARG_SRC)?)?;
        let dst = Buffer::of(ctx.arg(DNNL_ARG_DST)?)?;
        if ls.nelems() > 0 {
            src.check_holds(ls.byte_range().1, "src")?;
        }
        if ld.nelems() > 0 {
            dst.check_holds(ld.byte_range().1, "dst")?;
        }
        let post = r.post_ops().cl_buffers(ctx)?;
        let scratch = if ocl::scratchpad(r) > 0 {
            Some(Buffer::of(ctx.scratchpad()?)?)
        } else {
            None
        };
        let event =
            self.kernels
                .enqueue(r, &queue, &src, &dst, &post, scratch.as_ref(), ctx.deps)?;
        Ok(Some(event))
    }
}
