//! Primitive execution with Level Zero events.

use ::core::ffi::c_int;

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::dnnl::primitive::exec_args;
use crate::capi::handles;
use crate::core::gpu;
use crate::core::stream::StreamBackend;
use crate::core::{Error, Result};
use crate::runtime::ocl::foreign as ocl_foreign;
use crate::runtime::ze::{self, Raw, foreign};

/// The caller's dependency events, NULL entries skipped; the array must be
/// readable and each event pass the checks of `runtime::ze::foreign` for
/// `driver`.
///
/// # Safety
/// `deps` must not be unmapped while this runs (it is checked readable first).
unsafe fn deps_from_c(
    driver: ze_driver_handle_t,
    ndeps: c_int,
    deps: *const ze_event_handle_t,
) -> Result<Vec<gpu::Event>> {
    let n = usize::try_from(ndeps).map_err(|_| Error::invalid(format!("ndeps is {ndeps}")))?;
    if n == 0 {
        return Ok(Vec::new());
    }
    if deps.is_null() {
        return Err(Error::invalid("deps is NULL but ndeps is not 0"));
    }
    ocl_foreign::check_array(deps, n, "the ze_event_handle_t list")?;
    // SAFETY: `n` entries, checked readable above.
    let raw = unsafe { std::slice::from_raw_parts(deps, n) };
    let mut events = Vec::with_capacity(n);
    for &e in raw.iter().filter(|e| !e.is_null()) {
        foreign::check_object(driver.cast(), e, "event")?;
        events.push(gpu::Event::Ze(ze::Event(Raw(e.cast()))));
    }
    Ok(events)
}

/// Executes `primitive` on the Level Zero `stream`: appends a wait for every
/// event of `deps` (`ndeps` of them; NULL entries are ignored; note that
/// `ndeps` comes before `deps`, unlike the OpenCL function), then the
/// primitive's commands. When `return_event` is not NULL, `*return_event`
/// receives an event signalled when the primitive completes: never NULL
/// (unlike oneDNN, which returns NULL for its in-order streams), also for a
/// primitive with nothing to compute. The event belongs to the stream: the
/// caller must not destroy or reset it, and it stays valid until the next
/// `dnnl_stream_wait` on the stream or the stream's destruction, after which
/// the library may reuse it. `deps` are not retained (Level Zero has no
/// reference counts): they must stay alive until the primitive completes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_ze_interop_primitive_execute(
    primitive: const_dnnl_primitive_t,
    stream: dnnl_stream_t,
    nargs: c_int,
    args: *const dnnl_exec_arg_t,
    ndeps: c_int,
    deps: *const ze_event_handle_t,
    return_event: *mut ze_event_handle_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_ze_interop_primitive_execute", || {
        if !return_event.is_null() && !return_event.is_aligned() {
            return Err(Error::invalid("return_event is misaligned"));
        }
        let primitive = handles::resolve(primitive)?;
        let stream = handles::resolve(stream)?;
        let StreamBackend::Ze(queue) = stream.backend() else {
            return Err(Error::invalid("the stream is not a Level Zero stream"));
        };
        // SAFETY: the C contract on `args`.
        let args = unsafe { exec_args(nargs, args) }?;
        let driver = stream.engine().ze("a Level Zero execute")?.driver();
        // SAFETY: the C contract on `deps` (the list is checked readable first).
        let deps = unsafe { deps_from_c(driver.cast(), ndeps, deps) }?;
        let done = primitive.execute(&stream, &args, &deps)?;
        if return_event.is_null() {
            return Ok(());
        }
        let event = match done.and_then(|e| e.as_ze()) {
            Some(event) => event,
            // Nothing was appended (an empty tensor): a barrier on the
            // dependencies completes when they do.
            None => {
                let waits: Vec<ze::Event> = deps.iter().filter_map(|e| e.as_ze()).collect();
                queue.marker(&waits)?
            }
        };
        // SAFETY: checked non-NULL and aligned above; the caller's writable handle.
        unsafe { return_event.write(event.raw().cast()) };
        Ok(())
    })
}
