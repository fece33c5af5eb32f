//! OpenCL command queues and the commands the library enqueues.
//!
//! Layer: `runtime::ocl`. A stream wraps one [`Queue`], ours or the user's.
//! Every enqueue helper takes a wait list (`&[Event]`) and returns the event
//! of the command, owned. A command of zero bytes or work-items, which
//! OpenCL refuses, becomes a marker on the same wait list, so callers need no
//! special case. USM commands are in `usm.rs`, kernel launches in `program.rs`.

use std::ffi::c_void;

use super::context::Context;
use super::device::Device;
use super::error::{check, to_error};
use super::event::{Event, wait_list};
use super::handle::cl_handle;
use super::info;
use super::loader::entry;
use super::mem::Mem;
use super::sys::*;
use crate::base::{Error, Result};

cl_handle! {
    /// A `cl_command_queue`.
    pub struct Queue(cl_command_queue), "cl_command_queue";
    kind: CommandQueue, retain: clRetainCommandQueue, release: clReleaseCommandQueue, info: clGetCommandQueueInfo,
    refcount: CL_QUEUE_REFERENCE_COUNT;
}

/// The properties of a queue that the library cares about.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueProperties {
    /// `CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE`.
    pub out_of_order: bool,
    /// `CL_QUEUE_PROFILING_ENABLE`.
    pub profiling: bool,
}

impl QueueProperties {
    /// The `cl_command_queue_properties` bits.
    pub fn bits(self) -> cl_command_queue_properties {
        (if self.out_of_order {
            CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
        } else {
            0
        }) | (if self.profiling {
            CL_QUEUE_PROFILING_ENABLE
        } else {
            0
        })
    }

    /// The properties of a `CL_QUEUE_PROPERTIES` value (other bits ignored).
    pub fn from_bits(bits: cl_command_queue_properties) -> QueueProperties {
        QueueProperties {
            out_of_order: bits & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE != 0,
            profiling: bits & CL_QUEUE_PROFILING_ENABLE != 0,
        }
    }
}

/// How a mapped region will be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapAccess {
    /// `CL_MAP_READ`.
    Read,
    /// `CL_MAP_WRITE`.
    Write,
    /// `CL_MAP_READ | CL_MAP_WRITE`.
    ReadWrite,
    /// `CL_MAP_WRITE_INVALIDATE_REGION`: the old contents need not be read.
    WriteInvalidate,
}

impl MapAccess {
    fn bits(self) -> cl_map_flags {
        match self {
            MapAccess::Read => CL_MAP_READ,
            MapAccess::Write => CL_MAP_WRITE,
            MapAccess::ReadWrite => CL_MAP_READ | CL_MAP_WRITE,
            MapAccess::WriteInvalidate => CL_MAP_WRITE_INVALIDATE_REGION,
        }
    }
}

/// Runs an enqueue call that writes its event through the given pointer, and
/// takes ownership of that event.
pub(crate) fn enqueued(call: &str, f: impl FnOnce(*mut cl_event) -> cl_int) -> Result<Event> {
    let mut event: cl_event = std::ptr::null_mut();
    check(f(&mut event), call)?;
    if event.is_null() {
        return Err(Error::runtime(format!("{call} returned no event")));
    }
    // SAFETY: the enqueue call created the event and gave us its reference.
    Ok(unsafe { Event::from_owned(event) })
}

impl Queue {
    /// A new queue on `device` in `context`. Uses
    /// `clCreateCommandQueueWithProperties` on OpenCL 2.0+ devices and
    /// `clCreateCommandQueue` on older ones (or where the former is missing).
    pub fn create(
        context: &Context,
        device: &Device,
        properties: QueueProperties,
    ) -> Result<Queue> {
        let api = super::loader::api()?;
        let mut code = CL_SUCCESS;
        let raw = match (
            api.clCreateCommandQueueWithProperties,
            device.version_number()?,
        ) {
            (Some(create), version) if version >= (2, 0) => {
                let list = [
                    CL_QUEUE_PROPERTIES as cl_queue_properties,
                    properties.bits(),
                    0,
                ];
                // SAFETY: live context and device, a zero-terminated property
                // list, a valid status pointer.
                unsafe { create(context.raw(), device.raw(), list.as_ptr(), &mut code) }
            }
            _ => {
                let create = api
                    .clCreateCommandQueue
                    .ok_or_else(|| super::loader::missing("clCreateCommandQueue"))?;
                // SAFETY: live context and device, a valid status pointer.
                unsafe { create(context.raw(), device.raw(), properties.bits(), &mut code) }
            }
        };
        check(code, "clCreateCommandQueue")?;
        if raw.is_null() {
            return Err(to_error(code, "clCreateCommandQueue"));
        }
        // SAFETY: the driver gave us the only reference.
        Ok(unsafe { Queue::from_owned(raw) })
    }

    fn scalar<T: info::InfoScalar>(&self, param: cl_command_queue_info) -> Result<T> {
        let f = entry!(clGetCommandQueueInfo)?;
        info::scalar(
            // SAFETY: a live queue; the helper passes a buffer of `size` bytes.
            &|size, value, ret| unsafe { f(self.raw, param, size, value, ret) },
            "clGetCommandQueueInfo",
        )
    }

    /// The queue's context (`CL_QUEUE_CONTEXT`), retained.
    pub fn context(&self) -> Result<Context> {
        let raw: cl_context = self.scalar(CL_QUEUE_CONTEXT)?;
        // SAFETY: the live context of a live queue.
        unsafe { Context::retain_borrowed(raw) }
    }

    /// The queue's device (`CL_QUEUE_DEVICE`), retained.
    pub fn device(&self) -> Result<Device> {
        let raw: cl_device_id = self.scalar(CL_QUEUE_DEVICE)?;
        // SAFETY: the live device of a live queue.
        unsafe { Device::retain_borrowed(raw) }
    }

    /// `CL_QUEUE_PROPERTIES`: whether the queue is out-of-order and profiling.
    pub fn properties(&self) -> Result<QueueProperties> {
        Ok(QueueProperties::from_bits(
            self.scalar(CL_QUEUE_PROPERTIES)?,
        ))
    }

    /// Blocks until every command of the queue is complete (`clFinish`).
    pub fn finish(&self) -> Result<()> {
        let f = entry!(clFinish)?;
        // SAFETY: a live queue.
        check(unsafe { f(self.raw) }, "clFinish")
    }

    /// Submits the queued commands to the device (`clFlush`).
    pub fn flush(&self) -> Result<()> {
        let f = entry!(clFlush)?;
        // SAFETY: a live queue.
        check(unsafe { f(self.raw) }, "clFlush")
    }

    /// A marker: completes when the commands of `wait` are complete (all
    /// earlier commands when `wait` is empty).
    pub fn marker(&self, wait: &[Event]) -> Result<Event> {
        let f = entry!(clEnqueueMarkerWithWaitList)?;
        let (n, list) = wait_list(wait);
        // SAFETY: a live queue and a wait list of `n` live events.
        enqueued("clEnqueueMarkerWithWaitList", |e| unsafe {
            f(self.raw, n, list, e)
        })
    }

    /// A barrier: later commands wait for the commands of `wait` (all earlier
    /// commands when `wait` is empty).
    pub fn barrier(&self, wait: &[Event]) -> Result<Event> {
        let f = entry!(clEnqueueBarrierWithWaitList)?;
        let (n, list) = wait_list(wait);
        // SAFETY: as in `marker`.
        enqueued("clEnqueueBarrierWithWaitList", |e| unsafe {
            f(self.raw, n, list, e)
        })
    }

    /// Copies `data` into `mem` at `offset`, blocking until the copy is done.
    pub fn write_buffer(
        &self,
        mem: &Mem,
        offset: usize,
        data: &[u8],
        wait: &[Event],
    ) -> Result<Event> {
        // SAFETY: a blocking write reads `data` before it returns.
        unsafe { self.write_buffer_raw(mem, true, offset, data.len(), data.as_ptr().cast(), wait) }
    }

    /// `clEnqueueWriteBuffer`, blocking or not.
    ///
    /// # Safety
    /// `src` must be readable for `size` bytes until the command completes
    /// (until this call returns when `blocking`).
    pub unsafe fn write_buffer_raw(
        &self,
        mem: &Mem,
        blocking: bool,
        offset: usize,
        size: usize,
        src: *const c_void,
        wait: &[Event],
    ) -> Result<Event> {
        if size == 0 {
            return self.marker(wait);
        }
        let f = entry!(clEnqueueWriteBuffer)?;
        let (n, list) = wait_list(wait);
        let blocking = if blocking { CL_TRUE } else { CL_FALSE };
        // SAFETY: live queue and buffer, the caller's guarantee on `src`.
        enqueued("clEnqueueWriteBuffer", |e| unsafe {
            f(self.raw, mem.raw(), blocking, offset, size, src, n, list, e)
        })
    }

    /// Copies `mem` from `offset` into `data`, blocking until the copy is done.
    pub fn read_buffer(
        &self,
        mem: &Mem,
        offset: usize,
        data: &mut [u8],
        wait: &[Event],
    ) -> Result<Event> {
        // SAFETY: a blocking read writes `data` before it returns.
        unsafe {
            self.read_buffer_raw(
                mem,
                true,
                offset,
                data.len(),
                data.as_mut_ptr().cast(),
                wait,
            )
        }
    }

    /// `clEnqueueReadBuffer`, blocking or not.
    ///
    /// # Safety
    /// `dst` must be writable for `size` bytes, and not otherwise accessed,
    /// until the command completes (until this call returns when `blocking`).
    pub unsafe fn read_buffer_raw(
        &self,
        mem: &Mem,
        blocking: bool,
        offset: usize,
        size: usize,
        dst: *mut c_void,
        wait: &[Event],
    ) -> Result<Event> {
        if size == 0 {
            return self.marker(wait);
        }
        let f = entry!(clEnqueueReadBuffer)?;
        let (n, list) = wait_list(wait);
        let blocking = if blocking { CL_TRUE } else { CL_FALSE };
        // SAFETY: live queue and buffer, the caller's guarantee on `dst`.
        enqueued("clEnqueueReadBuffer", |e| unsafe {
            f(self.raw, mem.raw(), blocking, offset, size, dst, n, list, e)
        })
    }

    /// Copies `size` bytes from `src` at `src_offset` to `dst` at `dst_offset`.
    pub fn copy_buffer(
        &self,
        src: &Mem,
        src_offset: usize,
        dst: &Mem,
        dst_offset: usize,
        size: usize,
        wait: &[Event],
    ) -> Result<Event> {
        if size == 0 {
            return self.marker(wait);
        }
        let f = entry!(clEnqueueCopyBuffer)?;
        let (n, list) = wait_list(wait);
        // SAFETY: live queue and buffers; OpenCL checks the ranges.
        enqueued("clEnqueueCopyBuffer", |e| unsafe {
            f(
                self.raw,
                src.raw(),
                dst.raw(),
                src_offset,
                dst_offset,
                size,
                n,
                list,
                e,
            )
        })
    }

    /// Fills `size` bytes of `mem` from `offset` with a repeated `pattern`
    /// (1, 2, 4, ..., 128 bytes; `offset` and `size` multiples of its length).
    pub fn fill_buffer(
        &self,
        mem: &Mem,
        pattern: &[u8],
        offset: usize,
        size: usize,
        wait: &[Event],
    ) -> Result<Event> {
        if size == 0 {
            return self.marker(wait);
        }
        let f = entry!(clEnqueueFillBuffer)?;
        let (n, list) = wait_list(wait);
        // SAFETY: live queue and buffer; OpenCL copies the pattern before the
        // call returns.
        enqueued("clEnqueueFillBuffer", |e| unsafe {
            f(
                self.raw,
                mem.raw(),
                pattern.as_ptr().cast(),
                pattern.len(),
                offset,
                size,
                n,
                list,
                e,
            )
        })
    }

    /// Maps `size` bytes of `mem` from `offset` into host memory, blocking
    /// until the mapping is ready. The pointer is valid until
    /// [`Queue::unmap_buffer`] completes.
    pub fn map_buffer(
        &self,
        mem: &Mem,
        access: MapAccess,
        offset: usize,
        size: usize,
        wait: &[Event],
    ) -> Result<(*mut c_void, Event)> {
        if size == 0 {
            return Err(Error::invalid("cannot map 0 bytes of an OpenCL buffer"));
        }
        let f = entry!(clEnqueueMapBuffer)?;
        let (n, list) = wait_list(wait);
        let mut ptr = std::ptr::null_mut();
        let event = enqueued("clEnqueueMapBuffer", |e| {
            let mut code = CL_SUCCESS;
            // SAFETY: live queue and buffer, a blocking map, valid out pointers.
            ptr = unsafe {
                f(
                    self.raw,
                    mem.raw(),
                    CL_TRUE,
                    access.bits(),
                    offset,
                    size,
                    n,
                    list,
                    e,
                    &mut code,
                )
            };
            code
        })?;
        if ptr.is_null() {
            return Err(Error::runtime("clEnqueueMapBuffer returned NULL"));
        }
        Ok((ptr, event))
    }

    /// Unmaps a pointer [`Queue::map_buffer`] returned for `mem`.
    ///
    /// # Safety
    /// `ptr` must not be used once the unmap command has started (OpenCL
    /// rejects a pointer that is not a mapping of `mem`).
    pub unsafe fn unmap_buffer(
        &self,
        mem: &Mem,
        ptr: *mut c_void,
        wait: &[Event],
    ) -> Result<Event> {
        let f = entry!(clEnqueueUnmapMemObject)?;
        let (n, list) = wait_list(wait);
        // SAFETY: live queue and buffer; the caller stops using `ptr`; OpenCL
        // rejects a pointer it did not map.
        enqueued("clEnqueueUnmapMemObject", |e| unsafe {
            f(self.raw, mem.raw(), ptr, n, list, e)
        })
    }
}
