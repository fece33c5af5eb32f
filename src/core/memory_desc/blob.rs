//! Our serialisation of memory descriptors (`dnnl_memory_desc_get_blob`,
//! `dnnl_memory_desc_create_with_blob`).
//!
//! Upstream's blob is its struct's bytes; ours is a versioned, checksummed
//! encoding, so that a blob from another library or version, or a damaged
//! one, is refused instead of becoming a descriptor. Layout (little endian):
//!
//! | bytes | field |
//! | --- | --- |
//! | 0..8 | magic `DNNL-MD\0` |
//! | 8..12 | format version (1) |
//! | 12..16 | payload length in bytes |
//! | 16..24 | FNV-1a 64 of bytes 8..16 and the payload |
//! | 24.. | payload |
//!
//! Payload v1: `ndims`, data type, format kind, sparse encoding (u32 each);
//! `offset0`; `dims`, `padded_dims`, `padded_offsets` (`ndims` i64 each);
//! then for blocked: `strides` (`ndims` i64), `inner_nblks` (u32), a zero
//! u32, `inner_blks` and `inner_idxs` (`inner_nblks` i64 each); for sparse:
//! `nnz` (i64), index and pointer data types (u32 each), and for the grouped
//! encoding the variable dimension (u32) and the number of groups (i64).
//!
//! A decoded descriptor is validated as a whole ([`MemoryDesc::check`]):
//! a blob with a correct checksum but impossible contents is refused too.

use crate::abi::*;
use crate::core::error::{Error, Result};
use crate::core::types::DataType;

use super::{
    Blocking, Dims, Format, GROUPED_ENCODING, MAX_NDIMS, MemoryDesc, RUNTIME_DIM, Sparse,
    SparseEncoding,
};

const MAGIC: &[u8; 8] = b"DNNL-MD\0";
const VERSION: u32 = 1;
/// Bytes before the payload.
pub const HEADER_LEN: usize = 24;
/// No valid v1 payload is longer (blocked, 12 dims, 12 blocks).
const MAX_PAYLOAD: usize = 24 + 4 * 8 * MAX_NDIMS + 8 + 2 * 8 * MAX_NDIMS;

fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for byte in parts.iter().flat_map(|p| p.iter()) {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// The checksum a whole blob should carry (tests re-seal edited blobs).
#[cfg(test)]
pub(super) fn checksum_for_tests(blob: &[u8]) -> u64 {
    fnv1a(&[&blob[8..16], &blob[HEADER_LEN..]])
}

fn corrupt(why: &str) -> Error {
    Error::invalid(format!("memory descriptor blob refused: {why}"))
}

impl MemoryDesc {
    /// The blob of this descriptor.
    pub fn to_blob(&self) -> Vec<u8> {
        let mut p = Vec::with_capacity(MAX_PAYLOAD);
        let n = self.ndims;
        let encoding = self.sparse().map_or(0, |s| s.encoding.to_c().0);
        for v in [n as u32, self.data_type.0, self.format_kind().0, encoding] {
            p.extend_from_slice(&v.to_le_bytes());
        }
        let dims = |p: &mut Vec<u8>, a: &[i64]| {
            a.iter().for_each(|v| p.extend_from_slice(&v.to_le_bytes()))
        };
        dims(&mut p, &[self.offset0]);
        for a in [&self.dims, &self.padded_dims, &self.padded_offsets] {
            dims(&mut p, &a[..n]);
        }
        match &self.format {
            Format::Blocked(b) => {
                dims(&mut p, &b.strides[..n]);
                p.extend_from_slice(&(b.inner_nblks as u32).to_le_bytes());
                p.extend_from_slice(&0u32.to_le_bytes());
                dims(&mut p, &b.inner_blks[..b.inner_nblks]);
                dims(&mut p, &b.inner_idxs[..b.inner_nblks]);
            }
            Format::Sparse(s) => {
                dims(&mut p, &[s.nnz]);
                p.extend_from_slice(&s.indices.0.to_le_bytes());
                p.extend_from_slice(&s.pointers.0.to_le_bytes());
                if let SparseEncoding::Grouped {
                    variable_dim,
                    groups,
                } = s.encoding
                {
                    p.extend_from_slice(&(variable_dim as u32).to_le_bytes());
                    dims(&mut p, &[groups]);
                }
            }
            Format::Undef | Format::Any | Format::HostScalar => {}
        }

        let mut blob = Vec::with_capacity(HEADER_LEN + p.len());
        blob.extend_from_slice(MAGIC);
        blob.extend_from_slice(&VERSION.to_le_bytes());
        blob.extend_from_slice(&(p.len() as u32).to_le_bytes());
        let sum = fnv1a(&[&blob[8..16], &p]);
        blob.extend_from_slice(&sum.to_le_bytes());
        blob.extend_from_slice(&p);
        blob
    }

    /// The whole length of the blob that starts with `header`, once magic,
    /// version and length are checked (C passes no size: the caller reads the
    /// header first, then this many bytes).
    pub fn blob_len(header: &[u8; HEADER_LEN]) -> Result<usize> {
        if &header[..8] != MAGIC {
            return Err(corrupt("not a memory descriptor blob of this library"));
        }
        let version = u32::from_le_bytes([header[8], header[9], header[10], header[11]]);
        if version != VERSION {
            return Err(corrupt(&format!(
                "format version {version}, this library reads {VERSION}"
            )));
        }
        let len = u32::from_le_bytes([header[12], header[13], header[14], header[15]]) as usize;
        if len > MAX_PAYLOAD {
            return Err(corrupt("impossible length"));
        }
        Ok(HEADER_LEN + len)
    }

    /// Decodes a whole blob (header included) and validates the result.
    pub fn from_blob(blob: &[u8]) -> Result<Self> {
        let header: &[u8; HEADER_LEN] = blob
            .get(..HEADER_LEN)
            .and_then(|h| h.try_into().ok())
            .ok_or_else(|| corrupt("truncated"))?;
        let len = MemoryDesc::blob_len(header)?;
        if blob.len() != len {
            return Err(corrupt("truncated or overlong"));
        }
        let stored = u64::from_le_bytes(blob[16..24].try_into().map_err(|_| corrupt("truncated"))?);
        if fnv1a(&[&blob[8..16], &blob[HEADER_LEN..]]) != stored {
            return Err(corrupt("checksum mismatch"));
        }
        let mut r = Reader(&blob[HEADER_LEN..]);
        let md = decode(&mut r)?;
        if !r.0.is_empty() {
            return Err(corrupt("trailing bytes"));
        }
        md.check().map_err(|e| corrupt(&e.to_string()))?;
        Ok(md)
    }

    /// Checks every invariant the constructors establish, for descriptors
    /// that come from outside (blobs).
    pub(super) fn check(&self) -> Result<()> {
        let bad = |what: &str| Err(Error::invalid(what.to_string()));
        let n = self.ndims;
        if n == 0 {
            return if *self == MemoryDesc::zero() {
                Ok(())
            } else {
                bad("a zero descriptor with contents")
            };
        }
        DataType::try_from(self.data_type)?;
        let dim_ok = |v: i64| v >= 0 || v == RUNTIME_DIM;
        if !self
            .dims()
            .iter()
            .chain(self.padded_offsets())
            .all(|&v| dim_ok(v))
            || !dim_ok(self.offset0)
        {
            return bad("a negative dimension or offset");
        }
        match &self.format {
            Format::Undef => bad("a format kind of undef with dimensions"),
            Format::Any => self.check_size(),
            Format::HostScalar => {
                if n == 1 {
                    Ok(())
                } else {
                    bad("a host scalar with more than one dimension")
                }
            }
            Format::Sparse(s) => {
                let meta_ok = |dt: dnnl_data_type_t| {
                    dt == dnnl_data_type_undef || DataType::try_from(dt).is_ok()
                };
                if !dim_ok(s.nnz) || !meta_ok(s.indices) || !meta_ok(s.pointers) {
                    return bad("bad sparse parameters");
                }
                if let SparseEncoding::Grouped {
                    variable_dim,
                    groups,
                } = s.encoding
                    && (variable_dim >= n || groups < 1 || s.indices != dnnl_s32)
                {
                    return bad("bad grouped parameters");
                }
                self.check_size()
            }
            Format::Blocked(b) => {
                let pd_ok = (0..n).all(|d| {
                    let (dim, pd) = (self.dims[d], self.padded_dims[d]);
                    if dim == RUNTIME_DIM {
                        pd == RUNTIME_DIM
                    } else {
                        pd >= dim
                    }
                });
                let blocks_ok = b.inner().all(|(size, d)| size >= 1 && d < n)
                    && (0..b.inner_nblks).all(|i| b.inner_idxs[i] >= 0);
                if !pd_ok || !blocks_ok || !b.strides[..n].iter().all(|&s| dim_ok(s)) {
                    return bad("an inconsistent blocking");
                }
                self.check_size()
            }
        }
    }
}

/// Reads fixed-size little-endian fields; running out is a truncated blob.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N]> {
        let (head, rest) = self
            .0
            .split_first_chunk::<N>()
            .ok_or_else(|| corrupt("truncated"))?;
        self.0 = rest;
        Ok(*head)
    }
    fn u32(&mut self) -> Result<u32> {
        self.take().map(u32::from_le_bytes)
    }
    fn i64(&mut self) -> Result<i64> {
        self.take().map(i64::from_le_bytes)
    }
    fn dims(&mut self, n: usize) -> Result<Dims> {
        let mut a = [0; MAX_NDIMS];
        for v in &mut a[..n] {
            *v = self.i64()?;
        }
        Ok(a)
    }
}

fn decode(r: &mut Reader) -> Result<MemoryDesc> {
    let n = r.u32()? as usize;
    let data_type = dnnl_data_type_t(r.u32()?);
    let kind = dnnl_format_kind_t(r.u32()?);
    let encoding = dnnl_sparse_encoding_t(r.u32()?);
    if n > MAX_NDIMS {
        return Err(corrupt("too many dimensions"));
    }
    let offset0 = r.i64()?;
    let dims = r.dims(n)?;
    let padded_dims = r.dims(n)?;
    let padded_offsets = r.dims(n)?;
    let format = match kind {
        dnnl_format_kind_undef => Format::Undef,
        dnnl_format_kind_any => Format::Any,
        dnnl_format_kind_host_scalar => Format::HostScalar,
        dnnl_blocked => {
            let strides = r.dims(n)?;
            let inner_nblks = r.u32()? as usize;
            if r.u32()? != 0 || inner_nblks > MAX_NDIMS {
                return Err(corrupt("bad inner blocks"));
            }
            let inner_blks = r.dims(inner_nblks)?;
            let inner_idxs = r.dims(inner_nblks)?;
            Format::Blocked(Blocking {
                strides,
                inner_nblks,
                inner_blks,
                inner_idxs,
            })
        }
        dnnl_format_kind_sparse => {
            let nnz = r.i64()?;
            let indices = dnnl_data_type_t(r.u32()?);
            let pointers = dnnl_data_type_t(r.u32()?);
            let encoding = match encoding {
                dnnl_csr => SparseEncoding::Csr,
                dnnl_coo => SparseEncoding::Coo,
                dnnl_packed => SparseEncoding::Packed,
                GROUPED_ENCODING => SparseEncoding::Grouped {
                    variable_dim: r.u32()? as usize,
                    groups: r.i64()?,
                },
                _ => return Err(corrupt("unknown sparse encoding")),
            };
            Format::Sparse(Sparse {
                encoding,
                nnz,
                indices,
                pointers,
            })
        }
        _ => return Err(corrupt("unknown format kind")),
    };
    if encoding.0 != 0 && !matches!(format, Format::Sparse(_)) {
        return Err(corrupt("a sparse encoding on a dense descriptor"));
    }
    Ok(MemoryDesc {
        ndims: n,
        dims,
        data_type,
        padded_dims,
        padded_offsets,
        offset0,
        format,
    })
}
