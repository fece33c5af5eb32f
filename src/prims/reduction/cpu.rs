//! Reduction on the CPU engine: `common::reduce::cpu` over the arguments'
//! host memory.
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
use crate::prims::common::host::Raw;
use crate::prims::common::reduce::cpu;

/// Builds the implementation for `op`.
pub(super) fn create(op: &Arc<ReductionOp>, _: &Engine) -> Result<Arc<dyn Implementation>> {
    Ok(Arc::new(CpuReduction { op: op.clone() }))
}

struct CpuReduction {
    op: Arc<ReductionOp>,
}

impl Implementation for CpuReduction {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let r = self.op.reduce();
        let (ls, ld) = (r.src_layout(), r.dst_layout());
        let src_buf = Buffer::of(ctx.arg(DNNL_ARG_SRC)?)?;
        let dst_buf = Buffer::of(ctx.arg(DNNL_ARG_DST)?)?;
        if ld.nelems() == 0 {
            return Ok(None);
        }
        let src = if ls.nelems() == 0 {
            None
        } else {
            Some(Raw::of(&src_buf, ls, "src")?)
        };
        let dst = Raw::of(&dst_buf, ld, "dst")?;
        let post = r.post_ops().bind(ctx)?;
        cpu::run(r, src, dst, &post)?;
        Ok(None)
    }
}
