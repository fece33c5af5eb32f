//! RNN primitive descriptors
//! (`dnnl_{vanilla_rnn,lstm,gru,lbr_gru,augru,lbr_augru}_{forward,backward}_primitive_desc_create`).
//!
//! The checks and implementations live in `prims::rnn`; each entry point
//! names its descriptors ([`Args`]: NULL or a zero descriptor is an absent
//! optional tensor) and its cell's scalars, and takes the one creation path
//! ([`build`], then `primitive_desc::create`).

use ::core::ffi::c_uint;
use ::core::ptr::null;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::primitive_desc::{create, hint, optional_md};
use crate::core::error::Result;
use crate::prims::rnn::{RnnDescs, RnnOp, RnnParams};

/// The descriptors of one creation call, by argument (NULL where the call
/// has no such argument or passes none).
#[derive(Clone, Copy)]
struct Args {
    src_layer: const_dnnl_memory_desc_t,
    src_iter: const_dnnl_memory_desc_t,
    src_iter_c: const_dnnl_memory_desc_t,
    attention: const_dnnl_memory_desc_t,
    weights_layer: const_dnnl_memory_desc_t,
    weights_iter: const_dnnl_memory_desc_t,
    weights_peephole: const_dnnl_memory_desc_t,
    weights_projection: const_dnnl_memory_desc_t,
    bias: const_dnnl_memory_desc_t,
    dst_layer: const_dnnl_memory_desc_t,
    dst_iter: const_dnnl_memory_desc_t,
    dst_iter_c: const_dnnl_memory_desc_t,
    diff_src_layer: const_dnnl_memory_desc_t,
    diff_src_iter: const_dnnl_memory_desc_t,
    diff_src_iter_c: const_dnnl_memory_desc_t,
    diff_attention: const_dnnl_memory_desc_t,
    diff_weights_layer: const_dnnl_memory_desc_t,
    diff_weights_iter: const_dnnl_memory_desc_t,
    diff_weights_peephole: const_dnnl_memory_desc_t,
    diff_weights_projection: const_dnnl_memory_desc_t,
    diff_bias: const_dnnl_memory_desc_t,
    diff_dst_layer: const_dnnl_memory_desc_t,
    diff_dst_iter: const_dnnl_memory_desc_t,
    diff_dst_iter_c: const_dnnl_memory_desc_t,
}

impl Args {
    const NONE: Args = Args {
        src_layer: null(),
        src_iter: null(),
        src_iter_c: null(),
        attention: null(),
        weights_layer: null(),
        weights_iter: null(),
        weights_peephole: null(),
        weights_projection: null(),
        bias: null(),
        dst_layer: null(),
        dst_iter: null(),
        dst_iter_c: null(),
        diff_src_layer: null(),
        diff_src_iter: null(),
        diff_src_iter_c: null(),
        diff_attention: null(),
        diff_weights_layer: null(),
        diff_weights_iter: null(),
        diff_weights_peephole: null(),
        diff_weights_projection: null(),
        diff_bias: null(),
        diff_dst_layer: null(),
        diff_dst_iter: null(),
        diff_dst_iter_c: null(),
    };

    fn descs(&self) -> Result<RnnDescs> {
        Ok(RnnDescs {
            src_layer: optional_md(self.src_layer)?,
            src_iter: optional_md(self.src_iter)?,
            src_iter_c: optional_md(self.src_iter_c)?,
            attention: optional_md(self.attention)?,
            weights_layer: optional_md(self.weights_layer)?,
            weights_iter: optional_md(self.weights_iter)?,
            weights_peephole: optional_md(self.weights_peephole)?,
            weights_projection: optional_md(self.weights_projection)?,
            bias: optional_md(self.bias)?,
            dst_layer: optional_md(self.dst_layer)?,
            dst_iter: optional_md(self.dst_iter)?,
            dst_iter_c: optional_md(self.dst_iter_c)?,
            diff_src_layer: optional_md(self.diff_src_layer)?,
            diff_src_iter: optional_md(self.diff_src_iter)?,
            diff_src_iter_c: optional_md(self.diff_src_iter_c)?,
            diff_attention: optional_md(self.diff_attention)?,
            diff_weights_layer: optional_md(self.diff_weights_layer)?,
            diff_weights_iter: optional_md(self.diff_weights_iter)?,
            diff_weights_peephole: optional_md(self.diff_weights_peephole)?,
            diff_weights_projection: optional_md(self.diff_weights_projection)?,
            diff_bias: optional_md(self.diff_bias)?,
            diff_dst_layer: optional_md(self.diff_dst_layer)?,
            diff_dst_iter: optional_md(self.diff_dst_iter)?,
            diff_dst_iter_c: optional_md(self.diff_dst_iter_c)?,
        })
    }
}

/// The scalars of a cell without activation (all but vanilla RNN).
fn gated(
    prop_kind: dnnl_prop_kind_t,
    cell: dnnl_alg_kind_t,
    direction: dnnl_rnn_direction_t,
    flags: c_uint,
) -> RnnParams {
    RnnParams {
        prop_kind,
        cell,
        activation: dnnl_alg_kind_undef,
        direction,
        flags,
        alpha: 0.0,
        beta: 0.0,
    }
}

/// The creation path of every entry point (`function` names it):
/// `hint_fwd_pd` is `Some` (possibly NULL) exactly for backward.
fn build(
    function: &'static str,
    primitive_desc: *mut dnnl_primitive_desc_t,
    engine: dnnl_engine_t,
    attr: const_dnnl_primitive_attr_t,
    params: RnnParams,
    args: Args,
    hint_fwd_pd: Option<const_dnnl_primitive_desc_t>,
) -> dnnl_status_t {
    boundary::guard(function, || {
        create(primitive_desc, engine, attr, |attr| {
            let descs = args.descs()?;
            let fwd = match hint_fwd_pd {
                Some(h) => hint::<RnnOp>(h)?,
                None => None,
            };
            RnnOp::new(params, &descs, hint_fwd_pd.is_some(), fwd.as_deref(), attr)
        })
    })
}

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
    let args = Args {
        src_layer: src_layer_desc,
        src_iter: src_iter_desc,
        weights_layer: weights_layer_desc,
        weights_iter: weights_iter_desc,
        bias: bias_desc,
        dst_layer: dst_layer_desc,
        dst_iter: dst_iter_desc,
        ..Args::NONE
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
    let function = "dnnl_vanilla_rnn_forward_primitive_desc_create";
    build(function, primitive_desc, engine, attr, params, args, None)
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
    let args = Args {
        src_layer: src_layer_desc,
        src_iter: src_iter_desc,
        weights_layer: weights_layer_desc,
        weights_iter: weights_iter_desc,
        bias: bias_desc,
        dst_layer: dst_layer_desc,
        dst_iter: dst_iter_desc,
        diff_src_layer: diff_src_layer_desc,
        diff_src_iter: diff_src_iter_desc,
        diff_weights_layer: diff_weights_layer_desc,
        diff_weights_iter: diff_weights_iter_desc,
        diff_bias: diff_bias_desc,
        diff_dst_layer: diff_dst_layer_desc,
        diff_dst_iter: diff_dst_iter_desc,
        ..Args::NONE
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
    let function = "dnnl_vanilla_rnn_backward_primitive_desc_create";
    build(
        function,
        primitive_desc,
        engine,
        attr,
        params,
        args,
        Some(hint_fwd_pd),
    )
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
    let args = Args {
        src_layer: src_layer_desc,
        src_iter: src_iter_desc,
        src_iter_c: src_iter_c_desc,
        weights_layer: weights_layer_desc,
        weights_iter: weights_iter_desc,
        weights_peephole: weights_peephole_desc,
        weights_projection: weights_projection_desc,
        bias: bias_desc,
        dst_layer: dst_layer_desc,
        dst_iter: dst_iter_desc,
        dst_iter_c: dst_iter_c_desc,
        ..Args::NONE
    };
    let params = gated(prop_kind, dnnl_vanilla_lstm, direction, flags);
    let function = "dnnl_lstm_forward_primitive_desc_create";
    build(function, primitive_desc, engine, attr, params, args, None)
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
    let args = Args {
        src_layer: src_layer_desc,
        src_iter: src_iter_desc,
        src_iter_c: src_iter_c_desc,
        weights_layer: weights_layer_desc,
        weights_iter: weights_iter_desc,
        weights_peephole: weights_peephole_desc,
        weights_projection: weights_projection_desc,
        bias: bias_desc,
        dst_layer: dst_layer_desc,
        dst_iter: dst_iter_desc,
        dst_iter_c: dst_iter_c_desc,
        diff_src_layer: diff_src_layer_desc,
        diff_src_iter: diff_src_iter_desc,
        diff_src_iter_c: diff_src_iter_c_desc,
        diff_weights_layer: diff_weights_layer_desc,
        diff_weights_iter: diff_weights_iter_desc,
        diff_weights_peephole: diff_weights_peephole_desc,
        diff_weights_projection: diff_weights_projection_desc,
        diff_bias: diff_bias_desc,
        diff_dst_layer: diff_dst_layer_desc,
        diff_dst_iter: diff_dst_iter_desc,
        diff_dst_iter_c: diff_dst_iter_c_desc,
        ..Args::NONE
    };
    let params = gated(prop_kind, dnnl_vanilla_lstm, direction, flags);
    let function = "dnnl_lstm_backward_primitive_desc_create";
    build(
        function,
        primitive_desc,
        engine,
        attr,
        params,
        args,
        Some(hint_fwd_pd),
    )
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
    let args = Args {
        src_layer: src_layer_desc,
        src_iter: src_iter_desc,
        weights_layer: weights_layer_desc,
        weights_iter: weights_iter_desc,
        bias: bias_desc,
        dst_layer: dst_layer_desc,
        dst_iter: dst_iter_desc,
        ..Args::NONE
    };
    let params = gated(prop_kind, dnnl_vanilla_gru, direction, flags);
    let function = "dnnl_gru_forward_primitive_desc_create";
    build(function, primitive_desc, engine, attr, params, args, None)
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
    let args = Args {
        src_layer: src_layer_desc,
        src_iter: src_iter_desc,
        weights_layer: weights_layer_desc,
        weights_iter: weights_iter_desc,
        bias: bias_desc,
        dst_layer: dst_layer_desc,
        dst_iter: dst_iter_desc,
        diff_src_layer: diff_src_layer_desc,
        diff_src_iter: diff_src_iter_desc,
        diff_weights_layer: diff_weights_layer_desc,
        diff_weights_iter: diff_weights_iter_desc,
        diff_bias: diff_bias_desc,
        diff_dst_layer: diff_dst_layer_desc,
        diff_dst_iter: diff_dst_iter_desc,
        ..Args::NONE
    };
    let params = gated(prop_kind, dnnl_vanilla_gru, direction, flags);
    let function = "dnnl_gru_backward_primitive_desc_create";
    build(
        function,
        primitive_desc,
        engine,
        attr,
        params,
        args,
        Some(hint_fwd_pd),
    )
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
    let args = Args {
        src_layer: src_layer_desc,
        src_iter: src_iter_desc,
        weights_layer: weights_layer_desc,
        weights_iter: weights_iter_desc,
        bias: bias_desc,
        dst_layer: dst_layer_desc,
        dst_iter: dst_iter_desc,
        ..Args::NONE
    };
    let params = gated(prop_kind, dnnl_lbr_gru, direction, flags);
    let function = "dnnl_lbr_gru_forward_primitive_desc_create";
    build(function, primitive_desc, engine, attr, params, args, None)
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
    let args = Args {
        src_layer: src_layer_desc,
        src_iter: src_iter_desc,
        weights_layer: weights_layer_desc,
        weights_iter: weights_iter_desc,
        bias: bias_desc,
        dst_layer: dst_layer_desc,
        dst_iter: dst_iter_desc,
        diff_src_layer: diff_src_layer_desc,
        diff_src_iter: diff_src_iter_desc,
        diff_weights_layer: diff_weights_layer_desc,
        diff_weights_iter: diff_weights_iter_desc,
        diff_bias: diff_bias_desc,
        diff_dst_layer: diff_dst_layer_desc,
        diff_dst_iter: diff_dst_iter_desc,
        ..Args::NONE
    };
    let params = gated(prop_kind, dnnl_lbr_gru, direction, flags);
    let function = "dnnl_lbr_gru_backward_primitive_desc_create";
    build(
        function,
        primitive_desc,
        engine,
        attr,
        params,
        args,
        Some(hint_fwd_pd),
    )
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
    let args = Args {
        src_layer: src_layer_desc,
        src_iter: src_iter_desc,
        attention: attention_desc,
        weights_layer: weights_layer_desc,
        weights_iter: weights_iter_desc,
        bias: bias_desc,
        dst_layer: dst_layer_desc,
        dst_iter: dst_iter_desc,
        ..Args::NONE
    };
    let params = gated(prop_kind, dnnl_vanilla_augru, direction, flags);
    let function = "dnnl_augru_forward_primitive_desc_create";
    build(function, primitive_desc, engine, attr, params, args, None)
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
    let args = Args {
        src_layer: src_layer_desc,
        src_iter: src_iter_desc,
        attention: attention_desc,
        weights_layer: weights_layer_desc,
        weights_iter: weights_iter_desc,
        bias: bias_desc,
        dst_layer: dst_layer_desc,
        dst_iter: dst_iter_desc,
        diff_src_layer: diff_src_layer_desc,
        diff_src_iter: diff_src_iter_desc,
        diff_attention: diff_attention_desc,
        diff_weights_layer: diff_weights_layer_desc,
        diff_weights_iter: diff_weights_iter_desc,
        diff_bias: diff_bias_desc,
        diff_dst_layer: diff_dst_layer_desc,
        diff_dst_iter: diff_dst_iter_desc,
        ..Args::NONE
    };
    let params = gated(prop_kind, dnnl_vanilla_augru, direction, flags);
    let function = "dnnl_augru_backward_primitive_desc_create";
    build(
        function,
        primitive_desc,
        engine,
        attr,
        params,
        args,
        Some(hint_fwd_pd),
    )
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
    let args = Args {
        src_layer: src_layer_desc,
        src_iter: src_iter_desc,
        attention: attention_desc,
        weights_layer: weights_layer_desc,
        weights_iter: weights_iter_desc,
        bias: bias_desc,
        dst_layer: dst_layer_desc,
        dst_iter: dst_iter_desc,
        ..Args::NONE
    };
    let params = gated(prop_kind, dnnl_lbr_augru, direction, flags);
    let function = "dnnl_lbr_augru_forward_primitive_desc_create";
    build(function, primitive_desc, engine, attr, params, args, None)
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
    let args = Args {
        src_layer: src_layer_desc,
        src_iter: src_iter_desc,
        attention: attention_desc,
        weights_layer: weights_layer_desc,
        weights_iter: weights_iter_desc,
        bias: bias_desc,
        dst_layer: dst_layer_desc,
        dst_iter: dst_iter_desc,
        diff_src_layer: diff_src_layer_desc,
        diff_src_iter: diff_src_iter_desc,
        diff_attention: diff_attention_desc,
        diff_weights_layer: diff_weights_layer_desc,
        diff_weights_iter: diff_weights_iter_desc,
        diff_bias: diff_bias_desc,
        diff_dst_layer: diff_dst_layer_desc,
        diff_dst_iter: diff_dst_iter_desc,
        ..Args::NONE
    };
    let params = gated(prop_kind, dnnl_lbr_augru, direction, flags);
    let function = "dnnl_lbr_augru_backward_primitive_desc_create";
    build(
        function,
        primitive_desc,
        engine,
        attr,
        params,
        args,
        Some(hint_fwd_pd),
    )
}
