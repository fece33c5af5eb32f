//! OpenCL streams on the user's command queue.

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::handles;
use crate::core::ocl_engine::OclQueue;
use crate::core::stream::{Stream, StreamBackend};
use crate::core::{Error, Result};

pub(crate) fn stream_from_user(
    engine: dnnl_engine_t,
    queue: cl_command_queue,
) -> Result<std::sync::Arc<Stream>> {
    let engine = handles::resolve(engine)?;
    // SAFETY: the C contract: `queue` is an OpenCL command queue.
    let queue = unsafe { OclQueue::from_user(engine.ocl("an OpenCL stream")?, queue.cast()) }?;
    Stream::from_ocl_queue(engine, queue)
}

pub(crate) fn queue_of(stream: *const dnnl_stream) -> Result<cl_command_queue> {
    let stream = handles::resolve(stream)?;
    match stream.backend() {
        StreamBackend::Ocl(q) => Ok(q.queue().raw().cast()),
        _ => Err(Error::invalid("the stream is not an OpenCL stream")),
    }
}

/// Creates a stream on the user's `queue` (retained until the stream is
/// destroyed). In-order or out-of-order, and profiling, come from the queue's
/// own properties. The queue must belong to the engine's device and context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_stream_create(
    stream: *mut dnnl_stream_t,
    engine: dnnl_engine_t,
    queue: cl_command_queue,
) -> dnnl_status_t {
    boundary::guard("dnnl_ocl_interop_stream_create", || {
        let out = boundary::out(stream, "stream")?;
        out.write(handles::publish(stream_from_user(engine, queue)?));
        Ok(())
    })
}

/// Writes the stream's command queue to `*queue`: borrowed, not retained.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_stream_get_command_queue(
    stream: dnnl_stream_t,
    queue: *mut cl_command_queue,
) -> dnnl_status_t {
    boundary::guard("dnnl_ocl_interop_stream_get_command_queue", || {
        let out = boundary::out(queue, "queue")?;
        out.write(queue_of(stream)?);
        Ok(())
    })
}
