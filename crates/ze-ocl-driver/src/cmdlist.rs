//! Command queues and command lists.
//!
//! A ze command queue is an in-order OpenCL queue (with profiling, for kernel
//! timestamps). A regular command list records commands; zeCommandQueueExecuteCommandLists
//! replays them onto the queue's OpenCL queue. An immediate command list owns an
//! OpenCL queue and enqueues each command as it is appended (and flushes; in
//! synchronous mode it also waits). Every command takes its wait events into the
//! OpenCL wait list and signals its event through the command's OpenCL event
//! (see `event.rs`).

use std::ffi::c_void;
use std::ptr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use level_zero_sys::*;

use crate::cl::{self, *};
use crate::context::{Context, context, context_device};
use crate::driver::MAX_FILL_PATTERN;
use crate::event::{self, Event};
use crate::module::{self, Arg, Kernel};
use crate::objects::{Registry, ZeResult, guard, input, out, slice};

/// An in-order OpenCL queue.
pub struct Queue {
    pub ctx: Arc<Context>,
    pub cl_queue: cl_command_queue,
    synchronous: bool,
}

// SAFETY: OpenCL queues are thread-safe objects.
unsafe impl Send for Queue {}
// SAFETY: as above.
unsafe impl Sync for Queue {}

impl Queue {
    fn new(ctx: Arc<Context>, mode: ze_command_queue_mode_t) -> ZeResult<Queue> {
        let d = &ctx.device;
        let props = [
            CL_QUEUE_PROPERTIES as cl_bitfield,
            CL_QUEUE_PROFILING_ENABLE,
            0,
        ];
        let mut err = 0;
        // SAFETY: valid context and device; zero-terminated property list.
        let q = unsafe {
            (d.cl.clCreateCommandQueueWithProperties)(
                ctx.cl_context,
                d.id,
                props.as_ptr(),
                &mut err,
            )
        };
        cl::check(err)?;
        Ok(Queue {
            ctx,
            cl_queue: q,
            synchronous: mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS,
        })
    }

    fn cl(&self) -> &'static Cl {
        self.ctx.device.cl
    }

    fn flush(&self) -> ZeResult<()> {
        // SAFETY: valid queue.
        cl::check(unsafe { (self.cl().clFlush)(self.cl_queue) })?;
        if self.synchronous {
            self.finish()?;
        }
        Ok(())
    }

    fn finish(&self) -> ZeResult<()> {
        // SAFETY: valid queue.
        cl::check(unsafe { (self.cl().clFinish)(self.cl_queue) })
    }

    /// Waits for everything enqueued so far, at most `timeout_ns` (u64::MAX: forever).
    fn synchronize(&self, timeout_ns: u64) -> ZeResult<()> {
        if timeout_ns == u64::MAX {
            return self.finish();
        }
        let mut marker = ptr::null_mut();
        // SAFETY: valid queue; we own the returned event.
        cl::check(unsafe {
            (self.cl().clEnqueueMarkerWithWaitList)(self.cl_queue, 0, ptr::null(), &mut marker)
        })?;
        // SAFETY: valid queue.
        unsafe { (self.cl().clFlush)(self.cl_queue) };
        let deadline = Instant::now() + Duration::from_nanos(timeout_ns);
        let result = loop {
            // SAFETY: our marker event.
            let status = cl::info_value::<cl_int>(|s, p, r| unsafe {
                (self.cl().clGetEventInfo)(marker, CL_EVENT_COMMAND_EXECUTION_STATUS, s, p, r)
            });
            match status {
                Ok(s) if s == CL_COMPLETE => break Ok(()),
                Ok(s) if s < 0 => break Err(ZE_RESULT_ERROR_DEVICE_LOST),
                Err(e) => break Err(cl::to_ze(e)),
                _ if Instant::now() >= deadline => break Err(ZE_RESULT_NOT_READY),
                _ => std::thread::sleep(Duration::from_micros(50)),
            }
        };
        event::release_all(self.cl(), &[marker]);
        result
    }
}

impl Drop for Queue {
    fn drop(&mut self) {
        // SAFETY: valid queue, released once after its work is done.
        unsafe {
            (self.cl().clFinish)(self.cl_queue);
            (self.cl().clReleaseCommandQueue)(self.cl_queue);
        }
    }
}

#[derive(Clone)]
enum Op {
    Copy {
        dst: usize,
        src: usize,
        size: usize,
    },
    /// `data` is the pattern when OpenCL can fill with it, else the whole bytes to copy.
    Fill {
        dst: usize,
        data: Arc<[u8]>,
        size: usize,
        native: bool,
    },
    Barrier,
    Launch {
        kernel: Arc<Kernel>,
        args: Vec<Arg>,
        global: [usize; 3],
        local: [usize; 3],
    },
    Reset(Arc<Event>),
}

#[derive(Clone)]
struct Command {
    op: Op,
    signal: Option<Arc<Event>>,
    waits: Vec<Arc<Event>>,
}

impl Command {
    /// Enqueues the operation itself, waiting for `waits`, its OpenCL event in `*evp`
    /// when `evp` is not NULL.
    fn enqueue_op(&self, q: &Queue, waits: &[cl_event], evp: *mut cl_event) -> ZeResult<()> {
        let d = &q.ctx.device;
        let (n, w) = (
            waits.len() as cl_uint,
            if waits.is_empty() {
                ptr::null()
            } else {
                waits.as_ptr()
            },
        );
        let barrier = |n: cl_uint, w: *const cl_event, evp: *mut cl_event| {
            // SAFETY: valid queue; `w` holds `n` retained events.
            cl::check(unsafe { (d.cl.clEnqueueBarrierWithWaitList)(q.cl_queue, n, w, evp) })
        };
        match &self.op {
            Op::Copy { dst, src, size } => {
                // SAFETY: valid queue and wait list; dst/src/size were checked at append
                // (non-NULL) and the caller keeps the memory alive until completion.
                let err = unsafe {
                    (d.usm.clEnqueueMemcpyINTEL)(
                        q.cl_queue,
                        0,
                        *dst as *mut c_void,
                        *src as *const c_void,
                        *size,
                        n,
                        w,
                        evp,
                    )
                };
                cl::check(err)
            }
            Op::Fill {
                dst,
                data,
                size,
                native: true,
            } => {
                // SAFETY: as for Copy; the pattern is copied by OpenCL at enqueue.
                let err = unsafe {
                    (d.usm.clEnqueueMemFillINTEL)(
                        q.cl_queue,
                        *dst as *mut c_void,
                        data.as_ptr().cast(),
                        data.len(),
                        *size,
                        n,
                        w,
                        evp,
                    )
                };
                cl::check(err)
            }
            Op::Fill {
                dst,
                data,
                size,
                native: false,
            } => {
                // SAFETY: as for Copy; `data` (size bytes) lives in the command list
                // (regular) or the list's keep-alive (immediate) until completion.
                let err = unsafe {
                    (d.usm.clEnqueueMemcpyINTEL)(
                        q.cl_queue,
                        0,
                        *dst as *mut c_void,
                        data.as_ptr().cast(),
                        *size,
                        n,
                        w,
                        evp,
                    )
                };
                cl::check(err)
            }
            Op::Barrier => barrier(n, w, evp),
            Op::Launch { global, .. } if global.contains(&0) => barrier(n, w, evp),
            Op::Launch {
                kernel,
                args,
                global,
                local,
            } => kernel.enqueue(q.cl_queue, args, *global, *local, waits, evp),
            Op::Reset(e) => {
                // In order: after what it waits for (nothing else is reset early).
                if n > 0 {
                    barrier(n, w, ptr::null_mut())?;
                }
                e.reset()
            }
        }
    }

    fn enqueue(&self, q: &Queue) -> ZeResult<()> {
        let d = &q.ctx.device;
        let waits = event::wait_list(&self.waits);
        let mut ev: cl_event = ptr::null_mut();
        let evp: *mut cl_event = if self.signal.is_some() {
            &mut ev
        } else {
            ptr::null_mut()
        };
        let result = self.enqueue_op(q, &waits, evp);
        event::release_all(d.cl, &waits);
        result?;
        if let Some(signal) = &self.signal {
            let r = signal.signal_on(ev);
            event::release_all(d.cl, &[ev]);
            r?;
        }
        Ok(())
    }
}

enum Kind {
    Regular {
        commands: Vec<Command>,
        closed: bool,
    },
    Immediate {
        queue: Queue,
        keep: Vec<Arc<[u8]>>,
    },
}

pub struct CommandList {
    pub ctx: Arc<Context>,
    kind: Mutex<Kind>,
}

pub static QUEUES: Registry<Queue> = Registry::new();
pub static LISTS: Registry<CommandList> = Registry::new();

fn list(h: ze_command_list_handle_t) -> ZeResult<Arc<CommandList>> {
    LISTS.get(h)
}

impl CommandList {
    /// Records (regular) or enqueues (immediate) a command.
    fn append(
        &self,
        op: Op,
        signal: ze_event_handle_t,
        num_waits: u32,
        waits: *mut ze_event_handle_t,
    ) -> ZeResult<()> {
        let signal = if signal.is_null() {
            None
        } else {
            Some(self.own_event(signal)?)
        };
        let waits = slice(waits.cast_const(), num_waits)?
            .iter()
            .map(|&h| self.own_event(h))
            .collect::<ZeResult<Vec<_>>>()?;
        let command = Command { op, signal, waits };
        let mut kind = self.kind.lock().unwrap();
        match &mut *kind {
            Kind::Regular { closed: true, .. } => Err(ZE_RESULT_ERROR_INVALID_ARGUMENT),
            Kind::Regular { commands, .. } => {
                commands.push(command);
                Ok(())
            }
            Kind::Immediate { queue, keep } => {
                if let Op::Fill {
                    data,
                    native: false,
                    ..
                } = &command.op
                {
                    keep.push(data.clone());
                }
                command.enqueue(queue)?;
                queue.flush()
            }
        }
    }

    /// An event of this list's context.
    fn own_event(&self, h: ze_event_handle_t) -> ZeResult<Arc<Event>> {
        let e = event::event(h)?;
        if !Arc::ptr_eq(&e.pool.ctx, &self.ctx) {
            return Err(ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        Ok(e)
    }
}

pub unsafe extern "C" fn zeCommandQueueCreate(
    hctx: ze_context_handle_t,
    hdev: ze_device_handle_t,
    desc: *const ze_command_queue_desc_t,
    out_queue: *mut ze_command_queue_handle_t,
) -> ze_result_t {
    guard(|| {
        let ctx = context(hctx)?;
        context_device(&ctx, hdev)?;
        let desc = input(desc)?;
        let out_queue = out(out_queue)?;
        check_queue_desc(desc)?;
        *out_queue = QUEUES.insert(Arc::new(Queue::new(ctx, desc.mode)?));
        Ok(())
    })
}

fn check_queue_desc(desc: &ze_command_queue_desc_t) -> ZeResult<()> {
    if desc.ordinal != 0 || desc.index != 0 {
        return Err(ZE_RESULT_ERROR_INVALID_ARGUMENT);
    }
    if desc.mode.0 > ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS.0
        || desc.priority.0 > ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH.0
    {
        return Err(ZE_RESULT_ERROR_INVALID_ENUMERATION);
    }
    Ok(())
}

pub unsafe extern "C" fn zeCommandQueueDestroy(h: ze_command_queue_handle_t) -> ze_result_t {
    guard(|| QUEUES.remove(h).map(drop))
}

pub unsafe extern "C" fn zeCommandQueueExecuteCommandLists(
    h: ze_command_queue_handle_t,
    num_lists: u32,
    lists: *mut ze_command_list_handle_t,
    fence: ze_fence_handle_t,
) -> ze_result_t {
    guard(|| {
        let q = QUEUES.get(h)?;
        if num_lists == 0 {
            return Err(ZE_RESULT_ERROR_INVALID_SIZE);
        }
        if !fence.is_null() {
            return Err(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
        }
        let lists = slice(lists.cast_const(), num_lists)?
            .iter()
            .map(|&l| list(l))
            .collect::<ZeResult<Vec<_>>>()?;
        // Check them all before enqueueing anything.
        let mut replay = Vec::new();
        for l in &lists {
            if !Arc::ptr_eq(&l.ctx, &q.ctx) {
                return Err(ZE_RESULT_ERROR_INVALID_ARGUMENT);
            }
            match &*l.kind.lock().unwrap() {
                Kind::Regular {
                    commands,
                    closed: true,
                } => replay.extend(commands.iter().cloned()),
                _ => return Err(ZE_RESULT_ERROR_INVALID_ARGUMENT),
            }
        }
        for c in &replay {
            c.enqueue(&q)?;
        }
        q.flush()
    })
}

pub unsafe extern "C" fn zeCommandQueueSynchronize(
    h: ze_command_queue_handle_t,
    timeout: u64,
) -> ze_result_t {
    guard(|| QUEUES.get(h)?.synchronize(timeout))
}

pub unsafe extern "C" fn zeCommandListCreate(
    hctx: ze_context_handle_t,
    hdev: ze_device_handle_t,
    desc: *const ze_command_list_desc_t,
    out_list: *mut ze_command_list_handle_t,
) -> ze_result_t {
    guard(|| {
        let ctx = context(hctx)?;
        context_device(&ctx, hdev)?;
        let desc = input(desc)?;
        let out_list = out(out_list)?;
        if desc.commandQueueGroupOrdinal != 0 {
            return Err(ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        let l = CommandList {
            ctx,
            kind: Mutex::new(Kind::Regular {
                commands: Vec::new(),
                closed: false,
            }),
        };
        *out_list = LISTS.insert(Arc::new(l));
        Ok(())
    })
}

pub unsafe extern "C" fn zeCommandListCreateImmediate(
    hctx: ze_context_handle_t,
    hdev: ze_device_handle_t,
    desc: *const ze_command_queue_desc_t,
    out_list: *mut ze_command_list_handle_t,
) -> ze_result_t {
    guard(|| {
        let ctx = context(hctx)?;
        context_device(&ctx, hdev)?;
        let desc = input(desc)?;
        let out_list = out(out_list)?;
        check_queue_desc(desc)?;
        let queue = Queue::new(ctx.clone(), desc.mode)?;
        let l = CommandList {
            ctx,
            kind: Mutex::new(Kind::Immediate {
                queue,
                keep: Vec::new(),
            }),
        };
        *out_list = LISTS.insert(Arc::new(l));
        Ok(())
    })
}

pub unsafe extern "C" fn zeCommandListDestroy(h: ze_command_list_handle_t) -> ze_result_t {
    guard(|| LISTS.remove(h).map(drop))
}

pub unsafe extern "C" fn zeCommandListClose(h: ze_command_list_handle_t) -> ze_result_t {
    guard(|| {
        let l = list(h)?;
        if let Kind::Regular { closed, .. } = &mut *l.kind.lock().unwrap() {
            *closed = true;
        }
        Ok(())
    })
}

pub unsafe extern "C" fn zeCommandListReset(h: ze_command_list_handle_t) -> ze_result_t {
    guard(|| {
        let l = list(h)?;
        match &mut *l.kind.lock().unwrap() {
            Kind::Regular { commands, closed } => {
                commands.clear();
                *closed = false;
                Ok(())
            }
            Kind::Immediate { queue, keep } => {
                queue.finish()?;
                keep.clear();
                Ok(())
            }
        }
    })
}

pub unsafe extern "C" fn zeCommandListAppendBarrier(
    h: ze_command_list_handle_t,
    signal: ze_event_handle_t,
    n: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    guard(|| list(h)?.append(Op::Barrier, signal, n, waits))
}

pub unsafe extern "C" fn zeCommandListAppendMemoryCopy(
    h: ze_command_list_handle_t,
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    signal: ze_event_handle_t,
    n: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    guard(|| {
        let l = list(h)?;
        if dst.is_null() || src.is_null() {
            return Err(ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        }
        let op = if size == 0 {
            Op::Barrier
        } else {
            Op::Copy {
                dst: dst as usize,
                src: src as usize,
                size,
            }
        };
        l.append(op, signal, n, waits)
    })
}

pub unsafe extern "C" fn zeCommandListAppendMemoryFill(
    h: ze_command_list_handle_t,
    dst: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    size: usize,
    signal: ze_event_handle_t,
    n: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    guard(|| {
        let l = list(h)?;
        if dst.is_null() || pattern.is_null() {
            return Err(ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        }
        if pattern_size == 0 || pattern_size > MAX_FILL_PATTERN {
            return Err(ZE_RESULT_ERROR_INVALID_SIZE);
        }
        // SAFETY: pattern_size readable bytes.
        let pat = unsafe { std::slice::from_raw_parts(pattern.cast::<u8>(), pattern_size) };
        let native = pattern_size.is_power_of_two() && size % pattern_size == 0;
        let data: Arc<[u8]> = if native {
            pat.into()
        } else {
            pat.iter().copied().cycle().take(size).collect()
        };
        let op = if size == 0 {
            Op::Barrier
        } else {
            Op::Fill {
                dst: dst as usize,
                data,
                size,
                native,
            }
        };
        l.append(op, signal, n, waits)
    })
}

pub unsafe extern "C" fn zeCommandListAppendSignalEvent(
    h: ze_command_list_handle_t,
    e: ze_event_handle_t,
) -> ze_result_t {
    guard(|| {
        if e.is_null() {
            return Err(ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
        }
        list(h)?.append(Op::Barrier, e, 0, ptr::null_mut())
    })
}

pub unsafe extern "C" fn zeCommandListAppendWaitOnEvents(
    h: ze_command_list_handle_t,
    n: u32,
    events: *mut ze_event_handle_t,
) -> ze_result_t {
    guard(|| {
        if n == 0 || events.is_null() {
            return Err(ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        }
        list(h)?.append(Op::Barrier, ptr::null_mut(), n, events)
    })
}

pub unsafe extern "C" fn zeCommandListAppendEventReset(
    h: ze_command_list_handle_t,
    e: ze_event_handle_t,
) -> ze_result_t {
    guard(|| {
        let l = list(h)?;
        let ev = l.own_event(e)?;
        l.append(Op::Reset(ev), ptr::null_mut(), 0, ptr::null_mut())
    })
}

pub unsafe extern "C" fn zeCommandListAppendLaunchKernel(
    h: ze_command_list_handle_t,
    hkernel: ze_kernel_handle_t,
    groups: *const ze_group_count_t,
    signal: ze_event_handle_t,
    n: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    guard(|| {
        let l = list(h)?;
        let k = module::kernel(hkernel)?;
        let groups = input(groups)?;
        if !Arc::ptr_eq(&k.module.ctx, &l.ctx) {
            return Err(ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        let (args, gs) = k.snapshot()?;
        let local = [gs[0] as usize, gs[1] as usize, gs[2] as usize];
        let count = [
            groups.groupCountX as usize,
            groups.groupCountY as usize,
            groups.groupCountZ as usize,
        ];
        let global = [
            count[0] * local[0],
            count[1] * local[1],
            count[2] * local[2],
        ];
        l.append(
            Op::Launch {
                kernel: k,
                args,
                global,
                local,
            },
            signal,
            n,
            waits,
        )
    })
}
