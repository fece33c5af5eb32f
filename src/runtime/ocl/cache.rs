//! The per-engine program cache, and the id of the engine cache blob.
//!
//! Layer: `runtime::ocl`. Kernels are OpenCL C specialised with `-D` options,
//! built once per engine: [`ProgramCache`] maps (hash of the source, options)
//! to the built program. It can be saved as device binaries ([`ProgramCache::entries`])
//! and refilled from them ([`ProgramCache::insert_binary`]); the engine puts
//! those in its cache blob (with a checksum, which is the engine's job), so a
//! warm start skips compilation. A binary is only built when first asked for;
//! if the driver refuses it, the source is built instead.
//!
//! [`cache_blob_id`] identifies where a blob may be loaded: platform,
//! device, driver and library version.

use super::context::Context;
use super::device::Device;
use super::program::{Kernel, Program};
use crate::base::Result;
use crate::runtime::program_cache::{Builder, Kept, Programs};

/// FNV-1a, 128 bits: a hash that is the same in every process, build and
/// Rust version (unlike `std`'s), as keys saved in a blob need.
pub fn stable_hash(bytes: &[u8]) -> u128 {
    const OFFSET: u128 = 0x6c62272e07bb014262b821756295c58d;
    const PRIME: u128 = 0x0000000001000000000000000000013B;
    bytes
        .iter()
        .fold(OFFSET, |h, &b| (h ^ b as u128).wrapping_mul(PRIME))
}

/// What a program is cached under.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ProgramKey {
    /// [`stable_hash`] of the OpenCL C source.
    pub source_hash: u128,
    /// The build options, exactly as passed.
    pub options: String,
}

impl ProgramKey {
    /// The key of `source` built with `options`.
    pub fn new(source: &str, options: &str) -> ProgramKey {
        ProgramKey {
            source_hash: stable_hash(source.as_bytes()),
            options: options.to_string(),
        }
    }
}

thread_local! {
    /// The keys [`record`] collects on this thread.
    static RECORDING: std::cell::RefCell<Option<Vec<ProgramKey>>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `f`, collecting the key of every program it gets from any
/// [`ProgramCache`] on this thread (a primitive's programs, for its cache
/// blob). Nested calls each see their own programs.
pub fn record<R>(f: impl FnOnce() -> R) -> (R, Vec<ProgramKey>) {
    let outer = RECORDING.with(|r| r.replace(Some(Vec::new())));
    let result = f();
    let mine = RECORDING.with(|r| r.replace(outer)).unwrap_or_default();
    RECORDING.with(|r| {
        if let Some(outer) = r.borrow_mut().as_mut() {
            outer.extend(mine.iter().cloned());
        }
    });
    (result, mine)
}

pub(crate) fn note_use(key: &ProgramKey) {
    RECORDING.with(|r| {
        if let Some(keys) = r.borrow_mut().as_mut()
            && !keys.contains(key)
        {
            keys.push(key.clone());
        }
    });
}

/// Builds OpenCL programs for one context and device.
struct Build<'a> {
    context: &'a Context,
    device: &'a Device,
}

impl Builder for Build<'_> {
    type Program = Program;

    fn build_saved(&self, binary: &[u8], options: &str) -> Result<Program> {
        Program::build_binary(self.context, self.device, binary, options)
    }

    fn build_source(&self, source: &str, options: &str) -> Result<(Program, Kept)> {
        Ok((
            Program::build_source(self.context, self.device, source, options)?,
            None,
        ))
    }

    fn refused_warning(&self, error: &crate::base::Error) -> String {
        format!("ocl,a cached program binary was refused, building from source: {error}")
    }
}

/// The programs of one engine (one context and device). Thread-safe.
///
/// The cache holds no reference to the context or device: the engine that
/// owns it passes them in. So the reference counts a user sees on the
/// objects they handed to an engine are exactly those oneDNN documents.
#[derive(Default)]
pub struct ProgramCache {
    programs: Programs<Program>,
}

impl ProgramCache {
    /// An empty cache.
    pub fn new() -> ProgramCache {
        ProgramCache::default()
    }

    /// The program of `source` with `options`: cached, built from a saved
    /// binary, or built from the source (and cached). Builds run without the
    /// cache's lock; when two threads build one program, the first one stored wins.
    pub fn get_or_build(
        &self,
        context: &Context,
        device: &Device,
        source: &str,
        options: &str,
    ) -> Result<Program> {
        self.programs
            .get_or_build(&Build { context, device }, source, options)
    }

    /// A new kernel object for `name` in the program of `source` with `options`.
    pub fn kernel(
        &self,
        context: &Context,
        device: &Device,
        source: &str,
        options: &str,
        name: &str,
    ) -> Result<Kernel> {
        self.get_or_build(context, device, source, options)?
            .kernel(name)
    }

    /// Every program as (key, device binary), sorted by key, so the same
    /// cache always serialises to the same bytes.
    pub fn entries(&self) -> Result<Vec<(ProgramKey, Vec<u8>)>> {
        self.entries_of(None)
    }

    /// The programs of `keys` (all when `None`) as (key, device binary),
    /// sorted by key; keys the cache does not hold are left out.
    pub fn entries_of(&self, keys: Option<&[ProgramKey]>) -> Result<Vec<(ProgramKey, Vec<u8>)>> {
        self.programs
            .entries_of(keys, |program, _| program.binary().map(Some))
    }

    /// Adds a saved binary, built on first use. An entry already present is kept.
    pub fn insert_binary(&self, key: ProgramKey, binary: Vec<u8>) -> Result<()> {
        self.programs.insert_saved(key, binary)
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

/// The bytes identifying where a cache blob may be used: the platform's name
/// and version, the device's name and vendor id, the driver version, and this
/// library's version and build hash, each length-prefixed (u32, little endian).
pub fn cache_blob_id(device: &Device) -> Result<Vec<u8>> {
    let info = device.info()?;
    let fields: [&[u8]; 7] = [
        info.platform_name.as_bytes(),
        info.platform_version.as_bytes(),
        info.name.as_bytes(),
        &info.vendor_id.to_le_bytes(),
        info.driver_version.as_bytes(),
        env!("CARGO_PKG_VERSION").as_bytes(),
        env!("DNNL_BUILD_HASH").as_bytes(),
    ];
    let mut id = Vec::new();
    for field in fields {
        id.extend_from_slice(&(field.len() as u32).to_le_bytes());
        id.extend_from_slice(field);
    }
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_is_fnv1a_128() {
        // Reference values of FNV-1a 128.
        assert_eq!(stable_hash(b""), 0x6c62272e07bb014262b821756295c58d);
        assert_eq!(stable_hash(b"a"), 0xd228cb696f1a8caf78912b704e4a8964);
        assert_ne!(ProgramKey::new("x", "-DA"), ProgramKey::new("x", "-DB"));
    }
}
