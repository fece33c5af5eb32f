//! The per-engine program cache of Level Zero engines: (source hash,
//! options) to the module built from it, as `runtime::ocl::cache` does for
//! OpenCL (same keys, and the same recording of the programs a primitive
//! uses).
//!
//! Layer: `runtime::ze`. A module is compiled from OpenCL C to SPIR-V
//! (`spirv.rs`), then built by the driver. For cache blobs each program is
//! saved as the driver's native binary (`zeModuleGetNativeBinary`) where it
//! gives one, else as the SPIR-V (its build flags come back from the key's
//! options); a saved program is only built when first asked for, and a
//! native binary the driver refuses falls back to compiling the source.
//!
//! Saved form: one byte ([`TAG_NATIVE`] or [`TAG_SPIRV`]), then the bytes.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use level_zero_sys as sys;

use super::module::{Kernel, Module, ModuleFormat};
use super::spirv;
use crate::core::{Error, Result, verbose};
use crate::runtime::ocl::ProgramKey;
use crate::runtime::ocl::cache::note_use;

/// Saved program: a native binary follows.
pub const TAG_NATIVE: u8 = 1;
/// Saved program: a SPIR-V module follows.
pub const TAG_SPIRV: u8 = 2;

thread_local! {
    /// OpenCL C to SPIR-V compilations made on this thread.
    static COMPILES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many programs this thread has compiled from OpenCL C (what tests of
/// cache blobs and of the sweeps' build count look at).
pub fn compiles_on_this_thread() -> u64 {
    COMPILES.with(|c| c.get())
}

enum Slot {
    /// Built from SPIR-V (kept for the blob) or from a saved program.
    Built {
        module: Arc<Module>,
        saved: Option<Arc<[u8]>>,
        spirv: Option<Arc<[u8]>>,
    },
    /// From a blob, not built yet.
    Saved(Arc<[u8]>),
}

/// The programs of one Level Zero engine. Thread-safe. It holds no handle of
/// the context or device: the engine passes them in.
#[derive(Default)]
pub struct ProgramCache {
    slots: Mutex<BTreeMap<ProgramKey, Slot>>,
}

fn build_saved(
    context: sys::ze_context_handle_t,
    device: sys::ze_device_handle_t,
    saved: &[u8],
    options: &str,
) -> Result<Module> {
    let (_, flags) = spirv::split_options(options);
    match saved.split_first() {
        Some((&TAG_NATIVE, bytes)) => {
            Module::build(context, device, ModuleFormat::Native, bytes, &flags)
        }
        Some((&TAG_SPIRV, bytes)) => {
            Module::build(context, device, ModuleFormat::Spirv, bytes, &flags)
        }
        _ => Err(Error::invalid("a saved program of unknown format")),
    }
}

impl ProgramCache {
    /// An empty cache.
    pub fn new() -> ProgramCache {
        ProgramCache::default()
    }

    /// The module of `source` with `options`: cached, built from a saved
    /// program, or compiled (and cached). Builds run without the lock; when
    /// two threads build one program, the first stored wins.
    pub fn get_or_build(
        &self,
        context: sys::ze_context_handle_t,
        device: sys::ze_device_handle_t,
        source: &str,
        options: &str,
    ) -> Result<Arc<Module>> {
        let key = ProgramKey::new(source, options);
        note_use(&key);
        let saved = match self.slots.lock()?.get(&key) {
            Some(Slot::Built { module, .. }) => return Ok(module.clone()),
            Some(Slot::Saved(saved)) => Some(saved.clone()),
            None => None,
        };
        let mut built = None;
        if let Some(saved) = saved {
            match build_saved(context, device, &saved, options) {
                Ok(module) => {
                    built = Some(Slot::Built {
                        module: Arc::new(module),
                        saved: Some(saved),
                        spirv: None,
                    })
                }
                Err(e) if verbose::enabled(verbose::flag::WARN) => verbose::emit_line(
                    "common,warn,",
                    &format!("ze,a cached program was refused, compiling the source: {e}"),
                ),
                Err(_) => {}
            }
        }
        let slot = match built {
            Some(slot) => slot,
            None => {
                let spirv = spirv::compile(source, options)?;
                COMPILES.with(|c| c.set(c.get() + 1));
                let (_, flags) = spirv::split_options(options);
                let module = Module::build(context, device, ModuleFormat::Spirv, &spirv, &flags)?;
                Slot::Built {
                    module: Arc::new(module),
                    saved: None,
                    spirv: Some(spirv.into()),
                }
            }
        };
        let mut slots = self.slots.lock()?;
        if let Some(Slot::Built { module, .. }) = slots.get(&key) {
            return Ok(module.clone());
        }
        let Slot::Built { module, .. } = &slot else {
            return Err(Error::runtime("a program was not built"));
        };
        let module = module.clone();
        slots.insert(key, slot);
        Ok(module)
    }

    /// A new kernel object for `name` in the module of `source` with `options`.
    pub fn kernel(
        &self,
        context: sys::ze_context_handle_t,
        device: sys::ze_device_handle_t,
        source: &str,
        options: &str,
        name: &str,
    ) -> Result<Kernel> {
        self.get_or_build(context, device, source, options)?
            .kernel(name)
    }

    /// The programs of `keys` (all when `None`) in their saved form, sorted
    /// by key; keys the cache does not hold are left out.
    pub fn entries_of(&self, keys: Option<&[ProgramKey]>) -> Result<Vec<(ProgramKey, Vec<u8>)>> {
        let wanted = |key: &ProgramKey| keys.is_none_or(|k| k.contains(key));
        type Pending = (ProgramKey, Arc<Module>, Option<Arc<[u8]>>);
        let pending: Vec<Pending> = self
            .slots
            .lock()?
            .iter()
            .filter(|(key, _)| wanted(key))
            .filter_map(|(key, slot)| match slot {
                Slot::Built {
                    module,
                    saved: None,
                    spirv,
                } => Some((key.clone(), module.clone(), spirv.clone())),
                _ => None,
            })
            .collect();
        // Ask the driver for binaries without holding the lock, then keep them.
        let mut fetched = Vec::new();
        for (key, module, spirv) in pending {
            let saved = match module.native_binary() {
                Ok(native) if !native.is_empty() => [&[TAG_NATIVE][..], &native].concat(),
                _ => match spirv {
                    Some(spirv) => [&[TAG_SPIRV][..], &spirv].concat(),
                    None => continue,
                },
            };
            fetched.push((key, Arc::<[u8]>::from(saved)));
        }
        let mut slots = self.slots.lock()?;
        for (key, bytes) in fetched {
            if let Some(Slot::Built {
                saved: s @ None, ..
            }) = slots.get_mut(&key)
            {
                *s = Some(bytes);
            }
        }
        Ok(slots
            .iter()
            .filter(|(key, _)| wanted(key))
            .filter_map(|(key, slot)| match slot {
                Slot::Built {
                    saved: Some(bytes), ..
                }
                | Slot::Saved(bytes) => Some((key.clone(), bytes.to_vec())),
                Slot::Built { saved: None, .. } => None,
            })
            .collect())
    }

    /// Adds a saved program, built on first use. An entry already present is kept.
    pub fn insert_saved(&self, key: ProgramKey, saved: Vec<u8>) -> Result<()> {
        if !matches!(saved.first(), Some(&TAG_NATIVE) | Some(&TAG_SPIRV)) {
            return Err(Error::invalid(
                "the cache blob holds a program of unknown format",
            ));
        }
        self.slots
            .lock()?
            .entry(key)
            .or_insert_with(|| Slot::Saved(saved.into()));
        Ok(())
    }

    /// The number of programs, built or saved.
    pub fn len(&self) -> usize {
        self.slots.lock().map(|s| s.len()).unwrap_or(0)
    }

    /// Whether the cache holds no program.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
