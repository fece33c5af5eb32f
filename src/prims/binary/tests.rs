//! Binary against an f64 reference: every algorithm, mixed data types,
//! broadcasting (scalar, per-channel, arbitrary), blocked layouts with
//! padding, in-place, select with mixed condition types, scales, empty
//! tensors and the descriptor rules, on the CPU engine and on every OpenCL
//! device present. The helpers are prims::common::testutil's.

#![allow(non_upper_case_globals)]

use std::sync::Arc;

use super::*;
use crate::core::engine::{Engine, EngineKind};
use crate::core::memory_desc::MAX_NDIMS;
use crate::prims::common::testutil::{
    TestMem, attr_checked, engine_name, engines, exec, indices, md, memory, read, rounded, values,
};

// ---------------------------------------------------------------------------
// Binary.

fn alg_ref(alg: BinaryAlg, a: f64, b: f64, c: f64) -> f64 {
    let flag = |x: bool| if x { 1.0 } else { 0.0 };
    match alg {
        BinaryAlg::Add => a + b,
        BinaryAlg::Mul => a * b,
        BinaryAlg::Max => a.max(b),
        BinaryAlg::Min => a.min(b),
        BinaryAlg::Div => a / b,
        BinaryAlg::Sub => a - b,
        BinaryAlg::Ge => flag(a >= b),
        BinaryAlg::Gt => flag(a > b),
        BinaryAlg::Le => flag(a <= b),
        BinaryAlg::Lt => flag(a < b),
        BinaryAlg::Eq => flag(a == b),
        BinaryAlg::Ne => flag(a != b),
        BinaryAlg::Select => {
            if c != 0.0 {
                a
            } else {
                b
            }
        }
    }
}

struct Case<'a> {
    alg: BinaryAlg,
    src0: &'a MemoryDesc,
    src1: &'a MemoryDesc,
    src2: Option<&'a MemoryDesc>,
    dst: &'a MemoryDesc,
    scales: [Option<f32>; 2],
    in_place: bool,
}

fn case<'a>(
    alg: BinaryAlg,
    src0: &'a MemoryDesc,
    src1: &'a MemoryDesc,
    dst: &'a MemoryDesc,
) -> Case<'a> {
    Case {
        alg,
        src0,
        src1,
        src2: None,
        dst,
        scales: [None, None],
        in_place: false,
    }
}

/// Runs a case on `engine` against the reference; returns the implementation name.
fn check(engine: &Arc<Engine>, c: &Case) -> String {
    let mut attr = PrimitiveAttr::default();
    for (k, s) in c.scales.iter().enumerate() {
        if s.is_some() {
            let spec =
                crate::core::attr::QuantSpec::with_mask(crate::core::attr::QuantKind::Scales, 0)
                    .unwrap();
            attr.scales
                .insert([DNNL_ARG_SRC_0, DNNL_ARG_SRC_1][k], spec);
        }
    }
    let op = Arc::new(BinaryOp::new(c.alg.to_c(), c.src0, c.src1, c.src2, c.dst, &attr).unwrap());
    let elem_of = |md: &MemoryDesc| Elem::from_c(md.data_type()).unwrap();
    let n = |md: &MemoryDesc| md.dims().iter().product::<i64>() as usize;
    let v0 = values(n(c.src0), elem_of(c.src0), 0);
    let mut v1 = values(n(c.src1), elem_of(c.src1), 1);
    if c.alg == BinaryAlg::Div {
        for v in &mut v1 {
            if *v == 0.0 {
                *v = 2.0;
            }
        }
    }
    let v2 = c.src2.map(|m| values(n(m), elem_of(m), 2));
    let m0 = memory(engine, c.src0, &v0);
    let m1 = memory(engine, c.src1, &v1);
    let m2 = c.src2.zip(v2.as_ref()).map(|(m, v)| memory(engine, m, v));
    let dst_md = op.arg_md(DNNL_ARG_DST).unwrap().as_ref().clone();
    let md_ = if c.in_place {
        m0.same()
    } else {
        memory(engine, &dst_md, &[])
    };
    let scale_mems: Vec<(i32, TestMem)> = c
        .scales
        .iter()
        .enumerate()
        .filter_map(|(k, s)| {
            s.map(|s| {
                (
                    DNNL_ARG_ATTR_SCALES | [DNNL_ARG_SRC_0, DNNL_ARG_SRC_1][k],
                    memory(engine, &md(&[1], dnnl_f32, dnnl_a), &[s]),
                )
            })
        })
        .collect();
    let mut args = vec![
        (DNNL_ARG_SRC_0, &m0),
        (DNNL_ARG_SRC_1, &m1),
        (DNNL_ARG_DST, &md_),
    ];
    if let Some(m2) = &m2 {
        args.push((DNNL_ARG_SRC_2, m2));
    }
    for (a, m) in &scale_mems {
        args.push((*a, m));
    }
    let name = exec(engine, op.clone(), &args);
    let got = read(&md_);
    let dims = c.dst.dims();
    let flat = |md: &MemoryDesc, idx: &[i64; MAX_NDIMS]| {
        let mut f = 0i64;
        for (&size, &i) in md.dims().iter().zip(idx) {
            f = f * size + if size == 1 { 0 } else { i };
        }
        f as usize
    };
    let out_elem = elem_of(&dst_md);
    let (s0, s1) = (c.scales[0].unwrap_or(1.0), c.scales[1].unwrap_or(1.0));
    for (i, idx) in indices(dims).iter().enumerate() {
        let a = f64::from(v0[flat(c.src0, idx)]) * f64::from(s0);
        let b = f64::from(v1[flat(c.src1, idx)]) * f64::from(s1);
        let cc = v2
            .as_ref()
            .map_or(0.0, |v| f64::from(v[flat(c.src2.unwrap(), idx)]));
        let want = alg_ref(c.alg, a, b, cc);
        let want_r = f64::from(rounded(out_elem, want as f32));
        let tol = if out_elem.is_int() {
            1.0
        } else {
            want_r.abs() * 1e-6
        };
        assert!(
            (f64::from(got[i]) - want_r).abs() <= tol,
            "{} {:?} {:?}: element {idx:?}: got {}, want {want_r}",
            engine_name(engine),
            c.alg,
            name,
            got[i]
        );
    }
    name
}

/// Every algorithm, dense f32 with a tail, and with per-channel broadcast.
#[test]
fn every_algorithm_dense_and_broadcast() {
    let a = md(&[3, 5, 7, 11], dnnl_f32, dnnl_nchw);
    let per_channel = md(&[1, 5, 1, 1], dnnl_f32, dnnl_nchw);
    let cond = md(&[3, 5, 7, 11], dnnl_s8, dnnl_nchw);
    for engine in engines() {
        for alg in BinaryAlg::all() {
            let mut c = case(alg, &a, &a, &a);
            if alg.is_ternary() {
                c.src2 = Some(&cond);
            }
            let name = check(&engine, &c);
            assert!(name.contains("dense"), "{name}");
            c.src1 = &per_channel;
            let name = check(&engine, &c);
            assert!(name.contains("generic"), "{name}");
        }
    }
}

/// Mixed data types, scalar src1, select with u8 / s32 / f32 conditions
/// broadcast, scales.
#[test]
fn data_types_scalar_select_and_scales() {
    let dims = [2i64, 3, 37];
    let scalar = md(&[1, 1, 1], dnnl_f32, dnnl_abc);
    for engine in engines() {
        for (t0, t1, td) in [
            (dnnl_f16, dnnl_bf16, dnnl_f32),
            (dnnl_s8, dnnl_u8, dnnl_s32),
            (dnnl_f32, dnnl_s8, dnnl_u8),
            (dnnl_bf16, dnnl_f32, dnnl_f16),
        ] {
            let (s0, s1, d) = (
                md(&dims, t0, dnnl_abc),
                md(&dims, t1, dnnl_abc),
                md(&dims, td, dnnl_abc),
            );
            check(&engine, &case(BinaryAlg::Add, &s0, &s1, &d));
            check(&engine, &case(BinaryAlg::Mul, &s0, &scalar, &d));
        }
        let x = md(&dims, dnnl_f32, dnnl_abc);
        for (ct, cdims) in [
            (dnnl_u8, [2i64, 1, 37]),
            (dnnl_s32, [1, 3, 1]),
            (dnnl_f32, [2, 3, 37]),
        ] {
            let cond = md(&cdims, ct, dnnl_abc);
            let mut c = case(BinaryAlg::Select, &x, &scalar, &x);
            c.src2 = Some(&cond);
            check(&engine, &c);
        }
        let mut c = case(BinaryAlg::Sub, &x, &x, &x);
        c.scales = [Some(0.5), Some(-3.0)];
        assert!(check(&engine, &c).contains("dense"));
        c.src1 = &scalar;
        c.scales = [None, Some(4.0)];
        check(&engine, &c);
    }
}

/// Blocked layouts with padding, mixed layouts, dst `any`, in-place.
#[test]
fn layouts_padding_any_and_in_place() {
    let dims = [2i64, 19, 3, 5];
    let nchw = md(&dims, dnnl_f32, dnnl_nchw);
    let nhwc = md(&dims, dnnl_f32, dnnl_nhwc);
    let blocked = md(&dims, dnnl_f32, dnnl_nChw16c);
    let blocked_bf = md(&dims, dnnl_bf16, dnnl_nChw8c);
    let chan_blocked = md(&[1, 19, 1, 1], dnnl_f32, dnnl_nChw16c);
    let spatial = md(&[2, 1, 3, 5], dnnl_f32, dnnl_nhwc);
    let any = md(&dims, dnnl_f16, dnnl_format_tag_any);
    let parent = md(&[9, 13], dnnl_f32, dnnl_ab);
    let sub = parent.submemory(&[5, 11], &[3, 1]).unwrap();
    for engine in engines() {
        check(&engine, &case(BinaryAlg::Add, &blocked, &nchw, &nhwc));
        check(
            &engine,
            &case(BinaryAlg::Max, &nhwc, &chan_blocked, &blocked),
        );
        check(
            &engine,
            &case(BinaryAlg::Div, &blocked, &spatial, &blocked_bf),
        );
        let c = case(BinaryAlg::Mul, &blocked, &blocked, &any);
        check(&engine, &c);
        // src0 broadcast, dst `any` following src1.
        let any32 = md(&dims, dnnl_f32, dnnl_format_tag_any);
        check(&engine, &case(BinaryAlg::Sub, &chan_blocked, &nhwc, &any32));
        for (s0, s1) in [(&blocked, &chan_blocked), (&nchw, &nchw), (&nhwc, &spatial)] {
            let mut c = case(BinaryAlg::Sub, s0, s1, s0);
            c.in_place = true;
            check(&engine, &c);
        }
        check(&engine, &case(BinaryAlg::Add, &sub, &sub, &sub));
        let mut c = case(BinaryAlg::Add, &sub, &sub, &sub);
        c.in_place = true;
        check(&engine, &c);
    }
}

/// Zero-sized tensors do nothing (and do not fail).
#[test]
fn empty_tensors() {
    let e = md(&[2, 0, 3], dnnl_f32, dnnl_abc);
    let b = md(&[1, 0, 1], dnnl_f32, dnnl_abc);
    for engine in engines() {
        check(&engine, &case(BinaryAlg::Add, &e, &e, &e));
        check(&engine, &case(BinaryAlg::Add, &e, &b, &e));
    }
}

/// A large tensor split over threads (CPU) and many work-groups.
#[test]
fn large_tensor() {
    let a = md(&[3, 64, 1031], dnnl_f32, dnnl_abc);
    let b = md(&[3, 1, 1031], dnnl_f32, dnnl_abc);
    let cpu = Engine::create(EngineKind::Cpu, 0).unwrap();
    check(&cpu, &case(BinaryAlg::Add, &a, &a, &a));
    check(&cpu, &case(BinaryAlg::Add, &a, &b, &a));
    let mut c = case(BinaryAlg::Mul, &a, &b, &a);
    c.in_place = true;
    check(&cpu, &c);
    let mut c = case(BinaryAlg::Sub, &a, &a, &a);
    c.in_place = true;
    assert!(check(&cpu, &c).contains("dense"));
}

#[test]
fn descriptor_checks() {
    let attr = PrimitiveAttr::default();
    let a = md(&[2, 3, 4], dnnl_f32, dnnl_abc);
    let bad = md(&[2, 2, 4], dnnl_f32, dnnl_abc);
    let one = md(&[1, 1, 1], dnnl_f32, dnnl_abc);
    let two = md(&[2, 3], dnnl_f32, dnnl_ab);
    let any = md(&[2, 3, 4], dnnl_f32, dnnl_format_tag_any);
    let cond = md(&[2, 3, 4], dnnl_s8, dnnl_abc);
    let status = |r: Result<BinaryOp>| r.err().map(|e| e.status());
    let new = |alg, s0: &MemoryDesc, s1: &MemoryDesc, s2: Option<&MemoryDesc>, d: &MemoryDesc| {
        status(BinaryOp::new(alg, s0, s1, s2, d, &attr))
    };
    assert_eq!(new(dnnl_binary_add, &a, &one, None, &a), None);
    assert_eq!(
        new(dnnl_binary_add, &a, &bad, None, &a),
        Some(dnnl_invalid_arguments)
    );
    assert_eq!(new(dnnl_binary_add, &one, &a, None, &a), None);
    assert_eq!(
        new(dnnl_binary_add, &one, &one, None, &a),
        Some(dnnl_invalid_arguments)
    );
    assert_eq!(
        new(dnnl_binary_add, &a, &two, None, &a),
        Some(dnnl_invalid_arguments)
    );
    assert_eq!(
        new(dnnl_binary_add, &any, &a, None, &a),
        Some(dnnl_invalid_arguments)
    );
    assert_eq!(new(dnnl_binary_add, &a, &any, None, &any), None);
    assert_eq!(
        new(dnnl_binary_select, &a, &a, None, &a),
        Some(dnnl_invalid_arguments)
    );
    assert_eq!(new(dnnl_binary_select, &a, &a, Some(&cond), &a), None);
    assert_eq!(
        new(dnnl_binary_add, &a, &a, Some(&cond), &a),
        Some(dnnl_invalid_arguments)
    );
    assert_eq!(
        new(dnnl_eltwise_relu, &a, &a, None, &a),
        Some(dnnl_invalid_arguments)
    );
    let f64md = md(&[2, 3, 4], dnnl_f64, dnnl_abc);
    assert_eq!(
        new(dnnl_binary_add, &a, &f64md, None, &a),
        Some(dnnl_unimplemented)
    );
    // Attributes binary does not apply.
    let mut zp = PrimitiveAttr::default();
    zp.zero_points.insert(
        DNNL_ARG_SRC_0,
        crate::core::attr::QuantSpec::with_mask(crate::core::attr::QuantKind::ZeroPoints, 0)
            .unwrap(),
    );
    assert_eq!(
        status(attr_checked(
            BinaryOp::new(dnnl_binary_add, &a, &a, None, &a, &zp),
            &zp
        )),
        Some(dnnl_unimplemented)
    );
    let mut sc = PrimitiveAttr::default();
    sc.scales.insert(
        DNNL_ARG_SRC_0,
        crate::core::attr::QuantSpec::with_mask(crate::core::attr::QuantKind::Scales, 1).unwrap(),
    );
    assert_eq!(
        status(attr_checked(
            BinaryOp::new(dnnl_binary_add, &a, &a, None, &a, &sc),
            &sc
        )),
        Some(dnnl_unimplemented)
    );
}

/// Post-ops on binary (needs the lead's PostOpsPlan).
#[test]
fn post_ops_relu_and_sum() {
    let a = md(&[2, 19, 3], dnnl_f32, dnnl_abc);
    let mut attr = PrimitiveAttr::default();
    attr.post_ops
        .append(|| crate::core::attr::PostOp::eltwise(dnnl_eltwise_relu, 0.0, 0.0))
        .unwrap();
    for engine in engines() {
        let op = Arc::new(BinaryOp::new(dnnl_binary_sub, &a, &a, None, &a, &attr).unwrap());
        let v0 = values(114, Elem::F32, 0);
        let v1 = values(114, Elem::F32, 1);
        let (m0, m1, m2) = (
            memory(&engine, &a, &v0),
            memory(&engine, &a, &v1),
            memory(&engine, &a, &[]),
        );
        exec(
            &engine,
            op.clone(),
            &[
                (DNNL_ARG_SRC_0, &m0),
                (DNNL_ARG_SRC_1, &m1),
                (DNNL_ARG_DST, &m2),
            ],
        );
        for (i, g) in read(&m2).iter().enumerate() {
            assert_eq!(*g, (v0[i] - v1[i]).max(0.0));
        }
    }
}
