//! Engines: where primitives run and memory lives.
//!
//! Layer: core. A CPU engine runs native Rust kernels; a GPU engine is an
//! OpenCL device and context (`runtime::ocl`) or a Level Zero driver, device
//! and context (`runtime::ze`), either the library's own
//! (`dnnl_engine_create(dnnl_gpu, i)`: OpenCL devices, or Level Zero ones
//! under `ONEDNN_GPU_RUNTIME=ze`) or the user's (interop).

#![allow(non_upper_case_globals)]

use std::sync::Arc;

use crate::abi::*;
use crate::core::error::{Error, Result};
use crate::runtime::ocl::ProgramKey;

/// The kind of an engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EngineKind {
    /// The host CPU.
    Cpu,
    /// A GPU: any OpenCL device, or a Level Zero device.
    Gpu,
}

impl TryFrom<dnnl_engine_kind_t> for EngineKind {
    type Error = Error;

    fn try_from(kind: dnnl_engine_kind_t) -> Result<Self> {
        match kind {
            dnnl_cpu => Ok(EngineKind::Cpu),
            dnnl_gpu => Ok(EngineKind::Gpu),
            dnnl_any_engine => Err(Error::invalid("engine kind 'any' cannot be created")),
            other => Err(Error::invalid(format!("{} is not an engine kind", other.0))),
        }
    }
}

impl EngineKind {
    /// The C value.
    pub fn to_c(self) -> dnnl_engine_kind_t {
        match self {
            EngineKind::Cpu => dnnl_cpu,
            EngineKind::Gpu => dnnl_gpu,
        }
    }

    /// The name oneDNN's verbose lines use.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Cpu => "cpu",
            EngineKind::Gpu => "gpu",
        }
    }
}

/// What an engine runs on.
pub enum Backend {
    /// Native Rust kernels on the host's threads.
    Cpu,
    /// An OpenCL device and context.
    Ocl(Box<crate::core::ocl_engine::OclEngine>),
    /// A Level Zero driver, device and context.
    Ze(Box<crate::core::ze_engine::ZeEngine>),
}

/// An engine. Streams, memory objects and primitives hold an `Arc<Engine>`, so
/// an engine lives until the last of them is destroyed.
pub struct Engine {
    kind: EngineKind,
    index: usize,
    backend: Backend,
}

impl Engine {
    /// The number of engines of `kind` that `create` accepts indices for.
    pub fn count(kind: EngineKind) -> usize {
        match kind {
            EngineKind::Cpu => 1,
            EngineKind::Gpu if crate::core::ze_engine::is_gpu_runtime() => {
                crate::core::ze_engine::device_count()
            }
            EngineKind::Gpu => crate::core::ocl_engine::device_count(),
        }
    }

    /// Creates the engine of `kind` at `index`.
    pub fn create(kind: EngineKind, index: usize) -> Result<Arc<Engine>> {
        let count = Engine::count(kind);
        if index >= count {
            return Err(Error::invalid(format!(
                "no {} engine {index}: {count} available",
                kind.name()
            )));
        }
        let backend = match kind {
            EngineKind::Cpu => Backend::Cpu,
            EngineKind::Gpu if crate::core::ze_engine::is_gpu_runtime() => {
                Backend::Ze(Box::new(crate::core::ze_engine::ZeEngine::create(index)?))
            }
            EngineKind::Gpu => {
                Backend::Ocl(Box::new(crate::core::ocl_engine::OclEngine::create(index)?))
            }
        };
        Ok(Arc::new(Engine {
            kind,
            index,
            backend,
        }))
    }

    /// Wraps an OpenCL engine built from user objects (or a cache blob).
    pub fn from_ocl(
        kind: EngineKind,
        index: usize,
        ocl: crate::core::ocl_engine::OclEngine,
    ) -> Arc<Engine> {
        Arc::new(Engine {
            kind,
            index,
            backend: Backend::Ocl(Box::new(ocl)),
        })
    }

    /// Wraps a Level Zero engine built from user objects; its index is the
    /// device's among the Level Zero devices (0 if not listed).
    pub fn from_ze(ze: crate::core::ze_engine::ZeEngine) -> Arc<Engine> {
        let index = crate::runtime::ze::all_devices()
            .iter()
            .position(|(_, d)| *d == ze.device())
            .unwrap_or(0);
        Arc::new(Engine {
            kind: EngineKind::Gpu,
            index,
            backend: Backend::Ze(Box::new(ze)),
        })
    }

    /// The engine's kind.
    pub fn kind(&self) -> EngineKind {
        self.kind
    }

    /// The engine's index among the engines of its kind.
    pub fn index(&self) -> usize {
        self.index
    }

    /// What the engine runs on.
    pub fn backend(&self) -> &Backend {
        &self.backend
    }

    /// Ok on the CPU engine; unimplemented elsewhere (what an implementation
    /// candidate of the CPU engine answers).
    pub fn expect_cpu(&self) -> Result<()> {
        match self.backend {
            Backend::Cpu => Ok(()),
            _ => Err(Error::unimplemented("not a CPU engine")),
        }
    }

    /// Ok on a GPU engine (OpenCL or Level Zero); unimplemented elsewhere
    /// (what an implementation candidate of GPU engines answers).
    pub fn expect_gpu(&self) -> Result<()> {
        match self.backend {
            Backend::Cpu => Err(Error::unimplemented("not a GPU engine")),
            _ => Ok(()),
        }
    }

    /// The GPU side of the engine (`core::gpu`), or an invalid-arguments
    /// error naming `what` needed it.
    pub fn gpu(&self, what: &str) -> Result<crate::core::gpu::GpuEngine<'_>> {
        crate::core::gpu::GpuEngine::of(self, what)
    }

    /// The OpenCL side of the engine, or an invalid-arguments error naming `what`
    /// needed it.
    pub fn ocl(&self, what: &str) -> Result<&crate::core::ocl_engine::OclEngine> {
        match &self.backend {
            Backend::Ocl(ocl) => Ok(ocl),
            _ => Err(Error::invalid(format!("{what} needs an OpenCL engine"))),
        }
    }

    /// The Level Zero side of the engine, or an invalid-arguments error
    /// naming `what` needed it.
    pub fn ze(&self, what: &str) -> Result<&crate::core::ze_engine::ZeEngine> {
        match &self.backend {
            Backend::Ze(ze) => Ok(ze),
            _ => Err(Error::invalid(format!("{what} needs a Level Zero engine"))),
        }
    }
}

impl Engine {
    /// Whether `other` is the same device in the same context (a stream of
    /// `other` can run this engine's primitives).
    pub fn same_device(&self, other: &Engine) -> bool {
        match (&self.backend, &other.backend) {
            (Backend::Cpu, Backend::Cpu) => true,
            (Backend::Ocl(a), Backend::Ocl(b)) => {
                a.context() == b.context() && a.device() == b.device()
            }
            (Backend::Ze(a), Backend::Ze(b)) => {
                a.context() == b.context() && a.device() == b.device()
            }
            _ => false,
        }
    }

    /// Whether memory of `memory_engine` can be used by this engine's
    /// primitives: the same kind of engine, and on GPUs the same context.
    pub fn check_memory_of(&self, memory_engine: &Engine) -> Result<()> {
        match (&self.backend, &memory_engine.backend) {
            (Backend::Cpu, Backend::Cpu) => Ok(()),
            (Backend::Ocl(a), Backend::Ocl(b)) if a.context() == b.context() => Ok(()),
            (Backend::Ocl(_), Backend::Ocl(_)) => Err(Error::invalid(
                "mismatched OpenCL context for primitive/memory",
            )),
            (Backend::Ze(a), Backend::Ze(b)) if a.context() == b.context() => Ok(()),
            (Backend::Ze(_), Backend::Ze(_)) => Err(Error::invalid(
                "mismatched Level Zero context for primitive/memory",
            )),
            _ => Err(Error::invalid(
                "the memory is on an engine of another kind than the primitive",
            )),
        }
    }

    /// The id that starts every cache blob of this engine's device: it names
    /// the platform, device, driver and library version. CPU engines compile
    /// nothing and have none (unimplemented).
    pub fn cache_blob_id(&self) -> Result<Vec<u8>> {
        match &self.backend {
            Backend::Ocl(ocl) => crate::core::ocl_engine::OclEngine::cache_blob_id(ocl.device()),
            Backend::Ze(ze) => Ok(ze.blob_id()),
            Backend::Cpu => Err(Error::unimplemented(
                "a CPU primitive compiles nothing and has no cache blob",
            )),
        }
    }

    /// A cache blob under `id` holding the device binaries of `programs`.
    pub fn programs_blob(&self, id: &[u8], programs: &[ProgramKey]) -> Result<Vec<u8>> {
        let entries = match &self.backend {
            Backend::Ze(ze) => ze.entries_of(programs)?,
            _ => self
                .ocl("primitive cache blob")?
                .programs()
                .entries_of(Some(programs))?,
        };
        Ok(crate::core::cache_blob::encode(id, &entries))
    }

    /// Loads the device binaries of a blob made by [`Engine::programs_blob`]
    /// under the same `id` into the engine's program cache; a blob under
    /// another id, or a corrupted one, is refused (invalid arguments).
    pub fn load_programs_blob(&self, id: &[u8], blob: &[u8]) -> Result<()> {
        if let Backend::Ze(ze) = &self.backend {
            return ze.load_entries(id, blob);
        }
        let entries = crate::core::cache_blob::decode(id, blob)?;
        let ocl = self.ocl("primitive cache blob")?;
        for (key, binary) in entries {
            ocl.programs().insert_binary(key, binary)?;
        }
        Ok(())
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // Cached implementations of this engine hold its kernels (and so its
        // OpenCL context or Level Zero modules): they go with it.
        crate::core::primitive_cache::purge_engine(self);
    }
}
