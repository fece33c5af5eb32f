//! What `dnnl_memory_desc_query` and `dnnl_memory_desc_query_v2` answer.
//!
//! The boundary writes each answer with the C type upstream documents:
//! `int32_t` for the `_s32` queries, `dnnl_dim_t` for the `_s64` ones, the
//! enum for data type, format kind and sparse encoding, and a pointer to the
//! descriptor's own array (`const dnnl_dims_t *`) for dims, padded dims,
//! padded offsets, strides, inner blocks and inner indices.

use crate::abi::*;
use crate::core::error::{Error, Result};

use super::{Dims, MemoryDesc, Sparse, SparseEncoding};

/// One query's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryValue<'a> {
    S32(i32),
    S64(i64),
    /// An array of the descriptor (valid while the descriptor lives).
    Dims(&'a Dims),
    DataType(dnnl_data_type_t),
    FormatKind(dnnl_format_kind_t),
    SparseEncoding(dnnl_sparse_encoding_t),
}

/// Which entry point asks: v2 adds the sparse queries and the buffer index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryVersion {
    V1,
    V2,
}

impl MemoryDesc {
    /// Answers `what` for buffer `index` (which only a data-type query of a
    /// sparse descriptor may set above 0). A query that does not apply to
    /// this descriptor (strides of a non-blocked one, sparse queries of a
    /// dense one) is an invalid argument; a query that is not about memory
    /// descriptors is unimplemented, as upstream.
    pub fn query(
        &self,
        what: dnnl_query_t,
        index: usize,
        version: QueryVersion,
    ) -> Result<QueryValue<'_>> {
        let v2_only = matches!(
            what,
            dnnl_query_sparse_encoding | dnnl_query_nnz_s64 | dnnl_query_num_handles_s32
        );
        if v2_only && version == QueryVersion::V1 {
            return Err(Error::unimplemented(format!(
                "query {} needs dnnl_memory_desc_query_v2",
                what.0
            )));
        }
        let sparse = self.sparse();
        if index > 0 && !(what == dnnl_query_data_type && sparse.is_some()) {
            return Err(Error::invalid(format!(
                "index {index}: only the data type of a sparse descriptor has buffers to choose"
            )));
        }
        let blocking = || {
            self.blocking().ok_or_else(|| {
                Error::invalid(format!(
                    "query {} applies to blocked descriptors only",
                    what.0
                ))
            })
        };
        let sparse = || {
            sparse.ok_or_else(|| {
                Error::invalid(format!(
                    "query {} applies to sparse descriptors only",
                    what.0
                ))
            })
        };
        Ok(match what {
            dnnl_query_ndims_s32 => QueryValue::S32(self.ndims as i32),
            dnnl_query_dims => QueryValue::Dims(&self.dims),
            dnnl_query_data_type => QueryValue::DataType(self.buffer_data_type(index)),
            dnnl_query_submemory_offset_s64 => QueryValue::S64(self.offset0),
            dnnl_query_padded_dims => QueryValue::Dims(&self.padded_dims),
            dnnl_query_padded_offsets => QueryValue::Dims(&self.padded_offsets),
            dnnl_query_format_kind => QueryValue::FormatKind(self.format_kind()),
            dnnl_query_strides => QueryValue::Dims(&blocking()?.strides),
            dnnl_query_inner_nblks_s32 => QueryValue::S32(blocking()?.inner_nblks as i32),
            dnnl_query_inner_blks => QueryValue::Dims(&blocking()?.inner_blks),
            dnnl_query_inner_idxs => QueryValue::Dims(&blocking()?.inner_idxs),
            dnnl_query_sparse_encoding => QueryValue::SparseEncoding(sparse()?.encoding.to_c()),
            dnnl_query_nnz_s64 => QueryValue::S64(sparse()?.nnz),
            dnnl_query_num_handles_s32 => QueryValue::S32(self.num_handles() as i32),
            other => {
                return Err(Error::unimplemented(format!(
                    "query {} does not apply to memory descriptors",
                    other.0
                )));
            }
        })
    }

    /// The data type of buffer `index`: the values' for 0, the metadata's
    /// for the others. Past the last buffer, upstream's answers: the index
    /// type for COO, `undef` otherwise.
    fn buffer_data_type(&self, index: usize) -> dnnl_data_type_t {
        match (self.sparse(), index) {
            (_, 0) => self.data_type,
            (Some(s), i) => metadata_type(s, i),
            (None, _) => dnnl_data_type_undef,
        }
    }
}

fn metadata_type(s: &Sparse, index: usize) -> dnnl_data_type_t {
    match (s.encoding, index) {
        (SparseEncoding::Csr, 1) | (SparseEncoding::Coo, _) => s.indices,
        (SparseEncoding::Csr, 2) => s.pointers,
        (SparseEncoding::Grouped { .. }, 1) => s.indices,
        _ => dnnl_data_type_undef,
    }
}
