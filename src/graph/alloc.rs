//! Graph allocators: where a compiled partition's temporaries come from.
//!
//! Layer: graph, over `core::engine` and `runtime::ocl`. An [`Allocator`] is
//! a pair of optional callback sets (host, OpenCL); a missing set means the
//! library's default for that side, which is also what `*_allocator_create`
//! gives when either callback of a pair is NULL (interop-semantics.md §2.7).
//! An engine made "with an allocator" carries a *copy* of it, so the user
//! may destroy the allocator handle at once. The association lives here, in
//! a side table keyed by the engine's address and holding a `Weak` to it
//! (the `Weak` keeps the address from being reused while the entry exists),
//! so `core::engine` knows nothing of graphs.
//!
//! A [`Temp`] is one allocation: on the CPU engine host memory, on an
//! OpenCL engine device USM (`cl_intel_unified_shared_memory`, or shared
//! virtual memory on devices without it: NVIDIA, PoCL; graph on OpenCL is
//! USM-only, as upstream: a device with neither gets `dnnl_unimplemented`). Every `Temp` is freed exactly once through the
//! allocator that made it. [`Temp::release`] with the event of the last
//! command using the memory hands the free to the reaper (`reaper.rs`): the
//! caller is not blocked, and the free callback runs on a library thread
//! once that event has completed, receiving that event (upstream passes NULL
//! on in-order queues; we always pass the event the free depends on, and
//! NULL only when nothing was pending).

use std::alloc::Layout;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

use crate::abi;
use crate::core::engine::{Backend, Engine};
use crate::core::error::{Error, Result};
use crate::runtime::ocl::{self, Context, Device, Event, UsmAlloc, UsmKind};

/// The user's host callbacks.
#[derive(Clone, Copy)]
pub struct HostCallbacks {
    malloc: unsafe extern "C" fn(usize, usize) -> *mut c_void,
    free: unsafe extern "C" fn(*mut c_void),
}

/// The user's OpenCL callbacks (USM device memory).
#[derive(Clone, Copy)]
pub struct OclCallbacks {
    malloc: unsafe extern "C" fn(usize, usize, abi::cl_device_id, abi::cl_context) -> *mut c_void,
    free: unsafe extern "C" fn(*mut c_void, abi::cl_device_id, abi::cl_context, abi::cl_event),
}

/// An allocator: the callbacks of each side, `None` for the library default.
/// Copied by value wherever it is used.
#[derive(Clone, Copy, Default)]
pub struct Allocator {
    host: Option<HostCallbacks>,
    ocl: Option<OclCallbacks>,
}

impl Allocator {
    /// A host allocator; the default one unless both callbacks are given.
    pub fn host(
        malloc: abi::dnnl_graph_host_allocate_f,
        free: abi::dnnl_graph_host_deallocate_f,
    ) -> Allocator {
        let host = match (malloc, free) {
            (Some(malloc), Some(free)) => Some(HostCallbacks { malloc, free }),
            _ => None,
        };
        Allocator { host, ocl: None }
    }

    /// An OpenCL allocator; the default one unless both callbacks are given.
    pub fn ocl(
        malloc: abi::dnnl_graph_ocl_allocate_f,
        free: abi::dnnl_graph_ocl_deallocate_f,
    ) -> Allocator {
        let ocl = match (malloc, free) {
            (Some(malloc), Some(free)) => Some(OclCallbacks { malloc, free }),
            _ => None,
        };
        Allocator { host: None, ocl }
    }

    /// Whether the host side uses the user's callbacks.
    pub fn has_host_callbacks(&self) -> bool {
        self.host.is_some()
    }

    /// Whether the OpenCL side uses the user's callbacks.
    pub fn has_ocl_callbacks(&self) -> bool {
        self.ocl.is_some()
    }
}

struct Binding {
    engine: Weak<Engine>,
    allocator: Allocator,
}

static BINDINGS: Mutex<Option<HashMap<usize, Binding>>> = Mutex::new(None);

fn engine_key(engine: &Arc<Engine>) -> usize {
    Arc::as_ptr(engine) as usize
}

/// Gives `engine` (a copy of) `allocator`; an engine is bound once, when it
/// is made, so a second binding replaces the first.
pub fn bind(engine: &Arc<Engine>, allocator: Allocator) -> Result<()> {
    let dead: Vec<Binding> = {
        let mut table = BINDINGS.lock()?;
        let table = table.get_or_insert_with(HashMap::new);
        // Entries of engines that are gone: their `Weak`s are dropped below,
        // outside the lock, which frees those addresses for reuse.
        let gone: Vec<usize> = table
            .iter()
            .filter(|(_, b)| b.engine.strong_count() == 0)
            .map(|(k, _)| *k)
            .collect();
        let dead = gone.iter().filter_map(|k| table.remove(k)).collect();
        table.insert(
            engine_key(engine),
            Binding {
                engine: Arc::downgrade(engine),
                allocator,
            },
        );
        dead
    };
    drop(dead);
    Ok(())
}

/// The allocator of `engine`: the one it was made with, else the default.
pub fn allocator_of(engine: &Arc<Engine>) -> Allocator {
    let Ok(table) = BINDINGS.lock() else {
        return Allocator::default();
    };
    table
        .as_ref()
        .and_then(|t| t.get(&engine_key(engine)))
        .filter(|b| b.engine.as_ptr() == Arc::as_ptr(engine))
        .map(|b| b.allocator)
        .unwrap_or_default()
}

/// The alignment the default allocators give at least (a cache line).
const DEFAULT_ALIGNMENT: usize = 64;

fn check_alignment(alignment: usize) -> Result<usize> {
    if alignment == 0 {
        return Ok(DEFAULT_ALIGNMENT);
    }
    if !alignment.is_power_of_two() {
        return Err(Error::invalid(format!(
            "alignment {alignment} is not a power of two"
        )));
    }
    Ok(alignment)
}

/// How a [`Temp`] goes back.
enum Owner {
    /// Nothing was allocated (size 0).
    Nothing,
    /// `std::alloc` with this layout.
    HostDefault(Layout),
    /// The user's host free.
    HostUser(HostCallbacks),
    /// Our USM allocation (freed when dropped).
    OclDefault(UsmAlloc),
    /// The user's OpenCL free, with the device and context it gets (retained
    /// here, so they stay valid until the free has run).
    OclUser(OclCallbacks, Device, Context),
}

/// One allocation from an engine's graph allocator. Dropping it is
/// `release(None)`.
pub struct Temp {
    ptr: *mut c_void,
    size: usize,
    owner: Option<Owner>,
}

// SAFETY: the pointer is the address of an allocation that any thread may
// use and free; the callbacks are C function pointers the user promises may
// be called from any thread (the graph API executes on the caller's threads);
// the OpenCL wrappers are `Send + Sync`.
unsafe impl Send for Temp {}
// SAFETY: as above; `Temp` has no interior mutability.
unsafe impl Sync for Temp {}

impl Temp {
    /// Allocates `size` bytes aligned to `alignment` (a power of two; 0: the
    /// default, 64) from `engine`'s allocator. Size 0 allocates nothing and
    /// gives a NULL pointer.
    pub fn new(engine: &Arc<Engine>, size: usize, alignment: usize) -> Result<Temp> {
        let alignment = check_alignment(alignment)?;
        if size == 0 {
            return Ok(Temp {
                ptr: std::ptr::null_mut(),
                size,
                owner: Some(Owner::Nothing),
            });
        }
        let allocator = allocator_of(engine);
        let (ptr, owner) = match engine.backend() {
            Backend::Cpu => host_alloc(allocator.host, size, alignment)?,
            Backend::Ocl(ocl) => ocl_alloc(
                allocator.ocl,
                (ocl.device(), ocl.context()),
                ocl.info().global_mem_size,
                size,
                alignment,
            )?,
            Backend::Ze(_) => return Err(crate::graph::compiled::ze_unsupported()),
        };
        LIVE.fetch_add(1, Ordering::Relaxed);
        Ok(Temp {
            ptr,
            size,
            owner: Some(owner),
        })
    }

    /// The memory: a host pointer (CPU) or a USM device pointer (OpenCL);
    /// NULL for size 0.
    pub fn ptr(&self) -> *mut c_void {
        self.ptr
    }

    /// The size asked for, bytes.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Frees through the allocator once `event` (the last command using the
    /// memory) completes, without blocking the caller; `None`: nothing is
    /// pending (CPU, or already waited), the memory is freed now.
    pub fn release(mut self, event: Option<Event>) {
        if let Some(owner) = self.owner.take() {
            free(owner, self.ptr, event);
        }
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        if let Some(owner) = self.owner.take() {
            free(owner, self.ptr, None);
        }
    }
}

impl std::fmt::Debug for Temp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Temp({:p}, {} bytes)", self.ptr, self.size)
    }
}

fn misaligned(ptr: *mut c_void, alignment: usize) -> Error {
    Error::runtime(format!(
        "the graph allocator returned {ptr:p}, not aligned to {alignment} bytes"
    ))
}

fn host_alloc(
    user: Option<HostCallbacks>,
    size: usize,
    alignment: usize,
) -> Result<(*mut c_void, Owner)> {
    match user {
        Some(cb) => {
            // SAFETY: the user's allocation callback, called as documented.
            let ptr = unsafe { (cb.malloc)(size, alignment) };
            if ptr.is_null() {
                return Err(Error::OutOfMemory(
                    format!("the graph host allocator returned NULL for {size} bytes").into(),
                ));
            }
            if ptr.addr() % alignment != 0 {
                // SAFETY: the pointer came from the matching allocation callback.
                unsafe { (cb.free)(ptr) };
                return Err(misaligned(ptr, alignment));
            }
            Ok((ptr, Owner::HostUser(cb)))
        }
        None => {
            // Sizes are checked to fit `isize` before they get here; rounded
            // up to the alignment one may still not: no allocation holds it.
            let layout =
                Layout::from_size_align(size, alignment.max(DEFAULT_ALIGNMENT)).map_err(|_| {
                    Error::OutOfMemory(format!("{size} bytes cannot be allocated").into())
                })?;
            let ptr = if crate::base::fault::allocation() {
                // SAFETY: the layout has a non-zero size.
                unsafe { std::alloc::alloc(layout) }
            } else {
                std::ptr::null_mut()
            };
            if ptr.is_null() {
                return Err(Error::OutOfMemory(
                    format!("cannot allocate {size} host bytes").into(),
                ));
            }
            Ok((ptr.cast(), Owner::HostDefault(layout)))
        }
    }
}

/// `available`: the device's global memory, bytes (more is never allocated
/// by the default allocator).
fn ocl_alloc(
    user: Option<OclCallbacks>,
    (device, context): (&Device, &Context),
    available: u64,
    size: usize,
    alignment: usize,
) -> Result<(*mut c_void, Owner)> {
    // Compiled partitions pass temporaries to kernels as USM pointers.
    if !ocl::supports_usm(device) {
        let name = device.name().unwrap_or_else(|_| "?".into());
        return Err(Error::unimplemented(format!(
            "graph memory on OpenCL is USM memory, and device {name} has neither \
             cl_intel_unified_shared_memory nor shared virtual memory"
        )));
    }
    match user {
        Some(cb) => {
            // SAFETY: the user's allocation callback with a live device and context.
            let ptr =
                unsafe { (cb.malloc)(size, alignment, device.raw().cast(), context.raw().cast()) };
            if ptr.is_null() {
                return Err(Error::OutOfMemory(
                    format!("the graph OpenCL allocator returned NULL for {size} bytes").into(),
                ));
            }
            let refuse = |error: Error| {
                ocl_user_free(&cb, ptr, device, context, None);
                Err(error)
            };
            if ptr.addr() % alignment != 0 {
                return refuse(misaligned(ptr, alignment));
            }
            match ocl::user_usm_kind(context, ptr, size) {
                Ok(UsmKind::Unknown) => {
                    return refuse(Error::runtime(format!(
                        "the graph OpenCL allocator returned {ptr:p}, which is not USM \
                         memory of the engine's context"
                    )));
                }
                Err(e) => return refuse(e),
                Ok(_) => {}
            }
            let owner = Owner::OclUser(cb, device.clone(), context.clone());
            Ok((ptr, owner))
        }
        None => {
            let alignment = u32::try_from(alignment)
                .map_err(|_| Error::invalid(format!("alignment {alignment} is too large")))?;
            // More than the device has can never be allocated: say so as the
            // CPU engine does, not with the driver's error.
            if u64::try_from(size).map_or(true, |s| s > available) {
                return Err(Error::OutOfMemory(
                    format!("{size} bytes of USM: the device has {available}").into(),
                ));
            }
            if !crate::base::fault::allocation() {
                return Err(Error::OutOfMemory(
                    format!("cannot allocate {size} bytes of USM").into(),
                ));
            }
            let usm = ocl::usm_alloc(context, device, UsmKind::Device, size, alignment)?;
            Ok((usm.ptr(), Owner::OclDefault(usm)))
        }
    }
}

/// A pointer moved to the reaper thread with the free that owns it.
struct SendPtr(*mut c_void);

// SAFETY: the address of an allocation whose only remaining use is its free.
unsafe impl Send for SendPtr {}

impl SendPtr {
    /// The pointer (a method, so that closures capture the whole wrapper).
    fn get(&self) -> *mut c_void {
        self.0
    }
}

/// Frees now when nothing is pending, else once `event` completes.
/// Graph allocations alive (for the leak checks of the allocation-failure
/// tests).
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// How many graph allocations (temporaries and library-allocated tensors) are
/// alive now.
pub fn live_allocations() -> usize {
    LIVE.load(Ordering::Relaxed)
}

fn free(owner: Owner, ptr: *mut c_void, event: Option<Event>) {
    if !matches!(owner, Owner::Nothing) {
        LIVE.fetch_sub(1, Ordering::Relaxed);
    }
    match (owner, event) {
        (Owner::Nothing, _) => {}
        // Host memory: the CPU engine executes synchronously, nothing pends.
        (Owner::HostDefault(layout), _) => {
            // SAFETY: allocated by `std::alloc::alloc` with this layout, freed once.
            unsafe { std::alloc::dealloc(ptr.cast(), layout) }
        }
        (Owner::HostUser(cb), _) => {
            // SAFETY: the matching callback, once.
            unsafe { (cb.free)(ptr) }
        }
        // `clMemBlockingFreeINTEL` waits for commands still using the memory.
        (Owner::OclDefault(usm), None) => drop(usm),
        (Owner::OclDefault(usm), Some(event)) => {
            super::reaper::defer(event, Box::new(move |_| drop(usm)));
        }
        (Owner::OclUser(cb, device, context), None) => {
            ocl_user_free(&cb, ptr, &device, &context, None);
        }
        (Owner::OclUser(cb, device, context), Some(event)) => {
            let ptr = SendPtr(ptr);
            super::reaper::defer(
                event,
                Box::new(move |event| {
                    ocl_user_free(&cb, ptr.get(), &device, &context, Some(event));
                }),
            );
        }
    }
}

fn ocl_user_free(
    cb: &OclCallbacks,
    ptr: *mut c_void,
    device: &Device,
    context: &Context,
    event: Option<&Event>,
) {
    let raw_event = event.map_or(std::ptr::null_mut(), |e| e.raw().cast());
    // SAFETY: the matching callback, once, with the live device and context
    // the memory was allocated for, and a live (complete) event or NULL.
    unsafe { (cb.free)(ptr, device.raw().cast(), context.raw().cast(), raw_event) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::engine::EngineKind;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static ALLOCS: AtomicUsize = AtomicUsize::new(0);
    static FREES: AtomicUsize = AtomicUsize::new(0);

    unsafe extern "C" fn counting_malloc(size: usize, alignment: usize) -> *mut c_void {
        ALLOCS.fetch_add(1, Ordering::SeqCst);
        let layout = Layout::from_size_align(size + alignment, alignment).unwrap();
        // SAFETY: non-zero size. The size is stored in front of the block.
        unsafe {
            let base = std::alloc::alloc(layout);
            base.add(alignment).cast::<usize>().sub(1).write(size);
            base.add(alignment).cast()
        }
    }

    unsafe extern "C" fn counting_free(ptr: *mut c_void) {
        FREES.fetch_add(1, Ordering::SeqCst);
        // The test frees what it allocated with alignment 128.
        // SAFETY: `ptr` came from `counting_malloc` with alignment 128.
        unsafe {
            let size = ptr.cast::<usize>().sub(1).read();
            let base = ptr.cast::<u8>().sub(128);
            std::alloc::dealloc(base, Layout::from_size_align(size + 128, 128).unwrap());
        }
    }

    #[test]
    fn host_default_and_user_allocators() {
        let engine = Engine::create(EngineKind::Cpu, 0).unwrap();
        let t = Temp::new(&engine, 100, 256).unwrap();
        assert_eq!(t.ptr().addr() % 256, 0);
        assert_eq!(t.size(), 100);
        t.release(None);

        let user = Engine::create(EngineKind::Cpu, 0).unwrap();
        bind(
            &user,
            Allocator::host(Some(counting_malloc), Some(counting_free)),
        )
        .unwrap();
        assert!(allocator_of(&user).has_host_callbacks());
        assert!(!allocator_of(&engine).has_host_callbacks());
        let a = Temp::new(&user, 10, 128).unwrap();
        let b = Temp::new(&user, 20, 128).unwrap();
        assert_eq!(a.ptr().addr() % 128, 0);
        assert_eq!(ALLOCS.load(Ordering::SeqCst), 2);
        a.release(None);
        drop(b);
        assert_eq!(FREES.load(Ordering::SeqCst), 2);
        assert!(Temp::new(&user, 0, 0).unwrap().ptr().is_null());
        assert_eq!(ALLOCS.load(Ordering::SeqCst), 2);
        assert!(Temp::new(&user, 8, 3).is_err());
    }

    #[test]
    fn either_callback_missing_means_the_default() {
        assert!(!Allocator::host(Some(counting_malloc), None).has_host_callbacks());
        assert!(!Allocator::host(None, Some(counting_free)).has_host_callbacks());
        assert!(!Allocator::ocl(None, None).has_ocl_callbacks());
    }

    #[test]
    fn a_dead_engine_leaves_no_binding_behind() {
        let engine = Engine::create(EngineKind::Cpu, 0).unwrap();
        bind(
            &engine,
            Allocator::host(Some(counting_malloc), Some(counting_free)),
        )
        .unwrap();
        drop(engine);
        let other = Engine::create(EngineKind::Cpu, 0).unwrap();
        bind(&other, Allocator::default()).unwrap();
        assert!(!allocator_of(&other).has_host_callbacks());
    }

    static OCL_FREES: Mutex<Vec<(usize, bool, bool)>> = Mutex::new(Vec::new());

    unsafe extern "C" fn usm_malloc(
        size: usize,
        alignment: usize,
        device: abi::cl_device_id,
        context: abi::cl_context,
    ) -> *mut c_void {
        // SAFETY: live handles from the library.
        let (device, context) = unsafe {
            (
                Device::retain_borrowed(device.cast()).unwrap(),
                Context::retain_borrowed(context.cast()).unwrap(),
            )
        };
        let usm = ocl::usm_alloc(&context, &device, UsmKind::Device, size, alignment as u32);
        let usm = usm.unwrap();
        let ptr = usm.ptr();
        std::mem::forget(usm);
        ptr
    }

    unsafe extern "C" fn usm_free_cb(
        ptr: *mut c_void,
        _device: abi::cl_device_id,
        context: abi::cl_context,
        event: abi::cl_event,
    ) {
        let complete = (!event.is_null()).then(|| {
            // SAFETY: a live event from the library.
            let event = unsafe { Event::retain_borrowed(event.cast()) }.unwrap();
            event.is_complete().unwrap()
        });
        // SAFETY: a live context; `ptr` came from `usm_malloc`.
        unsafe {
            let context = Context::retain_borrowed(context.cast()).unwrap();
            ocl::usm_free(&context, ptr).unwrap();
        }
        OCL_FREES
            .lock()
            .unwrap()
            .push((ptr.addr(), complete.is_some(), complete.unwrap_or(true)));
    }

    #[test]
    fn ocl_temps_are_usm_and_freed_after_their_event() {
        for i in 0..Engine::count(EngineKind::Gpu) {
            let engine = Engine::create(EngineKind::Gpu, i).unwrap();
            let ocl = engine.ocl("test").unwrap();
            if !ocl::supports_usm(ocl.device()) {
                let err = Temp::new(&engine, 64, 64).unwrap_err();
                assert!(matches!(err, Error::Unimplemented(_)), "{err}");
                continue;
            }
            // The default allocator, freed after a command.
            let t = Temp::new(&engine, 1000, 256).unwrap();
            assert_eq!(t.ptr().addr() % 256, 0);
            let kind = ocl::usm_kind(ocl.context(), t.ptr()).unwrap();
            // Device USM, or SVM where the device has no Intel USM.
            let want = if ocl::is_svm_context(ocl.context()) {
                UsmKind::Svm
            } else {
                UsmKind::Device
            };
            assert_eq!(kind, want);
            let queue = ocl.service_queue().unwrap();
            t.release(Some(queue.marker(&[]).unwrap()));

            // The user's, which sees every event complete.
            bind(&engine, Allocator::ocl(Some(usm_malloc), Some(usm_free_cb))).unwrap();
            let temps: Vec<Temp> = (0..8)
                .map(|k| Temp::new(&engine, 100 + k, 128).unwrap())
                .collect();
            let addrs: Vec<usize> = temps.iter().map(|t| t.ptr().addr()).collect();
            let mut last = None;
            for (k, t) in temps.into_iter().enumerate() {
                match k % 3 {
                    0 => drop(t),
                    1 => t.release(None),
                    _ => {
                        let wait: Vec<Event> = last.iter().cloned().collect();
                        let event = queue.marker(&wait).unwrap();
                        last = Some(event.clone());
                        t.release(Some(event));
                    }
                }
            }
            super::super::reaper::wait_idle();
            let frees = OCL_FREES.lock().unwrap();
            for addr in addrs {
                let found: Vec<_> = frees.iter().filter(|f| f.0 == addr).collect();
                assert_eq!(found.len(), 1, "{addr:#x} freed once");
                assert!(found[0].2, "its event was complete");
            }
            assert!(frees.iter().any(|f| f.1), "some frees got an event");
            assert!(frees.iter().any(|f| !f.1), "some frees got NULL");
        }
    }
}
