//! Reorder primitive descriptors (`dnnl_reorder_primitive_desc_create`).
//!
//! The checks and implementations live in `prims::reorder`; this function
//! resolves handles and attributes and publishes the result.

use std::sync::Arc;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::primitive_desc::publish;
use crate::core::attr::resolve_attr;
use crate::core::handles;
use crate::core::memory_desc::resolve_md;
use crate::core::primitive::PrimitiveDesc;
use crate::prims::reorder::{self, ReorderOp};

/// Creates a primitive descriptor for a reorder from `src_desc` on
/// `src_engine` to `dst_desc` on `dst_engine` (execution arguments
/// `DNNL_ARG_FROM` and `DNNL_ARG_TO`). The engines may be one CPU and one
/// OpenCL engine; the primitive then runs on the OpenCL engine's stream.
/// Attributes: scales and zero points for `DNNL_ARG_SRC`/`DNNL_ARG_DST`
/// (f32 / s32, any mask) and one sum post-op; anything else is
/// `dnnl_unimplemented`. `format_tag::any` on either side is
/// `dnnl_invalid_arguments`. On success the caller owns
/// `*reorder_primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_reorder_primitive_desc_create(
    reorder_primitive_desc: *mut dnnl_primitive_desc_t,
    src_desc: const_dnnl_memory_desc_t,
    src_engine: dnnl_engine_t,
    dst_desc: const_dnnl_memory_desc_t,
    dst_engine: dnnl_engine_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_reorder_primitive_desc_create", || {
        let out = boundary::out(reorder_primitive_desc, "reorder_primitive_desc")?;
        let src = resolve_md(src_desc)?;
        let dst = resolve_md(dst_desc)?;
        let src_engine = handles::resolve(src_engine)?;
        let dst_engine = handles::resolve(dst_engine)?;
        let attr = resolve_attr(attr)?;
        let op = Arc::new(ReorderOp::new(
            &src,
            src_engine,
            &dst,
            dst_engine,
            attr.as_deref(),
        )?);
        let engine = op.pd_engine();
        let candidates = reorder::candidates(&op);
        let mut pd = PrimitiveDesc::create(engine, op, candidates)?;
        if let Some(attr) = attr.filter(|a| !a.is_default()) {
            pd = pd.with_attr((*attr).clone());
        }
        out.write(publish(pd));
        Ok(())
    })
}
