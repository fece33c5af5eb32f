//! Process-wide graph settings: the compiled-partition cache, the constant
//! tensor cache and graph dumps.

use ::core::ffi::c_int;

use crate::abi::*;
use crate::capi::boundary;
use crate::core::error::Error;
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

/// Turns the constant tensor cache on (positive: the `cpu` and `gpu`
/// capacities become unlimited) or off (0: both become 0, the default).
/// Negative is invalid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_set_constant_tensor_cache(flag: c_int) -> dnnl_status_t {
    boundary::guard("dnnl_graph_set_constant_tensor_cache", || {
        if flag < 0 {
            return Err(Error::invalid(format!(
                "constant cache flag {flag} is negative"
            )));
        }
        constant_cache::set_enabled(flag != 0)
    })
}

/// Whether the constant tensor cache is on (1: the `cpu` or the `gpu`
/// capacity is nonzero) or off (0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_get_constant_tensor_cache(flag: *mut c_int) -> dnnl_status_t {
    boundary::guard("dnnl_graph_get_constant_tensor_cache", || {
        boundary::out(flag, "flag")?.write(c_int::from(constant_cache::enabled()));
        Ok(())
    })
}

/// Sets the constant tensor cache capacity for engines of `eng_kind`, in
/// megabytes (0 turns the cache off for them). As upstream, any engine kind
/// value is accepted and kept (only `cpu` and `gpu` engines use theirs);
/// `SIZE_MAX >> 20` and more mean unlimited.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_set_constant_tensor_cache_capacity(
    eng_kind: dnnl_engine_kind_t,
    size: usize,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_set_constant_tensor_cache_capacity", || {
        constant_cache::set_capacity_of(eng_kind.0, size)
    })
}

/// The constant tensor cache capacity for engines of `eng_kind`, in
/// megabytes: 0 by default (off), `SIZE_MAX >> 20` when unlimited.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_get_constant_tensor_cache_capacity(
    eng_kind: dnnl_engine_kind_t,
    size: *mut usize,
) -> dnnl_status_t {
    boundary::guard("dnnl_graph_get_constant_tensor_cache_capacity", || {
        let out = boundary::out(size, "size")?;
        out.write(constant_cache::capacity_of(eng_kind.0));
        Ok(())
    })
}

/// Sets which graph dumps are written (`graph`, `subgraph`, both, none).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_graph_set_dump_mode(modes: dnnl_graph_dump_mode_t) -> dnnl_status_t {
    boundary::guard("dnnl_graph_set_dump_mode", || dump::set_mode(modes))
}
