//! Matmul: `dst = src · weights (+ bias)`, batched, with broadcast
//! (`dnnl_matmul_primitive_desc_create`).
//!
//! Layer: prims. This file holds the descriptor logic and builds the GEMM
//! problem (`prims::common::gemm`, shared with inner product) it hands to
//! the engines:
//! - shapes: src `(…, M, K)`, weights `(…, K, N)`, dst `(…, M, N)`, 2 to 12
//!   dimensions, all three (and the bias) with the same number; a batch
//!   dimension of 1 in src or weights broadcasts, dst takes the larger; the
//!   bias broadcasts over every dimension where it is 1;
//! - layouts: plain strided ones (any strides, so transposed operands such as
//!   weights in `ba` cost nothing); blocked layouts are unimplemented.
//!   `format_tag::any` resolves to plain row-major (`ab`, `abc`, ...) for
//!   src, dst and the bias, and for weights but int8 ones, which get K
//!   innermost (`ba`, `acb`, ...: the layout the tensor cores' int8
//!   fragments read, `gemm_mma.cl`; the CPU packs either);
//! - types: src and weights of one type among f32, f16 and bf16; dst any of
//!   those three; the bias f32, or dst's or src's type, accumulated in f32.
//!   Int8: src u8 or s8, weights s8 or u8, dst and bias any of f32, f16,
//!   bf16, s32, s8, u8, accumulated exactly in s32;
//! - run-time values: any dimension or stride may be `DNNL_RUNTIME_DIM_VAL`
//!   at creation; the memory objects' descriptors give the real ones at
//!   execution, where they are checked (invalid arguments on a mismatch);
//! - attributes: scales for src (mask 0), weights (mask 0, or per N: bit
//!   `ndims - 1`) and dst (mask 0), f32 values passed as
//!   `DNNL_ARG_ATTR_SCALES | DNNL_ARG_*`; int8 only: s32 zero points of src
//!   (mask 0, or per K: bit `ndims - 1`), weights (mask 0 or per N) and dst
//!   (mask 0 or per N), passed as `DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_*`;
//!   post-ops (through `PostOpsPlan`). The result is
//!   `post_ops(src_scale · wei_scale · acc + bias) / dst_scale + zp_dst`,
//!   `acc = Σ (src - zp_src)·(weights - zp_wei)` (s32 for int8), in
//!   oneDNN's order, stored rounding half to even and saturating. Any
//!   floating-point math mode is accepted: under `strict` f32 operands are
//!   multiplied in f32; under `tf32`, `bf16`, `f16` and `any` (each allows
//!   tf32) NVIDIA's tensor cores multiply them as tf32 (`ocl:gemm_mma`),
//!   other devices in f32. The deterministic flag and the strict, relaxed,
//!   any and f32 accumulation modes (and s32 for int8) are accepted too;
//!   other zero-point masks (src per M x K, weights per K, grouped), other
//!   accumulation modes, rounding modes, dropout and the rest are
//!   unimplemented.
//!
//! Implementations, best first: `cpu:gemm` (the `gemm` crate, see `cpu.rs`
//! and `common/gemm/cpu.rs`; int8 in `common/gemm/int8.rs`), `ocl:gemm_mma`
//! (NVIDIA tensor cores, `common/gemm/gemm_mma.cl` and `mma.rs`: f16, bf16,
//! f32 through tf32 where the math mode allows) and `ocl:gemm_tiled`
//! (`common/gemm/gemm.cl`, integer accumulation for int8, see `ocl.rs` and
//! `common/gemm/ocl.rs`).

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

pub(crate) mod cpu;
pub(crate) mod ocl;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::abi::*;
use crate::core::attr::PrimitiveAttr;
use crate::core::attr::{AttrPart, AttrSupport};
use crate::core::error::{Error, Result};
use crate::core::key::KeyWriter;
use crate::core::memory_desc::{MemoryDesc, RUNTIME_DIM};
use crate::core::primitive::{ExecContext, Impl, Kind, OpDesc, any_op};
use crate::prims::common::dt::Elem;
use crate::prims::common::gemm::{
    AttrRules, BatchDim, Epilogue, Gemm, GemmArgs, Operand, any_elem, epilogue, float_elem,
    int8_elem, plain_strides, span_bytes,
};
use crate::prims::common::layout::Layout;

/// Whether two dimensions agree (a run-time one agrees with anything).
fn same(a: i64, b: i64) -> bool {
    a == b || a == RUNTIME_DIM || b == RUNTIME_DIM
}

/// Checks the shapes of a matmul (invalid arguments where they disagree);
/// run-time dimensions are skipped.
fn check_shapes(
    src: &MemoryDesc,
    wei: &MemoryDesc,
    bias: Option<&MemoryDesc>,
    dst: &MemoryDesc,
) -> Result<()> {
    let n = dst.ndims();
    if !(2..=12).contains(&n) {
        return Err(Error::invalid(format!(
            "matmul takes 2 to 12 dimensions, not {n}"
        )));
    }
    if src.ndims() != n || wei.ndims() != n {
        return Err(Error::invalid(format!(
            "src, weights and dst have different numbers of dimensions ({}, {}, {n})",
            src.ndims(),
            wei.ndims()
        )));
    }
    let (s, w, d) = (src.dims(), wei.dims(), dst.dims());
    if !same(s[n - 1], w[n - 2]) {
        return Err(Error::invalid(format!(
            "K differs: src has {}, weights {}",
            s[n - 1],
            w[n - 2]
        )));
    }
    if !same(s[n - 2], d[n - 2]) || !same(w[n - 1], d[n - 1]) {
        return Err(Error::invalid(
            "dst's M or N differs from src's or weights'",
        ));
    }
    for i in 0..n - 2 {
        let ok = if s[i] == RUNTIME_DIM || w[i] == RUNTIME_DIM || d[i] == RUNTIME_DIM {
            true
        } else {
            (s[i] == w[i] || s[i] == 1 || w[i] == 1) && d[i] == s[i].max(w[i])
        };
        if !ok {
            return Err(Error::invalid(format!(
                "batch dimension {i} does not broadcast: src {}, weights {}, dst {}",
                s[i], w[i], d[i]
            )));
        }
    }
    if let Some(b) = bias {
        if b.ndims() != n {
            return Err(Error::invalid(format!(
                "the bias has {} dimensions, dst {n}",
                b.ndims()
            )));
        }
        for (i, (&bd, &dd)) in b.dims().iter().zip(d).enumerate() {
            if !(bd == 1 || same(bd, dd)) {
                return Err(Error::invalid(format!(
                    "bias dimension {i} is {bd}, neither 1 nor dst's {dd}"
                )));
            }
        }
    }
    Ok(())
}

/// The GEMM of a matmul with concrete descriptors.
fn build_gemm(
    src: &MemoryDesc,
    wei: &MemoryDesc,
    bias: Option<&MemoryDesc>,
    dst: &MemoryDesc,
) -> Result<Gemm> {
    check_shapes(src, wei, bias, dst)?;
    let n = dst.ndims();
    let (ss, ws, ds) = (
        plain_strides(src, "src")?,
        plain_strides(wei, "weights")?,
        plain_strides(dst, "dst")?,
    );
    let bs = bias.map(|b| plain_strides(b, "bias")).transpose()?;
    let (sd, wd) = (src.dims(), wei.dims());
    let bcast = |dims: &[i64], strides: &[i64], i: usize| if dims[i] == 1 { 0 } else { strides[i] };
    let batch = (0..n - 2)
        .map(|i| BatchDim {
            size: dst.dims()[i],
            a: bcast(sd, &ss, i),
            b: bcast(wd, &ws, i),
            c: ds[i],
            bias: match (bias, &bs) {
                (Some(b), Some(s)) => bcast(b.dims(), s, i),
                _ => 0,
            },
        })
        .collect();
    if !dst.has_zero_dim() && !Layout::new(dst)?.is_non_overlapping() {
        return Err(Error::unimplemented("dst has overlapping elements"));
    }
    let operand = |md: &MemoryDesc, s: &[i64], what| -> Result<Operand> {
        let (r, c) = if md.dims()[n - 2] == 1 && md.dims()[n - 1] == 1 {
            (0, 0)
        } else {
            (bcast(md.dims(), s, n - 2), bcast(md.dims(), s, n - 1))
        };
        Ok(Operand {
            elem: any_elem(md, what)?,
            off: md.offset0(),
            rs: r,
            cs: c,
            bytes: span_bytes(md)?,
        })
    };
    Ok(Gemm {
        m: dst.dims()[n - 2],
        n: dst.dims()[n - 1],
        k: sd[n - 1],
        batch,
        a: operand(src, &ss, "src")?,
        b: operand(wei, &ws, "weights")?,
        c: operand(dst, &ds, "dst")?,
        bias: match (bias, &bs) {
            (Some(b), Some(s)) => Some(operand(b, s, "bias")?),
            _ => None,
        },
    })
}

/// Resolves `any` to plain row-major; other descriptors are kept.
fn resolve_any(md: &MemoryDesc) -> Result<MemoryDesc> {
    if !md.is_any_format() {
        return Ok(md.clone());
    }
    let n = md.ndims();
    let dims = md.dims();
    if dims.contains(&RUNTIME_DIM) {
        // Row-major strides are then only known at execution.
        let mut strides = vec![RUNTIME_DIM; n];
        strides[n - 1] = 1;
        return MemoryDesc::with_strides(dims, md.data_type(), Some(&strides));
    }
    MemoryDesc::with_strides(dims, md.data_type(), None)
}

/// Resolves int8 weights' `any` to K innermost (N next, the batch
/// dimensions outside in order); other descriptors, and ones with run-time
/// dimensions (row-major then), as [`resolve_any`].
fn resolve_any_k_inner(md: &MemoryDesc) -> Result<MemoryDesc> {
    let dims = md.dims();
    if !md.is_any_format() || dims.contains(&RUNTIME_DIM) {
        return resolve_any(md);
    }
    let n = dims.len();
    let mut strides = vec![0; n];
    strides[n - 2] = 1;
    strides[n - 1] = dims[n - 2].max(1);
    let mut step = strides[n - 1] * dims[n - 1].max(1);
    for d in (0..n - 2).rev() {
        strides[d] = step;
        step *= dims[d].max(1);
    }
    MemoryDesc::with_strides(dims, md.data_type(), Some(&strides))
}

/// Whether descriptor `given` (at execution) fits `declared` (at creation,
/// maybe with run-time values).
fn fits(declared: &MemoryDesc, given: &MemoryDesc) -> bool {
    if declared.ndims() != given.ndims()
        || declared.data_type() != given.data_type()
        || given.has_runtime_dims_or_strides()
    {
        return false;
    }
    let dims_ok = declared
        .dims()
        .iter()
        .zip(given.dims())
        .all(|(&a, &b)| a == RUNTIME_DIM || a == b);
    let strides_ok = match (declared.blocking(), given.blocking()) {
        (Some(a), Some(b)) => {
            a.inner_nblks == 0
                && b.inner_nblks == 0
                && (0..declared.ndims()).all(|i| {
                    a.strides[i] == RUNTIME_DIM
                        || a.strides[i] == b.strides[i]
                        || given.dims()[i] == 1
                })
        }
        _ => false,
    };
    let off_ok = declared.offset0() == RUNTIME_DIM || declared.offset0() == given.offset0();
    dims_ok && strides_ok && off_ok
}

/// A matmul operation.
pub struct MatmulOp {
    src: Arc<MemoryDesc>,
    weights: Arc<MemoryDesc>,
    bias: Option<Arc<MemoryDesc>>,
    dst: Arc<MemoryDesc>,
    epilogue: Epilogue,
    /// The floating-point math mode (down-conversions f32 operands may take).
    fpmath: dnnl_fpmath_mode_t,
    /// The GEMM, when nothing is left to execution.
    gemm: Option<Gemm>,
}

impl MatmulOp {
    /// `dnnl_matmul_primitive_desc_create`'s checks (`bias` None or the zero
    /// descriptor: no bias).
    pub fn new(
        src: &MemoryDesc,
        weights: &MemoryDesc,
        bias: Option<&MemoryDesc>,
        dst: &MemoryDesc,
        attr: Option<&PrimitiveAttr>,
    ) -> Result<MatmulOp> {
        let bias = bias.filter(|b| !b.is_zero());
        for (md, what) in [(src, "src"), (weights, "weights"), (dst, "dst")] {
            if md.is_zero() {
                return Err(Error::invalid(format!(
                    "the {what} memory descriptor has no dimensions"
                )));
            }
        }
        check_shapes(src, weights, bias, dst)?;
        let int8 = int8_elem(src).is_some();
        if int8 {
            // u8/s8 src: u8/s8 weights; any dst and bias type.
            if int8_elem(weights).is_none() {
                // Upstream refuses these as invalid (its int8 matmul takes
                // integer weights only).
                return Err(Error::invalid(format!(
                    "int8 matmul: weights of data type {} (s8 or u8 with a u8/s8 src)",
                    weights.data_type().0
                )));
            }
            any_elem(dst, "dst")?;
            if let Some(b) = bias {
                any_elem(b, "bias")?;
            }
        } else {
            let (s, w, d) = (
                float_elem(src, "src")?,
                float_elem(weights, "weights")?,
                float_elem(dst, "dst")?,
            );
            if s != w {
                return Err(Error::unimplemented(
                    "src and weights of different data types are not supported",
                ));
            }
            if let Some(b) = bias {
                let e = float_elem(b, "bias")?;
                if e != Elem::F32 && e != d && e != s {
                    return Err(Error::unimplemented(
                        "the bias must be f32, or of dst's or src's data type",
                    ));
                }
            }
        }
        let src = resolve_any(src)?;
        let weights = if int8 {
            resolve_any_k_inner(weights)?
        } else {
            resolve_any(weights)?
        };
        let dst = resolve_any(dst)?;
        let bias = bias.map(resolve_any).transpose()?;
        let bias = bias.as_ref();
        for (md, what) in [(&src, "src"), (&weights, "weights"), (&dst, "dst")] {
            plain_strides(md, what)?;
        }
        if let Some(b) = bias {
            plain_strides(b, "bias")?;
        }
        let rules = AttrRules {
            scales_ndims: Some(dst.ndims()),
            zp_ndims: int8.then_some(dst.ndims()),
            int8,
        };
        let epilogue = epilogue(attr, &dst, rules, "matmul")?;
        let runtime = [Some(&src), Some(&weights), bias, Some(&dst)]
            .into_iter()
            .flatten()
            .any(|md| md.has_runtime_dims_or_strides());
        let gemm = if runtime {
            None
        } else {
            Some(build_gemm(&src, &weights, bias, &dst)?)
        };
        Ok(MatmulOp {
            src: Arc::new(src),
            weights: Arc::new(weights),
            bias: bias.map(|b| Arc::new(b.clone())),
            dst: Arc::new(dst),
            epilogue,
            fpmath: match attr {
                Some(a) => a.fpmath.mode,
                None => crate::core::settings::default_fpmath_mode(),
            },
            gemm,
        })
    }

    /// The floating-point math mode.
    pub(crate) fn fpmath(&self) -> dnnl_fpmath_mode_t {
        self.fpmath
    }

    /// The epilogue.
    pub(crate) fn epilogue(&self) -> &Epilogue {
        &self.epilogue
    }

    /// The GEMM when it is fully known at creation.
    pub(crate) fn static_gemm(&self) -> Option<&Gemm> {
        self.gemm.as_ref()
    }

    /// The arguments behind the GEMM's operands.
    pub(crate) fn args(&self) -> GemmArgs {
        GemmArgs {
            a: DNNL_ARG_SRC,
            b: DNNL_ARG_WEIGHTS,
            c: DNNL_ARG_DST,
            bias: self.bias.as_ref().map(|_| DNNL_ARG_BIAS),
        }
    }

    /// The GEMM of one execution: the one known at creation, or one built
    /// from the memory objects' descriptors (checked against the op's).
    pub(crate) fn gemm(&self, ctx: &ExecContext) -> Result<Gemm> {
        if let Some(g) = &self.gemm {
            return Ok(g.clone());
        }
        let md = |arg: i32, declared: &MemoryDesc, what: &str| -> Result<Arc<MemoryDesc>> {
            let given = ctx.arg(arg)?.md().clone();
            if !fits(declared, &given) {
                return Err(Error::invalid(format!(
                    "the {what} memory does not fit the descriptor given at creation"
                )));
            }
            Ok(given)
        };
        let src = md(DNNL_ARG_SRC, &self.src, "src")?;
        let wei = md(DNNL_ARG_WEIGHTS, &self.weights, "weights")?;
        let dst = md(DNNL_ARG_DST, &self.dst, "dst")?;
        let bias = match &self.bias {
            Some(b) => Some(md(DNNL_ARG_BIAS, b, "bias")?),
            None => None,
        };
        build_gemm(&src, &wei, bias.as_deref(), &dst)
    }
}

impl OpDesc for MatmulOp {
    fn kind(&self) -> dnnl_primitive_kind_t {
        dnnl_matmul
    }

    fn arg_md(&self, arg: i32) -> Option<&Arc<MemoryDesc>> {
        match arg {
            DNNL_ARG_SRC => Some(&self.src),
            DNNL_ARG_WEIGHTS => Some(&self.weights),
            DNNL_ARG_BIAS | DNNL_ARG_WEIGHTS_1 => self.bias.as_ref(),
            DNNL_ARG_DST => Some(&self.dst),
            _ => self.epilogue.post_ops.arg_md(arg),
        }
    }

    fn inputs(&self) -> Vec<i32> {
        let mut v = vec![DNNL_ARG_SRC, DNNL_ARG_WEIGHTS];
        if self.bias.is_some() {
            v.push(DNNL_ARG_BIAS);
        }
        v.extend(self.epilogue.post_ops.inputs());
        v
    }

    fn outputs(&self) -> Vec<i32> {
        vec![DNNL_ARG_DST]
    }

    /// Upstream's problem string: `src_dims:weights_dims:dst_dims`, a
    /// run-time dimension as `*`.
    fn verbose_problem(&self) -> String {
        let dims = |md: &MemoryDesc| {
            md.dims()
                .iter()
                .map(|&d| {
                    if d == RUNTIME_DIM {
                        "*".to_string()
                    } else {
                        d.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join("x")
        };
        format!(
            "{}:{}:{}",
            dims(&self.src),
            dims(&self.weights),
            dims(&self.dst)
        )
    }

    fn cache_key(&self, w: &mut KeyWriter) -> bool {
        w.tag("matmul")
            .put(&self.src)
            .put(&self.weights)
            .put(&self.bias)
            .put(&self.dst)
            .i32(self.fpmath.0 as i32);
        self.epilogue.cache_key(w);
        true
    }
}

impl Kind for MatmulOp {
    const NAME: &'static str = "matmul";
    const IMPLS: &'static [Impl<MatmulOp>] = &[
        Impl::cpu(c"cpu:gemm", any_op, cpu::create),
        Impl::gpu(c"ocl:gemm_mma", ocl::accepts_mma, ocl::create_mma)
            .with_engine_scratchpad(ocl::mma_scratchpad),
        Impl::gpu(c"ocl:gemm_tiled", any_op, ocl::create),
    ];

    fn attr_support(&self) -> AttrSupport {
        AttrSupport {
            parts: &[
                AttrPart::PostOps,
                AttrPart::Deterministic,
                AttrPart::AccMode,
                AttrPart::Scales,
                AttrPart::ZeroPoints,
            ],
            scales: |arg| matches!(arg, DNNL_ARG_SRC | DNNL_ARG_WEIGHTS | DNNL_ARG_DST),
            zero_points: |arg| matches!(arg, DNNL_ARG_SRC | DNNL_ARG_WEIGHTS | DNNL_ARG_DST),
        }
    }
}
