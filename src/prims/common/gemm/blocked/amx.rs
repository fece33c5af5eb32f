//! The AMX path of `gemm::blocked`: bf16 A and B multiplied on the tile
//! unit (`tdpbf16ps`), f32 accumulation, for hosts with AMX-TILE and
//! AMX-BF16 whose kernel lets the process use the tile state.
//!
//! Layer: prims. The tile instructions are not in stable `std::arch`, so the
//! kernel is inline assembly. Linux hands out the tile data state only on
//! request: [`usable`] asks once per process
//! (`arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)`), and a refusal
//! (an older kernel, a seccomp filter) leaves the path unused.
//!
//! Operands as [`ukr_amx`] reads them: A packed row-major, `[32][k]` slots,
//! B `[k][32]` slots, each slot two bf16 of consecutive K (the even one in
//! the low half, as the AVX512-BF16 path packs them), `k` a multiple of 16
//! (zero-padded): so a tile of A is 16 rows of 16 slots (64 bytes) at a row
//! stride of `4 k` bytes, and a tile of B 16 rows of 16 columns' slots at a
//! stride of 128 bytes, the layout `tdpbf16ps` multiplies.

use std::arch::asm;
use std::sync::OnceLock;

/// The K slots (pairs of K) one tile of A or B spans: a multiple of this is
/// what [`ukr_amx`] takes.
pub(super) const K_STEP: usize = 16;

/// Whether this process may run [`ukr_amx`]: the CPU has AMX-TILE and
/// AMX-BF16 (CPUID leaf 7, EDX bits 24 and 22) and Linux granted the tile
/// data state (asked once).
pub(super) fn usable() -> bool {
    static USABLE: OnceLock<bool> = OnceLock::new();
    *USABLE.get_or_init(|| {
        let edx = std::arch::x86_64::__cpuid_count(7, 0).edx;
        let tile_bf16 = 1 << 24 | 1 << 22;
        edx & tile_bf16 == tile_bf16 && request_tile_state()
    })
}

/// Asks Linux for the AMX tile data state (`XFEATURE_XTILEDATA`, 18) for the
/// whole process; true when granted.
#[cfg(target_os = "linux")]
fn request_tile_state() -> bool {
    use std::ffi::c_long;
    unsafe extern "C" {
        fn syscall(number: c_long, ...) -> c_long;
    }
    const SYS_ARCH_PRCTL: c_long = 158;
    const ARCH_REQ_XCOMP_PERM: c_long = 0x1023;
    const XFEATURE_XTILEDATA: c_long = 18;
    // SAFETY: arch_prctl with an integer request and argument; it touches no
    // memory of ours.
    unsafe { syscall(SYS_ARCH_PRCTL, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0 }
}

#[cfg(not(target_os = "linux"))]
fn request_tile_state() -> bool {
    false
}

/// The tile configuration `ldtilecfg` loads: palette 1, each of the eight
/// tiles 16 rows of 64 bytes (C: tmm0..3, A: tmm4..5, B: tmm6..7).
#[repr(C, align(64))]
struct TileConfig {
    palette: u8,
    start_row: u8,
    reserved: [u8; 14],
    bytes_per_row: [u16; 16],
    rows: [u8; 16],
}

static CONFIG: TileConfig = TileConfig {
    palette: 1,
    start_row: 0,
    reserved: [0; 14],
    bytes_per_row: [64, 64, 64, 64, 64, 64, 64, 64, 0, 0, 0, 0, 0, 0, 0, 0],
    rows: [16, 16, 16, 16, 16, 16, 16, 16, 0, 0, 0, 0, 0, 0, 0, 0],
};

/// `32 x 32`: `C (=, or += unless first) A · B` over `k` packed rows (K
/// pairs), A row-major `[32][k]`, B `[k][32]` (the module's layout), C
/// row-major with `ldc`; C is four 16 x 16 tiles, each K step two tiles of
/// A and two of B.
///
/// # Safety
/// `k` is a multiple of [`K_STEP`]; `a` holds `32 * k` slots, `b` `k * 32`,
/// `c` 32 rows of `ldc >= 32` values; [`usable`] returned true.
pub(super) unsafe fn ukr_amx(
    k: usize,
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    ldc: usize,
    first: bool,
) {
    debug_assert!(k.is_multiple_of(K_STEP));
    let c_stride = ldc * 4;
    // SAFETY: the caller's contract: C's four tiles lie within its 32 rows of
    // ldc values; A's and B's tiles within their k slots; the process holds
    // the tile state. The configuration is 64 aligned bytes.
    unsafe {
        let (c0, c1, c2, c3) = (c, c.add(16), c.add(16 * ldc), c.add(16 * ldc + 16));
        asm!("ldtilecfg [{}]", in(reg) &CONFIG, options(nostack, preserves_flags));
        if first {
            asm!(
                "tilezero tmm0",
                "tilezero tmm1",
                "tilezero tmm2",
                "tilezero tmm3",
                options(nomem, nostack, preserves_flags)
            );
        } else {
            asm!(
                "tileloadd tmm0, [{c0} + {s} * 1]",
                "tileloadd tmm1, [{c1} + {s} * 1]",
                "tileloadd tmm2, [{c2} + {s} * 1]",
                "tileloadd tmm3, [{c3} + {s} * 1]",
                c0 = in(reg) c0,
                c1 = in(reg) c1,
                c2 = in(reg) c2,
                c3 = in(reg) c3,
                s = in(reg) c_stride,
                options(nostack, preserves_flags, readonly)
            );
        }
        let a_stride = k * 4;
        let a_low = a.add(16 * k);
        for kk in (0..k).step_by(K_STEP) {
            asm!(
                "tileloadd tmm4, [{a0} + {sa} * 1]",
                "tileloadd tmm5, [{a1} + {sa} * 1]",
                "tileloadd tmm6, [{b0} + {sb} * 1]",
                "tileloadd tmm7, [{b1} + {sb} * 1]",
                "tdpbf16ps tmm0, tmm4, tmm6",
                "tdpbf16ps tmm1, tmm4, tmm7",
                "tdpbf16ps tmm2, tmm5, tmm6",
                "tdpbf16ps tmm3, tmm5, tmm7",
                a0 = in(reg) a.add(kk),
                a1 = in(reg) a_low.add(kk),
                b0 = in(reg) b.add(kk * 32),
                b1 = in(reg) b.add(kk * 32 + 16),
                sa = in(reg) a_stride,
                sb = in(reg) 128usize,
                options(nostack, preserves_flags, readonly)
            );
        }
        asm!(
            "tilestored [{c0} + {s} * 1], tmm0",
            "tilestored [{c1} + {s} * 1], tmm1",
            "tilestored [{c2} + {s} * 1], tmm2",
            "tilestored [{c3} + {s} * 1], tmm3",
            "tilerelease",
            c0 = in(reg) c0,
            c1 = in(reg) c1,
            c2 = in(reg) c2,
            c3 = in(reg) c3,
            s = in(reg) c_stride,
            options(nostack, preserves_flags)
        );
    }
}
