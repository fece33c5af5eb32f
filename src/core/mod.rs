//! The object model: engines, streams, memory, primitives, attributes, and the
//! services every part uses (errors, the handle registry, verbose logging).
//!
//! Layer: below `capi`, above `runtime` and `prims`. Ordinary safe Rust: it
//! never sees a C caller's pointer and never calls back into `capi` (the only
//! exception is the status naming the verbose log borrows from `capi::debug`).

pub mod env;
pub mod error;
pub mod handles;
pub mod memory_desc;
pub mod settings;
pub mod types;
pub mod verbose;
pub mod version;

pub use error::{Error, Result};
