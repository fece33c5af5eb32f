//! The driver and its one device: choosing the OpenCL device, zeInit, and the driver
//! and device queries.
//!
//! The device is the first OpenCL device (platforms in ICD order) that has
//! `cl_intel_unified_shared_memory` and SPIR-V in `CL_DEVICE_IL_VERSION`. The
//! environment variable `ZE_OCL_DEVICE`, when set, narrows the choice to devices whose
//! "<platform name>: <device name>" contains it (case-insensitive). With no such device
//! zeInit fails, and the loader then leaves this driver out.
//!
//! The device is reported honestly: its name is "ze-ocl: <OpenCL device name>", its
//! type follows the OpenCL device type (Intel's CPU runtime gives ZE_DEVICE_TYPE_CPU),
//! vendor id from OpenCL, limits from OpenCL queries. One exception, asked for by
//! the user: `ZE_OCL_DEVICE_TYPE=gpu` (or `cpu`) sets the type the driver reports,
//! in `zeDeviceGetProperties` and for `zeInit(ZE_INIT_FLAG_GPU_ONLY)`, so that programs
//! written for Intel GPUs (they ask for GPU drivers only) run on it unchanged. Any
//! other value makes zeInit fail (the loader then leaves the driver out) with one line
//! on stderr saying why.

use std::ffi::{CStr, c_char, c_void};
use std::ptr;
use std::sync::{Arc, OnceLock};

use level_zero_sys::*;

use crate::cl::{self, *};
use crate::objects::{Registry, ZeResult, fill_array, guard, input, out, set_c_string};

/// Version of this driver as reported in `driverVersion`: major << 24 | minor << 16 |
/// patch of the crate (0.1.0).
pub const DRIVER_VERSION: u32 = 1 << 16;
/// The API version this driver implements (that of the headers it was built from).
pub const API_VERSION: ze_api_version_t = ZE_API_VERSION_1_4;
/// The extension implemented through `zeDriverGetExtensionFunctionAddress`.
const EXT_DRIVER_VERSION_STRING: &str = "ZE_intel_get_driver_version_string";

/// What is known of the chosen OpenCL device.
pub struct Device {
    pub cl: &'static Cl,
    pub usm: Usm,
    pub id: cl_device_id,
    pub name: String,
    pub cl_type: u64,
    /// The type zeDeviceGetProperties reports (`ZE_OCL_DEVICE_TYPE`, else `cl_type`'s).
    pub ze_type: ze_device_type_t,
    pub vendor_id: u32,
    pub driver_version: String,
    pub extensions: String,
    pub il_version: String,
}

// SAFETY: OpenCL platform and device ids are process-wide and thread-safe.
unsafe impl Send for Device {}
// SAFETY: as above; the rest is immutable data and function pointers.
unsafe impl Sync for Device {}

/// The driver object (one per process) and its device.
pub struct Driver {
    pub device: Arc<Device>,
    pub device_handle: ze_device_handle_t,
}

// SAFETY: the handle is an address used as a key, never dereferenced.
unsafe impl Send for Driver {}
// SAFETY: as above.
unsafe impl Sync for Driver {}

pub static DRIVERS: Registry<Driver> = Registry::new();
pub static DEVICES: Registry<Device> = Registry::new();

struct Instance {
    driver: ze_driver_handle_t,
    device: Arc<Device>,
}
// SAFETY: the handle is an address used as a key.
unsafe impl Send for Instance {}
// SAFETY: as above.
unsafe impl Sync for Instance {}

/// The driver, created by the first successful zeInit.
fn instance() -> ZeResult<&'static Instance> {
    static INSTANCE: OnceLock<ZeResult<Instance>> = OnceLock::new();
    INSTANCE
        .get_or_init(|| {
            let device = Arc::new(choose_device()?);
            let device_handle = DEVICES.insert::<_ze_device_handle_t>(device.clone());
            let driver = DRIVERS.insert(Arc::new(Driver {
                device: device.clone(),
                device_handle,
            }));
            Ok(Instance { driver, device })
        })
        .as_ref()
        .map_err(|e| *e)
}

/// The device a driver handle stands for (after checking the handle).
pub fn driver(handle: ze_driver_handle_t) -> ZeResult<Arc<Driver>> {
    DRIVERS.get(handle)
}

/// The device behind a device handle.
pub fn device(handle: ze_device_handle_t) -> ZeResult<Arc<Device>> {
    DEVICES.get(handle)
}

/// The handle of the one device.
pub fn device_handle() -> ze_device_handle_t {
    instance()
        .map(|i| {
            DRIVERS
                .get(i.driver)
                .map(|d| d.device_handle)
                .unwrap_or(ptr::null_mut())
        })
        .unwrap_or(ptr::null_mut())
}

/// Accepts a DDI table request of the loader when the major versions agree.
pub fn check_ddi_version(version: ze_api_version_t) -> ZeResult<()> {
    if ZE_MAJOR_VERSION(version.0) != ZE_MAJOR_VERSION(API_VERSION.0) {
        return Err(ZE_RESULT_ERROR_UNSUPPORTED_VERSION);
    }
    Ok(())
}

fn device_string(cl: &Cl, dev: cl_device_id, param: cl_uint) -> String {
    // SAFETY: a valid device and a string parameter.
    cl::info_string(|s, p, r| unsafe { (cl.clGetDeviceInfo)(dev, param, s, p, r) })
        .unwrap_or_default()
}

pub fn device_value<T: Copy + Default>(d: &Device, param: cl_uint) -> T {
    // SAFETY: a valid device; T is the parameter's C type.
    cl::info_value(|s, p, r| unsafe { (d.cl.clGetDeviceInfo)(d.id, param, s, p, r) })
        .unwrap_or_default()
}

fn platform_string(cl: &Cl, platform: cl_platform_id, param: cl_uint) -> String {
    // SAFETY: a valid platform and a string parameter.
    cl::info_string(|s, p, r| unsafe { (cl.clGetPlatformInfo)(platform, param, s, p, r) })
        .unwrap_or_default()
}

/// The Level Zero type of an OpenCL device type.
fn ze_type_of(cl_type: u64) -> ze_device_type_t {
    if cl_type & CL_DEVICE_TYPE_GPU != 0 {
        ZE_DEVICE_TYPE_GPU
    } else if cl_type & CL_DEVICE_TYPE_CPU != 0 {
        ZE_DEVICE_TYPE_CPU
    } else {
        ZE_DEVICE_TYPE_FPGA
    }
}

/// The device type asked for by `ZE_OCL_DEVICE_TYPE` (`gpu` or `cpu`, any case): None
/// when unset or empty, an error (said once on stderr) for any other value.
fn device_type_override() -> ZeResult<Option<ze_device_type_t>> {
    let Ok(value) = std::env::var("ZE_OCL_DEVICE_TYPE") else {
        return Ok(None);
    };
    match value.trim().to_ascii_lowercase().as_str() {
        "" => Ok(None),
        "gpu" => Ok(Some(ZE_DEVICE_TYPE_GPU)),
        "cpu" => Ok(Some(ZE_DEVICE_TYPE_CPU)),
        _ => {
            eprintln!(
                "ze-ocl-driver: ZE_OCL_DEVICE_TYPE={value:?} is neither gpu nor cpu: \
                 the driver stays uninitialised"
            );
            Err(ZE_RESULT_ERROR_UNINITIALIZED)
        }
    }
}

fn choose_device() -> ZeResult<Device> {
    let cl = cl::cl().map_err(|_| ZE_RESULT_ERROR_UNINITIALIZED)?;
    let type_override = device_type_override()?;
    let filter = std::env::var("ZE_OCL_DEVICE")
        .ok()
        .map(|f| f.to_lowercase());
    let mut n = 0u32;
    // SAFETY: count query.
    if unsafe { (cl.clGetPlatformIDs)(0, ptr::null_mut(), &mut n) } != CL_SUCCESS || n == 0 {
        return Err(ZE_RESULT_ERROR_UNINITIALIZED);
    }
    let mut platforms = vec![ptr::null_mut(); n as usize];
    // SAFETY: n slots.
    unsafe { (cl.clGetPlatformIDs)(n, platforms.as_mut_ptr(), ptr::null_mut()) };
    for platform in platforms {
        let mut m = 0u32;
        // SAFETY: count query.
        let err = unsafe {
            (cl.clGetDeviceIDs)(platform, CL_DEVICE_TYPE_ALL, 0, ptr::null_mut(), &mut m)
        };
        if err != CL_SUCCESS || m == 0 {
            continue;
        }
        let mut ids = vec![ptr::null_mut(); m as usize];
        // SAFETY: m slots.
        unsafe {
            (cl.clGetDeviceIDs)(
                platform,
                CL_DEVICE_TYPE_ALL,
                m,
                ids.as_mut_ptr(),
                ptr::null_mut(),
            )
        };
        let platform_name = platform_string(cl, platform, CL_PLATFORM_NAME);
        for id in ids {
            let name = device_string(cl, id, CL_DEVICE_NAME);
            let extensions = device_string(cl, id, CL_DEVICE_EXTENSIONS);
            let il_version = device_string(cl, id, CL_DEVICE_IL_VERSION);
            if !extensions
                .split_whitespace()
                .any(|e| e == "cl_intel_unified_shared_memory")
                || !il_version.contains("SPIR-V")
            {
                continue;
            }
            if let Some(f) = &filter {
                if !format!("{platform_name}: {name}")
                    .to_lowercase()
                    .contains(f.as_str())
                {
                    continue;
                }
            }
            // SAFETY: the platform came from clGetPlatformIDs.
            let Some(usm) = (unsafe { Usm::load(cl, platform) }) else {
                continue;
            };
            let mut device = Device {
                cl,
                usm,
                id,
                name,
                cl_type: 0,
                ze_type: ZE_DEVICE_TYPE_CPU,
                vendor_id: 0,
                driver_version: device_string(cl, id, CL_DRIVER_VERSION),
                extensions,
                il_version,
            };
            device.cl_type = device_value(&device, CL_DEVICE_TYPE);
            device.ze_type = type_override.unwrap_or(ze_type_of(device.cl_type));
            device.vendor_id = device_value(&device, CL_DEVICE_VENDOR_ID);
            return Ok(device);
        }
    }
    Err(ZE_RESULT_ERROR_UNINITIALIZED)
}

/// A stable 16-byte id from text (FNV-1a, twice with different seeds).
pub fn uuid_of(text: &str) -> [u8; 16] {
    let hash = |seed: u64| {
        text.bytes().fold(seed, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        })
    };
    let (a, b) = (hash(0xcbf2_9ce4_8422_2325), hash(0x8422_2325_cbf2_9ce4));
    let mut id = [0u8; 16];
    id[..8].copy_from_slice(&a.to_le_bytes());
    id[8..].copy_from_slice(&b.to_le_bytes());
    id
}

impl Device {
    pub fn has_extension(&self, name: &str) -> bool {
        self.extensions.split_whitespace().any(|e| e == name)
    }

    /// The driver version string (zeIntelGetDriverVersionString and the uuid).
    pub fn version_string(&self) -> String {
        format!(
            "ze-ocl-driver {} over OpenCL {}",
            env!("CARGO_PKG_VERSION"),
            self.driver_version
        )
    }
}

// --- entry points --------------------------------------------------------------------

pub unsafe extern "C" fn zeInit(flags: ze_init_flags_t) -> ze_result_t {
    guard(|| {
        let known = ZE_INIT_FLAG_GPU_ONLY | ZE_INIT_FLAG_VPU_ONLY;
        if flags.0 & !known.0 != 0 {
            return Err(ZE_RESULT_ERROR_INVALID_ENUMERATION);
        }
        let instance = instance()?;
        let is_gpu = instance.device.ze_type == ZE_DEVICE_TYPE_GPU;
        if flags.contains(ZE_INIT_FLAG_VPU_ONLY)
            || (flags.contains(ZE_INIT_FLAG_GPU_ONLY) && !is_gpu)
        {
            return Err(ZE_RESULT_ERROR_UNINITIALIZED);
        }
        Ok(())
    })
}

pub unsafe extern "C" fn zeDriverGet(
    count: *mut u32,
    drivers: *mut ze_driver_handle_t,
) -> ze_result_t {
    guard(|| {
        let instance = instance()?;
        fill_array(count, drivers, &[instance.driver])
    })
}

pub unsafe extern "C" fn zeDriverGetApiVersion(
    h: ze_driver_handle_t,
    version: *mut ze_api_version_t,
) -> ze_result_t {
    guard(|| {
        driver(h)?;
        *out(version)? = API_VERSION;
        Ok(())
    })
}

pub unsafe extern "C" fn zeDriverGetProperties(
    h: ze_driver_handle_t,
    props: *mut ze_driver_properties_t,
) -> ze_result_t {
    guard(|| {
        let d = driver(h)?;
        let props = out(props)?;
        props.uuid.id = uuid_of(&d.device.version_string());
        props.driverVersion = DRIVER_VERSION;
        Ok(())
    })
}

pub unsafe extern "C" fn zeDriverGetIpcProperties(
    h: ze_driver_handle_t,
    props: *mut ze_driver_ipc_properties_t,
) -> ze_result_t {
    guard(|| {
        driver(h)?;
        out(props)?.flags = ze_ipc_property_flags_t(0);
        Ok(())
    })
}

pub unsafe extern "C" fn zeDriverGetExtensionProperties(
    h: ze_driver_handle_t,
    count: *mut u32,
    props: *mut ze_driver_extension_properties_t,
) -> ze_result_t {
    guard(|| {
        driver(h)?;
        let mut ext = ze_driver_extension_properties_t::default();
        set_c_string(&mut ext.name, EXT_DRIVER_VERSION_STRING);
        ext.version = ZE_MAKE_VERSION(1, 0);
        fill_array(count, props, &[ext])
    })
}

pub unsafe extern "C" fn zeDriverGetExtensionFunctionAddress(
    h: ze_driver_handle_t,
    name: *const c_char,
    address: *mut *mut c_void,
) -> ze_result_t {
    guard(|| {
        driver(h)?;
        let name = input(name)?;
        let address = out(address)?;
        // SAFETY: a non-NULL name is a NUL-terminated string (API contract).
        let name = unsafe { CStr::from_ptr(name) };
        match name.to_bytes() {
            b"zeIntelGetDriverVersionString" => {
                *address = zeIntelGetDriverVersionString as *mut c_void;
                Ok(())
            }
            _ => {
                *address = ptr::null_mut();
                Err(ZE_RESULT_ERROR_INVALID_ARGUMENT)
            }
        }
    })
}

/// `ZE_intel_get_driver_version_string`: `*size` is set to the length with the NUL when
/// `version` is NULL; otherwise up to `*size` bytes (NUL-terminated) are written.
/// The driver handle is not looked up: through the loader it may be the loader's own.
pub unsafe extern "C" fn zeIntelGetDriverVersionString(
    h: ze_driver_handle_t,
    version: *mut c_char,
    size: *mut usize,
) -> ze_result_t {
    guard(|| {
        if h.is_null() {
            return Err(ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
        }
        let text = instance()?.device.version_string();
        let size = out(size)?;
        if version.is_null() {
            *size = text.len() + 1;
            return Ok(());
        }
        let n = (*size).min(text.len() + 1);
        if n == 0 {
            return Ok(());
        }
        // SAFETY: the caller provides *size writable bytes.
        let dst = unsafe { std::slice::from_raw_parts_mut(version, n) };
        set_c_string(dst, &text);
        Ok(())
    })
}

pub unsafe extern "C" fn zeDeviceGet(
    h: ze_driver_handle_t,
    count: *mut u32,
    devices: *mut ze_device_handle_t,
) -> ze_result_t {
    guard(|| {
        let d = driver(h)?;
        fill_array(count, devices, &[d.device_handle])
    })
}

pub unsafe extern "C" fn zeDeviceGetSubDevices(
    h: ze_device_handle_t,
    count: *mut u32,
    _subs: *mut ze_device_handle_t,
) -> ze_result_t {
    guard(|| {
        device(h)?;
        *out(count)? = 0;
        Ok(())
    })
}

/// CL_FP_* bits to ZE_DEVICE_FP_FLAG_* (the last two bits are swapped).
fn fp_flags(cl_bits: u64) -> ze_device_fp_flags_t {
    let mut ze = (cl_bits & 0x3f) as u32;
    if cl_bits & 64 != 0 {
        ze |= ZE_DEVICE_FP_FLAG_SOFT_FLOAT.0;
    }
    if cl_bits & 128 != 0 {
        ze |= ZE_DEVICE_FP_FLAG_ROUNDED_DIVIDE_SQRT.0;
    }
    ze_device_fp_flags_t(ze)
}

pub unsafe extern "C" fn zeDeviceGetProperties(
    h: ze_device_handle_t,
    props: *mut ze_device_properties_t,
) -> ze_result_t {
    guard(|| {
        let d = device(h)?;
        let p = out(props)?;
        p.r#type = d.ze_type;
        p.vendorId = d.vendor_id;
        p.deviceId = 0;
        // Memory is the host's: the device is integrated.
        p.flags = ZE_DEVICE_PROPERTY_FLAG_INTEGRATED;
        p.subdeviceId = 0;
        p.coreClockRate = device_value::<u32>(&d, CL_DEVICE_MAX_CLOCK_FREQUENCY);
        p.maxMemAllocSize = device_value::<u64>(&d, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
        p.maxHardwareContexts = 1;
        p.maxCommandQueuePriority = 0;
        p.numThreadsPerEU = 1;
        p.physicalEUSimdWidth =
            device_value::<u32>(&d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT).max(1);
        p.numEUsPerSubslice = device_value::<u32>(&d, CL_DEVICE_MAX_COMPUTE_UNITS).max(1);
        p.numSubslicesPerSlice = 1;
        p.numSlices = 1;
        // Profiling counters are OpenCL's, in nanoseconds.
        p.timerResolution = if p.stype == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 {
            1_000_000_000
        } else {
            1
        };
        p.timestampValidBits = 64;
        p.kernelTimestampValidBits = 64;
        p.uuid.id = uuid_of(&format!("{}/{}", d.name, d.driver_version));
        set_c_string(&mut p.name, &format!("ze-ocl: {}", d.name));
        Ok(())
    })
}

pub unsafe extern "C" fn zeDeviceGetComputeProperties(
    h: ze_device_handle_t,
    props: *mut ze_device_compute_properties_t,
) -> ze_result_t {
    guard(|| {
        let d = device(h)?;
        let p = out(props)?;
        let max_group = device_value::<usize>(&d, CL_DEVICE_MAX_WORK_GROUP_SIZE);
        let sizes = device_value::<[usize; 3]>(&d, CL_DEVICE_MAX_WORK_ITEM_SIZES);
        let clamp = |v: usize| v.min(u32::MAX as usize) as u32;
        p.maxTotalGroupSize = clamp(max_group);
        p.maxGroupSizeX = clamp(sizes[0]);
        p.maxGroupSizeY = clamp(sizes[1]);
        p.maxGroupSizeZ = clamp(sizes[2]);
        p.maxGroupCountX = u32::MAX;
        p.maxGroupCountY = u32::MAX;
        p.maxGroupCountZ = u32::MAX;
        p.maxSharedLocalMemory =
            device_value::<u64>(&d, CL_DEVICE_LOCAL_MEM_SIZE).min(u64::from(u32::MAX)) as u32;
        // SAFETY: a valid device; the query returns an array of size_t.
        let subgroups = cl::info_bytes(|s, ptr, r| unsafe {
            (d.cl.clGetDeviceInfo)(d.id, CL_DEVICE_SUB_GROUP_SIZES_INTEL, s, ptr, r)
        })
        .unwrap_or_default();
        let subgroups: Vec<u32> = subgroups
            .chunks_exact(size_of::<usize>())
            .map(|c| usize::from_ne_bytes(c.try_into().unwrap()) as u32)
            .take(ZE_SUBGROUPSIZE_COUNT)
            .collect();
        let subgroups = if subgroups.is_empty() {
            vec![1]
        } else {
            subgroups
        };
        p.numSubGroupSizes = subgroups.len() as u32;
        p.subGroupSizes = [0; ZE_SUBGROUPSIZE_COUNT];
        p.subGroupSizes[..subgroups.len()].copy_from_slice(&subgroups);
        Ok(())
    })
}

pub unsafe extern "C" fn zeDeviceGetModuleProperties(
    h: ze_device_handle_t,
    props: *mut ze_device_module_properties_t,
) -> ze_result_t {
    guard(|| {
        let d = device(h)?;
        let p = out(props)?;
        // "SPIR-V_1.0 SPIR-V_1.1 ...": the highest.
        let spirv = d
            .il_version
            .split_whitespace()
            .filter_map(|v| v.strip_prefix("SPIR-V_"))
            .filter_map(|v| {
                let (major, minor) = v.split_once('.')?;
                Some(ZE_MAKE_VERSION(major.parse().ok()?, minor.parse().ok()?))
            })
            .max()
            .unwrap_or(ZE_MAKE_VERSION(1, 0));
        p.spirvVersionSupported = spirv;
        let mut flags = ze_device_module_flags_t(0);
        if d.has_extension("cl_khr_fp16") {
            flags |= ZE_DEVICE_MODULE_FLAG_FP16;
        }
        if d.has_extension("cl_khr_fp64") {
            flags |= ZE_DEVICE_MODULE_FLAG_FP64;
        }
        if d.has_extension("cl_khr_int64_base_atomics") {
            flags |= ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS;
        }
        p.flags = flags;
        p.fp16flags = if flags.contains(ZE_DEVICE_MODULE_FLAG_FP16) {
            fp_flags(device_value(&d, CL_DEVICE_HALF_FP_CONFIG))
        } else {
            ze_device_fp_flags_t(0)
        };
        p.fp32flags = fp_flags(device_value(&d, CL_DEVICE_SINGLE_FP_CONFIG));
        p.fp64flags = if flags.contains(ZE_DEVICE_MODULE_FLAG_FP64) {
            fp_flags(device_value(&d, CL_DEVICE_DOUBLE_FP_CONFIG))
        } else {
            ze_device_fp_flags_t(0)
        };
        p.maxArgumentsSize = device_value::<usize>(&d, CL_DEVICE_MAX_PARAMETER_SIZE) as u32;
        p.printfBufferSize = device_value::<usize>(&d, CL_DEVICE_PRINTF_BUFFER_SIZE) as u32;
        p.nativeKernelSupported.id = uuid_of(&d.version_string());
        Ok(())
    })
}

/// The largest pattern zeCommandListAppendMemoryFill takes.
pub const MAX_FILL_PATTERN: usize = 128;

pub unsafe extern "C" fn zeDeviceGetCommandQueueGroupProperties(
    h: ze_device_handle_t,
    count: *mut u32,
    props: *mut ze_command_queue_group_properties_t,
) -> ze_result_t {
    guard(|| {
        device(h)?;
        let c = out(count)?;
        if *c == 0 || props.is_null() {
            *c = 1;
            return Ok(());
        }
        // Write into the caller's struct (keeping its stype/pNext).
        let p = out(props)?;
        p.flags = ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE
            | ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY;
        p.maxMemoryFillPatternSize = MAX_FILL_PATTERN;
        p.numQueues = 1;
        *c = 1;
        Ok(())
    })
}

pub unsafe extern "C" fn zeDeviceGetMemoryProperties(
    h: ze_device_handle_t,
    count: *mut u32,
    props: *mut ze_device_memory_properties_t,
) -> ze_result_t {
    guard(|| {
        let d = device(h)?;
        let c = out(count)?;
        if *c == 0 || props.is_null() {
            *c = 1;
            return Ok(());
        }
        let p = out(props)?;
        p.flags = ze_device_memory_property_flags_t(0);
        p.maxClockRate = 0;
        p.maxBusWidth = 64;
        p.totalSize = device_value::<u64>(&d, CL_DEVICE_GLOBAL_MEM_SIZE);
        set_c_string(&mut p.name, "host memory");
        *c = 1;
        Ok(())
    })
}

pub unsafe extern "C" fn zeDeviceGetMemoryAccessProperties(
    h: ze_device_handle_t,
    props: *mut ze_device_memory_access_properties_t,
) -> ze_result_t {
    guard(|| {
        device(h)?;
        let p = out(props)?;
        let rw = ZE_MEMORY_ACCESS_CAP_FLAG_RW | ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC;
        let all =
            rw | ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT | ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT_ATOMIC;
        p.hostAllocCapabilities = all;
        p.deviceAllocCapabilities = all;
        p.sharedSingleDeviceAllocCapabilities = all;
        p.sharedCrossDeviceAllocCapabilities = ze_memory_access_cap_flags_t(0);
        p.sharedSystemAllocCapabilities = ze_memory_access_cap_flags_t(0);
        Ok(())
    })
}

pub unsafe extern "C" fn zeDeviceGetCacheProperties(
    h: ze_device_handle_t,
    count: *mut u32,
    props: *mut ze_device_cache_properties_t,
) -> ze_result_t {
    guard(|| {
        let d = device(h)?;
        let c = out(count)?;
        if *c == 0 || props.is_null() {
            *c = 1;
            return Ok(());
        }
        let p = out(props)?;
        p.flags = ze_device_cache_property_flags_t(0);
        p.cacheSize = device_value::<u64>(&d, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE) as usize;
        *c = 1;
        Ok(())
    })
}

pub unsafe extern "C" fn zeDeviceGetStatus(h: ze_device_handle_t) -> ze_result_t {
    guard(|| device(h).map(|_| ()))
}

pub unsafe extern "C" fn zeDeviceGetGlobalTimestamps(
    h: ze_device_handle_t,
    host: *mut u64,
    dev: *mut u64,
) -> ze_result_t {
    guard(|| {
        device(h)?;
        let host = out(host)?;
        let dev = out(dev)?;
        let now = crate::event::now_ns();
        *host = now;
        *dev = now;
        Ok(())
    })
}
