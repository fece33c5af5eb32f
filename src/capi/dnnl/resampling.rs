//! Resampling primitive descriptors
//! (`dnnl_resampling_{forward,backward}_primitive_desc_create`).
//!
//! The checks and implementations live in `prims::resampling`; these
//! functions read the kind's arguments and take the one creation path
//! (`primitive_desc::create`).

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::primitive_desc::{create, optional_md};
use crate::capi::handles::{self, resolve_md};
use crate::core::error::{Error, Result};
use crate::core::memory_desc::MemoryDesc;
use crate::prims::resampling::ResamplingOp;

/// An owned copy of the factors: one per spatial dimension of `data`
/// (`ndims - 2`, read only when `data` has 3 to 5 dimensions); NULL gives
/// `None`.
///
/// # Safety
/// A non-NULL `factors` must point to `ndims - 2` readable values.
unsafe fn read_factors(data: &MemoryDesc, factors: *const f32) -> Result<Option<Vec<f32>>> {
    if factors.is_null() {
        return Ok(None);
    }
    let nd = data.ndims();
    if !(3..=5).contains(&nd) {
        return Err(Error::invalid(format!(
            "resampling takes 3 to 5 dimensions (1D to 3D spatial), not {nd}"
        )));
    }
    if !factors.is_aligned() {
        return Err(Error::invalid("factors is misaligned"));
    }
    // SAFETY: non-NULL and aligned (checked); the caller promises one value
    // per spatial dimension.
    Ok(Some(
        unsafe { std::slice::from_raw_parts(factors, nd - 2) }.to_vec(),
    ))
}

/// Creates a primitive descriptor for resampling forward (`prop_kind`
/// `dnnl_forward_training` or `dnnl_forward_inference`; they compute the
/// same) with `alg_kind` `dnnl_resampling_nearest` or
/// `dnnl_resampling_linear`. The shape comes from `dst_desc` (which may be
/// `any`: it takes `src_desc`'s layout) or, when it is NULL, from `factors`
/// (one per spatial dimension: `(dim_t)(I * factor)`); with `dst_desc`
/// given, `factors` may be NULL and is ignored (the op uses `O / I`,
/// answered by `dnnl_query_factors`). Attributes: sum, eltwise and binary
/// post-ops; others are `dnnl_unimplemented`. A negative or non-finite
/// factor is `dnnl_invalid_arguments` (Intel's library accepts it). On
/// success the caller owns `*primitive_desc` and releases it with
/// `dnnl_primitive_desc_destroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_resampling_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    alg_kind: dnnl_alg_kind_t,
    factors: *const f32,
    src_desc: const_dnnl_memory_desc_t,
    dst_desc: const_dnnl_memory_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_resampling_forward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let src = resolve_md(src_desc)?;
            let dst = optional_md(dst_desc)?;
            // SAFETY: the caller's contract on the factors.
            let factors = unsafe { read_factors(&src, factors) }?;
            ResamplingOp::forward(
                prop_kind,
                alg_kind,
                factors.as_deref(),
                &src,
                dst.as_deref(),
                attr,
            )
        })
    })
}

/// Creates a primitive descriptor for resampling backward data (execution
/// arguments `DNNL_ARG_DIFF_DST`, `DNNL_ARG_DIFF_SRC`). The shape comes
/// from `diff_dst_desc` or, when it is NULL, from `factors` (as forward);
/// `diff_src_desc` or `diff_dst_desc` may be `any` (not both:
/// `dnnl_unimplemented`, as upstream). `hint_fwd_pd` may be NULL; when
/// given it must be a live primitive descriptor, and is not otherwise read
/// (Intel's library ignores it). Attributes other than the defaults are
/// `dnnl_unimplemented`. On success the caller owns `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_resampling_backward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    alg_kind: dnnl_alg_kind_t,
    factors: *const f32,
    diff_src_desc: const_dnnl_memory_desc_t,
    diff_dst_desc: const_dnnl_memory_desc_t,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_resampling_backward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let diff_src = resolve_md(diff_src_desc)?;
            let diff_dst = optional_md(diff_dst_desc)?;
            if !hint_fwd_pd.is_null() {
                handles::resolve(hint_fwd_pd)?;
            }
            // SAFETY: the caller's contract on the factors.
            let factors = unsafe { read_factors(&diff_src, factors) }?;
            ResamplingOp::backward(
                alg_kind,
                factors.as_deref(),
                &diff_src,
                diff_dst.as_deref(),
                attr,
            )
        })
    })
}
