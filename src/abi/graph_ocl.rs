//! The callback types of `dnnl_graph_ocl.h`.

use ::core::ffi::c_void;

use super::ocl_types::*;

/// OpenCL allocation callback: returns `size` bytes of USM aligned to `alignment`
/// on `device` in `context`, or NULL.
pub type dnnl_graph_ocl_allocate_f = Option<
    unsafe extern "C" fn(
        size: usize,
        alignment: usize,
        device: cl_device_id,
        context: cl_context,
    ) -> *mut c_void,
>;

/// OpenCL deallocation callback: frees `buf` once `event` (which may be NULL) completes.
pub type dnnl_graph_ocl_deallocate_f = Option<
    unsafe extern "C" fn(
        buf: *mut c_void,
        device: cl_device_id,
        context: cl_context,
        event: cl_event,
    ),
>;
