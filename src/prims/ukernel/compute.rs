//! The compute of the ukernel objects, on raw pointers: the batch-reduce GEMM
//! with its epilogues, and the B-packing copy.
//!
//! Layer: prims. Everything the C caller's pointers reach is described by a
//! frozen plan ([`BrgemmPlan`], [`TransformPlan`]) checked when it was made;
//! these functions trust it and the caller's buffers (the C contract), and
//! allocate nothing. The GEMM is register-blocked: an `MR x NR` tile of
//! accumulators stays in locals over the whole batch and `K`, B's row of the
//! tile is loaded once per `k` and reused for the `MR` rows of A. The loops
//! are compiled once per CPU level (`base::isa::level`: AVX-512, AVX2 with
//! FMA, portable), each with a tile that fits its vector registers. One entry
//! point per object ([`brgemm`], [`transform`]), so a faster microkernel can
//! replace the body later without touching the API around it.

use crate::base::isa::Level;

use crate::prims::common::binary_alg::BinaryAlg;
use crate::prims::common::dt::{self, Elem};
use crate::prims::common::eltwise_alg::{self, Alg};

/// The register tile (rows of A, columns of B) of the portable and AVX2
/// paths: 8 accumulators of 8 lanes.
const MR: usize = 4;
const NR: usize = 16;
/// The register tile of the AVX-512 path: 12 accumulators of 16 lanes.
const MR_512: usize = 6;
const NR_512: usize = 32;

/// The most binary post-ops a chain can hold (a post-op chain's limit).
pub(crate) const MAX_BINARY: usize = 32;

/// The A x B type pairs the BRGeMM computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Types {
    /// `f32 x f32 -> f32`, B plain.
    F32,
    /// `bf16 x bf16 -> f32`, B in row pairs.
    Bf16,
    /// `f16 x f16 -> f32`, B in row pairs.
    F16,
    /// `u8 x s8 -> s32`, B in row quads.
    U8S8,
    /// `s8 x s8 -> s32`, B in row quads.
    S8S8,
}

impl Types {
    /// How many consecutive rows of B are interleaved in its packed layout
    /// (1: B is plain).
    pub fn vnni(self) -> usize {
        match self {
            Types::F32 => 1,
            Types::Bf16 | Types::F16 => 2,
            Types::U8S8 | Types::S8S8 => 4,
        }
    }

    /// Whether the accumulator (C) is `s32` rather than `f32`.
    pub fn is_int(self) -> bool {
        matches!(self, Types::U8S8 | Types::S8S8)
    }
}

/// One post-op, resolved for the compute.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op {
    Eltwise {
        alg: Alg,
        alpha: f32,
        beta: f32,
    },
    /// `v = alg(v, src1[m * stride_m + n * stride_n])`; a broadcast
    /// dimension has stride 0. `slot` indexes the caller's argument array.
    Binary {
        alg: BinaryAlg,
        elem: Elem,
        stride_m: usize,
        stride_n: usize,
        slot: usize,
    },
}

/// A BRGeMM, frozen by `generate`.
#[derive(Clone, Debug, PartialEq)]
pub struct BrgemmPlan {
    pub types: Types,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub batch: usize,
    pub lda: usize,
    pub ldb: usize,
    pub ldc: usize,
    pub ldd: usize,
    pub add_c: bool,
    pub d: Elem,
    pub post_ops: Vec<Op>,
    /// Whether A / D scales are set (one `f32` each).
    pub a_scale: bool,
    pub d_scale: bool,
    /// `None`: no B scales; `Some(false)`: one; `Some(true)`: one per column.
    pub b_scale: Option<bool>,
    /// The CPU level the loops run at.
    pub level: Level,
}

impl BrgemmPlan {
    /// The number of binary post-ops (entries of the argument array).
    pub fn binary_count(&self) -> usize {
        self.post_ops
            .iter()
            .filter(|op| matches!(op, Op::Binary { .. }))
            .count()
    }
}

/// What `execute_postops` reads besides A, B and C (addresses, 0: absent).
#[derive(Clone, Copy, Debug)]
pub struct Epilogue {
    pub d: usize,
    pub a_scale: usize,
    pub b_scales: usize,
    pub d_scale: usize,
    /// The binary post-ops' second operands, by slot.
    pub binary: [usize; MAX_BINARY],
}

/// An element of A or B, widened to its accumulator type.
trait Operand: Copy {
    type Acc: Accum;
    fn widen(self) -> Self::Acc;
}

/// An accumulator type (`f32` or `i32`).
/// Integer accumulation wraps, as the hardware's does.
trait Accum: Copy + Default {
    fn to_f32(self) -> f32;
    /// `self + x * y`.
    fn madd(self, x: Self, y: Self) -> Self;
    fn plus(self, x: Self) -> Self;
}

impl Accum for f32 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self
    }
    #[inline(always)]
    fn madd(self, x: f32, y: f32) -> f32 {
        self + x * y
    }
    #[inline(always)]
    fn plus(self, x: f32) -> f32 {
        self + x
    }
}

impl Accum for i32 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self as f32
    }
    #[inline(always)]
    fn madd(self, x: i32, y: i32) -> i32 {
        self.wrapping_add(x.wrapping_mul(y))
    }
    #[inline(always)]
    fn plus(self, x: i32) -> i32 {
        self.wrapping_add(x)
    }
}

#[derive(Clone, Copy)]
#[repr(transparent)]
struct Bf16(u16);

#[derive(Clone, Copy)]
#[repr(transparent)]
struct F16(u16);

impl Operand for f32 {
    type Acc = f32;
    #[inline(always)]
    fn widen(self) -> f32 {
        self
    }
}

impl Operand for Bf16 {
    type Acc = f32;
    #[inline(always)]
    fn widen(self) -> f32 {
        f32::from_bits(u32::from(self.0) << 16)
    }
}

impl Operand for F16 {
    type Acc = f32;
    #[inline(always)]
    fn widen(self) -> f32 {
        dt::f16_to_f32(self.0)
    }
}

impl Operand for u8 {
    type Acc = i32;
    #[inline(always)]
    fn widen(self) -> i32 {
        i32::from(self)
    }
}

impl Operand for i8 {
    type Acc = i32;
    #[inline(always)]
    fn widen(self) -> i32 {
        i32::from(self)
    }
}

/// `C (+)= sum_i A_i B_i` (`d` is `None`), or `D = postops(scales * (C? +
/// sum_i A_i B_i))` (`d` given; C is read only when `add_c`).
///
/// # Safety
/// The pointers and `pairs` (two element offsets per batch entry, A's then
/// B's) must describe buffers as large as the plan says, and the addresses in
/// `d` must be valid where the plan uses them.
pub unsafe fn brgemm(
    plan: &BrgemmPlan,
    a: *const u8,
    b: *const u8,
    pairs: &[i64],
    c: *mut u8,
    d: Option<&Epilogue>,
) {
    // SAFETY: forwarded from the caller; a level is taken only where the host
    // has its instructions (`plan.level` comes from `base::isa::level`).
    unsafe {
        match plan.level {
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => x86::avx512(plan, a, b, pairs, c, d),
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => x86::avx2(plan, a, b, pairs, c, d),
            _ => by_types::<MR, NR>(plan, a, b, pairs, c, d),
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! The BRGeMM loops compiled for AVX-512 and for AVX2 with FMA.
    use super::{BrgemmPlan, Epilogue, MR, MR_512, NR, NR_512, by_types};

    /// # Safety
    /// As `brgemm`, and the host must have AVX-512 F, BW, DQ and VL.
    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,fma")]
    pub(super) unsafe fn avx512(
        plan: &BrgemmPlan,
        a: *const u8,
        b: *const u8,
        pairs: &[i64],
        c: *mut u8,
        d: Option<&Epilogue>,
    ) {
        // SAFETY: forwarded from the caller.
        unsafe { by_types::<MR_512, NR_512>(plan, a, b, pairs, c, d) }
    }

    /// # Safety
    /// As `brgemm`, and the host must have AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn avx2(
        plan: &BrgemmPlan,
        a: *const u8,
        b: *const u8,
        pairs: &[i64],
        c: *mut u8,
        d: Option<&Epilogue>,
    ) {
        // SAFETY: forwarded from the caller.
        unsafe { by_types::<MR, NR>(plan, a, b, pairs, c, d) }
    }
}

#[inline(always)]
unsafe fn by_types<const TM: usize, const TN: usize>(
    plan: &BrgemmPlan,
    a: *const u8,
    b: *const u8,
    pairs: &[i64],
    c: *mut u8,
    d: Option<&Epilogue>,
) {
    // SAFETY: forwarded from the caller; the element types match the plan's.
    unsafe {
        match plan.types {
            Types::F32 => run::<f32, f32, 1, TM, TN>(plan, a.cast(), b.cast(), pairs, c.cast(), d),
            Types::Bf16 => {
                run::<Bf16, Bf16, 2, TM, TN>(plan, a.cast(), b.cast(), pairs, c.cast(), d)
            }
            Types::F16 => run::<F16, F16, 2, TM, TN>(plan, a.cast(), b.cast(), pairs, c.cast(), d),
            Types::U8S8 => run::<u8, i8, 4, TM, TN>(plan, a.cast(), b.cast(), pairs, c.cast(), d),
            Types::S8S8 => run::<i8, i8, 4, TM, TN>(plan, a.cast(), b.cast(), pairs, c.cast(), d),
        }
    }
}

#[inline(always)]
unsafe fn run<
    A: Operand,
    B: Operand<Acc = A::Acc>,
    const V: usize,
    const TM: usize,
    const TN: usize,
>(
    plan: &BrgemmPlan,
    a: *const A,
    b: *const B,
    pairs: &[i64],
    c: *mut A::Acc,
    d: Option<&Epilogue>,
) {
    // Whole TM-row tiles, then the remaining rows one by one: every tile's
    // row loop has a constant trip count, so its accumulators stay in registers.
    let full = plan.m / TM * TM;
    // SAFETY: forwarded from the caller; the rows lie inside M.
    unsafe {
        for m0 in (0..full).step_by(TM) {
            rows::<A, B, V, TM, TN>(plan, a, b, pairs, c, d, m0);
        }
        for m0 in full..plan.m {
            rows::<A, B, V, 1, TN>(plan, a, b, pairs, c, d, m0);
        }
    }
}

/// Rows `m0 .. m0 + R` of the result, in tiles of `TN` columns.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn rows<
    A: Operand,
    B: Operand<Acc = A::Acc>,
    const V: usize,
    const R: usize,
    const TN: usize,
>(
    plan: &BrgemmPlan,
    a: *const A,
    b: *const B,
    pairs: &[i64],
    c: *mut A::Acc,
    d: Option<&Epilogue>,
    m0: usize,
) {
    let mut n0 = 0;
    while n0 < plan.n {
        let nr = TN.min(plan.n - n0);
        // SAFETY: the tile lies inside M x N; the caller vouches for the buffers.
        unsafe {
            let acc = tile::<A, B, V, R, TN>(plan, a, b, pairs, m0, n0, nr);
            match d {
                None => store_c(plan, c, &acc, m0, n0, R, nr),
                Some(e) => store_d(plan, c, e, &acc, m0, n0, R, nr),
            }
        }
        n0 += TN;
    }
}

/// The `TM x nr` tile at `(m0, n0)` of `sum_i A_i B_i` (columns past `nr`
/// are zero).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn tile<
    A: Operand,
    B: Operand<Acc = A::Acc>,
    const V: usize,
    const TM: usize,
    const TN: usize,
>(
    plan: &BrgemmPlan,
    a: *const A,
    b: *const B,
    pairs: &[i64],
    m0: usize,
    n0: usize,
    nr: usize,
) -> [[A::Acc; TN]; TM] {
    let mut acc = [[A::Acc::default(); TN]; TM];
    for pair in pairs.chunks_exact(2) {
        // SAFETY: offsets of the caller's batch entries (the C contract).
        let (ai, bi) = unsafe { (a.offset(pair[0] as isize), b.offset(pair[1] as isize)) };
        for k in 0..plan.k {
            let mut row = [A::Acc::default(); TN];
            // SAFETY: (k, n0 + j) lies inside the K x N B of this entry.
            unsafe {
                let brow = bi.add((k / V) * plan.ldb * V + k % V);
                for (j, r) in row.iter_mut().enumerate().take(nr) {
                    *r = (*brow.add((n0 + j) * V)).widen();
                }
            }
            for (i, acc_row) in acc.iter_mut().enumerate() {
                // SAFETY: (m0 + i, k) lies inside the M x K A of this entry.
                let x = unsafe { (*ai.add((m0 + i) * plan.lda + k)).widen() };
                for (s, r) in acc_row.iter_mut().zip(row) {
                    *s = s.madd(x, r);
                }
            }
        }
    }
    acc
}

#[inline(always)]
unsafe fn store_c<T: Accum, const TM: usize, const TN: usize>(
    plan: &BrgemmPlan,
    c: *mut T,
    acc: &[[T; TN]; TM],
    m0: usize,
    n0: usize,
    mr: usize,
    nr: usize,
) {
    for (i, acc_row) in acc.iter().enumerate().take(mr) {
        // SAFETY: row m0 + i, columns n0 .. n0 + nr of the M x N C.
        unsafe {
            let crow = c.add((m0 + i) * plan.ldc + n0);
            for (j, &v) in acc_row.iter().enumerate().take(nr) {
                let p = crow.add(j);
                *p = if plan.add_c { (*p).plus(v) } else { v };
            }
        }
    }
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn store_d<T: Accum, const TM: usize, const TN: usize>(
    plan: &BrgemmPlan,
    c: *const T,
    e: &Epilogue,
    acc: &[[T; TN]; TM],
    m0: usize,
    n0: usize,
    mr: usize,
    nr: usize,
) {
    // SAFETY: execute_postops checked non-NULL every scale address the plan
    // reads; the caller vouches that each holds one `f32`.
    let (a_scale, d_scale) = unsafe {
        (
            if plan.a_scale {
                *(e.a_scale as *const f32)
            } else {
                1.0
            },
            if plan.d_scale {
                1.0 / *(e.d_scale as *const f32)
            } else {
                1.0
            },
        )
    };
    let b_scales = e.b_scales as *const f32;
    let size = plan.d.size();
    for (i, acc_row) in acc.iter().enumerate().take(mr) {
        let m = m0 + i;
        let mut out = [0.0f32; TN];
        for (j, (o, &v)) in out.iter_mut().zip(acc_row).enumerate().take(nr) {
            let n = n0 + j;
            let v = if plan.add_c {
                // SAFETY: (m, n) lies inside the M x N C.
                unsafe { (*c.add(m * plan.ldc + n)).plus(v) }
            } else {
                v
            };
            let mut x = v.to_f32() * a_scale;
            if let Some(per_column) = plan.b_scale {
                // SAFETY: checked non-NULL; one `f32`, or one per column (n < N).
                x *= unsafe { *b_scales.add(if per_column { n } else { 0 }) };
            }
            for op in &plan.post_ops {
                x = match *op {
                    Op::Eltwise { alg, alpha, beta } => eltwise_alg::fwd(alg, alpha, beta, x),
                    Op::Binary {
                        alg,
                        elem,
                        stride_m,
                        stride_n,
                        slot,
                    } => {
                        let p = e.binary[slot] as *const u8;
                        // SAFETY: checked non-NULL; the operand covers (m, n) through
                        // its strides (0 where broadcast).
                        let y = unsafe { load(elem, p, m * stride_m + n * stride_n) };
                        alg.apply(x, y, 0.0)
                    }
                };
            }
            *o = x * d_scale;
        }
        // SAFETY: row m, columns n0 .. n0 + nr of the M x N D (ldd elements a row).
        let bytes = unsafe {
            ::core::slice::from_raw_parts_mut(
                (e.d as *mut u8).add((m * plan.ldd + n0) * size),
                nr * size,
            )
        };
        dt::store_run(plan.d, bytes, 0, &out[..nr]);
    }
}

/// Element `index` of a buffer of `elem`s at `p`, as `f32`.
#[inline(always)]
unsafe fn load(elem: Elem, p: *const u8, index: usize) -> f32 {
    // SAFETY: the caller vouches that element `index` is inside the buffer.
    unsafe {
        match elem {
            Elem::F32 => p.cast::<f32>().add(index).read_unaligned(),
            Elem::F16 => dt::f16_to_f32(p.cast::<u16>().add(index).read_unaligned()),
            Elem::Bf16 => dt::bf16_to_f32(p.cast::<u16>().add(index).read_unaligned()),
            Elem::S32 => p.cast::<i32>().add(index).read_unaligned() as f32,
            Elem::S8 => f32::from(p.cast::<i8>().add(index).read()),
            Elem::U8 => f32::from(p.add(index).read()),
        }
    }
}

/// A B-packing, frozen by `generate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransformPlan {
    pub k: usize,
    pub n: usize,
    /// Whether the input is column-major (`trans`) rather than row-major.
    pub transposed: bool,
    pub in_ld: usize,
    pub out_ld: usize,
    /// Bytes per element (1, 2 or 4).
    pub size: usize,
    /// Rows interleaved in the output (1, 2 or 4).
    pub vnni: usize,
}

impl TransformPlan {
    /// `K` rounded up to whole interleaved row groups.
    pub fn k_padded(&self) -> usize {
        self.k.div_ceil(self.vnni) * self.vnni
    }

    /// Elements the output holds: one `k_padded x out_ld` panel per `out_ld`
    /// columns of B.
    pub fn out_elements(&self) -> usize {
        self.n.div_ceil(self.out_ld) * self.k_padded() * self.out_ld
    }

    /// Where element `(k, n)` of B goes in the output.
    pub fn out_index(&self, k: usize, n: usize) -> usize {
        let (panel, col) = (n / self.out_ld, n % self.out_ld);
        panel * self.k_padded() * self.out_ld
            + (k / self.vnni) * self.out_ld * self.vnni
            + col * self.vnni
            + k % self.vnni
    }

    /// Where element `(k, n)` of B is in the input.
    pub fn in_index(&self, k: usize, n: usize) -> usize {
        if self.transposed {
            n * self.in_ld + k
        } else {
            k * self.in_ld + n
        }
    }
}

/// Packs B: every element of the output is written, padding (rows past `K`
/// in the last group, columns past `N` in the last panel) with zeros.
///
/// # Safety
/// `input` must hold B as the plan describes it, `output`
/// [`TransformPlan::out_elements`] elements.
pub unsafe fn transform(plan: &TransformPlan, input: *const u8, output: *mut u8) {
    // SAFETY: forwarded from the caller.
    unsafe {
        match plan.size {
            1 => pack::<u8>(plan, input.cast(), output.cast()),
            2 => pack::<u16>(plan, input.cast(), output.cast()),
            _ => pack::<u32>(plan, input.cast(), output.cast()),
        }
    }
}

unsafe fn pack<T: Copy + Default>(plan: &TransformPlan, input: *const T, output: *mut T) {
    let panels = plan.n.div_ceil(plan.out_ld);
    for panel in 0..panels {
        for k in 0..plan.k_padded() {
            for col in 0..plan.out_ld {
                let n = panel * plan.out_ld + col;
                let value = if k < plan.k && n < plan.n {
                    // SAFETY: (k, n) lies inside the K x N input.
                    unsafe { input.add(plan.in_index(k, n)).read_unaligned() }
                } else {
                    T::default()
                };
                // SAFETY: out_index < out_elements, the output's extent.
                unsafe { output.add(plan.out_index(k, n)).write_unaligned(value) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(types: Types, m: usize, n: usize, k: usize, batch: usize) -> BrgemmPlan {
        BrgemmPlan {
            types,
            m,
            n,
            k,
            batch,
            lda: k + 1,
            ldb: n + 3,
            ldc: n + 2,
            ldd: n + 1,
            add_c: false,
            d: Elem::F32,
            post_ops: vec![],
            a_scale: false,
            d_scale: false,
            b_scale: None,
            level: crate::base::isa::level(),
        }
    }

    /// Packs a K x N plain B into the plan's layout with the transform.
    fn packed<T: Copy + Default>(p: &BrgemmPlan, plain: &[T]) -> Vec<T> {
        let t = TransformPlan {
            k: p.k,
            n: p.n,
            transposed: false,
            in_ld: p.n,
            out_ld: p.ldb,
            size: size_of::<T>(),
            vnni: p.types.vnni(),
        };
        let mut out = vec![T::default(); t.out_elements()];
        // SAFETY: `plain` is K x N, `out` has out_elements().
        unsafe { transform(&t, plain.as_ptr().cast(), out.as_mut_ptr().cast()) };
        out
    }

    #[test]
    fn f32_batch_reduce_with_tails_and_add_c() {
        let (m, n, k, batch) = (13, 35, 5, 3);
        let mut p = plan(Types::F32, m, n, k, batch);
        let a: Vec<f32> = (0..batch * m * p.lda)
            .map(|i| (i % 7) as f32 - 3.0)
            .collect();
        let b: Vec<f32> = (0..batch * k * p.ldb)
            .map(|i| (i % 5) as f32 * 0.5)
            .collect();
        let pairs: Vec<i64> = (0..batch)
            .flat_map(|i| [(i * m * p.lda) as i64, (i * k * p.ldb) as i64])
            .collect();
        for level in Level::supported() {
            p.level = level;
            p.add_c = true;
            let mut c = vec![1.0f32; m * p.ldc];
            // SAFETY: the buffers are as large as the plan says.
            unsafe {
                brgemm(
                    &p,
                    a.as_ptr().cast(),
                    b.as_ptr().cast(),
                    &pairs,
                    c.as_mut_ptr().cast(),
                    None,
                )
            };
            for i in 0..m {
                for j in 0..n {
                    let mut want = 1.0;
                    for e in 0..batch {
                        for kk in 0..k {
                            want += a[e * m * p.lda + i * p.lda + kk]
                                * b[e * k * p.ldb + kk * p.ldb + j];
                        }
                    }
                    assert_eq!(c[i * p.ldc + j], want, "{level:?} ({i}, {j})");
                }
            }
        }
    }

    #[test]
    fn int8_packed_b_with_epilogue() {
        let (m, n, k) = (5, 17, 9);
        let mut p = plan(Types::U8S8, m, n, k, 1);
        p.ldb = 32;
        p.d = Elem::S8;
        p.a_scale = true;
        p.b_scale = Some(true);
        p.post_ops = vec![Op::Eltwise {
            alg: Alg::Relu,
            alpha: 0.0,
            beta: 0.0,
        }];
        let a: Vec<u8> = (0..m * p.lda).map(|i| (i * 37 % 251) as u8).collect();
        let plain: Vec<i8> = (0..k * n).map(|i| (i * 13 % 255) as u8 as i8).collect();
        let b = packed(&p, &plain);
        let scale_a = 0.01f32;
        let scales_b: Vec<f32> = (0..n).map(|j| 0.5 + j as f32 * 0.125).collect();
        let mut d = vec![0i8; m * p.ldd];
        let e = Epilogue {
            d: d.as_mut_ptr() as usize,
            a_scale: &scale_a as *const f32 as usize,
            b_scales: scales_b.as_ptr() as usize,
            d_scale: 0,
            binary: [0; MAX_BINARY],
        };
        // SAFETY: the buffers are as large as the plan says.
        unsafe {
            brgemm(
                &p,
                a.as_ptr(),
                b.as_ptr().cast(),
                &[0, 0],
                ::core::ptr::null_mut(),
                Some(&e),
            )
        };
        for i in 0..m {
            for j in 0..n {
                let mut s = 0i32;
                for kk in 0..k {
                    s += i32::from(a[i * p.lda + kk]) * i32::from(plain[kk * n + j]);
                }
                let want = (s as f32 * scale_a * scales_b[j])
                    .max(0.0)
                    .round_ties_even()
                    .min(127.0);
                assert_eq!(f32::from(d[i * p.ldd + j]), want, "({i}, {j})");
            }
        }
    }

    #[test]
    fn transform_layout_of_row_pairs_with_padding() {
        // B (K=3, N=2) bf16-sized, out_ld 16, pairs of rows interleaved.
        let t = TransformPlan {
            k: 3,
            n: 2,
            transposed: true,
            in_ld: 4,
            out_ld: 16,
            size: 2,
            vnni: 2,
        };
        // Column-major input: (k, n) at n * 4 + k, valued 10 k + n + 1.
        let mut input = [0u16; 8];
        for k in 0..3 {
            for n in 0..2 {
                input[n * 4 + k] = (10 * k + n + 1) as u16;
            }
        }
        let mut out = vec![0xffffu16; t.out_elements()];
        assert_eq!(out.len(), 4 * 16);
        // SAFETY: the buffers are as large as the plan says.
        unsafe { transform(&t, input.as_ptr().cast(), out.as_mut_ptr().cast()) };
        assert_eq!(&out[..6], &[1, 11, 2, 12, 0, 0]);
        assert_eq!(&out[32..36], &[21, 0, 22, 0]);
        assert!(out[36..].iter().all(|&v| v == 0));
    }
}
