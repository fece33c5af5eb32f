//! Shuffle against the definition: forward and backward, every axis of
//! 1D to 5D tensors, plain, channels-last and padded-stride layouts, vector
//! and scalar GPU paths, the types; forward then backward gives the input
//! back; on the CPU engine and on every OpenCL (and Level Zero) device
//! present.

#![allow(non_upper_case_globals)]

use std::sync::Arc;

use super::*;
use crate::core::engine::Engine;
use crate::prims::common::testutil::{engine_name, engines, exec, indices, md, memory, read};

/// Row-major index of `idx` with position `c` on `axis`.
fn flat(dims: &[i64], idx: &[i64], axis: usize, c: i64) -> usize {
    let mut f = 0;
    for d in 0..dims.len() {
        f = f * dims[d] + if d == axis { c } else { idx[d] };
    }
    f as usize
}

/// Checks forward (and backward on the forward's result) of one case.
fn check(engine: &Arc<Engine>, m: &MemoryDesc, axis: usize, g: i64) {
    let dims = m.dims().to_vec();
    let n: i64 = dims.iter().product();
    let elem = Elem::from_c(m.data_type()).unwrap();
    let x: Vec<f32> = (0..n)
        .map(|i| match elem {
            Elem::F32 | Elem::S32 => i as f32,
            Elem::U8 => (i % 251) as f32,
            Elem::S8 => (i % 251 - 125) as f32,
            _ => (i % 256) as f32,
        })
        .collect();
    let attr = PrimitiveAttr::default();
    let any = MemoryDesc::with_tag(&dims, m.data_type(), dnnl_format_tag_any).unwrap();
    let fwd = Arc::new(
        ShuffleOp::forward(dnnl_forward_training, m, &any, axis as i32, g, &attr).unwrap(),
    );
    assert_eq!(fwd.arg_md(DNNL_ARG_DST).unwrap().as_ref(), m);
    let (ms, mo) = (memory(engine, m, &x), memory(engine, m, &[]));
    exec(engine, fwd, &[(DNNL_ARG_SRC, &ms), (DNNL_ARG_DST, &mo)]);
    let y = read(&mo);
    let c = dims[axis];
    let what = format!("{} {dims:?} axis {axis} group {g}", engine_name(engine));
    for (i, idx) in indices(&dims).iter().enumerate() {
        // dst(c) = src(c') with c = u + v*C/G, c' = u*G + v.
        let (u, v) = (idx[axis] % (c / g), idx[axis] / (c / g));
        let want = x[flat(&dims, &idx[..dims.len()], axis, u * g + v)];
        assert_eq!(y[i], want, "{what}: forward at {idx:?}");
    }
    let bwd = Arc::new(ShuffleOp::backward(m, m, axis as i32, g, &attr).unwrap());
    let back = memory(engine, m, &[]);
    exec(
        engine,
        bwd,
        &[(DNNL_ARG_DIFF_DST, &mo), (DNNL_ARG_DIFF_SRC, &back)],
    );
    assert_eq!(read(&back), x, "{what}: backward of forward");
}

#[test]
fn every_axis_layout_and_type() {
    for engine in engines() {
        let e = &engine;
        check(e, &md(&[2, 12, 3, 5], dnnl_f32, dnnl_abcd), 1, 4);
        check(e, &md(&[2, 12, 3, 5], dnnl_f32, dnnl_abcd), 1, 3);
        check(e, &md(&[2, 12, 3, 5], dnnl_f32, dnnl_acdb), 1, 4);
        check(e, &md(&[2, 12, 3, 5], dnnl_f32, dnnl_abcd), 3, 5);
        check(e, &md(&[2, 12, 3, 5], dnnl_f32, dnnl_abcd), 0, 2);
        check(e, &md(&[2, 12, 3, 5], dnnl_f32, dnnl_abcd), 1, 1);
        check(e, &md(&[2, 12, 3, 5], dnnl_f32, dnnl_abcd), 1, 12);
        // Vector paths: innermost runs of 8 and 16 elements.
        check(e, &md(&[3, 6, 2, 8], dnnl_f32, dnnl_abcd), 1, 2);
        check(e, &md(&[3, 6, 16], dnnl_u8, dnnl_abc), 1, 3);
        check(e, &md(&[3, 6, 16], dnnl_bf16, dnnl_abc), 1, 2);
        check(e, &md(&[2, 10, 3, 4, 2], dnnl_f32, dnnl_acdeb), 1, 5);
        check(e, &md(&[30], dnnl_s8, dnnl_a), 0, 6);
        check(e, &md(&[4, 6, 7], dnnl_s32, dnnl_cab), 2, 7);
        check(e, &md(&[4, 6, 7], dnnl_f16, dnnl_abc), 1, 3);
        let padded = MemoryDesc::with_strides(&[2, 6, 5], dnnl_f32, Some(&[80, 12, 2])).unwrap();
        check(e, &padded, 1, 2);
    }
}

#[test]
fn in_place_on_the_cpu() {
    let engine = engines().remove(0);
    let m = md(&[2, 6, 4], dnnl_f32, dnnl_abc);
    let x: Vec<f32> = (0..48).map(|i| i as f32).collect();
    let attr = PrimitiveAttr::default();
    let op = Arc::new(ShuffleOp::forward(dnnl_forward_inference, &m, &m, 1, 2, &attr).unwrap());
    let mem = memory(&engine, &m, &x);
    exec(
        &engine,
        op,
        &[(DNNL_ARG_SRC, &mem), (DNNL_ARG_DST, &mem.same())],
    );
    let y = read(&mem);
    assert_eq!(y.len(), 48);
    for (i, &got) in y.iter().enumerate() {
        let (n, c, w) = (i / 24, i / 4 % 6, i % 4);
        let src_c = c % 3 * 2 + c / 3;
        assert_eq!(got, x[n * 24 + src_c * 4 + w], "at {i}");
    }
}

#[test]
fn descriptor_rules() {
    let attr = PrimitiveAttr::default();
    let src = md(&[2, 12, 3], dnnl_f32, dnnl_abc);
    let status = |r: Result<ShuffleOp>| r.map(|_| ()).map_err(|e| e.status());
    let fwd = |dst: &MemoryDesc, axis: i32, g: i64| {
        status(ShuffleOp::forward(
            dnnl_forward_inference,
            &src,
            dst,
            axis,
            g,
            &attr,
        ))
    };
    assert_eq!(fwd(&src, 1, 4), Ok(()));
    assert_eq!(fwd(&src, 1, 5), Err(dnnl_invalid_arguments));
    assert_eq!(fwd(&src, 1, 0), Err(dnnl_invalid_arguments));
    assert_eq!(fwd(&src, 1, 24), Err(dnnl_invalid_arguments));
    assert_eq!(fwd(&src, -2, 4), Err(dnnl_invalid_arguments));
    assert_eq!(fwd(&src, 3, 1), Err(dnnl_invalid_arguments));
    assert_eq!(
        fwd(&md(&[2, 12, 4], dnnl_f32, dnnl_abc), 1, 4),
        Err(dnnl_invalid_arguments)
    );
    assert_eq!(
        fwd(&md(&[2, 12, 3], dnnl_bf16, dnnl_abc), 1, 4),
        Err(dnnl_unimplemented)
    );
    assert_eq!(
        fwd(&md(&[2, 12, 3], dnnl_f32, dnnl_acb), 1, 4),
        Err(dnnl_unimplemented)
    );
    assert_eq!(
        status(ShuffleOp::forward(dnnl_backward, &src, &src, 1, 4, &attr)),
        Err(dnnl_invalid_arguments)
    );
    let nwc = md(&[2, 12, 3], dnnl_f32, dnnl_acb);
    let any = md(&[2, 12, 3], dnnl_f32, dnnl_format_tag_any);
    let op = ShuffleOp::backward(&nwc, &any, 1, 3, &attr).unwrap();
    assert_eq!(op.arg_md(DNNL_ARG_DIFF_DST).unwrap().as_ref(), &nwc);
    assert_eq!(op.query_s64(dnnl_query_group_size_s64), Some(3));
    assert_eq!(op.query_s32(dnnl_query_axis_s32), Some(1));
    assert_eq!(op.prop_kind(), dnnl_backward_data);
    // diff_src `any` is plain: a channels-last diff_dst then differs.
    assert_eq!(
        status(ShuffleOp::backward(&any, &nwc, 1, 3, &attr)),
        Err(dnnl_unimplemented)
    );
}
