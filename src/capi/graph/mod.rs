//! Entry points of `dnnl_graph.h`.

pub mod allocator;
pub mod compiled_partition;
pub mod destroy;
// `dnnl_graph_graph_*`: the graph object of the graph API.
#[allow(clippy::module_inception)]
pub mod graph;
pub mod logical_tensor;
pub mod op;
pub mod partition;
pub mod settings;
pub mod tensor;

pub use allocator::*;
pub use compiled_partition::*;
pub use destroy::*;
pub use graph::*;
pub use logical_tensor::*;
pub use op::*;
pub use partition::*;
pub use settings::*;
pub use tensor::*;

use crate::core::error::{Error, Result};
use crate::core::memory_desc::MAX_NDIMS;

/// `n` values at `ptr` (`n` a C `int` count of dimensions: at most
/// `DNNL_MAX_NDIMS`; 0 or less gives none without reading `ptr`).
///
/// # Safety
/// `ptr` points to `n` values when `n > 0`.
pub(crate) unsafe fn slice<'a, T>(ptr: *const T, n: i32, what: &str) -> Result<&'a [T]> {
    if n <= 0 {
        return Ok(&[]);
    }
    if n as usize > MAX_NDIMS {
        return Err(Error::invalid(format!(
            "{n} {what}: at most {MAX_NDIMS} are supported"
        )));
    }
    // SAFETY: forwarded to the caller.
    unsafe { slice_len(ptr, n as usize, what) }
}

/// `n` values at `ptr`, which must not be NULL (even for `n` = 0).
///
/// # Safety
/// `ptr` points to `n` values.
pub(crate) unsafe fn slice_len<'a, T>(ptr: *const T, n: usize, what: &str) -> Result<&'a [T]> {
    if ptr.is_null() {
        return Err(Error::invalid(format!("{what} is NULL")));
    }
    if !ptr.is_aligned() {
        return Err(Error::invalid(format!("{what} is misaligned")));
    }
    if n == 0 {
        return Ok(&[]);
    }
    // SAFETY: forwarded to the caller.
    Ok(unsafe { std::slice::from_raw_parts(ptr, n) })
}

/// A copy of `*ptr`, which must not be NULL.
///
/// # Safety
/// `ptr` points to a value.
pub(crate) unsafe fn read<T: Copy>(ptr: *const T, what: &str) -> Result<T> {
    // SAFETY: forwarded to the caller.
    Ok(unsafe { slice_len(ptr, 1, what)? }[0])
}
