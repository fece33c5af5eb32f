//! `dnnl_common_types.h`: handles and structs shared by the primitive and graph APIs.

use ::core::ffi::{c_char, c_int, c_uint};

include!(concat!(env!("OUT_DIR"), "/c_enums/common_types.rs"));
pub use super::macros::common_types::*;

/// A size along one dimension, a stride or an offset.
pub type dnnl_dim_t = i64;

/// Dimensions of a tensor, up to DNNL_MAX_NDIMS of them.
pub type dnnl_dims_t = [dnnl_dim_t; 12];

/// An engine: a device and its context.
pub struct dnnl_engine {
    _private: [u8; 0],
}

/// A handle to an engine; create with dnnl_engine_create(), release with dnnl_engine_destroy().
pub type dnnl_engine_t = *mut dnnl_engine;

/// A stream: an ordered (or not) sequence of executions on one engine.
pub struct dnnl_stream {
    _private: [u8; 0],
}

/// A handle to a stream; create with dnnl_stream_create(), release with dnnl_stream_destroy().
pub type dnnl_stream_t = *mut dnnl_stream;

/// A stream handle that the callee does not change.
pub type const_dnnl_stream_t = *const dnnl_stream;

/// The version of the library, as dnnl_version() reports it.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct dnnl_version_t {
    /// Major version.
    pub major: c_int,
    /// Minor version.
    pub minor: c_int,
    /// Patch version.
    pub patch: c_int,
    /// The commit the library was built from, or "N/A".
    pub hash: *const c_char,
    /// The CPU runtime (one of DNNL_RUNTIME_*).
    pub cpu_runtime: c_uint,
    /// The GPU runtime (one of DNNL_RUNTIME_*).
    pub gpu_runtime: c_uint,
}
