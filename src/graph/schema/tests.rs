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
    let anything = &[
        (dnnl_graph_op_attr_kernel, AttrType::S64s),
        (dnnl_graph_op_attr_mode, AttrType::Str),
    ];
    assert_eq!(view(dnnl_graph_op_wildcard, 0, 5, anything), Ok(()));
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
    assert!(ok(
        dnnl_graph_op_wildcard,
        dnnl_graph_op_attr_mode,
        "whatever"
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
