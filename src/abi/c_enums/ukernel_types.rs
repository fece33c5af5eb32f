//! The C enums of `dnnl_ukernel_types.h`, as cbindgen prints them.
//!
//! This file is not compiled as a module: build.rs reads it twice, once to
//! give cbindgen `typedef enum {...}` declarations, once to generate the
//! `#[repr(transparent)]` newtypes and constants the Rust code uses (a C
//! caller may pass any integer, which a Rust enum cannot hold soundly).
//! Written by tools/gen_abi.py from the oneDNN v3.13 values.

/// Packing types of ukernel operands (experimental).
#[cfg(feature = "experimental_ukernel")]
#[repr(C)]
pub enum dnnl_pack_type_t {
    dnnl_pack_type_undef = 0,
    dnnl_pack_type_no_trans = 1,
    dnnl_pack_type_trans = 2,
    dnnl_pack_type_pack32 = 3,
}
