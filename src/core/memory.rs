//! Memory objects: a memory descriptor, an engine, and one data handle per
//! buffer the descriptor needs.
//!
//! Layer: core. The data behind a handle is host memory on a CPU engine and an
//! OpenCL buffer or USM allocation on an OpenCL engine (`ocl_storage`), a
//! USM pointer on a Level Zero engine (`ze_storage`). Each
//! handle is either owned (made for `DNNL_MEMORY_ALLOCATE`) or the user's; a
//! user's `cl_mem` is retained while we hold it, a user's pointer never freed.
//!
//! A host-scalar memory (`dnnl_memory_create_host_scalar`) holds one value and
//! no buffer. As in upstream v3.13 it belongs to no engine for C (its engine
//! query answers NULL, [`Memory::visible_engine`]), `map` gives the value's
//! own address (writes through it change the value), and it has no data
//! handle to get or set. Inside the library it keeps a CPU engine, so that
//! argument checks treat it as host memory.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::core::engine::{Backend, Engine};
use crate::core::error::{Error, Result};
use crate::core::host_buffer::HostBuffer;
use crate::core::memory_desc::MemoryDesc;
use crate::core::ocl_storage::{OclKind, OclStorage};
use crate::core::ze_storage::ZeStorage;

/// A data handle as the C API spells it, decoded at the boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataHandle {
    /// `DNNL_MEMORY_ALLOCATE`: the library allocates and owns the buffer.
    Allocate,
    /// `DNNL_MEMORY_NONE` (NULL): no buffer yet.
    None,
    /// The user's pointer (or `cl_mem` cast to a pointer), as an address.
    User(usize),
}

/// The data behind one handle.
pub enum Storage {
    /// No buffer.
    None,
    /// Host memory: the user's, or our own allocation.
    Host {
        addr: usize,
        owned: Option<HostBuffer>,
    },
    /// An OpenCL buffer or USM allocation.
    Ocl(OclStorage),
    /// A Level Zero USM pointer.
    Ze(ZeStorage),
}

impl Storage {
    /// The handle value C sees (`get_data_handle`).
    pub fn handle(&self) -> usize {
        match self {
            Storage::None => 0,
            Storage::Host { addr, .. } => *addr,
            Storage::Ocl(s) => s.handle(),
            Storage::Ze(s) => s.handle(),
        }
    }
}

/// The largest host-scalar value (`dnnl_memory_create_host_scalar`): the
/// widest data type, 8 bytes.
const SCALAR_BYTES: usize = 8;

/// A memory object.
pub struct Memory {
    engine: Arc<Engine>,
    /// The memory's own copy of the descriptor (`get_memory_desc` exposes it).
    md: Arc<MemoryDesc>,
    /// For OpenCL engines: buffer or USM.
    ocl_kind: Option<OclKind>,
    handles: Mutex<Vec<Storage>>,
    /// Host copies handed out by `map`, by (handle index, host address).
    mapped: Mutex<HashMap<(usize, usize), MappedRegion>>,
    /// A host scalar's value, its first `md.size(0)` bytes in memory order.
    /// C reads and writes it through the address `map` gives (an atomic, so
    /// that the library's own reads and writes never race with each other,
    /// and 8-byte aligned for any data type).
    scalar: Option<AtomicU64>,
}

/// A region handed out by `map`, to be written back by `unmap`.
pub enum MappedRegion {
    /// The storage itself is host-accessible: nothing to write back.
    Direct,
    /// An OpenCL mapping or staging copy.
    Ocl(crate::core::ocl_storage::Mapping),
    /// A Level Zero host staging copy of device USM.
    Ze(crate::runtime::ze::UsmAlloc),
}

impl Memory {
    /// Creates a memory object with one handle per buffer of `md`.
    /// `ocl_kind` chooses buffer or USM on OpenCL engines (default: buffer).
    pub fn create(
        engine: Arc<Engine>,
        md: MemoryDesc,
        ocl_kind: Option<OclKind>,
        handles: &[DataHandle],
    ) -> Result<Arc<Memory>> {
        if md.is_any_format() {
            return Err(Error::invalid("memory cannot be created with format 'any'"));
        }
        if md.has_runtime_dims_or_strides() {
            return Err(Error::invalid(
                "memory cannot be created with runtime dimensions or strides",
            ));
        }
        if md.is_host_scalar() {
            return Err(Error::invalid(
                "a host-scalar memory descriptor needs dnnl_memory_create_host_scalar",
            ));
        }
        let needed = md.num_handles();
        if handles.len() != needed {
            return Err(Error::invalid(format!(
                "the memory descriptor needs {needed} handle(s), {} given",
                handles.len()
            )));
        }
        let ocl_kind = match engine.backend() {
            Backend::Cpu | Backend::Ze(_) => {
                if ocl_kind.is_some() {
                    return Err(Error::invalid("OpenCL memory kinds need an OpenCL engine"));
                }
                None
            }
            Backend::Ocl(_) => Some(ocl_kind.unwrap_or(OclKind::Buffer)),
        };
        let memory = Memory {
            engine,
            md: Arc::new(md),
            ocl_kind,
            handles: Mutex::new(Vec::new()),
            mapped: Mutex::new(HashMap::new()),
            scalar: None,
        };
        let storages = handles
            .iter()
            .enumerate()
            .map(|(i, h)| memory.make_storage(i, *h))
            .collect::<Result<Vec<_>>>()?;
        *memory.handles.lock()? = storages;
        Ok(Arc::new(memory))
    }

    /// Creates a host-scalar memory object holding a copy of `value`.
    pub fn create_host_scalar(
        engine: Arc<Engine>,
        md: MemoryDesc,
        value: &[u8],
    ) -> Result<Arc<Memory>> {
        if !md.is_host_scalar() {
            return Err(Error::invalid(
                "the memory descriptor does not describe a host scalar",
            ));
        }
        let mut bytes = [0u8; SCALAR_BYTES];
        let size = md.size(0).min(SCALAR_BYTES).min(value.len());
        bytes[..size].copy_from_slice(&value[..size]);
        Ok(Arc::new(Memory {
            engine,
            md: Arc::new(md),
            ocl_kind: None,
            handles: Mutex::new(vec![Storage::None]),
            mapped: Mutex::new(HashMap::new()),
            scalar: Some(AtomicU64::new(u64::from_ne_bytes(bytes))),
        }))
    }

    fn make_storage(&self, index: usize, handle: DataHandle) -> Result<Storage> {
        let size = self.md.size(index);
        match (self.engine.backend(), handle) {
            (_, DataHandle::None) => Ok(Storage::None),
            (Backend::Cpu, DataHandle::Allocate) => {
                let buffer = HostBuffer::zeroed(size)?;
                Ok(Storage::Host {
                    addr: buffer.addr(),
                    owned: Some(buffer),
                })
            }
            (Backend::Cpu, DataHandle::User(addr)) => Ok(Storage::Host { addr, owned: None }),
            // OpenCL has no zero-size buffers: empty memory has no storage.
            (Backend::Ocl(_), DataHandle::Allocate) if size == 0 => Ok(Storage::None),
            (Backend::Ze(ze), handle) => Ok(Storage::Ze(ZeStorage::new(ze, size, handle)?)),
            (Backend::Ocl(ocl), handle) => {
                let kind = self.ocl_kind.unwrap_or(OclKind::Buffer);
                Ok(Storage::Ocl(OclStorage::new(ocl, kind, size, handle)?))
            }
        }
    }

    /// The engine the library runs the memory's work on (a CPU engine for
    /// a host scalar).
    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// The engine as C sees it (`dnnl_memory_get_engine`): none for a host
    /// scalar, which lives on the host outside any engine (upstream v3.13).
    pub fn visible_engine(&self) -> Option<&Arc<Engine>> {
        match self.scalar {
            Some(_) => None,
            None => Some(&self.engine),
        }
    }

    /// The address of a host scalar's value (see the module note).
    fn scalar_addr(&self) -> Option<usize> {
        self.scalar.as_ref().map(|v| v.as_ptr() as usize)
    }

    /// The memory descriptor.
    pub fn md(&self) -> &Arc<MemoryDesc> {
        &self.md
    }

    /// The OpenCL memory kind, on OpenCL engines.
    pub fn ocl_kind(&self) -> Option<OclKind> {
        self.ocl_kind
    }

    fn check_index(&self, index: usize) -> Result<()> {
        let n = self.handles.lock()?.len();
        if index >= n {
            return Err(Error::invalid(format!(
                "handle index {index} out of range: the memory has {n}"
            )));
        }
        Ok(())
    }

    /// The data handle `index` as C sees it (NULL when there is none).
    /// A host scalar has none to give (upstream refuses the query too):
    /// its value is read with `scalar_value`, or through `map`.
    pub fn data_handle(&self, index: usize) -> Result<usize> {
        self.check_index(index)?;
        if self.scalar.is_some() {
            return Err(Error::invalid(
                "a host-scalar memory object has no data handle: read its value with \
                 dnnl_memory_get_host_scalar_value or dnnl_memory_map_data",
            ));
        }
        Ok(self.handles.lock()?[index].handle())
    }

    /// Replaces data handle `index`. The old storage is released (a user
    /// `cl_mem` is released, our own allocation freed) after the new one is in.
    pub fn set_data_handle(&self, index: usize, handle: DataHandle) -> Result<()> {
        self.check_index(index)?;
        if self.scalar.is_some() {
            return Err(Error::invalid(
                "a host-scalar memory object has no data handle to set",
            ));
        }
        let storage = self.make_storage(index, handle)?;
        let old = std::mem::replace(&mut self.handles.lock()?[index], storage);
        drop(old);
        Ok(())
    }

    /// Runs `f` with the storage of handle `index`.
    pub fn with_storage<T>(
        &self,
        index: usize,
        f: impl FnOnce(&Storage) -> Result<T>,
    ) -> Result<T> {
        self.check_index(index)?;
        let handles = self.handles.lock()?;
        f(&handles[index])
    }

    /// Maps handle `index` for host access and returns the host address (0 when
    /// the memory has no buffer). The contents are current; `unmap` writes back.
    /// A host scalar's mapping is its value itself.
    pub fn map(&self, index: usize) -> Result<usize> {
        self.check_index(index)?;
        if let Some(addr) = self.scalar_addr() {
            return Ok(addr);
        }
        let handles = self.handles.lock()?;
        let (addr, region) = match &handles[index] {
            Storage::None => return Ok(0),
            Storage::Host { addr, .. } => (*addr, MappedRegion::Direct),
            Storage::Ocl(s) => {
                let ocl = self.engine.ocl("mapping OpenCL memory")?;
                let mapping = s.map(ocl, self.md.size(index))?;
                (mapping.host_addr(), MappedRegion::Ocl(mapping))
            }
            Storage::Ze(s) => {
                let ze = self.engine.ze("mapping Level Zero memory")?;
                match s.map(ze, self.md.size(index))? {
                    (addr, Some(staging)) => (addr, MappedRegion::Ze(staging)),
                    (addr, None) => (addr, MappedRegion::Direct),
                }
            }
        };
        if addr != 0 {
            self.mapped.lock()?.insert((index, addr), region);
        }
        Ok(addr)
    }

    /// Ends a mapping made by `map`, writing the host copy back.
    pub fn unmap(&self, index: usize, addr: usize) -> Result<()> {
        self.check_index(index)?;
        if addr == 0 {
            return Ok(());
        }
        if let Some(value) = self.scalar_addr() {
            return if addr == value {
                Ok(())
            } else {
                Err(Error::invalid(format!(
                    "{addr:#x} is not the mapped value of this host scalar"
                )))
            };
        }
        let region = self.mapped.lock()?.remove(&(index, addr)).ok_or_else(|| {
            Error::invalid(format!(
                "{addr:#x} is not a mapped pointer of buffer {index}"
            ))
        })?;
        match region {
            MappedRegion::Direct => Ok(()),
            MappedRegion::Ocl(mapping) => {
                let ocl = self.engine.ocl("unmapping OpenCL memory")?;
                let handles = self.handles.lock()?;
                match &handles[index] {
                    Storage::Ocl(s) => s.unmap(ocl, mapping),
                    _ => Err(Error::invalid(
                        "the buffer was replaced while it was mapped",
                    )),
                }
            }
            MappedRegion::Ze(staging) => {
                let ze = self.engine.ze("unmapping Level Zero memory")?;
                let handles = self.handles.lock()?;
                match &handles[index] {
                    Storage::Ze(s) => s.unmap(ze, Some(staging)),
                    _ => Err(Error::invalid(
                        "the buffer was replaced while it was mapped",
                    )),
                }
            }
        }
    }

    /// The value of a host-scalar memory object, `size` bytes of it.
    pub fn scalar_value(&self) -> Result<Vec<u8>> {
        let scalar = self
            .scalar
            .as_ref()
            .ok_or_else(|| Error::invalid("the memory is not a host scalar"))?;
        let size = self.md.size(0).min(SCALAR_BYTES);
        Ok(scalar.load(Ordering::Acquire).to_ne_bytes()[..size].to_vec())
    }

    /// Sets the value of a host-scalar memory object.
    pub fn set_scalar_value(&self, value: &[u8]) -> Result<()> {
        let scalar = self
            .scalar
            .as_ref()
            .ok_or_else(|| Error::invalid("the memory is not a host scalar"))?;
        let size = self.md.size(0).min(SCALAR_BYTES).min(value.len());
        let mut bytes = scalar.load(Ordering::Acquire).to_ne_bytes();
        bytes[..size].copy_from_slice(&value[..size]);
        scalar.store(u64::from_ne_bytes(bytes), Ordering::Release);
        Ok(())
    }
}
