//! Level Zero engines from the user's driver, device and context, their
//! getters, and the engine cache blob (the engine's compiled programs).

use std::sync::Arc;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::handles;
use crate::capi::ocl::cache_blob::copy_out;
use crate::core::engine::Engine;
use crate::core::ze_engine::ZeEngine;
use crate::core::{Error, Result};
use crate::runtime::ze::foreign;

fn engine_from_user(
    driver: ze_driver_handle_t,
    device: ze_device_handle_t,
    context: ze_context_handle_t,
) -> Result<Arc<Engine>> {
    foreign::check_engine(driver.cast(), device.cast(), context.cast())?;
    Ok(Engine::from_ze(ZeEngine::from_user(
        driver.cast(),
        device.cast(),
        context.cast(),
    )?))
}

/// Creates a GPU engine on the user's Level Zero `driver`, `device` and
/// `context`. All three must be non-NULL, the driver one the loader
/// reports, the device one of the driver's (or a sub-device of one), and
/// the context readable memory (of that driver, where the loader tells) and
/// usable (`zeContextGetStatus`); otherwise `dnnl_invalid_arguments`.
/// Without a Level Zero loader the result is `dnnl_unimplemented`. The
/// handles are borrowed: the library never destroys them, and they must
/// outlive the engine. The caller owns `*engine`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ze_interop_engine_create(
    engine: *mut dnnl_engine_t,
    driver: ze_driver_handle_t,
    device: ze_device_handle_t,
    context: ze_context_handle_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_ze_interop_engine_create", || {
        let out = boundary::out(engine, "engine")?;
        out.write(handles::publish(engine_from_user(driver, device, context)?));
        Ok(())
    })
}

/// Writes the engine's Level Zero context to `*context` (borrowed: the
/// engine keeps using it).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ze_interop_engine_get_context(
    engine: dnnl_engine_t,
    context: *mut ze_context_handle_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_ze_interop_engine_get_context", || {
        let out = boundary::out(context, "context")?;
        let engine = handles::resolve(engine)?;
        out.write(
            engine
                .ze("dnnl_ze_interop_engine_get_context")?
                .context()
                .cast(),
        );
        Ok(())
    })
}

/// Writes the engine's Level Zero device to `*device` (borrowed).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ze_interop_engine_get_device(
    engine: dnnl_engine_t,
    device: *mut ze_device_handle_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_ze_interop_engine_get_device", || {
        let out = boundary::out(device, "device")?;
        let engine = handles::resolve(engine)?;
        out.write(
            engine
                .ze("dnnl_ze_interop_engine_get_device")?
                .device()
                .cast(),
        );
        Ok(())
    })
}

/// Writes the engine's Level Zero driver to `*driver` (borrowed).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ze_interop_engine_get_driver(
    engine: dnnl_engine_t,
    driver: *mut ze_driver_handle_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_ze_interop_engine_get_driver", || {
        let out = boundary::out(driver, "driver")?;
        let engine = handles::resolve(engine)?;
        out.write(
            engine
                .ze("dnnl_ze_interop_engine_get_driver")?
                .driver()
                .cast(),
        );
        Ok(())
    })
}

/// Writes the cache blob id of `device` of `driver` (the device's name,
/// ids and UUID, the driver's version and UUID, and this library's version
/// and build) to `cache_blob_id`, or, when `cache_blob_id` is NULL, its size
/// to `*size`. Otherwise `*size` must equal that size (else
/// `dnnl_invalid_arguments`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ze_interop_engine_get_cache_blob_id(
    driver: ze_driver_handle_t,
    device: ze_device_handle_t,
    size: *mut usize,
    cache_blob_id: *mut u8,
) -> dnnl_status_t {
    boundary::guard("dnnl_ze_interop_engine_get_cache_blob_id", || {
        if driver.is_null() || device.is_null() {
            return Err(Error::invalid("driver or device is NULL"));
        }
        foreign::check_device(driver.cast(), device.cast())?;
        let id = ZeEngine::cache_blob_id(driver.cast(), device.cast())?;
        copy_out(&id, size, cache_blob_id, "the cache blob id")
    })
}

/// Writes the engine's cache blob (its compiled programs: the driver's
/// native binaries where it gives them, else SPIR-V; empty while it has
/// compiled nothing) to `cache_blob`, or, when `cache_blob` is NULL, its
/// size to `*size`. Otherwise `*size` must equal that size.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ze_interop_engine_get_cache_blob(
    engine: dnnl_engine_t,
    size: *mut usize,
    cache_blob: *mut u8,
) -> dnnl_status_t {
    boundary::guard("dnnl_ze_interop_engine_get_cache_blob", || {
        let engine = handles::resolve(engine)?;
        let blob = engine.ze("a Level Zero engine cache blob")?.cache_blob()?;
        copy_out(&blob, size, cache_blob, "the cache blob")
    })
}

/// Creates a GPU engine as `dnnl_ze_interop_engine_create` does and loads
/// the programs of `cache_blob` into it, so they are not compiled again. A
/// blob made for another device, driver or library version, or a corrupted
/// one, is refused with `dnnl_invalid_arguments`. The caller owns `*engine`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ze_interop_engine_create_from_cache_blob(
    engine: *mut dnnl_engine_t,
    driver: ze_driver_handle_t,
    device: ze_device_handle_t,
    context: ze_context_handle_t,
    size: usize,
    cache_blob: *const u8,
) -> dnnl_status_t {
    boundary::guard("dnnl_ze_interop_engine_create_from_cache_blob", || {
        let out = boundary::out(engine, "engine")?;
        if cache_blob.is_null() || size == 0 {
            return Err(Error::invalid("the cache blob is NULL or empty"));
        }
        // SAFETY: the caller's blob holds `size` bytes.
        let blob = unsafe { std::slice::from_raw_parts(cache_blob, size) };
        let created = engine_from_user(driver, device, context)?;
        created
            .ze("a Level Zero engine cache blob")?
            .load_cache_blob(blob)?;
        out.write(handles::publish(created));
        Ok(())
    })
}
