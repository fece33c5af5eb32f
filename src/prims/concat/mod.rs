//! Concat: sources joined along one dimension
//! (`dnnl_concat_primitive_desc_create`), sources as
//! `DNNL_ARG_MULTIPLE_SRC + i`, any axis, any mix of blocked layouts and of
//! f32/f16/bf16/s32/s8/u8, zero-sized sources allowed.
//!
//! Layer: prims. The descriptor logic; the data movement is a transfer
//! [`Plan`](crate::prims::common::xfer::plan::Plan): one pass per non-empty
//! source over its region of the destination, and one more that writes the
//! destination's padding with zeros where it has any; executed by
//! `cpu:concat`, `ocl:concat_copy` (one source, same type and dense layout)
//! or `ocl:concat_generic`.
//!
//! The destination: a NULL `dst_desc`, or one with `format_tag::any`, is
//! resolved from source 0: the concatenated dimensions, source 0's layout
//! (the same order of dimensions and inner blocks, dense), and the type of
//! `dst_desc` when that names one, else source 0's type.
//!
//! Attributes: scales per source (`DNNL_ARG_MULTIPLE_SRC + i`, mask 0, f32;
//! the value at execution as `DNNL_ARG_ATTR_SCALES | DNNL_ARG_MULTIPLE_SRC +
//! i`), as upstream allows; anything else is unimplemented.

use std::sync::Arc;

use crate::abi::*;
use crate::core::attr::PrimitiveAttr;
use crate::core::attr::{AttrPart, AttrSupport};
use crate::core::error::{Error, Result};
use crate::core::key::KeyWriter;
use crate::core::memory_desc::MemoryDesc;
use crate::core::primitive::{Impl, Kind, OpDesc, dims_str};
use crate::prims::common::layout::resolve_like;
use crate::prims::common::xfer::ocl::{PlanOp, plan_impls};
use crate::prims::common::xfer::plan::{Pass, Plan, QuantArg};
use crate::prims::common::xfer::{check_md, multi_src_arg_md, multi_src_inputs};

#[cfg(test)]
mod tests;

/// A concat.
pub struct ConcatOp {
    srcs: Vec<Arc<MemoryDesc>>,
    dst: Arc<MemoryDesc>,
    axis: i32,
    plan: Arc<Plan>,
    /// The scale of each source, if it has one.
    quant: Vec<Option<QuantArg>>,
    /// The user left the destination's format to the concat (NULL, or
    /// format `any`); verbose lines flag it.
    dst_chosen: bool,
}

impl ConcatOp {
    /// `dnnl_concat_primitive_desc_create`'s checks; `dst` `None` for NULL.
    pub fn new(
        dst: Option<&MemoryDesc>,
        axis: i32,
        srcs: &[MemoryDesc],
        attr: Option<&PrimitiveAttr>,
    ) -> Result<ConcatOp> {
        if srcs.is_empty() {
            return Err(Error::invalid("concat needs at least one source"));
        }
        // Every source is checked before any of its dimensions is indexed: a
        // zero descriptor has none.
        let layouts = srcs
            .iter()
            .enumerate()
            .map(|(i, s)| check_md(s, &format!("src_{i}")))
            .collect::<Result<Vec<_>>>()?;
        let src0 = &srcs[0];
        let n = src0.ndims();
        if axis < 0 || axis as usize >= n {
            return Err(Error::invalid(format!(
                "concat dimension {axis} is out of range for {n} dimensions"
            )));
        }
        let a = axis as usize;
        let mut dims = src0.dims().to_vec();
        dims[a] = 0;
        for (i, s) in srcs.iter().enumerate() {
            if s.ndims() != n || (0..n).any(|d| d != a && s.dims()[d] != src0.dims()[d]) {
                return Err(Error::invalid(format!(
                    "dimensions of src_{i} {:?} are inconsistent with src_0 {:?} outside dimension {axis}",
                    s.dims(),
                    src0.dims()
                )));
            }
            dims[a] = dims[a].checked_add(s.dims()[a]).ok_or_else(|| {
                Error::invalid(format!(
                    "the concatenated dimension {axis} overflows at src_{i}"
                ))
            })?;
        }
        let mut quant = vec![None; srcs.len()];
        if let Some(attr) = attr {
            for (&arg, spec) in &attr.scales {
                let i = arg - DNNL_ARG_MULTIPLE_SRC;
                if i < 0 || i as usize >= srcs.len() {
                    return Err(Error::invalid(format!(
                        "concat takes scales for its sources only (not argument {arg})"
                    )));
                }
                if spec.mask != 0
                    || spec.data_type != dnnl_f32
                    || spec.groups.is_some()
                    || spec.on_host
                {
                    return Err(Error::unimplemented(
                        "concat takes one f32 scale per source (mask 0) only",
                    ));
                }
                quant[i as usize] = Some(QuantArg {
                    arg: DNNL_ARG_ATTR_SCALES | arg,
                    mask: 0,
                });
            }
        }
        let dst_chosen = dst.is_none_or(|d| d.is_any_format());
        let dst = match dst {
            // A zero descriptor is no destination (NULL is the way to let the
            // primitive choose), as upstream.
            Some(d) if d.is_zero() => {
                return Err(Error::invalid(
                    "dst is the zero memory descriptor (pass NULL to let concat choose)",
                ));
            }
            Some(d) if !d.is_any_format() => {
                if d.ndims() != n || d.dims() != &dims[..] {
                    return Err(Error::invalid(format!(
                        "dimensions of dst {:?} are not the concatenated {:?}",
                        d.dims(),
                        dims
                    )));
                }
                d.clone()
            }
            Some(d) if d.is_any_format() => {
                if d.ndims() != n || d.dims() != &dims[..] {
                    return Err(Error::invalid(
                        "dst dimensions are not the concatenated ones",
                    ));
                }
                let dt = if d.data_type() == dnnl_data_type_undef {
                    src0.data_type()
                } else {
                    d.data_type()
                };
                resolve_like(src0, &dims, dt)?
            }
            _ => resolve_like(src0, &dims, src0.data_type())?,
        };
        let dl = check_md(&dst, "dst")?;
        let mut passes = Vec::new();
        let mut origin = vec![0i64; n];
        for (i, l) in layouts.iter().enumerate() {
            if l.nelems() > 0 {
                let mut p = Pass::region(&dl, DNNL_ARG_MULTIPLE_SRC + i as i32, l, &origin);
                p.quant.src_scale = quant[i];
                passes.push(p);
            }
            origin[a] += l.dims[a];
        }
        if dl.has_padding() {
            passes.push(Pass::padding(&dl));
        }
        Ok(ConcatOp {
            srcs: srcs.iter().map(|s| Arc::new(s.clone())).collect(),
            dst: Arc::new(dst),
            axis,
            plan: Arc::new(Plan {
                dst_arg: DNNL_ARG_DST,
                dst: dl,
                passes,
                scratch: None,
            }),
            quant,
            dst_chosen,
        })
    }
}

impl OpDesc for ConcatOp {
    fn kind(&self) -> dnnl_primitive_kind_t {
        dnnl_concat
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

    fn verbose_aux(&self) -> String {
        format!("axis:{}", self.axis)
    }

    /// Every source's dimensions, `2x3x4:2x5x4`, as upstream prints them.
    fn verbose_problem(&self) -> String {
        let dims: Vec<String> = self.srcs.iter().map(|s| dims_str(s.dims())).collect();
        dims.join(":")
    }

    fn verbose_any_format(&self, arg: i32) -> bool {
        arg == DNNL_ARG_DST && self.dst_chosen
    }

    fn cache_key(&self, w: &mut KeyWriter) -> bool {
        w.tag("concat")
            .i32(self.axis)
            .put(&self.srcs)
            .put(&self.dst)
            .put(&self.quant)
            .bool(self.dst_chosen);
        true
    }
}

impl PlanOp for ConcatOp {
    fn plan(&self) -> &Arc<Plan> {
        &self.plan
    }
}

impl Kind for ConcatOp {
    const NAME: &'static str = "concat";
    const IMPLS: &'static [Impl<ConcatOp>] = &plan_impls([
        c"cpu:concat",
        c"ocl:concat_copy",
        c"ocl:concat_generic",
        c"ocl:concat_transpose",
    ]);

    fn attr_support(&self) -> AttrSupport {
        AttrSupport {
            parts: &[AttrPart::Scales],
            scales: |arg| arg >= DNNL_ARG_MULTIPLE_SRC,
            zero_points: |_| false,
        }
    }
}
