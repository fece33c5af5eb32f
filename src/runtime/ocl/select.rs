//! Which OpenCL devices the GPU engines see, and in which order.
//!
//! Layer: `runtime::ocl`. [`devices`] lists every available device of every
//! platform, GPU-type first, then accelerators, then CPU-type devices (stable
//! within a type: platform order, then the platform's device order), and
//! narrows the list with `ONEDNN_OCL_DEVICES` (or `DNNL_OCL_DEVICES`):
//!
//! - `type:gpu`, `type:accelerator`, `type:cpu`: devices of that type;
//! - `platform:<text>`: devices whose platform name contains `<text>`;
//! - `name:<text>`: devices whose name contains `<text>`;
//! - `strict`: upstream oneDNN's policy, Intel (vendor id 0x8086) GPUs only.
//!
//! Terms are comma-separated and case-insensitive. Terms of one kind are
//! alternatives (`type:gpu,type:cpu`), terms of different kinds must all hold
//! (`type:gpu,platform:nvidia`). An unknown term is reported on the verbose
//! log's `error` level and ignored. Devices that report `CL_DEVICE_AVAILABLE`
//! false, or whose type is none of the three (custom devices, which have no
//! OpenCL C compiler), are never listed.

use std::sync::Mutex;

use super::device::{Device, DeviceType};
use super::loader::entry;
use super::platform::Platform;
use super::sys::*;
use crate::base::env;
use crate::base::verbose;

/// The Intel PCI vendor id (the `strict` policy).
pub const INTEL_VENDOR_ID: u32 = 0x8086;

/// A parsed `ONEDNN_OCL_DEVICES` value. The default filter lets every device through.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeviceFilter {
    /// `type:` terms (any of them).
    pub types: Vec<DeviceType>,
    /// `platform:` terms, lower-cased (any of them).
    pub platforms: Vec<String>,
    /// `name:` terms, lower-cased (any of them).
    pub names: Vec<String>,
    /// `strict`: Intel GPUs only.
    pub strict: bool,
}

/// What a filter looks at for one device.
#[derive(Clone, Debug)]
pub struct DeviceSummary {
    /// The device's type.
    pub device_type: DeviceType,
    /// `CL_PLATFORM_NAME`.
    pub platform_name: String,
    /// `CL_DEVICE_NAME`.
    pub name: String,
    /// `CL_DEVICE_VENDOR_ID`.
    pub vendor_id: u32,
}

impl DeviceFilter {
    /// Parses a comma-separated list of terms; also returns a message for each
    /// term that was not understood (and is ignored).
    pub fn parse(spec: &str) -> (DeviceFilter, Vec<String>) {
        let mut filter = DeviceFilter::default();
        let mut problems = Vec::new();
        for term in spec.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            let term = term.to_lowercase();
            let (key, value) = match term.split_once(':') {
                Some((k, v)) => (k.trim(), v.trim()),
                None => (term.as_str(), ""),
            };
            match (key, value) {
                ("strict", "") => filter.strict = true,
                ("type", "gpu") => filter.types.push(DeviceType::Gpu),
                ("type", "accelerator") => filter.types.push(DeviceType::Accelerator),
                ("type", "cpu") => filter.types.push(DeviceType::Cpu),
                ("platform", v) if !v.is_empty() => filter.platforms.push(v.to_string()),
                ("name", v) if !v.is_empty() => filter.names.push(v.to_string()),
                _ => problems.push(format!(
                    "ONEDNN_OCL_DEVICES: unknown term '{term}' ignored (expected type:gpu|accelerator|cpu, platform:<text>, name:<text> or strict)"
                )),
            }
        }
        (filter, problems)
    }

    /// The filter of `ONEDNN_OCL_DEVICES` / `DNNL_OCL_DEVICES` (unset: none).
    /// Problems are logged once for each distinct value of the variable.
    pub fn from_env() -> DeviceFilter {
        static REPORTED: Mutex<Option<String>> = Mutex::new(None);
        let Some(spec) = env::get("OCL_DEVICES") else {
            return DeviceFilter::default();
        };
        let (filter, problems) = DeviceFilter::parse(&spec);
        if !problems.is_empty() {
            let first_time = match REPORTED.lock() {
                Ok(mut reported) => {
                    reported.replace(spec.clone()).as_deref() != Some(spec.as_str())
                }
                Err(_) => true,
            };
            if first_time && verbose::enabled(verbose::flag::ERROR) {
                for problem in problems {
                    verbose::emit_line("common,error,", &problem);
                }
            }
        }
        filter
    }

    /// Whether a device passes the filter.
    pub fn matches(&self, device: &DeviceSummary) -> bool {
        let platform = device.platform_name.to_lowercase();
        let name = device.name.to_lowercase();
        (!self.strict
            || (device.device_type == DeviceType::Gpu && device.vendor_id == INTEL_VENDOR_ID))
            && (self.types.is_empty() || self.types.contains(&device.device_type))
            && (self.platforms.is_empty()
                || self.platforms.iter().any(|p| platform.contains(p.as_str())))
            && (self.names.is_empty() || self.names.iter().any(|n| name.contains(n.as_str())))
    }
}

/// The devices the GPU engines use, in engine-index order, narrowed by
/// `ONEDNN_OCL_DEVICES`. Empty when OpenCL is not installed.
pub fn devices() -> Vec<Device> {
    devices_matching(&DeviceFilter::from_env())
}

/// [`devices`] with an explicit filter (the default filter: every device).
pub fn devices_matching(filter: &DeviceFilter) -> Vec<Device> {
    enumerate()
        .into_iter()
        .filter(|(_, summary)| filter.matches(summary))
        .map(|(device, _)| device)
        .collect()
}

/// Every usable device with what filters look at, ordered by type.
pub fn enumerate() -> Vec<(Device, DeviceSummary)> {
    let platforms = match Platform::all() {
        Ok(p) => p,
        Err(e) => {
            // No OpenCL at all is normal; a broken one is worth a line.
            if super::loader::available() {
                log(&format!("listing OpenCL platforms: {e}"));
            }
            return Vec::new();
        }
    };
    let mut found = Vec::new();
    for platform in platforms {
        let platform_name = platform.name().unwrap_or_default();
        for device in platform_devices(&platform) {
            if !device.is_available() {
                continue;
            }
            let Ok(device_type) = device.device_type() else {
                continue;
            };
            if device_type == DeviceType::Other {
                continue;
            }
            let summary = DeviceSummary {
                device_type,
                platform_name: platform_name.clone(),
                name: device.name().unwrap_or_default(),
                vendor_id: device_vendor_id(&device),
            };
            found.push((device, summary));
        }
    }
    // A stable sort keeps platform order, then device order, within a type.
    found.sort_by_key(|(_, summary)| summary.device_type);
    found
}

fn device_vendor_id(device: &Device) -> u32 {
    let Ok(f) = entry!(clGetDeviceInfo) else {
        return 0;
    };
    super::info::scalar(
        // SAFETY: a live device; the helper passes a buffer of `size` bytes.
        &|size, value, ret| unsafe { f(device.raw(), CL_DEVICE_VENDOR_ID, size, value, ret) },
        "clGetDeviceInfo",
    )
    .unwrap_or(0)
}

fn platform_devices(platform: &Platform) -> Vec<Device> {
    let Ok(get) = entry!(clGetDeviceIDs) else {
        return Vec::new();
    };
    let mut count: cl_uint = 0;
    // SAFETY: a valid platform id; a count query.
    let code = unsafe {
        get(
            platform.raw(),
            CL_DEVICE_TYPE_ALL,
            0,
            std::ptr::null_mut(),
            &mut count,
        )
    };
    // CL_DEVICE_NOT_FOUND: a platform with no devices.
    if code == -1 || (code == CL_SUCCESS && count == 0) {
        return Vec::new();
    }
    if code != CL_SUCCESS {
        log(&format!(
            "clGetDeviceIDs failed: {}",
            super::error::error_name(code)
        ));
        return Vec::new();
    }
    let mut raw = vec![std::ptr::null_mut(); count as usize];
    let mut returned: cl_uint = 0;
    // SAFETY: `raw` has room for `count` ids.
    let code = unsafe {
        get(
            platform.raw(),
            CL_DEVICE_TYPE_ALL,
            count,
            raw.as_mut_ptr(),
            &mut returned,
        )
    };
    if code != CL_SUCCESS {
        log(&format!(
            "clGetDeviceIDs failed: {}",
            super::error::error_name(code)
        ));
        return Vec::new();
    }
    raw.truncate(returned.min(count) as usize);
    raw.into_iter()
        .filter(|d| !d.is_null())
        // SAFETY: root device ids from clGetDeviceIDs; retaining a root device
        // is a no-op for the driver, and gives our wrapper its reference.
        .filter_map(|d| unsafe { Device::retain_borrowed(d) }.ok())
        .collect()
}

fn log(message: &str) {
    if verbose::enabled(verbose::flag::ERROR) {
        verbose::emit_line("common,error,", &format!("ocl,{message}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(t: DeviceType, platform: &str, name: &str, vendor_id: u32) -> DeviceSummary {
        DeviceSummary {
            device_type: t,
            platform_name: platform.into(),
            name: name.into(),
            vendor_id,
        }
    }

    #[test]
    fn filters_parse_and_match() {
        let nvidia = summary(DeviceType::Gpu, "NVIDIA CUDA", "NVIDIA H200", 0x10de);
        let intel_gpu = summary(
            DeviceType::Gpu,
            "Intel(R) OpenCL Graphics",
            "Arc A770",
            0x8086,
        );
        let pocl = summary(
            DeviceType::Cpu,
            "Portable Computing Language",
            "pthread-x",
            0x8086,
        );

        let (all, problems) = DeviceFilter::parse("");
        assert!(problems.is_empty());
        assert!(all.matches(&nvidia) && all.matches(&pocl));

        let (gpu, _) = DeviceFilter::parse("type:GPU");
        assert!(gpu.matches(&nvidia) && !gpu.matches(&pocl));

        let (either, _) = DeviceFilter::parse("type:gpu, type:cpu");
        assert!(either.matches(&nvidia) && either.matches(&pocl));

        let (both, _) = DeviceFilter::parse("type:gpu,platform:nvidia");
        assert!(both.matches(&nvidia) && !both.matches(&intel_gpu) && !both.matches(&pocl));

        let (by_name, _) = DeviceFilter::parse("name:PTHREAD");
        assert!(by_name.matches(&pocl) && !by_name.matches(&nvidia));

        let (strict, _) = DeviceFilter::parse("strict");
        assert!(strict.matches(&intel_gpu) && !strict.matches(&nvidia) && !strict.matches(&pocl));

        let (bad, problems) = DeviceFilter::parse("type:fpga,bogus,name:,type:cpu");
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(problems[0].contains("'type:fpga'"), "{problems:?}");
        assert_eq!(bad.types, vec![DeviceType::Cpu]);
    }
}
