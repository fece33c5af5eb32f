//! Primitives.

use crate::abi::*;
use crate::capi::boundary;
use crate::core::handles;

/// Releases the caller's primitive handle.
/// Returns `dnnl_invalid_arguments` for a NULL, unknown or already destroyed handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_destroy(primitive: dnnl_primitive_t) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_destroy", || handles::retire(primitive))
}
