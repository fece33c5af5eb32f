//! Process-wide settings that the C API reads and writes.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::abi::*;
use crate::core::env;
use crate::core::error::{Error, Result};

static DEFAULT_FPMATH_MODE: AtomicU32 = AtomicU32::new(u32::MAX);

/// The floating-point math modes and their `ONEDNN_DEFAULT_FPMATH_MODE` spellings.
const FPMATH_MODES: &[(&str, dnnl_fpmath_mode_t)] = &[
    ("strict", dnnl_fpmath_mode_strict),
    ("bf16", dnnl_fpmath_mode_bf16),
    ("f16", dnnl_fpmath_mode_f16),
    ("any", dnnl_fpmath_mode_any),
    ("tf32", dnnl_fpmath_mode_tf32),
];

/// Checks that `mode` is one of the declared floating-point math modes.
pub fn check_fpmath_mode(mode: dnnl_fpmath_mode_t) -> Result<dnnl_fpmath_mode_t> {
    if FPMATH_MODES.iter().any(|(_, m)| *m == mode) {
        Ok(mode)
    } else {
        Err(Error::invalid(format!(
            "{} is not a floating-point math mode",
            mode.0
        )))
    }
}

/// The default floating-point math mode of new primitive attributes and
/// graphs: `dnnl_set_default_fpmath_mode`'s, else `ONEDNN_DEFAULT_FPMATH_MODE`'s,
/// else strict.
pub fn default_fpmath_mode() -> dnnl_fpmath_mode_t {
    let stored = DEFAULT_FPMATH_MODE.load(Ordering::Relaxed);
    if stored != u32::MAX {
        return dnnl_fpmath_mode_t(stored);
    }
    let from_env = env::get("DEFAULT_FPMATH_MODE")
        .and_then(|v| {
            FPMATH_MODES
                .iter()
                .find(|(name, _)| *name == v)
                .map(|(_, m)| *m)
        })
        .unwrap_or(dnnl_fpmath_mode_strict);
    // Read the environment once; a concurrent setter wins.
    let _ = DEFAULT_FPMATH_MODE.compare_exchange(
        u32::MAX,
        from_env.0,
        Ordering::Relaxed,
        Ordering::Relaxed,
    );
    dnnl_fpmath_mode_t(DEFAULT_FPMATH_MODE.load(Ordering::Relaxed))
}

/// Sets the default floating-point math mode.
pub fn set_default_fpmath_mode(mode: dnnl_fpmath_mode_t) -> Result<()> {
    let mode = check_fpmath_mode(mode)?;
    DEFAULT_FPMATH_MODE.store(mode.0, Ordering::Relaxed);
    Ok(())
}
