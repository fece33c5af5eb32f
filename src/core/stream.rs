//! Streams: the order in which work is submitted to an engine.
//!
//! Layer: core. A CPU stream runs each execution to completion on the calling
//! thread (and the host's worker threads), so in-order and out-of-order are
//! both trivially honoured. An OpenCL stream wraps a command queue, the
//! library's own or the user's; a Level Zero stream a command list, the
//! library's own immediate list or the user's list (`ze_engine.rs`).

use std::sync::{Arc, Mutex};

use crate::abi::*;
use crate::core::engine::{Backend, Engine};
use crate::core::error::{Error, Result};
use crate::core::gpu::Event;
use crate::core::memory::{DataHandle, Memory};
use crate::core::memory_desc::MemoryDesc;
use crate::core::ocl_engine::OclQueue;
use crate::core::ze_engine::ZeQueue;

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

    /// Waits until everything submitted to the stream has completed.
    pub fn wait(&self) -> Result<()> {
        match &self.backend {
            StreamBackend::Cpu => Ok(()),
            StreamBackend::Ocl(queue) => queue.finish(),
            StreamBackend::Ze(queue) => queue.wait(),
        }
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
