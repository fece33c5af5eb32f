//! `libdnnl.so.3`: the oneDNN v3.13 C API in Rust, with OpenCL and Level Zero
//! interoperability on any device.
//!
//! Module map (each module's own documentation says what it may depend on):
//! - `abi`: the C-visible types and constants, nothing else;
//! - `capi`: every exported function, one folder per upstream header;
//! - `base`: errors, environment variables, names, version, the verbose log;
//! - `core`: the object model: engines, streams, memory, primitives;
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
    crate::base::verbose::set_header_printer(crate::core::verbose_header::print);
    crate::base::verbose::init_from_env();
}
