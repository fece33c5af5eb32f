//! The threadpool interop functions of `dnnl_threadpool.h`, as a build
//! without the threadpool CPU runtime has them.
//!
//! Layer: capi. Intel's library defines these functions only when built with
//! `DNNL_CPU_RUNTIME=THREADPOOL`; its other builds (the PyPI `onednn`
//! package, OpenMP and TBB builds) do not export them, so a program calling
//! one fails to link or to load. This library's CPU engine runs on its own
//! threads (`dnnl_config.h` says `DNNL_CPU_RUNTIME` is OpenMP-like, not
//! THREADPOOL), and it exports every function of the official headers, so
//! these exist and answer as the absent functions would: each returns
//! `dnnl_unimplemented`, whatever its arguments, writes nothing through its
//! pointers, and says why under `ONEDNN_VERBOSE=check`. Programs that want
//! a GEMM on the host call `dnnl_sgemm` and friends, which use the library's
//! own threads.

#![allow(unused_variables)]

use ::core::ffi::{c_char, c_int, c_void};

use crate::abi::*;
use crate::capi::boundary;
use crate::core::error::Error;

/// The answer of every function here.
fn not_this_build(function: &'static str) -> dnnl_status_t {
    boundary::guard(function, || {
        Err(Error::unimplemented(format!(
            "{function}: not available: this library is not built with the threadpool CPU \
             runtime (Intel's builds without it do not export this function)"
        )))
    })
}

/// Returns `dnnl_unimplemented`: this is not a threadpool build; `*stream`
/// is not written.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_threadpool_interop_stream_create(
    stream: *mut dnnl_stream_t,
    engine: dnnl_engine_t,
    threadpool: *mut c_void,
) -> dnnl_status_t {
    not_this_build("dnnl_threadpool_interop_stream_create")
}

/// Returns `dnnl_unimplemented`: this is not a threadpool build;
/// `*threadpool` is not written.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_threadpool_interop_stream_get_threadpool(
    astream: dnnl_stream_t,
    threadpool: *mut *mut c_void,
) -> dnnl_status_t {
    not_this_build("dnnl_threadpool_interop_stream_get_threadpool")
}

/// Returns `dnnl_unimplemented`: this is not a threadpool build; nothing
/// changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_threadpool_interop_set_max_concurrency(
    max_concurrency: c_int,
) -> dnnl_status_t {
    not_this_build("dnnl_threadpool_interop_set_max_concurrency")
}

/// Returns `dnnl_unimplemented`: this is not a threadpool build;
/// `*max_concurrency` is not written.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_threadpool_interop_get_max_concurrency(
    max_concurrency: *mut c_int,
) -> dnnl_status_t {
    not_this_build("dnnl_threadpool_interop_get_max_concurrency")
}

/// Returns `dnnl_unimplemented`: this is not a threadpool build; C is not
/// written (`dnnl_sgemm` computes the same on the library's threads).
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
    not_this_build("dnnl_threadpool_interop_sgemm")
}

/// Returns `dnnl_unimplemented`: this is not a threadpool build; C is not
/// written (`dnnl_gemm_u8s8s32` computes the same on the library's threads).
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
    not_this_build("dnnl_threadpool_interop_gemm_u8s8s32")
}

/// Returns `dnnl_unimplemented`: this is not a threadpool build; C is not
/// written (`dnnl_gemm_s8s8s32` computes the same on the library's threads).
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
    not_this_build("dnnl_threadpool_interop_gemm_s8s8s32")
}
