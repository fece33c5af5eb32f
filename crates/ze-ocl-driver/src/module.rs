//! Modules (OpenCL programs) and kernels.
//!
//! A SPIR-V module is `clCreateProgramWithIL` + `clBuildProgram`; a native one is the
//! OpenCL program binary (what zeModuleGetNativeBinary returns, `CL_PROGRAM_BINARIES`)
//! through `clCreateProgramWithBinary`. Build flags pass to OpenCL except the `-ze-*`
//! ones (`-ze-opt-disable` becomes `-cl-opt-disable`; the others have no OpenCL
//! meaning and are dropped).
//!
//! Kernel arguments are recorded when set and applied to the OpenCL kernel when a
//! launch is enqueued (a regular command list replays the values it was appended
//! with). What each parameter takes comes from the SPIR-V the module was made of
//! (`spirv.rs`; OpenCL runtimes have no argument info for IL programs): global and
//! constant pointers are USM addresses (`clSetKernelArgMemPointerINTEL`, NULL
//! allowed), local pointers a size with no value, values bytes of the parameter's exact
//! size. The native binary we hand out carries those kinds in a header of ours
//! (`binary.rs`), so a module made from it knows them too. A bare OpenCL binary from
//! elsewhere falls back to `clGetKernelArgInfo` (the address qualifier; OpenCL then
//! checks value sizes); where the runtime has none, its kernels' arguments cannot be
//! set (ZE_RESULT_ERROR_UNSUPPORTED_FEATURE) rather than guessed.

use std::ffi::{CStr, CString, c_char, c_void};
use std::ptr;
use std::sync::{Arc, Mutex};

use level_zero_sys::*;

use crate::cl::{self, *};
use crate::context::{Context, context, context_device};
use crate::driver::device_value;
use crate::objects::{Registry, ZeResult, guard, input, out};
use crate::spirv::{self, Kernels, Param};

pub struct Module {
    pub ctx: Arc<Context>,
    program: cl_program,
    kernel_names: Vec<CString>,
    /// Each kernel's parameters, from the SPIR-V or our native binary header; empty
    /// for a bare OpenCL binary.
    params: Kernels,
}

// SAFETY: OpenCL programs are thread-safe objects.
unsafe impl Send for Module {}
// SAFETY: as above.
unsafe impl Sync for Module {}

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: released once.
        unsafe { (self.ctx.device.cl.clReleaseProgram)(self.program) };
    }
}

pub struct BuildLog {
    text: String,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ArgKind {
    /// A global or constant pointer.
    Pointer,
    Local,
    /// Bytes; of this size when the SPIR-V said (OpenCL checks the size otherwise).
    Value(Option<usize>),
    /// An image, sampler, ...: not settable through this driver.
    Opaque,
    /// A bare OpenCL binary on a runtime without argument info.
    Unknown,
}

impl From<Param> for ArgKind {
    fn from(p: Param) -> ArgKind {
        match p {
            Param::Pointer => ArgKind::Pointer,
            Param::Local => ArgKind::Local,
            Param::Value(size) => ArgKind::Value(Some(size)),
            Param::Opaque => ArgKind::Opaque,
        }
    }
}

#[derive(Clone, Debug)]
pub enum Arg {
    Pointer(usize),
    Local(usize),
    Value(Vec<u8>),
}

pub struct Kernel {
    pub module: Arc<Module>,
    cl_kernel: cl_kernel,
    name: CString,
    kinds: Vec<ArgKind>,
    args: Mutex<Vec<Option<Arg>>>,
    group_size: Mutex<[u32; 3]>,
    /// Held while arguments are applied and the launch is enqueued.
    launch: Mutex<()>,
}

// SAFETY: the cl_kernel is only used under `launch` (or for read-only queries).
unsafe impl Send for Kernel {}
// SAFETY: as above.
unsafe impl Sync for Kernel {}

impl Drop for Kernel {
    fn drop(&mut self) {
        // SAFETY: released once.
        unsafe { (self.module.ctx.device.cl.clReleaseKernel)(self.cl_kernel) };
    }
}

pub static MODULES: Registry<Module> = Registry::new();
pub static BUILD_LOGS: Registry<BuildLog> = Registry::new();
pub static KERNELS: Registry<Kernel> = Registry::new();

pub fn kernel(h: ze_kernel_handle_t) -> ZeResult<Arc<Kernel>> {
    KERNELS.get(h)
}

/// Level Zero build flags as OpenCL build options.
fn cl_options(flags: &str) -> String {
    flags
        .split_whitespace()
        .filter_map(|f| match f {
            "-ze-opt-disable" => Some("-cl-opt-disable"),
            f if f.starts_with("-ze-") => None,
            f => Some(f),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn build_log(ctx: &Context, program: cl_program) -> String {
    let d = &ctx.device;
    // SAFETY: valid program and device.
    cl::info_string(|s, p, r| unsafe {
        (d.cl.clGetProgramBuildInfo)(program, d.id, CL_PROGRAM_BUILD_LOG, s, p, r)
    })
    .unwrap_or_default()
}

fn program_info_string(ctx: &Context, program: cl_program, param: cl_uint) -> ZeResult<String> {
    // SAFETY: valid program.
    cl::info_string(|s, p, r| unsafe { (ctx.device.cl.clGetProgramInfo)(program, param, s, p, r) })
        .map_err(cl::to_ze)
}

/// Why a module's input is refused before OpenCL sees it: the status, and the reason
/// for the build log.
type Refusal = (ze_result_t, String);

/// The module's input bytes and what they say about kernel parameters: the SPIR-V
/// itself, or the OpenCL binary behind our native binary header.
fn read_input(desc: &ze_module_desc_t) -> Result<(&[u8], Kernels), Refusal> {
    if desc.inputSize == 0 || desc.pInputModule.is_null() {
        let status = if desc.pInputModule.is_null() {
            ZE_RESULT_ERROR_INVALID_NULL_POINTER
        } else {
            ZE_RESULT_ERROR_INVALID_SIZE
        };
        return Err((status, String::new()));
    }
    // SAFETY: inputSize readable bytes (API contract).
    let bytes = unsafe { std::slice::from_raw_parts(desc.pInputModule, desc.inputSize) };
    if desc.format == ZE_MODULE_FORMAT_IL_SPIRV {
        let params = spirv::kernel_params(bytes).map_err(|why| {
            (
                ZE_RESULT_ERROR_MODULE_BUILD_FAILURE,
                format!("SPIR-V: {why}"),
            )
        })?;
        Ok((bytes, params))
    } else if desc.format == ZE_MODULE_FORMAT_NATIVE {
        match crate::binary::decode(bytes) {
            Ok(Some((params, cl))) => Ok((cl, params)),
            Ok(None) => Ok((bytes, Kernels::new())),
            Err(why) => Err((ZE_RESULT_ERROR_INVALID_NATIVE_BINARY, why)),
        }
    } else {
        Err((ZE_RESULT_ERROR_INVALID_ENUMERATION, String::new()))
    }
}

fn create_program(ctx: &Context, format: ze_module_format_t, bytes: &[u8]) -> ZeResult<cl_program> {
    let d = &ctx.device;
    let mut err = 0;
    let program = if format == ZE_MODULE_FORMAT_IL_SPIRV {
        // SAFETY: bytes.len() readable bytes.
        unsafe {
            (d.cl.clCreateProgramWithIL)(
                ctx.cl_context,
                bytes.as_ptr().cast(),
                bytes.len(),
                &mut err,
            )
        }
    } else {
        let mut status = 0;
        // SAFETY: one device, one binary of bytes.len() bytes.
        unsafe {
            (d.cl.clCreateProgramWithBinary)(
                ctx.cl_context,
                1,
                &d.id,
                &bytes.len(),
                &bytes.as_ptr(),
                &mut status,
                &mut err,
            )
        }
    };
    if program.is_null() || err != CL_SUCCESS {
        return Err(if err == CL_INVALID_BINARY || err == CL_INVALID_VALUE {
            ZE_RESULT_ERROR_INVALID_NATIVE_BINARY
        } else {
            cl::to_ze(err)
        });
    }
    Ok(program)
}

pub unsafe extern "C" fn zeModuleCreate(
    hctx: ze_context_handle_t,
    hdev: ze_device_handle_t,
    desc: *const ze_module_desc_t,
    out_module: *mut ze_module_handle_t,
    out_log: *mut ze_module_build_log_handle_t,
) -> ze_result_t {
    guard(|| {
        let ctx = context(hctx)?;
        let dev = context_device(&ctx, hdev)?;
        let desc = input(desc)?;
        let out_module = out(out_module)?;
        *out_module = ptr::null_mut();
        if !out_log.is_null() {
            // SAFETY: non-NULL output pointer.
            unsafe { *out_log = ptr::null_mut() };
        }
        if !desc.pConstants.is_null() {
            // SAFETY: non-NULL input pointer.
            if unsafe { (*desc.pConstants).numConstants } != 0 {
                return Err(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
            }
        }
        let flags = if desc.pBuildFlags.is_null() {
            String::new()
        } else {
            // SAFETY: a NUL-terminated string (API contract).
            unsafe { CStr::from_ptr(desc.pBuildFlags) }
                .to_string_lossy()
                .into_owned()
        };
        let (bytes, params) = match read_input(desc) {
            Ok(input) => input,
            Err((status, why)) => {
                if !out_log.is_null() && !why.is_empty() {
                    // SAFETY: non-NULL output pointer.
                    unsafe { *out_log = BUILD_LOGS.insert(Arc::new(BuildLog { text: why })) };
                }
                return Err(status);
            }
        };
        let program = create_program(&ctx, desc.format, bytes)?;
        let options = CString::new(cl_options(&flags)).unwrap_or_default();
        // SAFETY: valid program and device; synchronous build.
        let err = unsafe {
            (dev.cl.clBuildProgram)(program, 1, &dev.id, options.as_ptr(), None, ptr::null_mut())
        };
        if !out_log.is_null() {
            let log = BuildLog {
                text: build_log(&ctx, program),
            };
            // SAFETY: non-NULL output pointer.
            unsafe { *out_log = BUILD_LOGS.insert(Arc::new(log)) };
        }
        if err != CL_SUCCESS {
            // SAFETY: our program, released once.
            unsafe { (dev.cl.clReleaseProgram)(program) };
            return Err(if err == CL_INVALID_BUILD_OPTIONS {
                ZE_RESULT_ERROR_INVALID_ARGUMENT
            } else {
                ZE_RESULT_ERROR_MODULE_BUILD_FAILURE
            });
        }
        let names = program_info_string(&ctx, program, CL_PROGRAM_KERNEL_NAMES).unwrap_or_default();
        let kernel_names = names
            .split(';')
            .filter(|n| !n.is_empty())
            .filter_map(|n| CString::new(n).ok())
            .collect();
        *out_module = MODULES.insert(Arc::new(Module {
            ctx,
            program,
            kernel_names,
            params,
        }));
        Ok(())
    })
}

pub unsafe extern "C" fn zeModuleDestroy(h: ze_module_handle_t) -> ze_result_t {
    guard(|| MODULES.remove(h).map(drop))
}

pub unsafe extern "C" fn zeModuleBuildLogDestroy(h: ze_module_build_log_handle_t) -> ze_result_t {
    guard(|| BUILD_LOGS.remove(h).map(drop))
}

/// The "size then copy" protocol of strings and blobs: NULL `dst` asks for the size.
fn copy_out(bytes: &[u8], size: *mut usize, dst: *mut u8) -> ZeResult<()> {
    let size = out(size)?;
    if dst.is_null() {
        *size = bytes.len();
        return Ok(());
    }
    let n = (*size).min(bytes.len());
    // SAFETY: the caller provides *size writable bytes.
    unsafe { ptr::copy_nonoverlapping(bytes.as_ptr(), dst, n) };
    *size = n;
    Ok(())
}

pub unsafe extern "C" fn zeModuleBuildLogGetString(
    h: ze_module_build_log_handle_t,
    size: *mut usize,
    text: *mut c_char,
) -> ze_result_t {
    guard(|| {
        let log = BUILD_LOGS.get(h)?;
        let mut bytes = log.text.clone().into_bytes();
        bytes.push(0);
        if !text.is_null() {
            let n = *out(size)?;
            if n > 0 && n < bytes.len() {
                bytes.truncate(n - 1);
                bytes.push(0);
            }
        }
        copy_out(&bytes, size, text.cast())
    })
}

pub unsafe extern "C" fn zeModuleGetNativeBinary(
    h: ze_module_handle_t,
    size: *mut usize,
    binary: *mut u8,
) -> ze_result_t {
    guard(|| {
        let m = MODULES.get(h)?;
        let cl = m.ctx.device.cl;
        let mut len = 0usize;
        // SAFETY: one device: one size_t.
        cl::check(unsafe {
            (cl.clGetProgramInfo)(
                m.program,
                CL_PROGRAM_BINARY_SIZES,
                size_of::<usize>(),
                (&mut len as *mut usize).cast(),
                ptr::null_mut(),
            )
        })?;
        let mut bytes = vec![0u8; len];
        let mut slot = bytes.as_mut_ptr();
        // SAFETY: one pointer to `len` writable bytes.
        cl::check(unsafe {
            (cl.clGetProgramInfo)(
                m.program,
                CL_PROGRAM_BINARIES,
                size_of::<*mut u8>(),
                (&mut slot as *mut *mut u8).cast(),
                ptr::null_mut(),
            )
        })?;
        copy_out(&crate::binary::encode(&m.params, &bytes), size, binary)
    })
}

pub unsafe extern "C" fn zeModuleGetKernelNames(
    h: ze_module_handle_t,
    count: *mut u32,
    names: *mut *const c_char,
) -> ze_result_t {
    guard(|| {
        let m = MODULES.get(h)?;
        let ptrs: Vec<*const c_char> = m.kernel_names.iter().map(|n| n.as_ptr()).collect();
        crate::objects::fill_array(count, names, &ptrs)
    })
}

pub unsafe extern "C" fn zeModuleGetProperties(
    h: ze_module_handle_t,
    props: *mut ze_module_properties_t,
) -> ze_result_t {
    guard(|| {
        MODULES.get(h)?;
        out(props)?.flags = ze_module_property_flags_t(0);
        Ok(())
    })
}

fn kernel_info<T: Copy + Default>(m: &Module, k: cl_kernel, param: cl_uint) -> ZeResult<T> {
    // SAFETY: valid kernel.
    cl::info_value(|s, p, r| unsafe { (m.ctx.device.cl.clGetKernelInfo)(k, param, s, p, r) })
        .map_err(cl::to_ze)
}

fn work_group_info<T: Copy + Default>(k: &Kernel, param: cl_uint) -> T {
    let d = &k.module.ctx.device;
    // SAFETY: valid kernel and device.
    cl::info_value(|s, p, r| unsafe {
        (d.cl.clGetKernelWorkGroupInfo)(k.cl_kernel, d.id, param, s, p, r)
    })
    .unwrap_or_default()
}

/// The kinds of kernel `name`'s `n` arguments: the module's parameters when it has
/// them (and they agree with OpenCL's count), else the runtime's argument info.
fn arg_kinds(m: &Module, k: cl_kernel, name: &CStr, n: u32) -> Vec<ArgKind> {
    let known = name.to_str().ok().and_then(|name| m.params.get(name));
    if let Some(params) = known.filter(|p| p.len() == n as usize) {
        return params.iter().map(|p| ArgKind::from(*p)).collect();
    }
    (0..n)
        .map(|i| {
            // SAFETY: valid kernel and index.
            let q = cl::info_value::<cl_uint>(|s, p, r| unsafe {
                (m.ctx.device.cl.clGetKernelArgInfo)(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, s, p, r)
            });
            match q {
                Ok(CL_KERNEL_ARG_ADDRESS_GLOBAL) | Ok(CL_KERNEL_ARG_ADDRESS_CONSTANT) => {
                    ArgKind::Pointer
                }
                Ok(CL_KERNEL_ARG_ADDRESS_LOCAL) => ArgKind::Local,
                Ok(_) => ArgKind::Value(None),
                Err(_) => ArgKind::Unknown,
            }
        })
        .collect()
}

pub unsafe extern "C" fn zeKernelCreate(
    hmod: ze_module_handle_t,
    desc: *const ze_kernel_desc_t,
    out_kernel: *mut ze_kernel_handle_t,
) -> ze_result_t {
    guard(|| {
        let m = MODULES.get(hmod)?;
        let desc = input(desc)?;
        let out_kernel = out(out_kernel)?;
        let known = ZE_KERNEL_FLAG_FORCE_RESIDENCY | ZE_KERNEL_FLAG_EXPLICIT_RESIDENCY;
        if desc.flags.0 & !known.0 != 0 {
            return Err(ZE_RESULT_ERROR_INVALID_ENUMERATION);
        }
        let name_ptr = input(desc.pKernelName)?;
        // SAFETY: NUL-terminated (API contract).
        let name = unsafe { CStr::from_ptr(name_ptr) }.to_owned();
        let mut err = 0;
        // SAFETY: valid program, NUL-terminated name.
        let k = unsafe { (m.ctx.device.cl.clCreateKernel)(m.program, name.as_ptr(), &mut err) };
        if k.is_null() || err != CL_SUCCESS {
            return Err(ZE_RESULT_ERROR_INVALID_KERNEL_NAME);
        }
        let n: cl_uint = kernel_info(&m, k, CL_KERNEL_NUM_ARGS).unwrap_or(0);
        let kinds = arg_kinds(&m, k, &name, n);
        let kernel = Kernel {
            module: m,
            cl_kernel: k,
            name,
            kinds,
            args: Mutex::new(vec![None; n as usize]),
            group_size: Mutex::new([1, 1, 1]),
            launch: Mutex::new(()),
        };
        *out_kernel = KERNELS.insert(Arc::new(kernel));
        Ok(())
    })
}

pub unsafe extern "C" fn zeKernelDestroy(h: ze_kernel_handle_t) -> ze_result_t {
    guard(|| KERNELS.remove(h).map(drop))
}

impl Kernel {
    fn required_group_size(&self) -> [usize; 3] {
        work_group_info(self, CL_KERNEL_COMPILE_WORK_GROUP_SIZE)
    }

    fn max_group_size(&self) -> usize {
        let k: usize = work_group_info(self, CL_KERNEL_WORK_GROUP_SIZE);
        if k == 0 {
            device_value(&self.module.ctx.device, CL_DEVICE_MAX_WORK_GROUP_SIZE)
        } else {
            k
        }
    }

    /// Applies `arg` at `index` to the OpenCL kernel (call under `launch`).
    fn apply(&self, index: usize, arg: &Arg) -> ZeResult<()> {
        let d = &self.module.ctx.device;
        let i = index as cl_uint;
        // SAFETY: valid kernel; the pointers/sizes describe the argument.
        let err = unsafe {
            match arg {
                Arg::Pointer(p) => {
                    (d.usm.clSetKernelArgMemPointerINTEL)(self.cl_kernel, i, *p as *const c_void)
                }
                Arg::Local(size) => (d.cl.clSetKernelArg)(self.cl_kernel, i, *size, ptr::null()),
                Arg::Value(bytes) => {
                    (d.cl.clSetKernelArg)(self.cl_kernel, i, bytes.len(), bytes.as_ptr().cast())
                }
            }
        };
        cl::check(err)
    }

    /// What a launch appended now will use: every argument (all must be set) and the
    /// group size.
    pub fn snapshot(&self) -> ZeResult<(Vec<Arg>, [u32; 3])> {
        let args = self.args.lock().unwrap();
        let args: Option<Vec<Arg>> = args.iter().cloned().collect();
        let args = args.ok_or(ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
        Ok((args, *self.group_size.lock().unwrap()))
    }

    /// Enqueues the kernel with `args` on `queue`.
    pub fn enqueue(
        &self,
        queue: cl_command_queue,
        args: &[Arg],
        global: [usize; 3],
        local: [usize; 3],
        waits: &[cl_event],
        event: *mut cl_event,
    ) -> ZeResult<()> {
        let _launch = self.launch.lock().unwrap();
        for (i, a) in args.iter().enumerate() {
            self.apply(i, a)?;
        }
        let cl = self.module.ctx.device.cl;
        // SAFETY: valid queue and kernel; 3-dimensional sizes; wait list of live events.
        let err = unsafe {
            (cl.clEnqueueNDRangeKernel)(
                queue,
                self.cl_kernel,
                3,
                ptr::null(),
                global.as_ptr(),
                local.as_ptr(),
                waits.len() as u32,
                if waits.is_empty() {
                    ptr::null()
                } else {
                    waits.as_ptr()
                },
                event,
            )
        };
        cl::check(err)
    }
}

pub unsafe extern "C" fn zeKernelSetGroupSize(
    h: ze_kernel_handle_t,
    x: u32,
    y: u32,
    z: u32,
) -> ze_result_t {
    guard(|| {
        let k = kernel(h)?;
        let d = &k.module.ctx.device;
        let max_items = device_value::<[usize; 3]>(d, CL_DEVICE_MAX_WORK_ITEM_SIZES);
        let size = [x as usize, y as usize, z as usize];
        if size.contains(&0)
            || size.iter().zip(max_items).any(|(s, m)| *s > m)
            || size.iter().product::<usize>() > k.max_group_size()
        {
            return Err(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
        }
        let required = k.required_group_size();
        if required != [0, 0, 0] && required != size {
            return Err(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
        }
        *k.group_size.lock().unwrap() = [x, y, z];
        Ok(())
    })
}

pub unsafe extern "C" fn zeKernelSuggestGroupSize(
    h: ze_kernel_handle_t,
    gx: u32,
    gy: u32,
    gz: u32,
    x: *mut u32,
    y: *mut u32,
    z: *mut u32,
) -> ze_result_t {
    guard(|| {
        let k = kernel(h)?;
        let (x, y, z) = (out(x)?, out(y)?, out(z)?);
        let required = k.required_group_size();
        let size = if required != [0, 0, 0] {
            [required[0] as u32, required[1] as u32, required[2] as u32]
        } else {
            let max_items =
                device_value::<[usize; 3]>(&k.module.ctx.device, CL_DEVICE_MAX_WORK_ITEM_SIZES);
            let mut budget = k.max_group_size().max(1);
            let mut size = [1u32; 3];
            for (dim, global) in [gx, gy, gz].into_iter().enumerate() {
                let limit = budget.min(max_items[dim]).min(global.max(1) as usize) as u32;
                let best = (1..=limit)
                    .rev()
                    .find(|s| global.max(1) % s == 0)
                    .unwrap_or(1);
                size[dim] = best;
                budget /= best as usize;
            }
            size
        };
        (*x, *y, *z) = (size[0], size[1], size[2]);
        Ok(())
    })
}

pub unsafe extern "C" fn zeKernelSetArgumentValue(
    h: ze_kernel_handle_t,
    index: u32,
    size: usize,
    value: *const c_void,
) -> ze_result_t {
    guard(|| {
        let k = kernel(h)?;
        let kind = *k
            .kinds
            .get(index as usize)
            .ok_or(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX)?;
        let arg = match kind {
            ArgKind::Unknown | ArgKind::Opaque => return Err(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE),
            ArgKind::Local => {
                if !value.is_null() {
                    return Err(ZE_RESULT_ERROR_INVALID_ARGUMENT);
                }
                if size == 0 {
                    return Err(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
                }
                Arg::Local(size)
            }
            ArgKind::Pointer => {
                if size != size_of::<*const c_void>() {
                    return Err(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
                }
                // A NULL value is a NULL pointer, as is a zero address.
                let p = if value.is_null() {
                    0
                } else {
                    // SAFETY: a pointer-sized readable value.
                    unsafe { value.cast::<usize>().read_unaligned() }
                };
                Arg::Pointer(p)
            }
            ArgKind::Value(expected) => {
                if expected.is_some_and(|e| e != size) {
                    return Err(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
                }
                if value.is_null() {
                    return Err(ZE_RESULT_ERROR_INVALID_NULL_POINTER);
                }
                // SAFETY: `size` readable bytes.
                Arg::Value(unsafe { std::slice::from_raw_parts(value.cast::<u8>(), size) }.to_vec())
            }
        };
        {
            // Let OpenCL check the size now, not at launch.
            let _launch = k.launch.lock().unwrap();
            k.apply(index as usize, &arg)?;
        }
        k.args.lock().unwrap()[index as usize] = Some(arg);
        Ok(())
    })
}

pub unsafe extern "C" fn zeKernelSetIndirectAccess(
    h: ze_kernel_handle_t,
    flags: ze_kernel_indirect_access_flags_t,
) -> ze_result_t {
    guard(|| {
        kernel(h)?;
        let known = ZE_KERNEL_INDIRECT_ACCESS_FLAG_HOST
            | ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE
            | ZE_KERNEL_INDIRECT_ACCESS_FLAG_SHARED;
        if flags.0 & !known.0 != 0 {
            return Err(ZE_RESULT_ERROR_INVALID_ENUMERATION);
        }
        // The device shares the host's memory: every USM allocation is reachable.
        Ok(())
    })
}

pub unsafe extern "C" fn zeKernelGetProperties(
    h: ze_kernel_handle_t,
    props: *mut ze_kernel_properties_t,
) -> ze_result_t {
    guard(|| {
        let k = kernel(h)?;
        let p = out(props)?;
        let required = k.required_group_size();
        p.numKernelArgs = k.kinds.len() as u32;
        p.requiredGroupSizeX = required[0] as u32;
        p.requiredGroupSizeY = required[1] as u32;
        p.requiredGroupSizeZ = required[2] as u32;
        p.requiredNumSubGroups = 0;
        p.requiredSubgroupSize = 0;
        // The largest subgroup size the device offers.
        let mut sub: u32 = 1;
        let mut compute = ze_device_compute_properties_t::default();
        // SAFETY: our own entry point with a valid output struct.
        if unsafe {
            crate::driver::zeDeviceGetComputeProperties(
                crate::driver::device_handle(),
                &mut compute,
            )
        }
        .is_success()
        {
            sub = compute.subGroupSizes[..compute.numSubGroupSizes as usize]
                .iter()
                .copied()
                .max()
                .unwrap_or(1);
        }
        p.maxSubgroupSize = sub.max(1);
        p.maxNumSubgroups = (k.max_group_size() as u32 / p.maxSubgroupSize).max(1);
        p.localMemSize = work_group_info::<u64>(&k, CL_KERNEL_LOCAL_MEM_SIZE) as u32;
        p.privateMemSize = work_group_info::<u64>(&k, CL_KERNEL_PRIVATE_MEM_SIZE) as u32;
        p.spillMemSize = 0;
        p.uuid = ze_kernel_uuid_t {
            kid: crate::driver::uuid_of(&k.name.to_string_lossy()),
            mid: [0; 16],
        };
        Ok(())
    })
}

pub unsafe extern "C" fn zeKernelGetName(
    h: ze_kernel_handle_t,
    size: *mut usize,
    name: *mut c_char,
) -> ze_result_t {
    guard(|| {
        let k = kernel(h)?;
        copy_out(k.name.as_bytes_with_nul(), size, name.cast())
    })
}
