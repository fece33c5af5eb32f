//! Entry points of `dnnl_ukernel.h` that are not implemented yet.
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
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ukernel_attr_params_create(
    attr_params: *mut dnnl_ukernel_attr_params_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ukernel_attr_params_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ukernel_attr_params_set_post_ops_args(
    attr_params: dnnl_ukernel_attr_params_t,
    post_ops_args: *mut *const c_void,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ukernel_attr_params_set_post_ops_args")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ukernel_attr_params_set_A_scales(
    attr_params: dnnl_ukernel_attr_params_t,
    a_scales: *const c_void,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ukernel_attr_params_set_A_scales")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ukernel_attr_params_set_B_scales(
    attr_params: dnnl_ukernel_attr_params_t,
    b_scales: *const c_void,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ukernel_attr_params_set_B_scales")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ukernel_attr_params_set_D_scales(
    attr_params: dnnl_ukernel_attr_params_t,
    d_scales: *const c_void,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_ukernel_attr_params_set_D_scales")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_create(
    brgemm: *mut dnnl_brgemm_t,
    M: dnnl_dim_t,
    N: dnnl_dim_t,
    K: dnnl_dim_t,
    batch_size: dnnl_dim_t,
    lda: dnnl_dim_t,
    ldb: dnnl_dim_t,
    ldc: dnnl_dim_t,
    a_dt: dnnl_data_type_t,
    b_dt: dnnl_data_type_t,
    c_dt: dnnl_data_type_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_brgemm_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_set_add_C(
    brgemm: dnnl_brgemm_t,
    add_C: c_int,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_brgemm_set_add_C")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_set_post_ops(
    brgemm: dnnl_brgemm_t,
    ldd: dnnl_dim_t,
    d_dt: dnnl_data_type_t,
    post_ops: const_dnnl_post_ops_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_brgemm_set_post_ops")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_set_A_scales(
    brgemm: dnnl_brgemm_t,
    a_scale_mask: c_int,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_brgemm_set_A_scales")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_set_B_scales(
    brgemm: dnnl_brgemm_t,
    b_scale_mask: c_int,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_brgemm_set_B_scales")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_set_D_scales(
    brgemm: dnnl_brgemm_t,
    d_scale_mask: c_int,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_brgemm_set_D_scales")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_finalize(brgemm: dnnl_brgemm_t) -> dnnl_status_t {
    boundary::unimplemented("dnnl_brgemm_finalize")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_get_B_pack_type(
    pack_type: *mut dnnl_pack_type_t,
    a_dt: dnnl_data_type_t,
    b_dt: dnnl_data_type_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_brgemm_get_B_pack_type")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_get_scratchpad_size(
    brgemm: const_dnnl_brgemm_t,
    size: *mut usize,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_brgemm_get_scratchpad_size")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_is_execute_postops_valid(
    brgemm: const_dnnl_brgemm_t,
    valid: *mut c_int,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_brgemm_is_execute_postops_valid")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_set_hw_context(brgemm: const_dnnl_brgemm_t) -> dnnl_status_t {
    boundary::unimplemented("dnnl_brgemm_set_hw_context")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_release_hw_context() -> dnnl_status_t {
    boundary::unimplemented("dnnl_brgemm_release_hw_context")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_generate(brgemm: dnnl_brgemm_t) -> dnnl_status_t {
    boundary::unimplemented("dnnl_brgemm_generate")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_execute(
    brgemm: const_dnnl_brgemm_t,
    A_ptr: *const c_void,
    B_ptr: *const c_void,
    A_B_offsets: *const dnnl_dim_t,
    C_ptr: *mut c_void,
    scratchpad_ptr: *mut c_void,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_brgemm_execute")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_brgemm_execute_postops(
    brgemm: const_dnnl_brgemm_t,
    A: *const c_void,
    B: *const c_void,
    A_B_offsets: *const dnnl_dim_t,
    C_ptr: *const c_void,
    D_ptr: *mut c_void,
    scratchpad_ptr: *mut c_void,
    attr_params: const_dnnl_ukernel_attr_params_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_brgemm_execute_postops")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_transform_create(
    transform: *mut dnnl_transform_t,
    K: dnnl_dim_t,
    N: dnnl_dim_t,
    in_pack_type: dnnl_pack_type_t,
    in_ld: dnnl_dim_t,
    out_ld: dnnl_dim_t,
    in_dt: dnnl_data_type_t,
    out_dt: dnnl_data_type_t,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_transform_create")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_transform_generate(transform: dnnl_transform_t) -> dnnl_status_t {
    boundary::unimplemented("dnnl_transform_generate")
}

/// Not implemented yet: returns `dnnl_unimplemented`.
#[cfg(feature = "experimental_ukernel")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_transform_execute(
    transform: const_dnnl_transform_t,
    in_ptr: *const c_void,
    out_ptr: *mut c_void,
) -> dnnl_status_t {
    boundary::unimplemented("dnnl_transform_execute")
}
