//! `dnnl_ocl_types.h`, and the OpenCL handle types our prototypes name.
//!
//! The `cl_*` aliases stand for the types of `<CL/cl.h>`: the generated headers
//! include that file instead of declaring them (cbindgen.toml excludes them).

use ::core::ffi::c_void;

include!(concat!(env!("OUT_DIR"), "/c_enums/ocl_types.rs"));

/// `cl_context` of `<CL/cl.h>`.
pub type cl_context = *mut c_void;
/// `cl_device_id` of `<CL/cl.h>`.
pub type cl_device_id = *mut c_void;
/// `cl_command_queue` of `<CL/cl.h>`.
pub type cl_command_queue = *mut c_void;
/// `cl_mem` of `<CL/cl.h>`.
pub type cl_mem = *mut c_void;
/// `cl_event` of `<CL/cl.h>`.
pub type cl_event = *mut c_void;
