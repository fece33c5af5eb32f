//! The data movement reorder, sum and concat share: a transfer
//! [`Plan`](plan::Plan) of passes (`plan.rs`), its implementations on the
//! CPU engine and on GPU engines (`ocl.rs`, over `xfer.cl`), and the
//! descriptor helpers the three kinds use alike (checking a descriptor,
//! resolving `any` like another one, the arguments of several sources).
//!
//! Layer: prims. The kinds build a plan from their descriptors and list
//! [`plan_impls`](ocl::plan_impls) as their implementations.

pub(crate) mod ocl;
pub(crate) mod plan;

use std::sync::Arc;

use crate::abi::*;
use crate::core::error::{Error, Result};
use crate::core::memory_desc::{Format, MemoryDesc};
use crate::prims::common::layout::Layout;
use plan::elem_of;

/// The descriptor of execution argument `arg` of an op with n sources
/// (`DNNL_ARG_MULTIPLE_SRC + i`) and a destination: what sum and concat
/// answer.
pub(crate) fn multi_src_arg_md<'a>(
    srcs: &'a [Arc<MemoryDesc>],
    dst: &'a Arc<MemoryDesc>,
    arg: i32,
) -> Option<&'a Arc<MemoryDesc>> {
    if arg == DNNL_ARG_DST {
        return Some(dst);
    }
    let i = arg - DNNL_ARG_MULTIPLE_SRC;
    (i >= 0).then(|| srcs.get(i as usize)).flatten()
}

/// The inputs of an op with `n` sources: `DNNL_ARG_MULTIPLE_SRC + i`.
pub(crate) fn multi_src_inputs(n: usize) -> Vec<i32> {
    (0..n as i32).map(|i| DNNL_ARG_MULTIPLE_SRC + i).collect()
}

/// Checks a memory descriptor every data-movement kind takes: dimensions,
/// blocked (not `any`), no run-time values, a supported type.
pub(crate) fn check_md(md: &MemoryDesc, what: &str) -> Result<Layout> {
    if md.is_zero() {
        return Err(Error::invalid(format!(
            "the {what} memory descriptor has no dimensions"
        )));
    }
    if md.is_any_format() {
        return Err(Error::invalid(format!(
            "unsupported format tag for {what}: any"
        )));
    }
    if md.has_runtime_dims_or_strides() {
        return Err(Error::unimplemented(format!(
            "{what} has run-time dimensions or strides"
        )));
    }
    if !matches!(md.format(), Format::Blocked(_)) {
        return Err(Error::unimplemented(format!(
            "{what}: only blocked memory formats are supported"
        )));
    }
    elem_of(md.data_type(), what)?;
    Layout::new(md)
}

/// A descriptor of `dims` and type `dt` laid out like `reference` (the same
/// order of dimensions and the same inner blocks), dense: how sum and concat
/// resolve a destination given as `any` or NULL.
pub(crate) fn resolve_like(
    reference: &MemoryDesc,
    dims: &[i64],
    dt: dnnl_data_type_t,
) -> Result<MemoryDesc> {
    let blocking = reference
        .blocking()
        .ok_or_else(|| Error::unimplemented("the reference is not blocked"))?;
    let n = reference.ndims();
    if blocking.inner_nblks == 0 {
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| blocking.strides[b].cmp(&blocking.strides[a]));
        let mut strides = vec![0i64; n];
        let mut s = 1i64;
        for &d in order.iter().rev() {
            strides[d] = s;
            s *= dims[d].max(1);
        }
        return MemoryDesc::with_strides(dims, dt, Some(&strides));
    }
    let loops = |l: &Layout| {
        l.loops()
            .iter()
            .map(|p| (p.size, p.dim, p.unit))
            .collect::<Vec<_>>()
    };
    let wanted = loops(&Layout::new(reference)?);
    for (_, tag) in dnnl_format_tag_t::ALL {
        if let Ok(md) = MemoryDesc::with_tag(reference.dims(), reference.data_type(), *tag) {
            if md.ndims() == n
                && md.padded_dims() == reference.padded_dims()
                && Layout::new(&md).is_ok_and(|l| loops(&l) == wanted)
            {
                return MemoryDesc::with_tag(dims, dt, *tag);
            }
        }
    }
    Err(Error::unimplemented(
        "format 'any' cannot follow this blocked layout (no format tag describes it)",
    ))
}
