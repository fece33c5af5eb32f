//! OpenCL, loaded at run time: the few entry points the driver uses, the
//! `cl_intel_unified_shared_memory` functions, and small safe-ish wrappers for the
//! queries.
//!
//! Layer: the bottom of the driver. `libOpenCL.so.1` (the ICD loader) is opened once
//! with `libloading` and never closed; the USM functions are per platform
//! (`clGetExtensionFunctionAddressForPlatform`). Every error is a `cl_int`; the layers
//! above turn it into a `ze_result_t` ([`to_ze`]).
#![allow(
    non_camel_case_types,
    non_upper_case_globals,
    clippy::upper_case_acronyms
)]

use std::ffi::{CStr, c_char, c_void};
use std::ptr;
use std::sync::OnceLock;

use level_zero_sys::*;

pub type cl_int = i32;
pub type cl_uint = u32;
pub type cl_bitfield = u64;
pub type cl_platform_id = *mut c_void;
pub type cl_device_id = *mut c_void;
pub type cl_context = *mut c_void;
pub type cl_command_queue = *mut c_void;
pub type cl_program = *mut c_void;
pub type cl_kernel = *mut c_void;
pub type cl_event = *mut c_void;

pub const CL_SUCCESS: cl_int = 0;
pub const CL_OUT_OF_RESOURCES: cl_int = -5;
pub const CL_OUT_OF_HOST_MEMORY: cl_int = -6;
pub const CL_BUILD_PROGRAM_FAILURE: cl_int = -11;
pub const CL_INVALID_VALUE: cl_int = -30;
pub const CL_INVALID_BINARY: cl_int = -42;
pub const CL_INVALID_BUILD_OPTIONS: cl_int = -43;
pub const CL_INVALID_KERNEL_NAME: cl_int = -46;
pub const CL_INVALID_ARG_INDEX: cl_int = -49;
pub const CL_INVALID_ARG_VALUE: cl_int = -50;
pub const CL_INVALID_ARG_SIZE: cl_int = -51;
pub const CL_INVALID_WORK_GROUP_SIZE: cl_int = -54;
pub const CL_INVALID_BUFFER_SIZE: cl_int = -61;

pub const CL_DEVICE_TYPE_ALL: cl_bitfield = 0xFFFF_FFFF;
pub const CL_DEVICE_TYPE_CPU: cl_bitfield = 1 << 1;
pub const CL_DEVICE_TYPE_GPU: cl_bitfield = 1 << 2;

pub const CL_PLATFORM_NAME: cl_uint = 0x0902;
pub const CL_DEVICE_TYPE: cl_uint = 0x1000;
pub const CL_DEVICE_VENDOR_ID: cl_uint = 0x1001;
pub const CL_DEVICE_MAX_COMPUTE_UNITS: cl_uint = 0x1002;
pub const CL_DEVICE_MAX_WORK_GROUP_SIZE: cl_uint = 0x1004;
pub const CL_DEVICE_MAX_WORK_ITEM_SIZES: cl_uint = 0x1005;
pub const CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT: cl_uint = 0x100A;
pub const CL_DEVICE_MAX_CLOCK_FREQUENCY: cl_uint = 0x100C;
pub const CL_DEVICE_MAX_MEM_ALLOC_SIZE: cl_uint = 0x1010;
pub const CL_DEVICE_MAX_PARAMETER_SIZE: cl_uint = 0x1017;
pub const CL_DEVICE_SINGLE_FP_CONFIG: cl_uint = 0x101B;
pub const CL_DEVICE_GLOBAL_MEM_CACHE_SIZE: cl_uint = 0x101E;
pub const CL_DEVICE_GLOBAL_MEM_SIZE: cl_uint = 0x101F;
pub const CL_DEVICE_LOCAL_MEM_SIZE: cl_uint = 0x1023;
pub const CL_DEVICE_NAME: cl_uint = 0x102B;
pub const CL_DRIVER_VERSION: cl_uint = 0x102D;
pub const CL_DEVICE_EXTENSIONS: cl_uint = 0x1030;
pub const CL_DEVICE_DOUBLE_FP_CONFIG: cl_uint = 0x1032;
pub const CL_DEVICE_HALF_FP_CONFIG: cl_uint = 0x1033;
pub const CL_DEVICE_PRINTF_BUFFER_SIZE: cl_uint = 0x1049;
pub const CL_DEVICE_IL_VERSION: cl_uint = 0x105B;
pub const CL_DEVICE_SUB_GROUP_SIZES_INTEL: cl_uint = 0x4108;

pub const CL_QUEUE_PROPERTIES: cl_uint = 0x1093;
pub const CL_QUEUE_PROFILING_ENABLE: cl_bitfield = 1 << 1;

pub const CL_PROGRAM_BINARY_SIZES: cl_uint = 0x1165;
pub const CL_PROGRAM_BINARIES: cl_uint = 0x1166;
pub const CL_PROGRAM_KERNEL_NAMES: cl_uint = 0x1168;
pub const CL_PROGRAM_BUILD_LOG: cl_uint = 0x1183;

pub const CL_KERNEL_NUM_ARGS: cl_uint = 0x1191;
pub const CL_KERNEL_ARG_ADDRESS_QUALIFIER: cl_uint = 0x1196;
pub const CL_KERNEL_ARG_ADDRESS_GLOBAL: cl_uint = 0x119B;
pub const CL_KERNEL_ARG_ADDRESS_LOCAL: cl_uint = 0x119C;
pub const CL_KERNEL_ARG_ADDRESS_CONSTANT: cl_uint = 0x119D;
pub const CL_KERNEL_WORK_GROUP_SIZE: cl_uint = 0x11B0;
pub const CL_KERNEL_COMPILE_WORK_GROUP_SIZE: cl_uint = 0x11B1;
pub const CL_KERNEL_LOCAL_MEM_SIZE: cl_uint = 0x11B2;
pub const CL_KERNEL_PRIVATE_MEM_SIZE: cl_uint = 0x11B4;

pub const CL_EVENT_COMMAND_EXECUTION_STATUS: cl_uint = 0x11D3;
pub const CL_COMPLETE: cl_int = 0;
pub const CL_PROFILING_COMMAND_START: cl_uint = 0x1282;
pub const CL_PROFILING_COMMAND_END: cl_uint = 0x1283;

// cl_intel_unified_shared_memory
pub const CL_MEM_ALLOC_TYPE_INTEL: cl_uint = 0x419A;
pub const CL_MEM_ALLOC_BASE_PTR_INTEL: cl_uint = 0x419B;
pub const CL_MEM_ALLOC_SIZE_INTEL: cl_uint = 0x419C;
pub const CL_MEM_ALLOC_DEVICE_INTEL: cl_uint = 0x419D;
pub const CL_MEM_TYPE_UNKNOWN_INTEL: cl_uint = 0x4196;
pub const CL_MEM_TYPE_HOST_INTEL: cl_uint = 0x4197;
pub const CL_MEM_TYPE_DEVICE_INTEL: cl_uint = 0x4198;
pub const CL_MEM_TYPE_SHARED_INTEL: cl_uint = 0x4199;

type Callback = unsafe extern "C" fn(cl_event, cl_int, *mut c_void);
type BuildCallback = Option<unsafe extern "C" fn(cl_program, *mut c_void)>;
type ContextCallback =
    Option<unsafe extern "C" fn(*const c_char, *const c_void, usize, *mut c_void)>;

macro_rules! cl_api {
    ($(fn $name:ident($($arg:ty),* $(,)?) -> $ret:ty;)*) => {
        /// The core OpenCL entry points, all required.
        pub struct Cl {
            $(pub $name: unsafe extern "C" fn($($arg),*) -> $ret,)*
            _library: libloading::Library,
        }

        impl Cl {
            fn load() -> Result<Cl, String> {
                // SAFETY: libOpenCL.so.1 is the OpenCL ICD loader.
                let library = unsafe { libloading::Library::new("libOpenCL.so.1") }
                    .map_err(|e| format!("cannot load libOpenCL.so.1: {e}"))?;
                $(
                    // SAFETY: the symbol has this C prototype in cl.h.
                    let $name = unsafe {
                        library.get::<unsafe extern "C" fn($($arg),*) -> $ret>(
                            concat!(stringify!($name), "\0").as_bytes())
                    }
                    .map(|s| *s)
                    .map_err(|e| format!("libOpenCL.so.1 lacks {}: {e}", stringify!($name)))?;
                )*
                Ok(Cl { $($name,)* _library: library })
            }
        }
    };
}

cl_api! {
    fn clGetPlatformIDs(cl_uint, *mut cl_platform_id, *mut cl_uint) -> cl_int;
    fn clGetPlatformInfo(cl_platform_id, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
    fn clGetDeviceIDs(cl_platform_id, cl_bitfield, cl_uint, *mut cl_device_id, *mut cl_uint) -> cl_int;
    fn clGetDeviceInfo(cl_device_id, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
    fn clCreateContext(*const isize, cl_uint, *const cl_device_id, ContextCallback, *mut c_void, *mut cl_int) -> cl_context;
    fn clReleaseContext(cl_context) -> cl_int;
    fn clCreateCommandQueueWithProperties(cl_context, cl_device_id, *const cl_bitfield, *mut cl_int) -> cl_command_queue;
    fn clReleaseCommandQueue(cl_command_queue) -> cl_int;
    fn clFlush(cl_command_queue) -> cl_int;
    fn clFinish(cl_command_queue) -> cl_int;
    fn clCreateProgramWithIL(cl_context, *const c_void, usize, *mut cl_int) -> cl_program;
    fn clCreateProgramWithBinary(cl_context, cl_uint, *const cl_device_id, *const usize, *const *const u8, *mut cl_int, *mut cl_int) -> cl_program;
    fn clBuildProgram(cl_program, cl_uint, *const cl_device_id, *const c_char, BuildCallback, *mut c_void) -> cl_int;
    fn clGetProgramInfo(cl_program, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
    fn clGetProgramBuildInfo(cl_program, cl_device_id, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
    fn clReleaseProgram(cl_program) -> cl_int;
    fn clCreateKernel(cl_program, *const c_char, *mut cl_int) -> cl_kernel;
    fn clReleaseKernel(cl_kernel) -> cl_int;
    fn clSetKernelArg(cl_kernel, cl_uint, usize, *const c_void) -> cl_int;
    fn clGetKernelInfo(cl_kernel, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
    fn clGetKernelArgInfo(cl_kernel, cl_uint, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
    fn clGetKernelWorkGroupInfo(cl_kernel, cl_device_id, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
    fn clEnqueueNDRangeKernel(cl_command_queue, cl_kernel, cl_uint, *const usize, *const usize, *const usize, cl_uint, *const cl_event, *mut cl_event) -> cl_int;
    fn clEnqueueMarkerWithWaitList(cl_command_queue, cl_uint, *const cl_event, *mut cl_event) -> cl_int;
    fn clEnqueueBarrierWithWaitList(cl_command_queue, cl_uint, *const cl_event, *mut cl_event) -> cl_int;
    fn clCreateUserEvent(cl_context, *mut cl_int) -> cl_event;
    fn clSetUserEventStatus(cl_event, cl_int) -> cl_int;
    fn clSetEventCallback(cl_event, cl_int, Callback, *mut c_void) -> cl_int;
    fn clGetEventInfo(cl_event, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
    fn clGetEventProfilingInfo(cl_event, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
    fn clReleaseEvent(cl_event) -> cl_int;
    fn clRetainEvent(cl_event) -> cl_int;
    fn clGetExtensionFunctionAddressForPlatform(cl_platform_id, *const c_char) -> *mut c_void;
}

/// The `cl_intel_unified_shared_memory` functions of one platform.
pub struct Usm {
    pub clHostMemAllocINTEL: unsafe extern "C" fn(
        cl_context,
        *const cl_bitfield,
        usize,
        cl_uint,
        *mut cl_int,
    ) -> *mut c_void,
    pub clDeviceMemAllocINTEL: unsafe extern "C" fn(
        cl_context,
        cl_device_id,
        *const cl_bitfield,
        usize,
        cl_uint,
        *mut cl_int,
    ) -> *mut c_void,
    pub clSharedMemAllocINTEL: unsafe extern "C" fn(
        cl_context,
        cl_device_id,
        *const cl_bitfield,
        usize,
        cl_uint,
        *mut cl_int,
    ) -> *mut c_void,
    pub clMemBlockingFreeINTEL: unsafe extern "C" fn(cl_context, *mut c_void) -> cl_int,
    pub clGetMemAllocInfoINTEL: unsafe extern "C" fn(
        cl_context,
        *const c_void,
        cl_uint,
        usize,
        *mut c_void,
        *mut usize,
    ) -> cl_int,
    pub clSetKernelArgMemPointerINTEL:
        unsafe extern "C" fn(cl_kernel, cl_uint, *const c_void) -> cl_int,
    pub clEnqueueMemcpyINTEL: unsafe extern "C" fn(
        cl_command_queue,
        cl_uint,
        *mut c_void,
        *const c_void,
        usize,
        cl_uint,
        *const cl_event,
        *mut cl_event,
    ) -> cl_int,
    pub clEnqueueMemFillINTEL: unsafe extern "C" fn(
        cl_command_queue,
        *mut c_void,
        *const c_void,
        usize,
        usize,
        cl_uint,
        *const cl_event,
        *mut cl_event,
    ) -> cl_int,
}

impl Usm {
    /// Looks the functions up on `platform`; `None` if one is missing.
    ///
    /// # Safety
    /// `platform` must come from `clGetPlatformIDs`.
    // The transmutes' target is each field's type, spelled once, in the struct.
    #[allow(clippy::missing_transmute_annotations)]
    pub unsafe fn load(cl: &Cl, platform: cl_platform_id) -> Option<Usm> {
        macro_rules! get {
            ($name:ident) => {{
                // SAFETY: the name is NUL-terminated; the platform came from clGetPlatformIDs.
                let f = unsafe {
                    (cl.clGetExtensionFunctionAddressForPlatform)(
                        platform,
                        concat!(stringify!($name), "\0").as_ptr().cast(),
                    )
                };
                if f.is_null() {
                    return None;
                }
                // SAFETY: a non-NULL address is the extension function of that name,
                // whose prototype (cl_ext.h) is the field's type.
                unsafe { std::mem::transmute::<*mut c_void, _>(f) }
            }};
        }
        Some(Usm {
            clHostMemAllocINTEL: get!(clHostMemAllocINTEL),
            clDeviceMemAllocINTEL: get!(clDeviceMemAllocINTEL),
            clSharedMemAllocINTEL: get!(clSharedMemAllocINTEL),
            clMemBlockingFreeINTEL: get!(clMemBlockingFreeINTEL),
            clGetMemAllocInfoINTEL: get!(clGetMemAllocInfoINTEL),
            clSetKernelArgMemPointerINTEL: get!(clSetKernelArgMemPointerINTEL),
            clEnqueueMemcpyINTEL: get!(clEnqueueMemcpyINTEL),
            clEnqueueMemFillINTEL: get!(clEnqueueMemFillINTEL),
        })
    }
}

/// The process-wide OpenCL table (loaded once; the error is kept).
pub fn cl() -> Result<&'static Cl, String> {
    static CL: OnceLock<Result<Cl, String>> = OnceLock::new();
    CL.get_or_init(Cl::load).as_ref().map_err(Clone::clone)
}

/// An OpenCL error as the closest `ze_result_t`.
pub fn to_ze(err: cl_int) -> ze_result_t {
    match err {
        CL_OUT_OF_HOST_MEMORY => ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY,
        CL_OUT_OF_RESOURCES => ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY,
        CL_BUILD_PROGRAM_FAILURE | CL_INVALID_BINARY => ZE_RESULT_ERROR_MODULE_BUILD_FAILURE,
        CL_INVALID_BUILD_OPTIONS => ZE_RESULT_ERROR_INVALID_ARGUMENT,
        CL_INVALID_KERNEL_NAME => ZE_RESULT_ERROR_INVALID_KERNEL_NAME,
        CL_INVALID_ARG_INDEX => ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX,
        CL_INVALID_ARG_SIZE => ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE,
        CL_INVALID_ARG_VALUE => ZE_RESULT_ERROR_INVALID_ARGUMENT,
        CL_INVALID_WORK_GROUP_SIZE => ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION,
        CL_INVALID_BUFFER_SIZE => ZE_RESULT_ERROR_UNSUPPORTED_SIZE,
        CL_INVALID_VALUE => ZE_RESULT_ERROR_INVALID_ARGUMENT,
        _ => ZE_RESULT_ERROR_UNKNOWN,
    }
}

/// `Ok(())` for CL_SUCCESS, else the mapped `ze_result_t`.
pub fn check(err: cl_int) -> Result<(), ze_result_t> {
    if err == CL_SUCCESS {
        Ok(())
    } else {
        Err(to_ze(err))
    }
}

/// A `clGet*Info`-style query into bytes: `f(size, ptr, size_ret)`.
pub fn info_bytes(f: impl Fn(usize, *mut c_void, *mut usize) -> cl_int) -> Result<Vec<u8>, cl_int> {
    let mut size = 0usize;
    let err = f(0, ptr::null_mut(), &mut size);
    if err != CL_SUCCESS {
        return Err(err);
    }
    let mut buf = vec![0u8; size];
    let err = f(size, buf.as_mut_ptr().cast(), ptr::null_mut());
    if err != CL_SUCCESS {
        return Err(err);
    }
    Ok(buf)
}

/// A string query (trailing NULs removed).
pub fn info_string(f: impl Fn(usize, *mut c_void, *mut usize) -> cl_int) -> Result<String, cl_int> {
    let bytes = info_bytes(f)?;
    let text = CStr::from_bytes_until_nul(&bytes)
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| String::from_utf8_lossy(&bytes).into_owned());
    Ok(text)
}

/// A fixed-size query (`T` a plain integer or array of them).
pub fn info_value<T: Copy + Default>(
    f: impl Fn(usize, *mut c_void, *mut usize) -> cl_int,
) -> Result<T, cl_int> {
    let mut value = T::default();
    let err = f(
        size_of::<T>(),
        (&mut value as *mut T).cast(),
        ptr::null_mut(),
    );
    if err == CL_SUCCESS {
        Ok(value)
    } else {
        Err(err)
    }
}
