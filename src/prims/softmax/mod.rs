//! Softmax forward and backward along one axis
//! (`dnnl_softmax_{forward,backward}_primitive_desc_create`).
//!
//! Layer: prims. This file holds the descriptor logic (upstream's rules) and
//! the implementations, best first:
//! - `cpu:softmax_rows`: any blocked layouts; rows (every position but the
//!   axis) are split over the host's threads;
//! - `ocl:softmax_rows` (`softmax.cl`): one work-group per row with
//!   local-memory reductions when the axis is long (128 elements or more,
//!   or 16 contiguous ones), one work-item per row otherwise.
//!
//! Algorithms: `dnnl_softmax_accurate` (`exp(x - max) / sum`) and
//! `dnnl_softmax_log` (`x - max - log(sum)`), computed in `f32` with the
//! maximum subtracted. oneDNN v3.13's C enumeration has no
//! `softmax_accurate_inf_as_zero`, so there is none here. Backward:
//! accurate `diff_src = dst * (diff_dst - sum(diff_dst * dst))`, log
//! `diff_src = diff_dst - exp(dst) * sum(diff_dst)`.
//!
//! Types: forward src f32/f16/bf16, dst any of f32/f16/bf16/s8/u8 (integer
//! stores round and saturate); backward f32/f16/bf16. Attributes (forward):
//! scales of `DNNL_ARG_SRC` and `DNNL_ARG_DST` (mask 0, f32):
//! `dst = post_ops(softmax(src) * src_scale) / dst_scale`, and post-ops;
//! anything else is unimplemented. Padding of the output is written with
//! zeros. `dst` (forward) and `diff_src` / `diff_dst` (backward) may be
//! `any`: they take the layout of src (forward) or dst (backward).

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

mod cpu;
mod ocl;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::abi::*;
use crate::core::attr::PrimitiveAttr;
use crate::core::attr::{AttrPart, AttrSupport};
use crate::core::error::{Error, Result};
use crate::core::key::KeyWriter;
use crate::core::memory_desc::{Format, MemoryDesc};
use crate::core::names;
use crate::core::primitive::{Impl, Kind, OpDesc, any_op};
use crate::prims::common::dt::Elem;
use crate::prims::common::layout::Layout;
use crate::prims::common::layout::resolve_any;
use crate::prims::common::post_ops::PostOpsPlan;

/// The softmax algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Alg {
    Accurate,
    Log,
}

impl Alg {
    pub fn from_c(alg: dnnl_alg_kind_t) -> Option<Alg> {
        match alg {
            dnnl_softmax_accurate => Some(Alg::Accurate),
            dnnl_softmax_log => Some(Alg::Log),
            _ => None,
        }
    }

    pub fn to_c(self) -> dnnl_alg_kind_t {
        match self {
            Alg::Accurate => dnnl_softmax_accurate,
            Alg::Log => dnnl_softmax_log,
        }
    }
}

/// A softmax operation, either direction.
///
/// Forward: inputs `[src]`, output dst. Backward: inputs `[dst, diff_dst]`,
/// output diff_src.
pub struct SoftmaxOp {
    backward: bool,
    prop_kind: dnnl_prop_kind_t,
    alg: Alg,
    axis: usize,
    /// (argument, descriptor) of the inputs, in kernel order.
    inputs: Vec<(i32, Arc<MemoryDesc>)>,
    out: (i32, Arc<MemoryDesc>),
    in_layouts: Vec<Layout>,
    out_layout: Layout,
    /// Whether src / dst are scaled (forward).
    scales: [bool; 2],
    post_ops: PostOpsPlan,
}

fn check_md(md: &MemoryDesc, what: &str, reference: &MemoryDesc) -> Result<()> {
    if md.is_zero() {
        return Err(Error::invalid(format!(
            "the {what} memory descriptor has no dimensions"
        )));
    }
    if md.ndims() != reference.ndims() || md.dims() != reference.dims() {
        return Err(Error::invalid(format!(
            "dimensions of {what} {:?} are inconsistent with {:?}",
            md.dims(),
            reference.dims()
        )));
    }
    if md.has_runtime_dims_or_strides() {
        return Err(Error::unimplemented(format!(
            "{what} has run-time dimensions or strides"
        )));
    }
    if !matches!(md.format(), Format::Blocked(_) | Format::Any) {
        return Err(Error::unimplemented(format!(
            "{what}: only blocked memory formats are supported"
        )));
    }
    Ok(())
}

fn elem(md: &MemoryDesc, what: &str, int_ok: bool) -> Result<Elem> {
    match Elem::from_c(md.data_type()) {
        Some(e) if int_ok || !e.is_int() => Ok(e),
        _ => Err(Error::unimplemented(format!(
            "softmax {what}: data type {} is not supported",
            names::enum_str(dnnl_data_type_t::ALL, md.data_type(), "dnnl_", "?")
        ))),
    }
}

fn check_axis(axis: i32, md: &MemoryDesc) -> Result<usize> {
    if axis < 0 || axis as usize >= md.ndims() {
        return Err(Error::invalid(format!(
            "softmax axis {axis} is outside 0..{}",
            md.ndims()
        )));
    }
    Ok(axis as usize)
}

fn resolve(md: &MemoryDesc, reference: &MemoryDesc) -> Result<MemoryDesc> {
    if md.is_any_format() {
        resolve_any(Some(reference), reference.dims(), md.data_type())
    } else {
        Ok(md.clone())
    }
}

impl SoftmaxOp {
    /// `dnnl_softmax_forward_primitive_desc_create`'s checks.
    pub fn forward(
        prop_kind: dnnl_prop_kind_t,
        alg_kind: dnnl_alg_kind_t,
        src: &MemoryDesc,
        dst: &MemoryDesc,
        axis: i32,
        attr: &PrimitiveAttr,
    ) -> Result<SoftmaxOp> {
        if !matches!(prop_kind, dnnl_forward_training | dnnl_forward_inference) {
            return Err(Error::invalid(format!(
                "bad propagation kind {} for softmax forward",
                prop_kind.0
            )));
        }
        let alg = Alg::from_c(alg_kind).ok_or_else(|| {
            Error::invalid(format!("{:#x} is not a softmax algorithm", alg_kind.0))
        })?;
        check_md(src, "src", src)?;
        check_md(dst, "dst", src)?;
        if src.is_any_format() {
            return Err(Error::invalid("unsupported format tag for src: any"));
        }
        let axis = check_axis(axis, src)?;
        elem(src, "src", false)?;
        elem(dst, "dst", true)?;
        let dst = resolve(dst, src)?;
        let mut scales = [false; 2];
        for (arg, spec) in &attr.scales {
            if spec.mask != 0
                || spec.groups.is_some()
                || spec.data_type != dnnl_f32
                || spec.on_host
                || spec.qmode != dnnl_quantization_mode_static_sazp
            {
                return Err(Error::unimplemented(
                    "softmax scales: only a common static f32 scale in device memory (mask 0) is supported",
                ));
            }
            scales[usize::from(*arg == DNNL_ARG_DST)] = true;
        }
        let post_ops = PostOpsPlan::new(&attr.post_ops, &dst)?;
        Ok(SoftmaxOp {
            backward: false,
            prop_kind,
            alg,
            axis,
            in_layouts: vec![Layout::new(src)?],
            out_layout: Layout::new(&dst)?,
            inputs: vec![(DNNL_ARG_SRC, Arc::new(src.clone()))],
            out: (DNNL_ARG_DST, Arc::new(dst)),
            scales,
            post_ops,
        })
    }

    /// `dnnl_softmax_backward_primitive_desc_create`'s checks.
    pub fn backward(
        alg_kind: dnnl_alg_kind_t,
        diff_src: &MemoryDesc,
        diff_dst: &MemoryDesc,
        dst: &MemoryDesc,
        axis: i32,
        _attr: &PrimitiveAttr,
    ) -> Result<SoftmaxOp> {
        let alg = Alg::from_c(alg_kind).ok_or_else(|| {
            Error::invalid(format!("{:#x} is not a softmax algorithm", alg_kind.0))
        })?;
        check_md(dst, "dst", dst)?;
        check_md(diff_dst, "diff_dst", dst)?;
        check_md(diff_src, "diff_src", dst)?;
        if dst.is_any_format() {
            return Err(Error::invalid("unsupported format tag for dst: any"));
        }
        let axis = check_axis(axis, dst)?;
        elem(dst, "dst", false)?;
        elem(diff_dst, "diff_dst", false)?;
        elem(diff_src, "diff_src", false)?;
        let diff_dst = resolve(diff_dst, dst)?;
        let diff_src = resolve(diff_src, dst)?;
        Ok(SoftmaxOp {
            backward: true,
            prop_kind: dnnl_backward_data,
            alg,
            axis,
            in_layouts: vec![Layout::new(dst)?, Layout::new(&diff_dst)?],
            out_layout: Layout::new(&diff_src)?,
            inputs: vec![
                (DNNL_ARG_DST, Arc::new(dst.clone())),
                (DNNL_ARG_DIFF_DST, Arc::new(diff_dst)),
            ],
            out: (DNNL_ARG_DIFF_SRC, Arc::new(diff_src)),
            scales: [false; 2],
            post_ops: PostOpsPlan::none(),
        })
    }

    pub fn is_backward(&self) -> bool {
        self.backward
    }

    pub fn alg(&self) -> Alg {
        self.alg
    }

    pub fn axis(&self) -> usize {
        self.axis
    }

    /// Input layouts: `[src]` forward, `[dst, diff_dst]` backward.
    pub fn in_layouts(&self) -> &[Layout] {
        &self.in_layouts
    }

    pub fn out_layout(&self) -> &Layout {
        &self.out_layout
    }

    /// The execution arguments of the inputs, in the order of the layouts.
    pub fn input_args(&self) -> Vec<i32> {
        self.inputs.iter().map(|i| i.0).collect()
    }

    pub fn out_arg(&self) -> i32 {
        self.out.0
    }

    /// Whether src / dst are scaled.
    pub fn scales(&self) -> [bool; 2] {
        self.scales
    }

    pub fn post_ops(&self) -> &PostOpsPlan {
        &self.post_ops
    }
}

impl OpDesc for SoftmaxOp {
    fn kind(&self) -> dnnl_primitive_kind_t {
        dnnl_softmax
    }

    fn prop_kind(&self) -> dnnl_prop_kind_t {
        self.prop_kind
    }

    fn alg_kind(&self) -> dnnl_alg_kind_t {
        self.alg.to_c()
    }

    fn arg_md(&self, arg: i32) -> Option<&Arc<MemoryDesc>> {
        if arg == self.out.0 {
            return Some(&self.out.1);
        }
        if let Some((_, md)) = self.inputs.iter().find(|i| i.0 == arg) {
            return Some(md);
        }
        self.post_ops.arg_md(arg)
    }

    fn inputs(&self) -> Vec<i32> {
        let mut v = self.input_args();
        v.extend(self.post_ops.inputs());
        v
    }

    fn outputs(&self) -> Vec<i32> {
        vec![self.out.0]
    }

    fn query_s32(&self, what: dnnl_query_t) -> Option<i32> {
        (what == dnnl_query_axis_s32).then_some(self.axis as i32)
    }

    fn verbose_aux(&self) -> String {
        let name = names::enum_str(dnnl_alg_kind_t::ALL, self.alg.to_c(), "dnnl_", "unknown");
        format!("alg:{name} axis:{}", self.axis)
    }

    fn cache_key(&self, w: &mut KeyWriter) -> bool {
        w.tag("softmax")
            .put(&self.prop_kind)
            .put(&self.alg.to_c())
            .usize(self.axis)
            .put(&self.inputs)
            .put(&self.out)
            .put(&self.scales);
        self.post_ops.cache_key(w);
        true
    }
}

impl Kind for SoftmaxOp {
    const NAME: &'static str = "softmax";
    const IMPLS: &'static [Impl<SoftmaxOp>] = &[
        Impl::cpu(c"cpu:softmax_rows", any_op, cpu::create),
        Impl::gpu(c"ocl:softmax_rows", any_op, ocl::create),
    ];

    fn attr_support(&self) -> AttrSupport {
        if self.backward {
            return AttrSupport::NONE;
        }
        AttrSupport {
            parts: &[AttrPart::Scales, AttrPart::PostOps],
            scales: |arg| matches!(arg, DNNL_ARG_SRC | DNNL_ARG_DST),
            zero_points: |_| false,
        }
    }
}

/// The rows of `op`: every padded position of the output but along the
/// axis, row-major over the other dimensions.
pub(crate) struct Rows {
    /// Number of rows.
    pub count: i64,
    /// (dimension, padded size, divisor of the row index), the axis left out.
    pub dims: Vec<(usize, i64, i64)>,
}

impl Rows {
    pub fn of(out: &Layout, axis: usize) -> Rows {
        let mut dims = Vec::new();
        let mut div = 1i64;
        for d in (0..out.ndims).rev() {
            if d == axis {
                continue;
            }
            dims.push((d, out.padded_dims[d], div));
            div *= out.padded_dims[d];
        }
        dims.reverse();
        Rows { count: div, dims }
    }
}
