//! A tf32 GEMM's n-fastest B copied K-major into the scratchpad
//! ([`BCopy`]), so that the GEMM runs on `wgmma`, which takes tf32 only
//! with both operands K-major (`gemm_mma.cl`'s `b_k_major` copies it).
//!
//! Layer: prims, under `gemm::ocl` (which enqueues the copy before the
//! GEMM where the primitive declared the scratchpad for it).

use super::mma::{self, MmaType};
use super::ocl::GemmKernels;
use super::{Gemm, Operand};
use crate::core::error::Result;
use crate::core::gpu::{Event, GpuEngine, Kernel, KernelArg, Queue};
use crate::prims::common::buffers::Buffer;
use crate::prims::common::dt::Elem;

/// The least rows of C per B matrix for which [`BCopy::plan`] copies B:
/// the copy moves 8 bytes per element of B, which `wgmma`'s gain over
/// `mma.sync` (about 2.3x for tf32) repays from a few hundred rows on.
pub(crate) const MIN_ROWS: i64 = 512;

/// The copy of one GEMM's B: the scratchpad bytes it takes and the GEMM
/// that reads it.
pub(crate) struct BCopy {
    /// Scratchpad bytes (16-byte aligned rows of `kp` values per n index,
    /// one matrix per index of B's own batch dimensions).
    pub bytes: usize,
    /// The GEMM on the copy.
    pub gemm: Gemm,
    /// B's depth rounded up to whole 16 bytes (the copy's row length).
    kp: i64,
    /// B's own batch dimensions (B's stride not 0), merged where B's
    /// strides allow, outermost first: (size, B's stride).
    mats: Vec<(i64, i64)>,
    /// The operand copied.
    from: Operand,
}

impl BCopy {
    /// The copy `g` takes on `ocl` multiplying `ty` values, where it takes
    /// one: tf32 on `wgmma` (`mma::wgmma`), B n-fastest, A loading 16 bytes
    /// at a time (`usm_misaligned`: a USM pointer is not 16-byte aligned),
    /// at least [`MIN_ROWS`] rows of C per matrix of B, and the copy's size
    /// countable.
    pub fn plan(ocl: GpuEngine, ty: MmaType, g: &Gemm, usm_misaligned: bool) -> Option<BCopy> {
        let (a_vec, _, b_kn) = GemmKernels::mma_loads(ty, g, usm_misaligned);
        if ty != MmaType::Tf32 || b_kn || !a_vec || usm_misaligned {
            return None;
        }
        if g.m <= 0 || g.n <= 0 || g.k <= 0 {
            return None;
        }
        let own: Vec<_> = g.batch.iter().filter(|d| d.b != 0).collect();
        let count: i64 = own.iter().map(|d| d.size).product();
        if g.m * (g.batches() / count.max(1)) < MIN_ROWS || !mma::wgmma(ocl, ty) {
            return None;
        }
        let kp = (g.k + 3) / 4 * 4;
        let bytes = count
            .checked_mul(kp)?
            .checked_mul(g.n)?
            .checked_mul(4)
            .and_then(|b| usize::try_from(b).ok())?;
        let mut gemm = g.clone();
        gemm.b = Operand {
            elem: Elem::F32,
            off: 0,
            rs: 1,
            cs: kp,
            bytes,
        };
        // The copies lie row-major over B's own batch dimensions.
        let mut step = kp * g.n;
        for d in gemm.batch.iter_mut().rev().filter(|d| d.b != 0) {
            d.b = step;
            step *= d.size;
        }
        let mut mats: Vec<(i64, i64)> = Vec::new();
        for d in own.iter().filter(|d| d.size != 1) {
            match mats.last_mut() {
                Some(p) if p.1 == d.b * d.size => *p = (p.0 * d.size, d.b),
                _ => mats.push((d.size, d.b)),
            }
        }
        Some(BCopy {
            bytes,
            gemm,
            kp,
            mats,
            from: g.b,
        })
    }

    /// Enqueues the copy of `b` (the operand [`BCopy::plan`] saw) into
    /// `out` with `kernel` (`b_k_major` of the GEMM's program) after
    /// `deps`; returns the event of the last command.
    pub fn enqueue(
        &self,
        queue: &Queue,
        kernel: &Kernel,
        b: &Buffer,
        out: &Buffer,
        deps: &[Event],
    ) -> Result<Event> {
        let split = self.mats.len().saturating_sub(2);
        let (outer, inner) = self.mats.split_at(split);
        let ((n0, s0), (n1, s1)) = match inner {
            [x, y] => (*x, *y),
            [y] => ((1, 0), *y),
            _ => ((1, 0), (1, 0)),
        };
        let per_launch = n0 * n1;
        let launches: i64 = outer.iter().map(|d| d.0).product();
        let (k, n) = (self.gemm.k, self.gemm.n);
        let global = [
            (self.kp as usize).div_ceil(32) * 32,
            (n as usize).div_ceil(32) * 8,
            per_launch as usize,
        ];
        let mut events = Vec::new();
        for o in 0..launches {
            let (mut rest, mut off) = (o, self.from.off);
            for d in outer.iter().rev() {
                off += rest % d.0 * d.1;
                rest /= d.0;
            }
            let args = [
                b.kernel_arg()?,
                KernelArg::I64(off),
                KernelArg::I64(self.from.rs),
                KernelArg::I64(self.from.cs),
                KernelArg::I64(s0),
                KernelArg::I64(s1),
                KernelArg::I64(n1),
                out.kernel_arg()?,
                // Launch o's matrices follow those of the launches before it.
                KernelArg::I64(o * per_launch * self.kp * n),
                KernelArg::I64(self.kp * n),
                KernelArg::I64(k),
                KernelArg::I64(self.kp),
                KernelArg::I64(n),
            ];
            events.push(queue.enqueue_kernel(kernel, &args, &global, Some(&[32, 8, 1]), deps)?);
        }
        if events.len() == 1 {
            return Ok(events.remove(0));
        }
        queue.marker(&events)
    }
}
