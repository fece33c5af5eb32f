//! Shuffle on the CPU engine: the output split into runs along its
//! innermost dimension, the runs spread over the host's threads. A run
//! along another dimension than the axis is one contiguous copy (when its
//! stride is 1); a run along the axis gathers its elements through the
//! permutation. Elements are copied as bytes, never converted. An input
//! that overlaps the output (in place) is copied first.
//!
//! Layer: prims.

use std::sync::Arc;

use super::{ShuffleOp, walk};
use crate::core::engine::Engine;
use crate::core::error::Result;
use crate::core::gpu::Event;
use crate::core::primitive::{ExecContext, Implementation};
use crate::prims::common::buffers::{Buffer, host_bytes};
use crate::prims::common::parallel;

/// Builds the implementation for `op`.
pub(super) fn create(op: &Arc<ShuffleOp>, _: &Engine) -> Result<Arc<dyn Implementation>> {
    Ok(Arc::new(CpuShuffle { op: op.clone() }))
}

struct CpuShuffle {
    op: Arc<ShuffleOp>,
}

impl Implementation for CpuShuffle {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let op = &self.op;
        let layout = op.layout();
        let n = layout.nelems();
        if n == 0 {
            return Ok(None);
        }
        let (in_arg, out_arg) = op.args();
        let input = Buffer::of(ctx.arg(in_arg)?)?;
        let output = Buffer::of(ctx.arg(out_arg)?)?;
        let (first, end) = layout.byte_range();
        input.check_holds(end, "input")?;
        output.check_holds(end, "output")?;
        let (src, dst) = (input.host_addr(), output.host_addr());
        // In place (or overlapping): read from a copy.
        let copy = (src + first < dst + end && dst + first < src + end)
            // SAFETY: the C contract on the handle (checked to hold `end`
            // bytes); nothing writes the output yet.
            .then(|| unsafe { host_bytes(src, end) }.to_vec());
        let src = copy.as_ref().map_or(src, |c| c.as_ptr() as usize);

        let esize = layout.elem.size();
        let mut dims = walk(op);
        if dims.is_empty() {
            dims.push((1, 1, false));
        }
        let (run, stride, on_axis) = dims.pop().unwrap_or((1, 1, false));
        let perm: Vec<i64> = (0..layout.dims[op.axis()])
            .map(|c| op.source_of(c))
            .collect();
        // The input element each output element of a run reads.
        let from: Vec<usize> = (0..run as usize)
            .map(|k| if on_axis { perm[k] as usize } else { k })
            .collect();
        let runs = (n / run) as usize;
        let base = layout.offset0;
        let ranges = parallel::split(runs, (16_384 / run as usize).max(1));
        parallel::run_all(ranges, |range| {
            for r in range {
                // The run's first element in the output and in the input.
                let (mut o, mut i) = (base, base);
                let mut q = r as i64;
                for &(size, s, axis) in dims.iter().rev() {
                    let p = q % size;
                    q /= size;
                    o += p * s;
                    i += if axis { perm[p as usize] } else { p } * s;
                }
                let (o, i) = (o as usize * esize, i as usize * esize);
                if !on_axis && stride == 1 {
                    let len = run as usize * esize;
                    // SAFETY: both runs lie inside the layout's byte range,
                    // which each buffer holds (checked above, or the copy);
                    // the input is not the output (else the copy), and this
                    // thread alone writes this run of the output.
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            (src + i) as *const u8,
                            (dst + o) as *mut u8,
                            len,
                        );
                    }
                    continue;
                }
                let step = stride as usize * esize;
                for (k, &from) in from.iter().enumerate() {
                    // SAFETY: as above, one element at a time.
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            (src + i + from * step) as *const u8,
                            (dst + o + k * step) as *mut u8,
                            esize,
                        );
                    }
                }
            }
        });
        drop(copy);
        Ok(None)
    }
}
