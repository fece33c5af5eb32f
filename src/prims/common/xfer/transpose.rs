//! Direct tile copies for the CPU reorder's transposing path: a tile of
//! `la x lb` runs of `v` elements goes from the source (runs along `b`
//! contiguous, rows along `a` `ssa` elements apart) straight into the
//! destination (runs along `a` contiguous, rows along `b` `dsb` elements
//! apart), with no intermediate buffer. Values are moved as bits, so this
//! serves any pair of equal element types without scaling.
//!
//! Layer: prims (over `base::isa`). Two paths: 8x8 register transposes of
//! 4-byte and 2-byte elements with AVX2 (`v == 1`; 4-byte ones with
//! streaming stores of whole 64-byte lines on request, for outputs far
//! beyond the caches), and a portable loop for every element size and run
//! length. The `unsafe` is the raw addresses the
//! reorder works on (checked by its caller to lie inside the buffers) and
//! the intrinsics, entered only when the host has AVX2.

use crate::base::isa::Level;

/// One tile: its extents, strides (elements) and run length.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tile {
    /// Rows of the source (runs of the destination).
    pub la: usize,
    /// Rows of the destination (runs of the source).
    pub lb: usize,
    /// Elements between source rows (`a` steps).
    pub ssa: isize,
    /// Elements between destination rows (`b` steps).
    pub dsb: isize,
    /// Elements contiguous on both sides (1: a plain transposition).
    pub v: usize,
}

/// Copies the tile `t` of `size`-byte elements from `src` to `dst`:
/// destination element `(ib, ia, j)` at `dst + (ib·dsb + ia·v + j)·size`
/// takes source element `(ia, ib, j)` at `src + (ia·ssa + ib·v + j)·size`.
///
/// # Safety
/// Every address so formed lies inside a live allocation, the source ones
/// readable and the destination ones writable by this thread alone, and
/// the two sets do not overlap. `size` is 1, 2, 4 or 8. With `stream`,
/// the calling thread holds a `vmath::StreamFence`; destination lines the
/// AVX2 path writes whole then take streaming stores.
pub(super) unsafe fn copy_tile(
    level: Level,
    size: usize,
    src: *const u8,
    dst: *mut u8,
    t: Tile,
    stream: bool,
) {
    #[cfg(target_arch = "x86_64")]
    if size == 4 && t.v == 1 && level >= Level::Avx2 && Level::Avx2.host_has() {
        // SAFETY: the host has AVX2 (checked just above); the addresses as
        // this function's contract.
        unsafe { x86::tile_4b(src as *const u32, dst as *mut u32, t, stream) };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if size == 2 && t.v == 1 && level >= Level::Avx2 && Level::Avx2.host_has() {
        // SAFETY: as above.
        unsafe { x86::tile_2b(src as *const u16, dst as *mut u16, t) };
        return;
    }
    let _ = (level, stream);
    // SAFETY: this function's contract.
    unsafe {
        match size {
            1 => portable::<u8>(src, dst, t),
            2 => portable::<u16>(src as *const u16, dst as *mut u16, t),
            4 => portable::<u32>(src as *const u32, dst as *mut u32, t),
            _ => portable::<u64>(src as *const u64, dst as *mut u64, t),
        }
    }
}

/// The portable path: destination rows in order, each run copied whole.
///
/// # Safety
/// As [`copy_tile`], for elements of `T`.
unsafe fn portable<T: Copy>(src: *const T, dst: *mut T, t: Tile) {
    // SAFETY: the addresses are the tile's (the caller's contract); reads
    // may be unaligned (strided layouts with byte offsets).
    unsafe {
        for ib in 0..t.lb {
            let d = dst.offset(ib as isize * t.dsb);
            let s = src.add(ib * t.v);
            if t.v == 1 {
                for ia in 0..t.la {
                    let x = std::ptr::read_unaligned(s.offset(ia as isize * t.ssa));
                    std::ptr::write_unaligned(d.add(ia), x);
                }
            } else {
                for ia in 0..t.la {
                    std::ptr::copy_nonoverlapping(
                        s.offset(ia as isize * t.ssa) as *const u8,
                        d.add(ia * t.v) as *mut u8,
                        t.v * std::mem::size_of::<T>(),
                    );
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Tile, portable};
    use std::arch::x86_64::*;

    /// An 8x8 block of 4-byte elements: eight source rows of eight in, their
    /// transposition out as eight destination rows.
    ///
    /// # Safety
    /// The host has AVX2; the 64 source and 64 destination addresses lie
    /// inside the tile (as [`super::copy_tile`]).
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn block8(s: *const f32, ssa: isize, d: *mut f32, dsb: isize) {
        // SAFETY: the caller's contract (unaligned loads and stores).
        unsafe {
            let rows = transpose8(s, ssa);
            for (k, &x) in rows.iter().enumerate() {
                _mm256_storeu_ps(d.offset(k as isize * dsb), x);
            }
        }
    }

    /// Two 8x8 blocks side by side in the destination (16 source rows of
    /// eight), each destination row of 16 elements written whole, with
    /// streaming stores: one 64-byte line per row.
    ///
    /// # Safety
    /// As [`block8`] for both blocks; every destination row starts on 64
    /// bytes.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn lines16(s: *const f32, ssa: isize, d: *mut f32, dsb: isize) {
        // SAFETY: the caller's contract (unaligned loads, aligned streaming
        // stores).
        unsafe {
            let left = transpose8(s, ssa);
            let right = transpose8(s.offset(8 * ssa), ssa);
            for k in 0..8 {
                let row = d.offset(k as isize * dsb);
                _mm256_stream_ps(row, left[k]);
                _mm256_stream_ps(row.add(8), right[k]);
            }
        }
    }

    /// Eight source rows of eight 4-byte elements, transposed: element `j`
    /// of row `k` of the result is element `k` of source row `j`.
    ///
    /// # Safety
    /// The host has AVX2; the 64 source addresses are readable.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn transpose8(s: *const f32, ssa: isize) -> [__m256; 8] {
        // SAFETY: the caller's contract (unaligned loads).
        unsafe {
            let r = |k: isize| _mm256_loadu_ps(s.offset(k * ssa));
            let (r0, r1, r2, r3) = (r(0), r(1), r(2), r(3));
            let (r4, r5, r6, r7) = (r(4), r(5), r(6), r(7));
            // Pairs of rows interleaved, then pairs of pairs: each 128-bit
            // half then holds four elements of one column.
            let t0 = _mm256_unpacklo_ps(r0, r1);
            let t1 = _mm256_unpackhi_ps(r0, r1);
            let t2 = _mm256_unpacklo_ps(r2, r3);
            let t3 = _mm256_unpackhi_ps(r2, r3);
            let t4 = _mm256_unpacklo_ps(r4, r5);
            let t5 = _mm256_unpackhi_ps(r4, r5);
            let t6 = _mm256_unpacklo_ps(r6, r7);
            let t7 = _mm256_unpackhi_ps(r6, r7);
            let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
            let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
            let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
            let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
            let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
            let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
            let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
            let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
            // Low halves (columns 0-3) of rows 0-3 with those of rows 4-7.
            [
                _mm256_permute2f128_ps::<0x20>(u0, u4),
                _mm256_permute2f128_ps::<0x20>(u1, u5),
                _mm256_permute2f128_ps::<0x20>(u2, u6),
                _mm256_permute2f128_ps::<0x20>(u3, u7),
                _mm256_permute2f128_ps::<0x31>(u0, u4),
                _mm256_permute2f128_ps::<0x31>(u1, u5),
                _mm256_permute2f128_ps::<0x31>(u2, u6),
                _mm256_permute2f128_ps::<0x31>(u3, u7),
            ]
        }
    }

    /// An 8x8 block of 2-byte elements through 128-bit registers, as
    /// [`block8`]: rows interleaved by 16, 32 and 64 bits.
    ///
    /// # Safety
    /// As [`block8`].
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn block8_2b(s: *const u16, ssa: isize, d: *mut u16, dsb: isize) {
        // SAFETY: the caller's contract (unaligned loads and stores).
        unsafe {
            let r = |k: isize| _mm_loadu_si128(s.offset(k * ssa) as *const __m128i);
            let (r0, r1, r2, r3) = (r(0), r(1), r(2), r(3));
            let (r4, r5, r6, r7) = (r(4), r(5), r(6), r(7));
            let a0 = _mm_unpacklo_epi16(r0, r1);
            let a1 = _mm_unpackhi_epi16(r0, r1);
            let a2 = _mm_unpacklo_epi16(r2, r3);
            let a3 = _mm_unpackhi_epi16(r2, r3);
            let a4 = _mm_unpacklo_epi16(r4, r5);
            let a5 = _mm_unpackhi_epi16(r4, r5);
            let a6 = _mm_unpacklo_epi16(r6, r7);
            let a7 = _mm_unpackhi_epi16(r6, r7);
            // Columns (0, 1), (2, 3), (4, 5), (6, 7) of rows 0-3, then 4-7.
            let b0 = _mm_unpacklo_epi32(a0, a2);
            let b1 = _mm_unpackhi_epi32(a0, a2);
            let b2 = _mm_unpacklo_epi32(a1, a3);
            let b3 = _mm_unpackhi_epi32(a1, a3);
            let b4 = _mm_unpacklo_epi32(a4, a6);
            let b5 = _mm_unpackhi_epi32(a4, a6);
            let b6 = _mm_unpacklo_epi32(a5, a7);
            let b7 = _mm_unpackhi_epi32(a5, a7);
            let w = |k: isize, x: __m128i| _mm_storeu_si128(d.offset(k * dsb) as *mut __m128i, x);
            w(0, _mm_unpacklo_epi64(b0, b4));
            w(1, _mm_unpackhi_epi64(b0, b4));
            w(2, _mm_unpacklo_epi64(b1, b5));
            w(3, _mm_unpackhi_epi64(b1, b5));
            w(4, _mm_unpacklo_epi64(b2, b6));
            w(5, _mm_unpackhi_epi64(b2, b6));
            w(6, _mm_unpacklo_epi64(b3, b7));
            w(7, _mm_unpackhi_epi64(b3, b7));
        }
    }

    /// A tile (`v == 1`) as 8x8 blocks of `block`, the ragged edges through
    /// the portable loop.
    ///
    /// # Safety
    /// The host has AVX2; the addresses as [`super::copy_tile`]; `block`
    /// moves one 8x8 block of `T` as [`block8`] does.
    #[inline(always)]
    unsafe fn tile8<T: Copy>(
        src: *const T,
        dst: *mut T,
        t: Tile,
        block: impl Fn(*const T, isize, *mut T, isize),
    ) {
        let (la8, lb8) = (t.la / 8 * 8, t.lb / 8 * 8);
        // SAFETY: every block and edge lies inside the tile.
        unsafe {
            for ib in (0..lb8).step_by(8) {
                for ia in (0..la8).step_by(8) {
                    let s = src.offset(ia as isize * t.ssa).add(ib);
                    let d = dst.offset(ib as isize * t.dsb).add(ia);
                    block(s, t.ssa, d, t.dsb);
                }
            }
            if la8 < t.la {
                let s = src.offset(la8 as isize * t.ssa);
                let d = dst.add(la8);
                let edge = Tile {
                    la: t.la - la8,
                    lb: lb8,
                    ..t
                };
                portable::<T>(s, d, edge);
            }
            if lb8 < t.lb {
                let s = src.add(lb8);
                let d = dst.offset(lb8 as isize * t.dsb);
                let edge = Tile {
                    lb: t.lb - lb8,
                    ..t
                };
                portable::<T>(s, d, edge);
            }
        }
    }

    /// A tile of 4-byte elements (`v == 1`); with `stream`, 16 destination
    /// columns at a time where they make whole 64-byte lines
    /// ([`lines16`]), the rest as without.
    ///
    /// # Safety
    /// The host has AVX2; the addresses as [`super::copy_tile`].
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn tile_4b(src: *const u32, dst: *mut u32, t: Tile, stream: bool) {
        let block = |s: *const u32, ssa, d: *mut u32, dsb| {
            // SAFETY: the callers below pass blocks inside the tile; this
            // closure runs inside this AVX2 function.
            unsafe { block8(s as *const f32, ssa, d as *mut f32, dsb) }
        };
        if !stream || t.dsb % 16 != 0 {
            // SAFETY: this function's contract.
            unsafe { tile8(src, dst, t, block) };
            return;
        }
        let (la16, lb8) = (t.la / 16 * 16, t.lb / 8 * 8);
        // SAFETY: every block and edge lies inside the tile; lines16 gets
        // destination rows on 64 bytes (the first one checked, the stride a
        // multiple of 16 elements).
        unsafe {
            for ib in (0..lb8).step_by(8) {
                for ia in (0..la16).step_by(16) {
                    let s = src.offset(ia as isize * t.ssa).add(ib);
                    let d = dst.offset(ib as isize * t.dsb).add(ia);
                    if (d as usize).is_multiple_of(64) {
                        lines16(s as *const f32, t.ssa, d as *mut f32, t.dsb);
                    } else {
                        block(s, t.ssa, d, t.dsb);
                        block(s.offset(8 * t.ssa), t.ssa, d.add(8), t.dsb);
                    }
                }
            }
            // The columns past the last 16, every row; the rows past the
            // last 8 of the columns before.
            let right = Tile {
                la: t.la - la16,
                ..t
            };
            tile8(
                src.offset(la16 as isize * t.ssa),
                dst.add(la16),
                right,
                block,
            );
            let bottom = Tile {
                la: la16,
                lb: t.lb - lb8,
                ..t
            };
            portable::<u32>(src.add(lb8), dst.offset(lb8 as isize * t.dsb), bottom);
        }
    }

    /// A tile of 2-byte elements (`v == 1`).
    ///
    /// # Safety
    /// The host has AVX2; the addresses as [`super::copy_tile`].
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn tile_2b(src: *const u16, dst: *mut u16, t: Tile) {
        let block = |s, ssa, d, dsb| {
            // SAFETY: as in `tile_4b`.
            unsafe { block8_2b(s, ssa, d, dsb) }
        };
        // SAFETY: this function's contract.
        unsafe { tile8(src, dst, t, block) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every tile shape up to 40 x 24 (blocks and both edges), runs of 1, 3
    /// and 16, each element size, on every level the host has, with plain
    /// and streaming stores (destination rows then on whole 64-byte lines
    /// of an aligned buffer, or off them by 4 bytes), against the
    /// definition.
    #[test]
    fn tiles_match_the_definition() {
        for level in Level::supported() {
            for size in [1usize, 2, 4, 8] {
                for v in [1usize, 3, 16] {
                    for (la, lb) in [
                        (1, 1),
                        (8, 8),
                        (16, 8),
                        (19, 17),
                        (7, 16),
                        (32, 5),
                        (40, 24),
                    ] {
                        for (stream, shift) in [(false, 0), (true, 0), (true, 4)] {
                            let dsb = if stream {
                                (la * v + 5).next_multiple_of(64 / size)
                            } else {
                                la * v + 5
                            };
                            let t = Tile {
                                la,
                                lb,
                                ssa: (lb * v + 3) as isize,
                                dsb: dsb as isize,
                                v,
                            };
                            tile_case(level, size, t, stream, shift);
                        }
                    }
                }
            }
        }
    }

    /// One tile through [`copy_tile`], its destination `shift` bytes past a
    /// 64-byte boundary, checked element by element.
    fn tile_case(level: Level, size: usize, t: Tile, stream: bool, shift: usize) {
        let (la, lb, v) = (t.la, t.lb, t.v);
        let (ssa, dsb) = (t.ssa as usize, t.dsb as usize);
        let src: Vec<u8> = (0..la * ssa * size).map(|i| (i * 7 + 1) as u8).collect();
        let len = lb * dsb * size;
        let mut store = vec![0xAAu8; len + 128];
        let skip = (store.as_ptr() as usize).wrapping_neg() % 64 + shift;
        let dst = &mut store[skip..skip + len];
        let fence = crate::prims::common::vmath::StreamFence::new();
        // SAFETY: the tile lies inside both vectors (strides cover the
        // rows), which do not overlap; this thread holds a fence.
        unsafe { copy_tile(level, size, src.as_ptr(), dst.as_mut_ptr(), t, stream) };
        drop(fence);
        for ib in 0..lb {
            for ia in 0..la {
                for j in 0..v {
                    let d = (ib * dsb + ia * v + j) * size;
                    let s = (ia * ssa + ib * v + j) * size;
                    assert_eq!(
                        dst[d..d + size],
                        src[s..s + size],
                        "{level:?} size {size} v {v} {la}x{lb} stream {stream} +{shift} at {ib},{ia},{j}"
                    );
                }
            }
            // The gap after each destination row stays untouched.
            let end = (ib * dsb + la * v) * size;
            assert!(dst[end..(ib + 1) * dsb * size].iter().all(|&b| b == 0xAA));
        }
    }
}
