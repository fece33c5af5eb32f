//! Service functions of the primitive API.

use crate::abi::*;
use crate::capi::boundary;
use crate::core::types::DataType;

/// Returns the size in bytes of one element of `data_type`; the 4-bit types
/// report 1. For `dnnl_data_type_undef` and values that are not data types it
/// returns `(size_t)-1`, as upstream does.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_data_type_size(data_type: dnnl_data_type_t) -> usize {
    boundary::guard_value("dnnl_data_type_size", usize::MAX, || {
        DataType::try_from(data_type)
            .map(DataType::size)
            .unwrap_or(usize::MAX)
    })
}

/// Writes the primitive cache's capacity (in primitives) to `*capacity`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_get_primitive_cache_capacity(
    capacity: *mut ::core::ffi::c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_get_primitive_cache_capacity", || {
        let out = boundary::out(capacity, "capacity")?;
        out.write(
            crate::core::primitive_cache::capacity().min(i32::MAX as usize) as ::core::ffi::c_int,
        );
        Ok(())
    })
}

/// Sets the primitive cache's capacity (0 turns caching off; entries beyond
/// the new capacity are dropped). Overrides `ONEDNN_PRIMITIVE_CACHE_CAPACITY`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_set_primitive_cache_capacity(
    capacity: ::core::ffi::c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_set_primitive_cache_capacity", || {
        crate::core::primitive_cache::set_capacity(capacity)
    })
}
