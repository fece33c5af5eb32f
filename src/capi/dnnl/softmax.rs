//! Softmax primitive descriptors
//! (`dnnl_softmax_{forward,backward}_primitive_desc_create`).
//!
//! The checks and implementations live in `prims::softmax`; these functions
//! resolve the kind's arguments and take the one creation path
//! (`primitive_desc::create`).

use std::ffi::c_int;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::primitive_desc::{create, hint};
use crate::capi::handles::resolve_md;
use crate::prims::softmax::SoftmaxOp;

/// Creates a primitive descriptor for softmax forward (`prop_kind`
/// `dnnl_forward_training` or `dnnl_forward_inference`) along
/// `softmax_axis`, with `alg_kind` `dnnl_softmax_accurate` or
/// `dnnl_softmax_log`. `dst_desc` may be `any` (it takes `src_desc`'s
/// layout). Attributes: scales of `DNNL_ARG_SRC` / `DNNL_ARG_DST` (mask 0)
/// and post-ops; others are `dnnl_unimplemented`. On success the caller
/// owns `*primitive_desc` and releases it with `dnnl_primitive_desc_destroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_softmax_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    alg_kind: dnnl_alg_kind_t,
    src_desc: const_dnnl_memory_desc_t,
    dst_desc: const_dnnl_memory_desc_t,
    softmax_axis: c_int,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_softmax_forward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let src = resolve_md(src_desc)?;
            let dst = resolve_md(dst_desc)?;
            SoftmaxOp::forward(prop_kind, alg_kind, &src, &dst, softmax_axis, attr)
        })
    })
}

/// Creates a primitive descriptor for softmax backward along
/// `softmax_axis` (execution arguments `DNNL_ARG_DST`, `DNNL_ARG_DIFF_DST`,
/// `DNNL_ARG_DIFF_SRC`). `diff_src_desc` and `diff_dst_desc` may be `any`
/// (they take `dst_desc`'s layout). `hint_fwd_pd` may be NULL (a non-NULL
/// one must be a live softmax descriptor); it does not change the result. Attributes
/// other than the defaults are `dnnl_unimplemented`. On success the caller
/// owns `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_softmax_backward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    alg_kind: dnnl_alg_kind_t,
    diff_src_desc: const_dnnl_memory_desc_t,
    diff_dst_desc: const_dnnl_memory_desc_t,
    dst_desc: const_dnnl_memory_desc_t,
    softmax_axis: c_int,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_softmax_backward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let diff_src = resolve_md(diff_src_desc)?;
            let diff_dst = resolve_md(diff_dst_desc)?;
            let dst = resolve_md(dst_desc)?;
            hint::<SoftmaxOp>(hint_fwd_pd)?;
            SoftmaxOp::backward(alg_kind, &diff_src, &diff_dst, &dst, softmax_axis, attr)
        })
    })
}
