//! The op schemas of oneDNN v3.13's graph API: for every op kind, its name,
//! how many inputs and outputs it takes, and which attributes it accepts
//! (required or optional, with the string values allowed and the defaults).
//!
//! Layer: graph, bottom. Pure data plus the checks that `dnnl_graph_op_*` and
//! `dnnl_graph_add_op` run on an op as a C caller built it: wrong arity, a
//! missing required attribute, an attribute the op does not take or of the
//! wrong type are refused here with a reason that names the op, so that the
//! C layer can answer `dnnl_invalid_graph_op` and the verbose log says why.
//!
//! Each attribute id has one type, given by the range its value lies in
//! (f32 from 0x01, f32 vectors from 0x20, s64 from 0x30, s64 vectors from
//! 0x40, bool from 0x60, strings from 0x80), as in the C header. As upstream
//! does, the id and not the number of values decides scalar or vector: an
//! attribute is of the right type when it was set through the right
//! `dnnl_graph_op_set_attr_*` function.
//!
//! The table was checked against the oneDNN v3.13.2 library itself: each op
//! kind was created through the C API with wrong input and output counts
//! (the verbose reason lists the counts allowed), with each attribute id set
//! (of its type and of another type) and with each known string value, and
//! `dnnl_graph_add_op`'s verdict and verbose reason read. Upstream's counts are sets: LayerNorm takes 1 or 3
//! inputs (`src`, or `src, gamma, beta`), never 2. `Wildcard` takes any
//! number of inputs and outputs but no attribute. The op-level rules of
//! [`check_op`] are the other refusals of upstream's `add_op` found that way;
//! about 12,000 random ops (counts, attributes of right and wrong types and
//! values) then got the same verdict from [`check_op`] as from upstream.
//! Not here: the data types of inputs and outputs, which upstream also checks
//! when an op is added.
//!
//! Upstream refuses a value outside the allowed ones when the op is added for
//! `auto_broadcast`, `auto_pad`, `data_format`, `weights_format`, `mode`,
//! `coordinate_transformation_mode` and `accumulation_mode`, but reads
//! `rounding_type` and `qtype` only later ([`AttrSpec::checked_on_add`]);
//! [`check_str_value`] holds every string attribute to its documented values.
//! The defaults are oneDNN's documented ones, not probed.

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

#[cfg(test)]
mod tests;

use std::fmt;

use crate::abi::*;

/// The one type each attribute id has, as `dnnl_graph_op_set_attr_*` sets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrType {
    F32,
    F32s,
    S64,
    S64s,
    Bool,
    Str,
}

impl fmt::Display for AttrType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AttrType::F32 => "f32",
            AttrType::F32s => "f32 vector",
            AttrType::S64 => "s64",
            AttrType::S64s => "s64 vector",
            AttrType::Bool => "bool",
            AttrType::Str => "string",
        })
    }
}

/// An attribute's value, for the checks that look at values ([`check_op`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AttrValue<'a> {
    F32(f32),
    F32s(&'a [f32]),
    S64(i64),
    S64s(&'a [i64]),
    Bool(bool),
    Str(&'a str),
}

impl AttrValue<'_> {
    pub fn ty(&self) -> AttrType {
        match self {
            AttrValue::F32(_) => AttrType::F32,
            AttrValue::F32s(_) => AttrType::F32s,
            AttrValue::S64(_) => AttrType::S64,
            AttrValue::S64s(_) => AttrType::S64s,
            AttrValue::Bool(_) => AttrType::Bool,
            AttrValue::Str(_) => AttrType::Str,
        }
    }
}

/// The value an optional attribute has when the caller does not set it.
/// Shape-dependent defaults (dilations of 1 per spatial dimension) are not
/// listed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AttrDefault {
    F32(f32),
    S64(i64),
    Bool(bool),
    Str(&'static str),
}

/// One attribute an op accepts.
#[derive(Clone, Copy, Debug)]
pub struct AttrSpec {
    pub attr: dnnl_graph_op_attr_t,
    pub required: bool,
    /// For string attributes: the values allowed (never empty for them).
    pub values: &'static [&'static str],
    /// For optional attributes: the value taken when unset, where upstream
    /// documents one that does not depend on shapes.
    pub default: Option<AttrDefault>,
    /// For string attributes: upstream refuses a value outside `values` when
    /// the op is added to a graph (otherwise only when the op is used).
    pub checked_on_add: bool,
}

/// What an op kind looks like.
#[derive(Debug)]
pub struct OpSchema {
    pub kind: dnnl_graph_op_kind_t,
    /// oneDNN's op name, e.g. "MatMul", "SoftMax".
    pub name: &'static str,
    /// Minimum and maximum number of inputs (`usize::MAX`: variadic).
    pub inputs: (usize, usize),
    /// Minimum and maximum number of outputs (`usize::MAX`: variadic).
    pub outputs: (usize, usize),
    /// The attributes the op accepts.
    pub attrs: &'static [AttrSpec],
    /// When not empty, the only input counts allowed within `inputs`
    /// (LayerNorm: 1 or 3).
    pub input_counts: &'static [usize],
    /// When not empty, the only output counts allowed within `outputs`.
    pub output_counts: &'static [usize],
}

impl OpSchema {
    /// The spec of `attr` for this op, if the op takes it.
    pub fn attr(&self, attr: dnnl_graph_op_attr_t) -> Option<&'static AttrSpec> {
        self.attrs.iter().find(|s| s.attr == attr)
    }

    /// The default of an optional attribute, if upstream documents one.
    pub fn default_of(&self, attr: dnnl_graph_op_attr_t) -> Option<AttrDefault> {
        self.attr(attr).and_then(|s| s.default)
    }

    /// Whether the op takes `n` inputs.
    pub fn takes_inputs(&self, n: usize) -> bool {
        count_allowed(self.inputs, self.input_counts, n)
    }

    /// Whether the op takes `n` outputs.
    pub fn takes_outputs(&self, n: usize) -> bool {
        count_allowed(self.outputs, self.output_counts, n)
    }
}

/// The schema of `kind`; `None` when `kind` is not an op kind of v3.13
/// (`dnnl_graph_op_last_symbol` included).
pub fn schema(kind: dnnl_graph_op_kind_t) -> Option<&'static OpSchema> {
    SCHEMAS.get(kind.0 as usize).filter(|s| s.kind == kind)
}

/// The type of attribute `attr`; `None` for an unknown id and for the
/// `undef` / `end` markers, which are no attributes.
pub fn attr_type(attr: dnnl_graph_op_attr_t) -> Option<AttrType> {
    if matches!(attr, dnnl_graph_op_attr_undef | dnnl_graph_op_attr_end) {
        return None;
    }
    attr_name(attr)?;
    match attr.0 {
        0x01..=0x1f => Some(AttrType::F32),
        0x20..=0x2f => Some(AttrType::F32s),
        0x30..=0x3f => Some(AttrType::S64),
        0x40..=0x5f => Some(AttrType::S64s),
        0x60..=0x7f => Some(AttrType::Bool),
        _ => Some(AttrType::Str),
    }
}

/// The name of attribute `attr` as oneDNN spells it (the enumerator without
/// its `dnnl_graph_op_attr_` prefix), `None` for an unknown id.
pub fn attr_name(attr: dnnl_graph_op_attr_t) -> Option<&'static str> {
    Some(match attr {
        dnnl_graph_op_attr_undef => "undef",
        dnnl_graph_op_attr_alpha => "alpha",
        dnnl_graph_op_attr_beta => "beta",
        dnnl_graph_op_attr_epsilon => "epsilon",
        dnnl_graph_op_attr_max => "max",
        dnnl_graph_op_attr_min => "min",
        dnnl_graph_op_attr_momentum => "momentum",
        dnnl_graph_op_attr_scales => "scales",
        dnnl_graph_op_attr_axis => "axis",
        dnnl_graph_op_attr_begin_norm_axis => "begin_norm_axis",
        dnnl_graph_op_attr_groups => "groups",
        dnnl_graph_op_attr_axes => "axes",
        dnnl_graph_op_attr_dilations => "dilations",
        dnnl_graph_op_attr_dst_shape => "dst_shape",
        dnnl_graph_op_attr_kernel => "kernel",
        dnnl_graph_op_attr_order => "order",
        dnnl_graph_op_attr_output_padding => "output_padding",
        dnnl_graph_op_attr_pads_begin => "pads_begin",
        dnnl_graph_op_attr_pads_end => "pads_end",
        dnnl_graph_op_attr_shape => "shape",
        dnnl_graph_op_attr_sizes => "sizes",
        dnnl_graph_op_attr_src_shape => "src_shape",
        dnnl_graph_op_attr_strides => "strides",
        dnnl_graph_op_attr_weights_shape => "weights_shape",
        dnnl_graph_op_attr_zps => "zps",
        dnnl_graph_op_attr_group_shape => "group_shape",
        dnnl_graph_op_attr_exclude_pad => "exclude_pad",
        dnnl_graph_op_attr_keep_dims => "keep_dims",
        dnnl_graph_op_attr_keep_stats => "keep_stats",
        dnnl_graph_op_attr_per_channel_broadcast => "per_channel_broadcast",
        dnnl_graph_op_attr_special_zero => "special_zero",
        dnnl_graph_op_attr_transpose_a => "transpose_a",
        dnnl_graph_op_attr_transpose_b => "transpose_b",
        dnnl_graph_op_attr_use_affine => "use_affine",
        dnnl_graph_op_attr_use_dst => "use_dst",
        dnnl_graph_op_attr_auto_broadcast => "auto_broadcast",
        dnnl_graph_op_attr_auto_pad => "auto_pad",
        dnnl_graph_op_attr_coordinate_transformation_mode => "coordinate_transformation_mode",
        dnnl_graph_op_attr_data_format => "data_format",
        dnnl_graph_op_attr_mode => "mode",
        dnnl_graph_op_attr_qtype => "qtype",
        dnnl_graph_op_attr_rounding_type => "rounding_type",
        dnnl_graph_op_attr_weights_format => "weights_format",
        dnnl_graph_op_attr_accumulation_mode => "accumulation_mode",
        dnnl_graph_op_attr_end => "end",
        _ => return None,
    })
}

/// What an op as built through the C API looks like, for checking.
pub struct OpView<'a> {
    pub kind: dnnl_graph_op_kind_t,
    pub n_inputs: usize,
    pub n_outputs: usize,
    /// The attributes set, each once (a later set replaces an earlier one,
    /// as upstream does), with the type it was set with.
    pub attrs: &'a [(dnnl_graph_op_attr_t, AttrType)],
}

/// Checks an op against its schema: arity, no attribute the op does not
/// take, each attribute of its type, every required attribute present.
/// The reason names the op and the attribute or the counts.
///
/// Types are compared by setter, as upstream does: the attribute id decides
/// between scalar and vector, so `alpha` set through `set_attr_f32` with
/// several values, or `scales` with one, is of the right type (F32 and F32s
/// match each other, S64 and S64s too).
pub fn check(op: &OpView) -> Result<(), String> {
    let s = schema(op.kind).ok_or_else(|| unknown_kind(op.kind))?;
    check_count(s, "input", s.inputs, s.input_counts, op.n_inputs)?;
    check_count(s, "output", s.outputs, s.output_counts, op.n_outputs)?;
    for &(attr, given) in op.attrs {
        let Some(expected) = attr_type(attr) else {
            return Err(format!("{}: {} is not an attribute id", s.name, attr.0));
        };
        let name = attr_name(attr).unwrap_or("?");
        if s.attr(attr).is_none() {
            return Err(format!("{} does not take attribute '{name}'", s.name));
        }
        if setter(given) != setter(expected) {
            return Err(format!(
                "{}: attribute '{name}' is {expected}, got {given}",
                s.name
            ));
        }
    }
    for spec in s.attrs.iter().filter(|a| a.required) {
        if !op.attrs.iter().any(|&(a, _)| a == spec.attr) {
            let name = attr_name(spec.attr).unwrap_or("?");
            return Err(format!("{} needs attribute '{name}'", s.name));
        }
    }
    Ok(())
}

/// Everything upstream's `dnnl_graph_add_op` checks short of data types:
/// [`check`], the values of the string attributes upstream checks then
/// ([`AttrSpec::checked_on_add`]), and the op-level rules:
/// - LayerNorm and GroupNorm with `keep_stats` (default true) have 3 outputs
///   (dst, mean, variance); LayerNormBackward with `use_affine` (default
///   true) has 3 outputs (diff_src, diff_gamma, diff_beta);
/// - Interpolate and InterpolateBackward have exactly one of `sizes` and
///   `scales`;
/// - Quantize and Dequantize have as many `zps` as `scales` (when `zps` is
///   set), and one scale when `qtype` is "per_tensor" (the default);
/// - MaxPool and MaxPoolBackward have as many `dilations` as `kernel`
///   sizes (when `dilations` is set).
///
/// `attrs` holds each attribute once, with the value last set, as the kind
/// its id says (`scales` set with one value is `F32s` of length 1).
pub fn check_op(
    kind: dnnl_graph_op_kind_t,
    n_inputs: usize,
    n_outputs: usize,
    attrs: &[(dnnl_graph_op_attr_t, AttrValue)],
) -> Result<(), String> {
    let types: Vec<_> = attrs.iter().map(|&(a, v)| (a, v.ty())).collect();
    check(&OpView {
        kind,
        n_inputs,
        n_outputs,
        attrs: &types,
    })?;
    let s = schema(kind).ok_or_else(|| unknown_kind(kind))?;
    for &(attr, value) in attrs {
        if let AttrValue::Str(v) = value
            && s.attr(attr).is_some_and(|spec| spec.checked_on_add)
        {
            check_str_value(kind, attr, v)?;
        }
    }
    let get = |attr| attrs.iter().find(|&&(a, _)| a == attr).map(|&(_, v)| v);
    let len = |attr| match get(attr) {
        Some(AttrValue::F32s(v)) => Some(v.len()),
        Some(AttrValue::S64s(v)) => Some(v.len()),
        _ => None,
    };
    let flag = |attr| match get(attr) {
        Some(AttrValue::Bool(b)) => b,
        _ => s.default_of(attr) == Some(AttrDefault::Bool(true)),
    };
    match kind {
        dnnl_graph_op_layer_norm | dnnl_graph_op_group_norm
            if flag(dnnl_graph_op_attr_keep_stats) && n_outputs != 3 =>
        {
            Err(format!(
                "{} with keep_stats has 3 outputs (dst, mean, variance), got {n_outputs}",
                s.name
            ))
        }
        dnnl_graph_op_layer_norm_backward
            if flag(dnnl_graph_op_attr_use_affine) && n_outputs != 3 =>
        {
            Err(format!(
                "{} with use_affine has 3 outputs (diff_src, diff_gamma, diff_beta), got \
                 {n_outputs}",
                s.name
            ))
        }
        dnnl_graph_op_interpolate | dnnl_graph_op_interpolate_backward => {
            let sizes = get(dnnl_graph_op_attr_sizes).is_some();
            let scales = get(dnnl_graph_op_attr_scales).is_some();
            if sizes == scales {
                return Err(format!(
                    "{} takes exactly one of the attributes 'sizes' and 'scales'",
                    s.name
                ));
            }
            Ok(())
        }
        dnnl_graph_op_quantize | dnnl_graph_op_dequantize => {
            let per_tensor = match get(dnnl_graph_op_attr_qtype) {
                Some(AttrValue::Str(q)) => q == "per_tensor",
                _ => true,
            };
            let (scales, zps) = (len(dnnl_graph_op_attr_scales), len(dnnl_graph_op_attr_zps));
            check_quantization(s, scales, zps, per_tensor)
        }
        dnnl_graph_op_convolution
        | dnnl_graph_op_convolution_backward_data
        | dnnl_graph_op_convolution_backward_weights
        | dnnl_graph_op_conv_transpose
        | dnnl_graph_op_conv_transpose_backward_data
        | dnnl_graph_op_conv_transpose_backward_weights => {
            for attr in [dnnl_graph_op_attr_pads_begin, dnnl_graph_op_attr_pads_end] {
                if let Some(AttrValue::S64s(v)) = get(attr)
                    && v.iter().any(|&p| p < 0)
                {
                    return Err(format!(
                        "{}: {} {v:?} has a negative value",
                        s.name,
                        attr_name(attr).unwrap_or("?")
                    ));
                }
            }
            Ok(())
        }
        dnnl_graph_op_max_pool | dnnl_graph_op_max_pool_backward => {
            match (
                len(dnnl_graph_op_attr_dilations),
                len(dnnl_graph_op_attr_kernel),
            ) {
                (Some(d), Some(k)) if d != k => Err(format!(
                    "{}: {d} dilations for a kernel of {k} dimensions",
                    s.name
                )),
                _ => Ok(()),
            }
        }
        _ => Ok(()),
    }
}

/// Quantize / Dequantize: as many zero points as scales (when zero points
/// are given), and one of each for a per-tensor quantization.
fn check_quantization(
    s: &OpSchema,
    scales: Option<usize>,
    zps: Option<usize>,
    per_tensor: bool,
) -> Result<(), String> {
    let scales = scales.unwrap_or(0);
    if let Some(zps) = zps
        && zps != scales
    {
        return Err(format!("{}: {scales} scales but {zps} zero points", s.name));
    }
    if per_tensor && scales != 1 {
        return Err(format!(
            "{}: a per_tensor quantization has 1 scale, got {scales}",
            s.name
        ));
    }
    Ok(())
}

/// Checks the value of string attribute `attr` of an op of `kind` against
/// the values oneDNN documents for it.
pub fn check_str_value(
    kind: dnnl_graph_op_kind_t,
    attr: dnnl_graph_op_attr_t,
    value: &str,
) -> Result<(), String> {
    let s = schema(kind).ok_or_else(|| unknown_kind(kind))?;
    let name = attr_name(attr).unwrap_or("?");
    if attr_type(attr) != Some(AttrType::Str) {
        return Err(format!("{}: '{name}' is not a string attribute", s.name));
    }
    let Some(spec) = s.attr(attr) else {
        return Err(format!("{} does not take attribute '{name}'", s.name));
    };
    if spec.values.contains(&value) {
        return Ok(());
    }
    Err(format!(
        "{}: '{value}' is not a value of '{name}' (one of {})",
        s.name,
        spec.values.join(", ")
    ))
}

/// The `dnnl_graph_op_set_attr_*` function that sets values of type `t`.
fn setter(t: AttrType) -> &'static str {
    match t {
        AttrType::F32 | AttrType::F32s => "f32",
        AttrType::S64 | AttrType::S64s => "s64",
        AttrType::Bool => "bool",
        AttrType::Str => "str",
    }
}

fn unknown_kind(kind: dnnl_graph_op_kind_t) -> String {
    format!("{} is not an op kind of oneDNN v3.13", kind.0)
}

fn count_allowed((min, max): (usize, usize), only: &[usize], n: usize) -> bool {
    if only.is_empty() {
        (min..=max).contains(&n)
    } else {
        only.contains(&n)
    }
}

fn check_count(
    s: &OpSchema,
    what: &str,
    range: (usize, usize),
    only: &[usize],
    got: usize,
) -> Result<(), String> {
    if count_allowed(range, only, got) {
        return Ok(());
    }
    let (min, max) = range;
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let counts = if only.len() > 1 {
        let head: Vec<String> = only[..only.len() - 1]
            .iter()
            .map(|n| n.to_string())
            .collect();
        format!("{} or {} {what}s", head.join(", "), only[only.len() - 1])
    } else if min == max {
        format!("{min} {what}{}", plural(min))
    } else if max == usize::MAX {
        format!("at least {min} {what}{}", plural(min))
    } else if max == min + 1 {
        format!("{min} or {max} {what}s")
    } else {
        format!("{min} to {max} {what}s")
    };
    Err(format!("{} takes {counts}, got {got}", s.name))
}

// ---------------------------------------------------------------------------
// Building blocks of the table.

const fn req(attr: dnnl_graph_op_attr_t) -> AttrSpec {
    AttrSpec {
        attr,
        required: true,
        values: &[],
        default: None,
        checked_on_add: false,
    }
}

/// Required string attribute, its value checked when the op is added.
const fn req_str(attr: dnnl_graph_op_attr_t, values: &'static [&'static str]) -> AttrSpec {
    AttrSpec {
        values,
        checked_on_add: true,
        ..req(attr)
    }
}

/// Optional, no documented default (or one that depends on shapes).
const fn opt(attr: dnnl_graph_op_attr_t) -> AttrSpec {
    AttrSpec {
        required: false,
        ..req(attr)
    }
}

const fn opt_f32(attr: dnnl_graph_op_attr_t, v: f32) -> AttrSpec {
    AttrSpec {
        default: Some(AttrDefault::F32(v)),
        ..opt(attr)
    }
}

const fn opt_s64(attr: dnnl_graph_op_attr_t, v: i64) -> AttrSpec {
    AttrSpec {
        default: Some(AttrDefault::S64(v)),
        ..opt(attr)
    }
}

const fn opt_bool(attr: dnnl_graph_op_attr_t, v: bool) -> AttrSpec {
    AttrSpec {
        default: Some(AttrDefault::Bool(v)),
        ..opt(attr)
    }
}

/// Optional string attribute, its value checked when the op is added.
const fn opt_str(
    attr: dnnl_graph_op_attr_t,
    values: &'static [&'static str],
    default: &'static str,
) -> AttrSpec {
    AttrSpec {
        values,
        default: Some(AttrDefault::Str(default)),
        checked_on_add: true,
        ..opt(attr)
    }
}

/// Optional string attribute whose value upstream reads only when the op is
/// used.
const fn opt_str_late(
    attr: dnnl_graph_op_attr_t,
    values: &'static [&'static str],
    default: &'static str,
) -> AttrSpec {
    AttrSpec {
        checked_on_add: false,
        ..opt_str(attr, values, default)
    }
}

const fn op(
    kind: dnnl_graph_op_kind_t,
    name: &'static str,
    inputs: (usize, usize),
    outputs: (usize, usize),
    attrs: &'static [AttrSpec],
) -> OpSchema {
    OpSchema {
        kind,
        name,
        inputs,
        outputs,
        attrs,
        input_counts: &[],
        output_counts: &[],
    }
}

/// One input, one output.
const fn unary(
    kind: dnnl_graph_op_kind_t,
    name: &'static str,
    attrs: &'static [AttrSpec],
) -> OpSchema {
    op(kind, name, (1, 1), (1, 1), attrs)
}

/// Two inputs (src or dst, diff_dst), one output (diff_src).
const fn backward(
    kind: dnnl_graph_op_kind_t,
    name: &'static str,
    attrs: &'static [AttrSpec],
) -> OpSchema {
    op(kind, name, (2, 2), (1, 1), attrs)
}

/// Two inputs, one output, numpy broadcasting by default.
const fn binary(kind: dnnl_graph_op_kind_t, name: &'static str) -> OpSchema {
    op(kind, name, (2, 2), (1, 1), BROADCAST)
}

/// src, optional axes.
const fn reduce(kind: dnnl_graph_op_kind_t, name: &'static str) -> OpSchema {
    op(kind, name, (1, 2), (1, 1), REDUCE)
}

impl OpSchema {
    /// The same schema, allowing only these counts (empty: the whole range).
    const fn only(self, inputs: &'static [usize], outputs: &'static [usize]) -> Self {
        OpSchema {
            input_counts: inputs,
            output_counts: outputs,
            ..self
        }
    }
}

// String values.
const AUTO_BROADCAST: &[&str] = &["none", "numpy"];
const AUTO_PAD: &[&str] = &["None", "SAME_UPPER", "SAME_LOWER", "VALID"];
const DATA_FORMAT: &[&str] = &["NXC", "NCX"];
const CONV_WEIGHTS: &[&str] = &["XIO", "OIX"];
const CONVT_WEIGHTS: &[&str] = &["XOI", "IOX"];
const ROUNDING: &[&str] = &["floor", "ceil"];
const ACCUMULATION: &[&str] = &["strict", "relaxed", "any", "f32", "s32", "f16"];
const QTYPE: &[&str] = &["per_tensor", "per_channel"];
const QTYPE_GROUP: &[&str] = &["per_tensor", "per_channel", "per_group"];
const INTERPOLATE_MODE: &[&str] = &["nearest", "linear", "bilinear", "trilinear"];
const COORD_MODE: &[&str] = &["half_pixel", "align_corners"];
const SOFTMAX_MODE: &[&str] = &["none", "inf_as_zero"];
const GELU_MODE: &[&str] = &["gelu_erf", "gelu_tanh"];

// Attributes shared by several ops.
const AUTO_PAD_ATTR: AttrSpec = opt_str(dnnl_graph_op_attr_auto_pad, AUTO_PAD, "None");
const FORMAT_ATTR: AttrSpec = opt_str(dnnl_graph_op_attr_data_format, DATA_FORMAT, "NXC");
const ROUNDING_ATTR: AttrSpec = opt_str_late(dnnl_graph_op_attr_rounding_type, ROUNDING, "floor");
const USE_DST_ATTR: AttrSpec = opt_bool(dnnl_graph_op_attr_use_dst, true);
const QTYPE_ATTR: AttrSpec = opt_str_late(dnnl_graph_op_attr_qtype, QTYPE, "per_tensor");
const QUANT_AXIS_ATTR: AttrSpec = opt_s64(dnnl_graph_op_attr_axis, 1);
const EPSILON_ATTR: AttrSpec = opt_f32(dnnl_graph_op_attr_epsilon, 1e-5);
const NORM_AXIS_ATTR: AttrSpec = opt_s64(dnnl_graph_op_attr_begin_norm_axis, -1);

const NONE: &[AttrSpec] = &[];
const BROADCAST: &[AttrSpec] = &[opt_str(
    dnnl_graph_op_attr_auto_broadcast,
    AUTO_BROADCAST,
    "numpy",
)];
const FORMAT: &[AttrSpec] = &[FORMAT_ATTR];
const USE_DST: &[AttrSpec] = &[USE_DST_ATTR];
const ALPHA: &[AttrSpec] = &[req(dnnl_graph_op_attr_alpha)];
const ALPHA_BETA: &[AttrSpec] = &[req(dnnl_graph_op_attr_alpha), req(dnnl_graph_op_attr_beta)];
const SOFTPLUS: &[AttrSpec] = &[opt_f32(dnnl_graph_op_attr_beta, 1.0)];
const GELU: &[AttrSpec] = &[opt_str(dnnl_graph_op_attr_mode, GELU_MODE, "gelu_erf")];
const REDUCE: &[AttrSpec] = &[
    opt(dnnl_graph_op_attr_axes),
    opt_bool(dnnl_graph_op_attr_keep_dims, false),
];
const CLAMP: &[AttrSpec] = &[req(dnnl_graph_op_attr_min), req(dnnl_graph_op_attr_max)];
const CLAMP_BWD: &[AttrSpec] = &[
    req(dnnl_graph_op_attr_min),
    req(dnnl_graph_op_attr_max),
    USE_DST_ATTR,
];
const ELU_BWD: &[AttrSpec] = &[req(dnnl_graph_op_attr_alpha), USE_DST_ATTR];
const AXIS: &[AttrSpec] = &[req(dnnl_graph_op_attr_axis)];

const MATMUL: &[AttrSpec] = &[
    opt_bool(dnnl_graph_op_attr_transpose_a, false),
    opt_bool(dnnl_graph_op_attr_transpose_b, false),
    opt_str(dnnl_graph_op_attr_accumulation_mode, ACCUMULATION, "strict"),
];

/// The attributes of every convolution op with its weights format, then
/// `extra`.
macro_rules! conv_attrs {
    ($weights:expr, $default:expr $(, $extra:expr)*) => {
        &[
            req(dnnl_graph_op_attr_strides),
            req(dnnl_graph_op_attr_pads_begin),
            req(dnnl_graph_op_attr_pads_end),
            req(dnnl_graph_op_attr_dilations),
            AUTO_PAD_ATTR,
            opt_s64(dnnl_graph_op_attr_groups, 1),
            FORMAT_ATTR,
            opt_str(dnnl_graph_op_attr_weights_format, $weights, $default),
            $($extra,)*
        ]
    };
}

const CONV: &[AttrSpec] = conv_attrs!(CONV_WEIGHTS, "XIO");
const CONV_BWD_DATA: &[AttrSpec] = conv_attrs!(
    CONV_WEIGHTS,
    "XIO",
    opt(dnnl_graph_op_attr_output_padding),
    opt(dnnl_graph_op_attr_dst_shape)
);
const CONV_BWD_WEIGHTS: &[AttrSpec] =
    conv_attrs!(CONV_WEIGHTS, "XIO", opt(dnnl_graph_op_attr_weights_shape));
const CONVT: &[AttrSpec] =
    conv_attrs!(CONVT_WEIGHTS, "XOI", opt(dnnl_graph_op_attr_output_padding));
const CONVT_BWD_DATA: &[AttrSpec] = conv_attrs!(CONVT_WEIGHTS, "XOI");
const CONVT_BWD_WEIGHTS: &[AttrSpec] =
    conv_attrs!(CONVT_WEIGHTS, "XOI", opt(dnnl_graph_op_attr_weights_shape));

/// The attributes of every pooling op, then `extra`.
macro_rules! pool_attrs {
    ($($extra:expr),*) => {
        &[
            req(dnnl_graph_op_attr_strides),
            req(dnnl_graph_op_attr_pads_begin),
            req(dnnl_graph_op_attr_pads_end),
            req(dnnl_graph_op_attr_kernel),
            AUTO_PAD_ATTR,
            FORMAT_ATTR,
            $($extra,)*
        ]
    };
}

const AVG_POOL: &[AttrSpec] = pool_attrs!(req(dnnl_graph_op_attr_exclude_pad), ROUNDING_ATTR);
const AVG_POOL_BWD: &[AttrSpec] = pool_attrs!(
    req(dnnl_graph_op_attr_exclude_pad),
    opt(dnnl_graph_op_attr_src_shape)
);
const MAX_POOL: &[AttrSpec] = pool_attrs!(opt(dnnl_graph_op_attr_dilations), ROUNDING_ATTR);
const MAX_POOL_BWD: &[AttrSpec] = pool_attrs!(opt(dnnl_graph_op_attr_dilations));

const BATCH_NORM: &[AttrSpec] = &[req(dnnl_graph_op_attr_epsilon), FORMAT_ATTR];
const BATCH_NORM_TRAINING: &[AttrSpec] = &[
    req(dnnl_graph_op_attr_epsilon),
    opt(dnnl_graph_op_attr_momentum),
    FORMAT_ATTR,
];
const LAYER_NORM: &[AttrSpec] = &[
    opt_bool(dnnl_graph_op_attr_keep_stats, true),
    NORM_AXIS_ATTR,
    opt_bool(dnnl_graph_op_attr_use_affine, true),
    EPSILON_ATTR,
];
const LAYER_NORM_BWD: &[AttrSpec] = &[
    NORM_AXIS_ATTR,
    opt_bool(dnnl_graph_op_attr_use_affine, true),
    EPSILON_ATTR,
];
const GROUP_NORM: &[AttrSpec] = &[
    req(dnnl_graph_op_attr_groups),
    FORMAT_ATTR,
    opt_bool(dnnl_graph_op_attr_use_affine, true),
    opt_bool(dnnl_graph_op_attr_keep_stats, true),
    EPSILON_ATTR,
];
const RMS_NORM: &[AttrSpec] = &[NORM_AXIS_ATTR, EPSILON_ATTR];

const INTERPOLATE: &[AttrSpec] = &[
    req_str(dnnl_graph_op_attr_mode, INTERPOLATE_MODE),
    opt(dnnl_graph_op_attr_sizes),
    opt(dnnl_graph_op_attr_scales),
    opt_str(
        dnnl_graph_op_attr_coordinate_transformation_mode,
        COORD_MODE,
        "half_pixel",
    ),
    FORMAT_ATTR,
];

const QUANTIZE: &[AttrSpec] = &[
    QTYPE_ATTR,
    QUANT_AXIS_ATTR,
    req(dnnl_graph_op_attr_scales),
    opt(dnnl_graph_op_attr_zps),
];
const DYNAMIC_QUANTIZE: &[AttrSpec] = &[QTYPE_ATTR, QUANT_AXIS_ATTR];
const DYNAMIC_DEQUANTIZE: &[AttrSpec] = &[
    opt_str_late(dnnl_graph_op_attr_qtype, QTYPE_GROUP, "per_tensor"),
    QUANT_AXIS_ATTR,
    opt(dnnl_graph_op_attr_group_shape),
];

const SOFTMAX: &[AttrSpec] = &[
    opt_s64(dnnl_graph_op_attr_axis, 1),
    opt_str(dnnl_graph_op_attr_mode, SOFTMAX_MODE, "none"),
];
const SOFTMAX_BWD: &[AttrSpec] = &[opt_s64(dnnl_graph_op_attr_axis, 1)];
const LOG_SOFTMAX: &[AttrSpec] = &[opt_s64(dnnl_graph_op_attr_axis, -1)];

const PRELU: &[AttrSpec] = &[
    FORMAT_ATTR,
    opt_bool(dnnl_graph_op_attr_per_channel_broadcast, true),
];
const STATIC_RESHAPE: &[AttrSpec] = &[
    req(dnnl_graph_op_attr_shape),
    req(dnnl_graph_op_attr_special_zero),
];
const STATIC_TRANSPOSE: &[AttrSpec] = &[req(dnnl_graph_op_attr_order)];
const POW: &[AttrSpec] = &[req(dnnl_graph_op_attr_beta)];

const MANY: usize = usize::MAX;

/// Every op kind of v3.13, indexed by its value. Comments name the inputs
/// and outputs where they are more than src and dst.
static SCHEMAS: &[OpSchema] = &[
    unary(dnnl_graph_op_abs, "Abs", NONE),
    backward(dnnl_graph_op_abs_backward, "AbsBackward", NONE),
    binary(dnnl_graph_op_add, "Add"),
    unary(dnnl_graph_op_avg_pool, "AvgPool", AVG_POOL),
    // diff_dst, optional src_shape.
    op(
        dnnl_graph_op_avg_pool_backward,
        "AvgPoolBackward",
        (1, 2),
        (1, 1),
        AVG_POOL_BWD,
    ),
    // src, diff_dst, mean, variance, optional gamma; diff_src, optional
    // diff_gamma, optional diff_beta.
    op(
        dnnl_graph_op_batch_norm_backward,
        "BatchNormTrainingBackward",
        (4, 5),
        (1, 3),
        BATCH_NORM,
    ),
    // src, mean, variance, optional gamma, optional beta; dst, running mean,
    // running variance, batch mean, batch variance.
    op(
        dnnl_graph_op_batch_norm_forward_training,
        "BatchNormForwardTraining",
        (3, 5),
        (5, 5),
        BATCH_NORM_TRAINING,
    ),
    // src, gamma, beta, mean, variance.
    op(
        dnnl_graph_op_batch_norm_inference,
        "BatchNormInference",
        (5, 5),
        (1, 1),
        BATCH_NORM,
    ),
    // src, bias.
    op(dnnl_graph_op_bias_add, "BiasAdd", (2, 2), (1, 1), FORMAT),
    // diff_dst; diff_bias.
    unary(dnnl_graph_op_bias_add_backward, "BiasAddBackward", FORMAT),
    unary(dnnl_graph_op_clamp, "Clamp", CLAMP),
    backward(dnnl_graph_op_clamp_backward, "ClampBackward", CLAMP_BWD),
    op(dnnl_graph_op_concat, "Concat", (1, 64), (1, 1), AXIS),
    // src, weights, optional bias.
    op(
        dnnl_graph_op_convolution,
        "Convolution",
        (2, 3),
        (1, 1),
        CONV,
    ),
    // diff_dst, weights, optional dst_shape; diff_src.
    op(
        dnnl_graph_op_convolution_backward_data,
        "ConvolutionBackwardData",
        (2, 3),
        (1, 1),
        CONV_BWD_DATA,
    ),
    // src, diff_dst, optional weights_shape; diff_weights.
    op(
        dnnl_graph_op_convolution_backward_weights,
        "ConvolutionBackwardWeights",
        (2, 3),
        (1, 1),
        CONV_BWD_WEIGHTS,
    ),
    // src, weights, optional bias.
    op(
        dnnl_graph_op_conv_transpose,
        "ConvTranspose",
        (2, 3),
        (1, 1),
        CONVT,
    ),
    // diff_dst, weights; diff_src.
    op(
        dnnl_graph_op_conv_transpose_backward_data,
        "ConvTransposeBackwardData",
        (2, 2),
        (1, 1),
        CONVT_BWD_DATA,
    ),
    // src, diff_dst, optional weights_shape; diff_weights.
    op(
        dnnl_graph_op_conv_transpose_backward_weights,
        "ConvTransposeBackwardWeights",
        (2, 3),
        (1, 1),
        CONVT_BWD_WEIGHTS,
    ),
    unary(dnnl_graph_op_dequantize, "Dequantize", QUANTIZE),
    binary(dnnl_graph_op_divide, "Divide"),
    // src, scales, optional zps.
    op(
        dnnl_graph_op_dynamic_dequantize,
        "DynamicDequantize",
        (2, 3),
        (1, 1),
        DYNAMIC_DEQUANTIZE,
    ),
    // src, scales, optional zps.
    op(
        dnnl_graph_op_dynamic_quantize,
        "DynamicQuantize",
        (2, 3),
        (1, 1),
        DYNAMIC_QUANTIZE,
    ),
    unary(dnnl_graph_op_elu, "Elu", ALPHA),
    backward(dnnl_graph_op_elu_backward, "EluBackward", ELU_BWD),
    op(dnnl_graph_op_end, "End", (1, 1), (0, 0), NONE),
    unary(dnnl_graph_op_exp, "Exp", NONE),
    unary(dnnl_graph_op_gelu, "GELU", GELU),
    backward(dnnl_graph_op_gelu_backward, "GELUBackward", GELU),
    unary(dnnl_graph_op_hard_swish, "HardSwish", NONE),
    backward(dnnl_graph_op_hard_swish_backward, "HardSwishBackward", NONE),
    // src, optional sizes (s32).
    op(
        dnnl_graph_op_interpolate,
        "Interpolate",
        (1, 2),
        (1, 1),
        INTERPOLATE,
    ),
    // src, diff_dst, optional sizes; diff_src.
    op(
        dnnl_graph_op_interpolate_backward,
        "InterpolateBackward",
        (2, 3),
        (1, 1),
        INTERPOLATE,
    ),
    // src[, gamma, beta]; dst[, mean, variance].
    op(
        dnnl_graph_op_layer_norm,
        "LayerNorm",
        (1, 3),
        (1, 3),
        LAYER_NORM,
    )
    .only(&[1, 3], &[1, 3]),
    // src, diff_dst, mean, variance, optional gamma, optional beta;
    // diff_src[, diff_gamma, diff_beta].
    op(
        dnnl_graph_op_layer_norm_backward,
        "LayerNormBackward",
        (4, 6),
        (1, 3),
        LAYER_NORM_BWD,
    )
    .only(&[], &[1, 3]),
    unary(dnnl_graph_op_leaky_relu, "LeakyReLU", ALPHA),
    unary(dnnl_graph_op_log, "Log", NONE),
    unary(dnnl_graph_op_log_softmax, "LogSoftmax", LOG_SOFTMAX),
    // diff_dst, dst; diff_src.
    backward(
        dnnl_graph_op_log_softmax_backward,
        "LogSoftmaxBackward",
        LOG_SOFTMAX,
    ),
    // src, weights, optional bias.
    op(dnnl_graph_op_matmul, "MatMul", (2, 3), (1, 1), MATMUL),
    binary(dnnl_graph_op_maximum, "Maximum"),
    unary(dnnl_graph_op_max_pool, "MaxPool", MAX_POOL),
    backward(
        dnnl_graph_op_max_pool_backward,
        "MaxPoolBackward",
        MAX_POOL_BWD,
    ),
    binary(dnnl_graph_op_minimum, "Minimum"),
    unary(dnnl_graph_op_mish, "Mish", NONE),
    backward(dnnl_graph_op_mish_backward, "MishBackward", NONE),
    binary(dnnl_graph_op_multiply, "Multiply"),
    // src, slope.
    op(dnnl_graph_op_prelu, "PReLU", (2, 2), (1, 1), PRELU),
    // src, slope, diff_dst; diff_src, diff_slope.
    op(
        dnnl_graph_op_prelu_backward,
        "PReLUBackward",
        (3, 3),
        (2, 2),
        FORMAT,
    ),
    unary(dnnl_graph_op_quantize, "Quantize", QUANTIZE),
    unary(dnnl_graph_op_reciprocal, "Reciprocal", NONE),
    reduce(dnnl_graph_op_reduce_l1, "ReduceL1"),
    reduce(dnnl_graph_op_reduce_l2, "ReduceL2"),
    reduce(dnnl_graph_op_reduce_max, "ReduceMax"),
    reduce(dnnl_graph_op_reduce_mean, "ReduceMean"),
    reduce(dnnl_graph_op_reduce_min, "ReduceMin"),
    reduce(dnnl_graph_op_reduce_prod, "ReduceProd"),
    reduce(dnnl_graph_op_reduce_sum, "ReduceSum"),
    unary(dnnl_graph_op_relu, "ReLU", NONE),
    backward(dnnl_graph_op_relu_backward, "ReLUBackward", USE_DST),
    unary(dnnl_graph_op_reorder, "Reorder", NONE),
    unary(dnnl_graph_op_round, "Round", NONE),
    unary(dnnl_graph_op_sigmoid, "Sigmoid", NONE),
    backward(dnnl_graph_op_sigmoid_backward, "SigmoidBackward", USE_DST),
    // src; dst, optional stats.
    op(dnnl_graph_op_softmax, "SoftMax", (1, 1), (1, 2), SOFTMAX),
    // diff_dst, dst; diff_src.
    backward(
        dnnl_graph_op_softmax_backward,
        "SoftMaxBackward",
        SOFTMAX_BWD,
    ),
    unary(dnnl_graph_op_softplus, "SoftPlus", SOFTPLUS),
    backward(
        dnnl_graph_op_softplus_backward,
        "SoftPlusBackward",
        SOFTPLUS,
    ),
    unary(dnnl_graph_op_sqrt, "Sqrt", NONE),
    backward(dnnl_graph_op_sqrt_backward, "SqrtBackward", USE_DST),
    unary(dnnl_graph_op_square, "Square", NONE),
    binary(dnnl_graph_op_squared_difference, "SquaredDifference"),
    unary(
        dnnl_graph_op_static_reshape,
        "StaticReshape",
        STATIC_RESHAPE,
    ),
    unary(
        dnnl_graph_op_static_transpose,
        "StaticTranspose",
        STATIC_TRANSPOSE,
    ),
    binary(dnnl_graph_op_subtract, "Subtract"),
    unary(dnnl_graph_op_tanh, "Tanh", NONE),
    backward(dnnl_graph_op_tanh_backward, "TanhBackward", USE_DST),
    unary(dnnl_graph_op_type_cast, "TypeCast", NONE),
    op(
        dnnl_graph_op_wildcard,
        "Wildcard",
        (0, MANY),
        (0, MANY),
        NONE,
    ),
    unary(dnnl_graph_op_hard_sigmoid, "HardSigmoid", ALPHA_BETA),
    backward(
        dnnl_graph_op_hard_sigmoid_backward,
        "HardSigmoidBackward",
        ALPHA_BETA,
    ),
    // cond (boolean), src_0, src_1.
    op(dnnl_graph_op_select, "Select", (3, 3), (1, 1), BROADCAST),
    unary(dnnl_graph_op_pow, "Pow", POW),
    // src[, gamma, beta]; dst[, mean, variance].
    op(
        dnnl_graph_op_group_norm,
        "GroupNorm",
        (1, 3),
        (1, 3),
        GROUP_NORM,
    )
    .only(&[1, 3], &[1, 3]),
    // src; dst (s32).
    unary(dnnl_graph_op_gen_index, "GenIndex", AXIS),
    // src_0, src_1; dst (boolean).
    binary(dnnl_graph_op_greater_equal, "GreaterEqual"),
    // src, optional gamma.
    op(dnnl_graph_op_rms_norm, "RMSNorm", (1, 2), (1, 1), RMS_NORM),
    // src, seed (s64), offset (s64), probability; dst, optional mask (u8).
    op(dnnl_graph_op_dropout, "Dropout", (4, 4), (1, 2), NONE),
];
