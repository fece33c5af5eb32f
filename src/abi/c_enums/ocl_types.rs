//! The C enums of `dnnl_ocl_types.h`, as cbindgen prints them.
//!
//! This file is not compiled as a module: build.rs reads it twice, once to
//! give cbindgen `typedef enum {...}` declarations, once to generate the
//! `#[repr(transparent)]` newtypes and constants the Rust code uses (a C
//! caller may pass any integer, which a Rust enum cannot hold soundly).
//! Written by tools/gen_abi.py from the oneDNN v3.13 values.

/// Kinds of OpenCL memory: USM or buffer.
#[repr(C)]
pub enum dnnl_ocl_interop_memory_kind_t {
    dnnl_ocl_interop_usm = 0,
    dnnl_ocl_interop_buffer = 1,
}
