//! Entry points of `dnnl_graph_ocl.h` that are not implemented yet.
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
pub unsafe extern "C" fn dnnl_graph_ocl_interop_compiled_partition_execute(
    compiled_partition: const_dnnl_graph_compiled_partition_t,
    stream: dnnl_stream_t,
    num_inputs: usize,
    inputs: *mut const_dnnl_graph_tensor_t,
    num_outputs: usize,
    outputs: *mut const_dnnl_graph_tensor_t,
    deps: *const cl_event,
    ndeps: c_int,
    return_event: *mut cl_event,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_ocl_interop_compiled_partition_execute")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_ocl_interop_compiled_partition_execute_v2(
    compiled_partition: const_dnnl_graph_compiled_partition_t,
    stream: dnnl_stream_t,
    num_inputs: usize,
    inputs: *mut const_dnnl_graph_tensor_t,
    num_outputs: usize,
    outputs: *mut const_dnnl_graph_tensor_t,
    scratchpad: const_dnnl_graph_tensor_t,
    deps: *const cl_event,
    ndeps: c_int,
    return_event: *mut cl_event,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_ocl_interop_compiled_partition_execute_v2")
}
