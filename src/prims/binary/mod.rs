//! Binary: `dst = op(scale0 * src0, scale1 * src1)` element-wise, with
//! broadcasting of `src1` (and of `src2`, the condition of `select`)
//! (`dnnl_binary_primitive_desc_create{,_v2}`).
//!
//! Layer: prims. This file holds the descriptor logic (upstream's rules),
//! how `format_tag::any` is resolved, and the implementations, best first:
//! - `cpu:binary_dense`: every tensor has the same dense layout and no
//!   broadcasting (flat arrays, multi-threaded);
//! - `cpu:binary_generic`: any blocked layouts and broadcasting, walking the
//!   destination in memory order;
//! - `ocl:binary_dense_vec4` / `ocl:binary_generic`: the same two cases as
//!   OpenCL kernels (`binary.cl`).
//!
//! Rules (oneDNN v3.13): src0, src1 (and src2) have dst's number of
//! dimensions; each of their dimensions is dst's or 1 (broadcast), and in
//! each dimension src0 or src1 has dst's size. (Broadcasting src0 is
//! accepted and computed; where an upstream build refuses it, that is a
//! deliberate difference.) `select` takes src2 (its own data type, `s8`/`u8` typically;
//! any nonzero value picks src0); the other algorithms take none. src0 may
//! not be `any`; dst `any` takes src0's layout with dst's data type (src1's
//! when src0 is broadcast); src1 or src2 `any` likewise where their
//! dimensions are dst's, plain row-major otherwise. Every computation runs in `f32`. Attributes: scales
//! of `DNNL_ARG_SRC_0` / `DNNL_ARG_SRC_1` (mask 0, f32, passed at execution
//! as `DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC_{0,1}`), and post-ops; anything
//! else is unimplemented. Padding of dst is written with zeros.

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
use crate::core::engine::Engine;
use crate::core::error::{Error, Result};
use crate::core::key::KeyWriter;
use crate::core::memory_desc::{Format, MemoryDesc};
use crate::core::names;
use crate::core::primitive::{Impl, Kind, OpDesc, any_op, dims_str};
use crate::prims::common::binary_alg::BinaryAlg;
use crate::prims::common::dt::Elem;
use crate::prims::common::layout::Layout;
use crate::prims::common::layout::resolve_any;
use crate::prims::common::post_ops::PostOpsPlan;

/// A binary operation.
pub struct BinaryOp {
    alg: BinaryAlg,
    src0: Arc<MemoryDesc>,
    src1: Arc<MemoryDesc>,
    src2: Option<Arc<MemoryDesc>>,
    dst: Arc<MemoryDesc>,
    /// Inputs src0, src1, src2 (when present), in that order.
    layouts: Vec<Layout>,
    out: Layout,
    /// Whether src0 / src1 have a scale.
    scales: [bool; 2],
    post_ops: PostOpsPlan,
}

fn check_md(md: &MemoryDesc, what: &str, ndims: usize) -> Result<()> {
    if md.is_zero() {
        return Err(Error::invalid(format!(
            "the {what} memory descriptor has no dimensions"
        )));
    }
    if md.ndims() != ndims {
        return Err(Error::invalid(format!(
            "tensors dst and {what} have inconsistent number of dimensions"
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
    Elem::from_c(md.data_type()).ok_or_else(|| {
        Error::unimplemented(format!(
            "{what}: data type {} is not supported",
            md.data_type().0
        ))
    })?;
    Ok(())
}

/// The finer rules of the attributes binary applies (the framework has
/// refused the rest): scales of src0 / src1 (mask 0, f32, on the device)
/// and post-ops.
fn check_attr(attr: &PrimitiveAttr, dst: &MemoryDesc) -> Result<([bool; 2], PostOpsPlan)> {
    let mut scales = [false; 2];
    for (arg, spec) in &attr.scales {
        if spec.mask != 0 || spec.groups.is_some() || spec.data_type != dnnl_f32 || spec.on_host {
            return Err(Error::unimplemented(
                "binary scales: only a common f32 scale in device memory (mask 0) is supported",
            ));
        }
        if spec.qmode != dnnl_quantization_mode_static_sazp {
            return Err(Error::unimplemented(
                "binary scales: only static quantization is supported",
            ));
        }
        scales[usize::from(*arg == DNNL_ARG_SRC_1)] = true;
    }
    let plan = PostOpsPlan::new(&attr.post_ops, dst)?;
    Ok((scales, plan))
}

impl BinaryOp {
    /// `dnnl_binary_primitive_desc_create{,_v2}`'s checks. `src2` is `None`
    /// (or the zero descriptor) for every algorithm but `select`.
    pub fn new(
        alg_kind: dnnl_alg_kind_t,
        src0: &MemoryDesc,
        src1: &MemoryDesc,
        src2: Option<&MemoryDesc>,
        dst: &MemoryDesc,
        attr: &PrimitiveAttr,
    ) -> Result<BinaryOp> {
        let alg = BinaryAlg::from_c(alg_kind).ok_or_else(|| {
            Error::invalid(format!("{:#x} is not a binary algorithm", alg_kind.0))
        })?;
        let src2 = src2.filter(|md| !md.is_zero());
        match (alg.is_ternary(), src2.is_some()) {
            (true, false) => {
                return Err(Error::invalid(
                    "binary select takes a src2 (condition) memory descriptor",
                ));
            }
            (false, true) => {
                return Err(Error::invalid(
                    "only binary select takes a src2 memory descriptor",
                ));
            }
            _ => {}
        }
        if dst.is_zero() {
            return Err(Error::invalid(
                "the dst memory descriptor has no dimensions",
            ));
        }
        let ndims = dst.ndims();
        check_md(dst, "dst", ndims)?;
        check_md(src0, "src0", ndims)?;
        check_md(src1, "src1", ndims)?;
        if let Some(s2) = src2 {
            check_md(s2, "src2", ndims)?;
        }
        if src0.is_any_format() {
            return Err(Error::invalid("unsupported format tag for src0: any"));
        }
        let broadcast_ok = |md: &MemoryDesc, what: &str| -> Result<()> {
            for (d, (&s, &o)) in md.dims().iter().zip(dst.dims()).enumerate() {
                if s != o && s != 1 {
                    return Err(Error::invalid(format!(
                        "{what} dimension {d} is {s}: it must be dst's ({o}) or 1 (broadcast)"
                    )));
                }
            }
            Ok(())
        };
        broadcast_ok(src0, "src0")?;
        for (d, (&a, &b)) in src0.dims().iter().zip(src1.dims()).enumerate() {
            if a != dst.dims()[d] && b != dst.dims()[d] {
                return Err(Error::invalid(format!(
                    "dimension {d}: src0 ({a}) or src1 ({b}) must have dst's size ({})",
                    dst.dims()[d]
                )));
            }
        }
        broadcast_ok(src1, "src1")?;
        if let Some(s2) = src2 {
            broadcast_ok(s2, "src2")?;
        }
        // `any` follows the first of src0, src1 with the same dimensions.
        let reference = [src0, src1]
            .into_iter()
            .find(|r| r.dims() == dst.dims() && !r.is_any_format())
            .cloned();
        let resolve = |md: &MemoryDesc| -> Result<MemoryDesc> {
            if !md.is_any_format() {
                return Ok(md.clone());
            }
            match &reference {
                Some(r) if r.dims() == md.dims() => resolve_any(Some(r), md.dims(), md.data_type()),
                _ => resolve_any(None, md.dims(), md.data_type()),
            }
        };
        let dst = resolve(dst)?;
        let src1 = resolve(src1)?;
        let src2 = src2.map(resolve).transpose()?;
        let (scales, post_ops) = check_attr(attr, &dst)?;
        let mut layouts = vec![Layout::new(src0)?, Layout::new(&src1)?];
        if let Some(s2) = &src2 {
            layouts.push(Layout::new(s2)?);
        }
        Ok(BinaryOp {
            alg,
            src0: Arc::new(src0.clone()),
            src1: Arc::new(src1),
            src2: src2.map(Arc::new),
            out: Layout::new(&dst)?,
            dst: Arc::new(dst),
            layouts,
            scales,
            post_ops,
        })
    }

    /// The algorithm.
    pub fn alg(&self) -> BinaryAlg {
        self.alg
    }

    /// The input layouts: src0, src1, src2 (select).
    pub fn inputs_layouts(&self) -> &[Layout] {
        &self.layouts
    }

    /// The destination's layout.
    pub fn out(&self) -> &Layout {
        &self.out
    }

    /// Whether src0 / src1 are scaled.
    pub fn scales(&self) -> [bool; 2] {
        self.scales
    }

    /// The post-ops.
    pub fn post_ops(&self) -> &PostOpsPlan {
        &self.post_ops
    }

    /// The execution arguments of the inputs, in the order of the layouts.
    pub fn input_args(&self) -> &'static [i32] {
        if self.src2.is_some() {
            &[DNNL_ARG_SRC_0, DNNL_ARG_SRC_1, DNNL_ARG_SRC_2]
        } else {
            &[DNNL_ARG_SRC_0, DNNL_ARG_SRC_1]
        }
    }

    /// Whether every tensor has one dense layout without padding and no
    /// input is broadcast, and no post-op needs positions: flat arrays.
    pub fn is_dense(&self) -> bool {
        let compact = |l: &Layout| l.is_compact() && !l.has_padding();
        compact(&self.out)
            && self.post_ops.is_empty()
            && self
                .layouts
                .iter()
                .all(|l| compact(l) && l.dims() == self.out.dims() && l.same_layout(&self.out))
    }
}

impl OpDesc for BinaryOp {
    fn kind(&self) -> dnnl_primitive_kind_t {
        dnnl_binary
    }

    fn alg_kind(&self) -> dnnl_alg_kind_t {
        self.alg.to_c()
    }

    fn arg_md(&self, arg: i32) -> Option<&Arc<MemoryDesc>> {
        match arg {
            DNNL_ARG_SRC_0 => Some(&self.src0),
            DNNL_ARG_SRC_1 => Some(&self.src1),
            DNNL_ARG_SRC_2 => self.src2.as_ref(),
            DNNL_ARG_DST => Some(&self.dst),
            other => self.post_ops.arg_md(other),
        }
    }

    fn inputs(&self) -> Vec<i32> {
        let mut v = self.input_args().to_vec();
        v.extend(self.post_ops.inputs());
        v
    }

    fn outputs(&self) -> Vec<i32> {
        vec![DNNL_ARG_DST]
    }

    fn verbose_aux(&self) -> String {
        let name = names::enum_str(dnnl_alg_kind_t::ALL, self.alg.to_c(), "dnnl_", "unknown");
        format!("alg:{name}")
    }

    fn verbose_problem(&self) -> String {
        let shapes: Vec<String> = self
            .inputs()
            .into_iter()
            .filter(|a| [DNNL_ARG_SRC_0, DNNL_ARG_SRC_1].contains(a))
            .filter_map(|a| self.arg_md(a).map(|md| dims_str(md.dims())))
            .collect();
        shapes.join(":")
    }

    fn cache_key(&self, w: &mut KeyWriter) -> bool {
        w.tag("binary")
            .put(&self.alg.to_c())
            .put(&self.src0)
            .put(&self.src1)
            .put(&self.src2)
            .put(&self.dst)
            .put(&self.scales);
        self.post_ops.cache_key(w);
        true
    }
}

/// Dense implementations take same-layout tensors without broadcast,
/// padding or post-ops.
fn dense_only(op: &BinaryOp, _: &Engine) -> Result<()> {
    if op.is_dense() {
        Ok(())
    } else {
        Err(Error::unimplemented(
            "broadcasting, padding, post-ops or different layouts",
        ))
    }
}

impl Kind for BinaryOp {
    const NAME: &'static str = "binary";
    const IMPLS: &'static [Impl<BinaryOp>] = &[
        Impl::cpu(c"cpu:binary_dense", dense_only, |op, e| {
            cpu::create(op, e, true)
        }),
        Impl::cpu(c"cpu:binary_generic", any_op, |op, e| {
            cpu::create(op, e, false)
        }),
        Impl::gpu(c"ocl:binary_dense_vec4", dense_only, |op, e| {
            ocl::create(op, e, true)
        }),
        Impl::gpu(c"ocl:binary_generic", any_op, |op, e| {
            ocl::create(op, e, false)
        }),
    ];

    fn attr_support(&self) -> AttrSupport {
        AttrSupport {
            parts: &[AttrPart::Scales, AttrPart::PostOps],
            scales: |arg| matches!(arg, DNNL_ARG_SRC_0 | DNNL_ARG_SRC_1),
            zero_points: |_| false,
        }
    }
}
