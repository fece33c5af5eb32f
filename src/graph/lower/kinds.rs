//! What each graph op kind lowers to: eltwise algorithms (forward and
//! backward), binary algorithms, and which kinds a partition of one op
//! supports (the convolution ops, the batch and layer normalizations, the
//! pooling ops and the reductions in floating point; BiasAddBackward is not, as upstream's CPU library
//! does not support it either).
//!
//! Layer: graph. The eltwise mapping follows the definitions of oneDNN's
//! graph ops: HardSwish is `x * min(max(x + 3, 0), 6) / 6`, i.e. oneDNN's
//! hardswish with alpha 1/6 and beta 1/2; SoftPlus with `beta` is
//! soft_relu with alpha `beta`; LeakyReLU is relu with a slope; Reciprocal
//! is `pow(x, -1)`, Pow is `pow(x, beta)`; GELU's `mode` picks erf (the
//! default) or tanh. The backward ops with `use_dst` (true by default)
//! take the forward result and use the `_use_dst_for_bwd` algorithms.

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

use crate::abi::*;
use crate::graph::op::Op;

/// An eltwise algorithm with its parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Eltwise {
    pub alg: dnnl_alg_kind_t,
    pub alpha: f32,
    pub beta: f32,
}

fn elt(alg: dnnl_alg_kind_t, alpha: f32, beta: f32) -> Option<Eltwise> {
    Some(Eltwise { alg, alpha, beta })
}

/// The eltwise algorithm of a unary forward op (also how it is a post-op).
pub fn eltwise_forward(op: &Op) -> Option<Eltwise> {
    let a = |attr, d| op.f32_or(attr, d);
    match op.kind {
        dnnl_graph_op_abs => elt(dnnl_eltwise_abs, 0.0, 0.0),
        dnnl_graph_op_clamp => elt(
            dnnl_eltwise_clip,
            a(dnnl_graph_op_attr_min, 0.0),
            a(dnnl_graph_op_attr_max, 0.0),
        ),
        dnnl_graph_op_elu => elt(dnnl_eltwise_elu, a(dnnl_graph_op_attr_alpha, 1.0), 0.0),
        dnnl_graph_op_exp => elt(dnnl_eltwise_exp, 0.0, 0.0),
        dnnl_graph_op_gelu => elt(gelu_alg(op), 0.0, 0.0),
        dnnl_graph_op_hard_sigmoid => elt(
            dnnl_eltwise_hardsigmoid,
            a(dnnl_graph_op_attr_alpha, 1.0 / 6.0),
            a(dnnl_graph_op_attr_beta, 0.5),
        ),
        dnnl_graph_op_hard_swish => elt(dnnl_eltwise_hardswish, 1.0 / 6.0, 0.5),
        dnnl_graph_op_leaky_relu => elt(dnnl_eltwise_relu, a(dnnl_graph_op_attr_alpha, 0.01), 0.0),
        dnnl_graph_op_log => elt(dnnl_eltwise_log, 0.0, 0.0),
        dnnl_graph_op_mish => elt(dnnl_eltwise_mish, 0.0, 0.0),
        dnnl_graph_op_relu => elt(dnnl_eltwise_relu, 0.0, 0.0),
        dnnl_graph_op_round => elt(dnnl_eltwise_round, 0.0, 0.0),
        dnnl_graph_op_sigmoid => elt(dnnl_eltwise_logistic, 0.0, 0.0),
        dnnl_graph_op_softplus => elt(dnnl_eltwise_soft_relu, a(dnnl_graph_op_attr_beta, 1.0), 0.0),
        dnnl_graph_op_sqrt => elt(dnnl_eltwise_sqrt, 0.0, 0.0),
        dnnl_graph_op_square => elt(dnnl_eltwise_square, 0.0, 0.0),
        dnnl_graph_op_tanh => elt(dnnl_eltwise_tanh, 0.0, 0.0),
        dnnl_graph_op_reciprocal => elt(dnnl_eltwise_pow, 1.0, -1.0),
        dnnl_graph_op_pow => elt(dnnl_eltwise_pow, 1.0, a(dnnl_graph_op_attr_beta, 1.0)),
        _ => None,
    }
}

fn gelu_alg(op: &Op) -> dnnl_alg_kind_t {
    if op.str_or(dnnl_graph_op_attr_mode, "gelu_erf") == "gelu_tanh" {
        dnnl_eltwise_gelu_tanh
    } else {
        dnnl_eltwise_gelu_erf
    }
}

/// The eltwise backward algorithm of a `*Backward` op.
pub fn eltwise_backward(op: &Op) -> Option<Eltwise> {
    let a = |attr, d| op.f32_or(attr, d);
    let dst = op.bool_or(dnnl_graph_op_attr_use_dst, true);
    let pick = |with_dst, with_src| if dst { with_dst } else { with_src };
    match op.kind {
        dnnl_graph_op_abs_backward => elt(dnnl_eltwise_abs, 0.0, 0.0),
        dnnl_graph_op_clamp_backward => elt(
            pick(dnnl_eltwise_clip_v2_use_dst_for_bwd, dnnl_eltwise_clip_v2),
            a(dnnl_graph_op_attr_min, 0.0),
            a(dnnl_graph_op_attr_max, 0.0),
        ),
        dnnl_graph_op_elu_backward => elt(
            pick(dnnl_eltwise_elu_use_dst_for_bwd, dnnl_eltwise_elu),
            a(dnnl_graph_op_attr_alpha, 1.0),
            0.0,
        ),
        dnnl_graph_op_gelu_backward => elt(gelu_alg(op), 0.0, 0.0),
        dnnl_graph_op_hard_sigmoid_backward => elt(
            dnnl_eltwise_hardsigmoid,
            a(dnnl_graph_op_attr_alpha, 1.0 / 6.0),
            a(dnnl_graph_op_attr_beta, 0.5),
        ),
        dnnl_graph_op_hard_swish_backward => elt(dnnl_eltwise_hardswish, 1.0 / 6.0, 0.5),
        dnnl_graph_op_mish_backward => elt(dnnl_eltwise_mish, 0.0, 0.0),
        dnnl_graph_op_relu_backward => elt(
            pick(dnnl_eltwise_relu_use_dst_for_bwd, dnnl_eltwise_relu),
            0.0,
            0.0,
        ),
        dnnl_graph_op_sigmoid_backward => elt(
            pick(dnnl_eltwise_logistic_use_dst_for_bwd, dnnl_eltwise_logistic),
            0.0,
            0.0,
        ),
        dnnl_graph_op_softplus_backward => {
            elt(dnnl_eltwise_soft_relu, a(dnnl_graph_op_attr_beta, 1.0), 0.0)
        }
        dnnl_graph_op_sqrt_backward => elt(
            pick(dnnl_eltwise_sqrt_use_dst_for_bwd, dnnl_eltwise_sqrt),
            0.0,
            0.0,
        ),
        dnnl_graph_op_tanh_backward => elt(
            pick(dnnl_eltwise_tanh_use_dst_for_bwd, dnnl_eltwise_tanh),
            0.0,
            0.0,
        ),
        _ => None,
    }
}

/// A binary op kind as a binary algorithm.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Binary {
    pub alg: dnnl_alg_kind_t,
    /// The operands may be swapped.
    pub commutative: bool,
    /// The result is squared afterwards (SquaredDifference).
    pub square: bool,
}

/// The binary algorithm of a two-input elementwise kind.
pub fn binary(kind: dnnl_graph_op_kind_t) -> Option<Binary> {
    let b = |alg, commutative, square| {
        Some(Binary {
            alg,
            commutative,
            square,
        })
    };
    match kind {
        dnnl_graph_op_add => b(dnnl_binary_add, true, false),
        dnnl_graph_op_multiply => b(dnnl_binary_mul, true, false),
        dnnl_graph_op_maximum => b(dnnl_binary_max, true, false),
        dnnl_graph_op_minimum => b(dnnl_binary_min, true, false),
        dnnl_graph_op_subtract => b(dnnl_binary_sub, false, false),
        dnnl_graph_op_divide => b(dnnl_binary_div, false, false),
        dnnl_graph_op_squared_difference => b(dnnl_binary_sub, true, true),
        dnnl_graph_op_greater_equal => b(dnnl_binary_ge, false, false),
        _ => None,
    }
}

fn float(dt: dnnl_data_type_t) -> bool {
    matches!(dt, dnnl_f32 | dnnl_f16 | dnnl_bf16)
}

/// Whether every input of `op` is floating point.
fn all_float(op: &Op) -> bool {
    op.inputs.iter().all(|l| float(l.data_type))
}

/// Whether `kind` is one of the Reduce* ops.
pub fn is_reduction(kind: dnnl_graph_op_kind_t) -> bool {
    matches!(
        kind,
        dnnl_graph_op_reduce_l1
            | dnnl_graph_op_reduce_l2
            | dnnl_graph_op_reduce_max
            | dnnl_graph_op_reduce_mean
            | dnnl_graph_op_reduce_min
            | dnnl_graph_op_reduce_prod
            | dnnl_graph_op_reduce_sum
    )
}

/// A reduction in floating point with its axes as an attribute.
fn reduction_lowers(op: &Op) -> bool {
    op.inputs.len() == 1 && all_float(op)
}

/// A layer normalization in floating point over the last axis.
fn layer_norm_lowers(op: &Op) -> bool {
    all_float(op)
        && super::lnorm::last_axis(
            op,
            op.inputs
                .first()
                .and_then(crate::graph::logical_tensor::ndims),
        )
}

/// Whether `op` lowers with a post-op chain (a `Pattern::Post` anchor):
/// the batch normalizations (forward) in floating point, with a ReLU;
/// MaxPool and AvgPool in floating point (an int8 pooling's source is the
/// f32 output of its Dequantize), with unary and binary ops; LayerNorm
/// over the last axis; GroupNorm; Interpolate with `half_pixel`
/// coordinates; the reductions with `axes` as an attribute.
pub fn lowers_chain(op: &Op) -> bool {
    match op.kind {
        dnnl_graph_op_batch_norm_inference | dnnl_graph_op_batch_norm_forward_training => {
            all_float(op)
        }
        dnnl_graph_op_max_pool | dnnl_graph_op_avg_pool => {
            all_float(op) && !super::pool::unsupported_avg(op)
        }
        // With the Quantize after it.
        dnnl_graph_op_type_cast => {
            op.inputs
                .first()
                .is_some_and(|l| matches!(l.data_type, dnnl_bf16 | dnnl_f16))
                && op.outputs.first().is_some_and(|l| l.data_type == dnnl_f32)
        }
        dnnl_graph_op_layer_norm | dnnl_graph_op_rms_norm => layer_norm_lowers(op),
        dnnl_graph_op_group_norm => all_float(op),
        dnnl_graph_op_interpolate => all_float(op) && super::interp::lowers(op),
        kind if is_reduction(kind) => reduction_lowers(op),
        _ => false,
    }
}

/// Whether a partition of `op` alone lowers onto our primitives.
pub fn supports_single(op: &Op) -> bool {
    match op.kind {
        dnnl_graph_op_batch_norm_forward_training
        | dnnl_graph_op_batch_norm_backward
        | dnnl_graph_op_max_pool
        | dnnl_graph_op_avg_pool
        | dnnl_graph_op_max_pool_backward => all_float(op) && !super::pool::unsupported_avg(op),
        dnnl_graph_op_layer_norm | dnnl_graph_op_rms_norm | dnnl_graph_op_layer_norm_backward => {
            layer_norm_lowers(op)
        }
        kind if is_reduction(kind) => reduction_lowers(op),
        dnnl_graph_op_group_norm => all_float(op),
        dnnl_graph_op_interpolate => all_float(op) && super::interp::lowers(op),
        dnnl_graph_op_interpolate_backward => {
            op.inputs.iter().take(2).all(|l| float(l.data_type)) && super::interp::lowers(op)
        }
        dnnl_graph_op_prelu | dnnl_graph_op_prelu_backward => all_float(op),
        // A source shape given as an input tensor is not supported.
        dnnl_graph_op_avg_pool_backward => op.inputs.len() == 1 && all_float(op),
        dnnl_graph_op_matmul => op.inputs.iter().take(2).all(|l| float(l.data_type)),
        // A shape given as an input tensor (`dst_shape`, `weights_shape`) is
        // not supported, as upstream's library does not.
        dnnl_graph_op_convolution | dnnl_graph_op_conv_transpose => {
            op.inputs.iter().take(2).all(|l| float(l.data_type))
        }
        dnnl_graph_op_batch_norm_inference => op.inputs.first().is_some_and(|l| float(l.data_type)),
        dnnl_graph_op_convolution_backward_data
        | dnnl_graph_op_convolution_backward_weights
        | dnnl_graph_op_conv_transpose_backward_data
        | dnnl_graph_op_conv_transpose_backward_weights => {
            op.inputs.len() == 2 && op.inputs.iter().all(|l| float(l.data_type))
        }
        dnnl_graph_op_bias_add
        | dnnl_graph_op_select
        | dnnl_graph_op_softmax
        | dnnl_graph_op_log_softmax
        | dnnl_graph_op_softmax_backward
        | dnnl_graph_op_log_softmax_backward
        | dnnl_graph_op_reorder
        | dnnl_graph_op_type_cast
        | dnnl_graph_op_static_transpose
        | dnnl_graph_op_static_reshape
        | dnnl_graph_op_quantize
        | dnnl_graph_op_dequantize
        | dnnl_graph_op_dynamic_quantize
        | dnnl_graph_op_dynamic_dequantize
        | dnnl_graph_op_concat => true,
        kind => {
            binary(kind).is_some()
                || eltwise_forward(op).is_some()
                || eltwise_backward(op).is_some()
        }
    }
}
