//! Entry points of `dnnl_graph_ocl.h`.

pub mod allocator;
pub mod execute;

pub use allocator::*;
pub use execute::*;
