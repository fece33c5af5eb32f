//! Entry points of `dnnl_threadpool.h` that are not implemented yet.
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
pub unsafe extern "C" fn dnnl_threadpool_interop_stream_create(
    stream: *mut dnnl_stream_t,
    engine: dnnl_engine_t,
    threadpool: *mut c_void,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_threadpool_interop_stream_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_threadpool_interop_stream_get_threadpool(
    astream: dnnl_stream_t,
    threadpool: *mut *mut c_void,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_threadpool_interop_stream_get_threadpool")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_threadpool_interop_set_max_concurrency(
    max_concurrency: c_int,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_threadpool_interop_set_max_concurrency")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_threadpool_interop_get_max_concurrency(
    max_concurrency: *mut c_int,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_threadpool_interop_get_max_concurrency")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_threadpool_interop_sgemm(
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
    threadpool: *mut c_void,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_threadpool_interop_sgemm")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_threadpool_interop_gemm_u8s8s32(
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
    threadpool: *mut c_void,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_threadpool_interop_gemm_u8s8s32")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_threadpool_interop_gemm_s8s8s32(
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
    threadpool: *mut c_void,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_threadpool_interop_gemm_s8s8s32")
}
