//! The primitive cache: implementations already built, reused by later
//! `dnnl_primitive_create` calls for the same operation on the same engine.
//!
//! Capacity: `dnnl_set_primitive_cache_capacity`, else
//! `ONEDNN_PRIMITIVE_CACHE_CAPACITY`, else 1024; 0 turns the cache off.
//! Least recently used entries go first.
//!
//! The cache never keeps an engine alive: entries hold it weakly, and an
//! engine's entries are dropped when the engine is (so the OpenCL context a
//! user handed to an engine is released with it, as oneDNN does). That is
//! why implementations must not hold their engine.

use crate::runtime::ocl::ProgramKey;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use crate::core::engine::Engine;
use crate::core::env;
use crate::core::error::{Error, Result};
use crate::core::primitive::Implementation;

const DEFAULT_CAPACITY: i64 = 1024;
/// Not read from the environment yet.
const UNSET: i64 = -1;

static CAPACITY: AtomicI64 = AtomicI64::new(UNSET);

/// The cache's capacity (entries).
pub fn capacity() -> usize {
    let c = CAPACITY.load(Ordering::Relaxed);
    if c != UNSET {
        return c as usize;
    }
    let from_env = env::get_int("PRIMITIVE_CACHE_CAPACITY", DEFAULT_CAPACITY).max(0);
    let _ = CAPACITY.compare_exchange(UNSET, from_env, Ordering::Relaxed, Ordering::Relaxed);
    CAPACITY.load(Ordering::Relaxed) as usize
}

/// Sets the capacity; entries beyond it are evicted.
pub fn set_capacity(capacity: i32) -> Result<()> {
    if capacity < 0 {
        return Err(Error::invalid(format!(
            "primitive cache capacity {capacity} is negative"
        )));
    }
    CAPACITY.store(i64::from(capacity), Ordering::Relaxed);
    let mut cache = CACHE.lock()?;
    while cache.len() > capacity as usize {
        cache.pop_back();
    }
    Ok(())
}

/// What identifies a cached implementation.
#[derive(Clone, PartialEq, Eq)]
pub struct Key {
    /// The engine's address: one engine's implementations are not another's.
    engine: usize,
    /// The implementation's name.
    implementation: String,
    /// The op's own key (what its `cache_key` wrote).
    op: Vec<u8>,
}

impl Key {
    /// The key of an op (the bytes of its `cache_key`) implemented by
    /// `impl_name` on `engine`.
    pub fn new(engine: &Arc<Engine>, impl_name: &str, op_key: Vec<u8>) -> Key {
        Key {
            engine: Arc::as_ptr(engine) as usize,
            implementation: impl_name.to_string(),
            op: op_key,
        }
    }
}

struct Entry {
    key: Key,
    /// The engine, to tell a live one from a new engine at a reused address.
    engine: Weak<Engine>,
    implementation: Arc<dyn Implementation>,
    /// The OpenCL programs it was built from (for its cache blob).
    programs: Arc<[ProgramKey]>,
}

/// A cached implementation with the OpenCL programs it was built from.
pub type Cached = (Arc<dyn Implementation>, Arc<[ProgramKey]>);

static CACHE: Mutex<VecDeque<Entry>> = Mutex::new(VecDeque::new());

/// The cached implementation of `key`, moved to the front.
pub fn get(key: &Key) -> Option<Cached> {
    let mut cache = CACHE.lock().ok()?;
    let i = cache
        .iter()
        .position(|e| e.key == *key && e.engine.strong_count() > 0)?;
    let entry = cache.remove(i)?;
    let found = (entry.implementation.clone(), entry.programs.clone());
    cache.push_front(entry);
    Some(found)
}

/// Caches `implementation` under `key` (evicting the least recently used).
pub fn put(
    key: Key,
    engine: &Arc<Engine>,
    implementation: &Arc<dyn Implementation>,
    programs: &Arc<[ProgramKey]>,
) {
    let capacity = capacity();
    if capacity == 0 {
        return;
    }
    let Ok(mut cache) = CACHE.lock() else { return };
    cache.retain(|e| e.key != key);
    cache.push_front(Entry {
        key,
        engine: Arc::downgrade(engine),
        implementation: implementation.clone(),
        programs: programs.clone(),
    });
    // Evicted entries may hold the last reference to an engine: drop them
    // after the lock is released.
    let evicted: Vec<Entry> = (capacity..cache.len())
        .filter_map(|_| cache.pop_back())
        .collect();
    drop(cache);
    drop(evicted);
}

/// Drops every entry of the engine at `engine` (called when it is dropped).
pub fn purge_engine(engine: *const Engine) {
    let Ok(mut cache) = CACHE.lock() else { return };
    let mut kept = VecDeque::with_capacity(cache.len());
    let mut gone = Vec::new();
    for entry in cache.drain(..) {
        if entry.key.engine == engine as usize || entry.engine.strong_count() == 0 {
            gone.push(entry);
        } else {
            kept.push_back(entry);
        }
    }
    *cache = kept;
    drop(cache);
    // Releasing kernels may call into the driver: outside the lock.
    drop(gone);
}
