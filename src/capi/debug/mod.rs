//! Entry points of `dnnl_debug.h`: enumerator names as strings.
//!
//! The rule is upstream's: the enumerator's name without `dnnl_` (and without
//! the type's own prefix for the `*_mode` and format-kind enums), `undef` for
//! every `*_undef`, the first-declared name for aliases (`dnnl_x` is `a`), and
//! `unknown <kind>` for values that are not enumerators. Deliberate
//! difference: the few declared enumerators upstream v3.13 misses
//! (`dnnl_f4_e3m0`, `dnnl_format_kind_opaque`, `dnnl_format_kind_host_scalar`)
//! get their names here rather than "unknown".

use ::core::ffi::{CStr, c_char, c_uint};

use crate::abi::*;
use crate::capi::boundary;
use crate::core::names::enum_name;
pub use crate::core::names::status_name;

/// Runs a `*2str` body: the name of `v`, or `unknown` if a bug panics.
fn to_str<T: Copy + PartialEq>(
    function: &'static str,
    all: &'static [(&'static CStr, T)],
    v: T,
    type_prefix: &str,
    unknown: &'static CStr,
) -> *const c_char {
    boundary::guard_value(function, unknown.as_ptr(), || {
        enum_name(all, v, type_prefix, unknown).as_ptr()
    })
}

/// Returns the name of a status, or "unknown status". The string is static.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_status2str(v: dnnl_status_t) -> *const c_char {
    to_str(
        "dnnl_status2str",
        dnnl_status_t::ALL,
        v,
        "dnnl_",
        c"unknown status",
    )
}

/// Returns the name of a data type, or "unknown dt". The string is static.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_dt2str(v: dnnl_data_type_t) -> *const c_char {
    to_str(
        "dnnl_dt2str",
        dnnl_data_type_t::ALL,
        v,
        "dnnl_",
        c"unknown dt",
    )
}

/// Returns the name of a floating-point math mode, or "unknown fpmath_mode". The string is static.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_fpmath_mode2str(v: dnnl_fpmath_mode_t) -> *const c_char {
    to_str(
        "dnnl_fpmath_mode2str",
        dnnl_fpmath_mode_t::ALL,
        v,
        "dnnl_fpmath_mode_",
        c"unknown fpmath_mode",
    )
}

/// Returns the name of an accumulation mode, or "unknown accumulation_mode". The string is static.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_accumulation_mode2str(v: dnnl_accumulation_mode_t) -> *const c_char {
    to_str(
        "dnnl_accumulation_mode2str",
        dnnl_accumulation_mode_t::ALL,
        v,
        "dnnl_accumulation_mode_",
        c"unknown accumulation_mode",
    )
}

/// Returns the name of an engine kind, or "unknown engine_kind". The string is static.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_engine_kind2str(v: dnnl_engine_kind_t) -> *const c_char {
    to_str(
        "dnnl_engine_kind2str",
        dnnl_engine_kind_t::ALL,
        v,
        "dnnl_",
        c"unknown engine_kind",
    )
}

/// Returns the name of a sparse encoding, or "unknown sparse_encoding". The string is static.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_sparse_encoding2str(v: dnnl_sparse_encoding_t) -> *const c_char {
    to_str(
        "dnnl_sparse_encoding2str",
        dnnl_sparse_encoding_t::ALL,
        v,
        "dnnl_",
        c"unknown sparse_encoding",
    )
}

/// Returns the name of a format tag (aliases give the first-declared name), or "unknown fmt_tag". The string is static.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_fmt_tag2str(v: dnnl_format_tag_t) -> *const c_char {
    to_str(
        "dnnl_fmt_tag2str",
        dnnl_format_tag_t::ALL,
        v,
        "dnnl_",
        c"unknown fmt_tag",
    )
}

/// Returns the name of a propagation kind, or "unknown prop_kind". The string is static.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_prop_kind2str(v: dnnl_prop_kind_t) -> *const c_char {
    to_str(
        "dnnl_prop_kind2str",
        dnnl_prop_kind_t::ALL,
        v,
        "dnnl_",
        c"unknown prop_kind",
    )
}

/// Returns the name of a primitive kind, or "unknown prim_kind". The string is static.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_prim_kind2str(v: dnnl_primitive_kind_t) -> *const c_char {
    to_str(
        "dnnl_prim_kind2str",
        dnnl_primitive_kind_t::ALL,
        v,
        "dnnl_",
        c"unknown prim_kind",
    )
}

/// Returns the name of an algorithm kind, or "unknown alg_kind". The string is static.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_alg_kind2str(v: dnnl_alg_kind_t) -> *const c_char {
    to_str(
        "dnnl_alg_kind2str",
        dnnl_alg_kind_t::ALL,
        v,
        "dnnl_",
        c"unknown alg_kind",
    )
}

/// Returns the name of RNN flags, or "unknown rnn_flags". The string is static.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_rnn_flags2str(v: dnnl_rnn_flags_t) -> *const c_char {
    to_str(
        "dnnl_rnn_flags2str",
        dnnl_rnn_flags_t::ALL,
        v,
        "dnnl_",
        c"unknown rnn_flags",
    )
}

/// Returns the name of an RNN direction, or "unknown rnn_direction". The string is static.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_rnn_direction2str(v: dnnl_rnn_direction_t) -> *const c_char {
    to_str(
        "dnnl_rnn_direction2str",
        dnnl_rnn_direction_t::ALL,
        v,
        "dnnl_",
        c"unknown rnn_direction",
    )
}

/// Returns the name of a scratchpad mode, or "unknown scratchpad_mode". The string is static.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_scratchpad_mode2str(v: dnnl_scratchpad_mode_t) -> *const c_char {
    to_str(
        "dnnl_scratchpad_mode2str",
        dnnl_scratchpad_mode_t::ALL,
        v,
        "dnnl_scratchpad_mode_",
        c"unknown scratchpad_mode",
    )
}

/// Returns the name of a rounding mode, or "unknown rounding_mode". The string is static.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_rounding_mode2str(v: dnnl_rounding_mode_t) -> *const c_char {
    to_str(
        "dnnl_rounding_mode2str",
        dnnl_rounding_mode_t::ALL,
        v,
        "dnnl_rounding_mode_",
        c"unknown rounding_mode",
    )
}

/// Returns the name of a quantization mode, or "unknown quantization_mode". The string is static.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_quantization_mode2str(v: dnnl_quantization_mode_t) -> *const c_char {
    to_str(
        "dnnl_quantization_mode2str",
        dnnl_quantization_mode_t::ALL,
        v,
        "dnnl_quantization_mode_",
        c"unknown quantization_mode",
    )
}

/// Returns the name of a CPU ISA, or "unknown cpu_isa". The string is static.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_cpu_isa2str(v: dnnl_cpu_isa_t) -> *const c_char {
    to_str(
        "dnnl_cpu_isa2str",
        dnnl_cpu_isa_t::ALL,
        v,
        "dnnl_",
        c"unknown cpu_isa",
    )
}

/// Returns the name of CPU ISA hints, or "unknown cpu_isa_hints". The string is static.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_cpu_isa_hints2str(v: dnnl_cpu_isa_hints_t) -> *const c_char {
    to_str(
        "dnnl_cpu_isa_hints2str",
        dnnl_cpu_isa_hints_t::ALL,
        v,
        "dnnl_",
        c"unknown cpu_isa_hints",
    )
}

/// Returns the name of a format kind, or "unknown fmt_kind". The string is static.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_fmt_kind2str(v: dnnl_format_kind_t) -> *const c_char {
    to_str(
        "dnnl_fmt_kind2str",
        dnnl_format_kind_t::ALL,
        v,
        "dnnl_format_kind_",
        c"unknown fmt_kind",
    )
}

/// Returns the name of a runtime (one of `DNNL_RUNTIME_*`), or "unknown". The string is static.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_runtime2str(v: c_uint) -> *const c_char {
    boundary::guard_value("dnnl_runtime2str", c"unknown".as_ptr(), || {
        let name = match v {
            DNNL_RUNTIME_NONE => c"none",
            DNNL_RUNTIME_SEQ => c"sequential",
            DNNL_RUNTIME_OMP => c"OpenMP",
            DNNL_RUNTIME_TBB => c"TBB",
            DNNL_RUNTIME_THREADPOOL => c"threadpool",
            DNNL_RUNTIME_OCL => c"OpenCL",
            DNNL_RUNTIME_SYCL => c"SYCL",
            DNNL_RUNTIME_ZE => c"Level Zero",
            _ => c"unknown",
        };
        name.as_ptr()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(p: *const c_char) -> &'static str {
        // SAFETY: every *2str returns a static NUL-terminated string.
        unsafe { CStr::from_ptr(p) }.to_str().unwrap()
    }

    #[test]
    fn names_follow_upstream() {
        // SAFETY: the functions take plain values.
        unsafe {
            assert_eq!(
                s(dnnl_status2str(dnnl_invalid_arguments)),
                "invalid_arguments"
            );
            assert_eq!(s(dnnl_status2str(dnnl_status_t(999))), "unknown status");
            assert_eq!(s(dnnl_dt2str(dnnl_f32)), "f32");
            assert_eq!(s(dnnl_dt2str(dnnl_data_type_undef)), "undef");
            assert_eq!(s(dnnl_dt2str(dnnl_data_type_max)), "data_type_max");
            assert_eq!(s(dnnl_dt2str(dnnl_data_type_t(999))), "unknown dt");
            assert_eq!(s(dnnl_fpmath_mode2str(dnnl_fpmath_mode_tf32)), "tf32");
            assert_eq!(s(dnnl_engine_kind2str(dnnl_any_engine)), "any");
            assert_eq!(s(dnnl_fmt_tag2str(dnnl_x)), "a");
            assert_eq!(s(dnnl_fmt_tag2str(dnnl_nChw16c)), "aBcd16b");
            assert_eq!(s(dnnl_fmt_tag2str(dnnl_format_tag_any)), "any");
            assert_eq!(s(dnnl_fmt_tag2str(dnnl_format_tag_last)), "format_tag_last");
            assert_eq!(s(dnnl_prop_kind2str(dnnl_forward)), "forward_training");
            assert_eq!(s(dnnl_prim_kind2str(dnnl_undefined_primitive)), "undef");
            assert_eq!(s(dnnl_alg_kind2str(dnnl_eltwise_relu)), "eltwise_relu");
            assert_eq!(s(dnnl_fmt_kind2str(dnnl_format_kind_max)), "max");
            assert_eq!(s(dnnl_fmt_kind2str(dnnl_blocked)), "blocked");
            assert_eq!(
                s(dnnl_scratchpad_mode2str(dnnl_scratchpad_mode_user)),
                "user"
            );
            assert_eq!(s(dnnl_runtime2str(DNNL_RUNTIME_ZE)), "Level Zero");
            assert_eq!(s(dnnl_runtime2str(3)), "unknown");
        }
    }
}
