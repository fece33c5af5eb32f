//! Format tags -> blocked layouts.
//!
//! Every tag is decoded from its canonical name (the first-declared name of
//! its value, the one `dnnl_fmt_tag2str` prints), so that no table of
//! hundreds of layouts has to be kept in step with the enum. The grammar is
//! upstream's naming rule: one letter per logical dimension (`a` is dimension
//! 0), outermost first, upper case when the dimension is blocked; then the
//! inner blocks, outermost first, each a size and the lower-case letter of the
//! dimension it splits. `nChw16c` is `aBcd16b`, `OIhw16i16o` is `ABcd16b16a`,
//! `ABc4b16a4b` has three inner blocks (`b` split twice).

use crate::abi::*;
use crate::core::error::{Error, Result};

use super::{Blocking, Dims, MAX_NDIMS, MemoryDesc, RUNTIME_DIM};

/// The layout a format tag names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct TagLayout {
    /// Logical dimensions in memory order, outermost first.
    pub order: Vec<usize>,
    /// Inner blocks, outermost first: (block size, logical dimension).
    pub inner: Vec<(i64, usize)>,
}

impl TagLayout {
    pub fn ndims(&self) -> usize {
        self.order.len()
    }
}

/// The canonical name of a tag value: its first-declared enumerator, without
/// the `dnnl_` prefix. `None` for values that are not enumerators.
fn canonical_name(tag: dnnl_format_tag_t) -> Option<&'static str> {
    let (name, _) = dnnl_format_tag_t::ALL.iter().find(|(_, v)| *v == tag)?;
    name.to_str().ok()?.strip_prefix("dnnl_")
}

/// Decodes a tag other than `undef` and `any`.
pub(super) fn decode(tag: dnnl_format_tag_t) -> Result<TagLayout> {
    let name = canonical_name(tag)
        .filter(|n| !n.starts_with("format_tag_"))
        .ok_or_else(|| Error::invalid(format!("{} is not a format tag", tag.0)))?;
    parse(name).ok_or_else(|| {
        Error::unimplemented(format!(
            "format tag {name} names a layout this library does not decode"
        ))
    })
}

/// Parses `<dims><blocks>`; `None` if the name does not follow the grammar
/// or does not describe a consistent layout.
fn parse(name: &str) -> Option<TagLayout> {
    let bytes = name.as_bytes();
    let outer_len = bytes.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    let dim = |letter: u8| -> Option<usize> {
        let d = usize::from(letter.to_ascii_lowercase().checked_sub(b'a')?);
        (d < MAX_NDIMS).then_some(d)
    };

    let mut order = Vec::with_capacity(outer_len);
    let mut blocked = [false; MAX_NDIMS];
    for &letter in &bytes[..outer_len] {
        let d = dim(letter)?;
        blocked[d] = letter.is_ascii_uppercase();
        order.push(d);
    }
    let ndims = order.len();
    // Each of the dimensions 0..ndims exactly once.
    let mut seen = [false; MAX_NDIMS];
    for &d in &order {
        if d >= ndims || std::mem::replace(&mut seen[d], true) {
            return None;
        }
    }

    let mut inner = Vec::new();
    let mut rest = &bytes[outer_len..];
    while !rest.is_empty() {
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let (&letter, after) = rest[digits..].split_first()?;
        let size: i64 = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
        let d = dim(letter)?;
        if size < 1 || !letter.is_ascii_lowercase() || d >= ndims || !blocked[d] {
            return None;
        }
        inner.push((size, d));
        rest = after;
    }
    // A dimension written in upper case must have a block, and the blocks
    // must fit the descriptor's arrays.
    let all_blocked_have_blocks = (0..ndims).all(|d| !blocked[d] || inner.iter().any(|b| b.1 == d));
    (ndims > 0 && all_blocked_have_blocks && inner.len() <= MAX_NDIMS)
        .then_some(TagLayout { order, inner })
}

/// Lays `md` out as `layout` says, the way upstream's default blocking does:
/// padded dims rounded up to the blocks, inner blocks innermost, outer
/// dimensions in tag order, each stride the product of what lies inside it.
/// A zero dimension counts as 1 in the strides outside it (so that strides
/// stay meaningful); a run-time dimension makes every stride outside it
/// run-time. A padded dimension or stride that does not fit in a
/// `dnnl_dim_t` is an invalid argument.
pub(super) fn fill_blocked(md: &mut MemoryDesc, layout: &TagLayout) -> Result<()> {
    let dims = md.dims().to_vec();
    let overflow = |what: &str| {
        Error::invalid(format!(
            "dims {dims:?} laid out with blocks {:?}: {what} overflows",
            layout.inner
        ))
    };
    let mut blocking = Blocking::plain([0; MAX_NDIMS]);
    let mut blocks: Dims = [1; MAX_NDIMS];
    let mut block_size = 1i64;
    blocking.inner_nblks = layout.inner.len();
    for (i, &(size, d)) in layout.inner.iter().enumerate() {
        blocking.inner_blks[i] = size;
        blocking.inner_idxs[i] = d as i64;
        blocks[d] = blocks[d]
            .checked_mul(size)
            .ok_or_else(|| overflow("a block"))?;
        block_size = block_size
            .checked_mul(size)
            .ok_or_else(|| overflow("the block size"))?;
    }

    for d in 0..md.ndims {
        md.padded_offsets[d] = 0;
        md.padded_dims[d] = match md.dims[d] {
            RUNTIME_DIM => RUNTIME_DIM,
            dim => round_up(dim, blocks[d]).ok_or_else(|| overflow("a padded dimension"))?,
        };
    }

    let mut stride = block_size;
    for &d in layout.order.iter().rev() {
        blocking.strides[d] = stride;
        let pdim = md.padded_dims[d];
        stride = if pdim == RUNTIME_DIM || stride == RUNTIME_DIM {
            RUNTIME_DIM
        } else {
            stride
                .checked_mul((pdim / blocks[d]).max(1))
                .ok_or_else(|| overflow("a stride"))?
        };
    }
    md.offset0 = 0;
    md.format = super::Format::Blocked(blocking);
    Ok(())
}

/// `value` (a dimension, >= 0) rounded up to a multiple of `multiple` (a
/// block product, >= 1); `None` when that does not fit.
fn round_up(value: i64, multiple: i64) -> Option<i64> {
    value
        .checked_add(multiple - 1)
        .map(|v| v / multiple)?
        .checked_mul(multiple)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(tag: dnnl_format_tag_t) -> TagLayout {
        decode(tag).unwrap()
    }

    #[test]
    fn plain_tags_and_aliases() {
        assert_eq!(layout(dnnl_nchw).order, [0, 1, 2, 3]);
        assert_eq!(layout(dnnl_nhwc).order, [0, 2, 3, 1]);
        assert_eq!(layout(dnnl_cn).order, [1, 0]);
        assert_eq!(layout(dnnl_abcdefghijkl).ndims(), 12);
        assert!(layout(dnnl_nhwc).inner.is_empty());
    }

    #[test]
    fn blocked_tags() {
        let l = layout(dnnl_nChw16c);
        assert_eq!(
            (l.order.as_slice(), l.inner.as_slice()),
            (&[0, 1, 2, 3][..], &[(16, 1)][..])
        );
        let l = layout(dnnl_OIhw16i16o);
        assert_eq!(l.inner, [(16, 1), (16, 0)]);
        let l = layout(dnnl_gOIhw16i16o);
        assert_eq!(
            (l.ndims(), l.inner.as_slice()),
            (5, &[(16, 2), (16, 1)][..])
        );
        let l = layout(dnnl_ABc4b16a4b);
        assert_eq!(l.inner, [(4, 1), (16, 0), (4, 1)]);
        let l = layout(dnnl_BAc8a16b2a);
        assert_eq!(l.order, [1, 0, 2]);
    }

    #[test]
    fn every_declared_tag_decodes() {
        for (name, value) in dnnl_format_tag_t::ALL {
            let name = name.to_str().unwrap();
            if name.starts_with("dnnl_format_tag_") {
                continue;
            }
            assert!(decode(*value).is_ok(), "{name}");
        }
    }

    #[test]
    fn values_that_are_not_tags_are_invalid() {
        for tag in [
            dnnl_format_tag_t(5000),
            dnnl_format_tag_last,
            dnnl_format_tag_any,
        ] {
            assert!(
                matches!(decode(tag), Err(Error::InvalidArguments(_))),
                "{tag:?}"
            );
        }
    }

    #[test]
    fn malformed_names_are_refused() {
        for name in [
            "", "aa", "ab16b", "Ab", "aB16c", "aB0b", "abd", "aB16", "aB16B", "mn",
        ] {
            assert_eq!(parse(name), None, "{name}");
        }
        assert!(parse("aBc16b").is_some());
    }
}
