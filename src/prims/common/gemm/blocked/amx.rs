//! The AMX paths of `gemm::blocked`: bf16 A and B multiplied on the tile
//! unit (`tdpbf16ps`) with f32 accumulation, and u8/s8 A and B (`tdpbusd`
//! and its siblings) with exact s32 accumulation, for hosts with AMX-TILE
//! and AMX-BF16 or AMX-INT8 whose kernel lets the process use the tile state.
//!
//! Layer: prims. The tile instructions are not in stable `std::arch`, so the
//! kernel is inline assembly. Linux hands out the tile data state only on
//! request: [`usable`] asks once per process
//! (`arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)`), and a refusal
//! (an older kernel, a seccomp filter) leaves the path unused.
//!
//! Operands as the kernels read them: A packed tile by tile, `[k / 16][32]
//! [16]` slots (each 16 x 16 tile of A 1 KiB in one piece, rows 64 bytes
//! apart), B `[k][32]` slots, each 32-bit slot two bf16 or four int8 of
//! consecutive K (the lowest K in the low bits, as the AVX512-BF16 path
//! packs its pairs), `k` a multiple of 16 (zero-padded): the layouts the
//! tile instructions multiply, a tile of B being 16 rows of 16 columns'
//! slots at a stride of 128 bytes. Each worker
//! configures its tiles once ([`configure`]) and releases them when done
//! ([`release`]); the kernels in between keep the configuration.
//!
use std::arch::asm;
use std::sync::OnceLock;

/// The K slots one tile of A or B spans: a multiple of this is what the
/// kernels take.
pub(super) const K_STEP: usize = 16;

/// Whether this process may run the bf16 kernel ([`ukr_bf16`]): the CPU has
/// AMX-TILE and AMX-BF16 (CPUID leaf 7, EDX bits 24 and 22) and Linux
/// granted the tile data state (asked once).
pub(super) fn usable() -> bool {
    has(1 << 22)
}

/// Whether this process may run the int8 kernels ([`ukr_u8s8`] and its
/// siblings): the CPU has AMX-TILE and AMX-INT8 (EDX bit 25) and Linux
/// granted the tile data state.
pub(super) fn usable_int8() -> bool {
    has(1 << 25)
}

/// Whether the CPU has AMX-TILE and `unit` (CPUID leaf 7, EDX) and this
/// process holds the tile state.
fn has(unit: u32) -> bool {
    static GRANTED: OnceLock<bool> = OnceLock::new();
    let edx = std::arch::x86_64::__cpuid_count(7, 0).edx;
    let wanted = 1 << 24 | unit;
    edx & wanted == wanted && *GRANTED.get_or_init(request_tile_state)
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

/// Loads the tile configuration on this thread: the tiles the kernels
/// use are set up until [`release`].
///
/// # Safety
/// [`usable`] or [`usable_int8`] returned true.
pub(super) unsafe fn configure() {
    // SAFETY: the configuration is 64 aligned bytes; the process holds the
    // tile state (the caller's contract).
    unsafe { asm!("ldtilecfg [{}]", in(reg) &CONFIG, options(nostack, preserves_flags)) };
}

/// Returns this thread's tiles to their initial state (after [`configure`]
/// and the kernels).
///
/// # Safety
/// [`usable`] or [`usable_int8`] returned true.
pub(super) unsafe fn release() {
    // SAFETY: tilerelease touches only the tile state.
    unsafe { asm!("tilerelease", options(nomem, nostack, preserves_flags)) };
}

/// Defines a `32 x 32` tile kernel: `C (=, or += unless first) A · B` over
/// `k` packed rows, A and B in the module's layout, C row-major with `ldc`
/// (f32, or s32 in the slots' bits); C is four 16 x 16 tiles, each K step
/// two tiles of A and two of B multiplied by the instruction `$op`, with the
/// next step's four tiles prefetched into L1 meanwhile.
macro_rules! tile_kernel {
    ($(#[$doc:meta])* $name:ident, $op:literal) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// `k` is a multiple of [`K_STEP`]; `a` holds `32 * k` slots, `b`
        /// `k * 32`, `c` 32 rows of `ldc >= 32` values; this thread's tiles
        /// are configured ([`configure`]) and the CPU has the instruction.
        pub(super) unsafe fn $name(
            k: usize,
            a: *const f32,
            b: *const f32,
            c: *mut f32,
            ldc: usize,
            first: bool,
        ) {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            debug_assert!(k.is_multiple_of(K_STEP));
            let s = ldc * 4;
            // SAFETY: the caller's contract: C's four tiles lie within its 32
            // rows of ldc values; A's and B's tiles within their k slots; this
            // thread's tiles are configured. The prefetches may point past
            // the panels (they never fault), hence the wrapping arithmetic.
            unsafe {
                let (c0, c1, c2, c3) = (c, c.add(16), c.add(16 * ldc), c.add(16 * ldc + 16));
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
                        s = in(reg) s,
                        options(nostack, preserves_flags, readonly)
                    );
                }
                for kk in (0..k).step_by(K_STEP) {
                    // A's two tiles are the 512 slots at 32 kk, one after the
                    // other; B's two interleave in the 512 at 32 kk (rows 128
                    // bytes apart).
                    let (a_step, b_step) = (a.add(kk * 32), b.add(kk * 32));
                    let a_next = a_step.wrapping_add(512) as *const i8;
                    let b_next = b_step.wrapping_add(512) as *const i8;
                    for line in (0..2048).step_by(64) {
                        _mm_prefetch::<_MM_HINT_T0>(a_next.wrapping_add(line));
                        _mm_prefetch::<_MM_HINT_T0>(b_next.wrapping_add(line));
                    }
                    asm!(
                        "tileloadd tmm4, [{a0} + {sa} * 1]",
                        "tileloadd tmm5, [{a1} + {sa} * 1]",
                        "tileloadd tmm6, [{b0} + {sb} * 1]",
                        "tileloadd tmm7, [{b1} + {sb} * 1]",
                        concat!($op, " tmm0, tmm4, tmm6"),
                        concat!($op, " tmm1, tmm4, tmm7"),
                        concat!($op, " tmm2, tmm5, tmm6"),
                        concat!($op, " tmm3, tmm5, tmm7"),
                        a0 = in(reg) a_step,
                        a1 = in(reg) a_step.add(256),
                        b0 = in(reg) b_step,
                        b1 = in(reg) b_step.add(16),
                        sa = in(reg) 64usize,
                        sb = in(reg) 128usize,
                        options(nostack, preserves_flags, readonly)
                    );
                }
                asm!(
                    "tilestored [{c0} + {s} * 1], tmm0",
                    "tilestored [{c1} + {s} * 1], tmm1",
                    "tilestored [{c2} + {s} * 1], tmm2",
                    "tilestored [{c3} + {s} * 1], tmm3",
                    c0 = in(reg) c0,
                    c1 = in(reg) c1,
                    c2 = in(reg) c2,
                    c3 = in(reg) c3,
                    s = in(reg) s,
                    options(nostack, preserves_flags)
                );
            }
        }
    };
}

tile_kernel!(
    /// bf16 x bf16 into f32 (`tdpbf16ps`), slots of two bf16.
    ukr_bf16,
    "tdpbf16ps"
);
tile_kernel!(
    /// u8 A x s8 B into s32 (`tdpbusd`), slots of four bytes.
    ukr_u8s8,
    "tdpbusd"
);
tile_kernel!(
    /// s8 A x s8 B into s32 (`tdpbssd`).
    ukr_s8s8,
    "tdpbssd"
);
tile_kernel!(
    /// u8 A x u8 B into s32 (`tdpbuud`).
    ukr_u8u8,
    "tdpbuud"
);
tile_kernel!(
    /// s8 A x u8 B into s32 (`tdpbsud`).
    ukr_s8u8,
    "tdpbsud"
);
