//! LRN primitive descriptors
//! (`dnnl_lrn_{forward,backward}_primitive_desc_create`).
//!
//! The checks and implementations live in `prims::lrn`; these functions
//! resolve the arguments and take the one creation path
//! (`primitive_desc::create`).

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::primitive_desc::{create, hint};
use crate::capi::handles::resolve_md;
use crate::prims::lrn::LrnOp;

/// Creates a primitive descriptor for LRN forward (`prop_kind`
/// `dnnl_forward_training` or `dnnl_forward_inference`, which compute the
/// same; no workspace): `dst = src * (k + alpha / D * sum of src^2 over the
/// window)^-beta`, the window `local_size` channels wide
/// (`dnnl_lrn_across_channels`, `D` = `local_size`) or a `local_size` box
/// over the spatial dimensions (`dnnl_lrn_within_channel`, `D` =
/// `local_size` to the power of their number). `dst_desc` may be `any`
/// (src's layout). Attributes other than the defaults are
/// `dnnl_unimplemented`. On success the caller owns `*primitive_desc` and
/// releases it with `dnnl_primitive_desc_destroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_lrn_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    alg_kind: dnnl_alg_kind_t,
    src_desc: const_dnnl_memory_desc_t,
    dst_desc: const_dnnl_memory_desc_t,
    local_size: dnnl_dim_t,
    alpha: f32,
    beta: f32,
    k: f32,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_lrn_forward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let src = resolve_md(src_desc)?;
            let dst = resolve_md(dst_desc)?;
            LrnOp::forward(
                prop_kind, alg_kind, &src, &dst, local_size, alpha, beta, k, attr,
            )
        })
    })
}

/// Creates a primitive descriptor for LRN backward: diff_src, the gradient
/// of the forward with the same parameters, from diff_dst and src. Every
/// descriptor may be `any` (diff_src takes src's layout, diff_dst
/// diff_src's); `hint_fwd_pd` may be NULL (a non-NULL one must be a live
/// LRN descriptor) and does not change the result. Attributes other than
/// the defaults are `dnnl_unimplemented`. On success the caller owns
/// `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_lrn_backward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    alg_kind: dnnl_alg_kind_t,
    diff_src_desc: const_dnnl_memory_desc_t,
    diff_dst_desc: const_dnnl_memory_desc_t,
    src_desc: const_dnnl_memory_desc_t,
    local_size: dnnl_dim_t,
    alpha: f32,
    beta: f32,
    k: f32,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_lrn_backward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let diff_src = resolve_md(diff_src_desc)?;
            let diff_dst = resolve_md(diff_dst_desc)?;
            let src = resolve_md(src_desc)?;
            hint::<LrnOp>(hint_fwd_pd)?;
            LrnOp::backward(
                alg_kind, &diff_src, &diff_dst, &src, local_size, alpha, beta, k, attr,
            )
        })
    })
}
