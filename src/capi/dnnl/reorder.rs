//! Reorder primitive descriptors (`dnnl_reorder_primitive_desc_create`).
//!
//! The checks and implementations live in `prims::reorder`; this function
//! resolves the kind's arguments and takes the one creation path
//! (`primitive_desc::create_on`: the primitive runs on one of the two
//! engines).

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::primitive_desc::create_on;
use crate::capi::handles;
use crate::capi::handles::resolve_md;
use crate::prims::reorder::ReorderOp;

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
        create_on(reorder_primitive_desc, attr, |attr| {
            let src = resolve_md(src_desc)?;
            let dst = resolve_md(dst_desc)?;
            let src_engine = handles::resolve(src_engine)?;
            let dst_engine = handles::resolve(dst_engine)?;
            let op = ReorderOp::new(&src, src_engine, &dst, dst_engine, Some(attr))?;
            Ok((op.pd_engine(), op))
        })
    })
}
