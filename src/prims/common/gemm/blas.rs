//! The BLAS-style GEMMs of `dnnl.h` (`dnnl_sgemm`, `dnnl_gemm_u8s8s32`,
//! `dnnl_gemm_s8s8s32`) on host slices: [`Problem`] checks the shape
//! arguments as Intel's library does, [`sgemm`] and [`gemm_x8`] compute
//! row-major `C = alpha·op(A)·op(B) + beta·C` (the integer ones with the A
//! and B offsets and the C offsets of [`COffset`]).
//!
//! Layer: prims, over `core`. The products run on the CPU GEMM engine's
//! pieces: `blocked.rs`'s packed microkernels for f32 (A and B read with
//! their strides while packing, so transposes and leading dimensions cost
//! nothing; each finished tile is scaled into C by the worker that computed
//! it) and `int8.rs`'s packed kernel (exact s32 products) for the integer
//! ones, on the persistent GEMM workers (`cpu::run_pooled`). The integer
//! GEMM cuts C into tiles of rows, and of columns too when there are few
//! rows; each tile is written by one worker only.
//!
//! What Intel's library does, and this module does too (probed on its CPU
//! engine): M, N or K of 0 returns at once, C untouched (no `beta` scaling,
//! no C offset); `alpha == 0` reads neither A nor B (`C = beta·C`); `beta ==
//! 0` reads no C (NaN there does not propagate). Integer results: with
//! `alpha == 1` and `beta` 0 or 1, `acc + C + co` in wrapping s32 arithmetic;
//! otherwise `alpha·acc + beta·C` rounded half away from zero and saturated
//! to s32, then plus `co` (wrapping).

use std::ops::Range;

use super::blocked;
use super::cpu::run_pooled;
use super::int8::{MR, View, products};
use crate::core::error::{Error, Result};
use crate::prims::common::dt::Elem;
use crate::prims::common::parallel;

/// The shape arguments of a BLAS-style GEMM, checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Problem {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    /// op(A) = Aᵀ: A is stored K x M.
    pub trans_a: bool,
    /// op(B) = Bᵀ: B is stored N x K.
    pub trans_b: bool,
    pub lda: usize,
    pub ldb: usize,
    pub ldc: usize,
}

/// 'N'/'n' (false) or 'T'/'t' (true).
fn trans(c: u8, what: &str) -> Result<bool> {
    match c {
        b'N' | b'n' => Ok(false),
        b'T' | b't' => Ok(true),
        _ => Err(Error::invalid(format!(
            "{what} is {:?}: 'N', 'n', 'T' or 't' expected",
            c as char
        ))),
    }
}

/// A dimension: non-negative.
fn dim(v: i64, what: &str) -> Result<usize> {
    usize::try_from(v).map_err(|_| Error::invalid(format!("{what} is negative ({v})")))
}

impl Problem {
    /// Checks the arguments as Intel's library does: transposition flags
    /// 'N', 'n', 'T' or 't', M, N and K non-negative, and each leading
    /// dimension at least the width of its matrix as stored (at least 1,
    /// even for empty matrices).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        transa: u8,
        transb: u8,
        m: i64,
        n: i64,
        k: i64,
        lda: i64,
        ldb: i64,
        ldc: i64,
    ) -> Result<Problem> {
        let trans_a = trans(transa, "transa")?;
        let trans_b = trans(transb, "transb")?;
        let (m, n, k) = (dim(m, "M")?, dim(n, "N")?, dim(k, "K")?);
        let ld = |v: i64, min: usize, what: &str, shape: &str| -> Result<usize> {
            match usize::try_from(v) {
                Ok(v) if v >= min.max(1) => Ok(v),
                _ => Err(Error::invalid(format!(
                    "{what} is {v}: at least max(1, {shape}) = {} expected",
                    min.max(1)
                ))),
            }
        };
        let lda = if trans_a {
            ld(lda, m, "lda", "M (A transposed)")?
        } else {
            ld(lda, k, "lda", "K")?
        };
        let ldb = if trans_b {
            ld(ldb, k, "ldb", "K (B transposed)")?
        } else {
            ld(ldb, n, "ldb", "N")?
        };
        let ldc = ld(ldc, n, "ldc", "N")?;
        Ok(Problem {
            m,
            n,
            k,
            trans_a,
            trans_b,
            lda,
            ldb,
            ldc,
        })
    }

    /// Nothing to compute: C stays as it is (Intel's library returns at
    /// once when M, N or K is 0).
    pub fn is_empty(&self) -> bool {
        self.m == 0 || self.n == 0 || self.k == 0
    }

    /// The elements a `rows x cols` matrix stored with leading dimension
    /// `ld` spans (0 when empty); an error if that overflows.
    fn span(rows: usize, cols: usize, ld: usize) -> Result<usize> {
        if rows == 0 || cols == 0 {
            return Ok(0);
        }
        (rows - 1)
            .checked_mul(ld)
            .and_then(|x| x.checked_add(cols))
            .filter(|&x| x <= isize::MAX as usize / 4)
            .ok_or_else(|| Error::invalid("the matrix spans more memory than can exist"))
    }

    /// The elements A spans (as stored: M x K, or K x M transposed).
    pub fn a_len(&self) -> Result<usize> {
        match self.trans_a {
            false => Self::span(self.m, self.k, self.lda),
            true => Self::span(self.k, self.m, self.lda),
        }
    }

    /// The elements B spans (as stored: K x N, or N x K transposed).
    pub fn b_len(&self) -> Result<usize> {
        match self.trans_b {
            false => Self::span(self.k, self.n, self.ldb),
            true => Self::span(self.n, self.k, self.ldb),
        }
    }

    /// The elements C spans (M x N).
    pub fn c_len(&self) -> Result<usize> {
        Self::span(self.m, self.n, self.ldc)
    }

    /// Element strides of op(A) (M x K): (row, column).
    fn a_strides(&self) -> (usize, usize) {
        match self.trans_a {
            false => (self.lda, 1),
            true => (1, self.lda),
        }
    }

    /// Element strides of op(B) (K x N): (row, column).
    fn b_strides(&self) -> (usize, usize) {
        match self.trans_b {
            false => (self.ldb, 1),
            true => (1, self.ldb),
        }
    }
}

/// How the C offsets of an integer GEMM apply (`offsetc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum COffset {
    /// 'F': one value for all of C.
    Fixed,
    /// 'C': a column of M values, added to every column (`co[i]`).
    Column,
    /// 'R': a row of N values, added to every row (`co[j]`).
    Row,
}

impl COffset {
    /// Decodes `offsetc`: 'F', 'C' or 'R', either case.
    pub fn from_char(c: u8) -> Result<COffset> {
        match c {
            b'F' | b'f' => Ok(COffset::Fixed),
            b'C' | b'c' => Ok(COffset::Column),
            b'R' | b'r' => Ok(COffset::Row),
            _ => Err(Error::invalid(format!(
                "offsetc is {:?}: 'F', 'C' or 'R' (either case) expected",
                c as char
            ))),
        }
    }

    /// The number of values `co` holds for an M x N problem.
    pub fn len(self, m: usize, n: usize) -> usize {
        match self {
            COffset::Fixed => 1,
            COffset::Column => m,
            COffset::Row => n,
        }
    }

    /// The offset of element (i, j) (the tests' reference).
    #[cfg(test)]
    fn at(self, co: &[i32], i: usize, j: usize) -> i32 {
        match self {
            COffset::Fixed => co[0],
            COffset::Column => co[i],
            COffset::Row => co[j],
        }
    }
}

/// An int8 matrix as the caller stores it: its bytes and element type (u8
/// or s8).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Int8<'a> {
    pub bytes: &'a [u8],
    pub elem: Elem,
}

/// C's first element, shared by the tiles: each writes its own elements
/// only (the RNN's GEMMs use it too).
#[derive(Clone, Copy)]
pub(crate) struct Out<T>(pub(crate) *mut T);
// SAFETY: the tiles of one call write disjoint elements of C (disjoint rows
// x columns; `ldc >= N`, so distinct (row, column) pairs are distinct
// elements), and the call waits for every tile before C's borrow ends.
unsafe impl<T> Send for Out<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for Out<T> {}

impl<T> Out<T> {
    /// `len` elements of C from element `at`.
    ///
    /// # Safety
    /// They are inside C, and no other tile touches them while the slice
    /// lives.
    #[inline]
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn row(&self, at: usize, len: usize) -> &mut [T] {
        // SAFETY: the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.0.add(at), len) }
    }
}

/// `0..total` in `parts` contiguous ranges, their starts multiples of
/// `align` where possible.
fn cut(total: usize, parts: usize, align: usize) -> Vec<Range<usize>> {
    let blocks = total.div_ceil(align);
    let parts = parts.clamp(1, blocks.max(1));
    (0..parts)
        .map(|p| {
            let start = (blocks * p / parts * align).min(total);
            let end = (blocks * (p + 1) / parts * align).min(total);
            start..end
        })
        .filter(|r| !r.is_empty())
        .collect()
}

/// The tiles (rows, columns) of C for the workers: about a million
/// multiply-adds each at least, rows first, columns too when rows are few.
fn tiles(m: usize, n: usize, k: usize) -> Vec<(Range<usize>, Range<usize>)> {
    let work = m.saturating_mul(n).saturating_mul(k.max(1));
    let parts = (work >> 20).clamp(1, parallel::max_threads());
    let row_parts = if m >= parts * 16 {
        parts
    } else {
        (m / 16).clamp(1, parts)
    };
    let col_parts = parts / row_parts;
    let rows = cut(m, row_parts, 1);
    let cols = cut(n, col_parts, 16);
    rows.iter()
        .flat_map(|r| cols.iter().map(move |c| (r.clone(), c.clone())))
        .collect()
}

/// `C = alpha·op(A)·op(B) + beta·C`, row-major, in f32. `a`, `b` and `c`
/// hold what `p` says they span; `c` is not read where `beta` is 0, `a` and
/// `b` not where `alpha` is 0.
pub(crate) fn sgemm(p: &Problem, alpha: f32, a: &[f32], b: &[f32], beta: f32, c: &mut [f32]) {
    if p.is_empty() {
        return;
    }
    let c_len = p.c_len().unwrap_or(usize::MAX);
    let spans_ok = p.a_len().is_ok_and(|l| a.len() >= l)
        && p.b_len().is_ok_and(|l| b.len() >= l)
        && c.len() >= c_len;
    assert!(spans_ok, "sgemm: a slice is shorter than its matrix");
    let ldc = p.ldc;
    let out = Out(c.as_mut_ptr());
    if alpha == 0.0 {
        run_pooled(tiles(p.m, p.n, p.k), |(rows, cols)| {
            for i in rows {
                // SAFETY: row i, columns `cols` of C: inside C (checked
                // spans) and this tile's alone.
                let c_row = unsafe { out.row(i * ldc + cols.start, cols.len()) };
                for c in c_row {
                    *c = if beta == 0.0 { 0.0 } else { beta * *c };
                }
            }
        });
        return;
    }
    let (a_rs, a_cs) = p.a_strides();
    let (b_rs, b_cs) = p.b_strides();
    let first = |_: usize| (0i64, 0i64);
    let problem = blocked::Problem {
        m: p.m,
        n: p.n,
        k: p.k,
        batches: 1,
        a: blocked::Mat {
            bytes: f32_bytes(a),
            elem: Elem::F32,
            rs: a_rs as i64,
            cs: a_cs as i64,
        },
        b: blocked::Mat {
            bytes: f32_bytes(b),
            elem: Elem::F32,
            rs: b_rs as i64,
            cs: b_cs as i64,
        },
        first: &first,
    };
    let store = |t: &blocked::Tile, values: &mut [f32]| {
        for r in 0..t.rows {
            let i = t.m0 + r;
            // SAFETY: row i, columns n0..n0 + cols of C: inside C (checked
            // spans) and this tile's alone (each element is in one tile).
            let c_row = unsafe { out.row(i * ldc + t.n0, t.cols) };
            let sums = &values[r * t.ld..][..t.cols];
            if beta == 0.0 {
                for (c, &v) in c_row.iter_mut().zip(sums) {
                    *c = alpha * v;
                }
            } else {
                for (c, &v) in c_row.iter_mut().zip(sums) {
                    *c = alpha * v + beta * *c;
                }
            }
        }
    };
    blocked::run(
        blocked::Path::current(Elem::F32, Elem::F32),
        &problem,
        &store,
    );
}

/// The bytes of f32 values, for [`blocked::Mat`].
pub(crate) fn f32_bytes(v: &[f32]) -> &[u8] {
    // SAFETY: any f32 is four initialised bytes, u8 has no alignment
    // requirement, and the bytes borrow `v` for as long as it lives.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
}

/// The integer GEMM's arguments besides the shape.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IntArgs<'a> {
    pub alpha: f32,
    pub a: Int8<'a>,
    /// A's offset (subtracted from each element).
    pub ao: i32,
    pub b: Int8<'a>,
    /// B's offset (subtracted from each element).
    pub bo: i32,
    pub beta: f32,
    pub offsetc: COffset,
    /// `offsetc.len(M, N)` values.
    pub co: &'a [i32],
}

/// One result of the integer GEMM where alpha or beta scale (not the
/// wrapping case of alpha 1 and beta 0 or 1), from the exact `acc = Σ (a -
/// ao)(b - bo)`, C's previous value (read only where beta is not 0) and the
/// C offset: `alpha·acc + beta·C` rounded half away from zero and saturated,
/// then plus `co` (wrapping), as Intel's library computes it.
#[inline]
fn scaled_result(acc: i64, alpha: f32, beta: f32, old: impl FnOnce() -> i32, co: i32) -> i32 {
    let mut v = alpha as f64 * acc as f64;
    if beta != 0.0 {
        v += beta as f64 * old() as f64;
    }
    // `as` saturates (NaN gives 0); `round` ties away from zero.
    (v.round() as i32).wrapping_add(co)
}

/// The depth of one s32 pass of the int8 kernel: |a·b| <= 255·128, so
/// 2^16 of them cannot overflow s32; longer sums add passes in i64.
const K_PASS: usize = 1 << 16;

/// `C = alpha·(op(A) - ao)·(op(B) - bo) + beta·C + co`, row-major, int8
/// operands (u8 or s8) and s32 C. The slices hold what `p` says they span,
/// `co` what `offsetc` needs. The sums are exact (i64) at any K.
pub(crate) fn gemm_x8(p: &Problem, args: &IntArgs, c: &mut [i32]) {
    if p.is_empty() {
        return;
    }
    let c_len = p.c_len().unwrap_or(usize::MAX);
    let spans_ok = p.a_len().is_ok_and(|l| args.a.bytes.len() >= l)
        && p.b_len().is_ok_and(|l| args.b.bytes.len() >= l)
        && c.len() >= c_len
        && args.co.len() >= args.offsetc.len(p.m, p.n);
    assert!(spans_ok, "gemm_x8: a slice is shorter than its matrix");
    let (m, n, k, ldc) = (p.m, p.n, p.k, p.ldc);
    let (a_rs, a_cs) = p.a_strides();
    let (b_rs, b_cs) = p.b_strides();
    let out = Out(c.as_mut_ptr());
    let args = *args;
    let (ao, bo) = (args.ao as i64, args.bo as i64);
    let products_needed = args.alpha != 0.0;
    run_pooled(tiles(m, n, k), |(rows, cols)| {
        let nc = cols.len();
        let b_view = |k0: usize| View {
            bytes: args.b.bytes,
            elem: args.b.elem,
            first: (cols.start * b_cs + k0 * b_rs) as i64,
            rs: b_rs as i64,
            cs: b_cs as i64,
        };
        let bv = b_view(0);
        // -ao·Σ_k b(k, j) for this tile's columns (A's offset).
        let col_comp: Vec<i64> = (0..nc)
            .map(|j| match ao != 0 && products_needed {
                true => -ao * (0..k).map(|kk| bv.at(kk, j) as i64).sum::<i64>(),
                false => 0,
            })
            .collect();
        let single_pass = k <= K_PASS;
        let int_path = args.alpha == 1.0 && (args.beta == 0.0 || args.beta == 1.0);
        // Rows at a time, so that the products stay within 16 MiB (each
        // call packs B again: few calls).
        let block = ((1usize << 22) / nc.max(1)).max(MR).next_multiple_of(MR);
        // The products: exact in `part` (one pass), or in `acc` (several).
        let mut part: Vec<i32> = Vec::new();
        let mut acc: Vec<i64> = Vec::new();
        for r0 in rows.clone().step_by(block) {
            let r1 = (r0 + block).min(rows.end);
            let nr = r1 - r0;
            let a_view = |k0: usize| View {
                bytes: args.a.bytes,
                elem: args.a.elem,
                first: (r0 * a_rs + k0 * a_cs) as i64,
                rs: a_rs as i64,
                cs: a_cs as i64,
            };
            part.resize(nr * nc, 0);
            if !products_needed {
                part.fill(0);
            } else if single_pass {
                products(&a_view(0), &b_view(0), nr, nc, k, &mut part);
            } else {
                acc.clear();
                acc.resize(nr * nc, 0);
                for k0 in (0..k).step_by(K_PASS) {
                    let kc = K_PASS.min(k - k0);
                    products(&a_view(k0), &b_view(k0), nr, nc, kc, &mut part);
                    for (x, &y) in acc.iter_mut().zip(&part) {
                        *x += y as i64;
                    }
                }
                // The low 32 bits, for the wrapping results.
                for (x, &y) in part.iter_mut().zip(&acc) {
                    *x = y as i32;
                }
            }
            let av = a_view(0);
            for (ri, i) in (r0..r1).enumerate() {
                // bo·(K·ao - Σ_k a(i, k)) (B's offset, and the constant term).
                let row_comp: i64 = match bo != 0 && products_needed {
                    true => {
                        bo * (k as i64 * ao - (0..k).map(|kk| av.at(ri, kk) as i64).sum::<i64>())
                    }
                    false => 0,
                };
                // SAFETY: row i, columns `cols` of C: inside C (checked
                // spans) and this tile's alone.
                let c_row = unsafe { out.row(i * ldc + cols.start, nc) };
                let sums = &part[ri * nc..(ri + 1) * nc];
                let co_row = match args.offsetc {
                    COffset::Fixed => args.co[0],
                    COffset::Column => args.co[i],
                    COffset::Row => 0,
                };
                let co_cols = match args.offsetc {
                    COffset::Row => &args.co[cols.clone()],
                    _ => &[][..],
                };
                if int_path {
                    // Wrapping s32: only the low 32 bits of each term count.
                    let base = (row_comp as i32).wrapping_add(co_row);
                    let keep = args.beta == 1.0;
                    for (cj, c) in c_row.iter_mut().enumerate() {
                        let old = if keep { *c } else { 0 };
                        *c = sums[cj]
                            .wrapping_add(col_comp[cj] as i32)
                            .wrapping_add(base)
                            .wrapping_add(old);
                    }
                    for (c, &co) in c_row.iter_mut().zip(co_cols) {
                        *c = c.wrapping_add(co);
                    }
                    continue;
                }
                for (cj, c) in c_row.iter_mut().enumerate() {
                    let exact = match single_pass {
                        true => sums[cj] as i64,
                        false => acc[ri * nc + cj],
                    };
                    let x = exact + col_comp[cj] + row_comp;
                    let co = co_row.wrapping_add(co_cols.get(cj).copied().unwrap_or(0));
                    *c = scaled_result(x, args.alpha, args.beta, || *c, co);
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// op(X)(r, c) of a stored matrix.
    fn at<T: Copy>(x: &[T], trans: bool, ld: usize, r: usize, c: usize) -> T {
        if trans { x[c * ld + r] } else { x[r * ld + c] }
    }

    #[test]
    fn problem_checks_as_upstream() {
        let ok = |ta, tb, m, n, k, lda, ldb, ldc| Problem::new(ta, tb, m, n, k, lda, ldb, ldc);
        assert!(ok(b'N', b'n', 2, 3, 4, 4, 3, 3).is_ok());
        assert!(ok(b'X', b'N', 2, 3, 4, 4, 3, 3).is_err());
        assert!(ok(b'P', b'N', 2, 3, 4, 4, 3, 3).is_err());
        assert!(ok(b'N', b'N', -1, 3, 4, 4, 3, 3).is_err());
        assert!(ok(b'N', b'N', 2, 3, 4, 3, 3, 3).is_err(), "lda < K");
        assert!(ok(b'T', b'N', 2, 3, 4, 2, 3, 3).is_ok(), "lda >= M");
        assert!(ok(b'T', b'N', 2, 3, 4, 1, 3, 3).is_err());
        assert!(ok(b'N', b'T', 2, 3, 4, 4, 4, 3).is_ok(), "ldb >= K");
        assert!(ok(b'N', b'T', 2, 3, 4, 4, 3, 3).is_err());
        assert!(ok(b'N', b'N', 2, 3, 4, 4, 3, 2).is_err(), "ldc < N");
        assert!(ok(b'N', b'N', 0, 0, 0, 0, 1, 1).is_err(), "lda 0");
        let p = ok(b'N', b'N', 0, 0, 0, 1, 1, 1).unwrap();
        assert!(p.is_empty());
        assert_eq!(p.a_len().unwrap(), 0);
        let p = ok(b't', b't', 3, 5, 7, 4, 9, 6).unwrap();
        assert_eq!(p.a_len().unwrap(), 6 * 4 + 3);
        assert_eq!(p.b_len().unwrap(), 4 * 9 + 7);
        assert_eq!(p.c_len().unwrap(), 2 * 6 + 5);
        assert!(
            ok(b'N', b'N', i64::MAX, 2, 2, 2, 2, 2)
                .unwrap()
                .c_len()
                .is_err()
        );
    }

    #[test]
    fn sgemm_matches_a_double_reference() {
        // The last ones span several of the microkernel's tiles, K slices
        // and threads.
        for &(m, n, k) in &[
            (1, 1, 1),
            (7, 33, 130),
            (130, 7, 33),
            (64, 300, 257),
            (197, 131, 600),
        ] {
            for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
                for (alpha, beta) in [(1.0f32, 0.0f32), (0.5, 1.0), (-1.5, 0.25), (0.0, 2.0)] {
                    let (tc, td) = (if ta { b'T' } else { b'N' }, if tb { b't' } else { b'n' });
                    let lda = (if ta { m } else { k }) + 3;
                    let ldb = (if tb { k } else { n }) + 1;
                    let ldc = n + 2;
                    let p = Problem::new(tc, td, m, n, k, lda, ldb, ldc).unwrap();
                    let fill = |len: usize, s: usize| -> Vec<f32> {
                        (0..len)
                            .map(|i| ((i * s + 3) % 23) as f32 / 7.0 - 1.5)
                            .collect()
                    };
                    let a = fill(p.a_len().unwrap(), 7);
                    let b = fill(p.b_len().unwrap(), 11);
                    let mut c = fill(p.c_len().unwrap(), 5);
                    if beta == 0.0 {
                        c.fill(f32::NAN);
                    }
                    let c0 = c.clone();
                    sgemm(&p, alpha, &a, &b, beta, &mut c);
                    let (m, n, k) = (m as usize, n as usize, k as usize);
                    let (lda, ldb, ldc) = (lda as usize, ldb as usize, ldc as usize);
                    for i in 0..m {
                        for j in 0..n {
                            let dot: f64 = (0..k)
                                .map(|kk| {
                                    at(&a, ta, lda, i, kk) as f64 * at(&b, tb, ldb, kk, j) as f64
                                })
                                .sum();
                            let old = if beta == 0.0 {
                                0.0
                            } else {
                                c0[i * ldc + j] as f64
                            };
                            let want = alpha as f64 * dot + beta as f64 * old;
                            let got = c[i * ldc + j] as f64;
                            assert!(
                                (got - want).abs() <= 1e-4 * (1.0 + want.abs()),
                                "{m}x{n}x{k} {ta} {tb} ({i}, {j}): {got} vs {want}"
                            );
                        }
                        // The padding between rows is untouched.
                        for j in n..ldc.min(c.len() - i * ldc) {
                            assert!(c[i * ldc + j].to_bits() == c0[i * ldc + j].to_bits());
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn integer_gemm_matches_an_exact_reference() {
        for &(m, n, k) in &[(1, 1, 1), (7, 33, 130), (130, 7, 33), (40, 70, 515)] {
            for (ta, tb) in [(false, false), (true, true), (true, false)] {
                for (elem_a, ao, bo) in [(Elem::U8, 3, -2), (Elem::S8, -5, 7), (Elem::U8, 0, 0)] {
                    for offsetc in [COffset::Fixed, COffset::Column, COffset::Row] {
                        for (alpha, beta) in [(1.0f32, 0.0f32), (1.0, 1.0), (0.5, -1.0)] {
                            let (tc, td) =
                                (if ta { b't' } else { b'N' }, if tb { b'T' } else { b'n' });
                            let lda = (if ta { m } else { k }) + 1;
                            let ldb = (if tb { k } else { n }) + 5;
                            let ldc = n + 3;
                            let p = Problem::new(tc, td, m, n, k, lda, ldb, ldc).unwrap();
                            let a: Vec<u8> = (0..p.a_len().unwrap())
                                .map(|i| (i * 37 % 256) as u8)
                                .collect();
                            let b: Vec<u8> = (0..p.b_len().unwrap())
                                .map(|i| (i * 91 % 256) as u8)
                                .collect();
                            let co: Vec<i32> = (0..offsetc.len(p.m, p.n))
                                .map(|i| i as i32 * 1000 - 7)
                                .collect();
                            let mut c: Vec<i32> =
                                (0..p.c_len().unwrap()).map(|i| i as i32 * 3 - 50).collect();
                            let c0 = c.clone();
                            let args = IntArgs {
                                alpha,
                                a: Int8 {
                                    bytes: &a,
                                    elem: elem_a,
                                },
                                ao,
                                b: Int8 {
                                    bytes: &b,
                                    elem: Elem::S8,
                                },
                                bo,
                                beta,
                                offsetc,
                                co: &co,
                            };
                            gemm_x8(&p, &args, &mut c);
                            let (m, n, k) = (m as usize, n as usize, k as usize);
                            let (lda, ldb, ldc) = (lda as usize, ldb as usize, ldc as usize);
                            let val = |e: Elem, x: u8| {
                                if e == Elem::S8 {
                                    x as i8 as i64
                                } else {
                                    x as i64
                                }
                            };
                            for i in 0..m {
                                for j in 0..n {
                                    let acc: i64 = (0..k)
                                        .map(|kk| {
                                            (val(elem_a, at(&a, ta, lda, i, kk)) - ao as i64)
                                                * (val(Elem::S8, at(&b, tb, ldb, kk, j))
                                                    - bo as i64)
                                        })
                                        .sum();
                                    let old = c0[i * ldc + j] as f64;
                                    let v = alpha as f64 * acc as f64 + beta as f64 * old;
                                    let coff = offsetc.at(&co, i, j) as f64;
                                    let want = v.round() + coff;
                                    assert_eq!(
                                        c[i * ldc + j] as f64,
                                        want,
                                        "{m}x{n}x{k} {offsetc:?} alpha {alpha} beta {beta} ({i}, {j})"
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn scaled_results_round_and_saturate_as_upstream() {
        let r = |acc, alpha, beta, old, co| scaled_result(acc, alpha, beta, || old, co);
        // Ties away from zero.
        assert_eq!(r(1, 0.5, 0.0, 0, 0), 1);
        assert_eq!(r(-1, 0.5, 0.0, 0, 0), -1);
        assert_eq!(r(5, 0.5, 0.0, 0, 0), 3);
        assert_eq!(r(0, 1.0, 0.5, -3, 0), -2);
        // The C offset after the rounding: -0.5 -> -1, then + 1.
        assert_eq!(r(-1, 0.5, 0.0, 0, 1), 0);
        // Saturation, then the offset (wrapping).
        assert_eq!(r(0, 1.0, 2.0, 2_000_000_000, 0), i32::MAX);
        assert_eq!(r(0, 1.0, 2.0, 2_000_000_000, -5), i32::MAX - 5);
        assert_eq!(r(2_258_060_000, 0.5, 0.0, 0, 0), 1_129_030_000);
        assert_eq!(r(0, 1.0, -1.0, i32::MIN, 0), i32::MAX);
        assert_eq!(r(1_500_000_000, -2.0, 0.0, 0, 0), i32::MIN);
        assert_eq!(r(5, 2.0, 0.0, 0, i32::MAX), i32::MIN + 9);
        // beta 0 reads nothing.
        assert_eq!(scaled_result(7, 2.0, 0.0, || unreachable!(), 0), 14);
    }

    /// alpha 1 with beta 0 or 1 wraps in s32 (C, the sums and the offset).
    #[test]
    fn unscaled_results_wrap_as_upstream() {
        let p = Problem::new(b'N', b'N', 1, 2, 1, 1, 2, 2).unwrap();
        let (a, b) = ([10u8], [1u8, 0xff]);
        for (beta, old, co, want) in [
            (
                1.0f32,
                [i32::MAX - 5, i32::MIN + 5],
                0,
                [i32::MIN + 4, i32::MAX - 4],
            ),
            (0.0, [77, 77], i32::MAX - 5, [i32::MIN + 4, i32::MAX - 15]),
        ] {
            let mut c = old;
            let args = IntArgs {
                alpha: 1.0,
                a: Int8 {
                    bytes: &a,
                    elem: Elem::U8,
                },
                ao: 0,
                b: Int8 {
                    bytes: &b,
                    elem: Elem::S8,
                },
                bo: 0,
                beta,
                offsetc: COffset::Fixed,
                co: &[co],
            };
            gemm_x8(&p, &args, &mut c);
            assert_eq!(c, want, "beta {beta}");
        }
    }

    /// Sums past s32 stay exact: more than one pass of [`K_PASS`] in i64.
    #[test]
    fn integer_sums_past_s32_are_exact() {
        let (m, n, k) = (2i64, 3i64, 140_000i64);
        let p = Problem::new(b'N', b'N', m, n, k, k, n, n).unwrap();
        let a = vec![127u8; p.a_len().unwrap()];
        let b = vec![127u8; p.b_len().unwrap()];
        for (alpha, want) in [(0.5f32, 1_129_030_000i32), (1.0, -2_036_907_296)] {
            let mut c = vec![0i32; p.c_len().unwrap()];
            let args = IntArgs {
                alpha,
                a: Int8 {
                    bytes: &a,
                    elem: Elem::S8,
                },
                ao: 0,
                b: Int8 {
                    bytes: &b,
                    elem: Elem::S8,
                },
                bo: 0,
                beta: 0.0,
                offsetc: COffset::Fixed,
                co: &[0],
            };
            gemm_x8(&p, &args, &mut c);
            assert!(c.iter().all(|&x| x == want), "alpha {alpha}: {c:?}");
        }
    }

    #[test]
    fn tiles_cover_c_once() {
        for &(m, n, k) in &[
            (1, 1, 1),
            (1, 5000, 512),
            (3, 100, 100_000),
            (2048, 2048, 2048),
        ] {
            let mut seen = vec![0u8; m * n];
            for (rows, cols) in tiles(m, n, k) {
                for i in rows {
                    for j in cols.clone() {
                        seen[i * n + j] += 1;
                    }
                }
            }
            assert!(seen.iter().all(|&s| s == 1), "{m}x{n}x{k}");
        }
    }
}
