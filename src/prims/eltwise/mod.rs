//! Eltwise: an element-wise function (ReLU, tanh, GELU, ...) forward, and its
//! derivative backward (`dnnl_eltwise_*_primitive_desc_create`).
//!
//! Layer: prims. This file holds the descriptor logic: which algorithms,
//! parameters, data types and layouts are accepted (upstream's rules, checked
//! against oneDNN's CPU library), how `format_tag::any` is resolved, and the
//! list of implementations, best first:
//! - `cpu:eltwise_dense`: the tensors share one dense layout, so the buffers
//!   are processed as flat arrays (multi-threaded, in blocks);
//! - `cpu:eltwise_strided`: any blocked layouts (mixed, strided, padded),
//!   walking the output in memory order;
//! - `ocl:eltwise_dense_vec4` / `ocl:eltwise_strided`: the same two cases as
//!   OpenCL kernels (`eltwise.cl`), specialised with `-D` macros.
//!
//! Every computation runs in `f32`. Integer types are forward only, for the
//! algorithms upstream allows on them; stores round half to even and
//! saturate. Deliberate differences from upstream: mixed data types (an f32
//! source with a bf16 destination, say) and mixed layouts (nhwc to nchw) are
//! computed instead of refused as unimplemented.
//!
//! Padding: where the output layout has padding (nChw16c with 3 channels),
//! the padding is written with zeros, as upstream does.

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

pub(crate) mod cpu;
pub(crate) mod ocl;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::abi::*;
use crate::core::attr::{AttrPart, AttrSupport};
use crate::core::engine::Engine;
use crate::core::error::{Error, Result};
use crate::core::key::KeyWriter;
use crate::core::memory_desc::{Format, MemoryDesc};
use crate::core::names;
use crate::core::primitive::{Impl, Kind, OpDesc, any_op};
use crate::prims::common::dt::Elem;
use crate::prims::common::eltwise_alg::Alg;
use crate::prims::common::layout::{Layout, resolve_any};
use crate::prims::common::post_ops::PostOpsPlan;

/// Upstream's `is_eltwise_ok`: the parameter rules, and the algorithms an
/// integer source allows (ReLU and linear; upstream's rule leaves the
/// `_use_dst_for_bwd` variants out of that restriction, and so do we).
/// Round takes an f32 source only.
fn params_ok(alg: Alg, dt: dnnl_data_type_t, alpha: f32, beta: f32) -> bool {
    let int = matches!(dt, dnnl_s32 | dnnl_s8 | dnnl_u8);
    if alg.use_dst() {
        return match alg {
            Alg::ReluDst | Alg::EluDst => alpha >= 0.0,
            Alg::ClipV2Dst => beta >= alpha,
            _ => true,
        };
    }
    let ok = match alg {
        Alg::Clip | Alg::ClipV2 => beta >= alpha,
        Alg::Round => dt == dnnl_f32,
        _ => true,
    };
    ok && (!int || matches!(alg, Alg::Relu | Alg::Linear))
}

/// Which way the op runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Forward,
    Backward,
}

/// An eltwise operation: the `OpDesc` of both directions.
///
/// Forward reads `data` (the source) and writes `out` (the destination).
/// Backward reads `data` (the source, or the destination for the
/// `_use_dst_for_bwd` algorithms) and `diff_dst`, and writes `out` (the
/// source gradient).
pub struct EltwiseOp {
    direction: Direction,
    prop_kind: dnnl_prop_kind_t,
    alg: Alg,
    alpha: f32,
    beta: f32,
    data: Arc<MemoryDesc>,
    diff_dst: Option<Arc<MemoryDesc>>,
    out: Arc<MemoryDesc>,
    layouts: Layouts,
    /// Forward post-ops (empty backward).
    post_ops: PostOpsPlan,
}

/// The decoded layouts of an op's tensors.
#[derive(Clone, Debug)]
pub struct Layouts {
    /// Input 0: the source (forward) or data (backward).
    pub data: Layout,
    /// Input 1 (backward): the destination gradient.
    pub diff_dst: Option<Layout>,
    /// The output: destination (forward) or source gradient (backward).
    pub out: Layout,
}

impl Layouts {
    /// Whether every tensor has the same dense layout without padding, so
    /// that the buffers can be processed as flat arrays.
    pub fn is_dense(&self) -> bool {
        let compact = |l: &Layout| l.is_compact() && !l.has_padding();
        compact(&self.out)
            && compact(&self.data)
            && self.data.same_layout(&self.out)
            && self
                .diff_dst
                .as_ref()
                .is_none_or(|d| compact(d) && d.same_layout(&self.out))
    }
}

/// Checks what both directions share: a descriptor with dimensions, not
/// `any` where that is not allowed, the same dimensions as `reference`.
fn check_shape(md: &MemoryDesc, what: &str, reference: &MemoryDesc, ref_what: &str) -> Result<()> {
    if md.is_zero() {
        return Err(Error::invalid(format!(
            "the {what} memory descriptor has no dimensions"
        )));
    }
    if md.ndims() != reference.ndims() {
        return Err(Error::invalid(format!(
            "tensors {ref_what} and {what} have inconsistent number of dimensions"
        )));
    }
    if md.dims() != reference.dims() {
        return Err(Error::invalid(format!(
            "dimensions of {ref_what} {:?} are inconsistent with {what} {:?}",
            reference.dims(),
            md.dims()
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

/// The element type of `md`, or unimplemented.
fn elem(md: &MemoryDesc, what: &str) -> Result<Elem> {
    Elem::from_c(md.data_type()).ok_or_else(|| {
        Error::unimplemented(format!(
            "{what}: data type {} is not supported",
            md.data_type().0
        ))
    })
}

impl EltwiseOp {
    /// `dnnl_eltwise_forward_primitive_desc_create`'s checks; `dst` may be
    /// `any` (it then takes `src`'s layout).
    pub fn forward(
        prop_kind: dnnl_prop_kind_t,
        alg_kind: dnnl_alg_kind_t,
        src: &MemoryDesc,
        dst: &MemoryDesc,
        alpha: f32,
        beta: f32,
    ) -> Result<EltwiseOp> {
        if !matches!(prop_kind, dnnl_forward_training | dnnl_forward_inference) {
            return Err(Error::invalid(format!(
                "bad propagation kind {} for eltwise forward",
                prop_kind.0
            )));
        }
        let alg = Alg::from_c(alg_kind).ok_or_else(|| {
            Error::invalid(format!("{:#x} is not an eltwise algorithm", alg_kind.0))
        })?;
        if !params_ok(alg, src.data_type(), alpha, beta) {
            return Err(Error::invalid(
                "alpha and beta parameters are not properly set (or the algorithm does not take this source data type)",
            ));
        }
        if src.is_any_format() {
            return Err(Error::invalid("unsupported format tag for src: any"));
        }
        check_shape(src, "src", src, "src")?;
        check_shape(dst, "dst", src, "src")?;
        elem(src, "src")?;
        elem(dst, "dst")?;
        let dst = if dst.is_any_format() {
            resolve_any(Some(src), src.dims(), dst.data_type())?
        } else {
            dst.clone()
        };
        let layouts = Layouts {
            data: Layout::new(src)?,
            diff_dst: None,
            out: Layout::new(&dst)?,
        };
        Ok(EltwiseOp {
            direction: Direction::Forward,
            prop_kind,
            alg,
            alpha,
            beta,
            data: Arc::new(src.clone()),
            diff_dst: None,
            out: Arc::new(dst),
            layouts,
            post_ops: PostOpsPlan::none(),
        })
    }

    /// `dnnl_eltwise_backward_primitive_desc_create`'s checks. `data` is the
    /// source, or the destination for the `_use_dst_for_bwd` algorithms.
    /// Descriptors given as `any` take the layout of the first one that is
    /// not (diff_dst, diff_src, data), or plain row-major.
    pub fn backward(
        alg_kind: dnnl_alg_kind_t,
        diff_src: &MemoryDesc,
        diff_dst: &MemoryDesc,
        data: &MemoryDesc,
        alpha: f32,
        beta: f32,
    ) -> Result<EltwiseOp> {
        let alg = Alg::from_c(alg_kind).ok_or_else(|| {
            Error::invalid(format!("{:#x} is not an eltwise algorithm", alg_kind.0))
        })?;
        if !params_ok(alg, data.data_type(), alpha, beta) {
            return Err(Error::invalid(
                "alpha and beta parameters are not properly set (or the algorithm does not take this data type)",
            ));
        }
        if alg == Alg::Round {
            return Err(Error::invalid(
                "bad propagation kind: round has no backward",
            ));
        }
        let data_name = if alg.use_dst() { "dst" } else { "src" };
        check_shape(data, data_name, data, data_name)?;
        check_shape(diff_dst, "diff_dst", data, data_name)?;
        check_shape(diff_src, "diff_src", data, data_name)?;
        for (md, what) in [
            (data, data_name),
            (diff_dst, "diff_dst"),
            (diff_src, "diff_src"),
        ] {
            if elem(md, what)?.is_int() {
                return Err(Error::unimplemented(format!(
                    "eltwise backward computes floating-point types only ({what} is an integer type)"
                )));
            }
        }
        let reference = [diff_dst, diff_src, data]
            .into_iter()
            .find(|md| !md.is_any_format());
        let resolve = |md: &MemoryDesc| -> Result<MemoryDesc> {
            if md.is_any_format() {
                resolve_any(reference, data.dims(), md.data_type())
            } else {
                Ok(md.clone())
            }
        };
        let (data, diff_dst, diff_src) = (resolve(data)?, resolve(diff_dst)?, resolve(diff_src)?);
        let layouts = Layouts {
            data: Layout::new(&data)?,
            diff_dst: Some(Layout::new(&diff_dst)?),
            out: Layout::new(&diff_src)?,
        };
        Ok(EltwiseOp {
            direction: Direction::Backward,
            prop_kind: dnnl_backward_data,
            alg,
            alpha,
            beta,
            data: Arc::new(data),
            diff_dst: Some(Arc::new(diff_dst)),
            out: Arc::new(diff_src),
            layouts,
            post_ops: PostOpsPlan::none(),
        })
    }

    /// Adds forward post-ops from `post_ops`, checked against the
    /// destination (backward takes none: unimplemented).
    pub fn with_post_ops(mut self, post_ops: &crate::core::attr::PostOps) -> Result<EltwiseOp> {
        if post_ops.is_empty() {
            return Ok(self);
        }
        if self.direction == Direction::Backward {
            return Err(Error::unimplemented("eltwise backward applies no post-ops"));
        }
        self.post_ops = PostOpsPlan::new(post_ops, &self.out)?;
        Ok(self)
    }

    /// The post-ops (forward).
    pub fn post_ops(&self) -> &PostOpsPlan {
        &self.post_ops
    }

    /// Whether the dense (flat-array) kernels apply: one dense layout and no
    /// post-ops (which need each element's position).
    pub fn flat(&self) -> bool {
        self.layouts.is_dense() && self.post_ops.is_empty()
    }

    /// Forward or backward.
    pub fn direction(&self) -> Direction {
        self.direction
    }

    /// The algorithm.
    pub fn alg(&self) -> Alg {
        self.alg
    }

    /// The algorithm's alpha parameter.
    pub fn alpha(&self) -> f32 {
        self.alpha
    }

    /// The algorithm's beta parameter.
    pub fn beta(&self) -> f32 {
        self.beta
    }

    /// The decoded layouts.
    pub fn layouts(&self) -> &Layouts {
        &self.layouts
    }

    /// The argument input 0 is passed as.
    pub fn data_arg(&self) -> i32 {
        match self.direction {
            Direction::Forward => DNNL_ARG_SRC,
            Direction::Backward if self.alg.use_dst() => DNNL_ARG_DST,
            Direction::Backward => DNNL_ARG_SRC,
        }
    }

    /// The argument the output is passed as.
    pub fn out_arg(&self) -> i32 {
        match self.direction {
            Direction::Forward => DNNL_ARG_DST,
            Direction::Backward => DNNL_ARG_DIFF_SRC,
        }
    }
}

impl OpDesc for EltwiseOp {
    fn kind(&self) -> dnnl_primitive_kind_t {
        dnnl_eltwise
    }

    fn prop_kind(&self) -> dnnl_prop_kind_t {
        self.prop_kind
    }

    fn alg_kind(&self) -> dnnl_alg_kind_t {
        self.alg.to_c()
    }

    fn arg_md(&self, arg: i32) -> Option<&Arc<MemoryDesc>> {
        if arg == self.data_arg() {
            Some(&self.data)
        } else if arg == self.out_arg() {
            Some(&self.out)
        } else if arg == DNNL_ARG_DIFF_DST {
            self.diff_dst.as_ref()
        } else {
            self.post_ops.arg_md(arg)
        }
    }

    fn inputs(&self) -> Vec<i32> {
        match self.direction {
            Direction::Forward => [vec![DNNL_ARG_SRC], self.post_ops.inputs()].concat(),
            Direction::Backward => vec![self.data_arg(), DNNL_ARG_DIFF_DST],
        }
    }

    fn outputs(&self) -> Vec<i32> {
        vec![self.out_arg()]
    }

    fn query_f32(&self, what: dnnl_query_t) -> Option<f32> {
        match what {
            dnnl_query_alpha_f32 => Some(self.alpha),
            dnnl_query_beta_f32 => Some(self.beta),
            _ => None,
        }
    }

    fn verbose_aux(&self) -> String {
        let name = names::enum_str(dnnl_alg_kind_t::ALL, self.alg.to_c(), "dnnl_", "unknown");
        format!("alg:{name} alpha:{} beta:{}", self.alpha, self.beta)
    }

    fn cache_key(&self, w: &mut KeyWriter) -> bool {
        w.tag("eltwise")
            .put(&self.prop_kind)
            .put(&self.alg.to_c())
            .f32(self.alpha)
            .f32(self.beta)
            .put(&self.data)
            .put(&self.diff_dst)
            .put(&self.out);
        self.post_ops.cache_key(w);
        true
    }
}

/// Dense implementations take tensors of one dense layout without post-ops.
fn flat_only(op: &EltwiseOp, _: &Engine) -> Result<()> {
    if op.flat() {
        Ok(())
    } else {
        Err(Error::unimplemented(
            "the tensors do not share one dense layout, or there are post-ops",
        ))
    }
}

impl Kind for EltwiseOp {
    const NAME: &'static str = "eltwise";
    const IMPLS: &'static [Impl<EltwiseOp>] = &[
        Impl::cpu(c"cpu:eltwise_dense", flat_only, |op, _| {
            cpu::create(op, true)
        }),
        Impl::cpu(c"cpu:eltwise_strided", any_op, |op, _| {
            cpu::create(op, false)
        }),
        Impl::gpu(c"ocl:eltwise_dense_vec4", flat_only, |op, e| {
            ocl::create(op, e, true)
        }),
        Impl::gpu(c"ocl:eltwise_strided", any_op, |op, e| {
            ocl::create(op, e, false)
        }),
    ];

    fn attr_support(&self) -> AttrSupport {
        match self.direction {
            Direction::Forward => AttrSupport::parts(&[AttrPart::PostOps]),
            Direction::Backward => AttrSupport::NONE,
        }
    }
}
