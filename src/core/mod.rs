//! The object model: engines, streams, memory, primitives, attributes, and the
//! services every part uses (errors, the handle registry, verbose logging).
//!
//! Layer: below `capi`, above `runtime` and `prims`. Ordinary safe Rust: it
//! never sees a C caller's pointer and never calls back into `capi`.

pub mod attr;
pub mod cache_blob;
pub mod engine;
pub mod env;
pub mod error;
pub mod gpu;
pub mod handles;
pub mod host_buffer;
pub mod key;
pub mod memory;
pub mod memory_desc;
pub mod names;
pub mod ocl_engine;
pub mod ocl_storage;
pub mod primitive;
pub mod primitive_cache;
pub mod primitive_verbose;
pub mod settings;
pub mod stream;
pub mod types;
pub mod verbose;
pub mod version;
pub mod ze_engine;
pub mod ze_storage;

pub use error::{Error, Result};
