//! OpenCL buffers (`cl_mem`).
//!
//! Layer: `runtime::ocl`. OpenCL has no zero-size buffers
//! (`CL_INVALID_BUFFER_SIZE`): [`Mem::create`] refuses size 0, and the memory
//! layer represents an empty memory object with no buffer at all.

use super::context::Context;
use super::error::alloc_error;
use super::handle::cl_handle;
use super::info;
use super::loader::entry;
use super::sys::*;
use crate::base::{Error, Result};

cl_handle! {
    /// A `cl_mem` (a buffer, in this library).
    pub struct Mem(cl_mem), "cl_mem";
    kind: Mem, retain: clRetainMemObject, release: clReleaseMemObject, info: clGetMemObjectInfo,
    refcount: CL_MEM_REFERENCE_COUNT;
}

impl Mem {
    /// A new `CL_MEM_READ_WRITE` buffer of `size` bytes (not zero).
    pub fn create(context: &Context, size: usize) -> Result<Mem> {
        Mem::create_with_flags(context, CL_MEM_READ_WRITE, size)
    }

    /// A new buffer with explicit flags (no host pointer flags: `CL_MEM_USE_HOST_PTR`
    /// and `CL_MEM_COPY_HOST_PTR` would need one).
    pub fn create_with_flags(context: &Context, flags: cl_mem_flags, size: usize) -> Result<Mem> {
        if size == 0 {
            return Err(Error::invalid("OpenCL buffers cannot have size 0"));
        }
        let create = entry!(clCreateBuffer)?;
        let mut code = CL_SUCCESS;
        // SAFETY: a live context, no host pointer, a valid status pointer.
        let raw = unsafe { create(context.raw(), flags, size, std::ptr::null_mut(), &mut code) };
        if code != CL_SUCCESS || raw.is_null() {
            return Err(alloc_error(code, "clCreateBuffer"));
        }
        // SAFETY: clCreateBuffer gave us the only reference.
        Ok(unsafe { Mem::from_owned(raw) })
    }

    fn scalar<T: info::InfoScalar>(&self, param: cl_mem_info) -> Result<T> {
        let f = entry!(clGetMemObjectInfo)?;
        info::scalar(
            // SAFETY: a live buffer; the helper passes a buffer of `size` bytes.
            &|size, value, ret| unsafe { f(self.raw, param, size, value, ret) },
            "clGetMemObjectInfo",
        )
    }

    /// `CL_MEM_SIZE`, bytes.
    pub fn size(&self) -> Result<usize> {
        self.scalar(CL_MEM_SIZE)
    }

    /// `CL_MEM_FLAGS`.
    pub fn flags(&self) -> Result<cl_mem_flags> {
        self.scalar(CL_MEM_FLAGS)
    }

    /// The buffer's context (`CL_MEM_CONTEXT`), retained.
    pub fn context(&self) -> Result<Context> {
        let raw: cl_context = self.scalar(CL_MEM_CONTEXT)?;
        // SAFETY: the driver returned the live context of a live buffer.
        unsafe { Context::retain_borrowed(raw) }
    }
}
