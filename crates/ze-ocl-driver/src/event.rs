//! Event pools and events, over OpenCL user events.
//!
//! Each ze event owns an OpenCL user event (its current "generation"). A command that
//! waits on the ze event has that user event in its OpenCL wait list. A command that
//! signals it gets a completion callback (`clSetEventCallback`) that completes the
//! user event of the generation it was enqueued against and, if the ze event was not
//! reset since, marks it signalled (waking host waiters, recording kernel timestamps).
//! zeEventHostSignal completes the current user event. A reset starts a new
//! generation with a fresh user event only when the current one is (or is about to
//! be) completed; an unsignalled event with nothing pending keeps its user event, so
//! commands already waiting on it are released by the next signal.

use std::ffi::c_void;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use level_zero_sys::*;

use crate::cl::{self, *};
use crate::context::{Context, context};
use crate::objects::{Registry, ZeResult, guard, input, out};

pub struct EventPool {
    pub ctx: Arc<Context>,
    pub flags: ze_event_pool_flags_t,
    pub count: u32,
    /// Indices in use by live events.
    used: Mutex<Vec<bool>>,
}

struct State {
    generation: u64,
    user: cl_event,
    signaled: bool,
    /// Signals enqueued against the current generation, not yet completed.
    pending: u32,
    /// (start, end) of the last signalling command, in ns.
    timestamps: Option<(u64, u64)>,
}

pub struct Event {
    pub pool: Arc<EventPool>,
    index: u32,
    state: Mutex<State>,
    cond: Condvar,
}

// SAFETY: cl_event handles are thread-safe; the state is behind a mutex.
unsafe impl Send for Event {}
// SAFETY: as above.
unsafe impl Sync for Event {}

pub static POOLS: Registry<EventPool> = Registry::new();
pub static EVENTS: Registry<Event> = Registry::new();

pub fn event(h: ze_event_handle_t) -> ZeResult<Arc<Event>> {
    EVENTS.get(h)
}

/// Nanoseconds of a monotonic host clock (zeDeviceGetGlobalTimestamps).
pub fn now_ns() -> u64 {
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

fn new_user_event(ctx: &Context) -> ZeResult<cl_event> {
    let mut err = 0;
    // SAFETY: valid context.
    let e = unsafe { (ctx.device.cl.clCreateUserEvent)(ctx.cl_context, &mut err) };
    cl::check(err)?;
    Ok(e)
}

/// What a completion callback needs; boxed and handed to OpenCL.
struct SignalJob {
    event: Arc<Event>,
    generation: u64,
    user: cl_event,
}

unsafe extern "C" fn on_complete(cmd: cl_event, _status: cl_int, data: *mut c_void) {
    // SAFETY: `data` is the Box<SignalJob> leaked by `Event::signal_on`, passed once.
    let job = unsafe { Box::from_raw(data.cast::<SignalJob>()) };
    let cl = job.event.pool.ctx.device.cl;
    let timestamps = if job
        .event
        .pool
        .flags
        .contains(ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP)
    {
        let read = |param| {
            // SAFETY: a completed command event of a profiling queue.
            cl::info_value::<u64>(|s, p, r| unsafe {
                (cl.clGetEventProfilingInfo)(cmd, param, s, p, r)
            })
            .ok()
        };
        read(CL_PROFILING_COMMAND_START).zip(read(CL_PROFILING_COMMAND_END))
    } else {
        None
    };
    {
        let mut st = job.event.state.lock().unwrap();
        if st.generation == job.generation {
            st.pending = st.pending.saturating_sub(1);
            st.signaled = true;
            st.timestamps = timestamps.or(st.timestamps);
            job.event.cond.notify_all();
        }
    }
    // SAFETY: our retained reference to the generation's user event; completing it
    // twice (host signal came first) only returns an error, ignored.
    unsafe {
        (cl.clSetUserEventStatus)(job.user, CL_COMPLETE);
        (cl.clReleaseEvent)(job.user);
    }
}

impl Event {
    fn cl(&self) -> &'static Cl {
        self.pool.ctx.device.cl
    }

    /// The current user event, retained for a wait list (release after enqueueing).
    pub fn wait_handle(&self) -> cl_event {
        let st = self.state.lock().unwrap();
        // SAFETY: a live user event.
        unsafe { (self.cl().clRetainEvent)(st.user) };
        st.user
    }

    /// Signals this event when the command `cmd` completes.
    pub fn signal_on(self: &Arc<Self>, cmd: cl_event) -> ZeResult<()> {
        let job = {
            let mut st = self.state.lock().unwrap();
            st.pending += 1;
            // SAFETY: a live user event; the job owns this reference.
            unsafe { (self.cl().clRetainEvent)(st.user) };
            Box::new(SignalJob {
                event: self.clone(),
                generation: st.generation,
                user: st.user,
            })
        };
        let data = Box::into_raw(job);
        // SAFETY: a valid command event; `data` is freed by the callback.
        let err =
            unsafe { (self.cl().clSetEventCallback)(cmd, CL_COMPLETE, on_complete, data.cast()) };
        if err != CL_SUCCESS {
            // SAFETY: the callback was not registered: we still own `data`.
            let job = unsafe { Box::from_raw(data) };
            // SAFETY: the reference retained above.
            unsafe { (self.cl().clReleaseEvent)(job.user) };
            return cl::check(err);
        }
        Ok(())
    }

    pub fn host_signal(&self) {
        let user = {
            let mut st = self.state.lock().unwrap();
            if st.signaled {
                return;
            }
            st.signaled = true;
            self.cond.notify_all();
            // SAFETY: a live user event, kept alive until completed below.
            unsafe { (self.cl().clRetainEvent)(st.user) };
            st.user
        };
        // SAFETY: our reference; completing a user event once.
        unsafe {
            (self.cl().clSetUserEventStatus)(user, CL_COMPLETE);
            (self.cl().clReleaseEvent)(user);
        }
    }

    pub fn reset(&self) -> ZeResult<()> {
        let mut st = self.state.lock().unwrap();
        if st.signaled || st.pending > 0 {
            let fresh = new_user_event(&self.pool.ctx)?;
            // SAFETY: our reference to the old user event (callbacks hold their own).
            unsafe { (self.cl().clReleaseEvent)(st.user) };
            st.user = fresh;
            st.generation += 1;
            st.pending = 0;
        }
        st.signaled = false;
        st.timestamps = None;
        Ok(())
    }

    pub fn is_signaled(&self) -> bool {
        self.state.lock().unwrap().signaled
    }

    /// Waits until signalled, at most `timeout_ns` (u64::MAX: forever).
    pub fn host_wait(&self, timeout_ns: u64) -> ze_result_t {
        let deadline =
            (timeout_ns != u64::MAX).then(|| Instant::now() + Duration::from_nanos(timeout_ns));
        let mut st = self.state.lock().unwrap();
        loop {
            if st.signaled {
                return ZE_RESULT_SUCCESS;
            }
            match deadline {
                None => st = self.cond.wait(st).unwrap(),
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        return ZE_RESULT_NOT_READY;
                    }
                    st = self.cond.wait_timeout(st, d - now).unwrap().0;
                }
            }
        }
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        let st = self.state.get_mut().unwrap();
        // SAFETY: our reference to the current user event.
        unsafe { (self.pool.ctx.device.cl.clReleaseEvent)(st.user) };
    }
}

pub unsafe extern "C" fn zeEventPoolCreate(
    hctx: ze_context_handle_t,
    desc: *const ze_event_pool_desc_t,
    num_devices: u32,
    devices: *mut ze_device_handle_t,
    out_pool: *mut ze_event_pool_handle_t,
) -> ze_result_t {
    guard(|| {
        let ctx = context(hctx)?;
        let desc = input(desc)?;
        let out_pool = out(out_pool)?;
        for &d in crate::objects::slice(devices, num_devices)? {
            crate::context::context_device(&ctx, d)?;
        }
        let known = ZE_EVENT_POOL_FLAG_HOST_VISIBLE
            | ZE_EVENT_POOL_FLAG_IPC
            | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP;
        if desc.flags.0 & !known.0 != 0 {
            return Err(ZE_RESULT_ERROR_INVALID_ENUMERATION);
        }
        if desc.count == 0 {
            return Err(ZE_RESULT_ERROR_INVALID_SIZE);
        }
        let pool = EventPool {
            ctx,
            flags: desc.flags,
            count: desc.count,
            used: Mutex::new(vec![false; desc.count as usize]),
        };
        *out_pool = POOLS.insert(Arc::new(pool));
        Ok(())
    })
}

pub unsafe extern "C" fn zeEventPoolDestroy(h: ze_event_pool_handle_t) -> ze_result_t {
    guard(|| POOLS.remove(h).map(drop))
}

pub unsafe extern "C" fn zeEventCreate(
    hpool: ze_event_pool_handle_t,
    desc: *const ze_event_desc_t,
    out_event: *mut ze_event_handle_t,
) -> ze_result_t {
    guard(|| {
        let pool = POOLS.get(hpool)?;
        let desc = input(desc)?;
        let out_event = out(out_event)?;
        if desc.index >= pool.count {
            return Err(ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        {
            let mut used = pool.used.lock().unwrap();
            if used[desc.index as usize] {
                return Err(ZE_RESULT_ERROR_INVALID_ARGUMENT);
            }
            used[desc.index as usize] = true;
        }
        let user = match new_user_event(&pool.ctx) {
            Ok(u) => u,
            Err(e) => {
                pool.used.lock().unwrap()[desc.index as usize] = false;
                return Err(e);
            }
        };
        let state = State {
            generation: 0,
            user,
            signaled: false,
            pending: 0,
            timestamps: None,
        };
        let ev = Event {
            pool,
            index: desc.index,
            state: Mutex::new(state),
            cond: Condvar::new(),
        };
        *out_event = EVENTS.insert(Arc::new(ev));
        Ok(())
    })
}

/// Frees the event's pool slot at once: launches still in flight may hold the object
/// a while longer, but the index is the application's to reuse.
pub unsafe extern "C" fn zeEventDestroy(h: ze_event_handle_t) -> ze_result_t {
    guard(|| {
        let ev = EVENTS.remove(h)?;
        ev.pool.used.lock().unwrap()[ev.index as usize] = false;
        Ok(())
    })
}

pub unsafe extern "C" fn zeEventHostSignal(h: ze_event_handle_t) -> ze_result_t {
    guard(|| {
        event(h)?.host_signal();
        Ok(())
    })
}

pub unsafe extern "C" fn zeEventHostSynchronize(h: ze_event_handle_t, timeout: u64) -> ze_result_t {
    guard(|| {
        let ev = event(h)?;
        match ev.host_wait(timeout) {
            r if r == ZE_RESULT_SUCCESS => Ok(()),
            r => Err(r),
        }
    })
}

pub unsafe extern "C" fn zeEventQueryStatus(h: ze_event_handle_t) -> ze_result_t {
    guard(|| {
        if event(h)?.is_signaled() {
            Ok(())
        } else {
            Err(ZE_RESULT_NOT_READY)
        }
    })
}

pub unsafe extern "C" fn zeEventHostReset(h: ze_event_handle_t) -> ze_result_t {
    guard(|| event(h)?.reset())
}

pub unsafe extern "C" fn zeEventQueryKernelTimestamp(
    h: ze_event_handle_t,
    result: *mut ze_kernel_timestamp_result_t,
) -> ze_result_t {
    guard(|| {
        let ev = event(h)?;
        let result = out(result)?;
        if !ev.pool.flags.contains(ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP) {
            return Err(ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        let st = ev.state.lock().unwrap();
        if !st.signaled {
            return Err(ZE_RESULT_NOT_READY);
        }
        let (start, end) = st.timestamps.unwrap_or((0, 0));
        let data = ze_kernel_timestamp_data_t {
            kernelStart: start,
            kernelEnd: end,
        };
        result.global = data;
        result.context = data;
        Ok(())
    })
}

/// Retained user events of `events`, for a wait list; released by [`release_all`].
pub fn wait_list(events: &[Arc<Event>]) -> Vec<cl_event> {
    events.iter().map(|e| e.wait_handle()).collect()
}

pub fn release_all(cl: &Cl, events: &[cl_event]) {
    for &e in events {
        if !e.is_null() {
            // SAFETY: references taken by wait_list / enqueue.
            unsafe { (cl.clReleaseEvent)(e) };
        }
    }
}
