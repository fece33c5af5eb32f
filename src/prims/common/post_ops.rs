//! Post-ops as primitives apply them: an attribute's chain checked against a
//! destination, then evaluated per element on the CPU or compiled into an
//! OpenCL kernel.
//!
//! Layer: prims. A primitive kind that applies post-ops builds a
//! [`PostOpsPlan`] at descriptor creation (which refuses what cannot be
//! applied: `unimplemented` with the reason), reports its extra execution
//! arguments through [`PostOpsPlan::inputs`] / [`PostOpsPlan::arg_md`], and
//! puts [`PostOpsPlan::cache_key`] into its own cache key.
//!
//! CPU kernels call [`HostPostOps::apply`] on each `f32` result with its
//! logical destination position and, when [`PostOpsPlan::sum_elem`] is
//! `Some`, the destination's old value read as that type.
//!
//! OpenCL kernels are built from `PostOpsPlan::cl_source()` followed by their
//! own source. That prelude always defines:
//! - `POST_OPS_PARAMS`: the kernel parameters the post-ops read (empty, or a
//!   list starting with a comma), put last in the kernel's parameter list;
//! - `POST_OPS_ARGS`: the same names, to pass on to `post_ops`;
//! - `POST_OPS_SUM` (0 or 1) and `PO_SUM_DT` (an element type name such as
//!   `F32`, for `LD_<DT>`): whether and how to read the old destination;
//! - `float post_ops(float v, float old, const long *pos POST_OPS_PARAMS)`,
//!   where `pos` holds the logical destination position (one entry per
//!   dimension).
//!
//! The buffers behind `POST_OPS_PARAMS` come from
//! [`PostOpsPlan::cl_buffers`], to be appended, in order, after the kernel's
//! own arguments.

use std::sync::Arc;

use crate::core::attr::{PostOp, PostOps};
use crate::core::error::{Error, Result};
use crate::core::memory_desc::MemoryDesc;
use crate::core::primitive::ExecContext;
use crate::prims::common::buffers::Buffer;
use crate::prims::common::dt::Elem;

/// A post-op chain ready to apply to one destination.
#[derive(Clone, Debug, Default)]
pub struct PostOpsPlan {
    entries: Vec<PostOp>,
}

impl PostOpsPlan {
    /// No post-ops.
    pub fn none() -> PostOpsPlan {
        PostOpsPlan::default()
    }

    /// Checks `post_ops` against the destination `dst` (dimensions, type);
    /// unimplemented (with the reason) for what cannot be applied.
    pub fn new(post_ops: &PostOps, dst: &MemoryDesc) -> Result<PostOpsPlan> {
        let _ = dst;
        if post_ops.is_empty() {
            return Ok(PostOpsPlan::none());
        }
        Err(Error::unimplemented("post-ops are not applied yet"))
    }

    /// Whether the chain is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// When the chain has a sum: the type to read the old destination as.
    pub fn sum_elem(&self, dst: Elem) -> Option<Elem> {
        self.entries.iter().find_map(|e| match e {
            PostOp::Sum { data_type, .. } => Some(Elem::from_c(*data_type).unwrap_or(dst)),
            _ => None,
        })
    }

    /// The execution arguments the chain reads
    /// (`DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_1`, ...).
    pub fn inputs(&self) -> Vec<i32> {
        Vec::new()
    }

    /// The descriptor of one of [`PostOpsPlan::inputs`].
    pub fn arg_md(&self, arg: i32) -> Option<&Arc<MemoryDesc>> {
        let _ = arg;
        None
    }

    /// What distinguishes this chain in a primitive cache key.
    pub fn cache_key(&self) -> String {
        format!("{:?}", self.entries)
    }

    /// The chain with its arguments' host buffers, for CPU kernels.
    pub fn bind<'a>(&'a self, ctx: &ExecContext<'a>) -> Result<HostPostOps<'a>> {
        let _ = ctx;
        Ok(HostPostOps { plan: self })
    }

    /// The OpenCL C prelude (see the module documentation).
    pub fn cl_source(&self) -> String {
        concat!(
            "#define POST_OPS_PARAMS\n",
            "#define POST_OPS_ARGS\n",
            "#define POST_OPS_SUM 0\n",
            "#define PO_SUM_DT F32\n",
            "inline float post_ops(float v, float old, const long *pos) { return v; }\n"
        )
        .to_string()
    }

    /// The buffers behind `POST_OPS_PARAMS`, in order.
    pub fn cl_buffers(&self, ctx: &ExecContext) -> Result<Vec<Buffer>> {
        let _ = ctx;
        Ok(Vec::new())
    }
}

/// A chain bound to one execution's arguments, on the host.
pub struct HostPostOps<'a> {
    plan: &'a PostOpsPlan,
}

impl HostPostOps<'_> {
    /// Applies the chain to `value`, the result at logical destination
    /// position `pos`; `old` is the destination's previous value (read only
    /// when the chain has a sum).
    pub fn apply(&self, value: f32, old: f32, pos: &[i64]) -> f32 {
        let _ = (old, pos, self.plan);
        value
    }
}
