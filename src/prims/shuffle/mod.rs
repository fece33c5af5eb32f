//! Shuffle forward and backward
//! (`dnnl_shuffle_{forward,backward}_primitive_desc_create`).
//!
//! Layer: prims. The axis of size `C` seen as a `C/G x G` row-major matrix
//! is transposed: forward `dst(.., c, ..) = src(.., c', ..)` with
//! `c = u + v*C/G` and `c' = u*G + v`; backward the inverse permutation
//! (`diff_src(.., c', ..) = diff_dst(.., c, ..)`, the forward one with `G`
//! replaced by `C/G`). Training and inference are the same. Both directions
//! move elements without converting them: every type a tensor may have
//! here (f32, f16, bf16, s32, s8, u8), src and dst of one type.
//! Implementations: `cpu:shuffle_plain` (threads over runs of the
//! innermost dimension), `ocl:shuffle_plain` (`shuffle.cl`: a work-item per
//! vector of output elements in the output's memory order).
//!
//! Checks as Intel's library makes them: a propagation kind other than
//! forward, src `any`, an axis outside `0..ndims` (negative ones too), dst
//! of other dimensions, a group size that is not a divisor of the axis
//! size (at most the axis size, at least 1): invalid arguments; src and dst
//! of other types or other layouts, run-time dimensions:
//! unimplemented. Layouts: plain strided (blocked ones are unimplemented).
//! `any`: forward dst takes src's descriptor; backward diff_src is plain
//! row-major and diff_dst takes diff_src's descriptor (as upstream, which
//! then refuses a diff_dst of another layout than a plain diff_src).

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

mod cpu;
mod ocl;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::abi::*;
use crate::core::attr::{AttrSupport, PrimitiveAttr};
use crate::core::error::{Error, Result};
use crate::core::key::KeyWriter;
use crate::core::memory_desc::{Format, MemoryDesc};
use crate::core::names;
use crate::core::primitive::{Impl, Kind, OpDesc, any_op};
use crate::prims::common::dt::Elem;
use crate::prims::common::layout::{Layout, resolve_like};

/// A shuffle, either direction.
pub struct ShuffleOp {
    backward: bool,
    prop_kind: dnnl_prop_kind_t,
    axis: usize,
    group_size: i64,
    /// (argument, descriptor): forward src, backward diff_dst.
    input: (i32, Arc<MemoryDesc>),
    /// (argument, descriptor): forward dst, backward diff_src.
    output: (i32, Arc<MemoryDesc>),
    /// The layout of both (they are the same).
    layout: Layout,
}

fn nonzero(md: &MemoryDesc, what: &str) -> Result<()> {
    if md.is_zero() || md.ndims() == 0 {
        return Err(Error::invalid(format!("shuffle {what} has no dimensions")));
    }
    Ok(())
}

/// The plain layout of `md` (both tensors have it).
fn plain_layout(md: &MemoryDesc) -> Result<Layout> {
    if md.has_runtime_dims_or_strides() {
        return Err(Error::unimplemented(
            "shuffle tensors with run-time dimensions or strides are not supported",
        ));
    }
    if !matches!(md.format(), Format::Blocked(_)) {
        return Err(Error::unimplemented(
            "shuffle: only blocked memory formats are supported",
        ));
    }
    if Elem::from_c(md.data_type()).is_none() {
        return Err(Error::unimplemented(format!(
            "shuffle: data type {} is not supported",
            names::enum_str(dnnl_data_type_t::ALL, md.data_type(), "dnnl_", "?")
        )));
    }
    let layout = Layout::new(md)?;
    if !layout.inner_blocks().is_empty() || layout.has_padding() {
        return Err(Error::unimplemented(
            "shuffle: blocked (or padded) layouts are not implemented, only plain strided ones",
        ));
    }
    if !layout.is_non_overlapping() {
        return Err(Error::unimplemented(
            "shuffle: a layout whose elements overlap is not supported",
        ));
    }
    Ok(layout)
}

/// `md`, or `reference`'s descriptor where `md` is `any` (of its own type
/// where that differs, which the checks then refuse).
fn like(md: &MemoryDesc, reference: &MemoryDesc) -> Result<MemoryDesc> {
    if !md.is_any_format() || md.dims() != reference.dims() {
        Ok(md.clone())
    } else if md.data_type() == reference.data_type() {
        Ok(reference.clone())
    } else {
        resolve_like(reference, md.dims(), md.data_type())
    }
}

/// The checks both directions share, on the input's (`data`, given) and the
/// output's (`out`, resolved) descriptors; returns the layout.
fn check(
    data: &MemoryDesc,
    out: &MemoryDesc,
    names: (&str, &str),
    axis: i32,
    group_size: i64,
) -> Result<Layout> {
    let n = data.ndims() as i32;
    if !(0..n).contains(&axis) {
        return Err(Error::invalid(format!(
            "shuffle axis {axis} is outside 0..{n}"
        )));
    }
    if out.dims() != data.dims() {
        return Err(Error::invalid(format!(
            "shuffle {} dimensions {:?} are not {}'s {:?}",
            names.1,
            out.dims(),
            names.0,
            data.dims()
        )));
    }
    let c = data.dims()[axis as usize];
    if group_size <= 0 || group_size > c || c % group_size != 0 {
        return Err(Error::invalid(format!(
            "shuffle group size {group_size} does not divide the axis size {c}"
        )));
    }
    if out.data_type() != data.data_type() {
        return Err(Error::unimplemented(format!(
            "shuffle: {} and {} have different data types",
            names.0, names.1
        )));
    }
    let layout = plain_layout(data)?;
    if out != data {
        return Err(Error::unimplemented(format!(
            "shuffle: {} and {} have different layouts",
            names.0, names.1
        )));
    }
    Ok(layout)
}

impl ShuffleOp {
    /// `dnnl_shuffle_forward_primitive_desc_create`'s checks: the shuffle of
    /// `src` into `dst` (which may be `any`) along `axis` with groups of
    /// `group_size`.
    pub fn forward(
        prop_kind: dnnl_prop_kind_t,
        src: &MemoryDesc,
        dst: &MemoryDesc,
        axis: i32,
        group_size: i64,
        _attr: &PrimitiveAttr,
    ) -> Result<ShuffleOp> {
        if !matches!(prop_kind, dnnl_forward_training | dnnl_forward_inference) {
            return Err(Error::invalid(format!(
                "bad propagation kind {} for shuffle forward",
                prop_kind.0
            )));
        }
        nonzero(src, "src")?;
        nonzero(dst, "dst")?;
        if src.is_any_format() {
            return Err(Error::invalid("unsupported format tag for src: any"));
        }
        let dst = like(dst, src)?;
        let layout = check(src, &dst, ("src", "dst"), axis, group_size)?;
        Ok(ShuffleOp {
            backward: false,
            prop_kind,
            axis: axis as usize,
            group_size,
            input: (DNNL_ARG_SRC, Arc::new(src.clone())),
            output: (DNNL_ARG_DST, Arc::new(dst)),
            layout,
        })
    }

    /// `dnnl_shuffle_backward_primitive_desc_create`'s checks: diff_src
    /// from diff_dst by the inverse of the forward shuffle with `axis` and
    /// `group_size` (`hint_fwd_pd` does not change the result). Either
    /// descriptor may be `any`.
    pub fn backward(
        diff_src: &MemoryDesc,
        diff_dst: &MemoryDesc,
        axis: i32,
        group_size: i64,
        _attr: &PrimitiveAttr,
    ) -> Result<ShuffleOp> {
        nonzero(diff_src, "diff_src")?;
        nonzero(diff_dst, "diff_dst")?;
        let diff_src = if diff_src.is_any_format() {
            MemoryDesc::with_strides(diff_src.dims(), diff_src.data_type(), None)?
        } else {
            diff_src.clone()
        };
        let diff_dst = like(diff_dst, &diff_src)?;
        let layout = check(
            &diff_dst,
            &diff_src,
            ("diff_dst", "diff_src"),
            axis,
            group_size,
        )?;
        Ok(ShuffleOp {
            backward: true,
            prop_kind: dnnl_backward_data,
            axis: axis as usize,
            group_size,
            input: (DNNL_ARG_DIFF_DST, Arc::new(diff_dst)),
            output: (DNNL_ARG_DIFF_SRC, Arc::new(diff_src)),
            layout,
        })
    }

    pub fn is_backward(&self) -> bool {
        self.backward
    }

    /// The shuffle axis.
    pub fn axis(&self) -> usize {
        self.axis
    }

    /// The group size the op was made with (the forward one, both ways).
    pub fn group_size(&self) -> i64 {
        self.group_size
    }

    /// The layout of the input and of the output.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The arguments: (input, output).
    pub fn args(&self) -> (i32, i32) {
        (self.input.0, self.output.0)
    }

    /// The groups of the permutation this direction applies: output element
    /// `c` on the axis reads input element `(c % (C/g)) * g + c / (C/g)`,
    /// `g` being this (`G` forward, `C/G` backward).
    pub fn groups(&self) -> i64 {
        let c = self.layout.dims[self.axis];
        if self.backward {
            c / self.group_size
        } else {
            self.group_size
        }
    }

    /// The input index on the axis that output index `c` reads.
    pub fn source_of(&self, c: i64) -> i64 {
        let g = self.groups();
        let rows = self.layout.dims[self.axis] / g;
        c % rows * g + c / rows
    }
}

impl OpDesc for ShuffleOp {
    fn kind(&self) -> dnnl_primitive_kind_t {
        dnnl_shuffle
    }

    fn prop_kind(&self) -> dnnl_prop_kind_t {
        self.prop_kind
    }

    fn arg_md(&self, arg: i32) -> Option<&Arc<MemoryDesc>> {
        [&self.input, &self.output]
            .into_iter()
            .find(|t| t.0 == arg)
            .map(|t| &t.1)
    }

    fn inputs(&self) -> Vec<i32> {
        vec![self.input.0]
    }

    fn outputs(&self) -> Vec<i32> {
        vec![self.output.0]
    }

    fn query_s32(&self, what: dnnl_query_t) -> Option<i32> {
        (what == dnnl_query_axis_s32).then_some(self.axis as i32)
    }

    fn query_s64(&self, what: dnnl_query_t) -> Option<i64> {
        (what == dnnl_query_group_size_s64).then_some(self.group_size)
    }

    fn verbose_aux(&self) -> String {
        format!("axis:{} group:{}", self.axis, self.group_size)
    }

    fn cache_key(&self, w: &mut KeyWriter) -> bool {
        w.tag("shuffle")
            .put(&self.prop_kind)
            .usize(self.axis)
            .i64(self.group_size)
            .i32(self.input.0)
            .put(&self.input.1)
            .i32(self.output.0)
            .put(&self.output.1);
        true
    }
}

impl Kind for ShuffleOp {
    const NAME: &'static str = "shuffle";
    const IMPLS: &'static [Impl<ShuffleOp>] = &[
        Impl::cpu(c"cpu:shuffle_plain", any_op, cpu::create),
        Impl::gpu(c"ocl:shuffle_plain", any_op, ocl::create),
    ];

    fn attr_support(&self) -> AttrSupport {
        AttrSupport::NONE
    }
}

/// The dimensions of the op's tensors of more than one element in memory
/// order (outermost first): (size, stride, whether it is the axis).
pub(crate) fn walk(op: &ShuffleOp) -> Vec<(i64, i64, bool)> {
    let l = &op.layout;
    let strides = l.outer_strides();
    let mut dims: Vec<(i64, i64, bool)> = (0..l.ndims)
        .filter(|&d| l.dims[d] > 1)
        .map(|d| (l.dims[d], strides[d], d == op.axis))
        .collect();
    // A stable sort: dimensions of equal strides (only where one of them
    // has a single element, left out above) keep their logical order.
    dims.sort_by_key(|&(_, s, _)| std::cmp::Reverse(s));
    dims
}
