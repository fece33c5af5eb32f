//! Entry points of `dnnl_graph_ocl.h`.

pub mod allocator;
pub mod unimplemented;

pub use allocator::*;
pub use unimplemented::*;
