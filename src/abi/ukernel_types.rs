//! `dnnl_ukernel_types.h`: handles of the experimental ukernel API.

include!(concat!(env!("OUT_DIR"), "/c_enums/ukernel_types.rs"));

/// Parameters of a ukernel attribute set.
#[cfg(feature = "experimental_ukernel")]
pub struct dnnl_ukernel_attr_params {
    _private: [u8; 0],
}

/// A handle to ukernel attribute parameters.
#[cfg(feature = "experimental_ukernel")]
pub type dnnl_ukernel_attr_params_t = *mut dnnl_ukernel_attr_params;

/// A ukernel attribute parameters handle that the callee does not change.
#[cfg(feature = "experimental_ukernel")]
pub type const_dnnl_ukernel_attr_params_t = *const dnnl_ukernel_attr_params;

/// A batch-reduce GEMM ukernel.
#[cfg(feature = "experimental_ukernel")]
pub struct dnnl_brgemm {
    _private: [u8; 0],
}

/// A handle to a BRGeMM ukernel.
#[cfg(feature = "experimental_ukernel")]
pub type dnnl_brgemm_t = *mut dnnl_brgemm;

/// A BRGeMM ukernel handle that the callee does not change.
#[cfg(feature = "experimental_ukernel")]
pub type const_dnnl_brgemm_t = *const dnnl_brgemm;

/// A transform (packing) ukernel.
#[cfg(feature = "experimental_ukernel")]
pub struct dnnl_transform {
    _private: [u8; 0],
}

/// A handle to a transform ukernel.
#[cfg(feature = "experimental_ukernel")]
pub type dnnl_transform_t = *mut dnnl_transform;

/// A transform ukernel handle that the callee does not change.
#[cfg(feature = "experimental_ukernel")]
pub type const_dnnl_transform_t = *const dnnl_transform;
