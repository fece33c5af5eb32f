//! Vectorised f32 transcendentals over slices: exp, log, tanh, erfc and the
//! eltwise functions built on them (logistic, swish, gelu_tanh, gelu_erf).
//!
//! Layer: prims (over `base::isa`). Each function is written once, generic
//! over a vector of f32 ([`Vf32`]), and instantiated three times: AVX-512F
//! (16 lanes), AVX2 + FMA (8 lanes) and portable scalar Rust (one lane, no
//! fused multiply-add). [`map`] runs one over a slice at a given
//! [`Level`]; [`level`] is the process's (`base::isa`, capped by
//! `ONEDNN_MAX_CPU_ISA` / `dnnl_set_max_cpu_isa`). The `unsafe` is the
//! intrinsics, in the two private vector types: values of those types exist
//! only inside the `#[target_feature]` drivers, which [`map`] enters only
//! when the host has the features.
//!
//! The error bounds in the doc comments are measured against f64 over every
//! 1021st f32 and the edge values on each path (the tests below); "ulp" is
//! the spacing of f32 at the exact result.

use crate::base::isa;
pub use crate::base::isa::Level;

/// The level the CPU kernels run at (see `base::isa::level`).
pub fn level() -> Level {
    isa::level()
}

/// A function [`map`] applies element by element.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Func {
    /// e^x. Within 1 ulp (2 on the portable path); 0 below -103.97 (results
    /// in the subnormal range within 1 subnormal step), +inf above 88.7228,
    /// NaN for NaN. Vectors with a lane beyond ±87 take the two-factor
    /// scaling that subnormal and near-overflow results need; the others
    /// scale once.
    Exp,
    /// The natural logarithm. Within 1 ulp on every path, subnormal inputs
    /// included; -inf at ±0, NaN below 0 and for NaN, +inf at +inf.
    Log,
    /// tanh. Within 2 ulp (4 on the portable path); ±1 beyond ±9.02, NaN for NaN.
    Tanh,
    /// 1 / (1 + e^-x), as e^x / (1 + e^x) for x < 0 so the left tail keeps
    /// its precision. Within 3 ulp (4 on the portable path), subnormal
    /// results within 1 subnormal step.
    Logistic,
    /// erfc, Numerical Recipes' Chebyshev fit t e^(-z² + P(t)) with z²
    /// split exactly (as `eltwise_alg::erfc`), the exact part kept out of
    /// the rounded argument of the one exponential. Relative error below 1e-6
    /// (it underflows to 0 beyond 10.05; subnormal results within a few
    /// subnormal steps); 0 at +inf, 2 at -inf.
    Erfc,
    /// x · logistic(alpha x) (±0 where x is infinite and the logistic 0):
    /// the logistic bound plus the rounding of alpha x,
    /// which counts |alpha x| times in the left tail (relative error below
    /// 4e-7 · (3 + |alpha x|)).
    Swish(f32),
    /// 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³))), as x · logistic(2u) with
    /// u = √(2/π) x (1 + 0.044715 x²) (no cancellation in the left tail).
    /// Relative error below 4e-7 · (3 + |2u|): the rounding of u counts |2u|
    /// times where the result tends to 0.
    GeluTanh,
    /// x Φ(x): for |x| <= 1.25 a quintic in x² (x (1/2 + x Q(x²))), beyond
    /// 0.5 x erfc(-x / √2) with x² / 2 from x's exact split (the rounding
    /// of x / √2 would count x² times in the left tail) and one exponential.
    /// Relative error below 1e-6 (+inf at +inf, -0 at -inf, 0 once it
    /// underflows below -14.1).
    GeluErf,
    /// x where x > 0, else alpha (e^x - 1): e^x - 1 as x + x² P(x) (Taylor
    /// to x⁸) for |x| < 0.5, else through `Exp`. Within 3 ulp (5 on the
    /// portable path) of alpha times the exact e^x - 1; -alpha at -inf, NaN
    /// for NaN.
    Elu(f32),
    /// e^(x - c) (softmax's numerator): the bound of `Exp` at the rounded
    /// difference.
    ExpMinus(f32),
    /// x + c, rounded once.
    Add(f32),
    /// x · c, rounded once.
    Scale(f32),
    /// x where x > 0, else alpha · x (exact as the scalar formula).
    Relu(f32),
}

/// Applies `f` to every element of `v`, in place, on the `level` path (or
/// the best one below it that this host has).
pub fn map(level: Level, f: Func, v: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    {
        if level >= Level::Avx512 && Level::Avx512.host_has() {
            // SAFETY: the host has AVX-512 F/BW/DQ/VL (checked just above).
            unsafe { x86::run_avx512(f, v) };
            return;
        }
        if level >= Level::Avx2 && Level::Avx2.host_has() {
            // SAFETY: the host has AVX2 and FMA (checked just above).
            unsafe { x86::run_avx2(f, v) };
            return;
        }
    }
    let _ = level;
    drive::<f32>(f, v);
}

/// The loop of every path: full vectors, then the tail through a padded copy.
///
/// The element functions are passed as [`Op`] values, not closures: closures
/// are not always inlined, and one that is not would run its intrinsics as
/// calls, outside the `#[target_feature]` driver.
#[inline(always)]
fn drive<V: Vf32>(f: Func, v: &mut [f32]) {
    match f {
        Func::Exp => apply::<V>(v, Op::Exp),
        Func::Log => apply::<V>(v, Op::Log),
        Func::Tanh => apply::<V>(v, Op::Tanh),
        Func::Logistic => apply::<V>(v, Op::Logistic),
        Func::Erfc => apply::<V>(v, Op::Erfc),
        Func::Swish(alpha) => apply(v, Op::Swish(V::splat(alpha))),
        Func::GeluTanh => apply::<V>(v, Op::GeluTanh),
        Func::GeluErf => apply::<V>(v, Op::GeluErf),
        Func::Elu(a) => apply(v, Op::Elu(V::splat(a))),
        Func::ExpMinus(c) => apply(v, Op::ExpMinus(V::splat(c))),
        Func::Add(c) => apply(v, Op::Add(V::splat(c))),
        Func::Scale(c) => apply(v, Op::Scale(V::splat(c))),
        Func::Relu(a) => apply(v, Op::Relu(V::splat(a))),
    }
}

/// `dst[i] = f(src[i])` on the `level` path (or the best one below it that
/// this host has): one pass, no copy. The slices have the same length.
pub fn map_into(level: Level, f: Func, src: &[f32], dst: &mut [f32]) {
    let n = src.len().min(dst.len());
    let (src, dst) = (&src[..n], &mut dst[..n]);
    #[cfg(target_arch = "x86_64")]
    {
        if level >= Level::Avx512 && Level::Avx512.host_has() {
            // SAFETY: the host has AVX-512 F/BW/DQ/VL (checked just above).
            unsafe { x86::run_into_avx512(f, src, dst) };
            return;
        }
        if level >= Level::Avx2 && Level::Avx2.host_has() {
            // SAFETY: the host has AVX2 and FMA (checked just above).
            unsafe { x86::run_into_avx2(f, src, dst) };
            return;
        }
    }
    let _ = level;
    drive_into::<f32, false>(f, src, dst);
}

/// The output size from which the memory-bound CPU kernels (eltwise,
/// binary, softmax, the reorders' transposes) store with streaming stores:
/// beyond the caches of a 16-core host, where a plain store first reads
/// the line it replaces. On the device machine's 16 cores (AVX-512), best
/// of three runs each, plain against streaming stores, GB/s: eltwise relu
/// 64 Mi f32 110 / 163, gelu_erf 97 / 139, binary add 91 / 119, softmax
/// 32768x1024 77 / 93, reorder nchw→nhwc 16x256x56x56 120 / 137,
/// nChw16c→nchw 140 / 163. On the 2-core AVX2 box: relu 13-15 / 17-20,
/// binary 13-15 / 16-18, nChw16c→nchw 10-12 / 16-18.
pub const STREAM_BYTES: usize = 32 << 20;

/// Whether an output of `bytes` bytes, written on the `level` path, takes
/// streaming stores: past [`STREAM_BYTES`], on the SIMD paths.
pub fn streams(level: Level, bytes: usize) -> bool {
    level >= Level::Avx2 && bytes >= STREAM_BYTES
}

/// A thread's licence for streaming stores ([`map_into_streaming`] and the
/// like): on drop (on the thread that made the stores; the type is not
/// `Send`) an `sfence` orders them before whatever the thread does next,
/// such as telling another thread its work is done. Streaming stores are
/// weakly ordered: without it another thread could read stale values.
pub struct StreamFence(std::marker::PhantomData<*const ()>);

impl StreamFence {
    pub fn new() -> StreamFence {
        StreamFence(std::marker::PhantomData)
    }
}

impl Default for StreamFence {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for StreamFence {
    fn drop(&mut self) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: sfence has no operands (SSE, part of x86-64).
        unsafe {
            std::arch::x86_64::_mm_sfence()
        };
    }
}

/// [`map_into`] writing `dst` with streaming (non-temporal) stores on the
/// SIMD paths: the same values (the same formulas, lane for lane), but the
/// lines go to memory without first being read, and leave the caches. For
/// outputs far larger than the caches ([`STREAM_BYTES`]), which nothing reads
/// soon. The elements before dst's first vector-aligned one and after its
/// last whole vector take plain stores. `fence` is the calling thread's.
pub fn map_into_streaming(
    level: Level,
    f: Func,
    src: &[f32],
    dst: &mut [f32],
    fence: &StreamFence,
) {
    let _ = fence;
    let n = src.len().min(dst.len());
    let (src, dst) = (&src[..n], &mut dst[..n]);
    #[cfg(target_arch = "x86_64")]
    {
        if level >= Level::Avx512 && Level::Avx512.host_has() {
            // SAFETY: the host has AVX-512 F/BW/DQ/VL (checked just above).
            unsafe { x86::run_stream_avx512(f, src, dst) };
            return;
        }
        if level >= Level::Avx2 && Level::Avx2.host_has() {
            // SAFETY: the host has AVX2 and FMA (checked just above).
            unsafe { x86::run_stream_avx2(f, src, dst) };
            return;
        }
    }
    let _ = level;
    drive_into::<f32, true>(f, src, dst);
}

/// `dst = src`, bit for bit, with streaming stores as
/// [`map_into_streaming`]: for kernels that compute a block into a buffer
/// of their own and then write it out.
pub fn copy_streaming(level: Level, src: &[f32], dst: &mut [f32], fence: &StreamFence) {
    let _ = fence;
    let n = src.len().min(dst.len());
    let (src, dst) = (&src[..n], &mut dst[..n]);
    #[cfg(target_arch = "x86_64")]
    {
        if level >= Level::Avx512 && Level::Avx512.host_has() {
            // SAFETY: the host has AVX-512 F/BW/DQ/VL (checked just above).
            unsafe { x86::copy_stream_avx512(src, dst) };
            return;
        }
        if level >= Level::Avx2 && Level::Avx2.host_has() {
            // SAFETY: the host has AVX2 and FMA (checked just above).
            unsafe { x86::copy_stream_avx2(src, dst) };
            return;
        }
    }
    let _ = level;
    dst.copy_from_slice(src);
}

/// [`copy_streaming`]'s loop: plain copies before dst's first aligned
/// vector and after its last whole one.
#[inline(always)]
fn copy_stream<V: Vf32>(src: &[f32], dst: &mut [f32]) {
    let head = unaligned_head::<V>(dst);
    let (d0, d1) = dst.split_at_mut(head);
    let (s0, s1) = src.split_at(head);
    d0.copy_from_slice(s0);
    let mut d = d1.chunks_exact_mut(V::LANES);
    let mut s = s1.chunks_exact(V::LANES);
    for (c, x) in (&mut d).zip(&mut s) {
        V::load(x).stream(c);
    }
    d.into_remainder().copy_from_slice(s.remainder());
}

/// [`drive`] from one slice into another (`STREAM`: with streaming stores,
/// [`map_into_streaming`]).
#[inline(always)]
fn drive_into<V: Vf32, const STREAM: bool>(f: Func, src: &[f32], dst: &mut [f32]) {
    let into = apply_into_as::<V, STREAM>;
    match f {
        Func::Exp => into(Op::Exp, src, dst),
        Func::Log => into(Op::Log, src, dst),
        Func::Tanh => into(Op::Tanh, src, dst),
        Func::Logistic => into(Op::Logistic, src, dst),
        Func::Erfc => into(Op::Erfc, src, dst),
        Func::Swish(alpha) => into(Op::Swish(V::splat(alpha)), src, dst),
        Func::GeluTanh => into(Op::GeluTanh, src, dst),
        Func::GeluErf => into(Op::GeluErf, src, dst),
        Func::Elu(a) => into(Op::Elu(V::splat(a)), src, dst),
        Func::ExpMinus(c) => into(Op::ExpMinus(V::splat(c)), src, dst),
        Func::Add(c) => into(Op::Add(V::splat(c)), src, dst),
        Func::Scale(c) => into(Op::Scale(V::splat(c)), src, dst),
        Func::Relu(a) => into(Op::Relu(V::splat(a)), src, dst),
    }
}

/// [`map_into`] that also returns the sum of the results (in lanes, then
/// across them: the order differs by path): softmax's exponentials and
/// their sum in one pass.
pub fn map_into_sum(level: Level, f: Func, src: &[f32], dst: &mut [f32]) -> f32 {
    let n = src.len().min(dst.len());
    let (src, dst) = (&src[..n], &mut dst[..n]);
    #[cfg(target_arch = "x86_64")]
    {
        if level >= Level::Avx512 && Level::Avx512.host_has() {
            // SAFETY: the host has AVX-512 F/BW/DQ/VL (checked just above).
            return unsafe { x86::run_into_sum_avx512(f, src, dst) };
        }
        if level >= Level::Avx2 && Level::Avx2.host_has() {
            // SAFETY: the host has AVX2 and FMA (checked just above).
            return unsafe { x86::run_into_sum_avx2(f, src, dst) };
        }
    }
    let _ = level;
    drive_into_sum::<f32>(f, src, dst)
}

/// [`drive_into`] with the sum (only the functions softmax needs are
/// specialised; the others map, then sum).
#[inline(always)]
fn drive_into_sum<V: Vf32>(f: Func, src: &[f32], dst: &mut [f32]) -> f32 {
    match f {
        Func::Exp => apply_into_sum::<V>(src, dst, Op::Exp),
        Func::ExpMinus(c) => apply_into_sum(src, dst, Op::ExpMinus(V::splat(c))),
        other => {
            drive_into::<V, false>(other, src, dst);
            fold::<V>(Reduction::Sum, dst)
        }
    }
}

/// [`apply_into`] summing the results in two vector accumulators.
#[inline(always)]
fn apply_into_sum<V: Vf32>(src: &[f32], dst: &mut [f32], op: Op<V>) -> f32 {
    let mut acc = [V::splat(0.0); 2];
    let mut d = dst.chunks_exact_mut(2 * V::LANES);
    let mut s = src.chunks_exact(2 * V::LANES);
    for (c, x) in (&mut d).zip(&mut s) {
        for (k, a) in acc.iter_mut().enumerate() {
            let y = op.call(V::load(&x[k * V::LANES..]));
            y.store(&mut c[k * V::LANES..]);
            *a = a.add(y);
        }
    }
    let mut lanes = [0f32; 32];
    acc[0].add(acc[1]).store(&mut lanes);
    let mut sum: f32 = lanes[..V::LANES].iter().sum();
    let (rest, xs) = (d.into_remainder(), s.remainder());
    for (c, x) in rest.chunks_mut(V::LANES).zip(xs.chunks(V::LANES)) {
        let mut pad = [0f32; 16];
        pad[..x.len()].copy_from_slice(x);
        op.call(V::load(&pad)).store(&mut pad);
        c.copy_from_slice(&pad[..c.len()]);
        sum += pad[..c.len()].iter().sum::<f32>();
    }
    sum
}

/// One element function with its constant (each call site passes a literal
/// variant, so after inlining the match folds away).
#[derive(Clone, Copy)]
enum Op<V> {
    Exp,
    Log,
    Tanh,
    Logistic,
    Erfc,
    Swish(V),
    GeluTanh,
    GeluErf,
    Elu(V),
    ExpMinus(V),
    Add(V),
    Scale(V),
    Relu(V),
}

impl<V: Vf32> Op<V> {
    #[inline(always)]
    fn call(self, x: V) -> V {
        match self {
            Op::Exp => exp(x),
            Op::Log => log(x),
            Op::Tanh => tanh(x),
            Op::Logistic => logistic(x),
            Op::Erfc => erfc(x),
            Op::Swish(a) => {
                let y = x.mul(logistic(x.mul(a)));
                // ±inf times a logistic of 0: the limit, 0 with x's sign.
                let y = V::select(y.is_nan(), x.and_bits(0x8000_0000), y);
                V::select(x.is_nan(), x, y)
            }
            Op::GeluTanh => gelu_tanh(x),
            Op::GeluErf => gelu_erf(x),
            Op::Elu(a) => V::select(x.gt(V::splat(0.0)), x, a.mul(expm1(x))),
            Op::ExpMinus(c) => exp(x.sub(c)),
            Op::Add(c) => x.add(c),
            Op::Scale(c) => x.mul(c),
            Op::Relu(a) => V::select(x.gt(V::splat(0.0)), x, x.mul(a)),
        }
    }
}

/// A reduction [`reduce`] computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// The sum (in lanes, then across them: the order differs by path).
    Sum,
    /// The largest element; NaN elements are skipped.
    Max,
}

/// Reduces `v` on the `level` path (or the best one below it that this host
/// has); an empty slice gives 0 (sum) or -inf (max).
pub fn reduce(level: Level, r: Reduction, v: &[f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    {
        if level >= Level::Avx512 && Level::Avx512.host_has() {
            // SAFETY: the host has AVX-512 F/BW/DQ/VL (checked just above).
            return unsafe { x86::reduce_avx512(r, v) };
        }
        if level >= Level::Avx2 && Level::Avx2.host_has() {
            // SAFETY: the host has AVX2 and FMA (checked just above).
            return unsafe { x86::reduce_avx2(r, v) };
        }
    }
    let _ = level;
    fold::<f32>(r, v)
}

/// The loop of every path's reduction: four vector accumulators (so that
/// the additions overlap), then the lanes, then the tail.
#[inline(always)]
fn fold<V: Vf32>(r: Reduction, v: &[f32]) -> f32 {
    let init = match r {
        Reduction::Max => f32::NEG_INFINITY,
        Reduction::Sum => 0.0,
    };
    let mut acc = [V::splat(init); 4];
    let mut chunks = v.chunks_exact(4 * V::LANES);
    for c in &mut chunks {
        for (k, a) in acc.iter_mut().enumerate() {
            let x = V::load(&c[k * V::LANES..]);
            *a = match r {
                // `x.max(acc)` keeps `acc` where `x` is NaN.
                Reduction::Max => x.max(*a),
                Reduction::Sum => a.add(x),
            };
        }
    }
    let mut lanes = [init; 64];
    for (k, a) in acc.iter().enumerate() {
        a.store(&mut lanes[k * V::LANES..]);
    }
    let all = lanes[..4 * V::LANES].iter().chain(chunks.remainder());
    match r {
        Reduction::Max => all.fold(init, |m, &x| if x > m { x } else { m }),
        Reduction::Sum => all.sum(),
    }
}

#[inline(always)]
fn apply_into<V: Vf32>(src: &[f32], dst: &mut [f32], op: Op<V>) {
    let mut d = dst.chunks_exact_mut(V::LANES);
    let mut s = src.chunks_exact(V::LANES);
    for (c, x) in (&mut d).zip(&mut s) {
        op.call(V::load(x)).store(c);
    }
    let (rest, xs) = (d.into_remainder(), s.remainder());
    if !rest.is_empty() {
        let mut pad = [0f32; 16];
        pad[..xs.len()].copy_from_slice(xs);
        op.call(V::load(&pad)).store(&mut pad);
        rest.copy_from_slice(&pad[..rest.len()]);
    }
}

/// [`apply_into`], or with `STREAM` [`apply_into_streaming`] (a function,
/// not a closure, so that it inlines into the driver as `drive` requires).
#[inline(always)]
fn apply_into_as<V: Vf32, const STREAM: bool>(op: Op<V>, src: &[f32], dst: &mut [f32]) {
    if STREAM {
        apply_into_streaming(src, dst, op)
    } else {
        apply_into(src, dst, op)
    }
}

/// The elements of `dst` before its first one on a multiple of `V`'s size
/// (all of them for a short `dst`): the plain-store head of the streaming
/// loops.
#[inline(always)]
fn unaligned_head<V: Vf32>(dst: &[f32]) -> usize {
    ((dst.as_ptr() as usize).wrapping_neg() % (V::LANES * 4) / 4).min(dst.len())
}

/// [`apply_into`] with streaming stores for dst's aligned whole vectors.
#[inline(always)]
fn apply_into_streaming<V: Vf32>(src: &[f32], dst: &mut [f32], op: Op<V>) {
    let head = unaligned_head::<V>(dst);
    let (d0, d1) = dst.split_at_mut(head);
    let (s0, s1) = src.split_at(head);
    apply_into(s0, d0, op);
    let mut d = d1.chunks_exact_mut(V::LANES);
    let mut s = s1.chunks_exact(V::LANES);
    for (c, x) in (&mut d).zip(&mut s) {
        op.call(V::load(x)).stream(c);
    }
    apply_into(s.remainder(), d.into_remainder(), op);
}

#[inline(always)]
fn apply<V: Vf32>(v: &mut [f32], op: Op<V>) {
    let mut chunks = v.chunks_exact_mut(V::LANES);
    for c in &mut chunks {
        op.call(V::load(c)).store(c);
    }
    let rest = chunks.into_remainder();
    if !rest.is_empty() {
        let mut pad = [0f32; 16];
        pad[..rest.len()].copy_from_slice(rest);
        op.call(V::load(&pad)).store(&mut pad);
        rest.copy_from_slice(&pad[..rest.len()]);
    }
}

// ---------------------------------------------------------------------------
// The vector type the formulas are written over.

/// A vector of f32 lanes with the operations the formulas need. `fma` is
/// `a * b + c`, fused on the SIMD paths and two roundings on the portable one.
trait Vf32: Copy {
    type M: Copy;
    const LANES: usize;
    fn splat(x: f32) -> Self;
    /// The first `LANES` elements of `s` (which holds at least that many).
    fn load(s: &[f32]) -> Self;
    fn store(self, s: &mut [f32]);
    /// A streaming (non-temporal) store where `s` starts on a multiple of
    /// the vector's size, a plain one otherwise.
    fn stream(self, s: &mut [f32]);
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    fn fma(self, b: Self, c: Self) -> Self;
    /// Minimum and maximum; when `self` is NaN the result is `o`.
    fn min(self, o: Self) -> Self;
    fn max(self, o: Self) -> Self;
    fn abs(self) -> Self;
    /// To the nearest integer, ties to even.
    fn round(self) -> Self;
    fn lt(self, o: Self) -> Self::M;
    fn gt(self, o: Self) -> Self::M;
    fn eq(self, o: Self) -> Self::M;
    fn is_nan(self) -> Self::M;
    /// `a` where `m` holds, else `b`.
    fn select(m: Self::M, a: Self, b: Self) -> Self;
    /// Whether `m` holds in any lane.
    fn any(m: Self::M) -> bool;
    /// 2^self for integral `self` in [-126, 127].
    fn pow2i(self) -> Self;
    /// The bits of `self` and `mask`.
    fn and_bits(self, mask: u32) -> Self;
    /// The bits of `self` or `o`.
    fn or(self, o: Self) -> Self;
    /// The exponent field of `self` (positive, normal) as an integral f32,
    /// and the significand with the exponent of 0.5: x = m · 2^(e - 126).
    fn exponent_and_significand(self) -> (Self, Self);
}

impl Vf32 for f32 {
    type M = bool;
    const LANES: usize = 1;
    #[inline(always)]
    fn splat(x: f32) -> Self {
        x
    }
    #[inline(always)]
    fn load(s: &[f32]) -> Self {
        s[0]
    }
    #[inline(always)]
    fn store(self, s: &mut [f32]) {
        s[0] = self;
    }
    #[inline(always)]
    fn stream(self, s: &mut [f32]) {
        s[0] = self;
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        self + o
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        self - o
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        self * o
    }
    #[inline(always)]
    fn div(self, o: Self) -> Self {
        self / o
    }
    #[inline(always)]
    fn fma(self, b: Self, c: Self) -> Self {
        // Not `mul_add`: without FMA hardware that is a slow library call.
        self * b + c
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        if self < o { self } else { o }
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        if self > o { self } else { o }
    }
    #[inline(always)]
    fn abs(self) -> Self {
        f32::abs(self)
    }
    #[inline(always)]
    fn round(self) -> Self {
        // Adding and subtracting 1.5 · 2^23 rounds |x| < 2^22 to an integer
        // (ties to even) without a library call; larger values are integers.
        const MAGIC: f32 = 12_582_912.0;
        if self.abs() < 4_194_304.0 {
            (self + MAGIC) - MAGIC
        } else {
            self
        }
    }
    #[inline(always)]
    fn lt(self, o: Self) -> bool {
        self < o
    }
    #[inline(always)]
    fn gt(self, o: Self) -> bool {
        self > o
    }
    #[inline(always)]
    fn eq(self, o: Self) -> bool {
        self == o
    }
    #[inline(always)]
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
    #[inline(always)]
    fn select(m: bool, a: Self, b: Self) -> Self {
        if m { a } else { b }
    }
    #[inline(always)]
    fn any(m: bool) -> bool {
        m
    }
    #[inline(always)]
    fn pow2i(self) -> Self {
        f32::from_bits(((self as i32 + 127) as u32) << 23)
    }
    #[inline(always)]
    fn and_bits(self, mask: u32) -> Self {
        f32::from_bits(self.to_bits() & mask)
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        f32::from_bits(self.to_bits() | o.to_bits())
    }
    #[inline(always)]
    fn exponent_and_significand(self) -> (Self, Self) {
        let b = self.to_bits();
        (
            (b >> 23) as f32,
            f32::from_bits((b & 0x807F_FFFF) | 0x3F00_0000),
        )
    }
}

// The AVX-512 intrinsics are stable since Rust 1.89, the crate's
// `rust-version`.
#[cfg(target_arch = "x86_64")]
mod x86 {
    //! The AVX-512 and AVX2 vector types and the drivers that use them.
    use super::{Func, Reduction, Vf32, copy_stream, drive, drive_into, drive_into_sum, fold};
    use std::arch::x86_64::*;

    /// Runs `f` over `v` with 16-lane AVX-512 vectors.
    ///
    /// # Safety
    /// The host must have AVX-512 F, BW, DQ and VL.
    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,fma")]
    pub(super) unsafe fn run_avx512(f: Func, v: &mut [f32]) {
        drive::<V16>(f, v)
    }

    /// Runs `f` over `v` with 8-lane AVX2 vectors.
    ///
    /// # Safety
    /// The host must have AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn run_avx2(f: Func, v: &mut [f32]) {
        drive::<V8>(f, v)
    }

    /// Maps `src` into `dst` with 16-lane AVX-512 vectors.
    ///
    /// # Safety
    /// The host must have AVX-512 F, BW, DQ and VL.
    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,fma")]
    pub(super) unsafe fn run_into_avx512(f: Func, src: &[f32], dst: &mut [f32]) {
        drive_into::<V16, false>(f, src, dst)
    }

    /// Maps `src` into `dst` with 16-lane AVX-512 vectors and streaming stores.
    ///
    /// # Safety
    /// The host must have AVX-512 F, BW, DQ and VL.
    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,fma")]
    pub(super) unsafe fn run_stream_avx512(f: Func, src: &[f32], dst: &mut [f32]) {
        drive_into::<V16, true>(f, src, dst)
    }

    /// Maps `src` into `dst` with 8-lane AVX2 vectors.
    ///
    /// # Safety
    /// The host must have AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn run_into_avx2(f: Func, src: &[f32], dst: &mut [f32]) {
        drive_into::<V8, false>(f, src, dst)
    }

    /// [`super::copy_streaming`] with 16-lane AVX-512 vectors.
    ///
    /// # Safety
    /// The host must have AVX-512 F, BW, DQ and VL.
    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,fma")]
    pub(super) unsafe fn copy_stream_avx512(src: &[f32], dst: &mut [f32]) {
        copy_stream::<V16>(src, dst)
    }

    /// [`super::copy_streaming`] with 8-lane AVX2 vectors.
    ///
    /// # Safety
    /// The host must have AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn copy_stream_avx2(src: &[f32], dst: &mut [f32]) {
        copy_stream::<V8>(src, dst)
    }

    /// Maps `src` into `dst` with 8-lane AVX2 vectors and streaming stores.
    ///
    /// # Safety
    /// The host must have AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn run_stream_avx2(f: Func, src: &[f32], dst: &mut [f32]) {
        drive_into::<V8, true>(f, src, dst)
    }

    /// Maps `src` into `dst` and sums with 16-lane AVX-512 vectors.
    ///
    /// # Safety
    /// The host must have AVX-512 F, BW, DQ and VL.
    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,fma")]
    pub(super) unsafe fn run_into_sum_avx512(f: Func, src: &[f32], dst: &mut [f32]) -> f32 {
        drive_into_sum::<V16>(f, src, dst)
    }

    /// Maps `src` into `dst` and sums with 8-lane AVX2 vectors.
    ///
    /// # Safety
    /// The host must have AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn run_into_sum_avx2(f: Func, src: &[f32], dst: &mut [f32]) -> f32 {
        drive_into_sum::<V8>(f, src, dst)
    }

    /// Reduces `v` with 16-lane AVX-512 vectors.
    ///
    /// # Safety
    /// The host must have AVX-512 F, BW, DQ and VL.
    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,fma")]
    pub(super) unsafe fn reduce_avx512(r: Reduction, v: &[f32]) -> f32 {
        fold::<V16>(r, v)
    }

    /// Reduces `v` with 8-lane AVX2 vectors.
    ///
    /// # Safety
    /// The host must have AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn reduce_avx2(r: Reduction, v: &[f32]) -> f32 {
        fold::<V8>(r, v)
    }

    /// 16 lanes; only created inside the AVX-512 drivers.
    #[derive(Clone, Copy)]
    pub(super) struct V16(__m512);

    /// 8 lanes; only created inside the AVX2 drivers.
    #[derive(Clone, Copy)]
    pub(super) struct V8(__m256);

    // Each intrinsic below needs the features its driver enables; the vector
    // types are private and only built inside those drivers (the functions
    // are inlined into them), so the features are present.
    macro_rules! avx {
        ($e:expr) => {
            // SAFETY: see above: this runs only inside a driver whose
            // features include this intrinsic's; pointers are from slices
            // checked to hold a full vector.
            unsafe { $e }
        };
    }

    impl Vf32 for V16 {
        type M = __mmask16;
        const LANES: usize = 16;
        #[inline(always)]
        fn splat(x: f32) -> Self {
            V16(avx!(_mm512_set1_ps(x)))
        }
        #[inline(always)]
        fn load(s: &[f32]) -> Self {
            let s = &s[..16];
            V16(avx!(_mm512_loadu_ps(s.as_ptr())))
        }
        #[inline(always)]
        fn store(self, s: &mut [f32]) {
            let s = &mut s[..16];
            avx!(_mm512_storeu_ps(s.as_mut_ptr(), self.0))
        }
        #[inline(always)]
        fn stream(self, s: &mut [f32]) {
            let s = &mut s[..16];
            if (s.as_ptr() as usize).is_multiple_of(64) {
                avx!(_mm512_stream_ps(s.as_mut_ptr(), self.0))
            } else {
                avx!(_mm512_storeu_ps(s.as_mut_ptr(), self.0))
            }
        }
        #[inline(always)]
        fn add(self, o: Self) -> Self {
            V16(avx!(_mm512_add_ps(self.0, o.0)))
        }
        #[inline(always)]
        fn sub(self, o: Self) -> Self {
            V16(avx!(_mm512_sub_ps(self.0, o.0)))
        }
        #[inline(always)]
        fn mul(self, o: Self) -> Self {
            V16(avx!(_mm512_mul_ps(self.0, o.0)))
        }
        #[inline(always)]
        fn div(self, o: Self) -> Self {
            V16(avx!(_mm512_div_ps(self.0, o.0)))
        }
        #[inline(always)]
        fn fma(self, b: Self, c: Self) -> Self {
            V16(avx!(_mm512_fmadd_ps(self.0, b.0, c.0)))
        }
        #[inline(always)]
        fn min(self, o: Self) -> Self {
            V16(avx!(_mm512_min_ps(self.0, o.0)))
        }
        #[inline(always)]
        fn max(self, o: Self) -> Self {
            V16(avx!(_mm512_max_ps(self.0, o.0)))
        }
        #[inline(always)]
        fn abs(self) -> Self {
            V16(avx!(_mm512_abs_ps(self.0)))
        }
        #[inline(always)]
        fn round(self) -> Self {
            V16(avx!(_mm512_roundscale_ps::<0x08>(self.0)))
        }
        #[inline(always)]
        fn lt(self, o: Self) -> __mmask16 {
            avx!(_mm512_cmp_ps_mask::<_CMP_LT_OQ>(self.0, o.0))
        }
        #[inline(always)]
        fn gt(self, o: Self) -> __mmask16 {
            avx!(_mm512_cmp_ps_mask::<_CMP_GT_OQ>(self.0, o.0))
        }
        #[inline(always)]
        fn eq(self, o: Self) -> __mmask16 {
            avx!(_mm512_cmp_ps_mask::<_CMP_EQ_OQ>(self.0, o.0))
        }
        #[inline(always)]
        fn is_nan(self) -> __mmask16 {
            avx!(_mm512_cmp_ps_mask::<_CMP_UNORD_Q>(self.0, self.0))
        }
        #[inline(always)]
        fn select(m: __mmask16, a: Self, b: Self) -> Self {
            V16(avx!(_mm512_mask_blend_ps(m, b.0, a.0)))
        }
        #[inline(always)]
        fn any(m: __mmask16) -> bool {
            m != 0
        }
        #[inline(always)]
        fn pow2i(self) -> Self {
            avx!({
                let n = _mm512_cvtps_epi32(self.0);
                let e = _mm512_slli_epi32::<23>(_mm512_add_epi32(n, _mm512_set1_epi32(127)));
                V16(_mm512_castsi512_ps(e))
            })
        }
        #[inline(always)]
        fn and_bits(self, mask: u32) -> Self {
            avx!({
                let m = _mm512_set1_epi32(mask as i32);
                V16(_mm512_castsi512_ps(_mm512_and_si512(
                    _mm512_castps_si512(self.0),
                    m,
                )))
            })
        }
        #[inline(always)]
        fn or(self, o: Self) -> Self {
            avx!(V16(_mm512_castsi512_ps(_mm512_or_si512(
                _mm512_castps_si512(self.0),
                _mm512_castps_si512(o.0),
            ))))
        }
        #[inline(always)]
        fn exponent_and_significand(self) -> (Self, Self) {
            avx!({
                let b = _mm512_castps_si512(self.0);
                let e = _mm512_cvtepi32_ps(_mm512_srli_epi32::<23>(b));
                let m = _mm512_or_si512(
                    _mm512_and_si512(b, _mm512_set1_epi32(0x807F_FFFF_u32 as i32)),
                    _mm512_set1_epi32(0x3F00_0000),
                );
                (V16(e), V16(_mm512_castsi512_ps(m)))
            })
        }
    }

    impl Vf32 for V8 {
        type M = __m256;
        const LANES: usize = 8;
        #[inline(always)]
        fn splat(x: f32) -> Self {
            V8(avx!(_mm256_set1_ps(x)))
        }
        #[inline(always)]
        fn load(s: &[f32]) -> Self {
            let s = &s[..8];
            V8(avx!(_mm256_loadu_ps(s.as_ptr())))
        }
        #[inline(always)]
        fn store(self, s: &mut [f32]) {
            let s = &mut s[..8];
            avx!(_mm256_storeu_ps(s.as_mut_ptr(), self.0))
        }
        #[inline(always)]
        fn stream(self, s: &mut [f32]) {
            let s = &mut s[..8];
            if (s.as_ptr() as usize).is_multiple_of(32) {
                avx!(_mm256_stream_ps(s.as_mut_ptr(), self.0))
            } else {
                avx!(_mm256_storeu_ps(s.as_mut_ptr(), self.0))
            }
        }
        #[inline(always)]
        fn add(self, o: Self) -> Self {
            V8(avx!(_mm256_add_ps(self.0, o.0)))
        }
        #[inline(always)]
        fn sub(self, o: Self) -> Self {
            V8(avx!(_mm256_sub_ps(self.0, o.0)))
        }
        #[inline(always)]
        fn mul(self, o: Self) -> Self {
            V8(avx!(_mm256_mul_ps(self.0, o.0)))
        }
        #[inline(always)]
        fn div(self, o: Self) -> Self {
            V8(avx!(_mm256_div_ps(self.0, o.0)))
        }
        #[inline(always)]
        fn fma(self, b: Self, c: Self) -> Self {
            V8(avx!(_mm256_fmadd_ps(self.0, b.0, c.0)))
        }
        #[inline(always)]
        fn min(self, o: Self) -> Self {
            V8(avx!(_mm256_min_ps(self.0, o.0)))
        }
        #[inline(always)]
        fn max(self, o: Self) -> Self {
            V8(avx!(_mm256_max_ps(self.0, o.0)))
        }
        #[inline(always)]
        fn abs(self) -> Self {
            self.and_bits(0x7FFF_FFFF)
        }
        #[inline(always)]
        fn round(self) -> Self {
            V8(avx!(_mm256_round_ps::<0x08>(self.0)))
        }
        #[inline(always)]
        fn lt(self, o: Self) -> __m256 {
            avx!(_mm256_cmp_ps::<_CMP_LT_OQ>(self.0, o.0))
        }
        #[inline(always)]
        fn gt(self, o: Self) -> __m256 {
            avx!(_mm256_cmp_ps::<_CMP_GT_OQ>(self.0, o.0))
        }
        #[inline(always)]
        fn eq(self, o: Self) -> __m256 {
            avx!(_mm256_cmp_ps::<_CMP_EQ_OQ>(self.0, o.0))
        }
        #[inline(always)]
        fn is_nan(self) -> __m256 {
            avx!(_mm256_cmp_ps::<_CMP_UNORD_Q>(self.0, self.0))
        }
        #[inline(always)]
        fn select(m: __m256, a: Self, b: Self) -> Self {
            V8(avx!(_mm256_blendv_ps(b.0, a.0, m)))
        }
        #[inline(always)]
        fn any(m: __m256) -> bool {
            avx!(_mm256_movemask_ps(m)) != 0
        }
        #[inline(always)]
        fn pow2i(self) -> Self {
            avx!({
                let n = _mm256_cvtps_epi32(self.0);
                let e = _mm256_slli_epi32::<23>(_mm256_add_epi32(n, _mm256_set1_epi32(127)));
                V8(_mm256_castsi256_ps(e))
            })
        }
        #[inline(always)]
        fn and_bits(self, mask: u32) -> Self {
            avx!(V8(_mm256_and_ps(
                self.0,
                _mm256_castsi256_ps(_mm256_set1_epi32(mask as i32)),
            )))
        }
        #[inline(always)]
        fn or(self, o: Self) -> Self {
            V8(avx!(_mm256_or_ps(self.0, o.0)))
        }
        #[inline(always)]
        fn exponent_and_significand(self) -> (Self, Self) {
            avx!({
                let b = _mm256_castps_si256(self.0);
                let e = _mm256_cvtepi32_ps(_mm256_srli_epi32::<23>(b));
                let m = _mm256_or_si256(
                    _mm256_and_si256(b, _mm256_set1_epi32(0x807F_FFFF_u32 as i32)),
                    _mm256_set1_epi32(0x3F00_0000),
                );
                (V8(e), V8(_mm256_castsi256_ps(m)))
            })
        }
    }
}

// ---------------------------------------------------------------------------
// The formulas, once for every vector type.

const LOG2E: f32 = std::f32::consts::LOG2_E;
/// ln 2 in two parts: `LN2_HI` has few significant bits, so n · LN2_HI is exact.
const LN2_HI: f32 = 0.693_359_4;
const LN2_LO: f32 = -2.121_944_4e-4;
/// Above this, e^x overflows f32.
const EXP_MAX: f32 = 88.722_84;
/// Below this, e^x rounds to 0 in f32.
const EXP_MIN: f32 = -104.0;

#[inline(always)]
fn exp<V: Vf32>(x: V) -> V {
    let s = V::splat;
    // A NaN passes both clamps (`max` and `min` return their argument when
    // it is NaN) and every step after, so it needs no select of its own.
    let xc = s(EXP_MAX).min(s(EXP_MIN).max(x));
    let n = xc.mul(s(LOG2E)).round();
    let r = n.fma(s(-LN2_HI), xc);
    let r = n.fma(s(-LN2_LO), r);
    // Cephes' expf polynomial: e^r = 1 + r + r² P(r) on |r| <= ln2 / 2.
    let p = s(1.987_569_1e-4)
        .fma(r, s(1.398_199_9e-3))
        .fma(r, s(8.333_452e-3))
        .fma(r, s(4.166_579_6e-2))
        .fma(r, s(1.666_666_5e-1))
        .fma(r, s(0.5));
    let y = p.mul(r.mul(r)).add(r).add(s(1.0));
    let y = if V::any(xc.abs().gt(s(87.0))) {
        scale_two(y, n)
    } else {
        // |x| <= 87: n within [-126, 126], one exact factor.
        y.mul(n.pow2i())
    };
    V::select(x.gt(s(EXP_MAX)), s(f32::INFINITY), y)
}

/// y 2^n in two factors, so that n from -153 to 128 stays representable and
/// subnormal results are rounded once.
#[inline(always)]
fn scale_two<V: Vf32>(y: V, n: V) -> V {
    let n1 = n.mul(V::splat(0.5)).round();
    y.mul(n1.pow2i()).mul(n.sub(n1).pow2i())
}

/// e^x - 1 without the cancellation near 0: Taylor to x⁸ for |x| < 0.5
/// (truncation below 1.1e-8 relative), else e^x - 1 (at most 2.6 times
/// `exp`'s error there).
#[inline(always)]
fn expm1<V: Vf32>(x: V) -> V {
    let s = V::splat;
    let p = s(1.0 / 40_320.0)
        .fma(x, s(1.0 / 5_040.0))
        .fma(x, s(1.0 / 720.0))
        .fma(x, s(1.0 / 120.0))
        .fma(x, s(1.0 / 24.0))
        .fma(x, s(1.0 / 6.0))
        .fma(x, s(0.5));
    let small = p.mul(x.mul(x)).add(x);
    let big = exp(x).sub(s(1.0));
    V::select(x.abs().lt(s(0.5)), small, big)
}

#[inline(always)]
fn log<V: Vf32>(x: V) -> V {
    let s = V::splat;
    // Subnormal inputs are scaled by 2^23 first.
    let tiny = x.lt(s(f32::MIN_POSITIVE));
    let xs = V::select(tiny, x.mul(s(8_388_608.0)), x);
    let (e, m) = xs.exponent_and_significand();
    let e = e.sub(V::select(tiny, s(126.0 + 23.0), s(126.0)));
    // m in [0.5, 1): fold to [√½, √2) and take m - 1.
    let low = m.lt(s(std::f32::consts::FRAC_1_SQRT_2));
    let e = V::select(low, e.sub(s(1.0)), e);
    let m = V::select(low, m.add(m), m).sub(s(1.0));
    let z = m.mul(m);
    // Cephes' logf polynomial.
    let p = s(7.037_683_6e-2)
        .fma(m, s(-1.151_461e-1))
        .fma(m, s(1.167_699_9e-1))
        .fma(m, s(-1.242_014_1e-1))
        .fma(m, s(1.424_932_3e-1))
        .fma(m, s(-1.666_805_8e-1))
        .fma(m, s(2.000_071_4e-1))
        .fma(m, s(-2.499_999_4e-1))
        .fma(m, s(3.333_333e-1));
    let y = p.mul(m).mul(z);
    let y = e.fma(s(LN2_LO), y);
    let y = z.fma(s(-0.5), y);
    let y = m.add(y);
    let y = e.fma(s(LN2_HI), y);
    let y = V::select(x.eq(s(0.0)), s(f32::NEG_INFINITY), y);
    let y = V::select(x.lt(s(0.0)), s(f32::NAN), y);
    let y = V::select(x.eq(s(f32::INFINITY)), x, y);
    V::select(x.is_nan(), x, y)
}

#[inline(always)]
fn tanh<V: Vf32>(x: V) -> V {
    let s = V::splat;
    let a = x.abs();
    // Small |x|: Cephes' odd polynomial.
    let z = x.mul(x);
    let p = s(-5.704_988_7e-3)
        .fma(z, s(2.063_909e-2))
        .fma(z, s(-5.373_971_6e-2))
        .fma(z, s(1.333_144_2e-1))
        .fma(z, s(-3.333_328e-1));
    let small = p.mul(z).fma(x, x);
    // Otherwise 1 - 2 / (e^2|x| + 1), with the sign of x.
    let e = exp(a.add(a).min(s(20.0)));
    let big = s(1.0).sub(s(2.0).div(e.add(s(1.0))));
    let big = big.or(x.and_bits(0x8000_0000));
    let y = V::select(a.lt(s(0.625)), small, big);
    V::select(x.is_nan(), x, y)
}

#[inline(always)]
fn logistic<V: Vf32>(x: V) -> V {
    let s = V::splat;
    // e = e^-|x| <= 1: 1 / (1 + e) for x >= 0, e / (1 + e) below.
    let e = exp(s(0.0).sub(x.abs()));
    let r = s(1.0).div(s(1.0).add(e));
    let y = V::select(x.lt(s(0.0)), e.mul(r), r);
    V::select(x.is_nan(), x, y)
}

/// e^(hi + lo) for `hi` <= 0 whose products with n ln 2's leading part are
/// exact (`hi` of few significant bits, such as a square of 12-bit values)
/// and |lo| < 2: one exponential whose large part is never rounded; 0 once
/// hi is below -104.
#[inline(always)]
fn exp_sum<V: Vf32>(hi: V, lo: V) -> V {
    let s = V::splat;
    let hi = hi.max(s(EXP_MIN));
    let n = hi.add(lo).mul(s(LOG2E)).round();
    let r = n.fma(s(-LN2_HI), hi);
    let r = n.fma(s(-LN2_LO), r).add(lo);
    let p = s(1.987_569_1e-4)
        .fma(r, s(1.398_199_9e-3))
        .fma(r, s(8.333_452e-3))
        .fma(r, s(4.166_579_6e-2))
        .fma(r, s(1.666_666_5e-1))
        .fma(r, s(0.5));
    let y = p.mul(r.mul(r)).add(r).add(s(1.0));
    // n from -153 to 0: two factors where a lane needs them, as in `exp`.
    if V::any(n.lt(s(-126.0))) {
        scale_two(y, n)
    } else {
        y.mul(n.pow2i())
    }
}

/// erfc(z) for z >= 0 (up to 20), given z² = `sq_hi` + `sq_lo` with
/// `sq_hi` exact: the large part of the exponent is never rounded.
#[inline(always)]
fn erfc_tail<V: Vf32>(z: V, sq_hi: V, sq_lo: V) -> V {
    let s = V::splat;
    let t = s(1.0).div(s(0.5).fma(z, s(1.0)));
    let poly = s(0.170_872_77)
        .fma(t, s(-0.822_152_2))
        .fma(t, s(1.488_515_9))
        .fma(t, s(-1.135_204))
        .fma(t, s(0.278_868_07))
        .fma(t, s(-0.186_288_06))
        .fma(t, s(0.096_784_18))
        .fma(t, s(0.374_091_96))
        .fma(t, s(1.000_023_7))
        .fma(t, s(-1.265_512_2));
    t.mul(exp_sum(s(0.0).sub(sq_hi), poly.sub(sq_lo)))
}

/// |x| (capped at `cap`) split as hi + lo, hi with 12 significant bits (so
/// hi² is exact), and the two parts of x²: hi² and lo (|x| + hi).
#[inline(always)]
fn split_square<V: Vf32>(x: V, cap: f32) -> (V, V, V) {
    let a = x.abs().min(V::splat(cap));
    let hi = a.and_bits(0xFFFF_F000);
    let lo = a.sub(hi);
    (a, hi.mul(hi), lo.mul(a.add(hi)))
}

#[inline(always)]
fn erfc<V: Vf32>(x: V) -> V {
    let s = V::splat;
    let (z, sq_hi, sq_lo) = split_square(x, 20.0);
    let r = erfc_tail(z, sq_hi, sq_lo);
    let y = V::select(x.lt(s(0.0)), s(2.0).sub(r), r);
    V::select(x.is_nan(), x, y)
}

#[inline(always)]
fn gelu_tanh<V: Vf32>(x: V) -> V {
    let s = V::splat;
    // 2u = 2 √(2/π) x (1 + 0.044715 x²).
    let u2 = s(2.0 * 0.797_884_6)
        .mul(x)
        .mul(s(0.044_715).mul(x.mul(x)).add(s(1.0)));
    let y = x.mul(logistic(u2));
    // ±inf: x for +inf, -0 for -inf (the left tail's limit).
    let y = V::select(x.eq(s(f32::NEG_INFINITY)), s(-0.0), y);
    V::select(x.eq(s(f32::INFINITY)), x, y)
}

/// Up to this |x|, gelu_erf is x (1/2 + x Q(x²)) (see [`gelu_erf`]).
const GELU_ERF_NEAR: f32 = 1.25;

#[inline(always)]
fn gelu_erf<V: Vf32>(x: V) -> V {
    let s = V::splat;
    // |x| <= 1.25: Φ(x) = 1/2 + x Q(x²), Q(u) = erf(√(u/2)) / (2√u) fitted
    // (weighted least squares towards minimax, relative error 1e-8) as a
    // quintic in u. Φ(-1.25) = 0.106, so the cancellation in 1/2 + x Q
    // amplifies Q's rounding at most 3.7 times: within 6e-7 overall.
    let u = x.mul(x);
    let q = s(-6.809_475e-6)
        .fma(u, s(1.110_410_6e-4))
        .fma(u, s(-1.183_837_1e-3))
        .fma(u, s(9.972_283e-3))
        .fma(u, s(-6.649_021e-2))
        .fma(u, s(3.989_423e-1));
    let near = x.fma(q, s(0.5)).mul(x);
    let far_lanes = x.abs().gt(s(GELU_ERF_NEAR));
    // Vectors with no lane beyond (most activations) stop here.
    if !V::any(far_lanes) {
        return near;
    }
    // Beyond: erfc(-x / √2) with z² = x² / 2 taken from x's exact split, so
    // the rounding of x / √2 is not amplified in the tail (where it would
    // count x² times).
    let (a, sq_hi, sq_lo) = split_square(x, 28.0);
    let z = a.mul(s(std::f32::consts::FRAC_1_SQRT_2));
    let r = erfc_tail(z, sq_hi.mul(s(0.5)), sq_lo.mul(s(0.5)));
    let e = V::select(x.gt(s(0.0)), s(2.0).sub(r), r);
    let far = s(0.5).mul(x).mul(e);
    let far = V::select(x.eq(s(f32::NEG_INFINITY)), s(-0.0), far);
    V::select(far_lanes, far, near)
}

#[cfg(test)]
mod tests;
