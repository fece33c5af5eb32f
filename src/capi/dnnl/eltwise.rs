//! Eltwise primitive descriptors (`dnnl_eltwise_*_primitive_desc_create`).
//!
//! The checks and implementations live in `prims::eltwise`; these functions
//! resolve handles, refuse attributes the primitive does not apply, and
//! publish the result.

use std::sync::Arc;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::primitive_desc::publish;
use crate::core::attr::resolve_attr;
use crate::core::handles;
use crate::core::memory_desc::resolve_md;
use crate::core::primitive::PrimitiveDesc;
use crate::core::{Error, Result};
use crate::prims::eltwise::{self, EltwiseOp};

/// Refuses attributes the primitive does not apply: eltwise honours the
/// defaults only (the scratchpad and floating-point math modes change
/// nothing for it). Upstream also applies post-ops forward; those are not
/// done yet. NULL means the defaults.
fn check_attr(attr: const_dnnl_primitive_attr_t) -> Result<()> {
    let Some(attr) = resolve_attr(attr)? else {
        return Ok(());
    };
    let parts = attr.non_default_parts();
    if parts.is_empty() {
        return Ok(());
    }
    Err(Error::unimplemented(format!(
        "eltwise does not apply these attributes yet: {}",
        parts.join(", ")
    )))
}

fn create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    attr: const_dnnl_primitive_attr_t,
    op: impl FnOnce() -> Result<EltwiseOp>,
) -> Result<()> {
    let out = boundary::out(primitive_desc, "primitive_desc")?;
    let engine = handles::resolve(engine)?;
    let op = Arc::new(op()?);
    check_attr(attr)?;
    let candidates = eltwise::candidates(&op);
    let pd = PrimitiveDesc::create(engine, op, candidates)?;
    out.write(publish(pd));
    Ok(())
}

/// Creates a primitive descriptor for eltwise forward (`prop_kind`
/// `dnnl_forward_training` or `dnnl_forward_inference`): `dst = f(src)` with
/// the algorithm's `alpha` and `beta`. `dst_desc` may use `format_tag::any`
/// (it then takes `src_desc`'s layout). On success the caller owns
/// `*primitive_desc` and releases it with `dnnl_primitive_desc_destroy`.
/// Attributes other than the scratchpad and floating-point math modes
/// (post-ops, scales, ...) are `dnnl_unimplemented` for now.
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
