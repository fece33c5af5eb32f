//! Unified shared memory on Level Zero: our allocations (freed on drop) and
//! the kind of a user's pointer (`zeMemGetAllocProperties`).
//!
//! Layer: `runtime::ze`. A user pointer is never freed here.

use std::ffi::c_void;

use level_zero_sys as sys;

use super::{Raw, api, check};
use crate::base::{Error, Result};

/// The kind of a USM pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemKind {
    /// Host memory the device can access.
    Host,
    /// Device memory: the host cannot touch it.
    Device,
    /// Shared memory, migrating between host and device.
    Shared,
    /// Not an allocation of the context.
    Unknown,
}

/// The kind of `ptr` in `context`.
pub fn mem_kind(context: sys::ze_context_handle_t, ptr: *const c_void) -> Result<MemKind> {
    let api = api()?;
    let mut props = sys::ze_memory_allocation_properties_t::default();
    let mut device: sys::ze_device_handle_t = std::ptr::null_mut();
    check(
        // SAFETY: a context handle, any pointer value (only looked up), and
        // writable outputs.
        unsafe { api.zeMemGetAllocProperties(context, ptr, &mut props, &mut device) },
        "zeMemGetAllocProperties",
    )?;
    Ok(match props.r#type {
        sys::ZE_MEMORY_TYPE_HOST => MemKind::Host,
        sys::ZE_MEMORY_TYPE_DEVICE => MemKind::Device,
        sys::ZE_MEMORY_TYPE_SHARED => MemKind::Shared,
        _ => MemKind::Unknown,
    })
}

/// A USM allocation we made, freed (`zeMemFree`) on drop.
pub struct UsmAlloc {
    context: Raw<sys::ze_context_handle_t>,
    ptr: Raw<*mut c_void>,
    size: usize,
    kind: MemKind,
}

impl UsmAlloc {
    /// Allocates `size` bytes (at least 1) of `kind` memory of `device` in
    /// `context`, aligned to `alignment`.
    pub fn new(
        context: sys::ze_context_handle_t,
        device: sys::ze_device_handle_t,
        kind: MemKind,
        size: usize,
        alignment: usize,
    ) -> Result<UsmAlloc> {
        let api = api()?;
        let bytes = size.max(1);
        let mut ptr: *mut c_void = std::ptr::null_mut();
        let dev_desc = sys::ze_device_mem_alloc_desc_t::default();
        let host_desc = sys::ze_host_mem_alloc_desc_t::default();
        // SAFETY: handles of a live context and device, descriptors with their
        // stype set, and a writable output pointer.
        let r = unsafe {
            match kind {
                MemKind::Device => {
                    api.zeMemAllocDevice(context, &dev_desc, bytes, alignment, device, &mut ptr)
                }
                MemKind::Host => {
                    api.zeMemAllocHost(context, &host_desc, bytes, alignment, &mut ptr)
                }
                MemKind::Shared => api.zeMemAllocShared(
                    context, &dev_desc, &host_desc, bytes, alignment, device, &mut ptr,
                ),
                MemKind::Unknown => {
                    return Err(Error::invalid("cannot allocate memory of unknown kind"));
                }
            }
        };
        // A size the device cannot allocate (beyond its `maxMemAllocSize`) is
        // out of memory, as the other allocation failures.
        if r == sys::ZE_RESULT_ERROR_UNSUPPORTED_SIZE {
            return Err(Error::OutOfMemory(
                format!("zeMemAlloc of {bytes} bytes failed: {r}").into(),
            ));
        }
        check(r, "zeMemAlloc")?;
        if ptr.is_null() {
            return Err(Error::OutOfMemory(
                format!("Level Zero returned no allocation of {size} bytes").into(),
            ));
        }
        Ok(UsmAlloc {
            context: Raw(context),
            ptr: Raw(ptr),
            size,
            kind,
        })
    }

    /// The pointer.
    pub fn ptr(&self) -> *mut c_void {
        self.ptr.0
    }

    /// The size asked for.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The kind.
    pub fn kind(&self) -> MemKind {
        self.kind
    }
}

impl Drop for UsmAlloc {
    fn drop(&mut self) {
        if let Ok(api) = api() {
            // SAFETY: our allocation in a context that outlives it (the
            // engine owning the context holds the allocation's owner).
            let r = unsafe { api.zeMemFree(self.context.0, self.ptr.0) };
            if let Err(e) = check(r, "zeMemFree") {
                super::warn(&e.to_string());
            }
        }
    }
}
