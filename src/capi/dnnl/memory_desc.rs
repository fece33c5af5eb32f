//! Memory descriptors: creation, transformations, queries, serialisation.
//!
//! Layer: capi. Each function checks its pointers, reads the C arrays it is
//! given (as many entries as the descriptor has dimensions), calls
//! `core::memory_desc`, and publishes the new descriptor last.

use ::core::ffi::{c_int, c_void};

use crate::abi::*;
use crate::capi::boundary;
use crate::capi::handles;
use crate::capi::handles::resolve_md;
use crate::core::error::{Error, Result};
use crate::core::memory_desc::{
    BLOB_HEADER_LEN, MAX_NDIMS, MemoryDesc, QueryValue, QueryVersion, SparseEncoding,
};

/// Reads `n` entries of a C array; `n == 0` reads nothing (NULL allowed).
///
/// # Safety
/// When `n > 0` and `ptr` is not NULL, `ptr` must point to `n` readable `T`s.
unsafe fn array_in<'a, T>(ptr: *const T, n: usize, what: &str) -> Result<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Error::invalid(format!("{what} is NULL")));
    }
    if !ptr.is_aligned() {
        return Err(Error::invalid(format!("{what} is misaligned")));
    }
    // SAFETY: non-NULL and aligned (checked); the caller promises `n` entries.
    Ok(unsafe { std::slice::from_raw_parts(ptr, n) })
}

/// Reads a C `(ndims, dims)` pair: 0 to 12 dimensions.
///
/// # Safety
/// As [`array_in`], with `ndims` entries.
pub(super) unsafe fn dims_in<'a>(ndims: c_int, dims: *const dnnl_dim_t) -> Result<&'a [i64]> {
    let n = usize::try_from(ndims)
        .ok()
        .filter(|&n| n <= MAX_NDIMS)
        .ok_or_else(|| {
            Error::invalid(format!("ndims is {ndims}: 0 to {MAX_NDIMS} are supported"))
        })?;
    // SAFETY: forwarded contract.
    unsafe { array_in(dims, n, "dims") }
}

/// A buffer index given as a C `int`: negative is invalid.
fn buffer_index(index: c_int) -> Result<usize> {
    usize::try_from(index).map_err(|_| Error::invalid(format!("index {index} is negative")))
}

/// Publishes `md` into `*out` (the caller owns it: `dnnl_memory_desc_destroy`).
pub(super) fn publish_into(
    out: *mut dnnl_memory_desc_t,
    md: impl FnOnce() -> Result<MemoryDesc>,
) -> Result<()> {
    let out = boundary::out(out, "memory_desc")?;
    let md = md()?;
    out.write(handles::publish_md(md));
    Ok(())
}

/// Releases the caller's memory descriptor handle.
/// NULL is accepted and does nothing (as upstream). The handle is dead from
/// this call on, even where other objects keep the object alive; an unknown
/// or already destroyed handle gets `dnnl_invalid_arguments`.
/// A descriptor the caller does not own (one returned by a query, such as
/// `dnnl_memory_get_memory_desc`) is refused with `dnnl_invalid_arguments`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_destroy(
    memory_desc: dnnl_memory_desc_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_desc_destroy", || handles::retire(memory_desc))
}

/// Writes a copy of `existing_memory_desc` to `*memory_desc`; the caller owns
/// the copy and destroys it with `dnnl_memory_desc_destroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_clone(
    memory_desc: *mut dnnl_memory_desc_t,
    existing_memory_desc: const_dnnl_memory_desc_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_desc_clone", || {
        publish_into(memory_desc, || {
            Ok((*resolve_md(existing_memory_desc)?).clone())
        })
    })
}

/// Serialises a memory descriptor. With `blob` NULL, writes the blob's size
/// to `*size`; otherwise writes the blob to `blob`, which must hold `*size`
/// bytes, at least the blob's size (else `dnnl_invalid_arguments`).
/// The blob is this library's own versioned, checksummed format, not
/// upstream's: it is read back by `dnnl_memory_desc_create_with_blob` of a
/// library of the same blob version.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_get_blob(
    blob: *mut u8,
    size: *mut usize,
    memory_desc: const_dnnl_memory_desc_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_desc_get_blob", || {
        let size_out = boundary::out(size, "size")?;
        let bytes = resolve_md(memory_desc)?.to_blob();
        if blob.is_null() {
            size_out.write(bytes.len());
            return Ok(());
        }
        // SAFETY: `size` is non-NULL and aligned (checked by `out`); the
        // caller passes the capacity of `blob` there.
        let capacity = unsafe { size.read() };
        if capacity < bytes.len() {
            return Err(Error::invalid(format!(
                "the blob needs {} bytes, *size is {capacity}",
                bytes.len()
            )));
        }
        // SAFETY: `blob` is non-NULL and holds `capacity >= bytes.len()`
        // bytes (the caller's contract); the two buffers cannot overlap.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), blob, bytes.len()) };
        Ok(())
    })
}

/// Creates a memory descriptor from a blob of `dnnl_memory_desc_get_blob`.
/// A blob that is not ours, of another blob version, damaged (checksum) or
/// describing an impossible descriptor is refused with
/// `dnnl_invalid_arguments`. The C API passes no size: the blob's header
/// says how long it is, and the buffer must be at least that long.
/// The caller owns `*memory_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_create_with_blob(
    memory_desc: *mut dnnl_memory_desc_t,
    blob: *const u8,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_desc_create_with_blob", || {
        publish_into(memory_desc, || {
            // SAFETY: a blob starts with its fixed-size header (the caller's
            // contract: `blob` comes from `dnnl_memory_desc_get_blob`).
            let header = unsafe { array_in(blob, BLOB_HEADER_LEN, "blob") }?;
            let header = header
                .try_into()
                .map_err(|_| Error::invalid("blob header"))?;
            let len = MemoryDesc::blob_len(header)?;
            // SAFETY: as above; the header's length was checked to be at most
            // a complete blob's.
            let whole = unsafe { array_in(blob, len, "blob") }?;
            MemoryDesc::from_blob(whole)
        })
    })
}

/// Creates a plain memory descriptor with the given strides (in elements;
/// NULL gives dense row-major strides). Zero strides broadcast; overlapping
/// or negative strides are invalid. The caller owns `*memory_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_create_with_strides(
    memory_desc: *mut dnnl_memory_desc_t,
    ndims: c_int,
    dims: *const dnnl_dim_t,
    data_type: dnnl_data_type_t,
    strides: *const dnnl_dim_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_desc_create_with_strides", || {
        publish_into(memory_desc, || {
            // SAFETY: the C contract: `dims` and `strides` hold `ndims` entries.
            let dims = unsafe { dims_in(ndims, dims) }?;
            let strides = (!strides.is_null())
                // SAFETY: as above.
                .then(|| unsafe { array_in(strides, dims.len(), "strides") })
                .transpose()?;
            MemoryDesc::with_strides(dims, data_type, strides)
        })
    })
}

/// Creates a memory descriptor laid out as a format tag says: any plain or
/// blocked tag (blocked dimensions are padded up to their block), `any`
/// (format kind `any`: a primitive chooses), or `undef` (the zero
/// descriptor). A tag for another number of dimensions is invalid.
/// The caller owns `*memory_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_create_with_tag(
    memory_desc: *mut dnnl_memory_desc_t,
    ndims: c_int,
    dims: *const dnnl_dim_t,
    data_type: dnnl_data_type_t,
    tag: dnnl_format_tag_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_desc_create_with_tag", || {
        publish_into(memory_desc, || {
            // SAFETY: the C contract: `dims` holds `ndims` entries.
            let dims = unsafe { dims_in(ndims, dims) }?;
            MemoryDesc::with_tag(dims, data_type, tag)
        })
    })
}

/// Creates a sparse memory descriptor in CSR encoding (1 or 2 dimensions):
/// buffer 0 holds the `nnz` values, 1 the column indices (`indices_dt`),
/// 2 the row pointers (`pointers_dt`). Deliberate difference: a negative
/// `nnz` or index types that are not data types are invalid.
/// The caller owns `*memory_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_create_with_csr_encoding(
    memory_desc: *mut dnnl_memory_desc_t,
    ndims: c_int,
    dims: *const dnnl_dim_t,
    data_type: dnnl_data_type_t,
    nnz: dnnl_dim_t,
    indices_dt: dnnl_data_type_t,
    pointers_dt: dnnl_data_type_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_desc_create_with_csr_encoding", || {
        publish_into(memory_desc, || {
            // SAFETY: the C contract: `dims` holds `ndims` entries.
            let dims = unsafe { dims_in(ndims, dims) }?;
            MemoryDesc::with_sparse_encoding(
                SparseEncoding::Csr,
                dims,
                data_type,
                nnz,
                indices_dt,
                pointers_dt,
            )
        })
    })
}

/// Creates a sparse memory descriptor in COO encoding (1 or 2 dimensions):
/// buffer 0 holds the `nnz` values, buffer `1 + d` the indices along
/// dimension `d` (`indices_dt`). Deliberate difference: a negative `nnz` or
/// an index type that is not a data type is invalid.
/// The caller owns `*memory_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_create_with_coo_encoding(
    memory_desc: *mut dnnl_memory_desc_t,
    ndims: c_int,
    dims: *const dnnl_dim_t,
    data_type: dnnl_data_type_t,
    nnz: dnnl_dim_t,
    indices_dt: dnnl_data_type_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_desc_create_with_coo_encoding", || {
        publish_into(memory_desc, || {
            // SAFETY: the C contract: `dims` holds `ndims` entries.
            let dims = unsafe { dims_in(ndims, dims) }?;
            MemoryDesc::with_sparse_encoding(
                SparseEncoding::Coo,
                dims,
                data_type,
                nnz,
                indices_dt,
                dnnl_data_type_undef,
            )
        })
    })
}

/// Creates a sparse memory descriptor of the packed (opaque) encoding. Like
/// format `any`, it cannot back a memory object (its sizes are 0): a
/// primitive descriptor turns it into a concrete one. Deliberate difference:
/// a negative `nnz` is invalid. The caller owns `*memory_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_create_with_packed_encoding(
    memory_desc: *mut dnnl_memory_desc_t,
    ndims: c_int,
    dims: *const dnnl_dim_t,
    data_type: dnnl_data_type_t,
    nnz: dnnl_dim_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_desc_create_with_packed_encoding", || {
        publish_into(memory_desc, || {
            // SAFETY: the C contract: `dims` holds `ndims` entries.
            let dims = unsafe { dims_in(ndims, dims) }?;
            let undef = dnnl_data_type_undef;
            MemoryDesc::with_sparse_encoding(
                SparseEncoding::Packed,
                dims,
                data_type,
                nnz,
                undef,
                undef,
            )
        })
    })
}

/// Creates a memory descriptor for one value of `data_type` kept on the host
/// (format kind `host_scalar`; its size is the data type's).
/// The caller owns `*memory_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_create_host_scalar(
    memory_desc: *mut dnnl_memory_desc_t,
    data_type: dnnl_data_type_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_desc_create_host_scalar", || {
        publish_into(memory_desc, || MemoryDesc::host_scalar(data_type))
    })
}

/// Creates a descriptor of the region of `dims` elements at `offsets` inside
/// `parent_memory_desc` (both arrays have the parent's number of
/// dimensions). The region keeps the parent's strides; its
/// `submemory_offset` locates it. A region that does not fit is invalid; an
/// offset inside a block, run-time values or a parent that is not blocked
/// are unimplemented, as upstream. The caller owns `*memory_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_create_submemory(
    memory_desc: *mut dnnl_memory_desc_t,
    parent_memory_desc: const_dnnl_memory_desc_t,
    dims: *const dnnl_dim_t,
    offsets: *const dnnl_dim_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_desc_create_submemory", || {
        publish_into(memory_desc, || {
            let parent = resolve_md(parent_memory_desc)?;
            let n = parent.ndims();
            // SAFETY: the C contract: both arrays hold the parent's ndims entries.
            let (dims, offsets) =
                unsafe { (array_in(dims, n, "dims")?, array_in(offsets, n, "offsets")?) };
            parent.submemory(dims, offsets)
        })
    })
}

/// Creates a descriptor of the same data seen with other dimensions (same
/// data type). Only blocked and `any` descriptors reshape, and only where
/// the layout allows: adding or removing dimensions of 1, splitting an
/// unpadded dimension, joining dense consecutive unblocked ones; anything
/// else is invalid. The caller owns `*out_memory_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_reshape(
    out_memory_desc: *mut dnnl_memory_desc_t,
    in_memory_desc: const_dnnl_memory_desc_t,
    ndims: c_int,
    dims: *const dnnl_dim_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_desc_reshape", || {
        publish_into(out_memory_desc, || {
            let input = resolve_md(in_memory_desc)?;
            // SAFETY: the C contract: `dims` holds `ndims` entries.
            let dims = unsafe { dims_in(ndims, dims) }?;
            input.reshape(dims)
        })
    })
}

/// Creates a descriptor whose axis `permutation[d]` is the input's axis `d`
/// (`permutation` has the input's number of dimensions), with the same
/// physical layout. Only blocked and `any` descriptors can be permuted.
/// The caller owns `*out_memory_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_permute_axes(
    out_memory_desc: *mut dnnl_memory_desc_t,
    in_memory_desc: const_dnnl_memory_desc_t,
    permutation: *const c_int,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_desc_permute_axes", || {
        publish_into(out_memory_desc, || {
            let input = resolve_md(in_memory_desc)?;
            // SAFETY: the C contract: `permutation` holds the input's ndims entries.
            let permutation = unsafe { array_in(permutation, input.ndims(), "permutation") }?;
            input.permute_axes(permutation)
        })
    })
}

/// Writes one query's answer with the C type the query documents.
fn write_answer(value: QueryValue<'_>, result: *mut c_void) -> Result<()> {
    let result = result.cast::<u8>();
    match value {
        QueryValue::S32(v) => boundary::out(result.cast::<i32>(), "result")?.write(v),
        QueryValue::S64(v) => boundary::out(result.cast::<i64>(), "result")?.write(v),
        QueryValue::Dims(a) => {
            boundary::out(result.cast::<*const dnnl_dims_t>(), "result")?.write(a)
        }
        QueryValue::DataType(v) => {
            boundary::out(result.cast::<dnnl_data_type_t>(), "result")?.write(v)
        }
        QueryValue::FormatKind(v) => {
            boundary::out(result.cast::<dnnl_format_kind_t>(), "result")?.write(v)
        }
        QueryValue::SparseEncoding(v) => {
            boundary::out(result.cast::<dnnl_sparse_encoding_t>(), "result")?.write(v)
        }
    }
    Ok(())
}

/// Queries a memory descriptor. `result` receives: an `int32_t` for
/// `ndims_s32` and `inner_nblks_s32`; a `dnnl_dim_t` for
/// `submemory_offset_s64`; a `dnnl_data_type_t` / `dnnl_format_kind_t` for
/// `data_type` / `format_kind`; a `const dnnl_dims_t *` pointing into the
/// descriptor (valid while it lives) for `dims`, `padded_dims`,
/// `padded_offsets`, `strides`, `inner_blks` and `inner_idxs`. The last four
/// apply to blocked descriptors only (else `dnnl_invalid_arguments`); a query
/// that is not about memory descriptors is `dnnl_unimplemented`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_query(
    memory_desc: const_dnnl_memory_desc_t,
    what: dnnl_query_t,
    result: *mut c_void,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_desc_query", || {
        let md = resolve_md(memory_desc)?;
        write_answer(md.query(what, 0, QueryVersion::V1)?, result)
    })
}

/// As `dnnl_memory_desc_query`, plus `sparse_encoding`
/// (`dnnl_sparse_encoding_t`) and `nnz_s64` (`dnnl_dim_t`) for sparse
/// descriptors, and `num_handles_s32` (`int32_t`). `index` selects a buffer:
/// it may be above 0 only for `data_type` of a sparse descriptor (1 and up
/// are the index and pointer buffers); a negative index is invalid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_query_v2(
    memory_desc: const_dnnl_memory_desc_t,
    what: dnnl_query_t,
    index: c_int,
    result: *mut c_void,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_desc_query_v2", || {
        let index = buffer_index(index)?;
        let md = resolve_md(memory_desc)?;
        write_answer(md.query(what, index, QueryVersion::V2)?, result)
    })
}

/// Returns 1 if the two descriptors describe the same memory (same
/// dimensions, type, padding, offset and layout), 0 otherwise. The same
/// handle twice (NULL included) is equal; a NULL or invalid handle is equal
/// to nothing else.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_equal(
    lhs: const_dnnl_memory_desc_t,
    rhs: const_dnnl_memory_desc_t,
) -> c_int {
    let mut equal = 0;
    boundary::guard("dnnl_memory_desc_equal", || {
        equal = if lhs == rhs {
            1
        } else {
            c_int::from(*resolve_md(lhs)? == *resolve_md(rhs)?)
        };
        Ok(())
    });
    equal
}

/// Returns the size in bytes of buffer 0; see `dnnl_memory_desc_get_size_v2`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_get_size(memory_desc: const_dnnl_memory_desc_t) -> usize {
    size("dnnl_memory_desc_get_size", memory_desc, 0)
}

/// Returns the size in bytes of buffer `index`, padding included: 0 for a
/// NULL or invalid descriptor, format `any`, the zero descriptor, a tensor
/// with a zero dimension, a negative index and an index past the last buffer
/// (a host scalar answers its value's size for any index, as upstream);
/// `DNNL_RUNTIME_SIZE_VAL` while a dimension or stride is run-time. Dense
/// 4-bit types count two elements per byte.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_get_size_v2(
    memory_desc: const_dnnl_memory_desc_t,
    index: c_int,
) -> usize {
    size("dnnl_memory_desc_get_size_v2", memory_desc, index)
}

fn size(function: &'static str, memory_desc: const_dnnl_memory_desc_t, index: c_int) -> usize {
    let mut size = 0;
    boundary::guard(function, || {
        let index = buffer_index(index)?;
        size = resolve_md(memory_desc)?.size(index);
        Ok(())
    });
    size
}
