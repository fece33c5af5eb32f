//! Entry points of `dnnl_common.h` that are not implemented yet.
//!
//! Each returns `dnnl_unimplemented` (or a neutral value where the function
//! returns no status), writes nothing through its pointers, and says so under
//! ONEDNN_VERBOSE. Implementing a function means moving it out of this file.

#![allow(unused_variables)]

#[allow(unused_imports)]
use ::core::ffi::{c_char, c_int, c_uint, c_void};

#[allow(unused_imports)]
use crate::abi::*;
use crate::capi::boundary;

/// Not implemented yet: returns 0 (the neutral value of its type).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_engine_get_count(kind: dnnl_engine_kind_t) -> usize {
    boundary::unimplemented_value("dnnl_engine_get_count")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_engine_create(
    engine: *mut dnnl_engine_t,
    kind: dnnl_engine_kind_t,
    index: usize,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_engine_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_engine_get_kind(
    engine: dnnl_engine_t,
    kind: *mut dnnl_engine_kind_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_engine_get_kind")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_stream_create(
    stream: *mut dnnl_stream_t,
    engine: dnnl_engine_t,
    flags: c_uint,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_stream_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_stream_get_engine(
    stream: const_dnnl_stream_t,
    engine: *mut dnnl_engine_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_stream_get_engine")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_stream_wait(stream: dnnl_stream_t) -> dnnl_status_t {
    boundary::unimplemented("dnnl_stream_wait")
}
