//! Sum against an f64 reference: mixed types and layouts, padding, one and
//! many sources, zero-sized tensors, `any`/NULL destinations, refusals; on
//! the CPU engine and every OpenCL device.

#![allow(non_upper_case_globals)]
#![allow(
    clippy::needless_range_loop,
    clippy::cloned_ref_to_slice_refs,
    clippy::too_many_arguments
)]

use super::*;
use crate::prims::common::testutil::xfer::*;

fn run(
    e: &std::sync::Arc<crate::core::engine::Engine>,
    srcs: &[MemoryDesc],
    scales: &[f32],
    dst: Option<&MemoryDesc>,
    seed: u64,
) {
    let op = Arc::new(SumOp::new(dst, scales, srcs, None).unwrap());
    let dst_md = op.dst.as_ref().clone();
    let n = srcs[0].dims().iter().product::<i64>() as usize;
    let vals: Vec<Vec<f32>> = srcs
        .iter()
        .enumerate()
        .map(|(i, s)| values(n, -60.0, 60.0, s.data_type(), seed + i as u64))
        .collect();
    let mems: Vec<TestMem> = srcs
        .iter()
        .zip(&vals)
        .map(|(s, v)| memory(e, s, v))
        .collect();
    let d = memory(e, &dst_md, &[]);
    let mut args: Vec<(i32, &TestMem)> = mems
        .iter()
        .enumerate()
        .map(|(i, m)| (DNNL_ARG_MULTIPLE_SRC + i as i32, m))
        .collect();
    args.push((DNNL_ARG_DST, &d));
    let name = exec(e, op.clone(), &args);
    let want: Vec<f64> = (0..n)
        .map(|j| {
            vals.iter()
                .zip(scales)
                .map(|(v, &s)| f64::from(s) * f64::from(v[j]))
                .sum()
        })
        .collect();
    let got = read(&d);
    // The running sum is f32 (a scratch tensor for other destinations):
    // one rounding at the end.
    check(
        &got,
        &want,
        dst_md.data_type(),
        &format!("{} {name}", engine_name(e)),
    );
}

#[test]
fn mixed_types_and_layouts() {
    let dims = [2i64, 19, 3, 5];
    for e in engines() {
        run(
            &e,
            &[
                md(&dims, dnnl_f32, dnnl_nchw),
                md(&dims, dnnl_bf16, dnnl_nhwc),
                md(&dims, dnnl_s8, dnnl_nChw16c),
            ],
            &[1.0, 0.5, -2.0],
            Some(&md(&dims, dnnl_f32, dnnl_nChw8c)),
            1,
        );
        run(
            &e,
            &[
                md(&dims, dnnl_f16, dnnl_nChw16c),
                md(&dims, dnnl_u8, dnnl_nchw),
            ],
            &[2.0, 0.25],
            None,
            2,
        );
        run(&e, &[md(&[7, 3], dnnl_f32, dnnl_ab)], &[1.0], None, 3);
        run(
            &e,
            &[
                md(&[7, 3], dnnl_s32, dnnl_ab),
                md(&[7, 3], dnnl_s32, dnnl_ba),
            ],
            &[3.0, -1.0],
            Some(&md(&[7, 3], dnnl_s32, dnnl_format_tag_any)),
            4,
        );
        run(
            &e,
            &[
                md(&[4, 0], dnnl_f32, dnnl_ab),
                md(&[4, 0], dnnl_f32, dnnl_ab),
            ],
            &[1.0, 1.0],
            None,
            5,
        );
        run(
            &e,
            &vec![md(&[33], dnnl_f32, dnnl_a); 5],
            &[1.0, 2.0, 3.0, 4.0, 5.0],
            Some(&md(&[33], dnnl_bf16, dnnl_a)),
            6,
        );
    }
}

#[test]
fn resolution_and_refusals() {
    let a = md(&[2, 19, 3, 5], dnnl_f32, dnnl_nChw16c);
    let op = SumOp::new(
        Some(&md(&[2, 19, 3, 5], dnnl_bf16, dnnl_format_tag_any)),
        &[1.0],
        &[a.clone()],
        None,
    )
    .unwrap();
    assert_eq!(op.dst.data_type(), dnnl_bf16);
    assert!(op.dst.padded_dims() == a.padded_dims());
    assert_eq!(op.arg_md(DNNL_ARG_MULTIPLE_SRC).unwrap().as_ref(), &a);
    assert_eq!(op.inputs().len(), 1);
    let b = md(&[2, 19, 3, 4], dnnl_f32, dnnl_nchw);
    let err = SumOp::new(None, &[1.0, 1.0], &[a.clone(), b], None)
        .err()
        .unwrap();
    assert_eq!(err.status(), dnnl_invalid_arguments);
    let err = SumOp::new(None, &[], &[], None).err().unwrap();
    assert_eq!(err.status(), dnnl_invalid_arguments);
    let c = md(&[2, 19, 3], dnnl_f32, dnnl_abc);
    let err = SumOp::new(None, &[1.0, 1.0], &[a.clone(), c], None)
        .err()
        .unwrap();
    assert_eq!(err.status(), dnnl_invalid_arguments);
    let any = md(&[2, 19, 3, 5], dnnl_f32, dnnl_format_tag_any);
    let err = SumOp::new(None, &[1.0], &[any], None).err().unwrap();
    assert_eq!(err.status(), dnnl_invalid_arguments);
}
