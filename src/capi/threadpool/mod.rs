//! Entry points of `dnnl_threadpool.h`.

mod unimplemented;
