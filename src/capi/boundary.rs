//! The C boundary: every exported function runs inside [`guard`].
//!
//! Layer: capi. Panics never cross into C (they become `dnnl_runtime_error`),
//! an [`Error`] becomes a status in one place ([`finish`]), and a rejected call
//! is logged under `ONEDNN_VERBOSE` with the function's name and the reason.
//! Helpers here check the pointers a C caller gives us before anything else
//! touches them.

use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::abi::*;
use crate::core::error::{Error, Result};
use crate::core::verbose;

/// The verbose component a function's log lines belong to (what `filter=` matches).
fn component(function: &str) -> &'static str {
    if function.starts_with("dnnl_graph_") {
        "graph"
    } else if function.starts_with("dnnl_brgemm")
        || function.starts_with("dnnl_transform")
        || function.starts_with("dnnl_ukernel")
    {
        "ukernel"
    } else if matches!(
        function,
        "dnnl_sgemm" | "dnnl_gemm_u8s8s32" | "dnnl_gemm_s8s8s32"
    ) {
        "gemm_api"
    } else if function.starts_with("dnnl_primitive")
        || function.ends_with("_primitive_desc_create")
        || function.contains("post_ops")
    {
        "primitive"
    } else {
        "common"
    }
}

fn finish(function: &'static str, result: std::thread::Result<Result<()>>) -> dnnl_status_t {
    let error = match result {
        Ok(Ok(())) => return dnnl_success,
        Ok(Err(error)) => error,
        Err(panic) => Error::runtime(format!(
            "internal error (panic): {}",
            panic_message(&*panic)
        )),
    };
    verbose::log_failed_call(component(function), function, &error);
    error.status()
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// Runs the body of an exported function that returns a status.
pub fn guard(function: &'static str, body: impl FnOnce() -> Result<()>) -> dnnl_status_t {
    finish(function, catch_unwind(AssertUnwindSafe(body)))
}

/// Runs the body of an exported function that returns a value instead of a
/// status; a panic returns `fallback` (and is logged).
pub fn guard_value<T>(function: &'static str, fallback: T, body: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(value) => value,
        Err(panic) => {
            finish(function, Err(panic));
            fallback
        }
    }
}

/// The body of every entry point that is not implemented yet.
pub fn unimplemented(function: &'static str) -> dnnl_status_t {
    guard(function, || {
        Err(Error::unimplemented(format!(
            "{function} is not implemented yet"
        )))
    })
}

/// As [`unimplemented`], for functions that return a value: logs, and returns
/// the neutral value (0, NULL, the `undef`/default enumerator).
pub fn unimplemented_value<T: Default>(function: &'static str) -> T {
    finish(
        function,
        Ok(Err(Error::unimplemented(format!(
            "{function} is not implemented yet"
        )))),
    );
    T::default()
}

/// A checked output pointer: written only once the call has succeeded.
pub struct Out<T>(*mut T);

impl<T> Out<T> {
    /// Writes the output.
    pub fn write(self, value: T) {
        // SAFETY: `out` checked that the pointer is non-NULL and aligned; the C
        // caller promises it points to writable storage for a `T`.
        unsafe { self.0.write(value) }
    }
}

/// Checks an output pointer: NULL or misaligned is an invalid argument.
pub fn out<T>(ptr: *mut T, what: &'static str) -> Result<Out<T>> {
    if ptr.is_null() {
        return Err(Error::invalid(format!("{what} is NULL")));
    }
    if !ptr.is_aligned() {
        return Err(Error::invalid(format!("{what} is misaligned")));
    }
    Ok(Out(ptr))
}

/// Decodes a data handle: `DNNL_MEMORY_ALLOCATE`, `DNNL_MEMORY_NONE` (NULL) or
/// the caller's pointer.
pub fn data_handle(handle: *mut ::core::ffi::c_void) -> crate::core::memory::DataHandle {
    use crate::core::memory::DataHandle;
    match handle.addr() {
        0 => DataHandle::None,
        usize::MAX => DataHandle::Allocate,
        addr => DataHandle::User(addr),
    }
}

/// Checks a handle index given as a C `int`.
pub fn index(index: ::core::ffi::c_int) -> Result<usize> {
    usize::try_from(index).map_err(|_| Error::invalid(format!("handle index {index} is negative")))
}

/// Turns `Option<T>` into a [`Result`] with an invalid-argument message.
pub fn valid<T>(value: Option<T>, what: impl FnOnce() -> String) -> Result<T> {
    value.ok_or_else(|| Error::invalid(what()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_become_runtime_errors() {
        let status = guard("test_fn", || panic!("boom"));
        assert_eq!(status, dnnl_runtime_error);
        let payload = catch_unwind(|| panic!("boom {}", 1)).unwrap_err();
        assert_eq!(panic_message(&*payload), "boom 1");
        assert_eq!(guard_value("test_fn", 7, || -> i32 { panic!("boom") }), 7);
    }

    #[test]
    fn errors_map_once() {
        assert_eq!(guard("test_fn", || Ok(())), dnnl_success);
        assert_eq!(
            guard("test_fn", || Err(Error::invalid("x"))),
            dnnl_invalid_arguments
        );
        assert_eq!(unimplemented("test_fn"), dnnl_unimplemented);
        assert_eq!(unimplemented_value::<usize>("test_fn"), 0);
    }

    #[test]
    fn output_pointers_are_checked() {
        assert!(out::<u64>(::core::ptr::null_mut(), "x").is_err());
        let misaligned = ::core::ptr::without_provenance_mut::<u64>(0x1001);
        assert!(out(misaligned, "x").is_err());
        let mut v = 0u64;
        out(&mut v, "x").unwrap().write(5);
        assert_eq!(v, 5);
    }

    #[test]
    fn components_follow_function_families() {
        assert_eq!(component("dnnl_graph_add_op"), "graph");
        assert_eq!(component("dnnl_brgemm_create"), "ukernel");
        assert_eq!(component("dnnl_sgemm"), "gemm_api");
        assert_eq!(component("dnnl_matmul_primitive_desc_create"), "primitive");
        assert_eq!(component("dnnl_engine_create"), "common");
    }
}
