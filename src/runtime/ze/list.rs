//! Level Zero command lists: the library's own immediate lists, and the
//! user's lists (immediate or regular), borrowed.
//!
//! Layer: `runtime::ze`. Only our own lists are destroyed on drop. Every
//! append names the event it signals and the events it waits for, so
//! ordering never depends on the list's mode.

use std::ffi::c_void;

use level_zero_sys as sys;

use super::event::{Event, wait_list};
use super::{Raw, api, check};
use crate::base::Result;

/// A command list, ours or the user's.
pub struct CommandList {
    raw: Raw<sys::ze_command_list_handle_t>,
    owned: bool,
}

impl CommandList {
    /// A new immediate list of `device` in `context` (the first queue group,
    /// asynchronous mode).
    pub fn create_immediate(
        context: sys::ze_context_handle_t,
        device: sys::ze_device_handle_t,
    ) -> Result<CommandList> {
        let api = api()?;
        let desc = sys::ze_command_queue_desc_t {
            mode: sys::ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
            ..Default::default()
        };
        let mut list: sys::ze_command_list_handle_t = std::ptr::null_mut();
        check(
            // SAFETY: live context and device, a descriptor with its stype, a
            // writable output.
            unsafe { api.zeCommandListCreateImmediate(context, device, &desc, &mut list) },
            "zeCommandListCreateImmediate",
        )?;
        Ok(CommandList {
            raw: Raw(list),
            owned: true,
        })
    }

    /// The user's list, borrowed: never destroyed here.
    pub fn borrowed(list: sys::ze_command_list_handle_t) -> CommandList {
        CommandList {
            raw: Raw(list),
            owned: false,
        }
    }

    /// The handle (borrowed by callers that hand it to C).
    pub fn raw(&self) -> sys::ze_command_list_handle_t {
        self.raw.0
    }

    /// Whether the library created the list.
    pub fn is_owned(&self) -> bool {
        self.owned
    }

    /// Appends a barrier that waits for `wait` (every earlier command of the
    /// list when empty) and signals `signal`.
    pub fn barrier(&self, signal: Event, wait: &[Event]) -> Result<()> {
        let api = api()?;
        let (n, mut waits) = wait_list(wait);
        check(
            // SAFETY: a live list and live events.
            unsafe {
                api.zeCommandListAppendBarrier(self.raw.0, signal.raw(), n, ptr_or_null(&mut waits))
            },
            "zeCommandListAppendBarrier",
        )
    }

    /// Appends a copy of `size` bytes after `wait`, signalling `signal`.
    ///
    /// # Safety
    /// Both pointers must be USM (or host memory the device may access)
    /// holding `size` bytes until the copy completes.
    pub unsafe fn copy(
        &self,
        dst: *mut c_void,
        src: *const c_void,
        size: usize,
        signal: Event,
        wait: &[Event],
    ) -> Result<()> {
        let api = api()?;
        let (n, mut waits) = wait_list(wait);
        check(
            // SAFETY: the caller's promise on the pointers; a live list and events.
            unsafe {
                api.zeCommandListAppendMemoryCopy(
                    self.raw.0,
                    dst,
                    src,
                    size,
                    signal.raw(),
                    n,
                    ptr_or_null(&mut waits),
                )
            },
            "zeCommandListAppendMemoryCopy",
        )
    }
}

fn ptr_or_null(v: &mut [sys::ze_event_handle_t]) -> *mut sys::ze_event_handle_t {
    if v.is_empty() {
        std::ptr::null_mut()
    } else {
        v.as_mut_ptr()
    }
}

impl Drop for CommandList {
    fn drop(&mut self) {
        if !self.owned {
            return;
        }
        if let Ok(api) = api() {
            // SAFETY: our list, destroyed once, its commands waited for by
            // the owner (the stream waits before dropping it).
            let r = unsafe { api.zeCommandListDestroy(self.raw.0) };
            if let Err(e) = check(r, "zeCommandListDestroy") {
                super::warn(&e.to_string());
            }
        }
    }
}
