//! One folder per primitive kind: descriptor logic, CPU kernels and OpenCL
//! launch code with their `.cl` sources.
//!
//! Layer: uses `core` and `runtime`; `capi` calls in, nothing here calls back.

pub mod binary;
pub mod common;
pub mod concat;
pub mod convolution;
pub mod eltwise;
pub mod inner_product;
pub mod lrn;
pub mod matmul;
pub mod normalization;
pub mod pooling;
pub mod prelu;
pub mod reduction;
pub mod reorder;
pub mod resampling;
pub mod rnn;
pub mod shuffle;
pub mod softmax;
#[cfg(test)]
mod streaming_tests;
pub mod sum;
#[cfg(feature = "experimental_ukernel")]
pub mod ukernel;
