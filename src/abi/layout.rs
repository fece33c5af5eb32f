//! Compile-time pins of the struct layouts the C ABI fixes (x86-64 and other
//! LP64 targets). The ABI conformance test checks the same numbers against the
//! official headers from C.

use ::core::mem::{align_of, offset_of, size_of};

use static_assertions::const_assert_eq;

use super::*;

const_assert_eq!(
    DNNL_MAX_NDIMS as usize,
    ::core::mem::size_of::<dnnl_dims_t>() / 8
);

const_assert_eq!(size_of::<dnnl_version_t>(), 32);
const_assert_eq!(align_of::<dnnl_version_t>(), 8);
const_assert_eq!(offset_of!(dnnl_version_t, patch), 8);
const_assert_eq!(offset_of!(dnnl_version_t, hash), 16);
const_assert_eq!(offset_of!(dnnl_version_t, cpu_runtime), 24);
const_assert_eq!(offset_of!(dnnl_version_t, gpu_runtime), 28);

const_assert_eq!(size_of::<dnnl_exec_arg_t>(), 16);
const_assert_eq!(offset_of!(dnnl_exec_arg_t, memory), 8);

const_assert_eq!(size_of::<dnnl_graph_logical_tensor_t>(), 224);
const_assert_eq!(offset_of!(dnnl_graph_logical_tensor_t, ndims), 8);
const_assert_eq!(offset_of!(dnnl_graph_logical_tensor_t, dims), 16);
const_assert_eq!(offset_of!(dnnl_graph_logical_tensor_t, data_type), 112);
const_assert_eq!(offset_of!(dnnl_graph_logical_tensor_t, property), 116);
const_assert_eq!(offset_of!(dnnl_graph_logical_tensor_t, layout_type), 120);
const_assert_eq!(offset_of!(dnnl_graph_logical_tensor_t, layout), 128);
const_assert_eq!(size_of::<dnnl_graph_logical_tensor_layout_t>(), 96);

const_assert_eq!(size_of::<dnnl_graph_inplace_pair_t>(), 16);
const_assert_eq!(offset_of!(dnnl_graph_inplace_pair_t, output_id), 8);

// C enums are `int`-sized; the newtypes must be too.
const_assert_eq!(size_of::<dnnl_status_t>(), 4);
const_assert_eq!(size_of::<dnnl_format_tag_t>(), 4);
const_assert_eq!(size_of::<dnnl_graph_op_kind_t>(), 4);
