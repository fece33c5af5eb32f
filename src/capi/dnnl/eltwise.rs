//! Eltwise primitive descriptors (`dnnl_eltwise_*_primitive_desc_create`).
//!
//! The checks and implementations live in `prims::eltwise`; these functions
//! resolve the kind's arguments and take the one creation path
//! (`primitive_desc::create`).

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::primitive_desc::{create, hint};
use crate::capi::handles::resolve_md;
use crate::prims::eltwise::EltwiseOp;

/// Creates a primitive descriptor for eltwise forward (`prop_kind`
/// `dnnl_forward_training` or `dnnl_forward_inference`): `dst = f(src)` with
/// the algorithm's `alpha` and `beta`. `dst_desc` may use `format_tag::any`
/// (it then takes `src_desc`'s layout). On success the caller owns
/// `*primitive_desc` and releases it with `dnnl_primitive_desc_destroy`.
/// Post-ops are applied (sum, eltwise, binary with broadcast, prelu; not a
/// fused depthwise convolution); attributes other than those, the scratchpad
/// and floating-point math modes are `dnnl_unimplemented`.
/// Deliberate difference: different data types or layouts for source and
/// destination are computed rather than refused.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_eltwise_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    alg_kind: dnnl_alg_kind_t,
    src_desc: const_dnnl_memory_desc_t,
    dst_desc: const_dnnl_memory_desc_t,
    alpha: f32,
    beta: f32,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_eltwise_forward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let src = resolve_md(src_desc)?;
            let dst = resolve_md(dst_desc)?;
            EltwiseOp::forward(prop_kind, alg_kind, &src, &dst, alpha, beta)?
                .with_post_ops(&attr.post_ops)
        })
    })
}

/// Creates a primitive descriptor for eltwise backward:
/// `diff_src = f'(data) * diff_dst`, where `data_desc` describes the source,
/// or the destination for the `*_use_dst_for_bwd` algorithms (execution
/// arguments `DNNL_ARG_SRC` or `DNNL_ARG_DST`, `DNNL_ARG_DIFF_DST`, and
/// `DNNL_ARG_DIFF_SRC`). `hint_fwd_pd` may be NULL; a non-NULL one must be
/// a live eltwise descriptor, and, like upstream's, does not change the
/// result. Descriptors given as `any` follow the first that is not. On
/// success the caller owns `*primitive_desc`. Attributes other than the
/// scratchpad and floating-point math modes are `dnnl_unimplemented`, as
/// upstream's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_eltwise_backward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    alg_kind: dnnl_alg_kind_t,
    diff_src_desc: const_dnnl_memory_desc_t,
    diff_dst_desc: const_dnnl_memory_desc_t,
    data_desc: const_dnnl_memory_desc_t,
    alpha: f32,
    beta: f32,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_eltwise_backward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |_| {
            let diff_src = resolve_md(diff_src_desc)?;
            let diff_dst = resolve_md(diff_dst_desc)?;
            let data = resolve_md(data_desc)?;
            hint::<EltwiseOp>(hint_fwd_pd)?;
            EltwiseOp::backward(alg_kind, &diff_src, &diff_dst, &data, alpha, beta)
        })
    })
}
