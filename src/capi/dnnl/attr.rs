//! Primitive attributes and post-ops.

use crate::abi::*;
use crate::capi::boundary;
use crate::core::handles;

/// Releases the caller's primitive attributes handle.
/// Returns `dnnl_invalid_arguments` for a NULL, unknown or already destroyed handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_primitive_attr_destroy(attr: dnnl_primitive_attr_t) -> dnnl_status_t {
    boundary::guard("dnnl_primitive_attr_destroy", || handles::retire(attr))
}

/// Releases the caller's post-ops handle.
/// Returns `dnnl_invalid_arguments` for a NULL, unknown or already destroyed handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_post_ops_destroy(post_ops: dnnl_post_ops_t) -> dnnl_status_t {
    boundary::guard("dnnl_post_ops_destroy", || handles::retire(post_ops))
}
