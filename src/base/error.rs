//! The library's error type and its one mapping onto `dnnl_status_t`.
//!
//! Layer: core. Every fallible function below `capi` returns [`Result`]; the
//! boundary turns an [`Error`] into a status exactly once ([`Error::status`]).

use std::borrow::Cow;
use std::fmt;

use crate::abi::*;

/// Why a call failed. The message says what was wrong, for the verbose log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// An allocation failed.
    OutOfMemory(Cow<'static, str>),
    /// The caller broke an argument rule (a NULL, a bad value, a dead handle).
    InvalidArguments(Cow<'static, str>),
    /// The request is valid but this library cannot do it (yet).
    Unimplemented(Cow<'static, str>),
    /// No further implementation exists (primitive descriptor iteration).
    LastImplReached,
    /// A device, driver or internal failure.
    Runtime(Cow<'static, str>),
    /// The operation is not needed (e.g. an empty scratchpad).
    NotRequired,
    /// A graph is ill-formed.
    InvalidGraph(Cow<'static, str>),
    /// A graph op is ill-formed.
    InvalidGraphOp(Cow<'static, str>),
    /// A shape cannot be used.
    InvalidShape(Cow<'static, str>),
    /// A data type cannot be used.
    InvalidDataType(Cow<'static, str>),
}

/// The result of every fallible operation of the library.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An invalid-arguments error with a message.
    pub fn invalid(msg: impl Into<Cow<'static, str>>) -> Self {
        Error::InvalidArguments(msg.into())
    }

    /// An unimplemented error naming what is missing.
    pub fn unimplemented(what: impl Into<Cow<'static, str>>) -> Self {
        Error::Unimplemented(what.into())
    }

    /// A runtime error with a message.
    pub fn runtime(msg: impl Into<Cow<'static, str>>) -> Self {
        Error::Runtime(msg.into())
    }

    /// The C status this error is reported as.
    pub fn status(&self) -> dnnl_status_t {
        match self {
            Error::OutOfMemory(_) => dnnl_out_of_memory,
            Error::InvalidArguments(_) => dnnl_invalid_arguments,
            Error::Unimplemented(_) => dnnl_unimplemented,
            Error::LastImplReached => dnnl_last_impl_reached,
            Error::Runtime(_) => dnnl_runtime_error,
            Error::NotRequired => dnnl_not_required,
            Error::InvalidGraph(_) => dnnl_invalid_graph,
            Error::InvalidGraphOp(_) => dnnl_invalid_graph_op,
            Error::InvalidShape(_) => dnnl_invalid_shape,
            Error::InvalidDataType(_) => dnnl_invalid_data_type,
        }
    }

    /// Whether this error is a failure of the library or the device (logged
    /// under the verbose `error` level) rather than a rejected request (`check`).
    pub fn is_failure(&self) -> bool {
        matches!(self, Error::OutOfMemory(_) | Error::Runtime(_))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::OutOfMemory(m)
            | Error::InvalidArguments(m)
            | Error::Unimplemented(m)
            | Error::Runtime(m)
            | Error::InvalidGraph(m)
            | Error::InvalidGraphOp(m)
            | Error::InvalidShape(m)
            | Error::InvalidDataType(m) => f.write_str(m),
            Error::LastImplReached => f.write_str("no further implementation"),
            Error::NotRequired => f.write_str("not required"),
        }
    }
}

impl<T> From<std::sync::PoisonError<T>> for Error {
    fn from(_: std::sync::PoisonError<T>) -> Self {
        Error::runtime("a lock was poisoned by an earlier panic")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_maps_to_its_status() {
        assert_eq!(Error::invalid("x").status(), dnnl_invalid_arguments);
        assert_eq!(Error::unimplemented("x").status(), dnnl_unimplemented);
        assert_eq!(Error::runtime("x").status(), dnnl_runtime_error);
        assert_eq!(Error::OutOfMemory("x".into()).status(), dnnl_out_of_memory);
        assert_eq!(Error::LastImplReached.status(), dnnl_last_impl_reached);
        assert_eq!(Error::NotRequired.status(), dnnl_not_required);
        assert_eq!(Error::InvalidGraph("x".into()).status(), dnnl_invalid_graph);
        assert_eq!(
            Error::InvalidGraphOp("x".into()).status(),
            dnnl_invalid_graph_op
        );
        assert_eq!(Error::InvalidShape("x".into()).status(), dnnl_invalid_shape);
        assert_eq!(
            Error::InvalidDataType("x".into()).status(),
            dnnl_invalid_data_type
        );
    }
}
