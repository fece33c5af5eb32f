//! Engines.

use crate::abi::*;
use crate::capi::boundary;
use crate::core::handles;

/// Releases the caller's engine handle. Objects created on the engine keep it
/// alive until they are destroyed too.
/// Returns `dnnl_invalid_arguments` for a NULL, unknown or already destroyed handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_engine_destroy(engine: dnnl_engine_t) -> dnnl_status_t {
    boundary::guard("dnnl_engine_destroy", || handles::retire(engine))
}
