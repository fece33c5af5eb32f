//! Process-wide graph settings: the compiled-partition cache, the constant
//! tensor cache and graph dumps.

use ::core::ffi::c_int;

use crate::abi::*;
use crate::capi::boundary;
use crate::core::engine::EngineKind;
use crate::core::error::{Error, Result};
use crate::graph::{constant_cache, cp_cache, dump};

/// The compiled-partition cache capacity (entries; 1024 by default).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_get_compiled_partition_cache_capacity(
    capacity: *mut c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_get_compiled_partition_cache_capacity", || {
        let out = boundary::out(capacity, "capacity")?;
        out.write(c_int::try_from(cp_cache::capacity()).unwrap_or(c_int::MAX));
        Ok(())
    })
}

/// Sets the compiled-partition cache capacity (0 turns the cache off;
/// negative is invalid).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_set_compiled_partition_cache_capacity(
    capacity: c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_set_compiled_partition_cache_capacity", || {
        cp_cache::set_capacity(capacity)
    })
}

/// Turns the constant tensor cache on (nonzero) or off (0; the default).
/// Negative is invalid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_set_constant_tensor_cache(flag: c_int) -> dnnl_status_t {
    boundary::guard("dnnl_graph_set_constant_tensor_cache", || {
        if flag < 0 {
            return Err(Error::invalid(format!(
                "constant cache flag {flag} is negative"
            )));
        }
        constant_cache::set_enabled(flag != 0);
        Ok(())
    })
}

/// Whether the constant tensor cache is on (1) or off (0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_get_constant_tensor_cache(flag: *mut c_int) -> dnnl_status_t {
    boundary::guard("dnnl_graph_get_constant_tensor_cache", || {
        boundary::out(flag, "flag")?.write(c_int::from(constant_cache::enabled()));
        Ok(())
    })
}

/// Upstream accepts any engine kind here and ignores the ones it has no
/// cache for; so do we (`any` and unknown values change nothing).
fn cache_kind(kind: dnnl_engine_kind_t) -> Result<Option<EngineKind>> {
    Ok(EngineKind::try_from(kind).ok())
}

/// Sets the constant tensor cache capacity for engines of `eng_kind`, in
/// megabytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_set_constant_tensor_cache_capacity(
    eng_kind: dnnl_engine_kind_t,
    size: usize,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_set_constant_tensor_cache_capacity", || {
        if let Some(kind) = cache_kind(eng_kind)? {
            constant_cache::set_capacity(kind, size);
        }
        Ok(())
    })
}

/// The constant tensor cache capacity for engines of `eng_kind`, in
/// megabytes (`SIZE_MAX >> 20` by default: unlimited).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_get_constant_tensor_cache_capacity(
    eng_kind: dnnl_engine_kind_t,
    size: *mut usize,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_get_constant_tensor_cache_capacity", || {
        let out = boundary::out(size, "size")?;
        let kind = cache_kind(eng_kind)?.unwrap_or(EngineKind::Cpu);
        out.write(constant_cache::capacity(kind));
        Ok(())
    })
}

/// Sets which graph dumps are written (`graph`, `subgraph`, both, none).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_set_dump_mode(modes: dnnl_graph_dump_mode_t) -> dnnl_status_t {
    boundary::guard("dnnl_graph_set_dump_mode", || dump::set_mode(modes))
}
