//! Reorder against an f64 reference: every type pair, plain, permuted,
//! blocked (with padding), strided and offset layouts, zero-sized tensors,
//! scales and zero points with every mask kind, the sum post-op, between a
//! CPU and an OpenCL engine both ways, and the refusals; on the CPU engine
//! and every OpenCL device.

#![allow(non_upper_case_globals)]
#![allow(
    clippy::needless_range_loop,
    clippy::cloned_ref_to_slice_refs,
    clippy::too_many_arguments
)]

use std::sync::Arc;

use super::*;
use crate::core::attr::{PrimitiveAttr, QuantKind, QuantSpec};
use crate::core::engine::Engine;
use crate::prims::common::testutil::xfer::*;

fn op(
    src: &MemoryDesc,
    se: &Arc<Engine>,
    dst: &MemoryDesc,
    de: &Arc<Engine>,
    attr: Option<&PrimitiveAttr>,
) -> Arc<ReorderOp> {
    Arc::new(ReorderOp::new(src, se.clone(), dst, de.clone(), attr).unwrap())
}

/// Runs a reorder from `src` (on `se`) to `dst` (on `de`) of the values
/// `vals`, dst first filled with `old`; returns (name, dst values).
fn run(
    src: &MemoryDesc,
    se: &Arc<Engine>,
    dst: &MemoryDesc,
    de: &Arc<Engine>,
    vals: &[f32],
    old: &[f32],
    attr: Option<&PrimitiveAttr>,
    extra: &[(i32, &TestMem)],
) -> (String, Vec<f32>) {
    let o = op(src, se, dst, de, attr);
    let engine = o.pd_engine();
    let s = memory(se, src, vals);
    let d = memory(de, dst, old);
    let mut args = vec![(DNNL_ARG_SRC, &s), (DNNL_ARG_DST, &d)];
    args.extend_from_slice(extra);
    let name = exec(&engine, o.clone(), &args);
    (name, read(&d))
}

#[test]
fn every_type_pair_transposing() {
    let dims = [3i64, 5, 7];
    let n = 105;
    for e in engines() {
        for (i, &sdt) in ALL_DT.iter().enumerate() {
            for &ddt in &ALL_DT {
                let src = md(&dims, sdt, dnnl_abc);
                let dst = md(&dims, ddt, dnnl_acb);
                let vals = values(n, -300.0, 300.0, sdt, i as u64);
                let (name, got) = run(&src, &e, &dst, &e, &vals, &[], None, &[]);
                let want: Vec<f64> = vals.iter().map(|&v| f64::from(v)).collect();
                check(
                    &got,
                    &want,
                    ddt,
                    &format!("{} {name} {sdt:?}->{ddt:?}", engine_name(&e)),
                );
            }
        }
    }
}

#[test]
fn layouts_padding_strides_offsets() {
    let strided =
        MemoryDesc::with_strides(&[2, 19, 3, 5], dnnl_f32, Some(&[800, 40, 12, 2])).unwrap();
    let big = md(&[3, 21, 4, 6], dnnl_f32, dnnl_nchw);
    let sub = big.submemory(&[2, 19, 3, 5], &[1, 2, 1, 1]).unwrap();
    let cases: Vec<(MemoryDesc, MemoryDesc)> = vec![
        (
            md(&[2, 19, 3, 5], dnnl_f32, dnnl_nchw),
            md(&[2, 19, 3, 5], dnnl_f32, dnnl_nChw16c),
        ),
        (
            md(&[2, 19, 3, 5], dnnl_bf16, dnnl_nChw16c),
            md(&[2, 19, 3, 5], dnnl_f32, dnnl_nhwc),
        ),
        (
            md(&[2, 19, 3, 5], dnnl_f32, dnnl_nChw8c),
            md(&[2, 19, 3, 5], dnnl_s8, dnnl_nChw16c),
        ),
        (
            md(&[17, 19, 2, 3], dnnl_f32, dnnl_oihw),
            md(&[17, 19, 2, 3], dnnl_f16, dnnl_ABcd16b16a),
        ),
        (
            md(&[17, 19, 2, 3], dnnl_f16, dnnl_ABcd8a8b),
            md(&[17, 19, 2, 3], dnnl_f32, dnnl_ABcd16b16a),
        ),
        (
            md(&[2, 3, 4, 5, 6], dnnl_f32, dnnl_abcde),
            md(&[2, 3, 4, 5, 6], dnnl_u8, dnnl_aBcde8b),
        ),
        // Three inner blocks (OIhw4i16o4i), both ways.
        (
            md(&[17, 19, 2, 3], dnnl_f32, dnnl_oihw),
            md(&[17, 19, 2, 3], dnnl_s8, dnnl_OIhw4i16o4i),
        ),
        (
            md(&[17, 19, 2, 3], dnnl_f32, dnnl_OIhw4i16o4i),
            md(&[17, 19, 2, 3], dnnl_f32, dnnl_ABcd16b16a),
        ),
        (
            md(&[2, 19, 3, 5], dnnl_f32, dnnl_nchw),
            md(&[2, 19, 3, 5], dnnl_f32, dnnl_nchw),
        ),
        (strided.clone(), md(&[2, 19, 3, 5], dnnl_f32, dnnl_nhwc)),
        (md(&[2, 19, 3, 5], dnnl_f32, dnnl_nhwc), strided),
        (sub.clone(), md(&[2, 19, 3, 5], dnnl_s32, dnnl_nChw16c)),
        (md(&[2, 19, 3, 5], dnnl_f32, dnnl_nchw), sub),
        (
            md(&[2, 0, 3], dnnl_f32, dnnl_abc),
            md(&[2, 0, 3], dnnl_f32, dnnl_acb),
        ),
        (md(&[1], dnnl_f32, dnnl_a), md(&[1], dnnl_s8, dnnl_a)),
    ];
    for e in engines() {
        for (k, (src, dst)) in cases.iter().enumerate() {
            let n = src.dims().iter().product::<i64>() as usize;
            let vals = values(n, -100.0, 100.0, src.data_type(), k as u64);
            let (name, got) = run(src, &e, dst, &e, &vals, &[], None, &[]);
            let want: Vec<f64> = vals.iter().map(|&v| f64::from(v)).collect();
            check(
                &got,
                &want,
                dst.data_type(),
                &format!("{} {name} case {k}", engine_name(&e)),
            );
        }
    }
}

fn quant_attr(
    src_scale: Option<i32>,
    dst_scale: Option<i32>,
    src_zp: Option<i32>,
    dst_zp: Option<i32>,
    sum: Option<f32>,
) -> PrimitiveAttr {
    let mut a = PrimitiveAttr::default();
    let spec = |kind: QuantKind, mask| {
        QuantSpec::new(
            kind,
            mask,
            &[],
            kind.default_data_type(),
            false,
            dnnl_quantization_mode_static_sazp,
        )
        .unwrap()
    };
    if let Some(m) = src_scale {
        a.set_quant(QuantKind::Scales, DNNL_ARG_SRC, spec(QuantKind::Scales, m))
            .unwrap();
    }
    if let Some(m) = dst_scale {
        a.set_quant(QuantKind::Scales, DNNL_ARG_DST, spec(QuantKind::Scales, m))
            .unwrap();
    }
    if let Some(m) = src_zp {
        a.set_quant(
            QuantKind::ZeroPoints,
            DNNL_ARG_SRC,
            spec(QuantKind::ZeroPoints, m),
        )
        .unwrap();
    }
    if let Some(m) = dst_zp {
        a.set_quant(
            QuantKind::ZeroPoints,
            DNNL_ARG_DST,
            spec(QuantKind::ZeroPoints, m),
        )
        .unwrap();
    }
    if let Some(s) = sum {
        a.post_ops
            .append(|| PostOp::sum(s, 0, dnnl_data_type_undef))
            .unwrap();
    }
    a
}

/// Masks over (2, 3, 4): 0, 2 (dim 1), 5 (dims 0 and 2).
fn mask_len(mask: i32) -> usize {
    crate::prims::common::xfer::plan::mask_count(mask, &[2, 3, 4]) as usize
}

fn mask_at(mask: i32, idx: &[i64]) -> usize {
    let dims = [2i64, 3, 4];
    let mut i = 0;
    for d in 0..3 {
        if mask >> d & 1 != 0 {
            i = i * dims[d] + idx[d];
        }
    }
    i as usize
}

#[test]
fn scales_zero_points_and_sum() {
    let dims = [2i64, 3, 4];
    let cases = [
        (dnnl_f32, dnnl_s8, Some(0), Some(0), None, Some(0), None),
        (dnnl_s8, dnnl_f32, Some(2), None, Some(0), None, None),
        (dnnl_u8, dnnl_bf16, Some(5), Some(2), Some(2), Some(5), None),
        // A sum post-op with destination scales: the scales apply after it.
        (dnnl_f32, dnnl_u8, None, Some(5), None, None, Some(0.5)),
        (dnnl_f32, dnnl_f32, Some(0), None, None, None, Some(2.0)),
        (
            dnnl_s32,
            dnnl_f16,
            Some(2),
            Some(0),
            Some(5),
            None,
            Some(1.0),
        ),
    ];
    for e in engines() {
        for (k, &(sdt, ddt, ssc, dsc, szp, dzp, sum)) in cases.iter().enumerate() {
            let attr = quant_attr(ssc, dsc, szp, dzp, sum);
            let src = md(&dims, sdt, dnnl_abc);
            let dst = md(&dims, ddt, dnnl_cab);
            let vals = values(24, -20.0, 100.0, sdt, k as u64);
            let old = values(24, 0.0, 50.0, ddt, 99);
            let sv: Vec<f32> = (0..ssc.map_or(0, mask_len))
                .map(|i| 0.5 + i as f32 * 0.25)
                .collect();
            let dv: Vec<f32> = (0..dsc.map_or(0, mask_len))
                .map(|i| 2.0 - i as f32 * 0.125)
                .collect();
            let szv: Vec<i32> = (0..szp.map_or(0, mask_len)).map(|i| i as i32 - 2).collect();
            let dzv: Vec<i32> = (0..dzp.map_or(0, mask_len)).map(|i| 3 - i as i32).collect();
            let m_ssc = array_f32(&e, if sv.is_empty() { &[1.0] } else { &sv });
            let m_dsc = array_f32(&e, if dv.is_empty() { &[1.0] } else { &dv });
            let m_szp = array_s32(&e, if szv.is_empty() { &[0] } else { &szv });
            let m_dzp = array_s32(&e, if dzv.is_empty() { &[0] } else { &dzv });
            let extra = [
                (DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, &m_ssc),
                (DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, &m_dsc),
                (DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, &m_szp),
                (DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, &m_dzp),
            ];
            let (name, got) = run(&src, &e, &dst, &e, &vals, &old, Some(&attr), &extra);
            let want: Vec<f64> = indices(&dims)
                .iter()
                .enumerate()
                .map(|(i, idx)| {
                    let mut v = f64::from(vals[i]);
                    if let Some(m) = szp {
                        v -= f64::from(szv[mask_at(m, idx)]);
                    }
                    if let Some(m) = ssc {
                        v *= f64::from(sv[mask_at(m, idx)]);
                    }
                    if let Some(s) = sum {
                        v += f64::from(s) * f64::from(old[i]);
                    }
                    if let Some(m) = dsc {
                        v /= f64::from(dv[mask_at(m, idx)]);
                    }
                    if let Some(m) = dzp {
                        v += f64::from(dzv[mask_at(m, idx)]);
                    }
                    v
                })
                .collect();
            check(
                &got,
                &want,
                ddt,
                &format!("{} {name} case {k}", engine_name(&e)),
            );
        }
    }
}

/// Upstream's example: f32 `a` to `a`, destination scale 2, sum 1, source
/// {1, 2, 3, 4} over {1, 1, 1, 1} gives {1, 1.5, 2, 2.5}: (src + old) / 2.
#[test]
fn sum_post_op_comes_before_destination_scales() {
    for e in engines() {
        let dims = [4i64];
        let (src, dst) = (md(&dims, dnnl_f32, dnnl_a), md(&dims, dnnl_f32, dnnl_a));
        let attr = quant_attr(None, Some(0), None, None, Some(1.0));
        let m_dsc = array_f32(&e, &[2.0]);
        let extra = [(DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, &m_dsc)];
        let old = [1.0f32; 4];
        let (name, got) = run(
            &src,
            &e,
            &dst,
            &e,
            &[1.0, 2.0, 3.0, 4.0],
            &old,
            Some(&attr),
            &extra,
        );
        assert_eq!(got, [1.0, 1.5, 2.0, 2.5], "{} {name}", engine_name(&e));
    }
}

#[test]
fn between_cpu_and_opencl_both_ways() {
    let cpu = cpu_engine();
    let dims = [2i64, 19, 3, 5];
    for g in ocl_engines() {
        for (se, de) in [(&cpu, &g), (&g, &cpu)] {
            let src = md(&dims, dnnl_f32, dnnl_nchw);
            let dst = md(&dims, dnnl_bf16, dnnl_nChw16c);
            let vals = values(570, -50.0, 50.0, dnnl_f32, 7);
            let attr = quant_attr(Some(0), None, None, None, None);
            let sc = array_f32(&g, &[0.5]);
            let (name, got) = run(
                &src,
                se,
                &dst,
                de,
                &vals,
                &[],
                Some(&attr),
                &[(DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, &sc)],
            );
            assert_eq!(name, "ocl:cross_engine_host");
            let want: Vec<f64> = vals.iter().map(|&v| f64::from(v) * 0.5).collect();
            check(
                &got,
                &want,
                dnnl_bf16,
                &format!("{} cross", engine_name(&g)),
            );
            let o = op(&src, se, &dst, de, None);
            assert!(Arc::ptr_eq(&o.pd_engine(), &g));
            assert!(Arc::ptr_eq(
                &o.query_engine(dnnl_query_reorder_src_engine).unwrap(),
                se
            ));
            assert!(Arc::ptr_eq(
                &o.query_engine(dnnl_query_reorder_dst_engine).unwrap(),
                de
            ));
        }
    }
}

#[test]
fn implementations_chosen() {
    for e in ocl_engines() {
        let a = md(&[4, 5], dnnl_f32, dnnl_ab);
        let (name, got) = run(&a, &e, &a, &e, &[1.0; 20], &[], None, &[]);
        assert_eq!(name, "ocl:reorder_copy");
        assert_eq!(got, vec![1.0; 20]);
        let b = md(&[4, 5], dnnl_f32, dnnl_ba);
        let (name, _) = run(&a, &e, &b, &e, &[1.0; 20], &[], None, &[]);
        assert_eq!(name, "ocl:reorder_blocked");
        // Per-channel scales are the generic kernel's.
        let attr = quant_attr(Some(1), None, None, None, None);
        let sc = array_f32(&e, &[1.0; 5]);
        let extra = [(DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, &sc)];
        let (name, _) = run(&a, &e, &b, &e, &[1.0; 20], &[], Some(&attr), &extra);
        assert_eq!(name, "ocl:reorder_generic");
    }
}

#[test]
fn refusals() {
    let cpu = cpu_engine();
    let a = md(&[2, 3], dnnl_f32, dnnl_ab);
    let status = |r: Result<ReorderOp>| r.err().map(|e| e.status());
    let any = md(&[2, 3], dnnl_f32, dnnl_format_tag_any);
    assert_eq!(
        status(ReorderOp::new(&a, cpu.clone(), &any, cpu.clone(), None)),
        Some(dnnl_invalid_arguments)
    );
    let b = md(&[3, 2], dnnl_f32, dnnl_ab);
    assert_eq!(
        status(ReorderOp::new(&a, cpu.clone(), &b, cpu.clone(), None)),
        Some(dnnl_invalid_arguments)
    );
    let c = md(&[2, 3, 1], dnnl_f32, dnnl_abc);
    assert_eq!(
        status(ReorderOp::new(&a, cpu.clone(), &c, cpu.clone(), None)),
        Some(dnnl_invalid_arguments)
    );
    let mut attr = PrimitiveAttr::default();
    attr.post_ops
        .append(|| PostOp::eltwise(dnnl_eltwise_relu, 0.0, 0.0))
        .unwrap();
    assert_eq!(
        status(ReorderOp::new(
            &a,
            cpu.clone(),
            &a,
            cpu.clone(),
            Some(&attr)
        )),
        Some(dnnl_unimplemented)
    );
    let mut attr = PrimitiveAttr::default();
    let spec = QuantSpec::new(
        QuantKind::Scales,
        0,
        &[],
        dnnl_f32,
        false,
        dnnl_quantization_mode_static_sazp,
    )
    .unwrap();
    attr.set_quant(QuantKind::Scales, DNNL_ARG_WEIGHTS, spec)
        .unwrap();
    assert_eq!(
        status(ReorderOp::new(
            &a,
            cpu.clone(),
            &a,
            cpu.clone(),
            Some(&attr)
        )),
        Some(dnnl_unimplemented)
    );
}

#[test]
fn long_index_build() {
    use crate::core::primitive::{ExecArgs, ExecContext};
    use crate::core::stream::{Stream, StreamFlags};
    for e in ocl_engines() {
        let src = md(&[2, 19, 3, 5], dnnl_f32, dnnl_nChw16c);
        let dst = md(&[2, 19, 3, 5], dnnl_s8, dnnl_nhwc);
        let o = op(&src, &e, &dst, &e, None);
        let imp = crate::prims::common::xfer::ocl::generic_long(&e, o.plan.clone()).unwrap();
        let vals = values(570, -100.0, 100.0, dnnl_f32, 5);
        let s = memory(&e, &src, &vals);
        let d = memory(&e, &dst, &[]);
        let stream = Stream::create(
            e.clone(),
            StreamFlags {
                out_of_order: false,
                profiling: false,
            },
        )
        .unwrap();
        let args: ExecArgs = [
            (DNNL_ARG_SRC, s.real.clone()),
            (DNNL_ARG_DST, d.real.clone()),
        ]
        .into_iter()
        .collect();
        imp.execute(&ExecContext {
            stream: &stream,
            args: &args,
            deps: &[],
            scratchpad: None,
        })
        .unwrap();
        stream.wait().unwrap();
        let want: Vec<f64> = vals.iter().map(|&v| f64::from(v)).collect();
        check(
            &read(&d),
            &want,
            dnnl_s8,
            &format!("{} long", engine_name(&e)),
        );
    }
}

#[test]
fn transposes_through_tiles() {
    for e in ocl_engines() {
        let cases = [
            (
                md(&[37, 45], dnnl_f32, dnnl_ab),
                md(&[37, 45], dnnl_bf16, dnnl_ba),
            ),
            (
                md(&[2, 19, 9, 11], dnnl_u8, dnnl_nchw),
                md(&[2, 19, 9, 11], dnnl_f32, dnnl_nhwc),
            ),
            (
                md(&[3, 40, 33], dnnl_f16, dnnl_acb),
                md(&[3, 40, 33], dnnl_s32, dnnl_abc),
            ),
        ];
        for (k, (src, dst)) in cases.iter().enumerate() {
            let n = src.dims().iter().product::<i64>() as usize;
            let vals = values(n, -100.0, 200.0, src.data_type(), k as u64);
            let old = values(n, -10.0, 10.0, dst.data_type(), 3);
            let attr = quant_attr(None, None, None, None, Some(0.5));
            let (name, got) = run(src, &e, dst, &e, &vals, &old, Some(&attr), &[]);
            assert_eq!(name, "ocl:reorder_transpose");
            let want: Vec<f64> = vals
                .iter()
                .zip(&old)
                .map(|(&v, &o)| f64::from(v) + 0.5 * f64::from(o))
                .collect();
            check(
                &got,
                &want,
                dst.data_type(),
                &format!("{} transpose {k}", engine_name(&e)),
            );
        }
    }
}

#[test]
fn cpu_transposes_through_tiles() {
    let e = cpu_engine();
    let d4 = [2i64, 32, 35, 37];
    let cases = [
        (
            md(&[70, 45], dnnl_f32, dnnl_ab),
            md(&[70, 45], dnnl_f32, dnnl_ba),
        ),
        (
            md(&[2, 67, 5, 9], dnnl_f32, dnnl_nchw),
            md(&[2, 67, 5, 9], dnnl_f32, dnnl_nhwc),
        ),
        (
            md(&d4, dnnl_f32, dnnl_nChw16c),
            md(&d4, dnnl_f32, dnnl_nhwc),
        ),
        (
            md(&d4, dnnl_f32, dnnl_nhwc),
            md(&d4, dnnl_f32, dnnl_nChw16c),
        ),
        (
            md(&d4, dnnl_f32, dnnl_nChw16c),
            md(&d4, dnnl_f32, dnnl_nchw),
        ),
        (md(&d4, dnnl_f32, dnnl_nchw), md(&d4, dnnl_f32, dnnl_nChw8c)),
        (
            md(&d4, dnnl_bf16, dnnl_nChw16c),
            md(&d4, dnnl_s8, dnnl_nhwc),
        ),
        (md(&d4, dnnl_u8, dnnl_nChw8c), md(&d4, dnnl_f16, dnnl_nchw)),
    ];
    for (k, (src, dst)) in cases.iter().enumerate() {
        for sum in [false, true] {
            let n = src.dims().iter().product::<i64>() as usize;
            let vals = values(n, -100.0, 100.0, src.data_type(), k as u64);
            let old = values(n, -10.0, 10.0, dst.data_type(), 3);
            let attr = quant_attr(None, None, None, None, Some(0.5));
            let (_, got) = run(src, &e, dst, &e, &vals, &old, sum.then_some(&attr), &[]);
            let want: Vec<f64> = vals
                .iter()
                .zip(&old)
                .map(|(&v, &o)| f64::from(v) + if sum { 0.5 * f64::from(o) } else { 0.0 })
                .collect();
            check(
                &got,
                &want,
                dst.data_type(),
                &format!("cpu tiles {k} sum {sum}"),
            );
        }
    }
}

/// One case of the blocked sweep: source and destination descriptors.
fn blocked_pairs() -> Vec<(MemoryDesc, MemoryDesc)> {
    // Source and destination types, taken in turn by the cases.
    let types = [
        (dnnl_f32, dnnl_f32),
        (dnnl_f32, dnnl_bf16),
        (dnnl_f16, dnnl_f32),
        (dnnl_s8, dnnl_s8),
        (dnnl_u8, dnnl_f32),
        (dnnl_bf16, dnnl_bf16),
        (dnnl_f32, dnnl_s8),
        (dnnl_f16, dnnl_f16),
        (dnnl_s32, dnnl_u8),
    ];
    let act4 = [
        (dnnl_nChw16c, dnnl_nchw),
        (dnnl_nchw, dnnl_nChw16c),
        (dnnl_nChw16c, dnnl_nhwc),
        (dnnl_nhwc, dnnl_nChw16c),
        (dnnl_nChw8c, dnnl_nchw),
        (dnnl_nhwc, dnnl_nChw8c),
        (dnnl_nChw4c, dnnl_nhwc),
        (dnnl_nchw, dnnl_nChw4c),
        (dnnl_nChw16c, dnnl_nChw8c),
        (dnnl_nChw8c, dnnl_nChw16c),
        (dnnl_nChw16c, dnnl_nChw16c),
    ];
    // (n, c, h, w): C a multiple of the blocks, not one, under one block;
    // tiny and larger planes (several tiles, ragged edges).
    let act_dims = [
        [2i64, 32, 3, 5],
        [2, 19, 9, 11],
        [1, 3, 1, 1],
        [3, 37, 17, 40],
        [1, 48, 1, 70],
    ];
    let wei4 = [
        (dnnl_OIhw16i16o, dnnl_oihw),
        (dnnl_oihw, dnnl_OIhw16i16o),
        (dnnl_OIhw8i8o, dnnl_hwio),
        (dnnl_hwio, dnnl_OIhw8i8o),
        (dnnl_Ohwi16o, dnnl_oihw),
        (dnnl_oihw, dnnl_Ohwi16o),
        (dnnl_OIhw4i16o4i, dnnl_oihw),
        (dnnl_oihw, dnnl_OIhw4i16o4i),
        (dnnl_OIhw16i16o, dnnl_OIhw4i16o4i),
        (dnnl_IOhw16o16i, dnnl_OIhw16i16o),
    ];
    let wei_dims = [
        [32i64, 16, 3, 3],
        [17, 19, 2, 3],
        [5, 3, 1, 1],
        [35, 70, 3, 5],
    ];
    let other = [
        ([2i64, 19, 45], dnnl_nCw16c, dnnl_ncw),
        ([2, 19, 45], dnnl_nwc, dnnl_nCw16c),
        ([3, 21, 64], dnnl_nCw8c, dnnl_nwc),
        ([17, 35, 5], dnnl_OIw16i16o, dnnl_oiw),
        ([35, 17, 5], dnnl_wio, dnnl_OIw16i16o),
    ];
    let other5 = [
        ([2i64, 19, 3, 4, 5], dnnl_nCdhw16c, dnnl_ncdhw),
        ([2, 19, 3, 4, 5], dnnl_ndhwc, dnnl_nCdhw16c),
        ([1, 33, 2, 9, 10], dnnl_nCdhw8c, dnnl_ndhwc),
        ([1, 33, 2, 9, 10], dnnl_ncdhw, dnnl_nCdhw8c),
        ([19, 17, 2, 2, 3], dnnl_OIdhw16i16o, dnnl_oidhw),
        ([19, 17, 2, 2, 3], dnnl_dhwio, dnnl_OIdhw16i16o),
    ];
    let mut out = Vec::new();
    let mut k = 0;
    let mut push = |dims: &[i64], s, d| {
        let (sdt, mut ddt) = types[k % types.len()];
        k += 1;
        // One layout and type is a plain copy (ocl:reorder_copy).
        if s == d && sdt == ddt {
            ddt = if sdt == dnnl_f32 { dnnl_bf16 } else { dnnl_f32 };
        }
        out.push((md(dims, sdt, s), md(dims, ddt, d)));
    };
    for (i, &(s, d)) in act4.iter().enumerate() {
        for j in 0..2 {
            push(&act_dims[(2 * i + j) % act_dims.len()], s, d);
        }
    }
    for (i, &(s, d)) in wei4.iter().enumerate() {
        for j in 0..2 {
            push(&wei_dims[(2 * i + j) % wei_dims.len()], s, d);
        }
    }
    for (dims, s, d) in other {
        push(&dims, s, d);
    }
    for (dims, s, d) in other5 {
        push(&dims, s, d);
    }
    // Offsets: a channels-first region of a larger tensor (strided, offset)
    // to blocks, and into a region of a blocked tensor that keeps the
    // parent's padding (zeros from channel 24 to 32).
    let parent = md(&[3, 40, 10, 12], dnnl_f32, dnnl_nchw);
    let region = parent.submemory(&[2, 19, 9, 11], &[1, 3, 1, 1]).unwrap();
    out.push((region, md(&[2, 19, 9, 11], dnnl_bf16, dnnl_nChw16c)));
    let bparent = md(&[2, 40, 3, 5], dnnl_f32, dnnl_nChw16c);
    let bregion = bparent.submemory(&[2, 24, 3, 5], &[0, 16, 0, 0]).unwrap();
    out.push((md(&[2, 24, 3, 5], dnnl_f32, dnnl_nhwc), bregion));
    out
}

/// Blocked <-> plain and blocked <-> blocked reorders of every family, odd
/// sizes and type pairs, on the fast path (`ocl:reorder_blocked` on OpenCL
/// engines), against the source values: with no attributes, and with the sum
/// post-op and common scales and zero points.
#[test]
fn blocked_sweep() {
    for e in engines() {
        let gpu = !matches!(e.backend(), Backend::Cpu);
        for (k, (src, dst)) in blocked_pairs().iter().enumerate() {
            let n = src.dims().iter().product::<i64>() as usize;
            let (sdt, ddt) = (src.data_type(), dst.data_type());
            let vals = values(n, -60.0, 100.0, sdt, k as u64);
            let what = |name: &str, with: &str| {
                format!(
                    "{} {name} case {k} {:?}->{:?} {sdt:?}->{ddt:?} {with}",
                    engine_name(&e),
                    src.dims(),
                    dst.dims()
                )
            };
            let (name, got) = run(src, &e, dst, &e, &vals, &[], None, &[]);
            if gpu {
                assert_eq!(name, "ocl:reorder_blocked", "{}", what(&name, ""));
            }
            let want: Vec<f64> = vals.iter().map(|&v| f64::from(v)).collect();
            check(&got, &want, ddt, &what(&name, "plain"));
            // Sum, then common scales and zero points (every third case).
            let old = values(n, -8.0, 8.0, ddt, 7 + k as u64);
            let quant = k % 3 == 0;
            let attr = if quant {
                quant_attr(Some(0), Some(0), Some(0), Some(0), Some(0.5))
            } else {
                quant_attr(None, None, None, None, Some(0.5))
            };
            let (ssc, dsc, szp, dzp) = (0.5f32, 2.0f32, 3i32, -2i32);
            let m = [
                array_f32(&e, &[ssc]),
                array_f32(&e, &[dsc]),
                array_s32(&e, &[szp]),
                array_s32(&e, &[dzp]),
            ];
            let extra = [
                (DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, &m[0]),
                (DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, &m[1]),
                (DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, &m[2]),
                (DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, &m[3]),
            ];
            let extra = if quant { &extra[..] } else { &[] };
            let (name, got) = run(src, &e, dst, &e, &vals, &old, Some(&attr), extra);
            if gpu {
                assert_eq!(name, "ocl:reorder_blocked", "{}", what(&name, "attr"));
            }
            let want: Vec<f64> = vals
                .iter()
                .zip(&old)
                .map(|(&v, &o)| {
                    let (v, o) = (f64::from(v), f64::from(o));
                    if quant {
                        ((v - f64::from(szp)) * f64::from(ssc) + 0.5 * o) / f64::from(dsc)
                            + f64::from(dzp)
                    } else {
                        v + 0.5 * o
                    }
                })
                .collect();
            check(&got, &want, ddt, &what(&name, "sum/quant"));
        }
    }
}
