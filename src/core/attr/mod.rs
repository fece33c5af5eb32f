//! Primitive attributes and post-ops: the objects behind
//! `dnnl_primitive_attr_t` and `dnnl_post_ops_t`.
//!
//! Layer: core. Plain values, their argument rules and the two handle
//! objects; no C pointers. Depends on `memory_desc` (dropout masks, binary
//! operands), `settings` (the default floating-point math mode) and `names`
//! (the verbose spelling of enumerators).
//!
//! The model has two levels:
//! - [`PrimitiveAttr`] and [`PostOps`] are ordinary values (`Clone`,
//!   `PartialEq`, `Debug`). A primitive descriptor takes a snapshot of the
//!   caller's attributes when it is created ([`resolve_attr`]) and reads the
//!   public fields; later changes to the C object do not reach it.
//! - [`AttrCell`] and [`PostOpsCell`] are what the C handles stand for: the
//!   C API mutates them through `&self`, so each keeps its value behind a
//!   `Mutex`. The post-ops an attribute object returns from
//!   `dnnl_primitive_attr_get_post_ops` are a *view* of the attribute's own
//!   post-ops ([`PostOpsCell`] of kind "view"), exactly as upstream hands out
//!   a pointer into the attribute: appending through it changes the
//!   attribute, and its handle dies with the attribute.
//!
//! Every setter checks its arguments the way oneDNN v3.13 does (the rules
//! were taken from the reference library, call by call); the few places
//! where we are stricter are noted on the C functions.
//!
//! - `quant`: scales, zero points, precomputed reductions;
//! - `post_ops`: the post-op chain;
//! - `verbose`: the attribute field of `ONEDNN_VERBOSE` lines.

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

mod post_ops;
mod quant;
mod verbose;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::ffi::CStr;
use std::sync::{Arc, LazyLock, Mutex, Weak};

use crate::abi::*;
use crate::core::error::{Error, Result};
use crate::core::memory_desc::MemoryDesc;
use crate::core::settings;

pub use post_ops::{POST_OPS_LIMIT, PostOp, PostOps, PostOpsCell};
pub use quant::{QuantKind, QuantSpec};
pub use verbose::{arg_name, fmt_float};

/// The floating-point math mode and whether it also applies to integer
/// primitives (`dnnl_primitive_attr_set_fpmath_mode_v2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FpMath {
    pub mode: dnnl_fpmath_mode_t,
    pub apply_to_int: bool,
}

/// The dropout attribute (`dnnl_primitive_attr_set_dropout{,_v2}`). The
/// probability, seed and offset are execution arguments
/// (`DNNL_ARG_ATTR_DROPOUT_*`); only their form is fixed here.
#[derive(Clone, Debug, PartialEq)]
pub struct Dropout {
    /// Where the mask goes (`DNNL_ARG_ATTR_DROPOUT_MASK`): a `u8` descriptor,
    /// or the zero descriptor for "do not write the mask".
    pub mask_desc: Arc<MemoryDesc>,
    /// `dnnl_s32` or `dnnl_s64`: the type of the seed argument.
    pub seed_dt: dnnl_data_type_t,
    /// Whether an offset argument is passed and used.
    pub use_offset: bool,
    /// Whether probability, seed and offset come as host scalars.
    pub use_host_scalars: bool,
}

/// `dnnl_primitive_attr_set_rnn_data_qparams`: `scale * data + shift`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RnnDataQparams {
    pub scale: f32,
    pub shift: f32,
}

/// `dnnl_primitive_attr_set_rnn_weights{,_projection}_qparams`.
#[derive(Clone, Debug, PartialEq)]
pub struct RnnWeightsQparams {
    pub mask: i32,
    /// One value per mask-selected element (`count` of the C API, at least 1).
    /// Shared, so that the pointer the C getter returns stays valid while the
    /// attributes hold the value.
    pub scales: Arc<[f32]>,
}

impl Default for RnnWeightsQparams {
    fn default() -> Self {
        RnnWeightsQparams {
            mask: 0,
            scales: Arc::from([1.0f32]),
        }
    }
}

/// A snapshot of primitive attributes: what a primitive descriptor reads.
/// Maps are keyed by `DNNL_ARG_*` values and iterate in ascending order.
#[derive(Clone, Debug, PartialEq)]
pub struct PrimitiveAttr {
    /// `dnnl_scratchpad_mode_user`: the scratchpad is an execution argument
    /// (`DNNL_ARG_SCRATCHPAD`).
    pub scratchpad_user: bool,
    pub fpmath: FpMath,
    pub deterministic: bool,
    pub accumulation: dnnl_accumulation_mode_t,
    /// Rounding per destination argument; only non-default (stochastic)
    /// entries are stored.
    pub rounding: BTreeMap<i32, dnnl_rounding_mode_t>,
    pub dropout: Option<Dropout>,
    /// Scales per argument (`DNNL_ARG_ATTR_SCALES | arg` at execution).
    pub scales: BTreeMap<i32, QuantSpec>,
    /// Zero points per argument (`DNNL_ARG_ATTR_ZERO_POINTS | arg`).
    pub zero_points: BTreeMap<i32, QuantSpec>,
    /// Precomputed reductions (`DNNL_ARG_ATTR_PRECOMPUTED_REDUCTIONS | arg`).
    pub precomputed_reductions: BTreeMap<i32, QuantSpec>,
    pub post_ops: PostOps,
    pub rnn_data_qparams: RnnDataQparams,
    pub rnn_weights_qparams: RnnWeightsQparams,
    pub rnn_weights_projection_qparams: RnnWeightsQparams,
}

/// Default attributes; the floating-point math mode is the process default
/// at the time of the call (`dnnl_set_default_fpmath_mode`,
/// `ONEDNN_DEFAULT_FPMATH_MODE`), as for a newly created attribute object.
impl Default for PrimitiveAttr {
    fn default() -> Self {
        PrimitiveAttr {
            scratchpad_user: false,
            fpmath: FpMath {
                mode: settings::default_fpmath_mode(),
                apply_to_int: false,
            },
            deterministic: false,
            accumulation: dnnl_accumulation_mode_strict,
            rounding: BTreeMap::new(),
            dropout: None,
            scales: BTreeMap::new(),
            zero_points: BTreeMap::new(),
            precomputed_reductions: BTreeMap::new(),
            post_ops: PostOps::default(),
            rnn_data_qparams: RnnDataQparams {
                scale: 1.0,
                shift: 0.0,
            },
            rnn_weights_qparams: RnnWeightsQparams::default(),
            rnn_weights_projection_qparams: RnnWeightsQparams::default(),
        }
    }
}

/// Whether `value` is one of the declared enumerators of its C enum.
fn declared<T: Copy + PartialEq>(all: &[(&'static CStr, T)], value: T) -> bool {
    all.iter().any(|(_, v)| *v == value)
}

/// The zero memory descriptor that getters return where nothing is set (the
/// dropout mask, a binary post-op's unused third operand). One shared
/// object, so its handle is stable; nobody owns it, so nobody can destroy it.
pub fn zero_md() -> Arc<MemoryDesc> {
    static ZERO: LazyLock<Arc<MemoryDesc>> = LazyLock::new(|| Arc::new(MemoryDesc::zero()));
    ZERO.clone()
}

impl PrimitiveAttr {
    /// `dnnl_primitive_attr_set_scratchpad_mode`.
    pub fn set_scratchpad_mode(&mut self, mode: dnnl_scratchpad_mode_t) -> Result<()> {
        self.scratchpad_user = match mode {
            dnnl_scratchpad_mode_library => false,
            dnnl_scratchpad_mode_user => true,
            other => {
                return Err(Error::invalid(format!(
                    "{} is not a scratchpad mode",
                    other.0
                )));
            }
        };
        Ok(())
    }

    /// The scratchpad mode as C sees it.
    pub fn scratchpad_mode(&self) -> dnnl_scratchpad_mode_t {
        if self.scratchpad_user {
            dnnl_scratchpad_mode_user
        } else {
            dnnl_scratchpad_mode_library
        }
    }

    /// `dnnl_primitive_attr_set_fpmath_mode{,_v2}` (the first passes
    /// `apply_to_int = false`, as upstream does).
    pub fn set_fpmath(&mut self, mode: dnnl_fpmath_mode_t, apply_to_int: bool) -> Result<()> {
        let mode = settings::check_fpmath_mode(mode)?;
        self.fpmath = FpMath { mode, apply_to_int };
        Ok(())
    }

    /// `dnnl_primitive_attr_set_accumulation_mode`.
    pub fn set_accumulation_mode(&mut self, mode: dnnl_accumulation_mode_t) -> Result<()> {
        if !declared(dnnl_accumulation_mode_t::ALL, mode) {
            return Err(Error::invalid(format!(
                "{} is not an accumulation mode",
                mode.0
            )));
        }
        self.accumulation = mode;
        Ok(())
    }

    /// `dnnl_primitive_attr_set_rounding`. As upstream: `environment` is the
    /// default and setting it changes nothing, for any argument; the other
    /// modes apply to `DNNL_ARG_DST`, `DNNL_ARG_DIFF_SRC` and
    /// `DNNL_ARG_DIFF_WEIGHTS` only. Unlike upstream, which stores any other
    /// integer as given, a value that is not a rounding mode is refused.
    pub fn set_rounding(&mut self, arg: i32, mode: dnnl_rounding_mode_t) -> Result<()> {
        if mode == dnnl_rounding_mode_environment {
            return Ok(());
        }
        if !declared(dnnl_rounding_mode_t::ALL, mode) {
            return Err(Error::invalid(format!("{} is not a rounding mode", mode.0)));
        }
        if ![DNNL_ARG_DST, DNNL_ARG_DIFF_SRC, DNNL_ARG_DIFF_WEIGHTS].contains(&arg) {
            return Err(Error::invalid(format!(
                "rounding modes apply to dst, diff_src and diff_weights, not to argument {arg}"
            )));
        }
        self.rounding.insert(arg, mode);
        Ok(())
    }

    /// The rounding mode of `arg` (`environment` unless set).
    pub fn rounding(&self, arg: i32) -> dnnl_rounding_mode_t {
        self.rounding
            .get(&arg)
            .copied()
            .unwrap_or(dnnl_rounding_mode_environment)
    }

    /// `dnnl_primitive_attr_set_dropout{,_v2}`: the mask descriptor is the
    /// zero descriptor or of type `u8`; the seed is `s32` or `s64`.
    pub fn set_dropout(
        &mut self,
        mask_desc: &MemoryDesc,
        seed_dt: dnnl_data_type_t,
        use_offset: bool,
        use_host_scalars: bool,
    ) -> Result<()> {
        if !mask_desc.is_zero() && mask_desc.data_type() != dnnl_u8 {
            return Err(Error::invalid(
                "a dropout mask descriptor is of type u8 (or the zero descriptor)",
            ));
        }
        if seed_dt != dnnl_s32 && seed_dt != dnnl_s64 {
            return Err(Error::invalid(format!(
                "the dropout seed is s32 or s64, not data type {}",
                seed_dt.0
            )));
        }
        self.dropout = Some(Dropout {
            mask_desc: Arc::new(mask_desc.clone()),
            seed_dt,
            use_offset,
            use_host_scalars,
        });
        Ok(())
    }

    /// `dnnl_primitive_attr_set_rnn_data_qparams` (any values).
    pub fn set_rnn_data_qparams(&mut self, scale: f32, shift: f32) {
        self.rnn_data_qparams = RnnDataQparams { scale, shift };
    }

    /// `dnnl_primitive_attr_set_rnn_weights_qparams` (`projection` false) and
    /// `..._projection_qparams` (true): at least one scale, a mask `>= 0`;
    /// with a single scale the mask is stored as 0 (upstream does so).
    pub fn set_rnn_weights_qparams(
        &mut self,
        projection: bool,
        mask: i32,
        scales: &[f32],
    ) -> Result<()> {
        if mask < 0 {
            return Err(Error::invalid(format!("mask {mask} is negative")));
        }
        if scales.is_empty() {
            return Err(Error::invalid("an RNN weights scale count is at least 1"));
        }
        // As upstream: a single scale is common, whatever the mask said.
        let mask = if scales.len() == 1 { 0 } else { mask };
        let value = RnnWeightsQparams {
            mask,
            scales: Arc::from(scales),
        };
        if projection {
            self.rnn_weights_projection_qparams = value;
        } else {
            self.rnn_weights_qparams = value;
        }
        Ok(())
    }

    /// The parts that differ from the defaults, for a primitive that refuses
    /// what it cannot honour. The scratchpad and floating-point math modes
    /// are not listed: every primitive accepts them (upstream does the same).
    pub fn non_default_parts(&self) -> Vec<AttrPart> {
        let default = PrimitiveAttr::default();
        [
            (
                AttrPart::AccMode,
                self.accumulation != dnnl_accumulation_mode_strict,
            ),
            (AttrPart::Deterministic, self.deterministic),
            (AttrPart::Scales, !self.scales.is_empty()),
            (AttrPart::ZeroPoints, !self.zero_points.is_empty()),
            (
                AttrPart::PrecomputedReductions,
                !self.precomputed_reductions.is_empty(),
            ),
            (AttrPart::PostOps, !self.post_ops.is_empty()),
            (
                AttrPart::RnnDataQparams,
                self.rnn_data_qparams != default.rnn_data_qparams,
            ),
            (
                AttrPart::RnnWeightsQparams,
                self.rnn_weights_qparams != default.rnn_weights_qparams,
            ),
            (
                AttrPart::RnnWeightsProjectionQparams,
                self.rnn_weights_projection_qparams != default.rnn_weights_projection_qparams,
            ),
            (AttrPart::Dropout, self.dropout.is_some()),
            (AttrPart::RoundingMode, !self.rounding.is_empty()),
        ]
        .into_iter()
        .filter_map(|(part, differs)| differs.then_some(part))
        .collect()
    }

    /// Whether nothing but the scratchpad and floating-point math modes
    /// differs from the defaults.
    pub fn is_default(&self) -> bool {
        self.non_default_parts().is_empty()
    }
}

/// A part of the attributes that a primitive kind applies or refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrPart {
    AccMode,
    Deterministic,
    Scales,
    ZeroPoints,
    PrecomputedReductions,
    PostOps,
    RnnDataQparams,
    RnnWeightsQparams,
    RnnWeightsProjectionQparams,
    Dropout,
    RoundingMode,
}

impl AttrPart {
    /// The part's name in messages (`post-ops`, `zero-points`, ...).
    pub fn name(self) -> &'static str {
        match self {
            AttrPart::AccMode => "acc-mode",
            AttrPart::Deterministic => "deterministic",
            AttrPart::Scales => "scales",
            AttrPart::ZeroPoints => "zero-points",
            AttrPart::PrecomputedReductions => "precomputed-reductions",
            AttrPart::PostOps => "post-ops",
            AttrPart::RnnDataQparams => "rnn-data-qparams",
            AttrPart::RnnWeightsQparams => "rnn-weights-qparams",
            AttrPart::RnnWeightsProjectionQparams => "rnn-weights-projection-qparams",
            AttrPart::Dropout => "dropout",
            AttrPart::RoundingMode => "rounding-mode",
        }
    }
}

/// What a primitive kind declares it applies: the attribute parts, and for
/// scales and zero points the arguments that may carry them. The framework
/// refuses everything else (unimplemented) before any implementation is
/// tried; the kind then checks the finer rules (masks, data types) of what
/// it declared.
#[derive(Clone, Copy)]
pub struct AttrSupport {
    /// The parts applied besides the scratchpad and floating-point math modes.
    pub parts: &'static [AttrPart],
    /// Whether argument `arg` may carry scales.
    pub scales: fn(i32) -> bool,
    /// Whether argument `arg` may carry zero points.
    pub zero_points: fn(i32) -> bool,
}

fn no_arg(_: i32) -> bool {
    false
}

impl AttrSupport {
    /// Nothing but the scratchpad and floating-point math modes.
    pub const NONE: AttrSupport = AttrSupport {
        parts: &[],
        scales: no_arg,
        zero_points: no_arg,
    };

    /// The given parts, with no scales or zero points.
    pub const fn parts(parts: &'static [AttrPart]) -> AttrSupport {
        AttrSupport {
            parts,
            scales: no_arg,
            zero_points: no_arg,
        }
    }

    /// Refuses, naming them, the parts of `attr` that `kind` does not apply,
    /// and scales or zero points on arguments that take none.
    pub fn check(&self, attr: &PrimitiveAttr, kind: &str) -> Result<()> {
        let refused: Vec<&str> = attr
            .non_default_parts()
            .into_iter()
            .filter(|p| !self.parts.contains(p))
            .map(AttrPart::name)
            .collect();
        if !refused.is_empty() {
            return Err(Error::unimplemented(format!(
                "{kind} does not apply these attributes: {}",
                refused.join(", ")
            )));
        }
        for (&arg, what, allowed) in attr
            .scales
            .keys()
            .map(|a| (a, "scales", self.scales))
            .chain(
                attr.zero_points
                    .keys()
                    .map(|a| (a, "zero points", self.zero_points)),
            )
        {
            if !allowed(arg) {
                return Err(Error::unimplemented(format!(
                    "{kind} takes no {what} for argument {arg}"
                )));
            }
        }
        Ok(())
    }
}

/// The object behind a `dnnl_primitive_attr_t`: attributes the C API
/// changes in place, and the view of their post-ops that
/// `dnnl_primitive_attr_get_post_ops` hands out.
pub struct AttrCell {
    value: Mutex<PrimitiveAttr>,
    post_ops_view: Arc<PostOpsCell>,
}

impl AttrCell {
    /// Default attributes (`dnnl_primitive_attr_create`).
    pub fn new() -> Arc<AttrCell> {
        AttrCell::from_snapshot(PrimitiveAttr::default())
    }

    /// An object holding `value` (`dnnl_primitive_attr_clone`, and the
    /// attributes a primitive descriptor reports).
    pub fn from_snapshot(value: PrimitiveAttr) -> Arc<AttrCell> {
        Arc::new_cyclic(|me: &Weak<AttrCell>| AttrCell {
            value: Mutex::new(value),
            post_ops_view: Arc::new(PostOpsCell::view_of(me.clone())),
        })
    }

    /// A copy of the current value: what a primitive descriptor keeps.
    pub fn snapshot(&self) -> Result<PrimitiveAttr> {
        Ok(self.value.lock()?.clone())
    }

    /// Reads the current value.
    pub fn read<R>(&self, f: impl FnOnce(&PrimitiveAttr) -> R) -> Result<R> {
        Ok(f(&*self.value.lock()?))
    }

    /// Changes the value; on error nothing is changed (every setter checks
    /// before it writes).
    pub fn update<R>(&self, f: impl FnOnce(&mut PrimitiveAttr) -> Result<R>) -> Result<R> {
        f(&mut *self.value.lock()?)
    }

    /// The post-ops view (`dnnl_primitive_attr_get_post_ops`): the same
    /// object for the attributes' whole life.
    pub fn post_ops_view(&self) -> &Arc<PostOpsCell> {
        &self.post_ops_view
    }
}
