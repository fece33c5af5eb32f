//! Layer normalization primitive descriptors
//! (`dnnl_layer_normalization_{forward,backward}_primitive_desc_create`
//! and their `_v2` forms with the scale and shift data types).
//!
//! The checks and implementations live in `prims::normalization`; these
//! functions resolve the kind's arguments and take the one creation path
//! (`primitive_desc::create`).

use std::ffi::c_uint;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::primitive_desc::{create, hint, optional_md};
use crate::capi::handles::resolve_md;
use crate::prims::normalization::LayerNormOp;

/// Creates a primitive descriptor for layer normalization forward
/// (`prop_kind` `dnnl_forward_training` or `dnnl_forward_inference`) over
/// the last dimension of a 2- to 12-D src, with f32 scale and shift. See
/// `dnnl_layer_normalization_forward_primitive_desc_create_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_layer_normalization_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    src_desc: const_dnnl_memory_desc_t,
    dst_desc: const_dnnl_memory_desc_t,
    stat_desc: const_dnnl_memory_desc_t,
    epsilon: f32,
    flags: c_uint,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard(
        "dnnl_layer_normalization_forward_primitive_desc_create",
        || {
            create(primitive_desc, engine, attr, |attr| {
                let src = resolve_md(src_desc)?;
                let dst = resolve_md(dst_desc)?;
                let stat = optional_md(stat_desc)?;
                LayerNormOp::forward(
                    prop_kind,
                    &src,
                    &dst,
                    stat.as_deref(),
                    dnnl_f32,
                    epsilon,
                    flags,
                    attr,
                )
            })
        },
    )
}

/// Creates a primitive descriptor for layer normalization backward
/// (`dnnl_backward`, or `dnnl_backward_data` without scale and shift) with
/// f32 scale and shift. See
/// `dnnl_layer_normalization_backward_primitive_desc_create_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_layer_normalization_backward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    diff_src_desc: const_dnnl_memory_desc_t,
    diff_dst_desc: const_dnnl_memory_desc_t,
    src_desc: const_dnnl_memory_desc_t,
    stat_desc: const_dnnl_memory_desc_t,
    epsilon: f32,
    flags: c_uint,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard(
        "dnnl_layer_normalization_backward_primitive_desc_create",
        || {
            create(primitive_desc, engine, attr, |attr| {
                let diff_src = resolve_md(diff_src_desc)?;
                let diff_dst = resolve_md(diff_dst_desc)?;
                let src = resolve_md(src_desc)?;
                let stat = optional_md(stat_desc)?;
                let fwd = hint::<LayerNormOp>(hint_fwd_pd)?;
                LayerNormOp::backward(
                    prop_kind,
                    &diff_src,
                    &diff_dst,
                    &src,
                    stat.as_deref(),
                    dnnl_f32,
                    dnnl_f32,
                    epsilon,
                    flags,
                    fwd.as_deref(),
                    attr,
                )
            })
        },
    )
}

/// Creates a primitive descriptor for layer normalization forward with
/// scale and shift of `scale_shift_data_type` (f32, bf16 or f16). src and
/// dst are f32, bf16, f16, s8 or u8 (dst may be `any`: src's layout);
/// `stat_desc` (f32, src's dimensions but the last) may be NULL or `any`
/// (dense row-major). Flags: `dnnl_use_global_stats`, `dnnl_use_scale`,
/// `dnnl_use_shift`, `dnnl_rms_norm`. Attributes: src / dst scales (mask 0,
/// int8 data only) and eltwise / binary post-ops. On success the caller owns
/// `*primitive_desc` and releases it with `dnnl_primitive_desc_destroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_layer_normalization_forward_primitive_desc_create_v2(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    src_desc: const_dnnl_memory_desc_t,
    dst_desc: const_dnnl_memory_desc_t,
    stat_desc: const_dnnl_memory_desc_t,
    scale_shift_data_type: dnnl_data_type_t,
    epsilon: f32,
    flags: c_uint,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard(
        "dnnl_layer_normalization_forward_primitive_desc_create_v2",
        || {
            create(primitive_desc, engine, attr, |attr| {
                let src = resolve_md(src_desc)?;
                let dst = resolve_md(dst_desc)?;
                let stat = optional_md(stat_desc)?;
                LayerNormOp::forward(
                    prop_kind,
                    &src,
                    &dst,
                    stat.as_deref(),
                    scale_shift_data_type,
                    epsilon,
                    flags,
                    attr,
                )
            })
        },
    )
}

/// Creates a primitive descriptor for layer normalization backward with
/// diff scale / shift of `diff_scale_shift_data_type` and scale of
/// `scale_shift_data_type` (each f32, bf16 or f16). src, diff_src and
/// diff_dst are f32, bf16 or f16 (the diffs may be `any`: src's layout).
/// `hint_fwd_pd` may be NULL (a non-NULL one must be a live layer
/// normalization descriptor). Attributes other than the defaults are
/// `dnnl_unimplemented`. On success the caller owns `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_layer_normalization_backward_primitive_desc_create_v2(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    diff_src_desc: const_dnnl_memory_desc_t,
    diff_dst_desc: const_dnnl_memory_desc_t,
    src_desc: const_dnnl_memory_desc_t,
    stat_desc: const_dnnl_memory_desc_t,
    diff_scale_shift_data_type: dnnl_data_type_t,
    scale_shift_data_type: dnnl_data_type_t,
    epsilon: f32,
    flags: c_uint,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard(
        "dnnl_layer_normalization_backward_primitive_desc_create_v2",
        || {
            create(primitive_desc, engine, attr, |attr| {
                let diff_src = resolve_md(diff_src_desc)?;
                let diff_dst = resolve_md(diff_dst_desc)?;
                let src = resolve_md(src_desc)?;
                let stat = optional_md(stat_desc)?;
                let fwd = hint::<LayerNormOp>(hint_fwd_pd)?;
                LayerNormOp::backward(
                    prop_kind,
                    &diff_src,
                    &diff_dst,
                    &src,
                    stat.as_deref(),
                    diff_scale_shift_data_type,
                    scale_shift_data_type,
                    epsilon,
                    flags,
                    fwd.as_deref(),
                    attr,
                )
            })
        },
    )
}
