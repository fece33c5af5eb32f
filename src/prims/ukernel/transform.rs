//! The transform ukernel object: packs a `K x N` B, given row-major
//! (`no_trans`) or column-major (`trans`), into the `pack32` layout the BRGeMM
//! reads (see the [module docs](super)), in panels of `out_ld` columns:
//! column `n` goes to panel `n / out_ld`, each panel `K' x out_ld` elements
//! with `K'` the `K` rounded up to whole row groups (2 rows for 16-bit types,
//! 4 for 8-bit ones, 1 for `f32`). Padding is written as zeros.
//!
//! Layer: prims. Checks: `K`, `N > 0`; the input pack type `no_trans` or
//! `trans` with `in_ld >= N` or `>= K` respectively; `out_ld` one of 16,
//! 32, 48, 64 (upstream's limitation, kept so programs stay portable); all
//! `invalid_arguments`. Types: in and out equal, one of f32, bf16, f16, s8, u8
//! (else `unimplemented`). `execute` only after `generate`.

#![allow(non_upper_case_globals)]

use std::sync::OnceLock;

use crate::abi::*;
use crate::core::error::{Error, Result};

use super::PackType;
use super::compute::{self, TransformPlan};

/// The object behind a `dnnl_transform_t`.
pub struct Transform {
    plan: TransformPlan,
    generated: OnceLock<()>,
}

impl Transform {
    /// `dnnl_transform_create`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        k: i64,
        n: i64,
        in_pack: PackType,
        in_ld: i64,
        out_ld: i64,
        in_dt: dnnl_data_type_t,
        out_dt: dnnl_data_type_t,
    ) -> Result<Transform> {
        let positive = |v: i64, what: &str| {
            usize::try_from(v)
                .ok()
                .filter(|&v| v > 0)
                .ok_or_else(|| Error::invalid(format!("{what} is {v}: it must be positive")))
        };
        let (k, n) = (positive(k, "K")?, positive(n, "N")?);
        let transposed = match in_pack {
            PackType::NoTrans => false,
            PackType::Trans => true,
            other => {
                return Err(Error::invalid(format!(
                    "input pack type {other:?}: it must be no_trans or trans"
                )));
            }
        };
        let (min, of) = if transposed { (k, "K") } else { (n, "N") };
        let in_ld = usize::try_from(in_ld)
            .ok()
            .filter(|&v| v >= min)
            .ok_or_else(|| {
                Error::invalid(format!(
                    "in_ld is {in_ld}: it must be at least {of} ({min})"
                ))
            })?;
        let out_ld = match out_ld {
            16 | 32 | 48 | 64 => out_ld as usize,
            _ => {
                return Err(Error::invalid(format!(
                    "out_ld is {out_ld}: it must be 16, 32, 48 or 64"
                )));
            }
        };
        if in_dt != out_dt {
            return Err(Error::unimplemented(format!(
                "the transform converts no data type: in {} and out {} differ",
                in_dt.0, out_dt.0
            )));
        }
        let (size, vnni) = match in_dt {
            dnnl_f32 => (4, 1),
            dnnl_bf16 | dnnl_f16 => (2, 2),
            dnnl_s8 | dnnl_u8 => (1, 4),
            _ => {
                return Err(Error::unimplemented(format!(
                    "the transform packs f32, bf16, f16, s8 and u8, not data type {}",
                    in_dt.0
                )));
            }
        };
        // The packed output must fit the address space.
        let fits = k
            .checked_next_multiple_of(vnni)
            .and_then(|kp| kp.checked_mul(n.div_ceil(out_ld) * out_ld))
            .and_then(|e| e.checked_mul(size))
            .is_some_and(|bytes| bytes <= isize::MAX as usize);
        if !fits {
            return Err(Error::invalid(format!(
                "a packed {k} x {n} B does not fit in memory"
            )));
        }
        Ok(Transform {
            plan: TransformPlan {
                k,
                n,
                transposed,
                in_ld,
                out_ld,
                size,
                vnni,
            },
            generated: OnceLock::new(),
        })
    }

    /// `dnnl_transform_generate` (again: no effect).
    pub fn generate(&self) {
        let _ = self.generated.set(());
    }

    /// Bytes the packed output takes.
    pub fn out_bytes(&self) -> usize {
        self.plan.out_elements() * self.plan.size
    }

    /// `dnnl_transform_execute`.
    ///
    /// # Safety
    /// `input` holds B as configured; `output` has [`Transform::out_bytes`].
    pub unsafe fn execute(&self, input: *const u8, output: *mut u8) -> Result<()> {
        if self.generated.get().is_none() {
            return Err(Error::invalid("execute before generate"));
        }
        // SAFETY: forwarded from the caller.
        unsafe { compute::transform(&self.plan, input, output) };
        Ok(())
    }
}
