//! Group normalization primitive descriptors
//! (`dnnl_group_normalization_{forward,backward}_primitive_desc_create`).
//!
//! The checks and implementations live in `prims::normalization`; these
//! functions resolve the kind's arguments and take the one creation path
//! (`primitive_desc::create`).

use std::ffi::c_uint;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::primitive_desc::{create, hint};
use crate::capi::handles::resolve_md;
use crate::prims::normalization::GroupNormOp;

/// Creates a primitive descriptor for group normalization forward
/// (`prop_kind` `dnnl_forward_training` or `dnnl_forward_inference`) of a
/// 2- to 12-D src (N, C, spatial...) with `groups` dividing C. dst may be
/// `any` (src's layout); src and dst are f32, bf16, f16 or s8. Flags:
/// `dnnl_use_global_stats`, `dnnl_use_scale`, `dnnl_use_shift`. Mean and
/// variance are N x G (`dnnl_query_exec_arg_md`); `dnnl_query_group_size_s64`
/// answers `groups`. Attributes: src / dst scales (mask 0, int8 data only)
/// and eltwise / binary post-ops. On success the caller owns
/// `*primitive_desc` and releases it with `dnnl_primitive_desc_destroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_group_normalization_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    src_desc: const_dnnl_memory_desc_t,
    dst_desc: const_dnnl_memory_desc_t,
    groups: dnnl_dim_t,
    epsilon: f32,
    flags: c_uint,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard(
        "dnnl_group_normalization_forward_primitive_desc_create",
        || {
            create(primitive_desc, engine, attr, |attr| {
                let src = resolve_md(src_desc)?;
                let dst = resolve_md(dst_desc)?;
                GroupNormOp::forward(prop_kind, &src, &dst, groups, epsilon, flags, attr)
            })
        },
    )
}

/// Creates a primitive descriptor for group normalization backward
/// (`dnnl_backward`: diff_src, and diff_scale / diff_shift with
/// `dnnl_use_scale` / `dnnl_use_shift`; or `dnnl_backward_data`). The diffs
/// may be `any` (src's layout). `hint_fwd_pd` may be NULL (a non-NULL one
/// must be a live group normalization descriptor). Attributes other than
/// the defaults are `dnnl_unimplemented`. On success the caller owns
/// `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_group_normalization_backward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    diff_src_desc: const_dnnl_memory_desc_t,
    diff_dst_desc: const_dnnl_memory_desc_t,
    src_desc: const_dnnl_memory_desc_t,
    groups: dnnl_dim_t,
    epsilon: f32,
    flags: c_uint,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard(
        "dnnl_group_normalization_backward_primitive_desc_create",
        || {
            create(primitive_desc, engine, attr, |attr| {
                let diff_src = resolve_md(diff_src_desc)?;
                let diff_dst = resolve_md(diff_dst_desc)?;
                let src = resolve_md(src_desc)?;
                let fwd = hint::<GroupNormOp>(hint_fwd_pd)?;
                GroupNormOp::backward(
                    prop_kind,
                    &diff_src,
                    &diff_dst,
                    &src,
                    groups,
                    epsilon,
                    flags,
                    fwd.as_deref(),
                    attr,
                )
            })
        },
    )
}
