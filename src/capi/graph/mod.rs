//! Entry points of `dnnl_graph.h`.

mod destroy;
mod unimplemented;
