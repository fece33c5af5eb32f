//! TEMPORARY stand-in for feat/galloc's allocators (replaced at merge): the
//! interface only; host memory from the library on the CPU engine.

use std::ffi::c_void;
use std::sync::Arc;

use crate::core::engine::{Backend, Engine};
use crate::core::error::{Error, Result};
use crate::core::host_buffer::HostBuffer;
use crate::runtime::ocl::Event;

pub struct Temp {
    buffer: Option<HostBuffer>,
    size: usize,
}

impl Temp {
    pub fn new(engine: &Arc<Engine>, size: usize, _alignment: usize) -> Result<Temp> {
        match engine.backend() {
            Backend::Cpu => Ok(Temp {
                buffer: if size == 0 {
                    None
                } else {
                    Some(HostBuffer::zeroed(size)?)
                },
                size,
            }),
            Backend::Ocl(_) => Err(Error::unimplemented("graph allocator (stand-in)")),
        }
    }

    pub fn ptr(&self) -> *mut c_void {
        self.buffer
            .as_ref()
            .map_or(std::ptr::null_mut(), |b| b.addr() as *mut c_void)
    }

    pub fn size(&self) -> usize {
        self.size
    }

    pub fn release(self, _event: Option<Event>) {}
}
