//! Convolution and deconvolution (`dnnl_convolution_*` and
//! `dnnl_deconvolution_*`): forward, backward data and backward weights.
//!
//! Layer: prims. This file holds the descriptor logic of both kinds (one
//! type, [`ConvOp`]); `geometry.rs` reduces each of the six primitives to
//! one convolution problem and its implicit GEMM; `cpu.rs` and `ocl.rs`
//! run it.
//! - shapes: 1D, 2D and 3D (`N x C x [[D x] H x] W`), weights
//!   `[G x] OC x IC x K…` (with `G`: grouped; `G = IC = OC` per group of one
//!   channel is depthwise), a bias of `G·OC` (deconvolution: its own OC);
//!   strides, dilations (0: dense, as oneDNN counts them), padding on both
//!   sides (the left one non-negative, the right one above minus the
//!   stride, as upstream checks). Output sizes must satisfy
//!   `(I - ((K - 1)·(D + 1) + 1) + PL + PR) / S + 1 = O` (deconvolution: with
//!   its src and dst exchanged), as upstream checks;
//! - algorithms: `convolution_direct`, `convolution_auto` (which settles on
//!   direct) and `deconvolution_direct`; the Winograd ones are
//!   unimplemented (no Winograd kernel here, as upstream on x64 CPUs);
//! - layouts: plain strided ones (any order of dimensions, offsets).
//!   Blocked layouts are unimplemented: reorder to a plain one first.
//!   `format_tag::any` resolves, on every engine, to channels-last data
//!   (`nwc`, `nhwc`, `ndhwc`) and weights with the kernel dimensions
//!   outermost and OC innermost (`wio`, `hwio`, `dhwio`, groups outermost):
//!   the implicit GEMM's depth then runs along contiguous channels and the
//!   weights are a plain row-major matrix per group (4-wide loads on GPUs);
//! - types: f32, f16 and bf16 (src and weights alike, any of the three for
//!   dst, f32 accumulation); forward int8: u8 or s8 src, s8 weights, dst
//!   f32, f16, bf16, s32, s8 or u8, bias f32, f16, bf16, s32, s8 or u8.
//!   Backward passes take the three float types;
//! - attributes (forward only): scales of src (mask 0), weights (mask 0, or
//!   per output channel: mask 1, with groups mask 3) and dst (mask 0); zero
//!   points of an int8 src (mask 0, or per input channel: mask 2; padding
//!   contributes nothing, as upstream's reference) and of dst (mask 0 or 2);
//!   post-ops. The result is `post_ops(scale_src·scale_wei·Σ(src - zp_src)·wei
//!   + bias) / scale_dst + zp_dst`, in oneDNN's order.
//!
//! Implementations: `cpu:gemm_conv` (the implicit GEMM on the blocked
//! microkernels of `gemm/blocked.rs`, A packed straight from the data
//! tensor, multi-threaded over output tiles and, for the weights gradient,
//! depth parts) and `ocl:gemm_conv` (`gemm.cl`'s tiled kernel with the
//! convolution's addressing, `conv.cl`), for every problem above.

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

pub(crate) mod cpu;
pub(crate) mod geometry;
pub(crate) mod ocl;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::abi::*;
use crate::core::attr::{AttrPart, AttrSupport, PrimitiveAttr};
use crate::core::error::{Error, Result};
use crate::core::key::KeyWriter;
use crate::core::memory_desc::MemoryDesc;
use crate::core::primitive::{Impl, Kind, OpDesc, any_op};
use crate::prims::common::dt::Elem;
use crate::prims::common::gemm::{Epilogue, scales_into};
use crate::prims::common::post_ops::PostOpsPlan;
use crate::prims::common::weighted::{Slots, check_given};
use geometry::{DataAt, Dir, Problem, Shape, WeiAt};

pub use crate::prims::common::weighted::Pass;

/// A zero point: one value, or one per channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ZeroPoint {
    Common,
    PerChannel,
}

/// The geometry a primitive was created with, as the C API gives it.
#[derive(Clone, Copy, Debug)]
pub struct Geometry<'a> {
    pub strides: &'a [i64],
    /// None: dense (zeros).
    pub dilates: Option<&'a [i64]>,
    pub padding_l: &'a [i64],
    /// None: equal to `padding_l`.
    pub padding_r: Option<&'a [i64]>,
}

/// The descriptors a primitive is created with, by convolution argument
/// name (forward: src, weights, bias, dst; backward data: diff_src,
/// weights, diff_dst; backward weights: src, diff_weights, diff_bias,
/// diff_dst).
pub struct Tensors<'a> {
    pub src: &'a MemoryDesc,
    pub weights: &'a MemoryDesc,
    /// None or the zero descriptor: no bias (gradient).
    pub bias: Option<&'a MemoryDesc>,
    pub dst: &'a MemoryDesc,
}

/// A convolution or deconvolution operation.
pub struct ConvOp {
    deconv: bool,
    pass: Pass,
    prop_kind: dnnl_prop_kind_t,
    alg: dnnl_alg_kind_t,
    /// src or diff_src; weights or diff_weights; bias or diff_bias; dst or
    /// diff_dst.
    src: Arc<MemoryDesc>,
    weights: Arc<MemoryDesc>,
    bias: Option<Arc<MemoryDesc>>,
    dst: Arc<MemoryDesc>,
    /// The queries' answers (spatial entries first, then zeros).
    strides: dnnl_dims_t,
    dilates: dnnl_dims_t,
    padding_l: dnnl_dims_t,
    padding_r: dnnl_dims_t,
    problem: Problem,
    epilogue: Epilogue,
    zp_src: Option<ZeroPoint>,
    zp_dst: Option<ZeroPoint>,
    /// The floating-point math mode (the attributes', else the default
    /// one): other than strict, f32 may run on NVIDIA tensor cores as tf32.
    fpmath: dnnl_fpmath_mode_t,
}

/// The execution arguments behind the convolution roles.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RoleArgs {
    pub x: i32,
    pub w: i32,
    pub y: i32,
    /// The bias (forward: added to C's channels) or the bias gradient
    /// (backward weights: summed from [`RoleArgs::bias_from`]).
    pub bias: Option<i32>,
    /// Backward weights: the data tensor the bias gradient sums (`x` or `y`).
    pub bias_from: i32,
}

/// Strides for `dims` with dimension order `order` (outermost first).
fn strides_in_order(dims: &[i64], order: &[usize]) -> Vec<i64> {
    let mut strides = vec![0i64; dims.len()];
    let mut s = 1i64;
    for &d in order.iter().rev() {
        strides[d] = s;
        s = s.saturating_mul(dims[d].max(1));
    }
    strides
}

/// `any` resolved: data channels-last, weights `[g] k… ic oc` (as the
/// module doc says); given descriptors are kept.
fn resolve_data(md: &MemoryDesc) -> Result<MemoryDesc> {
    if !md.is_any_format() {
        return Ok(md.clone());
    }
    let n = md.ndims();
    let mut order = vec![0];
    order.extend(2..n);
    order.push(1);
    MemoryDesc::with_strides(
        md.dims(),
        md.data_type(),
        Some(&strides_in_order(md.dims(), &order)),
    )
}

/// Weights: `o` and `i` are the dimension indices of W's OC and IC.
fn resolve_weights(md: &MemoryDesc, groups: bool, o: usize, i: usize) -> Result<MemoryDesc> {
    if !md.is_any_format() {
        return Ok(md.clone());
    }
    let n = md.ndims();
    let mut order = Vec::new();
    if groups {
        order.push(0);
    }
    order.extend(usize::from(groups) + 2..n);
    order.push(i);
    order.push(o);
    MemoryDesc::with_strides(
        md.dims(),
        md.data_type(),
        Some(&strides_in_order(md.dims(), &order)),
    )
}

fn resolve_plain(md: &MemoryDesc) -> Result<MemoryDesc> {
    if md.is_any_format() {
        MemoryDesc::with_strides(md.dims(), md.data_type(), None)
    } else {
        Ok(md.clone())
    }
}

fn dims_array(values: &[i64]) -> dnnl_dims_t {
    let mut out = [0i64; DNNL_MAX_NDIMS as usize];
    out[..values.len()].copy_from_slice(values);
    out
}

fn elem(md: &MemoryDesc, what: &str) -> Result<Elem> {
    Elem::from_c(md.data_type()).ok_or_else(|| {
        Error::unimplemented(format!(
            "{what}: data type {} is not supported",
            md.data_type().0
        ))
    })
}

fn is_float(e: Elem) -> bool {
    matches!(e, Elem::F32 | Elem::F16 | Elem::Bf16)
}

impl ConvOp {
    /// The checks of the six `*_primitive_desc_create` functions: `deconv`
    /// picks the kind, `pass` the function; `prop_kind` is the forward one's
    /// (the backward ones pass theirs).
    pub fn new(
        deconv: bool,
        pass: Pass,
        prop_kind: dnnl_prop_kind_t,
        alg: dnnl_alg_kind_t,
        t: Tensors,
        geo: Geometry,
        attr: Option<&PrimitiveAttr>,
    ) -> Result<ConvOp> {
        let kind = if deconv {
            "deconvolution"
        } else {
            "convolution"
        };
        if pass == Pass::Forward
            && !matches!(prop_kind, dnnl_forward_training | dnnl_forward_inference)
        {
            return Err(Error::invalid(format!(
                "bad propagation kind {} for {kind} forward",
                prop_kind.0
            )));
        }
        let alg = match (deconv, alg) {
            (false, dnnl_convolution_direct | dnnl_convolution_auto) => dnnl_convolution_direct,
            (true, dnnl_deconvolution_direct) => dnnl_deconvolution_direct,
            (false, dnnl_convolution_winograd) | (true, dnnl_deconvolution_winograd) => {
                return Err(Error::unimplemented(format!(
                    "{kind}: the Winograd algorithm has no implementation here (direct has)"
                )));
            }
            _ => {
                return Err(Error::invalid(format!(
                    "bad algorithm {} for {kind}",
                    alg.0
                )));
            }
        };
        let (names, bias_name) = match pass {
            Pass::Forward => (["src", "weights", "dst"], "bias"),
            Pass::BackwardData => (["diff_src", "weights", "diff_dst"], "bias"),
            Pass::BackwardWeights => (["src", "diff_weights", "diff_dst"], "diff_bias"),
        };
        let bias = t.bias.filter(|b| !b.is_zero());
        if pass == Pass::BackwardData && bias.is_some() {
            return Err(Error::invalid("backward data takes no bias"));
        }
        check_given(t.src, names[0])?;
        check_given(t.weights, names[1])?;
        check_given(t.dst, names[2])?;
        if let Some(b) = bias {
            check_given(b, bias_name)?;
        }

        // Shapes.
        let nd = t.src.ndims();
        if !(3..=5).contains(&nd) {
            return Err(Error::invalid(format!(
                "{kind} takes 3 to 5 dimensions (1D to 3D), not {nd}"
            )));
        }
        if t.dst.ndims() != nd {
            return Err(Error::invalid(format!(
                "{} has {} dimensions, {} {nd}",
                names[2],
                t.dst.ndims(),
                names[0]
            )));
        }
        let groups = match t.weights.ndims() {
            w if w == nd => false,
            w if w == nd + 1 => true,
            w => {
                return Err(Error::invalid(format!(
                    "{} has {w} dimensions: {nd} or {} expected",
                    names[1],
                    nd + 1
                )));
            }
        };
        let nsp = nd - 2;
        let (s, w, d) = (t.src.dims(), t.weights.dims(), t.dst.dims());
        let g = if groups { w[0] } else { 1 };
        let wo = usize::from(groups);
        let (w_out, w_in) = (w[wo], w[wo + 1]);
        let ksz = &w[wo + 2..];
        if s[0] != d[0] {
            return Err(Error::invalid(format!(
                "the minibatch differs: {} has {}, {} {}",
                names[0], s[0], names[2], d[0]
            )));
        }
        if w_in == 0 {
            return Err(Error::invalid(format!(
                "{} has no input channels",
                names[1]
            )));
        }
        if g <= 0 || s[1] != g * w_in || d[1] != g * w_out {
            return Err(Error::invalid(format!(
                "channels do not match: {} has {}, {} {}, weights {:?}",
                names[0], s[1], names[2], d[1], w
            )));
        }
        for (v, what) in [(geo.strides, "strides"), (geo.padding_l, "padding_l")] {
            if v.len() < nsp {
                return Err(Error::invalid(format!("{what}: {nsp} values expected")));
            }
        }
        let strides = &geo.strides[..nsp];
        let dil: Vec<i64> = geo
            .dilates
            .map_or(vec![0; nsp], |v| v[..nsp.min(v.len())].to_vec());
        let pl = &geo.padding_l[..nsp];
        let pr: Vec<i64> = geo
            .padding_r
            .map_or(pl.to_vec(), |v| v[..nsp.min(v.len())].to_vec());
        // X is the side padding applies to: conv's src, deconv's dst.
        let (x_md, y_md) = if deconv {
            (t.dst, t.src)
        } else {
            (t.src, t.dst)
        };
        for i in 0..nsp {
            let (xi, yi, k) = (x_md.dims()[2 + i], y_md.dims()[2 + i], ksz[i]);
            // As upstream: no left padding below 0, and a right padding
            // above minus the stride (a window never starts past the end).
            if strides[i] > 0 && (pl[i] < 0 || pr[i].saturating_add(strides[i]) <= 0) {
                return Err(Error::invalid(format!(
                    "spatial dimension {i}: padding_l {} must be non-negative and padding_r {} \
                     above minus the stride",
                    pl[i], pr[i]
                )));
            }
            if strides[i] <= 0 || dil[i] < 0 || k <= 0 {
                return Err(Error::invalid(format!(
                    "spatial dimension {i}: stride {} must be positive, dilation {} and \
                     kernel {k} non-negative",
                    strides[i], dil[i]
                )));
            }
            let range = (k - 1)
                .checked_mul(dil[i] + 1)
                .and_then(|r| r.checked_add(1))
                .ok_or_else(|| Error::invalid("the kernel's extent overflows"))?;
            let padded = xi
                .checked_add(pl[i])
                .and_then(|v| v.checked_add(pr[i]))
                .and_then(|v| v.checked_sub(range))
                .ok_or_else(|| Error::invalid("the padded size overflows"))?;
            if padded < 0 || padded / strides[i] + 1 != yi {
                return Err(Error::invalid(format!(
                    "spatial dimension {i}: ({xi} - {range} + {} + {}) / {} + 1 is not {yi}",
                    pl[i], pr[i], strides[i]
                )));
            }
        }
        if let Some(b) = bias {
            // The output channels: conv's OC, deconv's OC alike.
            let want = g * w_out;
            if b.ndims() != 1 || b.dims()[0] != want {
                return Err(Error::invalid(format!(
                    "the {bias_name} {:?} is not {{{want}}}",
                    b.dims()
                )));
            }
        }

        // Types.
        let (es, ew, ed) = (
            elem(t.src, names[0])?,
            elem(t.weights, names[1])?,
            elem(t.dst, names[2])?,
        );
        let int8 = matches!(es, Elem::U8 | Elem::S8);
        match pass {
            Pass::Forward if int8 => {
                if ew != Elem::S8 {
                    return Err(Error::unimplemented("int8: the weights must be s8"));
                }
            }
            Pass::Forward => {
                if !is_float(es) || es != ew || !is_float(ed) {
                    return Err(Error::unimplemented(format!(
                        "{kind}: src {es:?}, weights {ew:?}, dst {ed:?} is not a supported \
                         combination"
                    )));
                }
            }
            Pass::BackwardData => {
                if !is_float(ed) || ed != ew || !is_float(es) {
                    return Err(Error::unimplemented(format!(
                        "{kind} backward data: diff_dst {ed:?}, weights {ew:?}, diff_src \
                         {es:?} is not a supported combination"
                    )));
                }
            }
            Pass::BackwardWeights => {
                if !is_float(es) || es != ed || !is_float(ew) {
                    return Err(Error::unimplemented(format!(
                        "{kind} backward weights: src {es:?}, diff_dst {ed:?}, diff_weights \
                         {ew:?} is not a supported combination"
                    )));
                }
            }
        }
        if let Some(b) = bias {
            let eb = elem(b, bias_name)?;
            let ok = if pass == Pass::Forward && int8 {
                true
            } else {
                is_float(eb)
            };
            if !ok {
                return Err(Error::unimplemented(format!(
                    "{bias_name}: {eb:?} is not supported"
                )));
            }
        }

        // Layouts.
        let src = resolve_data(t.src)?;
        let dst = resolve_data(t.dst)?;
        let (o_dim, i_dim) = (wo, wo + 1);
        let (w_oc_dim, w_ic_dim) = if deconv {
            (i_dim, o_dim)
        } else {
            (o_dim, i_dim)
        };
        let weights = resolve_weights(t.weights, groups, w_oc_dim, w_ic_dim)?;
        let bias = bias.map(resolve_plain).transpose()?;
        let (x_md, y_md) = if deconv { (&dst, &src) } else { (&src, &dst) };
        let x = DataAt::new(x_md, names[if deconv { 2 } else { 0 }])?;
        let y = DataAt::new(y_md, names[if deconv { 0 } else { 2 }])?;
        let wat = WeiAt::new(&weights, groups, deconv, names[1])?;
        let norm = |v: &[i64], fill: i64| -> [i64; 3] {
            let mut out = [fill; 3];
            out[3 - v.len()..].copy_from_slice(v);
            out
        };
        let shape = Shape {
            mb: s[0],
            g,
            ic: x_md.dims()[1] / g,
            oc: y_md.dims()[1] / g,
            i: norm(&x_md.dims()[2..], 1),
            o: norm(&y_md.dims()[2..], 1),
            k: norm(ksz, 1),
            s: norm(strides, 1),
            d: norm(&dil.iter().map(|v| v + 1).collect::<Vec<_>>(), 1),
            p: norm(pl, 0),
        };
        let dir = match (deconv, pass) {
            (false, Pass::Forward) | (true, Pass::BackwardData) => Dir::Y,
            (false, Pass::BackwardData) | (true, Pass::Forward) => Dir::X,
            (_, Pass::BackwardWeights) => Dir::W,
        };
        let problem = Problem {
            dir,
            shape,
            x,
            w: wat,
            y,
        };

        // Attributes.
        let (epilogue, zp_src, zp_dst) = match (pass, attr) {
            (Pass::Forward, Some(attr)) => forward_attr(attr, &dst, groups, int8, kind)?,
            _ => (Epilogue::default(), None, None),
        };
        Ok(ConvOp {
            deconv,
            pass,
            prop_kind: match pass {
                Pass::Forward => prop_kind,
                Pass::BackwardData => dnnl_backward_data,
                Pass::BackwardWeights => dnnl_backward_weights,
            },
            alg,
            src: Arc::new(src),
            weights: Arc::new(weights),
            bias: bias.map(Arc::new),
            dst: Arc::new(dst),
            strides: dims_array(strides),
            dilates: dims_array(&dil),
            padding_l: dims_array(pl),
            padding_r: dims_array(&pr),
            problem,
            epilogue,
            zp_src,
            zp_dst,
            fpmath: match attr {
                Some(a) => a.fpmath.mode,
                None => crate::core::settings::default_fpmath_mode(),
            },
        })
    }

    fn slots(&self) -> Slots<'_> {
        Slots {
            pass: self.pass,
            src: &self.src,
            weights: &self.weights,
            bias: self.bias.as_ref(),
            dst: &self.dst,
            post_ops: &self.epilogue.post_ops,
        }
    }

    /// The floating-point math mode.
    pub(crate) fn fpmath(&self) -> dnnl_fpmath_mode_t {
        self.fpmath
    }

    pub(crate) fn problem(&self) -> &Problem {
        &self.problem
    }

    pub(crate) fn epilogue(&self) -> &Epilogue {
        &self.epilogue
    }

    pub(crate) fn zero_points(&self) -> (Option<ZeroPoint>, Option<ZeroPoint>) {
        (self.zp_src, self.zp_dst)
    }

    /// The bias's descriptor (forward) or the bias gradient's.
    pub(crate) fn bias_md(&self) -> Option<&MemoryDesc> {
        self.bias.as_deref()
    }

    /// The number of dimensions of the data tensors.
    pub(crate) fn dst_ndims(&self) -> usize {
        self.src.ndims()
    }

    /// The bias's element type (forward) or the bias gradient's.
    pub(crate) fn bias_elem(&self) -> Option<Elem> {
        self.bias.as_ref().and_then(|b| Elem::from_c(b.data_type()))
    }

    /// The execution arguments of the roles.
    pub(crate) fn role_args(&self) -> RoleArgs {
        let (src, wei, dst) = match self.pass {
            Pass::Forward => (DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST),
            Pass::BackwardData => (DNNL_ARG_DIFF_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DIFF_DST),
            Pass::BackwardWeights => (DNNL_ARG_SRC, DNNL_ARG_DIFF_WEIGHTS, DNNL_ARG_DIFF_DST),
        };
        let (x, y) = if self.deconv { (dst, src) } else { (src, dst) };
        let bias = self.bias.as_ref().map(|_| match self.pass {
            Pass::BackwardWeights => DNNL_ARG_DIFF_BIAS,
            _ => DNNL_ARG_BIAS,
        });
        RoleArgs {
            x,
            w: wei,
            y,
            bias,
            // The gradient of the bias of the output channels: conv's
            // diff_dst (Y), deconv's diff_dst (X).
            bias_from: if self.deconv { x } else { y },
        }
    }
}

/// The forward attributes: scales, zero points, post-ops.
fn forward_attr(
    attr: &PrimitiveAttr,
    dst: &MemoryDesc,
    groups: bool,
    int8: bool,
    kind: &str,
) -> Result<(Epilogue, Option<ZeroPoint>, Option<ZeroPoint>)> {
    let mut epi = Epilogue::default();
    // One weights scale per output channel: mask 1, with groups 3.
    scales_into(&mut epi, attr, if groups { 3 } else { 1 }, kind)?;
    let (mut zp_src, mut zp_dst) = (None, None);
    for (&arg, spec) in &attr.zero_points {
        if !int8 {
            return Err(Error::unimplemented(format!(
                "{kind}: zero points apply to int8 sources only"
            )));
        }
        if spec.data_type != dnnl_s32 || spec.groups.is_some() || spec.on_host {
            return Err(Error::unimplemented(
                "zero points: only s32 values in device memory, without groups, are supported",
            ));
        }
        let zp = match spec.mask {
            0 => ZeroPoint::Common,
            2 => ZeroPoint::PerChannel,
            m => {
                return Err(Error::unimplemented(format!(
                    "{kind}: zero points with mask {m} are not supported (0 and 2 are)"
                )));
            }
        };
        match arg {
            DNNL_ARG_SRC => zp_src = Some(zp),
            DNNL_ARG_DST => zp_dst = Some(zp),
            _ => {
                return Err(Error::unimplemented(format!(
                    "{kind}: zero points of argument {arg} are not supported"
                )));
            }
        }
    }
    epi.post_ops = PostOpsPlan::new(&attr.post_ops, dst)?;
    Ok((epi, zp_src, zp_dst))
}

impl OpDesc for ConvOp {
    fn kind(&self) -> dnnl_primitive_kind_t {
        if self.deconv {
            dnnl_deconvolution
        } else {
            dnnl_convolution
        }
    }

    fn prop_kind(&self) -> dnnl_prop_kind_t {
        self.prop_kind
    }

    fn alg_kind(&self) -> dnnl_alg_kind_t {
        self.alg
    }

    fn arg_md(&self, arg: i32) -> Option<&Arc<MemoryDesc>> {
        self.slots().arg_md(arg)
    }

    fn inputs(&self) -> Vec<i32> {
        self.slots().inputs()
    }

    fn outputs(&self) -> Vec<i32> {
        self.slots().outputs()
    }

    fn query_dims(&self, what: dnnl_query_t) -> Option<&dnnl_dims_t> {
        match what {
            dnnl_query_strides => Some(&self.strides),
            dnnl_query_dilations => Some(&self.dilates),
            dnnl_query_padding_l => Some(&self.padding_l),
            dnnl_query_padding_r => Some(&self.padding_r),
            _ => None,
        }
    }

    fn verbose_aux(&self) -> String {
        let alg = if self.deconv {
            "deconvolution_direct"
        } else {
            "convolution_direct"
        };
        format!("alg:{alg}")
    }

    /// Upstream's problem string: `[gG]mbN_icICocOC_[idIDodODkdKDsdSDddDDpdPD_]…`
    /// with the primitive's own src and dst sizes.
    fn verbose_problem(&self) -> String {
        let nd = self.src.ndims();
        let groups = self.weights.ndims() == nd + 1;
        let wo = usize::from(groups);
        let (s, d, w) = (self.src.dims(), self.dst.dims(), self.weights.dims());
        let mut out = String::new();
        if groups {
            out += &format!("g{}", w[0]);
        }
        out += &format!("mb{}_ic{}oc{}", s[0], s[1], d[1]);
        let names = ["d", "h", "w"];
        let nsp = nd - 2;
        for i in 0..nsp {
            let name = names[3 - nsp + i];
            out += &format!(
                "_i{name}{}o{name}{}k{name}{}s{name}{}d{name}{}p{name}{}",
                s[2 + i],
                d[2 + i],
                w[wo + 2 + i],
                self.strides[i],
                self.dilates[i],
                self.padding_l[i]
            );
        }
        out
    }

    fn cache_key(&self, w: &mut KeyWriter) -> bool {
        w.tag(if self.deconv { "deconv" } else { "conv" })
            .u8(self.pass as u8)
            .i32(self.prop_kind.0 as i32)
            .i32(self.alg.0 as i32)
            .put(&self.src)
            .put(&self.weights)
            .put(&self.bias)
            .put(&self.dst)
            .i64s(&self.strides)
            .i64s(&self.dilates)
            .i64s(&self.padding_l)
            .i64s(&self.padding_r);
        self.epilogue.cache_key(w);
        let zp = |z: Option<ZeroPoint>| match z {
            None => 0u8,
            Some(ZeroPoint::Common) => 1,
            Some(ZeroPoint::PerChannel) => 2,
        };
        w.u8(zp(self.zp_src))
            .u8(zp(self.zp_dst))
            .i32(self.fpmath.0 as i32);
        true
    }
}

impl Kind for ConvOp {
    const NAME: &'static str = "convolution";
    const IMPLS: &'static [Impl<ConvOp>] = &[
        Impl::cpu(c"cpu:gemm_conv", any_op, cpu::create),
        Impl::gpu(c"ocl:gemm_conv_mma", ocl::accepts_mma, ocl::create_mma)
            .with_scratchpad(ocl::scratchpad),
        Impl::gpu(c"ocl:gemm_conv", any_op, ocl::create).with_scratchpad(ocl::scratchpad),
    ];

    fn attr_support(&self) -> AttrSupport {
        if self.pass == Pass::Forward {
            AttrSupport {
                parts: &[
                    AttrPart::PostOps,
                    AttrPart::Scales,
                    AttrPart::ZeroPoints,
                    AttrPart::Deterministic,
                    AttrPart::AccMode,
                ],
                scales: |arg| matches!(arg, DNNL_ARG_SRC | DNNL_ARG_WEIGHTS | DNNL_ARG_DST),
                zero_points: |arg| matches!(arg, DNNL_ARG_SRC | DNNL_ARG_DST),
            }
        } else {
            AttrSupport {
                parts: &[AttrPart::Deterministic, AttrPart::AccMode],
                scales: |_| false,
                zero_points: |_| false,
            }
        }
    }
}
