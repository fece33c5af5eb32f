//! Reduction primitive descriptors (`dnnl_reduction_primitive_desc_create`).
//!
//! The checks and implementations live in `prims::reduction`; this function
//! resolves the arguments and takes the one creation path
//! (`primitive_desc::create`).

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::primitive_desc::create;
use crate::capi::handles::resolve_md;
use crate::prims::reduction::ReductionOp;

/// Creates a primitive descriptor for a reduction of `src_desc` into
/// `dst_desc` (each dst dimension src's or 1; the dimensions of 1 where src
/// has more are reduced) with `alg_kind` one of `dnnl_reduction_*`; `p` and
/// `eps` are the Lp norms' parameters (p finite and at least 1 for those).
/// `dst_desc` may be `any` (src's order of dimensions). Attributes:
/// post-ops; others are `dnnl_unimplemented`. On success the caller owns
/// `*primitive_desc` and releases it with `dnnl_primitive_desc_destroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_reduction_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    alg_kind: dnnl_alg_kind_t,
    src_desc: const_dnnl_memory_desc_t,
    dst_desc: const_dnnl_memory_desc_t,
    p: f32,
    eps: f32,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_reduction_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let src = resolve_md(src_desc)?;
            let dst = resolve_md(dst_desc)?;
            ReductionOp::new(alg_kind, &src, &dst, p, eps, attr)
        })
    })
}
