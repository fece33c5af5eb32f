//! Matmul primitive descriptors (`dnnl_matmul_primitive_desc_create`).
//!
//! The checks and implementations live in `prims::matmul`; this function
//! resolves the kind's arguments and takes the one creation path
//! (`primitive_desc::create`).

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::primitive_desc::{create, optional_md};
use crate::capi::handles::resolve_md;
use crate::prims::matmul::MatmulOp;

/// Creates a primitive descriptor for matmul: `dst = src · weights + bias`
/// over the last two dimensions, batched (with broadcast) over the others.
/// `bias_desc` may be NULL or the zero descriptor (no bias). `src_desc`,
/// `weights_desc` and `dst_desc` may use `format_tag::any` (plain row-major
/// is chosen) and `DNNL_RUNTIME_DIM_VAL` dimensions and strides (the memory
/// objects give them at execution). Attributes: scales for src, weights and
/// dst, post-ops; see `prims::matmul` for the rest. On success the caller
/// owns `*primitive_desc` and releases it with `dnnl_primitive_desc_destroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_matmul_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    src_desc: const_dnnl_memory_desc_t,
    weights_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_desc: const_dnnl_memory_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_matmul_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let src = resolve_md(src_desc)?;
            let weights = resolve_md(weights_desc)?;
            let bias = optional_md(bias_desc)?;
            let dst = resolve_md(dst_desc)?;
            MatmulOp::new(&src, &weights, bias.as_deref(), &dst, Some(attr))
        })
    })
}
