//! OpenCL devices: what they are and what they can do.
//!
//! Layer: `runtime::ocl`. [`Device`] is the RAII handle (root devices are not
//! reference-counted by OpenCL, so retaining them is a no-op in the driver;
//! sub-devices are). [`DeviceInfo`] gathers the properties the engines and
//! kernels choose by. Listing, ordering and filtering devices is `select.rs`.

use super::error::check;
use super::handle::cl_handle;
use super::info;
use super::loader::entry;
use super::platform::Platform;
use super::sys::*;
use crate::base::{Error, Result};

cl_handle! {
    /// A `cl_device_id`: a root device or a sub-device.
    pub struct Device(cl_device_id), "cl_device_id";
    kind: Device, retain: clRetainDevice, release: clReleaseDevice, info: clGetDeviceInfo,
    refcount: CL_DEVICE_REFERENCE_COUNT;
}

/// The kind of a device, from `CL_DEVICE_TYPE`; the order is the order in
/// which `devices()` lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DeviceType {
    /// `CL_DEVICE_TYPE_GPU`.
    Gpu,
    /// `CL_DEVICE_TYPE_ACCELERATOR`.
    Accelerator,
    /// `CL_DEVICE_TYPE_CPU`.
    Cpu,
    /// Anything else (`CL_DEVICE_TYPE_CUSTOM`).
    Other,
}

impl DeviceType {
    /// The kind of a `CL_DEVICE_TYPE` bit field (GPU wins over the others).
    pub fn from_bits(bits: cl_device_type) -> DeviceType {
        if bits & CL_DEVICE_TYPE_GPU != 0 {
            DeviceType::Gpu
        } else if bits & CL_DEVICE_TYPE_ACCELERATOR != 0 {
            DeviceType::Accelerator
        } else if bits & CL_DEVICE_TYPE_CPU != 0 {
            DeviceType::Cpu
        } else {
            DeviceType::Other
        }
    }

    /// "gpu", "accelerator", "cpu" or "other".
    pub fn name(self) -> &'static str {
        match self {
            DeviceType::Gpu => "gpu",
            DeviceType::Accelerator => "accelerator",
            DeviceType::Cpu => "cpu",
            DeviceType::Other => "other",
        }
    }
}

/// What a device is and can do, as its driver reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// `CL_DEVICE_NAME`.
    pub name: String,
    /// `CL_DEVICE_VENDOR`.
    pub vendor: String,
    /// `CL_DEVICE_VENDOR_ID` (PCI vendor id: 0x8086 Intel, 0x10de NVIDIA, 0x1002 AMD).
    pub vendor_id: u32,
    /// `CL_DRIVER_VERSION`.
    pub driver_version: String,
    /// `CL_PLATFORM_NAME` of the device's platform.
    pub platform_name: String,
    /// `CL_PLATFORM_VERSION` of the device's platform.
    pub platform_version: String,
    /// `CL_DEVICE_TYPE`, as a kind.
    pub device_type: DeviceType,
    /// `CL_DEVICE_TYPE`, the raw bit field.
    pub device_type_bits: cl_device_type,
    /// `CL_DEVICE_VERSION` ("OpenCL 3.0 ...").
    pub version: String,
    /// `(major, minor)` parsed from `version`.
    pub version_number: (u32, u32),
    /// `CL_DEVICE_OPENCL_C_VERSION` ("OpenCL C 1.2 ...").
    pub opencl_c_version: String,
    /// `CL_DEVICE_EXTENSIONS`, space-separated.
    pub extensions: String,
    /// `CL_DEVICE_MAX_COMPUTE_UNITS`.
    pub max_compute_units: u32,
    /// `CL_DEVICE_GLOBAL_MEM_SIZE`, bytes.
    pub global_mem_size: u64,
    /// `CL_DEVICE_LOCAL_MEM_SIZE`, bytes.
    pub local_mem_size: u64,
    /// `CL_DEVICE_MAX_MEM_ALLOC_SIZE`, bytes.
    pub max_mem_alloc_size: u64,
    /// `CL_DEVICE_MAX_WORK_GROUP_SIZE`.
    pub max_work_group_size: usize,
    /// The device has `cl_intel_unified_shared_memory`.
    pub usm: bool,
    /// The device has `cl_khr_fp16` (NVIDIA's OpenCL does not).
    pub fp16: bool,
    /// The device has `cl_khr_fp64`.
    pub fp64: bool,
    /// The device has sub-groups (`cl_khr_subgroups`, `cl_intel_subgroups`, or
    /// a non-zero `CL_DEVICE_MAX_NUM_SUB_GROUPS`).
    pub subgroups: bool,
    /// `CL_DEVICE_IL_VERSION` ("SPIR-V_1.0 ..."), empty when the device takes no IL.
    pub il_version: String,
    /// The device is a sub-device (`CL_DEVICE_PARENT_DEVICE` is not NULL).
    pub is_sub_device: bool,
    /// NVIDIA devices with `cl_nv_device_attribute_query`: the CUDA compute
    /// capability `(major, minor)`.
    pub nv_compute_capability: Option<(u32, u32)>,
}

impl DeviceInfo {
    /// Whether `extensions` lists `name` (as a whole word).
    pub fn has_extension(&self, name: &str) -> bool {
        self.extensions.split_ascii_whitespace().any(|e| e == name)
    }
}

/// `(major, minor)` from an "OpenCL X.Y ..." version string; (1, 0) if unreadable.
pub fn parse_version(version: &str) -> (u32, u32) {
    version
        .split_ascii_whitespace()
        .nth(1)
        .and_then(|v| v.split_once('.'))
        .and_then(|(major, minor)| {
            let minor: String = minor.chars().take_while(char::is_ascii_digit).collect();
            Some((major.parse().ok()?, minor.parse().ok()?))
        })
        .unwrap_or((1, 0))
}

impl Device {
    fn string(&self, param: cl_device_info) -> Result<String> {
        let f = entry!(clGetDeviceInfo)?;
        info::string(
            // SAFETY: a live device; the helper passes a buffer of `size`
            // bytes (or NULL with 0) and a valid size pointer.
            &|size, value, ret| unsafe { f(self.raw, param, size, value, ret) },
            "clGetDeviceInfo",
        )
    }

    fn scalar<T: info::InfoScalar>(&self, param: cl_device_info) -> Result<T> {
        let f = entry!(clGetDeviceInfo)?;
        info::scalar(
            // SAFETY: as in `string`.
            &|size, value, ret| unsafe { f(self.raw, param, size, value, ret) },
            "clGetDeviceInfo",
        )
    }

    /// Whether kernels may use pointers from the system allocator (`malloc`)
    /// as USM: `CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL` is not 0.
    /// False on devices without `cl_intel_unified_shared_memory`.
    pub fn supports_system_usm(&self) -> bool {
        self.has_extension("cl_intel_unified_shared_memory")
            && self
                .scalar::<u64>(CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL)
                .is_ok_and(|caps| caps != 0)
    }

    /// Whether the device has coarse-grained buffer shared virtual memory
    /// (`CL_DEVICE_SVM_CAPABILITIES`, OpenCL 2.0 and later): `clSVMAlloc`
    /// memory that kernels take as pointers.
    pub fn supports_svm(&self) -> bool {
        self.version_number().is_ok_and(|v| v >= (2, 0))
            && self
                .scalar::<cl_device_svm_capabilities>(CL_DEVICE_SVM_CAPABILITIES)
                .is_ok_and(|caps| caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER != 0)
    }

    /// `CL_DEVICE_NAME`.
    pub fn name(&self) -> Result<String> {
        self.string(CL_DEVICE_NAME)
    }

    /// `CL_DEVICE_TYPE` as a kind.
    pub fn device_type(&self) -> Result<DeviceType> {
        Ok(DeviceType::from_bits(self.scalar(CL_DEVICE_TYPE)?))
    }

    /// `CL_DEVICE_EXTENSIONS`.
    pub fn extensions(&self) -> Result<String> {
        self.string(CL_DEVICE_EXTENSIONS)
    }

    /// Whether `CL_DEVICE_EXTENSIONS` lists `name`.
    pub fn has_extension(&self, name: &str) -> bool {
        self.extensions()
            .map(|e| e.split_ascii_whitespace().any(|e| e == name))
            .unwrap_or(false)
    }

    /// `CL_DEVICE_VERSION` as `(major, minor)`.
    pub fn version_number(&self) -> Result<(u32, u32)> {
        Ok(parse_version(&self.string(CL_DEVICE_VERSION)?))
    }

    /// `CL_DEVICE_AVAILABLE`.
    pub fn is_available(&self) -> bool {
        self.scalar::<cl_bool>(CL_DEVICE_AVAILABLE)
            .map(|a| a != CL_FALSE)
            .unwrap_or(false)
    }

    /// The device's platform (`CL_DEVICE_PLATFORM`).
    pub fn platform(&self) -> Result<Platform> {
        let raw: cl_platform_id = self.scalar(CL_DEVICE_PLATFORM)?;
        if raw.is_null() {
            return Err(Error::runtime("clGetDeviceInfo returned a NULL platform"));
        }
        // SAFETY: the driver returned this platform id.
        Ok(unsafe { Platform::from_owned(raw) })
    }

    /// The parent of a sub-device (`CL_DEVICE_PARENT_DEVICE`), `None` for a
    /// root device.
    pub fn parent(&self) -> Result<Option<Device>> {
        let raw: cl_device_id = self.scalar(CL_DEVICE_PARENT_DEVICE)?;
        if raw.is_null() {
            return Ok(None);
        }
        // SAFETY: the driver returned this live device; we retain our own
        // reference (queries do not give one).
        unsafe { Device::retain_borrowed(raw) }.map(Some)
    }

    /// The root device this device was partitioned from (itself for a root
    /// device), walking `CL_DEVICE_PARENT_DEVICE`.
    pub fn root(&self) -> Result<Device> {
        let mut device = self.clone();
        while let Some(parent) = device.parent()? {
            device = parent;
        }
        Ok(device)
    }

    /// Everything in [`DeviceInfo`].
    pub fn info(&self) -> Result<DeviceInfo> {
        let platform = self.platform()?;
        let extensions = self.string(CL_DEVICE_EXTENSIONS)?;
        let has = |name: &str| extensions.split_ascii_whitespace().any(|e| e == name);
        let version = self.string(CL_DEVICE_VERSION)?;
        let version_number = parse_version(&version);
        // Optional queries: absent before OpenCL 2.1, or unsupported.
        let il_version = if version_number >= (2, 1) || has("cl_khr_il_program") {
            self.string(CL_DEVICE_IL_VERSION).unwrap_or_default()
        } else {
            String::new()
        };
        let max_sub_groups = if version_number >= (2, 1) {
            self.scalar::<cl_uint>(CL_DEVICE_MAX_NUM_SUB_GROUPS)
                .unwrap_or(0)
        } else {
            0
        };
        let type_bits: cl_device_type = self.scalar(CL_DEVICE_TYPE)?;
        let nv_compute_capability = if has("cl_nv_device_attribute_query") {
            let major = self.scalar::<cl_uint>(CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV);
            let minor = self.scalar::<cl_uint>(CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV);
            major.ok().zip(minor.ok())
        } else {
            None
        };
        Ok(DeviceInfo {
            name: self.string(CL_DEVICE_NAME)?,
            vendor: self.string(CL_DEVICE_VENDOR)?,
            vendor_id: self.scalar(CL_DEVICE_VENDOR_ID)?,
            driver_version: self.string(CL_DRIVER_VERSION)?,
            platform_name: platform.name()?,
            platform_version: platform.version()?,
            device_type: DeviceType::from_bits(type_bits),
            device_type_bits: type_bits,
            version,
            version_number,
            opencl_c_version: self.string(CL_DEVICE_OPENCL_C_VERSION)?,
            max_compute_units: self.scalar(CL_DEVICE_MAX_COMPUTE_UNITS)?,
            global_mem_size: self.scalar(CL_DEVICE_GLOBAL_MEM_SIZE)?,
            local_mem_size: self.scalar(CL_DEVICE_LOCAL_MEM_SIZE)?,
            max_mem_alloc_size: self.scalar(CL_DEVICE_MAX_MEM_ALLOC_SIZE)?,
            max_work_group_size: self.scalar(CL_DEVICE_MAX_WORK_GROUP_SIZE)?,
            usm: has("cl_intel_unified_shared_memory"),
            fp16: has("cl_khr_fp16"),
            fp64: has("cl_khr_fp64"),
            subgroups: has("cl_khr_subgroups") || has("cl_intel_subgroups") || max_sub_groups > 0,
            il_version,
            is_sub_device: !self
                .scalar::<cl_device_id>(CL_DEVICE_PARENT_DEVICE)?
                .is_null(),
            nv_compute_capability,
            extensions,
        })
    }

    /// Partitions the device (`clCreateSubDevices`) with a zero-terminated
    /// property list, e.g. `[CL_DEVICE_PARTITION_EQUALLY, 2, 0]`.
    pub fn create_sub_devices(
        &self,
        properties: &[cl_device_partition_property],
    ) -> Result<Vec<Device>> {
        if properties.last() != Some(&0) {
            return Err(Error::invalid("partition properties must end with 0"));
        }
        let create = entry!(clCreateSubDevices)?;
        let mut count: cl_uint = 0;
        // SAFETY: a live device, a zero-terminated property list, a count query.
        let code = unsafe {
            create(
                self.raw,
                properties.as_ptr(),
                0,
                std::ptr::null_mut(),
                &mut count,
            )
        };
        check(code, "clCreateSubDevices")?;
        let mut raw = vec![std::ptr::null_mut(); count as usize];
        let mut returned: cl_uint = 0;
        // SAFETY: `raw` has room for `count` devices.
        let code = unsafe {
            create(
                self.raw,
                properties.as_ptr(),
                count,
                raw.as_mut_ptr(),
                &mut returned,
            )
        };
        check(code, "clCreateSubDevices")?;
        raw.truncate(returned.min(count) as usize);
        // SAFETY: clCreateSubDevices gave us one reference to each.
        Ok(raw
            .into_iter()
            .map(|d| unsafe { Device::from_owned(d) })
            .collect())
    }

    /// Sub-devices of `units` compute units each (`CL_DEVICE_PARTITION_EQUALLY`).
    pub fn partition_equally(&self, units: u32) -> Result<Vec<Device>> {
        self.create_sub_devices(&[CL_DEVICE_PARTITION_EQUALLY, units as isize, 0])
    }

    /// Sub-devices by `CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE` (what
    /// oneDNN's sub-device test uses).
    pub fn partition_by_affinity(&self) -> Result<Vec<Device>> {
        self.create_sub_devices(&[
            CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
            CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE,
            0,
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse() {
        assert_eq!(parse_version("OpenCL 3.0 CUDA"), (3, 0));
        assert_eq!(parse_version("OpenCL 1.2 pocl"), (1, 2));
        assert_eq!(parse_version("OpenCL 3.1 (Build 0)"), (3, 1));
        assert_eq!(parse_version("garbage"), (1, 0));
    }

    #[test]
    fn types_rank_gpu_first() {
        assert_eq!(
            DeviceType::from_bits(CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_CPU),
            DeviceType::Gpu
        );
        assert_eq!(
            DeviceType::from_bits(CL_DEVICE_TYPE_CPU | 1),
            DeviceType::Cpu
        );
        assert_eq!(
            DeviceType::from_bits(CL_DEVICE_TYPE_CUSTOM),
            DeviceType::Other
        );
        assert!(
            DeviceType::Gpu < DeviceType::Accelerator && DeviceType::Accelerator < DeviceType::Cpu
        );
    }
}
