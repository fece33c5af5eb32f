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

use std::sync::Arc;

use level_zero_sys as sys;

use super::module::{Kernel, Module, ModuleFormat};
use super::spirv;
use crate::base::{Error, Result};
use crate::runtime::ocl::ProgramKey;
use crate::runtime::program_cache::{Builder, Kept, Programs};

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

/// Builds Level Zero modules for one context and device.
struct Build {
    context: sys::ze_context_handle_t,
    device: sys::ze_device_handle_t,
}

impl Builder for Build {
    type Program = Arc<Module>;

    fn build_saved(&self, saved: &[u8], options: &str) -> Result<Arc<Module>> {
        let (_, flags) = spirv::split_options(options);
        let (format, bytes) = match saved.split_first() {
            Some((&TAG_NATIVE, bytes)) => (ModuleFormat::Native, bytes),
            Some((&TAG_SPIRV, bytes)) => (ModuleFormat::Spirv, bytes),
            _ => return Err(Error::invalid("a saved program of unknown format")),
        };
        Ok(Arc::new(Module::build(
            self.context,
            self.device,
            format,
            bytes,
            &flags,
        )?))
    }

    fn build_source(&self, source: &str, options: &str) -> Result<(Arc<Module>, Kept)> {
        let spirv = spirv::compile(source, options)?;
        COMPILES.with(|c| c.set(c.get() + 1));
        let (_, flags) = spirv::split_options(options);
        let module = Module::build(
            self.context,
            self.device,
            ModuleFormat::Spirv,
            &spirv,
            &flags,
        )?;
        Ok((Arc::new(module), Some(spirv.into())))
    }

    fn refused_warning(&self, error: &Error) -> String {
        format!("ze,a cached program was refused, compiling the source: {error}")
    }
}

/// The saved form of a module built from source: the driver's native
/// binary where it gives one, else the SPIR-V it was built from.
fn save(module: &Arc<Module>, spirv: Option<&[u8]>) -> Result<Option<Vec<u8>>> {
    Ok(match module.native_binary() {
        Ok(native) if !native.is_empty() => Some([&[TAG_NATIVE][..], &native].concat()),
        _ => spirv.map(|spirv| [&[TAG_SPIRV][..], spirv].concat()),
    })
}

/// The programs of one Level Zero engine. Thread-safe. It holds no handle of
/// the context or device: the engine passes them in.
#[derive(Default)]
pub struct ProgramCache {
    programs: Programs<Arc<Module>>,
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
        self.programs
            .get_or_build(&Build { context, device }, source, options)
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
        self.programs.entries_of(keys, save)
    }

    /// Adds a saved program, built on first use. An entry already present is kept.
    pub fn insert_saved(&self, key: ProgramKey, saved: Vec<u8>) -> Result<()> {
        if !matches!(saved.first(), Some(&TAG_NATIVE) | Some(&TAG_SPIRV)) {
            return Err(Error::invalid(
                "the cache blob holds a program of unknown format",
            ));
        }
        self.programs.insert_saved(key, saved)
    }

    /// The number of programs, built or saved.
    pub fn len(&self) -> usize {
        self.programs.len()
    }

    /// Whether the cache holds no program.
    pub fn is_empty(&self) -> bool {
        self.programs.is_empty()
    }
}
