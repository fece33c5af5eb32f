//! The CPU GEMM's own blocked products: register-blocked microkernels
//! (`std::arch`) under packing, cache blocking and threading. [`run`]
//! computes every batch's `m x n` product of a [`Problem`] and hands each
//! finished tile, in f32, to the caller's epilogue on the thread that
//! computed it.
//!
//! Layer: prims. How a call runs:
//! - B is packed once per call (once per distinct B of the batches) into
//!   panels of `nr` columns, `k` rows each (`[k][nr]`, zero-padded past
//!   `n`), on all threads; the panels are then shared read-only.
//! - The output is cut into tiles of `mc x nc` (all batches' tiles in one
//!   list, rows innermost), which the threads claim one at a time (a
//!   thread slowed down by other load takes fewer), so both tall and wide
//!   problems give every thread work. The AVX2 path sizes `kc`, `mc` and
//!   `nc` from the host's L1d and L2 sizes (sysfs).
//! - Per tile, per `kc` slice of K, each thread packs its rows of A into
//!   panels of `mr` rows (`[kc][mr]`, zero-padded), then runs the microkernel
//!   over every `mr x nr` block of the tile into a padded row-major f32
//!   accumulator, which goes to the epilogue once K is done.
//!
//! - [`run_packed`] also takes A from a caller's [`PackA`] (a
//!   convolution's implicit im2col), which writes each `mc x kc` block
//!   row-major; the `rows_*` kernels read it so (a broadcast per row, as
//!   the packed kernels' per slot), and can split the depth into parts
//!   whose partial tiles the caller adds up.
//!
//! The paths ([`Path`]): AVX-512F `12 x 32` and AVX2+FMA `6 x 16` f32 kernels,
//! an AVX512-BF16 `12 x 32` kernel (`vdpbf16ps`, A and B packed as pairs of
//! consecutive K, f32 accumulation) and the AMX `32 x 32` one (`blocked/amx.rs`)
//! for bf16 A and B, a portable `4 x 16` one; and for u8/s8 A and B the AMX
//! int8 kernels (four K per slot), an AVX2 `6 x 16` one over pairs widened
//! to i16, and an AVX2 `6 x 16` u8 x s8 one over four bytes of K per slot
//! (`vpmaddubsw`, taken where [`quads_fit`] rules out its s16 saturation),
//! which sum exactly in s32 and hand the sums over in the f32 values' bits.
//! f16 and mixed operands are converted to f32 while packing. The
//! `unsafe` is the intrinsics and the microkernels' raw pointers: the
//! kernels are entered only where the host has the features (checked in
//! [`Path::for_level`]), on panels whose lengths [`run`] checks.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::cpu::run_pooled;
use crate::base::isa::{self, Level};
use crate::prims::common::dt::{self, Elem};
use crate::prims::common::parallel;

/// One input matrix: element `(r, c)` at element index `first + r * rs +
/// c * cs` of `bytes` (`first` per batch, from [`Problem::first`]).
#[derive(Clone, Copy)]
pub(crate) struct Mat<'a> {
    pub bytes: &'a [u8],
    pub elem: Elem,
    pub rs: i64,
    pub cs: i64,
}

/// A batched product `C[m, n] = Σ_k A[m, k] · B[k, n]`.
pub(crate) struct Problem<'a> {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub batches: usize,
    pub a: Mat<'a>,
    pub b: Mat<'a>,
    /// The element indices of A's and B's `(0, 0)` in batch `i`.
    pub first: &'a (dyn Fn(usize) -> (i64, i64) + Sync),
}

/// A caller's source of A, for products whose A is not a strided matrix
/// (a convolution's implicit im2col): it writes the microkernel's row-major
/// A block directly, so no whole A is ever materialised.
pub(crate) trait PackA: Sync {
    /// Writes `A[m0 + r, k0 + j]` of batch `batch`, in f32, to
    /// `out[r * kc + j]` for `r < rows`, `j < kc` (`out` holds exactly
    /// `rows * kc` values).
    fn pack(&self, batch: usize, m0: usize, rows: usize, k0: usize, kc: usize, out: &mut [f32]);
}

/// A finished tile: rows `m0..m0 + rows`, columns `n0..n0 + cols` of batch
/// `batch`; row `r` is `values[r * ld..][..cols]`. With the depth split
/// ([`run_packed`]'s `parts`), the values are part `part`'s partial sums
/// (always 0 otherwise).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tile {
    pub batch: usize,
    pub part: usize,
    pub m0: usize,
    pub n0: usize,
    pub rows: usize,
    pub cols: usize,
    pub ld: usize,
}

/// A microkernel path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Path {
    Portable,
    Avx2,
    Avx512,
    /// bf16 A and B only.
    Avx512Bf16,
    /// bf16 A and B only, on the AMX tiles (`blocked/amx.rs`).
    Amx,
    /// u8/s8 A and B only (whether each is signed), on the AMX tiles with
    /// s32 accumulation: the tiles hand the s32 sums over in the f32
    /// values' bits.
    AmxInt8 {
        a_signed: bool,
        b_signed: bool,
    },
    /// u8/s8 A and B only, widened to i16 pairs (`vpmaddwd`), s32 sums as
    /// for `AmxInt8`.
    Avx2Int8,
    /// u8 A and s8 B only, four K per slot as bytes (`vpmaddubsw`, then
    /// `vpmaddwd` by ones): three instructions per 32 products where
    /// `Avx2Int8` takes four, and half its packed bytes.
    /// `vpmaddubsw` saturates each sum of two products at s16, so this path
    /// is taken only where [`quads_fit`] shows from the operands that no
    /// such sum leaves s16: its sums are then exact, as `Avx2Int8`'s.
    Avx2Quads,
}

/// `avx512_core_bf16`'s bits in `dnnl_cpu_isa_t`.
const ISA_AVX512_CORE_BF16: u32 = 0xe7;
/// `avx512_core_amx`'s bits in `dnnl_cpu_isa_t`.
const ISA_AVX512_CORE_AMX: u32 = 0xfef;

impl Path {
    /// The best path at `level` that the host has, for A and B of types
    /// `a` and `b`; `bf16_allowed` and `amx_allowed` say whether the ISA cap
    /// lets AVX512-BF16 (`avx512_core_bf16` or above) and AMX
    /// (`avx512_core_amx` or above) run.
    pub fn for_level(
        level: Level,
        a: Elem,
        b: Elem,
        bf16_allowed: bool,
        amx_allowed: bool,
    ) -> Path {
        let bf16 = a == Elem::Bf16 && b == Elem::Bf16;
        let int8 = |e: Elem| matches!(e, Elem::U8 | Elem::S8);
        if level >= Level::Avx512 && Level::Avx512.host_has() {
            if int8(a) && int8(b) && amx_allowed && host_has_amx_int8() {
                Path::AmxInt8 {
                    a_signed: a == Elem::S8,
                    b_signed: b == Elem::S8,
                }
            } else if int8(a) && int8(b) {
                Path::Avx2Int8
            } else if bf16 && amx_allowed && host_has_amx() {
                Path::Amx
            } else if bf16 && bf16_allowed && host_has_bf16() {
                Path::Avx512Bf16
            } else {
                Path::Avx512
            }
        } else if level >= Level::Avx2 && Level::Avx2.host_has() {
            if int8(a) && int8(b) {
                Path::Avx2Int8
            } else {
                Path::Avx2
            }
        } else {
            Path::Portable
        }
    }

    /// The process's path for A and B of types `a` and `b` (the ISA level of
    /// `base::isa`, capped by `ONEDNN_MAX_CPU_ISA` / `dnnl_set_max_cpu_isa`).
    pub fn current(a: Elem, b: Elem) -> Path {
        let effective = isa::effective();
        let allows = |isa: u32| effective == 0 || effective & isa == isa;
        Path::for_level(
            isa::level(),
            a,
            b,
            allows(ISA_AVX512_CORE_BF16),
            allows(ISA_AVX512_CORE_AMX),
        )
    }

    /// Whether the path takes bf16 A and B only.
    pub fn bf16_only(self) -> bool {
        matches!(self, Path::Avx512Bf16 | Path::Amx)
    }

    /// Whether the path takes int8 A and B only (and sums in s32).
    pub fn int8_only(self) -> bool {
        matches!(
            self,
            Path::AmxInt8 { .. } | Path::Avx2Int8 | Path::Avx2Quads
        )
    }

    /// Every path this host can run (the tests run each).
    #[cfg(test)]
    pub fn on_host() -> Vec<Path> {
        let mut paths = vec![Path::Portable];
        if Level::Avx2.host_has() {
            paths.push(Path::Avx2);
        }
        if Level::Avx512.host_has() {
            paths.push(Path::Avx512);
            if host_has_bf16() {
                paths.push(Path::Avx512Bf16);
            }
            if host_has_amx() {
                paths.push(Path::Amx);
            }
        }
        paths
    }

    fn shape(self) -> Shape {
        match self {
            // kc 128 and mc 48: measured on the device machine's 16 cores
            // (f32 1024^3 and 2048^3) against kc 256 / mc 96 and others.
            // The convolutions' implicit im2col (`rows_ukr`) keeps kc 256 /
            // mc 96, which it was measured with (the smaller blocks cost the
            // ResNet layers 10-25% in one run).
            #[cfg(target_arch = "x86_64")]
            Path::Avx512 => Shape::f32_simd(
                (12, 32),
                tuned_blocks(12, 32).unwrap_or(Blocks {
                    kc: 128,
                    mc: 48,
                    nc: 512,
                }),
                (x86::ukr_avx512, x86::rows_avx512),
                Some((256, 96)),
            ),
            #[cfg(target_arch = "x86_64")]
            Path::Avx512Bf16 => Shape {
                mr: 12,
                nr: 32,
                kc: 256,
                mc: 96,
                nc: 512,
                group: 2,
                a_tiles: false,
                tile_config: false,
                k_step: 1,
                f16c: true,
                ukr: x86::ukr_avx512_bf16,
                rows_ukr: x86::rows_avx512,
                rows_blocks: None,
            },
            // kc: 512 slots (1024 K), so that C stays in its tiles over
            // most depths; one 32-row panel of A per tile (mc 32, 64 KiB)
            // and B's kc x nc (512 KiB) within a Sapphire Rapids core's 2 MiB
            // of L2, A's and B's next tiles prefetched into L1 by the kernel.
            // Measured on the device machine's 16 cores (bf16 2048^3)
            // against kc 256 and 1024, mc 64 and 128, nc 128 and 512.
            #[cfg(target_arch = "x86_64")]
            Path::Amx => Shape {
                mr: 32,
                nr: 32,
                kc: 512,
                mc: 32,
                nc: 256,
                group: 2,
                a_tiles: true,
                tile_config: true,
                k_step: amx::K_STEP,
                f16c: true,
                ukr: amx::ukr_bf16,
                rows_ukr: x86::rows_avx512,
                rows_blocks: None,
            },
            // As bf16, with four int8 of K per slot, and nc 512 (measured
            // against 256 and 1024, u8 x s8 2048^3).
            #[cfg(target_arch = "x86_64")]
            Path::AmxInt8 { a_signed, b_signed } => Shape {
                group: 4,
                nc: 512,
                ukr: match (a_signed, b_signed) {
                    (false, true) => amx::ukr_u8s8,
                    (true, true) => amx::ukr_s8s8,
                    (false, false) => amx::ukr_u8u8,
                    (true, false) => amx::ukr_s8u8,
                },
                ..Path::Amx.shape()
            },
            #[cfg(target_arch = "x86_64")]
            Path::Avx2 => Shape::f32_simd(
                (6, 16),
                cache_blocks(6, 16),
                (x86::ukr_avx2, x86::rows_avx2),
                None,
            ),
            #[cfg(target_arch = "x86_64")]
            Path::Avx2Int8 => Shape {
                group: 2,
                ukr: x86::ukr_avx2_int8,
                ..Path::Avx2.shape()
            },
            #[cfg(target_arch = "x86_64")]
            Path::Avx2Quads => Shape {
                group: 4,
                ukr: x86::ukr_avx2_u8s8,
                ..Path::Avx2.shape()
            },
            _ => Shape {
                mr: 4,
                nr: 16,
                kc: 256,
                mc: 96,
                nc: 512,
                group: 1,
                a_tiles: false,
                tile_config: false,
                k_step: 1,
                f16c: false,
                ukr: ukr_portable,
                rows_ukr: rows_portable,
                rows_blocks: None,
            },
        }
    }
}

/// Cache blocks sized for the host's data caches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Blocks {
    kc: usize,
    mc: usize,
    nc: usize,
}

/// The per-core L1 data and L2 cache sizes in bytes, from sysfs (cpu0's
/// `cache/index*`); `None` where they cannot be read.
fn cache_sizes() -> Option<(usize, usize)> {
    let dir = std::path::Path::new("/sys/devices/system/cpu/cpu0/cache");
    let (mut l1, mut l2) = (None, None);
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let read = |name: &str| std::fs::read_to_string(entry.path().join(name)).ok();
        let (Some(level), Some(kind), Some(size)) = (read("level"), read("type"), read("size"))
        else {
            continue;
        };
        let size = size.trim();
        let bytes = match size.strip_suffix('K') {
            Some(kib) => kib.parse::<usize>().ok().map(|v| v * 1024),
            None => match size.strip_suffix('M') {
                Some(mib) => mib.parse::<usize>().ok().map(|v| v << 20),
                None => size.parse().ok(),
            },
        };
        match (level.trim(), kind.trim()) {
            ("1", "Data") => l1 = bytes,
            ("2", "Unified" | "Data") => l2 = bytes,
            _ => {}
        }
    }
    Some((l1?, l2?))
}

/// The cache blocks of an `mr x nr` f32 kernel for caches of `l1` and `l2`
/// bytes: a B micro-panel (`kc x nr`) fills half of L1 (the A micro-panel
/// and C's rows share the rest), the packed A block (`mc x kc`) about 3/16
/// of L2 and the tile's accumulator (`mc x nc`) about 3/8 of it, so that
/// both stay in L2 while the B micro-panels stream through L1. 32 KiB and
/// 512 KiB give 256, 96 and 512.
fn blocks_for(mr: usize, nr: usize, l1: usize, l2: usize) -> Blocks {
    let kc = (l1 / 2 / (nr * 4)).clamp(64, 512) / 8 * 8;
    let mc = (l2 * 3 / 16 / (kc * 4) / mr).clamp(2, 64) * mr;
    let nc = (l2 * 3 / 8 / (mc * 4) / nr).clamp(8, 256) * nr;
    Blocks { kc, mc, nc }
}

/// [`blocks_for`] the host's caches (read once), or those of 32 KiB and
/// 512 KiB where sysfs does not say.
fn cache_blocks(mr: usize, nr: usize) -> Blocks {
    static SIZES: std::sync::OnceLock<(usize, usize)> = std::sync::OnceLock::new();
    let &(l1, l2) = SIZES.get_or_init(|| cache_sizes().unwrap_or((32 << 10, 512 << 10)));
    tuned_blocks(mr, nr).unwrap_or_else(|| blocks_for(mr, nr, l1, l2))
}

/// `DNNL_CPU_GEMM_BLOCKS` = `kc,mc,nc` (read once): the f32 kernels' cache
/// blocks instead of their own (for tuning), rounded up to 8, `mr` and
/// `nr`.
fn tuned_blocks(mr: usize, nr: usize) -> Option<Blocks> {
    static TUNED: std::sync::OnceLock<Option<[usize; 3]>> = std::sync::OnceLock::new();
    let tuned = TUNED.get_or_init(
        || match super::tuning_numbers("DNNL_CPU_GEMM_BLOCKS")?[..] {
            [kc, mc, nc] if kc > 0 && mc > 0 && nc > 0 => Some([kc, mc, nc]),
            _ => None,
        },
    );
    tuned.map(|[kc, mc, nc]| Blocks {
        kc: kc.next_multiple_of(8),
        mc: mc.next_multiple_of(mr),
        nc: nc.next_multiple_of(nr),
    })
}

#[cfg(target_arch = "x86_64")]
fn host_has_bf16() -> bool {
    std::arch::is_x86_feature_detected!("avx512bf16")
}

#[cfg(not(target_arch = "x86_64"))]
fn host_has_bf16() -> bool {
    false
}

#[cfg(target_arch = "x86_64")]
fn host_has_amx() -> bool {
    amx::usable()
}

#[cfg(not(target_arch = "x86_64"))]
fn host_has_amx() -> bool {
    false
}

#[cfg(target_arch = "x86_64")]
fn host_has_amx_int8() -> bool {
    amx::usable_int8()
}

#[cfg(not(target_arch = "x86_64"))]
fn host_has_amx_int8() -> bool {
    false
}

/// A microkernel: `C[mr x nr] (=, or += unless first) A-panel · B-panel` over
/// `k` packed rows (K values, or pairs of them), C row-major with `ldc`.
///
/// # Safety
/// `a` holds `k * mr` values, `b` `k * nr`, `c` `mr` rows of `ldc >= nr`
/// values, and the host has the kernel's features.
type Ukr = unsafe fn(k: usize, a: *const f32, b: *const f32, c: *mut f32, ldc: usize, first: bool);

/// A microkernel over a row-major A block (row `r` at `a + r * lda`, `k`
/// values), as [`Ukr`] otherwise (never the bf16 pairs).
///
/// # Safety
/// `a` holds `mr` rows of `lda >= k` values (the last one `k`), `b` `k * nr`
/// values, `c` `mr` rows of `ldc >= nr` values, and the host has the
/// kernel's features.
type RowsUkr = unsafe fn(
    k: usize,
    a: *const f32,
    lda: usize,
    b: *const f32,
    c: *mut f32,
    ldc: usize,
    first: bool,
);

/// A path's register block (`mr x nr`), cache blocks (`kc` packed rows,
/// `mc` rows, `nc` columns) and kernel.
#[derive(Clone, Copy)]
struct Shape {
    mr: usize,
    nr: usize,
    kc: usize,
    mc: usize,
    nc: usize,
    /// Consecutive K values per packed slot: 1 (f32), 2 (two bf16 in one
    /// 32-bit slot) or 4 (four int8).
    group: usize,
    /// A's panels are stored tile by tile (`[kc / 16][mr][16]`, the AMX
    /// tiles' layout), not `[kc][mr]`.
    a_tiles: bool,
    /// The kernel runs on AMX tiles that each worker configures once
    /// (`amx::configure`) and releases when done.
    tile_config: bool,
    /// The packed rows (K, or K pairs) are zero-padded to a multiple of this,
    /// which `kc` is a multiple of too.
    k_step: usize,
    /// f16 operands are converted with F16C.
    f16c: bool,
    ukr: Ukr,
    /// The same block over a row-major A ([`PackA`]'s format).
    rows_ukr: RowsUkr,
    /// The `kc` and `mc` that `rows_ukr` runs with where they differ from
    /// the packed kernel's.
    rows_blocks: Option<(usize, usize)>,
}

impl Shape {
    /// An f32 SIMD path's shape: `mr x nr` kernels (packed and row-major
    /// A) over `blocks`, F16C for f16.
    #[cfg(target_arch = "x86_64")]
    fn f32_simd(
        (mr, nr): (usize, usize),
        blocks: Blocks,
        (ukr, rows_ukr): (Ukr, RowsUkr),
        rows_blocks: Option<(usize, usize)>,
    ) -> Shape {
        Shape {
            mr,
            nr,
            kc: blocks.kc,
            mc: blocks.mc,
            nc: blocks.nc,
            group: 1,
            a_tiles: false,
            tile_config: false,
            k_step: 1,
            f16c: true,
            ukr,
            rows_ukr,
            rows_blocks,
        }
    }
}

/// The portable kernel, `4 x 16`, without fused multiply-adds.
///
/// # Safety
/// As [`Ukr`].
unsafe fn ukr_portable(
    k: usize,
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    ldc: usize,
    first: bool,
) {
    const MR: usize = 4;
    const NR: usize = 16;
    // SAFETY: the caller's contract (`Ukr`).
    let (a, b) = unsafe {
        (
            std::slice::from_raw_parts(a, k * MR),
            std::slice::from_raw_parts(b, k * NR),
        )
    };
    let mut acc = [[0f32; NR]; MR];
    for (av, bv) in a.chunks_exact(MR).zip(b.chunks_exact(NR)) {
        for (row, &x) in acc.iter_mut().zip(av) {
            for (o, &y) in row.iter_mut().zip(bv) {
                *o += x * y;
            }
        }
    }
    for (r, row) in acc.iter().enumerate() {
        // SAFETY: row r of C holds ldc >= NR values (the caller's contract).
        let out = unsafe { std::slice::from_raw_parts_mut(c.add(r * ldc), NR) };
        for (o, &v) in out.iter_mut().zip(row) {
            *o = if first { v } else { *o + v };
        }
    }
}

/// The portable kernel over a row-major A, `4 x 16`.
///
/// # Safety
/// As [`RowsUkr`].
unsafe fn rows_portable(
    k: usize,
    a: *const f32,
    lda: usize,
    b: *const f32,
    c: *mut f32,
    ldc: usize,
    first: bool,
) {
    const MR: usize = 4;
    const NR: usize = 16;
    // SAFETY: the caller's contract (`RowsUkr`).
    let b = unsafe { std::slice::from_raw_parts(b, k * NR) };
    // SAFETY: as above: row r holds k values from a + r * lda.
    let rows: [&[f32]; MR] =
        std::array::from_fn(|r| unsafe { std::slice::from_raw_parts(a.add(r * lda), k) });
    let mut acc = [[0f32; NR]; MR];
    for (kk, bv) in b.chunks_exact(NR).enumerate() {
        for (row, a_row) in acc.iter_mut().zip(&rows) {
            let x = a_row[kk];
            for (o, &y) in row.iter_mut().zip(bv) {
                *o += x * y;
            }
        }
    }
    for (r, row) in acc.iter().enumerate() {
        // SAFETY: row r of C holds ldc >= NR values (the caller's contract).
        let out = unsafe { std::slice::from_raw_parts_mut(c.add(r * ldc), NR) };
        for (o, &v) in out.iter_mut().zip(row) {
            *o = if first { v } else { *o + v };
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// `12 x 32` f32 accumulators (24 zmm) of the AVX-512F kernels.
    type Acc512 = [[__m512; 2]; 12];

    /// One depth of the AVX-512F kernels: 32 B values at `b` times the 12
    /// A values at `a`, `a_step` apart.
    ///
    /// # Safety
    /// `a` and `b` point at those values; the host has AVX-512F.
    #[inline]
    #[target_feature(enable = "avx512f,fma")]
    unsafe fn step_avx512(acc: &mut Acc512, a: *const f32, a_step: usize, b: *const f32) {
        // SAFETY: the caller's contract.
        unsafe {
            let b0 = _mm512_loadu_ps(b);
            let b1 = _mm512_loadu_ps(b.add(16));
            for (r, row) in acc.iter_mut().enumerate() {
                let x = _mm512_set1_ps(*a.add(r * a_step));
                row[0] = _mm512_fmadd_ps(x, b0, row[0]);
                row[1] = _mm512_fmadd_ps(x, b1, row[1]);
            }
        }
    }

    /// The AVX-512F kernels' loop over `k` depths: A's value of row r at
    /// depth kk at `a + kk * 12 + r` (`PACKED`) or `a + kk + r * lda`, B's
    /// 32 at `b + kk * 32`; K unrolled by four, B prefetched eight depths
    /// ahead (as the AVX2 kernels), then the accumulators stored into
    /// (`first`) or added to C.
    ///
    /// # Safety
    /// The values exist (a prefetch past B's end is harmless); row r of C
    /// holds `ldc >= 32` values; the host has AVX-512F.
    #[inline]
    #[target_feature(enable = "avx512f,fma")]
    unsafe fn loop_avx512<const PACKED: bool>(
        k: usize,
        a: *const f32,
        lda: usize,
        b: *const f32,
        c: *mut f32,
        ldc: usize,
        first: bool,
    ) {
        let (a_depth, a_row) = if PACKED { (12, 1) } else { (1, lda) };
        let mut acc: Acc512 = [[_mm512_setzero_ps(); 2]; 12];
        let mut kk = 0;
        while kk + 4 <= k {
            // SAFETY: depths kk..kk + 4 are inside A and B (the caller's
            // contract); a prefetch never faults.
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(b.wrapping_add((kk + 8) * 32).cast());
                _mm_prefetch::<_MM_HINT_T0>(b.wrapping_add((kk + 8) * 32 + 16).cast());
                _mm_prefetch::<_MM_HINT_T0>(b.wrapping_add((kk + 10) * 32).cast());
                _mm_prefetch::<_MM_HINT_T0>(b.wrapping_add((kk + 10) * 32 + 16).cast());
                for d in kk..kk + 4 {
                    step_avx512(&mut acc, a.add(d * a_depth), a_row, b.add(d * 32));
                }
            }
            kk += 4;
        }
        while kk < k {
            // SAFETY: as above, depth kk.
            unsafe { step_avx512(&mut acc, a.add(kk * a_depth), a_row, b.add(kk * 32)) };
            kk += 1;
        }
        for (r, row) in acc.iter().enumerate() {
            // SAFETY: row r of C holds ldc >= 32 values.
            unsafe {
                let out = c.add(r * ldc);
                if first {
                    _mm512_storeu_ps(out, row[0]);
                    _mm512_storeu_ps(out.add(16), row[1]);
                } else {
                    _mm512_storeu_ps(out, _mm512_add_ps(_mm512_loadu_ps(out), row[0]));
                    let hi = out.add(16);
                    _mm512_storeu_ps(hi, _mm512_add_ps(_mm512_loadu_ps(hi), row[1]));
                }
            }
        }
    }

    /// AVX-512F, `12 x 32` (24 zmm accumulators).
    ///
    /// # Safety
    /// As `Ukr`; the host has AVX-512F.
    #[target_feature(enable = "avx512f,fma")]
    pub(super) unsafe fn ukr_avx512(
        k: usize,
        a: *const f32,
        b: *const f32,
        c: *mut f32,
        ldc: usize,
        first: bool,
    ) {
        // SAFETY: a holds k * 12 values (depth-major), b k * 32 (the
        // caller's contract).
        unsafe { loop_avx512::<true>(k, a, 12, b, c, ldc, first) }
    }

    /// AVX512-BF16, `12 x 32`: each packed row is a pair of K values (two
    /// bf16 in one 32-bit slot), multiplied and summed in f32 by `vdpbf16ps`.
    ///
    /// # Safety
    /// As `Ukr`; the host has AVX-512F and AVX512-BF16.
    #[target_feature(enable = "avx512f,avx512bf16")]
    pub(super) unsafe fn ukr_avx512_bf16(
        k: usize,
        a: *const f32,
        b: *const f32,
        c: *mut f32,
        ldc: usize,
        first: bool,
    ) {
        const MR: usize = 12;
        let mut acc = [[_mm512_setzero_ps(); 2]; MR];
        let a = a.cast::<i32>();
        for kk in 0..k {
            // SAFETY: a holds k * 12 slots, b k * 32 (the caller's contract);
            // the casts reinterpret 32 bf16 as the vector type of bf16 pairs.
            unsafe {
                let b0: __m512bh = std::mem::transmute(_mm512_loadu_ps(b.add(kk * 32)));
                let b1: __m512bh = std::mem::transmute(_mm512_loadu_ps(b.add(kk * 32 + 16)));
                let ar = a.add(kk * MR);
                for (r, row) in acc.iter_mut().enumerate() {
                    let x: __m512bh = std::mem::transmute(_mm512_set1_epi32(*ar.add(r)));
                    row[0] = _mm512_dpbf16_ps(row[0], x, b0);
                    row[1] = _mm512_dpbf16_ps(row[1], x, b1);
                }
            }
        }
        for (r, row) in acc.iter().enumerate() {
            // SAFETY: row r of C holds ldc >= 32 values.
            unsafe {
                let out = c.add(r * ldc);
                if first {
                    _mm512_storeu_ps(out, row[0]);
                    _mm512_storeu_ps(out.add(16), row[1]);
                } else {
                    _mm512_storeu_ps(out, _mm512_add_ps(_mm512_loadu_ps(out), row[0]));
                    let hi = out.add(16);
                    _mm512_storeu_ps(hi, _mm512_add_ps(_mm512_loadu_ps(hi), row[1]));
                }
            }
        }
    }

    /// AVX-512F, `12 x 32`, over a row-major A.
    ///
    /// # Safety
    /// As `RowsUkr`; the host has AVX-512F.
    #[target_feature(enable = "avx512f,fma")]
    pub(super) unsafe fn rows_avx512(
        k: usize,
        a: *const f32,
        lda: usize,
        b: *const f32,
        c: *mut f32,
        ldc: usize,
        first: bool,
    ) {
        // SAFETY: row r of a holds k values from a + r * lda, b k * 32 (the
        // caller's contract).
        unsafe { loop_avx512::<false>(k, a, lda, b, c, ldc, first) }
    }

    /// AVX2 + FMA, `6 x 16`, over a row-major A: as `ukr_avx2`, K
    /// unrolled by four with B prefetched eight rows ahead (13% over the
    /// plain loop in a microbenchmark on the 2-core AMD box, k 256).
    ///
    /// # Safety
    /// As `RowsUkr`; the host has AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn rows_avx2(
        k: usize,
        a: *const f32,
        lda: usize,
        b: *const f32,
        c: *mut f32,
        ldc: usize,
        first: bool,
    ) {
        const MR: usize = 6;
        let mut acc = [[_mm256_setzero_ps(); 2]; MR];
        // Depth kk: 16 B values times A's 6 rows at kk.
        let step = |acc: &mut [[__m256; 2]; MR], a: *const f32, b: *const f32| {
            // SAFETY: `a` points at row 0's value (rows lda apart) and `b`
            // at 16 values (the callers below stay inside the blocks); the
            // host has AVX2 and FMA.
            unsafe {
                let b0 = _mm256_loadu_ps(b);
                let b1 = _mm256_loadu_ps(b.add(8));
                for (r, row) in acc.iter_mut().enumerate() {
                    let x = _mm256_broadcast_ss(&*a.add(r * lda));
                    row[0] = _mm256_fmadd_ps(x, b0, row[0]);
                    row[1] = _mm256_fmadd_ps(x, b1, row[1]);
                }
            }
        };
        let mut kk = 0;
        while kk + 4 <= k {
            // SAFETY: row r of a holds k values from a + r * lda, b k * 16
            // (the caller's contract), and depths kk..kk + 4 are inside
            // them; a prefetch past the panel's end is harmless.
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(b.wrapping_add((kk + 8) * 16).cast());
                _mm_prefetch::<_MM_HINT_T0>(b.wrapping_add((kk + 10) * 16).cast());
                step(&mut acc, a.add(kk), b.add(kk * 16));
                step(&mut acc, a.add(kk + 1), b.add((kk + 1) * 16));
                step(&mut acc, a.add(kk + 2), b.add((kk + 2) * 16));
                step(&mut acc, a.add(kk + 3), b.add((kk + 3) * 16));
            }
            kk += 4;
        }
        while kk < k {
            // SAFETY: as above, depth kk.
            unsafe { step(&mut acc, a.add(kk), b.add(kk * 16)) };
            kk += 1;
        }
        for (r, row) in acc.iter().enumerate() {
            // SAFETY: row r of C holds ldc >= 16 values.
            unsafe {
                let out = c.add(r * ldc);
                if first {
                    _mm256_storeu_ps(out, row[0]);
                    _mm256_storeu_ps(out.add(8), row[1]);
                } else {
                    _mm256_storeu_ps(out, _mm256_add_ps(_mm256_loadu_ps(out), row[0]));
                    let hi = out.add(8);
                    _mm256_storeu_ps(hi, _mm256_add_ps(_mm256_loadu_ps(hi), row[1]));
                }
            }
        }
    }

    /// f16 `src` (2 bytes each) to f32 `out`, eight at a time through F16C.
    ///
    /// # Safety
    /// The host has F16C (and so AVX).
    #[target_feature(enable = "avx,f16c")]
    pub(super) unsafe fn f16_run(src: &[u8], out: &mut [f32]) {
        let mut chunks = out.chunks_exact_mut(8);
        let mut halves = src.chunks_exact(16);
        for (o, h) in (&mut chunks).zip(&mut halves) {
            // SAFETY: h holds 16 bytes, o 8 values.
            unsafe {
                let v = _mm_loadu_si128(h.as_ptr().cast());
                _mm256_storeu_ps(o.as_mut_ptr(), _mm256_cvtph_ps(v));
            }
        }
        let rest = halves.remainder();
        for (o, h) in chunks.into_remainder().iter_mut().zip(rest.chunks_exact(2)) {
            *o = crate::prims::common::dt::f16_to_f32(u16::from_ne_bytes([h[0], h[1]]));
        }
    }

    /// AVX2 + FMA, `6 x 16` (12 ymm accumulators, two for B, one for the
    /// broadcast A value), K unrolled by four with the B panel prefetched
    /// eight rows ahead.
    ///
    /// # Safety
    /// As `Ukr`; the host has AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn ukr_avx2(
        k: usize,
        a: *const f32,
        b: *const f32,
        c: *mut f32,
        ldc: usize,
        first: bool,
    ) {
        const MR: usize = 6;
        let mut acc = [[_mm256_setzero_ps(); 2]; MR];
        // One packed row: 16 B values times 6 A values (a closure, so that
        // it has the kernel's target features).
        let step = |acc: &mut [[__m256; 2]; MR], a: *const f32, b: *const f32| {
            // SAFETY: `a` points at 6 values and `b` at 16 (the callers
            // below stay inside the panels); the host has AVX2 and FMA.
            unsafe {
                let b0 = _mm256_loadu_ps(b);
                let b1 = _mm256_loadu_ps(b.add(8));
                for (r, row) in acc.iter_mut().enumerate() {
                    let x = _mm256_broadcast_ss(&*a.add(r));
                    row[0] = _mm256_fmadd_ps(x, b0, row[0]);
                    row[1] = _mm256_fmadd_ps(x, b1, row[1]);
                }
            }
        };
        let mut kk = 0;
        while kk + 4 <= k {
            // SAFETY: a holds k * 6 values, b k * 16 (the caller's
            // contract), and rows kk..kk + 4 are inside them; a prefetch
            // past the panel's end is harmless (it never faults).
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(b.wrapping_add((kk + 8) * 16).cast());
                _mm_prefetch::<_MM_HINT_T0>(b.wrapping_add((kk + 10) * 16).cast());
                step(&mut acc, a.add(kk * MR), b.add(kk * 16));
                step(&mut acc, a.add((kk + 1) * MR), b.add((kk + 1) * 16));
                step(&mut acc, a.add((kk + 2) * MR), b.add((kk + 2) * 16));
                step(&mut acc, a.add((kk + 3) * MR), b.add((kk + 3) * 16));
            }
            kk += 4;
        }
        while kk < k {
            // SAFETY: as above, row kk.
            unsafe { step(&mut acc, a.add(kk * MR), b.add(kk * 16)) };
            kk += 1;
        }
        for (r, row) in acc.iter().enumerate() {
            // SAFETY: row r of C holds ldc >= 16 values.
            unsafe {
                let out = c.add(r * ldc);
                if first {
                    _mm256_storeu_ps(out, row[0]);
                    _mm256_storeu_ps(out.add(8), row[1]);
                } else {
                    _mm256_storeu_ps(out, _mm256_add_ps(_mm256_loadu_ps(out), row[0]));
                    let hi = out.add(8);
                    _mm256_storeu_ps(hi, _mm256_add_ps(_mm256_loadu_ps(hi), row[1]));
                }
            }
        }
    }

    /// AVX2 int8, `6 x 16`: each slot two K values widened to i16, so that
    /// one `vpmaddwd` multiplies a broadcast pair of A by 8 columns' pairs of
    /// B and sums each column's two products exactly in s32 (int8 values
    /// cannot reach its one overflow, -32768 twice); the sums accumulate
    /// (wrapping) in s32, C holding them in its f32 values' bits.
    ///
    /// # Safety
    /// As `Ukr`; the host has AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn ukr_avx2_int8(
        k: usize,
        a: *const f32,
        b: *const f32,
        c: *mut f32,
        ldc: usize,
        first: bool,
    ) {
        // SAFETY: the caller's contract; the host has AVX2.
        unsafe { int8_6x16(k, a, b, c, ldc, first, |x, y| _mm256_madd_epi16(x, y)) };
    }

    /// AVX2 u8 x s8, `6 x 16`: each slot four K values as bytes.
    /// `vpmaddubsw` multiplies a broadcast quad of A (unsigned) by 8
    /// columns' quads of B (signed) and sums each two products in s16,
    /// saturating (which [`super::quads_fit`] rules out before this kernel
    /// is chosen); `vpmaddwd` by ones sums a column's two pair sums in s32,
    /// and the sums accumulate (wrapping) in s32, as `ukr_avx2_int8`'s.
    ///
    /// # Safety
    /// As `Ukr`; the host has AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn ukr_avx2_u8s8(
        k: usize,
        a: *const f32,
        b: *const f32,
        c: *mut f32,
        ldc: usize,
        first: bool,
    ) {
        let ones = _mm256_set1_epi16(1);
        let dot = |x, y| _mm256_madd_epi16(_mm256_maddubs_epi16(x, y), ones);
        // SAFETY: the caller's contract; the host has AVX2.
        unsafe { int8_6x16(k, a, b, c, ldc, first, dot) };
    }

    /// The AVX2 int8 kernels' `6 x 16` loop over `k` slots: `dot(x, y)`
    /// sums, per column, the products of a broadcast slot of A `x` with 8
    /// columns' slots of B `y` in s32; the sums accumulate (wrapping) in
    /// s32, C holding them in its f32 values' bits.
    ///
    /// # Safety
    /// As `Ukr`; the host has AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn int8_6x16(
        k: usize,
        a: *const f32,
        b: *const f32,
        c: *mut f32,
        ldc: usize,
        first: bool,
        dot: impl Fn(__m256i, __m256i) -> __m256i,
    ) {
        const MR: usize = 6;
        let mut acc = [[_mm256_setzero_si256(); 2]; MR];
        let (a, b) = (a as *const i32, b as *const __m256i);
        for kk in 0..k {
            // SAFETY: a holds k * 6 slots, b k * 16 (the caller's contract);
            // a prefetch past the panel's end is harmless.
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(b.wrapping_add((kk + 8) * 2).cast());
                let b0 = _mm256_loadu_si256(b.add(kk * 2));
                let b1 = _mm256_loadu_si256(b.add(kk * 2 + 1));
                for (r, row) in acc.iter_mut().enumerate() {
                    let x = _mm256_set1_epi32(a.add(kk * MR + r).read());
                    row[0] = _mm256_add_epi32(row[0], dot(x, b0));
                    row[1] = _mm256_add_epi32(row[1], dot(x, b1));
                }
            }
        }
        // SAFETY: the caller's contract (C's rows).
        unsafe { store_s32(&acc, c, ldc, first) };
    }

    /// Writes (`first`) or adds a `6 x 16` block of s32 sums to C's rows,
    /// C holding them in its f32 values' bits.
    ///
    /// # Safety
    /// `c` has 6 rows of `ldc >= 16` values; the host has AVX2.
    #[target_feature(enable = "avx2")]
    unsafe fn store_s32(acc: &[[__m256i; 2]; 6], c: *mut f32, ldc: usize, first: bool) {
        for (r, row) in acc.iter().enumerate() {
            // SAFETY: row r of C holds ldc >= 16 values.
            unsafe {
                let out = c.add(r * ldc) as *mut __m256i;
                if first {
                    _mm256_storeu_si256(out, row[0]);
                    _mm256_storeu_si256(out.add(1), row[1]);
                } else {
                    let sum = _mm256_add_epi32(_mm256_loadu_si256(out), row[0]);
                    _mm256_storeu_si256(out, sum);
                    let hi = out.add(1);
                    _mm256_storeu_si256(hi, _mm256_add_epi32(_mm256_loadu_si256(hi), row[1]));
                }
            }
        }
    }
}

/// `dt::load_run`, with f16 converted by F16C where `s` allows it (the
/// AVX2 and AVX-512 paths; every host with AVX2 has F16C, checked anyway).
fn load_line(s: &Shape, elem: Elem, bytes: &[u8], first: usize, out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if s.f16c && elem == Elem::F16 && std::arch::is_x86_feature_detected!("f16c") {
        let src = &bytes[first * 2..(first + out.len()) * 2];
        // SAFETY: the host has F16C (checked just above).
        unsafe { x86::f16_run(src, out) };
        return;
    }
    let _ = s;
    dt::load_run(elem, bytes, first, out);
}

/// f32 values from their bytes (`src` holds `4 * out.len()`): the packing
/// fast path for f32 operands, inlined where `dt::load_run`'s call and type
/// dispatch would cost more than the copy on short runs.
#[inline]
fn f32_run(src: &[u8], out: &mut [f32]) {
    for (o, v) in out.iter_mut().zip(src.chunks_exact(4)) {
        *o = f32::from_ne_bytes([v[0], v[1], v[2], v[3]]);
    }
}

/// Two bf16 as one packed slot: `lo` in the low half (the even K).
fn pair(lo: u32, hi: u32) -> f32 {
    f32::from_bits(lo | hi << 16)
}

/// The packed slot of K values `k0..k0 + group` (zeros past K), value `kk`
/// being element `index(kk)` of `bytes`, of type `elem`: `group` values of
/// `32 / group` bits each (two bf16, four int8, or two int8 widened to
/// i16), the lowest K in the low bits.
fn slot(
    bytes: &[u8],
    elem: Elem,
    group: usize,
    k: usize,
    k0: usize,
    index: impl Fn(usize) -> i64,
) -> f32 {
    let bits = 32 / group;
    let mut word = 0u32;
    for i in 0..group.min(k.saturating_sub(k0)) {
        let at = index(k0 + i) as usize * elem.size();
        let v = match elem.size() {
            2 => u16::from_ne_bytes([bytes[at], bytes[at + 1]]) as u32,
            _ => widen(elem, bytes[at], bits),
        };
        word |= v << (i * bits);
    }
    f32::from_bits(word)
}

/// An int8 value's bits in a field of `bits` (16: sign- or zero-extended
/// as its type says; 8: as it is).
#[inline(always)]
fn widen(elem: Elem, byte: u8, bits: usize) -> u32 {
    if bits == 16 && elem == Elem::S8 {
        byte as i8 as i16 as u16 as u32
    } else {
        byte as u32
    }
}

/// Packs columns `n0..n0 + cols` of `b` (first element `first`) into one
/// panel `out` of `rows x nr` (`rows` = K, or its groups), zero-padded.
fn pack_b(s: &Shape, b: &Mat, first: i64, k: usize, n0: usize, cols: usize, out: &mut [f32]) {
    let nr = s.nr;
    let at = |kk: usize, c: usize| first + kk as i64 * b.rs + (n0 + c) as i64 * b.cs;
    let g = s.group;
    if g == 2 && b.cs == 1 && b.elem.size() == 1 {
        // Row-major int8 widened to i16: as bf16 below, a byte at a time.
        let run = |kk: usize| &b.bytes[at(kk, 0) as usize..][..cols];
        for (kp, row) in out.chunks_exact_mut(nr).enumerate() {
            let k0 = 2 * kp;
            let lo = if k0 < k { Some(run(k0)) } else { None };
            let hi = if k0 + 1 < k { Some(run(k0 + 1)) } else { None };
            match (lo, hi) {
                (Some(lo), Some(hi)) => {
                    for (o, (&l, &h)) in row.iter_mut().zip(lo.iter().zip(hi)) {
                        *o = f32::from_bits(widen(b.elem, l, 16) | widen(b.elem, h, 16) << 16);
                    }
                }
                (Some(lo), None) => {
                    for (o, &l) in row.iter_mut().zip(lo) {
                        *o = f32::from_bits(widen(b.elem, l, 16));
                    }
                }
                _ => row[..cols].fill(0.0),
            }
            row[cols..].fill(0.0);
        }
        return;
    }
    if g == 2 && b.cs == 1 {
        // Row-major: packed row kp interleaves the runs of rows 2 kp and
        // 2 kp + 1 (zeros past K and past the columns).
        let run = |kk: usize| {
            let at = at(kk, 0) as usize * 2;
            &b.bytes[at..at + cols * 2]
        };
        for (kp, row) in out.chunks_exact_mut(nr).enumerate() {
            let k0 = 2 * kp;
            if k0 >= k {
                row.fill(0.0);
                continue;
            }
            let half = |v: &[u8]| u16::from_ne_bytes([v[0], v[1]]) as u32;
            let lo = run(k0).chunks_exact(2);
            if k0 + 1 < k {
                for (o, (l, h)) in row.iter_mut().zip(lo.zip(run(k0 + 1).chunks_exact(2))) {
                    *o = pair(half(l), half(h));
                }
            } else {
                for (o, l) in row.iter_mut().zip(lo) {
                    *o = pair(half(l), 0);
                }
            }
            row[cols..].fill(0.0);
        }
        return;
    }
    if g == 4 && b.cs == 1 {
        // Row-major int8: packed row kq takes byte c of rows 4 kq .. 4 kq + 3
        // (the K tail's quads one value at a time).
        let run = |kk: usize| &b.bytes[at(kk, 0) as usize..][..cols];
        for (kq, row) in out.chunks_exact_mut(nr).enumerate() {
            let k0 = 4 * kq;
            if k0 + 3 < k {
                let (r0, r1, r2, r3) = (run(k0), run(k0 + 1), run(k0 + 2), run(k0 + 3));
                for (c, o) in row[..cols].iter_mut().enumerate() {
                    *o = f32::from_bits(u32::from_le_bytes([r0[c], r1[c], r2[c], r3[c]]));
                }
            } else {
                for (c, o) in row[..cols].iter_mut().enumerate() {
                    *o = slot(b.bytes, b.elem, 4, k, k0, |kk| at(kk, c));
                }
            }
            row[cols..].fill(0.0);
        }
        return;
    }
    if g > 1 {
        for (kp, row) in out.chunks_exact_mut(nr).enumerate() {
            for (c, o) in row.iter_mut().enumerate() {
                *o = if c < cols {
                    slot(b.bytes, b.elem, g, k, g * kp, |kk| at(kk, c))
                } else {
                    0.0
                };
            }
        }
        return;
    }
    if b.cs == 1 && b.elem == Elem::F32 {
        // Row-major f32: each packed row is `cols` consecutive values.
        for (kk, row) in out.chunks_exact_mut(nr).enumerate() {
            let at = at(kk, 0) as usize * 4;
            f32_run(&b.bytes[at..at + cols * 4], &mut row[..cols]);
            row[cols..].fill(0.0);
        }
    } else if b.cs == 1 || cols == 1 {
        for (kk, row) in out.chunks_exact_mut(nr).enumerate() {
            if cols == 1 {
                row[0] = dt::load(b.elem, b.bytes, at(kk, 0) as usize);
            } else {
                load_line(s, b.elem, b.bytes, at(kk, 0) as usize, &mut row[..cols]);
            }
            row[cols..].fill(0.0);
        }
    } else if b.rs == 1 {
        let mut column = vec![0f32; k];
        for c in 0..cols {
            load_line(s, b.elem, b.bytes, at(0, c) as usize, &mut column);
            for (row, &v) in out.chunks_exact_mut(nr).zip(&column) {
                row[c] = v;
            }
        }
        for row in out.chunks_exact_mut(nr) {
            row[cols..].fill(0.0);
        }
    } else {
        for (kk, row) in out.chunks_exact_mut(nr).enumerate() {
            for (c, o) in row.iter_mut().enumerate() {
                *o = if c < cols {
                    dt::load(b.elem, b.bytes, at(kk, c) as usize)
                } else {
                    0.0
                };
            }
        }
    }
}

/// Packs rows `m0..m0 + rows` of `a` (first element `first`), packed rows
/// `p..p + kc` (K values, or K pairs), into panels of `mr` rows: panel `i`
/// is `out[i * mr * kc..]`, `[kc][mr]`, zero-padded past `rows`.
#[allow(clippy::too_many_arguments)]
fn pack_a(
    s: &Shape,
    a: &Mat,
    first: i64,
    k: usize,
    m0: usize,
    rows: usize,
    p: usize,
    kc: usize,
    line: &mut Vec<f32>,
    out: &mut [f32],
) {
    let mr = s.mr;
    let at = |r: usize, kk: usize| first + (m0 + r) as i64 * a.rs + kk as i64 * a.cs;
    let g = s.group;
    // The slot of row r's K group at k0 (zeros past K).
    let slot_at = |r: usize, k0: usize| slot(a.bytes, a.elem, g, k, k0, |kk| at(r, kk));
    // Row `row`'s slots `p..p + kc` (`slots` holds kc); where A's rows are
    // contiguous and not widened, the groups wholly within K are its bytes,
    // four at a time.
    let row_slots = |row: usize, slots: &mut [f32]| {
        let whole = if a.cs == 1 && a.elem.size() * g == 4 {
            (k / g).saturating_sub(p).min(kc)
        } else {
            0
        };
        if whole > 0 {
            let at = at(row, g * p) as usize * a.elem.size();
            let src = &a.bytes[at..at + whole * 4];
            for (o, w) in slots.iter_mut().zip(src.chunks_exact(4)) {
                *o = f32::from_bits(u32::from_ne_bytes([w[0], w[1], w[2], w[3]]));
            }
        }
        for (j, o) in slots.iter_mut().enumerate().skip(whole) {
            *o = slot_at(row, g * (p + j));
        }
    };
    for (i, panel) in out.chunks_exact_mut(mr * kc).enumerate() {
        let r0 = i * mr;
        let rn = mr.min(rows - r0);
        if s.a_tiles {
            // Each row as `row_slots` gives it into `line`, then its runs of
            // 16 slots to their tiles.
            line.resize(kc, 0.0);
            for r in 0..mr {
                if r < rn {
                    row_slots(r0 + r, line);
                } else {
                    line.fill(0.0);
                }
                for (t, run) in line.chunks_exact(16).enumerate() {
                    panel[(t * mr + r) * 16..][..16].copy_from_slice(run);
                }
            }
        } else if g == 2 && a.cs == 1 {
            // Pairs of K along a row-major row: int8 widened to i16 from two
            // consecutive bytes, bf16 as one 32-bit read; the K tail (an odd
            // last value, zeros past K) through `slot_at`.
            let esize = a.elem.size();
            let whole = (k / 2).saturating_sub(p).min(kc);
            let pair_at = |src: &[u8], j: usize| match esize {
                1 => {
                    let (l, h) = (src[2 * j], src[2 * j + 1]);
                    f32::from_bits(widen(a.elem, l, 16) | widen(a.elem, h, 16) << 16)
                }
                _ => {
                    let w = &src[4 * j..4 * j + 4];
                    f32::from_bits(u32::from_ne_bytes([w[0], w[1], w[2], w[3]]))
                }
            };
            for r in 0..mr {
                let src = (r < rn).then(|| match whole {
                    0 => &[][..],
                    _ => &a.bytes[at(r0 + r, 2 * p) as usize * esize..][..2 * whole * esize],
                });
                for (j, slots) in panel.chunks_exact_mut(mr).enumerate() {
                    slots[r] = match src {
                        Some(src) if j < whole => pair_at(src, j),
                        Some(_) => slot_at(r0 + r, 2 * (p + j)),
                        None => 0.0,
                    };
                }
            }
        } else if g > 1 {
            // Each row as `row_slots` gives it (row-major int8 four bytes at
            // a time), spread over the panel's slots.
            line.resize(kc, 0.0);
            for r in 0..mr {
                if r < rn {
                    row_slots(r0 + r, line);
                } else {
                    line.fill(0.0);
                }
                for (slots, &v) in panel.chunks_exact_mut(mr).zip(line.iter()) {
                    slots[r] = v;
                }
            }
        } else if a.cs == 1 && kc > 1 && a.elem == Elem::F32 {
            // Row-major f32: row r's kc values straight from the bytes.
            let mut rows: [Option<&[u8]>; MAX_MR] = [None; MAX_MR];
            for (r, row) in rows.iter_mut().enumerate().take(rn) {
                let at = at(r0 + r, p) as usize * 4;
                *row = Some(&a.bytes[at..at + kc * 4]);
            }
            pack_rows_f32(&rows[..mr], kc, panel);
        } else if a.rs == 1 && rn > 1 && a.elem == Elem::F32 {
            // Column-major f32 (A transposed): each packed row is `rn`
            // consecutive values.
            for (kk, slots) in panel.chunks_exact_mut(mr).enumerate() {
                let at = at(r0, p + kk) as usize * 4;
                f32_run(&a.bytes[at..at + rn * 4], &mut slots[..rn]);
                slots[rn..].fill(0.0);
            }
        } else if a.cs == 1 && kc > 1 {
            line.resize(kc, 0.0);
            for r in 0..mr {
                if r < rn {
                    load_line(s, a.elem, a.bytes, at(r0 + r, p) as usize, line);
                    for (slots, &v) in panel.chunks_exact_mut(mr).zip(line.iter()) {
                        slots[r] = v;
                    }
                } else {
                    for slots in panel.chunks_exact_mut(mr) {
                        slots[r] = 0.0;
                    }
                }
            }
        } else if a.rs == 1 && rn > 1 {
            for (kk, slots) in panel.chunks_exact_mut(mr).enumerate() {
                load_line(
                    s,
                    a.elem,
                    a.bytes,
                    at(r0, p + kk) as usize,
                    &mut slots[..rn],
                );
                slots[rn..].fill(0.0);
            }
        } else {
            for (kk, slots) in panel.chunks_exact_mut(mr).enumerate() {
                for (r, o) in slots.iter_mut().enumerate() {
                    *o = if r < rn {
                        dt::load(a.elem, a.bytes, at(r0 + r, p + kk) as usize)
                    } else {
                        0.0
                    };
                }
            }
        }
    }
}

/// The tiles a worker claims, one at a time, from a counter the workers
/// share.
struct Claims<'a> {
    next: &'a AtomicUsize,
    tiles: usize,
}

impl Iterator for Claims<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        let t = self.next.fetch_add(1, Ordering::Relaxed);
        (t < self.tiles).then_some(t)
    }
}

thread_local! {
    /// Each thread's A panels, accumulator and conversion line, kept between
    /// calls (a fresh large allocation per call is paid in page faults).
    static SCRATCH: RefCell<(Vec<f32>, Vec<f32>, Vec<f32>)> =
        const { RefCell::new((Vec::new(), Vec::new(), Vec::new())) };
}

/// The packed-B buffer, kept between calls (up to this many values, 64 MiB).
static PACKED_B: Mutex<Vec<f32>> = Mutex::new(Vec::new());
const PACKED_B_KEEP: usize = 1 << 24;

/// About this many multiply-adds per thread at least.
const MIN_WORK: usize = 1 << 20;

/// The most rows of any kernel's block (AMX's 32).
const MAX_MR: usize = 32;

/// One packed A panel from row-major f32 rows (`None`: a padding row of
/// zeros), each `kc` values: `panel[kk * mr + r]` is row r's value kk (mr
/// = `rows.len()`). Four rows by four depths go at a time through a 4 x 4
/// transpose in SSE registers (x86-64), the rest one value at a time.
fn pack_rows_f32(rows: &[Option<&[u8]>], kc: usize, panel: &mut [f32]) {
    let mr = rows.len();
    let value = |src: Option<&[u8]>, kk: usize| {
        src.map_or(0.0, |s| {
            f32::from_ne_bytes([s[4 * kk], s[4 * kk + 1], s[4 * kk + 2], s[4 * kk + 3]])
        })
    };
    #[cfg(not(target_arch = "x86_64"))]
    let (done_rows, done_depth) = (0, 0);
    #[cfg(target_arch = "x86_64")]
    let (done_rows, done_depth) = {
        use std::arch::x86_64::*;
        let (done_rows, done_depth) = (mr / 4 * 4, kc / 4 * 4);
        let zero = [0u8; 16];
        for g in (0..done_rows).step_by(4) {
            for kk in (0..done_depth).step_by(4) {
                let v: [__m128; 4] = std::array::from_fn(|i| {
                    let src = rows[g + i].map_or(&zero[..], |s| &s[4 * kk..4 * kk + 16]);
                    // SAFETY: src holds 16 bytes (the slice above); SSE is
                    // part of x86-64.
                    unsafe { _mm_loadu_ps(src.as_ptr().cast()) }
                });
                // SAFETY: SSE is part of x86-64.
                let t = unsafe {
                    let lo01 = _mm_unpacklo_ps(v[0], v[1]);
                    let hi01 = _mm_unpackhi_ps(v[0], v[1]);
                    let lo23 = _mm_unpacklo_ps(v[2], v[3]);
                    let hi23 = _mm_unpackhi_ps(v[2], v[3]);
                    [
                        _mm_movelh_ps(lo01, lo23),
                        _mm_movehl_ps(lo23, lo01),
                        _mm_movelh_ps(hi01, hi23),
                        _mm_movehl_ps(hi23, hi01),
                    ]
                };
                for (j, t) in t.iter().enumerate() {
                    let out = &mut panel[(kk + j) * mr + g..][..4];
                    // SAFETY: out holds 4 values (the slice above).
                    unsafe { _mm_storeu_ps(out.as_mut_ptr(), *t) };
                }
            }
        }
        (done_rows, done_depth)
    };
    for (kk, slots) in panel.chunks_exact_mut(mr).enumerate().take(kc) {
        let rows_from = if kk < done_depth { done_rows } else { 0 };
        for (r, slot) in slots.iter_mut().enumerate().skip(rows_from) {
            *slot = value(rows[r], kk);
        }
    }
}

/// Whether [`Path::Avx2Quads`] sums `p` exactly: A u8 and B s8, and for
/// A's largest value `a` and every two consecutive K of B that a slot
/// pairs (rows `2 i` and `2 i + 1`, the slots starting at K 0) and every
/// column, `a` times the larger of the pair's positive part and its
/// negative part fits s16 (so that no `vpmaddubsw` sum saturates). A of at
/// most 127 always fits (127 · 256 < 2^15); otherwise B is read too, where
/// A has at least [`QUADS_SCAN_ROWS`] rows (with fewer, reading B costs
/// more than the faster kernel saves, and the answer is no).
pub(crate) fn quads_fit(p: &Problem) -> bool {
    if p.a.elem != Elem::U8 || p.b.elem != Elem::S8 {
        return false;
    }
    // Each distinct first element of A (or B) over the batches.
    let firsts = |pick: fn((i64, i64)) -> i64| {
        let mut v: Vec<i64> = (0..p.batches).map(|i| pick((p.first)(i))).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let a_max = firsts(|f| f.0)
        .into_iter()
        .map(|f| largest_byte(&p.a, f, p.m, p.k))
        .max()
        .unwrap_or(0) as u32;
    if a_max * 256 <= i16::MAX as u32 {
        return true;
    }
    if p.m < QUADS_SCAN_ROWS {
        return false;
    }
    let reach = firsts(|f| f.1)
        .into_iter()
        .map(|f| pair_reach(&p.b, f, p.k, p.n))
        .max()
        .unwrap_or(0);
    a_max * reach <= i16::MAX as u32
}

/// The fewest rows of A for which [`quads_fit`] reads B: the check reads
/// each byte of B once, which the faster kernel repays only over enough
/// rows (each byte of B takes part in `m` products).
const QUADS_SCAN_ROWS: usize = 64;

/// The largest of the `rows x cols` u8 values of `a` from element `first`.
fn largest_byte(a: &Mat, first: i64, rows: usize, cols: usize) -> u8 {
    if rows == 0 || cols == 0 {
        return 0;
    }
    let at = |r: usize, c: usize| (first + r as i64 * a.rs + c as i64 * a.cs) as usize;
    let mut most = 0u8;
    // Along whichever dimension is contiguous, a run at a time.
    let (outer, inner, run) = match (a.cs, a.rs) {
        (1, _) => (rows, cols, true),
        (_, 1) => (cols, rows, true),
        _ => (rows, cols, false),
    };
    for o in 0..outer {
        if run {
            let start = if a.cs == 1 { at(o, 0) } else { at(0, o) };
            most = most.max(a.bytes[start..][..inner].iter().copied().max().unwrap_or(0));
        } else {
            most = (0..inner).fold(most, |m, c| m.max(a.bytes[at(o, c)]));
        }
        if most == u8::MAX {
            break;
        }
    }
    most
}

/// The largest, over the pairs of rows `2 i`, `2 i + 1` of the `k x n` s8
/// matrix `b` (the second zero past `k`) and its columns, of the pair's
/// positive sum `max(b0, 0) + max(b1, 0)` and negative sum `max(-b0, 0) +
/// max(-b1, 0)`.
fn pair_reach(b: &Mat, first: i64, k: usize, n: usize) -> u32 {
    let at = |kk: usize, c: usize| (first + kk as i64 * b.rs + c as i64 * b.cs) as usize;
    let value = |kk: usize, c: usize| match kk < k {
        true => b.bytes[at(kk, c)] as i8 as i32,
        false => 0,
    };
    let reach = |x: i32, y: i32| (x.max(0) + y.max(0)).max((-x).max(0) + (-y).max(0)) as u32;
    let mut most = 0;
    for i in 0..k.div_ceil(2) {
        let (k0, k1) = (2 * i, 2 * i + 1);
        if b.cs == 1 && k1 < k && n > 0 {
            let (r0, r1) = (&b.bytes[at(k0, 0)..][..n], &b.bytes[at(k1, 0)..][..n]);
            let row = r0
                .iter()
                .zip(r1)
                .map(|(&x, &y)| reach(x as i8 as i32, y as i8 as i32));
            most = most.max(row.max().unwrap_or(0));
        } else {
            most = (0..n).fold(most, |m, c| m.max(reach(value(k0, c), value(k1, c))));
        }
    }
    most
}

/// Computes every batch's product of `p` on `path` and hands each finished
/// tile to `tile` (on the thread that computed it; every output element is
/// in exactly one tile).
pub(crate) fn run(path: Path, p: &Problem, tile: &(dyn Fn(&Tile, &mut [f32]) + Sync)) {
    run_packed(path, p, None, 1, tile);
}

/// [`run`], with A from `packer` where one is given (`p.a` is then not
/// read; the bf16 and int8 kernels give way to the f32 one of their ISA), and
/// the depth cut into `parts` ranges (multiples of the cache block, the
/// last ones possibly empty): each output element then comes in `parts`
/// tiles, one per part ([`Tile::part`]), holding that range's partial
/// sums, which the caller adds up. `parts` gives deep, narrow products
/// (a convolution's weights gradient) work for every thread.
pub(crate) fn run_packed(
    path: Path,
    p: &Problem,
    packer: Option<&dyn PackA>,
    parts: usize,
    tile: &(dyn Fn(&Tile, &mut [f32]) + Sync),
) {
    let path = match packer {
        Some(_) if path.bf16_only() => Path::Avx512,
        Some(_) if path.int8_only() => Path::current(Elem::F32, Elem::F32),
        _ => path,
    };
    let mut s = path.shape();
    if let (Some(_), Some((kc, mc))) = (packer, s.rows_blocks) {
        (s.kc, s.mc) = (kc, mc);
    }
    let (m, n, k) = (p.m, p.n, p.k);
    let parts = parts.max(1);
    if m == 0 || n == 0 || p.batches == 0 {
        return;
    }
    // Packed rows per panel: K, or its groups (padded to the kernel's step).
    let kp = k.div_ceil(s.group).next_multiple_of(s.k_step);
    let panels = n.div_ceil(s.nr);
    let panel_len = kp * s.nr;
    // Packed rows per part (a multiple of kc).
    let part_len = kp.div_ceil(parts).next_multiple_of(s.kc).max(s.kc);

    // The distinct Bs of the batches (one when B broadcasts).
    let mut b_slot = Vec::with_capacity(p.batches);
    let mut b_firsts: Vec<i64> = Vec::new();
    let mut seen: HashMap<i64, usize> = HashMap::new();
    for i in 0..p.batches {
        let f = (p.first)(i).1;
        let slot = *seen.entry(f).or_insert_with(|| {
            b_firsts.push(f);
            b_firsts.len() - 1
        });
        b_slot.push(slot);
    }

    // Pack B on all threads.
    let total = b_firsts.len() * panels * panel_len;
    let mut kept = PACKED_B.try_lock().ok();
    let mut own = Vec::new();
    let packed = kept.as_deref_mut().unwrap_or(&mut own);
    if packed.len() < total {
        packed.resize(total, 0.0);
    }
    {
        let jobs = b_firsts.len() * panels;
        let min_jobs = (MIN_WORK / 4 / panel_len.max(1)).max(1);
        let mut rest = &mut packed[..total];
        let mut items = Vec::new();
        for range in parallel::split(jobs, min_jobs) {
            let (head, tail) = rest.split_at_mut(range.len() * panel_len);
            rest = tail;
            items.push((range, head));
        }
        run_pooled(items, |(range, out)| {
            for (job, panel) in range.zip(out.chunks_exact_mut(panel_len.max(1))) {
                let (slot, j) = (job / panels, job % panels);
                let n0 = j * s.nr;
                pack_b(&s, &p.b, b_firsts[slot], k, n0, s.nr.min(n - n0), panel);
            }
        });
    }
    let packed = &packed[..total];

    // Tiles: enough for the threads the work deserves.
    let work = p.batches * m * n * k.max(1);
    let threads = (work / MIN_WORK).clamp(1, parallel::max_threads());
    let mut mc = s.mc.min(m.next_multiple_of(s.mr));
    let mut nc = s.nc.min(n.next_multiple_of(s.nr));
    let count = |mc: usize, nc: usize| p.batches * parts * m.div_ceil(mc) * n.div_ceil(nc);
    while count(mc, nc) < 2 * threads {
        if nc >= 4 * s.nr {
            nc = (nc / 2).next_multiple_of(s.nr);
        } else if mc >= 2 * s.mr {
            mc = (mc / 2).next_multiple_of(s.mr);
        } else {
            break;
        }
    }
    let (mblocks, nblocks) = (m.div_ceil(mc), n.div_ceil(nc));
    let tiles = count(mc, nc);
    // Each worker claims the next tile as it finishes one, so a worker that
    // the system slows down takes fewer tiles (consecutive tiles share B).
    let next = AtomicUsize::new(0);
    let ranges: Vec<Claims> = (0..threads.min(tiles))
        .map(|_| Claims { next: &next, tiles })
        .collect();
    run_pooled(ranges, |range| {
        let (mut a_panels, mut acc, mut line) =
            SCRATCH.with(|cell| std::mem::take(&mut *cell.borrow_mut()));
        #[cfg(target_arch = "x86_64")]
        if s.tile_config {
            // SAFETY: the path is AMX, taken only where `amx::usable` (bf16)
            // or `amx::usable_int8` said so.
            unsafe { amx::configure() };
        }
        for t in range {
            let mb = t % mblocks;
            let nb = t / mblocks % nblocks;
            let part = t / (mblocks * nblocks) % parts;
            let batch = t / (mblocks * nblocks * parts);
            let (m0, n0) = (mb * mc, nb * nc);
            let rows = mc.min(m - m0);
            let cols = nc.min(n - n0);
            let (rp, cp) = (rows.next_multiple_of(s.mr), cols.next_multiple_of(s.nr));
            let ld = cp;
            if acc.len() < rp * ld {
                acc.resize(rp * ld, 0.0);
            }
            let a_first = (p.first)(batch).0;
            let b_panels = &packed[(b_slot[batch] * panels + n0 / s.nr) * panel_len..];
            let (k_lo, k_hi) = ((part * part_len).min(kp), ((part + 1) * part_len).min(kp));
            if k_hi == k_lo {
                acc[..rp * ld].fill(0.0);
            }
            for p0 in (k_lo..k_hi).step_by(s.kc) {
                let kc = s.kc.min(k_hi - p0);
                if a_panels.len() < rp * kc {
                    a_panels.resize(rp * kc, 0.0);
                }
                let a_block = &mut a_panels[..rp * kc];
                let first = p0 == k_lo;
                if let Some(packer) = packer {
                    // Row-major rows; the padding rows are zeros.
                    packer.pack(batch, m0, rows, p0, kc, &mut a_block[..rows * kc]);
                    a_block[rows * kc..].fill(0.0);
                    for j in 0..cp / s.nr {
                        let b = &b_panels[j * panel_len + p0 * s.nr..][..kc * s.nr];
                        for (i, a) in a_block.chunks_exact(s.mr * kc).enumerate() {
                            let c = &mut acc[i * s.mr * ld + j * s.nr..][..(s.mr - 1) * ld + s.nr];
                            // SAFETY: a holds mr rows of kc values, b kc * nr,
                            // c mr rows of ld >= nr values (the slices above);
                            // the path's features were checked by
                            // `Path::for_level`.
                            unsafe {
                                (s.rows_ukr)(
                                    kc,
                                    a.as_ptr(),
                                    kc,
                                    b.as_ptr(),
                                    c.as_mut_ptr(),
                                    ld,
                                    first,
                                )
                            };
                        }
                    }
                    continue;
                }
                pack_a(&s, &p.a, a_first, k, m0, rows, p0, kc, &mut line, a_block);
                for j in 0..cp / s.nr {
                    let b = &b_panels[j * panel_len + p0 * s.nr..][..kc * s.nr];
                    for (i, a) in a_block.chunks_exact(s.mr * kc).enumerate() {
                        let c = &mut acc[i * s.mr * ld + j * s.nr..][..(s.mr - 1) * ld + s.nr];
                        // SAFETY: a holds kc * mr values, b kc * nr, c mr
                        // rows of ld >= nr values (the slices above); the
                        // path's features were checked by `Path::for_level`.
                        unsafe { (s.ukr)(kc, a.as_ptr(), b.as_ptr(), c.as_mut_ptr(), ld, first) };
                    }
                }
            }
            let t = Tile {
                batch,
                part,
                m0,
                n0,
                rows,
                cols,
                ld,
            };
            tile(&t, &mut acc[..rp * ld]);
        }
        #[cfg(target_arch = "x86_64")]
        if s.tile_config {
            // SAFETY: as for `configure` above.
            unsafe { amx::release() };
        }
        SCRATCH.with(|cell| *cell.borrow_mut() = (a_panels, acc, line));
    });
    if let Some(kept) = kept.as_deref_mut()
        && kept.len() > PACKED_B_KEEP
    {
        *kept = Vec::new();
    }
}

#[cfg(target_arch = "x86_64")]
mod amx;
#[cfg(test)]
mod tests;
