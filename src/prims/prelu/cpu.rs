//! PReLU on the CPU engine: the elements split over the host's threads,
//! each thread walking its range in the output's memory order with an
//! odometer of offsets. Backward writes the weights gradient's products to
//! a host buffer and sums them with `common::reduce::cpu`.
//!
//! Layer: prims.

use std::sync::Arc;

use super::{PreluOp, walk};
use crate::core::engine::Engine;
use crate::core::error::Result;
use crate::core::gpu::Event;
use crate::core::primitive::{ExecContext, Implementation};
use crate::prims::common::buffers::Buffer;
use crate::prims::common::host::Raw;
use crate::prims::common::parallel;
use crate::prims::common::post_ops::PostOpsPlan;
use crate::prims::common::reduce::cpu as reduce_cpu;

/// Builds the implementation for `op`.
pub(super) fn create(op: &Arc<PreluOp>, _: &Engine) -> Result<Arc<dyn Implementation>> {
    Ok(Arc::new(CpuPrelu { op: op.clone() }))
}

struct CpuPrelu {
    op: Arc<PreluOp>,
}

/// Calls `f(offsets)` for elements `range` of `dims` (walk order), with
/// each tensor's offset (`base[k]` plus the strides).
fn for_range(
    dims: &[(i64, Vec<i64>)],
    base: &[i64],
    range: std::ops::Range<usize>,
    mut f: impl FnMut(&[i64]),
) {
    let k = base.len();
    let mut pos = vec![0i64; dims.len()];
    let mut off = base.to_vec();
    let mut q = range.start as i64;
    for (d, (size, strides)) in dims.iter().enumerate().rev() {
        pos[d] = q % size;
        q /= size;
        for t in 0..k {
            off[t] += pos[d] * strides[t];
        }
    }
    for _ in range {
        f(&off);
        for (d, (size, strides)) in dims.iter().enumerate().rev() {
            pos[d] += 1;
            for t in 0..k {
                off[t] += strides[t];
            }
            if pos[d] < *size {
                break;
            }
            for t in 0..k {
                off[t] -= size * strides[t];
            }
            pos[d] = 0;
        }
    }
}

impl Implementation for CpuPrelu {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let op = &self.op;
        let mut raws = Vec::new();
        let mut base = Vec::new();
        for (arg, layout) in op.layouts() {
            let buffer = Buffer::of(ctx.arg(arg)?)?;
            raws.push(if layout.nelems() == 0 {
                None
            } else {
                Some(Raw::of(&buffer, layout, "tensor")?)
            });
            base.push(layout.offset0);
        }
        let n = op.nelems() as usize;
        if n == 0 {
            // Backward: a weights gradient of no products is zero.
            if let (Some(reduce), Some(Some(dw))) = (op.reduce(), raws.get(4)) {
                let none = PostOpsPlan::none();
                reduce_cpu::run(reduce, None, *dw, &none.bind(ctx)?)?;
            }
            return Ok(None);
        }
        let r: Vec<Raw> = raws.into_iter().flatten().collect();
        base.push(0);
        let dims = walk(op);
        let ranges = parallel::split(n, 1 << 14);
        if !op.is_backward() {
            let (src, wei, dst) = (r[0], r[1], r[2]);
            parallel::run_all(ranges, |range| {
                for_range(&dims, &base, range, |o| {
                    let x = src.load(o[0]);
                    let v = if x > 0.0 { x } else { x * wei.load(o[1]) };
                    dst.store(o[2], v);
                });
            });
            return Ok(None);
        }
        let (src, wei, dd, ds, dw) = (r[0], r[1], r[2], r[3], r[4]);
        let mut products = op.reduce().map(|_| vec![0u8; n * 4]);
        let pr = match (op.reduce(), products.as_mut()) {
            (Some(reduce), Some(p)) => {
                let buffer = Buffer::Host {
                    addr: p.as_mut_ptr() as usize,
                    capacity: Some(p.len()),
                };
                Some(Raw::of(&buffer, reduce.src_layout(), "products")?)
            }
            _ => None,
        };
        parallel::run_all(ranges, |range| {
            for_range(&dims, &base, range, |o| {
                let x = src.load(o[0]);
                let g = dd.load(o[2]);
                let v = if x > 0.0 { g } else { g * wei.load(o[1]) };
                ds.store(o[3], v);
                let p = x.min(0.0) * g;
                match pr {
                    Some(pr) => pr.store(o[5], p),
                    None => dw.store(o[4], p),
                }
            });
        });
        if let (Some(reduce), Some(pr)) = (op.reduce(), pr) {
            let none = PostOpsPlan::none();
            let post = none.bind(ctx)?;
            reduce_cpu::run(reduce, Some(pr), dw, &post)?;
        }
        drop(products);
        Ok(None)
    }
}
