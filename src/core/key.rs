//! Cache keys as bytes, written field by field with a fixed encoding.
//!
//! Layer: core. Depends on the memory descriptor and attribute types only;
//! no device, no driver.
//!
//! A primitive's cache key says what it computes: two ops with equal keys
//! share one implementation in the primitive cache, and a hash of the key is
//! part of the id of every primitive cache blob a user saves to disk. The
//! key must therefore stay the same across builds, Rust versions and
//! harmless refactors. `Debug` output promises none of that (a renamed
//! field, a new field or a derive changed by hand would silently change the
//! id and make every saved blob be refused), so keys are written here
//! instead, with an encoding that changes only when this file does. When it
//! does change, the cache blob format version (`core::cache_blob`) goes up
//! with it, so that old blobs are refused plainly.
//!
//! The encoding, all integers little endian:
//! - `u8`, `bool`: one byte (`bool` as 0 or 1);
//! - `u32`, `i32`: four bytes; `u64`, `i64`: eight bytes;
//! - `usize`: eight bytes, as `u64`, whatever the platform's width;
//! - `f32`: its bit pattern as `u32` (so `-0.0` and `0.0` differ, and a NaN
//!   is the NaN it is);
//! - `str`, byte strings and tags: their length as `usize`, then the bytes;
//! - slices (of `i64` or anything else with a key): their length as
//!   `usize`, then each element;
//! - `Option`: a presence byte (0 for `None`, 1 for `Some`), then the value
//!   when present;
//! - C enums: their C value, as the integer type of the C enum;
//! - a memory descriptor and a post-op: see their [`StableKey`] impls.
//!
//! Every kind starts its key with a tag naming it (`"eltwise"`), and
//! composite values with a tag naming the type, so that keys of different
//! shapes do not run into each other.

use std::sync::Arc;

use crate::abi::*;
use crate::core::attr::PostOp;
use crate::core::memory_desc::{Format, MemoryDesc};
use crate::core::primitive::OpDesc;

/// Accumulates the bytes of a key; see the module documentation for the
/// encoding of each method.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyWriter {
    bytes: Vec<u8>,
}

impl KeyWriter {
    /// An empty key.
    pub fn new() -> KeyWriter {
        KeyWriter::default()
    }

    /// A fixed name (the kind of op, the type of a composite value):
    /// length-prefixed like [`KeyWriter::str`].
    pub fn tag(&mut self, tag: &'static str) -> &mut Self {
        self.str(tag)
    }

    /// One byte.
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.bytes.push(v);
        self
    }

    /// Four bytes, little endian.
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Eight bytes, little endian.
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Four bytes, little endian (two's complement).
    pub fn i32(&mut self, v: i32) -> &mut Self {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Eight bytes, little endian (two's complement).
    pub fn i64(&mut self, v: i64) -> &mut Self {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Eight bytes, little endian, on every platform.
    pub fn usize(&mut self, v: usize) -> &mut Self {
        self.u64(v as u64)
    }

    /// The bit pattern, as [`KeyWriter::u32`].
    pub fn f32(&mut self, v: f32) -> &mut Self {
        self.u32(v.to_bits())
    }

    /// One byte: 1 for true, 0 for false.
    pub fn bool(&mut self, v: bool) -> &mut Self {
        self.u8(u8::from(v))
    }

    /// The length in bytes (as [`KeyWriter::usize`]), then the UTF-8 bytes.
    pub fn str(&mut self, v: &str) -> &mut Self {
        self.bytes(v.as_bytes())
    }

    /// The length (as [`KeyWriter::usize`]), then the bytes.
    pub fn bytes(&mut self, v: &[u8]) -> &mut Self {
        self.usize(v.len());
        self.bytes.extend_from_slice(v);
        self
    }

    /// The length (as [`KeyWriter::usize`]), then each value as
    /// [`KeyWriter::i64`].
    pub fn i64s(&mut self, v: &[i64]) -> &mut Self {
        self.usize(v.len());
        for &x in v {
            self.i64(x);
        }
        self
    }

    /// A presence byte (0 or 1), then the value when there is one.
    pub fn opt<T: StableKey + ?Sized>(&mut self, v: Option<&T>) -> &mut Self {
        match v {
            None => self.u8(0),
            Some(v) => {
                self.u8(1);
                v.write_key(self);
                self
            }
        }
    }

    /// Any value with a key.
    pub fn put<T: StableKey + ?Sized>(&mut self, v: &T) -> &mut Self {
        v.write_key(self);
        self
    }

    /// The key's bytes.
    pub fn finish(self) -> Vec<u8> {
        self.bytes
    }
}

/// The key `op` writes with [`OpDesc::cache_key`]; `None` for an op that
/// is not cacheable.
pub fn of_op(op: &dyn OpDesc) -> Option<Vec<u8>> {
    let mut w = KeyWriter::new();
    op.cache_key(&mut w).then(|| w.finish())
}

/// A value that can be part of a cache key. An implementation writes every
/// field that makes two values compute differently, each with a
/// [`KeyWriter`] method, never through `Debug`.
pub trait StableKey {
    /// Appends this value's encoding to `w`.
    fn write_key(&self, w: &mut KeyWriter);
}

macro_rules! stable_key_by_method {
    ($($t:ty => $method:ident),* $(,)?) => {
        $(impl StableKey for $t {
            fn write_key(&self, w: &mut KeyWriter) {
                w.$method(*self);
            }
        })*
    };
}

stable_key_by_method!(
    u8 => u8,
    u32 => u32,
    u64 => u64,
    i32 => i32,
    i64 => i64,
    usize => usize,
    f32 => f32,
    bool => bool,
);

impl StableKey for str {
    fn write_key(&self, w: &mut KeyWriter) {
        w.str(self);
    }
}

/// C enums: their C value, as the C enum's integer type.
macro_rules! stable_key_c_enum {
    ($($t:ty),* $(,)?) => {
        $(impl StableKey for $t {
            fn write_key(&self, w: &mut KeyWriter) {
                self.0.write_key(w);
            }
        })*
    };
}

stable_key_c_enum!(
    dnnl_data_type_t,
    dnnl_alg_kind_t,
    dnnl_prop_kind_t,
    dnnl_primitive_kind_t,
    dnnl_format_kind_t,
    dnnl_sparse_encoding_t,
);

impl<T: StableKey + ?Sized> StableKey for &T {
    fn write_key(&self, w: &mut KeyWriter) {
        (**self).write_key(w);
    }
}

/// The value it points to: sharing does not change what is computed.
impl<T: StableKey + ?Sized> StableKey for Arc<T> {
    fn write_key(&self, w: &mut KeyWriter) {
        (**self).write_key(w);
    }
}

impl<T: StableKey + ?Sized> StableKey for Box<T> {
    fn write_key(&self, w: &mut KeyWriter) {
        (**self).write_key(w);
    }
}

/// A presence byte, then the value (as [`KeyWriter::opt`]).
impl<T: StableKey> StableKey for Option<T> {
    fn write_key(&self, w: &mut KeyWriter) {
        w.opt(self.as_ref());
    }
}

/// The length, then each element.
impl<T: StableKey> StableKey for [T] {
    fn write_key(&self, w: &mut KeyWriter) {
        w.usize(self.len());
        for x in self {
            x.write_key(w);
        }
    }
}

/// As a slice: the length, then each element.
impl<T: StableKey, const N: usize> StableKey for [T; N] {
    fn write_key(&self, w: &mut KeyWriter) {
        self[..].write_key(w);
    }
}

/// As a slice: the length, then each element.
impl<T: StableKey> StableKey for Vec<T> {
    fn write_key(&self, w: &mut KeyWriter) {
        self[..].write_key(w);
    }
}

/// The first value, then the second.
impl<A: StableKey, B: StableKey> StableKey for (A, B) {
    fn write_key(&self, w: &mut KeyWriter) {
        self.0.write_key(w);
        self.1.write_key(w);
    }
}

/// Tag `"md"`; ndims; dims, data type, padded dims, padded offsets (each
/// `ndims` long), offset0; the format kind's C value, then its payload:
/// blocked: outer strides (`ndims`), inner blocks and their dimensions
/// (`inner_nblks` each); sparse: the encoding's C value, nnz, the index and
/// pointer data types; nothing for the other kinds.
impl StableKey for MemoryDesc {
    fn write_key(&self, w: &mut KeyWriter) {
        let n = self.ndims();
        w.tag("md")
            .usize(n)
            .i64s(self.dims())
            .put(&self.data_type())
            .i64s(self.padded_dims())
            .i64s(self.padded_offsets())
            .i64(self.offset0())
            .put(&self.format_kind());
        match self.format() {
            Format::Blocked(b) => {
                let nblks = b.inner_nblks.min(b.inner_blks.len());
                w.i64s(&b.strides[..n])
                    .i64s(&b.inner_blks[..nblks])
                    .i64s(&b.inner_idxs[..nblks]);
            }
            Format::Sparse(s) => {
                w.put(&s.encoding.to_c())
                    .i64(s.nnz)
                    .put(&s.indices)
                    .put(&s.pointers);
            }
            Format::Undef | Format::Any | Format::HostScalar => {}
        }
    }
}

/// Tag `"post_op"`, the entry's kind (`dnnl_post_ops_get_kind`'s C value),
/// then its fields in declaration order.
impl StableKey for PostOp {
    fn write_key(&self, w: &mut KeyWriter) {
        w.tag("post_op").put(&self.kind());
        match self {
            PostOp::Sum {
                scale,
                zero_point,
                data_type,
            } => {
                w.f32(*scale).i32(*zero_point).put(data_type);
            }
            PostOp::Eltwise { alg, alpha, beta } => {
                w.put(alg).f32(*alpha).f32(*beta);
            }
            PostOp::Binary { alg, src1, src2 } => {
                w.put(alg).put(src1).put(src2);
            }
            PostOp::Prelu { mask } => {
                w.i32(*mask);
            }
            PostOp::Depthwise {
                weights_dt,
                bias_dt,
                dst_dt,
                kernel,
                stride,
                padding_l,
            } => {
                w.put(weights_dt)
                    .put(bias_dt)
                    .put(dst_dt)
                    .i64(*kernel)
                    .i64(*stride)
                    .i64(*padding_l);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md_ab(dims: &[i64], dt: dnnl_data_type_t) -> MemoryDesc {
        MemoryDesc::with_strides(dims, dt, None).unwrap()
    }

    fn key_of<T: StableKey + ?Sized>(v: &T) -> Vec<u8> {
        let mut w = KeyWriter::new();
        w.put(v);
        w.finish()
    }

    /// The exact bytes of one key. If this fails, the encoding changed:
    /// bump the cache blob format version and update the bytes here.
    #[test]
    fn encoding_is_pinned() {
        let mut w = KeyWriter::new();
        w.tag("t").put(&md_ab(&[2, 3], dnnl_f32)).f32(1.5);
        let mut want: Vec<u8> = Vec::new();
        let le64 = |v: i64| v.to_le_bytes();
        // tag "t"
        want.extend(le64(1));
        want.extend(b"t");
        // tag "md"
        want.extend(le64(2));
        want.extend(b"md");
        // ndims
        want.extend(le64(2));
        // dims
        want.extend(le64(2));
        want.extend(le64(2));
        want.extend(le64(3));
        // data type: dnnl_f32 = 3
        want.extend(3u32.to_le_bytes());
        // padded dims
        want.extend(le64(2));
        want.extend(le64(2));
        want.extend(le64(3));
        // padded offsets
        want.extend(le64(2));
        want.extend(le64(0));
        want.extend(le64(0));
        // offset0
        want.extend(le64(0));
        // format kind: dnnl_blocked = 2
        want.extend(2u32.to_le_bytes());
        // strides
        want.extend(le64(2));
        want.extend(le64(3));
        want.extend(le64(1));
        // no inner blocks
        want.extend(le64(0));
        want.extend(le64(0));
        // 1.5f32
        want.extend(0x3fc0_0000u32.to_le_bytes());
        assert_eq!(w.finish(), want);
    }

    #[test]
    fn scalars_options_and_slices() {
        let mut w = KeyWriter::new();
        w.u8(7)
            .bool(true)
            .i32(-1)
            .u64(0x0102)
            .opt::<i32>(None)
            .opt(Some(&5u32))
            .i64s(&[1]);
        let want: Vec<u8> = [
            &[7u8, 1][..],
            &(-1i32).to_le_bytes(),
            &0x0102u64.to_le_bytes(),
            &[0],
            &[1],
            &5u32.to_le_bytes(),
            &1u64.to_le_bytes(),
            &1i64.to_le_bytes(),
        ]
        .concat();
        assert_eq!(w.finish(), want);
        // A slice of i64 has the same key whichever way it is written.
        assert_eq!(key_of(&vec![4i64, 5]), {
            let mut w = KeyWriter::new();
            w.i64s(&[4, 5]);
            w.finish()
        });
    }

    #[test]
    fn descriptors_differing_in_one_field_differ() {
        let base = md_ab(&[2, 3], dnnl_f32);
        let others = [
            md_ab(&[2, 4], dnnl_f32),
            md_ab(&[2, 3], dnnl_f16),
            md_ab(&[2, 3, 1], dnnl_f32),
            MemoryDesc::with_strides(&[2, 3], dnnl_f32, Some(&[1, 2])).unwrap(),
            MemoryDesc::with_strides(&[2, 3], dnnl_f32, Some(&[4, 1])).unwrap(),
        ];
        for other in &others {
            assert_ne!(key_of(&base), key_of(other), "{other:?}");
        }
        assert_eq!(key_of(&base), key_of(&md_ab(&[2, 3], dnnl_f32)));
        assert_ne!(key_of(&base), key_of(&MemoryDesc::zero()));
    }

    #[test]
    fn post_ops_differ_by_kind_and_field() {
        let sum = |scale| PostOp::Sum {
            scale,
            zero_point: 0,
            data_type: dnnl_data_type_undef,
        };
        assert_eq!(key_of(&sum(1.0)), key_of(&sum(1.0)));
        assert_ne!(key_of(&sum(1.0)), key_of(&sum(2.0)));
        assert_ne!(key_of(&sum(0.0)), key_of(&sum(-0.0)));
        assert_ne!(
            key_of(&sum(0.0)),
            key_of(&PostOp::Prelu { mask: 0 }),
            "kinds differ"
        );
    }
}
