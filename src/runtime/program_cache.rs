//! The mechanism of the per-engine program caches both GPU runtimes keep:
//! (hash of the source, options) to the built program, saved programs from
//! cache blobs built on first use, and the saved form of each program made
//! on demand for blobs.
//!
//! Layer: `runtime`. What differs per runtime is how a program is built from
//! source or from its saved form (a [`Builder`]) and what its saved form is
//! (the function given to [`Programs::entries_of`]). `runtime::ocl::cache`
//! (device binaries) and `runtime::ze::cache` (native binaries or SPIR-V)
//! each wrap a [`Programs`].

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use super::ocl::ProgramKey;
use super::ocl::cache::note_use;
use crate::base::{Result, verbose};

/// Bytes kept beside a program built from source, for saving it later.
pub type Kept = Option<Arc<[u8]>>;

/// How one runtime builds programs.
pub trait Builder {
    /// A built program (cheap to clone: a reference).
    type Program: Clone;

    /// Builds from a saved form (a cache blob's).
    fn build_saved(&self, saved: &[u8], options: &str) -> Result<Self::Program>;

    /// Builds from the source. The bytes returned beside the program are
    /// kept with it for [`Programs::entries_of`]'s `save` (Level Zero: the
    /// SPIR-V).
    fn build_source(&self, source: &str, options: &str) -> Result<(Self::Program, Kept)>;

    /// The warning printed when a saved program is refused and the source is
    /// built instead (after `common,warn,`).
    fn refused_warning(&self, error: &crate::base::Error) -> String;
}

enum Slot<P> {
    /// Built; its saved form once someone asked for it (or it came from a blob).
    Built {
        program: P,
        saved: Option<Arc<[u8]>>,
        kept: Kept,
    },
    /// From a blob, not built yet.
    Saved(Arc<[u8]>),
}

/// The programs of one engine. Thread-safe. It holds no handle of the
/// context or device: the builder, which the engine makes, carries them.
pub struct Programs<P> {
    slots: Mutex<BTreeMap<ProgramKey, Slot<P>>>,
}

impl<P> Default for Programs<P> {
    fn default() -> Self {
        Programs {
            slots: Mutex::new(BTreeMap::new()),
        }
    }
}

impl<P: Clone> Programs<P> {
    /// The program of `source` with `options`: cached, built from its saved
    /// form, or built from the source (and cached). Builds run without the
    /// lock; when two threads build one program, the first one stored wins.
    pub fn get_or_build<B: Builder<Program = P>>(
        &self,
        builder: &B,
        source: &str,
        options: &str,
    ) -> Result<P> {
        let key = ProgramKey::new(source, options);
        note_use(&key);
        let saved = match self.slots.lock()?.get(&key) {
            Some(Slot::Built { program, .. }) => return Ok(program.clone()),
            Some(Slot::Saved(saved)) => Some(saved.clone()),
            None => None,
        };
        let mut built = None;
        if let Some(saved) = saved {
            match builder.build_saved(&saved, options) {
                Ok(program) => built = Some((program, Some(saved), None)),
                Err(e) if verbose::enabled(verbose::flag::WARN) => {
                    verbose::emit_line("common,warn,", &builder.refused_warning(&e))
                }
                Err(_) => {}
            }
        }
        let (program, saved, kept) = match built {
            Some(found) => found,
            None => {
                let (program, kept) = builder.build_source(source, options)?;
                (program, None, kept)
            }
        };
        let mut slots = self.slots.lock()?;
        if let Some(Slot::Built { program: first, .. }) = slots.get(&key) {
            return Ok(first.clone());
        }
        slots.insert(
            key,
            Slot::Built {
                program: program.clone(),
                saved,
                kept,
            },
        );
        Ok(program)
    }

    /// The programs of `keys` (all when `None`) in their saved form, sorted
    /// by key (so the same cache always serialises to the same bytes); keys
    /// the cache does not hold, and programs that cannot be saved, are left
    /// out. `save` gives the saved form of a program built from source
    /// (`kept`: what [`Builder::build_source`] returned with it), `None` when
    /// it cannot be saved.
    pub fn entries_of(
        &self,
        keys: Option<&[ProgramKey]>,
        save: impl Fn(&P, Option<&[u8]>) -> Result<Option<Vec<u8>>>,
    ) -> Result<Vec<(ProgramKey, Vec<u8>)>> {
        let wanted = |key: &ProgramKey| keys.is_none_or(|k| k.contains(key));
        type Pending<P> = (ProgramKey, P, Option<Arc<[u8]>>);
        let pending: Vec<Pending<P>> = self
            .slots
            .lock()?
            .iter()
            .filter(|(key, _)| wanted(key))
            .filter_map(|(key, slot)| match slot {
                Slot::Built {
                    program,
                    saved: None,
                    kept,
                } => Some((key.clone(), program.clone(), kept.clone())),
                _ => None,
            })
            .collect();
        // Ask the driver for binaries without holding the lock, then keep them.
        let mut fetched = Vec::with_capacity(pending.len());
        for (key, program, kept) in pending {
            if let Some(saved) = save(&program, kept.as_deref())? {
                fetched.push((key, Arc::<[u8]>::from(saved)));
            }
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
