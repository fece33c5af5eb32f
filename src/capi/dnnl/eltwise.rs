//! Eltwise primitive descriptors (`dnnl_eltwise_*_primitive_desc_create`).
//!
//! The checks and implementations live in `prims::eltwise`; these functions
//! resolve handles, refuse attributes the primitive does not apply, and
//! publish the result.

use std::sync::Arc;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::primitive_desc::publish;
use crate::core::attr::{PrimitiveAttr, resolve_attr};
use crate::core::handles;
use crate::core::memory_desc::resolve_md;
use crate::core::primitive::PrimitiveDesc;
use crate::core::{Error, Result};
use crate::prims::eltwise::{self, EltwiseOp};

/// Checks the attributes against what eltwise applies: post-ops (forward),
/// and the scratchpad and floating-point math modes, which change nothing
/// for it. Anything else is refused. NULL means the defaults.
fn with_attr(op: EltwiseOp, attr: Option<&PrimitiveAttr>) -> Result<EltwiseOp> {
    let Some(attr) = attr else {
        return Ok(op);
    };
    let refused: Vec<&str> = attr
        .non_default_parts()
        .into_iter()
        .filter(|part| *part != "post-ops")
        .collect();
    if !refused.is_empty() {
        return Err(Error::unimplemented(format!(
            "eltwise does not apply these attributes: {}",
            refused.join(", ")
        )));
    }
    op.with_post_ops(&attr.post_ops)
}

fn create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    attr: const_dnnl_primitive_attr_t,
    op: impl FnOnce() -> Result<EltwiseOp>,
) -> Result<()> {
    let out = boundary::out(primitive_desc, "primitive_desc")?;
    let engine = handles::resolve(engine)?;
    let attr = resolve_attr(attr)?;
    let op = Arc::new(with_attr(op()?, attr.as_deref())?);
    let candidates = eltwise::candidates(&op);
    let mut pd = PrimitiveDesc::create(engine, op, candidates)?;
    if let Some(attr) = attr {
        pd = pd.with_attr((*attr).clone());
    }
    out.write(publish(pd));
    Ok(())
}

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
        create(primitive_desc, engine, attr, || {
            let src = resolve_md(src_desc)?;
            let dst = resolve_md(dst_desc)?;
            EltwiseOp::forward(prop_kind, alg_kind, &src, &dst, alpha, beta)
        })
    })
}

/// Creates a primitive descriptor for eltwise backward:
/// `diff_src = f'(data) * diff_dst`, where `data_desc` describes the source,
/// or the destination for the `*_use_dst_for_bwd` algorithms (execution
/// arguments `DNNL_ARG_SRC` or `DNNL_ARG_DST`, `DNNL_ARG_DIFF_DST`, and
/// `DNNL_ARG_DIFF_SRC`). `hint_fwd_pd` may be NULL; like upstream, it does
/// not change the result (a non-NULL one must be a live handle). Descriptors
/// given as `any` follow the first that is not. On success the caller owns
/// `*primitive_desc`. Attributes other than the scratchpad and
/// floating-point math modes are `dnnl_unimplemented`, as upstream's.
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
        create(primitive_desc, engine, attr, || {
            let diff_src = resolve_md(diff_src_desc)?;
            let diff_dst = resolve_md(diff_dst_desc)?;
            let data = resolve_md(data_desc)?;
            if !hint_fwd_pd.is_null() {
                handles::resolve(hint_fwd_pd)?;
            }
            EltwiseOp::backward(alg_kind, &diff_src, &diff_dst, &data, alpha, beta)
        })
    })
}
