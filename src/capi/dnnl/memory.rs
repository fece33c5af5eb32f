//! Memory objects.

use crate::abi::*;
use crate::capi::boundary;
use crate::core::handles;

/// Releases the caller's memory handle.
/// Returns `dnnl_invalid_arguments` for a NULL, unknown or already destroyed handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_destroy(memory: dnnl_memory_t) -> dnnl_status_t {
    boundary::guard("dnnl_memory_destroy", || handles::retire(memory))
}
