//! Which GEMMs run on NVIDIA tensor cores (`gemm_mma.cl`, `ocl:gemm_mma`):
//! OpenCL engines on NVIDIA devices of compute capability 8.0 or later
//! (`cl_nv_device_attribute_query`), f16 or bf16 operands, or f32 ones
//! through tf32 where the floating-point math mode allows it, where the driver
//! builds the kernel's inline PTX (a probe kernel with one `mma.sync`, built
//! once per device model, driver and type). Elsewhere the portable
//! `gemm_tiled` runs; the reason shows under `ONEDNN_VERBOSE=dispatch`.
//! On compute capability 9.0 (Hopper), f16 and bf16 GEMMs, and tf32 and
//! int8 ones with B k-fastest, whose operands load 16 bytes at a time
//! multiply with `wgmma` ([`wgmma`]), which NVIDIA's OpenCL compiler
//! reaches only through arch-specific PTX
//! (`runtime::ocl::program::PTX_ARCH_SPECIFIC`).
//!
//! Layer: prims, over `core::gpu`.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::abi::*;
use crate::base::verbose;
use crate::core::error::{Error, Result};
use crate::core::gpu::GpuEngine;
use crate::prims::common::dt::Elem;
use crate::prims::common::post_ops::PostOpsPlan;

use super::Epilogue;

/// `gemm_mma.cl`.
pub(crate) const GEMM_MMA_CL: &str = include_str!("gemm_mma.cl");

/// What the tensor cores multiply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MmaType {
    F16,
    Bf16,
    /// f32 operands rounded to tf32 (the floating-point math mode allows
    /// it).
    Tf32,
    /// u8 or s8 operands (`true`: unsigned), s32 accumulators.
    Int8 {
        a_u8: bool,
        b_u8: bool,
    },
}

impl MmaType {
    /// The type for operands `a` and `b` under floating-point math mode
    /// `fpmath`: f16 and bf16 as they are; f32 where the mode allows a
    /// down-conversion at least as accurate as tf32 (`tf32`, `bf16`, `f16`
    /// and `any`: tf32 has the exponent of bf16 and the mantissa of f16).
    pub fn of(a: Elem, b: Elem, fpmath: dnnl_fpmath_mode_t) -> Result<MmaType> {
        match (a, b) {
            (Elem::F16, Elem::F16) => Ok(MmaType::F16),
            (Elem::Bf16, Elem::Bf16) => Ok(MmaType::Bf16),
            (Elem::U8 | Elem::S8, Elem::U8 | Elem::S8) => Ok(MmaType::Int8 {
                a_u8: a == Elem::U8,
                b_u8: b == Elem::U8,
            }),
            (Elem::F32, Elem::F32) if fpmath != dnnl_fpmath_mode_strict => Ok(MmaType::Tf32),
            (Elem::F32, Elem::F32) => Err(Error::unimplemented(
                "f32 operands under fpmath mode strict (tf32 needs tf32, bf16, f16 or any)",
            )),
            _ => Err(Error::unimplemented(format!(
                "{a:?} x {b:?} operands (f16, bf16, or f32 through tf32)"
            ))),
        }
    }

    /// The kernel's `-D` options.
    pub fn option(self) -> String {
        match self {
            MmaType::F16 => "-DMMA_BF16=0 -DMMA_TF32=0".into(),
            MmaType::Bf16 => "-DMMA_BF16=1 -DMMA_TF32=0".into(),
            MmaType::Tf32 => "-DMMA_BF16=0 -DMMA_TF32=1".into(),
            MmaType::Int8 { a_u8, b_u8 } => format!(
                "-DMMA_INT8=1 -DMMA_A_U8={} -DMMA_B_U8={}",
                u8::from(a_u8),
                u8::from(b_u8)
            ),
        }
    }

    /// Elements per 16 bytes (the kernel's vector loads).
    pub fn per_16_bytes(self) -> i64 {
        match self {
            MmaType::Tf32 => 4,
            MmaType::Int8 { .. } => 16,
            _ => 8,
        }
    }

    /// Whether B's tile is k-fastest (integers), so that 16-byte loads of
    /// B run along k, not n.
    pub fn b_k_fast(self) -> bool {
        matches!(self, MmaType::Int8 { .. })
    }
}

/// Whether `kind` (a primitive kind's name) with operands of types `a` and
/// `b` under floating-point math mode `fpmath`, epilogue `epi`, runs on the tensor cores of
/// `ocl`'s device; `Err` says why not (and is printed under
/// `ONEDNN_VERBOSE=dispatch`).
pub(crate) fn supported(
    ocl: GpuEngine,
    kind: &str,
    a: Elem,
    b: Elem,
    fpmath: dnnl_fpmath_mode_t,
    epi: &Epilogue,
) -> Result<MmaType> {
    let r = check(ocl, a, b, fpmath).and_then(|ty| match ty {
        // The kernel multiplies the raw integers: no zero points
        // subtracted at loads as gemm_tiled does (a dst one is added in
        // the epilogue).
        MmaType::Int8 { .. } if epi.zp_src.is_some() || epi.zp_wei.is_some() => {
            Err(Error::unimplemented(
                "int8 with src or weights zero points (gemm_tiled subtracts them)",
            ))
        }
        _ => Ok(ty),
    });
    if let Err(e) = &r
        && verbose::enabled(verbose::flag::DISPATCH)
    {
        verbose::emit_line(
            &format!("primitive,create:dispatch,{kind},"),
            &format!("ocl:gemm_mma: {e}"),
        );
    }
    r
}

fn check(ocl: GpuEngine, a: Elem, b: Elem, fpmath: dnnl_fpmath_mode_t) -> Result<MmaType> {
    let GpuEngine::Ocl(_) = ocl else {
        return Err(Error::unimplemented("tensor cores only through OpenCL"));
    };
    let Some((major, minor)) = ocl.nv_compute_capability() else {
        return Err(Error::unimplemented("not an NVIDIA device"));
    };
    if major < 8 {
        return Err(Error::unimplemented(format!(
            "compute capability {major}.{minor}: mma.sync of f16/bf16/tf32/int8 needs 8.0"
        )));
    }
    let ty = MmaType::of(a, b, fpmath)?;
    probe(ocl, &ty.option()).map(|_| ty).map_err(|e| {
        let first = e.lines().next().unwrap_or("").to_string();
        Error::unimplemented(format!("the driver rejected the PTX: {first}"))
    })
}

/// The probes' results (`Err`: the build error), by device model, driver
/// and options.
type Probes = Mutex<HashMap<String, std::result::Result<(), String>>>;

fn probes() -> &'static Probes {
    static PROBES: OnceLock<Probes> = OnceLock::new();
    PROBES.get_or_init(Default::default)
}

fn probe_key(ocl: GpuEngine, options: &str) -> Option<String> {
    let GpuEngine::Ocl(engine) = ocl else {
        return None;
    };
    let info = engine.info();
    Some(format!("{}|{}|{options}", info.name, info.driver_version))
}

/// Whether `mma_probe` builds with `options` on `ocl`'s device: built once
/// per device model, driver and options; `Err` is the build error.
fn probe(ocl: GpuEngine, options: &str) -> std::result::Result<(), String> {
    let key = probe_key(ocl, options).ok_or("tensor cores only through OpenCL")?;
    let mut probes = probes().lock().map_err(|e| e.to_string())?;
    probes
        .entry(key)
        .or_insert_with(|| {
            let source = super::ocl::mma_source(&PostOpsPlan::none());
            ocl.kernel(&source, options, "mma_probe")
                .map(|_| ())
                .map_err(|e| e.to_string())
        })
        .clone()
}

/// The wgmma probe's options for `ty`: the smallest wgmma kernel (one
/// warpgroup, 64 x 64 blocks, operands K-major).
fn wgmma_probe_options(ty: MmaType) -> String {
    format!(
        "{} -DA_VEC8=1 -DB_VEC8=1 -DB_KN=1 -DMMA_WGMMA=1 -DWGM_WGS=1 -DWGM_I=1 -DWGM_N=64 \
         -DMMA_STAGES=2 {}",
        ty.option(),
        crate::core::gpu::PTX_ARCH_SPECIFIC
    )
}

/// Whether `gemm_mma` multiplies `ty` with `wgmma` (warpgroup products
/// reading both operands from local memory, the sm_90a instructions
/// cuBLAS uses on Hopper) rather than `mma.sync`: compute capability 9.0,
/// `ONEDNN_NV_WGMMA` not `0`, and a probe kernel with one wgmma builds
/// through the arch-specific PTX route
/// (`runtime::ocl::program::PTX_ARCH_SPECIFIC`). The caller also needs
/// 16-byte loads of both operands, and for tf32 a k-fastest B (int8's
/// always is). The reason it is not shows under `ONEDNN_VERBOSE=dispatch`.
pub(crate) fn wgmma(ocl: GpuEngine, ty: MmaType) -> bool {
    let why_not = || -> std::result::Result<(), String> {
        match ocl.nv_compute_capability() {
            Some((9, 0)) => {}
            Some((major, minor)) => {
                return Err(format!(
                    "compute capability {major}.{minor}: wgmma is sm_90a's"
                ));
            }
            None => return Err("not an NVIDIA device".into()),
        }
        if std::env::var("ONEDNN_NV_WGMMA").is_ok_and(|v| v.trim() == "0") {
            return Err("ONEDNN_NV_WGMMA=0".into());
        }
        probe(ocl, &wgmma_probe_options(ty))
            .map_err(|e| format!("the driver rejected the sm_90a PTX: {}", one_line(&e)))
    };
    match why_not() {
        Ok(()) => true,
        Err(e) => {
            if verbose::enabled(verbose::flag::DISPATCH) {
                verbose::emit_line(
                    "primitive,create:dispatch,gemm,",
                    &format!("ocl:gemm_mma: mma.sync, not wgmma: {e}"),
                );
            }
            false
        }
    }
}

/// Records that a wgmma kernel of `ty` failed to build (`e`), so later
/// kernels take mma.sync (as if its probe had failed); the reason shows
/// under `ONEDNN_VERBOSE=dispatch`.
pub(crate) fn wgmma_failed(ocl: GpuEngine, ty: MmaType, e: &Error) {
    let text = e.to_string();
    if verbose::enabled(verbose::flag::DISPATCH) {
        verbose::emit_line(
            "primitive,create:dispatch,gemm,",
            &format!(
                "ocl:gemm_mma: the wgmma kernel did not build, mma.sync instead: {}",
                one_line(&text)
            ),
        );
    }
    if let (Some(key), Ok(mut probes)) = (probe_key(ocl, &wgmma_probe_options(ty)), probes().lock())
    {
        probes.insert(key, Err(text));
    }
}

/// A build error with its log's non-empty lines on one line.
fn one_line(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    lines.join(" | ")
}
