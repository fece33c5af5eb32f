//! The convolution problem every direction and both kinds reduce to, and
//! its implicit GEMM.
//!
//! Layer: prims. A convolution relates three tensors in *convolution roles*:
//! `X` (`N x G·IC x I…`), `W` (`G x OC x IC x K…`) and `Y` (`N x G·OC x O…`),
//! with `Y[n, g·OC + oc, o] = Σ_{ic, k} X[n, g·IC + ic, o·S - P + k·D] ·
//! W[g, oc, ic, k]` (taps outside `X` contribute nothing; `D` is oneDNN's
//! dilation plus one). Each of the six primitives computes one of the three:
//!
//! | primitive | X | W | Y | computes |
//! | --- | --- | --- | --- | --- |
//! | convolution forward | src | weights | dst | Y |
//! | convolution backward data | diff_src | weights | diff_dst | X |
//! | convolution backward weights | src | diff_weights | diff_dst | W |
//! | deconvolution forward | dst | weightsᵀ | src | X |
//! | deconvolution backward data | diff_dst | weightsᵀ | diff_src | Y |
//! | deconvolution backward weights | diff_dst | diff_weightsᵀ | src | W |
//!
//! (`ᵀ`: a deconvolution's weights `G x OC' x IC' x K…` are `W` with its
//! OC and IC exchanged, which costs nothing: only the strides swap.)
//!
//! Each computation is an implicit GEMM per group, [`Mapping`] giving the
//! element of every operand by `(row, column)` without materialising it:
//! - [`Dir::Y`]: rows `(n, o…)`, columns `oc`, depth `(k…, ic)`;
//! - [`Dir::X`]: rows `(n, i…)`, columns `ic`, depth `(k…, oc)`, a tap
//!   counting where `i + P - k·D` is a multiple of `S`;
//! - [`Dir::W`]: rows `oc`, columns `(ic, k…)`, depth `(n, o…)`.
//!
//! The CPU engine packs A block by block for the GEMM engine's own
//! microkernels (`cpu.rs`, `W` transposed there); the GPU kernel evaluates them inside `gemm.cl`'s tiles
//! (`conv.cl`).

use crate::core::error::{Error, Result};
use crate::core::memory_desc::MemoryDesc;
use crate::prims::common::dt::Elem;
use crate::prims::common::gemm::{plain_strides, span_bytes};

/// Which tensor a primitive computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dir {
    /// `Y` from `X` and `W` (convolution forward, deconvolution backward data).
    Y,
    /// `X` from `Y` and `W` (convolution backward data, deconvolution forward).
    X,
    /// `W` from `X` and `Y` (both backward weights).
    W,
}

/// Sizes, normalised to three spatial dimensions (missing ones are 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    pub mb: i64,
    pub g: i64,
    /// Channels per group.
    pub ic: i64,
    pub oc: i64,
    /// `X`'s spatial sizes, `Y`'s, the kernel's.
    pub i: [i64; 3],
    pub o: [i64; 3],
    pub k: [i64; 3],
    pub s: [i64; 3],
    /// Dilation plus one (the distance between taps).
    pub d: [i64; 3],
    /// Left padding.
    pub p: [i64; 3],
}

impl Shape {
    pub fn i_sp(&self) -> i64 {
        self.i.iter().product()
    }
    pub fn o_sp(&self) -> i64 {
        self.o.iter().product()
    }
    pub fn k_sp(&self) -> i64 {
        self.k.iter().product()
    }
}

/// Where the elements of a data tensor (`X` or `Y`) are: element
/// `(n, c, sp…)` at `off + n·n_s + c·c_s + Σ sp·sp_s`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DataAt {
    pub elem: Elem,
    pub off: i64,
    pub n: i64,
    pub c: i64,
    pub sp: [i64; 3],
    /// Bytes its buffer must hold.
    pub bytes: usize,
}

/// Where the weights are: `(g, oc, ic, k…)` at
/// `off + g·g_s + oc·oc_s + ic·ic_s + Σ k·k_s`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WeiAt {
    pub elem: Elem,
    pub off: i64,
    pub g: i64,
    pub oc: i64,
    pub ic: i64,
    pub k: [i64; 3],
    pub bytes: usize,
}

/// The spatial dimensions of an `ndims` tensor, as (dimension index or
/// none) for depth, height, width.
fn spatial(ndims: usize, first: usize) -> [Option<usize>; 3] {
    match ndims - first {
        1 => [None, None, Some(first)],
        2 => [None, Some(first), Some(first + 1)],
        _ => [Some(first), Some(first + 1), Some(first + 2)],
    }
}

impl DataAt {
    /// `md` (`N x C x sp…`, plain strides).
    pub fn new(md: &MemoryDesc, what: &str) -> Result<DataAt> {
        let s = plain_strides(md, what)?;
        let elem = Elem::from_c(md.data_type()).ok_or_else(|| {
            Error::unimplemented(format!(
                "{what}: data type {} is not supported",
                md.data_type().0
            ))
        })?;
        let mut sp = [0i64; 3];
        for (slot, d) in sp.iter_mut().zip(spatial(md.ndims(), 2)) {
            if let Some(d) = d {
                *slot = s[d];
            }
        }
        Ok(DataAt {
            elem,
            off: md.offset0(),
            n: s[0],
            c: s[1],
            sp,
            bytes: span_bytes(md)?,
        })
    }
}

impl WeiAt {
    /// `md` (`[G x] O x I x k…`, plain strides); `groups`: it has the
    /// group dimension; `transposed`: its O and I are `W`'s IC and OC
    /// (deconvolution).
    pub fn new(md: &MemoryDesc, groups: bool, transposed: bool, what: &str) -> Result<WeiAt> {
        let s = plain_strides(md, what)?;
        let elem = Elem::from_c(md.data_type()).ok_or_else(|| {
            Error::unimplemented(format!(
                "{what}: data type {} is not supported",
                md.data_type().0
            ))
        })?;
        let first = usize::from(groups);
        let mut k = [0i64; 3];
        for (slot, d) in k.iter_mut().zip(spatial(md.ndims(), first + 2)) {
            if let Some(d) = d {
                *slot = s[d];
            }
        }
        let (o, i) = (s[first], s[first + 1]);
        let (oc, ic) = if transposed { (i, o) } else { (o, i) };
        Ok(WeiAt {
            elem,
            off: md.offset0(),
            g: if groups { s[0] } else { 0 },
            oc,
            ic,
            k,
            bytes: span_bytes(md)?,
        })
    }
}

/// The convolution problem of one primitive, with concrete layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Problem {
    pub dir: Dir,
    pub shape: Shape,
    pub x: DataAt,
    pub w: WeiAt,
    pub y: DataAt,
}

/// The implicit GEMM of one group: `m x n x k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mapping {
    pub m: i64,
    pub n: i64,
    pub k: i64,
}

/// Splits `v` into `(a, b, c)` of sizes `[_, sb, sc]` (row-major).
#[inline]
fn split3(v: i64, sizes: [i64; 3]) -> [i64; 3] {
    let c = v % sizes[2];
    let r = v / sizes[2];
    [r / sizes[1], r % sizes[1], c]
}

impl Problem {
    /// The GEMM sizes of one group.
    pub fn mapping(&self) -> Mapping {
        let s = &self.shape;
        match self.dir {
            Dir::Y => Mapping {
                m: s.mb * s.o_sp(),
                n: s.oc,
                k: s.ic * s.k_sp(),
            },
            Dir::X => Mapping {
                m: s.mb * s.i_sp(),
                n: s.ic,
                k: s.oc * s.k_sp(),
            },
            Dir::W => Mapping {
                m: s.oc,
                n: s.ic * s.k_sp(),
                k: s.mb * s.o_sp(),
            },
        }
    }

    /// The element index of `X[n, g·IC + ic, i…]`.
    #[inline]
    fn x_at(&self, g: i64, n: i64, ic: i64, i: [i64; 3]) -> i64 {
        let x = &self.x;
        x.off
            + n * x.n
            + (g * self.shape.ic + ic) * x.c
            + i[0] * x.sp[0]
            + i[1] * x.sp[1]
            + i[2] * x.sp[2]
    }

    #[inline]
    fn y_at(&self, g: i64, n: i64, oc: i64, o: [i64; 3]) -> i64 {
        let y = &self.y;
        y.off
            + n * y.n
            + (g * self.shape.oc + oc) * y.c
            + o[0] * y.sp[0]
            + o[1] * y.sp[1]
            + o[2] * y.sp[2]
    }

    #[inline]
    fn w_at(&self, g: i64, oc: i64, ic: i64, k: [i64; 3]) -> i64 {
        let w = &self.w;
        w.off + g * w.g + oc * w.oc + ic * w.ic + k[0] * w.k[0] + k[1] * w.k[1] + k[2] * w.k[2]
    }

    /// Row `row` of A (`Dir::Y`, `Dir::X`) over the taps `taps` (each
    /// `a_channels()` deep): calls `f(tap, at)` for each, `at` the element of
    /// the tap's first channel (its others `at + c · stride`, the
    /// stride of channels of that tensor), or None where the tap lands outside
    /// the data tensor (zeros).
    pub fn a_row_taps(
        &self,
        g: i64,
        row: i64,
        taps: std::ops::Range<i64>,
        mut f: impl FnMut(i64, Option<i64>),
    ) {
        let s = &self.shape;
        match self.dir {
            Dir::Y => {
                let (n, o) = (row / s.o_sp(), split3(row % s.o_sp(), s.o));
                for kk in taps {
                    f(
                        kk,
                        self.tap(o, split3(kk, s.k)).map(|i| self.x_at(g, n, 0, i)),
                    );
                }
            }
            Dir::X => {
                let (n, i) = (row / s.i_sp(), split3(row % s.i_sp(), s.i));
                for kk in taps {
                    let at = self.back_tap(i, split3(kk, s.k));
                    f(kk, at.map(|o| self.y_at(g, n, 0, o)));
                }
            }
            Dir::W => {}
        }
    }

    /// `Dir::W`'s B column `col` (`(ic, tap)`) at depths `d0..d0 + len`
    /// (positions `(n, o…)`): calls `f(j, at)` for each depth `d0 + j` whose
    /// tap lands inside `X`, `at` its element; the others are zeros.
    pub fn x_gather(&self, g: i64, col: i64, d0: i64, len: i64, mut f: impl FnMut(usize, i64)) {
        let s = &self.shape;
        let (ic, k) = (col / s.k_sp(), split3(col % s.k_sp(), s.k));
        let (o_sp, end) = (s.o_sp(), d0 + len);
        let mut d = d0;
        while d < end {
            let (n, o) = (d / o_sp, split3(d % o_sp, s.o));
            // One line along the innermost output dimension.
            let line = (s.o[2] - o[2]).min(end - d);
            let id = o[0] * s.s[0] - s.p[0] + k[0] * s.d[0];
            let ih = o[1] * s.s[1] - s.p[1] + k[1] * s.d[1];
            if (0..s.i[0]).contains(&id) && (0..s.i[1]).contains(&ih) {
                let base = self.x_at(g, n, ic, [id, ih, 0]);
                let j0 = (d - d0) as usize;
                for t in 0..line {
                    let iw = (o[2] + t) * s.s[2] - s.p[2] + k[2] * s.d[2];
                    if (0..s.i[2]).contains(&iw) {
                        f(j0 + t as usize, base + iw * self.x.sp[2]);
                    }
                }
            }
            d += line;
        }
    }

    /// The stride between columns of C within a row (`Dir::Y`, `Dir::X`).
    pub fn c_col_stride(&self) -> Option<i64> {
        match self.dir {
            Dir::Y => Some(self.y.c),
            Dir::X => Some(self.x.c),
            Dir::W => None,
        }
    }

    /// The `X` position of tap `k` at output `o` (None outside `X`).
    #[inline]
    fn tap(&self, o: [i64; 3], k: [i64; 3]) -> Option<[i64; 3]> {
        let s = &self.shape;
        let mut i = [0i64; 3];
        for d in 0..3 {
            i[d] = o[d] * s.s[d] - s.p[d] + k[d] * s.d[d];
            if i[d] < 0 || i[d] >= s.i[d] {
                return None;
            }
        }
        Some(i)
    }

    /// The `Y` position that tap `k` of input `i` contributes to (None when
    /// none does).
    #[inline]
    fn back_tap(&self, i: [i64; 3], k: [i64; 3]) -> Option<[i64; 3]> {
        let s = &self.shape;
        let mut o = [0i64; 3];
        for d in 0..3 {
            let t = i[d] + s.p[d] - k[d] * s.d[d];
            if t < 0 || t % s.s[d] != 0 || t / s.s[d] >= s.o[d] {
                return None;
            }
            o[d] = t / s.s[d];
        }
        Some(o)
    }

    /// Element index of `A[row, depth]` of group `g` (None: a zero), and
    /// whether it is a data element (the source zero point applies).
    #[inline]
    pub fn a_at(&self, g: i64, row: i64, depth: i64) -> Option<i64> {
        let s = &self.shape;
        match self.dir {
            Dir::Y => {
                let (n, o) = (row / s.o_sp(), split3(row % s.o_sp(), s.o));
                let (kk, ic) = (depth / s.ic, depth % s.ic);
                let i = self.tap(o, split3(kk, s.k))?;
                Some(self.x_at(g, n, ic, i))
            }
            Dir::X => {
                let (n, i) = (row / s.i_sp(), split3(row % s.i_sp(), s.i));
                let (kk, oc) = (depth / s.oc, depth % s.oc);
                let o = self.back_tap(i, split3(kk, s.k))?;
                Some(self.y_at(g, n, oc, o))
            }
            Dir::W => {
                let (n, o) = (depth / s.o_sp(), split3(depth % s.o_sp(), s.o));
                Some(self.y_at(g, n, row, o))
            }
        }
    }

    /// Element index of `B[depth, col]` of group `g` (None: a zero).
    #[inline]
    pub fn b_at(&self, g: i64, depth: i64, col: i64) -> Option<i64> {
        let s = &self.shape;
        match self.dir {
            Dir::Y => {
                let (kk, ic) = (depth / s.ic, depth % s.ic);
                Some(self.w_at(g, col, ic, split3(kk, s.k)))
            }
            Dir::X => {
                let (kk, oc) = (depth / s.oc, depth % s.oc);
                Some(self.w_at(g, oc, col, split3(kk, s.k)))
            }
            Dir::W => {
                let (n, o) = (depth / s.o_sp(), split3(depth % s.o_sp(), s.o));
                let (ic, kk) = (col / s.k_sp(), col % s.k_sp());
                let i = self.tap(o, split3(kk, s.k))?;
                Some(self.x_at(g, n, ic, i))
            }
        }
    }

    /// Element index of `C[row, col]` of group `g`.
    #[inline]
    pub fn c_at(&self, g: i64, row: i64, col: i64) -> i64 {
        let s = &self.shape;
        match self.dir {
            Dir::Y => self.y_at(g, row / s.o_sp(), col, split3(row % s.o_sp(), s.o)),
            Dir::X => self.x_at(g, row / s.i_sp(), col, split3(row % s.i_sp(), s.i)),
            Dir::W => {
                let (ic, kk) = (col / s.k_sp(), col % s.k_sp());
                self.w_at(g, row, ic, split3(kk, s.k))
            }
        }
    }

    /// The logical position of `C[row, col]` of group `g` in the computed
    /// tensor (`ndims` long: `n, c, sp…`), for post-ops.
    pub fn c_pos(&self, g: i64, row: i64, col: i64, pos: &mut [i64]) {
        let s = &self.shape;
        let (sp, c, per) = match self.dir {
            Dir::Y => (s.o_sp(), g * s.oc + col, s.o),
            Dir::X => (s.i_sp(), g * s.ic + col, s.i),
            Dir::W => return,
        };
        pos[0] = row / sp;
        pos[1] = c;
        let at = split3(row % sp, per);
        let nsp = pos.len() - 2;
        pos[2..].copy_from_slice(&at[3 - nsp..]);
    }

    /// How many parts a GPU splits the depth of `Dir::W` into (1 for the
    /// other directions, and where the groups' output tiles alone fill a
    /// device): its few, very deep dot products otherwise leave most of a
    /// GPU idle. The parts' partial sums go to the scratchpad.
    pub fn depth_splits(&self) -> i64 {
        if self.dir != Dir::W {
            return 1;
        }
        let map = self.mapping();
        // Output tiles of 128 x 128, as GPUs tile them.
        let tiles = self.shape.g * ((map.m + 127) / 128) * ((map.n + 127) / 128);
        let by_depth = map.k / 1024;
        let wanted = (256 / tiles.max(1)).max(1);
        let cap = (256 << 20) / (4 * self.shape.g * map.m * map.n).max(1);
        by_depth.min(wanted).min(128).min(cap).max(1)
    }

    /// The depth of one part of [`Problem::depth_splits`].
    pub fn depth_chunk(&self) -> i64 {
        let k = self.mapping().k;
        let s = self.depth_splits();
        // A multiple of 16, so that parts start on K-step boundaries.
        ((k + s - 1) / s + 15) / 16 * 16
    }

    /// The data tensor whose element type is A's, B's and C's.
    pub fn elems(&self) -> (Elem, Elem, Elem) {
        match self.dir {
            Dir::Y => (self.x.elem, self.w.elem, self.y.elem),
            Dir::X => (self.y.elem, self.w.elem, self.x.elem),
            Dir::W => (self.y.elem, self.x.elem, self.w.elem),
        }
    }

    /// The channels of the computed tensor per group (what a per-channel
    /// scale, bias or zero point indexes, plus `g · this`).
    pub fn c_channels(&self) -> i64 {
        match self.dir {
            Dir::Y => self.shape.oc,
            Dir::X => self.shape.ic,
            Dir::W => 0,
        }
    }

    /// The channels of A's data tensor per group (the source zero point's
    /// per-channel index).
    pub fn a_channels(&self) -> i64 {
        match self.dir {
            Dir::Y => self.shape.ic,
            Dir::X => self.shape.oc,
            Dir::W => self.shape.oc,
        }
    }

    /// B as a plain matrix `[off, row stride, column stride, group
    /// stride]` (element `(depth, col)` of group `g` at `off + g · gs + depth ·
    /// rs + col · cs`), where it is one: the weights of `Dir::Y` and `Dir::X`
    /// in a `k…`-major, channel-minor order; for `Dir::W`, a 1x1, stride-1,
    /// unpadded `X` whose rows `(n, i…)` are evenly spaced.
    pub fn b_plain(&self) -> Option<[i64; 4]> {
        let s = &self.shape;
        let w = &self.w;
        let (inner, col) = match self.dir {
            Dir::Y => (w.ic, w.oc),
            Dir::X => (w.oc, w.ic),
            Dir::W => {
                if !self.pointwise() {
                    return None;
                }
                let x = &self.x;
                let row = rows_stride(x, s.mb, s.i)?;
                return Some([x.off, row, x.c, s.ic * x.c]);
            }
        };
        let inner_n = if self.dir == Dir::Y { s.ic } else { s.oc };
        // depth = ((kd·KH + kh)·KW + kw)·inner_n + c: the strides must nest.
        let ok = (s.k[2] == 1 || w.k[2] == inner * inner_n)
            && (s.k[1] == 1 || w.k[1] == inner * inner_n * s.k[2])
            && (s.k[0] == 1 || w.k[0] == inner * inner_n * s.k[2] * s.k[1]);
        ok.then_some([w.off, inner, col, w.g])
    }

    /// A 1x1, stride-1, unpadded convolution (X and Y have one shape).
    fn pointwise(&self) -> bool {
        let s = &self.shape;
        s.k == [1, 1, 1] && s.s == [1, 1, 1] && s.p == [0, 0, 0] && s.i == s.o
    }

    /// A as a plain matrix (as [`Problem::b_plain`]): for `Dir::Y`, a
    /// pointwise convolution's `X` with evenly spaced rows `(n, o…)`; for
    /// `Dir::W`, `Y` (rows `oc`, depth `(n, o…)`) where its positions are
    /// evenly spaced.
    pub fn a_plain(&self) -> Option<[i64; 4]> {
        let s = &self.shape;
        match self.dir {
            Dir::Y if self.pointwise() => {
                let x = &self.x;
                let row = rows_stride(x, s.mb, s.o)?;
                Some([x.off, row, x.c, s.ic * x.c])
            }
            Dir::W => {
                let y = &self.y;
                let depth = rows_stride(y, s.mb, s.o)?;
                Some([y.off, y.c, depth, s.oc * y.c])
            }
            _ => None,
        }
    }

    /// C as a plain matrix where its rows are evenly spaced.
    pub fn c_plain(&self) -> Option<(i64, i64, i64)> {
        let s = &self.shape;
        match self.dir {
            Dir::Y => rows_stride(&self.y, s.mb, s.o).map(|r| (self.y.off, r, self.y.c)),
            Dir::X => rows_stride(&self.x, s.mb, s.i).map(|r| (self.x.off, r, self.x.c)),
            Dir::W => None,
        }
    }
}

/// The distance between consecutive rows `(n, sp…)` of `t` when it is the
/// same everywhere.
fn rows_stride(t: &DataAt, mb: i64, sp: [i64; 3]) -> Option<i64> {
    // The innermost non-trivial row dimension gives the step; each outer
    // one must be its size times the next inner one's stride.
    let dims = [
        (mb, t.n),
        (sp[0], t.sp[0]),
        (sp[1], t.sp[1]),
        (sp[2], t.sp[2]),
    ];
    let mut step: Option<i64> = None;
    let mut span = 1i64;
    for &(size, stride) in dims.iter().rev() {
        if size == 1 {
            continue;
        }
        match step {
            None => {
                step = Some(stride);
                span = stride * size;
            }
            Some(_) => {
                if stride != span {
                    return None;
                }
                span *= size;
            }
        }
    }
    Some(step.unwrap_or(1))
}
