//! Primitive execution with OpenCL events.

use ::core::ffi::c_int;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::primitive::exec_args;
use crate::capi::handles;
use crate::core::gpu;
use crate::core::stream::Stream;
use crate::core::stream::StreamBackend;
use crate::core::{Error, Result};
use crate::runtime::ocl::{Event, Queue, foreign};

/// Retains the caller's dependency events, skipping NULL entries; each
/// must be an event of `stream`'s context.
///
/// # Safety
/// `deps`, when `ndeps > 0`, must be NULL or the caller's array (it is
/// checked readable before it is read; see `retain_events`).
unsafe fn retain_deps(stream: &Stream, deps: *const cl_event, ndeps: c_int) -> Result<Vec<Event>> {
    let n = usize::try_from(ndeps).map_err(|_| Error::invalid(format!("ndeps is {ndeps}")))?;
    if n == 0 {
        return Ok(Vec::new());
    }
    if deps.is_null() {
        return Err(Error::invalid("deps is NULL but ndeps is not 0"));
    }
    // SAFETY: the caller's promise, checked non-NULL.
    unsafe { retain_events(stream, deps, n) }
}

/// Retains the non-NULL entries of the caller's `n` events, after the
/// foreign-handle checks (`runtime::ocl::foreign`): the array must be
/// readable, each entry an OpenCL event, and of `stream`'s context.
///
/// # Safety
/// `deps` must not be memory that is unmapped while this runs (it is checked
/// readable first); see `Event::retain_borrowed` for the entries.
pub(crate) unsafe fn retain_events(
    stream: &Stream,
    deps: *const cl_event,
    n: usize,
) -> Result<Vec<Event>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    foreign::check_array(deps, n, "the cl_event list")?;
    let context = stream.engine().ocl("OpenCL dependency events")?.context();
    // SAFETY: `n` entries, checked readable above.
    let raw = unsafe { std::slice::from_raw_parts(deps, n) };
    let mut events = Vec::with_capacity(n);
    for (i, e) in raw.iter().enumerate().filter(|(_, e)| !e.is_null()) {
        // SAFETY: checked by `retain_borrowed` itself (foreign-handle checks).
        let event = unsafe { Event::retain_borrowed(e.cast()) }?;
        if !event.in_context(context)? {
            return Err(Error::invalid(format!(
                "event {i} of the list belongs to another OpenCL context than the stream"
            )));
        }
        events.push(event);
    }
    Ok(events)
}

/// Writes the event an interop execute returns, when `return_event` is not
/// NULL: on an out-of-order stream an event the caller owns, completing with
/// `done` (or, when nothing was enqueued, with `deps`); NULL on an in-order
/// stream, as oneDNN does.
///
/// # Safety
/// `return_event`, when not NULL, must be an aligned, writable `cl_event`.
pub(crate) unsafe fn give_return_event(
    stream: &Stream,
    queue: &Queue,
    done: Option<Event>,
    deps: &[Event],
    return_event: *mut cl_event,
) -> Result<()> {
    if return_event.is_null() {
        return Ok(());
    }
    let out = if stream.flags().out_of_order {
        let event = match done {
            Some(event) => event,
            // Nothing was enqueued (an empty tensor): a marker on the
            // dependencies completes when they do.
            None => queue.marker(deps)?,
        };
        // The caller's reference: retained, and deliberately not released here.
        let owned = event.clone();
        let raw = owned.raw();
        std::mem::forget(owned);
        raw.cast()
    } else {
        ::core::ptr::null_mut()
    };
    // SAFETY: the caller's writable cl_event (see above).
    unsafe { return_event.write(out) };
    Ok(())
}

/// Executes `primitive` on the OpenCL `stream` once every event of `deps` has
/// completed (NULL entries are ignored). Unlike oneDNN, `deps` are honoured
/// on in-order streams too. On an out-of-order stream, `*return_event` (when
/// `return_event` is not NULL) receives an event that completes with the
/// primitive; the caller owns it and releases it with `clReleaseEvent`. On an
/// in-order stream `*return_event` is set to NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ocl_interop_primitive_execute(
    primitive: const_dnnl_primitive_t,
    stream: dnnl_stream_t,
    nargs: c_int,
    args: *const dnnl_exec_arg_t,
    deps: *const cl_event,
    ndeps: c_int,
    return_event: *mut cl_event,
) -> dnnl_status_t {
    boundary::guard("dnnl_ocl_interop_primitive_execute", || {
        if !return_event.is_null() && !return_event.is_aligned() {
            return Err(Error::invalid("return_event is misaligned"));
        }
        let primitive = handles::resolve(primitive)?;
        let stream = handles::resolve(stream)?;
        let StreamBackend::Ocl(queue) = stream.backend() else {
            return Err(Error::invalid("the stream is not an OpenCL stream"));
        };
        // SAFETY: the C contract on `args` and `deps`.
        let args = unsafe { exec_args(nargs, args) }?;
        // SAFETY: as above.
        let deps = unsafe { retain_deps(&stream, deps, ndeps) }?;
        let gpu_deps: Vec<gpu::Event> = deps.iter().cloned().map(gpu::Event::Ocl).collect();
        let done = primitive
            .execute(&stream, &args, &gpu_deps)?
            .and_then(|e| e.as_ocl().cloned());
        // SAFETY: checked aligned above; the caller's writable cl_event.
        unsafe { give_return_event(&stream, queue.queue(), done, &deps, return_event) }?;
        Ok(())
    })
}
