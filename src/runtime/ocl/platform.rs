//! OpenCL platforms: one per installed driver (ICD).
//!
//! Layer: `runtime::ocl`. Platforms have no reference count in OpenCL: a
//! `cl_platform_id` stays valid while the library is loaded, which is for the
//! life of the process (`loader.rs`). So [`Platform`] offers the same surface
//! as the other handle types, but retaining and releasing are no-ops.

use std::ffi::{CStr, c_void};

use super::info;
use super::loader::entry;
use super::sys::*;
use crate::base::Result;

/// A `cl_platform_id`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Platform {
    raw: cl_platform_id,
}

// SAFETY: a platform id is an immutable, process-lifetime identifier, and
// every OpenCL call taking one is thread-safe (OpenCL 3.0 §A.2).
unsafe impl Send for Platform {}
// SAFETY: as above; `Platform` has no interior mutability.
unsafe impl Sync for Platform {}

impl Platform {
    /// Every platform the ICD loader reports, in its order. No OpenCL, or no
    /// platform (`CL_PLATFORM_NOT_FOUND_KHR`), gives an empty list.
    pub fn all() -> Result<Vec<Platform>> {
        let get = entry!(clGetPlatformIDs)?;
        let mut count: cl_uint = 0;
        // SAFETY: a count query: no array, a valid out pointer for the count.
        let code = unsafe { get(0, std::ptr::null_mut(), &mut count) };
        if code == -1001 || (code == CL_SUCCESS && count == 0) {
            return Ok(Vec::new());
        }
        super::error::check(code, "clGetPlatformIDs")?;
        let mut raw = vec![std::ptr::null_mut(); count as usize];
        let mut returned: cl_uint = 0;
        // SAFETY: `raw` has room for `count` ids.
        let code = unsafe { get(count, raw.as_mut_ptr(), &mut returned) };
        super::error::check(code, "clGetPlatformIDs")?;
        raw.truncate(returned.min(count) as usize);
        Ok(raw.into_iter().map(|raw| Platform { raw }).collect())
    }

    /// Wraps a platform id the driver returned.
    ///
    /// # Safety
    /// `raw` must be a platform id obtained from OpenCL in this process.
    pub unsafe fn from_owned(raw: cl_platform_id) -> Platform {
        Platform { raw }
    }

    /// Wraps a platform id the user gave us. There is nothing to retain; this
    /// only checks that it is one of the ICD loader's platforms
    /// (`foreign.rs`), which never passes an unknown pointer to OpenCL.
    pub fn retain_borrowed(raw: cl_platform_id) -> Result<Platform> {
        super::foreign::check(super::foreign::Kind::Platform, raw.cast_const().cast())?;
        Ok(Platform { raw })
    }

    /// The raw handle, borrowed.
    pub fn raw(&self) -> cl_platform_id {
        self.raw
    }

    fn string(&self, param: cl_platform_info) -> Result<String> {
        let f = entry!(clGetPlatformInfo)?;
        info::string(
            // SAFETY: `self.raw` is a valid platform id; the helper passes a
            // buffer of `size` bytes (or NULL with size 0) and a valid size pointer.
            &|size, value, ret| unsafe { f(self.raw, param, size, value, ret) },
            "clGetPlatformInfo",
        )
    }

    /// `CL_PLATFORM_NAME`.
    pub fn name(&self) -> Result<String> {
        self.string(CL_PLATFORM_NAME)
    }

    /// `CL_PLATFORM_VENDOR`.
    pub fn vendor(&self) -> Result<String> {
        self.string(CL_PLATFORM_VENDOR)
    }

    /// `CL_PLATFORM_VERSION` ("OpenCL 3.0 ...").
    pub fn version(&self) -> Result<String> {
        self.string(CL_PLATFORM_VERSION)
    }

    /// `CL_PLATFORM_EXTENSIONS`.
    pub fn extensions(&self) -> Result<String> {
        self.string(CL_PLATFORM_EXTENSIONS)
    }

    /// The address of an extension function of this platform, or NULL.
    pub fn extension_function(&self, name: &CStr) -> *mut c_void {
        let Ok(f) = entry!(clGetExtensionFunctionAddressForPlatform) else {
            return std::ptr::null_mut();
        };
        // SAFETY: a valid platform id and a NUL-terminated name.
        unsafe { f(self.raw, name.as_ptr()) }
    }
}
