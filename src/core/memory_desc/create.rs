//! The constructors, with upstream's argument rules.
//!
//! Common rules: an empty `dims` gives the zero descriptor; more than 12
//! dimensions, a value that is not a data type (`undef` included), or a
//! negative dimension other than `DNNL_RUNTIME_DIM_VAL` is an invalid
//! argument. Zero dimensions are allowed (an empty tensor).

use crate::abi::*;
use crate::core::error::{Error, Result};
use crate::core::types::DataType;

use super::format_tag;
use super::{
    Blocking, Dims, Format, MAX_NDIMS, MemoryDesc, RUNTIME_DIM, Sparse, SparseEncoding,
    element_bits,
};

fn data_type(dt: dnnl_data_type_t) -> Result<DataType> {
    DataType::try_from(dt)
}

impl MemoryDesc {
    /// Checks the shape and type common to every constructor and returns a
    /// descriptor with them (padded dims = dims), its format still undefined.
    pub(super) fn shaped(dims: &[i64], dt: dnnl_data_type_t, any: bool) -> Result<Self> {
        if dims.len() > MAX_NDIMS {
            return Err(Error::invalid(format!(
                "{} dimensions: at most {MAX_NDIMS} are supported",
                dims.len()
            )));
        }
        data_type(dt)?;
        for (i, &d) in dims.iter().enumerate() {
            if d < 0 && d != RUNTIME_DIM {
                return Err(Error::invalid(format!("dims[{i}] is negative ({d})")));
            }
            if d == RUNTIME_DIM && any {
                return Err(Error::invalid(
                    "format `any` cannot have run-time dimensions",
                ));
            }
        }
        let mut md = MemoryDesc::zero();
        md.ndims = dims.len();
        md.dims[..dims.len()].copy_from_slice(dims);
        md.padded_dims = md.dims;
        md.data_type = dt;
        Ok(md)
    }

    /// `dnnl_memory_desc_create_with_tag`: `dims` laid out as `tag` says.
    /// `undef` (or no dims) gives the zero descriptor, `any` a descriptor of
    /// format kind `any`; a tag of another number of dimensions is invalid.
    pub fn with_tag(dims: &[i64], dt: dnnl_data_type_t, tag: dnnl_format_tag_t) -> Result<Self> {
        if dims.is_empty() || tag == dnnl_format_tag_undef {
            return Ok(MemoryDesc::zero());
        }
        let any = tag == dnnl_format_tag_any;
        let mut md = MemoryDesc::shaped(dims, dt, any)?;
        if any {
            md.format = Format::Any;
            md.check_size()?;
            return Ok(md);
        }
        let layout = format_tag::decode(tag)?;
        if layout.ndims() != md.ndims {
            return Err(Error::invalid(format!(
                "format tag {} is for {} dimensions, not {}",
                tag.0,
                layout.ndims(),
                md.ndims
            )));
        }
        format_tag::fill_blocked(&mut md, &layout)?;
        check_sub_byte(&md)?;
        md.check_size()?;
        Ok(md)
    }

    /// `dnnl_memory_desc_create_with_strides`: a plain layout with the given
    /// strides (in elements), or dense row-major ones when `strides` is
    /// `None`. Strides may be 0 (broadcast) or run-time, never negative, and
    /// must not make two elements overlap.
    pub fn with_strides(
        dims: &[i64],
        dt: dnnl_data_type_t,
        strides: Option<&[i64]>,
    ) -> Result<Self> {
        if dims.is_empty() {
            return Ok(MemoryDesc::zero());
        }
        let mut md = MemoryDesc::shaped(dims, dt, false)?;
        let strides = match strides {
            Some(given) => {
                let mut s: Dims = [0; MAX_NDIMS];
                s[..md.ndims].copy_from_slice(&given[..md.ndims]);
                s
            }
            None => dense_strides(&md)?,
        };
        check_strides(&md, &strides)?;
        md.format = Format::Blocked(Blocking::plain(strides));
        check_sub_byte(&md)?;
        md.check_size()?;
        Ok(md)
    }

    /// `dnnl_memory_desc_create_host_scalar`: one value of `dt` on the host
    /// (upstream's shape: one dimension of 1, padded dimension 0).
    pub fn host_scalar(dt: dnnl_data_type_t) -> Result<Self> {
        data_type(dt)?;
        let mut md = MemoryDesc::zero();
        md.ndims = 1;
        md.dims[0] = 1;
        md.data_type = dt;
        md.format = Format::HostScalar;
        Ok(md)
    }

    /// The sparse constructors. CSR and COO take 1 or 2 dimensions (more is
    /// unimplemented, as upstream); packed takes any. Deliberate difference:
    /// upstream accepts any `nnz` and any value as an index type; we refuse
    /// a negative `nnz` (other than run-time) and index types that are not
    /// data types, so that sizes stay meaningful.
    pub fn with_sparse_encoding(
        encoding: SparseEncoding,
        dims: &[i64],
        dt: dnnl_data_type_t,
        nnz: i64,
        indices: dnnl_data_type_t,
        pointers: dnnl_data_type_t,
    ) -> Result<Self> {
        if dims.is_empty() {
            return Ok(MemoryDesc::zero());
        }
        if encoding != SparseEncoding::Packed && dims.len() > 2 {
            return Err(Error::unimplemented(format!(
                "{encoding:?} encoding supports 1 or 2 dimensions, not {}",
                dims.len()
            )));
        }
        let mut md = MemoryDesc::shaped(dims, dt, false)?;
        if nnz < 0 && nnz != RUNTIME_DIM {
            return Err(Error::invalid(format!("nnz is negative ({nnz})")));
        }
        let (indices, pointers) = match encoding {
            SparseEncoding::Csr => (
                data_type(indices).map(|_| indices)?,
                data_type(pointers).map(|_| pointers)?,
            ),
            SparseEncoding::Coo => (data_type(indices).map(|_| indices)?, dnnl_data_type_undef),
            SparseEncoding::Packed => (dnnl_data_type_undef, dnnl_data_type_undef),
            SparseEncoding::Grouped { .. } => {
                return Err(Error::invalid(
                    "grouped descriptors are made by MemoryDesc::grouped",
                ));
            }
        };
        md.format = Format::Sparse(Sparse {
            encoding,
            nnz,
            indices,
            pointers,
        });
        md.check_size()?;
        Ok(md)
    }
}

impl MemoryDesc {
    /// `dnnl_memory_desc_create_with_grouped_encoding` (experimental): `dims` with
    /// dimension `variable_dim` the total over `groups` sub-tensors. No dims give
    /// the zero descriptor, as the other constructors. Invalid: a `variable_dim`
    /// outside the dims, fewer than one group. Unimplemented, as the header says:
    /// offsets of another type than s32. `nnz` is the number of values (the
    /// product of the dims; run-time when a dimension is).
    pub fn grouped(
        dims: &[i64],
        dt: dnnl_data_type_t,
        variable_dim: i32,
        groups: i64,
        offsets_dt: dnnl_data_type_t,
    ) -> Result<Self> {
        if dims.is_empty() {
            return Ok(MemoryDesc::zero());
        }
        let mut md = MemoryDesc::shaped(dims, dt, false)?;
        let variable_dim = usize::try_from(variable_dim)
            .ok()
            .filter(|&d| d < md.ndims)
            .ok_or_else(|| {
                Error::invalid(format!(
                    "variable_dim_idx {variable_dim} is not a dimension of {} dims",
                    md.ndims
                ))
            })?;
        if groups < 1 {
            return Err(Error::invalid(format!(
                "group_count is {groups}: at least one group is needed"
            )));
        }
        if offsets_dt != dnnl_s32 {
            data_type(offsets_dt)?;
            return Err(Error::unimplemented(format!(
                "grouped offsets of data type {}: only s32 is supported",
                offsets_dt.0
            )));
        }
        let nnz = if md.dims().contains(&RUNTIME_DIM) {
            RUNTIME_DIM
        } else {
            md.dims()
                .iter()
                .try_fold(1i64, |n, &d| n.checked_mul(d))
                .ok_or_else(|| {
                    Error::invalid(format!("dims {dims:?}: the number of values overflows"))
                })?
        };
        md.format = Format::Sparse(Sparse {
            encoding: SparseEncoding::Grouped {
                variable_dim,
                groups,
            },
            nnz,
            indices: offsets_dt,
            pointers: dnnl_data_type_undef,
        });
        md.check_size()?;
        Ok(md)
    }
}

/// Dense row-major strides over the padded dims. As upstream: a zero
/// dimension makes the strides outside it 0, and a run-time dimension makes
/// its own stride and every one outside it run-time. A stride that does not
/// fit in a `dnnl_dim_t` is an invalid argument.
fn dense_strides(md: &MemoryDesc) -> Result<Dims> {
    let n = md.ndims;
    let pd = &md.padded_dims;
    let mut s: Dims = [0; MAX_NDIMS];
    s[n - 1] = 1;
    let mut runtime = false;
    for d in (0..n - 1).rev() {
        runtime |= pd[d] == RUNTIME_DIM || pd[d + 1] == RUNTIME_DIM;
        s[d] = if runtime {
            RUNTIME_DIM
        } else {
            s[d + 1].checked_mul(pd[d + 1]).ok_or_else(|| {
                Error::invalid(format!(
                    "dims {:?}: the stride of dimension {d} overflows",
                    md.dims()
                ))
            })?
        };
    }
    Ok(s)
}

/// Upstream's stride rule for plain layouts: visiting dimensions from the
/// smallest stride up, each non-zero stride must be at least the extent of
/// the dimension visited before it, so that no two elements share an address.
/// Empty tensors and run-time values are not checked. Negative strides are
/// always refused (upstream lets some through for empty tensors).
fn check_strides(md: &MemoryDesc, strides: &Dims) -> Result<()> {
    let n = md.ndims;
    if let Some(d) = (0..n).find(|&d| strides[d] < 0 && strides[d] != RUNTIME_DIM) {
        return Err(Error::invalid(format!(
            "strides[{d}] is negative ({})",
            strides[d]
        )));
    }
    let pd = &md.padded_dims;
    let unchecked = (0..n).any(|d| pd[d] == 0 || pd[d] == RUNTIME_DIM || strides[d] == RUNTIME_DIM);
    if unchecked {
        return Ok(());
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&d| (strides[d], pd[d], d));
    let mut min_stride = 1i64;
    for d in order {
        // Broadcast strides, and dimensions of 1 whose stride is never
        // applied (frameworks put placeholder strides there), are exempt.
        if strides[d] == 0 || pd[d] == 1 {
            continue;
        }
        if strides[d] < min_stride {
            return Err(Error::invalid(format!(
                "strides overlap: dimension {d} has stride {} where at least {min_stride} is needed",
                strides[d]
            )));
        }
        min_stride = strides[d].saturating_mul(pd[d]);
    }
    Ok(())
}

/// Two 4-bit elements share a byte, so an element must not start mid-byte:
/// upstream refuses a stride that is odd (other than 1) on a dimension of
/// more than one element. Empty tensors and run-time values are not checked.
fn check_sub_byte(md: &MemoryDesc) -> Result<()> {
    let bits = data_type(md.data_type).map_or(8, element_bits);
    let Some(b) = md.blocking() else {
        return Ok(());
    };
    if bits >= 8 || md.has_zero_dim() || md.has_runtime_dims_or_strides() {
        return Ok(());
    }
    let blocks = md.blocks();
    for d in 0..md.ndims {
        let outer = md.padded_dims[d] / blocks[d];
        let s = b.strides[d];
        if outer > 1 && s != 1 && s % 2 != 0 {
            return Err(Error::invalid(format!(
                "a {bits}-bit data type needs even strides: dimension {d} has stride {s}"
            )));
        }
    }
    Ok(())
}
