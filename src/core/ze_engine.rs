//! The Level Zero side of engines and streams: a driver, device and
//! context, the engine's program cache, and command lists with their events.
//!
//! Layer: core, over `runtime::ze`. Rules (interop-semantics.md §2.8; the
//! README's Level Zero section): the user's driver, device, context, command
//! list and events are borrowed, never destroyed; an engine from user
//! handles is checked (the device is one of the driver's, the context
//! answers `zeContextGetStatus`). Engines of `dnnl_engine_create(dnnl_gpu, i)`
//! under `ONEDNN_GPU_RUNTIME=ze` make (and destroy) a context of their own.
//!
//! Streams are in-order whatever the list's mode: every command waits for
//! the stream's previous one through events, so a user's regular list works
//! too (we only append to it; the user closes and executes it). Waiting for
//! a stream waits for the event of its last command.

// Level Zero handles are opaque pointers handed to the driver (see
// `runtime::ze`): they are never dereferenced here.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use std::sync::{Mutex, OnceLock};

use level_zero_sys as sys;

use crate::core::error::{Error, Result};
use crate::core::gpu::KernelArg;
use crate::runtime::ocl::ProgramKey;
use crate::runtime::ze::{
    self, CommandList, DeviceInfo, Event, EventSet, MemKind, ProgramCache, Raw, UsmAlloc,
};

/// Whether `dnnl_engine_create(dnnl_gpu, i)` uses Level Zero devices:
/// `ONEDNN_GPU_RUNTIME` (or `DNNL_GPU_RUNTIME`) is `ze` (default: `ocl`).
pub fn is_gpu_runtime() -> bool {
    static ZE: OnceLock<bool> = OnceLock::new();
    *ZE.get_or_init(|| crate::core::env::get("GPU_RUNTIME").is_some_and(|v| v.trim() == "ze"))
}

/// The number of Level Zero devices (0 without a loader or driver).
pub fn device_count() -> usize {
    ze::all_devices().len()
}

/// Alignment of USM the library allocates (oneDNN's GPU buffer alignment).
pub const USM_ALIGNMENT: usize = 128;

/// A Level Zero device and context with the engine's program cache.
pub struct ZeEngine {
    driver: Raw<sys::ze_driver_handle_t>,
    device: Raw<sys::ze_device_handle_t>,
    context: Raw<sys::ze_context_handle_t>,
    /// Whether we created the context (and destroy it).
    owns_context: bool,
    info: DeviceInfo,
    programs: ProgramCache,
    /// A stream of our own for work outside any stream (zeroing, map/unmap).
    service: OnceLock<ZeQueue>,
}

impl ZeEngine {
    /// Checks the user's handles: all non-NULL, the device one of the
    /// driver's, the context usable. Returns the device's properties.
    pub fn check_user(
        driver: sys::ze_driver_handle_t,
        device: sys::ze_device_handle_t,
        context: sys::ze_context_handle_t,
    ) -> Result<DeviceInfo> {
        if driver.is_null() {
            return Err(Error::invalid("driver is NULL"));
        }
        if device.is_null() {
            return Err(Error::invalid("device is NULL"));
        }
        if context.is_null() {
            return Err(Error::invalid("context is NULL"));
        }
        ZeEngine::check_device(driver, device)?;
        let api = ze::api()?;
        // SAFETY: a non-NULL context handle the caller vouches for.
        let status = unsafe { api.zeContextGetStatus(context) };
        ze::check(status, "zeContextGetStatus")
            .map_err(|e| Error::invalid(format!("the context is not usable: {e}")))?;
        ze::device_info(driver, device)
    }

    /// Checks that `device` is one of `driver`'s (or a sub-device of one).
    pub fn check_device(
        driver: sys::ze_driver_handle_t,
        device: sys::ze_device_handle_t,
    ) -> Result<()> {
        if driver.is_null() || device.is_null() {
            return Err(Error::invalid("driver or device is NULL"));
        }
        let known = ze::drivers()?;
        if !known.contains(&driver) {
            return Err(Error::invalid(
                "the driver is not one the Level Zero loader reports",
            ));
        }
        let devices = ze::devices_of(driver)
            .map_err(|e| Error::invalid(format!("the driver cannot list devices: {e}")))?;
        if devices.contains(&device) {
            return Ok(());
        }
        let api = ze::api()?;
        for root in devices {
            let mut count = 0u32;
            // SAFETY: a device of the driver; count query.
            let r = unsafe { api.zeDeviceGetSubDevices(root, &mut count, std::ptr::null_mut()) };
            if !r.is_success() || count == 0 {
                continue;
            }
            let mut subs = vec![std::ptr::null_mut(); count as usize];
            // SAFETY: room for `count` handles.
            let r = unsafe { api.zeDeviceGetSubDevices(root, &mut count, subs.as_mut_ptr()) };
            if r.is_success() && subs.contains(&device) {
                return Ok(());
            }
        }
        Err(Error::invalid("the device does not belong to the driver"))
    }

    /// Wraps the user's handles (borrowed), after [`ZeEngine::check_user`].
    pub fn from_user(
        driver: sys::ze_driver_handle_t,
        device: sys::ze_device_handle_t,
        context: sys::ze_context_handle_t,
    ) -> Result<ZeEngine> {
        let info = ZeEngine::check_user(driver, device, context)?;
        Ok(ZeEngine::new(driver, device, context, false, info))
    }

    /// The engine of the `index`-th Level Zero device, with a context of its own.
    pub fn create(index: usize) -> Result<ZeEngine> {
        let (driver, device) = ze::all_devices()
            .into_iter()
            .nth(index)
            .ok_or_else(|| Error::invalid(format!("no Level Zero device {index}")))?;
        let api = ze::api()?;
        let desc = sys::ze_context_desc_t::default();
        let mut context: sys::ze_context_handle_t = std::ptr::null_mut();
        ze::check(
            // SAFETY: a driver of the loader, a descriptor with its stype, a
            // writable output.
            unsafe { api.zeContextCreate(driver, &desc, &mut context) },
            "zeContextCreate",
        )?;
        let info = match ze::device_info(driver, device) {
            Ok(info) => info,
            Err(e) => {
                // SAFETY: the context just made, unused.
                unsafe { api.zeContextDestroy(context) };
                return Err(e);
            }
        };
        Ok(ZeEngine::new(driver, device, context, true, info))
    }

    fn new(
        driver: sys::ze_driver_handle_t,
        device: sys::ze_device_handle_t,
        context: sys::ze_context_handle_t,
        owns_context: bool,
        info: DeviceInfo,
    ) -> ZeEngine {
        ZeEngine {
            driver: Raw(driver),
            device: Raw(device),
            context: Raw(context),
            owns_context,
            info,
            programs: ProgramCache::new(),
            service: OnceLock::new(),
        }
    }

    /// The driver (borrowed).
    pub fn driver(&self) -> sys::ze_driver_handle_t {
        self.driver.0
    }

    /// The device (borrowed).
    pub fn device(&self) -> sys::ze_device_handle_t {
        self.device.0
    }

    /// The context (borrowed).
    pub fn context(&self) -> sys::ze_context_handle_t {
        self.context.0
    }

    /// What the device is.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The engine's program cache.
    pub fn programs(&self) -> &ProgramCache {
        &self.programs
    }

    /// Builds (or finds in the cache) `source` with `options` and returns a
    /// new kernel object for `name`.
    pub fn kernel(&self, source: &str, options: &str, name: &str) -> Result<ze::Kernel> {
        self.programs
            .kernel(self.context(), self.device(), source, options, name)
    }

    /// A stream queue on a new immediate list of ours.
    pub fn create_queue(&self, profiling: bool) -> Result<ZeQueue> {
        let list = CommandList::create_immediate(self.context(), self.device())?;
        Ok(ZeQueue::new(self, list, profiling))
    }

    /// A stream queue on the user's list (borrowed).
    pub fn user_queue(
        &self,
        list: sys::ze_command_list_handle_t,
        profiling: bool,
    ) -> Result<ZeQueue> {
        if list.is_null() {
            return Err(Error::invalid("list is NULL"));
        }
        self.check_list_context(list)?;
        Ok(ZeQueue::new(self, CommandList::borrowed(list), profiling))
    }

    /// Refuses a list of another context, where the loader can tell:
    /// `zeCommandListGetContextHandle` is Level Zero 1.9; an older loader
    /// (Debian 12's libze1 1.8 implements 1.4) has no query from a list to its
    /// context, so there the list is taken on trust.
    fn check_list_context(&self, list: sys::ze_command_list_handle_t) -> Result<()> {
        type GetContext = unsafe extern "C" fn(
            sys::ze_command_list_handle_t,
            *mut sys::ze_context_handle_t,
        ) -> sys::ze_result_t;
        let Some(f) = crate::runtime::ze::api()?.optional(c"zeCommandListGetContextHandle") else {
            return Ok(());
        };
        // SAFETY: the loader exports this function with this signature (ze_api.h 1.9).
        let get: GetContext =
            unsafe { std::mem::transmute::<*const std::ffi::c_void, GetContext>(f) };
        let mut context: sys::ze_context_handle_t = std::ptr::null_mut();
        // SAFETY: `list` is the caller's non-NULL list; `context` is written.
        let r = unsafe { get(list, &mut context) };
        if !r.is_success() {
            return Err(Error::invalid(format!(
                "list: zeCommandListGetContextHandle failed: {r}"
            )));
        }
        if context != self.context() {
            return Err(Error::invalid(
                "list belongs to another context than the engine's",
            ));
        }
        Ok(())
    }

    /// The engine's own queue, for work outside any stream.
    pub fn service_queue(&self) -> Result<&ZeQueue> {
        if let Some(q) = self.service.get() {
            return Ok(q);
        }
        let queue = self.create_queue(false)?;
        Ok(self.service.get_or_init(|| queue))
    }

    /// Allocates `size` bytes of `kind` USM of the engine.
    pub fn alloc(&self, kind: MemKind, size: usize) -> Result<UsmAlloc> {
        UsmAlloc::new(self.context(), self.device(), kind, size, USM_ALIGNMENT)
    }

    /// The identifier of blobs the device of `driver` accepts: the device's
    /// name, vendor and device ids and UUID, the driver's version and UUID,
    /// and this library's version and build hash, each length-prefixed (u32,
    /// little endian).
    pub fn cache_blob_id(
        driver: sys::ze_driver_handle_t,
        device: sys::ze_device_handle_t,
    ) -> Result<Vec<u8>> {
        let info = ze::device_info(driver, device)?;
        Ok(blob_id_of(&info))
    }

    /// The engine's compiled programs, serialised (empty when none).
    pub fn cache_blob(&self) -> Result<Vec<u8>> {
        let entries = self.programs.entries_of(None)?;
        if entries.is_empty() {
            return Ok(Vec::new());
        }
        Ok(crate::core::cache_blob::encode(
            &blob_id_of(&self.info),
            &entries,
        ))
    }

    /// Loads a blob made by [`ZeEngine::cache_blob`] into the program cache,
    /// after checking it was made for this device, driver and library.
    pub fn load_cache_blob(&self, blob: &[u8]) -> Result<()> {
        self.load_entries(&blob_id_of(&self.info), blob)
    }

    /// Loads the programs of `blob` (made under `id`) into the cache.
    pub fn load_entries(&self, id: &[u8], blob: &[u8]) -> Result<()> {
        for (key, saved) in crate::core::cache_blob::decode(id, blob)? {
            self.programs.insert_saved(key, saved)?;
        }
        Ok(())
    }

    /// The blob id of this engine.
    pub fn blob_id(&self) -> Vec<u8> {
        blob_id_of(&self.info)
    }

    /// The saved programs of `keys`.
    pub fn entries_of(&self, keys: &[ProgramKey]) -> Result<Vec<(ProgramKey, Vec<u8>)>> {
        self.programs.entries_of(Some(keys))
    }
}

fn blob_id_of(info: &DeviceInfo) -> Vec<u8> {
    let fields: [&[u8]; 8] = [
        b"level-zero",
        info.name.as_bytes(),
        &info.vendor_id.to_le_bytes(),
        &info.device_id.to_le_bytes(),
        &info.uuid,
        &info.driver_version.to_le_bytes(),
        &info.driver_uuid,
        concat!(env!("CARGO_PKG_VERSION"), "+", env!("DNNL_BUILD_HASH")).as_bytes(),
    ];
    let mut id = Vec::new();
    for field in fields {
        id.extend_from_slice(&(field.len() as u32).to_le_bytes());
        id.extend_from_slice(field);
    }
    id
}

impl Drop for ZeEngine {
    fn drop(&mut self) {
        // The service stream and the programs go before the context.
        if let Some(q) = self.service.take() {
            drop(q);
        }
        self.programs = ProgramCache::new();
        if self.owns_context
            && let Ok(api) = ze::api()
        {
            // SAFETY: our context, nothing of ours left in it.
            let r = unsafe { api.zeContextDestroy(self.context.0) };
            if let Err(e) = ze::check(r, "zeContextDestroy") {
                ze::warn(&e.to_string());
            }
        }
    }
}

struct QueueState {
    events: EventSet,
    /// The event of the last command appended.
    last: Option<Event>,
}

/// The command list of a stream, with the stream's events.
pub struct ZeQueue {
    list: CommandList,
    profiling: bool,
    context: Raw<sys::ze_context_handle_t>,
    state: Mutex<QueueState>,
}

/// How long dropping a stream waits for its last command before giving up
/// and leaving its events alive (a regular list the user never executed).
const DROP_WAIT_NS: u64 = 10_000_000_000;

impl ZeQueue {
    fn new(engine: &ZeEngine, list: CommandList, profiling: bool) -> ZeQueue {
        ZeQueue {
            list,
            profiling,
            context: engine.context,
            state: Mutex::new(QueueState {
                events: EventSet::new(engine.context(), profiling),
                last: None,
            }),
        }
    }

    /// The list (borrowed by callers that hand it to C).
    pub fn list(&self) -> &CommandList {
        &self.list
    }

    /// Whether the stream records kernel timestamps.
    pub fn profiling(&self) -> bool {
        self.profiling
    }

    /// Appends one command through `append(signal, waits)`, after the
    /// stream's previous command and `wait`.
    fn append(
        &self,
        wait: &[Event],
        append: impl FnOnce(Event, &[Event]) -> Result<()>,
    ) -> Result<Event> {
        let mut state = self.state.lock()?;
        let signal = state.events.acquire()?;
        let mut waits: Vec<Event> = state.last.into_iter().collect();
        for e in wait {
            if !waits.contains(e) {
                waits.push(*e);
            }
        }
        append(signal, &waits)?;
        state.last = Some(signal);
        Ok(signal)
    }

    /// Appends a launch of `kernel` (see `ze::Kernel::launch`).
    pub fn enqueue_kernel(
        &self,
        kernel: &ze::Kernel,
        args: &[KernelArg],
        global: &[usize],
        local: Option<&[usize]>,
        wait: &[Event],
    ) -> Result<Event> {
        if global.contains(&0) {
            return self.marker(wait);
        }
        self.append(wait, |signal, waits| {
            kernel.launch(self.list.raw(), args, global, local, signal, waits)
        })
    }

    /// An event that completes once `wait` and every earlier command have.
    pub fn marker(&self, wait: &[Event]) -> Result<Event> {
        self.append(wait, |signal, waits| self.list.barrier(signal, waits))
    }

    /// Appends a copy of `size` bytes.
    ///
    /// # Safety
    /// As `ze::CommandList::copy`.
    pub unsafe fn copy(
        &self,
        dst: *mut std::ffi::c_void,
        src: *const std::ffi::c_void,
        size: usize,
        wait: &[Event],
    ) -> Result<Event> {
        self.append(wait, |signal, waits| {
            // SAFETY: the caller's promise.
            unsafe { self.list.copy(dst, src, size, signal, waits) }
        })
    }

    /// Waits for every command appended so far, then recycles the stream's
    /// events.
    pub fn wait(&self) -> Result<()> {
        self.wait_then(|| Ok(()))
    }

    /// As [`ZeQueue::wait`], running `before_recycle` once everything has
    /// completed and before the events are recycled (a profiling stream reads
    /// their kernel timestamps there). The events are recycled either way.
    pub fn wait_then(&self, before_recycle: impl FnOnce() -> Result<()>) -> Result<()> {
        let mut state = self.state.lock()?;
        if let Some(last) = state.last.take() {
            last.wait()?;
        }
        let result = before_recycle();
        // Everything has completed: later commands need not wait for the
        // recycled events (one may come back as their own signal event).
        state.events.recycle();
        result
    }
}

impl Drop for ZeQueue {
    fn drop(&mut self) {
        let Ok(state) = self.state.get_mut() else {
            return;
        };
        let Some(last) = state.last else { return };
        let Ok(api) = ze::api() else { return };
        // SAFETY: our event, alive while the set is.
        let r = unsafe { api.zeEventHostSynchronize(last.raw(), DROP_WAIT_NS) };
        if !r.is_success() {
            ze::warn(&format!(
                "a stream was destroyed before its commands completed ({r}): \
                 its events are left alive"
            ));
            let set = std::mem::replace(&mut state.events, EventSet::new(self.context.0, false));
            std::mem::forget(set);
        }
    }
}
