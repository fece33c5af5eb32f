//! The data of a memory object on a Level Zero engine: a USM pointer, the
//! library's own (`DNNL_MEMORY_ALLOCATE`: device USM, zeroed, freed with the
//! memory) or the user's (never freed; its kind from
//! `zeMemGetAllocProperties`).
//!
//! Layer: core, over `runtime::ze`. Mapping: host and shared USM are
//! host-accessible directly (after the engine's service stream is idle);
//! device USM is copied to a host USM staging buffer, and back at unmap.
//!
//! An allocation the device cannot make (`ZE_RESULT_ERROR_OUT_OF_*_MEMORY`,
//! or a size above its largest allocation: `ZE_RESULT_ERROR_UNSUPPORTED_SIZE`)
//! is `Error::OutOfMemory` naming the size and the device, as on the CPU engine.

use std::ffi::c_void;

use crate::core::error::{Error, Result};
use crate::core::memory::DataHandle;
use crate::core::ze_engine::ZeEngine;
use crate::runtime::ze::{MemKind, UsmAlloc, mem_kind};

/// Allocates `size` bytes of `kind` USM (`what`, for the message) on `engine`.
fn allocate(engine: &ZeEngine, kind: MemKind, size: usize, what: &str) -> Result<UsmAlloc> {
    engine.alloc(kind, size).map_err(|e| match e {
        Error::OutOfMemory(m) => Error::OutOfMemory(
            format!(
                "allocating {size} bytes of {what} on Level Zero device '{}' failed: {m}",
                engine.info().name
            )
            .into(),
        ),
        e => e,
    })
}

/// One buffer of a Level Zero memory object.
pub struct ZeStorage {
    addr: usize,
    kind: MemKind,
    owned: Option<UsmAlloc>,
}

impl ZeStorage {
    /// The storage for `handle` (never `DataHandle::None`) of `size` bytes.
    pub fn new(engine: &ZeEngine, size: usize, handle: DataHandle) -> Result<ZeStorage> {
        match handle {
            DataHandle::None => Err(Error::invalid("no storage for DNNL_MEMORY_NONE")),
            DataHandle::Allocate => {
                let alloc = allocate(engine, MemKind::Device, size, "device USM")?;
                let storage = ZeStorage {
                    addr: alloc.ptr() as usize,
                    kind: MemKind::Device,
                    owned: Some(alloc),
                };
                storage.zero(engine, size)?;
                Ok(storage)
            }
            DataHandle::User(addr) => {
                let kind = mem_kind(engine.context(), addr as *const c_void)?;
                if kind == MemKind::Unknown {
                    return Err(Error::invalid(
                        "the pointer is not USM of the engine's Level Zero context",
                    ));
                }
                Ok(ZeStorage {
                    addr,
                    kind,
                    owned: None,
                })
            }
        }
    }

    /// The pointer C sees.
    pub fn handle(&self) -> usize {
        self.addr
    }

    /// The pointer's kind.
    pub fn kind(&self) -> MemKind {
        self.kind
    }

    /// Whether the library allocated it.
    pub fn is_owned(&self) -> bool {
        self.owned.is_some()
    }

    fn zero(&self, engine: &ZeEngine, size: usize) -> Result<()> {
        if size == 0 {
            return Ok(());
        }
        let zeros = allocate(engine, MemKind::Host, size, "host USM (zeros to copy)")?;
        // SAFETY: a fresh host allocation of `size` bytes.
        unsafe { std::ptr::write_bytes(zeros.ptr().cast::<u8>(), 0, size) };
        let queue = engine.service_queue()?;
        // SAFETY: both allocations hold `size` bytes and live through the wait.
        unsafe { queue.copy(self.addr as *mut c_void, zeros.ptr(), size, &[]) }?;
        queue.wait()
    }

    /// Makes `size` bytes host-accessible with their current contents.
    pub fn map(&self, engine: &ZeEngine, size: usize) -> Result<(usize, Option<UsmAlloc>)> {
        let queue = engine.service_queue()?;
        queue.wait()?;
        if size == 0 || self.kind != MemKind::Device {
            return Ok((self.addr, None));
        }
        let staging = allocate(engine, MemKind::Host, size, "host USM (a mapping's copy)")?;
        // SAFETY: both pointers hold `size` bytes; waited for below.
        unsafe { queue.copy(staging.ptr(), self.addr as *const c_void, size, &[]) }?;
        queue.wait()?;
        Ok((staging.ptr() as usize, Some(staging)))
    }

    /// Ends a mapping, writing a staging copy back.
    pub fn unmap(&self, engine: &ZeEngine, staging: Option<UsmAlloc>) -> Result<()> {
        let Some(staging) = staging else {
            return Ok(());
        };
        let queue = engine.service_queue()?;
        let size = staging.size();
        // SAFETY: both pointers hold `size` bytes; waited for below.
        unsafe { queue.copy(self.addr as *mut c_void, staging.ptr(), size, &[]) }?;
        queue.wait()
    }
}
