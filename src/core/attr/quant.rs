//! Quantization attributes: scales, zero points and precomputed reductions.
//!
//! Layer: core. One value type ([`QuantSpec`]) for the three, and the rules
//! oneDNN v3.13 applies when they are set. The rules were read off the
//! reference library, call by call:
//! - the mask is `>= 0`; the group count is 0 or 2, each group dimension
//!   `> 0`, and groups need a non-zero mask;
//! - a host-side scalar has mask 0 (hence no groups);
//! - scales: any argument with the `DNNL_ARG_MULTIPLE_SRC` bit, `SRC_0..2`,
//!   `DST`, `WEIGHTS_0..2` and the depthwise post-op's `SRC`/`WEIGHTS`/`DST`;
//!   `f32`, `bf16`, `f16`, and with a non-zero mask also `f8_e4m3`, `e8m0`;
//!   the quantization mode is `static_sazp`, `dynamic_mx` or `dynamic_fp`;
//! - zero points: `SRC`, `SRC_2`, `DST`, `WEIGHTS_0..2`; `s32`, `s8`, `u8`,
//!   and with a non-zero mask also `s4`, `u4`;
//! - precomputed reductions: `SRC` only, of type `s32`.

use crate::abi::*;
use crate::core::error::{Error, Result};

/// Which of the three quantization attributes a [`QuantSpec`] belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuantKind {
    Scales,
    ZeroPoints,
    PrecomputedReductions,
}

/// How one argument is quantized: the values are execution arguments
/// (`DNNL_ARG_ATTR_SCALES | arg`, ...); this says their shape and type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuantSpec {
    /// Bit `d` set: one value per index along dimension `d`.
    pub mask: i32,
    pub data_type: dnnl_data_type_t,
    /// Block sizes over the last two dimensions, if grouped.
    pub groups: Option<[i64; 2]>,
    /// A single value passed as a host-scalar memory object.
    pub on_host: bool,
    /// `dnnl_quantization_mode_static_sazp` unless set otherwise (scales only).
    pub qmode: dnnl_quantization_mode_t,
}

impl QuantKind {
    /// The attribute's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            QuantKind::Scales => "scales",
            QuantKind::ZeroPoints => "zero points",
            QuantKind::PrecomputedReductions => "precomputed reductions",
        }
    }

    /// The data type that the `*_mask` setters imply.
    pub fn default_data_type(self) -> dnnl_data_type_t {
        match self {
            QuantKind::Scales => dnnl_f32,
            QuantKind::ZeroPoints | QuantKind::PrecomputedReductions => dnnl_s32,
        }
    }

    /// Whether `arg` may carry this attribute.
    pub fn accepts_arg(self, arg: i32) -> bool {
        let dw = DNNL_ARG_ATTR_POST_OP_DW;
        match self {
            QuantKind::Scales => {
                (arg >= 0 && arg & DNNL_ARG_MULTIPLE_SRC != 0)
                    || [
                        DNNL_ARG_SRC_0,
                        DNNL_ARG_SRC_1,
                        DNNL_ARG_SRC_2,
                        DNNL_ARG_DST,
                        DNNL_ARG_WEIGHTS_0,
                        DNNL_ARG_WEIGHTS_1,
                        DNNL_ARG_WEIGHTS_2,
                        dw | DNNL_ARG_SRC,
                        dw | DNNL_ARG_WEIGHTS,
                        dw | DNNL_ARG_DST,
                    ]
                    .contains(&arg)
            }
            QuantKind::ZeroPoints => [
                DNNL_ARG_SRC_0,
                DNNL_ARG_SRC_2,
                DNNL_ARG_DST,
                DNNL_ARG_WEIGHTS_0,
                DNNL_ARG_WEIGHTS_1,
                DNNL_ARG_WEIGHTS_2,
            ]
            .contains(&arg),
            QuantKind::PrecomputedReductions => arg == DNNL_ARG_SRC,
        }
    }

    /// Whether values of type `dt` may be given with this mask.
    fn accepts_data_type(self, dt: dnnl_data_type_t, mask: i32) -> bool {
        let per_dimension = mask != 0;
        match self {
            QuantKind::Scales => {
                [dnnl_f32, dnnl_bf16, dnnl_f16].contains(&dt)
                    || (per_dimension && [dnnl_f8_e4m3, dnnl_e8m0].contains(&dt))
            }
            QuantKind::ZeroPoints => {
                [dnnl_s32, dnnl_s8, dnnl_u8].contains(&dt)
                    || (per_dimension && [dnnl_s4, dnnl_u4].contains(&dt))
            }
            QuantKind::PrecomputedReductions => dt == dnnl_s32,
        }
    }
}

impl QuantSpec {
    /// Checks and builds a specification. `groups` holds the C call's group
    /// dimensions (0 or 2 of them).
    pub fn new(
        kind: QuantKind,
        mask: i32,
        groups: &[i64],
        data_type: dnnl_data_type_t,
        on_host: bool,
        qmode: dnnl_quantization_mode_t,
    ) -> Result<QuantSpec> {
        let what = kind.name();
        if mask < 0 {
            return Err(Error::invalid(format!("{what}: mask {mask} is negative")));
        }
        let groups = match *groups {
            [] => None,
            [g0, g1] => {
                if g0 <= 0 || g1 <= 0 {
                    return Err(Error::invalid(format!(
                        "{what}: group dimensions {g0}x{g1} are not positive"
                    )));
                }
                if mask == 0 {
                    return Err(Error::invalid(format!(
                        "{what}: groups need a non-zero mask"
                    )));
                }
                Some([g0, g1])
            }
            _ => {
                return Err(Error::invalid(format!(
                    "{what}: {} group dimensions given, 0 or 2 are supported",
                    groups.len()
                )));
            }
        };
        if !kind.accepts_data_type(data_type, mask) {
            return Err(Error::invalid(format!(
                "{what}: data type {} is not supported with mask {mask}",
                crate::core::names::enum_str(dnnl_data_type_t::ALL, data_type, "dnnl_", "?")
            )));
        }
        if on_host && mask != 0 {
            return Err(Error::invalid(format!(
                "{what}: a host-side scalar has mask 0"
            )));
        }
        let modes = [
            dnnl_quantization_mode_static_sazp,
            dnnl_quantization_mode_dynamic_mx,
            dnnl_quantization_mode_dynamic_fp,
        ];
        if !modes.contains(&qmode) {
            return Err(Error::invalid(format!(
                "{what}: {} is not a quantization mode",
                qmode.0
            )));
        }
        Ok(QuantSpec {
            mask,
            data_type,
            groups,
            on_host,
            qmode,
        })
    }

    /// What the `*_mask` setters store: `mask` with the kind's default type.
    pub fn with_mask(kind: QuantKind, mask: i32) -> Result<QuantSpec> {
        QuantSpec::new(
            kind,
            mask,
            &[],
            kind.default_data_type(),
            false,
            dnnl_quantization_mode_static_sazp,
        )
    }
}

impl super::PrimitiveAttr {
    /// Sets the scales, zero points or precomputed reductions of `arg`,
    /// replacing what was set for it before.
    pub fn set_quant(&mut self, kind: QuantKind, arg: i32, spec: QuantSpec) -> Result<()> {
        if !kind.accepts_arg(arg) {
            return Err(Error::invalid(format!(
                "{} cannot be set for argument {arg}",
                kind.name()
            )));
        }
        let map = match kind {
            QuantKind::Scales => &mut self.scales,
            QuantKind::ZeroPoints => &mut self.zero_points,
            QuantKind::PrecomputedReductions => &mut self.precomputed_reductions,
        };
        map.insert(arg, spec);
        Ok(())
    }
}
