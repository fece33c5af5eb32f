//! Binary primitive descriptors (`dnnl_binary_primitive_desc_create{,_v2}`).
//!
//! The checks and implementations live in `prims::binary`; these functions
//! resolve the kind's arguments and take the one creation path
//! (`primitive_desc::create`).

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::primitive_desc::{create, optional_md};
use crate::capi::handles::resolve_md;
use crate::prims::binary::BinaryOp;

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
        create(primitive_desc, engine, attr, |attr| {
            let (src0, src1) = (resolve_md(src0_desc)?, resolve_md(src1_desc)?);
            let dst = resolve_md(dst_desc)?;
            BinaryOp::new(alg_kind, &src0, &src1, None, &dst, attr)
        })
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
        create(primitive_desc, engine, attr, |attr| {
            let (src0, src1) = (resolve_md(src0_desc)?, resolve_md(src1_desc)?);
            let src2 = optional_md(src2_desc)?;
            let dst = resolve_md(dst_desc)?;
            BinaryOp::new(alg_kind, &src0, &src1, src2.as_deref(), &dst, attr)
        })
    })
}
