//! Helpers every primitive kind shares: element types and their conversions,
//! blocked layouts as kernels walk them, the buffers behind execution
//! arguments and element access to host ones, splitting CPU work over
//! threads, the binary and eltwise formulas, post-ops as kernels apply them,
//! the GEMM engine (matmul, inner product), the arguments of the kinds with
//! weights and the transfer plan (reorder, sum, concat). `types.cl` is the OpenCL counterpart of
//! `dt`: every kernel source starts with it.
//!
//! Layer: prims, over `core` and `runtime`.

pub mod binary_alg;
pub mod buffers;
pub mod cl_walk;
pub mod dt;
pub mod eltwise_alg;
pub(crate) mod gemm;
pub(crate) mod host;
pub mod layout;
pub mod parallel;
pub mod post_ops;
pub mod reduce;
pub mod stream_store;
#[cfg(test)]
pub(crate) mod testutil;
pub mod vmath;
pub(crate) mod weighted;
pub(crate) mod xfer;
