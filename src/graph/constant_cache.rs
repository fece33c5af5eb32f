//! The constant tensor cache: prepacked constant inputs (MatMul weights and
//! bias with the `constant` property, reordered or dequantized into what the
//! primitive wants) kept across executions.
//!
//! Layer: graph. Entries are keyed by (compiled partition, tensor id, data
//! handle): the same weights given to the same compiled partition are
//! prepared once. The memory comes from the engine's graph allocator. While
//! the cache is off (`dnnl_graph_set_constant_tensor_cache(0)`, the default,
//! as in oneDNN v3.13) every execution prepares its own copy and frees it
//! afterwards. The capacity (per engine kind, in megabytes; unlimited by
//! default, `SIZE_MAX >> 20` as upstream reports it) bounds the bytes kept;
//! the least recently used entries are evicted first, and an entry larger
//! than the capacity is not kept. Entries of a compiled partition go when
//! it does. A buffer stays allocated while an execution uses it, and its
//! free waits for the last command that read it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

use crate::core::engine::EngineKind;
use crate::core::error::Result;
use crate::graph::alloc::Temp;
use crate::runtime::ocl::Event;

static ENABLED: AtomicBool = AtomicBool::new(false);
/// Capacities in MB: CPU, GPU.
static CAPACITY: [AtomicUsize; 2] = [
    AtomicUsize::new(usize::MAX >> 20),
    AtomicUsize::new(usize::MAX >> 20),
];
static HITS: AtomicU64 = AtomicU64::new(0);
static MISSES: AtomicU64 = AtomicU64::new(0);

/// Whether the cache is on.
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Turns the cache on or off; off drops every entry.
pub fn set_enabled(on: bool) {
    ENABLED.store(on, Ordering::Relaxed);
    if !on {
        let dropped: Vec<Arc<Packed>> = match CACHE.lock() {
            Ok(mut c) => c.entries.drain().map(|(_, e)| e.packed).collect(),
            Err(_) => Vec::new(),
        };
        drop(dropped);
    }
}

fn slot(kind: EngineKind) -> usize {
    match kind {
        EngineKind::Cpu => 0,
        EngineKind::Gpu => 1,
    }
}

/// The capacity for engines of `kind`, MB.
pub fn capacity(kind: EngineKind) -> usize {
    CAPACITY[slot(kind)].load(Ordering::Relaxed)
}

/// Sets the capacity for engines of `kind`, MB, evicting what no longer fits.
pub fn set_capacity(kind: EngineKind, mb: usize) {
    CAPACITY[slot(kind)].store(mb, Ordering::Relaxed);
    let evicted = match CACHE.lock() {
        Ok(mut c) => c.evict(kind, 0),
        Err(_) => Vec::new(),
    };
    drop(evicted);
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
        if let Ok(mut t) = self.temp.lock() {
            if let Some(temp) = t.take() {
                temp.release(event);
            }
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
