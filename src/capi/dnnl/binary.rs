//! Binary primitive descriptors (`dnnl_binary_primitive_desc_create{,_v2}`).
//!
//! The checks and implementations live in `prims::binary`; these functions
//! resolve handles and attributes and publish the result.

use std::sync::Arc;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::primitive_desc::publish;
use crate::core::Result;
use crate::core::attr::{PrimitiveAttr, resolve_attr};
use crate::core::handles;
use crate::core::memory_desc::{MemoryDesc, resolve_md};
use crate::core::primitive::PrimitiveDesc;
use crate::prims::binary::{self, BinaryOp};

#[allow(clippy::too_many_arguments)]
fn create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    alg_kind: dnnl_alg_kind_t,
    src0_desc: const_dnnl_memory_desc_t,
    src1_desc: const_dnnl_memory_desc_t,
    src2_desc: Option<const_dnnl_memory_desc_t>,
    dst_desc: const_dnnl_memory_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> Result<()> {
    let out = boundary::out(primitive_desc, "primitive_desc")?;
    let engine = handles::resolve(engine)?;
    let src0 = resolve_md(src0_desc)?;
    let src1 = resolve_md(src1_desc)?;
    let src2: Option<Arc<MemoryDesc>> = match src2_desc {
        Some(p) if !p.is_null() => Some(resolve_md(p)?),
        _ => None,
    };
    let dst = resolve_md(dst_desc)?;
    let attr = resolve_attr(attr)?;
    let default = PrimitiveAttr::default();
    let attr_ref = attr.as_deref().unwrap_or(&default);
    let op = Arc::new(BinaryOp::new(
        alg_kind,
        &src0,
        &src1,
        src2.as_deref(),
        &dst,
        attr_ref,
    )?);
    let candidates = binary::candidates(&op);
    let mut pd = PrimitiveDesc::create(engine, op, candidates)?;
    if let Some(attr) = attr.filter(|a| !a.is_default()) {
        pd = pd.with_attr((*attr).clone());
    }
    out.write(publish(pd));
    Ok(())
}

/// Creates a primitive descriptor for binary:
/// `dst = op(scale0 * src0, scale1 * src1)` for the `dnnl_binary_*`
/// algorithms but `select` (which needs `_v2`). Each dimension of
/// `src0_desc` and `src1_desc` is `dst_desc`'s or 1 (broadcast), one of the
/// two having `dst_desc`'s. `dst_desc` may be `any` (it takes `src0_desc`'s
/// layout with its own data type, or `src1_desc`'s when src0 is broadcast).
/// Attributes: scales of `DNNL_ARG_SRC_0` / `DNNL_ARG_SRC_1` (mask 0) and
/// post-ops; others are `dnnl_unimplemented`. On success the caller owns
/// `*primitive_desc` and releases it with `dnnl_primitive_desc_destroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_binary_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    alg_kind: dnnl_alg_kind_t,
    src0_desc: const_dnnl_memory_desc_t,
    src1_desc: const_dnnl_memory_desc_t,
    dst_desc: const_dnnl_memory_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_binary_primitive_desc_create", || {
        create(
            primitive_desc,
            engine,
            alg_kind,
            src0_desc,
            src1_desc,
            None,
            dst_desc,
            attr,
        )
    })
}

/// Creates a primitive descriptor for binary with a third input:
/// `dnnl_binary_select` computes `dst = src2 != 0 ? src0 : src1` (src2, the
/// condition, has its own data type, and broadcasts like src1); the other
/// algorithms take a NULL or zero `src2_desc`. Otherwise as
/// `dnnl_binary_primitive_desc_create`. On success the caller owns
/// `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_binary_primitive_desc_create_v2(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    alg_kind: dnnl_alg_kind_t,
    src0_desc: const_dnnl_memory_desc_t,
    src1_desc: const_dnnl_memory_desc_t,
    src2_desc: const_dnnl_memory_desc_t,
    dst_desc: const_dnnl_memory_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_binary_primitive_desc_create_v2", || {
        create(
            primitive_desc,
            engine,
            alg_kind,
            src0_desc,
            src1_desc,
            Some(src2_desc),
            dst_desc,
            attr,
        )
    })
}
