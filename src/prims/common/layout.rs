//! Blocked layouts as kernels see them: where an element lives, the order in
//! which a tensor's elements lie in memory, and whether that order is dense;
//! and how `format_tag::any` takes another descriptor's layout
//! ([`resolve_any`] for eltwise, binary and softmax; [`resolve_like`], which
//! it builds on, for sum and concat, whose destinations may differ in shape).
//!
//! Layer: prims, over `core::memory_desc`. Positions are *padded* positions
//! (a logical index plus the descriptor's `padded_offsets`), so one formula
//! covers the padding that blocked layouts carry.
//!
//! A blocked descriptor is a set of *physical loops*: one per dimension
//! (`padded_dim / blocks` outer blocks at the descriptor's stride) and one per
//! inner block (its size, at the product of the inner blocks after it). Sorted
//! by stride, outermost first, they walk the buffer in address order when
//! the layout does not overlap itself; a kernel that walks an output that way
//! writes monotonically, which lets the CPU split the output into disjoint
//! slices and makes OpenCL writes coalesce.

// Dimension loops index several parallel arrays (dims, strides, blocks) by
// the same `d`; an iterator over one of them would hide that.
#![allow(clippy::needless_range_loop)]

use crate::abi::{dnnl_data_type_t, dnnl_format_tag_t};
use crate::core::error::{Error, Result};
use crate::core::memory_desc::{MAX_NDIMS, MemoryDesc};

use super::dt::Elem;

/// One physical loop of a layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhysLoop {
    /// Trip count (always more than 1).
    pub size: i64,
    /// Elements between consecutive iterations.
    pub stride: i64,
    /// The logical dimension it walks.
    pub dim: usize,
    /// How far one iteration moves the padded position along `dim`.
    pub unit: i64,
}

/// An inner block: `size` values of dimension `dim`, taken from the position
/// divided by `div`, `stride` elements apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Inner {
    dim: usize,
    size: i64,
    div: i64,
    stride: i64,
}

/// A blocked memory descriptor, decoded for kernels.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The element type.
    pub elem: Elem,
    /// Number of dimensions.
    pub ndims: usize,
    /// Logical dimensions.
    pub dims: [i64; MAX_NDIMS],
    /// Dimensions with padding.
    pub padded_dims: [i64; MAX_NDIMS],
    /// Where the data starts inside the padding, per dimension.
    pub padded_offsets: [i64; MAX_NDIMS],
    /// Elements from the buffer start to the origin.
    pub offset0: i64,
    outer: [i64; MAX_NDIMS],
    blocks: [i64; MAX_NDIMS],
    inner: Vec<Inner>,
}

impl Layout {
    /// Decodes `md`. Only blocked descriptors of a type the primitives compute
    /// with, without run-time values or negative strides, have a layout
    /// (anything else is unimplemented).
    pub fn new(md: &MemoryDesc) -> Result<Layout> {
        let elem = Elem::from_c(md.data_type()).ok_or_else(|| {
            Error::unimplemented(format!("data type {} is not supported", md.data_type().0))
        })?;
        let Some(blocking) = md.blocking() else {
            return Err(Error::unimplemented(
                "only blocked memory formats are supported",
            ));
        };
        if md.has_runtime_dims_or_strides() {
            return Err(Error::unimplemented(
                "run-time dimensions or strides are not supported",
            ));
        }
        let n = md.ndims();
        if blocking.strides[..n].iter().any(|&s| s < 0) || md.offset0() < 0 {
            return Err(Error::unimplemented(
                "negative strides or offsets are not supported",
            ));
        }
        let mut layout = Layout {
            elem,
            ndims: n,
            dims: [0; MAX_NDIMS],
            padded_dims: [0; MAX_NDIMS],
            padded_offsets: [0; MAX_NDIMS],
            offset0: md.offset0(),
            outer: [0; MAX_NDIMS],
            blocks: md.blocks(),
            inner: Vec::new(),
        };
        layout.dims[..n].copy_from_slice(md.dims());
        layout.padded_dims[..n].copy_from_slice(md.padded_dims());
        layout.padded_offsets[..n].copy_from_slice(md.padded_offsets());
        layout.outer[..n].copy_from_slice(&blocking.strides[..n]);
        let blocks: Vec<(i64, usize)> = blocking.inner().collect();
        for (j, &(size, dim)) in blocks.iter().enumerate() {
            let after = &blocks[j + 1..];
            let div = after.iter().filter(|b| b.1 == dim).map(|b| b.0).product();
            let stride = after.iter().map(|b| b.0).product();
            layout.inner.push(Inner {
                dim,
                size,
                div,
                stride,
            });
        }
        // Upstream's size rule gives 0 bytes to a descriptor whose every
        // dimension of more than one element has a zero stride (dims {5},
        // strides {0}), though it holds elements: a primitive over it would
        // touch memory past the buffer the caller (or the library) allocated
        // for that size. Reaching past the size is refused here, where every
        // kind decodes its descriptors.
        let span = layout
            .loops()
            .iter()
            .fold(1i128, |n, l| n + (l.size as i128 - 1) * l.stride as i128)
            * layout.elem.size() as i128;
        if !md.has_zero_dim() && span > md.size(0) as i128 {
            return Err(Error::unimplemented(format!(
                "the elements span {span} bytes but the descriptor's size is {} bytes \
                 (every stride zero)",
                md.size(0)
            )));
        }
        Ok(layout)
    }

    /// Logical dimensions.
    pub fn dims(&self) -> &[i64] {
        &self.dims[..self.ndims]
    }

    /// Number of logical elements.
    pub fn nelems(&self) -> i64 {
        self.dims().iter().product()
    }

    /// The stride of one outer block per dimension.
    pub fn outer_strides(&self) -> &[i64] {
        &self.outer[..self.ndims]
    }

    /// The product of the inner blocks per dimension.
    pub fn block_sizes(&self) -> &[i64] {
        &self.blocks[..self.ndims]
    }

    /// The inner blocks, outermost first: `(dim, div, size, stride)`, so
    /// that the block adds `p[dim] / div % size * stride` to an offset.
    pub fn inner_blocks(&self) -> Vec<(usize, i64, i64, i64)> {
        self.inner
            .iter()
            .map(|b| (b.dim, b.div, b.size, b.stride))
            .collect()
    }

    /// Number of elements with padding.
    pub fn padded_nelems(&self) -> i64 {
        self.padded_dims[..self.ndims].iter().product()
    }

    /// Whether the layout carries padding (blocks that overhang a dimension).
    pub fn has_padding(&self) -> bool {
        self.padded_dims[..self.ndims] != self.dims[..self.ndims]
    }

    /// The element offset (from the buffer start) of padded position `p`.
    pub fn offset(&self, p: &[i64]) -> i64 {
        let mut off = self.offset0;
        for d in 0..self.ndims {
            off += p[d] / self.blocks[d] * self.outer[d];
        }
        for b in &self.inner {
            off += p[b.dim] / b.div % b.size * b.stride;
        }
        off
    }

    /// The physical loops, outermost first (loops of one iteration left out).
    pub fn loops(&self) -> Vec<PhysLoop> {
        let mut loops = Vec::new();
        for d in 0..self.ndims {
            let size = self.padded_dims[d] / self.blocks[d];
            if size > 1 {
                loops.push(PhysLoop {
                    size,
                    stride: self.outer[d],
                    dim: d,
                    unit: self.blocks[d],
                });
            }
        }
        for b in &self.inner {
            if b.size > 1 {
                loops.push(PhysLoop {
                    size: b.size,
                    stride: b.stride,
                    dim: b.dim,
                    unit: b.div,
                });
            }
        }
        // Stable: equal strides (only in overlapping layouts) keep dimension order.
        loops.sort_by_key(|l| std::cmp::Reverse(l.stride));
        loops
    }

    /// Whether no two padded positions share an element, so that walking
    /// [`Layout::loops`] visits offsets in increasing order.
    pub fn is_non_overlapping(&self) -> bool {
        let mut extent = 1i64;
        for l in self.loops().iter().rev() {
            if l.stride < extent {
                return false;
            }
            extent += (l.size - 1) * l.stride;
        }
        true
    }

    /// Whether the padded elements fill `[offset0, offset0 + padded_nelems)`
    /// exactly, with no gap and no overlap.
    pub fn is_compact(&self) -> bool {
        let mut expected = 1i64;
        for l in self.loops().iter().rev() {
            if l.stride != expected {
                return false;
            }
            expected *= l.size;
        }
        true
    }

    /// Elements from `offset0` to one past the last element (0 when the
    /// tensor is empty).
    pub fn extent(&self) -> i64 {
        if self.padded_nelems() == 0 {
            return 0;
        }
        1 + self
            .loops()
            .iter()
            .map(|l| (l.size - 1) * l.stride)
            .sum::<i64>()
    }

    /// The bytes the tensor spans from the buffer start: `[begin, end)`.
    pub fn byte_range(&self) -> (usize, usize) {
        let size = self.elem.size();
        let begin = self.offset0 as usize * size;
        (begin, begin + self.extent() as usize * size)
    }

    /// Whether `other` puts every element at the same place relative to its
    /// own `offset0` (the element types may differ).
    pub fn same_layout(&self, other: &Layout) -> bool {
        self.ndims == other.ndims
            && self.padded_dims == other.padded_dims
            && self.padded_offsets == other.padded_offsets
            && self.loops() == other.loops()
    }

    /// An OpenCL C expression (no spaces) for the element offset of the
    /// padded position whose coordinates are the expressions `pos(d)`.
    pub fn cl_offset_expr(&self, pos: &dyn Fn(usize) -> String) -> String {
        let mut terms = vec![self.offset0.to_string()];
        for d in 0..self.ndims {
            let size = self.padded_dims[d] / self.blocks[d];
            if size > 1 {
                let p = pos(d);
                let outer = if self.blocks[d] == 1 {
                    p
                } else {
                    format!("({p})/{}", self.blocks[d])
                };
                terms.push(format!("({outer})*{}", self.outer[d]));
            }
        }
        for b in &self.inner {
            if b.size > 1 {
                terms.push(format!(
                    "(({})/{}%{})*{}",
                    pos(b.dim),
                    b.div,
                    b.size,
                    b.stride
                ));
            }
        }
        format!("({})", terms.join("+"))
    }
}

/// Walks a layout's physical loops in order: the `t`-th padded element.
pub struct Walker {
    loops: Vec<PhysLoop>,
    /// Product of the trip counts of the loops inside each loop.
    divs: Vec<i64>,
    total: i64,
    ndims: usize,
}

impl Walker {
    /// The walk of `layout`'s padded elements.
    pub fn new(layout: &Layout) -> Walker {
        let loops = layout.loops();
        let mut divs = vec![1; loops.len()];
        for i in (0..loops.len().saturating_sub(1)).rev() {
            divs[i] = divs[i + 1] * loops[i + 1].size;
        }
        Walker {
            loops,
            divs,
            total: layout.padded_nelems(),
            ndims: layout.ndims,
        }
    }

    /// The number of elements walked.
    pub fn total(&self) -> i64 {
        self.total
    }

    /// The loops, outermost first.
    pub fn loops(&self) -> &[PhysLoop] {
        &self.loops
    }

    /// The number of elements inside loop `i`.
    pub fn div(&self, i: usize) -> i64 {
        self.divs[i]
    }

    /// The padded position of the `t`-th element, and its offset from the
    /// walked layout's `offset0`.
    pub fn at(&self, t: i64, p: &mut [i64; MAX_NDIMS]) -> i64 {
        p[..self.ndims].fill(0);
        let mut off = 0;
        for (l, div) in self.loops.iter().zip(&self.divs) {
            let i = t / div % l.size;
            p[l.dim] += i * l.unit;
            off += i * l.stride;
        }
        off
    }
}

/// A descriptor of `dims` with `reference`'s element order (the same
/// dimension order and inner blocks), dense, of type `dt`: how `any` is
/// resolved (`reference` itself where it already is that descriptor).
/// Without a reference (everything `any`), plain row-major.
pub(crate) fn resolve_any(
    reference: Option<&MemoryDesc>,
    dims: &[i64],
    dt: dnnl_data_type_t,
) -> Result<MemoryDesc> {
    let Some(reference) = reference else {
        return MemoryDesc::with_strides(dims, dt, None);
    };
    let layout = Layout::new(reference)?;
    if reference.dims() == dims
        && reference.data_type() == dt
        && layout.is_compact()
        && reference.offset0() == 0
    {
        return Ok(reference.clone());
    }
    resolve_like(reference, dims, dt)
}

/// A descriptor of `dims` and type `dt` laid out like `reference` (the same
/// order of dimensions and the same inner blocks), dense: how sum and concat
/// resolve a destination given as `any` or NULL, and the rest of
/// [`resolve_any`].
pub(crate) fn resolve_like(
    reference: &MemoryDesc,
    dims: &[i64],
    dt: dnnl_data_type_t,
) -> Result<MemoryDesc> {
    let blocking = reference
        .blocking()
        .ok_or_else(|| Error::unimplemented("the reference is not blocked"))?;
    let n = reference.ndims();
    if blocking.inner_nblks == 0 {
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| blocking.strides[b].cmp(&blocking.strides[a]));
        let mut strides = vec![0i64; n];
        let mut s = 1i64;
        for &d in order.iter().rev() {
            strides[d] = s;
            s *= dims[d].max(1);
        }
        return MemoryDesc::with_strides(dims, dt, Some(&strides));
    }
    let loops = |l: &Layout| {
        l.loops()
            .iter()
            .map(|p| (p.size, p.dim, p.unit))
            .collect::<Vec<_>>()
    };
    let wanted = loops(&Layout::new(reference)?);
    for (_, tag) in dnnl_format_tag_t::ALL {
        if let Ok(md) = MemoryDesc::with_tag(reference.dims(), reference.data_type(), *tag)
            && md.ndims() == n
            && md.padded_dims() == reference.padded_dims()
            && Layout::new(&md).is_ok_and(|l| loops(&l) == wanted)
        {
            return MemoryDesc::with_tag(dims, dt, *tag);
        }
    }
    Err(Error::unimplemented(
        "format 'any' cannot follow this blocked layout (no format tag describes it)",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::*;

    fn layout(dims: &[i64], tag: dnnl_format_tag_t) -> Layout {
        Layout::new(&MemoryDesc::with_tag(dims, dnnl_f32, tag).unwrap()).unwrap()
    }

    #[test]
    fn offsets_agree_with_the_descriptor() {
        for (dims, tag) in [
            (&[2i64, 3, 4, 5][..], dnnl_nchw),
            (&[2, 3, 4, 5], dnnl_nhwc),
            (&[2, 19, 3, 5], dnnl_nChw16c),
            (&[3, 5, 7, 2], dnnl_ABcd8b8a),
            (&[17, 19, 2, 3], dnnl_aBCd4b4c),
        ] {
            let md = MemoryDesc::with_tag(dims, dnnl_f32, tag).unwrap();
            let l = Layout::new(&md).unwrap();
            let w = Walker::new(&l);
            let mut seen = vec![false; l.extent() as usize];
            let mut last = -1;
            let mut p = [0; MAX_NDIMS];
            for t in 0..w.total() {
                let off = w.at(t, &mut p);
                assert!(off > last, "{tag:?}: walk is monotonic");
                last = off;
                assert_eq!(l.offset(&p), off + l.offset0);
                assert!(!seen[off as usize]);
                seen[off as usize] = true;
                if (0..l.ndims).all(|d| p[d] < dims[d]) {
                    assert_eq!(md.element_offset(&p[..l.ndims]), Some(off));
                }
            }
            assert!(l.is_compact() && l.is_non_overlapping());
            assert_eq!(l.extent(), l.padded_nelems());
        }
    }

    #[test]
    fn resolve_any_takes_the_dims_it_is_given() {
        let reference = MemoryDesc::with_tag(&[2, 3, 4, 5], dnnl_f32, dnnl_nhwc).unwrap();
        let same = resolve_any(Some(&reference), &[2, 3, 4, 5], dnnl_f32).unwrap();
        assert_eq!(same, reference, "a compact reference of these dims is kept");
        let other = resolve_any(Some(&reference), &[2, 3, 6, 7], dnnl_f32).unwrap();
        let want = MemoryDesc::with_tag(&[2, 3, 6, 7], dnnl_f32, dnnl_nhwc).unwrap();
        assert_eq!(other, want, "other dims: the reference's order over them");
    }

    #[test]
    fn strided_layouts() {
        let md = MemoryDesc::with_strides(&[3, 4], dnnl_f32, Some(&[10, 2])).unwrap();
        let l = Layout::new(&md).unwrap();
        assert!(!l.is_compact() && l.is_non_overlapping());
        assert_eq!(l.extent(), 2 * 10 + 3 * 2 + 1);
        let nchw = layout(&[2, 3, 4, 5], dnnl_nchw);
        assert!(nchw.same_layout(&layout(&[2, 3, 4, 5], dnnl_abcd)));
        assert!(!nchw.same_layout(&layout(&[2, 3, 4, 5], dnnl_nhwc)));
        // Size-1 dimensions do not matter.
        assert!(layout(&[2, 1, 4], dnnl_abc).same_layout(&layout(&[2, 1, 4], dnnl_acb)));
        let blocked = layout(&[2, 3, 4, 5], dnnl_nChw16c);
        assert!(blocked.has_padding() && blocked.is_compact());
    }

    #[test]
    fn elements_past_the_size_are_refused() {
        // Every stride zero: the size rule says 0 bytes, yet there are elements.
        for (dims, strides) in [(&[5i64][..], &[0i64][..]), (&[7, 1 << 40], &[0, 0])] {
            let md = MemoryDesc::with_strides(dims, dnnl_f32, Some(strides)).unwrap();
            assert_eq!(md.size(0), 0);
            assert!(Layout::new(&md).is_err(), "{dims:?} strides {strides:?}");
        }
        // Broadcast strides beside a real one, a size-1 dimension, and
        // submemories stay within the size.
        for (dims, strides) in [(&[5i64, 3][..], &[0i64, 1][..]), (&[5, 1], &[0, 0])] {
            let md = MemoryDesc::with_strides(dims, dnnl_f32, Some(strides)).unwrap();
            assert!(Layout::new(&md).is_ok(), "{dims:?} strides {strides:?}");
        }
        let parent = MemoryDesc::with_tag(&[4, 4], dnnl_f32, dnnl_ab).unwrap();
        for (dims, offsets) in [([2i64, 2], [2i64, 2]), ([1, 2], [3, 2]), ([4, 1], [0, 3])] {
            let sub = parent.submemory(&dims, &offsets).unwrap();
            assert!(
                Layout::new(&sub).is_ok(),
                "submemory {dims:?} at {offsets:?}"
            );
        }
    }
}
