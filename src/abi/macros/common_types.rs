//! Integer constants that `dnnl_common_types.h` defines as macros; cbindgen prints
//! each as a `#define`. Written by tools/gen_abi.py from the v3.13 values.

#[allow(unused_imports)]
use ::core::ffi::c_int;

pub const DNNL_MAX_NDIMS: c_int = 12;
