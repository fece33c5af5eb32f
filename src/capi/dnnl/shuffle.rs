//! Shuffle primitive descriptors
//! (`dnnl_shuffle_{forward,backward}_primitive_desc_create`).
//!
//! The checks and implementations live in `prims::shuffle`; these functions
//! resolve the arguments and take the one creation path
//! (`primitive_desc::create`).

use ::core::ffi::c_int;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::primitive_desc::{create, hint};
use crate::capi::handles::resolve_md;
use crate::prims::shuffle::ShuffleOp;

/// Creates a primitive descriptor for shuffle forward (`prop_kind`
/// `dnnl_forward_training` or `dnnl_forward_inference`, which compute the
/// same): the dimension `axis` of size `C`, seen as a `C/G x G` matrix
/// (`G` = `group_size`, a divisor of `C`), is transposed. `dst_desc` may be
/// `any` (it takes src's descriptor); src and dst must have the same type
/// and layout. Attributes other than the defaults are `dnnl_unimplemented`.
/// On success the caller owns `*primitive_desc` and releases it with
/// `dnnl_primitive_desc_destroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_shuffle_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    src_desc: const_dnnl_memory_desc_t,
    dst_desc: const_dnnl_memory_desc_t,
    axis: c_int,
    group_size: dnnl_dim_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_shuffle_forward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let src = resolve_md(src_desc)?;
            let dst = resolve_md(dst_desc)?;
            ShuffleOp::forward(prop_kind, &src, &dst, axis, group_size, attr)
        })
    })
}

/// Creates a primitive descriptor for shuffle backward: diff_src from
/// diff_dst by the inverse of the forward shuffle with the same `axis` and
/// `group_size`. `diff_src_desc` may be `any` (plain row-major), and
/// `diff_dst_desc` (diff_src's descriptor); both must have the same type
/// and layout. `hint_fwd_pd` may be NULL (a non-NULL one must be a live
/// shuffle descriptor) and does not change the result. Attributes other
/// than the defaults are `dnnl_unimplemented`. On success the caller owns
/// `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_shuffle_backward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    diff_src_desc: const_dnnl_memory_desc_t,
    diff_dst_desc: const_dnnl_memory_desc_t,
    axis: c_int,
    group_size: dnnl_dim_t,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_shuffle_backward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let diff_src = resolve_md(diff_src_desc)?;
            let diff_dst = resolve_md(diff_dst_desc)?;
            hint::<ShuffleOp>(hint_fwd_pd)?;
            ShuffleOp::backward(&diff_src, &diff_dst, axis, group_size, attr)
        })
    })
}
