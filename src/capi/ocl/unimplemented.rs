//! Entry points of `dnnl_ocl.h` that are not implemented yet.
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
pub unsafe extern "C" fn dnnl_ocl_interop_memory_create(
    memory: *mut dnnl_memory_t,
    memory_desc: const_dnnl_memory_desc_t,
    engine: dnnl_engine_t,
    memory_kind: dnnl_ocl_interop_memory_kind_t,
    handle: *mut c_void,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ocl_interop_memory_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_memory_create_v2(
    memory: *mut dnnl_memory_t,
    memory_desc: const_dnnl_memory_desc_t,
    engine: dnnl_engine_t,
    memory_kind: dnnl_ocl_interop_memory_kind_t,
    nhandles: c_int,
    handles: *mut *mut c_void,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ocl_interop_memory_create_v2")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_memory_get_memory_kind(
    memory: const_dnnl_memory_t,
    memory_kind: *mut dnnl_ocl_interop_memory_kind_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ocl_interop_memory_get_memory_kind")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_memory_get_mem_object(
    memory: const_dnnl_memory_t,
    mem_object: *mut cl_mem,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ocl_interop_memory_get_mem_object")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_memory_set_mem_object(
    memory: dnnl_memory_t,
    mem_object: cl_mem,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ocl_interop_memory_set_mem_object")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_engine_get_cache_blob_id(
    device: cl_device_id,
    size: *mut usize,
    cache_blob_id: *mut u8,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ocl_interop_engine_get_cache_blob_id")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_engine_get_cache_blob(
    engine: dnnl_engine_t,
    size: *mut usize,
    cache_blob: *mut u8,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ocl_interop_engine_get_cache_blob")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_engine_create_from_cache_blob(
    engine: *mut dnnl_engine_t,
    device: cl_device_id,
    context: cl_context,
    size: usize,
    cache_blob: *const u8,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ocl_interop_engine_create_from_cache_blob")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_engine_create(
    engine: *mut dnnl_engine_t,
    device: cl_device_id,
    context: cl_context,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ocl_interop_engine_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_engine_get_context(
    engine: dnnl_engine_t,
    context: *mut cl_context,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ocl_interop_engine_get_context")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_get_device(
    engine: dnnl_engine_t,
    device: *mut cl_device_id,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ocl_interop_get_device")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_stream_create(
    stream: *mut dnnl_stream_t,
    engine: dnnl_engine_t,
    queue: cl_command_queue,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ocl_interop_stream_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_stream_get_command_queue(
    stream: dnnl_stream_t,
    queue: *mut cl_command_queue,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ocl_interop_stream_get_command_queue")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_primitive_execute(
    primitive: const_dnnl_primitive_t,
    stream: dnnl_stream_t,
    nargs: c_int,
    args: *const dnnl_exec_arg_t,
    deps: *const cl_event,
    ndeps: c_int,
    return_event: *mut cl_event,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ocl_interop_primitive_execute")
}
// The oneDNN v1 names of the OpenCL interoperability API (seeds:
// ocl_interop_guide_v1.md), which newer oneDNN dropped and we keep. Upstream
// v1 took `const_dnnl_engine_t`, which v3 no longer declares; the handle type
// is ABI-identical.

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_engine_create_ocl(
    engine: *mut dnnl_engine_t,
    kind: dnnl_engine_kind_t,
    device: cl_device_id,
    context: cl_context,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_engine_create_ocl")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_engine_get_ocl_device(
    engine: dnnl_engine_t,
    device: *mut cl_device_id,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_engine_get_ocl_device")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_engine_get_ocl_context(
    engine: dnnl_engine_t,
    context: *mut cl_context,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_engine_get_ocl_context")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_stream_create_ocl(
    stream: *mut dnnl_stream_t,
    engine: dnnl_engine_t,
    queue: cl_command_queue,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_stream_create_ocl")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_stream_get_ocl_command_queue(
    stream: dnnl_stream_t,
    queue: *mut cl_command_queue,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_stream_get_ocl_command_queue")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_get_ocl_mem_object(
    memory: const_dnnl_memory_t,
    mem_object: *mut cl_mem,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_memory_get_ocl_mem_object")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_set_ocl_mem_object(
    memory: dnnl_memory_t,
    mem_object: cl_mem,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_memory_set_ocl_mem_object")
}
