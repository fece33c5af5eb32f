//! Streams.

use crate::abi::*;
use crate::capi::boundary;
use crate::core::handles;

/// Releases the caller's stream handle.
/// Returns `dnnl_invalid_arguments` for a NULL, unknown or already destroyed handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_stream_destroy(stream: dnnl_stream_t) -> dnnl_status_t {
    boundary::guard("dnnl_stream_destroy", || handles::retire(stream))
}
