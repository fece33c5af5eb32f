//! Matmul on GPU engines (`ocl:gemm_mma` on NVIDIA tensor cores where
//! `gemm::mma` allows, else `ocl:gemm_tiled`): the shared GEMM engine's
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
use crate::prims::common::gemm::b_copy::BCopy;
use crate::prims::common::gemm::mma;
use crate::prims::common::gemm::ocl::{GemmKernels, GemmShape, Tiles};

/// The element type of `op`'s argument `arg` (f32 where it has none).
fn elem(op: &MatmulOp, arg: i32) -> Elem {
    op.arg_md(arg)
        .and_then(|md| Elem::from_c(md.data_type()))
        .unwrap_or(Elem::F32)
}

/// What `op` would multiply on `engine`'s tensor cores.
fn mma_type(op: &MatmulOp, engine: &Engine) -> Result<mma::MmaType> {
    let (a, b) = (elem(op, DNNL_ARG_SRC), elem(op, DNNL_ARG_WEIGHTS));
    mma::supported(
        engine.gpu("matmul")?,
        "matmul",
        a,
        b,
        op.fpmath(),
        op.epilogue(),
    )
}

/// `ocl:gemm_mma`: whether `op` runs on `engine`'s tensor cores.
pub(super) fn accepts_mma(op: &MatmulOp, engine: &Engine) -> Result<()> {
    mma_type(op, engine).map(|_| ())
}

/// `ocl:gemm_mma`'s scratchpad: the K-major copy of B (`BCopy`) that a
/// tf32 problem known at creation takes on `wgmma`.
pub(super) fn mma_scratchpad(op: &MatmulOp, engine: &Engine) -> usize {
    let (Ok(ty), Ok(ocl), Some(g)) = (mma_type(op, engine), engine.gpu("matmul"), op.static_gemm())
    else {
        return 0;
    };
    BCopy::plan(ocl, ty, g, false).map_or(0, |c| c.bytes)
}

/// Builds the tensor-core implementation for `op` on `engine`.
pub(super) fn create_mma(op: &Arc<MatmulOp>, engine: &Engine) -> Result<Arc<dyn Implementation>> {
    let bias = op.args().bias.map(|arg| elem(op, arg));
    let kernels = GemmKernels::new_mma(
        mma_type(op, engine)?,
        elem(op, DNNL_ARG_SRC),
        elem(op, DNNL_ARG_WEIGHTS),
        elem(op, DNNL_ARG_DST),
        bias,
        op.epilogue(),
    )
    .with_b_copy();
    finish(op, engine, kernels)
}

/// Builds the implementation for `op` on `engine`.
pub(super) fn create(op: &Arc<MatmulOp>, engine: &Engine) -> Result<Arc<dyn Implementation>> {
    let ocl = engine.gpu("matmul")?;
    let bias = op.args().bias.map(|arg| elem(op, arg));
    let kernels = GemmKernels::new(
        elem(op, DNNL_ARG_SRC),
        elem(op, DNNL_ARG_WEIGHTS),
        elem(op, DNNL_ARG_DST),
        bias,
        op.epilogue(),
        Tiles::for_gemm(ocl, op.static_gemm().map(GemmShape::of)),
    );
    finish(op, engine, kernels)
}

/// The implementation on `kernels`, built now for a problem known at
/// creation.
fn finish(
    op: &Arc<MatmulOp>,
    engine: &Engine,
    kernels: GemmKernels,
) -> Result<Arc<dyn Implementation>> {
    let ocl = engine.gpu("matmul")?;
    let op = op.clone();
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
