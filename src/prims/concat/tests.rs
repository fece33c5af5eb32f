//! Concat against an f64 reference: every axis, mixed types and layouts,
//! blocked destinations with padding and unaligned offsets, zero-sized
//! sources, scales per source, `any`/NULL destinations, refusals; on the CPU
//! engine and every OpenCL device.

#![allow(non_upper_case_globals)]
#![allow(
    clippy::needless_range_loop,
    clippy::cloned_ref_to_slice_refs,
    clippy::too_many_arguments
)]

use super::*;
use crate::core::attr::{QuantKind, QuantSpec};
use crate::prims::common::testutil::attr_checked;
use crate::prims::common::testutil::xfer::*;

/// Concatenates along `axis`; `scales` per source (None: no attribute).
fn run(
    e: &std::sync::Arc<crate::core::engine::Engine>,
    srcs: &[MemoryDesc],
    axis: i32,
    dst: Option<&MemoryDesc>,
    scales: Option<&[f32]>,
) -> String {
    let attr = scales.map(|sc| {
        let mut a = PrimitiveAttr::default();
        for i in 0..sc.len() {
            let spec = QuantSpec::new(
                QuantKind::Scales,
                0,
                &[],
                dnnl_f32,
                false,
                dnnl_quantization_mode_static_sazp,
            )
            .unwrap();
            a.set_quant(QuantKind::Scales, DNNL_ARG_MULTIPLE_SRC + i as i32, spec)
                .unwrap();
        }
        a
    });
    let op = Arc::new(ConcatOp::new(dst, axis, srcs, attr.as_ref()).unwrap());
    let dst_md = op.dst.as_ref().clone();
    let vals: Vec<Vec<f32>> = srcs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let n = s.dims().iter().product::<i64>() as usize;
            values(n, -100.0, 100.0, s.data_type(), i as u64 + 11)
        })
        .collect();
    let mems: Vec<TestMem> = srcs
        .iter()
        .zip(&vals)
        .map(|(s, v)| memory(e, s, v))
        .collect();
    let scale_mems: Vec<TestMem> = scales
        .unwrap_or(&[])
        .iter()
        .map(|&s| array_f32(e, &[s]))
        .collect();
    let d = memory(e, &dst_md, &[]);
    let mut args: Vec<(i32, &TestMem)> = mems
        .iter()
        .enumerate()
        .map(|(i, m)| (DNNL_ARG_MULTIPLE_SRC + i as i32, m))
        .collect();
    for (i, m) in scale_mems.iter().enumerate() {
        args.push((DNNL_ARG_ATTR_SCALES | (DNNL_ARG_MULTIPLE_SRC + i as i32), m));
    }
    args.push((DNNL_ARG_DST, &d));
    let name = exec(e, op.clone(), &args);
    let a = axis as usize;
    let want: Vec<f64> = indices(dst_md.dims())
        .iter()
        .map(|idx| {
            let mut x = idx[a];
            for (k, s) in srcs.iter().enumerate() {
                if x < s.dims()[a] {
                    let mut j = 0;
                    for d in 0..s.ndims() {
                        let c = if d == a { x } else { idx[d] };
                        j = j * s.dims()[d] + c;
                    }
                    let sc = scales.map_or(1.0, |v| v[k]);
                    return f64::from(vals[k][j as usize]) * f64::from(sc);
                }
                x -= s.dims()[a];
            }
            unreachable!()
        })
        .collect();
    check(
        &read(&d),
        &want,
        dst_md.data_type(),
        &format!("{} {name} axis {axis}", engine_name(e)),
    );
    name
}

#[test]
fn every_axis_mixed_layouts() {
    for e in engines() {
        for axis in 0..4 {
            let mut a = [2i64, 19, 3, 5];
            let mut b = a;
            a[axis] = 3;
            b[axis] = 1;
            let mut c = a;
            c[axis] = 0;
            let mut total = a;
            total[axis] = 4;
            run(
                &e,
                &[
                    md(&a, dnnl_f32, dnnl_nchw),
                    md(&c, dnnl_f32, dnnl_nchw),
                    md(&b, dnnl_bf16, dnnl_nhwc),
                ],
                axis as i32,
                Some(&md(&total, dnnl_f32, dnnl_nChw16c)),
                None,
            );
        }
        run(
            &e,
            &[
                md(&[2, 5, 3], dnnl_s8, dnnl_acb),
                md(&[2, 7, 3], dnnl_u8, dnnl_abc),
            ],
            1,
            None,
            Some(&[0.5, 2.0]),
        );
        run(
            &e,
            &[
                md(&[2, 16, 3, 3], dnnl_f32, dnnl_nChw16c),
                md(&[2, 16, 3, 3], dnnl_f32, dnnl_nChw16c),
            ],
            1,
            Some(&md(&[2, 32, 3, 3], dnnl_f16, dnnl_format_tag_any)),
            None,
        );
        let name = run(&e, &[md(&[6, 4], dnnl_f32, dnnl_ab)], 0, None, None);
        assert!(name.ends_with("copy") || name == "cpu:concat", "{name}");
    }
}

#[test]
fn resolution_and_refusals() {
    let a = md(&[2, 19, 3, 5], dnnl_f32, dnnl_nChw16c);
    let b = md(&[2, 4, 3, 5], dnnl_f32, dnnl_nchw);
    let op = ConcatOp::new(None, 1, &[a.clone(), b.clone()], None).unwrap();
    assert_eq!(op.dst.dims(), &[2, 23, 3, 5]);
    assert_eq!(op.dst.padded_dims(), &[2, 32, 3, 5]);
    assert_eq!(
        op.inputs(),
        vec![DNNL_ARG_MULTIPLE_SRC, DNNL_ARG_MULTIPLE_SRC + 1]
    );
    assert_eq!(op.src_arg(1), Some(DNNL_ARG_MULTIPLE_SRC + 1));
    let status = |r: Result<ConcatOp>| r.err().map(|e| e.status());
    assert_eq!(
        status(ConcatOp::new(None, 0, &[a.clone(), b.clone()], None)),
        Some(dnnl_invalid_arguments)
    );
    assert_eq!(
        status(ConcatOp::new(None, 4, &[a.clone()], None)),
        Some(dnnl_invalid_arguments)
    );
    assert_eq!(
        status(ConcatOp::new(None, -1, &[a.clone()], None)),
        Some(dnnl_invalid_arguments)
    );
    assert_eq!(
        status(ConcatOp::new(None, 0, &[], None)),
        Some(dnnl_invalid_arguments)
    );
    let c = md(&[2, 4, 3], dnnl_f32, dnnl_abc);
    assert_eq!(
        status(ConcatOp::new(None, 1, &[a.clone(), c], None)),
        Some(dnnl_invalid_arguments)
    );
    let wrong = md(&[2, 22, 3, 5], dnnl_f32, dnnl_nchw);
    assert_eq!(
        status(ConcatOp::new(
            Some(&wrong),
            1,
            &[a.clone(), b.clone()],
            None
        )),
        Some(dnnl_invalid_arguments)
    );
    let mut attr = PrimitiveAttr::default();
    let spec = QuantSpec::new(
        QuantKind::Scales,
        2,
        &[],
        dnnl_f32,
        false,
        dnnl_quantization_mode_static_sazp,
    )
    .unwrap();
    attr.set_quant(QuantKind::Scales, DNNL_ARG_MULTIPLE_SRC, spec)
        .unwrap();
    assert_eq!(
        status(ConcatOp::new(None, 1, &[a.clone(), b.clone()], Some(&attr))),
        Some(dnnl_unimplemented)
    );
    let mut attr = PrimitiveAttr::default();
    let spec = QuantSpec::new(
        QuantKind::ZeroPoints,
        0,
        &[],
        dnnl_s32,
        false,
        dnnl_quantization_mode_static_sazp,
    )
    .unwrap();
    attr.set_quant(QuantKind::ZeroPoints, DNNL_ARG_DST, spec)
        .unwrap();
    assert_eq!(
        status(attr_checked(
            ConcatOp::new(None, 1, &[a, b], Some(&attr)),
            &attr
        )),
        Some(dnnl_unimplemented)
    );
}
