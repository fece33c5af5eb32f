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
