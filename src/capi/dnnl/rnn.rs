//! RNN primitive descriptors
//! (`dnnl_{vanilla_rnn,lstm,gru,lbr_gru,augru,lbr_augru}_{forward,backward}_primitive_desc_create`).
//!
//! The checks and implementations live in `prims::rnn`; these functions
//! read the arguments (NULL or a zero descriptor: an absent optional
//! tensor) and take the one creation path (`primitive_desc::create`).

use ::core::ffi::c_uint;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::primitive_desc::{create, hint, optional_md};
use crate::prims::rnn::{RnnDescs, RnnOp, RnnParams};

/// Creates a primitive descriptor for vanilla rnn forward (shapes, rules and
/// layouts: `prims::rnn`). `prop_kind` is `dnnl_forward_training` (which
/// writes a workspace) or `dnnl_forward_inference`.
/// On success the caller owns `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_vanilla_rnn_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    activation: dnnl_alg_kind_t,
    direction: dnnl_rnn_direction_t,
    src_layer_desc: const_dnnl_memory_desc_t,
    src_iter_desc: const_dnnl_memory_desc_t,
    weights_layer_desc: const_dnnl_memory_desc_t,
    weights_iter_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_layer_desc: const_dnnl_memory_desc_t,
    dst_iter_desc: const_dnnl_memory_desc_t,
    flags: c_uint,
    alpha: f32,
    beta: f32,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_vanilla_rnn_forward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let descs = RnnDescs {
                src_layer: optional_md(src_layer_desc)?,
                src_iter: optional_md(src_iter_desc)?,
                weights_layer: optional_md(weights_layer_desc)?,
                weights_iter: optional_md(weights_iter_desc)?,
                bias: optional_md(bias_desc)?,
                dst_layer: optional_md(dst_layer_desc)?,
                dst_iter: optional_md(dst_iter_desc)?,
                ..RnnDescs::default()
            };
            let params = RnnParams {
                prop_kind,
                cell: dnnl_vanilla_rnn,
                activation,
                direction,
                flags,
                alpha,
                beta,
            };
            RnnOp::new(params, &descs, false, None, attr)
        })
    })
}

/// Creates a primitive descriptor for vanilla rnn backward (shapes, rules and
/// layouts: `prims::rnn`). `prop_kind` must be `dnnl_backward`; `hint_fwd_pd`
/// is the forward training descriptor whose workspace this one reads.
/// On success the caller owns `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_vanilla_rnn_backward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    activation: dnnl_alg_kind_t,
    direction: dnnl_rnn_direction_t,
    src_layer_desc: const_dnnl_memory_desc_t,
    src_iter_desc: const_dnnl_memory_desc_t,
    weights_layer_desc: const_dnnl_memory_desc_t,
    weights_iter_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_layer_desc: const_dnnl_memory_desc_t,
    dst_iter_desc: const_dnnl_memory_desc_t,
    diff_src_layer_desc: const_dnnl_memory_desc_t,
    diff_src_iter_desc: const_dnnl_memory_desc_t,
    diff_weights_layer_desc: const_dnnl_memory_desc_t,
    diff_weights_iter_desc: const_dnnl_memory_desc_t,
    diff_bias_desc: const_dnnl_memory_desc_t,
    diff_dst_layer_desc: const_dnnl_memory_desc_t,
    diff_dst_iter_desc: const_dnnl_memory_desc_t,
    flags: c_uint,
    alpha: f32,
    beta: f32,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_vanilla_rnn_backward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let descs = RnnDescs {
                src_layer: optional_md(src_layer_desc)?,
                src_iter: optional_md(src_iter_desc)?,
                weights_layer: optional_md(weights_layer_desc)?,
                weights_iter: optional_md(weights_iter_desc)?,
                bias: optional_md(bias_desc)?,
                dst_layer: optional_md(dst_layer_desc)?,
                dst_iter: optional_md(dst_iter_desc)?,
                diff_src_layer: optional_md(diff_src_layer_desc)?,
                diff_src_iter: optional_md(diff_src_iter_desc)?,
                diff_weights_layer: optional_md(diff_weights_layer_desc)?,
                diff_weights_iter: optional_md(diff_weights_iter_desc)?,
                diff_bias: optional_md(diff_bias_desc)?,
                diff_dst_layer: optional_md(diff_dst_layer_desc)?,
                diff_dst_iter: optional_md(diff_dst_iter_desc)?,
                ..RnnDescs::default()
            };
            let fwd = hint::<RnnOp>(hint_fwd_pd)?;
            let params = RnnParams {
                prop_kind,
                cell: dnnl_vanilla_rnn,
                activation,
                direction,
                flags,
                alpha,
                beta,
            };
            RnnOp::new(params, &descs, true, fwd.as_deref(), attr)
        })
    })
}

/// Creates a primitive descriptor for lstm forward (shapes, rules and
/// layouts: `prims::rnn`). `prop_kind` is `dnnl_forward_training` (which
/// writes a workspace) or `dnnl_forward_inference`.
/// On success the caller owns `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_lstm_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    direction: dnnl_rnn_direction_t,
    src_layer_desc: const_dnnl_memory_desc_t,
    src_iter_desc: const_dnnl_memory_desc_t,
    src_iter_c_desc: const_dnnl_memory_desc_t,
    weights_layer_desc: const_dnnl_memory_desc_t,
    weights_iter_desc: const_dnnl_memory_desc_t,
    weights_peephole_desc: const_dnnl_memory_desc_t,
    weights_projection_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_layer_desc: const_dnnl_memory_desc_t,
    dst_iter_desc: const_dnnl_memory_desc_t,
    dst_iter_c_desc: const_dnnl_memory_desc_t,
    flags: c_uint,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_lstm_forward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let descs = RnnDescs {
                src_layer: optional_md(src_layer_desc)?,
                src_iter: optional_md(src_iter_desc)?,
                src_iter_c: optional_md(src_iter_c_desc)?,
                weights_layer: optional_md(weights_layer_desc)?,
                weights_iter: optional_md(weights_iter_desc)?,
                weights_peephole: optional_md(weights_peephole_desc)?,
                weights_projection: optional_md(weights_projection_desc)?,
                bias: optional_md(bias_desc)?,
                dst_layer: optional_md(dst_layer_desc)?,
                dst_iter: optional_md(dst_iter_desc)?,
                dst_iter_c: optional_md(dst_iter_c_desc)?,
                ..RnnDescs::default()
            };
            let params = RnnParams {
                prop_kind,
                cell: dnnl_vanilla_lstm,
                activation: dnnl_alg_kind_undef,
                direction,
                flags,
                alpha: 0.0,
                beta: 0.0,
            };
            RnnOp::new(params, &descs, false, None, attr)
        })
    })
}

/// Creates a primitive descriptor for lstm backward (shapes, rules and
/// layouts: `prims::rnn`). `prop_kind` must be `dnnl_backward`; `hint_fwd_pd`
/// is the forward training descriptor whose workspace this one reads.
/// On success the caller owns `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_lstm_backward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    direction: dnnl_rnn_direction_t,
    src_layer_desc: const_dnnl_memory_desc_t,
    src_iter_desc: const_dnnl_memory_desc_t,
    src_iter_c_desc: const_dnnl_memory_desc_t,
    weights_layer_desc: const_dnnl_memory_desc_t,
    weights_iter_desc: const_dnnl_memory_desc_t,
    weights_peephole_desc: const_dnnl_memory_desc_t,
    weights_projection_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_layer_desc: const_dnnl_memory_desc_t,
    dst_iter_desc: const_dnnl_memory_desc_t,
    dst_iter_c_desc: const_dnnl_memory_desc_t,
    diff_src_layer_desc: const_dnnl_memory_desc_t,
    diff_src_iter_desc: const_dnnl_memory_desc_t,
    diff_src_iter_c_desc: const_dnnl_memory_desc_t,
    diff_weights_layer_desc: const_dnnl_memory_desc_t,
    diff_weights_iter_desc: const_dnnl_memory_desc_t,
    diff_weights_peephole_desc: const_dnnl_memory_desc_t,
    diff_weights_projection_desc: const_dnnl_memory_desc_t,
    diff_bias_desc: const_dnnl_memory_desc_t,
    diff_dst_layer_desc: const_dnnl_memory_desc_t,
    diff_dst_iter_desc: const_dnnl_memory_desc_t,
    diff_dst_iter_c_desc: const_dnnl_memory_desc_t,
    flags: c_uint,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_lstm_backward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let descs = RnnDescs {
                src_layer: optional_md(src_layer_desc)?,
                src_iter: optional_md(src_iter_desc)?,
                src_iter_c: optional_md(src_iter_c_desc)?,
                weights_layer: optional_md(weights_layer_desc)?,
                weights_iter: optional_md(weights_iter_desc)?,
                weights_peephole: optional_md(weights_peephole_desc)?,
                weights_projection: optional_md(weights_projection_desc)?,
                bias: optional_md(bias_desc)?,
                dst_layer: optional_md(dst_layer_desc)?,
                dst_iter: optional_md(dst_iter_desc)?,
                dst_iter_c: optional_md(dst_iter_c_desc)?,
                diff_src_layer: optional_md(diff_src_layer_desc)?,
                diff_src_iter: optional_md(diff_src_iter_desc)?,
                diff_src_iter_c: optional_md(diff_src_iter_c_desc)?,
                diff_weights_layer: optional_md(diff_weights_layer_desc)?,
                diff_weights_iter: optional_md(diff_weights_iter_desc)?,
                diff_weights_peephole: optional_md(diff_weights_peephole_desc)?,
                diff_weights_projection: optional_md(diff_weights_projection_desc)?,
                diff_bias: optional_md(diff_bias_desc)?,
                diff_dst_layer: optional_md(diff_dst_layer_desc)?,
                diff_dst_iter: optional_md(diff_dst_iter_desc)?,
                diff_dst_iter_c: optional_md(diff_dst_iter_c_desc)?,
                ..RnnDescs::default()
            };
            let fwd = hint::<RnnOp>(hint_fwd_pd)?;
            let params = RnnParams {
                prop_kind,
                cell: dnnl_vanilla_lstm,
                activation: dnnl_alg_kind_undef,
                direction,
                flags,
                alpha: 0.0,
                beta: 0.0,
            };
            RnnOp::new(params, &descs, true, fwd.as_deref(), attr)
        })
    })
}

/// Creates a primitive descriptor for gru forward (shapes, rules and
/// layouts: `prims::rnn`). `prop_kind` is `dnnl_forward_training` (which
/// writes a workspace) or `dnnl_forward_inference`.
/// On success the caller owns `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_gru_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    direction: dnnl_rnn_direction_t,
    src_layer_desc: const_dnnl_memory_desc_t,
    src_iter_desc: const_dnnl_memory_desc_t,
    weights_layer_desc: const_dnnl_memory_desc_t,
    weights_iter_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_layer_desc: const_dnnl_memory_desc_t,
    dst_iter_desc: const_dnnl_memory_desc_t,
    flags: c_uint,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_gru_forward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let descs = RnnDescs {
                src_layer: optional_md(src_layer_desc)?,
                src_iter: optional_md(src_iter_desc)?,
                weights_layer: optional_md(weights_layer_desc)?,
                weights_iter: optional_md(weights_iter_desc)?,
                bias: optional_md(bias_desc)?,
                dst_layer: optional_md(dst_layer_desc)?,
                dst_iter: optional_md(dst_iter_desc)?,
                ..RnnDescs::default()
            };
            let params = RnnParams {
                prop_kind,
                cell: dnnl_vanilla_gru,
                activation: dnnl_alg_kind_undef,
                direction,
                flags,
                alpha: 0.0,
                beta: 0.0,
            };
            RnnOp::new(params, &descs, false, None, attr)
        })
    })
}

/// Creates a primitive descriptor for gru backward (shapes, rules and
/// layouts: `prims::rnn`). `prop_kind` must be `dnnl_backward`; `hint_fwd_pd`
/// is the forward training descriptor whose workspace this one reads.
/// On success the caller owns `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_gru_backward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    direction: dnnl_rnn_direction_t,
    src_layer_desc: const_dnnl_memory_desc_t,
    src_iter_desc: const_dnnl_memory_desc_t,
    weights_layer_desc: const_dnnl_memory_desc_t,
    weights_iter_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_layer_desc: const_dnnl_memory_desc_t,
    dst_iter_desc: const_dnnl_memory_desc_t,
    diff_src_layer_desc: const_dnnl_memory_desc_t,
    diff_src_iter_desc: const_dnnl_memory_desc_t,
    diff_weights_layer_desc: const_dnnl_memory_desc_t,
    diff_weights_iter_desc: const_dnnl_memory_desc_t,
    diff_bias_desc: const_dnnl_memory_desc_t,
    diff_dst_layer_desc: const_dnnl_memory_desc_t,
    diff_dst_iter_desc: const_dnnl_memory_desc_t,
    flags: c_uint,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_gru_backward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let descs = RnnDescs {
                src_layer: optional_md(src_layer_desc)?,
                src_iter: optional_md(src_iter_desc)?,
                weights_layer: optional_md(weights_layer_desc)?,
                weights_iter: optional_md(weights_iter_desc)?,
                bias: optional_md(bias_desc)?,
                dst_layer: optional_md(dst_layer_desc)?,
                dst_iter: optional_md(dst_iter_desc)?,
                diff_src_layer: optional_md(diff_src_layer_desc)?,
                diff_src_iter: optional_md(diff_src_iter_desc)?,
                diff_weights_layer: optional_md(diff_weights_layer_desc)?,
                diff_weights_iter: optional_md(diff_weights_iter_desc)?,
                diff_bias: optional_md(diff_bias_desc)?,
                diff_dst_layer: optional_md(diff_dst_layer_desc)?,
                diff_dst_iter: optional_md(diff_dst_iter_desc)?,
                ..RnnDescs::default()
            };
            let fwd = hint::<RnnOp>(hint_fwd_pd)?;
            let params = RnnParams {
                prop_kind,
                cell: dnnl_vanilla_gru,
                activation: dnnl_alg_kind_undef,
                direction,
                flags,
                alpha: 0.0,
                beta: 0.0,
            };
            RnnOp::new(params, &descs, true, fwd.as_deref(), attr)
        })
    })
}

/// Creates a primitive descriptor for lbr gru forward (shapes, rules and
/// layouts: `prims::rnn`). `prop_kind` is `dnnl_forward_training` (which
/// writes a workspace) or `dnnl_forward_inference`.
/// On success the caller owns `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_lbr_gru_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    direction: dnnl_rnn_direction_t,
    src_layer_desc: const_dnnl_memory_desc_t,
    src_iter_desc: const_dnnl_memory_desc_t,
    weights_layer_desc: const_dnnl_memory_desc_t,
    weights_iter_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_layer_desc: const_dnnl_memory_desc_t,
    dst_iter_desc: const_dnnl_memory_desc_t,
    flags: c_uint,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_lbr_gru_forward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let descs = RnnDescs {
                src_layer: optional_md(src_layer_desc)?,
                src_iter: optional_md(src_iter_desc)?,
                weights_layer: optional_md(weights_layer_desc)?,
                weights_iter: optional_md(weights_iter_desc)?,
                bias: optional_md(bias_desc)?,
                dst_layer: optional_md(dst_layer_desc)?,
                dst_iter: optional_md(dst_iter_desc)?,
                ..RnnDescs::default()
            };
            let params = RnnParams {
                prop_kind,
                cell: dnnl_lbr_gru,
                activation: dnnl_alg_kind_undef,
                direction,
                flags,
                alpha: 0.0,
                beta: 0.0,
            };
            RnnOp::new(params, &descs, false, None, attr)
        })
    })
}

/// Creates a primitive descriptor for lbr gru backward (shapes, rules and
/// layouts: `prims::rnn`). `prop_kind` must be `dnnl_backward`; `hint_fwd_pd`
/// is the forward training descriptor whose workspace this one reads.
/// On success the caller owns `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_lbr_gru_backward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    direction: dnnl_rnn_direction_t,
    src_layer_desc: const_dnnl_memory_desc_t,
    src_iter_desc: const_dnnl_memory_desc_t,
    weights_layer_desc: const_dnnl_memory_desc_t,
    weights_iter_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_layer_desc: const_dnnl_memory_desc_t,
    dst_iter_desc: const_dnnl_memory_desc_t,
    diff_src_layer_desc: const_dnnl_memory_desc_t,
    diff_src_iter_desc: const_dnnl_memory_desc_t,
    diff_weights_layer_desc: const_dnnl_memory_desc_t,
    diff_weights_iter_desc: const_dnnl_memory_desc_t,
    diff_bias_desc: const_dnnl_memory_desc_t,
    diff_dst_layer_desc: const_dnnl_memory_desc_t,
    diff_dst_iter_desc: const_dnnl_memory_desc_t,
    flags: c_uint,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_lbr_gru_backward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let descs = RnnDescs {
                src_layer: optional_md(src_layer_desc)?,
                src_iter: optional_md(src_iter_desc)?,
                weights_layer: optional_md(weights_layer_desc)?,
                weights_iter: optional_md(weights_iter_desc)?,
                bias: optional_md(bias_desc)?,
                dst_layer: optional_md(dst_layer_desc)?,
                dst_iter: optional_md(dst_iter_desc)?,
                diff_src_layer: optional_md(diff_src_layer_desc)?,
                diff_src_iter: optional_md(diff_src_iter_desc)?,
                diff_weights_layer: optional_md(diff_weights_layer_desc)?,
                diff_weights_iter: optional_md(diff_weights_iter_desc)?,
                diff_bias: optional_md(diff_bias_desc)?,
                diff_dst_layer: optional_md(diff_dst_layer_desc)?,
                diff_dst_iter: optional_md(diff_dst_iter_desc)?,
                ..RnnDescs::default()
            };
            let fwd = hint::<RnnOp>(hint_fwd_pd)?;
            let params = RnnParams {
                prop_kind,
                cell: dnnl_lbr_gru,
                activation: dnnl_alg_kind_undef,
                direction,
                flags,
                alpha: 0.0,
                beta: 0.0,
            };
            RnnOp::new(params, &descs, true, fwd.as_deref(), attr)
        })
    })
}

/// Creates a primitive descriptor for augru forward (shapes, rules and
/// layouts: `prims::rnn`). `prop_kind` is `dnnl_forward_training` (which
/// writes a workspace) or `dnnl_forward_inference`.
/// On success the caller owns `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_augru_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    direction: dnnl_rnn_direction_t,
    src_layer_desc: const_dnnl_memory_desc_t,
    src_iter_desc: const_dnnl_memory_desc_t,
    attention_desc: const_dnnl_memory_desc_t,
    weights_layer_desc: const_dnnl_memory_desc_t,
    weights_iter_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_layer_desc: const_dnnl_memory_desc_t,
    dst_iter_desc: const_dnnl_memory_desc_t,
    flags: c_uint,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_augru_forward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let descs = RnnDescs {
                src_layer: optional_md(src_layer_desc)?,
                src_iter: optional_md(src_iter_desc)?,
                attention: optional_md(attention_desc)?,
                weights_layer: optional_md(weights_layer_desc)?,
                weights_iter: optional_md(weights_iter_desc)?,
                bias: optional_md(bias_desc)?,
                dst_layer: optional_md(dst_layer_desc)?,
                dst_iter: optional_md(dst_iter_desc)?,
                ..RnnDescs::default()
            };
            let params = RnnParams {
                prop_kind,
                cell: dnnl_vanilla_augru,
                activation: dnnl_alg_kind_undef,
                direction,
                flags,
                alpha: 0.0,
                beta: 0.0,
            };
            RnnOp::new(params, &descs, false, None, attr)
        })
    })
}

/// Creates a primitive descriptor for augru backward (shapes, rules and
/// layouts: `prims::rnn`). `prop_kind` must be `dnnl_backward`; `hint_fwd_pd`
/// is the forward training descriptor whose workspace this one reads.
/// On success the caller owns `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_augru_backward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    direction: dnnl_rnn_direction_t,
    src_layer_desc: const_dnnl_memory_desc_t,
    src_iter_desc: const_dnnl_memory_desc_t,
    attention_desc: const_dnnl_memory_desc_t,
    weights_layer_desc: const_dnnl_memory_desc_t,
    weights_iter_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_layer_desc: const_dnnl_memory_desc_t,
    dst_iter_desc: const_dnnl_memory_desc_t,
    diff_src_layer_desc: const_dnnl_memory_desc_t,
    diff_src_iter_desc: const_dnnl_memory_desc_t,
    diff_attention_desc: const_dnnl_memory_desc_t,
    diff_weights_layer_desc: const_dnnl_memory_desc_t,
    diff_weights_iter_desc: const_dnnl_memory_desc_t,
    diff_bias_desc: const_dnnl_memory_desc_t,
    diff_dst_layer_desc: const_dnnl_memory_desc_t,
    diff_dst_iter_desc: const_dnnl_memory_desc_t,
    flags: c_uint,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_augru_backward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let descs = RnnDescs {
                src_layer: optional_md(src_layer_desc)?,
                src_iter: optional_md(src_iter_desc)?,
                attention: optional_md(attention_desc)?,
                weights_layer: optional_md(weights_layer_desc)?,
                weights_iter: optional_md(weights_iter_desc)?,
                bias: optional_md(bias_desc)?,
                dst_layer: optional_md(dst_layer_desc)?,
                dst_iter: optional_md(dst_iter_desc)?,
                diff_src_layer: optional_md(diff_src_layer_desc)?,
                diff_src_iter: optional_md(diff_src_iter_desc)?,
                diff_attention: optional_md(diff_attention_desc)?,
                diff_weights_layer: optional_md(diff_weights_layer_desc)?,
                diff_weights_iter: optional_md(diff_weights_iter_desc)?,
                diff_bias: optional_md(diff_bias_desc)?,
                diff_dst_layer: optional_md(diff_dst_layer_desc)?,
                diff_dst_iter: optional_md(diff_dst_iter_desc)?,
                ..RnnDescs::default()
            };
            let fwd = hint::<RnnOp>(hint_fwd_pd)?;
            let params = RnnParams {
                prop_kind,
                cell: dnnl_vanilla_augru,
                activation: dnnl_alg_kind_undef,
                direction,
                flags,
                alpha: 0.0,
                beta: 0.0,
            };
            RnnOp::new(params, &descs, true, fwd.as_deref(), attr)
        })
    })
}

/// Creates a primitive descriptor for lbr augru forward (shapes, rules and
/// layouts: `prims::rnn`). `prop_kind` is `dnnl_forward_training` (which
/// writes a workspace) or `dnnl_forward_inference`.
/// On success the caller owns `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_lbr_augru_forward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    direction: dnnl_rnn_direction_t,
    src_layer_desc: const_dnnl_memory_desc_t,
    src_iter_desc: const_dnnl_memory_desc_t,
    attention_desc: const_dnnl_memory_desc_t,
    weights_layer_desc: const_dnnl_memory_desc_t,
    weights_iter_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_layer_desc: const_dnnl_memory_desc_t,
    dst_iter_desc: const_dnnl_memory_desc_t,
    flags: c_uint,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_lbr_augru_forward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let descs = RnnDescs {
                src_layer: optional_md(src_layer_desc)?,
                src_iter: optional_md(src_iter_desc)?,
                attention: optional_md(attention_desc)?,
                weights_layer: optional_md(weights_layer_desc)?,
                weights_iter: optional_md(weights_iter_desc)?,
                bias: optional_md(bias_desc)?,
                dst_layer: optional_md(dst_layer_desc)?,
                dst_iter: optional_md(dst_iter_desc)?,
                ..RnnDescs::default()
            };
            let params = RnnParams {
                prop_kind,
                cell: dnnl_lbr_augru,
                activation: dnnl_alg_kind_undef,
                direction,
                flags,
                alpha: 0.0,
                beta: 0.0,
            };
            RnnOp::new(params, &descs, false, None, attr)
        })
    })
}

/// Creates a primitive descriptor for lbr augru backward (shapes, rules and
/// layouts: `prims::rnn`). `prop_kind` must be `dnnl_backward`; `hint_fwd_pd`
/// is the forward training descriptor whose workspace this one reads.
/// On success the caller owns `*primitive_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_lbr_augru_backward_primitive_desc_create(
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    prop_kind: dnnl_prop_kind_t,
    direction: dnnl_rnn_direction_t,
    src_layer_desc: const_dnnl_memory_desc_t,
    src_iter_desc: const_dnnl_memory_desc_t,
    attention_desc: const_dnnl_memory_desc_t,
    weights_layer_desc: const_dnnl_memory_desc_t,
    weights_iter_desc: const_dnnl_memory_desc_t,
    bias_desc: const_dnnl_memory_desc_t,
    dst_layer_desc: const_dnnl_memory_desc_t,
    dst_iter_desc: const_dnnl_memory_desc_t,
    diff_src_layer_desc: const_dnnl_memory_desc_t,
    diff_src_iter_desc: const_dnnl_memory_desc_t,
    diff_attention_desc: const_dnnl_memory_desc_t,
    diff_weights_layer_desc: const_dnnl_memory_desc_t,
    diff_weights_iter_desc: const_dnnl_memory_desc_t,
    diff_bias_desc: const_dnnl_memory_desc_t,
    diff_dst_layer_desc: const_dnnl_memory_desc_t,
    diff_dst_iter_desc: const_dnnl_memory_desc_t,
    flags: c_uint,
    hint_fwd_pd: const_dnnl_primitive_desc_t,
    attr: const_dnnl_primitive_attr_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_lbr_augru_backward_primitive_desc_create", || {
        create(primitive_desc, engine, attr, |attr| {
            let descs = RnnDescs {
                src_layer: optional_md(src_layer_desc)?,
                src_iter: optional_md(src_iter_desc)?,
                attention: optional_md(attention_desc)?,
                weights_layer: optional_md(weights_layer_desc)?,
                weights_iter: optional_md(weights_iter_desc)?,
                bias: optional_md(bias_desc)?,
                dst_layer: optional_md(dst_layer_desc)?,
                dst_iter: optional_md(dst_iter_desc)?,
                diff_src_layer: optional_md(diff_src_layer_desc)?,
                diff_src_iter: optional_md(diff_src_iter_desc)?,
                diff_attention: optional_md(diff_attention_desc)?,
                diff_weights_layer: optional_md(diff_weights_layer_desc)?,
                diff_weights_iter: optional_md(diff_weights_iter_desc)?,
                diff_bias: optional_md(diff_bias_desc)?,
                diff_dst_layer: optional_md(diff_dst_layer_desc)?,
                diff_dst_iter: optional_md(diff_dst_iter_desc)?,
                ..RnnDescs::default()
            };
            let fwd = hint::<RnnOp>(hint_fwd_pd)?;
            let params = RnnParams {
                prop_kind,
                cell: dnnl_lbr_augru,
                activation: dnnl_alg_kind_undef,
                direction,
                flags,
                alpha: 0.0,
                beta: 0.0,
            };
            RnnOp::new(params, &descs, true, fwd.as_deref(), attr)
        })
    })
}
