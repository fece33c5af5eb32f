//! Sum: `dst = Σ scales[i] * src_i` (`dnnl_sum_primitive_desc_create`),
//! sources as `DNNL_ARG_MULTIPLE_SRC + i`, any mix of blocked layouts and of
//! f32/f16/bf16/s32/s8/u8.
//!
//! Layer: prims. The descriptor logic; the data movement is a transfer
//! [`Plan`](crate::prims::common::xfer::plan::Plan) of one pass per source (the
//! first writes `scales[0] * src_0`, each next one adds `scales[i] * src_i`
//! to the destination), executed by `cpu:sum`, `ocl:sum_copy` (one source,
//! scale 1, same type and dense layout) or `ocl:sum_generic`. With more
//! than one source and a destination other than f32, the running sum is
//! kept in an f32 scratch tensor (allocated per execution) and converted to
//! the destination by a last pass, so it rounds once.
//!
//! The destination: a NULL `dst_desc`, or one with `format_tag::any`, is
//! resolved from source 0: its dimensions, its layout (the same order of
//! dimensions and inner blocks, dense), and the type of `dst_desc` when
//! that names one, else source 0's type. Attributes: the defaults only.

use std::sync::Arc;

use crate::abi::*;
use crate::core::attr::AttrSupport;
use crate::core::attr::PrimitiveAttr;
use crate::core::error::{Error, Result};
use crate::core::key::KeyWriter;
use crate::core::memory_desc::MemoryDesc;
use crate::core::primitive::{Impl, Kind, OpDesc};
use crate::prims::common::layout::Layout;
use crate::prims::common::layout::resolve_like;
use crate::prims::common::xfer::ocl::{PlanOp, plan_impls};
use crate::prims::common::xfer::plan::{Pass, Plan, SCRATCH_ARG};
use crate::prims::common::xfer::{check_md, multi_src_arg_md, multi_src_inputs};

#[cfg(test)]
mod tests;

/// A sum.
pub struct SumOp {
    srcs: Vec<Arc<MemoryDesc>>,
    dst: Arc<MemoryDesc>,
    plan: Arc<Plan>,
    scales: Vec<f32>,
    /// The user left the destination's format to the sum (NULL, or format
    /// `any`); verbose lines flag it.
    dst_chosen: bool,
}

impl SumOp {
    /// `dnnl_sum_primitive_desc_create`'s checks; `dst` `None` for NULL.
    pub fn new(
        dst: Option<&MemoryDesc>,
        scales: &[f32],
        srcs: &[MemoryDesc],
        _attr: Option<&PrimitiveAttr>,
    ) -> Result<SumOp> {
        if srcs.is_empty() || scales.len() != srcs.len() {
            return Err(Error::invalid(
                "sum needs at least one source and a scale per source",
            ));
        }
        let mut layouts = Vec::new();
        for (i, s) in srcs.iter().enumerate() {
            let what = format!("src_{i}");
            if s.ndims() != srcs[0].ndims() || s.dims() != srcs[0].dims() {
                return Err(Error::invalid(format!(
                    "dimensions of {what} {:?} are inconsistent with src_0 {:?}",
                    s.dims(),
                    srcs[0].dims()
                )));
            }
            layouts.push(check_md(s, &what)?);
        }
        let src0 = &srcs[0];
        let dst_chosen = dst.is_none_or(|d| d.is_any_format());
        let dst = match dst {
            // A zero descriptor is no destination (NULL is the way to let the
            // primitive choose), as upstream.
            Some(d) if d.is_zero() => {
                return Err(Error::invalid(
                    "dst is the zero memory descriptor (pass NULL to let sum choose)",
                ));
            }
            Some(d) if !d.is_any_format() => {
                if d.ndims() != src0.ndims() || d.dims() != src0.dims() {
                    return Err(Error::invalid(format!(
                        "dimensions of dst {:?} are inconsistent with src_0 {:?}",
                        d.dims(),
                        src0.dims()
                    )));
                }
                d.clone()
            }
            Some(d) if d.is_any_format() => {
                if d.ndims() != src0.ndims() || d.dims() != src0.dims() {
                    return Err(Error::invalid("dst dimensions are inconsistent with src_0"));
                }
                let dt = if d.data_type() == dnnl_data_type_undef {
                    src0.data_type()
                } else {
                    d.data_type()
                };
                resolve_like(src0, src0.dims(), dt)?
            }
            _ => resolve_like(src0, src0.dims(), src0.data_type())?,
        };
        let dl = check_md(&dst, "dst")?;
        // More than one source into a destination other than f32: the sum
        // runs in an f32 scratch tensor of the destination's layout.
        let scratch = if layouts.len() > 1 && dst.data_type() != dnnl_f32 {
            let md = resolve_like(&dst, dst.dims(), dnnl_f32)
                .or_else(|_| MemoryDesc::with_strides(dst.dims(), dnnl_f32, None))?;
            Some(Layout::new(&md)?)
        } else {
            None
        };
        let target = scratch.as_ref().unwrap_or(&dl);
        let mut passes: Vec<Pass> = layouts
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let mut p = Pass::full(target, Some((DNNL_ARG_MULTIPLE_SRC + i as i32, l)));
                p.alpha = scales[i];
                p.beta = if i == 0 { 0.0 } else { 1.0 };
                p.to_scratch = scratch.is_some();
                p
            })
            .collect();
        if let Some(s) = &scratch {
            passes.push(Pass::full(&dl, Some((SCRATCH_ARG, s))));
        }
        Ok(SumOp {
            srcs: srcs.iter().map(|s| Arc::new(s.clone())).collect(),
            dst: Arc::new(dst),
            plan: Arc::new(Plan {
                dst_arg: DNNL_ARG_DST,
                dst: dl,
                passes,
                scratch,
            }),
            scales: scales.to_vec(),
            dst_chosen,
        })
    }
}

impl OpDesc for SumOp {
    fn kind(&self) -> dnnl_primitive_kind_t {
        dnnl_sum
    }

    fn arg_md(&self, arg: i32) -> Option<&Arc<MemoryDesc>> {
        multi_src_arg_md(&self.srcs, &self.dst, arg)
    }

    fn inputs(&self) -> Vec<i32> {
        multi_src_inputs(self.srcs.len())
    }

    fn outputs(&self) -> Vec<i32> {
        vec![DNNL_ARG_DST]
    }

    fn src_arg(&self, index: i32) -> Option<i32> {
        Some(DNNL_ARG_MULTIPLE_SRC + index)
    }

    fn verbose_any_format(&self, arg: i32) -> bool {
        arg == DNNL_ARG_DST && self.dst_chosen
    }

    fn cache_key(&self, w: &mut KeyWriter) -> bool {
        w.tag("sum")
            .put(&self.scales)
            .put(&self.srcs)
            .put(&self.dst)
            .bool(self.dst_chosen);
        true
    }
}

impl PlanOp for SumOp {
    fn plan(&self) -> &Arc<Plan> {
        &self.plan
    }
}

impl Kind for SumOp {
    const NAME: &'static str = "sum";
    const IMPLS: &'static [Impl<SumOp>] = &plan_impls([
        c"cpu:sum",
        c"ocl:sum_copy",
        c"ocl:sum_generic",
        c"ocl:sum_transpose",
    ]);

    fn attr_support(&self) -> AttrSupport {
        AttrSupport::NONE
    }
}
