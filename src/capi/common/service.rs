//! Service functions: version, verbose logging, default floating-point math mode.

use ::core::ffi::c_int;

use crate::abi::*;
use crate::capi::boundary;
use crate::core::error::Error;
use crate::core::{settings, verbose, version};

/// Sets the verbose level: 0 logs nothing, 1 errors and executions, 2 also
/// creations. Replaces what `ONEDNN_VERBOSE` said.
/// Returns `dnnl_invalid_arguments` for any other level.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_set_verbose(level: c_int) -> dnnl_status_t {
    boundary::guard("dnnl_set_verbose", || {
        if verbose::set_level(level) {
            Ok(())
        } else {
            Err(Error::invalid(format!(
                "verbose level {level} is not 0, 1 or 2"
            )))
        }
    })
}

/// Writes 1 to `*enabled` if execution profiling lines are logged (the
/// `profile_exec` category of `ONEDNN_VERBOSE`), else 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_verbose_profiling_enabled(enabled: *mut c_int) -> dnnl_status_t {
    boundary::guard("dnnl_verbose_profiling_enabled", || {
        let out = boundary::out(enabled, "enabled")?;
        out.write(c_int::from(verbose::enabled(verbose::flag::PROFILE_EXEC)));
        Ok(())
    })
}

/// Returns the library's version. The struct and its `hash` string belong to
/// the library and live as long as it is loaded.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_version() -> *const dnnl_version_t {
    boundary::guard_value("dnnl_version", ::core::ptr::null(), || {
        &version::C_VERSION.0 as *const _
    })
}

/// Writes the default floating-point math mode of new attributes and graphs to `*mode`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_get_default_fpmath_mode(
    mode: *mut dnnl_fpmath_mode_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_get_default_fpmath_mode", || {
        let out = boundary::out(mode, "mode")?;
        out.write(settings::default_fpmath_mode());
        Ok(())
    })
}

/// Sets the default floating-point math mode of new attributes and graphs;
/// overrides `ONEDNN_DEFAULT_FPMATH_MODE`.
/// Returns `dnnl_invalid_arguments` for a value that is not a `dnnl_fpmath_mode_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_set_default_fpmath_mode(mode: dnnl_fpmath_mode_t) -> dnnl_status_t {
    boundary::guard("dnnl_set_default_fpmath_mode", || {
        settings::set_default_fpmath_mode(mode)
    })
}
