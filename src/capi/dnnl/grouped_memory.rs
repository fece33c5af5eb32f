//! The experimental grouped memory API (`DNNL_EXPERIMENTAL_GROUPED_MEMORY`).
//!
//! Layer: capi. The module is compiled with the `experimental_grouped_memory`
//! feature (on by default). Only the descriptor constructor lives here: the descriptors it
//! makes go through the ordinary query, size, blob and memory functions (two
//! buffers: the values, then the `s32` offsets).

use ::core::ffi::c_int;

use crate::abi::*;
use crate::capi::boundary;
use crate::core::memory_desc::MemoryDesc;

use super::memory_desc::{dims_in, publish_into};

/// Creates a memory descriptor of grouped encoding: `group_count` sub-tensors
/// concatenated along dimension `variable_dim_idx`, whose entry in `dims` is
/// their total size. Memory of it has two buffers: the values (dense, row-major)
/// and the `group_count` cumulative ends of the groups (`offsets_dt`, s32 only).
/// `ndims == 0` gives the zero descriptor. The caller owns `*memory_desc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_memory_desc_create_with_grouped_encoding(
    memory_desc: *mut dnnl_memory_desc_t,
    ndims: c_int,
    dims: *const dnnl_dim_t,
    data_type: dnnl_data_type_t,
    variable_dim_idx: c_int,
    group_count: dnnl_dim_t,
    offsets_dt: dnnl_data_type_t,
) -> dnnl_status_t {
    boundary::guard("dnnl_memory_desc_create_with_grouped_encoding", || {
        publish_into(memory_desc, || {
            // SAFETY: the C contract: `dims` holds `ndims` entries.
            let dims = unsafe { dims_in(ndims, dims) }?;
            MemoryDesc::grouped(dims, data_type, variable_dim_idx, group_count, offsets_dt)
        })
    })
}
