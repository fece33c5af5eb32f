//! Entry points of `dnnl_ukernel.h` (experimental).

pub mod destroy;
pub mod unimplemented;

pub use destroy::*;
pub use unimplemented::*;
