//! The attribute field of `ONEDNN_VERBOSE` primitive lines.
//!
//! Layer: core. Pure formatting. Parts are separated by spaces, entries of
//! one part by `+`, and only what differs from the defaults is printed:
//! `attr-scratchpad:user attr-fpmath:bf16:true attr-acc-mode:relaxed
//! attr-deterministic:true attr-scales:src0:0:f32+wei:2:f16:4x1
//! attr-zero-points:src0:0:s32 attr-post-ops:eltwise_relu+sum:0.5+binary_add:f32:3:ab
//! rnn_data_qparams:63:64.5; attr-dropout:ab attr-rounding-mode:dst:stochastic`.
//!
//! The spellings of the scratchpad, fpmath, scales, zero-point, post-op and
//! RNN parts were checked against oneDNN's own output (a CPU build of
//! upstream, and lines published from v3.12); those of the parts newer than
//! the builds we could run (accumulation mode, determinism, groups, host
//! scalars, quantization modes, precomputed reductions, dropout, rounding)
//! follow the same pattern and are ours.

use crate::abi::*;
use crate::core::names::enum_str;

use super::{PostOp, PrimitiveAttr, QuantSpec};

/// A float as C++ streams print it by default (`%g`: 6 significant digits,
/// no trailing zeros, exponent form below 1e-4 and from 1e6).
pub fn fmt_float(x: f32) -> String {
    let x = f64::from(x);
    if x.is_nan() {
        return if x.is_sign_negative() { "-nan" } else { "nan" }.to_string();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.to_string();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    const PRECISION: i32 = 6;
    let scientific = format!("{:.*e}", (PRECISION - 1) as usize, x);
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if (-4..PRECISION).contains(&exponent) {
        let fixed = format!("{:.*}", (PRECISION - 1 - exponent) as usize, x);
        trim_zeros(&fixed).to_string()
    } else {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim_zeros(mantissa), exponent.abs())
    }
}

/// Drops trailing zeros of a decimal fraction, and the point if nothing is left.
fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// An execution argument as the verbose log names it (`src0`, `wei`, `dst`,
/// `msrc2`, `attr_post_op_dw_wei`, ...).
pub fn arg_name(arg: i32) -> String {
    if arg >= 0 && arg & DNNL_ARG_MULTIPLE_SRC != 0 {
        return format!("msrc{}", arg - DNNL_ARG_MULTIPLE_SRC);
    }
    let name = match arg {
        DNNL_ARG_SRC_0 => "src0",
        DNNL_ARG_SRC_1 => "src1",
        DNNL_ARG_SRC_2 => "src2",
        DNNL_ARG_DST => "dst",
        DNNL_ARG_WEIGHTS_0 => "wei",
        DNNL_ARG_WEIGHTS_1 => "wei1",
        DNNL_ARG_WEIGHTS_2 => "wei2",
        DNNL_ARG_BIAS => "bia",
        DNNL_ARG_DIFF_SRC => "diff_src",
        DNNL_ARG_DIFF_WEIGHTS => "diff_wei",
        DNNL_ARG_DIFF_DST => "diff_dst",
        a if a == DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_SRC => "attr_post_op_dw_src",
        a if a == DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS => "attr_post_op_dw_wei",
        a if a == DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_DST => "attr_post_op_dw_dst",
        _ => "unsupported arg",
    };
    name.to_string()
}

fn dt_name(dt: dnnl_data_type_t) -> &'static str {
    enum_str(dnnl_data_type_t::ALL, dt, "dnnl_", "unknown dt")
}

fn alg_name(alg: dnnl_alg_kind_t) -> &'static str {
    enum_str(dnnl_alg_kind_t::ALL, alg, "dnnl_", "unknown alg")
}

/// `mask:dt[:G0xG1][:qmode][:host_scalar]`.
fn quant_entry(spec: &QuantSpec) -> String {
    let mut s = format!("{}:{}", spec.mask, dt_name(spec.data_type));
    if let Some([g0, g1]) = spec.groups {
        s.push_str(&format!(":{g0}x{g1}"));
    }
    if spec.qmode != dnnl_quantization_mode_static_sazp {
        s.push(':');
        s.push_str(enum_str(
            dnnl_quantization_mode_t::ALL,
            spec.qmode,
            "dnnl_quantization_mode_",
            "unknown",
        ));
    }
    if spec.on_host {
        s.push_str(":host_scalar");
    }
    s
}

fn quant_part<'a>(
    name: &str,
    entries: impl IntoIterator<Item = (&'a i32, &'a QuantSpec)>,
) -> Option<String> {
    let list: Vec<String> = entries
        .into_iter()
        .map(|(arg, spec)| format!("{}:{}", arg_name(*arg), quant_entry(spec)))
        .collect();
    (!list.is_empty()).then(|| format!("attr-{name}:{}", list.join("+")))
}

/// A descriptor's layout for the log: its tag, `any`, or nothing.
fn md_tag(md: &crate::core::memory_desc::MemoryDesc) -> String {
    if md.is_any_format() {
        "any".to_string()
    } else {
        md.layout_tag()
    }
}

fn post_op_entry(op: &PostOp) -> String {
    match op {
        PostOp::Sum {
            scale,
            zero_point,
            data_type,
        } => {
            let mut s = "sum".to_string();
            let has_dt = *data_type != dnnl_data_type_undef;
            if *scale != 1.0 || *zero_point != 0 || has_dt {
                s.push_str(&format!(":{}", fmt_float(*scale)));
            }
            if *zero_point != 0 || has_dt {
                s.push_str(&format!(":{zero_point}"));
            }
            if has_dt {
                s.push_str(&format!(":{}", dt_name(*data_type)));
            }
            s
        }
        PostOp::Eltwise { alg, alpha, beta } => {
            let mut s = alg_name(*alg).to_string();
            if *alpha != 0.0 || *beta != 0.0 {
                s.push_str(&format!(":{}", fmt_float(*alpha)));
            }
            if *beta != 0.0 {
                s.push_str(&format!(":{}", fmt_float(*beta)));
            }
            s
        }
        PostOp::Binary { alg, src1, src2 } => {
            // The mask marks the dimensions src1 does not broadcast over.
            let dims = src1.dims();
            let mask: u32 = (0..dims.len())
                .filter(|&d| dims[d] != 1)
                .map(|d| 1 << d)
                .sum();
            let mut s = format!("{}:{}:{mask}", alg_name(*alg), dt_name(src1.data_type()));
            if mask.count_ones() > 1 {
                s.push_str(&format!(":{}", md_tag(src1)));
            }
            if let (true, Some(src2)) = (*alg == dnnl_binary_select, src2) {
                s.push_str(&format!(":{}", dt_name(src2.data_type())));
            }
            s
        }
        PostOp::Prelu { mask } => format!("prelu:{mask}"),
        PostOp::Depthwise {
            weights_dt,
            dst_dt,
            kernel,
            stride,
            padding_l,
            ..
        } => {
            let mut s = format!("dw:k{kernel}s{stride}p{padding_l}");
            if *weights_dt == dnnl_s8 || *dst_dt != dnnl_f32 {
                s.push_str(&format!(":{}", dt_name(*dst_dt)));
            }
            s
        }
    }
}

impl PrimitiveAttr {
    /// The attribute field of a verbose primitive line (empty for defaults).
    pub fn to_verbose(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        if self.scratchpad_user {
            parts.push("attr-scratchpad:user".to_string());
        }
        if self.fpmath.mode != dnnl_fpmath_mode_strict || self.fpmath.apply_to_int {
            let mode = enum_str(
                dnnl_fpmath_mode_t::ALL,
                self.fpmath.mode,
                "dnnl_fpmath_mode_",
                "unknown",
            );
            let int = if self.fpmath.apply_to_int {
                ":true"
            } else {
                ""
            };
            parts.push(format!("attr-fpmath:{mode}{int}"));
        }
        if self.accumulation != dnnl_accumulation_mode_strict {
            let mode = enum_str(
                dnnl_accumulation_mode_t::ALL,
                self.accumulation,
                "dnnl_accumulation_mode_",
                "unknown",
            );
            parts.push(format!("attr-acc-mode:{mode}"));
        }
        if self.deterministic {
            parts.push("attr-deterministic:true".to_string());
        }
        parts.extend(quant_part("scales", &self.scales));
        parts.extend(quant_part("zero-points", &self.zero_points));
        parts.extend(quant_part(
            "precomputed-reductions",
            &self.precomputed_reductions,
        ));
        if !self.post_ops.is_empty() {
            let list: Vec<String> = self.post_ops.entries().iter().map(post_op_entry).collect();
            parts.push(format!("attr-post-ops:{}", list.join("+")));
        }
        let q = self.rnn_data_qparams;
        if q.scale != 1.0 || q.shift != 0.0 {
            parts.push(format!(
                "rnn_data_qparams:{}:{};",
                fmt_float(q.scale),
                fmt_float(q.shift)
            ));
        }
        if let Some(d) = &self.dropout {
            let mut s = "attr-dropout".to_string();
            if !d.mask_desc.is_zero() {
                s.push_str(&format!(":{}", md_tag(&d.mask_desc)));
            }
            if d.seed_dt != dnnl_s32 {
                s.push_str(&format!(":{}", dt_name(d.seed_dt)));
            }
            if d.use_offset {
                s.push_str(":offset");
            }
            if d.use_host_scalars {
                s.push_str(":host_scalars");
            }
            parts.push(s);
        }
        if !self.rounding.is_empty() {
            let list: Vec<String> = self
                .rounding
                .iter()
                .map(|(arg, mode)| {
                    let mode = enum_str(
                        dnnl_rounding_mode_t::ALL,
                        *mode,
                        "dnnl_rounding_mode_",
                        "unknown",
                    );
                    format!("{}:{mode}", arg_name(*arg))
                })
                .collect();
            parts.push(format!("attr-rounding-mode:{}", list.join("+")));
        }
        parts.join(" ")
    }
}
