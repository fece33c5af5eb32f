//! Entry points of `dnnl_ocl.h`.

pub mod unimplemented;

pub use unimplemented::*;
