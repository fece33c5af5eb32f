//! Streams.

use ::core::ffi::c_uint;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::handles;
use crate::core::stream::{Stream, StreamFlags};

/// Creates a stream on `engine` with `flags` (`dnnl_stream_in_order`, the
/// default, or `dnnl_stream_out_of_order`, optionally with
/// `dnnl_stream_profiling`). On an OpenCL engine the stream gets its own
/// command queue. The caller owns `*stream` and releases it with `dnnl_stream_destroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_stream_create(
    stream: *mut dnnl_stream_t,
    engine: dnnl_engine_t,
    flags: c_uint,
) -> dnnl_status_t {
    boundary::guard("dnnl_stream_create", || {
        let out = boundary::out(stream, "stream")?;
        let engine = handles::resolve(engine)?;
        let created = Stream::create(engine, StreamFlags::from_c(flags)?)?;
        out.write(handles::publish(created));
        Ok(())
    })
}

/// Writes the engine of `stream` to `*engine`. The engine is not a new
/// reference: do not destroy it on the stream's behalf.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_stream_get_engine(
    stream: const_dnnl_stream_t,
    engine: *mut dnnl_engine_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_stream_get_engine", || {
        let out = boundary::out(engine, "engine")?;
        let stream = handles::resolve(stream)?;
        out.write(handles::expose(stream.engine()));
        Ok(())
    })
}

/// Waits until everything submitted to `stream` has completed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_stream_wait(stream: dnnl_stream_t) -> dnnl_status_t {
    boundary::guard("dnnl_stream_wait", || handles::resolve(stream)?.wait())
}

/// Releases the caller's stream handle.
/// NULL is accepted and does nothing (as upstream). The handle is dead from
/// this call on, even where other objects keep the object alive; an unknown
/// or already destroyed handle gets `dnnl_invalid_arguments`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_stream_destroy(stream: dnnl_stream_t) -> dnnl_status_t {
    boundary::guard("dnnl_stream_destroy", || handles::retire(stream))
}
