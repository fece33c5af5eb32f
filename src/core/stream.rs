//! Streams: the order in which work is submitted to an engine.
//!
//! Layer: core. A CPU stream runs each execution to completion on the calling
//! thread (and the host's worker threads), so in-order and out-of-order are
//! both trivially honoured. An OpenCL stream wraps a command queue, the
//! library's own or the user's; a Level Zero stream a command list, the
//! library's own immediate list or the user's list (`ze_engine.rs`).
//!
//! A profiling stream (`dnnl_stream_profiling`, or a user's OpenCL queue with
//! `CL_QUEUE_PROFILING_ENABLE`, or a user's Level Zero list given `profiling`)
//! keeps one entry per primitive execution: the device's start and end times of
//! every kernel the execution launched ([`Profiler`]).

use std::cell::RefCell;
use std::sync::{Arc, Mutex};

use crate::abi::*;
use crate::core::engine::{Backend, Engine};
use crate::core::error::{Error, Result};
use crate::core::gpu::Event;
use crate::core::memory::{DataHandle, Memory};
use crate::core::memory_desc::MemoryDesc;
use crate::core::ocl_engine::OclQueue;
use crate::core::ze_engine::ZeQueue;
use crate::runtime::ocl;

/// What a stream promises about ordering and timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamFlags {
    /// Executions may run in any order (dependencies through events only).
    pub out_of_order: bool,
    /// Executions are timed by the device.
    pub profiling: bool,
}

impl StreamFlags {
    /// Checks `dnnl_stream_flags_t` bits: in-order and out-of-order exclude
    /// each other; profiling may join either; nothing else may be set.
    pub fn from_c(flags: u32) -> Result<StreamFlags> {
        let in_order = dnnl_stream_in_order.0;
        let out_of_order = dnnl_stream_out_of_order.0;
        let profiling = 0x4;
        if flags & !(in_order | out_of_order | profiling) != 0 {
            return Err(Error::invalid(format!(
                "stream flags {flags:#x} have unknown bits"
            )));
        }
        if flags & in_order != 0 && flags & out_of_order != 0 {
            return Err(Error::invalid(
                "a stream cannot be both in-order and out-of-order",
            ));
        }
        Ok(StreamFlags {
            out_of_order: flags & out_of_order != 0,
            profiling: flags & profiling != 0,
        })
    }

    /// The `dnnl_stream_flags_t` bits.
    pub fn to_c(self) -> u32 {
        let order = if self.out_of_order {
            dnnl_stream_out_of_order.0
        } else {
            dnnl_stream_in_order.0
        };
        order | if self.profiling { 0x4 } else { 0 }
    }
}

/// Kernel timings come from events of an in-order queue; oneDNN refuses
/// profiling on out-of-order queues, and so do we.
fn check_ocl_profiling(flags: StreamFlags) -> Result<()> {
    if flags.profiling && flags.out_of_order {
        return Err(Error::invalid(
            "OpenCL kernel profiling is not supported with out-of-order queues",
        ));
    }
    Ok(())
}

/// One timed command of a profiled execution: its event until the times are
/// read, then its `(start, end)` in nanoseconds.
enum Timed {
    Pending(Event),
    Done(u64, u64),
}

/// The executions a profiling stream has timed since the last reset, in order.
#[derive(Default)]
pub struct Profiler {
    entries: Mutex<Vec<Vec<Timed>>>,
}

thread_local! {
    /// The kernel events of the profiled execution running on this thread.
    static RECORDING: RefCell<Option<Vec<Event>>> = const { RefCell::new(None) };
}

/// Notes a kernel launched by the profiled execution running on this thread
/// (none: nothing happens). Called by `gpu::Queue::enqueue_kernel`.
pub fn note_kernel(event: &Event) {
    RECORDING.with(|r| {
        if let Some(events) = r.borrow_mut().as_mut() {
            events.push(event.clone());
        }
    });
}

/// A Level Zero device's timestamp clock: ticks per second and valid bits.
#[derive(Clone, Copy)]
struct ZeClock {
    hz: u64,
    bits: u32,
}

impl ZeClock {
    /// `(start, end)` ticks to nanoseconds, the end unwrapped past the start.
    fn to_ns(self, (start, end): (u64, u64)) -> (u64, u64) {
        let bits = self.bits.clamp(1, 64);
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let (start, mut end) = (u128::from(start & mask), u128::from(end & mask));
        if end < start {
            end += u128::from(mask) + 1;
        }
        let ns = |t: u128| (t * 1_000_000_000 / u128::from(self.hz.max(1))) as u64;
        (ns(start), ns(end))
    }
}

impl Profiler {
    /// Reads the times of every command still pending: OpenCL commands are
    /// waited for; a Level Zero command must have completed (one of a user's
    /// regular list that was never run would never signal: the caller is told
    /// to wait for the stream first, as upstream requires).
    fn resolve(&self, clock: Option<ZeClock>) -> Result<()> {
        let mut entries = self.entries.lock()?;
        for timed in entries.iter_mut().flatten() {
            let Timed::Pending(event) = timed else {
                continue;
            };
            let times = match event {
                Event::Ocl(e) => {
                    ocl::Event::wait_all(std::slice::from_ref(e))?;
                    e.profiling_times()?
                }
                Event::Ze(e) => {
                    if !e.is_signalled()? {
                        return Err(Error::invalid(
                            "profiled executions have not completed: wait for the stream first",
                        ));
                    }
                    let clock = clock.ok_or_else(|| {
                        Error::runtime("a Level Zero event on a stream of another engine")
                    })?;
                    clock.to_ns(e.kernel_timestamps()?)
                }
            };
            *timed = Timed::Done(times.0, times.1);
        }
        Ok(())
    }
}

/// The device side of a stream.
pub enum StreamBackend {
    /// Synchronous execution on the host.
    Cpu,
    /// An OpenCL command queue.
    Ocl(OclQueue),
    /// A Level Zero command list.
    Ze(ZeQueue),
}

/// A stream. Holds its engine alive.
pub struct Stream {
    engine: Arc<Engine>,
    flags: StreamFlags,
    backend: StreamBackend,
    arena: Mutex<Arena>,
    /// Present on profiling GPU streams.
    profiler: Option<Profiler>,
}

/// The stream's scratchpad arena: one buffer of the stream's engine that
/// every execution needing a library-provided scratchpad reuses. It grows to
/// the largest request; executions on one stream are ordered (in-order
/// queues) or chained through the arena's last event (out-of-order queues),
/// so two never use it at once.
#[derive(Default)]
struct Arena {
    memory: Option<Arc<Memory>>,
    /// The completion of the last execution that used it (out-of-order
    /// queues only).
    last: Option<Event>,
}

impl Stream {
    /// Creates a stream with its own queue: an OpenCL command queue on an
    /// OpenCL engine, an immediate command list on a Level Zero engine.
    pub fn create(engine: Arc<Engine>, flags: StreamFlags) -> Result<Arc<Stream>> {
        let backend = match engine.backend() {
            Backend::Cpu => {
                if flags.profiling {
                    return Err(Error::unimplemented(
                        "stream profiling is available on GPU engines only",
                    ));
                }
                StreamBackend::Cpu
            }
            Backend::Ocl(ocl) => {
                check_ocl_profiling(flags)?;
                StreamBackend::Ocl(ocl.create_queue(flags)?)
            }
            // Level Zero streams run in order (which out-of-order streams
            // may too), on an immediate list of ours.
            Backend::Ze(ze) => StreamBackend::Ze(ze.create_queue(flags.profiling)?),
        };
        Ok(Arc::new(Stream {
            engine,
            flags,
            backend,
            arena: Mutex::default(),
            profiler: flags.profiling.then(Profiler::default),
        }))
    }

    /// Wraps a user's OpenCL queue, whose own properties give the flags.
    pub fn from_ocl_queue(engine: Arc<Engine>, queue: OclQueue) -> Result<Arc<Stream>> {
        let flags = queue.flags();
        check_ocl_profiling(flags)?;
        Ok(Arc::new(Stream {
            engine,
            flags,
            backend: StreamBackend::Ocl(queue),
            arena: Mutex::default(),
            profiler: flags.profiling.then(Profiler::default),
        }))
    }

    /// Wraps a stream queue on a user's Level Zero list: in-order.
    pub fn from_ze_queue(engine: Arc<Engine>, queue: ZeQueue) -> Arc<Stream> {
        let flags = StreamFlags {
            out_of_order: false,
            profiling: queue.profiling(),
        };
        Arc::new(Stream {
            engine,
            flags,
            backend: StreamBackend::Ze(queue),
            arena: Mutex::default(),
            profiler: flags.profiling.then(Profiler::default),
        })
    }

    /// The engine.
    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// The flags.
    pub fn flags(&self) -> StreamFlags {
        self.flags
    }

    /// The device side.
    pub fn backend(&self) -> &StreamBackend {
        &self.backend
    }

    /// Waits until everything submitted to the stream has completed. On a
    /// profiling Level Zero stream, the timestamps of its executions are read
    /// before the stream's events are recycled.
    pub fn wait(&self) -> Result<()> {
        match &self.backend {
            StreamBackend::Cpu => Ok(()),
            StreamBackend::Ocl(queue) => queue.finish(),
            StreamBackend::Ze(queue) => match &self.profiler {
                Some(p) => queue.wait_then(|| p.resolve(self.ze_clock())),
                None => queue.wait(),
            },
        }
    }

    /// The timestamp clock of a Level Zero engine.
    fn ze_clock(&self) -> Option<ZeClock> {
        match self.engine.backend() {
            Backend::Ze(ze) => Some(ZeClock {
                hz: ze.info().timer_hz,
                bits: ze.info().kernel_timestamp_bits,
            }),
            _ => None,
        }
    }

    /// Runs `f`, one primitive execution: on a profiling stream its kernels
    /// make one entry of the stream's profile (an execution inside another,
    /// on this thread, belongs to the outer one's entry).
    pub fn profiled<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let Some(profiler) = &self.profiler else {
            return f();
        };
        let outer = RECORDING.with(|r| {
            let mut r = r.borrow_mut();
            r.is_none() && r.replace(Vec::new()).is_none()
        });
        if !outer {
            return f();
        }
        let result = f();
        let events = RECORDING
            .with(|r| r.borrow_mut().take())
            .unwrap_or_default();
        if result.is_ok() {
            profiler
                .entries
                .lock()?
                .push(events.into_iter().map(Timed::Pending).collect());
        }
        result
    }

    /// Checks that the stream profiles: unimplemented on CPU engines, invalid
    /// on GPU streams made without profiling (upstream's answers).
    fn profiler(&self) -> Result<&Profiler> {
        if let StreamBackend::Cpu = self.backend {
            return Err(Error::unimplemented(
                "the CPU engine does not support profiling",
            ));
        }
        self.profiler
            .as_ref()
            .ok_or_else(|| Error::invalid("the stream was not created with profiling enabled"))
    }

    /// `dnnl_reset_profiling`: forgets every entry.
    pub fn reset_profiling(&self) -> Result<()> {
        self.profiler()?.entries.lock()?.clear();
        Ok(())
    }

    /// The number of executions profiled since the last reset.
    pub fn profiled_count(&self) -> Result<usize> {
        Ok(self.profiler()?.entries.lock()?.len())
    }

    /// The device time of each execution profiled since the last reset, in
    /// nanoseconds and execution order: from the earliest start to the latest
    /// end of its kernels (0 for an execution that launched none). OpenCL
    /// executions still running are waited for; Level Zero ones must have
    /// completed (invalid arguments otherwise: wait for the stream first).
    pub fn profiled_times(&self) -> Result<Vec<u64>> {
        let profiler = self.profiler()?;
        profiler.resolve(self.ze_clock())?;
        let entries = profiler.entries.lock()?;
        Ok(entries
            .iter()
            .map(|timed| {
                let times = timed.iter().filter_map(|t| match t {
                    Timed::Done(start, end) => Some((*start, *end)),
                    Timed::Pending(_) => None,
                });
                let start = times.clone().map(|t| t.0).min();
                let end = times.map(|t| t.1).max();
                match (start, end) {
                    (Some(s), Some(e)) => e.saturating_sub(s),
                    _ => 0,
                }
            })
            .collect())
    }

    /// Runs `f` with the stream's scratchpad arena (at least `bytes` bytes)
    /// and the events it must wait for: `deps`, and on out-of-order queues
    /// the arena's previous user. `f` returns its completion event.
    pub fn with_scratchpad(
        &self,
        bytes: usize,
        deps: &[Event],
        f: impl FnOnce(&Arc<Memory>, &[Event]) -> Result<Option<Event>>,
    ) -> Result<Option<Event>> {
        let mut arena = self.arena.lock()?;
        let memory = match &arena.memory {
            Some(m) if m.md().size(0) >= bytes => m.clone(),
            old => {
                if old.is_some() {
                    // Commands in flight may still use the smaller buffer.
                    self.wait()?;
                }
                let md = MemoryDesc::with_strides(&[bytes as i64], dnnl_u8, None)?;
                let m = Memory::create(self.engine.clone(), md, None, &[DataHandle::Allocate])?;
                arena.memory = Some(m.clone());
                arena.last = None;
                m
            }
        };
        let mut waits = deps.to_vec();
        if self.flags.out_of_order {
            waits.extend(arena.last.take());
        }
        let done = f(&memory, &waits)?;
        if self.flags.out_of_order {
            arena.last = done.clone();
        }
        Ok(done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_checked() {
        assert_eq!(
            StreamFlags::from_c(1).unwrap(),
            StreamFlags {
                out_of_order: false,
                profiling: false
            }
        );
        assert_eq!(
            StreamFlags::from_c(2).unwrap(),
            StreamFlags {
                out_of_order: true,
                profiling: false
            }
        );
        assert_eq!(
            StreamFlags::from_c(5).unwrap(),
            StreamFlags {
                out_of_order: false,
                profiling: true
            }
        );
        assert_eq!(
            StreamFlags::from_c(0).unwrap(),
            StreamFlags {
                out_of_order: false,
                profiling: false
            }
        );
        assert!(StreamFlags::from_c(3).is_err());
        assert!(StreamFlags::from_c(8).is_err());
    }
}
