//! Reduction (`dnnl_reduction_primitive_desc_create`).
//!
//! Layer: prims. This file holds the descriptor logic (upstream's rules);
//! the computation is `prims::common::reduce` (shared with PReLU backward).
//! Implementations, best first:
//! - `cpu:reduction_plain`: outputs split over the host's threads (or, when
//!   there are fewer outputs than threads, each output's reduction split);
//! - `ocl:reduction_plain` (`common/reduce/reduce.cl`): a work-group per tile of outputs
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
mod ocl;
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
pub use crate::prims::common::reduce::Alg;
use crate::prims::common::reduce::Reduce;

/// A reduction.
pub struct ReductionOp {
    src: Arc<MemoryDesc>,
    dst: Arc<MemoryDesc>,
    reduce: Reduce,
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
            src: Arc::new(src.clone()),
            dst: Arc::new(dst),
            reduce: Reduce::new(alg, p, eps, src_layout, dst_layout, post_ops),
        })
    }

    /// The reduction it runs.
    pub fn reduce(&self) -> &Reduce {
        &self.reduce
    }
}

impl OpDesc for ReductionOp {
    fn kind(&self) -> dnnl_primitive_kind_t {
        dnnl_reduction
    }

    fn alg_kind(&self) -> dnnl_alg_kind_t {
        self.reduce.alg().to_c()
    }

    fn arg_md(&self, arg: i32) -> Option<&Arc<MemoryDesc>> {
        match arg {
            DNNL_ARG_SRC => Some(&self.src),
            DNNL_ARG_DST => Some(&self.dst),
            _ => self.reduce.post_ops().arg_md(arg),
        }
    }

    fn inputs(&self) -> Vec<i32> {
        let mut v = vec![DNNL_ARG_SRC];
        v.extend(self.reduce.post_ops().inputs());
        v
    }

    fn outputs(&self) -> Vec<i32> {
        vec![DNNL_ARG_DST]
    }

    fn query_f32(&self, what: dnnl_query_t) -> Option<f32> {
        match what {
            dnnl_query_p_f32 => Some(self.reduce.p()),
            dnnl_query_epsilon_f32 => Some(self.reduce.eps()),
            _ => None,
        }
    }

    fn verbose_aux(&self) -> String {
        let name = names::enum_str(
            dnnl_alg_kind_t::ALL,
            self.reduce.alg().to_c(),
            "dnnl_",
            "unknown",
        );
        format!("alg:{name} p:{} eps:{}", self.reduce.p(), self.reduce.eps())
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
            .put(&self.reduce.alg().to_c())
            .f32(self.reduce.p())
            .f32(self.reduce.eps())
            .put(&self.src)
            .put(&self.dst);
        self.reduce.post_ops().cache_key(w);
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
