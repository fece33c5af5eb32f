//! The constant tensor cache: prepacked constant inputs (MatMul weights and
//! bias with the `constant` property, reordered or dequantized into what the
//! primitive wants) kept across executions.
//!
//! Layer: graph. Entries are keyed by (compiled partition, tensor id, data
//! handle): the same weights given to the same compiled partition are
//! prepared once. The memory comes from the engine's graph allocator.
//!
//! The capacity is per engine kind, in megabytes, as oneDNN v3.13 keeps it:
//! 0 for every kind by default (the cache is off); any `dnnl_engine_kind_t`
//! value may be set and read back, only `cpu` and `gpu` are used. A
//! capacity is kept in bytes, so one of `SIZE_MAX >> 20` MB or more reads
//! back as `SIZE_MAX >> 20`. `dnnl_graph_set_constant_tensor_cache(flag)`
//! sets the `cpu` and `gpu` capacities to that unlimited value (flag > 0)
//! or to 0 (flag 0), and the flag reads back 1 while either of those two
//! capacities is nonzero. While a kind's capacity is 0 every execution on
//! it prepares its own copy and frees it afterwards. The capacity bounds
//! the bytes kept; the least recently used entries are evicted first, and
//! an entry larger than the capacity is not kept. Entries of a compiled
//! partition go when it does. A buffer stays allocated while an execution
//! uses it, and its free waits for the last command that read it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

use crate::abi::*;
use crate::core::engine::EngineKind;
use crate::core::error::Result;
use crate::graph::alloc::Temp;
use crate::runtime::ocl::Event;

/// The largest capacity, MB: `SIZE_MAX` bytes.
pub const UNLIMITED_MB: usize = usize::MAX >> 20;

/// Capacities in MB by engine kind value (absent: 0).
static CAPACITY: LazyLock<Mutex<HashMap<u32, usize>>> = LazyLock::new(Default::default);
static HITS: AtomicU64 = AtomicU64::new(0);
static MISSES: AtomicU64 = AtomicU64::new(0);

fn kind_value(kind: EngineKind) -> u32 {
    match kind {
        EngineKind::Cpu => dnnl_cpu.0,
        EngineKind::Gpu => dnnl_gpu.0,
    }
}

/// The capacity for engine kind value `kind` (any value), MB.
pub fn capacity_of(kind: u32) -> usize {
    CAPACITY
        .lock()
        .map_or(0, |c| c.get(&kind).copied().unwrap_or(0))
}

/// The capacity for engines of `kind`, MB.
pub fn capacity(kind: EngineKind) -> usize {
    capacity_of(kind_value(kind))
}

/// Whether the cache is on for `cpu` or `gpu` engines.
pub fn enabled() -> bool {
    capacity(EngineKind::Cpu) != 0 || capacity(EngineKind::Gpu) != 0
}

/// Sets the capacity for engine kind value `kind` (any value), MB, at most
/// [`UNLIMITED_MB`]; on `cpu` and `gpu` evicts what no longer fits.
pub fn set_capacity_of(kind: u32, mb: usize) -> Result<()> {
    CAPACITY.lock()?.insert(kind, mb.min(UNLIMITED_MB));
    let engine_kind = [EngineKind::Cpu, EngineKind::Gpu]
        .into_iter()
        .find(|&k| kind_value(k) == kind);
    if let Some(k) = engine_kind {
        let evicted = CACHE.lock()?.evict(k, 0);
        drop(evicted);
    }
    Ok(())
}

/// `dnnl_graph_set_constant_tensor_cache`: the `cpu` and `gpu` capacities
/// unlimited (on) or 0 (off; every entry dropped).
pub fn set_enabled(on: bool) -> Result<()> {
    let mb = if on { UNLIMITED_MB } else { 0 };
    for kind in [EngineKind::Cpu, EngineKind::Gpu] {
        set_capacity_of(kind_value(kind), mb)?;
    }
    Ok(())
}

/// (hits, misses) since the process started: a test hook.
pub fn stats() -> (u64, u64) {
    (HITS.load(Ordering::Relaxed), MISSES.load(Ordering::Relaxed))
}

/// A prepacked buffer.
pub struct Packed {
    temp: Mutex<Option<Temp>>,
    addr: usize,
    size: usize,
    /// The last command that used the buffer: its free waits for it.
    last_use: Mutex<Option<Event>>,
}

impl Packed {
    /// A buffer around `temp`.
    pub fn new(temp: Temp) -> Arc<Packed> {
        Arc::new(Packed {
            addr: temp.ptr() as usize,
            size: temp.size(),
            temp: Mutex::new(Some(temp)),
            last_use: Mutex::new(None),
        })
    }

    /// The buffer's address (host pointer or USM pointer).
    pub fn addr(&self) -> usize {
        self.addr
    }

    /// Records a command that uses the buffer.
    pub fn note_use(&self, event: Option<&Event>) {
        if let (Some(e), Ok(mut last)) = (event, self.last_use.lock()) {
            *last = Some(e.clone());
        }
    }

    /// The last recorded use.
    pub fn last_use(&self) -> Option<Event> {
        self.last_use.lock().ok().and_then(|l| l.clone())
    }
}

impl Drop for Packed {
    fn drop(&mut self) {
        let event = self.last_use();
        if let Ok(mut t) = self.temp.lock()
            && let Some(temp) = t.take()
        {
            temp.release(event);
        }
    }
}

/// A cache key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    pub compiled: usize,
    pub tensor: usize,
    pub handle: usize,
}

struct Entry {
    kind: EngineKind,
    packed: Arc<Packed>,
    stamp: u64,
}

#[derive(Default)]
struct Cache {
    entries: HashMap<Key, Entry>,
    clock: u64,
}

impl Cache {
    /// Evicts least recently used entries of `kind` until `extra` more bytes fit.
    fn evict(&mut self, kind: EngineKind, extra: usize) -> Vec<Arc<Packed>> {
        let cap = capacity(kind).saturating_mul(1 << 20);
        let mut out = Vec::new();
        loop {
            let used: usize = self
                .entries
                .values()
                .filter(|e| e.kind == kind)
                .map(|e| e.packed.size)
                .fold(0usize, usize::saturating_add);
            if used.saturating_add(extra) <= cap {
                return out;
            }
            let oldest = self
                .entries
                .iter()
                .filter(|(_, e)| e.kind == kind)
                .min_by_key(|(_, e)| e.stamp)
                .map(|(k, _)| *k);
            match oldest.and_then(|k| self.entries.remove(&k)) {
                Some(e) => out.push(e.packed),
                None => return out,
            }
        }
    }
}

static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(Default::default);

/// The cached buffer of `key`, if the cache is on and has it.
pub fn lookup(key: Key) -> Result<Option<Arc<Packed>>> {
    if !enabled() {
        return Ok(None);
    }
    let mut c = CACHE.lock()?;
    c.clock += 1;
    let now = c.clock;
    let found = c.entries.get_mut(&key).map(|e| {
        e.stamp = now;
        e.packed.clone()
    });
    let counter = if found.is_some() { &HITS } else { &MISSES };
    counter.fetch_add(1, Ordering::Relaxed);
    Ok(found)
}

/// Keeps `packed` under `key` when the cache is on and it fits.
pub fn insert(key: Key, kind: EngineKind, packed: &Arc<Packed>) -> Result<()> {
    if !enabled() || packed.size > capacity(kind).saturating_mul(1 << 20) {
        return Ok(());
    }
    let evicted = {
        let mut c = CACHE.lock()?;
        let evicted = c.evict(kind, packed.size);
        c.clock += 1;
        let stamp = c.clock;
        c.entries.insert(
            key,
            Entry {
                kind,
                packed: packed.clone(),
                stamp,
            },
        );
        evicted
    };
    drop(evicted);
    Ok(())
}

/// Drops the entries of compiled partition `compiled`.
pub fn purge(compiled: usize) {
    let dropped: Vec<Arc<Packed>> = match CACHE.lock() {
        Ok(mut c) => {
            let keys: Vec<Key> = c
                .entries
                .keys()
                .filter(|k| k.compiled == compiled)
                .copied()
                .collect();
            keys.iter()
                .filter_map(|k| c.entries.remove(k))
                .map(|e| e.packed)
                .collect()
        }
        Err(_) => Vec::new(),
    };
    drop(dropped);
}
