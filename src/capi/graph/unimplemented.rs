//! Entry points of `dnnl_graph.h` that are not implemented yet.
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
pub unsafe extern "C" fn dnnl_graph_allocator_create(
    allocator: *mut dnnl_graph_allocator_t,
    host_malloc: dnnl_graph_host_allocate_f,
    host_free: dnnl_graph_host_deallocate_f,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_allocator_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_make_engine_with_allocator(
    engine: *mut dnnl_engine_t,
    kind: dnnl_engine_kind_t,
    index: usize,
    alloc: const_dnnl_graph_allocator_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_make_engine_with_allocator")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_tensor_create(
    tensor: *mut dnnl_graph_tensor_t,
    logical_tensor: *const dnnl_graph_logical_tensor_t,
    engine: dnnl_engine_t,
    handle: *mut c_void,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_tensor_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_tensor_create_scalar(
    tensor: *mut dnnl_graph_tensor_t,
    logical_tensor: *const dnnl_graph_logical_tensor_t,
    handle: *mut c_void,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_tensor_create_scalar")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_tensor_get_data_handle(
    tensor: const_dnnl_graph_tensor_t,
    handle: *mut *mut c_void,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_tensor_get_data_handle")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_tensor_set_data_handle(
    tensor: dnnl_graph_tensor_t,
    handle: *mut c_void,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_tensor_set_data_handle")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_tensor_get_engine(
    tensor: const_dnnl_graph_tensor_t,
    engine: *mut dnnl_engine_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_tensor_get_engine")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_tensor_get_logical_tensor(
    tensor: const_dnnl_graph_tensor_t,
    logical_tensor: *mut dnnl_graph_logical_tensor_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_tensor_get_logical_tensor")
}
