//! The engine cache blob: an engine's compiled programs as device binaries.
//!
//! Layout (all integers little endian):
//! `"DNNLRSEB"`, format version u32, id length u32, id bytes, entry count u32,
//! then per entry: source hash u128, options length u32, options, binary
//! length u64, binary; then an FNV-1a 128 checksum of everything before it.
//! A blob whose id differs from the device's (another device, driver or
//! library version), whose checksum fails, or that is cut short is refused.

use crate::core::error::{Error, Result};
use crate::runtime::ocl::ProgramKey;
use crate::runtime::ocl::cache::stable_hash;

const MAGIC: &[u8; 8] = b"DNNLRSEB";
/// The blob format. Version 2: primitive cache keys (hashed into a
/// primitive blob's id) are written by `core::key` instead of being `Debug`
/// text, so version 1 blobs would no longer match anyway; they are refused
/// by version rather than by a puzzling id mismatch.
const FORMAT_VERSION: u32 = 2;

/// Serialises `entries` for the device with blob id `id`.
pub fn encode(id: &[u8], entries: &[(ProgramKey, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(id.len() as u32).to_le_bytes());
    out.extend_from_slice(id);
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    for (key, binary) in entries {
        out.extend_from_slice(&key.source_hash.to_le_bytes());
        out.extend_from_slice(&(key.options.len() as u32).to_le_bytes());
        out.extend_from_slice(key.options.as_bytes());
        out.extend_from_slice(&(binary.len() as u64).to_le_bytes());
        out.extend_from_slice(binary);
    }
    let checksum = stable_hash(&out);
    out.extend_from_slice(&checksum.to_le_bytes());
    out
}

/// Reads a blob made by [`encode`], checking it against the device's `id`.
pub fn decode(id: &[u8], blob: &[u8]) -> Result<Vec<(ProgramKey, Vec<u8>)>> {
    let corrupt = || Error::invalid("the cache blob is corrupted or truncated");
    if blob.len() < MAGIC.len() + 16 || &blob[..MAGIC.len()] != MAGIC {
        return Err(Error::invalid("not an engine cache blob of this library"));
    }
    let (body, sum) = blob.split_at(blob.len() - 16);
    if stable_hash(body).to_le_bytes() != sum {
        return Err(corrupt());
    }
    let mut r = Reader {
        bytes: &body[MAGIC.len()..],
    };
    let version = r.u32().ok_or_else(corrupt)?;
    if version != FORMAT_VERSION {
        return Err(Error::invalid(format!(
            "cache blob format {version} is not {FORMAT_VERSION}"
        )));
    }
    let id_len = r.u32().ok_or_else(corrupt)? as usize;
    if r.take(id_len).ok_or_else(corrupt)? != id {
        return Err(Error::invalid(
            "the cache blob was made for another device, driver or library version",
        ));
    }
    let count = r.u32().ok_or_else(corrupt)?;
    let mut entries = Vec::new();
    for _ in 0..count {
        let hash = u128::from_le_bytes(
            r.take(16)
                .ok_or_else(corrupt)?
                .try_into()
                .map_err(|_| corrupt())?,
        );
        let options_len = r.u32().ok_or_else(corrupt)? as usize;
        let options = String::from_utf8(r.take(options_len).ok_or_else(corrupt)?.to_vec())
            .map_err(|_| corrupt())?;
        let binary_len = usize::try_from(r.u64().ok_or_else(corrupt)?).map_err(|_| corrupt())?;
        let binary = r.take(binary_len).ok_or_else(corrupt)?.to_vec();
        entries.push((
            ProgramKey {
                source_hash: hash,
                options,
            },
            binary,
        ));
    }
    if !r.bytes.is_empty() {
        return Err(corrupt());
    }
    Ok(entries)
}

struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.bytes.len() {
            return None;
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Some(head)
    }

    fn u32(&mut self) -> Option<u32> {
        self.take(4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap_or_default()))
    }

    fn u64(&mut self) -> Option<u64> {
        self.take(8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<(ProgramKey, Vec<u8>)> {
        vec![(
            ProgramKey::new("kernel void k() {}", "-DX=1"),
            vec![1, 2, 3, 4],
        )]
    }

    #[test]
    fn round_trip() {
        let blob = encode(b"dev", &sample());
        assert_eq!(decode(b"dev", &blob).unwrap(), sample());
    }

    /// A well-formed blob of another format version (with a valid
    /// checksum) is refused with invalid arguments.
    #[test]
    fn blobs_of_another_version_are_refused() {
        for version in [1u32, FORMAT_VERSION + 1] {
            let mut blob = encode(b"dev", &sample());
            let at = MAGIC.len();
            blob[at..at + 4].copy_from_slice(&version.to_le_bytes());
            let body = blob.len() - 16;
            let checksum = stable_hash(&blob[..body]);
            blob[body..].copy_from_slice(&checksum.to_le_bytes());
            let err = decode(b"dev", &blob).unwrap_err();
            assert!(
                matches!(err, Error::InvalidArguments(_)),
                "version {version}: {err}"
            );
        }
    }

    #[test]
    fn foreign_corrupt_and_truncated_blobs_are_refused() {
        let blob = encode(b"dev", &sample());
        assert!(decode(b"other", &blob).is_err());
        for i in 0..blob.len() {
            let mut bad = blob.clone();
            bad[i] ^= 0x40;
            assert!(decode(b"dev", &bad).is_err(), "flipped byte {i}");
        }
        for n in 0..blob.len() {
            assert!(decode(b"dev", &blob[..n]).is_err(), "cut at {n}");
        }
    }
}
