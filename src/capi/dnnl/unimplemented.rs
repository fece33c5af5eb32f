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

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_sgemm(
    transa: c_char,
    transb: c_char,
    M: dnnl_dim_t,
    N: dnnl_dim_t,
    K: dnnl_dim_t,
    alpha: f32,
    A: *const f32,
    lda: dnnl_dim_t,
    B: *const f32,
    ldb: dnnl_dim_t,
    beta: f32,
    C: *mut f32,
    ldc: dnnl_dim_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_sgemm")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_gemm_u8s8s32(
    transa: c_char,
    transb: c_char,
    offsetc: c_char,
    M: dnnl_dim_t,
    N: dnnl_dim_t,
    K: dnnl_dim_t,
    alpha: f32,
    A: *const u8,
    lda: dnnl_dim_t,
    ao: u8,
    B: *const i8,
    ldb: dnnl_dim_t,
    bo: i8,
    beta: f32,
    C: *mut i32,
    ldc: dnnl_dim_t,
    co: *const i32,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_gemm_u8s8s32")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_gemm_s8s8s32(
    transa: c_char,
    transb: c_char,
    offsetc: c_char,
    M: dnnl_dim_t,
    N: dnnl_dim_t,
    K: dnnl_dim_t,
    alpha: f32,
    A: *const i8,
    lda: dnnl_dim_t,
    ao: i8,
    B: *const i8,
    ldb: dnnl_dim_t,
    bo: i8,
    beta: f32,
    C: *mut i32,
    ldc: dnnl_dim_t,
    co: *const i32,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_gemm_s8s8s32")
}
