//! Streaming (non-temporal) stores of f32 runs: for outputs much larger than
//! the caches, written once and not read back soon. A plain store first
//! reads each destination line into the cache (write-allocate), so an
//! elementwise `dst = f(a, b)` moves four tensors' bytes instead of three;
//! a streaming store writes the line without reading it.
//!
//! Layer: prims (over `base::isa`). The `unsafe` is the intrinsics, behind
//! `#[target_feature]` functions entered only when the level (the host's,
//! capped by `ONEDNN_MAX_CPU_ISA`) has the features.

use crate::base::isa::Level;

/// Outputs of at least this many bytes take streaming stores (several times
/// the last-level cache of the machines we measure on; smaller ones are
/// better left in the cache for whoever reads them next).
pub const MIN_BYTES: usize = 64 << 20;

/// Stores `src` as f32 into `dst` (`4 * src.len()` bytes): with streaming
/// stores where `level` has them and `dst` is 4-byte aligned, else plainly.
/// Streaming stores are fenced before returning, so the values are visible
/// to other threads as plain stores' are.
pub fn store_f32(level: Level, dst: &mut [u8], src: &[f32]) {
    let dst = &mut dst[..src.len() * 4];
    #[cfg(target_arch = "x86_64")]
    if (dst.as_ptr() as usize) % 4 == 0 {
        match level {
            // SAFETY: the level says the host has AVX-512F (resp. AVX).
            Level::Avx512 => return unsafe { x86::store_512(dst, src) },
            Level::Avx2 => return unsafe { x86::store_256(dst, src) },
            Level::Portable => {}
        }
    }
    let _ = level;
    for (d, s) in dst.chunks_exact_mut(4).zip(src) {
        d.copy_from_slice(&s.to_ne_bytes());
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// Plain stores of `src[..n]` to the start of `dst`.
    fn plain(dst: &mut [u8], src: &[f32]) {
        for (d, s) in dst.chunks_exact_mut(4).zip(src) {
            d.copy_from_slice(&s.to_ne_bytes());
        }
    }

    /// Elements before `dst`'s first `align`-byte boundary (dst 4-aligned).
    fn head(dst: &[u8], align: usize, n: usize) -> usize {
        let addr = dst.as_ptr() as usize;
        (((align - addr % align) % align) / 4).min(n)
    }

    /// # Safety
    /// The host has AVX-512F; `dst` is 4-byte aligned and holds
    /// `4 * src.len()` bytes.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn store_512(dst: &mut [u8], src: &[f32]) {
        let h = head(dst, 64, src.len());
        plain(dst, &src[..h]);
        let body = (src.len() - h) / 16 * 16;
        for i in (h..h + body).step_by(16) {
            // SAFETY: 16 floats of src from i and 64 bytes of dst from
            // 4 i, 64-byte aligned (after the head); both in bounds.
            unsafe {
                let v = _mm512_loadu_ps(src.as_ptr().add(i));
                _mm512_stream_ps(dst.as_mut_ptr().add(4 * i).cast(), v);
            }
        }
        plain(&mut dst[4 * (h + body)..], &src[h + body..]);
        _mm_sfence();
    }

    /// # Safety
    /// The host has AVX; `dst` is 4-byte aligned and holds `4 * src.len()`
    /// bytes.
    #[target_feature(enable = "avx")]
    pub unsafe fn store_256(dst: &mut [u8], src: &[f32]) {
        let h = head(dst, 32, src.len());
        plain(dst, &src[..h]);
        let body = (src.len() - h) / 8 * 8;
        for i in (h..h + body).step_by(8) {
            // SAFETY: 8 floats of src from i and 32 bytes of dst from 4 i,
            // 32-byte aligned (after the head); both in bounds.
            unsafe {
                let v = _mm256_loadu_ps(src.as_ptr().add(i));
                _mm256_stream_ps(dst.as_mut_ptr().add(4 * i).cast(), v);
            }
        }
        plain(&mut dst[4 * (h + body)..], &src[h + body..]);
        _mm_sfence();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every level the host has, every alignment of the destination and
    /// lengths around the vector widths: the bytes are the values'.
    #[test]
    fn stores_every_value_on_every_level() {
        for level in Level::supported() {
            for shift in (0..64).step_by(4) {
                for n in [0usize, 1, 7, 8, 15, 16, 17, 33, 100, 1000] {
                    let src: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 3.0).collect();
                    let mut buf = vec![0xa5u8; 4 * n + 128];
                    store_f32(level, &mut buf[shift..shift + 4 * n], &src);
                    for (i, v) in src.iter().enumerate() {
                        let at = shift + 4 * i;
                        let got = f32::from_ne_bytes(buf[at..at + 4].try_into().unwrap());
                        assert_eq!(got, *v, "{level:?} shift {shift} n {n} element {i}");
                    }
                    assert!(buf[..shift].iter().all(|&b| b == 0xa5), "{level:?} before");
                    assert!(buf[shift + 4 * n..].iter().all(|&b| b == 0xa5), "{level:?} after");
                }
            }
        }
    }
}
