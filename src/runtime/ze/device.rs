//! Level Zero drivers and devices: enumeration and the properties the
//! library uses (names for verbose lines, the device kind for tuning, the
//! work-group limit, and what identifies a driver and device in cache-blob
//! ids).
//!
//! Layer: `runtime::ze`.

use std::ffi::CStr;

use level_zero_sys as sys;

use super::{api, check};
use crate::base::Result;

/// Every driver the loader reports (empty when none).
pub fn drivers() -> Result<Vec<sys::ze_driver_handle_t>> {
    let api = api()?;
    let mut count = 0u32;
    // SAFETY: a count query (NULL array).
    let r = unsafe { api.zeDriverGet(&mut count, std::ptr::null_mut()) };
    if r == sys::ZE_RESULT_ERROR_UNINITIALIZED || count == 0 {
        return Ok(Vec::new());
    }
    check(r, "zeDriverGet")?;
    let mut out = vec![std::ptr::null_mut(); count as usize];
    check(
        // SAFETY: room for `count` handles.
        unsafe { api.zeDriverGet(&mut count, out.as_mut_ptr()) },
        "zeDriverGet",
    )?;
    out.truncate(count as usize);
    Ok(out)
}

/// The devices of `driver` (root devices, as `zeDeviceGet` lists them).
pub fn devices_of(driver: sys::ze_driver_handle_t) -> Result<Vec<sys::ze_device_handle_t>> {
    let api = api()?;
    let mut count = 0u32;
    check(
        // SAFETY: a count query on a driver handle the caller vouches for.
        unsafe { api.zeDeviceGet(driver, &mut count, std::ptr::null_mut()) },
        "zeDeviceGet",
    )?;
    let mut out = vec![std::ptr::null_mut(); count as usize];
    check(
        // SAFETY: room for `count` handles.
        unsafe { api.zeDeviceGet(driver, &mut count, out.as_mut_ptr()) },
        "zeDeviceGet",
    )?;
    out.truncate(count as usize);
    Ok(out)
}

/// What the library knows about a device and its driver.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// `ze_device_properties_t::name`.
    pub name: String,
    /// PCI vendor and device ids.
    pub vendor_id: u32,
    pub device_id: u32,
    /// Whether the device is a GPU (`ZE_DEVICE_TYPE_GPU`).
    pub is_gpu: bool,
    /// The device's UUID.
    pub uuid: [u8; 16],
    /// `ze_driver_properties_t::driverVersion` and the driver's UUID.
    pub driver_version: u32,
    pub driver_uuid: [u8; 16],
    /// The largest work-group (`maxTotalGroupSize`).
    pub max_group_size: usize,
    /// Kernel timestamp ticks per second, and how many of their bits are valid.
    pub timer_hz: u64,
    pub kernel_timestamp_bits: u32,
}

/// The properties of `device` of `driver`.
pub fn device_info(
    driver: sys::ze_driver_handle_t,
    device: sys::ze_device_handle_t,
) -> Result<DeviceInfo> {
    let api = api()?;
    let mut props = sys::ze_device_properties_t::default();
    check(
        // SAFETY: a device handle and a properties struct with its stype set.
        unsafe { api.zeDeviceGetProperties(device, &mut props) },
        "zeDeviceGetProperties",
    )?;
    let mut compute = sys::ze_device_compute_properties_t::default();
    check(
        // SAFETY: as above.
        unsafe { api.zeDeviceGetComputeProperties(device, &mut compute) },
        "zeDeviceGetComputeProperties",
    )?;
    // The timer frequency in ticks per second (the 1.2 reading of
    // timerResolution; the 1.0 one is nanoseconds per tick).
    let mut props_1_2 = sys::ze_device_properties_t {
        stype: sys::ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2,
        ..Default::default()
    };
    // SAFETY: as above.
    let timer_hz = if unsafe { api.zeDeviceGetProperties(device, &mut props_1_2) }
        == sys::ZE_RESULT_SUCCESS
        && props_1_2.timerResolution > 0
    {
        props_1_2.timerResolution
    } else {
        1_000_000_000 / props.timerResolution.max(1)
    };
    let mut drv = sys::ze_driver_properties_t::default();
    check(
        // SAFETY: a driver handle and a properties struct with its stype set.
        unsafe { api.zeDriverGetProperties(driver, &mut drv) },
        "zeDriverGetProperties",
    )?;
    // SAFETY: the driver NUL-terminates the name inside the array.
    let name = unsafe { CStr::from_ptr(props.name.as_ptr()) }
        .to_string_lossy()
        .into_owned();
    Ok(DeviceInfo {
        name,
        vendor_id: props.vendorId,
        device_id: props.deviceId,
        is_gpu: props.r#type == sys::ZE_DEVICE_TYPE_GPU,
        uuid: props.uuid.id,
        driver_version: drv.driverVersion,
        driver_uuid: drv.uuid.id,
        max_group_size: compute.maxTotalGroupSize.max(1) as usize,
        timer_hz,
        kernel_timestamp_bits: props.kernelTimestampValidBits,
    })
}

/// Every (driver, device) pair, drivers in loader order, GPUs first within
/// the whole list (the order `dnnl_engine_create(dnnl_gpu, i)` uses when
/// Level Zero is the GPU runtime). Empty without a loader.
pub fn all_devices() -> Vec<(sys::ze_driver_handle_t, sys::ze_device_handle_t)> {
    let Ok(drivers) = drivers() else {
        return Vec::new();
    };
    let mut all = Vec::new();
    for driver in drivers {
        for device in devices_of(driver).unwrap_or_default() {
            let gpu = device_info(driver, device).is_ok_and(|i| i.is_gpu);
            all.push((!gpu, driver, device));
        }
    }
    // Stable: loader order within each kind.
    all.sort_by_key(|(not_gpu, _, _)| *not_gpu);
    all.into_iter().map(|(_, dr, de)| (dr, de)).collect()
}
