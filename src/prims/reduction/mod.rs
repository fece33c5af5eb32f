//! Reduction (`dnnl_reduction_primitive_desc_create`).
//!
//! Layer: prims. This file holds the descriptor logic (upstream's rules) and
//! the plan both implementations follow, best first:
//! - `cpu:reduction_plain`: outputs split over the host's threads (or, when
//!   there are fewer outputs than threads, each output's reduction split);
//! - `ocl:reduction_plain` (`reduction.cl`): a work-group per tile of outputs
//!   with work-items along the reduction, reduced through local memory, and a
//!   second pass over partial results when few outputs reduce long axes.
//!
//! The reduced dimensions are those where dst has 1 and src more (or none):
//! any subset but none at all (an identity is invalid, as upstream's). Every
//! algorithm accumulates in `f32`: max, min, sum, mul, mean (`sum / R`, with
//! `R` the elements reduced into one output), and for the Lp norms the sum
//! `S` of `|x|^p`, finished as `norm_lp_max`: `max(S, eps)^(1/p)`,
//! `norm_lp_sum`: `(S + eps)^(1/p)`, `norm_lp_power_p_max`: `max(S, eps)`,
//! `norm_lp_power_p_sum`: `S + eps` (checked against Intel's library).
//! The Lp norms need a finite `p >= 1` and a floating-point source.
//!
//! Types: src and dst f32, f16, bf16, s8, u8 or s32 in any combination;
//! integer stores round half to even and saturate. Attributes: post-ops
//! (sum, eltwise, binary, prelu), applied to the finished value.
//!
//! Layouts: any plain strided layout (permuted, padded strides, offsets);
//! blocked layouts are unimplemented. `dst` may be `any`: it takes src's
//! order of dimensions, dense (src may not be `any`).

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

mod cpu;
pub(crate) mod ocl;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::abi::*;
use crate::core::attr::{AttrPart, AttrSupport, PrimitiveAttr};
use crate::core::error::{Error, Result};
use crate::core::key::KeyWriter;
use crate::core::memory_desc::{Format, MemoryDesc};
use crate::core::names;
use crate::core::primitive::{Impl, Kind, OpDesc, any_op};
use crate::prims::common::dt::Elem;
use crate::prims::common::layout::{Layout, resolve_like};
use crate::prims::common::post_ops::PostOpsPlan;

/// The reduction algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Alg {
    Max,
    Min,
    Sum,
    Mul,
    Mean,
    NormLpMax,
    NormLpSum,
    NormLpPowerPMax,
    NormLpPowerPSum,
}

impl Alg {
    pub fn from_c(alg: dnnl_alg_kind_t) -> Option<Alg> {
        Some(match alg {
            dnnl_reduction_max => Alg::Max,
            dnnl_reduction_min => Alg::Min,
            dnnl_reduction_sum => Alg::Sum,
            dnnl_reduction_mul => Alg::Mul,
            dnnl_reduction_mean => Alg::Mean,
            dnnl_reduction_norm_lp_max => Alg::NormLpMax,
            dnnl_reduction_norm_lp_sum => Alg::NormLpSum,
            dnnl_reduction_norm_lp_power_p_max => Alg::NormLpPowerPMax,
            dnnl_reduction_norm_lp_power_p_sum => Alg::NormLpPowerPSum,
            _ => return None,
        })
    }

    pub fn to_c(self) -> dnnl_alg_kind_t {
        match self {
            Alg::Max => dnnl_reduction_max,
            Alg::Min => dnnl_reduction_min,
            Alg::Sum => dnnl_reduction_sum,
            Alg::Mul => dnnl_reduction_mul,
            Alg::Mean => dnnl_reduction_mean,
            Alg::NormLpMax => dnnl_reduction_norm_lp_max,
            Alg::NormLpSum => dnnl_reduction_norm_lp_sum,
            Alg::NormLpPowerPMax => dnnl_reduction_norm_lp_power_p_max,
            Alg::NormLpPowerPSum => dnnl_reduction_norm_lp_power_p_sum,
        }
    }

    /// Whether this is one of the Lp norms (accumulating `|x|^p`).
    pub fn is_lp(self) -> bool {
        matches!(
            self,
            Alg::NormLpMax | Alg::NormLpSum | Alg::NormLpPowerPMax | Alg::NormLpPowerPSum
        )
    }

    /// The accumulator's start.
    pub fn init(self) -> f32 {
        match self {
            Alg::Max => f32::NEG_INFINITY,
            Alg::Min => f32::INFINITY,
            Alg::Mul => 1.0,
            _ => 0.0,
        }
    }

    /// Two accumulators (partial results) combined.
    pub fn combine(self, a: f32, b: f32) -> f32 {
        match self {
            Alg::Max => a.max(b),
            Alg::Min => a.min(b),
            Alg::Mul => a * b,
            _ => a + b,
        }
    }

    /// The accumulator of `r` elements finished into the result.
    pub fn finish(self, acc: f32, p: f32, eps: f32, r: i64) -> f32 {
        match self {
            Alg::Mean => acc / r as f32,
            Alg::NormLpMax => acc.max(eps).powf(1.0 / p),
            Alg::NormLpSum => (acc + eps).powf(1.0 / p),
            Alg::NormLpPowerPMax => acc.max(eps),
            Alg::NormLpPowerPSum => acc + eps,
            _ => acc,
        }
    }

    /// Its code in `reduction.cl` (`-DALG=`).
    fn cl_code(self) -> u32 {
        match self {
            Alg::Max => 0,
            Alg::Min => 1,
            Alg::Sum => 2,
            Alg::Mul => 3,
            Alg::Mean => 4,
            Alg::NormLpMax => 5,
            Alg::NormLpSum => 6,
            Alg::NormLpPowerPMax => 7,
            Alg::NormLpPowerPSum => 8,
        }
    }
}

/// A dimension both tensors keep (dst has src's extent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Idle {
    /// The logical dimension (a post-op's position).
    pub dim: usize,
    pub size: i64,
    pub src_stride: i64,
    pub dst_stride: i64,
}

/// How the tensors are walked: the output index `o` runs over the idle
/// dimensions in dst's memory order (outermost first), the reduction index
/// `r` over the reduced ones in src's memory order, with reduced dimensions
/// that are contiguous with each other merged into one.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub idle: Vec<Idle>,
    /// (size, src stride), outermost first.
    pub red: Vec<(i64, i64)>,
    /// Number of outputs.
    pub outputs: i64,
    /// Elements reduced into each output.
    pub r: i64,
}

impl Plan {
    fn new(src: &Layout, dst: &Layout) -> Plan {
        let (ss, ds) = (src.outer_strides(), dst.outer_strides());
        let mut idle = Vec::new();
        let mut red = Vec::new();
        for d in 0..src.ndims {
            if dst.dims[d] == src.dims[d] {
                if src.dims[d] != 1 {
                    idle.push(Idle {
                        dim: d,
                        size: src.dims[d],
                        src_stride: ss[d],
                        dst_stride: ds[d],
                    });
                }
            } else {
                red.push((src.dims[d], ss[d]));
            }
        }
        // Stable sorts: ties keep the logical order.
        idle.sort_by_key(|i| std::cmp::Reverse(i.dst_stride));
        red.sort_by_key(|r| std::cmp::Reverse(r.1));
        let mut merged: Vec<(i64, i64)> = Vec::new();
        for (size, stride) in red {
            match merged.last_mut() {
                Some(last) if last.1 == size * stride => {
                    *last = (last.0 * size, stride);
                }
                _ => merged.push((size, stride)),
            }
        }
        Plan {
            outputs: idle.iter().map(|i| i.size).product(),
            r: merged.iter().map(|r| r.0).product(),
            idle,
            red: merged,
        }
    }
}

/// A reduction.
pub struct ReductionOp {
    alg: Alg,
    p: f32,
    eps: f32,
    src: Arc<MemoryDesc>,
    dst: Arc<MemoryDesc>,
    src_layout: Layout,
    dst_layout: Layout,
    plan: Plan,
    post_ops: PostOpsPlan,
}

fn check_layout(md: &MemoryDesc, what: &str) -> Result<Layout> {
    if md.has_runtime_dims_or_strides() {
        return Err(Error::unimplemented(format!(
            "reduction {what} has run-time dimensions or strides"
        )));
    }
    if !matches!(md.format(), Format::Blocked(_)) {
        return Err(Error::unimplemented(format!(
            "reduction {what}: only blocked memory formats are supported"
        )));
    }
    let layout = Layout::new(md)?;
    if !layout.inner_blocks().is_empty() || layout.has_padding() {
        return Err(Error::unimplemented(format!(
            "reduction {what}: blocked (or padded) layouts are not implemented, only plain strided ones"
        )));
    }
    Ok(layout)
}

impl ReductionOp {
    /// `dnnl_reduction_primitive_desc_create`'s checks: `alg_kind` one of
    /// the reductions, src and dst of as many dimensions, each dst
    /// dimension src's or 1, at least one reduced; the Lp norms with a
    /// finite `p >= 1` and a floating-point source; src not `any`.
    pub fn new(
        alg_kind: dnnl_alg_kind_t,
        src: &MemoryDesc,
        dst: &MemoryDesc,
        p: f32,
        eps: f32,
        attr: &PrimitiveAttr,
    ) -> Result<ReductionOp> {
        let alg = Alg::from_c(alg_kind).ok_or_else(|| {
            Error::invalid(format!("{:#x} is not a reduction algorithm", alg_kind.0))
        })?;
        if src.is_zero() || dst.is_zero() {
            return Err(Error::invalid("reduction src and dst need dimensions"));
        }
        if src.is_any_format() {
            return Err(Error::invalid("unsupported format tag for src: any"));
        }
        if alg.is_lp() {
            if !(p.is_finite() && p >= 1.0) {
                return Err(Error::invalid(format!(
                    "the Lp norms need a finite p of at least 1, not {p}"
                )));
            }
            if !matches!(src.data_type(), dnnl_f32 | dnnl_f16 | dnnl_bf16) {
                return Err(Error::invalid(
                    "the Lp norms need a floating-point (f32, f16, bf16) src",
                ));
            }
        }
        if src.ndims() != dst.ndims() {
            return Err(Error::invalid(format!(
                "src has {} dimensions, dst {}",
                src.ndims(),
                dst.ndims()
            )));
        }
        for (d, (&s, &o)) in src.dims().iter().zip(dst.dims()).enumerate() {
            if o != s && o != 1 {
                return Err(Error::invalid(format!(
                    "dst dimension {d} is {o}: it must be src's ({s}) or 1"
                )));
            }
        }
        if src.dims() == dst.dims() {
            return Err(Error::invalid(
                "src and dst have the same dimensions: a reduction reduces at least one",
            ));
        }
        for (md, what) in [(src, "src"), (dst, "dst")] {
            if Elem::from_c(md.data_type()).is_none() {
                return Err(Error::unimplemented(format!(
                    "reduction {what}: data type {} is not supported",
                    names::enum_str(dnnl_data_type_t::ALL, md.data_type(), "dnnl_", "?")
                )));
            }
        }
        let dst = if dst.is_any_format() {
            resolve_like(src, dst.dims(), dst.data_type())?
        } else {
            dst.clone()
        };
        let src_layout = check_layout(src, "src")?;
        let dst_layout = check_layout(&dst, "dst")?;
        let post_ops = PostOpsPlan::new(&attr.post_ops, &dst)?;
        Ok(ReductionOp {
            alg,
            p,
            eps,
            plan: Plan::new(&src_layout, &dst_layout),
            src: Arc::new(src.clone()),
            dst: Arc::new(dst),
            src_layout,
            dst_layout,
            post_ops,
        })
    }

    pub fn alg(&self) -> Alg {
        self.alg
    }

    pub fn p(&self) -> f32 {
        self.p
    }

    pub fn eps(&self) -> f32 {
        self.eps
    }

    pub fn src_layout(&self) -> &Layout {
        &self.src_layout
    }

    pub fn dst_layout(&self) -> &Layout {
        &self.dst_layout
    }

    pub(crate) fn plan(&self) -> &Plan {
        &self.plan
    }

    pub fn post_ops(&self) -> &PostOpsPlan {
        &self.post_ops
    }
}

impl OpDesc for ReductionOp {
    fn kind(&self) -> dnnl_primitive_kind_t {
        dnnl_reduction
    }

    fn alg_kind(&self) -> dnnl_alg_kind_t {
        self.alg.to_c()
    }

    fn arg_md(&self, arg: i32) -> Option<&Arc<MemoryDesc>> {
        match arg {
            DNNL_ARG_SRC => Some(&self.src),
            DNNL_ARG_DST => Some(&self.dst),
            _ => self.post_ops.arg_md(arg),
        }
    }

    fn inputs(&self) -> Vec<i32> {
        let mut v = vec![DNNL_ARG_SRC];
        v.extend(self.post_ops.inputs());
        v
    }

    fn outputs(&self) -> Vec<i32> {
        vec![DNNL_ARG_DST]
    }

    fn query_f32(&self, what: dnnl_query_t) -> Option<f32> {
        match what {
            dnnl_query_p_f32 => Some(self.p),
            dnnl_query_epsilon_f32 => Some(self.eps),
            _ => None,
        }
    }

    fn verbose_aux(&self) -> String {
        let name = names::enum_str(dnnl_alg_kind_t::ALL, self.alg.to_c(), "dnnl_", "unknown");
        format!("alg:{name} p:{} eps:{}", self.p, self.eps)
    }

    fn verbose_problem(&self) -> String {
        use crate::core::primitive::dims_str;
        format!(
            "{}:{}",
            dims_str(self.src.dims()),
            dims_str(self.dst.dims())
        )
    }

    fn cache_key(&self, w: &mut KeyWriter) -> bool {
        w.tag("reduction")
            .put(&self.alg.to_c())
            .f32(self.p)
            .f32(self.eps)
            .put(&self.src)
            .put(&self.dst);
        self.post_ops.cache_key(w);
        true
    }
}

impl Kind for ReductionOp {
    const NAME: &'static str = "reduction";
    const IMPLS: &'static [Impl<ReductionOp>] = &[
        Impl::cpu(c"cpu:reduction_plain", any_op, cpu::create),
        Impl::gpu(c"ocl:reduction_plain", any_op, ocl::create).with_scratchpad(ocl::scratchpad),
    ];

    fn attr_support(&self) -> AttrSupport {
        AttrSupport::parts(&[AttrPart::PostOps])
    }
}
