//! Service functions of the primitive API.

use crate::abi::*;
use crate::capi::boundary;
use crate::core::types::DataType;

/// Returns the size in bytes of one element of `data_type`, or 0 for
/// `dnnl_data_type_undef` and values that are not data types. Sub-byte types
/// (4-bit, e8m0 packs) report 1, as upstream does.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_data_type_size(data_type: dnnl_data_type_t) -> usize {
    boundary::guard_value("dnnl_data_type_size", 0, || {
        DataType::try_from(data_type).map(DataType::size).unwrap_or(0)
    })
}
