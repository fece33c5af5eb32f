//! The OpenCL engine cache blob: the engine's compiled programs, so that a
//! later engine on the same device, driver and library skips compilation.
//! (Upstream's blob holds device information only.)

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::handles;
use crate::capi::ocl::engine::engine_from_user;
use crate::core::ocl_engine::OclEngine;
use crate::core::{Error, Result};
use crate::runtime::ocl::Device;

/// Copies `bytes` out the way the cache-blob functions do: a NULL `data`
/// asks for the size; otherwise `*size` must equal it.
pub(crate) fn copy_out(bytes: &[u8], size: *mut usize, data: *mut u8, what: &str) -> Result<()> {
    if size.is_null() || !size.is_aligned() {
        return Err(Error::invalid("size is NULL or misaligned"));
    }
    if data.is_null() {
        // SAFETY: checked non-NULL and aligned; the caller's writable size_t.
        unsafe { size.write(bytes.len()) };
        return Ok(());
    }
    // SAFETY: as above, readable.
    let given = unsafe { size.read() };
    if given != bytes.len() {
        return Err(Error::invalid(format!(
            "{what} has {} bytes, size says {given}",
            bytes.len()
        )));
    }
    // SAFETY: the caller's buffer holds `given` == `bytes.len()` bytes.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), data, bytes.len()) };
    Ok(())
}

/// Writes the cache blob id of `device` (its platform, name, vendor, driver,
/// and this library's version and build) to `cache_blob_id`, or, when
/// `cache_blob_id` is NULL, its size to `*size`. Otherwise `*size` must be that size.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_engine_get_cache_blob_id(
    device: cl_device_id,
    size: *mut usize,
    cache_blob_id: *mut u8,
) -> dnnl_status_t {
    boundary::guard("dnnl_ocl_interop_engine_get_cache_blob_id", || {
        // SAFETY: the C contract: `device` is an OpenCL device.
        let device = unsafe { Device::retain_borrowed(device.cast()) }?;
        copy_out(
            &OclEngine::cache_blob_id(&device)?,
            size,
            cache_blob_id,
            "the cache blob id",
        )
    })
}

/// Writes the engine's cache blob (its compiled programs as device binaries;
/// empty while it has compiled nothing) to `cache_blob`, or, when
/// `cache_blob` is NULL, its size to `*size`. Otherwise `*size` must be that size.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_engine_get_cache_blob(
    engine: dnnl_engine_t,
    size: *mut usize,
    cache_blob: *mut u8,
) -> dnnl_status_t {
    boundary::guard("dnnl_ocl_interop_engine_get_cache_blob", || {
        let engine = handles::resolve(engine)?;
        let blob = engine.ocl("an engine cache blob")?.cache_blob()?;
        copy_out(&blob, size, cache_blob, "the cache blob")
    })
}

/// Creates a GPU engine on the user's `device` and `context` and loads the
/// programs of `cache_blob` into it. A blob made for another device, driver
/// or library version, or a corrupted one, is refused with
/// `dnnl_invalid_arguments`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_engine_create_from_cache_blob(
    engine: *mut dnnl_engine_t,
    device: cl_device_id,
    context: cl_context,
    size: usize,
    cache_blob: *const u8,
) -> dnnl_status_t {
    boundary::guard("dnnl_ocl_interop_engine_create_from_cache_blob", || {
        let out = boundary::out(engine, "engine")?;
        if cache_blob.is_null() || size == 0 {
            return Err(Error::invalid("the cache blob is NULL or empty"));
        }
        // SAFETY: the caller's blob holds `size` bytes.
        let blob = unsafe { std::slice::from_raw_parts(cache_blob, size) };
        let created = engine_from_user(device, context)?;
        created.ocl("an engine cache blob")?.load_cache_blob(blob)?;
        out.write(handles::publish(created));
        Ok(())
    })
}
