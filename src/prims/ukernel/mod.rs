//! The ukernel API's objects (`dnnl_ukernel.h`): the batch-reduce GEMM
//! ([`brgemm::Brgemm`]), the B-packing routine ([`transform::Transform`]) and
//! the run-time parameters of a BRGeMM with post-ops ([`AttrParams`]).
//!
//! Layer: prims. These are sequential CPU routines on the caller's raw
//! pointers: no engine, no stream, no memory object. Each object goes through
//! upstream's steps (create, configure, finalize, query, generate, execute);
//! a step out of order is an invalid argument. "Generate" freezes the
//! configuration into a plan; the compute itself is one internal function per
//! object ([`compute`]), compiled Rust with register blocking, never a call
//! per element and never an allocation per `execute`.
//!
//! Data types and the packed layout of B, as upstream's x64 build uses them on
//! a machine without AMX:
//! - `f32 x f32 -> f32`: B row-major (`no_trans`), `ldb` elements per row;
//! - `bf16 x bf16 -> f32` and `f16 x f16 -> f32`: B `pack32`, row pairs
//!   interleaved: element `(k, n)` at `(k / 2) * ldb * 2 + n * 2 + k % 2`;
//! - `u8 / s8 x s8 -> s32`: B `pack32`, row quads interleaved: element
//!   `(k, n)` at `(k / 4) * ldb * 4 + n * 4 + k % 4`.

pub mod brgemm;
pub(crate) mod compute;
pub mod transform;

use std::sync::Mutex;

use crate::core::error::Result;

/// The run-time arguments of `dnnl_brgemm_execute_postops`: where the scales
/// and the binary post-ops' second operands are. Addresses only: like
/// upstream, the object keeps the caller's pointers (the post-op argument
/// array included), which must stay valid until the last execution using them.
#[derive(Default)]
pub struct AttrParams {
    values: Mutex<ParamValues>,
}

/// The addresses an [`AttrParams`] holds (0: not set).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParamValues {
    /// The caller's array of `const void *`, one per binary post-op, in order.
    pub post_ops_args: usize,
    /// One `f32`.
    pub a_scales: usize,
    /// One `f32` (mask 0) or `N` of them (mask 2, per column).
    pub b_scales: usize,
    /// One `f32`.
    pub d_scales: usize,
}

impl AttrParams {
    /// Parameters with nothing set.
    pub fn new() -> AttrParams {
        AttrParams::default()
    }

    /// Changes the values.
    pub fn update(&self, f: impl FnOnce(&mut ParamValues)) -> Result<()> {
        f(&mut *self.values.lock()?);
        Ok(())
    }

    /// The current values.
    pub fn get(&self) -> Result<ParamValues> {
        Ok(*self.values.lock()?)
    }
}

/// `dnnl_pack_type_t` values, as this module speaks of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PackType {
    /// The type pair is not supported.
    Undef,
    /// Row-major, as given.
    NoTrans,
    /// Column-major (transposed).
    Trans,
    /// Rows interleaved in groups of 4 bytes ([module docs](self)).
    Pack32,
}
