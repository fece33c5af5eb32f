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
