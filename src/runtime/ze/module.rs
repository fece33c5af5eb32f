//! Level Zero modules and kernels, and launching a kernel on a command list.
//!
//! Layer: `runtime::ze`. A [`Module`] is built for one device from SPIR-V
//! (`spirv.rs` makes it from OpenCL C) or from a native binary the same
//! driver produced earlier; a failed build is an `Error::Runtime` carrying
//! the build log. Kernel arguments and group sizes are state of the kernel
//! object, captured when a launch is appended: [`Kernel::launch`] sets them
//! and appends under the kernel's lock, so threads sharing a kernel do not
//! race.

use std::ffi::{CString, c_char, c_void};
use std::sync::{Arc, Mutex};

use level_zero_sys as sys;

use super::event::{Event, wait_list};
use super::{Raw, api, check};
use crate::base::{Error, Result};
use crate::runtime::kernel_arg::KernelArg;

/// A module, destroyed on drop (after its kernels: each holds the module).
pub struct Module {
    raw: Raw<sys::ze_module_handle_t>,
}

/// The format of a module's input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModuleFormat {
    /// SPIR-V.
    Spirv,
    /// A device binary of the driver (`zeModuleGetNativeBinary`).
    Native,
}

fn build_log_string(log: sys::ze_module_build_log_handle_t) -> String {
    let Ok(api) = api() else {
        return String::new();
    };
    if log.is_null() {
        return String::new();
    }
    let mut size = 0usize;
    let mut text = String::new();
    // SAFETY: a live build log; size query.
    let sized = unsafe { api.zeModuleBuildLogGetString(log, &mut size, std::ptr::null_mut()) };
    if sized.is_success() && size > 0 {
        let mut buf = vec![0 as c_char; size];
        // SAFETY: room for `size` characters.
        if unsafe { api.zeModuleBuildLogGetString(log, &mut size, buf.as_mut_ptr()) }.is_success() {
            let bytes: Vec<u8> = buf
                .iter()
                .take_while(|&&c| c != 0)
                .map(|&c| c as u8)
                .collect();
            text = String::from_utf8_lossy(&bytes).into_owned();
        }
    }
    // SAFETY: our build log, destroyed once.
    unsafe { api.zeModuleBuildLogDestroy(log) };
    text
}

impl Module {
    /// Builds `input` (SPIR-V or a native binary) for `device` with the
    /// build `flags`.
    pub fn build(
        context: sys::ze_context_handle_t,
        device: sys::ze_device_handle_t,
        format: ModuleFormat,
        input: &[u8],
        flags: &str,
    ) -> Result<Module> {
        let api = api()?;
        let flags = CString::new(flags).map_err(|_| Error::invalid("build flags contain NUL"))?;
        let desc = sys::ze_module_desc_t {
            format: match format {
                ModuleFormat::Spirv => sys::ZE_MODULE_FORMAT_IL_SPIRV,
                ModuleFormat::Native => sys::ZE_MODULE_FORMAT_NATIVE,
            },
            inputSize: input.len(),
            pInputModule: input.as_ptr(),
            pBuildFlags: flags.as_ptr(),
            ..Default::default()
        };
        let mut module: sys::ze_module_handle_t = std::ptr::null_mut();
        let mut log: sys::ze_module_build_log_handle_t = std::ptr::null_mut();
        // SAFETY: live context and device, a descriptor whose pointers live
        // through the call, writable outputs.
        let r = unsafe { api.zeModuleCreate(context, device, &desc, &mut module, &mut log) };
        let log = build_log_string(log);
        if !r.is_success() || module.is_null() {
            if crate::base::verbose::enabled(crate::base::verbose::flag::ERROR) && !log.is_empty() {
                crate::base::verbose::emit_line("common,error,", &format!("ze,build log: {log}"));
            }
            return Err(Error::runtime(format!(
                "zeModuleCreate failed: {r}: {}",
                log.trim()
            )));
        }
        Ok(Module { raw: Raw(module) })
    }

    /// The device binary of the module, where the driver gives one.
    pub fn native_binary(&self) -> Result<Vec<u8>> {
        let api = api()?;
        let mut size = 0usize;
        check(
            // SAFETY: our module; size query.
            unsafe { api.zeModuleGetNativeBinary(self.raw.0, &mut size, std::ptr::null_mut()) },
            "zeModuleGetNativeBinary",
        )?;
        let mut out = vec![0u8; size];
        check(
            // SAFETY: room for `size` bytes.
            unsafe { api.zeModuleGetNativeBinary(self.raw.0, &mut size, out.as_mut_ptr()) },
            "zeModuleGetNativeBinary",
        )?;
        out.truncate(size);
        Ok(out)
    }

    /// A new kernel object for `name`.
    pub fn kernel(self: &Arc<Module>, name: &str) -> Result<Kernel> {
        let api = api()?;
        let cname = CString::new(name).map_err(|_| Error::invalid("kernel name contains NUL"))?;
        let desc = sys::ze_kernel_desc_t {
            pKernelName: cname.as_ptr(),
            ..Default::default()
        };
        let mut kernel: sys::ze_kernel_handle_t = std::ptr::null_mut();
        check(
            // SAFETY: our module, a descriptor whose name lives through the call.
            unsafe { api.zeKernelCreate(self.raw.0, &desc, &mut kernel) },
            &format!("zeKernelCreate({name})"),
        )?;
        Ok(Kernel {
            raw: Mutex::new(Raw(kernel)),
            _module: self.clone(),
        })
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        if let Ok(api) = api() {
            // SAFETY: our module; its kernels (which hold it) are gone.
            let r = unsafe { api.zeModuleDestroy(self.raw.0) };
            if let Err(e) = check(r, "zeModuleDestroy") {
                super::warn(&e.to_string());
            }
        }
    }
}

/// A kernel object; its module lives as long as it does.
pub struct Kernel {
    /// The handle, locked while arguments are set and the launch appended.
    raw: Mutex<Raw<sys::ze_kernel_handle_t>>,
    _module: Arc<Module>,
}

impl Kernel {
    fn set_args(api: &sys::Api, kernel: sys::ze_kernel_handle_t, args: &[KernelArg]) -> Result<()> {
        for (index, arg) in args.iter().enumerate() {
            let index = index as u32;
            let set = |size: usize, value: *const c_void| {
                check(
                    // SAFETY: our kernel; `value` points at `size` readable bytes
                    // (or is NULL for local memory); the driver copies them.
                    unsafe { api.zeKernelSetArgumentValue(kernel, index, size, value) },
                    "zeKernelSetArgumentValue",
                )
            };
            let bytes = |b: &[u8]| set(b.len(), b.as_ptr().cast());
            match *arg {
                KernelArg::Mem(_) => {
                    return Err(Error::invalid(
                        "an OpenCL buffer given to a Level Zero kernel",
                    ));
                }
                KernelArg::NullMem => {
                    let null: *const c_void = std::ptr::null();
                    set(
                        size_of::<*const c_void>(),
                        (&null as *const *const c_void).cast(),
                    )?
                }
                KernelArg::Usm(ptr) => set(
                    size_of::<*const c_void>(),
                    (&ptr as *const *const c_void).cast(),
                )?,
                KernelArg::Local(size) => set(size, std::ptr::null())?,
                KernelArg::I32(v) => bytes(&v.to_ne_bytes())?,
                KernelArg::U32(v) => bytes(&v.to_ne_bytes())?,
                KernelArg::I64(v) => bytes(&v.to_ne_bytes())?,
                KernelArg::U64(v) => bytes(&v.to_ne_bytes())?,
                KernelArg::F32(v) => bytes(&v.to_ne_bytes())?,
                KernelArg::Bytes(b) => bytes(b)?,
            }
        }
        Ok(())
    }

    /// Appends a launch of the kernel over `global` work-items (1 to 3
    /// dimensions, multiples of `local`) in work-groups of `local` (or the
    /// driver's suggestion) to `list`, after `wait`, signalling `signal`.
    pub fn launch(
        &self,
        list: sys::ze_command_list_handle_t,
        args: &[KernelArg],
        global: &[usize],
        local: Option<&[usize]>,
        signal: Event,
        wait: &[Event],
    ) -> Result<()> {
        let api = api()?;
        if global.is_empty() || global.len() > 3 {
            return Err(Error::invalid("a kernel range has 1 to 3 dimensions"));
        }
        let dim = |v: &[usize], i: usize| v.get(i).copied().unwrap_or(1);
        let g = [dim(global, 0), dim(global, 1), dim(global, 2)];
        let guard = self.raw.lock()?;
        let kernel = guard.0;
        let l = match local {
            Some(l) if l.len() == global.len() => [dim(l, 0), dim(l, 1), dim(l, 2)],
            Some(_) => {
                return Err(Error::invalid(
                    "local and global ranges differ in dimensions",
                ));
            }
            None => {
                let mut s = [1u32; 3];
                let [sx, sy, sz] = &mut s;
                check(
                    // SAFETY: our kernel, writable outputs.
                    unsafe {
                        api.zeKernelSuggestGroupSize(
                            kernel,
                            g[0] as u32,
                            g[1] as u32,
                            g[2] as u32,
                            sx,
                            sy,
                            sz,
                        )
                    },
                    "zeKernelSuggestGroupSize",
                )?;
                s.map(|v| v.max(1) as usize)
            }
        };
        if (0..3).any(|i| g[i] % l[i] != 0) {
            return Err(Error::invalid(format!(
                "global range {g:?} is not a multiple of the work-group {l:?}"
            )));
        }
        Kernel::set_args(api, kernel, args)?;
        check(
            // SAFETY: our kernel.
            unsafe { api.zeKernelSetGroupSize(kernel, l[0] as u32, l[1] as u32, l[2] as u32) },
            "zeKernelSetGroupSize",
        )?;
        let count = sys::ze_group_count_t {
            groupCountX: (g[0] / l[0]) as u32,
            groupCountY: (g[1] / l[1]) as u32,
            groupCountZ: (g[2] / l[2]) as u32,
        };
        let (n, mut waits) = wait_list(wait);
        check(
            // SAFETY: a live list (the caller's promise), our kernel with every
            // argument set, live events.
            unsafe {
                api.zeCommandListAppendLaunchKernel(
                    list,
                    kernel,
                    &count,
                    signal.raw(),
                    n,
                    if n == 0 {
                        std::ptr::null_mut()
                    } else {
                        waits.as_mut_ptr()
                    },
                )
            },
            "zeCommandListAppendLaunchKernel",
        )
    }
}

impl Drop for Kernel {
    fn drop(&mut self) {
        let Ok(raw) = self.raw.get_mut().map(|r| r.0) else {
            return;
        };
        if let Ok(api) = api() {
            // SAFETY: our kernel, destroyed once.
            let r = unsafe { api.zeKernelDestroy(raw) };
            if let Err(e) = check(r, "zeKernelDestroy") {
                super::warn(&e.to_string());
            }
        }
    }
}
