//! The Level Zero runtime: drivers and devices, USM, command lists, events,
//! modules and kernels (from SPIR-V compiled out of our OpenCL C sources),
//! and the per-engine program cache, as RAII types over driver handles.
//!
//! Layer: `runtime`, below `core`; it uses only `core`'s errors, environment
//! and verbose log, and `runtime::ocl::cache`'s program keys (one key scheme
//! for both GPU runtimes). The loader (`libze_loader.so.1`) is opened on the
//! first Level Zero call through `level_zero_sys::api()`, never before: the
//! OpenCL and CPU paths do not load it. Without it every call here fails with
//! `dnnl_unimplemented` and a verbose reason ([`api`]).
//!
//! Ownership (STYLE.md): Level Zero has no reference counts. Handles the user
//! gives us (driver, device, context, command list, events, USM pointers) are
//! borrowed and never destroyed here; what we create (contexts, immediate
//! lists, event pools, modules, kernels, allocations) is owned by a type
//! whose `Drop` destroys it. Raw handles are plain pointers the driver makes
//! thread-safe (Level Zero objects may be used from any thread, except that
//! one command list or kernel must not be appended to or set up by two
//! threads at once: the owners of those serialise).

// Functions here take Level Zero handles (opaque pointers) by value and pass
// them to the driver, which owns their validity; the user's handles are
// checked first, as far as they can be recognised (`foreign.rs`).
#![allow(clippy::not_unsafe_ptr_arg_deref)]

pub mod cache;
pub mod device;
pub mod event;
pub mod foreign;
pub mod list;
pub mod memory;
pub mod module;
pub mod spirv;

use std::sync::OnceLock;

use level_zero_sys as sys;

use crate::base::{Error, Result};

pub use cache::ProgramCache;
pub use device::{DeviceInfo, all_devices, device_info, devices_of, drivers};
pub use event::{Event, EventSet};
pub use list::CommandList;
pub use memory::{MemKind, UsmAlloc, mem_kind};
pub use module::{Kernel, Module};

/// The loaded Level Zero API, initialised (`zeInit`) once. Unimplemented
/// (with the loader's error) when Level Zero is not installed or has no
/// driver.
pub fn api() -> Result<&'static sys::Api> {
    static INIT: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    let api = sys::api()
        .map_err(|e| Error::unimplemented(format!("Level Zero is not available: {e}")))?;
    let init = INIT.get_or_init(|| {
        // SAFETY: zeInit takes flags by value; 0 = every device type.
        let r = unsafe { api.zeInit(sys::ze_init_flags_t(0)) };
        if r.is_success() {
            Ok(())
        } else {
            Err(format!("zeInit failed: {r}"))
        }
    });
    match init {
        Ok(()) => Ok(api),
        Err(e) => Err(Error::unimplemented(format!(
            "Level Zero is not available: {e}"
        ))),
    }
}

/// Ok for `ZE_RESULT_SUCCESS`; otherwise an error naming `call`: invalid
/// arguments for the results a bad handle or value gives, out of memory for
/// the allocation failures, a runtime error for the rest.
pub fn check(result: sys::ze_result_t, call: &str) -> Result<()> {
    if result.is_success() {
        return Ok(());
    }
    let msg = format!("{call} failed: {result}");
    Err(match result {
        sys::ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY | sys::ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY => {
            Error::OutOfMemory(msg.into())
        }
        sys::ZE_RESULT_ERROR_INVALID_ARGUMENT
        | sys::ZE_RESULT_ERROR_INVALID_NULL_HANDLE
        | sys::ZE_RESULT_ERROR_INVALID_NULL_POINTER
        | sys::ZE_RESULT_ERROR_INVALID_SIZE
        | sys::ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE
        | sys::ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT => Error::invalid(msg),
        sys::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE | sys::ZE_RESULT_ERROR_UNSUPPORTED_VERSION => {
            Error::unimplemented(msg)
        }
        _ => Error::runtime(msg),
    })
}

/// A raw handle that may cross threads (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct Raw<T>(pub T);

// SAFETY: Level Zero handles are thread-safe driver objects; the types that
// append to lists or set kernel arguments serialise those calls themselves.
unsafe impl<T> Send for Raw<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for Raw<T> {}

/// Logs a failure nobody can return (a release in `Drop`) as a warning.
pub(crate) fn warn(msg: &str) {
    use crate::base::verbose;
    if verbose::enabled(verbose::flag::WARN) {
        verbose::emit_line("common,warn,", &format!("ze,{msg}"));
    }
}
