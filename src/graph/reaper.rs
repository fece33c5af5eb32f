//! Deferred frees: graph memory still used by an enqueued command goes back
//! to its allocator once that command's event has completed.
//!
//! Layer: graph, over `runtime::ocl`. Why a thread: a free must never run
//! before the event completes (the user's callback may free at once), and
//! the caller of execute must not be blocked waiting for it. OpenCL event
//! callbacks (`clSetEventCallback`) are not the place to call the user's
//! free: the callback may itself make blocking OpenCL calls, which the
//! OpenCL specification leaves undefined inside event callbacks, and an
//! event of a queue nobody flushes never fires. So one library thread,
//! started on first use, waits for the events in submission order
//! (`clWaitForEvents` flushes their queues) and runs each free right after
//! its event. A free whose event is already complete runs at once on the
//! caller's thread. Pending frees at process exit are abandoned with the
//! process (nothing runs OpenCL from exit handlers).

use std::collections::VecDeque;
use std::sync::{Condvar, LazyLock, Mutex, Once};

use crate::core::verbose;
use crate::runtime::ocl::Event;

/// A free to run after `event`; it receives the (complete) event.
pub type Free = Box<dyn FnOnce(&Event) + Send>;

struct Job {
    event: Event,
    free: Free,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Job>,
    /// Jobs handed out or queued whose free has not returned yet.
    pending: usize,
}

#[derive(Default)]
struct Reaper {
    state: Mutex<State>,
    /// Signalled when a job is queued.
    work: Condvar,
    /// Signalled when a free has run.
    done: Condvar,
}

static REAPER: LazyLock<Reaper> = LazyLock::new(Reaper::default);
static THREAD: Once = Once::new();
static THREAD_STARTED: Mutex<bool> = Mutex::new(false);

/// Runs `free` once `event` has completed, without blocking the caller
/// (unless no thread can be started, in which case it waits here).
pub fn defer(event: Event, free: Free) {
    if event.is_complete().unwrap_or(false) {
        free(&event);
        return;
    }
    if !start_thread() {
        wait_logged(&event);
        free(&event);
        return;
    }
    let Ok(mut state) = REAPER.state.lock() else {
        wait_logged(&event);
        free(&event);
        return;
    };
    state.pending += 1;
    state.queue.push_back(Job { event, free });
    REAPER.work.notify_one();
}

/// Blocks until every deferred free has run.
pub fn wait_idle() {
    let Ok(mut state) = REAPER.state.lock() else {
        return;
    };
    while state.pending > 0 {
        state = match REAPER.done.wait(state) {
            Ok(state) => state,
            Err(_) => return,
        };
    }
}

/// Waits for `event`. A failed command has ended too, and its memory must be
/// freed all the same: the failure is only logged.
fn wait_logged(event: &Event) {
    if let Err(e) = event.wait()
        && verbose::enabled(verbose::flag::ERROR)
    {
        verbose::emit_line("graph,error,", &format!("deferred free: {e}"));
    }
}

fn start_thread() -> bool {
    THREAD.call_once(|| {
        let spawned = std::thread::Builder::new()
            .name("dnnl-graph-free".into())
            .spawn(run)
            .is_ok();
        if let Ok(mut started) = THREAD_STARTED.lock() {
            *started = spawned;
        }
    });
    THREAD_STARTED.lock().map(|s| *s).unwrap_or(false)
}

fn run() {
    loop {
        let job = {
            let Ok(mut state) = REAPER.state.lock() else {
                return;
            };
            loop {
                if let Some(job) = state.queue.pop_front() {
                    break job;
                }
                state = match REAPER.work.wait(state) {
                    Ok(state) => state,
                    Err(_) => return,
                };
            }
        };
        wait_logged(&job.event);
        (job.free)(&job.event);
        if let Ok(mut state) = REAPER.state.lock() {
            state.pending -= 1;
        }
        REAPER.done.notify_all();
    }
}
