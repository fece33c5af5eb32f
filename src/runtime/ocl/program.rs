//! OpenCL programs and kernels, and launching kernels on a queue.
//!
//! Layer: `runtime::ocl`. A [`Program`] is built for one device, from OpenCL C
//! source or from a binary the same driver produced earlier (`cache.rs` keeps
//! them per engine). A failed build is an [`Error::Runtime`] carrying the
//! build log, which also goes to the verbose log.
//!
//! `clSetKernelArg` is the one OpenCL call that is not thread-safe: two
//! threads setting arguments of one `cl_kernel` race. So arguments are only
//! set by [`Queue::enqueue_kernel`], which sets them and enqueues the launch
//! under a lock chosen by the kernel's address (a fixed table of locks, so
//! every wrapper of one `cl_kernel`, clones included, takes the same lock).
//! OpenCL captures the arguments at enqueue time, so the lock is released
//! right after. Threads that launch one kernel often can each take their own
//! `cl_kernel` with [`Kernel::duplicate`] and never contend.

use std::ffi::{CString, c_void};
use std::sync::Mutex;

use super::context::Context;
use super::device::Device;
use super::error::{check, error_name, to_error};
use super::event::{Event, wait_list};
use super::handle::cl_handle;
use super::info;
use super::loader::entry;
use super::queue::{Queue, enqueued};
use super::sys::*;
use super::usm::Provider;
use crate::base::{Error, Result, verbose};
pub use crate::runtime::kernel_arg::KernelArg;

/// `CL_KERNEL_PROGRAM` (not in `sys.rs`: only used here).
const CL_KERNEL_PROGRAM: cl_kernel_info = 0x1194;

cl_handle! {
    /// A `cl_program`.
    pub struct Program(cl_program), "cl_program";
    kind: Program, retain: clRetainProgram, release: clReleaseProgram, info: clGetProgramInfo,
    refcount: CL_PROGRAM_REFERENCE_COUNT;
}

cl_handle! {
    /// A `cl_kernel`. Arguments are set only inside [`Queue::enqueue_kernel`].
    pub struct Kernel(cl_kernel), "cl_kernel";
    kind: Kernel, retain: clRetainKernel, release: clReleaseKernel, info: clGetKernelInfo,
    refcount: CL_KERNEL_REFERENCE_COUNT;
}

/// A build option asking for NVIDIA's arch-specific PTX (`sm_90a`): the
/// source writes the instructions that only that target has (`wgmma`) as
/// PTX comments starting `//@`; the program is built (NVIDIA's OpenCL
/// compiler targets `sm_90`, where ptxas refuses them), its PTX uncommented
/// and retargeted ([`arch_specific_ptx`]), and built again from that.
pub const PTX_ARCH_SPECIFIC: &str = "-DDNNL_PTX_ARCH_SPECIFIC=1";

/// `ptx` (an NVIDIA program binary) with its `//@` comments made
/// instructions and its `.target sm_XY` made `sm_XYa`.
pub fn arch_specific_ptx(ptx: &[u8]) -> Result<Vec<u8>> {
    let text = std::str::from_utf8(ptx)
        .map_err(|_| Error::runtime("the program binary is not PTX text"))?
        .trim_end_matches('\0');
    let target = text
        .find(".target sm_")
        .ok_or_else(|| Error::runtime("the program binary has no PTX .target sm_"))?
        + ".target sm_".len();
    let digits = text[target..]
        .bytes()
        .take_while(u8::is_ascii_digit)
        .count();
    if digits == 0 {
        return Err(Error::runtime("the PTX .target names no sm_ number"));
    }
    let end = target + digits;
    let mut out = String::with_capacity(text.len() + 1);
    out.push_str(&text[..end]);
    if !text[end..].starts_with('a') {
        out.push('a');
    }
    out.push_str(&text[end..].replace("//@", ""));
    Ok(out.into_bytes())
}

fn options_cstring(options: &str) -> Result<CString> {
    CString::new(options).map_err(|_| Error::invalid("build options contain a NUL byte"))
}

thread_local! {
    /// Source builds (compilations) made on this thread.
    static SOURCE_BUILDS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many programs this thread has compiled from source (builds from
/// binaries not counted): what tests of the cache blobs count.
pub fn source_builds_on_this_thread() -> u64 {
    SOURCE_BUILDS.with(|c| c.get())
}

impl Program {
    /// Builds OpenCL C `source` for `device` with `options` (`-D` macros,
    /// `-cl-std=...`).
    pub fn build_source(
        context: &Context,
        device: &Device,
        source: &str,
        options: &str,
    ) -> Result<Program> {
        let create = entry!(clCreateProgramWithSource)?;
        let text = source.as_ptr().cast();
        let length = source.len();
        let mut code = CL_SUCCESS;
        // SAFETY: one string of `length` bytes (no NUL needed when a length
        // is given), a valid status pointer.
        let raw = unsafe { create(context.raw(), 1, &text, &length, &mut code) };
        check(code, "clCreateProgramWithSource")?;
        if raw.is_null() {
            return Err(to_error(code, "clCreateProgramWithSource"));
        }
        // SAFETY: the driver gave us the only reference.
        let program = unsafe { Program::from_owned(raw) };
        SOURCE_BUILDS.with(|c| c.set(c.get() + 1));
        program.build(device, options, true)?;
        if options.contains(PTX_ARCH_SPECIFIC) {
            let ptx = arch_specific_ptx(&program.binary()?)?;
            return Program::build_binary(context, device, &ptx, options);
        }
        Ok(program)
    }

    /// Rebuilds a program from a binary [`Program::binary`] returned (for the
    /// same device and driver) with the options it was built with.
    pub fn build_binary(
        context: &Context,
        device: &Device,
        binary: &[u8],
        options: &str,
    ) -> Result<Program> {
        if binary.is_empty() {
            return Err(Error::invalid("empty OpenCL program binary"));
        }
        let create = entry!(clCreateProgramWithBinary)?;
        let raw_device = device.raw();
        let length = binary.len();
        let data = binary.as_ptr();
        let mut binary_status = CL_SUCCESS;
        let mut code = CL_SUCCESS;
        // SAFETY: one device, one binary of `length` bytes, valid status pointers.
        let raw = unsafe {
            create(
                context.raw(),
                1,
                &raw_device,
                &length,
                &data,
                &mut binary_status,
                &mut code,
            )
        };
        check(code, "clCreateProgramWithBinary")?;
        check(binary_status, "clCreateProgramWithBinary")?;
        if raw.is_null() {
            return Err(to_error(code, "clCreateProgramWithBinary"));
        }
        // SAFETY: the driver gave us the only reference.
        let program = unsafe { Program::from_owned(raw) };
        // A refused binary is the caller's to report (the cache falls back to
        // the source): not an error line of its own.
        program.build(device, options, false)?;
        Ok(program)
    }

    /// Builds for `device`; on failure the error carries the build log, which
    /// also goes to the verbose log when `log` is set.
    fn build(&self, device: &Device, options: &str, log: bool) -> Result<()> {
        let build = entry!(clBuildProgram)?;
        let options = options_cstring(options)?;
        let raw_device = device.raw();
        // One build at a time in the process: Intel's CPU runtime has been
        // seen to crash inside its compiler when two threads build at once
        // (a SIGSEGV in CI). Builds are rare (the program cache keeps them),
        // so serialising them costs little and protects every caller.
        static BUILD_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _serialised = BUILD_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        // SAFETY: a live program, one device of its context, NUL-terminated
        // options, no callback (a synchronous build).
        let code = unsafe {
            build(
                self.raw,
                1,
                &raw_device,
                options.as_ptr(),
                None,
                std::ptr::null_mut(),
            )
        };
        if code == CL_SUCCESS {
            return Ok(());
        }
        let build_log = self.build_log(device).unwrap_or_default();
        let name = device.name().unwrap_or_default();
        if log && verbose::enabled(verbose::flag::ERROR) {
            verbose::emit_line(
                "common,error,",
                &format!("ocl,clBuildProgram failed for {name}: {}", error_name(code)),
            );
            for line in build_log.lines().filter(|l| !l.trim().is_empty()) {
                verbose::emit_line("common,error,", &format!("ocl,build log: {line}"));
            }
        }
        let message = format!(
            "clBuildProgram failed for {name}: {} ({code}); build log:\n{build_log}",
            error_name(code)
        );
        Err(if super::error::is_out_of_memory(code) {
            Error::OutOfMemory(message.into())
        } else {
            Error::Runtime(message.into())
        })
    }

    /// The build log for `device` (`CL_PROGRAM_BUILD_LOG`).
    pub fn build_log(&self, device: &Device) -> Result<String> {
        let f = entry!(clGetProgramBuildInfo)?;
        info::string(
            // SAFETY: a live program and device; the helper passes a buffer of `size` bytes.
            &|size, value, ret| unsafe {
                f(
                    self.raw,
                    device.raw(),
                    CL_PROGRAM_BUILD_LOG,
                    size,
                    value,
                    ret,
                )
            },
            "clGetProgramBuildInfo",
        )
    }

    fn info_query(
        &self,
    ) -> Result<impl Fn(cl_program_info, usize, *mut c_void, *mut usize) -> cl_int> {
        let f = entry!(clGetProgramInfo)?;
        let raw = self.raw;
        // SAFETY: a live program (`self` outlives every use of the closure in
        // this module); callers pass a buffer of `size` bytes.
        Ok(move |param, size, value, ret| unsafe { f(raw, param, size, value, ret) })
    }

    /// The device binary of a program built for one device
    /// (`CL_PROGRAM_BINARIES`), to rebuild it later with [`Program::build_binary`].
    pub fn binary(&self) -> Result<Vec<u8>> {
        let query = self.info_query()?;
        let sizes: Vec<usize> = info::array(
            &|size, value, ret| query(CL_PROGRAM_BINARY_SIZES, size, value, ret),
            "clGetProgramInfo",
        )?;
        let Some(&first) = sizes.first() else {
            return Err(Error::runtime("the OpenCL program has no device"));
        };
        if first == 0 {
            return Err(Error::runtime(
                "the OpenCL driver returned an empty program binary",
            ));
        }
        let mut buffers: Vec<Vec<u8>> = sizes.iter().map(|&s| vec![0u8; s]).collect();
        let mut pointers: Vec<*mut u8> = buffers.iter_mut().map(|b| b.as_mut_ptr()).collect();
        let code = query(
            CL_PROGRAM_BINARIES,
            pointers.len() * std::mem::size_of::<*mut u8>(),
            pointers.as_mut_ptr().cast(),
            std::ptr::null_mut(),
        );
        check(code, "clGetProgramInfo(CL_PROGRAM_BINARIES)")?;
        Ok(buffers.swap_remove(0))
    }

    /// The names of the program's kernels (`CL_PROGRAM_KERNEL_NAMES`).
    pub fn kernel_names(&self) -> Result<Vec<String>> {
        let query = self.info_query()?;
        let names = info::string(
            &|size, value, ret| query(CL_PROGRAM_KERNEL_NAMES, size, value, ret),
            "clGetProgramInfo",
        )?;
        Ok(names
            .split(';')
            .filter(|n| !n.is_empty())
            .map(String::from)
            .collect())
    }

    /// A new kernel object for the kernel function `name`.
    pub fn kernel(&self, name: &str) -> Result<Kernel> {
        let create = entry!(clCreateKernel)?;
        let name =
            CString::new(name).map_err(|_| Error::invalid("kernel name contains a NUL byte"))?;
        let mut code = CL_SUCCESS;
        // SAFETY: a live, built program, a NUL-terminated name, a status pointer.
        let raw = unsafe { create(self.raw, name.as_ptr(), &mut code) };
        check(code, "clCreateKernel")?;
        if raw.is_null() {
            return Err(to_error(code, "clCreateKernel"));
        }
        // SAFETY: the driver gave us the only reference.
        Ok(unsafe { Kernel::from_owned(raw) })
    }
}

/// The lock that serialises setting arguments of the kernel at `raw`.
fn kernel_lock(raw: cl_kernel) -> &'static Mutex<()> {
    const STRIPES: usize = 64;
    static LOCKS: [Mutex<()>; STRIPES] = [const { Mutex::new(()) }; STRIPES];
    // Kernel objects are at least 16-byte aligned heap objects: drop the low bits.
    &LOCKS[(raw as usize >> 4) % STRIPES]
}

impl Kernel {
    fn info_string(&self, param: cl_kernel_info) -> Result<String> {
        let f = entry!(clGetKernelInfo)?;
        info::string(
            // SAFETY: a live kernel; the helper passes a buffer of `size` bytes.
            &|size, value, ret| unsafe { f(self.raw, param, size, value, ret) },
            "clGetKernelInfo",
        )
    }

    fn info_scalar<T: info::InfoScalar>(&self, param: cl_kernel_info) -> Result<T> {
        let f = entry!(clGetKernelInfo)?;
        info::scalar(
            // SAFETY: as in `info_string`.
            &|size, value, ret| unsafe { f(self.raw, param, size, value, ret) },
            "clGetKernelInfo",
        )
    }

    /// `CL_KERNEL_FUNCTION_NAME`.
    pub fn name(&self) -> Result<String> {
        self.info_string(CL_KERNEL_FUNCTION_NAME)
    }

    /// `CL_KERNEL_NUM_ARGS`.
    pub fn num_args(&self) -> Result<u32> {
        self.info_scalar(CL_KERNEL_NUM_ARGS)
    }

    /// The kernel's program (`CL_KERNEL_PROGRAM`), retained.
    pub fn program(&self) -> Result<Program> {
        let raw: cl_program = self.info_scalar(CL_KERNEL_PROGRAM)?;
        // SAFETY: the live program of a live kernel.
        unsafe { Program::retain_borrowed(raw) }
    }

    /// A new, independent `cl_kernel` of the same function, whose arguments
    /// no other thread sets.
    pub fn duplicate(&self) -> Result<Kernel> {
        self.program()?.kernel(&self.name()?)
    }

    fn work_group_scalar(
        &self,
        device: &Device,
        param: cl_kernel_work_group_info,
    ) -> Result<usize> {
        let f = entry!(clGetKernelWorkGroupInfo)?;
        info::scalar(
            // SAFETY: a live kernel and device; a buffer of `size` bytes.
            &|size, value, ret| unsafe { f(self.raw, device.raw(), param, size, value, ret) },
            "clGetKernelWorkGroupInfo",
        )
    }

    /// `CL_KERNEL_WORK_GROUP_SIZE` on `device`.
    pub fn work_group_size(&self, device: &Device) -> Result<usize> {
        self.work_group_scalar(device, CL_KERNEL_WORK_GROUP_SIZE)
    }

    /// `CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE` on `device`.
    pub fn preferred_work_group_size_multiple(&self, device: &Device) -> Result<usize> {
        self.work_group_scalar(device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE)
    }

    /// Sets every argument. The caller holds this kernel's lock.
    fn set_args(&self, args: &[KernelArg], queue: &Queue) -> Result<()> {
        let set = entry!(clSetKernelArg)?;
        let mut usm = None;
        for (index, arg) in args.iter().enumerate() {
            let index = index as cl_uint;
            let set_value = |size: usize, value: *const c_void| {
                // SAFETY: a live kernel, and `value` points at `size` readable
                // bytes (or is NULL for `__local` arguments); OpenCL copies them.
                check(
                    unsafe { set(self.raw, index, size, value) },
                    "clSetKernelArg",
                )
            };
            let by_value = |bytes: &[u8]| set_value(bytes.len(), bytes.as_ptr().cast());
            match *arg {
                KernelArg::Mem(mem) => {
                    let raw = mem.raw();
                    set_value(size_of::<cl_mem>(), (&raw as *const cl_mem).cast())?
                }
                KernelArg::NullMem => set_value(size_of::<cl_mem>(), std::ptr::null())?,
                KernelArg::Local(bytes) => set_value(bytes, std::ptr::null())?,
                KernelArg::I32(v) => by_value(&v.to_ne_bytes())?,
                KernelArg::U32(v) => by_value(&v.to_ne_bytes())?,
                KernelArg::I64(v) => by_value(&v.to_ne_bytes())?,
                KernelArg::U64(v) => by_value(&v.to_ne_bytes())?,
                KernelArg::F32(v) => by_value(&v.to_ne_bytes())?,
                KernelArg::Bytes(bytes) => by_value(bytes)?,
                KernelArg::Usm(ptr) => {
                    let provider = match usm {
                        Some(p) => p,
                        None => *usm.insert(super::usm::provider(&queue.device()?)?),
                    };
                    match provider {
                        Provider::Intel(functions) => {
                            // SAFETY: a live kernel; the pointer value is passed, not read.
                            let code = unsafe { (functions.set_kernel_arg)(self.raw, index, ptr) };
                            check(code, "clSetKernelArgMemPointerINTEL")?
                        }
                        Provider::Svm => {
                            let set_svm = entry!(clSetKernelArgSVMPointer)?;
                            // SAFETY: as above.
                            let code = unsafe { set_svm(self.raw, index, ptr) };
                            check(code, "clSetKernelArgSVMPointer")?
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

impl Queue {
    /// Launches `kernel` over `global` work-items (1 to 3 dimensions) in
    /// work-groups of `local` (or the driver's choice), after the commands of
    /// `wait`. A range with a zero dimension launches nothing and returns a
    /// marker on `wait`.
    pub fn enqueue_kernel(
        &self,
        kernel: &Kernel,
        args: &[KernelArg],
        global: &[usize],
        local: Option<&[usize]>,
        wait: &[Event],
    ) -> Result<Event> {
        if global.is_empty() || global.len() > 3 {
            return Err(Error::invalid("a kernel range has 1 to 3 dimensions"));
        }
        if local.is_some_and(|l| l.len() != global.len()) {
            return Err(Error::invalid(
                "local and global ranges differ in dimensions",
            ));
        }
        if global.contains(&0) {
            return self.marker(wait);
        }
        let launch = entry!(clEnqueueNDRangeKernel)?;
        let (n, list) = wait_list(wait);
        let local = local.map_or(std::ptr::null(), <[usize]>::as_ptr);
        let _guard = kernel_lock(kernel.raw()).lock()?;
        kernel.set_args(args, self)?;
        // SAFETY: live queue and kernel with every argument set, ranges of
        // `global.len()` dimensions, a wait list of `n` live events.
        enqueued("clEnqueueNDRangeKernel", |e| unsafe {
            launch(
                self.raw(),
                kernel.raw(),
                global.len() as cl_uint,
                std::ptr::null(),
                global.as_ptr(),
                local,
                n,
                list,
                e,
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arch_specific_ptx_uncomments_and_retargets() {
        let ptx = b".version 9.0\n.target sm_90, texmode_independent\n\t//@wgmma.fence.sync.aligned;\n\t// kept\n\0";
        let out = String::from_utf8(arch_specific_ptx(ptx).unwrap()).unwrap();
        assert_eq!(
            out,
            ".version 9.0\n.target sm_90a, texmode_independent\n\twgmma.fence.sync.aligned;\n\t// kept\n"
        );
        // Already arch-specific: the target is kept.
        let again = arch_specific_ptx(out.as_bytes()).unwrap();
        assert_eq!(String::from_utf8(again).unwrap(), out);
        assert!(arch_specific_ptx(b"\x7fELF").is_err());
        assert!(arch_specific_ptx(b".target spir64").is_err());
        assert!(arch_specific_ptx(b".target sm_x").is_err());
    }
}
