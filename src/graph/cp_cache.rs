//! The compiled-partition cache: compiling the same partition for the same
//! engine and tensors again returns the earlier compilation
//! (`dnnl_graph_set/get_compiled_partition_cache_capacity`; 1024 entries by
//! default, as upstream; 0 turns it off).
//!
//! Layer: graph. Keyed by the partition id, the engine (its address, with
//! a check that the cached compilation's engine is that very engine) and a
//! description of every input and output tensor. A cached compilation
//! holds its primitives, and so its engine: lowering the capacity (to 0)
//! releases them. The least recently used entry is evicted first.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

use crate::core::engine::Engine;
use crate::core::error::{Error, Result};
use crate::graph::compiled::Compiled;
use crate::graph::logical_tensor::{self, Lt};
use crate::graph::partition::Partition;
use crate::graph::verbose;

static CAPACITY: AtomicUsize = AtomicUsize::new(1024);

#[derive(Default)]
struct Cache {
    entries: HashMap<String, (Arc<Compiled>, u64)>,
    clock: u64,
}

static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(Default::default);

/// The capacity, in compiled partitions.
pub fn capacity() -> usize {
    CAPACITY.load(Ordering::Relaxed)
}

/// Sets the capacity (a negative value is invalid), evicting what exceeds it.
pub fn set_capacity(capacity: i32) -> Result<()> {
    let cap = usize::try_from(capacity)
        .map_err(|_| Error::invalid(format!("cache capacity {capacity} is negative")))?;
    CAPACITY.store(cap, Ordering::Relaxed);
    let evicted = {
        let mut c = CACHE.lock()?;
        shrink(&mut c, cap)
    };
    drop(evicted);
    Ok(())
}

fn shrink(c: &mut Cache, cap: usize) -> Vec<Arc<Compiled>> {
    let mut out = Vec::new();
    while c.entries.len() > cap {
        let oldest = c
            .entries
            .iter()
            .min_by_key(|(_, (_, t))| *t)
            .map(|(k, _)| k.clone());
        match oldest.and_then(|k| c.entries.remove(&k)) {
            Some((v, _)) => out.push(v),
            None => break,
        }
    }
    out
}

fn key(p: &Partition, ins: &[Lt], outs: &[Lt], engine: &Arc<Engine>) -> String {
    let lts = |v: &[Lt]| {
        v.iter()
            .map(logical_tensor::describe)
            .collect::<Vec<_>>()
            .join(" ")
    };
    format!(
        "{}|{:p}|{}|{}",
        p.id(),
        Arc::as_ptr(engine),
        lts(ins),
        lts(outs)
    )
}

/// The compilation of `p` for these tensors on `engine`: cached, or built
/// (and cached).
pub fn get_or_compile(
    p: &Arc<Partition>,
    ins: Vec<Lt>,
    outs: Vec<Lt>,
    engine: &Arc<Engine>,
) -> Result<Arc<Compiled>> {
    let start = std::time::Instant::now();
    let cap = capacity();
    let k = key(p, &ins, &outs, engine);
    if cap > 0 {
        let mut c = CACHE.lock()?;
        c.clock += 1;
        let now = c.clock;
        if let Some((found, stamp)) = c.entries.get_mut(&k)
            && Arc::ptr_eq(found.engine(), engine)
        {
            *stamp = now;
            let found = found.clone();
            drop(c);
            verbose::log_create(&found, true, start.elapsed().as_secs_f64() * 1e3);
            return Ok(found);
        }
    }
    let compiled = Compiled::build(p, &ins, &outs, engine)?;
    crate::graph::dump::subgraph(p, &compiled);
    verbose::log_create(&compiled, false, start.elapsed().as_secs_f64() * 1e3);
    if cap > 0 {
        let evicted = {
            let mut c = CACHE.lock()?;
            c.clock += 1;
            let stamp = c.clock;
            c.entries.insert(k, (compiled.clone(), stamp));
            shrink(&mut c, cap)
        };
        drop(evicted);
    }
    Ok(compiled)
}
