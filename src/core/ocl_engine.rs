//! The OpenCL side of engines and streams: a device, a context, the engine's
//! program cache, and command queues.
//!
//! Layer: core, over `runtime::ocl`. Rules (interop-semantics.md §2.1–2.3,
//! §2.6): user objects are retained when wrapped and released when our object
//! dies; getters hand back borrowed handles; a user device must be one the
//! library enumerates (or a sub-device of one) and must be in the user's
//! context; a user queue must belong to the engine's device and context.

use std::sync::OnceLock;

use crate::core::error::{Error, Result};
use crate::core::stream::StreamFlags;
use crate::runtime::ocl::{
    self, Context, Device, DeviceInfo, ProgramCache, ProgramKey, Queue, QueueProperties, sys,
};

/// The number of OpenCL devices `dnnl_engine_create(dnnl_gpu, i)` accepts.
pub fn device_count() -> usize {
    ocl::devices().len()
}

/// An OpenCL device and context with the engine's program cache.
pub struct OclEngine {
    device: Device,
    context: Context,
    info: DeviceInfo,
    programs: ProgramCache,
    /// A queue for work that has no stream (map/unmap, initialisation).
    service_queue: OnceLock<Queue>,
}

/// The index among the enumerated devices of `device` or the device it was
/// partitioned from.
fn enumerated_index(device: &Device) -> Result<usize> {
    let root = device.root()?;
    ocl::devices()
        .iter()
        .position(|d| *d == root)
        .ok_or_else(|| {
            Error::invalid(
                "the OpenCL device is not one the library enumerates (check ONEDNN_OCL_DEVICES)",
            )
        })
}

impl OclEngine {
    /// The engine of the `index`-th enumerated device, with a context of its own.
    pub fn create(index: usize) -> Result<OclEngine> {
        let device = ocl::devices()
            .into_iter()
            .nth(index)
            .ok_or_else(|| Error::invalid(format!("no OpenCL device {index}")))?;
        let context = Context::create(&device)?;
        OclEngine::new(device, context)
    }

    /// Wraps the user's device and context (both retained); returns the engine
    /// and its index among the enumerated devices.
    ///
    /// # Safety
    /// `device` and `context` must be NULL or OpenCL objects of those types
    /// (see `runtime::ocl` on what can be checked).
    pub unsafe fn from_user(
        device: sys::cl_device_id,
        context: sys::cl_context,
    ) -> Result<(OclEngine, usize)> {
        if device.is_null() {
            return Err(Error::invalid("device is NULL"));
        }
        if context.is_null() {
            return Err(Error::invalid("context is NULL"));
        }
        // SAFETY: the caller's promise on the handle types.
        let device = unsafe { Device::retain_borrowed(device) }?;
        // SAFETY: as above.
        let context = unsafe { Context::retain_borrowed(context) }?;
        let index = enumerated_index(&device)?;
        if !context.contains(&device)? {
            return Err(Error::invalid("device not found in the given context"));
        }
        Ok((OclEngine::new(device, context)?, index))
    }

    fn new(device: Device, context: Context) -> Result<OclEngine> {
        let info = device.info()?;
        let programs = ProgramCache::new();
        Ok(OclEngine {
            device,
            context,
            info,
            programs,
            service_queue: OnceLock::new(),
        })
    }

    /// The device (borrowed by callers that hand it to C).
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The context.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// What the device is and can do.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The engine's program cache.
    pub fn programs(&self) -> &ProgramCache {
        &self.programs
    }

    /// A new queue for a stream with `flags`.
    pub fn create_queue(&self, flags: StreamFlags) -> Result<OclQueue> {
        let properties = QueueProperties {
            out_of_order: flags.out_of_order,
            profiling: flags.profiling,
        };
        let queue = Queue::create(&self.context, &self.device, properties)?;
        Ok(OclQueue { queue, flags })
    }

    /// The engine's own in-order queue, for work outside any stream.
    pub fn service_queue(&self) -> Result<&Queue> {
        if let Some(q) = self.service_queue.get() {
            return Ok(q);
        }
        let queue = Queue::create(&self.context, &self.device, QueueProperties::default())?;
        Ok(self.service_queue.get_or_init(|| queue))
    }

    /// The identifier of blobs this engine's device accepts.
    pub fn cache_blob_id(device: &Device) -> Result<Vec<u8>> {
        ocl::cache_blob_id(device)
    }

    /// The engine's compiled programs, serialised (empty when nothing was compiled).
    pub fn cache_blob(&self) -> Result<Vec<u8>> {
        let entries = self.programs.entries()?;
        if entries.is_empty() {
            return Ok(Vec::new());
        }
        Ok(crate::core::cache_blob::encode(
            &OclEngine::cache_blob_id(&self.device)?,
            &entries,
        ))
    }

    /// Loads a blob from `cache_blob` into this engine's program cache, after
    /// checking that it was made for this device, driver and library.
    pub fn load_cache_blob(&self, blob: &[u8]) -> Result<()> {
        let id = OclEngine::cache_blob_id(&self.device)?;
        for (key, binary) in crate::core::cache_blob::decode(&id, blob)? {
            self.programs.insert_binary(key, binary)?;
        }
        Ok(())
    }

    /// Builds (or finds in the cache) `source` with `options` and returns a new
    /// kernel object for `name`.
    pub fn kernel(&self, source: &str, options: &str, name: &str) -> Result<ocl::Kernel> {
        self.programs
            .kernel(&self.context, &self.device, source, options, name)
    }

    /// The cache key of `source` with `options` (for tests of the cache).
    pub fn program_key(source: &str, options: &str) -> ProgramKey {
        ProgramKey::new(source, options)
    }
}

/// A command queue of a stream.
pub struct OclQueue {
    queue: Queue,
    flags: StreamFlags,
}

impl OclQueue {
    /// Wraps the user's queue (retained) after checking that it belongs to the
    /// engine's device and context. Its own properties give the stream flags.
    ///
    /// # Safety
    /// `queue` must be NULL or an OpenCL command queue.
    pub unsafe fn from_user(engine: &OclEngine, queue: sys::cl_command_queue) -> Result<OclQueue> {
        // SAFETY: the caller's promise on the handle type.
        let queue = unsafe { Queue::retain_borrowed(queue) }?;
        if queue.context()? != engine.context {
            return Err(Error::invalid(
                "the queue belongs to another OpenCL context than the engine",
            ));
        }
        if queue.device()? != engine.device {
            return Err(Error::invalid(
                "the queue belongs to another OpenCL device than the engine",
            ));
        }
        let p = queue.properties()?;
        Ok(OclQueue {
            queue,
            flags: StreamFlags {
                out_of_order: p.out_of_order,
                profiling: p.profiling,
            },
        })
    }

    /// The stream flags the queue gives.
    pub fn flags(&self) -> StreamFlags {
        self.flags
    }

    /// The queue.
    pub fn queue(&self) -> &Queue {
        &self.queue
    }

    /// Waits for everything submitted to the queue.
    pub fn finish(&self) -> Result<()> {
        self.queue.finish()
    }
}
