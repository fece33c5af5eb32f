//! The GPU layer the primitives launch kernels through: engine, kernel,
//! queue and event types that dispatch to the engine's runtime.
//!
//! Layer: core, over `runtime`. The primitives' GPU implementations are
//! written once against these types: the same OpenCL C sources, build
//! options and launch code run on an OpenCL engine (programs built by the
//! OpenCL driver) and on a Level Zero engine (the same sources compiled to
//! SPIR-V modules). Each type is an enum with one variant per runtime; a
//! value of one runtime never meets one of the other (an engine's kernels
//! run on its own streams), and a mismatch is an invalid-arguments error,
//! not a panic.
//!
//! What differs between the runtimes stays behind this layer: OpenCL
//! buffers (`cl_mem`) exist on OpenCL only (Level Zero memory is USM).
//! Temporaries an execution needs are its scratchpad (the stream's arena, or
//! the user's memory), which the primitive framework provides.

use crate::core::engine::{Backend, Engine};
use crate::core::error::{Error, Result};
use crate::core::ocl_engine::OclEngine;
use crate::core::stream::{Stream, StreamBackend};
use crate::core::ze_engine::{ZeEngine, ZeQueue};
use crate::runtime::ocl::{self, DeviceType};
use crate::runtime::ze;

pub use crate::runtime::kernel_arg::KernelArg;
pub use crate::runtime::ocl::PTX_ARCH_SPECIFIC;

/// The completion of one command on a GPU stream.
#[derive(Clone)]
pub enum Event {
    /// An OpenCL event (our reference).
    Ocl(ocl::Event),
    /// A Level Zero event (the stream's, or the user's).
    Ze(ze::Event),
}

impl Event {
    /// Blocks until every event has completed.
    pub fn wait_all(events: &[Event]) -> Result<()> {
        let ocl: Vec<ocl::Event> = events.iter().filter_map(|e| e.as_ocl().cloned()).collect();
        ocl::Event::wait_all(&ocl)?;
        for e in events {
            if let Event::Ze(e) = e {
                e.wait()?;
            }
        }
        Ok(())
    }

    /// The OpenCL event, on OpenCL.
    pub fn as_ocl(&self) -> Option<&ocl::Event> {
        match self {
            Event::Ocl(e) => Some(e),
            Event::Ze(_) => None,
        }
    }

    /// The Level Zero event, on Level Zero.
    pub fn as_ze(&self) -> Option<ze::Event> {
        match self {
            Event::Ze(e) => Some(*e),
            Event::Ocl(_) => None,
        }
    }
}

/// The Level Zero events of `events` (all must be Level Zero's).
fn ze_events(events: &[Event]) -> Result<Vec<ze::Event>> {
    events
        .iter()
        .map(|e| {
            e.as_ze()
                .ok_or_else(|| Error::invalid("an OpenCL event given to a Level Zero list"))
        })
        .collect()
}

/// The OpenCL events of `events` (all must be OpenCL's).
fn ocl_events(events: &[Event]) -> Result<Vec<ocl::Event>> {
    events
        .iter()
        .map(|e| {
            e.as_ocl()
                .cloned()
                .ok_or_else(|| Error::invalid("a Level Zero event given to an OpenCL queue"))
        })
        .collect()
}

/// A kernel of a built program, ready to launch on the engine's streams.
pub enum Kernel {
    /// An OpenCL kernel object.
    Ocl(ocl::Kernel),
    /// A Level Zero kernel (it holds its module).
    Ze(ze::Kernel),
}

/// The GPU side of an engine, as the primitives see it.
#[derive(Clone, Copy)]
pub enum GpuEngine<'a> {
    /// An OpenCL engine.
    Ocl(&'a OclEngine),
    /// A Level Zero engine.
    Ze(&'a ZeEngine),
}

impl<'a> GpuEngine<'a> {
    /// The GPU side of `engine`, or an invalid-arguments error naming `what`
    /// needed it.
    pub fn of(engine: &'a Engine, what: &str) -> Result<GpuEngine<'a>> {
        match engine.backend() {
            Backend::Ocl(ocl) => Ok(GpuEngine::Ocl(ocl)),
            Backend::Ze(ze) => Ok(GpuEngine::Ze(ze)),
            Backend::Cpu => Err(Error::invalid(format!(
                "{what} needs a GPU engine, not a CPU engine"
            ))),
        }
    }

    /// Builds (or finds in the engine's program cache) `source` with the
    /// OpenCL C build `options` and returns the kernel `name`.
    pub fn kernel(&self, source: &str, options: &str, name: &str) -> Result<Kernel> {
        match self {
            GpuEngine::Ocl(ocl) => Ok(Kernel::Ocl(ocl.kernel(source, options, name)?)),
            GpuEngine::Ze(ze) => Ok(Kernel::Ze(ze.kernel(source, options, name)?)),
        }
    }

    /// The largest work-group `kernel` can be launched with.
    pub fn work_group_size(&self, kernel: &Kernel) -> Result<usize> {
        match (self, kernel) {
            (GpuEngine::Ocl(ocl), Kernel::Ocl(k)) => k.work_group_size(ocl.device()),
            // Level Zero has no per-kernel limit query: the device's.
            (GpuEngine::Ze(ze), Kernel::Ze(_)) => Ok(ze.info().max_group_size),
            _ => Err(Error::invalid(
                "a kernel of another runtime than the engine",
            )),
        }
    }

    /// Whether the device is a GPU (tuning choices differ on CPU runtimes).
    pub fn is_gpu_device(&self) -> bool {
        match self {
            GpuEngine::Ocl(ocl) => ocl.info().device_type == DeviceType::Gpu,
            GpuEngine::Ze(ze) => ze.info().is_gpu,
        }
    }

    /// An NVIDIA OpenCL device's CUDA compute capability `(major, minor)`
    /// (`cl_nv_device_attribute_query`); `None` elsewhere, Level Zero
    /// included.
    pub fn nv_compute_capability(&self) -> Option<(u32, u32)> {
        match self {
            GpuEngine::Ocl(ocl) => ocl.info().nv_compute_capability,
            GpuEngine::Ze(_) => None,
        }
    }

    /// An OpenCL device's compute units (`CL_DEVICE_MAX_COMPUTE_UNITS`:
    /// streaming multiprocessors on NVIDIA); `None` on Level Zero.
    pub fn compute_units(&self) -> Option<u32> {
        match self {
            GpuEngine::Ocl(ocl) => Some(ocl.info().max_compute_units),
            GpuEngine::Ze(_) => None,
        }
    }

    /// `CL_DEVICE_LOCAL_MEM_SIZE` (bytes) of an OpenCL device.
    pub fn local_mem_size(&self) -> Option<u64> {
        match self {
            GpuEngine::Ocl(ocl) => Some(ocl.info().local_mem_size),
            GpuEngine::Ze(_) => None,
        }
    }

    /// The device's name.
    pub fn device_name(&self) -> &str {
        match self {
            GpuEngine::Ocl(ocl) => &ocl.info().name,
            GpuEngine::Ze(ze) => &ze.info().name,
        }
    }
}

/// A stream's command queue (or command list), with its engine.
#[derive(Clone, Copy)]
pub enum Queue<'a> {
    /// An OpenCL command queue.
    Ocl(&'a OclEngine, &'a ocl::Queue),
    /// A Level Zero command list.
    Ze(&'a ZeEngine, &'a ZeQueue),
}

impl<'a> Queue<'a> {
    /// The GPU queue of `stream`, or an invalid-arguments error on a CPU stream.
    pub fn of(stream: &'a Stream) -> Result<Queue<'a>> {
        match (stream.engine().backend(), stream.backend()) {
            (Backend::Ocl(engine), StreamBackend::Ocl(q)) => Ok(Queue::Ocl(engine, q.queue())),
            (Backend::Ze(engine), StreamBackend::Ze(q)) => Ok(Queue::Ze(engine, q)),
            _ => Err(Error::invalid("a GPU primitive needs a GPU stream")),
        }
    }

    /// The engine side of the queue.
    pub fn engine(&self) -> GpuEngine<'a> {
        match self {
            Queue::Ocl(engine, _) => GpuEngine::Ocl(engine),
            Queue::Ze(engine, _) => GpuEngine::Ze(engine),
        }
    }

    /// The OpenCL queue, on OpenCL.
    pub fn as_ocl(&self) -> Option<&'a ocl::Queue> {
        match self {
            Queue::Ocl(_, q) => Some(q),
            Queue::Ze(..) => None,
        }
    }

    /// Launches `kernel` over `global` work-items (1 to 3 dimensions) in
    /// work-groups of `local`, after `wait`; returns the launch's event.
    pub fn enqueue_kernel(
        &self,
        kernel: &Kernel,
        args: &[KernelArg],
        global: &[usize],
        local: Option<&[usize]>,
        wait: &[Event],
    ) -> Result<Event> {
        let event = self.launch(kernel, args, global, local, wait)?;
        // An empty launch is a marker: no kernel runs.
        if !global.contains(&0) {
            crate::core::stream::note_kernel(&event);
        }
        Ok(event)
    }

    fn launch(
        &self,
        kernel: &Kernel,
        args: &[KernelArg],
        global: &[usize],
        local: Option<&[usize]>,
        wait: &[Event],
    ) -> Result<Event> {
        match (self, kernel) {
            (Queue::Ocl(_, q), Kernel::Ocl(k)) => Ok(Event::Ocl(q.enqueue_kernel(
                k,
                args,
                global,
                local,
                &ocl_events(wait)?,
            )?)),
            (Queue::Ze(_, q), Kernel::Ze(k)) => Ok(Event::Ze(q.enqueue_kernel(
                k,
                args,
                global,
                local,
                &ze_events(wait)?,
            )?)),
            _ => Err(Error::invalid(
                "a kernel of another runtime than the stream",
            )),
        }
    }

    /// An event that completes when every event of `wait` has.
    pub fn marker(&self, wait: &[Event]) -> Result<Event> {
        match self {
            Queue::Ocl(_, q) => Ok(Event::Ocl(q.marker(&ocl_events(wait)?)?)),
            Queue::Ze(_, q) => Ok(Event::Ze(q.marker(&ze_events(wait)?)?)),
        }
    }
}
