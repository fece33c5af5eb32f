//! Entry points of `dnnl_common.h`.

mod engine;
mod service;
mod stream;
mod unimplemented;
