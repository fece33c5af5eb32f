//! Entry points of `dnnl_graph.h`.

pub mod allocator;
pub mod destroy;
pub mod tensor;
pub mod unimplemented;

pub use allocator::*;
pub use destroy::*;
pub use tensor::*;
pub use unimplemented::*;
