//! Loading the OpenCL ICD loader at run time, once.
//!
//! Layer: `runtime::ocl`, just above `sys`. We open the library ourselves with
//! `libloading` rather than through cl3/opencl3: cl3 0.13 opens only
//! `libOpenCL.so.1` (0.12, which STYLE.md describes, only `libOpenCL.so`), and
//! we want both, in that order: runtime-only machines (NVIDIA's driver
//! packages) have just `libOpenCL.so.1`, development machines have both. It
//! also keeps every entry point optional, and the extension functions
//! (`cl_intel_unified_shared_memory`) are looked up per platform anyway
//! (`usm.rs`).
//!
//! The table lives in a `OnceLock` static that is never dropped, so the library
//! is never closed and nothing here runs at process exit. No library, or a
//! library without `clGetPlatformIDs`, means "no OpenCL": [`api`] returns an
//! error and `devices()` an empty list.

#![allow(non_snake_case)]

use std::ffi::{c_char, c_void};
use std::sync::OnceLock;

use super::sys::*;
use crate::base::{Error, Result};

/// The names tried, in order. The versioned name first: it is what the ICD
/// loader package of every distribution and driver installer provides.
const LIBRARY_NAMES: [&str; 2] = ["libOpenCL.so.1", "libOpenCL.so"];

macro_rules! entry_points {
    ($( $name:ident : fn($($arg:ty),* $(,)?) $(-> $ret:ty)?; )*) => {
        /// The OpenCL entry points we use, each `None` when the loader lacks it.
        pub struct Api {
            /// The file the table came from (for the verbose header).
            pub library: &'static str,
            // Kept open for the life of the process; never dropped (the
            // `OnceLock` static that holds us is not), so never closed.
            _library: libloading::Library,
            $( pub $name: Option<unsafe extern "C" fn($($arg),*) $(-> $ret)?>, )*
        }

        impl Api {
            fn load(library: libloading::Library, name: &'static str) -> Api {
                Api {
                    library: name,
                    $( $name: {
                        // SAFETY: the symbol, if present, is the OpenCL entry
                        // point of that name, whose C prototype is the one
                        // declared in this table (cl.h / cl_ext.h); copying the
                        // fn pointer out is sound because the library stays
                        // open for the life of the process.
                        unsafe {
                            library
                                .get::<unsafe extern "C" fn($($arg),*) $(-> $ret)?>(
                                    concat!(stringify!($name), "\0").as_bytes(),
                                )
                                .ok()
                                .map(|symbol| *symbol)
                        }
                    }, )*
                    _library: library,
                }
            }
        }
    };
}

entry_points! {
    clGetPlatformIDs: fn(cl_uint, *mut cl_platform_id, *mut cl_uint) -> cl_int;
    clGetPlatformInfo: fn(cl_platform_id, cl_platform_info, usize, *mut c_void, *mut usize) -> cl_int;
    clGetExtensionFunctionAddressForPlatform: fn(cl_platform_id, *const c_char) -> *mut c_void;

    clGetDeviceIDs: fn(cl_platform_id, cl_device_type, cl_uint, *mut cl_device_id, *mut cl_uint) -> cl_int;
    clGetDeviceInfo: fn(cl_device_id, cl_device_info, usize, *mut c_void, *mut usize) -> cl_int;
    clCreateSubDevices: fn(cl_device_id, *const cl_device_partition_property, cl_uint, *mut cl_device_id, *mut cl_uint) -> cl_int;
    clRetainDevice: fn(cl_device_id) -> cl_int;
    clReleaseDevice: fn(cl_device_id) -> cl_int;

    clCreateContext: fn(*const cl_context_properties, cl_uint, *const cl_device_id, ContextNotify, *mut c_void, *mut cl_int) -> cl_context;
    clRetainContext: fn(cl_context) -> cl_int;
    clReleaseContext: fn(cl_context) -> cl_int;
    clGetContextInfo: fn(cl_context, cl_context_info, usize, *mut c_void, *mut usize) -> cl_int;

    clCreateCommandQueueWithProperties: fn(cl_context, cl_device_id, *const cl_queue_properties, *mut cl_int) -> cl_command_queue;
    clCreateCommandQueue: fn(cl_context, cl_device_id, cl_command_queue_properties, *mut cl_int) -> cl_command_queue;
    clRetainCommandQueue: fn(cl_command_queue) -> cl_int;
    clReleaseCommandQueue: fn(cl_command_queue) -> cl_int;
    clGetCommandQueueInfo: fn(cl_command_queue, cl_command_queue_info, usize, *mut c_void, *mut usize) -> cl_int;
    clFlush: fn(cl_command_queue) -> cl_int;
    clFinish: fn(cl_command_queue) -> cl_int;

    clCreateBuffer: fn(cl_context, cl_mem_flags, usize, *mut c_void, *mut cl_int) -> cl_mem;
    clRetainMemObject: fn(cl_mem) -> cl_int;
    clReleaseMemObject: fn(cl_mem) -> cl_int;
    clGetMemObjectInfo: fn(cl_mem, cl_mem_info, usize, *mut c_void, *mut usize) -> cl_int;

    clEnqueueReadBuffer: fn(cl_command_queue, cl_mem, cl_bool, usize, usize, *mut c_void, cl_uint, *const cl_event, *mut cl_event) -> cl_int;
    clEnqueueWriteBuffer: fn(cl_command_queue, cl_mem, cl_bool, usize, usize, *const c_void, cl_uint, *const cl_event, *mut cl_event) -> cl_int;
    clEnqueueCopyBuffer: fn(cl_command_queue, cl_mem, cl_mem, usize, usize, usize, cl_uint, *const cl_event, *mut cl_event) -> cl_int;
    clEnqueueFillBuffer: fn(cl_command_queue, cl_mem, *const c_void, usize, usize, usize, cl_uint, *const cl_event, *mut cl_event) -> cl_int;
    clEnqueueMapBuffer: fn(cl_command_queue, cl_mem, cl_bool, cl_map_flags, usize, usize, cl_uint, *const cl_event, *mut cl_event, *mut cl_int) -> *mut c_void;
    clEnqueueUnmapMemObject: fn(cl_command_queue, cl_mem, *mut c_void, cl_uint, *const cl_event, *mut cl_event) -> cl_int;
    clEnqueueMarkerWithWaitList: fn(cl_command_queue, cl_uint, *const cl_event, *mut cl_event) -> cl_int;
    clEnqueueBarrierWithWaitList: fn(cl_command_queue, cl_uint, *const cl_event, *mut cl_event) -> cl_int;
    clEnqueueNDRangeKernel: fn(cl_command_queue, cl_kernel, cl_uint, *const usize, *const usize, *const usize, cl_uint, *const cl_event, *mut cl_event) -> cl_int;

    clCreateProgramWithSource: fn(cl_context, cl_uint, *const *const c_char, *const usize, *mut cl_int) -> cl_program;
    clCreateProgramWithBinary: fn(cl_context, cl_uint, *const cl_device_id, *const usize, *const *const u8, *mut cl_int, *mut cl_int) -> cl_program;
    clBuildProgram: fn(cl_program, cl_uint, *const cl_device_id, *const c_char, BuildNotify, *mut c_void) -> cl_int;
    clGetProgramInfo: fn(cl_program, cl_program_info, usize, *mut c_void, *mut usize) -> cl_int;
    clGetProgramBuildInfo: fn(cl_program, cl_device_id, cl_program_build_info, usize, *mut c_void, *mut usize) -> cl_int;
    clRetainProgram: fn(cl_program) -> cl_int;
    clReleaseProgram: fn(cl_program) -> cl_int;

    clCreateKernel: fn(cl_program, *const c_char, *mut cl_int) -> cl_kernel;
    clRetainKernel: fn(cl_kernel) -> cl_int;
    clReleaseKernel: fn(cl_kernel) -> cl_int;
    clSetKernelArg: fn(cl_kernel, cl_uint, usize, *const c_void) -> cl_int;
    clGetKernelInfo: fn(cl_kernel, cl_kernel_info, usize, *mut c_void, *mut usize) -> cl_int;
    clGetKernelWorkGroupInfo: fn(cl_kernel, cl_device_id, cl_kernel_work_group_info, usize, *mut c_void, *mut usize) -> cl_int;

    clSVMAlloc: fn(cl_context, cl_svm_mem_flags, usize, cl_uint) -> *mut c_void;
    clSVMFree: fn(cl_context, *mut c_void);
    clSetKernelArgSVMPointer: fn(cl_kernel, cl_uint, *const c_void) -> cl_int;
    clEnqueueSVMMemcpy: fn(cl_command_queue, cl_bool, *mut c_void, *const c_void, usize, cl_uint, *const cl_event, *mut cl_event) -> cl_int;
    clEnqueueSVMMemFill: fn(cl_command_queue, *mut c_void, *const c_void, usize, usize, cl_uint, *const cl_event, *mut cl_event) -> cl_int;
    clEnqueueSVMMap: fn(cl_command_queue, cl_bool, cl_map_flags, *mut c_void, usize, cl_uint, *const cl_event, *mut cl_event) -> cl_int;
    clEnqueueSVMUnmap: fn(cl_command_queue, *mut c_void, cl_uint, *const cl_event, *mut cl_event) -> cl_int;

    clWaitForEvents: fn(cl_uint, *const cl_event) -> cl_int;
    clGetEventInfo: fn(cl_event, cl_event_info, usize, *mut c_void, *mut usize) -> cl_int;
    clGetEventProfilingInfo: fn(cl_event, cl_profiling_info, usize, *mut c_void, *mut usize) -> cl_int;
    clRetainEvent: fn(cl_event) -> cl_int;
    clReleaseEvent: fn(cl_event) -> cl_int;
}

static API: OnceLock<std::result::Result<Api, String>> = OnceLock::new();

fn open() -> std::result::Result<Api, String> {
    let mut tried = Vec::new();
    for name in LIBRARY_NAMES {
        // SAFETY: loading the ICD loader runs its initialisers; it is a
        // well-behaved C library that does not depend on being loaded in any
        // particular way.
        match unsafe { libloading::Library::new(name) } {
            Ok(library) => {
                let api = Api::load(library, name);
                let Some(get_platforms) = api.clGetPlatformIDs else {
                    tried.push(format!("{name}: no clGetPlatformIDs"));
                    continue;
                };
                warm_up(&api, get_platforms);
                return Ok(api);
            }
            Err(e) => tried.push(format!("{name}: {e}")),
        }
    }
    Err(format!("no OpenCL library ({})", tried.join("; ")))
}

/// Makes, from one thread, the first call of every query the library makes
/// on any platform or device, while `OnceLock` keeps other threads out.
///
/// The ICD loader reads its vendor files and loads every driver on the first
/// `clGetPlatformIDs`, and drivers compute some answers lazily on the first
/// query. That is not always thread-safe: PoCL 3.1 (Debian 12) crashes when
/// two threads ask for a device's `CL_DEVICE_NAME` for the first time at
/// once (reproduced in plain C). Queries after the first are safe.
fn warm_up(api: &Api, get_platforms: GetPlatformIds) {
    let mut platforms = [std::ptr::null_mut(); 16];
    let mut count: cl_uint = 0;
    // SAFETY: room for 16 platform ids and a valid count pointer.
    let code = unsafe { get_platforms(16, platforms.as_mut_ptr(), &mut count) };
    if code != CL_SUCCESS {
        return;
    }
    let mut text = vec![0u8; 64 * 1024];
    for &platform in &platforms[..(count as usize).min(16)] {
        if let Some(info) = api.clGetPlatformInfo {
            for param in [
                CL_PLATFORM_NAME,
                CL_PLATFORM_VERSION,
                CL_PLATFORM_VENDOR,
                CL_PLATFORM_EXTENSIONS,
            ] {
                // SAFETY: a platform id the loader returned, a buffer of `text.len()` bytes.
                let _ = unsafe {
                    info(
                        platform,
                        param,
                        text.len(),
                        text.as_mut_ptr().cast(),
                        std::ptr::null_mut(),
                    )
                };
            }
        }
        let (Some(get_devices), Some(info)) = (api.clGetDeviceIDs, api.clGetDeviceInfo) else {
            continue;
        };
        let mut devices = [std::ptr::null_mut(); 64];
        let mut found: cl_uint = 0;
        // SAFETY: room for 64 device ids and a valid count pointer.
        let code = unsafe {
            get_devices(
                platform,
                CL_DEVICE_TYPE_ALL,
                64,
                devices.as_mut_ptr(),
                &mut found,
            )
        };
        if code != CL_SUCCESS {
            continue;
        }
        for &device in &devices[..(found as usize).min(64)] {
            for param in [
                CL_DEVICE_NAME,
                CL_DEVICE_VENDOR,
                CL_DRIVER_VERSION,
                CL_DEVICE_VERSION,
                CL_DEVICE_OPENCL_C_VERSION,
                CL_DEVICE_EXTENSIONS,
            ] {
                // SAFETY: a device id the driver returned, a buffer of `text.len()` bytes.
                let _ = unsafe {
                    info(
                        device,
                        param,
                        text.len(),
                        text.as_mut_ptr().cast(),
                        std::ptr::null_mut(),
                    )
                };
            }
        }
    }
}

type GetPlatformIds = unsafe extern "C" fn(cl_uint, *mut cl_platform_id, *mut cl_uint) -> cl_int;

/// The entry point table, loading the library on first use. An error when no
/// OpenCL library could be opened (its message says what was tried).
pub fn api() -> Result<&'static Api> {
    API.get_or_init(open)
        .as_ref()
        .map_err(|why| Error::runtime(why.clone()))
}

/// Whether an OpenCL library is loaded (loads it if not yet tried).
pub fn available() -> bool {
    api().is_ok()
}

/// The error for an entry point the loaded library does not have.
pub fn missing(name: &str) -> Error {
    Error::runtime(format!("the OpenCL library has no {name}"))
}

/// `entry!(clFoo)`: the entry point `clFoo` as a `Result` of its fn pointer,
/// failing when OpenCL is absent or the loader lacks it. Calling it stays an
/// explicit `unsafe` block at the call site.
macro_rules! entry {
    ($name:ident) => {
        $crate::runtime::ocl::loader::api().and_then(|api| {
            api.$name
                .ok_or_else(|| $crate::runtime::ocl::loader::missing(stringify!($name)))
        })
    };
}
pub(crate) use entry;
