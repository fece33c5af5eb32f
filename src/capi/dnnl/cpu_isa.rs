//! The CPU ISA controls of `dnnl.h`: the maximum ISA, the effective one and
//! the ISA hints, as upstream's x64 build answers them (`base::isa`).

use crate::abi::*;
use crate::base::isa;
use crate::capi::boundary;

/// Limits the CPU kernels to `isa` and below (`dnnl_cpu_isa_default`: no
/// limit). Only before the first primitive descriptor is created or the
/// effective ISA is queried, and only once: afterwards, or for a value that is
/// not a `dnnl_cpu_isa_t`, returns `dnnl_invalid_arguments`, as upstream.
/// `ONEDNN_MAX_CPU_ISA` sets the initial limit the same way.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_set_max_cpu_isa(isa: dnnl_cpu_isa_t) -> dnnl_status_t {
    boundary::guard("dnnl_set_max_cpu_isa", || isa::set_max(isa.0))
}

/// Returns the highest ISA of `dnnl_cpu_isa_t` that this CPU has within the
/// limit. The limit cannot be changed afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_get_effective_cpu_isa() -> dnnl_cpu_isa_t {
    boundary::guard_value("dnnl_get_effective_cpu_isa", dnnl_cpu_isa_t(0), || {
        dnnl_cpu_isa_t(isa::effective())
    })
}

/// Records ISA hints (any value is taken, as upstream; no kernel of ours acts
/// on them). Once only, before `dnnl_get_cpu_isa_hints` is first called:
/// afterwards returns `dnnl_runtime_error`, as upstream.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_set_cpu_isa_hints(isa_hints: dnnl_cpu_isa_hints_t) -> dnnl_status_t {
    boundary::guard("dnnl_set_cpu_isa_hints", || isa::set_hints(isa_hints.0))
}

/// Returns the ISA hints set (`dnnl_cpu_isa_no_hints` by default); they cannot
/// be set afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_get_cpu_isa_hints() -> dnnl_cpu_isa_hints_t {
    boundary::guard_value("dnnl_get_cpu_isa_hints", dnnl_cpu_isa_hints_t(0), || {
        dnnl_cpu_isa_hints_t(isa::hints())
    })
}
