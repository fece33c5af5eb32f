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
//! 0x40, bool from 0x60, strings from 0x80), as in the C header.
//!
//! Where oneDNN's documentation leaves a detail open, the table takes the
//! permissive reading, so that a program valid against upstream is never
//! refused here: optional inputs are counted as a range (LayerNorm takes 1 to
//! 3 inputs, although upstream means "src" or "src, gamma, beta").
//! `Wildcard` takes any number of inputs and outputs and any attribute.

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
    /// Any attribute is accepted (Wildcard); its type must still be the id's.
    pub any_attrs: bool,
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
}

/// The schema of `kind`; `None` when `kind` is not an op kind of v3.13
/// (`dnnl_graph_op_last_symbol` included).
pub fn schema(kind: dnnl_graph_op_kind_t) -> Option<&'static OpSchema> {
    SCHEMAS.get(kind.0 as usize).filter(|s| s.kind == kind)
}

/// The type of attribute `attr`; `None` for an unknown id and for the
/// `undef` / `end` markers, which are no attributes.
pub fn attr_type(attr: dnnl_graph_op_attr_t) -> Option<AttrType> {
    attr_name(attr)?;
    match attr.0 {
        0x01..=0x1f => Some(AttrType::F32),
        0x20..=0x2f => Some(AttrType::F32s),
        0x30..=0x3f => Some(AttrType::S64),
        0x40..=0x5f => Some(AttrType::S64s),
        0x60..=0x7f => Some(AttrType::Bool),
        0x80..=0xfe => Some(AttrType::Str),
        _ => None,
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
    /// The attributes set, each with the type it was set with.
    pub attrs: &'a [(dnnl_graph_op_attr_t, AttrType)],
}

/// Checks an op against its schema: arity, no attribute the op does not
/// take, each attribute of its type, every required attribute present.
/// The reason names the op and the attribute or the counts.
pub fn check(op: &OpView) -> Result<(), String> {
    let s = schema(op.kind).ok_or_else(|| unknown_kind(op.kind))?;
    check_count(s.name, "input", s.inputs, op.n_inputs)?;
    check_count(s.name, "output", s.outputs, op.n_outputs)?;
    for &(attr, given) in op.attrs {
        let name = attr_name(attr).unwrap_or("?");
        let expected = attr_type(attr)
            .ok_or_else(|| format!("{}: {} is not an attribute id", s.name, attr.0))?;
        if !s.any_attrs && s.attr(attr).is_none() {
            return Err(format!("{} does not take attribute '{name}'", s.name));
        }
        if given != expected {
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

/// Checks the value of string attribute `attr` of an op of `kind`.
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
        if s.any_attrs {
            return Ok(());
        }
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

fn unknown_kind(kind: dnnl_graph_op_kind_t) -> String {
    format!("{} is not an op kind of oneDNN v3.13", kind.0)
}

fn check_count(op: &str, what: &str, (min, max): (usize, usize), got: usize) -> Result<(), String> {
    if (min..=max).contains(&got) {
        return Ok(());
    }
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let range = if min == max {
        format!("{min} {what}{}", plural(min))
    } else if max == usize::MAX {
        format!("at least {min} {what}{}", plural(min))
    } else if max == min + 1 {
        format!("{min} or {max} {what}s")
    } else {
        format!("{min} to {max} {what}s")
    };
    Err(format!("{op} takes {range}, got {got}"))
}

// ---------------------------------------------------------------------------
// Building blocks of the table.

const fn req(attr: dnnl_graph_op_attr_t) -> AttrSpec {
    AttrSpec {
        attr,
        required: true,
        values: &[],
        default: None,
    }
}

const fn req_str(attr: dnnl_graph_op_attr_t, values: &'static [&'static str]) -> AttrSpec {
    AttrSpec {
        attr,
        required: true,
        values,
        default: None,
    }
}

/// Optional, no documented default (or one that depends on shapes).
const fn opt(attr: dnnl_graph_op_attr_t) -> AttrSpec {
    AttrSpec {
        attr,
        required: false,
        values: &[],
        default: None,
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

const fn opt_str(
    attr: dnnl_graph_op_attr_t,
    values: &'static [&'static str],
    default: &'static str,
) -> AttrSpec {
    AttrSpec {
        attr,
        required: false,
        values,
        default: Some(AttrDefault::Str(default)),
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
        any_attrs: false,
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

// Attribute lists shared by several ops.
const NONE: &[AttrSpec] = &[];
const BROADCAST: &[AttrSpec] = &[opt_str(
    dnnl_graph_op_attr_auto_broadcast,
    AUTO_BROADCAST,
    "numpy",
)];
const FORMAT: &[AttrSpec] = &[opt_str(dnnl_graph_op_attr_data_format, DATA_FORMAT, "NXC")];
const USE_DST: &[AttrSpec] = &[opt_bool(dnnl_graph_op_attr_use_dst, true)];
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
    opt_bool(dnnl_graph_op_attr_use_dst, true),
];
const ELU_BWD: &[AttrSpec] = &[
    req(dnnl_graph_op_attr_alpha),
    opt_bool(dnnl_graph_op_attr_use_dst, true),
];

const AUTO_PAD_ATTR: AttrSpec = opt_str(dnnl_graph_op_attr_auto_pad, AUTO_PAD, "None");
const FORMAT_ATTR: AttrSpec = opt_str(dnnl_graph_op_attr_data_format, DATA_FORMAT, "NXC");
const ACCUMULATION_ATTR: AttrSpec =
    opt_str(dnnl_graph_op_attr_accumulation_mode, ACCUMULATION, "strict");
const CONV_WEIGHTS_ATTR: AttrSpec = opt_str(dnnl_graph_op_attr_weights_format, CONV_WEIGHTS, "XIO");
const CONVT_WEIGHTS_ATTR: AttrSpec =
    opt_str(dnnl_graph_op_attr_weights_format, CONVT_WEIGHTS, "XOI");

const MATMUL: &[AttrSpec] = &[
    opt_bool(dnnl_graph_op_attr_transpose_a, false),
    opt_bool(dnnl_graph_op_attr_transpose_b, false),
    ACCUMULATION_ATTR,
];

/// The attributes of every convolution op, followed by `extra`.
macro_rules! conv_attrs {
    ($weights:expr $(, $extra:expr)*) => {
        &[
            req(dnnl_graph_op_attr_strides),
            req(dnnl_graph_op_attr_pads_begin),
            req(dnnl_graph_op_attr_pads_end),
            req(dnnl_graph_op_attr_dilations),
            AUTO_PAD_ATTR,
            opt_s64(dnnl_graph_op_attr_groups, 1),
            FORMAT_ATTR,
            $weights,
            ACCUMULATION_ATTR,
            $($extra,)*
        ]
    };
}

const CONV: &[AttrSpec] = conv_attrs!(CONV_WEIGHTS_ATTR);
const CONV_BWD_DATA: &[AttrSpec] = conv_attrs!(
    CONV_WEIGHTS_ATTR,
    opt(dnnl_graph_op_attr_output_padding),
    opt(dnnl_graph_op_attr_dst_shape)
);
const CONV_BWD_WEIGHTS: &[AttrSpec] =
    conv_attrs!(CONV_WEIGHTS_ATTR, opt(dnnl_graph_op_attr_weights_shape));
const CONVT: &[AttrSpec] = conv_attrs!(CONVT_WEIGHTS_ATTR, opt(dnnl_graph_op_attr_output_padding));
const CONVT_BWD_DATA: &[AttrSpec] = conv_attrs!(CONVT_WEIGHTS_ATTR);
const CONVT_BWD_WEIGHTS: &[AttrSpec] =
    conv_attrs!(CONVT_WEIGHTS_ATTR, opt(dnnl_graph_op_attr_weights_shape));

const AVG_POOL: &[AttrSpec] = &[
    req(dnnl_graph_op_attr_strides),
    req(dnnl_graph_op_attr_pads_begin),
    req(dnnl_graph_op_attr_pads_end),
    req(dnnl_graph_op_attr_kernel),
    req(dnnl_graph_op_attr_exclude_pad),
    opt_str(dnnl_graph_op_attr_rounding_type, ROUNDING, "floor"),
    AUTO_PAD_ATTR,
    FORMAT_ATTR,
];
const AVG_POOL_BWD: &[AttrSpec] = &[
    req(dnnl_graph_op_attr_strides),
    req(dnnl_graph_op_attr_pads_begin),
    req(dnnl_graph_op_attr_pads_end),
    req(dnnl_graph_op_attr_kernel),
    req(dnnl_graph_op_attr_exclude_pad),
    AUTO_PAD_ATTR,
    FORMAT_ATTR,
    opt(dnnl_graph_op_attr_src_shape),
];
const MAX_POOL: &[AttrSpec] = &[
    req(dnnl_graph_op_attr_strides),
    req(dnnl_graph_op_attr_pads_begin),
    req(dnnl_graph_op_attr_pads_end),
    req(dnnl_graph_op_attr_kernel),
    opt(dnnl_graph_op_attr_dilations),
    opt_str(dnnl_graph_op_attr_rounding_type, ROUNDING, "floor"),
    AUTO_PAD_ATTR,
    FORMAT_ATTR,
];
const MAX_POOL_BWD: &[AttrSpec] = &[
    req(dnnl_graph_op_attr_strides),
    req(dnnl_graph_op_attr_pads_begin),
    req(dnnl_graph_op_attr_pads_end),
    req(dnnl_graph_op_attr_kernel),
    opt(dnnl_graph_op_attr_dilations),
    AUTO_PAD_ATTR,
    FORMAT_ATTR,
];

const BATCH_NORM: &[AttrSpec] = &[req(dnnl_graph_op_attr_epsilon), FORMAT_ATTR];
const BATCH_NORM_TRAINING: &[AttrSpec] = &[
    req(dnnl_graph_op_attr_epsilon),
    opt(dnnl_graph_op_attr_momentum),
    FORMAT_ATTR,
];
const LAYER_NORM: &[AttrSpec] = &[
    opt_bool(dnnl_graph_op_attr_keep_stats, true),
    opt_s64(dnnl_graph_op_attr_begin_norm_axis, -1),
    opt_bool(dnnl_graph_op_attr_use_affine, true),
    opt_f32(dnnl_graph_op_attr_epsilon, 1e-5),
];
const LAYER_NORM_BWD: &[AttrSpec] = &[
    opt_s64(dnnl_graph_op_attr_begin_norm_axis, -1),
    opt_bool(dnnl_graph_op_attr_use_affine, true),
    opt_f32(dnnl_graph_op_attr_epsilon, 1e-5),
];
const GROUP_NORM: &[AttrSpec] = &[
    req(dnnl_graph_op_attr_groups),
    FORMAT_ATTR,
    opt_bool(dnnl_graph_op_attr_use_affine, true),
    opt_bool(dnnl_graph_op_attr_keep_stats, true),
    opt_f32(dnnl_graph_op_attr_epsilon, 1e-5),
];
const RMS_NORM: &[AttrSpec] = LAYER_NORM_BWD;

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
    opt_str(dnnl_graph_op_attr_qtype, QTYPE, "per_tensor"),
    opt_s64(dnnl_graph_op_attr_axis, 1),
    req(dnnl_graph_op_attr_scales),
    opt(dnnl_graph_op_attr_zps),
];
const DYNAMIC_QUANTIZE: &[AttrSpec] = &[
    opt_str(dnnl_graph_op_attr_qtype, QTYPE, "per_tensor"),
    opt_s64(dnnl_graph_op_attr_axis, 1),
];
const DYNAMIC_DEQUANTIZE: &[AttrSpec] = &[
    opt_str(dnnl_graph_op_attr_qtype, QTYPE_GROUP, "per_tensor"),
    opt_s64(dnnl_graph_op_attr_axis, 1),
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

const MANY: usize = usize::MAX;

/// Every op kind of v3.13, indexed by its value.
static SCHEMAS: &[OpSchema] = &[
    unary(dnnl_graph_op_abs, "Abs", NONE),
    backward(dnnl_graph_op_abs_backward, "AbsBackward", NONE),
    op(dnnl_graph_op_add, "Add", (2, 2), (1, 1), BROADCAST),
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
    // diff_gamma and diff_beta.
    op(
        dnnl_graph_op_batch_norm_backward,
        "BatchNormTrainingBackward",
        (4, 5),
        (1, 3),
        BATCH_NORM,
    ),
    // src, mean, variance, optional gamma and beta; dst, running mean and
    // variance, batch mean and variance.
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
    op(dnnl_graph_op_bias_add, "BiasAdd", (2, 2), (1, 1), FORMAT),
    unary(dnnl_graph_op_bias_add_backward, "BiasAddBackward", FORMAT),
    unary(dnnl_graph_op_clamp, "Clamp", CLAMP),
    backward(dnnl_graph_op_clamp_backward, "ClampBackward", CLAMP_BWD),
    op(
        dnnl_graph_op_concat,
        "Concat",
        (1, 64),
        (1, 1),
        &[req(dnnl_graph_op_attr_axis)],
    ),
    // src, weights, optional bias.
    op(
        dnnl_graph_op_convolution,
        "Convolution",
        (2, 3),
        (1, 1),
        CONV,
    ),
    // diff_dst, weights, optional dst_shape.
    op(
        dnnl_graph_op_convolution_backward_data,
        "ConvolutionBackwardData",
        (2, 3),
        (1, 1),
        CONV_BWD_DATA,
    ),
    // src, diff_dst, optional weights_shape.
    op(
        dnnl_graph_op_convolution_backward_weights,
        "ConvolutionBackwardWeights",
        (2, 3),
        (1, 1),
        CONV_BWD_WEIGHTS,
    ),
    op(
        dnnl_graph_op_conv_transpose,
        "ConvTranspose",
        (2, 3),
        (1, 1),
        CONVT,
    ),
    op(
        dnnl_graph_op_conv_transpose_backward_data,
        "ConvTransposeBackwardData",
        (2, 2),
        (1, 1),
        CONVT_BWD_DATA,
    ),
    op(
        dnnl_graph_op_conv_transpose_backward_weights,
        "ConvTransposeBackwardWeights",
        (2, 3),
        (1, 1),
        CONVT_BWD_WEIGHTS,
    ),
    unary(dnnl_graph_op_dequantize, "Dequantize", QUANTIZE),
    op(dnnl_graph_op_divide, "Divide", (2, 2), (1, 1), BROADCAST),
    // src, scales, optional zps.
    op(
        dnnl_graph_op_dynamic_dequantize,
        "DynamicDequantize",
        (2, 3),
        (1, 1),
        DYNAMIC_DEQUANTIZE,
    ),
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
    // src, optional sizes.
    op(
        dnnl_graph_op_interpolate,
        "Interpolate",
        (1, 2),
        (1, 1),
        INTERPOLATE,
    ),
    // src, diff_dst, optional sizes.
    op(
        dnnl_graph_op_interpolate_backward,
        "InterpolateBackward",
        (2, 3),
        (1, 1),
        INTERPOLATE,
    ),
    // src, optional gamma and beta; dst, optional mean and variance.
    op(
        dnnl_graph_op_layer_norm,
        "LayerNorm",
        (1, 3),
        (1, 3),
        LAYER_NORM,
    ),
    // src, diff_dst, mean, variance, optional gamma and beta; diff_src,
    // optional diff_gamma and diff_beta.
    op(
        dnnl_graph_op_layer_norm_backward,
        "LayerNormBackward",
        (4, 6),
        (1, 3),
        LAYER_NORM_BWD,
    ),
    unary(dnnl_graph_op_leaky_relu, "LeakyReLU", ALPHA),
    unary(dnnl_graph_op_log, "Log", NONE),
    unary(dnnl_graph_op_log_softmax, "LogSoftmax", LOG_SOFTMAX),
    backward(
        dnnl_graph_op_log_softmax_backward,
        "LogSoftmaxBackward",
        LOG_SOFTMAX,
    ),
    // src, weights, optional bias.
    op(dnnl_graph_op_matmul, "MatMul", (2, 3), (1, 1), MATMUL),
    op(dnnl_graph_op_maximum, "Maximum", (2, 2), (1, 1), BROADCAST),
    unary(dnnl_graph_op_max_pool, "MaxPool", MAX_POOL),
    backward(
        dnnl_graph_op_max_pool_backward,
        "MaxPoolBackward",
        MAX_POOL_BWD,
    ),
    op(dnnl_graph_op_minimum, "Minimum", (2, 2), (1, 1), BROADCAST),
    unary(dnnl_graph_op_mish, "Mish", NONE),
    backward(dnnl_graph_op_mish_backward, "MishBackward", NONE),
    op(
        dnnl_graph_op_multiply,
        "Multiply",
        (2, 2),
        (1, 1),
        BROADCAST,
    ),
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
    // src, optional axes.
    op(dnnl_graph_op_reduce_l1, "ReduceL1", (1, 2), (1, 1), REDUCE),
    op(dnnl_graph_op_reduce_l2, "ReduceL2", (1, 2), (1, 1), REDUCE),
    op(
        dnnl_graph_op_reduce_max,
        "ReduceMax",
        (1, 2),
        (1, 1),
        REDUCE,
    ),
    op(
        dnnl_graph_op_reduce_mean,
        "ReduceMean",
        (1, 2),
        (1, 1),
        REDUCE,
    ),
    op(
        dnnl_graph_op_reduce_min,
        "ReduceMin",
        (1, 2),
        (1, 1),
        REDUCE,
    ),
    op(
        dnnl_graph_op_reduce_prod,
        "ReduceProd",
        (1, 2),
        (1, 1),
        REDUCE,
    ),
    op(
        dnnl_graph_op_reduce_sum,
        "ReduceSum",
        (1, 2),
        (1, 1),
        REDUCE,
    ),
    unary(dnnl_graph_op_relu, "ReLU", NONE),
    backward(dnnl_graph_op_relu_backward, "ReLUBackward", USE_DST),
    unary(dnnl_graph_op_reorder, "Reorder", NONE),
    unary(dnnl_graph_op_round, "Round", NONE),
    unary(dnnl_graph_op_sigmoid, "Sigmoid", NONE),
    backward(dnnl_graph_op_sigmoid_backward, "SigmoidBackward", USE_DST),
    // dst, optional stats.
    op(dnnl_graph_op_softmax, "SoftMax", (1, 1), (1, 2), SOFTMAX),
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
    op(
        dnnl_graph_op_squared_difference,
        "SquaredDifference",
        (2, 2),
        (1, 1),
        BROADCAST,
    ),
    unary(
        dnnl_graph_op_static_reshape,
        "StaticReshape",
        &[
            req(dnnl_graph_op_attr_shape),
            req(dnnl_graph_op_attr_special_zero),
        ],
    ),
    unary(
        dnnl_graph_op_static_transpose,
        "StaticTranspose",
        &[req(dnnl_graph_op_attr_order)],
    ),
    op(
        dnnl_graph_op_subtract,
        "Subtract",
        (2, 2),
        (1, 1),
        BROADCAST,
    ),
    unary(dnnl_graph_op_tanh, "Tanh", NONE),
    backward(dnnl_graph_op_tanh_backward, "TanhBackward", USE_DST),
    unary(dnnl_graph_op_type_cast, "TypeCast", NONE),
    OpSchema {
        any_attrs: true,
        ..op(
            dnnl_graph_op_wildcard,
            "Wildcard",
            (0, MANY),
            (0, MANY),
            NONE,
        )
    },
    unary(dnnl_graph_op_hard_sigmoid, "HardSigmoid", ALPHA_BETA),
    backward(
        dnnl_graph_op_hard_sigmoid_backward,
        "HardSigmoidBackward",
        ALPHA_BETA,
    ),
    // cond, src_0, src_1.
    op(dnnl_graph_op_select, "Select", (3, 3), (1, 1), BROADCAST),
    unary(dnnl_graph_op_pow, "Pow", &[req(dnnl_graph_op_attr_beta)]),
    // src, optional gamma and beta; dst, optional mean and variance.
    op(
        dnnl_graph_op_group_norm,
        "GroupNorm",
        (1, 3),
        (1, 3),
        GROUP_NORM,
    ),
    unary(
        dnnl_graph_op_gen_index,
        "GenIndex",
        &[req(dnnl_graph_op_attr_axis)],
    ),
    op(
        dnnl_graph_op_greater_equal,
        "GreaterEqual",
        (2, 2),
        (1, 1),
        BROADCAST,
    ),
    // src, optional gamma.
    op(dnnl_graph_op_rms_norm, "RMSNorm", (1, 2), (1, 1), RMS_NORM),
    // src, seed, offset, probability; dst, optional mask.
    op(dnnl_graph_op_dropout, "Dropout", (3, 4), (1, 2), NONE),
];
