//! Which GEMMs run on NVIDIA tensor cores (`gemm_mma.cl`, `ocl:gemm_mma`):
//! OpenCL engines on NVIDIA devices of compute capability 8.0 or later
//! (`cl_nv_device_attribute_query`), f16 or bf16 operands, where the driver
//! builds the kernel's inline PTX (a probe kernel with one `mma.sync`, built
//! once per device model, driver and type). Elsewhere the portable
//! `gemm_tiled` runs; the reason shows under `ONEDNN_VERBOSE=dispatch`.
//!
//! Layer: prims, over `core::gpu`.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::base::verbose;
use crate::core::error::{Error, Result};
use crate::core::gpu::GpuEngine;
use crate::prims::common::dt::Elem;
use crate::prims::common::post_ops::PostOpsPlan;

/// `gemm_mma.cl`.
pub(crate) const GEMM_MMA_CL: &str = include_str!("gemm_mma.cl");

/// The `-D` option of the operand type (`Some` for f16 and bf16).
pub(crate) fn type_option(a: Elem) -> Option<&'static str> {
    match a {
        Elem::F16 => Some("-DMMA_BF16=0"),
        Elem::Bf16 => Some("-DMMA_BF16=1"),
        _ => None,
    }
}

/// Whether `kind` (a primitive kind's name) with operands of types `a` and
/// `b` runs on the tensor cores of `ocl`'s device; `Err` says why not (and
/// is printed under `ONEDNN_VERBOSE=dispatch`).
pub(crate) fn supported(ocl: GpuEngine, kind: &str, a: Elem, b: Elem) -> Result<()> {
    let r = check(ocl, a, b);
    if let Err(e) = &r {
        if verbose::enabled(verbose::flag::DISPATCH) {
            verbose::emit_line(
                &format!("primitive,create:dispatch,{kind},"),
                &format!("ocl:gemm_mma: {e}"),
            );
        }
    }
    r
}

fn check(ocl: GpuEngine, a: Elem, b: Elem) -> Result<()> {
    let GpuEngine::Ocl(engine) = ocl else {
        return Err(Error::unimplemented("tensor cores only through OpenCL"));
    };
    let Some((major, minor)) = ocl.nv_compute_capability() else {
        return Err(Error::unimplemented("not an NVIDIA device"));
    };
    if major < 8 {
        return Err(Error::unimplemented(format!(
            "compute capability {major}.{minor}: mma.sync of f16/bf16 needs 8.0"
        )));
    }
    let Some(option) = type_option(a).filter(|_| a == b) else {
        return Err(Error::unimplemented(format!(
            "{a:?} x {b:?} operands (f16 or bf16 only)"
        )));
    };
    static PROBES: OnceLock<Mutex<HashMap<String, std::result::Result<(), String>>>> =
        OnceLock::new();
    let info = engine.info();
    let key = format!("{}|{}|{option}", info.name, info.driver_version);
    let mut probes = PROBES.get_or_init(Default::default).lock()?;
    let result = probes.entry(key).or_insert_with(|| {
        let source = super::ocl::mma_source(&PostOpsPlan::none());
        ocl.kernel(&source, option, "mma_probe")
            .map(|_| ())
            .map_err(|e| e.to_string())
    });
    result.clone().map_err(|e| {
        let first = e.lines().next().unwrap_or("").to_string();
        Error::unimplemented(format!("the driver rejected the PTX: {first}"))
    })
}
