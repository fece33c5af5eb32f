//! Entry points of `dnnl_threadpool.h`.

pub mod interop;

pub use interop::*;
