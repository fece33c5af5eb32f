//! Entry points of `dnnl_ukernel.h` (experimental).

mod destroy;
mod unimplemented;
