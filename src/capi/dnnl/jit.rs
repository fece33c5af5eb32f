//! The JIT dump and profiling switches of `dnnl.h`.
//!
//! This library generates no machine code at run time (its CPU kernels are
//! compiled Rust, its GPU kernels OpenCL C), so there is nothing to dump or to
//! announce to a profiler. The switches still answer as upstream's x64 build
//! does on Linux, so programs that set them at start-up run unchanged: every
//! value is taken except profiling flags outside the four upstream knows.

use ::core::ffi::{c_char, c_int, c_uint};

use crate::abi::*;
use crate::capi::boundary;
use crate::core::error::Error;

/// The profiling flags upstream's x64 Linux build takes; any other bit is an
/// invalid argument.
const KNOWN_PROFILING_FLAGS: c_uint = DNNL_JIT_PROFILE_VTUNE
    | DNNL_JIT_PROFILE_LINUX_PERFMAP
    | DNNL_JIT_PROFILE_LINUX_JITDUMP
    | DNNL_JIT_PROFILE_LINUX_JITDUMP_USE_TSC;

/// Takes any value and succeeds: there is no generated code to dump.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_set_jit_dump(enable: c_int) -> dnnl_status_t {
    let _ = enable;
    boundary::guard("dnnl_set_jit_dump", || Ok(()))
}

/// Succeeds for any combination of `DNNL_JIT_PROFILE_*` flags (nothing is
/// registered with a profiler: no code is generated); an unknown bit is
/// `dnnl_invalid_arguments`, as upstream.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_set_jit_profiling_flags(flags: c_uint) -> dnnl_status_t {
    boundary::guard("dnnl_set_jit_profiling_flags", || {
        let unknown = flags & !KNOWN_PROFILING_FLAGS;
        if unknown != 0 {
            return Err(Error::invalid(format!(
                "JIT profiling flags {flags:#x} have unknown bits {unknown:#x}"
            )));
        }
        Ok(())
    })
}

/// Takes any directory, NULL included, and succeeds, as upstream's Linux
/// build does: no jitdump file is ever written, so the directory is not read.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_set_jit_profiling_jitdumpdir(dir: *const c_char) -> dnnl_status_t {
    let _ = dir;
    boundary::guard("dnnl_set_jit_profiling_jitdumpdir", || Ok(()))
}
