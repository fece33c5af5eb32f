//! Entry points of `dnnl.h` that are not implemented yet.
//!
//! Each returns `dnnl_unimplemented` (or a neutral value where the function
//! returns no status), writes nothing through its pointers, and says so under
//! ONEDNN_VERBOSE. Implementing a function means moving it out of this file.

#![allow(unused_variables)]

#[allow(unused_imports)]
use ::core::ffi::{c_char, c_int, c_uint, c_void};

#[allow(unused_imports)]
use crate::abi::*;
use crate::capi::boundary;

/// Not implemented yet: returns `dnnl_unimplemented`.
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
    boundary::unimplemented("dnnl_vanilla_rnn_forward_primitive_desc_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
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
    boundary::unimplemented("dnnl_vanilla_rnn_backward_primitive_desc_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
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
    boundary::unimplemented("dnnl_lstm_forward_primitive_desc_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
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
    boundary::unimplemented("dnnl_lstm_backward_primitive_desc_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
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
    boundary::unimplemented("dnnl_gru_forward_primitive_desc_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
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
    boundary::unimplemented("dnnl_gru_backward_primitive_desc_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
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
    boundary::unimplemented("dnnl_lbr_gru_forward_primitive_desc_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
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
    boundary::unimplemented("dnnl_lbr_gru_backward_primitive_desc_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
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
    boundary::unimplemented("dnnl_augru_forward_primitive_desc_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
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
    boundary::unimplemented("dnnl_augru_backward_primitive_desc_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
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
    boundary::unimplemented("dnnl_lbr_augru_forward_primitive_desc_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
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
    boundary::unimplemented("dnnl_lbr_augru_backward_primitive_desc_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_set_jit_dump(enable: c_int) -> dnnl_status_t {
    boundary::unimplemented("dnnl_set_jit_dump")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_set_jit_profiling_flags(flags: c_uint) -> dnnl_status_t {
    boundary::unimplemented("dnnl_set_jit_profiling_flags")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_set_jit_profiling_jitdumpdir(dir: *const c_char) -> dnnl_status_t {
    boundary::unimplemented("dnnl_set_jit_profiling_jitdumpdir")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_set_max_cpu_isa(isa: dnnl_cpu_isa_t) -> dnnl_status_t {
    boundary::unimplemented("dnnl_set_max_cpu_isa")
}

/// Not implemented yet: returns 0 (the neutral value of its type).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_get_effective_cpu_isa() -> dnnl_cpu_isa_t {
    boundary::unimplemented_value("dnnl_get_effective_cpu_isa")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_set_cpu_isa_hints(isa_hints: dnnl_cpu_isa_hints_t) -> dnnl_status_t {
    boundary::unimplemented("dnnl_set_cpu_isa_hints")
}

/// Not implemented yet: returns 0 (the neutral value of its type).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_get_cpu_isa_hints() -> dnnl_cpu_isa_hints_t {
    boundary::unimplemented_value("dnnl_get_cpu_isa_hints")
}
