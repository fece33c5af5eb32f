//! Level Zero streams on the user's command list.

use ::core::ffi::c_int;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::handles;
use crate::core::Error;
use crate::core::stream::{Stream, StreamBackend};
use crate::runtime::ze::foreign;

/// Creates an in-order stream on the user's command `list` of the engine's
/// context and device (an immediate list, or a regular one: the library only
/// appends to a regular list, and the user closes and executes it; waiting
/// on the stream then needs the list executed). Every command the stream
/// appends waits for its previous one through events. `profiling` non-zero
/// makes the stream's events record kernel timestamps. The list is borrowed:
/// never destroyed or reset by the library, and it must outlive the stream.
/// Destroying the stream waits for the commands it appended. The caller owns
/// `*stream`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ze_interop_stream_create(
    stream: *mut dnnl_stream_t,
    engine: dnnl_engine_t,
    list: ze_command_list_handle_t,
    profiling: c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_ze_interop_stream_create", || {
        let out = boundary::out(stream, "stream")?;
        let engine = handles::resolve(engine)?;
        let ze = engine.ze("a Level Zero stream")?;
        foreign::check_object(ze.driver(), list.cast::<::core::ffi::c_void>(), "list")?;
        let queue = ze.user_queue(list.cast(), profiling != 0)?;
        out.write(handles::publish(Stream::from_ze_queue(engine, queue)));
        Ok(())
    })
}

/// Writes the stream's command list to `*list` (borrowed: the user's list,
/// or the library's own immediate list of a `dnnl_stream_create` stream,
/// destroyed with the stream).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ze_interop_stream_get_list(
    stream: dnnl_stream_t,
    list: *mut ze_command_list_handle_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_ze_interop_stream_get_list", || {
        let out = boundary::out(list, "list")?;
        let stream = handles::resolve(stream)?;
        match stream.backend() {
            StreamBackend::Ze(q) => out.write(q.list().raw().cast()),
            _ => return Err(Error::invalid("the stream is not a Level Zero stream")),
        }
        Ok(())
    })
}
