//! `ONEDNN_VERBOSE`: oneDNN's diagnostic log, in oneDNN's line format.
//!
//! Layer: base. Read once at load time (`init_from_env`, called from a
//! constructor) and changed by `dnnl_set_verbose`. Lines go to stdout, as
//! upstream prints them, each `onednn_verbose,v1,` + payload, after a header of
//! `info` lines printed once before the first line. The header names the
//! devices, which this layer cannot see: `core::verbose_header` registers
//! its printer at load time.
//!
//! Tokens (comma-separated, applied in order): `none`/`0`, `error` (the
//! default), `warn`, `check`, `profile_create`, `profile_exec`, `profile`,
//! `dispatch`, `profile_externals`, `all`/`-1`, legacy `1` and `2`, and
//! `filter=<regex>`. Unlike upstream, an unknown token (`OFF`, `true`) is not
//! ignored silently: it is reported once on an `error`-level line.
//!
//! What we log where: a call rejected for its arguments or for a missing
//! feature is a `check` line naming the function and the reason; a failure of
//! the library or the device is an `error` line.

use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Mutex, Once, OnceLock};

use regex_lite::Regex;

use crate::base::env;

/// Verbose categories, as bits.
pub mod flag {
    /// Errors of the library or the device.
    pub const ERROR: u32 = 1 << 0;
    /// Warnings.
    pub const WARN: u32 = 1 << 1;
    /// Rejected calls: argument and feature checks.
    pub const CHECK: u32 = 1 << 2;
    /// Primitive and partition creation, with timings.
    pub const PROFILE_CREATE: u32 = 1 << 3;
    /// Primitive and partition execution, with timings.
    pub const PROFILE_EXEC: u32 = 1 << 4;
    /// Why an implementation was or was not dispatched.
    pub const DISPATCH: u32 = 1 << 5;
    /// Timings of work outside the library's primitives.
    pub const PROFILE_EXTERNALS: u32 = 1 << 6;
    /// Every category.
    pub const ALL: u32 =
        ERROR | WARN | CHECK | PROFILE_CREATE | PROFILE_EXEC | DISPATCH | PROFILE_EXTERNALS;
}

static FLAGS: AtomicU32 = AtomicU32::new(flag::ERROR);
static TIMESTAMP: AtomicBool = AtomicBool::new(false);
static FILTER: Mutex<Option<Regex>> = Mutex::new(None);
static HEADER: Once = Once::new();
/// Prints the header (library version, CPU, GPU devices): registered by the
/// layer that knows the devices, at load time.
static HEADER_PRINTER: OnceLock<fn()> = OnceLock::new();

/// Registers the function that prints the header before the first line.
pub fn set_header_printer(print: fn()) {
    let _ = HEADER_PRINTER.set(print);
}

/// The result of parsing an `ONEDNN_VERBOSE` value.
#[derive(Debug, Default)]
pub struct Setting {
    /// The enabled categories.
    pub flags: u32,
    /// The last well-formed `filter=`, if any.
    pub filter: Option<Regex>,
    /// Messages about tokens that were not understood.
    pub problems: Vec<String>,
}

/// Parses a (lower-cased) `ONEDNN_VERBOSE` value.
pub fn parse(value: &str) -> Setting {
    let mut s = Setting {
        flags: flag::ERROR,
        ..Default::default()
    };
    for token in value.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        match token {
            "none" | "0" => s.flags = 0,
            "error" => s.flags |= flag::ERROR,
            "warn" => s.flags |= flag::WARN,
            "check" => s.flags |= flag::CHECK,
            "profile_create" => s.flags |= flag::PROFILE_CREATE,
            "profile_exec" | "1" => s.flags |= flag::PROFILE_EXEC,
            "profile" | "2" => s.flags |= flag::PROFILE_CREATE | flag::PROFILE_EXEC,
            "dispatch" => s.flags |= flag::DISPATCH,
            "profile_externals" => s.flags |= flag::PROFILE_EXTERNALS,
            "all" | "-1" => s.flags = flag::ALL,
            _ => match token.strip_prefix("filter=") {
                Some(pattern) => match Regex::new(pattern) {
                    Ok(re) => s.filter = Some(re),
                    Err(_) => s.problems.push(format!(
                        "filter format is ill-formed: '{pattern}' is not a regular expression; filter ignored"
                    )),
                },
                None => s.problems.push(format!(
                    "ONEDNN_VERBOSE: unknown token '{token}' ignored (turn logging off with 'none' or '0')"
                )),
            },
        }
    }
    s
}

/// Applies `ONEDNN_VERBOSE` / `DNNL_VERBOSE` and `ONEDNN_VERBOSE_TIMESTAMP`.
pub fn init_from_env() {
    TIMESTAMP.store(env::get_int("VERBOSE_TIMESTAMP", 0) == 1, Ordering::Relaxed);
    let Some(value) = env::get("VERBOSE") else {
        return;
    };
    let setting = parse(&value);
    FLAGS.store(setting.flags, Ordering::Relaxed);
    if let Ok(mut filter) = FILTER.lock() {
        *filter = setting.filter;
    }
    for problem in setting.problems {
        emit_line("common,error,", &problem);
    }
}

/// `dnnl_set_verbose`: 0 = nothing, 1 = errors and execution, 2 = errors,
/// creation and execution. Replaces whatever the environment said.
pub fn set_level(level: i32) -> bool {
    let flags = match level {
        0 => 0,
        1 => flag::ERROR | flag::PROFILE_EXEC,
        2 => flag::ERROR | flag::PROFILE_CREATE | flag::PROFILE_EXEC,
        _ => return false,
    };
    FLAGS.store(flags, Ordering::Relaxed);
    true
}

/// Whether lines carry a timestamp (`ONEDNN_VERBOSE_TIMESTAMP=1`).
pub fn timestamps() -> bool {
    TIMESTAMP.load(Ordering::Relaxed)
}

/// Whether any of the categories in `flags` is on.
pub fn enabled(flags: u32) -> bool {
    FLAGS.load(Ordering::Relaxed) & flags != 0
}

/// Whether a line of `component` ("primitive", "graph", a primitive kind, ...)
/// passes the filter. Lines of `common` always pass.
pub fn passes_filter(component: &str) -> bool {
    if component == "common" {
        return true;
    }
    match FILTER.lock() {
        Ok(filter) => filter.as_ref().is_none_or(|re| re.is_match(component)),
        Err(_) => true,
    }
}

/// Logs a call that failed: a `check` line for rejected requests, an `error`
/// line for failures of the library or the device.
pub fn log_failed_call(component: &str, function: &str, error: &crate::base::error::Error) {
    let (category, operation) = if error.is_failure() {
        (flag::ERROR, "error")
    } else {
        (flag::CHECK, "check")
    };
    if !enabled(category) || !passes_filter(component) {
        return;
    }
    let status = crate::base::names::status_name(error.status());
    emit_line(
        &format!("{component},{operation},"),
        &format!("{function},{status},{error}"),
    );
}

/// Prints one line (`onednn_verbose,v1,[timestamp,]<prefix><payload>`), after
/// the header if this is the first.
pub fn emit_line(prefix: &str, payload: &str) {
    // Printing the header enumerates the GPU runtime's devices, which may log
    // (a bad ONEDNN_OCL_DEVICES term): such a line must not wait for the header.
    if !IN_HEADER.with(|h| h.get()) {
        HEADER.call_once(|| {
            IN_HEADER.with(|h| h.set(true));
            if let Some(print) = HEADER_PRINTER.get() {
                print();
            }
            IN_HEADER.with(|h| h.set(false));
        });
    }
    print_raw(prefix, payload);
}

thread_local! {
    static IN_HEADER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Prints one line without the header (what the header printer uses).
pub fn print_raw(prefix: &str, payload: &str) {
    let stamp = if TIMESTAMP.load(Ordering::Relaxed) {
        let ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs_f64() * 1e3)
            .unwrap_or(0.0);
        format!("{ms:.3},")
    } else {
        String::new()
    };
    let mut out = std::io::stdout().lock();
    // A closed stdout must not fail the API call that logs.
    let _ = writeln!(out, "onednn_verbose,v1,{stamp}{prefix}{payload}");
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_error_only() {
        assert_eq!(parse("").flags, flag::ERROR);
    }

    #[test]
    fn tokens_combine_in_order() {
        assert_eq!(parse("none").flags, 0);
        assert_eq!(parse("0").flags, 0);
        assert_eq!(parse("none,check").flags, flag::CHECK);
        assert_eq!(parse("check,none").flags, 0);
        assert_eq!(parse("1").flags, flag::ERROR | flag::PROFILE_EXEC);
        assert_eq!(
            parse("2").flags,
            flag::ERROR | flag::PROFILE_CREATE | flag::PROFILE_EXEC
        );
        assert_eq!(parse("profile").flags, parse("2").flags);
        assert_eq!(parse("all").flags, flag::ALL);
        assert_eq!(parse("-1").flags, flag::ALL);
        assert_eq!(
            parse("warn,dispatch").flags,
            flag::ERROR | flag::WARN | flag::DISPATCH
        );
    }

    #[test]
    fn unknown_tokens_are_reported_not_ignored() {
        let s = parse("off");
        assert_eq!(s.flags, flag::ERROR);
        assert_eq!(s.problems.len(), 1);
        assert!(s.problems[0].contains("'off'"), "{:?}", s.problems);
    }

    #[test]
    fn filters_keep_the_last_well_formed_one() {
        let s = parse("all,filter=conv,filter=mat.*");
        assert!(s.filter.as_ref().unwrap().is_match("matmul"));
        let s = parse("all,filter=(");
        assert!(s.filter.is_none());
        assert!(s.problems[0].contains("ill-formed"));
    }
}
