//! The `clGet*Info` pattern, once: ask for the size, then for the bytes.
//!
//! Layer: `runtime::ocl`. Each object module wraps its own `clGetXInfo` in a
//! closure `|size, value, size_ret| code` and calls these helpers, which own
//! the buffers and check the sizes the driver reports, so that nothing is ever
//! read that the driver did not write.

use std::ffi::c_void;
use std::mem::size_of;

use super::error::to_error;
use super::sys::*;
use crate::base::Result;

/// Values a `clGet*Info` query can return by value: plain integers and
/// handles, for which all-zero bytes are a valid value.
///
/// # Safety
/// Implementors must be `Copy` types for which every bit pattern of their
/// size is a valid value (integers, raw pointers).
pub unsafe trait InfoScalar: Copy {}

// SAFETY: integers: every bit pattern is valid.
unsafe impl InfoScalar for u32 {}
// SAFETY: as above.
unsafe impl InfoScalar for i32 {}
// SAFETY: as above.
unsafe impl InfoScalar for u64 {}
// SAFETY: as above.
unsafe impl InfoScalar for usize {}
// SAFETY: raw pointers (opaque handles): every bit pattern is a valid pointer value.
unsafe impl<T> InfoScalar for *mut T {}

/// The raw query: `(param_value_size, param_value, param_value_size_ret) -> code`.
pub type Query<'a> = &'a dyn Fn(usize, *mut c_void, *mut usize) -> cl_int;

/// The bytes a query returns.
pub fn bytes(query: Query, call: &str) -> Result<Vec<u8>> {
    let mut size = 0usize;
    let code = query(0, std::ptr::null_mut(), &mut size);
    if code != CL_SUCCESS {
        return Err(to_error(code, call));
    }
    let mut value = vec![0u8; size];
    if size == 0 {
        return Ok(value);
    }
    let mut written = 0usize;
    let code = query(size, value.as_mut_ptr().cast(), &mut written);
    if code != CL_SUCCESS {
        return Err(to_error(code, call));
    }
    value.truncate(written.min(size));
    Ok(value)
}

/// A string a query returns, without its terminating NUL (and lossy on
/// invalid UTF-8, which drivers do not produce).
pub fn string(query: Query, call: &str) -> Result<String> {
    let mut value = bytes(query, call)?;
    if let Some(end) = value.iter().position(|&b| b == 0) {
        value.truncate(end);
    }
    Ok(String::from_utf8_lossy(&value).into_owned())
}

/// A single value a query returns.
pub fn scalar<T: InfoScalar>(query: Query, call: &str) -> Result<T> {
    let mut value = std::mem::MaybeUninit::<T>::zeroed();
    let mut written = 0usize;
    let code = query(size_of::<T>(), value.as_mut_ptr().cast(), &mut written);
    if code != CL_SUCCESS {
        return Err(to_error(code, call));
    }
    // SAFETY: the value was zero-initialised, which is a valid `T`
    // (`InfoScalar`), and the driver wrote at most `size_of::<T>()` bytes of it.
    Ok(unsafe { value.assume_init() })
}

/// An array of values a query returns.
pub fn array<T: InfoScalar>(query: Query, call: &str) -> Result<Vec<T>> {
    let raw = bytes(query, call)?;
    Ok(raw
        .chunks_exact(size_of::<T>())
        // SAFETY: each chunk holds `size_of::<T>()` bytes, and every bit
        // pattern is a valid `T` (`InfoScalar`); the read is unaligned-safe.
        .map(|chunk| unsafe { std::ptr::read_unaligned(chunk.as_ptr().cast::<T>()) })
        .collect())
}
