//! `dnnl_graph_types.h`: handles, structs and callbacks of the graph API.

use ::core::ffi::{c_int, c_void};

use super::common_types::*;

include!(concat!(env!("OUT_DIR"), "/c_enums/graph_types.rs"));
pub use super::macros::graph_types::*;

/// Strides or an opaque layout id, depending on a logical tensor's layout type.
#[repr(C)]
#[derive(Clone, Copy)]
pub union dnnl_graph_logical_tensor_layout_t {
    /// Strides, when the layout type is strided.
    pub strides: dnnl_dims_t,
    /// The layout id, when the layout type is opaque.
    pub layout_id: usize,
}

/// A logical tensor: id, shape, data type, property and layout of a graph edge.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct dnnl_graph_logical_tensor_t {
    /// Unique id within a graph.
    pub id: usize,
    /// Number of dimensions; DNNL_GRAPH_UNKNOWN_NDIMS when not known yet.
    pub ndims: c_int,
    /// Sizes; DNNL_GRAPH_UNKNOWN_DIM for each one not known yet.
    pub dims: dnnl_dims_t,
    /// Element data type.
    pub data_type: dnnl_data_type_t,
    /// Whether the tensor changes between executions.
    pub property: dnnl_graph_tensor_property_t,
    /// How `layout` is to be read.
    pub layout_type: dnnl_graph_layout_type_t,
    /// Strides or layout id.
    pub layout: dnnl_graph_logical_tensor_layout_t,
}

/// A graph partition: a group of ops compiled and executed together.
pub struct dnnl_graph_partition {
    _private: [u8; 0],
}

/// A handle to a partition; release with dnnl_graph_partition_destroy().
pub type dnnl_graph_partition_t = *mut dnnl_graph_partition;

/// A partition handle that the callee does not change.
pub type const_dnnl_graph_partition_t = *const dnnl_graph_partition;

/// A graph of ops connected by logical tensors.
pub struct dnnl_graph_graph {
    _private: [u8; 0],
}

/// A handle to a graph; release with dnnl_graph_graph_destroy().
pub type dnnl_graph_graph_t = *mut dnnl_graph_graph;

/// A graph handle that the callee does not change.
pub type const_dnnl_graph_graph_t = *const dnnl_graph_graph;

/// An op of a graph.
pub struct dnnl_graph_op {
    _private: [u8; 0],
}

/// A handle to an op; release with dnnl_graph_op_destroy().
pub type dnnl_graph_op_t = *mut dnnl_graph_op;

/// An op handle that the callee does not change.
pub type const_dnnl_graph_op_t = *const dnnl_graph_op;

/// Host allocation callback: returns `size` bytes aligned to `alignment`, or NULL.
pub type dnnl_graph_host_allocate_f =
    Option<unsafe extern "C" fn(size: usize, alignment: usize) -> *mut c_void>;

/// Host deallocation callback for memory from the matching allocate callback.
pub type dnnl_graph_host_deallocate_f = Option<unsafe extern "C" fn(buf: *mut c_void)>;

/// An allocator: the callbacks through which the graph API gets temporary memory.
pub struct dnnl_graph_allocator {
    _private: [u8; 0],
}

/// A handle to an allocator; release with dnnl_graph_allocator_destroy().
pub type dnnl_graph_allocator_t = *mut dnnl_graph_allocator;

/// An allocator handle that the callee does not change.
pub type const_dnnl_graph_allocator_t = *const dnnl_graph_allocator;

/// A pair of tensor ids that may share memory when a compiled partition runs.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct dnnl_graph_inplace_pair_t {
    /// The input tensor's id.
    pub input_id: usize,
    /// The output tensor's id.
    pub output_id: usize,
}

/// A compiled partition: a partition compiled for an engine and shapes.
pub struct dnnl_graph_compiled_partition {
    _private: [u8; 0],
}

/// A handle to a compiled partition; release with dnnl_graph_compiled_partition_destroy().
pub type dnnl_graph_compiled_partition_t = *mut dnnl_graph_compiled_partition;

/// A compiled partition handle that the callee does not change.
pub type const_dnnl_graph_compiled_partition_t = *const dnnl_graph_compiled_partition;

/// A tensor: a logical tensor bound to an engine and data.
pub struct dnnl_graph_tensor {
    _private: [u8; 0],
}

/// A handle to a tensor; release with dnnl_graph_tensor_destroy().
pub type dnnl_graph_tensor_t = *mut dnnl_graph_tensor;

/// A tensor handle that the callee does not change.
pub type const_dnnl_graph_tensor_t = *const dnnl_graph_tensor;
