//! The BLAS-style functions of `dnnl.h`: `dnnl_sgemm`, `dnnl_gemm_u8s8s32`
//! and `dnnl_gemm_s8s8s32`.
//!
//! Layer: capi. Each checks its arguments (`prims::common::gemm::blas`
//! checks the shape ones as Intel's library does), turns the caller's
//! pointers into slices of exactly what the matrices span, and computes on
//! the CPU GEMM engine. A or B overlapping C is read into a copy first, so
//! in-place calls read the inputs as they were. Beyond upstream: NULL `co`,
//! and pointers misaligned for their type, are `dnnl_invalid_arguments`
//! (upstream crashes or reads them as they are); transposition flag 'P'
//! (upstream's internal packed format, accepted by its `dnnl_sgemm`) is
//! `dnnl_invalid_arguments` too.

use ::core::ffi::c_char;
use ::core::ops::Range;

use crate::abi::*;
use crate::capi::boundary;
use crate::core::error::{Error, Result};
use crate::prims::common::dt::Elem;
use crate::prims::common::gemm::blas::{self, COffset, Int8, IntArgs, Problem};

/// A caller's matrix: checked non-NULL and aligned.
fn matrix<T>(ptr: *const T, what: &str) -> Result<*const T> {
    if ptr.is_null() {
        return Err(Error::invalid(format!("{what} is NULL")));
    }
    if !ptr.is_aligned() {
        return Err(Error::invalid(format!(
            "{what} is misaligned for its element type"
        )));
    }
    Ok(ptr)
}

/// The bytes `len` elements from `ptr` cover.
fn bytes<T>(ptr: *const T, len: usize) -> Range<usize> {
    ptr.addr()..ptr.addr() + len * size_of::<T>()
}

fn overlap(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

/// The `len` elements from `ptr` (checked by [`matrix`]), copied when they
/// overlap `c` (which is written while they are read).
///
/// # Safety
/// `ptr` points to `len` readable elements, as the caller of the API
/// function promises.
unsafe fn input<'a, T: Copy>(
    ptr: *const T,
    len: usize,
    c: &Range<usize>,
    copy: &'a mut Vec<T>,
) -> &'a [T] {
    // SAFETY: the caller's contract; nothing writes these elements while
    // the slice lives unless they overlap C, and then the slice is dropped
    // once copied.
    let user = unsafe { std::slice::from_raw_parts(ptr, len) };
    if overlap(&bytes(ptr, len), c) {
        *copy = user.to_vec();
        copy
    } else {
        user
    }
}

/// Performs `C = alpha·op(A)·op(B) + beta·C` in single precision, the
/// matrices row-major (`op(A)` M x K, `op(B)` K x N, C M x N; `transa` and
/// `transb` 'N'/'n' or 'T'/'t'). As Intel's library: M, N or K of 0 leaves C
/// as it is; `alpha` 0 reads neither A nor B; `beta` 0 reads no C.
/// Multi-threaded on the host's cores.
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
    boundary::guard("dnnl_sgemm", || {
        let a = matrix(A, "A")?;
        let b = matrix(B, "B")?;
        let c = matrix(C.cast_const(), "C")?;
        let p = Problem::new(transa as u8, transb as u8, M, N, K, lda, ldb, ldc)?;
        if p.is_empty() {
            return Ok(());
        }
        let (a_len, b_len, c_len) = (p.a_len()?, p.b_len()?, p.c_len()?);
        let c_bytes = bytes(c, c_len);
        let (mut a_copy, mut b_copy) = (Vec::new(), Vec::new());
        // SAFETY: A and B hold the elements their shapes span (the API's
        // contract, as upstream's).
        let (a, b) = unsafe {
            (
                input(a, a_len, &c_bytes, &mut a_copy),
                input(b, b_len, &c_bytes, &mut b_copy),
            )
        };
        // SAFETY: C holds `c_len` writable elements (the API's contract);
        // A and B slices over the same bytes were copied above.
        let c = unsafe { std::slice::from_raw_parts_mut(C, c_len) };
        blas::sgemm(&p, alpha, a, b, beta, c);
        Ok(())
    })
}

/// The integer GEMMs' shared body: `a` is u8 or s8 as `a_elem` says.
#[allow(clippy::too_many_arguments)]
fn gemm_x8(
    transa: c_char,
    transb: c_char,
    offsetc: c_char,
    (m, n, k): (dnnl_dim_t, dnnl_dim_t, dnnl_dim_t),
    alpha: f32,
    (a, lda, ao, a_elem): (*const u8, dnnl_dim_t, i32, Elem),
    (b, ldb, bo): (*const i8, dnnl_dim_t, i32),
    beta: f32,
    (c, ldc): (*mut i32, dnnl_dim_t),
    co: *const i32,
) -> Result<()> {
    let a = matrix(a, "A")?;
    let b = matrix(b.cast::<u8>(), "B")?;
    let c_ptr = matrix(c.cast_const(), "C")?;
    let p = Problem::new(transa as u8, transb as u8, m, n, k, lda, ldb, ldc)?;
    let offsetc = COffset::from_char(offsetc as u8)?;
    if p.is_empty() {
        return Ok(());
    }
    let co = matrix(co, "co")?;
    let (a_len, b_len, c_len) = (p.a_len()?, p.b_len()?, p.c_len()?);
    let c_bytes = bytes(c_ptr, c_len);
    // SAFETY: `co` holds the values `offsetc` names (the API's contract);
    // copied, as it may overlap C.
    let co: Vec<i32> = unsafe { std::slice::from_raw_parts(co, offsetc.len(p.m, p.n)) }.to_vec();
    let (mut a_copy, mut b_copy) = (Vec::new(), Vec::new());
    // SAFETY: A and B hold the elements their shapes span (the API's
    // contract, as upstream's).
    let (a, b) = unsafe {
        (
            input(a, a_len, &c_bytes, &mut a_copy),
            input(b, b_len, &c_bytes, &mut b_copy),
        )
    };
    // SAFETY: C holds `c_len` writable elements (the API's contract); A and
    // B slices over the same bytes were copied above.
    let c = unsafe { std::slice::from_raw_parts_mut(c, c_len) };
    let args = IntArgs {
        alpha,
        a: Int8 {
            bytes: a,
            elem: a_elem,
        },
        ao,
        b: Int8 {
            bytes: b,
            elem: Elem::S8,
        },
        bo,
        beta,
        offsetc,
        co: &co,
    };
    blas::gemm_x8(&p, &args, c);
    Ok(())
}

/// Performs `C = alpha·(op(A) - ao)·(op(B) - bo) + beta·C + co` with u8 A,
/// s8 B and s32 C, row-major. `offsetc` 'F' adds `co[0]` everywhere, 'C'
/// `co[i]` to row i (M values), 'R' `co[j]` to column j (N values); either
/// case. As Intel's library: with `alpha` 1 and `beta` 0 or 1 the result
/// wraps in s32; otherwise `alpha·acc + beta·C` is rounded half away from
/// zero and saturated, then `co` added. M, N or K of 0 leaves C as it is.
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
    boundary::guard("dnnl_gemm_u8s8s32", || {
        gemm_x8(
            transa,
            transb,
            offsetc,
            (M, N, K),
            alpha,
            (A, lda, ao as i32, Elem::U8),
            (B, ldb, bo as i32),
            beta,
            (C, ldc),
            co,
        )
    })
}

/// As `dnnl_gemm_u8s8s32`, with s8 A and an s8 offset `ao`.
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
    boundary::guard("dnnl_gemm_s8s8s32", || {
        gemm_x8(
            transa,
            transb,
            offsetc,
            (M, N, K),
            alpha,
            (A.cast::<u8>(), lda, ao as i32, Elem::S8),
            (B, ldb, bo as i32),
            beta,
            (C, ldc),
            co,
        )
    })
}
