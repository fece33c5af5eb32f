//! The element types the primitives compute with, and their conversions to
//! and from `f32` (the type every element-wise computation runs in).
//!
//! Layer: prims. Pure functions over bytes; no driver, no C pointers.
//! Rounding follows upstream: `f16` and `bf16` round to nearest even; integer
//! stores round half to even and saturate (`s32` saturates at the largest
//! `f32` below 2^31, 2147483520, as upstream's `f32 -> s32` path does), and a
//! NaN stored to an integer type becomes 0.

#![allow(non_upper_case_globals)]

/// The OpenCL counterpart of this module (`types.cl`): every kernel source
/// starts with it.
pub const CL_TYPES: &str = include_str!("types.cl");

use crate::abi::*;

/// An element type a primitive reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Elem {
    F32,
    F16,
    Bf16,
    S32,
    S8,
    U8,
}

impl Elem {
    /// The element type of `dt`, or `None` for types the primitives do not
    /// compute with (f64, the 8- and 4-bit float types, ...).
    pub fn from_c(dt: dnnl_data_type_t) -> Option<Elem> {
        Some(match dt {
            dnnl_f32 => Elem::F32,
            dnnl_f16 => Elem::F16,
            dnnl_bf16 => Elem::Bf16,
            dnnl_s32 => Elem::S32,
            dnnl_s8 => Elem::S8,
            dnnl_u8 => Elem::U8,
            _ => return None,
        })
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Elem::F32 | Elem::S32 => 4,
            Elem::F16 | Elem::Bf16 => 2,
            Elem::S8 | Elem::U8 => 1,
        }
    }

    /// Whether this is an integer type.
    pub fn is_int(self) -> bool {
        matches!(self, Elem::S32 | Elem::S8 | Elem::U8)
    }

    /// The name OpenCL kernels know the type by (`-DSRC_DT=F32`, ...).
    pub fn cl_name(self) -> &'static str {
        match self {
            Elem::F32 => "F32",
            Elem::F16 => "F16",
            Elem::Bf16 => "BF16",
            Elem::S32 => "S32",
            Elem::S8 => "S8",
            Elem::U8 => "U8",
        }
    }
}

/// IEEE half bits to `f32` (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    let h = u32::from(h);
    let sign = (h & 0x8000) << 16;
    let exp = (h >> 10) & 0x1f;
    let man = h & 0x3ff;
    match exp {
        0 => {
            // Zero or subnormal: man * 2^-24, exact in f32.
            let v = man as f32 * (1.0 / 16_777_216.0);
            if sign != 0 { -v } else { v }
        }
        0x1f => f32::from_bits(sign | 0x7f80_0000 | (man << 13)),
        _ => f32::from_bits(sign | ((exp + 112) << 23) | (man << 13)),
    }
}

/// `f32` to IEEE half bits, rounding to nearest even (overflow gives
/// infinity, NaN stays a quiet NaN).
pub fn f32_to_f16(value: f32) -> u16 {
    let x = value.to_bits();
    let sign = (x >> 16) & 0x8000;
    let exp = (x >> 23) & 0xff;
    let man = x & 0x7f_ffff;
    if exp == 0xff {
        let nan = if man != 0 { 0x200 | (man >> 13) } else { 0 };
        return (sign | 0x7c00 | nan) as u16;
    }
    let e = exp as i32 - 127;
    if e >= 16 {
        return (sign | 0x7c00) as u16;
    }
    // Rounds `bits >> shift` to nearest even; a carry into the exponent is
    // the right answer (up to the next binade, or to infinity).
    let round = |bits: u32, shift: u32| -> u32 {
        let kept = bits >> shift;
        let half = 1u32 << (shift - 1);
        let up = bits & half != 0 && bits & (3 * half - 1) != 0;
        kept + u32::from(up)
    };
    if e >= -14 {
        let biased = ((e + 15) as u32) << 10;
        return (sign | (biased + round(man, 13))) as u16;
    }
    if e < -25 {
        return sign as u16;
    }
    // Subnormal half: the implicit bit joins the mantissa.
    let shift = (-14 - e) as u32 + 13;
    (sign | round(man | 0x80_0000, shift)) as u16
}

/// bfloat16 bits to `f32` (exact).
pub fn bf16_to_f32(b: u16) -> f32 {
    f32::from_bits(u32::from(b) << 16)
}

/// `f32` to bfloat16 bits, rounding to nearest even (NaN stays a quiet NaN).
pub fn f32_to_bf16(value: f32) -> u16 {
    let x = value.to_bits();
    if value.is_nan() {
        return ((x >> 16) | 0x40) as u16;
    }
    (x.wrapping_add(0x7fff + ((x >> 16) & 1)) >> 16) as u16
}

/// The largest `f32` below 2^31: where upstream saturates `s32` stores.
const S32_MAX_F32: f32 = 2_147_483_520.0;

fn to_s32(v: f32) -> i32 {
    let r = v.round_ties_even();
    if r > S32_MAX_F32 {
        S32_MAX_F32 as i32
    } else {
        r as i32 // saturates below, NaN gives 0
    }
}

/// Reads `out.len()` consecutive elements of type `elem` starting at element
/// `first` of `bytes`, as `f32`.
pub fn load_run(elem: Elem, bytes: &[u8], first: usize, out: &mut [f32]) {
    let size = elem.size();
    let src = &bytes[first * size..(first + out.len()) * size];
    match elem {
        Elem::F32 => {
            for (o, c) in out.iter_mut().zip(src.chunks_exact(4)) {
                *o = f32::from_ne_bytes([c[0], c[1], c[2], c[3]]);
            }
        }
        Elem::F16 => {
            for (o, c) in out.iter_mut().zip(src.chunks_exact(2)) {
                *o = f16_to_f32(u16::from_ne_bytes([c[0], c[1]]));
            }
        }
        Elem::Bf16 => {
            for (o, c) in out.iter_mut().zip(src.chunks_exact(2)) {
                *o = bf16_to_f32(u16::from_ne_bytes([c[0], c[1]]));
            }
        }
        Elem::S32 => {
            for (o, c) in out.iter_mut().zip(src.chunks_exact(4)) {
                *o = i32::from_ne_bytes([c[0], c[1], c[2], c[3]]) as f32;
            }
        }
        Elem::S8 => {
            for (o, &c) in out.iter_mut().zip(src) {
                *o = f32::from(c as i8);
            }
        }
        Elem::U8 => {
            for (o, &c) in out.iter_mut().zip(src) {
                *o = f32::from(c);
            }
        }
    }
}

/// Writes `values` as consecutive elements of type `elem` starting at element
/// `first` of `bytes`.
pub fn store_run(elem: Elem, bytes: &mut [u8], first: usize, values: &[f32]) {
    let size = elem.size();
    let dst = &mut bytes[first * size..(first + values.len()) * size];
    match elem {
        Elem::F32 => {
            for (c, v) in dst.chunks_exact_mut(4).zip(values) {
                c.copy_from_slice(&v.to_ne_bytes());
            }
        }
        Elem::F16 => {
            for (c, v) in dst.chunks_exact_mut(2).zip(values) {
                c.copy_from_slice(&f32_to_f16(*v).to_ne_bytes());
            }
        }
        Elem::Bf16 => {
            for (c, v) in dst.chunks_exact_mut(2).zip(values) {
                c.copy_from_slice(&f32_to_bf16(*v).to_ne_bytes());
            }
        }
        Elem::S32 => {
            for (c, v) in dst.chunks_exact_mut(4).zip(values) {
                c.copy_from_slice(&to_s32(*v).to_ne_bytes());
            }
        }
        Elem::S8 => {
            for (c, v) in dst.iter_mut().zip(values) {
                *c = v.round_ties_even() as i8 as u8;
            }
        }
        Elem::U8 => {
            for (c, v) in dst.iter_mut().zip(values) {
                *c = v.round_ties_even() as u8;
            }
        }
    }
}

/// Reads element `index` of `bytes` as `f32`.
pub fn load(elem: Elem, bytes: &[u8], index: usize) -> f32 {
    let mut v = [0.0];
    load_run(elem, bytes, index, &mut v);
    v[0]
}

/// Writes `value` as element `index` of `bytes`.
pub fn store(elem: Elem, bytes: &mut [u8], index: usize, value: f32) {
    store_run(elem, bytes, index, &[value]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_round_trips_and_rounds_to_nearest_even() {
        for h in 0..=u16::MAX {
            let f = f16_to_f32(h);
            if f.is_nan() {
                assert!(f16_to_f32(f32_to_f16(f)).is_nan());
            } else {
                assert_eq!(f32_to_f16(f), h, "{h:#x} -> {f}");
            }
        }
        assert_eq!(f32_to_f16(1.0 + 1.0 / 2048.0), 0x3c00); // tie: stays even
        assert_eq!(f32_to_f16(1.0 + 3.0 / 2048.0), 0x3c02); // tie: rounds up to even
        assert_eq!(f32_to_f16(65520.0), 0x7c00); // rounds to infinity
        assert_eq!(f32_to_f16(65519.0), 0x7bff);
        assert_eq!(f32_to_f16(2.0f32.powi(-25)), 0); // tie with zero
        assert_eq!(f32_to_f16(2.0f32.powi(-25) * 1.5), 1);
        assert_eq!(f32_to_f16(-1e-10), 0x8000);
    }

    #[test]
    fn bf16_rounds_to_nearest_even() {
        assert_eq!(f32_to_bf16(1.0), 0x3f80);
        assert_eq!(f32_to_bf16(f32::from_bits(0x3f80_8000)), 0x3f80); // tie, even
        assert_eq!(f32_to_bf16(f32::from_bits(0x3f81_8000)), 0x3f82); // tie, up to even
        assert_eq!(f32_to_bf16(f32::from_bits(0x3f80_8001)), 0x3f81);
        assert!(bf16_to_f32(f32_to_bf16(f32::NAN)).is_nan());
        assert_eq!(bf16_to_f32(0xc0a0), -5.0);
    }

    #[test]
    fn integer_stores_round_half_even_and_saturate() {
        let mut b = [0u8; 4];
        let cases = [
            (-1.5, -2),
            (-0.5, 0),
            (2.5, 2),
            (3.5, 4),
            (300.0, 127),
            (-300.0, -128),
        ];
        for (v, want) in cases {
            store(Elem::S8, &mut b, 0, v);
            assert_eq!(b[0] as i8, want, "{v}");
        }
        store(Elem::U8, &mut b, 0, -3.0);
        assert_eq!(b[0], 0);
        store(Elem::U8, &mut b, 0, 255.6);
        assert_eq!(b[0], 255);
        store(Elem::S8, &mut b, 0, f32::NAN);
        assert_eq!(b[0], 0);
        store(Elem::S32, &mut b, 0, 1e10);
        assert_eq!(i32::from_ne_bytes(b), 2_147_483_520);
        store(Elem::S32, &mut b, 0, -1e10);
        assert_eq!(i32::from_ne_bytes(b), i32::MIN);
        store(Elem::S32, &mut b, 0, -7.5);
        assert_eq!(load(Elem::S32, &b, 0), -8.0);
    }
}
