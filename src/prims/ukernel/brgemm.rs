//! The BRGeMM ukernel object: `C (+)= sum_i A_i B_i` over a batch of
//! `M x K` and `K x N` blocks, optionally followed by scales, post-ops and a
//! conversion into D.
//!
//! Layer: prims. Checks (beyond the C boundary's NULL checks):
//! - create: `M`, `N`, `K` and the batch size `> 0`, `lda >= K`,
//!   `ldb >= N`, `ldc >= N` (else `invalid_arguments`); the types one of
//!   `f32:f32:f32`, `bf16:bf16:f32`, `f16:f16:f32`, `u8:s8:s32`, `s8:s8:s32`
//!   (A:B:C; else `unimplemented`);
//! - post-ops: `ldd >= N`; D one of `f32`, `bf16`, `f16`, `s32`, `s8`, `u8`;
//!   eltwise entries, and binary entries whose second operand is a plain 2D
//!   `M x N` tensor or a broadcast of one (`1 x N`, `M x 1`, `1 x 1`);
//! - scales: a mask `>= 0` (else `invalid_arguments`); A and D per tensor
//!   (mask 0), B per tensor or per column (mask 0 or 2); else `unimplemented`;
//! - order: the setters before `finalize`, `generate` after it, `execute`
//!   after `generate` (else `invalid_arguments`).

#![allow(non_upper_case_globals)]

use std::sync::{Mutex, OnceLock};

use crate::abi::*;
use crate::core::attr::{PostOp, PostOps};
use crate::core::error::{Error, Result};
use crate::prims::common::binary_alg::BinaryAlg;
use crate::prims::common::dt::Elem;
use crate::prims::common::eltwise_alg::Alg;

use super::compute::{self, BrgemmPlan, Epilogue, MAX_BINARY, Op, Types};
use super::{PackType, ParamValues};

/// The object behind a `dnnl_brgemm_t`.
pub struct Brgemm {
    config: Mutex<Config>,
    plan: OnceLock<BrgemmPlan>,
}

struct Config {
    /// The configuration as set so far.
    plan: BrgemmPlan,
    /// Whether `finalize` was called: the setters are closed.
    finalized: bool,
}

fn dim(value: i64, what: &str) -> Result<usize> {
    usize::try_from(value)
        .ok()
        .filter(|&v| v > 0)
        .ok_or_else(|| Error::invalid(format!("{what} is {value}: it must be positive")))
}

fn leading(value: i64, min: usize, what: &str, of: &str) -> Result<usize> {
    usize::try_from(value)
        .ok()
        .filter(|&v| v >= min)
        .ok_or_else(|| {
            Error::invalid(format!(
                "{what} is {value}: it must be at least {of} ({min})"
            ))
        })
}

/// The type triple's compute, or why not.
fn types(a: dnnl_data_type_t, b: dnnl_data_type_t, c: dnnl_data_type_t) -> Option<Types> {
    Some(match (a, b, c) {
        (dnnl_f32, dnnl_f32, dnnl_f32) => Types::F32,
        (dnnl_bf16, dnnl_bf16, dnnl_f32) => Types::Bf16,
        (dnnl_f16, dnnl_f16, dnnl_f32) => Types::F16,
        (dnnl_u8, dnnl_s8, dnnl_s32) => Types::U8S8,
        (dnnl_s8, dnnl_s8, dnnl_s32) => Types::S8S8,
        _ => return None,
    })
}

/// The layout B must be in for `a x b` (`dnnl_brgemm_get_B_pack_type`):
/// `undef` for a pair not computed.
pub fn b_pack_type(a: dnnl_data_type_t, b: dnnl_data_type_t) -> PackType {
    let c = if a == dnnl_u8 || a == dnnl_s8 {
        dnnl_s32
    } else {
        dnnl_f32
    };
    match types(a, b, c) {
        None => PackType::Undef,
        Some(t) if t.vnni() == 1 => PackType::NoTrans,
        Some(_) => PackType::Pack32,
    }
}

fn dt_name(dt: dnnl_data_type_t) -> String {
    format!("data type {}", dt.0)
}

impl Brgemm {
    /// `dnnl_brgemm_create`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        m: i64,
        n: i64,
        k: i64,
        batch: i64,
        lda: i64,
        ldb: i64,
        ldc: i64,
        a_dt: dnnl_data_type_t,
        b_dt: dnnl_data_type_t,
        c_dt: dnnl_data_type_t,
    ) -> Result<Brgemm> {
        let (m, n, k) = (dim(m, "M")?, dim(n, "N")?, dim(k, "K")?);
        let batch = dim(batch, "the batch size")?;
        // The offsets array holds 2 * batch i64 values: it must fit the address space.
        if batch > (isize::MAX as usize) / 16 {
            return Err(Error::invalid(format!(
                "the batch size {batch} is too large"
            )));
        }
        let lda = leading(lda, k, "lda", "K")?;
        let ldb = leading(ldb, n, "ldb", "N")?;
        let ldc = leading(ldc, n, "ldc", "N")?;
        let types = types(a_dt, b_dt, c_dt).ok_or_else(|| {
            Error::unimplemented(format!(
                "the brgemm ukernel computes f32:f32:f32, bf16:bf16:f32, f16:f16:f32, \
                 u8:s8:s32 and s8:s8:s32 (A:B:C), not {}:{}:{}",
                dt_name(a_dt),
                dt_name(b_dt),
                dt_name(c_dt)
            ))
        })?;
        let c = if types.is_int() { Elem::S32 } else { Elem::F32 };
        let plan = BrgemmPlan {
            types,
            m,
            n,
            k,
            batch,
            lda,
            ldb,
            ldc,
            ldd: ldc,
            add_c: false,
            d: c,
            post_ops: Vec::new(),
            a_scale: false,
            d_scale: false,
            b_scale: None,
            level: crate::base::isa::level(),
        };
        Ok(Brgemm {
            config: Mutex::new(Config {
                plan,
                finalized: false,
            }),
            plan: OnceLock::new(),
        })
    }

    /// Runs a setter: only before `finalize`.
    fn configure(&self, what: &str, f: impl FnOnce(&mut BrgemmPlan) -> Result<()>) -> Result<()> {
        let mut config = self.config.lock()?;
        if config.finalized {
            return Err(Error::invalid(format!(
                "{what} after finalize: the brgemm's configuration is frozen"
            )));
        }
        // Work on a copy, so a rejected setting changes nothing.
        let mut plan = config.plan.clone();
        f(&mut plan)?;
        config.plan = plan;
        Ok(())
    }

    /// `dnnl_brgemm_set_add_C`: whether C's values are accumulated into.
    pub fn set_add_c(&self, add_c: bool) -> Result<()> {
        self.configure("set_add_C", |p| {
            p.add_c = add_c;
            Ok(())
        })
    }

    /// `dnnl_brgemm_set_post_ops`.
    pub fn set_post_ops(&self, ldd: i64, d_dt: dnnl_data_type_t, post_ops: &PostOps) -> Result<()> {
        self.configure("set_post_ops", |p| {
            p.ldd = leading(ldd, p.n, "ldd", "N")?;
            p.d = Elem::from_c(d_dt).ok_or_else(|| {
                Error::unimplemented(format!(
                    "D's {} is not one of f32, bf16, f16, s32, s8, u8",
                    dt_name(d_dt)
                ))
            })?;
            p.post_ops = resolve_post_ops(post_ops, p.m, p.n)?;
            Ok(())
        })
    }

    /// `dnnl_brgemm_set_{A,B,D}_scales` (`arg`: `DNNL_ARG_SRC`, `_WEIGHTS`
    /// or `_DST`).
    pub fn set_scales(&self, arg: i32, mask: i32) -> Result<()> {
        if mask < 0 {
            return Err(Error::invalid(format!("scales mask {mask} is negative")));
        }
        self.configure("set scales", |p| {
            match arg {
                DNNL_ARG_WEIGHTS => {
                    p.b_scale = Some(match mask {
                        0 => false,
                        2 => true,
                        _ => {
                            return Err(Error::unimplemented(format!(
                                "B scales mask {mask}: supported are 0 (one scale) and 2 (one per column)"
                            )));
                        }
                    })
                }
                _ => {
                    if mask != 0 {
                        return Err(Error::unimplemented(format!(
                            "{} scales mask {mask}: only 0 (one scale) is supported",
                            if arg == DNNL_ARG_SRC { "A" } else { "D" }
                        )));
                    }
                    if arg == DNNL_ARG_SRC {
                        p.a_scale = true;
                    } else {
                        p.d_scale = true;
                    }
                }
            }
            Ok(())
        })
    }

    /// `dnnl_brgemm_finalize`: freezes the configuration (again: no effect).
    pub fn finalize(&self) -> Result<()> {
        self.config.lock()?.finalized = true;
        Ok(())
    }

    /// `dnnl_brgemm_generate`: after `finalize`; again: no effect.
    pub fn generate(&self) -> Result<()> {
        let config = self.config.lock()?;
        if !config.finalized {
            return Err(Error::invalid("generate before finalize"));
        }
        let _ = self.plan.get_or_init(|| config.plan.clone());
        Ok(())
    }

    /// `dnnl_brgemm_get_scratchpad_size`: this implementation needs none.
    pub fn scratchpad_size(&self) -> usize {
        0
    }

    /// `dnnl_brgemm_is_execute_postops_valid`: whether the configuration has
    /// anything `execute_postops` applies (post-ops, scales, a D of another
    /// type or leading dimension than C).
    pub fn has_epilogue(&self) -> Result<bool> {
        let config = self.config.lock()?;
        let p = &config.plan;
        let c = if p.types.is_int() {
            Elem::S32
        } else {
            Elem::F32
        };
        Ok(!p.post_ops.is_empty()
            || p.a_scale
            || p.d_scale
            || p.b_scale.is_some()
            || p.d != c
            || p.ldd != p.ldc)
    }

    fn generated(&self) -> Result<&BrgemmPlan> {
        self.plan
            .get()
            .ok_or_else(|| Error::invalid("execute before generate"))
    }

    /// The frozen plan's batch size (entries of the offsets array: twice it).
    pub fn batch(&self) -> Result<usize> {
        Ok(self.generated()?.batch)
    }

    /// `dnnl_brgemm_execute`: `C (+)= sum_i A_i B_i`.
    ///
    /// # Safety
    /// The C contract: A, B and C hold what the configuration and `pairs`
    /// (two element offsets per batch entry) say; none is NULL.
    pub unsafe fn execute(
        &self,
        a: *const u8,
        b: *const u8,
        pairs: &[i64],
        c: *mut u8,
    ) -> Result<()> {
        let plan = self.generated()?;
        // SAFETY: forwarded from the caller.
        unsafe { compute::brgemm(plan, a, b, pairs, c, None) };
        Ok(())
    }

    /// `dnnl_brgemm_execute_postops`: `D = postops(scales * (C? + sum_i A_i
    /// B_i))`, C read only when `add_C` is set. Every scale and binary
    /// argument the configuration uses must be set in `params`.
    ///
    /// # Safety
    /// As [`Brgemm::execute`], plus D and the addresses in `params` (the
    /// binary argument array holding one pointer per binary post-op).
    pub unsafe fn execute_postops(
        &self,
        a: *const u8,
        b: *const u8,
        pairs: &[i64],
        c: *const u8,
        d: *mut u8,
        params: &ParamValues,
    ) -> Result<()> {
        let plan = self.generated()?;
        if plan.add_c && c.is_null() {
            return Err(Error::invalid("C is NULL, and add_C is set"));
        }
        let need = |set: bool, address: usize, what: &str| {
            if set && address == 0 {
                Err(Error::invalid(format!(
                    "{what} are configured but not set in the attribute parameters"
                )))
            } else {
                Ok(())
            }
        };
        need(plan.a_scale, params.a_scales, "A scales")?;
        need(plan.b_scale.is_some(), params.b_scales, "B scales")?;
        need(plan.d_scale, params.d_scales, "D scales")?;
        let mut binary = [0usize; MAX_BINARY];
        let count = plan.binary_count();
        if count > 0 {
            need(true, params.post_ops_args, "binary post-op arguments")?;
            let args = params.post_ops_args as *const usize;
            for (slot, b) in binary.iter_mut().enumerate().take(count) {
                // SAFETY: the caller's array holds one pointer per binary post-op.
                *b = unsafe { args.add(slot).read_unaligned() };
                if *b == 0 {
                    return Err(Error::invalid(format!(
                        "the argument of binary post-op {slot} is NULL"
                    )));
                }
            }
        }
        let epilogue = Epilogue {
            d: d as usize,
            a_scale: params.a_scales,
            b_scales: params.b_scales,
            d_scale: params.d_scales,
            binary,
        };
        // SAFETY: forwarded from the caller; every address the plan reads is set.
        unsafe { compute::brgemm(plan, a, b, pairs, c.cast_mut(), Some(&epilogue)) };
        Ok(())
    }
}

/// The post-op chain, checked against an `M x N` result.
fn resolve_post_ops(post_ops: &PostOps, m: usize, n: usize) -> Result<Vec<Op>> {
    let mut ops = Vec::with_capacity(post_ops.len());
    let mut slot = 0;
    for (index, entry) in post_ops.entries().iter().enumerate() {
        let op = match entry {
            PostOp::Eltwise { alg, alpha, beta } => {
                let alg = Alg::from_c(*alg).ok_or_else(|| {
                    Error::unimplemented(format!("post-op {index}: eltwise algorithm {:#x}", alg.0))
                })?;
                Op::Eltwise {
                    alg,
                    alpha: *alpha,
                    beta: *beta,
                }
            }
            PostOp::Binary { alg, src1, .. } => {
                let alg = BinaryAlg::from_c(*alg)
                    .filter(|a| !a.is_ternary())
                    .ok_or_else(|| {
                        Error::unimplemented(format!(
                            "post-op {index}: binary algorithm {:#x} is not supported by the brgemm ukernel",
                            alg.0
                        ))
                    })?;
                let elem = Elem::from_c(src1.data_type());
                let blocking = src1.blocking().filter(|b| b.inner_nblks == 0);
                let dims = src1.dims();
                let shape_ok = dims.len() == 2
                    && (dims[0] == 1 || dims[0] == m as i64)
                    && (dims[1] == 1 || dims[1] == n as i64);
                let (Some(elem), Some(blocking), true) = (elem, blocking, shape_ok) else {
                    return Err(Error::unimplemented(format!(
                        "post-op {index}: a binary operand must be a plain 2D tensor of \
                         {m} x {n} or a broadcast of it (1 in either dimension), of f32, \
                         bf16, f16, s32, s8 or u8; got dims {dims:?}"
                    )));
                };
                let stride = |d: usize| {
                    if dims[d] == 1 {
                        0
                    } else {
                        blocking.strides[d] as usize
                    }
                };
                let op = Op::Binary {
                    alg,
                    elem,
                    stride_m: stride(0),
                    stride_n: stride(1),
                    slot,
                };
                slot += 1;
                op
            }
            other => {
                return Err(Error::unimplemented(format!(
                    "post-op {index}: the brgemm ukernel applies eltwise and binary post-ops, not {:?}",
                    other.kind()
                )));
            }
        };
        ops.push(op);
    }
    if slot > MAX_BINARY {
        return Err(Error::unimplemented("too many binary post-ops"));
    }
    Ok(ops)
}
