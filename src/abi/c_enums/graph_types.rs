//! The C enums of `dnnl_graph_types.h`, as cbindgen prints them.
//!
//! This file is not compiled as a module: build.rs reads it twice, once to
//! give cbindgen `typedef enum {...}` declarations, once to generate the
//! `#[repr(transparent)]` newtypes and constants the Rust code uses (a C
//! caller may pass any integer, which a Rust enum cannot hold soundly).
//! Written by tools/gen_abi.py from the oneDNN v3.13 values.

/// Layout types of graph logical tensors.
#[repr(C)]
pub enum dnnl_graph_layout_type_t {
    dnnl_graph_layout_type_undef = 0,
    dnnl_graph_layout_type_any = 1,
    dnnl_graph_layout_type_strided = 2,
    dnnl_graph_layout_type_opaque = 3,
}

/// Properties of graph logical tensors.
#[repr(C)]
pub enum dnnl_graph_tensor_property_t {
    dnnl_graph_tensor_property_undef = 0,
    dnnl_graph_tensor_property_variable = 1,
    dnnl_graph_tensor_property_constant = 2,
    dnnl_graph_tensor_property_host_scalar = 3,
}

/// Partitioning policies of graphs.
#[repr(C)]
pub enum dnnl_graph_partition_policy_t {
    dnnl_graph_partition_policy_fusion = 1,
    dnnl_graph_partition_policy_debug = 2,
}

/// Graph dump modes (a bit set).
#[repr(C)]
pub enum dnnl_graph_dump_mode_t {
    dnnl_graph_dump_mode_none = 0,
    dnnl_graph_dump_mode_subgraph = 1,
    dnnl_graph_dump_mode_graph = 2,
}

/// Kinds of graph operations.
#[repr(C)]
pub enum dnnl_graph_op_kind_t {
    dnnl_graph_op_abs = 0,
    dnnl_graph_op_abs_backward = 1,
    dnnl_graph_op_add = 2,
    dnnl_graph_op_avg_pool = 3,
    dnnl_graph_op_avg_pool_backward = 4,
    dnnl_graph_op_batch_norm_backward = 5,
    dnnl_graph_op_batch_norm_forward_training = 6,
    dnnl_graph_op_batch_norm_inference = 7,
    dnnl_graph_op_bias_add = 8,
    dnnl_graph_op_bias_add_backward = 9,
    dnnl_graph_op_clamp = 10,
    dnnl_graph_op_clamp_backward = 11,
    dnnl_graph_op_concat = 12,
    dnnl_graph_op_convolution = 13,
    dnnl_graph_op_convolution_backward_data = 14,
    dnnl_graph_op_convolution_backward_weights = 15,
    dnnl_graph_op_conv_transpose = 16,
    dnnl_graph_op_conv_transpose_backward_data = 17,
    dnnl_graph_op_conv_transpose_backward_weights = 18,
    dnnl_graph_op_dequantize = 19,
    dnnl_graph_op_divide = 20,
    dnnl_graph_op_dynamic_dequantize = 21,
    dnnl_graph_op_dynamic_quantize = 22,
    dnnl_graph_op_elu = 23,
    dnnl_graph_op_elu_backward = 24,
    dnnl_graph_op_end = 25,
    dnnl_graph_op_exp = 26,
    dnnl_graph_op_gelu = 27,
    dnnl_graph_op_gelu_backward = 28,
    dnnl_graph_op_hard_swish = 29,
    dnnl_graph_op_hard_swish_backward = 30,
    dnnl_graph_op_interpolate = 31,
    dnnl_graph_op_interpolate_backward = 32,
    dnnl_graph_op_layer_norm = 33,
    dnnl_graph_op_layer_norm_backward = 34,
    dnnl_graph_op_leaky_relu = 35,
    dnnl_graph_op_log = 36,
    dnnl_graph_op_log_softmax = 37,
    dnnl_graph_op_log_softmax_backward = 38,
    dnnl_graph_op_matmul = 39,
    dnnl_graph_op_maximum = 40,
    dnnl_graph_op_max_pool = 41,
    dnnl_graph_op_max_pool_backward = 42,
    dnnl_graph_op_minimum = 43,
    dnnl_graph_op_mish = 44,
    dnnl_graph_op_mish_backward = 45,
    dnnl_graph_op_multiply = 46,
    dnnl_graph_op_prelu = 47,
    dnnl_graph_op_prelu_backward = 48,
    dnnl_graph_op_quantize = 49,
    dnnl_graph_op_reciprocal = 50,
    dnnl_graph_op_reduce_l1 = 51,
    dnnl_graph_op_reduce_l2 = 52,
    dnnl_graph_op_reduce_max = 53,
    dnnl_graph_op_reduce_mean = 54,
    dnnl_graph_op_reduce_min = 55,
    dnnl_graph_op_reduce_prod = 56,
    dnnl_graph_op_reduce_sum = 57,
    dnnl_graph_op_relu = 58,
    dnnl_graph_op_relu_backward = 59,
    dnnl_graph_op_reorder = 60,
    dnnl_graph_op_round = 61,
    dnnl_graph_op_sigmoid = 62,
    dnnl_graph_op_sigmoid_backward = 63,
    dnnl_graph_op_softmax = 64,
    dnnl_graph_op_softmax_backward = 65,
    dnnl_graph_op_softplus = 66,
    dnnl_graph_op_softplus_backward = 67,
    dnnl_graph_op_sqrt = 68,
    dnnl_graph_op_sqrt_backward = 69,
    dnnl_graph_op_square = 70,
    dnnl_graph_op_squared_difference = 71,
    dnnl_graph_op_static_reshape = 72,
    dnnl_graph_op_static_transpose = 73,
    dnnl_graph_op_subtract = 74,
    dnnl_graph_op_tanh = 75,
    dnnl_graph_op_tanh_backward = 76,
    dnnl_graph_op_type_cast = 77,
    dnnl_graph_op_wildcard = 78,
    dnnl_graph_op_hard_sigmoid = 79,
    dnnl_graph_op_hard_sigmoid_backward = 80,
    dnnl_graph_op_select = 81,
    dnnl_graph_op_pow = 82,
    dnnl_graph_op_group_norm = 83,
    dnnl_graph_op_gen_index = 84,
    dnnl_graph_op_greater_equal = 85,
    dnnl_graph_op_rms_norm = 86,
    dnnl_graph_op_dropout = 87,
    dnnl_graph_op_last_symbol = 88,
}

/// Attributes of graph operations.
#[repr(C)]
pub enum dnnl_graph_op_attr_t {
    dnnl_graph_op_attr_undef = 0,
    dnnl_graph_op_attr_alpha = 1,
    dnnl_graph_op_attr_beta = 2,
    dnnl_graph_op_attr_epsilon = 3,
    dnnl_graph_op_attr_max = 4,
    dnnl_graph_op_attr_min = 5,
    dnnl_graph_op_attr_momentum = 6,
    dnnl_graph_op_attr_scales = 32,
    dnnl_graph_op_attr_axis = 48,
    dnnl_graph_op_attr_begin_norm_axis = 49,
    dnnl_graph_op_attr_groups = 50,
    dnnl_graph_op_attr_axes = 64,
    dnnl_graph_op_attr_dilations = 65,
    dnnl_graph_op_attr_dst_shape = 66,
    dnnl_graph_op_attr_kernel = 67,
    dnnl_graph_op_attr_order = 68,
    dnnl_graph_op_attr_output_padding = 69,
    dnnl_graph_op_attr_pads_begin = 70,
    dnnl_graph_op_attr_pads_end = 71,
    dnnl_graph_op_attr_shape = 72,
    dnnl_graph_op_attr_sizes = 73,
    dnnl_graph_op_attr_src_shape = 74,
    dnnl_graph_op_attr_strides = 75,
    dnnl_graph_op_attr_weights_shape = 76,
    dnnl_graph_op_attr_zps = 77,
    dnnl_graph_op_attr_group_shape = 78,
    dnnl_graph_op_attr_exclude_pad = 96,
    dnnl_graph_op_attr_keep_dims = 97,
    dnnl_graph_op_attr_keep_stats = 98,
    dnnl_graph_op_attr_per_channel_broadcast = 99,
    dnnl_graph_op_attr_special_zero = 100,
    dnnl_graph_op_attr_transpose_a = 101,
    dnnl_graph_op_attr_transpose_b = 102,
    dnnl_graph_op_attr_use_affine = 103,
    dnnl_graph_op_attr_use_dst = 104,
    dnnl_graph_op_attr_auto_broadcast = 128,
    dnnl_graph_op_attr_auto_pad = 129,
    dnnl_graph_op_attr_coordinate_transformation_mode = 130,
    dnnl_graph_op_attr_data_format = 131,
    dnnl_graph_op_attr_mode = 132,
    dnnl_graph_op_attr_qtype = 133,
    dnnl_graph_op_attr_rounding_type = 134,
    dnnl_graph_op_attr_weights_format = 135,
    dnnl_graph_op_attr_accumulation_mode = 136,
    dnnl_graph_op_attr_end = 255,
}
