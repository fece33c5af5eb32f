//! Where a logical element lives in a blocked layout.

use super::{Format, MemoryDesc};

impl MemoryDesc {
    /// The element offset (from the buffer start, `offset0` included) of the
    /// element at logical position `index` (one coordinate per dimension).
    /// `None` for descriptors that are not blocked.
    pub fn element_offset(&self, index: &[i64]) -> Option<i64> {
        let Format::Blocked(b) = self.format() else {
            return None;
        };
        // Positions in the padded tensor, then split into blocks.
        let mut outer = [0i64; super::MAX_NDIMS];
        for d in 0..self.ndims() {
            outer[d] = index[d] + self.padded_offsets()[d];
        }
        // Inner blocks, innermost last: peel them off the coordinates.
        let mut inner_offset = 0i64;
        let mut inner_stride = 1i64;
        for (size, dim) in b.inner().collect::<Vec<_>>().into_iter().rev() {
            inner_offset += (outer[dim] % size) * inner_stride;
            outer[dim] /= size;
            inner_stride *= size;
        }
        let mut offset = self.offset0() + inner_offset;
        for d in 0..self.ndims() {
            offset += outer[d] * b.strides[d];
        }
        Some(offset)
    }

    /// Whether the layout is dense row-major over the logical dimensions
    /// (what a plain `abcd...` tag gives), so elements are contiguous in
    /// logical order from `offset0`.
    pub fn is_dense_row_major(&self) -> bool {
        let Format::Blocked(b) = self.format() else {
            return false;
        };
        if b.inner_nblks != 0 || self.padded_dims() != self.dims() {
            return false;
        }
        let mut expected = 1i64;
        for d in (0..self.ndims()).rev() {
            if self.dims()[d] != 1 && b.strides[d] != expected {
                return false;
            }
            expected *= self.dims()[d];
        }
        true
    }

    /// The number of logical elements. Constructors refuse descriptors whose
    /// (padded) element count does not fit, so this never overflows for a
    /// blocked or sparse one; an `any` descriptor that does not fit answers
    /// `i64::MAX` rather than a wrapped count.
    pub fn nelems(&self) -> i64 {
        self.dims()
            .iter()
            .try_fold(1i64, |n, &d| n.checked_mul(d))
            .unwrap_or(i64::MAX)
    }
}

impl MemoryDesc {
    /// The layout as oneDNN's verbose lines spell it: dimensions from the
    /// outermost stride to the innermost as letters (`abcd`, `acdb`), a blocked
    /// dimension in capitals followed by its inner blocks (`aBcd16b`).
    pub fn layout_tag(&self) -> String {
        let Format::Blocked(b) = self.format() else {
            return String::new();
        };
        let letter = |d: usize| (b'a' + d as u8) as char;
        let mut order: Vec<usize> = (0..self.ndims()).collect();
        // Outermost first: larger stride first; ties keep the logical order.
        order.sort_by(|&x, &y| b.strides[y].cmp(&b.strides[x]).then(x.cmp(&y)));
        let blocked: Vec<usize> = b.inner().map(|(_, d)| d).collect();
        let mut tag: String = order
            .iter()
            .map(|&d| {
                if blocked.contains(&d) {
                    letter(d).to_ascii_uppercase()
                } else {
                    letter(d)
                }
            })
            .collect();
        for (size, d) in b.inner() {
            tag.push_str(&format!("{size}{}", letter(d)));
        }
        tag
    }
}

#[cfg(test)]
mod tests {
    use crate::abi::*;
    use crate::core::memory_desc::MemoryDesc;

    #[test]
    fn offsets_of_plain_and_blocked_layouts() {
        let nchw = MemoryDesc::with_tag(&[2, 3, 4, 5], dnnl_f32, dnnl_nchw).unwrap();
        assert!(nchw.is_dense_row_major());
        assert_eq!(nchw.element_offset(&[1, 2, 3, 4]), Some(60 + 40 + 15 + 4));
        let nhwc = MemoryDesc::with_tag(&[2, 3, 4, 5], dnnl_f32, dnnl_nhwc).unwrap();
        assert!(!nhwc.is_dense_row_major());
        assert_eq!(
            nhwc.element_offset(&[1, 2, 3, 4]),
            Some(60 + 2 + 3 * 15 + 4 * 3)
        );
        // nChw8c with C = 3 padded to 8: (n, C/8, h, w, c%8).
        let blocked = MemoryDesc::with_tag(&[2, 3, 4, 5], dnnl_f32, dnnl_nChw8c).unwrap();
        assert_eq!(
            blocked.element_offset(&[1, 2, 3, 4]),
            Some(160 + (3 * 5 + 4) * 8 + 2)
        );
    }
}
