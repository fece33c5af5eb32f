//! Entry points of `dnnl_ocl.h`, and the oneDNN v1 names of the OpenCL
//! interoperability API (seeds: ocl_interop_guide_v1.md), which newer oneDNN
//! dropped and we keep.

pub mod cache_blob;
pub mod engine;
pub mod execute;
pub mod memory;
pub mod stream;
pub mod v1;

pub use cache_blob::*;
pub use engine::*;
pub use execute::*;
pub use memory::*;
pub use stream::*;
pub use v1::*;
