//! Entry points of `dnnl.h` that are not implemented yet.
//!
//! Each returns `dnnl_unimplemented` (or a neutral value where the function
//! returns no status), writes nothing through its pointers, and says so under
//! ONEDNN_VERBOSE. Implementing a function means moving it out of this file.

#![allow(unused_variables)]

#[allow(unused_imports)]
use ::core::ffi::{c_char, c_int, c_uint, c_void};

#[allow(unused_imports)]
use crate::abi::*;
use crate::capi::boundary;

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_set_jit_dump(enable: c_int) -> dnnl_status_t {
    boundary::unimplemented("dnnl_set_jit_dump")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_set_jit_profiling_flags(flags: c_uint) -> dnnl_status_t {
    boundary::unimplemented("dnnl_set_jit_profiling_flags")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_set_jit_profiling_jitdumpdir(dir: *const c_char) -> dnnl_status_t {
    boundary::unimplemented("dnnl_set_jit_profiling_jitdumpdir")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_set_max_cpu_isa(isa: dnnl_cpu_isa_t) -> dnnl_status_t {
    boundary::unimplemented("dnnl_set_max_cpu_isa")
}

/// Not implemented yet: returns 0 (the neutral value of its type).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_get_effective_cpu_isa() -> dnnl_cpu_isa_t {
    boundary::unimplemented_value("dnnl_get_effective_cpu_isa")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_set_cpu_isa_hints(isa_hints: dnnl_cpu_isa_hints_t) -> dnnl_status_t {
    boundary::unimplemented("dnnl_set_cpu_isa_hints")
}

/// Not implemented yet: returns 0 (the neutral value of its type).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_get_cpu_isa_hints() -> dnnl_cpu_isa_hints_t {
    boundary::unimplemented_value("dnnl_get_cpu_isa_hints")
}
