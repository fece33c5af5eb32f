//! Names of C enumerators, as `dnnl_debug.h` and the verbose log spell them.
//!
//! The rule is upstream's: the enumerator's name without `dnnl_` (and without
//! the type's own prefix for the `*_mode` and format-kind enums), `undef` for
//! every `*_undef`, the first-declared name for aliases (`dnnl_x` is `a`), and
//! `unknown <kind>` for values that are not enumerators.

use std::ffi::CStr;

use crate::abi::*;

/// Names a value of a C enum; see the module documentation for the rule.
pub fn enum_name<T: Copy + PartialEq>(
    all: &'static [(&'static CStr, T)],
    value: T,
    type_prefix: &str,
    unknown: &'static CStr,
) -> &'static CStr {
    let Some((name, _)) = all.iter().find(|(_, v)| *v == value) else {
        return unknown;
    };
    let bytes = name.to_bytes();
    if bytes.ends_with(b"_undef") {
        return c"undef";
    }
    match bytes {
        b"dnnl_any_engine" | b"dnnl_format_tag_any" => return c"any",
        b"dnnl_undefined_primitive" => return c"undef",
        _ => {}
    }
    let strip = if bytes.starts_with(type_prefix.as_bytes()) {
        type_prefix.len()
    } else {
        "dnnl_".len()
    };
    // A suffix of a NUL-terminated string is NUL-terminated: still a static C string.
    CStr::from_bytes_with_nul(&name.to_bytes_with_nul()[strip..]).unwrap_or(unknown)
}

/// [`enum_name`] as a Rust string.
pub fn enum_str<T: Copy + PartialEq>(
    all: &'static [(&'static CStr, T)],
    value: T,
    type_prefix: &str,
    unknown: &'static str,
) -> &'static str {
    enum_name(all, value, type_prefix, c"")
        .to_str()
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or(unknown)
}

/// The name of a status, for the verbose log (as `dnnl_status2str` spells it).
pub fn status_name(status: dnnl_status_t) -> &'static str {
    enum_name(dnnl_status_t::ALL, status, "dnnl_", c"unknown status")
        .to_str()
        .unwrap_or("unknown status")
}
