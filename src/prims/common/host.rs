//! Element access to host buffers for CPU kernels whose threads write
//! elements that are not contiguous per thread (binary's walk, softmax's
//! rows), shared by binary and softmax.
//!
//! Layer: prims. Each access makes a view of exactly one element, so threads
//! writing disjoint elements never hold overlapping views, and an in-place
//! input (the output's own buffer, same layout) is read element by element
//! before that element is written.

use crate::core::error::Result;
use crate::prims::common::buffers::{Buffer, host_bytes, host_bytes_mut};
use crate::prims::common::dt::{self, Elem};
use crate::prims::common::layout::Layout;

/// A host tensor: address of element 0 of the buffer, and its type.
#[derive(Clone, Copy)]
pub struct Raw {
    addr: usize,
    elem: Elem,
}

impl Raw {
    /// The host buffer of `buffer` for `layout`, checked to hold it.
    pub fn of(buffer: &Buffer, layout: &Layout, what: &str) -> Result<Raw> {
        buffer.check_holds(layout.byte_range().1, what)?;
        Ok(Raw {
            addr: buffer.host_addr(),
            elem: layout.elem,
        })
    }

    /// Over a copy (`bytes` stays alive while the `Raw` is used).
    pub fn over(bytes: &[u8], elem: Elem) -> Raw {
        Raw {
            addr: bytes.as_ptr() as usize,
            elem,
        }
    }

    /// The address of element 0.
    pub fn addr(&self) -> usize {
        self.addr
    }

    /// Element `off` (an element offset from the buffer start) as `f32`.
    pub fn load(&self, off: i64) -> f32 {
        let size = self.elem.size();
        // SAFETY: the C contract on the handle (checked against our own
        // allocations' size by `Raw::of`); `off` lies inside the layout's
        // byte range; the one-element view ends before any write to it.
        let bytes = unsafe { host_bytes(self.addr + off as usize * size, size) };
        dt::load(self.elem, bytes, 0)
    }

    /// Stores `v` as element `off`.
    pub fn store(&self, off: i64, v: f32) {
        let size = self.elem.size();
        // SAFETY: as for `load`; no other view of this element exists (each
        // element is written by one thread, and reads end before).
        let bytes = unsafe { host_bytes_mut(self.addr + off as usize * size, size) };
        dt::store(self.elem, bytes, 0, v);
    }

    /// Elements `off..off + out.len()` (contiguous) as `f32`.
    pub fn load_run(&self, off: i64, out: &mut [f32]) {
        let size = self.elem.size();
        // SAFETY: as for `load`; the run lies inside the layout's byte range
        // and the view ends before any write to it.
        let bytes = unsafe { host_bytes(self.addr + off as usize * size, out.len() * size) };
        dt::load_run(self.elem, bytes, 0, out);
    }

    /// Stores `values` as elements `off..off + values.len()` (contiguous).
    pub fn store_run(&self, off: i64, values: &[f32]) {
        let size = self.elem.size();
        // SAFETY: as for `store`: the calling thread owns these elements
        // and holds no other view of them.
        let bytes = unsafe { host_bytes_mut(self.addr + off as usize * size, values.len() * size) };
        dt::store_run(self.elem, bytes, 0, values);
    }

    /// The same buffer read as another element type (a sum post-op's
    /// data type).
    pub fn with_elem(self, elem: Elem) -> Raw {
        Raw { elem, ..self }
    }
}

/// Whether input `a` (over `la`) must be copied before `out` (over `lo`) is
/// written: it overlaps the output other than as the very same elements.
pub fn must_copy(a: &Raw, la: &Layout, out: &Raw, lo: &Layout) -> bool {
    let (ab, ae) = la.byte_range();
    let (ob, oe) = lo.byte_range();
    let overlaps = a.addr + ab < out.addr + oe && out.addr + ob < a.addr + ae;
    let same = a.addr == out.addr
        && la.offset0 == lo.offset0
        && la.elem == lo.elem
        && la.dims() == lo.dims()
        && la.same_layout(lo);
    overlaps && !same
}

/// A copy of the bytes an input spans (from the buffer start).
pub fn copy(a: &Raw, la: &Layout) -> Vec<u8> {
    let (_, end) = la.byte_range();
    // SAFETY: the C contract on the handle; nothing writes it yet.
    unsafe { host_bytes(a.addr, end) }.to_vec()
}

/// The f32 scale of argument `arg` (`DNNL_ARG_ATTR_SCALES | arg`), read
/// from host memory; 1 when `scaled` is false.
pub fn scale(ctx: &crate::core::primitive::ExecContext, arg: i32, scaled: bool) -> Result<f32> {
    if !scaled {
        return Ok(1.0);
    }
    let mem = ctx.arg(crate::abi::DNNL_ARG_ATTR_SCALES | arg)?;
    let buffer = Buffer::values(mem, 4, "scale")?;
    // SAFETY: the C contract: a scale memory holds one f32 (checked for
    // our own allocations).
    let bytes = unsafe { host_bytes(buffer.host_addr(), 4) };
    Ok(dt::load(Elem::F32, bytes, 0))
}
