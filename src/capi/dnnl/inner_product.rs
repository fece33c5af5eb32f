//! Inner product primitive descriptors
//! (`dnnl_inner_product_*_primitive_desc_create`).
//!
//! The checks and implementations live in `prims::inner_product`; these
//! functions resolve the kind's arguments and take the one creation path
//! (`primitive_desc::create`).

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::primitive_desc::{create, hint, optional_md};
use crate::capi::handles::resolve_md;
use crate::prims::inner_product::InnerProductOp;

/// Creates a primitive descriptor for inner product forward (`prop_kind`
/// `dnnl_forward_training` or `dnnl_forward_inference`):
/// `dst = src · weightsᵀ + bias`, the source and weights flattened to
/// `N x K` and `OC x K`. `bias_desc` may be NULL or the zero descriptor (no
/// bias). Descriptors may use `format_tag::any` (see `prims::inner_product`
/// for what is chosen). Attributes: post-ops. On success the caller owns
/// `*primitive_desc` and releases it with `dnnl_primitive_desc_destroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_inner_product_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    src_desc: const_dnnl_memory_desc_t,
    weights_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_desc: const_dnnl_memory_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_inner_product_forward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let src = resolve_md(src_desc)?;
            let weights = resolve_md(weights_desc)?;
            let bias = optional_md(bias_desc)?;
            let dst = resolve_md(dst_desc)?;
            InnerProductOp::forward(prop_kind, &src, &weights, bias.as_deref(), &dst, attr)
        })
    })
}

/// Creates a primitive descriptor for inner product backward data:
/// `diff_src = diff_dst · weights`. `hint_fwd_pd` may be NULL; it does not
/// change the result (a non-NULL one must be a live handle). On success the
/// caller owns `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_inner_product_backward_data_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    diff_src_desc: const_dnnl_memory_desc_t,
    weights_desc: const_dnnl_memory_desc_t,
    diff_dst_desc: const_dnnl_memory_desc_t,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard(
        "dnnl_inner_product_backward_data_primitive_desc_create",
        || {
            create(primitive_desc, engine, attr, |_| {
                let diff_src = resolve_md(diff_src_desc)?;
                let weights = resolve_md(weights_desc)?;
                let diff_dst = resolve_md(diff_dst_desc)?;
                hint::<InnerProductOp>(hint_fwd_pd)?;
                InnerProductOp::backward_data(&diff_src, &weights, &diff_dst)
            })
        },
    )
}

/// Creates a primitive descriptor for inner product backward weights:
/// `diff_weights = diff_dstᵀ · src` and `diff_bias = Σ_n diff_dst[n, :]`.
/// `diff_bias_desc` may be NULL or the zero descriptor (no bias gradient).
/// `hint_fwd_pd` may be NULL; it does not change the result. On success the
/// caller owns `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_inner_product_backward_weights_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    src_desc: const_dnnl_memory_desc_t,
    diff_weights_desc: const_dnnl_memory_desc_t,
    diff_bias_desc: const_dnnl_memory_desc_t,
    diff_dst_desc: const_dnnl_memory_desc_t,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard(
        "dnnl_inner_product_backward_weights_primitive_desc_create",
        || {
            create(primitive_desc, engine, attr, |_| {
                let src = resolve_md(src_desc)?;
                let diff_weights = resolve_md(diff_weights_desc)?;
                let diff_bias = optional_md(diff_bias_desc)?;
                let diff_dst = resolve_md(diff_dst_desc)?;
                hint::<InnerProductOp>(hint_fwd_pd)?;
                InnerProductOp::backward_weights(
                    &src,
                    &diff_weights,
                    diff_bias.as_deref(),
                    &diff_dst,
                )
            })
        },
    )
}
