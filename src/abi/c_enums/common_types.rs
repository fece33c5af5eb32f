//! The C enums of `dnnl_common_types.h`, as cbindgen prints them.
//!
//! This file is not compiled as a module: build.rs reads it twice, once to
//! give cbindgen `typedef enum {...}` declarations, once to generate the
//! `#[repr(transparent)]` newtypes and constants the Rust code uses (a C
//! caller may pass any integer, which a Rust enum cannot hold soundly).
//! Written by tools/gen_abi.py from the oneDNN v3.13 values.

/// Status codes returned by the library's functions.
#[repr(C)]
pub enum dnnl_status_t {
    dnnl_success = 0,
    dnnl_out_of_memory = 1,
    dnnl_invalid_arguments = 2,
    dnnl_unimplemented = 3,
    dnnl_last_impl_reached = 4,
    dnnl_runtime_error = 5,
    dnnl_not_required = 6,
    dnnl_invalid_graph = 7,
    dnnl_invalid_graph_op = 8,
    dnnl_invalid_shape = 9,
    dnnl_invalid_data_type = 10,
}

/// Element data types.
#[repr(C)]
pub enum dnnl_data_type_t {
    dnnl_data_type_undef = 0,
    dnnl_f16 = 1,
    dnnl_bf16 = 2,
    dnnl_f32 = 3,
    dnnl_s32 = 4,
    dnnl_s8 = 5,
    dnnl_u8 = 6,
    dnnl_f64 = 7,
    dnnl_boolean = 8,
    dnnl_f8_e5m2 = 9,
    dnnl_f8_e4m3 = 10,
    dnnl_s4 = 11,
    dnnl_u4 = 12,
    dnnl_e8m0 = 13,
    dnnl_f4_e2m1 = 14,
    dnnl_f4_e3m0 = 15,
    dnnl_s64 = 16,
    dnnl_data_type_max = 0x7fff,
}

/// Floating-point math modes: which implicit down-conversions are allowed.
#[repr(C)]
pub enum dnnl_fpmath_mode_t {
    dnnl_fpmath_mode_strict = 0,
    dnnl_fpmath_mode_bf16 = 1,
    dnnl_fpmath_mode_f16 = 2,
    dnnl_fpmath_mode_any = 3,
    dnnl_fpmath_mode_tf32 = 4,
}

/// Accumulation modes: which data type intermediate sums may use.
#[repr(C)]
pub enum dnnl_accumulation_mode_t {
    dnnl_accumulation_mode_strict = 0,
    dnnl_accumulation_mode_relaxed = 1,
    dnnl_accumulation_mode_any = 2,
    dnnl_accumulation_mode_s32 = 3,
    dnnl_accumulation_mode_f32 = 4,
    dnnl_accumulation_mode_f16 = 5,
}

/// Kinds of engines.
#[repr(C)]
pub enum dnnl_engine_kind_t {
    dnnl_any_engine = 0,
    dnnl_cpu = 1,
    dnnl_gpu = 2,
}

/// Stream flags (a bit set).
#[repr(C)]
pub enum dnnl_stream_flags_t {
    dnnl_stream_in_order = 1,
    dnnl_stream_out_of_order = 2,
    dnnl_stream_default_flags = 1,
    #[cfg(feature = "experimental_profiling")]
    dnnl_stream_profiling = 4,
    dnnl_stream_flags_max = 0x7fff,
}
