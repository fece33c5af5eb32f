//! `dnnl_ukernel_attr_params_*`: the run-time arguments of a BRGeMM with
//! post-ops.

use ::core::ffi::c_void;
use std::sync::Arc;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::handles;
use crate::prims::ukernel::AttrParams;

/// Creates empty attribute parameters (nothing set).
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ukernel_attr_params_create(
    attr_params: *mut dnnl_ukernel_attr_params_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_ukernel_attr_params_create", || {
        let out = boundary::out(attr_params, "attr_params")?;
        out.write(handles::publish(Arc::new(AttrParams::new())));
        Ok(())
    })
}

/// Sets the array of binary post-op arguments: one pointer per binary
/// post-op, in chain order. The array itself is kept by address, as
/// upstream: it must stay valid until the executions that use it are done.
/// NULL unsets it.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ukernel_attr_params_set_post_ops_args(
    attr_params: dnnl_ukernel_attr_params_t,
    post_ops_args: *mut *const c_void,
) -> dnnl_status_t {
    boundary::guard("dnnl_ukernel_attr_params_set_post_ops_args", || {
        handles::resolve(attr_params)?.update(|v| v.post_ops_args = post_ops_args as usize)
    })
}

/// Sets where A's scale is (one `f32`); NULL unsets it.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ukernel_attr_params_set_A_scales(
    attr_params: dnnl_ukernel_attr_params_t,
    a_scales: *const c_void,
) -> dnnl_status_t {
    boundary::guard("dnnl_ukernel_attr_params_set_A_scales", || {
        handles::resolve(attr_params)?.update(|v| v.a_scales = a_scales as usize)
    })
}

/// Sets where B's scales are (`f32`: one, or `N` for mask 2); NULL unsets them.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ukernel_attr_params_set_B_scales(
    attr_params: dnnl_ukernel_attr_params_t,
    b_scales: *const c_void,
) -> dnnl_status_t {
    boundary::guard("dnnl_ukernel_attr_params_set_B_scales", || {
        handles::resolve(attr_params)?.update(|v| v.b_scales = b_scales as usize)
    })
}

/// Sets where D's scale is (one `f32`, dividing the result); NULL unsets it.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ukernel_attr_params_set_D_scales(
    attr_params: dnnl_ukernel_attr_params_t,
    d_scales: *const c_void,
) -> dnnl_status_t {
    boundary::guard("dnnl_ukernel_attr_params_set_D_scales", || {
        handles::resolve(attr_params)?.update(|v| v.d_scales = d_scales as usize)
    })
}
