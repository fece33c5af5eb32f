//! Primitive descriptors.

use crate::abi::*;
use crate::capi::boundary;
use crate::core::handles;

/// Releases the caller's primitive descriptor handle.
/// Returns `dnnl_invalid_arguments` for a NULL, unknown or already destroyed handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_desc_destroy(
    primitive_desc: dnnl_primitive_desc_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_desc_destroy", || {
        handles::retire(primitive_desc)
    })
}
