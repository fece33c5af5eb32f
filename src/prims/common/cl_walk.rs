//! Kernels that walk any layout: `positions.cl` (the padded positions
//! `p0..p11` a work-item handles, from `-DP<d>` options) and the options that
//! describe an output's walk as expressions of the work-item index `t`.
//!
//! Layer: prims. Builds option strings; no driver.

/// `positions.cl`: defaults of `P0..P11` and `DECL_POSITIONS`; prepended
/// after `types.cl` by the kernels that use it.
pub const CL_POSITIONS: &str = include_str!("positions.cl");
