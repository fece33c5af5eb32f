//! New descriptors from existing ones: sub-memory, reshape, permute.
//!
//! The rules and the status of each refusal are upstream's (checked against
//! upstream's library): a request that is wrong is an invalid argument, a
//! layout these operations cannot express (an offset inside a block, a
//! non-blocked parent) is unimplemented.

use crate::core::error::{Error, Result};

use super::{Format, MAX_NDIMS, MemoryDesc, RUNTIME_DIM};

impl MemoryDesc {
    /// `dnnl_memory_desc_create_submemory`: the region of `dims` elements
    /// starting at `offsets` (both of this descriptor's `ndims`). The result
    /// keeps the parent's layout and strides; `offset0` locates the region.
    /// Offsets must fall on block boundaries, and a region that does not
    /// reach the end of a blocked dimension must cover whole blocks (or lie
    /// within one); a region that reaches the end keeps the parent's padding.
    pub fn submemory(&self, dims: &[i64], offsets: &[i64]) -> Result<Self> {
        let n = self.ndims;
        for d in 0..n {
            if dims[d] == RUNTIME_DIM || offsets[d] == RUNTIME_DIM {
                return Err(Error::unimplemented(
                    "sub-memory with run-time dimensions or offsets",
                ));
            }
            let end = offsets[d].checked_add(dims[d]);
            if dims[d] < 0 || offsets[d] < 0 || end.is_none_or(|e| e > self.dims[d]) {
                return Err(Error::invalid(format!(
                    "sub-memory dimension {d}: {} elements at offset {} do not fit in {}",
                    dims[d], offsets[d], self.dims[d]
                )));
            }
        }
        let Format::Blocked(blocking) = &self.format else {
            return Err(Error::unimplemented(
                "sub-memory of a descriptor that is not blocked",
            ));
        };
        if self.has_runtime_dims_or_strides() {
            return Err(Error::unimplemented(
                "sub-memory of a descriptor with run-time values",
            ));
        }
        let blocks = self.blocks();
        let mut sub = self.clone();
        for d in 0..n {
            if offsets[d] % blocks[d] != 0 || self.padded_offsets[d] != 0 {
                return Err(Error::unimplemented(format!(
                    "sub-memory offset {} in dimension {d} is inside a block of {}",
                    offsets[d], blocks[d]
                )));
            }
            let right_border = offsets[d] + dims[d] == self.dims[d];
            // Inside the parent, a region covers whole blocks or lies
            // within one.
            if !right_border && dims[d] % blocks[d] != 0 && dims[d] > blocks[d] {
                return Err(Error::unimplemented(format!(
                    "sub-memory of {} elements in dimension {d} ends inside a block of {}",
                    dims[d], blocks[d]
                )));
            }
            sub.dims[d] = dims[d];
            sub.padded_dims[d] = if right_border {
                self.padded_dims[d] - offsets[d]
            } else {
                dims[d]
            };
            let step = (offsets[d] / blocks[d]).saturating_mul(blocking.strides[d]);
            sub.offset0 = sub.offset0.saturating_add(step);
        }
        sub.check_size()?;
        Ok(sub)
    }

    /// `dnnl_memory_desc_permute_axes`: logical axis `d` becomes axis
    /// `permutation[d]`; the physical layout is unchanged. Only blocked and
    /// `any` descriptors without run-time values can be permuted.
    pub fn permute_axes(&self, permutation: &[i32]) -> Result<Self> {
        self.check_reshapeable("permute")?;
        let n = self.ndims;
        let mut seen = [false; MAX_NDIMS];
        for &p in permutation {
            let p = usize::try_from(p).ok().filter(|&p| p < n);
            match p {
                Some(p) if !seen[p] => seen[p] = true,
                _ => {
                    return Err(Error::invalid(format!(
                        "{permutation:?} is not a permutation of 0..{n}"
                    )));
                }
            }
        }
        let mut out = self.clone();
        for (d, &p) in permutation.iter().enumerate() {
            let p = p as usize;
            out.dims[p] = self.dims[d];
            out.padded_dims[p] = self.padded_dims[d];
            out.padded_offsets[p] = self.padded_offsets[d];
            if let (Format::Blocked(ib), Format::Blocked(ob)) = (&self.format, &mut out.format) {
                ob.strides[p] = ib.strides[d];
                for blk in 0..ib.inner_nblks {
                    if ib.inner_idxs[blk] == d as i64 {
                        ob.inner_idxs[blk] = p as i64;
                    }
                }
            }
        }
        out.check_size()?;
        Ok(out)
    }

    fn check_reshapeable(&self, what: &str) -> Result<()> {
        if !matches!(self.format, Format::Blocked(_) | Format::Any) || self.is_zero() {
            return Err(Error::invalid(format!(
                "only blocked or `any` descriptors can {what}"
            )));
        }
        if self.has_runtime_dims_or_strides() {
            return Err(Error::invalid(format!(
                "cannot {what} a descriptor with run-time values"
            )));
        }
        Ok(())
    }

    /// `dnnl_memory_desc_reshape`: the same elements seen as `dims`. Possible
    /// when the change is a sequence of: adding a dimension of 1; removing an
    /// unpadded dimension of 1; splitting an unpadded dimension; joining
    /// consecutive dimensions that are dense, in logical order and not
    /// blocked. Anything else is an invalid argument, as upstream.
    pub fn reshape(&self, dims: &[i64]) -> Result<Self> {
        self.check_reshapeable("reshape")?;
        if dims.is_empty() {
            return Err(Error::invalid("cannot reshape to zero dimensions"));
        }
        let shaped = MemoryDesc::shaped(dims, self.data_type, self.is_any_format())?;
        if volume(self.dims())? != volume(dims)? {
            return Err(Error::invalid(format!(
                "cannot reshape {:?} to {dims:?}: the number of elements differs",
                self.dims()
            )));
        }
        if dims.contains(&RUNTIME_DIM) {
            return Err(Error::invalid("cannot reshape to run-time dimensions"));
        }
        if self.is_any_format() {
            return MemoryDesc::with_tag(dims, self.data_type, crate::abi::dnnl_format_tag_any);
        }
        let mut out = self.clone();
        out.ndims = shaped.ndims;
        out.dims = shaped.dims;
        reshape_blocked(self, &mut out).map_err(|why| {
            Error::invalid(format!(
                "cannot reshape {:?} to {dims:?}: {why}",
                self.dims()
            ))
        })?;
        let out = out.canonical();
        out.check_size()?;
        Ok(out)
    }
}

/// The number of elements, a zero dimension counting as 1 (upstream's rule,
/// which lets empty tensors be reshaped among themselves).
fn volume(dims: &[i64]) -> Result<i64> {
    dims.iter().try_fold(1i64, |v, &d| {
        v.checked_mul(d.max(1))
            .ok_or_else(|| Error::invalid("the number of elements overflows"))
    })
}

enum Step {
    /// Input dimension `i` is 1 and unpadded: drop it.
    Remove1,
    /// Output dimension `o` is 1: add it.
    Add1,
    /// One input dimension is one output dimension.
    Keep,
    /// Input dimensions `i..i_end` are output dimensions `o..o_end`.
    Rearrange,
}

/// Walks input and output dimensions from the innermost logical one,
/// matching groups of equal volume (upstream's algorithm), and fills `out`'s
/// padded dims, offsets, strides and block indices.
fn reshape_blocked(
    input: &MemoryDesc,
    out: &mut MemoryDesc,
) -> std::result::Result<(), &'static str> {
    let (Format::Blocked(ib), Format::Blocked(ob)) = (&input.format, &mut out.format) else {
        return Err("not blocked");
    };
    let (i_dims, i_pdims) = (&input.dims, &input.padded_dims);
    let o_dims = out.dims;
    let blocks = input.blocks();
    let mut remapped = [false; MAX_NDIMS];

    let (mut i_end, mut o_end) = (input.ndims, out.ndims);
    let (mut i_begin, mut o_begin) = (i_end, o_end);
    while i_end != 0 || o_end != 0 {
        // Which step applies to the innermost unmatched dimensions.
        let same = i_end > 0 && o_end > 0 && i_dims[i_end - 1] == o_dims[o_end - 1];
        let step = if i_end > 0 && i_dims[i_end - 1] == 1 && i_pdims[i_end - 1] == 1 {
            i_begin = i_end - 1;
            Step::Remove1
        } else if same {
            i_begin = i_end - 1;
            o_begin = o_end - 1;
            Step::Keep
        } else if o_end > 0 && o_dims[o_end - 1] == 1 {
            o_begin = o_end - 1;
            Step::Add1
        } else if i_end == 0 || o_end == 0 {
            return Err("the dimensions do not match up");
        } else {
            i_begin = i_end - 1;
            o_begin = o_end - 1;
            let (mut i_vol, mut o_vol) = (i_dims[i_begin], o_dims[o_begin]);
            while i_vol != o_vol {
                if i_vol < o_vol {
                    if i_begin == 0 {
                        return Err("the dimensions do not match up");
                    }
                    i_begin -= 1;
                    i_vol = i_vol.saturating_mul(i_dims[i_begin]);
                    if i_vol == 0 {
                        return Err("a zero dimension inside a joined group");
                    }
                } else {
                    if o_begin == 0 {
                        return Err("the dimensions do not match up");
                    }
                    o_begin -= 1;
                    o_vol = o_vol.saturating_mul(o_dims[o_begin]);
                    if o_vol == 0 {
                        return Err("a zero dimension inside a joined group");
                    }
                }
            }
            Step::Rearrange
        };

        match step {
            Step::Remove1 => {}
            Step::Add1 => {
                let stride = if i_begin == input.ndims {
                    ib.inner().fold(1i64, |s, (size, _)| s.saturating_mul(size))
                } else {
                    // Upstream's formula (logical, not padded, extent).
                    ib.strides[i_begin].saturating_mul(i_dims[i_begin]) / blocks[i_begin]
                };
                out.padded_dims[o_begin] = 1;
                out.padded_offsets[o_begin] = 0;
                ob.strides[o_begin] = stride;
            }
            Step::Keep => {
                out.padded_dims[o_begin] = i_pdims[i_begin];
                out.padded_offsets[o_begin] = input.padded_offsets[i_begin];
                ob.strides[o_begin] = ib.strides[i_begin];
                for blk in 0..ib.inner_nblks {
                    if ib.inner_idxs[blk] == i_begin as i64 {
                        ob.inner_idxs[blk] = o_begin as i64;
                        remapped[blk] = true;
                    }
                }
            }
            Step::Rearrange => {
                for d in (i_begin + 1..i_end).rev() {
                    if i_dims[d].saturating_mul(ib.strides[d]) != ib.strides[d - 1] {
                        return Err("the joined dimensions are not dense and in order");
                    }
                }
                let blocked = (i_begin..i_end).any(|d| blocks[d] != 1);
                if blocked
                    || i_pdims[i_begin] != i_dims[i_begin]
                    || input.padded_offsets[i_begin] != 0
                {
                    return Err("a blocked or padded dimension cannot be split or joined");
                }
                let mut stride = ib.strides[i_end - 1];
                for d in (o_begin..o_end).rev() {
                    out.padded_dims[d] = o_dims[d];
                    out.padded_offsets[d] = 0;
                    ob.strides[d] = stride;
                    stride = stride.saturating_mul(o_dims[d]);
                }
            }
        }
        i_end = i_begin;
        o_end = o_begin;
    }
    // Upstream leaves a block pointing at a dimension that no longer exists
    // in some corner cases; such a result would describe nothing, so refuse.
    if (0..ib.inner_nblks).any(|blk| !remapped[blk]) {
        return Err("a blocked dimension would be lost");
    }
    Ok(())
}
