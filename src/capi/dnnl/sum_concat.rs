//! Sum and concat primitive descriptors (`dnnl_sum_primitive_desc_create`,
//! `dnnl_concat_primitive_desc_create`).
//!
//! The checks and implementations live in `prims::sum` and `prims::concat`;
//! these functions resolve the kind's arguments (arrays of descriptors) and
//! take the one creation path (`primitive_desc::create`).

use ::core::ffi::c_int;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::primitive_desc::{create, optional_md};
use crate::capi::handles::resolve_md;
use crate::core::memory_desc::MemoryDesc;
use crate::core::{Error, Result};
use crate::prims::concat::ConcatOp;
use crate::prims::sum::SumOp;

/// The `n` source descriptors behind `src_descs`.
fn sources(n: c_int, src_descs: *const const_dnnl_memory_desc_t) -> Result<Vec<MemoryDesc>> {
    if n <= 0 {
        return Err(Error::invalid(format!(
            "{n} sources: at least one is needed"
        )));
    }
    if src_descs.is_null() {
        return Err(Error::invalid("src_descs is NULL"));
    }
    // SAFETY: the caller passes an array of `n` descriptors.
    let mds = unsafe { std::slice::from_raw_parts(src_descs, n as usize) };
    mds.iter()
        .map(|&md| Ok((*resolve_md(md)?).clone()))
        .collect()
}

/// Creates a primitive descriptor for `dst = Σ scales[i] * src_i` over `n`
/// sources (`DNNL_ARG_MULTIPLE_SRC + i`). `dst_desc` may be NULL or use
/// `format_tag::any`: it then takes source 0's dimensions and layout (and
/// its type, unless `dst_desc` names one). Attributes: the defaults only.
/// On success the caller owns `*sum_primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_sum_primitive_desc_create(
    sum_primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    dst_desc: const_dnnl_memory_desc_t,
    n: c_int,
    scales: *const f32,
    src_descs: *const const_dnnl_memory_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_sum_primitive_desc_create", || {
        create(sum_primitive_desc, engine, attr, |attr| {
            let srcs = sources(n, src_descs)?;
            if scales.is_null() {
                return Err(Error::invalid("scales is NULL"));
            }
            // SAFETY: the caller passes `n` scales (`sources` checked n > 0).
            let scales = unsafe { std::slice::from_raw_parts(scales, n as usize) };
            let dst = optional_md(dst_desc)?;
            SumOp::new(dst.as_deref(), scales, &srcs, Some(attr))
        })
    })
}

/// Creates a primitive descriptor joining `n` sources
/// (`DNNL_ARG_MULTIPLE_SRC + i`) along `concat_dimension`. `dst_desc` may
/// be NULL or use `format_tag::any`: it then takes the concatenated
/// dimensions and source 0's layout (and its type, unless `dst_desc` names
/// one). Attributes: a scale per source (mask 0) only. On success the
/// caller owns `*concat_primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_concat_primitive_desc_create(
    concat_primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    dst_desc: const_dnnl_memory_desc_t,
    n: c_int,
    concat_dimension: c_int,
    src_descs: *const const_dnnl_memory_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_concat_primitive_desc_create", || {
        create(concat_primitive_desc, engine, attr, |attr| {
            let srcs = sources(n, src_descs)?;
            let dst = optional_md(dst_desc)?;
            ConcatOp::new(dst.as_deref(), concat_dimension, &srcs, Some(attr))
        })
    })
}
