//! `libdnnl.so.3`: the oneDNN v3.13 C API in Rust, with OpenCL and Level Zero
//! interoperability on any device.
//!
//! Module map (each module's own documentation says what it may depend on):
//! - `abi`: the C-visible types and constants, nothing else;
//! - `capi`: every exported function, one folder per upstream header;
//! - `core`: the object model and the services every part uses;
//! - `runtime`: OpenCL and Level Zero devices, queues and allocations (the
//!   CPU engine needs no runtime: its kernels are Rust in `prims`);
//! - `prims`: one folder per primitive kind;
//! - `graph`: the graph API's IR, partitioner and compiler onto primitives.

pub mod abi;
pub mod base;
pub mod capi;
pub mod core;
pub mod graph;
pub mod prims;
pub mod runtime;

/// Reads the environment once when the library is loaded, as oneDNN does.
#[ctor::ctor(unsafe)]
fn init() {
    crate::core::verbose::init_from_env();
}
