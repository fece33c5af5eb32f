//! Unit tests of the attribute model: setters, rules, snapshots, views and
//! the verbose spelling.

use std::sync::Arc;

use super::*;
use crate::core::memory_desc::MemoryDesc;

fn md(dims: &[i64], dt: dnnl_data_type_t, tag: dnnl_format_tag_t) -> MemoryDesc {
    MemoryDesc::with_tag(dims, dt, tag).unwrap()
}

fn spec(kind: QuantKind, mask: i32, groups: &[i64], dt: dnnl_data_type_t) -> Result<QuantSpec> {
    QuantSpec::new(
        kind,
        mask,
        groups,
        dt,
        false,
        dnnl_quantization_mode_static_sazp,
    )
}

#[test]
fn defaults_are_upstreams() {
    let a = PrimitiveAttr::default();
    assert!(!a.scratchpad_user);
    assert_eq!(a.scratchpad_mode(), dnnl_scratchpad_mode_library);
    assert!(!a.fpmath.apply_to_int);
    assert_eq!(a.accumulation, dnnl_accumulation_mode_strict);
    assert_eq!(a.rounding(DNNL_ARG_DST), dnnl_rounding_mode_environment);
    assert_eq!(
        a.rnn_data_qparams,
        RnnDataQparams {
            scale: 1.0,
            shift: 0.0
        }
    );
    assert_eq!(a.rnn_weights_qparams.mask, 0);
    assert_eq!(&*a.rnn_weights_qparams.scales, &[1.0]);
    assert!(a.is_default());
    assert_eq!(a.to_verbose(), "");
}

#[test]
fn modes_are_checked() {
    let mut a = PrimitiveAttr::default();
    a.set_scratchpad_mode(dnnl_scratchpad_mode_user).unwrap();
    assert!(a.scratchpad_user);
    assert!(a.set_scratchpad_mode(dnnl_scratchpad_mode_t(2)).is_err());
    assert!(a.scratchpad_user, "a refused value changes nothing");
    a.set_fpmath(dnnl_fpmath_mode_tf32, true).unwrap();
    assert_eq!(
        a.fpmath,
        FpMath {
            mode: dnnl_fpmath_mode_tf32,
            apply_to_int: true
        }
    );
    assert!(a.set_fpmath(dnnl_fpmath_mode_t(5), false).is_err());
    a.set_accumulation_mode(dnnl_accumulation_mode_f16).unwrap();
    assert!(
        a.set_accumulation_mode(dnnl_accumulation_mode_t(6))
            .is_err()
    );
    assert_eq!(a.accumulation, dnnl_accumulation_mode_f16);
    // Everything but the scratchpad and fpmath modes counts as non-default.
    assert_eq!(part_names(&a), vec!["acc-mode"]);
}

#[test]
fn rounding_follows_upstream() {
    let mut a = PrimitiveAttr::default();
    for arg in [DNNL_ARG_DST, DNNL_ARG_DIFF_SRC, DNNL_ARG_DIFF_WEIGHTS] {
        a.set_rounding(arg, dnnl_rounding_mode_stochastic).unwrap();
        assert_eq!(a.rounding(arg), dnnl_rounding_mode_stochastic);
    }
    for arg in [DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DIFF_DST, -1, 12345] {
        assert!(a.set_rounding(arg, dnnl_rounding_mode_stochastic).is_err());
        // `environment` is a no-op for any argument...
        a.set_rounding(arg, dnnl_rounding_mode_environment).unwrap();
    }
    // ...including one already set, which keeps its mode (as upstream).
    a.set_rounding(DNNL_ARG_DST, dnnl_rounding_mode_environment)
        .unwrap();
    assert_eq!(a.rounding(DNNL_ARG_DST), dnnl_rounding_mode_stochastic);
    assert!(
        a.set_rounding(DNNL_ARG_DST, dnnl_rounding_mode_t(5))
            .is_err()
    );
}

#[test]
fn dropout_rules() {
    let mut a = PrimitiveAttr::default();
    let u8_mask = md(&[2, 3], dnnl_u8, dnnl_ab);
    a.set_dropout(&u8_mask, dnnl_s64, true, false).unwrap();
    let d = a.dropout.clone().unwrap();
    assert_eq!(*d.mask_desc, u8_mask);
    assert_eq!(
        (d.seed_dt, d.use_offset, d.use_host_scalars),
        (dnnl_s64, true, false)
    );
    a.set_dropout(&MemoryDesc::zero(), dnnl_s32, false, true)
        .unwrap();
    assert!(a.dropout.as_ref().unwrap().mask_desc.is_zero());
    assert!(
        a.set_dropout(&md(&[2, 3], dnnl_f32, dnnl_ab), dnnl_s32, false, false)
            .is_err()
    );
    assert!(a.set_dropout(&u8_mask, dnnl_u8, false, false).is_err());
    assert!(
        a.dropout.as_ref().unwrap().use_host_scalars,
        "unchanged by refusals"
    );
}

#[test]
fn quant_rules() {
    use QuantKind::*;
    // Arguments.
    for arg in [
        1, 2, 3, 17, 33, 34, 35, 1024, 1030, 3072, 16385, 16401, 16417,
    ] {
        assert!(Scales.accepts_arg(arg), "{arg}");
    }
    for arg in [0, 4, 41, 2048, 16386, -1, i32::MIN | 1024] {
        assert!(!Scales.accepts_arg(arg), "{arg}");
    }
    for arg in [1, 3, 17, 33, 34, 35] {
        assert!(ZeroPoints.accepts_arg(arg), "{arg}");
    }
    for arg in [2, 1024, 16401, 41] {
        assert!(!ZeroPoints.accepts_arg(arg), "{arg}");
    }
    assert!(PrecomputedReductions.accepts_arg(DNNL_ARG_SRC));
    assert!(!PrecomputedReductions.accepts_arg(DNNL_ARG_WEIGHTS));
    // Masks, groups, data types.
    assert!(spec(Scales, -1, &[], dnnl_f32).is_err());
    assert!(
        spec(Scales, 0, &[2, 3], dnnl_f32).is_err(),
        "groups need a mask"
    );
    assert!(spec(Scales, 3, &[0, 3], dnnl_f32).is_err());
    assert!(spec(Scales, 3, &[2], dnnl_f32).is_err());
    assert_eq!(
        spec(Scales, 3, &[2, 3], dnnl_f32).unwrap().groups,
        Some([2, 3])
    );
    for dt in [dnnl_f32, dnnl_bf16, dnnl_f16] {
        spec(Scales, 0, &[], dt).unwrap();
    }
    for dt in [dnnl_f8_e4m3, dnnl_e8m0] {
        assert!(spec(Scales, 0, &[], dt).is_err());
        spec(Scales, 1, &[], dt).unwrap();
    }
    for dt in [
        dnnl_s8,
        dnnl_f8_e5m2,
        dnnl_data_type_undef,
        dnnl_data_type_t(999),
    ] {
        assert!(spec(Scales, 3, &[], dt).is_err());
    }
    for dt in [dnnl_s32, dnnl_s8, dnnl_u8] {
        spec(ZeroPoints, 0, &[], dt).unwrap();
    }
    assert!(spec(ZeroPoints, 0, &[], dnnl_s4).is_err());
    spec(ZeroPoints, 2, &[], dnnl_u4).unwrap();
    assert!(spec(ZeroPoints, 0, &[], dnnl_f32).is_err());
    spec(PrecomputedReductions, 0, &[], dnnl_s32).unwrap();
    assert!(spec(PrecomputedReductions, 3, &[1, 32], dnnl_f32).is_err());
    // Host scalars and quantization modes.
    let host = |mask, qmode| QuantSpec::new(Scales, mask, &[], dnnl_f32, true, qmode);
    host(0, dnnl_quantization_mode_dynamic_mx).unwrap();
    assert!(host(1, dnnl_quantization_mode_static_sazp).is_err());
    assert!(host(0, dnnl_quantization_mode_undef).is_err());
    assert!(host(0, dnnl_quantization_mode_t(4)).is_err());
}

#[test]
fn quant_settings_replace_per_argument() {
    let mut a = PrimitiveAttr::default();
    let kind = QuantKind::Scales;
    a.set_quant(
        kind,
        DNNL_ARG_WEIGHTS,
        spec(kind, 3, &[4, 1], dnnl_f16).unwrap(),
    )
    .unwrap();
    a.set_quant(kind, DNNL_ARG_SRC, QuantSpec::with_mask(kind, 0).unwrap())
        .unwrap();
    a.set_quant(
        kind,
        DNNL_ARG_WEIGHTS,
        QuantSpec::with_mask(kind, 2).unwrap(),
    )
    .unwrap();
    assert_eq!(a.scales.len(), 2);
    let wei = a.scales[&DNNL_ARG_WEIGHTS];
    assert_eq!((wei.mask, wei.data_type, wei.groups), (2, dnnl_f32, None));
    assert!(a.set_quant(kind, DNNL_ARG_BIAS, wei).is_err());
    assert_eq!(part_names(&a), vec!["scales"]);
    let zp = QuantSpec::with_mask(QuantKind::ZeroPoints, 0).unwrap();
    assert_eq!(zp.data_type, dnnl_s32);
}

#[test]
fn post_op_rules() {
    let mut ops = PostOps::default();
    ops.append(|| PostOp::sum(2.0, 3, dnnl_s8)).unwrap();
    ops.append(|| PostOp::eltwise(dnnl_eltwise_clip, -1.0, 2.0))
        .unwrap();
    let src1 = md(&[1, 6], dnnl_bf16, dnnl_ab);
    ops.append(|| PostOp::binary(dnnl_binary_mul, &src1, None))
        .unwrap();
    ops.append(|| Ok(PostOp::Prelu { mask: -1 })).unwrap();
    ops.append(|| PostOp::depthwise(dnnl_s8, dnnl_data_type_undef, dnnl_u8, 3, 2, 1))
        .unwrap();
    let kinds: Vec<_> = ops.entries().iter().map(PostOp::kind).collect();
    assert_eq!(
        kinds,
        [
            dnnl_sum,
            dnnl_eltwise,
            dnnl_binary,
            dnnl_prelu,
            dnnl_convolution
        ]
    );
    assert!(ops.entry(5).is_err() && ops.entry(-1).is_err());
    // Argument rules.
    assert!(PostOp::eltwise(dnnl_binary_add, 0.0, 0.0).is_err());
    assert!(PostOp::eltwise(dnnl_eltwise_clip, 1.0, 0.0).is_err());
    assert!(PostOp::eltwise(dnnl_eltwise_clip_v2, f32::NAN, 1.0).is_err());
    assert!(PostOp::eltwise(dnnl_eltwise_relu_use_dst_for_bwd, -1.0, 0.0).is_err());
    PostOp::eltwise(dnnl_eltwise_relu, f32::NAN, f32::INFINITY).unwrap();
    assert!(PostOp::binary(dnnl_eltwise_relu, &src1, None).is_err());
    assert!(PostOp::binary(dnnl_binary_select, &src1, None).is_err());
    PostOp::binary(dnnl_binary_select, &src1, Some(&src1)).unwrap();
    assert!(PostOp::sum(1.0, 0, dnnl_data_type_t(999)).is_err());
    for (k, s, p) in [(0, 1, 0), (3, 0, 1), (3, 1, 3)] {
        assert!(PostOp::depthwise(dnnl_f32, dnnl_f32, dnnl_f32, k, s, p).is_err());
    }
    PostOp::depthwise(dnnl_f32, dnnl_f32, dnnl_f32, 3, 1, -1).unwrap();
    assert!(PostOp::depthwise(dnnl_data_type_undef, dnnl_f32, dnnl_f32, 3, 1, 1).is_err());
    // The limit comes first, whatever the entry.
    let mut full = PostOps::default();
    for _ in 0..POST_OPS_LIMIT {
        full.append(|| Ok(PostOp::Prelu { mask: 0 })).unwrap();
    }
    let err = full
        .append(|| PostOp::eltwise(dnnl_alg_kind_undef, 0.0, 0.0))
        .unwrap_err();
    assert_eq!(err.status(), dnnl_out_of_memory);
}

#[test]
fn cells_snapshot_and_view() {
    let cell = AttrCell::new();
    cell.update(|a| a.set_fpmath(dnnl_fpmath_mode_bf16, false))
        .unwrap();
    let view = cell.post_ops_view().clone();
    view.update(|ops| ops.append(|| PostOp::eltwise(dnnl_eltwise_relu, 0.0, 0.0)))
        .unwrap();
    // The view writes into the attributes.
    let snap = cell.snapshot().unwrap();
    assert_eq!(snap.post_ops.len(), 1);
    assert_eq!(snap.fpmath.mode, dnnl_fpmath_mode_bf16);
    // A snapshot and a clone are independent of later changes.
    let clone = AttrCell::from_snapshot(snap.clone());
    view.update(|ops| ops.append(|| Ok(PostOp::Prelu { mask: 1 })))
        .unwrap();
    assert_eq!(snap.post_ops.len(), 1);
    assert_eq!(clone.snapshot().unwrap().post_ops.len(), 1);
    assert_eq!(view.read(PostOps::len).unwrap(), 2);
    assert!(!Arc::ptr_eq(clone.post_ops_view(), cell.post_ops_view()));
    // Setting from the attributes' own view is a plain copy.
    let own = view.get().unwrap();
    cell.update(|a| {
        a.post_ops = own;
        Ok(())
    })
    .unwrap();
    assert_eq!(view.read(PostOps::len).unwrap(), 2);
    // The view does not keep the attributes alive.
    drop(cell);
    assert!(view.read(PostOps::len).is_err());
    let own = PostOpsCell::new(PostOps::default());
    assert_eq!(own.read(PostOps::len).unwrap(), 0);
}

#[test]
fn floats_print_as_cpp_streams_do() {
    let cases = [
        (1.0, "1"),
        (2.5, "2.5"),
        (0.1, "0.1"),
        (-1.5, "-1.5"),
        (63.0, "63"),
        (64.5, "64.5"),
        (1e-5, "1e-05"),
        (1234567.0, "1.23457e+06"),
        (123456.0, "123456"),
        (0.0001, "0.0001"),
        (1.0 / 3.0, "0.333333"),
        (0.0, "0"),
        (f32::INFINITY, "inf"),
        (f32::NEG_INFINITY, "-inf"),
        (f32::NAN, "nan"),
    ];
    for (x, s) in cases {
        assert_eq!(fmt_float(x), s, "{x}");
    }
}

#[test]
fn verbose_matches_upstreams_spelling() {
    let mut a = PrimitiveAttr::default();
    a.set_fpmath(dnnl_fpmath_mode_strict, false).unwrap();
    a.set_scratchpad_mode(dnnl_scratchpad_mode_user).unwrap();
    a.set_fpmath(dnnl_fpmath_mode_bf16, false).unwrap();
    let s = QuantKind::Scales;
    a.set_quant(s, DNNL_ARG_WEIGHTS, spec(s, 2, &[], dnnl_f16).unwrap())
        .unwrap();
    a.set_quant(s, DNNL_ARG_SRC, QuantSpec::with_mask(s, 0).unwrap())
        .unwrap();
    a.set_quant(
        s,
        DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_DST,
        spec(s, 0, &[], dnnl_f32).unwrap(),
    )
    .unwrap();
    let z = QuantKind::ZeroPoints;
    a.set_quant(z, DNNL_ARG_DST, QuantSpec::with_mask(z, 0).unwrap())
        .unwrap();
    let mut ops = PostOps::default();
    ops.append(|| PostOp::eltwise(dnnl_eltwise_relu, 0.0, 0.0))
        .unwrap();
    ops.append(|| PostOp::sum(1.0, 0, dnnl_data_type_undef))
        .unwrap();
    ops.append(|| PostOp::sum(2.5, 0, dnnl_data_type_undef))
        .unwrap();
    ops.append(|| PostOp::sum(0.5, 2, dnnl_s8)).unwrap();
    ops.append(|| PostOp::eltwise(dnnl_eltwise_linear, 2.0, 0.5))
        .unwrap();
    ops.append(|| PostOp::eltwise(dnnl_eltwise_clip, 0.0, 3.0))
        .unwrap();
    let full = md(&[4, 6], dnnl_f32, dnnl_ab);
    let row = md(&[1, 6], dnnl_bf16, dnnl_ab);
    let col = md(&[4, 1], dnnl_f32, dnnl_ab);
    let ba = md(&[4, 6], dnnl_f32, dnnl_ba);
    ops.append(|| PostOp::binary(dnnl_binary_add, &full, None))
        .unwrap();
    ops.append(|| PostOp::binary(dnnl_binary_mul, &row, None))
        .unwrap();
    ops.append(|| PostOp::binary(dnnl_binary_ge, &col, None))
        .unwrap();
    ops.append(|| PostOp::binary(dnnl_binary_sub, &ba, None))
        .unwrap();
    ops.append(|| Ok(PostOp::Prelu { mask: 2 })).unwrap();
    ops.append(|| PostOp::depthwise(dnnl_f32, dnnl_f32, dnnl_f32, 3, 1, 1))
        .unwrap();
    ops.append(|| PostOp::depthwise(dnnl_s8, dnnl_s32, dnnl_s8, 3, 2, 1))
        .unwrap();
    a.post_ops = ops;
    a.set_rnn_data_qparams(63.0, 64.5);
    assert_eq!(
        a.to_verbose(),
        "attr-scratchpad:user attr-fpmath:bf16 \
         attr-scales:src0:0:f32+wei:2:f16+attr_post_op_dw_dst:0:f32 \
         attr-zero-points:dst:0:s32 \
         attr-post-ops:eltwise_relu+sum+sum:2.5+sum:0.5:2:s8+eltwise_linear:2:0.5\
         +eltwise_clip:0:3+binary_add:f32:3:ab+binary_mul:bf16:2+binary_ge:f32:1\
         +binary_sub:f32:3:ba+prelu:2+dw:k3s1p1+dw:k3s2p1:s8 \
         rnn_data_qparams:63:64.5;"
    );
}

#[test]
fn verbose_of_newer_attributes() {
    let mut a = PrimitiveAttr::default();
    a.set_fpmath(dnnl_fpmath_mode_f16, true).unwrap();
    a.set_accumulation_mode(dnnl_accumulation_mode_relaxed)
        .unwrap();
    a.deterministic = true;
    let s = QuantKind::Scales;
    let grouped = QuantSpec::new(
        s,
        3,
        &[4, 1],
        dnnl_e8m0,
        false,
        dnnl_quantization_mode_dynamic_mx,
    );
    a.set_quant(s, DNNL_ARG_WEIGHTS, grouped.unwrap()).unwrap();
    let host = QuantSpec::new(
        s,
        0,
        &[],
        dnnl_f32,
        true,
        dnnl_quantization_mode_static_sazp,
    );
    a.set_quant(s, DNNL_ARG_MULTIPLE_SRC + 2, host.unwrap())
        .unwrap();
    let p = QuantKind::PrecomputedReductions;
    a.set_quant(p, DNNL_ARG_SRC, spec(p, 2, &[1, 32], dnnl_s32).unwrap())
        .unwrap();
    a.set_dropout(&md(&[4, 6], dnnl_u8, dnnl_ab), dnnl_s64, true, true)
        .unwrap();
    a.set_rounding(DNNL_ARG_DIFF_WEIGHTS, dnnl_rounding_mode_stochastic)
        .unwrap();
    a.set_rounding(DNNL_ARG_DST, dnnl_rounding_mode_stochastic)
        .unwrap();
    assert_eq!(
        a.to_verbose(),
        "attr-fpmath:f16:true attr-acc-mode:relaxed attr-deterministic:true \
         attr-scales:wei:3:e8m0:4x1:dynamic_mx+msrc2:0:f32:host_scalar \
         attr-precomputed-reductions:src0:2:s32:1x32 \
         attr-dropout:ab:s64:offset:host_scalars \
         attr-rounding-mode:dst:stochastic+diff_wei:stochastic"
    );
    let mut b = PrimitiveAttr::default();
    b.set_dropout(&MemoryDesc::zero(), dnnl_s32, false, false)
        .unwrap();
    b.set_fpmath(dnnl_fpmath_mode_strict, true).unwrap();
    assert_eq!(b.to_verbose(), "attr-fpmath:strict:true attr-dropout");
}

#[test]
fn rnn_qparams_rules() {
    let mut a = PrimitiveAttr::default();
    a.set_rnn_data_qparams(2.5, -1.5);
    assert_eq!(
        a.rnn_data_qparams,
        RnnDataQparams {
            scale: 2.5,
            shift: -1.5
        }
    );
    a.set_rnn_weights_qparams(false, 3, &[1.0, 2.0]).unwrap();
    assert_eq!(a.rnn_weights_qparams.mask, 3);
    assert_eq!(&*a.rnn_weights_qparams.scales, &[1.0, 2.0]);
    // A single scale is common: the mask is stored as 0, as upstream does.
    a.set_rnn_weights_qparams(true, 5, &[4.0]).unwrap();
    assert_eq!(a.rnn_weights_projection_qparams.mask, 0);
    assert!(a.set_rnn_weights_qparams(false, -1, &[1.0]).is_err());
    assert!(a.set_rnn_weights_qparams(false, 0, &[]).is_err());
    assert_eq!(a.rnn_weights_qparams.mask, 3, "unchanged by refusals");
    assert_eq!(
        part_names(&a),
        vec![
            "rnn-data-qparams",
            "rnn-weights-qparams",
            "rnn-weights-projection-qparams"
        ]
    );
}

fn part_names(a: &PrimitiveAttr) -> Vec<&'static str> {
    a.non_default_parts()
        .into_iter()
        .map(AttrPart::name)
        .collect()
}
