//! Host memory the library allocates and owns.

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::core::error::{Error, Result};

/// Alignment of host buffers: a cache line, enough for any SIMD load.
pub const HOST_ALIGNMENT: usize = 64;

/// Host buffers alive (for the leak checks of the allocation-failure tests).
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// How many host buffers are alive now.
pub fn live_buffers() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// A zero-initialised, 64-byte aligned host allocation, freed on drop.
/// A zero-size buffer allocates nothing and has address 0.
pub struct HostBuffer {
    ptr: Option<NonNull<u8>>,
    layout: Layout,
}

// SAFETY: the buffer is plain bytes owned by this value; no thread affinity.
unsafe impl Send for HostBuffer {}
// SAFETY: shared references give out only the address; access goes through
// the C caller or kernels that synchronise themselves.
unsafe impl Sync for HostBuffer {}

impl HostBuffer {
    /// Allocates `size` zeroed bytes.
    pub fn zeroed(size: usize) -> Result<HostBuffer> {
        let layout = Layout::from_size_align(size.max(1), HOST_ALIGNMENT)
            .map_err(|_| Error::OutOfMemory(format!("{size} bytes cannot be allocated").into()))?;
        if size == 0 {
            return Ok(HostBuffer { ptr: None, layout });
        }
        let ptr = if crate::base::fault::allocation() {
            // SAFETY: the layout has a non-zero size.
            unsafe { alloc_zeroed(layout) }
        } else {
            std::ptr::null_mut()
        };
        let ptr = NonNull::new(ptr).ok_or_else(|| {
            Error::OutOfMemory(format!("allocating {size} bytes of host memory failed").into())
        })?;
        LIVE.fetch_add(1, Ordering::Relaxed);
        Ok(HostBuffer {
            ptr: Some(ptr),
            layout,
        })
    }

    /// The address of the first byte (0 for a zero-size buffer).
    pub fn addr(&self) -> usize {
        self.ptr.map_or(0, |p| p.as_ptr() as usize)
    }
}

impl Drop for HostBuffer {
    fn drop(&mut self) {
        if let Some(ptr) = self.ptr {
            // SAFETY: allocated in `zeroed` with this layout, freed once.
            unsafe { dealloc(ptr.as_ptr(), self.layout) };
            LIVE.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_zeroed_and_empty() {
        let b = HostBuffer::zeroed(1000).unwrap();
        assert_eq!(b.addr() % HOST_ALIGNMENT, 0);
        // SAFETY: the buffer holds 1000 initialised bytes.
        let bytes = unsafe { std::slice::from_raw_parts(b.addr() as *const u8, 1000) };
        assert!(bytes.iter().all(|&x| x == 0));
        assert_eq!(HostBuffer::zeroed(0).unwrap().addr(), 0);
    }
}
