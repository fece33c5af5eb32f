//! Foreign handles: the OpenCL objects a C caller gives us, checked before
//! any OpenCL call sees them.
//!
//! Layer: `runtime::ocl`. Every user handle enters the library through
//! `retain_borrowed` of its type (`handle.rs`, `platform.rs`), which calls
//! [`check`] first; the capi entry points (`capi::ocl`, `capi::graph_ocl`)
//! also check the arrays of handles they read ([`check_array`]). So this is
//! the one place that decides whether a pointer may be handed to OpenCL.
//!
//! Why it is needed: the ICD loader dispatches each call through the
//! object's first word (`obj->dispatch->clFoo(obj, ...)`) before any driver
//! can refuse the object, so a wild pointer crashes inside the loader (with
//! no OpenCL platform at all too). Every ICD object starts with the dispatch
//! table of its platform, and the platform and device ids the loader hands
//! out are such objects, so the tables of all loaded platforms are known.
//!
//! The checks, cheapest first:
//! - `cl_platform_id`: one of the loader's platforms.
//! - `cl_device_id`: a device of a loaded platform (all platforms, all
//!   types: `ONEDNN_OCL_DEVICES` narrows engines later, not this), or a
//!   sub-device whose `CL_DEVICE_PARENT_DEVICE` chain reaches one. A link of
//!   the chain that is not a known device must pass the object check below
//!   before its parent is asked for, so no unknown pointer reaches OpenCL.
//! - every other type (`cl_context`, `cl_command_queue`, `cl_mem`,
//!   `cl_event`, and the library's own program and kernel handles): not
//!   NULL, aligned, not a known device or platform, its first word readable
//!   (tested without faulting, see below) and equal to the dispatch table of
//!   a loaded platform; then one query of the type's own `clGet*Info`. That
//!   query is the type check where the runtime makes one: Intel's CPU runtime
//!   refuses an object of another type (`CL_INVALID_CONTEXT`, ...); PoCL 3.1
//!   does not, it answers for whatever object it is given. So the query is
//!   one whose answer a wrong object fails too: a context's device count
//!   (1 to 4096), a queue's device (a known device or sub-device), a
//!   buffer's `CL_MEM_TYPE` (a memory object type), an event's command type
//!   (a `CL_COMMAND_*` value). This runs before any retain: a wrongly typed
//!   retain or release can crash PoCL (`clReleaseCommandQueue` flushes what
//!   it is given). The callers add what the type implies: a queue must
//!   report the engine's context and device, a buffer the engine's context,
//!   a dependency event the stream's context.
//!
//! Testing readability: `rt_sigprocmask` with an invalid `how`. The kernel
//! copies the 8-byte signal set from the pointer first (`EFAULT` when it
//! cannot) and only then refuses `how` (`EINVAL`), so the call changes
//! nothing and the kernel, not this process, touches the memory. It is one
//! system call with no file descriptor and no lock of the address space
//! (`process_vm_readv` takes the memory map lock and pins the pages, about 8
//! times the cost of a null system call on the CI machine; a `write()` into a
//! pipe needs two descriptors held for the life of the process and a drain),
//! and every seccomp profile allows it. That a readable word gives `EINVAL`
//! is tested once per process; where it does not, a `write()` into a
//! non-blocking pipe of our own (`EFAULT` likewise) is the fallback. (A
//! system that checked `how` before reading would make every pointer look
//! readable: wild pointers would then go on to OpenCL as before, and no good
//! handle would ever be refused. The unreadable case is not tried at start:
//! memcheck would report it in every program.) Under valgrind the call is
//! emulated the same way; memcheck reports each wild pointer a caller passes
//! ("Syscall param rt_sigprocmask(set) points to unaddressable byte(s)"
//! from this file), which is the caller's error, and nothing for good
//! handles. Readability is a property of pages: one word tested per page
//! covers an array.
//!
//! What is not caught: memory that starts with a loaded platform's dispatch
//! pointer without being a live object (an object the caller released, whose
//! memory is not yet reused, or a forged copy), and on PoCL a live object of
//! another type where no relation above tells it apart. Those go to the
//! driver as before.
//!
//! Cost (measured by `tests::cost`, see there): a binary search for an
//! enumerated device; one system call and one driver query for every other
//! object, and for each link of a sub-device's chain. It runs when an interop object is created, and on execute
//! only for the dependency events an interop execute is given.

use std::ffi::{c_int, c_long, c_void};
use std::sync::OnceLock;

use super::error::error_name;
use super::loader::entry;
use super::sys::*;
use crate::base::verbose;
use crate::base::{Error, Result};

/// The OpenCL handle types [`check`] knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `cl_platform_id`.
    Platform,
    /// `cl_device_id`.
    Device,
    /// `cl_context`.
    Context,
    /// `cl_command_queue`.
    CommandQueue,
    /// `cl_mem`.
    Mem,
    /// `cl_event`.
    Event,
    /// `cl_program`.
    Program,
    /// `cl_kernel`.
    Kernel,
}

impl Kind {
    /// The C type name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Platform => "cl_platform_id",
            Kind::Device => "cl_device_id",
            Kind::Context => "cl_context",
            Kind::CommandQueue => "cl_command_queue",
            Kind::Mem => "cl_mem",
            Kind::Event => "cl_event",
            Kind::Program => "cl_program",
            Kind::Kernel => "cl_kernel",
        }
    }
}

/// Checks that `raw` is an OpenCL object of `kind` that may be passed to
/// OpenCL (see the module documentation); `InvalidArguments` with the reason
/// otherwise.
pub fn check(kind: Kind, raw: *const c_void) -> Result<()> {
    match kind {
        Kind::Platform => check_platform(raw),
        Kind::Device => check_device(raw),
        _ => {
            check_dispatch(raw as usize, kind.name())?;
            check_type(kind, raw)
        }
    }
}

/// Checks that `n` handles of type `T` can be read at `array` (the caller
/// then reads them and checks each). `what` names the array in the error.
pub fn check_array<T>(array: *const T, n: usize, what: &str) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    if array.is_null() {
        return Err(Error::invalid(format!(
            "{what} is NULL but its count is {n}"
        )));
    }
    let bytes = n.checked_mul(size_of::<T>());
    if !array.is_aligned() || !bytes.is_some_and(|b| readable(array as usize, b)) {
        return Err(Error::invalid(format!(
            "{what} ({n} entries at {array:p}) is not readable memory"
        )));
    }
    Ok(())
}

/// The platforms, root devices and dispatch tables the ICD loader gave us,
/// each sorted; all empty without OpenCL.
struct Loaded {
    platforms: Vec<usize>,
    devices: Vec<usize>,
    dispatch: Vec<usize>,
}

fn loaded() -> &'static Loaded {
    static LOADED: OnceLock<Loaded> = OnceLock::new();
    LOADED.get_or_init(|| {
        let mut loaded = Loaded {
            platforms: platform_ids(),
            devices: Vec::new(),
            dispatch: Vec::new(),
        };
        for &platform in &loaded.platforms {
            loaded.devices.extend(device_ids(platform));
        }
        for &object in loaded.platforms.iter().chain(&loaded.devices) {
            if let Some(table) = read_word(object) {
                loaded.dispatch.push(table);
            }
        }
        for list in [
            &mut loaded.platforms,
            &mut loaded.devices,
            &mut loaded.dispatch,
        ] {
            list.sort_unstable();
            list.dedup();
        }
        loaded
    })
}

/// Every platform id of the loader (empty without OpenCL).
fn platform_ids() -> Vec<usize> {
    let Ok(get) = entry!(clGetPlatformIDs) else {
        return Vec::new();
    };
    let mut count: cl_uint = 0;
    // SAFETY: a count query with a valid out pointer.
    if unsafe { get(0, std::ptr::null_mut(), &mut count) } != CL_SUCCESS || count == 0 {
        return Vec::new();
    }
    let mut ids = vec![std::ptr::null_mut(); count as usize];
    // SAFETY: `ids` has room for `count` platform ids.
    if unsafe { get(count, ids.as_mut_ptr(), &mut count) } != CL_SUCCESS {
        return Vec::new();
    }
    ids.truncate(count as usize);
    ids.into_iter()
        .filter(|p| !p.is_null())
        .map(|p| p as usize)
        .collect()
}

/// Every root device id of `platform` (empty when it has none).
fn device_ids(platform: usize) -> Vec<usize> {
    let Ok(get) = entry!(clGetDeviceIDs) else {
        return Vec::new();
    };
    let platform = platform as cl_platform_id;
    let mut count: cl_uint = 0;
    // SAFETY: a platform id of the loader; a count query.
    let code = unsafe {
        get(
            platform,
            CL_DEVICE_TYPE_ALL,
            0,
            std::ptr::null_mut(),
            &mut count,
        )
    };
    if code != CL_SUCCESS || count == 0 {
        return Vec::new();
    }
    let mut ids = vec![std::ptr::null_mut(); count as usize];
    // SAFETY: `ids` has room for `count` device ids.
    let code = unsafe {
        get(
            platform,
            CL_DEVICE_TYPE_ALL,
            count,
            ids.as_mut_ptr(),
            &mut count,
        )
    };
    if code != CL_SUCCESS {
        return Vec::new();
    }
    ids.truncate(count as usize);
    ids.into_iter()
        .filter(|d| !d.is_null())
        .map(|d| d as usize)
        .collect()
}

fn check_platform(raw: *const c_void) -> Result<()> {
    if raw.is_null() {
        return Err(Error::invalid("NULL cl_platform_id"));
    }
    if loaded().platforms.binary_search(&(raw as usize)).is_err() {
        return Err(Error::invalid(format!(
            "cl_platform_id {raw:p} is not a platform of the OpenCL ICD loader"
        )));
    }
    Ok(())
}

/// The deepest chain of sub-devices followed (OpenCL drivers partition once
/// or twice; a longer chain is garbage).
const MAX_SUB_DEVICE_DEPTH: usize = 8;

fn check_device(raw: *const c_void) -> Result<()> {
    if raw.is_null() {
        return Err(Error::invalid("NULL cl_device_id"));
    }
    let loaded = loaded();
    let not_ours = || {
        Error::invalid(format!(
            "cl_device_id {raw:p} is not a device of a loaded OpenCL platform, nor a sub-device of one"
        ))
    };
    let mut device = raw as usize;
    for _ in 0..=MAX_SUB_DEVICE_DEPTH {
        if loaded.devices.binary_search(&device).is_ok() {
            return Ok(());
        }
        // Not a root device: a sub-device, if it is an OpenCL object at all.
        check_dispatch(device, "cl_device_id").map_err(|e| {
            if device == raw as usize {
                e
            } else {
                not_ours()
            }
        })?;
        device = query::<usize>(
            Kind::Device,
            device as *const c_void,
            CL_DEVICE_PARENT_DEVICE,
        )
        .map_err(|(call, code)| {
            Error::invalid(format!(
                "cl_device_id {raw:p} is not a device: {call} says {}",
                error_name(code)
            ))
        })?;
        if device == 0 {
            return Err(not_ours());
        }
    }
    Err(not_ours())
}

/// Checks that `addr` is not NULL, aligned, readable, and starts with the
/// dispatch table of a loaded platform: the loader can then dispatch on it.
fn check_dispatch(addr: usize, name: &str) -> Result<()> {
    if addr == 0 {
        return Err(Error::invalid(format!("NULL {name}")));
    }
    let why = if !addr.is_multiple_of(align_of::<usize>()) {
        "the pointer is misaligned"
    } else if loaded().dispatch.is_empty() {
        "no OpenCL platform is loaded"
    } else {
        match read_word(addr) {
            None => "its memory is not readable",
            Some(table) if loaded().dispatch.binary_search(&table).is_err() => {
                "its first word is not the dispatch table of a loaded OpenCL platform"
            }
            Some(_) => return Ok(()),
        }
    };
    Err(Error::invalid(format!(
        "{name} {addr:#x} is not an OpenCL object: {why}"
    )))
}

/// The type check, on an object that passed [`check_dispatch`]: one query
/// of the type's own `clGet*Info`, which the runtimes that check types
/// refuse for an object of another type, chosen so that its answer also
/// tells types apart where the runtime answers whatever it is given (PoCL:
/// an object of another type reports garbage there, and a wrongly typed
/// retain or release can crash it, so this runs before any retain). The
/// callers then check what the answer does not (the queue's context, the
/// buffer's, the event's).
fn check_type(kind: Kind, raw: *const c_void) -> Result<()> {
    let name = kind.name();
    let refuse =
        |why: String| Error::invalid(format!("{name} {raw:p} is not a live {name}: {why}"));
    let says = |(call, code): (&str, cl_int)| refuse(format!("{call} says {}", error_name(code)));
    if loaded().devices.binary_search(&(raw as usize)).is_ok() {
        return Err(refuse("it is a cl_device_id".into()));
    }
    if loaded().platforms.binary_search(&(raw as usize)).is_ok() {
        return Err(refuse("it is a cl_platform_id".into()));
    }
    match kind {
        Kind::Context => {
            let devices = query::<cl_uint>(kind, raw, CL_CONTEXT_NUM_DEVICES).map_err(says)?;
            if devices == 0 || devices > MAX_CONTEXT_DEVICES {
                return Err(refuse(format!("it reports {devices} devices")));
            }
        }
        Kind::CommandQueue => {
            let device = query::<usize>(kind, raw, CL_QUEUE_DEVICE).map_err(says)?;
            check_device(device as *const c_void)
                .map_err(|_| refuse("its device is not one of a loaded platform".into()))?;
        }
        Kind::Mem => {
            let ty = query::<cl_uint>(kind, raw, CL_MEM_TYPE).map_err(says)?;
            if !(CL_MEM_OBJECT_BUFFER..=CL_MEM_OBJECT_PIPE).contains(&ty) {
                return Err(refuse(format!("its CL_MEM_TYPE is {ty:#x}")));
            }
        }
        Kind::Event => {
            let command = query::<cl_uint>(kind, raw, CL_EVENT_COMMAND_TYPE).map_err(says)?;
            if !EVENT_COMMANDS.iter().any(|r| r.contains(&command)) {
                return Err(refuse(format!("its CL_EVENT_COMMAND_TYPE is {command:#x}")));
            }
        }
        Kind::Program => {
            query::<cl_uint>(kind, raw, CL_PROGRAM_REFERENCE_COUNT).map_err(says)?;
        }
        Kind::Kernel => {
            query::<cl_uint>(kind, raw, CL_KERNEL_REFERENCE_COUNT).map_err(says)?;
        }
        Kind::Platform | Kind::Device => {}
    }
    Ok(())
}

/// More devices than any context can hold (a garbage count).
const MAX_CONTEXT_DEVICES: cl_uint = 4096;

/// The `CL_COMMAND_*` values an event can report: the core ones (OpenCL 1.0
/// to 3.0 and the Khronos extensions, 0x11F0 to 0x12FF) and the vendor
/// extensions' (Intel USM's 0x4204 to 0x4207 and the like).
const EVENT_COMMANDS: [std::ops::RangeInclusive<cl_uint>; 2] = [0x11F0..=0x12FF, 0x4000..=0x4FFF];

/// One scalar of `kind`'s `clGet*Info` on `raw`: the value, or the call and
/// its error code.
fn query<T: Default + Copy>(
    kind: Kind,
    raw: *const c_void,
    param: cl_uint,
) -> std::result::Result<T, (&'static str, cl_int)> {
    let mut value = T::default();
    let out: *mut c_void = (&mut value as *mut T).cast();
    macro_rules! call {
        ($name:ident) => {{
            let Ok(f) = entry!($name) else {
                return Err((stringify!($name), -59));
            };
            // SAFETY: `raw` passed `check_dispatch`, so the loader can
            // dispatch on it; `out` has room for the `T` asked for (every
            // parameter asked for here is a scalar of that size).
            let code = unsafe {
                f(
                    raw.cast_mut().cast(),
                    param,
                    size_of::<T>(),
                    out,
                    std::ptr::null_mut(),
                )
            };
            (code, stringify!($name))
        }};
    }
    let (code, call) = match kind {
        Kind::Context => call!(clGetContextInfo),
        Kind::CommandQueue => call!(clGetCommandQueueInfo),
        Kind::Mem => call!(clGetMemObjectInfo),
        Kind::Event => call!(clGetEventInfo),
        Kind::Program => call!(clGetProgramInfo),
        Kind::Kernel => call!(clGetKernelInfo),
        Kind::Device => call!(clGetDeviceInfo),
        Kind::Platform => return Err(("clGetPlatformInfo", -59)),
    };
    if code == CL_SUCCESS {
        Ok(value)
    } else {
        Err((call, code))
    }
}

/// The word at `addr`, when it is aligned and readable.
fn read_word(addr: usize) -> Option<usize> {
    if addr == 0 || !addr.is_multiple_of(align_of::<usize>()) || !word_readable(addr) {
        return None;
    }
    // SAFETY: aligned and readable (just tested); a plain word of memory
    // another library owns, copied out and only compared.
    Some(unsafe { std::ptr::with_exposed_provenance::<usize>(addr).read_volatile() })
}

/// Whether the first and the last word of `size` bytes at `addr` can be
/// read: a system allocation given as USM must at least be mapped memory (a
/// wild pointer would be handed to kernels). Not every page is tested, so
/// that a large buffer costs two probes.
pub fn range_readable(addr: usize, size: usize) -> bool {
    const WORD: usize = size_of::<usize>();
    if size == 0 {
        return true;
    }
    let Some(last) = addr.checked_add(size - 1) else {
        return false;
    };
    readable(addr & !(WORD - 1), WORD) && readable(last & !(WORD - 1), WORD)
}

/// Whether the `len` bytes at `addr` (aligned to a word, `len` a multiple of
/// one) can be read without a fault.
pub fn readable(addr: usize, len: usize) -> bool {
    const WORD: usize = size_of::<usize>();
    // The smallest page size of the platforms we build for: testing one word
    // per 4 KiB is exact for larger pages too.
    const PAGE: usize = 4096;
    if addr == 0 || !addr.is_multiple_of(WORD) || !len.is_multiple_of(WORD) {
        return false;
    }
    let Some(end) = addr.checked_add(len) else {
        return false;
    };
    if len == 0 {
        return true;
    }
    let mut word = addr;
    while word < end {
        if !word_readable(word) {
            return false;
        }
        word = (word / PAGE + 1) * PAGE;
    }
    true
}

/// How [`word_readable`] tests memory (chosen once per process).
enum Probe {
    SigMask,
    /// A non-blocking pipe of our own: (read end, write end).
    Pipe(c_int, c_int),
    /// Neither works: memory is taken as readable (the behaviour without
    /// this module), and a warning says so once.
    Unavailable,
}

fn probe() -> &'static Probe {
    static PROBE: OnceLock<Probe> = OnceLock::new();
    PROBE.get_or_init(|| {
        let word = 0usize;
        let readable = &word as *const usize as usize;
        // Only the readable case is tried: probing an unreadable address here
        // would be reported by memcheck in every program that checks a handle.
        if sigmask_probe(readable) == Some(true) {
            return Probe::SigMask;
        }
        let mut fds = [0 as c_int; 2];
        // SAFETY: room for the two descriptors.
        if unsafe { sys_io::pipe2(fds.as_mut_ptr(), sys_io::O_NONBLOCK | sys_io::O_CLOEXEC) } == 0
            && pipe_probe(fds[0], fds[1], readable)
        {
            return Probe::Pipe(fds[0], fds[1]);
        }
        if verbose::enabled(verbose::flag::WARN) {
            verbose::emit_line(
                "common,warn,",
                "ocl,no way to test memory without faulting: foreign OpenCL and Level Zero \
                 handles are taken on trust",
            );
        }
        Probe::Unavailable
    })
}

/// Whether the aligned word at `addr` can be read without a fault.
fn word_readable(addr: usize) -> bool {
    match *probe() {
        Probe::SigMask => sigmask_probe(addr).unwrap_or(false),
        Probe::Pipe(read, write) => pipe_probe(read, write, addr),
        Probe::Unavailable => true,
    }
}

/// System calls and constants of Linux and its C library (declared here:
/// the crate has no `libc` dependency).
mod sys_io {
    use std::ffi::{c_int, c_long, c_void};

    pub const EINTR: c_int = 4;
    pub const EAGAIN: c_int = 11;
    pub const EFAULT: c_int = 14;
    pub const EINVAL: c_int = 22;
    pub const O_NONBLOCK: c_int = 0o4000;
    pub const O_CLOEXEC: c_int = 0o2000000;

    #[cfg(target_arch = "x86_64")]
    pub const SYS_RT_SIGPROCMASK: Option<c_long> = Some(14);
    #[cfg(target_arch = "aarch64")]
    pub const SYS_RT_SIGPROCMASK: Option<c_long> = Some(135);
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    pub const SYS_RT_SIGPROCMASK: Option<c_long> = None;

    unsafe extern "C" {
        pub fn syscall(number: c_long, ...) -> c_long;
        pub fn pipe2(fds: *mut c_int, flags: c_int) -> c_int;
        pub fn write(fd: c_int, buf: *const c_void, count: usize) -> isize;
        pub fn read(fd: c_int, buf: *mut c_void, count: usize) -> isize;
    }
}

fn errno() -> c_int {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// `Some(true)` when the kernel could read the word at `addr`, `Some(false)`
/// when it could not, `None` when the call did not behave as expected.
fn sigmask_probe(addr: usize) -> Option<bool> {
    let number = sys_io::SYS_RT_SIGPROCMASK?;
    // Not SIG_BLOCK (0), SIG_UNBLOCK (1) nor SIG_SETMASK (2).
    const INVALID_HOW: c_long = -1;
    // SAFETY: rt_sigprocmask(how, set, oldset, sigsetsize): with an invalid
    // `how` the kernel copies the 8-byte set from `addr` (EFAULT when it
    // cannot) and refuses `how` (EINVAL) before changing anything; no old
    // set is written. Only the kernel touches `addr`.
    let r = unsafe {
        sys_io::syscall(
            number,
            INVALID_HOW,
            addr as c_long,
            0 as c_long,
            8 as c_long,
        )
    };
    if r != -1 {
        return None;
    }
    match errno() {
        sys_io::EINVAL => Some(true),
        sys_io::EFAULT => Some(false),
        _ => None,
    }
}

/// Whether `write()` of the word at `addr` into our pipe succeeds (the
/// kernel reads it; `EFAULT` when it cannot). Drains the pipe when full.
fn pipe_probe(read: c_int, write: c_int, addr: usize) -> bool {
    const WORD: usize = size_of::<usize>();
    for _ in 0..4 {
        // SAFETY: our pipe; the kernel reads `addr`, not this process.
        let n = unsafe { sys_io::write(write, addr as *const c_void, WORD) };
        if n == WORD as isize {
            return true;
        }
        match errno() {
            sys_io::EAGAIN => {
                let mut sink = [0u8; 4096];
                // SAFETY: our pipe and a buffer of `sink.len()` bytes.
                while unsafe { sys_io::read(read, sink.as_mut_ptr().cast(), sink.len()) } > 0 {}
            }
            sys_io::EINTR => {}
            _ => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An address nothing maps.
    const WILD: usize = 0xdea_dbee_f000;

    #[test]
    fn readable_tells_mapped_from_unmapped() {
        let data = vec![7usize; 3000];
        assert!(readable(data.as_ptr() as usize, data.len() * 8));
        assert!(!readable(0, 8));
        assert!(!readable(8, 8));
        assert!(!readable(WILD, 8));
        assert!(!readable(data.as_ptr() as usize + 1, 8), "misaligned");
        assert!(!readable(usize::MAX & !7, 8));
        assert_eq!(read_word(data.as_ptr() as usize), Some(7));
    }

    #[test]
    fn both_probes_agree() {
        let word = 5usize;
        let here = &word as *const usize as usize;
        assert_eq!(sigmask_probe(here), Some(true));
        assert_eq!(sigmask_probe(WILD), Some(false));
        let mut fds = [0 as c_int; 2];
        // SAFETY: room for the two descriptors.
        let r = unsafe { sys_io::pipe2(fds.as_mut_ptr(), sys_io::O_NONBLOCK | sys_io::O_CLOEXEC) };
        assert_eq!(r, 0);
        assert!(pipe_probe(fds[0], fds[1], here));
        assert!(!pipe_probe(fds[0], fds[1], WILD));
        // Fill the pipe past its capacity: the probe drains it.
        for _ in 0..20_000 {
            assert!(pipe_probe(fds[0], fds[1], here));
        }
    }

    #[test]
    fn garbage_is_refused_without_touching_opencl() {
        let zeros = [0usize; 8];
        for kind in [Kind::Context, Kind::CommandQueue, Kind::Mem, Kind::Event] {
            for raw in [
                std::ptr::null(),
                std::ptr::without_provenance(1),
                std::ptr::without_provenance(WILD),
                zeros.as_ptr().cast(),
            ] {
                let e = check(kind, raw).unwrap_err();
                assert!(matches!(e, Error::InvalidArguments(_)), "{e:?}");
            }
        }
        for raw in [1usize, WILD, zeros.as_ptr() as usize] {
            let e = check(Kind::Device, raw as *const c_void).unwrap_err();
            assert!(matches!(e, Error::InvalidArguments(_)), "{e:?}");
            assert!(check(Kind::Platform, raw as *const c_void).is_err());
        }
    }

    #[test]
    fn arrays_are_checked() {
        let events = [std::ptr::null_mut::<c_void>(); 4];
        assert!(check_array(events.as_ptr(), 4, "deps").is_ok());
        assert!(check_array(std::ptr::null::<usize>(), 0, "deps").is_ok());
        assert!(check_array(std::ptr::null::<usize>(), 1, "deps").is_err());
        assert!(check_array(WILD as *const usize, 2, "deps").is_err());
        assert!(check_array(events.as_ptr(), usize::MAX, "deps").is_err());
    }

    /// The cost of each check (a timed loop, not a pass/fail test):
    /// `cargo test --release --lib foreign::tests::cost -- --ignored --nocapture`,
    /// with `OCL_ICD_VENDORS` naming the runtime to measure, and for Level Zero
    /// `ZE_ENABLE_ALT_DRIVERS` naming a driver.
    #[test]
    #[ignore = "a measurement: run it by name"]
    fn cost() {
        use crate::runtime::ocl::{Context, Mem, Queue, QueueProperties, devices};
        use std::time::Instant;
        const ROUNDS: u32 = 200_000;
        let time = |what: &str, f: &dyn Fn() -> bool| {
            assert!(f() || what.starts_with("refused"), "{what}");
            let start = Instant::now();
            for _ in 0..ROUNDS {
                std::hint::black_box(f());
            }
            let ns = start.elapsed().as_nanos() as f64 / f64::from(ROUNDS);
            println!("{what:<48} {ns:>8.0} ns");
        };
        let word = 7usize;
        let here = &word as *const usize as usize;
        time("readable (one word)", &|| readable(here, 8));
        time("refused: 0xdeadbeef000 as cl_context", &|| {
            check(Kind::Context, std::ptr::without_provenance(WILD)).is_err()
        });
        let zeros = [0usize; 8];
        time("refused: zero-filled memory as cl_context", &|| {
            check(Kind::Context, zeros.as_ptr().cast()).is_err()
        });
        let Some(device) = devices().into_iter().next() else {
            println!("no OpenCL device: only the checks above");
            return;
        };
        println!("OpenCL device: {}", device.name().unwrap_or_default());
        let context = Context::create(&device).unwrap();
        let queue = Queue::create(&context, &device, QueueProperties::default()).unwrap();
        let mem = Mem::create(&context, 64).unwrap();
        let event = queue.marker(&[]).unwrap();
        event.wait().unwrap();
        let raw = |p: *mut c_void| p as *const c_void;
        time("cl_device_id (enumerated)", &|| {
            check(Kind::Device, raw(device.raw().cast())).is_ok()
        });
        if let Some(sub) = device
            .partition_equally(1)
            .ok()
            .and_then(|s| s.into_iter().next())
        {
            time("cl_device_id (sub-device)", &|| {
                check(Kind::Device, raw(sub.raw().cast())).is_ok()
            });
        }
        time("cl_context", &|| {
            check(Kind::Context, raw(context.raw().cast())).is_ok()
        });
        time("cl_command_queue", &|| {
            check(Kind::CommandQueue, raw(queue.raw().cast())).is_ok()
        });
        time("cl_mem", &|| {
            check(Kind::Mem, raw(mem.raw().cast())).is_ok()
        });
        time("cl_event", &|| {
            check(Kind::Event, raw(event.raw().cast())).is_ok()
        });
        time("for scale: clRetainContext + clReleaseContext", &|| {
            drop(context.clone());
            true
        });
        let ze = crate::runtime::ze::all_devices();
        let Some(&(driver, device)) = ze.first() else {
            println!("no Level Zero device: no Level Zero checks");
            return;
        };
        use crate::runtime::ze::foreign as zf;
        time("ze driver", &|| zf::check_driver(driver).is_ok());
        time("ze device", &|| zf::check_device(driver, device).is_ok());
        // Any readable object of the driver stands for a context here.
        time("ze context/list/event", &|| {
            zf::check_object(driver, device, "context").is_ok()
        });
    }
}
