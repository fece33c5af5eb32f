//! Reorder: copies a tensor from one memory descriptor to another
//! (`dnnl_reorder_primitive_desc_create`), converting layout and type, with
//! oneDNN's quantization attributes, on one engine or between a CPU and an
//! OpenCL engine.
//!
//! Layer: prims. This file holds the descriptor logic; the data movement is
//! a transfer [`Plan`] (`prims::common::xfer`, shared with sum and concat),
//! executed by:
//! - `cpu:reorder` (CPU engine, multi-threaded,
//!   [`run_host`](crate::prims::common::xfer::plan::run_host));
//! - `ocl:reorder_copy`: same type, same dense layout, no scaling: a buffer
//!   copy;
//! - `ocl:reorder_blocked` (`prims::common::xfer::blocked`): a layout with
//!   blocks on either side (nChw16c / nChw8c / nChw4c / nCw16c / nCdhw16c
//!   against nchw / nhwc / ncdhw / another block size, OIhw16i16o /
//!   OIhw8i8o / Ohwi16o / OIhw4i16o4i against oihw / hwio / each other),
//!   and plain or strided layouts the transposing kernel does not take; any
//!   type pair, padding and offsets (whole blocks), the sum post-op, and
//!   scales and zero points with mask 0. Needs block sizes that divide one
//!   another per dimension. Each position is split into digits at the block
//!   boundaries so that both offsets are linear; a few launches (the full
//!   blocks, the tail block, the padding's zeros) of a tiled transposition
//!   through local memory or of 4-vector runs: no division per element;
//! - `ocl:reorder_transpose`: a transposition (nchw to nhwc, ab to ba ...)
//!   of plain or strided layouts without scaling: 32x32 tiles through local
//!   memory, so that reads and writes both coalesce;
//! - `ocl:reorder_generic`: what the others leave (scales and zero points
//!   with a mask, block sizes that do not nest ...): any blocked layouts (up
//!   to 6 dimensions and 4 inner blocks per layout), any pair of
//!   f32/f16/bf16/s32/s8/u8; one
//!   OpenCL program per engine for every problem (`xfer.cl`), its walk in
//!   the destination's memory order so writes coalesce;
//! - `ocl:cross_engine_host`: between a CPU and an OpenCL engine. The
//!   primitive descriptor's engine is the OpenCL one (the source engine if
//!   that is not the CPU, else the destination engine, as upstream picks);
//!   execution goes on its stream, which is drained, the OpenCL side mapped
//!   and converted on the host.
//!
//! Computation, per element, in f32: `dst = (src_scale * (src - src_zp) +
//! sum_scale * dst_old) / dst_scale + dst_zp`, the `sum_scale * dst_old` term
//! with a sum post-op only (destination scales apply after the post-op, as
//! upstream's v3.13 reorder does); stores round to nearest even and saturate. The padding of a blocked
//! destination is written with zeros.
//!
//! Attributes: scales for `DNNL_ARG_SRC` and `DNNL_ARG_DST` (f32, any mask,
//! no groups; values at execution as `DNNL_ARG_ATTR_SCALES | arg`), zero
//! points for them (s32, any mask, no groups; `DNNL_ARG_ATTR_ZERO_POINTS |
//! arg`), and one sum post-op (no zero point or data type; the previous
//! destination value enters as stored, before the zero point is added, as
//! upstream's s8 reorder computes). Anything else is unimplemented. `format_tag::any` is invalid for either side, as
//! upstream says.

#![allow(non_upper_case_globals)]

#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::abi::*;
use crate::core::attr::PostOp;
use crate::core::attr::PrimitiveAttr;
use crate::core::attr::{AttrPart, AttrSupport};
use crate::core::engine::{Backend, Engine};
use crate::core::error::{Error, Result};
use crate::core::key::KeyWriter;
use crate::core::memory_desc::MemoryDesc;
use crate::core::primitive::{Impl, Kind, OpDesc};
use crate::prims::common::xfer::check_md;
use crate::prims::common::xfer::ocl::{PlanOp, reorder_impls};
use crate::prims::common::xfer::plan::{Pass, Plan, Quant, QuantArg};

/// A reorder.
pub struct ReorderOp {
    src: Arc<MemoryDesc>,
    dst: Arc<MemoryDesc>,
    src_engine: Arc<Engine>,
    dst_engine: Arc<Engine>,
    /// One side on the CPU engine, the other on an OpenCL one.
    cross: bool,
    plan: Arc<Plan>,
    /// The quantization and sum scale the attributes asked for (the
    /// plan's, kept for the cache key).
    quant: Quant,
    beta: f32,
}

/// A quantization spec the plans apply: f32 scales or s32 zero points,
/// mask only.
fn quant_arg(
    spec: &crate::core::attr::QuantSpec,
    base: i32,
    arg: i32,
    ndims: usize,
    what: &str,
) -> Result<QuantArg> {
    let want = if base == DNNL_ARG_ATTR_SCALES {
        dnnl_f32
    } else {
        dnnl_s32
    };
    if spec.data_type != want || spec.groups.is_some() || spec.on_host {
        return Err(Error::unimplemented(format!(
            "{what}: only {} values with a mask (no groups, no host scalar) are supported",
            if want == dnnl_f32 { "f32" } else { "s32" }
        )));
    }
    if spec.mask >> ndims != 0 {
        return Err(Error::invalid(format!(
            "{what}: mask {:#x} names dimensions the tensor does not have",
            spec.mask
        )));
    }
    Ok(QuantArg {
        arg: base | arg,
        mask: spec.mask,
    })
}

impl ReorderOp {
    /// `dnnl_reorder_primitive_desc_create`'s checks.
    pub fn new(
        src: &MemoryDesc,
        src_engine: Arc<Engine>,
        dst: &MemoryDesc,
        dst_engine: Arc<Engine>,
        attr: Option<&PrimitiveAttr>,
    ) -> Result<ReorderOp> {
        let sl = check_md(src, "src")?;
        let dl = check_md(dst, "dst")?;
        if src.ndims() != dst.ndims() {
            return Err(Error::invalid(
                "tensors src and dst have inconsistent number of dimensions",
            ));
        }
        if src.dims() != dst.dims() {
            return Err(Error::invalid(format!(
                "dimensions of src {:?} are inconsistent with dst {:?}",
                src.dims(),
                dst.dims()
            )));
        }
        let cpu = |e: &Engine| matches!(e.backend(), Backend::Cpu);
        let cross = cpu(&src_engine) != cpu(&dst_engine);
        if let (Backend::Ocl(a), Backend::Ocl(b)) = (src_engine.backend(), dst_engine.backend())
            && a.context() != b.context()
        {
            return Err(Error::unimplemented(
                "a reorder between OpenCL engines of different contexts",
            ));
        }
        match (src_engine.backend(), dst_engine.backend()) {
            (Backend::Ze(a), Backend::Ze(b)) if a.context() != b.context() => {
                return Err(Error::unimplemented(
                    "a reorder between Level Zero engines of different contexts",
                ));
            }
            (Backend::Ze(_), Backend::Ocl(_)) | (Backend::Ocl(_), Backend::Ze(_)) => {
                return Err(Error::unimplemented(
                    "a reorder between an OpenCL and a Level Zero engine",
                ));
            }
            _ => {}
        }
        let mut pass = Pass::full(&dl, Some((DNNL_ARG_SRC, &sl)));
        if let Some(attr) = attr {
            let n = dst.ndims();
            let mut q = Quant::default();
            for (&arg, spec) in &attr.scales {
                let qa = quant_arg(spec, DNNL_ARG_ATTR_SCALES, arg, n, "scales")?;
                match arg {
                    DNNL_ARG_SRC => q.src_scale = Some(qa),
                    DNNL_ARG_DST => q.dst_scale = Some(qa),
                    _ => {
                        return Err(Error::unimplemented(format!(
                            "reorder takes scales for src and dst only (not argument {arg})"
                        )));
                    }
                }
            }
            for (&arg, spec) in &attr.zero_points {
                let qa = quant_arg(spec, DNNL_ARG_ATTR_ZERO_POINTS, arg, n, "zero points")?;
                match arg {
                    DNNL_ARG_SRC => q.src_zp = Some(qa),
                    DNNL_ARG_DST => q.dst_zp = Some(qa),
                    _ => {
                        return Err(Error::unimplemented(format!(
                            "reorder takes zero points for src and dst only (not argument {arg})"
                        )));
                    }
                }
            }
            match attr.post_ops.entries() {
                [] => {}
                [
                    PostOp::Sum {
                        scale,
                        zero_point: 0,
                        data_type,
                    },
                ] if *data_type == dnnl_data_type_undef => pass.beta = *scale,
                _ => {
                    return Err(Error::unimplemented(
                        "reorder applies one sum post-op (without zero point or data type) only",
                    ));
                }
            }
            pass.quant = q;
        }
        let (quant, beta) = (pass.quant, pass.beta);
        let plan = Arc::new(Plan {
            dst_arg: DNNL_ARG_DST,
            dst: dl,
            passes: vec![pass],
            scratch: None,
        });
        Ok(ReorderOp {
            src: Arc::new(src.clone()),
            dst: Arc::new(dst.clone()),
            src_engine,
            dst_engine,
            cross,
            plan,
            quant,
            beta,
        })
    }

    /// The engine the primitive runs on: the source's unless that is the
    /// CPU engine, else the destination's (upstream's choice).
    pub fn pd_engine(&self) -> Arc<Engine> {
        if matches!(self.src_engine.backend(), Backend::Cpu) {
            self.dst_engine.clone()
        } else {
            self.src_engine.clone()
        }
    }
}

impl OpDesc for ReorderOp {
    fn kind(&self) -> dnnl_primitive_kind_t {
        dnnl_reorder
    }

    fn arg_md(&self, arg: i32) -> Option<&Arc<MemoryDesc>> {
        match arg {
            DNNL_ARG_SRC => Some(&self.src),
            DNNL_ARG_DST => Some(&self.dst),
            _ => None,
        }
    }

    fn inputs(&self) -> Vec<i32> {
        vec![DNNL_ARG_SRC]
    }

    fn outputs(&self) -> Vec<i32> {
        vec![DNNL_ARG_DST]
    }

    /// Empty on one engine (as upstream's); between engines, which way.
    fn verbose_aux(&self) -> String {
        if !self.cross {
            return String::new();
        }
        let (s, d) = (self.src_engine.kind().name(), self.dst_engine.kind().name());
        format!("src:{s} dst:{d}")
    }

    fn cache_key(&self, w: &mut KeyWriter) -> bool {
        w.tag("reorder")
            .bool(self.cross)
            .put(&self.src)
            .put(&self.dst)
            .put(&self.quant)
            .f32(self.beta);
        true
    }

    fn host_arg(&self, arg: i32) -> bool {
        let cpu = |e: &Engine| matches!(e.backend(), Backend::Cpu);
        self.cross
            && match arg & !(DNNL_ARG_ATTR_SCALES | DNNL_ARG_ATTR_ZERO_POINTS) {
                DNNL_ARG_SRC => cpu(&self.src_engine) || arg != DNNL_ARG_SRC,
                DNNL_ARG_DST => cpu(&self.dst_engine) || arg != DNNL_ARG_DST,
                _ => false,
            }
    }

    fn query_engine(&self, what: dnnl_query_t) -> Option<Arc<Engine>> {
        match what {
            dnnl_query_reorder_src_engine => Some(self.src_engine.clone()),
            dnnl_query_reorder_dst_engine => Some(self.dst_engine.clone()),
            _ => None,
        }
    }
}

impl PlanOp for ReorderOp {
    fn plan(&self) -> &Arc<Plan> {
        &self.plan
    }
    fn cross(&self) -> bool {
        self.cross
    }
}

impl Kind for ReorderOp {
    const NAME: &'static str = "reorder";
    const IMPLS: &'static [Impl<ReorderOp>] = &reorder_impls([
        c"cpu:reorder",
        c"ocl:reorder_copy",
        c"ocl:reorder_generic",
        c"ocl:reorder_transpose",
        c"ocl:reorder_blocked",
    ]);

    fn attr_support(&self) -> AttrSupport {
        AttrSupport {
            parts: &[AttrPart::Scales, AttrPart::ZeroPoints, AttrPart::PostOps],
            scales: |arg| matches!(arg, DNNL_ARG_SRC | DNNL_ARG_DST),
            zero_points: |arg| matches!(arg, DNNL_ARG_SRC | DNNL_ARG_DST),
        }
    }
}
