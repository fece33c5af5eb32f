//! Entry points of `dnnl_ze.h` that are not implemented yet.
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

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ze_interop_engine_get_cache_blob_id(
    driver: ze_driver_handle_t,
    device: ze_device_handle_t,
    size: *mut usize,
    cache_blob_id: *mut u8,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ze_interop_engine_get_cache_blob_id")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ze_interop_engine_get_cache_blob(
    engine: dnnl_engine_t,
    size: *mut usize,
    cache_blob: *mut u8,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ze_interop_engine_get_cache_blob")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ze_interop_engine_create_from_cache_blob(
    engine: *mut dnnl_engine_t,
    driver: ze_driver_handle_t,
    device: ze_device_handle_t,
    context: ze_context_handle_t,
    size: usize,
    cache_blob: *const u8,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ze_interop_engine_create_from_cache_blob")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ze_interop_engine_create(
    engine: *mut dnnl_engine_t,
    driver: ze_driver_handle_t,
    device: ze_device_handle_t,
    context: ze_context_handle_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ze_interop_engine_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ze_interop_engine_get_context(
    engine: dnnl_engine_t,
    context: *mut ze_context_handle_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ze_interop_engine_get_context")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ze_interop_engine_get_device(
    engine: dnnl_engine_t,
    device: *mut ze_device_handle_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ze_interop_engine_get_device")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ze_interop_engine_get_driver(
    engine: dnnl_engine_t,
    driver: *mut ze_driver_handle_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ze_interop_engine_get_driver")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ze_interop_stream_create(
    stream: *mut dnnl_stream_t,
    engine: dnnl_engine_t,
    list: ze_command_list_handle_t,
    profiling: c_int,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ze_interop_stream_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ze_interop_stream_get_list(
    stream: dnnl_stream_t,
    list: *mut ze_command_list_handle_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ze_interop_stream_get_list")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ze_interop_memory_create(
    memory: *mut dnnl_memory_t,
    memory_desc: const_dnnl_memory_desc_t,
    engine: dnnl_engine_t,
    nhandles: c_int,
    handles: *mut *mut c_void,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ze_interop_memory_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ze_interop_primitive_execute(
    primitive: const_dnnl_primitive_t,
    stream: dnnl_stream_t,
    nargs: c_int,
    args: *const dnnl_exec_arg_t,
    ndeps: c_int,
    deps: *const ze_event_handle_t,
    return_event: *mut ze_event_handle_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ze_interop_primitive_execute")
}
