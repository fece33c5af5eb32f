//! Post-ops: operations a primitive applies to its result before writing it.
//!
//! Layer: core. [`PostOps`] is a plain value (a list of [`PostOp`]);
//! [`PostOpsCell`] is the object behind a `dnnl_post_ops_t`, either owning
//! its list or viewing the list of an attribute object. The append rules
//! are oneDNN v3.13's, read off the reference library:
//! - at most [`POST_OPS_LIMIT`] entries; one more is `dnnl_out_of_memory`,
//!   whatever its arguments;
//! - eltwise: an `eltwise_*` algorithm; `clip`, `clip_v2` and
//!   `clip_v2_use_dst_for_bwd` need `beta >= alpha`, `relu_use_dst_for_bwd`
//!   and `elu_use_dst_for_bwd` need `alpha >= 0`;
//! - binary: a `binary_*` algorithm and a first-operand descriptor (any,
//!   even the zero descriptor); `select` also needs the second operand, which
//!   other algorithms store if given;
//! - depthwise: weights and destination types defined, kernel and stride
//!   `> 0`, left padding `< kernel`;
//! - sum and prelu: any scale, zero point and mask.

use std::sync::{Arc, Mutex, Weak};

use crate::abi::*;
use crate::core::error::{Error, Result};
use crate::core::memory_desc::MemoryDesc;

use super::{AttrCell, declared};

/// The most entries a post-op chain holds (upstream's `post_ops_limit`).
pub const POST_OPS_LIMIT: usize = 32;

/// One post-op.
#[derive(Clone, Debug, PartialEq)]
pub enum PostOp {
    /// `dst = scale * (dst - zero_point) + result`, reading `dst` as
    /// `data_type` when that is not `undef`.
    Sum {
        scale: f32,
        zero_point: i32,
        data_type: dnnl_data_type_t,
    },
    /// `dst = eltwise(alg, alpha, beta)(result)`.
    Eltwise {
        alg: dnnl_alg_kind_t,
        alpha: f32,
        beta: f32,
    },
    /// `dst = binary(alg)(result, src1[, src2])`, `src1` broadcast; the
    /// operands are execution arguments
    /// (`DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_1` / `_SRC_2`).
    Binary {
        alg: dnnl_alg_kind_t,
        src1: Arc<MemoryDesc>,
        src2: Option<Arc<MemoryDesc>>,
    },
    /// PReLU with weights (`... | DNNL_ARG_WEIGHTS`) selected by `mask`.
    Prelu { mask: i32 },
    /// A fused depthwise convolution (`dnnl_post_ops_append_dw`).
    Depthwise {
        weights_dt: dnnl_data_type_t,
        bias_dt: dnnl_data_type_t,
        dst_dt: dnnl_data_type_t,
        kernel: i64,
        stride: i64,
        padding_l: i64,
    },
}

impl PostOp {
    /// The primitive kind C reports for this entry (`dnnl_post_ops_get_kind`).
    pub fn kind(&self) -> dnnl_primitive_kind_t {
        match self {
            PostOp::Sum { .. } => dnnl_sum,
            PostOp::Eltwise { .. } => dnnl_eltwise,
            PostOp::Binary { .. } => dnnl_binary,
            PostOp::Prelu { .. } => dnnl_prelu,
            PostOp::Depthwise { .. } => dnnl_convolution,
        }
    }

    /// A checked eltwise entry.
    // `!(beta >= alpha)` on purpose: a NaN must fail the check, as upstream's does.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    pub fn eltwise(alg: dnnl_alg_kind_t, alpha: f32, beta: f32) -> Result<PostOp> {
        if !is_eltwise_alg(alg) {
            return Err(Error::invalid(format!(
                "{:#x} is not an eltwise algorithm",
                alg.0
            )));
        }
        let clip = [
            dnnl_eltwise_clip,
            dnnl_eltwise_clip_v2,
            dnnl_eltwise_clip_v2_use_dst_for_bwd,
        ];
        if clip.contains(&alg) && !(beta >= alpha) {
            return Err(Error::invalid(format!(
                "clip needs beta >= alpha, got alpha {alpha} and beta {beta}"
            )));
        }
        let non_negative_alpha = [
            dnnl_eltwise_relu_use_dst_for_bwd,
            dnnl_eltwise_elu_use_dst_for_bwd,
        ];
        if non_negative_alpha.contains(&alg) && !(alpha >= 0.0) {
            return Err(Error::invalid(format!(
                "this algorithm needs alpha >= 0, got {alpha}"
            )));
        }
        Ok(PostOp::Eltwise { alg, alpha, beta })
    }

    /// A checked binary entry.
    pub fn binary(
        alg: dnnl_alg_kind_t,
        src1: &MemoryDesc,
        src2: Option<&MemoryDesc>,
    ) -> Result<PostOp> {
        if !is_binary_alg(alg) {
            return Err(Error::invalid(format!(
                "{:#x} is not a binary algorithm",
                alg.0
            )));
        }
        if alg == dnnl_binary_select && src2.is_none() {
            return Err(Error::invalid(
                "binary_select needs the descriptor of its third operand",
            ));
        }
        Ok(PostOp::Binary {
            alg,
            src1: Arc::new(src1.clone()),
            src2: src2.map(|md| Arc::new(md.clone())),
        })
    }

    /// A checked sum entry. Unlike upstream, which stores any integer, a
    /// data type that is not one is refused.
    pub fn sum(scale: f32, zero_point: i32, data_type: dnnl_data_type_t) -> Result<PostOp> {
        check_data_type(data_type, "sum data type")?;
        Ok(PostOp::Sum {
            scale,
            zero_point,
            data_type,
        })
    }

    /// A checked depthwise entry. Unlike upstream, which stores any integer,
    /// data types that are not ones are refused.
    pub fn depthwise(
        weights_dt: dnnl_data_type_t,
        bias_dt: dnnl_data_type_t,
        dst_dt: dnnl_data_type_t,
        kernel: i64,
        stride: i64,
        padding_l: i64,
    ) -> Result<PostOp> {
        check_data_type(weights_dt, "depthwise weights data type")?;
        check_data_type(bias_dt, "depthwise bias data type")?;
        check_data_type(dst_dt, "depthwise destination data type")?;
        if weights_dt == dnnl_data_type_undef || dst_dt == dnnl_data_type_undef {
            return Err(Error::invalid(
                "depthwise weights and destination data types are defined",
            ));
        }
        if kernel <= 0 || stride <= 0 {
            return Err(Error::invalid(format!(
                "depthwise kernel {kernel} and stride {stride} are positive"
            )));
        }
        if padding_l.saturating_add(1) > kernel {
            return Err(Error::invalid(format!(
                "depthwise left padding {padding_l} is smaller than the kernel {kernel}"
            )));
        }
        Ok(PostOp::Depthwise {
            weights_dt,
            bias_dt,
            dst_dt,
            kernel,
            stride,
            padding_l,
        })
    }
}

/// Whether `alg` is one of the `dnnl_eltwise_*` algorithms.
pub(super) fn is_eltwise_alg(alg: dnnl_alg_kind_t) -> bool {
    alg_prefixed(alg, b"dnnl_eltwise_")
}

/// Whether `alg` is one of the `dnnl_binary_*` algorithms.
pub(super) fn is_binary_alg(alg: dnnl_alg_kind_t) -> bool {
    alg_prefixed(alg, b"dnnl_binary_")
}

fn alg_prefixed(alg: dnnl_alg_kind_t, prefix: &[u8]) -> bool {
    dnnl_alg_kind_t::ALL
        .iter()
        .any(|(name, v)| *v == alg && name.to_bytes().starts_with(prefix))
}

/// `undef` or a declared data type.
fn check_data_type(dt: dnnl_data_type_t, what: &str) -> Result<()> {
    if declared(dnnl_data_type_t::ALL, dt) {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "{what} {} is not a data type",
            dt.0
        )))
    }
}

/// A post-op chain, applied in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PostOps {
    entries: Vec<PostOp>,
}

impl PostOps {
    /// The entries, first applied first.
    pub fn entries(&self) -> &[PostOp] {
        &self.entries
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry at `index`, if any.
    pub fn get(&self, index: usize) -> Option<&PostOp> {
        self.entries.get(index)
    }

    /// Whether another entry fits; checked before the entry's own arguments,
    /// as upstream does.
    pub fn check_room(&self) -> Result<()> {
        if self.entries.len() >= POST_OPS_LIMIT {
            return Err(Error::OutOfMemory(
                format!("a post-op chain holds at most {POST_OPS_LIMIT} entries").into(),
            ));
        }
        Ok(())
    }

    /// Appends an entry built (and checked) by `make` once there is room.
    pub fn append(&mut self, make: impl FnOnce() -> Result<PostOp>) -> Result<()> {
        self.check_room()?;
        self.entries.push(make()?);
        Ok(())
    }

    /// The entry at `index` (a C `int`): out of range is an invalid argument.
    pub fn entry(&self, index: i32) -> Result<&PostOp> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.entries.get(i))
            .ok_or_else(|| {
                Error::invalid(format!(
                    "post-op index {index} is out of range (length {})",
                    self.entries.len()
                ))
            })
    }
}

enum Storage {
    /// A post-ops object of its own (`dnnl_post_ops_create`, `_clone`).
    Own(Mutex<PostOps>),
    /// The post-ops of an attribute object (`dnnl_primitive_attr_get_post_ops`).
    /// Weak: the attribute object owns this view, not the other way round.
    ViewOf(Weak<AttrCell>),
}

/// The object behind a `dnnl_post_ops_t`.
pub struct PostOpsCell {
    storage: Storage,
}

impl PostOpsCell {
    /// A post-ops object holding `value`.
    pub fn new(value: PostOps) -> Arc<PostOpsCell> {
        Arc::new(PostOpsCell {
            storage: Storage::Own(Mutex::new(value)),
        })
    }

    /// The view of an attribute object's post-ops.
    pub(super) fn view_of(attr: Weak<AttrCell>) -> PostOpsCell {
        PostOpsCell {
            storage: Storage::ViewOf(attr),
        }
    }

    fn attr(weak: &Weak<AttrCell>) -> Result<Arc<AttrCell>> {
        weak.upgrade()
            .ok_or_else(|| Error::invalid("the post-ops' attributes were destroyed"))
    }

    /// Reads the current value.
    pub fn read<R>(&self, f: impl FnOnce(&PostOps) -> R) -> Result<R> {
        match &self.storage {
            Storage::Own(value) => Ok(f(&*value.lock()?)),
            Storage::ViewOf(attr) => Self::attr(attr)?.read(|a| f(&a.post_ops)),
        }
    }

    /// A copy of the current value.
    pub fn get(&self) -> Result<PostOps> {
        self.read(PostOps::clone)
    }

    /// Changes the value.
    pub fn update<R>(&self, f: impl FnOnce(&mut PostOps) -> Result<R>) -> Result<R> {
        match &self.storage {
            Storage::Own(value) => f(&mut *value.lock()?),
            Storage::ViewOf(attr) => Self::attr(attr)?.update(|a| f(&mut a.post_ops)),
        }
    }
}
