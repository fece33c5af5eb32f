//! OpenCL contexts.
//!
//! Layer: `runtime::ocl`. An engine owns one [`Context`]: its own (created
//! for one device) or the user's (retained, `retain_borrowed`).

use super::device::Device;
use super::error::{check, to_error};
use super::handle::cl_handle;
use super::info;
use super::loader::entry;
use super::sys::*;
use crate::base::Result;

cl_handle! {
    /// A `cl_context`.
    pub struct Context(cl_context), "cl_context";
    kind: Context, retain: clRetainContext, release: clReleaseContext, info: clGetContextInfo,
    refcount: CL_CONTEXT_REFERENCE_COUNT;
}

impl Context {
    /// A new context holding `device` alone, on the device's platform.
    pub fn create(device: &Device) -> Result<Context> {
        let create = entry!(clCreateContext)?;
        let platform = device.platform()?;
        let properties = [
            CL_CONTEXT_PLATFORM,
            platform.raw() as cl_context_properties,
            0,
        ];
        let raw_device = device.raw();
        let mut code = CL_SUCCESS;
        // SAFETY: a zero-terminated property list, one live device, no
        // callback, and a valid out pointer for the status.
        let raw = unsafe {
            create(
                properties.as_ptr(),
                1,
                &raw_device,
                None,
                std::ptr::null_mut(),
                &mut code,
            )
        };
        check(code, "clCreateContext")?;
        if raw.is_null() {
            return Err(to_error(code, "clCreateContext"));
        }
        // SAFETY: clCreateContext gave us the only reference.
        Ok(unsafe { Context::from_owned(raw) })
    }

    /// The devices of the context (`CL_CONTEXT_DEVICES`), each retained.
    pub fn devices(&self) -> Result<Vec<Device>> {
        let f = entry!(clGetContextInfo)?;
        let raw: Vec<cl_device_id> = info::array(
            // SAFETY: a live context; the helper passes a buffer of `size` bytes.
            &|size, value, ret| unsafe { f(self.raw, CL_CONTEXT_DEVICES, size, value, ret) },
            "clGetContextInfo",
        )?;
        raw.into_iter()
            // SAFETY: device ids the driver returned for a live context.
            .map(|d| unsafe { Device::retain_borrowed(d) })
            .collect()
    }

    /// Whether `device` is one of the context's devices (the same handle; a
    /// sub-device is not its parent).
    pub fn contains(&self, device: &Device) -> Result<bool> {
        Ok(self.devices()?.iter().any(|d| d.raw() == device.raw()))
    }
}
