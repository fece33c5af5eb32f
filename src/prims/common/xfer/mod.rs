//! The data movement reorder, sum and concat share: a transfer
//! [`Plan`](plan::Plan) of passes (`plan.rs`), its implementations on the
//! CPU engine and on GPU engines (`ocl.rs`, over `xfer.cl`; reorders also
//! `blocked.rs`, over `blocked.cl`), and the
//! descriptor helpers the three kinds use alike (checking a descriptor, the
//! arguments of several sources; `any` is resolved by
//! `layout::resolve_like`).
//!
//! Layer: prims. The kinds build a plan from their descriptors and list
//! [`plan_impls`](ocl::plan_impls) as their implementations.

pub(crate) mod blocked;
pub(crate) mod ocl;
pub(crate) mod plan;
mod transpose;

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
