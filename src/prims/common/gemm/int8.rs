//! The GEMM engine's int8 CPU run: [`run`] computes a [`Gemm`] of `u8`/`s8`
//! operands with its epilogue on the CPU engine, accumulating exactly in
//! s32 (matmul's and inner product's `cpu:gemm` for int8 problems).
//!
//! Layer: prims. Where the host has AVX2 (or AMX-INT8), the products run
//! on `gemm::blocked` (B packed once per call, tiles claimed by the
//! workers): its AMX int8 kernels (`tdpbusd` and siblings, four K per slot)
//! or its AVX2 one (`vpmaddwd` over K pairs widened to i16), which hand
//! each tile's s32 sums over to be finished where they were computed.
//! Elsewhere a classic packed GEMM: the output rows are split over the
//! persistent GEMM workers (`cpu::run_pooled`); each worker walks N in
//! blocks of [`NC`] and K in blocks of [`KC`], packs the block of B into
//! panels of [`NR`] columns and its rows of A into panels of [`MR`] rows,
//! both as i16 with K in pairs (`[k/2][col][2]`, zero padded), and a
//! register-blocked `MR x NR` micro-kernel accumulates products into i32
//! tiles (a plain loop the compiler vectorises; [`products`] also serves
//! `dnnl_gemm_*s32`, with the AVX2 kernel where the host has it).
//!
//! Zero points are compensated in s32 (wrapping, so the result equals
//! `Σ (a - za)·(b - zb)` modulo 2^32, as s32 arithmetic gives):
//! `Σ a·b - Σ_k za_k·b_kn - zb_n·Σ_k a_mk + zb_n·Σ_k za_k`. Then, in f32 as
//! upstream documents: src and weights scales, bias, post-ops, 1 / dst
//! scale, dst zero point, and a rounding (half to even), saturating store.
//! An s32 dst with none of those is stored from the integer accumulator
//! (exact at any magnitude).

use std::collections::HashMap;

use super::blocked::{self, Mat, Path, Problem, Tile};
use super::cpu::{RowEpilogue, Scales, run_pooled};
use super::{Epilogue, Gemm, GemmArgs, Operand, Zp};
use crate::abi::*;
use crate::core::error::{Error, Result};
use crate::core::primitive::ExecContext;
use crate::prims::common::buffers::{Buffer, host_bytes, host_bytes_mut};
use crate::prims::common::dt::{self, Elem};
use crate::prims::common::parallel;

/// Micro-kernel rows.
pub(crate) const MR: usize = 6;
/// Micro-kernel columns.
pub(crate) const NR: usize = 16;
/// Columns per packed block of B.
pub(crate) const NC: usize = 256;
/// Depth per packed block (even).
pub(crate) const KC: usize = 512;

/// Reads `count` s32 zero points of argument `arg`.
fn zero_points(ctx: &ExecContext, arg: i32, count: usize) -> Result<Vec<i32>> {
    let buffer = Buffer::values(
        ctx.arg(DNNL_ARG_ATTR_ZERO_POINTS | arg)?,
        count * 4,
        "zero points",
    )?;
    if !matches!(buffer, Buffer::Host { .. }) {
        return Err(Error::invalid("the zero points memory is not host memory"));
    }
    // SAFETY: the memory holds `count` s32 values (checked where the library
    // allocated it; a user pointer is trusted, as upstream).
    let bytes = unsafe { host_bytes(buffer.host_addr(), count * 4) };
    Ok(bytes
        .chunks_exact(4)
        .map(|c| i32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// The zero points of one execution (empty: none).
struct ZeroPoints {
    src: Vec<i32>,
    src_kind: Option<Zp>,
    wei: Vec<i32>,
    dst: Vec<i32>,
}

impl ZeroPoints {
    fn read(ctx: &ExecContext, epi: &Epilogue, k: usize, n: usize) -> Result<ZeroPoints> {
        let read = |z: Option<Zp>, arg: i32| -> Result<Vec<i32>> {
            match z {
                None => Ok(Vec::new()),
                Some(z) => zero_points(ctx, arg, z.count(k as i64, n as i64)),
            }
        };
        // Weights and dst: one per N (repeated when common).
        let per_n = |v: Vec<i32>, z: Option<Zp>| match z {
            Some(Zp::Common) => vec![v[0]; n],
            _ => v,
        };
        let wei = per_n(read(epi.zp_wei, DNNL_ARG_WEIGHTS)?, epi.zp_wei);
        let dst = per_n(read(epi.zp_dst, DNNL_ARG_DST)?, epi.zp_dst);
        Ok(ZeroPoints {
            src: read(epi.zp_src, DNNL_ARG_SRC)?,
            src_kind: epi.zp_src,
            wei,
            dst,
        })
    }

    /// The src zero point of depth index `kk` (0 without one).
    fn src_at(&self, kk: usize) -> i32 {
        match self.src_kind {
            None => 0,
            Some(Zp::PerK) => self.src[kk],
            Some(_) => self.src[0],
        }
    }
}

/// A host buffer checked to hold what the operand spans.
fn host(ctx: &ExecContext, arg: i32, op: &Operand, what: &str) -> Result<usize> {
    let buffer = Buffer::of(ctx.arg(arg)?)?;
    if op.bytes == 0 {
        return Ok(buffer.host_addr());
    }
    buffer.check_holds(op.bytes, what)?;
    match buffer {
        Buffer::Host { addr, .. } => Ok(addr),
        _ => Err(Error::invalid(format!(
            "the {what} memory is not host memory"
        ))),
    }
}

/// Element `index` of an int8 buffer as i16.
#[inline(always)]
fn int8_at(elem: Elem, bytes: &[u8], index: i64) -> i16 {
    let b = bytes[index as usize];
    if elem == Elem::S8 {
        b as i8 as i16
    } else {
        b as i16
    }
}

/// An int8 matrix view: element `(r, c)` at `first + r * rs + c * cs`.
#[derive(Clone, Copy)]
pub(crate) struct View<'a> {
    pub bytes: &'a [u8],
    pub elem: Elem,
    pub first: i64,
    pub rs: i64,
    pub cs: i64,
}

impl View<'_> {
    #[inline(always)]
    pub(crate) fn at(&self, r: usize, c: usize) -> i16 {
        int8_at(
            self.elem,
            self.bytes,
            self.first + r as i64 * self.rs + c as i64 * self.cs,
        )
    }
}

/// Packs rows `r0..r0 + rows` (at most MR), depths `k0..k0 + kc` of A into
/// `out` as `[kc/2][MR][2]` i16 (zero padded).
fn pack_a(a: &View, r0: usize, rows: usize, k0: usize, kc: usize, out: &mut [i16]) {
    let pairs = kc.div_ceil(2);
    out[..pairs * 2 * MR].fill(0);
    for i in 0..rows {
        for kk in 0..kc {
            out[(kk / 2) * 2 * MR + i * 2 + kk % 2] = a.at(r0 + i, k0 + kk);
        }
    }
}

/// Packs depths `k0..k0 + kc`, columns `n0..n0 + cols` of B into panels of
/// NR columns, each `[kc/2][NR][2]` i16 (zero padded).
fn pack_b(b: &View, k0: usize, kc: usize, n0: usize, cols: usize, out: &mut [i16]) {
    let pairs = kc.div_ceil(2);
    let panel = pairs * 2 * NR;
    out[..cols.div_ceil(NR) * panel].fill(0);
    for p in 0..cols.div_ceil(NR) {
        let dst = &mut out[p * panel..(p + 1) * panel];
        let width = NR.min(cols - p * NR);
        for kk in 0..kc {
            let row = &mut dst[(kk / 2) * 2 * NR..];
            for j in 0..width {
                row[j * 2 + kk % 2] = b.at(k0 + kk, n0 + p * NR + j);
            }
        }
    }
}

/// `acc += A_panel · B_panel` over `pairs` K pairs (portable: the compiler
/// vectorises the column loop).
#[inline(always)]
fn kernel_generic(pairs: usize, a: &[i16], b: &[i16], acc: &mut [[i32; NR]; MR]) {
    for p in 0..pairs {
        let bp: &[i16; 2 * NR] = b[p * 2 * NR..][..2 * NR].try_into().unwrap_or(&[0; 2 * NR]);
        let ap: &[i16; 2 * MR] = a[p * 2 * MR..][..2 * MR].try_into().unwrap_or(&[0; 2 * MR]);
        for i in 0..MR {
            let (a0, a1) = (ap[2 * i] as i32, ap[2 * i + 1] as i32);
            for j in 0..NR {
                let prod = (bp[2 * j] as i32 * a0).wrapping_add(bp[2 * j + 1] as i32 * a1);
                acc[i][j] = acc[i][j].wrapping_add(prod);
            }
        }
    }
}

/// The AVX2 micro-kernel: per K pair, 2 vectors of B (8 columns x 2 depths
/// each), MR broadcasts of A's pair, `vpmaddwd` + `vpaddd` into 2·MR
/// accumulators.
///
/// # Safety
/// The CPU has AVX2; `a` holds `pairs * 2 * MR` and `b` `pairs * 2 * NR`
/// values.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn kernel_avx2(pairs: usize, a: &[i16], b: &[i16], acc: &mut [[i32; NR]; MR]) {
    use std::arch::x86_64::*;
    debug_assert!(a.len() >= pairs * 2 * MR && b.len() >= pairs * 2 * NR);
    let mut c = [[_mm256_setzero_si256(); 2]; MR];
    let (ap, bp) = (a.as_ptr(), b.as_ptr());
    for p in 0..pairs {
        // SAFETY: within the panels (the caller's contract); unaligned loads.
        unsafe {
            let b0 = _mm256_loadu_si256(bp.add(p * 2 * NR) as *const __m256i);
            let b1 = _mm256_loadu_si256(bp.add(p * 2 * NR + 16) as *const __m256i);
            for (i, ci) in c.iter_mut().enumerate() {
                let pair = (ap.add(p * 2 * MR + 2 * i) as *const i32).read_unaligned();
                let av = _mm256_set1_epi32(pair);
                ci[0] = _mm256_add_epi32(ci[0], _mm256_madd_epi16(av, b0));
                ci[1] = _mm256_add_epi32(ci[1], _mm256_madd_epi16(av, b1));
            }
        }
    }
    for (row, ci) in acc.iter_mut().zip(&c) {
        let mut out = [0i32; NR];
        // SAFETY: `out` holds 16 i32, two unaligned 32-byte stores.
        unsafe {
            _mm256_storeu_si256(out.as_mut_ptr() as *mut __m256i, ci[0]);
            _mm256_storeu_si256(out.as_mut_ptr().add(8) as *mut __m256i, ci[1]);
        }
        for (x, y) in row.iter_mut().zip(out) {
            *x = x.wrapping_add(y);
        }
    }
}

/// Whether the AVX2 micro-kernel may run.
fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `acc += A_panel · B_panel` with the best micro-kernel.
#[inline]
fn micro(avx2: bool, pairs: usize, a: &[i16], b: &[i16], acc: &mut [[i32; NR]; MR]) {
    #[cfg(target_arch = "x86_64")]
    if avx2 && a.len() >= pairs * 2 * MR && b.len() >= pairs * 2 * NR {
        // SAFETY: AVX2 was detected; the panels hold `pairs` K pairs.
        unsafe { kernel_avx2(pairs, a, b, acc) };
        return;
    }
    let _ = avx2;
    kernel_generic(pairs, a, b, acc);
}

/// The exact s32 products `C[r, n] = Σ_k A[r, k]·B[k, n]` of `rows` rows
/// from `a` (rows x k) and `b` (k x n) into `out` (rows x n, row-major).
pub(crate) fn products(a: &View, b: &View, rows: usize, n: usize, k: usize, out: &mut [i32]) {
    out[..rows * n].fill(0);
    let avx2 = has_avx2();
    let kc_max = KC.min(k.max(2).next_multiple_of(2));
    let mut bpack = vec![0i16; kc_max * NC.min(n.next_multiple_of(NR))];
    let mut apack = vec![0i16; kc_max * MR];
    for n0 in (0..n).step_by(NC) {
        let nc = NC.min(n - n0);
        for k0 in (0..k).step_by(KC) {
            let kc = KC.min(k - k0);
            let pairs = kc.div_ceil(2);
            pack_b(b, k0, kc, n0, nc, &mut bpack);
            for r0 in (0..rows).step_by(MR) {
                let mr = MR.min(rows - r0);
                pack_a(a, r0, mr, k0, kc, &mut apack);
                for p in 0..nc.div_ceil(NR) {
                    let panel = &bpack[p * pairs * 2 * NR..(p + 1) * pairs * 2 * NR];
                    let mut acc = [[0i32; NR]; MR];
                    micro(avx2, pairs, &apack[..pairs * 2 * MR], panel, &mut acc);
                    let cols = NR.min(nc - p * NR);
                    for (i, row) in acc.iter().enumerate().take(mr) {
                        let o = &mut out[(r0 + i) * n + n0 + p * NR..][..cols];
                        for (x, y) in o.iter_mut().zip(row) {
                            *x = x.wrapping_add(*y);
                        }
                    }
                }
            }
        }
    }
}

/// Runs the int8 GEMM `g` with epilogue `epi` on the CPU, reading and
/// writing the execution arguments `args`.
pub(crate) fn run(ctx: &ExecContext, g: &Gemm, epi: &Epilogue, args: GemmArgs) -> Result<()> {
    let a = host(ctx, args.a, &g.a, "A")?;
    let b = host(ctx, args.b, &g.b, "B")?;
    let c = host(ctx, args.c, &g.c, "C")?;
    let bias = match (args.bias, &g.bias) {
        (Some(arg), Some(op)) => Some((host(ctx, arg, op, "bias")?, *op)),
        _ => None,
    };
    let (m, n, k) = (g.m as usize, g.n as usize, g.k as usize);
    let batches = g.batches() as usize;
    if m == 0 || n == 0 || batches == 0 {
        return Ok(());
    }
    let scales = Scales::read(ctx, epi, n)?;
    let zps = ZeroPoints::read(ctx, epi, k, n)?;
    let post = epi.post_ops.bind(ctx)?;
    let sum_elem = epi.post_ops.sum_elem(g.c.elem);
    let with_post = !epi.post_ops.is_empty();
    // An s32 dst with nothing after the products: stored as integers.
    let exact = g.c.elem == Elem::S32
        && !with_post
        && bias.is_none()
        && !epi.src_scale
        && epi.wei_scale.is_none()
        && !epi.dst_scale
        && epi.zp_dst.is_none();
    // SAFETY: the buffers hold what the operands span (checked above, or
    // trusted user pointers); inputs are only read.
    let a_bytes = unsafe { host_bytes(a, g.a.bytes) };
    // SAFETY: as above.
    let b_bytes = unsafe { host_bytes(b, g.b.bytes) };
    let bias_bytes = bias.map(|(addr, op)| {
        // SAFETY: as above.
        (unsafe { host_bytes(addr, op.bytes) }, op)
    });
    let zsum: i32 = (0..k).fold(0i32, |s, kk| s.wrapping_add(zps.src_at(kk)));
    let ndims = g.batch.len() + 2;
    let finish = Finish {
        g,
        zps: &zps,
        zsum,
        exact,
        row_epi: RowEpilogue {
            g,
            scales: &scales,
            bias: bias_bytes,
            post: &post,
            sum_elem,
            with_post,
            c,
        },
        c,
    };
    // The batch's A (row 0 first) and B, and its position where post-ops
    // need one.
    let views = |batch: usize, pos: &mut [i64]| {
        let offs = g.batch_offsets(batch as i64);
        if with_post {
            let mut rest = batch;
            for d in (0..ndims - 2).rev() {
                let size = g.batch[d].size as usize;
                pos[d] = (rest % size) as i64;
                rest /= size;
            }
        }
        let view = |bytes, op: &Operand, first| View {
            bytes,
            elem: op.elem,
            first,
            rs: op.rs,
            cs: op.cs,
        };
        let a = view(a_bytes, &g.a, g.a.off + offs[0]);
        (offs, a, view(b_bytes, &g.b, g.b.off + offs[1]))
    };
    let path = Path::current(g.a.elem, g.b.elem);
    if path.int8_only() {
        // On the blocked products (the AMX tiles): the src zero point's
        // compensation once per distinct B, then each tile's rows finished
        // where they were computed.
        let mut comps: HashMap<i64, Vec<i32>> = HashMap::new();
        if epi.zp_src.is_some() {
            for batch in 0..batches {
                let (_, _, b) = views(batch, &mut [0; 12]);
                comps
                    .entry(b.first)
                    .or_insert_with(|| column_comp(&zps, &b, k, n));
            }
        }
        let first = |i: usize| {
            let offs = g.batch_offsets(i as i64);
            (g.a.off + offs[0], g.b.off + offs[1])
        };
        let mat = |bytes, op: &Operand| Mat {
            bytes,
            elem: op.elem,
            rs: op.rs,
            cs: op.cs,
        };
        let problem = Problem {
            m,
            n,
            k,
            batches,
            a: mat(a_bytes, &g.a),
            b: mat(b_bytes, &g.b),
            first: &first,
        };
        let tile = |t: &Tile, sums: &mut [f32]| {
            let mut pos = vec![0i64; ndims];
            let (offs, a, b) = views(t.batch, &mut pos);
            let comp = comps.get(&b.first).map(|v| v.as_slice());
            let (mut ints, mut values) = (vec![0i32; t.cols], vec![0f32; t.cols]);
            for r in 0..t.rows {
                // The tiles' s32 sums, in the f32 values' bits.
                for (x, v) in ints.iter_mut().zip(&sums[r * t.ld..][..t.cols]) {
                    *x = v.to_bits() as i32;
                }
                let at = RowAt {
                    a: &a,
                    mm: t.m0 + r,
                    n0: t.n0,
                    offs: &offs,
                    comp,
                };
                finish.row(&at, &mut ints, &mut values, &mut pos);
            }
        };
        // u8 x s8 on AVX2 through `vpmaddubsw` where no pair sum can
        // saturate (1.6x the widened kernel's rate in a microbenchmark).
        let path = match path {
            Path::Avx2Int8 if blocked::quads_fit(&problem) => Path::Avx2Quads,
            path => path,
        };
        blocked::run(path, &problem, &tile);
        return Ok(());
    }
    let min_rows = ((1usize << 20) / (n * k.max(1)).max(1)).max(MR);
    let ranges = parallel::split(batches * m, min_rows);
    run_pooled(ranges, |range| {
        let mut row = range.start;
        let mut acc: Vec<i32> = Vec::new();
        let mut col_comp: Option<(i64, Vec<i32>)> = None;
        let mut pos = vec![0i64; ndims];
        let mut values = vec![0f32; n];
        while row < range.end {
            let batch = row / m;
            let m0 = row % m;
            let rows = (m - m0).min(range.end - row);
            let (offs, a, b) = views(batch, &mut pos);
            let av = View {
                first: a.first + m0 as i64 * g.a.rs,
                ..a
            };
            acc.resize(rows * n, 0);
            products(&av, &b, rows, n, k, &mut acc);
            if epi.zp_src.is_some() && col_comp.as_ref().is_none_or(|(at, _)| *at != b.first) {
                col_comp = Some((b.first, column_comp(&zps, &b, k, n)));
            }
            for r in 0..rows {
                let at = RowAt {
                    a: &a,
                    mm: m0 + r,
                    n0: 0,
                    offs: &offs,
                    comp: col_comp.as_ref().map(|(_, v)| v.as_slice()),
                };
                finish.row(&at, &mut acc[r * n..(r + 1) * n], &mut values, &mut pos);
            }
            row += rows;
        }
    });
    Ok(())
}

/// The src zero point's compensation of each column of B: `Σ_k zp_k ·
/// B[k, n]`, in wrapping s32.
fn column_comp(zps: &ZeroPoints, b: &View, k: usize, n: usize) -> Vec<i32> {
    let mut v = vec![0i32; n];
    for kk in 0..k {
        let z = zps.src_at(kk);
        if z != 0 {
            for (nn, x) in v.iter_mut().enumerate() {
                *x = x.wrapping_add(z.wrapping_mul(b.at(kk, nn) as i32));
            }
        }
    }
    v
}

/// Where a run of s32 sums lies: columns `n0..` of row `mm` of the batch at
/// `offs` (`Gemm::batch_offsets`), whose A is `a` (row 0 first) and whose
/// B's src zero point compensation (all columns) is `comp`.
struct RowAt<'a> {
    a: &'a View<'a>,
    mm: usize,
    n0: usize,
    offs: &'a [i64; 4],
    comp: Option<&'a [i32]>,
}

/// What turns s32 sums into dst values: the zero points' compensation,
/// then either the integers stored as they are (an s32 dst with nothing
/// after the products) or the f32 epilogue, dst's zero point and a
/// rounding, saturating store.
struct Finish<'a> {
    g: &'a Gemm,
    zps: &'a ZeroPoints,
    /// The sum of the src zero points over K.
    zsum: i32,
    exact: bool,
    row_epi: RowEpilogue<'a>,
    /// dst's host address.
    c: usize,
}

impl Finish<'_> {
    /// Finishes the sums `ints` at `at` (`values` holds as many f32; `pos`
    /// has the batch's position where post-ops need it).
    fn row(&self, at: &RowAt, ints: &mut [i32], values: &mut [f32], pos: &mut [i64]) {
        let (g, n0) = (self.g, at.n0);
        if let Some(comp) = at.comp {
            for (x, y) in ints.iter_mut().zip(&comp[n0..]) {
                *x = x.wrapping_sub(*y);
            }
        }
        if !self.zps.wei.is_empty() {
            let k = g.k as usize;
            let rsum = (0..k).fold(0i32, |s, kk| s.wrapping_add(at.a.at(at.mm, kk) as i32));
            let rsum = rsum.wrapping_sub(self.zsum);
            for (x, zw) in ints.iter_mut().zip(&self.zps.wei[n0..]) {
                *x = x.wrapping_sub(zw.wrapping_mul(rsum));
            }
        }
        let c_row = g.c.off + at.offs[2] + at.mm as i64 * g.c.rs;
        let column = |j: usize| (c_row + (n0 + j) as i64 * g.c.cs) as usize;
        if self.exact {
            if g.c.cs == 1 {
                // SAFETY: the row's run of dst, written by this thread only.
                let out = unsafe { host_bytes_mut(self.c + column(0) * 4, ints.len() * 4) };
                for (o, v) in out.chunks_exact_mut(4).zip(ints.iter()) {
                    o.copy_from_slice(&v.to_ne_bytes());
                }
                return;
            }
            for (j, v) in ints.iter().enumerate() {
                // SAFETY: one element of dst, written by this thread only.
                let out = unsafe { host_bytes_mut(self.c + column(j) * 4, 4) };
                out.copy_from_slice(&v.to_ne_bytes());
            }
            return;
        }
        let values = &mut values[..ints.len()];
        for (v, &x) in values.iter_mut().zip(ints.iter()) {
            *v = x as f32;
        }
        self.row_epi
            .apply_at(values, at.mm, n0, at.offs, c_row, pos);
        for (v, z) in values.iter_mut().zip(self.zps.dst.get(n0..).unwrap_or(&[])) {
            *v += *z as f32;
        }
        let esize = g.c.elem.size();
        if g.c.cs == 1 {
            // SAFETY: the row's run of dst, written by this thread only.
            let out = unsafe { host_bytes_mut(self.c + column(0) * esize, values.len() * esize) };
            dt::store_run(g.c.elem, out, 0, values);
            return;
        }
        for (j, v) in values.iter().enumerate() {
            // SAFETY: one element of dst, written by this thread only.
            let out = unsafe { host_bytes_mut(self.c + column(j) * esize, esize) };
            dt::store(g.c.elem, out, 0, *v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The packed products equal a naive sum, for every micro-kernel, at
    /// edges of every block size and with K odd.
    #[test]
    fn products_match_naive() {
        for &(rows, n, k) in &[
            (1, 1, 1),
            (5, 17, 3),
            (9, 300, 515),
            (4, 16, 1024),
            (7, 33, 1),
        ] {
            let a: Vec<u8> = (0..rows * k).map(|i| (i * 37 % 256) as u8).collect();
            let b: Vec<u8> = (0..k * n).map(|i| (i * 91 % 256) as u8).collect();
            let av = View {
                bytes: &a,
                elem: Elem::U8,
                first: 0,
                rs: k as i64,
                cs: 1,
            };
            // B transposed in memory (n x k), read as k x n.
            let bt: Vec<u8> = (0..n * k).map(|i| b[(i % k) * n + i / k]).collect();
            let bv = View {
                bytes: &bt,
                elem: Elem::S8,
                first: 0,
                rs: 1,
                cs: k as i64,
            };
            let mut out = vec![0i32; rows * n];
            products(&av, &bv, rows, n, k, &mut out);
            for r in 0..rows {
                for j in 0..n {
                    let want: i32 = (0..k)
                        .map(|kk| a[r * k + kk] as i32 * b[kk * n + j] as i8 as i32)
                        .sum();
                    assert_eq!(out[r * n + j], want, "({r}, {j}) of {rows}x{n}x{k}");
                }
            }
            // The portable kernel agrees with the AVX2 one.
            let mut acc1 = [[0i32; NR]; MR];
            let mut acc2 = [[0i32; NR]; MR];
            let pa: Vec<i16> = (0..8 * MR).map(|i| (i as i16 * 13) % 255).collect();
            let pb: Vec<i16> = (0..8 * NR).map(|i| (i as i16 * 7) % 255 - 128).collect();
            kernel_generic(4, &pa, &pb, &mut acc1);
            micro(has_avx2(), 4, &pa, &pb, &mut acc2);
            assert_eq!(acc1, acc2);
        }
    }
}
