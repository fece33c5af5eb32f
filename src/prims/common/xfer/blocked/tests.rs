//! The blocked fast path's planning: digits, rectangles, launch shapes (no
//! device needed; the kernels are checked against references in
//! `prims/reorder/tests.rs`).

use super::*;
use crate::abi::*;
use crate::core::memory_desc::MemoryDesc;
use crate::prims::common::xfer::plan::Pass;

fn layout(dims: &[i64], dt: dnnl_data_type_t, tag: dnnl_format_tag_t) -> Layout {
    Layout::new(&MemoryDesc::with_tag(dims, dt, tag).unwrap()).unwrap()
}

fn plan(src: &Layout, dst: &Layout) -> Plan {
    Plan {
        dst_arg: DNNL_ARG_DST,
        dst: dst.clone(),
        passes: vec![Pass::full(dst, Some((DNNL_ARG_SRC, src)))],
        scratch: None,
    }
}

/// Every position of `[lo, hi)` exactly once, from the rectangles.
fn covered(lo: i64, hi: i64, units: &[i64]) -> Vec<i64> {
    let mut out = Vec::new();
    for r in split(lo, hi, units) {
        let mut positions = vec![0i64];
        for &(u, start, count) in &r {
            positions = positions
                .iter()
                .flat_map(|&p| (start..start + count).map(move |q| p + q * u))
                .collect();
        }
        out.extend(positions);
    }
    out.sort_unstable();
    out
}

#[test]
fn split_covers_each_position_once() {
    for units in [&[1i64][..], &[1, 16], &[1, 8, 16], &[1, 4, 16, 64]] {
        for lo in 0..40 {
            for hi in lo..70 {
                assert_eq!(
                    covered(lo, hi, units),
                    (lo..hi).collect::<Vec<_>>(),
                    "{units:?} [{lo}, {hi})"
                );
            }
        }
    }
    // At most two rectangles per level.
    assert_eq!(split(0, 19, &[1, 16]).len(), 2);
    assert_eq!(split(19, 32, &[1, 16]).len(), 1);
}

#[test]
fn digits_of_both_layouts() {
    let a = layout(&[2, 19, 3, 5], dnnl_f32, dnnl_nChw16c);
    let b = layout(&[2, 19, 3, 5], dnnl_f32, dnnl_nChw8c);
    assert_eq!(units(1, &[&a, &b]), Some(vec![1, 8, 16]));
    assert_eq!(units(2, &[&a, &b]), Some(vec![1]));
    let w = layout(&[17, 19, 2, 3], dnnl_f32, dnnl_OIhw4i16o4i);
    assert_eq!(units(1, &[&w]), Some(vec![1, 4, 16]));
}

#[test]
fn shapes_of_the_big_cases() {
    let dims = [32i64, 256, 56, 56];
    let l = |tag| layout(&dims, dnnl_f32, tag);
    let one = |s, d| {
        let ls = launches(&plan(&l(s), &l(d))).unwrap();
        assert_eq!(ls.len(), 1, "{ls:?}");
        ls[0].clone()
    };
    // Blocked to plain: a 16 x 3136 transposition per (n, block).
    let x = one(dnnl_nChw16c, dnnl_nchw);
    assert_eq!(
        x.loops,
        vec![
            Loop {
                size: 512,
                ss: 16 * 3136,
                ds: 16 * 3136
            },
            Loop {
                size: 16,
                ss: 1,
                ds: 3136
            },
            Loop {
                size: 3136,
                ss: 16,
                ds: 1
            },
        ]
    );
    assert!(matches!(
        x.shape,
        Shape::Tiles {
            ka: 2,
            kb: 1,
            kv: None,
            lv: 0,
            lta: 5,
            ltb: 4,
            row: 17
        }
    ));
    let x = one(dnnl_nchw, dnnl_nChw16c);
    assert!(matches!(
        x.shape,
        Shape::Tiles {
            ka: 2,
            kb: 1,
            kv: None,
            lv: 0,
            lta: 4,
            ltb: 5,
            ..
        }
    ));
    // Blocked to channels-last: vectors of 16 between them.
    let x = one(dnnl_nChw16c, dnnl_nhwc);
    assert!(
        matches!(
            x.shape,
            Shape::Tiles {
                ka: 2,
                kb: 1,
                kv: Some(3),
                lv: 4,
                lta: 2,
                ltb: 3,
                row: 144
            }
        ),
        "{x:?}"
    );
    let x = one(dnnl_nhwc, dnnl_nChw16c);
    assert!(
        matches!(
            x.shape,
            Shape::Tiles {
                kv: Some(3),
                lv: 4,
                ..
            }
        ),
        "{x:?}"
    );
    // Weights, both ways.
    let x = one(dnnl_OIhw16i16o, dnnl_oihw);
    assert!(matches!(x.shape, Shape::Tiles { .. }), "{x:?}");
    let x = one(dnnl_oihw, dnnl_OIhw16i16o);
    assert!(matches!(x.shape, Shape::Tiles { .. }), "{x:?}");
    // Same layout, another type: one long aligned run.
    let s = l(dnnl_nChw16c);
    let d = layout(&dims, dnnl_bf16, dnnl_nChw16c);
    let ls = launches(&plan(&s, &d)).unwrap();
    assert_eq!(ls.len(), 1);
    assert_eq!(ls[0].loops.len(), 1);
    assert_eq!(ls[0].shape, Shape::Runs { vec: true });
}

#[test]
fn tails_and_padding() {
    let dims = [2i64, 19, 3, 5];
    let s = layout(&dims, dnnl_f32, dnnl_nchw);
    let d = layout(&dims, dnnl_f32, dnnl_nChw16c);
    let ls = launches(&plan(&s, &d)).unwrap();
    // The full block, the 3 channels of the next, the 13 padding ones.
    assert_eq!(ls.len(), 3, "{ls:?}");
    assert_eq!(ls.iter().filter(|l| l.zero).count(), 1);
    let written: i64 = ls.iter().map(Launch::elems).sum();
    assert_eq!(written, d.padded_nelems());
    // Plain to plain sizes: one launch, no padding.
    let ls = launches(&plan(&d, &s)).unwrap();
    assert_eq!(ls.len(), 2);
    assert!(ls.iter().all(|l| !l.zero));
    assert_eq!(ls.iter().map(Launch::elems).sum::<i64>(), s.nelems());
}

#[test]
fn refusals() {
    let dims = [2i64, 19, 3, 5];
    let s = layout(&dims, dnnl_f32, dnnl_nchw);
    let d = layout(&dims, dnnl_f32, dnnl_nChw16c);
    let mut p = plan(&s, &d);
    p.passes[0].quant.src_scale = Some(QuantArg {
        arg: DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC,
        mask: 2,
    });
    assert!(launches(&p).is_err());
    p.passes[0].quant.src_scale = Some(QuantArg {
        arg: DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC,
        mask: 0,
    });
    assert!(launches(&p).is_ok());
    let mut p = plan(&s, &d);
    p.passes.push(p.passes[0].clone());
    assert!(launches(&p).is_err());
}
