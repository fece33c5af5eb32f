//! Matmul on the CPU engine (`cpu:gemm`): the shared GEMM engine's CPU run
//! (`prims::common::gemm::cpu`) on the problem `MatmulOp` describes.
//!
//! Layer: prims.

use std::sync::Arc;

use super::MatmulOp;
use crate::core::engine::Engine;
use crate::core::error::Result;
use crate::core::gpu::Event;
use crate::core::primitive::{ExecContext, Implementation};
use crate::prims::common::gemm::cpu::run;

/// Builds the implementation for `op` on `engine`.
pub(super) fn create(op: &Arc<MatmulOp>, _: &Engine) -> Result<Arc<dyn Implementation>> {
    Ok(Arc::new(CpuMatmul { op: op.clone() }))
}

struct CpuMatmul {
    op: Arc<MatmulOp>,
}

impl Implementation for CpuMatmul {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let g = self.op.gemm(ctx)?;
        run(ctx, &g, self.op.epilogue(), self.op.args())?;
        Ok(None)
    }
}
