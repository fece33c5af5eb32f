//! Entry points of `dnnl_graph.h` that are not implemented yet.
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
pub unsafe extern "C" fn dnnl_graph_logical_tensor_init(
    logical_tensor: *mut dnnl_graph_logical_tensor_t,
    tid: usize,
    dtype: dnnl_data_type_t,
    ndims: i32,
    ltype: dnnl_graph_layout_type_t,
    ptype: dnnl_graph_tensor_property_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_logical_tensor_init")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_logical_tensor_init_with_dims(
    logical_tensor: *mut dnnl_graph_logical_tensor_t,
    tid: usize,
    dtype: dnnl_data_type_t,
    ndims: i32,
    dims: *const dnnl_dim_t,
    ltype: dnnl_graph_layout_type_t,
    ptype: dnnl_graph_tensor_property_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_logical_tensor_init_with_dims")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_logical_tensor_init_with_strides(
    logical_tensor: *mut dnnl_graph_logical_tensor_t,
    tid: usize,
    dtype: dnnl_data_type_t,
    ndims: i32,
    dims: *const dnnl_dim_t,
    strides: *const dnnl_dim_t,
    ptype: dnnl_graph_tensor_property_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_logical_tensor_init_with_strides")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_logical_tensor_get_mem_size(
    logical_tensor: *const dnnl_graph_logical_tensor_t,
    size: *mut usize,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_logical_tensor_get_mem_size")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_logical_tensor_is_equal(
    lt1: *const dnnl_graph_logical_tensor_t,
    lt2: *const dnnl_graph_logical_tensor_t,
    is_equal: *mut u8,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_logical_tensor_is_equal")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_op_create(
    op: *mut dnnl_graph_op_t,
    id: usize,
    kind: dnnl_graph_op_kind_t,
    verbose_name: *const c_char,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_op_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_op_add_input(
    op: dnnl_graph_op_t,
    input: *const dnnl_graph_logical_tensor_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_op_add_input")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_op_add_output(
    op: dnnl_graph_op_t,
    output: *const dnnl_graph_logical_tensor_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_op_add_output")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_op_set_attr_f32(
    op: dnnl_graph_op_t,
    name: dnnl_graph_op_attr_t,
    value: *const f32,
    value_len: usize,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_op_set_attr_f32")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_op_set_attr_bool(
    op: dnnl_graph_op_t,
    name: dnnl_graph_op_attr_t,
    value: *const u8,
    value_len: usize,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_op_set_attr_bool")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_op_set_attr_s64(
    op: dnnl_graph_op_t,
    name: dnnl_graph_op_attr_t,
    value: *const i64,
    value_len: usize,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_op_set_attr_s64")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_op_set_attr_str(
    op: dnnl_graph_op_t,
    name: dnnl_graph_op_attr_t,
    value: *const c_char,
    value_len: usize,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_op_set_attr_str")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_op_get_id(
    op: const_dnnl_graph_op_t,
    id: *mut usize,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_op_get_id")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_op_get_kind(
    op: const_dnnl_graph_op_t,
    kind: *mut dnnl_graph_op_kind_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_op_get_kind")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_partition_create_with_op(
    partition: *mut dnnl_graph_partition_t,
    op: const_dnnl_graph_op_t,
    ekind: dnnl_engine_kind_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_partition_create_with_op")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_partition_get_op_num(
    partition: const_dnnl_graph_partition_t,
    num: *mut usize,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_partition_get_op_num")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_partition_get_ops(
    partition: dnnl_graph_partition_t,
    num: usize,
    ids: *mut usize,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_partition_get_ops")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_partition_get_id(
    partition: const_dnnl_graph_partition_t,
    id: *mut usize,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_partition_get_id")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_partition_compile(
    partition: dnnl_graph_partition_t,
    compiled_partition: dnnl_graph_compiled_partition_t,
    in_num: usize,
    inputs: *mut *const dnnl_graph_logical_tensor_t,
    out_num: usize,
    outputs: *mut *const dnnl_graph_logical_tensor_t,
    engine: dnnl_engine_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_partition_compile")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_partition_get_input_ports_num(
    partition: const_dnnl_graph_partition_t,
    num: *mut usize,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_partition_get_input_ports_num")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_partition_get_input_ports(
    partition: const_dnnl_graph_partition_t,
    num: usize,
    inputs: *mut dnnl_graph_logical_tensor_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_partition_get_input_ports")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_partition_get_output_ports_num(
    partition: const_dnnl_graph_partition_t,
    num: *mut usize,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_partition_get_output_ports_num")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_partition_get_output_ports(
    partition: const_dnnl_graph_partition_t,
    num: usize,
    outputs: *mut dnnl_graph_logical_tensor_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_partition_get_output_ports")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_partition_is_supported(
    partition: const_dnnl_graph_partition_t,
    is_supported: *mut u8,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_partition_is_supported")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_partition_get_engine_kind(
    partition: const_dnnl_graph_partition_t,
    kind: *mut dnnl_engine_kind_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_partition_get_engine_kind")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_compiled_partition_create(
    compiled_partition: *mut dnnl_graph_compiled_partition_t,
    partition: dnnl_graph_partition_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_compiled_partition_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_compiled_partition_execute(
    compiled_partition: const_dnnl_graph_compiled_partition_t,
    stream: dnnl_stream_t,
    num_inputs: usize,
    inputs: *mut const_dnnl_graph_tensor_t,
    num_outputs: usize,
    outputs: *mut const_dnnl_graph_tensor_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_compiled_partition_execute")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_compiled_partition_execute_v2(
    compiled_partition: const_dnnl_graph_compiled_partition_t,
    stream: dnnl_stream_t,
    num_inputs: usize,
    inputs: *mut const_dnnl_graph_tensor_t,
    num_outputs: usize,
    outputs: *mut const_dnnl_graph_tensor_t,
    scratchpad: const_dnnl_graph_tensor_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_compiled_partition_execute_v2")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_compiled_partition_query_logical_tensor(
    compiled_partition: const_dnnl_graph_compiled_partition_t,
    tid: usize,
    lt: *mut dnnl_graph_logical_tensor_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_compiled_partition_query_logical_tensor")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_compiled_partition_get_inplace_ports(
    compiled_partition: const_dnnl_graph_compiled_partition_t,
    num_inplace_pairs: *mut usize,
    inplace_pairs: *mut *const dnnl_graph_inplace_pair_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_compiled_partition_get_inplace_ports")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_compiled_partition_get_scratchpad_logical_tensor(
    compiled_partition: const_dnnl_graph_compiled_partition_t,
    lt: *mut dnnl_graph_logical_tensor_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_compiled_partition_get_scratchpad_logical_tensor")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_graph_create(
    graph: *mut dnnl_graph_graph_t,
    engine_kind: dnnl_engine_kind_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_graph_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_graph_create_with_fpmath_mode(
    graph: *mut dnnl_graph_graph_t,
    engine_kind: dnnl_engine_kind_t,
    mode: dnnl_fpmath_mode_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_graph_create_with_fpmath_mode")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_graph_set_fpmath_mode(
    graph: dnnl_graph_graph_t,
    mode: dnnl_fpmath_mode_t,
    apply_to_int: c_int,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_graph_set_fpmath_mode")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_graph_get_fpmath_mode(
    graph: dnnl_graph_graph_t,
    mode: *mut dnnl_fpmath_mode_t,
    apply_to_int: *mut c_int,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_graph_get_fpmath_mode")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_add_op(
    graph: dnnl_graph_graph_t,
    op: dnnl_graph_op_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_add_op")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_graph_finalize(graph: dnnl_graph_graph_t) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_graph_finalize")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_graph_is_finalized(
    graph: dnnl_graph_graph_t,
    finalized: *mut u8,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_graph_is_finalized")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_graph_filter(
    graph: dnnl_graph_graph_t,
    policy: dnnl_graph_partition_policy_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_graph_filter")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_graph_get_partition_num(
    graph: const_dnnl_graph_graph_t,
    num: *mut usize,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_graph_get_partition_num")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_graph_get_partitions(
    graph: dnnl_graph_graph_t,
    num: usize,
    partitions: *mut dnnl_graph_partition_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_graph_get_partitions")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_get_compiled_partition_cache_capacity(
    capacity: *mut c_int,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_get_compiled_partition_cache_capacity")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_set_compiled_partition_cache_capacity(
    capacity: c_int,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_set_compiled_partition_cache_capacity")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_set_constant_tensor_cache(flag: c_int) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_set_constant_tensor_cache")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_get_constant_tensor_cache(flag: *mut c_int) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_get_constant_tensor_cache")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_set_constant_tensor_cache_capacity(
    eng_kind: dnnl_engine_kind_t,
    size: usize,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_set_constant_tensor_cache_capacity")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_get_constant_tensor_cache_capacity(
    eng_kind: dnnl_engine_kind_t,
    size: *mut usize,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_get_constant_tensor_cache_capacity")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_set_dump_mode(modes: dnnl_graph_dump_mode_t) -> dnnl_status_t {
    boundary::unimplemented("dnnl_graph_set_dump_mode")
}
