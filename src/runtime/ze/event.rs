//! Level Zero events: the completion of one appended command, from event
//! pools the library owns.
//!
//! Layer: `runtime::ze`. Level Zero events are not reference counted and an
//! event can only be reused once nothing waits for it, so a stream's events
//! come from its own [`EventSet`]: pools of [`POOL_SIZE`] host-visible
//! events (with kernel timestamps when the stream profiles), handed out one
//! per command. Every event handed out stays signalled (or pending) until
//! the stream's next `wait` ([`EventSet::recycle`], called once the stream's
//! commands have completed); after that it may be reset and reused. An
//! [`Event`] is a plain copyable handle: what it names lives as long as the
//! set (the stream) that made it, or the user's own event.

use level_zero_sys as sys;

use super::{Raw, api, check};
use crate::base::Result;

/// Events per pool.
pub const POOL_SIZE: u32 = 64;

/// An event handle (ours, from an [`EventSet`], or the user's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event(pub Raw<sys::ze_event_handle_t>);

impl Event {
    /// The raw handle.
    pub fn raw(self) -> sys::ze_event_handle_t {
        self.0.0
    }

    /// Blocks until the event is signalled.
    pub fn wait(self) -> Result<()> {
        let api = api()?;
        check(
            // SAFETY: a live event (see the module doc on lifetimes).
            unsafe { api.zeEventHostSynchronize(self.raw(), u64::MAX) },
            "zeEventHostSynchronize",
        )
    }

    /// Whether the event is signalled.
    pub fn is_signalled(self) -> Result<bool> {
        let api = api()?;
        // SAFETY: a live event.
        let r = unsafe { api.zeEventQueryStatus(self.raw()) };
        if r == sys::ZE_RESULT_NOT_READY {
            return Ok(false);
        }
        check(r, "zeEventQueryStatus")?;
        Ok(true)
    }

    /// The kernel's `(start, end)` device timestamps (ticks); the event must
    /// come from a set made with timestamps.
    pub fn kernel_timestamps(self) -> Result<(u64, u64)> {
        let api = api()?;
        let mut ts = sys::ze_kernel_timestamp_result_t::default();
        check(
            // SAFETY: a live, signalled event and a writable result.
            unsafe { api.zeEventQueryKernelTimestamp(self.raw(), &mut ts) },
            "zeEventQueryKernelTimestamp",
        )?;
        Ok((ts.global.kernelStart, ts.global.kernelEnd))
    }
}

/// Raw handles of `events` as a wait list (NULL for an empty one).
pub fn wait_list(events: &[Event]) -> (u32, Vec<sys::ze_event_handle_t>) {
    let raw: Vec<_> = events.iter().map(|e| e.raw()).collect();
    (raw.len() as u32, raw)
}

struct Pool {
    pool: Raw<sys::ze_event_pool_handle_t>,
    events: Vec<Raw<sys::ze_event_handle_t>>,
}

/// The events of one stream.
pub struct EventSet {
    context: Raw<sys::ze_context_handle_t>,
    timestamps: bool,
    pools: Vec<Pool>,
    /// Events that may be handed out; `true` when they need a reset first.
    free: Vec<(Raw<sys::ze_event_handle_t>, bool)>,
    /// Events handed out since the last recycle.
    used: Vec<Raw<sys::ze_event_handle_t>>,
}

impl EventSet {
    /// An empty set for streams of `context`; `timestamps` makes events that
    /// record kernel timestamps (profiling streams).
    pub fn new(context: sys::ze_context_handle_t, timestamps: bool) -> EventSet {
        EventSet {
            context: Raw(context),
            timestamps,
            pools: Vec::new(),
            free: Vec::new(),
            used: Vec::new(),
        }
    }

    fn grow(&mut self) -> Result<()> {
        let api = api()?;
        let mut flags = sys::ZE_EVENT_POOL_FLAG_HOST_VISIBLE;
        if self.timestamps {
            flags |= sys::ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP;
        }
        let desc = sys::ze_event_pool_desc_t {
            flags,
            count: POOL_SIZE,
            ..Default::default()
        };
        let mut pool: sys::ze_event_pool_handle_t = std::ptr::null_mut();
        check(
            // SAFETY: a live context, a descriptor with its stype, no device list
            // (every device of the context), a writable output.
            unsafe {
                api.zeEventPoolCreate(self.context.0, &desc, 0, std::ptr::null_mut(), &mut pool)
            },
            "zeEventPoolCreate",
        )?;
        let mut p = Pool {
            pool: Raw(pool),
            events: Vec::new(),
        };
        for index in 0..POOL_SIZE {
            let desc = sys::ze_event_desc_t {
                index,
                signal: sys::ZE_EVENT_SCOPE_FLAG_HOST,
                wait: sys::ZE_EVENT_SCOPE_FLAG_HOST,
                ..Default::default()
            };
            let mut event: sys::ze_event_handle_t = std::ptr::null_mut();
            // SAFETY: our pool, an index below its count, a writable output.
            let r = unsafe { api.zeEventCreate(pool, &desc, &mut event) };
            if let Err(e) = check(r, "zeEventCreate") {
                destroy_pool(&p);
                return Err(e);
            }
            p.events.push(Raw(event));
        }
        self.free.extend(p.events.iter().map(|e| (*e, false)));
        self.pools.push(p);
        Ok(())
    }

    /// An unsignalled event for the next command.
    pub fn acquire(&mut self) -> Result<Event> {
        if self.free.is_empty() {
            self.grow()?;
        }
        let Some((event, dirty)) = self.free.pop() else {
            return Err(crate::base::Error::runtime("no Level Zero event available"));
        };
        if dirty {
            let api = api()?;
            // SAFETY: our event, complete (recycled after the stream waited).
            let r = unsafe { api.zeEventHostReset(event.0) };
            if let Err(e) = check(r, "zeEventHostReset") {
                self.free.push((event, dirty));
                return Err(e);
            }
        }
        self.used.push(event);
        Ok(Event(event))
    }

    /// Makes every event handed out so far reusable. The caller has waited
    /// for every command of the stream. Events stay signalled until reused.
    pub fn recycle(&mut self) {
        let used = std::mem::take(&mut self.used);
        self.free.extend(used.into_iter().map(|e| (e, true)));
    }
}

fn destroy_pool(pool: &Pool) {
    let Ok(api) = api() else { return };
    for event in &pool.events {
        // SAFETY: our event; nothing uses it any more.
        let r = unsafe { api.zeEventDestroy(event.0) };
        if let Err(e) = check(r, "zeEventDestroy") {
            super::warn(&e.to_string());
        }
    }
    // SAFETY: our pool, its events destroyed.
    let r = unsafe { api.zeEventPoolDestroy(pool.pool.0) };
    if let Err(e) = check(r, "zeEventPoolDestroy") {
        super::warn(&e.to_string());
    }
}

impl Drop for EventSet {
    fn drop(&mut self) {
        for pool in &self.pools {
            destroy_pool(pool);
        }
    }
}
