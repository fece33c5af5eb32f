//! Entry points of `dnnl_common.h`.

pub mod engine;
pub mod service;
pub mod stream;

pub use engine::*;
pub use service::*;
pub use stream::*;
