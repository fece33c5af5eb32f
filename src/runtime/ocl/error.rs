//! OpenCL status codes into the library's [`Error`].
//!
//! Layer: `runtime::ocl`. Allocation failures (`CL_OUT_OF_RESOURCES`,
//! `CL_OUT_OF_HOST_MEMORY`, `CL_MEM_OBJECT_ALLOCATION_FAILURE`) become
//! [`Error::OutOfMemory`] (`dnnl_out_of_memory`, as upstream maps them);
//! every other code becomes [`Error::Runtime`] naming the call and the code.
//! Where the failing object came from the user (a `cl_context` given to an
//! interop call), [`user_error`] makes the `CL_INVALID_*` codes
//! [`Error::InvalidArguments`] instead. An allocation call's
//! `CL_INVALID_BUFFER_SIZE` (a size above the driver's limit,
//! `CL_DEVICE_MAX_MEM_ALLOC_SIZE` or its own) is out of memory too
//! ([`alloc_error`]): the size itself came from a valid memory descriptor, and
//! the CPU engine answers `dnnl_out_of_memory` for a size it cannot allocate.

use super::sys::cl_int;
use crate::base::verbose;
use crate::base::{Error, Result};

/// A raw OpenCL status code, for `?` through `From<ClStatus> for Error`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClStatus(pub cl_int);

impl From<ClStatus> for Error {
    fn from(status: ClStatus) -> Self {
        to_error(status.0, "OpenCL")
    }
}

/// The `CL_*` name of a status code (`"CL_UNKNOWN_ERROR"` when not a known one).
pub fn error_name(code: cl_int) -> &'static str {
    match code {
        0 => "CL_SUCCESS",
        -1 => "CL_DEVICE_NOT_FOUND",
        -2 => "CL_DEVICE_NOT_AVAILABLE",
        -3 => "CL_COMPILER_NOT_AVAILABLE",
        -4 => "CL_MEM_OBJECT_ALLOCATION_FAILURE",
        -5 => "CL_OUT_OF_RESOURCES",
        -6 => "CL_OUT_OF_HOST_MEMORY",
        -7 => "CL_PROFILING_INFO_NOT_AVAILABLE",
        -8 => "CL_MEM_COPY_OVERLAP",
        -9 => "CL_IMAGE_FORMAT_MISMATCH",
        -10 => "CL_IMAGE_FORMAT_NOT_SUPPORTED",
        -11 => "CL_BUILD_PROGRAM_FAILURE",
        -12 => "CL_MAP_FAILURE",
        -13 => "CL_MISALIGNED_SUB_BUFFER_OFFSET",
        -14 => "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST",
        -15 => "CL_COMPILE_PROGRAM_FAILURE",
        -16 => "CL_LINKER_NOT_AVAILABLE",
        -17 => "CL_LINK_PROGRAM_FAILURE",
        -18 => "CL_DEVICE_PARTITION_FAILED",
        -19 => "CL_KERNEL_ARG_INFO_NOT_AVAILABLE",
        -30 => "CL_INVALID_VALUE",
        -31 => "CL_INVALID_DEVICE_TYPE",
        -32 => "CL_INVALID_PLATFORM",
        -33 => "CL_INVALID_DEVICE",
        -34 => "CL_INVALID_CONTEXT",
        -35 => "CL_INVALID_QUEUE_PROPERTIES",
        -36 => "CL_INVALID_COMMAND_QUEUE",
        -37 => "CL_INVALID_HOST_PTR",
        -38 => "CL_INVALID_MEM_OBJECT",
        -39 => "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR",
        -40 => "CL_INVALID_IMAGE_SIZE",
        -41 => "CL_INVALID_SAMPLER",
        -42 => "CL_INVALID_BINARY",
        -43 => "CL_INVALID_BUILD_OPTIONS",
        -44 => "CL_INVALID_PROGRAM",
        -45 => "CL_INVALID_PROGRAM_EXECUTABLE",
        -46 => "CL_INVALID_KERNEL_NAME",
        -47 => "CL_INVALID_KERNEL_DEFINITION",
        -48 => "CL_INVALID_KERNEL",
        -49 => "CL_INVALID_ARG_INDEX",
        -50 => "CL_INVALID_ARG_VALUE",
        -51 => "CL_INVALID_ARG_SIZE",
        -52 => "CL_INVALID_KERNEL_ARGS",
        -53 => "CL_INVALID_WORK_DIMENSION",
        -54 => "CL_INVALID_WORK_GROUP_SIZE",
        -55 => "CL_INVALID_WORK_ITEM_SIZE",
        -56 => "CL_INVALID_GLOBAL_OFFSET",
        -57 => "CL_INVALID_EVENT_WAIT_LIST",
        -58 => "CL_INVALID_EVENT",
        -59 => "CL_INVALID_OPERATION",
        -60 => "CL_INVALID_GL_OBJECT",
        -61 => "CL_INVALID_BUFFER_SIZE",
        -62 => "CL_INVALID_MIP_LEVEL",
        -63 => "CL_INVALID_GLOBAL_WORK_SIZE",
        -64 => "CL_INVALID_PROPERTY",
        -65 => "CL_INVALID_IMAGE_DESCRIPTOR",
        -66 => "CL_INVALID_COMPILER_OPTIONS",
        -67 => "CL_INVALID_LINKER_OPTIONS",
        -68 => "CL_INVALID_DEVICE_PARTITION_COUNT",
        -69 => "CL_INVALID_PIPE_SIZE",
        -70 => "CL_INVALID_DEVICE_QUEUE",
        -71 => "CL_INVALID_SPEC_ID",
        -72 => "CL_MAX_SIZE_RESTRICTION_EXCEEDED",
        -1001 => "CL_PLATFORM_NOT_FOUND_KHR",
        _ => "CL_UNKNOWN_ERROR",
    }
}

/// Whether `code` reports an allocation failure.
pub fn is_out_of_memory(code: cl_int) -> bool {
    (-6..=-4).contains(&code)
}

/// Whether `code` is one of the `CL_INVALID_*` codes (an object or value the
/// call did not accept).
pub fn is_invalid(code: cl_int) -> bool {
    (-72..=-30).contains(&code) || code == -1001
}

/// The error for `call` having returned `code`: out of memory for allocation
/// failures, a runtime error naming the call and the code otherwise.
pub fn to_error(code: cl_int, call: &str) -> Error {
    let message = format!("{call} failed: {} ({code})", error_name(code));
    if is_out_of_memory(code) {
        Error::OutOfMemory(message.into())
    } else {
        Error::Runtime(message.into())
    }
}

/// `CL_INVALID_BUFFER_SIZE`: the size is zero or beyond what the driver allocates.
pub const CL_INVALID_BUFFER_SIZE: cl_int = -61;

/// The error of an allocation call (`clCreateBuffer`, `clMemAlloc*INTEL`) that
/// returned `code` and no allocation: out of memory for the allocation
/// failures and for `CL_INVALID_BUFFER_SIZE` (callers never ask for zero
/// bytes), and for a driver that reports success but gives nothing; as
/// [`to_error`] otherwise.
pub fn alloc_error(code: cl_int, call: &str) -> Error {
    match code {
        super::sys::CL_SUCCESS => {
            Error::OutOfMemory(format!("{call} returned no allocation and CL_SUCCESS").into())
        }
        CL_INVALID_BUFFER_SIZE => {
            Error::OutOfMemory(format!("{call} failed: {} ({code})", error_name(code)).into())
        }
        _ => to_error(code, call),
    }
}

/// Like [`to_error`], but a `CL_INVALID_*` code becomes an invalid-arguments
/// error: for calls whose failing object is one the user handed us.
pub fn user_error(code: cl_int, call: &str) -> Error {
    if is_invalid(code) {
        Error::invalid(format!("{call} failed: {} ({code})", error_name(code)))
    } else {
        to_error(code, call)
    }
}

/// `Ok(())` for `CL_SUCCESS`, else [`to_error`].
pub fn check(code: cl_int, call: &str) -> Result<()> {
    if code == super::sys::CL_SUCCESS {
        Ok(())
    } else {
        Err(to_error(code, call))
    }
}

/// Reports a failed retain or release from `Clone` or `Drop` (which must not panic or fail) on
/// the verbose log's `error` level.
pub(crate) fn log_failure(result: Result<cl_int>, call: &str) {
    let problem = match result {
        Ok(super::sys::CL_SUCCESS) => return,
        Ok(code) => format!("{call} failed: {} ({code})", error_name(code)),
        Err(e) => format!("{call} not called: {e}"),
    };
    if verbose::enabled(verbose::flag::ERROR) {
        verbose::emit_line("common,error,", &format!("ocl,{problem}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_map_to_their_kind_of_error() {
        assert!(matches!(to_error(-4, "x"), Error::OutOfMemory(_)));
        assert!(matches!(to_error(-5, "x"), Error::OutOfMemory(_)));
        assert!(matches!(to_error(-6, "x"), Error::OutOfMemory(_)));
        assert!(matches!(to_error(-34, "x"), Error::Runtime(_)));
        assert!(matches!(user_error(-34, "x"), Error::InvalidArguments(_)));
        assert!(matches!(user_error(-5, "x"), Error::OutOfMemory(_)));
        assert!(matches!(user_error(-11, "x"), Error::Runtime(_)));
        let message = to_error(-34, "clCreateCommandQueue").to_string();
        assert!(message.contains("CL_INVALID_CONTEXT"), "{message}");
        assert!(message.contains("clCreateCommandQueue"), "{message}");
        assert_eq!(error_name(-9999), "CL_UNKNOWN_ERROR");
        assert!(check(0, "x").is_ok());
        let e: Error = ClStatus(-38).into();
        assert!(e.to_string().contains("CL_INVALID_MEM_OBJECT"));
        // Allocation calls: a size the driver refuses is out of memory too.
        for code in [-4, -5, -6, CL_INVALID_BUFFER_SIZE, 0] {
            assert!(
                matches!(alloc_error(code, "x"), Error::OutOfMemory(_)),
                "{code}"
            );
        }
        assert!(matches!(alloc_error(-34, "x"), Error::Runtime(_)));
        assert!(matches!(
            to_error(CL_INVALID_BUFFER_SIZE, "x"),
            Error::Runtime(_)
        ));
    }
}
