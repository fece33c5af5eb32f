//! The geometry of the convolution ops (Convolution, ConvTranspose and
//! their backward ops): attributes read and checked, output shapes
//! inferred, and the tensors seen the way the convolution primitive wants
//! them.
//!
//! Layer: graph. The graph describes data as `NCX` (`N, C, spatial…`) or
//! `NXC` (`N, spatial…, C`), and weights as
//! - Convolution: `OIX` (`OC, IC/g, K…`) or `XIO` (`K…, IC/g, OC`);
//! - ConvTranspose: `IOX` (`IC, OC/g, K…`) or `XOI` (`K…, OC/g, IC`), the
//!   input channels counted whole and the output channels per group (as
//!   upstream's v3.13 library reads them; its documentation says the
//!   reverse).
//!
//! The primitive takes `N, C, spatial…` data and `[G,] OC/g, IC/g, K…`
//! weights (deconvolution: OC its destination's channels), with any
//! strides, so each tensor is a view: its axes permuted, the group split
//! out of a channel axis. Dilations count from 1 (dense) in the graph and
//! from 0 in the primitive. Padding applies to the side oneDNN calls X
//! (a convolution's source, a transposed convolution's destination); `auto_pad`
//! replaces the given pads: `VALID` none, `SAME_UPPER` / `SAME_LOWER` as
//! many as make `Y = ceil(X / stride)` (transposed: `X = Y · stride`), the
//! odd one at the end or at the beginning. A transposed convolution's
//! `output_padding` adds rows at the end of X, which the primitive sees as
//! that much less padding on the right.
//!
//! Bad geometry is `dnnl_invalid_shape` (channels or groups that do not
//! match, strides or dilations below 1, an empty output), a bad `groups`
//! value `dnnl_invalid_graph_op` (`dnnl_invalid_shape` when the output's
//! shape is to be inferred), as upstream answers at compilation.

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

use crate::abi::*;
use crate::core::error::{Error, Result};
use crate::core::memory_desc::MemoryDesc;
use crate::graph::logical_tensor::{self, Lt};
use crate::graph::op::Op;

/// Convolution or transposed convolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Family {
    Conv,
    ConvT,
}

/// Which computation of the family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    Forward,
    BackwardData,
    BackwardWeights,
}

/// The family and role of a convolution op kind.
pub(crate) fn kind_of(kind: dnnl_graph_op_kind_t) -> Option<(Family, Role)> {
    Some(match kind {
        dnnl_graph_op_convolution => (Family::Conv, Role::Forward),
        dnnl_graph_op_convolution_backward_data => (Family::Conv, Role::BackwardData),
        dnnl_graph_op_convolution_backward_weights => (Family::Conv, Role::BackwardWeights),
        dnnl_graph_op_conv_transpose => (Family::ConvT, Role::Forward),
        dnnl_graph_op_conv_transpose_backward_data => (Family::ConvT, Role::BackwardData),
        dnnl_graph_op_conv_transpose_backward_weights => (Family::ConvT, Role::BackwardWeights),
        _ => return None,
    })
}

fn shape_err(op: &Op, why: String) -> Error {
    Error::InvalidShape(format!("op {} ({}): {why}", op.id, op.kind_name()).into())
}

/// `auto_pad`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AutoPad {
    None,
    SameUpper,
    SameLower,
    Valid,
}

/// A convolution op's attributes, read and checked for `nsp` spatial
/// dimensions.
#[derive(Clone, Debug)]
pub(crate) struct Attrs {
    pub family: Family,
    pub role: Role,
    pub nsp: usize,
    /// `data_format` is `NCX` (else `NXC`).
    pub ncx: bool,
    /// `weights_format` puts the kernel first (`XIO`, `XOI`).
    pub x_first: bool,
    pub groups: i64,
    pub strides: Vec<i64>,
    /// As the graph counts them (1: dense).
    pub dilations: Vec<i64>,
    pub pads_begin: Vec<i64>,
    pub pads_end: Vec<i64>,
    pub auto_pad: AutoPad,
    pub output_padding: Vec<i64>,
}

impl Attrs {
    /// The attributes of `op` (a convolution op kind) for `nsp` spatial
    /// dimensions.
    pub fn read(op: &Op, nsp: usize) -> Result<Attrs> {
        let (family, role) = kind_of(op.kind)
            .ok_or_else(|| Error::runtime(format!("{} is no convolution", op.kind_name())))?;
        if !(1..=3).contains(&nsp) {
            return Err(shape_err(
                op,
                format!("{nsp} spatial dimensions: 1 to 3 are supported"),
            ));
        }
        let groups = op.s64_or(dnnl_graph_op_attr_groups, 1);
        if groups < 1 {
            return Err(Error::InvalidGraphOp(
                format!(
                    "op {} ({}): groups {groups} is not positive",
                    op.id,
                    op.kind_name()
                )
                .into(),
            ));
        }
        let vector = |attr, name: &str, default: Option<i64>| -> Result<Vec<i64>> {
            let v = match (op.s64s(attr), default) {
                (Some(v), _) => v,
                (None, Some(d)) => vec![d; nsp],
                (None, None) => return Err(shape_err(op, format!("'{name}' is missing"))),
            };
            if v.len() < nsp {
                return Err(shape_err(
                    op,
                    format!(
                        "'{name}' has {} values for {nsp} spatial dimensions",
                        v.len()
                    ),
                ));
            }
            Ok(v[..nsp].to_vec())
        };
        let strides = vector(dnnl_graph_op_attr_strides, "strides", None)?;
        let dilations = vector(dnnl_graph_op_attr_dilations, "dilations", Some(1))?;
        let pads_begin = vector(dnnl_graph_op_attr_pads_begin, "pads_begin", Some(0))?;
        let pads_end = vector(dnnl_graph_op_attr_pads_end, "pads_end", Some(0))?;
        let output_padding = vector(dnnl_graph_op_attr_output_padding, "output_padding", Some(0))?;
        if let Some(s) = strides.iter().find(|&&s| s < 1) {
            return Err(shape_err(op, format!("stride {s} is not positive")));
        }
        if let Some(d) = dilations.iter().find(|&&d| d < 1) {
            return Err(shape_err(op, format!("dilation {d} is not positive")));
        }
        if let Some(p) = pads_begin
            .iter()
            .chain(&pads_end)
            .chain(&output_padding)
            .find(|&&p| p < 0)
        {
            return Err(shape_err(op, format!("padding {p} is negative")));
        }
        let auto_pad = match op.str_or(dnnl_graph_op_attr_auto_pad, "None").as_str() {
            "None" | "none" => AutoPad::None,
            "SAME_UPPER" | "same_upper" => AutoPad::SameUpper,
            "SAME_LOWER" | "same_lower" => AutoPad::SameLower,
            "VALID" | "valid" => AutoPad::Valid,
            other => {
                return Err(Error::InvalidGraphOp(
                    format!("op {}: auto_pad '{other}' is unknown", op.id).into(),
                ));
            }
        };
        let ncx = op.str_or(dnnl_graph_op_attr_data_format, "NXC") == "NCX";
        let wf = op.str_or(
            dnnl_graph_op_attr_weights_format,
            if family == Family::Conv { "XIO" } else { "XOI" },
        );
        let x_first = matches!(wf.as_str(), "XIO" | "XOI");
        Ok(Attrs {
            family,
            role,
            nsp,
            ncx,
            x_first,
            groups,
            strides,
            dilations,
            pads_begin,
            pads_end,
            auto_pad,
            output_padding,
        })
    }

    /// The number of spatial dimensions of `op`, from its first input
    /// (data for every op of the family).
    pub fn nsp_of(op: &Op, first: &[i64]) -> Result<usize> {
        if first.len() < 3 {
            return Err(shape_err(
                op,
                format!("{:?}: the data needs 3 to 5 dimensions", first),
            ));
        }
        Ok(first.len() - 2)
    }

    /// The extent of the dilated kernel along spatial dimension `i`.
    fn extent(&self, k: &[i64], i: usize) -> Result<i64> {
        (k[i] - 1)
            .checked_mul(self.dilations[i])
            .and_then(|v| v.checked_add(1))
            .ok_or_else(|| Error::InvalidShape("the dilated kernel's extent overflows".into()))
    }

    /// Data dimensions as `(N, C, spatial)`.
    pub fn split_data(&self, dims: &[i64]) -> (i64, i64, Vec<i64>) {
        let n = dims.len();
        if self.ncx {
            (dims[0], dims[1], dims[2..].to_vec())
        } else {
            (dims[0], dims[n - 1], dims[1..n - 1].to_vec())
        }
    }

    /// Data dimensions in the graph's order.
    pub fn join_data(&self, n: i64, c: i64, sp: &[i64]) -> Vec<i64> {
        let mut out = vec![n];
        if self.ncx {
            out.push(c);
            out.extend_from_slice(sp);
        } else {
            out.extend_from_slice(sp);
            out.push(c);
        }
        out
    }

    /// Weights dimensions as `(a, b, kernel)` in the format's terms:
    /// Convolution `(OC, IC/g, K)`, ConvTranspose `(IC, OC/g, K)`.
    pub fn split_weights(&self, dims: &[i64]) -> (i64, i64, Vec<i64>) {
        let n = dims.len();
        if self.x_first {
            // XIO: K, IC/g, OC; XOI: K, OC/g, IC.
            (dims[n - 1], dims[n - 2], dims[..n - 2].to_vec())
        } else {
            (dims[0], dims[1], dims[2..].to_vec())
        }
    }

    /// Weights dimensions in the format's order from `(a, b, kernel)`.
    pub fn join_weights(&self, a: i64, b: i64, k: &[i64]) -> Vec<i64> {
        if self.x_first {
            let mut out = k.to_vec();
            out.push(b);
            out.push(a);
            out
        } else {
            let mut out = vec![a, b];
            out.extend_from_slice(k);
            out
        }
    }
}

/// A convolution op's geometry with every size known.
#[derive(Clone, Debug)]
pub(crate) struct Geom {
    pub attrs: Attrs,
    pub mb: i64,
    /// Channels of the source and destination sides (Convolution: src and
    /// dst; ConvTranspose: its src and dst), totals.
    pub ic: i64,
    pub oc: i64,
    /// Spatial sizes of the source and destination sides.
    pub src_sp: Vec<i64>,
    pub dst_sp: Vec<i64>,
    pub k: Vec<i64>,
    /// Padding of the padded side (X), resolved from `auto_pad`.
    pub pl: Vec<i64>,
    pub pr: Vec<i64>,
}

impl Geom {
    /// X (the padded side) and Y spatial sizes.
    fn xy(&self) -> (&[i64], &[i64]) {
        match self.attrs.family {
            Family::Conv => (&self.src_sp, &self.dst_sp),
            Family::ConvT => (&self.dst_sp, &self.src_sp),
        }
    }

    /// The primitive's strides, dilations (from 0), left and right padding.
    pub fn primitive_geometry(&self) -> [Vec<i64>; 4] {
        let a = &self.attrs;
        let dil = a.dilations.iter().map(|d| d - 1).collect();
        let pr = match (a.family, a.auto_pad) {
            (Family::ConvT, AutoPad::None | AutoPad::Valid) => self
                .pr
                .iter()
                .zip(&a.output_padding)
                .map(|(p, o)| p - o)
                .collect(),
            _ => self.pr.clone(),
        };
        [a.strides.clone(), dil, self.pl.clone(), pr]
    }

    /// The source-side data dimensions in the graph's order.
    pub fn src_dims(&self) -> Vec<i64> {
        self.attrs.join_data(self.mb, self.ic, &self.src_sp)
    }

    /// The destination-side data dimensions in the graph's order.
    pub fn dst_dims(&self) -> Vec<i64> {
        self.attrs.join_data(self.mb, self.oc, &self.dst_sp)
    }

    /// The weights dimensions in the graph's format.
    pub fn weights_dims(&self) -> Vec<i64> {
        let a = &self.attrs;
        match a.family {
            Family::Conv => a.join_weights(self.oc, self.ic / a.groups, &self.k),
            Family::ConvT => a.join_weights(self.ic, self.oc / a.groups, &self.k),
        }
    }

    /// Checks that X, Y, the kernel and the padding agree:
    /// `(X - extent + pl + pr) / stride + 1 = Y` (floor), the primitive's rule.
    fn check(&self, op: &Op) -> Result<()> {
        let (x, y) = self.xy();
        let [s, _, pl, pr] = self.primitive_geometry();
        for i in 0..self.attrs.nsp {
            let ext = self.attrs.extent(&self.k, i)?;
            let padded = x[i]
                .checked_add(pl[i])
                .and_then(|v| v.checked_add(pr[i]))
                .and_then(|v| v.checked_sub(ext))
                .ok_or_else(|| shape_err(op, "the padded size overflows".into()))?;
            if x[i] < 1 || y[i] < 1 || padded < 0 || padded / s[i] + 1 != y[i] {
                return Err(shape_err(
                    op,
                    format!(
                        "spatial dimension {i}: size {} with kernel extent {ext}, padding \
                         {}+{} and stride {} does not give {}",
                        x[i], pl[i], pr[i], s[i], y[i]
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// The padding of each spatial dimension for X and Y sizes.
fn pads(a: &Attrs, k: &[i64], x: &[i64], y: &[i64]) -> Result<(Vec<i64>, Vec<i64>)> {
    match a.auto_pad {
        AutoPad::None => Ok((a.pads_begin.clone(), a.pads_end.clone())),
        AutoPad::Valid => Ok((vec![0; a.nsp], vec![0; a.nsp])),
        AutoPad::SameUpper | AutoPad::SameLower => {
            let mut pl = Vec::with_capacity(a.nsp);
            let mut pr = Vec::with_capacity(a.nsp);
            for i in 0..a.nsp {
                let total = (y[i] - 1)
                    .checked_mul(a.strides[i])
                    .and_then(|v| v.checked_add(a.extent(k, i).ok()?))
                    .and_then(|v| v.checked_sub(x[i]))
                    .ok_or_else(|| Error::InvalidShape("the padding overflows".into()))?
                    .max(0);
                let small = total / 2;
                if a.auto_pad == AutoPad::SameUpper {
                    pl.push(small);
                    pr.push(total - small);
                } else {
                    pl.push(total - small);
                    pr.push(small);
                }
            }
            Ok((pl, pr))
        }
    }
}

/// Y from X: `(X - extent + pl + pr) / stride + 1`, or `ceil(X / stride)`
/// with SAME padding.
fn conv_out(op: &Op, a: &Attrs, k: &[i64], x: &[i64]) -> Result<Vec<i64>> {
    (0..a.nsp)
        .map(|i| {
            let s = a.strides[i];
            let y = match a.auto_pad {
                AutoPad::SameUpper | AutoPad::SameLower => x[i].checked_add(s - 1).map(|v| v / s),
                _ => {
                    let (pl, pr) = match a.auto_pad {
                        AutoPad::Valid => (0, 0),
                        _ => (a.pads_begin[i], a.pads_end[i]),
                    };
                    let ext = a.extent(k, i)?;
                    x[i].checked_add(pl)
                        .and_then(|v| v.checked_add(pr))
                        .and_then(|v| v.checked_sub(ext))
                        .map(|v| if v < 0 { 0 } else { v / s + 1 })
                }
            }
            .ok_or_else(|| shape_err(op, "the output size overflows".into()))?;
            if y < 1 {
                return Err(shape_err(
                    op,
                    format!("spatial dimension {i}: the kernel does not fit in the padded input"),
                ));
            }
            Ok(y)
        })
        .collect()
}

/// X from Y (a transposed convolution's output):
/// `(Y - 1) · stride + extent - pl - pr + output_padding`, or `Y · stride`
/// with SAME padding.
fn convt_out(op: &Op, a: &Attrs, k: &[i64], y: &[i64]) -> Result<Vec<i64>> {
    (0..a.nsp)
        .map(|i| {
            let s = a.strides[i];
            let x = match a.auto_pad {
                AutoPad::SameUpper | AutoPad::SameLower => y[i].checked_mul(s),
                _ => {
                    let (pl, pr) = match a.auto_pad {
                        AutoPad::Valid => (0, 0),
                        _ => (a.pads_begin[i], a.pads_end[i]),
                    };
                    let ext = a.extent(k, i)?;
                    (y[i] - 1)
                        .checked_mul(s)
                        .and_then(|v| v.checked_add(ext))
                        .and_then(|v| v.checked_sub(pl))
                        .and_then(|v| v.checked_sub(pr))
                        .and_then(|v| v.checked_add(a.output_padding[i]))
                }
            }
            .ok_or_else(|| shape_err(op, "the output size overflows".into()))?;
            if x < 1 {
                return Err(shape_err(
                    op,
                    format!("spatial dimension {i}: the output would be empty"),
                ));
            }
            Ok(x)
        })
        .collect()
}

/// The dimensions of `lt` when it has a known shape.
fn known(lt: Option<&Lt>) -> Option<Vec<i64>> {
    lt.filter(|l| logical_tensor::shape_known(l))
        .map(|l| logical_tensor::dims(l).to_vec())
}

/// A shape attribute (`dst_shape`, `weights_shape`) or the output the
/// caller gave, or an error saying neither is there.
fn given_shape(op: &Op, attr: dnnl_graph_op_attr_t, out: Option<&Lt>) -> Result<Vec<i64>> {
    if let Some(v) = op.s64s(attr).filter(|v| !v.is_empty()) {
        return Ok(v);
    }
    known(out).ok_or_else(|| {
        shape_err(
            op,
            format!(
                "the output shape is unknown: set '{}' or give the output's shape",
                crate::graph::schema::attr_name(attr).unwrap_or("?")
            ),
        )
    })
}

/// The geometry of `op` from its inputs' dimensions (`ins`) and, where the
/// op cannot infer its output (the backward ops without a shape
/// attribute), the output the caller gave.
pub(crate) fn geom(op: &Op, ins: &[&[i64]], out: Option<&Lt>) -> Result<Geom> {
    let missing = || shape_err(op, "an input is missing".into());
    let first = ins.first().ok_or_else(missing)?;
    let second = ins.get(1).ok_or_else(missing)?;
    let nsp = Attrs::nsp_of(op, first)?;
    // Upstream's shape inference (for an output of unknown shape) meets a
    // bad `groups` first and says invalid_shape; its op validation
    // (outputs known) says invalid_graph_op.
    let a = Attrs::read(op, nsp).map_err(|e| match e {
        Error::InvalidGraphOp(m) if known(out).is_none() => Error::InvalidShape(m),
        e => e,
    })?;
    let g = a.groups;
    // The data-shaped tensors and the weights, by role.
    let (data_a, weights): (Vec<i64>, Vec<i64>) = match a.role {
        Role::Forward | Role::BackwardData => (first.to_vec(), second.to_vec()),
        Role::BackwardWeights => (
            first.to_vec(),
            given_shape(op, dnnl_graph_op_attr_weights_shape, out)?,
        ),
    };
    let nd = nsp + 2;
    for (what, d) in [("data", &data_a), ("weights", &weights)] {
        if d.len() != nd {
            return Err(shape_err(
                op,
                format!("the {what} has {} dimensions, {nd} expected", d.len()),
            ));
        }
        if d.iter().any(|&v| v < 1) {
            return Err(shape_err(op, format!("the {what} has an empty dimension")));
        }
    }
    let (wa, wb, k) = a.split_weights(&weights);
    // Channels per family: Convolution weights (OC, IC/g), ConvTranspose
    // (IC, OC/g).
    let (ic, oc): (Option<i64>, Option<i64>) = match a.family {
        Family::Conv => (wb.checked_mul(g), Some(wa)),
        Family::ConvT => (Some(wa), wb.checked_mul(g)),
    };
    let grouped = |v: Option<i64>| {
        v.ok_or_else(|| shape_err(op, format!("{wb} channels in {g} groups overflow")))
    };
    let (ic, oc) = (grouped(ic)?, grouped(oc)?);
    if oc % g != 0 || ic % g != 0 {
        return Err(shape_err(
            op,
            format!("{ic} input and {oc} output channels do not divide into {g} groups"),
        ));
    }
    let channels_err = |what: &str, have: i64, want: i64| {
        shape_err(
            op,
            format!(
                "the {what} has {have} channels but the weights {weights:?} with {g} group(s) \
                 need {want}"
            ),
        )
    };
    let finish = |mb: i64, src_sp: Vec<i64>, dst_sp: Vec<i64>| -> Result<Geom> {
        let (x, y) = match a.family {
            Family::Conv => (&src_sp, &dst_sp),
            Family::ConvT => (&dst_sp, &src_sp),
        };
        let (pl, pr) = pads(&a, &k, x, y)?;
        let geom = Geom {
            attrs: a.clone(),
            mb,
            ic,
            oc,
            src_sp,
            dst_sp,
            k: k.clone(),
            pl,
            pr,
        };
        geom.check(op)?;
        Ok(geom)
    };
    match (a.family, a.role) {
        // src -> dst.
        (family, Role::Forward) => {
            let (mb, c, sp) = a.split_data(&data_a);
            if c != ic {
                return Err(channels_err("source", c, ic));
            }
            let dst_sp = match family {
                Family::Conv => conv_out(op, &a, &k, &sp)?,
                Family::ConvT => convt_out(op, &a, &k, &sp)?,
            };
            finish(mb, sp, dst_sp)
        }
        // diff_dst -> diff_src.
        (family, Role::BackwardData) => {
            let (mb, c, dsp) = a.split_data(&data_a);
            if c != oc {
                return Err(channels_err("diff_dst", c, oc));
            }
            let src_sp = match family {
                Family::Conv => {
                    let s = given_shape(op, dnnl_graph_op_attr_dst_shape, out)?;
                    if s.len() != nd {
                        return Err(shape_err(
                            op,
                            format!("the diff_src shape {s:?} has not {nd} dimensions"),
                        ));
                    }
                    let (smb, sc, ssp) = a.split_data(&s);
                    if smb != mb || sc != ic {
                        return Err(shape_err(
                            op,
                            format!(
                                "the diff_src shape {s:?} does not match the diff_dst and the \
                                 weights"
                            ),
                        ));
                    }
                    ssp
                }
                Family::ConvT => {
                    // The source a transposed convolution with this output
                    // had: Y with (X - extent + pl + pr - op) / s + 1 = Y.
                    let mut y = Vec::with_capacity(nsp);
                    for (i, &x) in dsp.iter().enumerate() {
                        let s = a.strides[i];
                        let v = match a.auto_pad {
                            AutoPad::SameUpper | AutoPad::SameLower => x.saturating_add(s - 1) / s,
                            _ => {
                                let (pl, pr) = match a.auto_pad {
                                    AutoPad::Valid => (0, 0),
                                    _ => (a.pads_begin[i], a.pads_end[i]),
                                };
                                let ext = a.extent(&k, i)?;
                                let padded = x
                                    .checked_add(pl)
                                    .and_then(|v| v.checked_add(pr))
                                    .and_then(|v| v.checked_sub(a.output_padding[i]))
                                    .and_then(|v| v.checked_sub(ext))
                                    .ok_or_else(|| shape_err(op, "the size overflows".into()))?;
                                if padded < 0 { 0 } else { padded / s + 1 }
                            }
                        };
                        y.push(v);
                    }
                    y
                }
            };
            finish(mb, src_sp, dsp)
        }
        // src, diff_dst -> diff_weights.
        (_, Role::BackwardWeights) => {
            let (mb, c, sp) = a.split_data(&data_a);
            if c != ic {
                return Err(channels_err("source", c, ic));
            }
            let dd = second.to_vec();
            if dd.len() != nd {
                return Err(shape_err(
                    op,
                    format!("the diff_dst has {} dimensions, {nd} expected", dd.len()),
                ));
            }
            let (dmb, dc, dsp) = a.split_data(&dd);
            if dmb != mb || dc != oc {
                return Err(shape_err(
                    op,
                    format!("the diff_dst {dd:?} does not match the source and the weights"),
                ));
            }
            finish(mb, sp, dsp)
        }
    }
}

/// The output dimensions of a convolution op.
pub(crate) fn infer(op: &Op, ins: &[&[i64]], out: Option<&Lt>) -> Result<Vec<i64>> {
    let g = geom(op, ins, out)?;
    Ok(match g.attrs.role {
        Role::Forward => g.dst_dims(),
        Role::BackwardData => g.src_dims(),
        Role::BackwardWeights => g.weights_dims(),
    })
}

/// `perm` for `permute_axes` taking `NXC` data to `NCX` order.
fn nxc_to_ncx(nd: usize) -> Vec<i32> {
    let mut perm = vec![0i32; nd];
    for (d, p) in perm.iter_mut().enumerate().skip(1) {
        *p = if d == nd - 1 { 1 } else { d as i32 + 1 };
    }
    perm
}

/// A data tensor (or a tensor broadcast to one: binary operands, lower
/// ranks padded with leading ones) seen as `N, C, spatial…`.
pub(crate) fn data_view(a: &Attrs, md: &MemoryDesc) -> Result<MemoryDesc> {
    ncx_view(a.ncx, a.nsp + 2, md)
}

/// A tensor of `nd` dimensions in `data_format` order (`ncx`: `NCX`, else
/// `NXC`), lower ranks padded with leading ones, seen as `N, C, spatial…`.
pub(crate) fn ncx_view(ncx: bool, nd: usize, md: &MemoryDesc) -> Result<MemoryDesc> {
    let md = if md.ndims() < nd {
        let mut dims = vec![1; nd - md.ndims()];
        dims.extend_from_slice(md.dims());
        md.reshape(&dims)?
    } else {
        md.clone()
    };
    if ncx || nd < 3 {
        Ok(md)
    } else {
        md.permute_axes(&nxc_to_ncx(nd))
    }
}

/// The weights seen as the primitive's: Convolution `[G,] OC/g, IC/g, K…`,
/// deconvolution `[G,] OC/g, IC/g, K…` with OC its output channels.
pub(crate) fn weights_view(a: &Attrs, md: &MemoryDesc) -> Result<MemoryDesc> {
    let nd = a.nsp + 2;
    let g = a.groups;
    // First the format's (a, b, K…) order.
    let md = if a.x_first {
        // K… at 0..nsp, b at nsp, a at nsp + 1.
        let mut perm = vec![0i32; nd];
        for (d, p) in perm.iter_mut().enumerate() {
            *p = if d < a.nsp {
                d as i32 + 2
            } else if d == a.nsp {
                1
            } else {
                0
            };
        }
        md.permute_axes(&perm)?
    } else {
        md.clone()
    };
    let dims = md.dims().to_vec();
    match a.family {
        // (OC, IC/g, K…) -> [G, OC/g, IC/g, K…].
        Family::Conv => {
            if g == 1 {
                return Ok(md);
            }
            let mut split = vec![g, dims[0] / g];
            split.extend_from_slice(&dims[1..]);
            md.reshape(&split)
        }
        // (IC, OC/g, K…) -> [G, OC/g, IC/g, K…].
        Family::ConvT => {
            let mut swap: Vec<i32> = (0..nd as i32).collect();
            if g == 1 {
                swap.swap(0, 1);
                return md.permute_axes(&swap);
            }
            let mut split = vec![g, dims[0] / g];
            split.extend_from_slice(&dims[1..]);
            let md = md.reshape(&split)?;
            let mut swap: Vec<i32> = (0..nd as i32 + 1).collect();
            swap.swap(1, 2);
            md.permute_axes(&swap)
        }
    }
}

/// The per-output-channel axis of the weights tensor in its format (for
/// per-channel weight scales).
pub(crate) fn weights_oc_axis(a: &Attrs) -> usize {
    match (a.family, a.x_first) {
        (Family::Conv, false) => 0,
        (Family::Conv, true) => a.nsp + 1,
        (Family::ConvT, false) => 1,
        (Family::ConvT, true) => a.nsp,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(kind: dnnl_graph_op_kind_t, attrs: &[(dnnl_graph_op_attr_t, &[i64])]) -> Op {
        let mut op = Op::new(1, kind, "c");
        op.set_str(dnnl_graph_op_attr_data_format, "NCX");
        op.set_str(
            dnnl_graph_op_attr_weights_format,
            if kind == dnnl_graph_op_convolution {
                "OIX"
            } else {
                "IOX"
            },
        );
        for (a, v) in attrs {
            op.set_s64(*a, v);
        }
        op
    }

    const S1: &[i64] = &[1, 1];
    const S0: &[i64] = &[0, 0];

    #[test]
    fn output_shapes_as_upstream_computes_them() {
        let base = [
            (dnnl_graph_op_attr_strides, S1),
            (dnnl_graph_op_attr_dilations, S1),
            (dnnl_graph_op_attr_pads_begin, S0),
            (dnnl_graph_op_attr_pads_end, S0),
        ];
        let op = conv(dnnl_graph_op_convolution, &base);
        let src: &[i64] = &[1, 4, 5, 5];
        assert_eq!(
            infer(&op, &[src, &[8, 4, 3, 3]], None).unwrap(),
            vec![1, 8, 3, 3]
        );
        // SAME_UPPER with stride 2: ceil(5 / 2).
        let mut same = conv(
            dnnl_graph_op_convolution,
            &[
                (dnnl_graph_op_attr_strides, &[2, 2]),
                (dnnl_graph_op_attr_dilations, S1),
                (dnnl_graph_op_attr_pads_begin, S0),
                (dnnl_graph_op_attr_pads_end, S0),
            ],
        );
        same.set_str(dnnl_graph_op_attr_auto_pad, "SAME_UPPER");
        let g = geom(&same, &[src, &[8, 4, 3, 3]], None).unwrap();
        assert_eq!(
            (g.dst_sp.clone(), g.pl.clone(), g.pr.clone()),
            (vec![3, 3], vec![1, 1], vec![1, 1])
        );
        // Transposed, IOX (IC, OC/g, K) with 2 groups: 6 output channels.
        let t = {
            let mut t = conv(dnnl_graph_op_conv_transpose, &base);
            t.set_s64(dnnl_graph_op_attr_groups, &[2]);
            t
        };
        assert_eq!(
            infer(&t, &[src, &[4, 3, 3, 3]], None).unwrap(),
            vec![1, 6, 7, 7]
        );
        // Stride 2, dilation 2, pads 1/0, output padding 1: 13.
        let t = conv(
            dnnl_graph_op_conv_transpose,
            &[
                (dnnl_graph_op_attr_strides, &[2, 2]),
                (dnnl_graph_op_attr_dilations, &[2, 2]),
                (dnnl_graph_op_attr_pads_begin, &[1, 1]),
                (dnnl_graph_op_attr_pads_end, S0),
                (dnnl_graph_op_attr_output_padding, S1),
            ],
        );
        assert_eq!(
            infer(&t, &[src, &[4, 6, 3, 3]], None).unwrap(),
            vec![1, 6, 13, 13]
        );
        // Channels that do not match, negative strides: invalid shapes.
        assert!(matches!(
            infer(&op, &[src, &[8, 3, 3, 3]], None),
            Err(Error::InvalidShape(_))
        ));
        let bad = conv(
            dnnl_graph_op_convolution,
            &[
                (dnnl_graph_op_attr_strides, &[-1, 1]),
                (dnnl_graph_op_attr_dilations, S1),
                (dnnl_graph_op_attr_pads_begin, S0),
                (dnnl_graph_op_attr_pads_end, S0),
            ],
        );
        assert!(matches!(
            infer(&bad, &[src, &[8, 4, 3, 3]], None),
            Err(Error::InvalidShape(_))
        ));
        let mut g0 = op.clone();
        g0.set_s64(dnnl_graph_op_attr_groups, &[0]);
        assert!(matches!(
            infer(&g0, &[src, &[8, 4, 3, 3]], None),
            Err(Error::InvalidShape(_))
        ));
    }
}
