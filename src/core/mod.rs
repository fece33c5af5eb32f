//! The object model: engines, streams, memory, primitives, attributes, and the
//! services every part uses (errors, the handle registry, verbose logging).
//!
//! Layer: below `capi`, `graph` and `prims` (which build on its object model),
//! above `runtime`. Ordinary safe Rust: it never sees a C caller's pointer and
//! never calls back into `capi`.

pub mod attr;
pub mod cache_blob;
pub mod engine;
pub mod gpu;

pub mod host_buffer;
pub mod key;
pub mod memory;
pub mod memory_desc;
pub mod ocl_engine;
pub mod ocl_storage;
pub mod primitive;
pub mod primitive_cache;
pub mod primitive_verbose;
pub mod settings;
pub mod stream;
pub mod types;
pub mod verbose_header;
pub mod ze_engine;
pub mod ze_storage;

// The base services, under the names the object model has always used.
pub use crate::base::{Error, Result, env, error, names, verbose, version};
