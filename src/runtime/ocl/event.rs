//! OpenCL events: the completion of one enqueued command.
//!
//! Layer: `runtime::ocl`. Every enqueue helper of `queue.rs` returns an
//! [`Event`] it owns. A slice `&[Event]` is a wait list as it is
//! (`#[repr(transparent)]`), with no copying.

use super::context::Context;
use super::error::{check, to_error};
use super::handle::cl_handle;
use super::info;
use super::loader::entry;
use super::sys::*;
use crate::base::Result;

cl_handle! {
    /// A `cl_event`.
    pub struct Event(cl_event), "cl_event";
    kind: Event, retain: clRetainEvent, release: clReleaseEvent, info: clGetEventInfo,
    refcount: CL_EVENT_REFERENCE_COUNT;
}

/// `(num_events_in_wait_list, event_wait_list)` for an enqueue call: NULL for
/// an empty list, as OpenCL requires.
pub(crate) fn wait_list(events: &[Event]) -> (cl_uint, *const cl_event) {
    if events.is_empty() {
        (0, std::ptr::null())
    } else {
        // `Event` is `#[repr(transparent)]` over a non-NULL `cl_event`.
        (events.len() as cl_uint, events.as_ptr().cast())
    }
}

impl Event {
    /// Blocks until the command is complete (`clWaitForEvents`); an error if
    /// it failed.
    pub fn wait(&self) -> Result<()> {
        Event::wait_all(std::slice::from_ref(self))
    }

    /// Blocks until all the commands are complete.
    pub fn wait_all(events: &[Event]) -> Result<()> {
        if events.is_empty() {
            return Ok(());
        }
        let f = entry!(clWaitForEvents)?;
        let (count, list) = wait_list(events);
        // SAFETY: `list` points at `count` live events.
        check(unsafe { f(count, list) }, "clWaitForEvents")
    }

    /// `CL_EVENT_COMMAND_EXECUTION_STATUS`: `CL_COMPLETE` (0), `CL_RUNNING`
    /// (1), `CL_SUBMITTED` (2), `CL_QUEUED` (3), or a negative error code.
    pub fn status(&self) -> Result<cl_int> {
        let f = entry!(clGetEventInfo)?;
        info::scalar(
            // SAFETY: a live event; the helper passes a buffer of `size` bytes.
            &|size, value, ret| unsafe {
                f(
                    self.raw,
                    CL_EVENT_COMMAND_EXECUTION_STATUS,
                    size,
                    value,
                    ret,
                )
            },
            "clGetEventInfo",
        )
    }

    /// Whether the event belongs to `context` (`CL_EVENT_CONTEXT`). On PoCL,
    /// which answers queries for objects of another type, this also tells
    /// most of those from events.
    pub fn in_context(&self, context: &Context) -> Result<bool> {
        let f = entry!(clGetEventInfo)?;
        let raw: cl_context = info::scalar(
            // SAFETY: a live event; the helper passes a buffer of `size` bytes.
            &|size, value, ret| unsafe { f(self.raw, CL_EVENT_CONTEXT, size, value, ret) },
            "clGetEventInfo",
        )?;
        Ok(raw == context.raw())
    }

    /// Whether the command is complete (successfully or not).
    pub fn is_complete(&self) -> Result<bool> {
        Ok(self.status()? <= CL_COMPLETE)
    }

    /// The command's `(start, end)` device times in nanoseconds; the queue
    /// must have profiling enabled (else `CL_PROFILING_INFO_NOT_AVAILABLE`).
    pub fn profiling_times(&self) -> Result<(u64, u64)> {
        let f = entry!(clGetEventProfilingInfo)?;
        let get = |param| {
            let mut value: u64 = 0;
            // SAFETY: a live event and room for the `cl_ulong` the query returns.
            let code = unsafe {
                f(
                    self.raw,
                    param,
                    8,
                    (&mut value as *mut u64).cast(),
                    std::ptr::null_mut(),
                )
            };
            if code == CL_SUCCESS {
                Ok(value)
            } else {
                Err(to_error(code, "clGetEventProfilingInfo"))
            }
        };
        Ok((
            get(CL_PROFILING_COMMAND_START)?,
            get(CL_PROFILING_COMMAND_END)?,
        ))
    }
}
