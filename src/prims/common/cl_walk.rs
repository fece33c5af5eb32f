//! Kernels that walk any layout: `positions.cl` (the padded positions
//! `p0..p11` a work-item handles, from `-DP<d>` options) and the options that
//! describe an output's walk as expressions of the work-item index `t`.
//!
//! Layer: prims. Builds option strings; no driver.

/// `positions.cl`: defaults of `P0..P11` and `DECL_POSITIONS`; prepended
/// after `types.cl` by the kernels that use it.
pub const CL_POSITIONS: &str = include_str!("positions.cl");

use super::dt::Elem;
use super::layout::{Layout, Walker};

/// The options of a kernel whose work-item `t` is the `t`-th element of
/// `out` in memory order (so writes coalesce): `-DP<d>=(...)`, `out`'s padded
/// position `p<d>` of that element (dimensions that `out`'s walk leaves out
/// get none: `positions.cl` puts them at 0), then `-D<off_name>=(...)`, the
/// element's offset in `out`. Each option starts with a space.
pub fn walk_options(out: &Layout, walker: &Walker, off_name: &str) -> String {
    // Loop indices of work-item t, outermost first.
    let index = |i: usize| {
        let lp = walker.loops()[i];
        let div = walker.div(i);
        let q = if div == 1 {
            "t".to_string()
        } else {
            format!("(t/{div})")
        };
        if i == 0 {
            q
        } else {
            format!("({q}%{})", lp.size)
        }
    };
    let mut off = vec![out.offset0.to_string()];
    let mut pos = vec![Vec::new(); out.ndims];
    for (i, lp) in walker.loops().iter().enumerate() {
        off.push(format!("{}*{}", index(i), lp.stride));
        pos[lp.dim].push(format!("{}*{}", index(i), lp.unit));
    }
    let mut opts = String::new();
    for (d, terms) in pos.iter().enumerate() {
        let expr = if terms.is_empty() {
            "0".to_string()
        } else {
            terms.join("+")
        };
        opts += &format!(" -DP{d}=({expr})");
    }
    opts += &format!(" -D{off_name}=({})", off.join("+"));
    opts
}

/// Where a kernel walking `out` may take 4 elements per work-item and store
/// them as one float4 (where aligned): the dimension the walk's innermost
/// loop moves one element at a time through contiguous f32, a multiple of 4
/// of them, with no padding in it (the kernels' `VEC`, `VEC_P` = `p<d>`,
/// `VEC_STRIDE` = 1 options).
pub fn vec4_dim(out: &Layout, walker: &Walker) -> Option<usize> {
    let lp = walker.loops().last()?;
    let d = lp.dim;
    let ok = out.elem == Elem::F32
        && lp.unit == 1
        && lp.stride == 1
        && lp.size % 4 == 0
        && out.padded_dims[d] == out.dims[d]
        && out.padded_offsets[d] == 0;
    ok.then_some(d)
}

/// The walk of a kernel with one work-item per element of its output, or
/// per 4 along [`vec4_dim`]: the output, its walker and that dimension.
/// Pooling and resampling build it once per primitive, for their options
/// and for their launch size.
pub struct OutputWalk<'a> {
    pub out: &'a Layout,
    pub walker: Walker,
    pub vec4: Option<usize>,
}

impl<'a> OutputWalk<'a> {
    /// The walk of `out`, 4 elements per work-item where `vec4` allows it
    /// (forward kernels) and [`vec4_dim`] finds a dimension.
    pub fn new(out: &'a Layout, vec4: bool) -> Self {
        let walker = Walker::new(out);
        let vec4 = if vec4 { vec4_dim(out, &walker) } else { None };
        OutputWalk { out, walker, vec4 }
    }

    /// The output elements per work-item.
    pub fn per_item(&self) -> usize {
        if self.vec4.is_some() { 4 } else { 1 }
    }
}

/// ` -DVEC=4 -DVEC_P=p<d> -DVEC_STRIDE=1` for [`vec4_dim`]'s `d`.
pub fn vec4_options(d: usize) -> String {
    format!(" -DVEC=4 -DVEC_P=p{d} -DVEC_STRIDE=1")
}

/// Dimension `d` of `layout` at the logical position of `out`'s padded
/// position `p<d>`: `p<d>`, shifted by the difference of their padded
/// offsets.
pub fn shifted_position(layout: &Layout, out: &Layout, d: usize) -> String {
    let shift = layout.padded_offsets[d] - out.padded_offsets[d];
    if shift == 0 {
        format!("p{d}")
    } else {
        format!("(p{d}+({shift}))")
    }
}

/// `out`'s logical position in dimension `d` of padded position `p<d>`.
pub fn logical_position(out: &Layout, d: usize) -> String {
    if out.padded_offsets[d] == 0 {
        format!("p{d}")
    } else {
        format!("p{d}-{}", out.padded_offsets[d])
    }
}

/// Whether `p<d>` lies inside `out`'s logical tensor, for each of `dims`
/// where `out` has padding: `(p<d><hi)` or `(p<d>>=lo&&p<d><hi)`.
pub fn bounds(out: &Layout, dims: impl IntoIterator<Item = usize>) -> Vec<String> {
    dims.into_iter()
        .filter(|&d| out.padded_dims[d] != out.dims[d] || out.padded_offsets[d] != 0)
        .map(|d| {
            let (lo, hi) = (out.padded_offsets[d], out.padded_offsets[d] + out.dims[d]);
            if lo == 0 {
                format!("(p{d}<{hi})")
            } else {
                format!("(p{d}>={lo}&&p{d}<{hi})")
            }
        })
        .collect()
}

/// ` -DINB=(...)`: whether `p0..` lies inside `out`'s logical tensor (not in
/// its padding); empty where `out` has no padding.
pub fn bounds_option(out: &Layout) -> String {
    let bounds = bounds(out, 0..out.ndims);
    if bounds.is_empty() {
        String::new()
    } else {
        format!(" -DINB=({})", bounds.join("&&"))
    }
}
