//! Matmul on GPU engines (`ocl:gemm_tiled`): the shared GEMM engine's
//! kernels (`prims::common::gemm::ocl`) on the problem `MatmulOp` describes.
//! The launch code serves OpenCL and Level Zero engines through `core::gpu`.
//!
//! Layer: prims.

use std::sync::Arc;

use super::MatmulOp;
use crate::abi::*;
use crate::core::engine::Engine;
use crate::core::error::Result;
use crate::core::gpu::Event;
use crate::core::primitive::{ExecContext, Implementation, OpDesc};
use crate::prims::common::dt::Elem;
use crate::prims::common::gemm::ocl::{GemmKernels, Tiles};

/// Builds the implementation for `op` on `engine`.
pub(super) fn create(op: &Arc<MatmulOp>, engine: &Engine) -> Result<Arc<dyn Implementation>> {
    let ocl = engine.gpu("matmul")?;
    let op = op.clone();
    let md = |arg| {
        op.arg_md(arg)
            .and_then(|md| Elem::from_c(md.data_type()))
            .unwrap_or(Elem::F32)
    };
    let bias = op.args().bias.map(&md);
    let kernels = GemmKernels::new(
        md(DNNL_ARG_SRC),
        md(DNNL_ARG_WEIGHTS),
        md(DNNL_ARG_DST),
        bias,
        op.epilogue(),
        Tiles::for_device(ocl),
    );
    if let Some(g) = op.static_gemm() {
        kernels.kernel(ocl, g, false)?;
    }
    Ok(Arc::new(OclMatmul { op, kernels }))
}

/// The implementation (holds no engine: execution takes it from the stream).
struct OclMatmul {
    op: Arc<MatmulOp>,
    kernels: GemmKernels,
}

impl Implementation for OclMatmul {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let g = self.op.gemm(ctx)?;
        let event = self
            .kernels
            .enqueue(ctx, &g, self.op.epilogue(), self.op.args())?;
        Ok(Some(event))
    }
}
