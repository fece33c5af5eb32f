//! Batch normalization primitive descriptors
//! (`dnnl_batch_normalization_{forward,backward}_primitive_desc_create`).
//!
//! The checks and implementations live in `prims::normalization`; these
//! functions resolve the kind's arguments and take the one creation path
//! (`primitive_desc::create`).

use std::ffi::c_uint;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::primitive_desc::{create, hint};
use crate::capi::handles::resolve_md;
use crate::prims::normalization::BatchNormOp;

/// Creates a primitive descriptor for batch normalization forward
/// (`prop_kind` `dnnl_forward_training` or `dnnl_forward_inference`) of a
/// 2- to 12-D src (N, C, spatial...), with `flags` of
/// `dnnl_normalization_flags_t`. `dst_desc` may be `any` (it takes
/// `src_desc`'s layout). Attributes: one eltwise ReLU post-op (a zero
/// negative slope in training); others are `dnnl_unimplemented`. With
/// `dnnl_fuse_norm_relu` or `dnnl_fuse_norm_add_relu` in training the
/// primitive writes a workspace (`dnnl_query_workspace_md`: `u8`, a byte per
/// element). On success the caller owns `*primitive_desc` and releases it
/// with `dnnl_primitive_desc_destroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_batch_normalization_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    src_desc: const_dnnl_memory_desc_t,
    dst_desc: const_dnnl_memory_desc_t,
    epsilon: f32,
    flags: c_uint,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard(
        "dnnl_batch_normalization_forward_primitive_desc_create",
        || {
            create(primitive_desc, engine, attr, |attr| {
                let src = resolve_md(src_desc)?;
                let dst = resolve_md(dst_desc)?;
                BatchNormOp::forward(prop_kind, &src, &dst, epsilon, flags, attr)
            })
        },
    )
}

/// Creates a primitive descriptor for batch normalization backward
/// (`prop_kind` `dnnl_backward`: diff_src, and diff_scale / diff_shift with
/// `dnnl_use_scale` / `dnnl_use_shift`; or `dnnl_backward_data`). The
/// fused-ReLU flags need `hint_fwd_pd` (a live batch normalization forward
/// descriptor with the workspace); otherwise it may be NULL.
/// `diff_src_desc` and `diff_dst_desc` may be `any` (they take `src_desc`'s
/// layout). Attributes other than the defaults are `dnnl_unimplemented`.
/// On success the caller owns `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_batch_normalization_backward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    diff_src_desc: const_dnnl_memory_desc_t,
    diff_dst_desc: const_dnnl_memory_desc_t,
    src_desc: const_dnnl_memory_desc_t,
    epsilon: f32,
    flags: c_uint,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard(
        "dnnl_batch_normalization_backward_primitive_desc_create",
        || {
            create(primitive_desc, engine, attr, |attr| {
                let diff_src = resolve_md(diff_src_desc)?;
                let diff_dst = resolve_md(diff_dst_desc)?;
                let src = resolve_md(src_desc)?;
                let fwd = hint::<BatchNormOp>(hint_fwd_pd)?;
                BatchNormOp::backward(
                    prop_kind,
                    &diff_src,
                    &diff_dst,
                    &src,
                    epsilon,
                    flags,
                    fwd.as_deref(),
                    attr,
                )
            })
        },
    )
}
