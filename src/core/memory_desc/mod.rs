//! Memory descriptors: the shape, element type and physical layout of a
//! tensor, the object behind `dnnl_memory_desc_t`.
//!
//! Layer: core. Plain values and pure functions over them: no device, no
//! driver, no C pointers. The only registry use is [`publish`] and
//! [`resolve_md`], the two doors other `capi` files use.
//!
//! The model is upstream's: `dims` (logical, in `abc...` order), `padded_dims`
//! (dims rounded up to the blocks), `padded_offsets`, `offset0` (elements from
//! the buffer start, non-zero for sub-memories) and a format: `any`, blocked
//! (outer strides plus inner blocks), sparse (CSR, COO, packed, and the
//! experimental grouped encoding), host scalar,
//! or undefined for the zero descriptor. Arrays are fixed `[i64; 12]` because
//! queries hand C a pointer to them (`const dnnl_dims_t **`): the object lives
//! in an `Arc`, so those pointers stay valid while the handle does. Entries
//! past `ndims` (and past `inner_nblks`) are always zero, so that equality
//! compares arrays whole.
//!
//! - `format_tag`: format tag -> blocking (decoded from the tag's name);
//! - `create`: the constructors and their argument rules;
//! - `transform`: sub-memory, reshape, permute;
//! - `query`: what `dnnl_memory_desc_query{,_v2}` answers;
//! - `blob`: our versioned, checksummed serialisation.

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]
// Dimension loops index several parallel arrays (dims, padded dims, strides,
// blocks) by the same `d`; an iterator over one of them would hide that.
#![allow(clippy::needless_range_loop)]

mod blob;
mod create;
mod format_tag;
mod offset;
mod query;
mod transform;

#[cfg(test)]
mod tests;

use crate::abi::*;
use crate::core::types::DataType;

pub use blob::HEADER_LEN as BLOB_HEADER_LEN;
pub use query::{QueryValue, QueryVersion};

/// The most dimensions a descriptor has (`DNNL_MAX_NDIMS`).
pub const MAX_NDIMS: usize = DNNL_MAX_NDIMS as usize;
/// `DNNL_RUNTIME_DIM_VAL`: a dimension or stride known only at execution.
pub const RUNTIME_DIM: i64 = i64::MIN;
/// `DNNL_RUNTIME_SIZE_VAL`: the size of a descriptor with run-time values.
pub const RUNTIME_SIZE: usize = 1 << 63;

/// A dimension array as C sees it (`dnnl_dims_t`).
pub type Dims = [i64; MAX_NDIMS];

/// The sparse encodings (`dnnl_sparse_encoding_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SparseEncoding {
    /// Compressed sparse row: values, column indices, row pointers.
    Csr,
    /// Coordinates: values, then one index buffer per dimension.
    Coo,
    /// Opaque; only a primitive can say what it holds.
    Packed,
    /// Experimental (`DNNL_EXPERIMENTAL_GROUPED_MEMORY`): `groups` sub-tensors
    /// concatenated along dimension `variable_dim`, whose size in the descriptor
    /// is their total. Buffer 0 holds the values (dense, row-major), buffer 1
    /// the `groups` cumulative ends of the groups along that dimension.
    Grouped { variable_dim: usize, groups: i64 },
}

/// `dnnl_grouped`'s C value (the enumerator exists only with the
/// `experimental_grouped_memory` feature; the descriptor code does not depend
/// on it).
pub const GROUPED_ENCODING: dnnl_sparse_encoding_t = dnnl_sparse_encoding_t(4);
#[cfg(feature = "experimental_grouped_memory")]
static_assertions::const_assert_eq!(GROUPED_ENCODING.0, dnnl_grouped.0);

impl SparseEncoding {
    /// The C value.
    pub fn to_c(self) -> dnnl_sparse_encoding_t {
        match self {
            SparseEncoding::Csr => dnnl_csr,
            SparseEncoding::Coo => dnnl_coo,
            SparseEncoding::Packed => dnnl_packed,
            SparseEncoding::Grouped { .. } => GROUPED_ENCODING,
        }
    }
}

/// The layout of a blocked descriptor (upstream's `dnnl_blocking_desc_t`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocking {
    /// Stride between outer blocks, per logical dimension (in elements).
    pub strides: Dims,
    /// How many inner blocks there are (entries used in the two arrays below).
    pub inner_nblks: usize,
    /// Inner block sizes, outermost first.
    pub inner_blks: Dims,
    /// The logical dimension each inner block splits.
    pub inner_idxs: Dims,
}

impl Blocking {
    /// Plain strides, no inner blocks.
    pub fn plain(strides: Dims) -> Self {
        Blocking {
            strides,
            inner_nblks: 0,
            inner_blks: [0; MAX_NDIMS],
            inner_idxs: [0; MAX_NDIMS],
        }
    }

    /// The inner blocks as (size, dimension) pairs.
    pub fn inner(&self) -> impl Iterator<Item = (i64, usize)> + '_ {
        (0..self.inner_nblks).map(|i| (self.inner_blks[i], self.inner_idxs[i] as usize))
    }
}

/// What a sparse descriptor stores besides the values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sparse {
    pub encoding: SparseEncoding,
    /// Number of non-zero entries (or [`RUNTIME_DIM`]).
    pub nnz: i64,
    /// Data type of the index buffers (`undef` for packed).
    pub indices: dnnl_data_type_t,
    /// Data type of the CSR row pointers (`undef` otherwise).
    pub pointers: dnnl_data_type_t,
}

/// A descriptor's format (upstream's `format_kind` with its payload).
// A descriptor is a fixed-size value like upstream's struct; boxing the
// blocking would cost an allocation per descriptor for nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// The zero descriptor.
    Undef,
    /// Let a primitive choose (`dnnl_format_tag_any`).
    Any,
    Blocked(Blocking),
    Sparse(Sparse),
    /// A single value that stays on the host.
    HostScalar,
}

/// A memory descriptor. See the module documentation for the model.
#[derive(Clone, Debug)]
pub struct MemoryDesc {
    ndims: usize,
    dims: Dims,
    data_type: dnnl_data_type_t,
    padded_dims: Dims,
    padded_offsets: Dims,
    offset0: i64,
    format: Format,
}

/// Upstream's equality: every field, except that the stride of a dimension
/// whose padded size is 1 on both sides does not matter (it is never applied).
impl PartialEq for MemoryDesc {
    fn eq(&self, other: &Self) -> bool {
        let same_shape = self.ndims == other.ndims
            && self.dims == other.dims
            && self.data_type == other.data_type
            && self.padded_dims == other.padded_dims
            && self.padded_offsets == other.padded_offsets
            && self.offset0 == other.offset0;
        same_shape
            && match (&self.format, &other.format) {
                (Format::Blocked(a), Format::Blocked(b)) => {
                    a.inner_nblks == b.inner_nblks
                        && a.inner_blks == b.inner_blks
                        && a.inner_idxs == b.inner_idxs
                        && (0..self.ndims)
                            .all(|d| self.padded_dims[d] == 1 || a.strides[d] == b.strides[d])
                }
                (a, b) => a == b,
            }
    }
}

impl Eq for MemoryDesc {}

impl Default for MemoryDesc {
    fn default() -> Self {
        MemoryDesc::zero()
    }
}

/// Bits per element: the 4-bit types pack two elements per byte in dense
/// buffers; everything else is its byte size.
fn element_bits(data_type: DataType) -> usize {
    match data_type {
        DataType::S4 | DataType::U4 | DataType::F4E2m1 | DataType::F4E3m0 => 4,
        other => other.size() * 8,
    }
}

/// Bytes of one element of `dt` (0 for values that are not data types).
fn dt_size(dt: dnnl_data_type_t) -> usize {
    DataType::try_from(dt).map_or(0, DataType::size)
}

/// `a * b` for sizes; `None` when the product does not fit.
fn mul(a: usize, b: usize) -> Option<usize> {
    a.checked_mul(b)
}

impl MemoryDesc {
    /// The zero descriptor: no dimensions, undefined type and format.
    pub fn zero() -> Self {
        MemoryDesc {
            ndims: 0,
            dims: [0; MAX_NDIMS],
            data_type: dnnl_data_type_undef,
            padded_dims: [0; MAX_NDIMS],
            padded_offsets: [0; MAX_NDIMS],
            offset0: 0,
            format: Format::Undef,
        }
    }

    /// Number of dimensions (0 for the zero descriptor).
    pub fn ndims(&self) -> usize {
        self.ndims
    }

    /// The dimensions, in logical (`abc...`) order.
    pub fn dims(&self) -> &[i64] {
        &self.dims[..self.ndims]
    }

    /// The dimensions rounded up to the blocking.
    pub fn padded_dims(&self) -> &[i64] {
        &self.padded_dims[..self.ndims]
    }

    /// Offsets from the padding origin to the data, per dimension.
    pub fn padded_offsets(&self) -> &[i64] {
        &self.padded_offsets[..self.ndims]
    }

    /// The element data type (`dnnl_data_type_undef` for the zero descriptor).
    pub fn data_type(&self) -> dnnl_data_type_t {
        self.data_type
    }

    /// Elements from the start of the buffer to the first element.
    pub fn offset0(&self) -> i64 {
        self.offset0
    }

    /// The format with its layout data.
    pub fn format(&self) -> &Format {
        &self.format
    }

    /// The blocking, for blocked descriptors.
    pub fn blocking(&self) -> Option<&Blocking> {
        match &self.format {
            Format::Blocked(b) => Some(b),
            _ => None,
        }
    }

    /// The sparse description, for sparse descriptors.
    pub fn sparse(&self) -> Option<&Sparse> {
        match &self.format {
            Format::Sparse(s) => Some(s),
            _ => None,
        }
    }

    /// The C format kind.
    pub fn format_kind(&self) -> dnnl_format_kind_t {
        match self.format {
            Format::Undef => dnnl_format_kind_undef,
            Format::Any => dnnl_format_kind_any,
            Format::Blocked(_) => dnnl_blocked,
            Format::Sparse(_) => dnnl_format_kind_sparse,
            Format::HostScalar => dnnl_format_kind_host_scalar,
        }
    }

    /// Whether this is the zero descriptor (no dimensions).
    pub fn is_zero(&self) -> bool {
        self.ndims == 0
    }

    /// Whether the format is `any` (a primitive chooses the layout).
    pub fn is_any_format(&self) -> bool {
        matches!(self.format, Format::Any)
    }

    /// Whether this describes a host-side scalar.
    pub fn is_host_scalar(&self) -> bool {
        matches!(self.format, Format::HostScalar)
    }

    /// Whether some dimension is zero (the tensor holds no element).
    pub fn has_zero_dim(&self) -> bool {
        self.dims().contains(&0)
    }

    /// Whether a dimension, stride, offset or `nnz` is only known at execution.
    pub fn has_runtime_dims_or_strides(&self) -> bool {
        let runtime = |v: &[i64]| v.contains(&RUNTIME_DIM);
        runtime(self.dims())
            || self.offset0 == RUNTIME_DIM
            || match &self.format {
                Format::Blocked(b) => runtime(&b.strides[..self.ndims]),
                Format::Sparse(s) => s.nnz == RUNTIME_DIM,
                _ => false,
            }
    }

    /// Per dimension, the product of its inner blocks (1 if not blocked).
    pub fn blocks(&self) -> Dims {
        let mut blocks: Dims = [1; MAX_NDIMS];
        if let Some(b) = self.blocking() {
            for (size, dim) in b.inner() {
                blocks[dim] = blocks[dim].saturating_mul(size);
            }
        }
        blocks
    }

    /// Number of buffers a memory object of this descriptor has.
    pub fn num_handles(&self) -> usize {
        match &self.format {
            Format::Sparse(s) => match s.encoding {
                SparseEncoding::Csr | SparseEncoding::Coo => self.ndims + 1,
                SparseEncoding::Packed => 3,
                SparseEncoding::Grouped { .. } => 2,
            },
            _ => 1,
        }
    }

    /// Bytes of buffer `index`, padding included and `offset0` not
    /// (`dnnl_memory_desc_get_size_v2`). 0 for `any`, the zero descriptor, a
    /// tensor with a zero dimension and an index past the last buffer (but
    /// a host scalar's size whatever the index, as upstream);
    /// [`RUNTIME_SIZE`] while something is only known at execution.
    ///
    /// Every constructor refuses a descriptor whose sizes do not fit
    /// ([`MemoryDesc::check_size`]), so the arithmetic never overflows here;
    /// should it, the answer is `usize::MAX`, which no allocation satisfies,
    /// never a wrapped value.
    pub fn size(&self, index: usize) -> usize {
        self.checked_size(index).unwrap_or(usize::MAX)
    }

    /// [`MemoryDesc::size`] with checked arithmetic: `None` when the size
    /// does not fit in `usize`.
    fn checked_size(&self, index: usize) -> Option<usize> {
        // Upstream answers the value's size for any index of a host scalar.
        if self.is_host_scalar() {
            return Some(dt_size(self.data_type));
        }
        if index >= self.num_handles() {
            return Some(0);
        }
        // The offsets of a grouped descriptor exist even when the values are empty
        // or have a run-time size.
        if let Format::Sparse(Sparse {
            encoding: SparseEncoding::Grouped { groups, .. },
            indices,
            ..
        }) = &self.format
            && index == 1
        {
            return mul(usize::try_from(*groups).ok()?, dt_size(*indices));
        }
        match &self.format {
            Format::Undef | Format::Any | Format::HostScalar => Some(0),
            _ if self.is_zero() || self.has_zero_dim() => Some(0),
            _ if self.has_runtime_dims_or_strides() => Some(RUNTIME_SIZE),
            Format::Sparse(s) => self.sparse_size(s, index),
            Format::Blocked(b) => self.dense_size(b),
        }
    }

    fn sparse_size(&self, s: &Sparse, index: usize) -> Option<usize> {
        let nnz = usize::try_from(s.nnz).ok()?;
        match (s.encoding, index) {
            (SparseEncoding::Packed, _) => Some(0),
            (_, 0) => mul(nnz, dt_size(self.data_type)),
            // Buffer 1 is answered by `checked_size`; there is no other.
            (SparseEncoding::Grouped { .. }, _) => Some(0),
            (SparseEncoding::Csr, 1) | (SparseEncoding::Coo, _) => mul(nnz, dt_size(s.indices)),
            (SparseEncoding::Csr, _) => {
                let rows = usize::try_from(self.dims[0]).ok()?.checked_add(1)?;
                mul(rows, dt_size(s.pointers))
            }
        }
    }

    /// Upstream's rule: the largest extent over the dimensions (a dimension
    /// of one outer block counts 1, whatever its stride), in elements (which
    /// must fit in a `dnnl_dim_t`), then in bytes (4-bit types round up to
    /// whole bytes).
    fn dense_size(&self, b: &Blocking) -> Option<usize> {
        let blocks = self.checked_blocks()?;
        let mut elements = 0i64;
        for d in 0..self.ndims {
            let outer = self.padded_dims[d] / blocks[d];
            let stride = if outer == 1 { 1 } else { b.strides[d] };
            if outer < 0 || stride < 0 {
                return None;
            }
            elements = elements.max(outer.checked_mul(stride)?);
        }
        if elements == 1 && b.inner_nblks > 0 {
            elements = b
                .inner()
                .try_fold(1i64, |n, (size, _)| n.checked_mul(size))?;
        }
        let elements = usize::try_from(elements).ok()?;
        let Ok(dt) = DataType::try_from(self.data_type) else {
            return Some(0);
        };
        // Bytes, not bits: `elements * 8` may not fit where the size does.
        match element_bits(dt) {
            4 => Some(elements.div_ceil(2)),
            bits => mul(elements, bits / 8),
        }
    }

    /// Per dimension, the product of its inner blocks; `None` when one does
    /// not fit or a block is not positive.
    fn checked_blocks(&self) -> Option<Dims> {
        let mut blocks: Dims = [1; MAX_NDIMS];
        if let Some(b) = self.blocking() {
            for (size, dim) in b.inner() {
                if size < 1 || dim >= MAX_NDIMS {
                    return None;
                }
                blocks[dim] = blocks[dim].checked_mul(size)?;
            }
        }
        Some(blocks)
    }

    /// Upstream's limits, checked by every constructor: the number of
    /// elements of the padded tensor fits in a `dnnl_dim_t` (`any`
    /// included), and the size of each buffer of a blocked or sparse
    /// descriptor in a `size_t`. A descriptor beyond them is an invalid
    /// argument (sizes that fit but cannot be allocated are for memory
    /// creation to refuse, with `dnnl_out_of_memory`). Run-time values are
    /// not known yet and not checked. Deliberate difference: upstream lets
    /// a sparse buffer's size wrap (`nnz` of 2^62 `f32` values); we refuse it.
    pub(super) fn check_size(&self) -> crate::core::error::Result<()> {
        let counted = matches!(
            self.format,
            Format::Blocked(_) | Format::Sparse(_) | Format::Any
        );
        if !counted || self.is_zero() {
            return Ok(());
        }
        let too_large = |what: &str| {
            Err(crate::core::error::Error::invalid(format!(
                "a memory descriptor of dims {:?} and data type {}: {what}",
                self.dims(),
                self.data_type.0
            )))
        };
        let elements = self
            .padded_dims()
            .iter()
            .filter(|&&d| d != RUNTIME_DIM)
            .try_fold(1i64, |n, &d| n.checked_mul(d));
        if elements.is_none() {
            return too_large("the number of elements overflows");
        }
        if self.is_any_format() || self.has_runtime_dims_or_strides() {
            return Ok(());
        }
        for index in 0..self.num_handles() {
            if self.checked_size(index).is_none() {
                return too_large(&format!("the size of buffer {index} in bytes overflows"));
            }
        }
        Ok(())
    }

    /// Sets entries past `ndims` (and past the inner blocks) to zero, the
    /// invariant equality relies on.
    fn canonical(mut self) -> Self {
        let n = self.ndims;
        for a in [
            &mut self.dims,
            &mut self.padded_dims,
            &mut self.padded_offsets,
        ] {
            a[n..].fill(0);
        }
        if let Format::Blocked(b) = &mut self.format {
            b.strides[n..].fill(0);
            b.inner_blks[b.inner_nblks..].fill(0);
            b.inner_idxs[b.inner_nblks..].fill(0);
        }
        self
    }
}
