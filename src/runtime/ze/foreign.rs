//! Foreign Level Zero handles: what can be checked before a user's driver,
//! device, context, command list or event reaches the loader.
//!
//! Layer: `runtime::ze`; the memory test is `runtime::ocl::foreign`'s. The
//! capi entry points of `dnnl_ze.h` call these checks before anything else
//! sees the handles.
//!
//! What the loader hands out (Debian libze1 1.8.12, read from its behaviour
//! here): with one driver and no `ZE_ENABLE_LOADER_INTERCEPT`, the loader
//! gives the application the driver's own handles and calls the driver's
//! functions directly (the validation layer, when enabled, sits in between
//! and passes handles through, refusing NULL only). With more than one
//! driver, or with the intercept forced, every handle is a loader object of
//! two words, `{driver's handle, driver's dispatch table}`, and the loader
//! reads both through the pointer before calling the driver, so a wild
//! pointer crashes inside the loader.
//!
//! The checks:
//! - driver: one of the loader's (`zeDriverGet`), compared by value;
//! - device: a device or sub-device of that driver, compared by value;
//! - context, command list, event: not NULL, aligned, and their first word
//!   (two words where the loader wraps handles) readable, tested without
//!   faulting. Where the loader wraps handles, the second word must also be
//!   the dispatch table of the engine's driver, which refuses zero-filled or
//!   foreign memory and another driver's objects.
//!
//! Wrapping is recognised from the handles the loader itself returned: the
//! loader wraps (more than one driver, or the intercept forced) and each
//! driver's handle and its devices' handles share one second word, distinct
//! per driver. A loader that passes handles through gets the first-word test
//! only.
//!
//! What cannot be recognised: contexts, lists and events cannot be
//! enumerated, and every loader object of a driver carries the same table,
//! so an object of another type of the same driver (a context passed as a
//! command list) reaches the driver. The in-repository driver
//! (`crates/ze-ocl-driver`) refuses it from its registry of live objects;
//! another driver may not. Neither can a destroyed object whose memory is
//! not yet reused. USM pointers need no check: the loader and the driver
//! look them up (`zeMemGetAllocProperties`) without reading through them.

use std::sync::OnceLock;

use level_zero_sys as sys;

use super::{api, check, devices_of, drivers};
use crate::base::{Error, Result};
use crate::runtime::ocl::foreign::readable;

/// One driver as the loader gave it.
struct Driver {
    handle: usize,
    /// Its devices and their sub-devices, sorted.
    devices: Vec<usize>,
    /// The second word of the loader's handles of this driver, where the
    /// loader wraps handles.
    table: Option<usize>,
}

fn loaded() -> Result<&'static [Driver]> {
    static LOADED: OnceLock<Vec<Driver>> = OnceLock::new();
    api()?;
    Ok(LOADED.get_or_init(enumerate))
}

/// The deepest sub-device nesting followed.
const MAX_SUB_DEVICE_DEPTH: usize = 3;

fn enumerate() -> Vec<Driver> {
    let Ok(handles) = drivers() else {
        return Vec::new();
    };
    let mut all: Vec<Driver> = handles
        .iter()
        .map(|&driver| {
            let mut devices = Vec::new();
            let mut level: Vec<sys::ze_device_handle_t> = devices_of(driver).unwrap_or_default();
            for _ in 0..MAX_SUB_DEVICE_DEPTH {
                devices.extend(level.iter().map(|&d| d as usize));
                level = level.iter().flat_map(|&d| sub_devices(d)).collect();
                if level.is_empty() {
                    break;
                }
            }
            devices.sort_unstable();
            devices.dedup();
            Driver {
                handle: driver as usize,
                devices,
                table: None,
            }
        })
        .collect();
    if loader_wraps(all.len()) {
        let tables: Vec<Option<usize>> = all.iter().map(shared_second_word).collect();
        let mut distinct: Vec<usize> = tables.iter().flatten().copied().collect();
        distinct.sort_unstable();
        distinct.dedup();
        if tables.iter().all(Option::is_some) && distinct.len() == all.len() {
            for (driver, table) in all.iter_mut().zip(tables) {
                driver.table = table;
            }
        }
    }
    all
}

/// Whether the loader wraps handles: it has more than one driver, or
/// `ZE_ENABLE_LOADER_INTERCEPT` forces it (any value but "0").
fn loader_wraps(drivers: usize) -> bool {
    drivers > 1
        || std::env::var_os("ZE_ENABLE_LOADER_INTERCEPT").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The second word shared by the driver's handle and all its devices'
/// handles (what a loader object of this driver carries), if they share one.
fn shared_second_word(driver: &Driver) -> Option<usize> {
    let second = |handle: usize| {
        let word = handle.checked_add(size_of::<usize>())?;
        // SAFETY: `readable` tested the two words, handles the loader itself
        // returned; the word is copied out and only compared.
        readable(handle, 2 * size_of::<usize>())
            .then(|| unsafe { std::ptr::with_exposed_provenance::<usize>(word).read_volatile() })
    };
    let table = second(driver.handle)?;
    if table == 0 || driver.devices.is_empty() {
        return None;
    }
    driver
        .devices
        .iter()
        .all(|&d| second(d) == Some(table))
        .then_some(table)
}

fn sub_devices(device: sys::ze_device_handle_t) -> Vec<sys::ze_device_handle_t> {
    let Ok(api) = api() else {
        return Vec::new();
    };
    let mut count = 0u32;
    // SAFETY: a device the loader returned; a count query.
    let r = unsafe { api.zeDeviceGetSubDevices(device, &mut count, std::ptr::null_mut()) };
    if check(r, "zeDeviceGetSubDevices").is_err() || count == 0 {
        return Vec::new();
    }
    let mut out = vec![std::ptr::null_mut(); count as usize];
    // SAFETY: room for `count` handles.
    let r = unsafe { api.zeDeviceGetSubDevices(device, &mut count, out.as_mut_ptr()) };
    if check(r, "zeDeviceGetSubDevices").is_err() {
        return Vec::new();
    }
    out.truncate(count as usize);
    out
}

fn find(driver: sys::ze_driver_handle_t) -> Result<&'static Driver> {
    if driver.is_null() {
        return Err(Error::invalid("driver is NULL"));
    }
    loaded()?
        .iter()
        .find(|d| d.handle == driver as usize)
        .ok_or_else(|| {
            Error::invalid(format!(
                "driver {driver:p} is not one the Level Zero loader reports"
            ))
        })
}

/// Checks that `driver` is one of the loader's drivers.
pub fn check_driver(driver: sys::ze_driver_handle_t) -> Result<()> {
    find(driver).map(|_| ())
}

/// Checks that `driver` is one of the loader's and `device` a device or
/// sub-device of it.
pub fn check_device(
    driver: sys::ze_driver_handle_t,
    device: sys::ze_device_handle_t,
) -> Result<()> {
    if device.is_null() {
        return Err(Error::invalid("device is NULL"));
    }
    if find(driver)?
        .devices
        .binary_search(&(device as usize))
        .is_err()
    {
        return Err(Error::invalid(format!(
            "device {device:p} is not a device of the Level Zero driver {driver:p}"
        )));
    }
    Ok(())
}

/// Checks a context, command list or event (`what` names it) given for
/// `driver` (see the module documentation for what is checked and what
/// cannot be).
pub fn check_object<T>(driver: sys::ze_driver_handle_t, raw: *mut T, what: &str) -> Result<()> {
    if raw.is_null() {
        return Err(Error::invalid(format!("{what} is NULL")));
    }
    let driver = find(driver)?;
    let words = if driver.table.is_some() { 2 } else { 1 };
    let addr = raw as usize;
    if !addr.is_multiple_of(align_of::<usize>()) || !readable(addr, words * size_of::<usize>()) {
        return Err(Error::invalid(format!(
            "{what} {raw:p} is not a Level Zero object: its memory is not readable"
        )));
    }
    if let Some(table) = driver.table {
        // SAFETY: the second word, tested readable above; copied out and compared.
        let second = unsafe {
            std::ptr::with_exposed_provenance::<usize>(addr + size_of::<usize>()).read_volatile()
        };
        if second != table {
            return Err(Error::invalid(format!(
                "{what} {raw:p} is not an object of the Level Zero driver {:#x}: the loader's \
                 handles of that driver carry its dispatch table, this one does not",
                driver.handle
            )));
        }
    }
    Ok(())
}

/// Checks an engine's `driver`, `device` and `context`.
pub fn check_engine(
    driver: sys::ze_driver_handle_t,
    device: sys::ze_device_handle_t,
    context: sys::ze_context_handle_t,
) -> Result<()> {
    if driver.is_null() {
        return Err(Error::invalid("driver is NULL"));
    }
    if device.is_null() {
        return Err(Error::invalid("device is NULL"));
    }
    if context.is_null() {
        return Err(Error::invalid("context is NULL"));
    }
    check_device(driver, device)?;
    check_object(driver, context, "context")
}
