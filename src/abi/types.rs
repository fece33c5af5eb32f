//! `dnnl_types.h`: handles and structs of the primitive API.

use ::core::ffi::c_int;

include!(concat!(env!("OUT_DIR"), "/c_enums/types.rs"));
pub use super::macros::types::*;

/// A memory descriptor: shape, data type and layout of a tensor.
pub struct dnnl_memory_desc {
    _private: [u8; 0],
}

/// A handle to a memory descriptor; release with dnnl_memory_desc_destroy().
pub type dnnl_memory_desc_t = *mut dnnl_memory_desc;

/// A memory descriptor handle that the callee does not change.
pub type const_dnnl_memory_desc_t = *const dnnl_memory_desc;

/// A memory object: a memory descriptor, an engine and the data.
pub struct dnnl_memory {
    _private: [u8; 0],
}

/// A handle to a memory object; release with dnnl_memory_destroy().
pub type dnnl_memory_t = *mut dnnl_memory;

/// A memory handle that the callee does not change.
pub type const_dnnl_memory_t = *const dnnl_memory;

/// A primitive descriptor: an operation resolved to one implementation.
pub struct dnnl_primitive_desc {
    _private: [u8; 0],
}

/// A handle to a primitive descriptor; release with dnnl_primitive_desc_destroy().
pub type dnnl_primitive_desc_t = *mut dnnl_primitive_desc;

/// A primitive descriptor handle that the callee does not change.
pub type const_dnnl_primitive_desc_t = *const dnnl_primitive_desc;

/// Primitive attributes: scales, zero points, post-ops, modes.
pub struct dnnl_primitive_attr {
    _private: [u8; 0],
}

/// A handle to primitive attributes; release with dnnl_primitive_attr_destroy().
pub type dnnl_primitive_attr_t = *mut dnnl_primitive_attr;

/// A primitive attributes handle that the callee does not change.
pub type const_dnnl_primitive_attr_t = *const dnnl_primitive_attr;

/// A chain of operations applied after a primitive's main computation.
pub struct dnnl_post_ops {
    _private: [u8; 0],
}

/// A handle to post-ops; release with dnnl_post_ops_destroy().
pub type dnnl_post_ops_t = *mut dnnl_post_ops;

/// A post-ops handle that the callee does not change.
pub type const_dnnl_post_ops_t = *const dnnl_post_ops;

/// A primitive: a compiled operation ready to execute.
pub struct dnnl_primitive {
    _private: [u8; 0],
}

/// A handle to a primitive; release with dnnl_primitive_destroy().
pub type dnnl_primitive_t = *mut dnnl_primitive;

/// A primitive handle that the callee does not change.
pub type const_dnnl_primitive_t = *const dnnl_primitive;

/// One argument of a primitive execution: which one (DNNL_ARG_*) and its memory.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct dnnl_exec_arg_t {
    /// The argument index, e.g. DNNL_ARG_SRC.
    pub arg: c_int,
    /// The memory bound to it.
    pub memory: dnnl_memory_t,
}
