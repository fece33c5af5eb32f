//! Memory descriptors.

use crate::abi::*;
use crate::capi::boundary;
use crate::core::handles;

/// Releases the caller's memory descriptor handle.
/// Returns `dnnl_invalid_arguments` for a NULL, unknown or already destroyed handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_destroy(
    memory_desc: dnnl_memory_desc_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_desc_destroy", || handles::retire(memory_desc))
}
