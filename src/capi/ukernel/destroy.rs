//! Releasing ukernel objects.

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::handles;

/// Releases the caller's ukernel attribute parameters handle.
/// NULL is accepted and does nothing (as upstream). The handle is dead from
/// this call on, even where other objects keep the object alive; an unknown
/// or already destroyed handle gets `dnnl_invalid_arguments`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ukernel_attr_params_destroy(
    attr_params: dnnl_ukernel_attr_params_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_ukernel_attr_params_destroy", || {
        handles::retire(attr_params)
    })
}

/// Releases the caller's BRGeMM ukernel handle.
/// NULL is accepted and does nothing (as upstream). The handle is dead from
/// this call on, even where other objects keep the object alive; an unknown
/// or already destroyed handle gets `dnnl_invalid_arguments`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_destroy(brgemm: dnnl_brgemm_t) -> dnnl_status_t {
    boundary::guard("dnnl_brgemm_destroy", || handles::retire(brgemm))
}

/// Releases the caller's transform ukernel handle.
/// NULL is accepted and does nothing (as upstream). The handle is dead from
/// this call on, even where other objects keep the object alive; an unknown
/// or already destroyed handle gets `dnnl_invalid_arguments`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_transform_destroy(transform: dnnl_transform_t) -> dnnl_status_t {
    boundary::guard("dnnl_transform_destroy", || handles::retire(transform))
}
