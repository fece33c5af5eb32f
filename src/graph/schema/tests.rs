use std::collections::HashSet;

use super::*;

/// Every op kind of the C enum, `last_symbol` left out.
fn kinds() -> impl Iterator<Item = dnnl_graph_op_kind_t> {
    dnnl_graph_op_kind_t::ALL
        .iter()
        .map(|&(_, k)| k)
        .filter(|&k| k != dnnl_graph_op_last_symbol)
}

/// Every attribute id of the C enum, the `undef` / `end` markers left out.
fn attrs() -> impl Iterator<Item = dnnl_graph_op_attr_t> {
    dnnl_graph_op_attr_t::ALL
        .iter()
        .map(|&(_, a)| a)
        .filter(|&a| a != dnnl_graph_op_attr_undef && a != dnnl_graph_op_attr_end)
}

fn view(
    kind: dnnl_graph_op_kind_t,
    n_inputs: usize,
    n_outputs: usize,
    attrs: &[(dnnl_graph_op_attr_t, AttrType)],
) -> Result<(), String> {
    check(&OpView {
        kind,
        n_inputs,
        n_outputs,
        attrs,
    })
}

const CONV_ATTRS: &[(dnnl_graph_op_attr_t, AttrType)] = &[
    (dnnl_graph_op_attr_strides, AttrType::S64s),
    (dnnl_graph_op_attr_pads_begin, AttrType::S64s),
    (dnnl_graph_op_attr_pads_end, AttrType::S64s),
    (dnnl_graph_op_attr_dilations, AttrType::S64s),
    (dnnl_graph_op_attr_groups, AttrType::S64),
    (dnnl_graph_op_attr_data_format, AttrType::Str),
];

#[test]
fn every_op_kind_has_a_schema_with_a_unique_name() {
    let mut names = HashSet::new();
    let mut count = 0;
    for kind in kinds() {
        let s = schema(kind).unwrap_or_else(|| panic!("op kind {} has no schema", kind.0));
        assert_eq!(s.kind, kind);
        assert!(names.insert(s.name), "{} named twice", s.name);
        assert!(
            s.inputs.0 <= s.inputs.1 && s.outputs.0 <= s.outputs.1,
            "{}",
            s.name
        );
        count += 1;
    }
    assert_eq!(count, 88);
    assert_eq!(SCHEMAS.len(), count);
    assert!(schema(dnnl_graph_op_last_symbol).is_none());
    assert!(schema(dnnl_graph_op_kind_t(1000)).is_none());
}

#[test]
fn every_attribute_id_has_a_type_and_a_name() {
    let mut names = HashSet::new();
    for attr in attrs() {
        let name = attr_name(attr).unwrap_or_else(|| panic!("attribute {} has no name", attr.0));
        assert!(names.insert(name), "{name} named twice");
        assert!(attr_type(attr).is_some(), "{name} has no type");
    }
    assert_eq!(names.len(), 43);
    assert_eq!(attr_type(dnnl_graph_op_attr_undef), None);
    assert_eq!(attr_type(dnnl_graph_op_attr_end), None);
    assert_eq!(attr_type(dnnl_graph_op_attr_t(7)), None);
    assert_eq!(attr_name(dnnl_graph_op_attr_t(7)), None);
    assert_eq!(
        attr_type(dnnl_graph_op_attr_transpose_a),
        Some(AttrType::Bool)
    );
    assert_eq!(attr_type(dnnl_graph_op_attr_scales), Some(AttrType::F32s));
    assert_eq!(attr_type(dnnl_graph_op_attr_groups), Some(AttrType::S64));
    assert_eq!(
        attr_type(dnnl_graph_op_attr_group_shape),
        Some(AttrType::S64s)
    );
    assert_eq!(attr_type(dnnl_graph_op_attr_momentum), Some(AttrType::F32));
    assert_eq!(
        attr_type(dnnl_graph_op_attr_accumulation_mode),
        Some(AttrType::Str)
    );
    assert_eq!(
        attr_name(dnnl_graph_op_attr_transpose_a),
        Some("transpose_a")
    );
}

#[test]
fn the_table_is_consistent() {
    for kind in kinds() {
        let s = schema(kind).unwrap();
        let mut seen = HashSet::new();
        for spec in s.attrs {
            let name = attr_name(spec.attr).unwrap();
            assert!(seen.insert(spec.attr.0), "{}: {name} listed twice", s.name);
            let ty = attr_type(spec.attr).unwrap();
            assert_eq!(
                ty == AttrType::Str,
                !spec.values.is_empty(),
                "{}: {name}",
                s.name
            );
            assert!(
                !(spec.required && spec.default.is_some()),
                "{}: {name}",
                s.name
            );
            match spec.default {
                None => {}
                Some(AttrDefault::F32(_)) => assert_eq!(ty, AttrType::F32),
                Some(AttrDefault::S64(_)) => assert_eq!(ty, AttrType::S64),
                Some(AttrDefault::Bool(_)) => assert_eq!(ty, AttrType::Bool),
                Some(AttrDefault::Str(v)) => {
                    assert!(spec.values.contains(&v), "{}: {name} = {v}", s.name)
                }
            }
        }
    }
}

#[test]
fn check_accepts_well_formed_ops() {
    let matmul = &[
        (dnnl_graph_op_attr_transpose_a, AttrType::Bool),
        (dnnl_graph_op_attr_transpose_b, AttrType::Bool),
    ];
    assert_eq!(view(dnnl_graph_op_matmul, 2, 1, matmul), Ok(()));
    assert_eq!(view(dnnl_graph_op_matmul, 3, 1, &[]), Ok(()));
    assert_eq!(view(dnnl_graph_op_convolution, 2, 1, CONV_ATTRS), Ok(()));
    assert_eq!(
        view(dnnl_graph_op_convolution, 3, 1, &CONV_ATTRS[..4]),
        Ok(())
    );
    let softmax = &[(dnnl_graph_op_attr_axis, AttrType::S64)];
    assert_eq!(view(dnnl_graph_op_softmax, 1, 1, softmax), Ok(()));
    assert_eq!(view(dnnl_graph_op_softmax, 1, 1, &[]), Ok(()));
    let concat = &[(dnnl_graph_op_attr_axis, AttrType::S64)];
    for n in [1, 2, 7, 64] {
        assert_eq!(view(dnnl_graph_op_concat, n, 1, concat), Ok(()));
    }
    assert_eq!(view(dnnl_graph_op_end, 1, 0, &[]), Ok(()));
    assert_eq!(view(dnnl_graph_op_wildcard, 0, 5, &[]), Ok(()));
    assert_eq!(view(dnnl_graph_op_wildcard, 70, 0, &[]), Ok(()));
    assert_eq!(view(dnnl_graph_op_layer_norm, 3, 3, &[]), Ok(()));
}

#[test]
fn check_refuses_wrong_arity() {
    assert_eq!(
        view(dnnl_graph_op_matmul, 1, 1, &[]),
        Err("MatMul takes 2 or 3 inputs, got 1".into())
    );
    assert_eq!(
        view(dnnl_graph_op_matmul, 2, 2, &[]),
        Err("MatMul takes 1 output, got 2".into())
    );
    let concat = &[(dnnl_graph_op_attr_axis, AttrType::S64)];
    assert_eq!(
        view(dnnl_graph_op_concat, 0, 1, concat),
        Err("Concat takes 1 to 64 inputs, got 0".into())
    );
    assert!(view(dnnl_graph_op_concat, 65, 1, concat).is_err());
    assert_eq!(
        view(dnnl_graph_op_end, 1, 1, &[]),
        Err("End takes 0 outputs, got 1".into())
    );
    assert!(view(dnnl_graph_op_add, 3, 1, &[]).is_err());
    assert_eq!(
        view(dnnl_graph_op_layer_norm, 2, 1, &[]),
        Err("LayerNorm takes 1 or 3 inputs, got 2".into())
    );
    assert_eq!(
        view(dnnl_graph_op_layer_norm_backward, 4, 2, &[]),
        Err("LayerNormBackward takes 1 or 3 outputs, got 2".into())
    );
    assert_eq!(
        view(dnnl_graph_op_batch_norm_forward_training, 3, 4, &[]),
        Err("BatchNormForwardTraining takes 5 outputs, got 4".into())
    );
    assert!(view(dnnl_graph_op_convolution, 4, 1, CONV_ATTRS).is_err());
}

#[test]
fn check_refuses_missing_unknown_and_mistyped_attributes() {
    assert_eq!(
        view(dnnl_graph_op_convolution, 2, 1, &CONV_ATTRS[..3]),
        Err("Convolution needs attribute 'dilations'".into())
    );
    assert_eq!(
        view(dnnl_graph_op_concat, 2, 1, &[]),
        Err("Concat needs attribute 'axis'".into())
    );
    assert_eq!(
        view(
            dnnl_graph_op_softmax,
            1,
            1,
            &[(dnnl_graph_op_attr_transpose_a, AttrType::Bool)]
        ),
        Err("SoftMax does not take attribute 'transpose_a'".into())
    );
    assert_eq!(
        view(
            dnnl_graph_op_matmul,
            2,
            1,
            &[(dnnl_graph_op_attr_transpose_a, AttrType::S64)]
        ),
        Err("MatMul: attribute 'transpose_a' is bool, got s64".into())
    );
    assert!(
        view(
            dnnl_graph_op_wildcard,
            1,
            1,
            &[(dnnl_graph_op_attr_axis, AttrType::F32)]
        )
        .is_err()
    );
    assert!(
        view(
            dnnl_graph_op_wildcard,
            1,
            1,
            &[(dnnl_graph_op_attr_undef, AttrType::F32)]
        )
        .is_err()
    );
    assert!(view(dnnl_graph_op_last_symbol, 1, 1, &[]).is_err());
    let reshape = &[(dnnl_graph_op_attr_shape, AttrType::S64s)];
    assert_eq!(
        view(dnnl_graph_op_static_reshape, 1, 1, reshape),
        Err("StaticReshape needs attribute 'special_zero'".into())
    );
}

#[test]
fn check_str_value_knows_the_values() {
    let ok = |k, a, v| check_str_value(k, a, v).is_ok();
    assert!(ok(
        dnnl_graph_op_convolution,
        dnnl_graph_op_attr_auto_pad,
        "SAME_UPPER"
    ));
    assert!(!ok(
        dnnl_graph_op_convolution,
        dnnl_graph_op_attr_auto_pad,
        "same"
    ));
    assert!(ok(
        dnnl_graph_op_convolution,
        dnnl_graph_op_attr_weights_format,
        "OIX"
    ));
    assert!(!ok(
        dnnl_graph_op_convolution,
        dnnl_graph_op_attr_weights_format,
        "IOX"
    ));
    assert!(ok(
        dnnl_graph_op_conv_transpose,
        dnnl_graph_op_attr_weights_format,
        "IOX"
    ));
    assert!(ok(
        dnnl_graph_op_max_pool,
        dnnl_graph_op_attr_data_format,
        "NCX"
    ));
    assert!(!ok(
        dnnl_graph_op_max_pool,
        dnnl_graph_op_attr_data_format,
        "NHWC"
    ));
    assert!(ok(
        dnnl_graph_op_interpolate,
        dnnl_graph_op_attr_mode,
        "bilinear"
    ));
    assert!(!ok(
        dnnl_graph_op_interpolate,
        dnnl_graph_op_attr_mode,
        "none"
    ));
    assert!(ok(
        dnnl_graph_op_softmax,
        dnnl_graph_op_attr_mode,
        "inf_as_zero"
    ));
    assert!(!ok(
        dnnl_graph_op_softmax,
        dnnl_graph_op_attr_mode,
        "nearest"
    ));
    assert!(ok(dnnl_graph_op_gelu, dnnl_graph_op_attr_mode, "gelu_tanh"));
    assert!(ok(
        dnnl_graph_op_dynamic_dequantize,
        dnnl_graph_op_attr_qtype,
        "per_group"
    ));
    assert!(!ok(
        dnnl_graph_op_quantize,
        dnnl_graph_op_attr_qtype,
        "per_row"
    ));
    assert!(ok(
        dnnl_graph_op_add,
        dnnl_graph_op_attr_auto_broadcast,
        "none"
    ));
    assert!(!ok(
        dnnl_graph_op_add,
        dnnl_graph_op_attr_auto_broadcast,
        "bidirectional"
    ));
    assert!(ok(
        dnnl_graph_op_matmul,
        dnnl_graph_op_attr_accumulation_mode,
        "relaxed"
    ));
    // Not a string attribute, or not one the op takes.
    assert!(!ok(
        dnnl_graph_op_matmul,
        dnnl_graph_op_attr_transpose_a,
        "true"
    ));
    assert!(!ok(dnnl_graph_op_relu, dnnl_graph_op_attr_mode, "none"));
    assert!(!ok(
        dnnl_graph_op_wildcard,
        dnnl_graph_op_attr_mode,
        "whatever"
    ));
    assert!(!ok(
        dnnl_graph_op_convolution,
        dnnl_graph_op_attr_accumulation_mode,
        "strict"
    ));
    let err = check_str_value(
        dnnl_graph_op_avg_pool,
        dnnl_graph_op_attr_rounding_type,
        "up",
    );
    assert_eq!(
        err,
        Err("AvgPool: 'up' is not a value of 'rounding_type' (one of floor, ceil)".into())
    );
}

#[test]
fn defaults_are_there_where_upstream_documents_them() {
    let d = |k, a| schema(k).unwrap().default_of(a);
    assert_eq!(
        d(dnnl_graph_op_add, dnnl_graph_op_attr_auto_broadcast),
        Some(AttrDefault::Str("numpy"))
    );
    assert_eq!(
        d(dnnl_graph_op_softmax, dnnl_graph_op_attr_axis),
        Some(AttrDefault::S64(1))
    );
    assert_eq!(
        d(dnnl_graph_op_matmul, dnnl_graph_op_attr_transpose_b),
        Some(AttrDefault::Bool(false))
    );
    assert_eq!(d(dnnl_graph_op_concat, dnnl_graph_op_attr_axis), None);
}

#[test]
fn check_op_applies_the_value_rules_of_add_op() {
    use AttrValue as V;
    let ok = |k, i, o, a: &[(dnnl_graph_op_attr_t, AttrValue)]| check_op(k, i, o, a);
    // Types and arity as check() does.
    assert!(ok(dnnl_graph_op_matmul, 1, 1, &[]).is_err());
    assert!(
        ok(
            dnnl_graph_op_matmul,
            2,
            1,
            &[(dnnl_graph_op_attr_transpose_a, V::S64(1))]
        )
        .is_err()
    );
    // String values upstream checks when the op is added, and those it reads later.
    let pad = |v| [(dnnl_graph_op_attr_auto_broadcast, V::Str(v))];
    assert_eq!(ok(dnnl_graph_op_add, 2, 1, &pad("none")), Ok(()));
    assert!(ok(dnnl_graph_op_add, 2, 1, &pad("NONE")).is_err());
    let avg = |r| {
        [
            (dnnl_graph_op_attr_strides, V::S64s(&[1])),
            (dnnl_graph_op_attr_pads_begin, V::S64s(&[0])),
            (dnnl_graph_op_attr_pads_end, V::S64s(&[0])),
            (dnnl_graph_op_attr_kernel, V::S64s(&[1])),
            (dnnl_graph_op_attr_exclude_pad, V::Bool(true)),
            (dnnl_graph_op_attr_rounding_type, V::Str(r)),
        ]
    };
    assert_eq!(ok(dnnl_graph_op_avg_pool, 1, 1, &avg("up")), Ok(()));
    assert!(
        check_str_value(
            dnnl_graph_op_avg_pool,
            dnnl_graph_op_attr_rounding_type,
            "up"
        )
        .is_err()
    );
    // keep_stats (default true) asks for mean and variance outputs.
    assert!(ok(dnnl_graph_op_layer_norm, 1, 1, &[]).is_err());
    assert_eq!(ok(dnnl_graph_op_layer_norm, 1, 3, &[]), Ok(()));
    let no_stats = [(dnnl_graph_op_attr_keep_stats, V::Bool(false))];
    assert_eq!(ok(dnnl_graph_op_layer_norm, 1, 1, &no_stats), Ok(()));
    let groups = [(dnnl_graph_op_attr_groups, V::S64(2))];
    assert_eq!(
        ok(dnnl_graph_op_group_norm, 3, 1, &groups),
        Err("GroupNorm with keep_stats has 3 outputs (dst, mean, variance), got 1".into())
    );
    assert!(ok(dnnl_graph_op_layer_norm_backward, 4, 1, &[]).is_err());
    let no_affine = [(dnnl_graph_op_attr_use_affine, V::Bool(false))];
    assert_eq!(
        ok(dnnl_graph_op_layer_norm_backward, 4, 1, &no_affine),
        Ok(())
    );
    // Interpolate: exactly one of sizes and scales.
    let mode = (dnnl_graph_op_attr_mode, V::Str("nearest"));
    let sizes = (dnnl_graph_op_attr_sizes, V::S64s(&[2, 2]));
    let scales = (dnnl_graph_op_attr_scales, V::F32s(&[2.0, 2.0]));
    assert_eq!(ok(dnnl_graph_op_interpolate, 1, 1, &[mode, sizes]), Ok(()));
    assert_eq!(ok(dnnl_graph_op_interpolate, 2, 1, &[mode, scales]), Ok(()));
    assert!(ok(dnnl_graph_op_interpolate, 1, 1, &[mode]).is_err());
    assert!(
        ok(
            dnnl_graph_op_interpolate_backward,
            2,
            1,
            &[mode, sizes, scales]
        )
        .is_err()
    );
    let bad_mode = (dnnl_graph_op_attr_mode, V::Str("cubic"));
    assert!(ok(dnnl_graph_op_interpolate, 1, 1, &[bad_mode, sizes]).is_err());
    // Quantize: zps as many as scales, one per tensor.
    let q = |scales, zps: Option<&'static [i64]>, qtype: Option<&'static str>| {
        let mut a = vec![(dnnl_graph_op_attr_scales, V::F32s(scales))];
        a.extend(zps.map(|z| (dnnl_graph_op_attr_zps, V::S64s(z))));
        a.extend(qtype.map(|t| (dnnl_graph_op_attr_qtype, V::Str(t))));
        check_op(dnnl_graph_op_quantize, 1, 1, &a)
    };
    assert_eq!(q(&[0.5], None, None), Ok(()));
    assert_eq!(q(&[0.5], Some(&[3]), None), Ok(()));
    assert_eq!(q(&[0.5, 0.25], Some(&[1, 2]), Some("per_channel")), Ok(()));
    assert_eq!(
        q(&[0.5, 0.25], None, None),
        Err("Quantize: a per_tensor quantization has 1 scale, got 2".into())
    );
    assert_eq!(
        q(&[0.5], Some(&[1, 2]), None),
        Err("Quantize: 1 scales but 2 zero points".into())
    );
    assert!(q(&[], None, None).is_err());
}

/// What the oneDNN v3.13.2 library answered when each op kind was created
/// and added to a graph through the C API: kind, input counts, output counts
/// (a set, `a..b` a range, `*` any), required attributes, every attribute it
/// accepts.
const UPSTREAM: &[(u32, &str, &str, &str, &str)] = &[
    (0, "1", "1", "", ""),
    (1, "2", "1", "", ""),
    (2, "2", "1", "", "auto_broadcast"),
    (
        3,
        "1",
        "1",
        "exclude_pad kernel pads_begin pads_end strides",
        "auto_pad data_format exclude_pad kernel pads_begin pads_end rounding_type strides",
    ),
    (
        4,
        "1,2",
        "1",
        "exclude_pad kernel pads_begin pads_end strides",
        "auto_pad data_format exclude_pad kernel pads_begin pads_end src_shape strides",
    ),
    (5, "4,5", "1,2,3", "epsilon", "data_format epsilon"),
    (6, "3,4,5", "5", "epsilon", "data_format epsilon momentum"),
    (7, "5", "1", "epsilon", "data_format epsilon"),
    (8, "2", "1", "", "data_format"),
    (9, "1", "1", "", "data_format"),
    (10, "1", "1", "max min", "max min"),
    (11, "2", "1", "max min", "max min use_dst"),
    (12, "1..64", "1", "axis", "axis"),
    (
        13,
        "2,3",
        "1",
        "dilations pads_begin pads_end strides",
        "auto_pad data_format dilations groups pads_begin pads_end strides weights_format",
    ),
    (
        14,
        "2,3",
        "1",
        "dilations pads_begin pads_end strides",
        "auto_pad data_format dilations dst_shape groups output_padding pads_begin pads_end strides weights_format",
    ),
    (
        15,
        "2,3",
        "1",
        "dilations pads_begin pads_end strides",
        "auto_pad data_format dilations groups pads_begin pads_end strides weights_format weights_shape",
    ),
    (
        16,
        "2,3",
        "1",
        "dilations pads_begin pads_end strides",
        "auto_pad data_format dilations groups output_padding pads_begin pads_end strides weights_format",
    ),
    (
        17,
        "2",
        "1",
        "dilations pads_begin pads_end strides",
        "auto_pad data_format dilations groups pads_begin pads_end strides weights_format",
    ),
    (
        18,
        "2,3",
        "1",
        "dilations pads_begin pads_end strides",
        "auto_pad data_format dilations groups pads_begin pads_end strides weights_format weights_shape",
    ),
    (19, "1", "1", "scales", "axis qtype scales zps"),
    (20, "2", "1", "", "auto_broadcast"),
    (21, "2,3", "1", "", "axis group_shape qtype"),
    (22, "2,3", "1", "", "axis qtype"),
    (23, "1", "1", "alpha", "alpha"),
    (24, "2", "1", "alpha", "alpha use_dst"),
    (25, "1", "0", "", ""),
    (26, "1", "1", "", ""),
    (27, "1", "1", "", "mode"),
    (28, "2", "1", "", "mode"),
    (29, "1", "1", "", ""),
    (30, "2", "1", "", ""),
    (
        31,
        "1,2",
        "1",
        "mode",
        "coordinate_transformation_mode data_format mode scales sizes",
    ),
    (
        32,
        "2,3",
        "1",
        "mode",
        "coordinate_transformation_mode data_format mode scales sizes",
    ),
    (
        33,
        "1,3",
        "1,3",
        "",
        "begin_norm_axis epsilon keep_stats use_affine",
    ),
    (34, "4,5,6", "1,3", "", "begin_norm_axis epsilon use_affine"),
    (35, "1", "1", "alpha", "alpha"),
    (36, "1", "1", "", ""),
    (37, "1", "1", "", "axis"),
    (38, "2", "1", "", "axis"),
    (
        39,
        "2,3",
        "1",
        "",
        "accumulation_mode transpose_a transpose_b",
    ),
    (40, "2", "1", "", "auto_broadcast"),
    (
        41,
        "1",
        "1",
        "kernel pads_begin pads_end strides",
        "auto_pad data_format dilations kernel pads_begin pads_end rounding_type strides",
    ),
    (
        42,
        "2",
        "1",
        "kernel pads_begin pads_end strides",
        "auto_pad data_format dilations kernel pads_begin pads_end strides",
    ),
    (43, "2", "1", "", "auto_broadcast"),
    (44, "1", "1", "", ""),
    (45, "2", "1", "", ""),
    (46, "2", "1", "", "auto_broadcast"),
    (47, "2", "1", "", "data_format per_channel_broadcast"),
    (48, "3", "2", "", "data_format"),
    (49, "1", "1", "scales", "axis qtype scales zps"),
    (50, "1", "1", "", ""),
    (51, "1,2", "1", "", "axes keep_dims"),
    (52, "1,2", "1", "", "axes keep_dims"),
    (53, "1,2", "1", "", "axes keep_dims"),
    (54, "1,2", "1", "", "axes keep_dims"),
    (55, "1,2", "1", "", "axes keep_dims"),
    (56, "1,2", "1", "", "axes keep_dims"),
    (57, "1,2", "1", "", "axes keep_dims"),
    (58, "1", "1", "", ""),
    (59, "2", "1", "", "use_dst"),
    (60, "1", "1", "", ""),
    (61, "1", "1", "", ""),
    (62, "1", "1", "", ""),
    (63, "2", "1", "", "use_dst"),
    (64, "1", "1,2", "", "axis mode"),
    (65, "2", "1", "", "axis"),
    (66, "1", "1", "", "beta"),
    (67, "2", "1", "", "beta"),
    (68, "1", "1", "", ""),
    (69, "2", "1", "", "use_dst"),
    (70, "1", "1", "", ""),
    (71, "2", "1", "", "auto_broadcast"),
    (72, "1", "1", "shape special_zero", "shape special_zero"),
    (73, "1", "1", "order", "order"),
    (74, "2", "1", "", "auto_broadcast"),
    (75, "1", "1", "", ""),
    (76, "2", "1", "", "use_dst"),
    (77, "1", "1", "", ""),
    (78, "*", "*", "", ""),
    (79, "1", "1", "alpha beta", "alpha beta"),
    (80, "2", "1", "alpha beta", "alpha beta"),
    (81, "3", "1", "", "auto_broadcast"),
    (82, "1", "1", "beta", "beta"),
    (
        83,
        "1,3",
        "1,3",
        "groups",
        "data_format epsilon groups keep_stats use_affine",
    ),
    (84, "1", "1", "axis", "axis"),
    (85, "2", "1", "", "auto_broadcast"),
    (86, "1,2", "1", "", "begin_norm_axis epsilon"),
    (87, "4", "1,2", "", ""),
];

fn counts(spec: &str) -> Box<dyn Fn(usize) -> bool + '_> {
    if spec == "*" {
        return Box::new(|_| true);
    }
    if let Some((a, b)) = spec.split_once("..") {
        let (a, b): (usize, usize) = (a.parse().unwrap(), b.parse().unwrap());
        return Box::new(move |n| (a..=b).contains(&n));
    }
    Box::new(move |n| spec.split(',').any(|c| c.parse() == Ok(n)))
}

#[test]
fn the_table_matches_what_upstream_answered() {
    assert_eq!(UPSTREAM.len(), SCHEMAS.len());
    for &(kind, inputs, outputs, required, accepted) in UPSTREAM {
        let s = schema(dnnl_graph_op_kind_t(kind)).unwrap();
        let (takes_in, takes_out) = (counts(inputs), counts(outputs));
        for n in 0..=70 {
            assert_eq!(s.takes_inputs(n), takes_in(n), "{} with {n} inputs", s.name);
            assert_eq!(
                s.takes_outputs(n),
                takes_out(n),
                "{} with {n} outputs",
                s.name
            );
        }
        let names = |required_only: bool| {
            let mut v: Vec<_> = s
                .attrs
                .iter()
                .filter(|a| a.required || !required_only)
                .map(|a| attr_name(a.attr).unwrap())
                .collect();
            v.sort_unstable();
            v.join(" ")
        };
        assert_eq!(names(true), required, "required attributes of {}", s.name);
        assert_eq!(names(false), accepted, "attributes of {}", s.name);
    }
}

#[test]
fn types_are_compared_by_setter_as_upstream_does() {
    // The id decides scalar or vector: `alpha` set with several f32 values,
    // `axes` with one s64, are what upstream accepts.
    let clamp = &[
        (dnnl_graph_op_attr_min, AttrType::F32s),
        (dnnl_graph_op_attr_max, AttrType::F32),
    ];
    assert_eq!(view(dnnl_graph_op_clamp, 1, 1, clamp), Ok(()));
    let axes = &[(dnnl_graph_op_attr_axes, AttrType::S64)];
    assert_eq!(view(dnnl_graph_op_reduce_sum, 1, 1, axes), Ok(()));
    let alpha = &[(dnnl_graph_op_attr_alpha, AttrType::S64)];
    assert_eq!(
        view(dnnl_graph_op_elu, 1, 1, alpha),
        Err("Elu: attribute 'alpha' is f32, got s64".into())
    );
    let format = &[(dnnl_graph_op_attr_data_format, AttrType::Bool)];
    assert!(view(dnnl_graph_op_bias_add, 2, 1, format).is_err());
}

#[test]
fn max_pool_dilations_match_the_kernel() {
    use AttrValue as V;
    let pool = |dilations: &'static [i64]| {
        [
            (dnnl_graph_op_attr_strides, V::S64s(&[1, 1])),
            (dnnl_graph_op_attr_pads_begin, V::S64s(&[0, 0])),
            (dnnl_graph_op_attr_pads_end, V::S64s(&[0, 0])),
            (dnnl_graph_op_attr_kernel, V::S64s(&[2, 2])),
            (dnnl_graph_op_attr_dilations, V::S64s(dilations)),
        ]
    };
    assert_eq!(
        check_op(dnnl_graph_op_max_pool, 1, 1, &pool(&[1, 1])),
        Ok(())
    );
    assert_eq!(
        check_op(dnnl_graph_op_max_pool, 1, 1, &pool(&[1])),
        Err("MaxPool: 1 dilations for a kernel of 2 dimensions".into())
    );
    assert!(check_op(dnnl_graph_op_max_pool_backward, 2, 1, &pool(&[])).is_err());
    assert_eq!(
        check_op(dnnl_graph_op_max_pool, 1, 1, &pool(&[1, 1])[..4]),
        Ok(())
    );
}
