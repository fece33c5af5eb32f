//! Entry points of `dnnl_ze.h`.

mod unimplemented;
