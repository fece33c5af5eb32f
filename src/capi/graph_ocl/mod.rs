//! Entry points of `dnnl_graph_ocl.h`.

pub mod unimplemented;

pub use unimplemented::*;
