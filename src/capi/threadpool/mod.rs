//! Entry points of `dnnl_threadpool.h`.

pub mod unimplemented;

pub use unimplemented::*;
