//! The eltwise algorithms (`dnnl_eltwise_*`): the [`Alg`] table, and one
//! formula each, shared by the eltwise primitive, eltwise post-ops and
//! softmax ([`exp_f32`]), on the CPU (in `f32`: [`fwd`], [`bwd`]) and as
//! OpenCL C (`eltwise_alg.cl`'s `eltwise_fwd`, where `ELT_<NAME>` names the
//! same forward function, numbered by [`Alg::cl_id`]).
//!
//! Layer: prims.

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

use crate::abi::*;

/// The forward formulas as OpenCL C (`eltwise_fwd(alg, s, alpha, beta)`),
/// which the eltwise kernels and post-ops build on.
pub const CL_SOURCE: &str = include_str!("eltwise_alg.cl");

/// The eltwise algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Alg {
    Relu,
    Tanh,
    Elu,
    Square,
    Abs,
    Sqrt,
    Linear,
    SoftRelu,
    HardSigmoid,
    Logistic,
    Exp,
    GeluTanh,
    Swish,
    Log,
    Clip,
    ClipV2,
    Pow,
    GeluErf,
    Round,
    Mish,
    HardSwish,
    ReluDst,
    TanhDst,
    EluDst,
    SqrtDst,
    LogisticDst,
    ExpDst,
    ClipV2Dst,
}

/// Every algorithm with its C value and OpenCL macro name.
const ALGS: [(Alg, dnnl_alg_kind_t, &str); 28] = [
    (Alg::Relu, dnnl_eltwise_relu, "RELU"),
    (Alg::Tanh, dnnl_eltwise_tanh, "TANH"),
    (Alg::Elu, dnnl_eltwise_elu, "ELU"),
    (Alg::Square, dnnl_eltwise_square, "SQUARE"),
    (Alg::Abs, dnnl_eltwise_abs, "ABS"),
    (Alg::Sqrt, dnnl_eltwise_sqrt, "SQRT"),
    (Alg::Linear, dnnl_eltwise_linear, "LINEAR"),
    (Alg::SoftRelu, dnnl_eltwise_soft_relu, "SOFT_RELU"),
    (Alg::HardSigmoid, dnnl_eltwise_hardsigmoid, "HARDSIGMOID"),
    (Alg::Logistic, dnnl_eltwise_logistic, "LOGISTIC"),
    (Alg::Exp, dnnl_eltwise_exp, "EXP"),
    (Alg::GeluTanh, dnnl_eltwise_gelu_tanh, "GELU_TANH"),
    (Alg::Swish, dnnl_eltwise_swish, "SWISH"),
    (Alg::Log, dnnl_eltwise_log, "LOG"),
    (Alg::Clip, dnnl_eltwise_clip, "CLIP"),
    (Alg::ClipV2, dnnl_eltwise_clip_v2, "CLIP_V2"),
    (Alg::Pow, dnnl_eltwise_pow, "POW"),
    (Alg::GeluErf, dnnl_eltwise_gelu_erf, "GELU_ERF"),
    (Alg::Round, dnnl_eltwise_round, "ROUND"),
    (Alg::Mish, dnnl_eltwise_mish, "MISH"),
    (Alg::HardSwish, dnnl_eltwise_hardswish, "HARDSWISH"),
    (Alg::ReluDst, dnnl_eltwise_relu_use_dst_for_bwd, "RELU_DST"),
    (Alg::TanhDst, dnnl_eltwise_tanh_use_dst_for_bwd, "TANH_DST"),
    (Alg::EluDst, dnnl_eltwise_elu_use_dst_for_bwd, "ELU_DST"),
    (Alg::SqrtDst, dnnl_eltwise_sqrt_use_dst_for_bwd, "SQRT_DST"),
    (
        Alg::LogisticDst,
        dnnl_eltwise_logistic_use_dst_for_bwd,
        "LOGISTIC_DST",
    ),
    (Alg::ExpDst, dnnl_eltwise_exp_use_dst_for_bwd, "EXP_DST"),
    (
        Alg::ClipV2Dst,
        dnnl_eltwise_clip_v2_use_dst_for_bwd,
        "CLIP_V2_DST",
    ),
];

impl Alg {
    /// Every algorithm.
    pub fn all() -> impl Iterator<Item = Alg> {
        ALGS.iter().map(|a| a.0)
    }

    /// The algorithm of a C value, if it is an eltwise one.
    pub fn from_c(alg: dnnl_alg_kind_t) -> Option<Alg> {
        ALGS.iter().find(|a| a.1 == alg).map(|a| a.0)
    }

    /// The C value.
    pub fn to_c(self) -> dnnl_alg_kind_t {
        ALGS.iter()
            .find(|a| a.0 == self)
            .map_or(dnnl_alg_kind_undef, |a| a.1)
    }

    /// The name OpenCL kernels know it by (`-DALG_RELU`).
    pub fn cl_name(self) -> &'static str {
        ALGS.iter().find(|a| a.0 == self).map_or("RELU", |a| a.2)
    }

    /// The number `eltwise_alg.cl` knows the forward function by (`ELT_ID`):
    /// the position of [`Alg::forward_base`] in the table.
    pub fn cl_id(self) -> usize {
        let base = self.forward_base();
        ALGS.iter().position(|a| a.0 == base).unwrap_or(0)
    }

    /// Whether backward takes the forward destination instead of the source.
    pub fn use_dst(self) -> bool {
        matches!(
            self,
            Alg::ReluDst
                | Alg::TanhDst
                | Alg::EluDst
                | Alg::SqrtDst
                | Alg::LogisticDst
                | Alg::ExpDst
                | Alg::ClipV2Dst
        )
    }

    /// The algorithm whose forward function this one computes (the
    /// `_use_dst_for_bwd` variants compute their base function).
    pub fn forward_base(self) -> Alg {
        match self {
            Alg::ReluDst => Alg::Relu,
            Alg::TanhDst => Alg::Tanh,
            Alg::EluDst => Alg::Elu,
            Alg::SqrtDst => Alg::Sqrt,
            Alg::LogisticDst => Alg::Logistic,
            Alg::ExpDst => Alg::Exp,
            Alg::ClipV2Dst => Alg::ClipV2,
            other => other,
        }
    }
}

// ---------------------------------------------------------------------------
// The formulas (upstream's, in f32).

/// Beyond this, `exp` overflows f32 (upstream's bound for soft ReLU).
const EXP_OVERFLOW: f32 = 88.722_83;
const SQRT_2_OVER_PI: f32 = 0.797_884_6;
const GELU_TANH_C: f32 = 0.044_715;
const SQRT1_2: f32 = std::f32::consts::FRAC_1_SQRT_2;
/// 1 / sqrt(2 pi).
const INV_SQRT_2PI: f32 = 0.398_942_3;

fn logistic(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

fn soft_relu(x: f32, alpha: f32) -> f32 {
    let v = alpha * x;
    if v < EXP_OVERFLOW {
        v.exp().ln_1p() / alpha
    } else {
        x
    }
}

/// e^x in `f32` for x <= 88 (larger x is taken as 88), within ~2 ulp,
/// 0 below -87 (no subnormal results). Branch-free (Cephes' polynomial
/// after reduction by ln 2, 2^n put together from its bits), so loops over
/// it vectorise; NaN stays NaN.
#[inline(always)]
pub(crate) fn exp_f32(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    // 1.5 * 2^23: adding it rounds to an integer held in the low bits.
    const MAGIC: f32 = 12_582_912.0;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    let under = x < -87.0;
    let x = x.clamp(-87.0, 88.0);
    let t = x * LOG2E + MAGIC;
    let n = t - MAGIC;
    let k = (t.to_bits() as i32).wrapping_sub(0x4B40_0000);
    let r = x - n * LN2_HI - n * LN2_LO;
    let p = ((((1.987_569_1e-4 * r + 1.398_199_9e-3) * r + 8.333_452e-3) * r + 4.166_579_6e-2) * r
        + 1.666_666_5e-1)
        * r
        + 0.5;
    let y = p * r * r + r + 1.0;
    let scale = f32::from_bits(((k + 127) as u32) << 23);
    if under { 0.0 } else { y * scale }
}

/// erfc with a relative error of a few 1e-7 (Numerical Recipes' Chebyshev
/// fit, erfc(z) = t e^(-z^2 + P(t)), evaluated in `f32`): accurate in the
/// tails, where `1 - erf` would cancel. z^2 is split exactly into
/// `hi^2 + lo` so that the large part of the exponent is not rounded
/// (`eltwise.cl`'s `fast_erfc` is the same formula).
#[inline(always)]
pub(crate) fn erfc(x: f32) -> f32 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -1.265_512_2
        + t * (1.000_023_7
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_204
                                + t * (1.488_515_9 + t * (-0.822_152_2 + t * 0.170_872_77))))))));
    // z = hi + lo with hi's 12 significant bits: hi * hi is exact.
    let hi = f32::from_bits(z.to_bits() & 0xFFFF_F000);
    let lo = z - hi;
    let r = t * exp_f32(-hi * hi) * exp_f32(poly - lo * (z + hi));
    if x >= 0.0 { r } else { 2.0 - r }
}

/// Beyond this, tanh(soft_relu(x)) is 1 in f32 (and e^2x would overflow soon).
const MISH_ONE: f32 = 20.0;

/// tanh(soft_relu(x)) = p / (p + 2) with p = e^x (e^x + 2): one exp instead
/// of exp, log1p and tanh (the OpenCL kernel uses the same form).
fn mish_tanh(x: f32) -> f32 {
    if x > MISH_ONE {
        return 1.0;
    }
    let n = x.exp();
    let p = n * (n + 2.0);
    p / (p + 2.0)
}

fn hardsigmoid(x: f32, alpha: f32, beta: f32) -> f32 {
    (alpha * x + beta).clamp(0.0, 1.0)
}

fn clip(x: f32, alpha: f32, beta: f32) -> f32 {
    let v = if x > alpha { x } else { alpha };
    if v > beta { beta } else { v }
}

/// The forward function of `alg` at `s` (inlined: `fwd_block` calls it with
/// a constant `alg`, so each of its loops holds just one formula).
#[inline(always)]
pub(crate) fn fwd(alg: Alg, alpha: f32, beta: f32, s: f32) -> f32 {
    match alg.forward_base() {
        Alg::Relu => {
            if s > 0.0 {
                s
            } else {
                s * alpha
            }
        }
        Alg::Tanh => s.tanh(),
        Alg::Elu => {
            if s > 0.0 {
                s
            } else {
                alpha * s.exp_m1()
            }
        }
        Alg::Square => s * s,
        Alg::Abs => s.abs(),
        Alg::Sqrt => s.sqrt(),
        Alg::Linear => alpha * s + beta,
        Alg::SoftRelu => soft_relu(s, alpha),
        Alg::HardSigmoid => hardsigmoid(s, alpha, beta),
        Alg::Logistic => logistic(s),
        Alg::Exp => s.exp(),
        // 0.5 (1 + tanh(g)) = logistic(2g): no cancellation in the left tail.
        Alg::GeluTanh => s * logistic(2.0 * SQRT_2_OVER_PI * s * (1.0 + GELU_TANH_C * s * s)),
        Alg::Swish => s * logistic(alpha * s),
        Alg::Log => s.ln(),
        Alg::Clip | Alg::ClipV2 => clip(s, alpha, beta),
        Alg::Pow => alpha * s.powf(beta),
        Alg::GeluErf => 0.5 * s * erfc(-s * SQRT1_2),
        Alg::Round => s.round_ties_even(),
        Alg::Mish => s * mish_tanh(s),
        Alg::HardSwish => s * hardsigmoid(s, alpha, beta),
        // forward_base() never returns a `_use_dst_for_bwd` variant.
        _ => f32::NAN,
    }
}

/// The source gradient of `alg` for destination gradient `dd`, where `x` is
/// the source (or the destination, for the `_use_dst_for_bwd` algorithms).
pub(crate) fn bwd(alg: Alg, alpha: f32, beta: f32, dd: f32, x: f32) -> f32 {
    match alg {
        Alg::Relu | Alg::ReluDst => {
            if x > 0.0 {
                dd
            } else {
                dd * alpha
            }
        }
        Alg::Tanh => {
            let t = x.tanh();
            dd * (1.0 - t * t)
        }
        Alg::TanhDst => dd * (1.0 - x * x),
        Alg::Elu => {
            if x > 0.0 {
                dd
            } else {
                dd * alpha * x.exp()
            }
        }
        Alg::EluDst => {
            if x > 0.0 {
                dd
            } else {
                dd * (x + alpha)
            }
        }
        Alg::Square => dd * 2.0 * x,
        Alg::Abs => {
            if x > 0.0 {
                dd
            } else if x < 0.0 {
                -dd
            } else {
                0.0
            }
        }
        Alg::Sqrt => dd / (2.0 * x.sqrt()),
        Alg::SqrtDst => dd / (2.0 * x),
        Alg::Linear => dd * alpha,
        Alg::SoftRelu => dd * logistic(alpha * x),
        Alg::HardSigmoid => {
            let v = alpha * x + beta;
            if v > 0.0 && v < 1.0 { dd * alpha } else { 0.0 }
        }
        Alg::Logistic => {
            let v = logistic(x);
            dd * v * (1.0 - v)
        }
        Alg::LogisticDst => dd * x * (1.0 - x),
        Alg::Exp => dd * x.exp(),
        Alg::ExpDst => dd * x,
        Alg::GeluTanh => {
            // 0.5 (1 + tanh(g)) (1 + x (1 - tanh(g)) g'), with
            // 1 + tanh(g) = 2 logistic(2g) and 1 - tanh(g) = 2 logistic(-2g).
            let g = SQRT_2_OVER_PI * x * (1.0 + GELU_TANH_C * x * x);
            let dg = SQRT_2_OVER_PI * (1.0 + 3.0 * GELU_TANH_C * x * x);
            dd * logistic(2.0 * g) * (1.0 + 2.0 * x * logistic(-2.0 * g) * dg)
        }
        Alg::Swish => {
            let v = logistic(alpha * x);
            dd * (v + alpha * x * v * (1.0 - v))
        }
        Alg::Log => dd / x,
        Alg::Clip => {
            if alpha < x && x <= beta {
                dd
            } else {
                0.0
            }
        }
        Alg::ClipV2 | Alg::ClipV2Dst => {
            if alpha < x && x < beta {
                dd
            } else {
                0.0
            }
        }
        Alg::Pow => {
            if beta == 0.0 {
                0.0
            } else {
                dd * alpha * beta * x.powf(beta - 1.0)
            }
        }
        Alg::GeluErf => {
            let cdf = 0.5 * erfc(-x * SQRT1_2);
            let pdf = INV_SQRT_2PI * (-0.5 * x * x).exp();
            dd * (cdf + x * pdf)
        }
        Alg::Mish => {
            // t = tanh(soft_relu(x)) = p / q, 1 - t^2 = 4 (p + 1) / q^2,
            // logistic(x) = n / (n + 1), with n = e^x, p = n (n + 2), q = p + 2.
            if x > MISH_ONE {
                return dd;
            }
            let n = x.exp();
            let p = n * (n + 2.0);
            let q = p + 2.0;
            dd * (p / q + x * (4.0 * (p + 1.0) / (q * q)) * (n / (n + 1.0)))
        }
        Alg::HardSwish => {
            let v = alpha * x + beta;
            if v <= 0.0 {
                0.0
            } else if v >= 1.0 {
                dd
            } else {
                dd * (2.0 * alpha * x + beta)
            }
        }
        // Descriptor checks refuse round backward.
        Alg::Round => f32::NAN,
    }
}
