//! PReLU primitive descriptors
//! (`dnnl_prelu_{forward,backward}_primitive_desc_create`).
//!
//! The checks and implementations live in `prims::prelu`; these functions
//! resolve the arguments and take the one creation path
//! (`primitive_desc::create`).

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::primitive_desc::{create, hint};
use crate::capi::handles::resolve_md;
use crate::prims::prelu::PreluOp;

/// Creates a primitive descriptor for PReLU forward (`prop_kind`
/// `dnnl_forward_training` or `dnnl_forward_inference`, which compute the
/// same): `dst = src > 0 ? src : src * weights`, the weights broadcast by
/// their shape (each dimension src's or 1). `weights_desc` and `dst_desc`
/// may be `any`. Attributes other than the defaults are
/// `dnnl_unimplemented`. On success the caller owns `*primitive_desc` and
/// releases it with `dnnl_primitive_desc_destroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_prelu_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    src_desc: const_dnnl_memory_desc_t,
    weights_desc: const_dnnl_memory_desc_t,
    dst_desc: const_dnnl_memory_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_prelu_forward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let src = resolve_md(src_desc)?;
            let weights = resolve_md(weights_desc)?;
            let dst = resolve_md(dst_desc)?;
            PreluOp::forward(prop_kind, &src, &weights, &dst, attr)
        })
    })
}

/// Creates a primitive descriptor for PReLU backward: diff_src and
/// diff_weights (the sum of `min(src, 0) * diff_dst` over the dimensions
/// diff_weights broadcasts). The diff descriptors may be `any`;
/// `hint_fwd_pd` may be NULL (a non-NULL one must be a live PReLU
/// descriptor) and does not change the result. Attributes other than the
/// defaults are `dnnl_unimplemented`. On success the caller owns
/// `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_prelu_backward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    src_desc: const_dnnl_memory_desc_t,
    weights_desc: const_dnnl_memory_desc_t,
    diff_src_desc: const_dnnl_memory_desc_t,
    diff_weights_desc: const_dnnl_memory_desc_t,
    diff_dst_desc: const_dnnl_memory_desc_t,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_prelu_backward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let src = resolve_md(src_desc)?;
            let weights = resolve_md(weights_desc)?;
            let diff_src = resolve_md(diff_src_desc)?;
            let diff_weights = resolve_md(diff_weights_desc)?;
            let diff_dst = resolve_md(diff_dst_desc)?;
            hint::<PreluOp>(hint_fwd_pd)?;
            PreluOp::backward(&src, &weights, &diff_src, &diff_weights, &diff_dst, attr)
        })
    })
}
