//! Entry points of `dnnl_graph.h`.

pub mod destroy;
pub mod unimplemented;

pub use destroy::*;
pub use unimplemented::*;
