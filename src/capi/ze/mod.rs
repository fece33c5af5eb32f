//! Entry points of `dnnl_ze.h`.

pub mod unimplemented;

pub use unimplemented::*;
