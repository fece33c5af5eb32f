//! Tests of the partitioner and the lowering: which ops group together,
//! how many primitive steps a partition becomes, and results on the CPU
//! engine.

use std::sync::Arc;

use crate::abi::*;
use crate::core::engine::{Engine, EngineKind};
use crate::core::memory::DataHandle;
use crate::core::stream::{Stream, StreamFlags};
use crate::graph::graph::{Graph, Policy};
use crate::graph::logical_tensor::{self, Lt};
use crate::graph::op::Op;
use crate::graph::partition::Partition;
use crate::graph::partitioner::Pattern;
use crate::graph::tensor::Tensor;

fn lt(id: usize, dims: &[i64]) -> Lt {
    lt_dt(id, dims, dnnl_f32)
}

fn lt_dt(id: usize, dims: &[i64], dt: dnnl_data_type_t) -> Lt {
    logical_tensor::init_with_dims(
        id,
        dt,
        dims,
        dnnl_graph_layout_type_strided,
        dnnl_graph_tensor_property_variable,
    )
    .unwrap()
}

fn op(id: usize, kind: dnnl_graph_op_kind_t, ins: &[Lt], outs: &[Lt]) -> Op {
    let mut o = Op::new(id, kind, &format!("op{id}"));
    o.inputs = ins.to_vec();
    o.outputs = outs.to_vec();
    o
}

fn partitions(ops: &[Op], policy: Policy) -> Vec<Arc<Partition>> {
    let g = Graph::new(EngineKind::Cpu, None).unwrap();
    for o in ops {
        g.add_op(o).unwrap();
    }
    g.finalize().unwrap();
    g.filter(policy).unwrap();
    g.partitions().unwrap()
}

fn op_ids(p: &Partition) -> Vec<usize> {
    p.ops().iter().map(|o| o.id).collect()
}

/// MatMul -> BiasAdd -> ReLU -> Add(x) : one partition; a second MatMul
/// whose output feeds two ops stays alone.
#[test]
fn matmul_chains_fuse_until_a_fan_out() {
    let (a, w, b, x) = (lt(1, &[2, 4]), lt(2, &[4, 3]), lt(3, &[3]), lt(4, &[2, 3]));
    let (m, ba, r, s) = (
        lt(5, &[2, 3]),
        lt(6, &[2, 3]),
        lt(7, &[2, 3]),
        lt(8, &[2, 3]),
    );
    let w2 = lt(9, &[3, 3]);
    let (m2, t1, t2) = (lt(10, &[2, 3]), lt(11, &[2, 3]), lt(12, &[2, 3]));
    let ops = vec![
        op(1, dnnl_graph_op_matmul, &[a, w], &[m]),
        op(2, dnnl_graph_op_bias_add, &[m, b], &[ba]),
        op(3, dnnl_graph_op_relu, &[ba], &[r]),
        op(4, dnnl_graph_op_add, &[x, r], &[s]),
        op(5, dnnl_graph_op_matmul, &[s, w2], &[m2]),
        op(6, dnnl_graph_op_tanh, &[m2], &[t1]),
        op(7, dnnl_graph_op_sigmoid, &[m2], &[t2]),
    ];
    let ps = partitions(&ops, Policy::Fusion);
    let ids: Vec<Vec<usize>> = ps.iter().map(|p| op_ids(p)).collect();
    assert_eq!(ids, vec![vec![1, 2, 3, 4], vec![5], vec![6], vec![7]]);
    assert!(matches!(
        ps[0].pattern(),
        Pattern::Matmul {
            bias_add: Some(1),
            ..
        }
    ));
    let ins: Vec<usize> = ps[0].inputs().iter().map(|l| l.id).collect();
    assert_eq!(ins, vec![1, 2, 3, 4]);
    assert_eq!(ps[0].outputs().len(), 1);
    assert_eq!(ps[0].outputs()[0].id, 8);
    // Debug: one op each.
    assert_eq!(partitions(&ops, Policy::Debug).len(), 7);
}

/// Subtract with the chain as its second operand is not a post-op.
#[test]
fn non_commutative_binary_needs_the_chain_first() {
    let (a, w, x, m, s) = (
        lt(1, &[2, 4]),
        lt(2, &[4, 3]),
        lt(3, &[2, 3]),
        lt(4, &[2, 3]),
        lt(5, &[2, 3]),
    );
    let ops = vec![
        op(1, dnnl_graph_op_matmul, &[a, w], &[m]),
        op(2, dnnl_graph_op_subtract, &[x, m], &[s]),
    ];
    assert_eq!(partitions(&ops, Policy::Fusion).len(), 2);
    let ops = vec![
        op(1, dnnl_graph_op_matmul, &[a, w], &[m]),
        op(2, dnnl_graph_op_subtract, &[m, x], &[s]),
    ];
    assert_eq!(partitions(&ops, Policy::Fusion).len(), 1);
}

/// Unsupported kinds are partitions that say so; End belongs to none.
#[test]
fn unsupported_ops_and_end() {
    let (a, b, c) = (lt(1, &[2, 3]), lt(2, &[2, 3]), lt(3, &[2, 3]));
    let mut wild = op(1, dnnl_graph_op_wildcard, &[a], &[b]);
    wild.name = "w".into();
    let ops = vec![
        wild,
        op(2, dnnl_graph_op_relu, &[b], &[c]),
        op(3, dnnl_graph_op_end, &[c], &[]),
    ];
    let ps = partitions(&ops, Policy::Fusion);
    assert_eq!(ps.len(), 2);
    assert!(!ps[0].is_supported());
    assert!(ps[1].is_supported());
    // An integer MatMul without its dequantization does not lower.
    let (x, w, y) = (
        lt_dt(1, &[2, 4], dnnl_s8),
        lt_dt(2, &[4, 3], dnnl_s8),
        lt(3, &[2, 3]),
    );
    let ps = partitions(
        &[op(1, dnnl_graph_op_matmul, &[x, w], &[y])],
        Policy::Fusion,
    );
    assert!(!ps[0].is_supported());
}

fn quant(id: usize, kind: dnnl_graph_op_kind_t, i: Lt, o: Lt, scale: f32, zp: i64) -> Op {
    let mut q = op(id, kind, &[i], &[o]);
    q.set_f32(dnnl_graph_op_attr_scales, &[scale]);
    q.set_s64(dnnl_graph_op_attr_zps, &[zp]);
    q
}

fn cpu() -> (Arc<Engine>, Arc<Stream>) {
    let e = Engine::create(EngineKind::Cpu, 0).unwrap();
    let s = Stream::create(e.clone(), StreamFlags::from_c(1).unwrap()).unwrap();
    (e, s)
}

fn tensor<T>(e: &Arc<Engine>, l: &Lt, data: &mut [T]) -> Arc<Tensor> {
    Tensor::new(l, e.clone(), DataHandle::User(data.as_mut_ptr() as usize)).unwrap()
}

/// The int8 pattern lowers to dequantize, dequantize, matmul (with the
/// ReLU as post-op), quantize; the weights, constant, are prepacked once.
#[test]
fn int8_matmul_lowers_to_reorders_around_one_matmul() {
    let (xs, mut xw) = (lt_dt(1, &[2, 2], dnnl_u8), lt_dt(2, &[2, 2], dnnl_s8));
    xw.property = dnnl_graph_tensor_property_constant;
    let (fs, fw, m, r, q) = (
        lt(3, &[2, 2]),
        lt(4, &[2, 2]),
        lt(5, &[2, 2]),
        lt(6, &[2, 2]),
        lt_dt(7, &[2, 2], dnnl_u8),
    );
    let ops = vec![
        quant(1, dnnl_graph_op_dequantize, xs, fs, 1.0, 1),
        quant(2, dnnl_graph_op_dequantize, xw, fw, 0.5, 0),
        op(3, dnnl_graph_op_matmul, &[fs, fw], &[m]),
        op(4, dnnl_graph_op_relu, &[m], &[r]),
        quant(5, dnnl_graph_op_quantize, r, q, 0.5, 2),
    ];
    let ps = partitions(&ops, Policy::Fusion);
    assert_eq!(ps.len(), 1);
    let (e, s) = cpu();
    let c = ps[0].compile(&[xs, xw], &[q], &e).unwrap();
    // Dequantize src, matmul, quantize; the weights' dequantization is a prepack.
    assert_eq!(c.num_steps(), 3);
    let mut src = [1u8, 3, 5, 7];
    let mut wei = [2i8, -2, 4, 0];
    let mut dst = [0u8; 4];
    let ts = tensor(&e, &xs, &mut src);
    let tw = tensor(&e, &xw, &mut wei);
    let td = tensor(&e, &q, &mut dst);
    let cp = crate::graph::compiled::CompiledPartition::new(ps[0].clone());
    cp.set(c).unwrap();
    cp.execute(&s, &[ts, tw], &[td], None, &[]).unwrap();
    // src - 1 = [[0, 2], [4, 6]]; wei * 0.5 = [[1, -1], [2, 0]].
    // product = [[4, 0], [16, -4]]; relu; / 0.5 + 2.
    assert_eq!(dst, [10, 2, 34, 2]);
}

/// Shapes left unknown in the outputs are inferred; `any` resolves dense.
#[test]
fn compile_infers_output_shapes() {
    let (a, b) = (lt(1, &[2, 3, 4]), lt(2, &[4]));
    let out = logical_tensor::init(
        3,
        dnnl_f32,
        -1,
        dnnl_graph_layout_type_any,
        dnnl_graph_tensor_property_undef,
    )
    .unwrap();
    let ps = partitions(
        &[op(1, dnnl_graph_op_multiply, &[a, b], &[out])],
        Policy::Fusion,
    );
    let (e, _) = cpu();
    let c = ps[0].compile(&[a, b], &[out], &e).unwrap();
    let o = c.outputs()[0];
    assert_eq!(logical_tensor::dims(&o), &[2, 3, 4]);
    assert_eq!(logical_tensor::strides(&o), &[12, 4, 1]);
    // A given output shape that disagrees is an invalid shape.
    let bad = lt(3, &[2, 3, 5]);
    assert!(matches!(
        ps[0].compile(&[a, b], &[bad], &e),
        Err(crate::core::error::Error::InvalidShape(_))
    ));
}

fn is_invalid<T>(r: crate::core::error::Result<T>) -> bool {
    matches!(r, Err(crate::core::error::Error::InvalidArguments(_)))
}

/// Sizes that do not fit are refused at compilation: a tensor's own
/// (`{2^60 + 1, 4}` f32 used to wrap to 16 bytes) and an inferred one.
#[test]
fn compile_refuses_sizes_that_do_not_fit() {
    let (e, _) = cpu();
    let (a, b) = (lt(1, &[(1 << 60) + 1, 4]), lt(2, &[(1 << 60) + 1, 4]));
    let ps = partitions(&[op(1, dnnl_graph_op_relu, &[a], &[b])], Policy::Fusion);
    assert!(is_invalid(ps[0].compile(&[a], &[b], &e)));
    let (x, y) = (lt_dt(1, &[1 << 62], dnnl_u8), lt_dt(2, &[1 << 62], dnnl_u8));
    let out = logical_tensor::init(
        3,
        dnnl_u8,
        -1,
        dnnl_graph_layout_type_any,
        dnnl_graph_tensor_property_undef,
    )
    .unwrap();
    let mut cat = op(1, dnnl_graph_op_concat, &[x, y], &[out]);
    cat.set_s64(dnnl_graph_op_attr_axis, &[0]);
    let ps = partitions(&[cat], Policy::Fusion);
    assert!(matches!(
        ps[0].compile(&[x, y], &[out], &e),
        Err(crate::core::error::Error::InvalidShape(_))
    ));
}

/// Temporaries whose total does not fit are refused, not wrapped.
#[test]
fn temporaries_that_do_not_fit_are_refused() {
    let program = |temps: Vec<usize>| crate::graph::lower::Program {
        steps: Vec::new(),
        temps,
        consts: Vec::new(),
        prepacks: Vec::new(),
        inplace: Vec::new(),
    };
    assert_eq!(
        program(vec![1, 64, 65]).temp_offsets().unwrap(),
        (vec![0, 64, 128], 256)
    );
    assert!(is_invalid(program(vec![usize::MAX]).scratchpad_size()));
    assert!(is_invalid(
        program(vec![1 << 62, 1 << 62]).scratchpad_size()
    ));
    assert!(is_invalid(crate::graph::partition::scratchpad_lt(1 << 63)));
}

/// Execute checks each tensor against its port before running anything.
#[test]
fn execute_checks_tensors_against_their_ports() {
    let (e, s) = cpu();
    let (a, b) = (lt(1, &[2, 3]), lt(2, &[2, 3]));
    let ps = partitions(&[op(1, dnnl_graph_op_relu, &[a], &[b])], Policy::Fusion);
    let cp = crate::graph::compiled::CompiledPartition::new(ps[0].clone());
    cp.set(ps[0].compile(&[a], &[b], &e).unwrap()).unwrap();
    let mut src = [-1f32, 2., -3., 4., -5., 6.];
    let mut dst = [7f32; 8];
    let ti = tensor(&e, &a, &mut src);
    let run = |out: &Lt, dst: &mut [f32]| {
        let to = tensor(&e, out, dst);
        cp.execute(&s, std::slice::from_ref(&ti), &[to], None, &[])
    };
    // Refused, and the output untouched.
    let transposed = logical_tensor::init_with_strides(
        2,
        dnnl_f32,
        &[2, 3],
        &[1, 2],
        dnnl_graph_tensor_property_variable,
    )
    .unwrap();
    for bad in [
        lt(2, &[1, 1]),
        lt(2, &[3, 2]),
        lt(2, &[6]),
        lt_dt(2, &[2, 3], dnnl_bf16),
        transposed,
    ] {
        assert!(is_invalid(run(&bad, &mut dst)), "{bad:?}");
        assert_eq!(dst, [7.; 8]);
    }
    let small = Tensor::new(&lt(2, &[1, 1]), e.clone(), DataHandle::Allocate).unwrap();
    assert!(is_invalid(cp.execute(
        &s,
        std::slice::from_ref(&ti),
        &[small],
        None,
        &[]
    )));
    let none = Tensor::new(&b, e.clone(), DataHandle::None).unwrap();
    assert!(is_invalid(cp.execute(
        &s,
        std::slice::from_ref(&ti),
        &[none],
        None,
        &[]
    )));
    // Accepted: the port itself, and what says less than the port.
    let unknown = logical_tensor::init(
        2,
        dnnl_f32,
        -1,
        dnnl_graph_layout_type_any,
        dnnl_graph_tensor_property_variable,
    )
    .unwrap();
    let mut unknown_dims = b;
    unknown_dims.dims[..2].copy_from_slice(&[-1, -1]);
    for good in [b, unknown, unknown_dims] {
        dst = [7.; 8];
        run(&good, &mut dst).unwrap();
        assert_eq!(dst, [0., 2., 0., 4., 0., 6., 7., 7.]);
    }
    let owned = Tensor::new(&b, e.clone(), DataHandle::Allocate).unwrap();
    cp.execute(&s, std::slice::from_ref(&ti), &[owned], None, &[])
        .unwrap();
}

/// A Convolution `id` of `src` (1x4x6x6, NCX) with 8 3x3 OIX filters of
/// `groups` into `dst`, padding 1.
fn conv(id: usize, src: Lt, wei: Lt, dst: Lt, groups: i64) -> Op {
    let mut c = op(id, dnnl_graph_op_convolution, &[src, wei], &[dst]);
    for a in [dnnl_graph_op_attr_strides, dnnl_graph_op_attr_dilations] {
        c.set_s64(a, &[1, 1]);
    }
    let pad = if logical_tensor::dims(&wei)[2] == 3 {
        1
    } else {
        0
    };
    for a in [dnnl_graph_op_attr_pads_begin, dnnl_graph_op_attr_pads_end] {
        c.set_s64(a, &[pad, pad]);
    }
    c.set_s64(dnnl_graph_op_attr_groups, &[groups]);
    c.set_str(dnnl_graph_op_attr_data_format, "NCX");
    c.set_str(dnnl_graph_op_attr_weights_format, "OIX");
    c
}

fn partitions_for(ops: &[Op], kind: EngineKind) -> Vec<Arc<Partition>> {
    let g = Graph::new(kind, None).unwrap();
    for o in ops {
        g.add_op(o).unwrap();
    }
    g.finalize().unwrap();
    g.filter(Policy::Fusion).unwrap();
    g.partitions().unwrap()
}

/// Upstream's convolution rules: an Add of two convolutions goes with the one
/// producing its first input; 19 post-ops at most; a depthwise 3x3 after a
/// 1x1 on CPU graphs only.
#[test]
fn conv_chains_follow_upstreams_rules() {
    let (s, w, a, b) = (
        lt(1, &[1, 4, 6, 6]),
        lt(2, &[8, 4, 3, 3]),
        lt(3, &[1, 8, 6, 6]),
        lt(4, &[1, 8, 6, 6]),
    );
    let (s2, w2, sum) = (
        lt(5, &[1, 4, 6, 6]),
        lt(6, &[8, 4, 3, 3]),
        lt(7, &[1, 8, 6, 6]),
    );
    let ops = vec![
        conv(1, s, w, a, 1),
        conv(2, s2, w2, b, 1),
        op(3, dnnl_graph_op_add, &[b, a], &[sum]),
    ];
    let ps = partitions(&ops, Policy::Fusion);
    let ids: Vec<Vec<usize>> = ps.iter().map(|p| op_ids(p)).collect();
    assert_eq!(ids, vec![vec![1], vec![2, 3]]);

    let mut ops = vec![conv(1, s, w, a, 1)];
    let mut tail = a;
    for i in 0..21 {
        let next = lt(100 + i, &[1, 8, 6, 6]);
        ops.push(op(10 + i, dnnl_graph_op_relu, &[tail], &[next]));
        tail = next;
    }
    let ps = partitions(&ops, Policy::Fusion);
    assert_eq!(ps.len(), 3);
    assert_eq!(ps[0].ops().len(), 20);

    let (w1, mid, wdw, out) = (
        lt(2, &[8, 4, 1, 1]),
        lt(3, &[1, 8, 6, 6]),
        lt(4, &[8, 1, 3, 3]),
        lt(5, &[1, 8, 6, 6]),
    );
    let ops = vec![conv(1, s, w1, mid, 1), conv(2, mid, wdw, out, 8)];
    assert_eq!(partitions_for(&ops, EngineKind::Cpu).len(), 1);
    assert_eq!(partitions_for(&ops, EngineKind::Gpu).len(), 2);
}

/// Convolution + BatchNormInference + ReLU on the CPU engine: one
/// partition, the normalisation's scale and shift computed by three small
/// steps before the convolution, whose post-ops apply them.
#[test]
fn conv_batch_norm_runs_as_post_ops() {
    let (s, w, c, y, r) = (
        lt(1, &[1, 1, 3, 3]),
        lt(2, &[1, 1, 3, 3]),
        lt(3, &[1, 1, 3, 3]),
        lt(4, &[1, 1, 3, 3]),
        lt(5, &[1, 1, 3, 3]),
    );
    let (g, b, m, v) = (lt(10, &[1]), lt(11, &[1]), lt(12, &[1]), lt(13, &[1]));
    let mut bn = op(
        2,
        dnnl_graph_op_batch_norm_inference,
        &[c, g, b, m, v],
        &[y],
    );
    bn.set_f32(dnnl_graph_op_attr_epsilon, &[0.0]);
    bn.set_str(dnnl_graph_op_attr_data_format, "NCX");
    let ops = vec![
        conv(1, s, w, c, 1),
        bn,
        op(3, dnnl_graph_op_relu, &[y], &[r]),
    ];
    let ps = partitions(&ops, Policy::Fusion);
    assert_eq!(ps.len(), 1);
    let (e, st) = cpu();
    let ins = [s, w, g, b, m, v];
    let c = ps[0].compile(&ins, &[r], &e).unwrap();
    assert_eq!(c.num_steps(), 4);
    // Each output is the sum of the source's 3x3 neighbourhood (all-ones
    // weights, zero padding): 4, 6, 4 / 6, 9, 6 / 4, 6, 4 for a source of ones.
    let mut src = [1f32; 9];
    let mut wei = [1f32; 9];
    // (x - 5) * 2 / sqrt(4) + 1 = x - 4, then ReLU.
    let (mut gamma, mut beta, mut mean, mut var) = ([2f32], [1f32], [5f32], [4f32]);
    let mut dst = [0f32; 9];
    let t = [
        tensor(&e, &s, &mut src),
        tensor(&e, &w, &mut wei),
        tensor(&e, &g, &mut gamma),
        tensor(&e, &b, &mut beta),
        tensor(&e, &m, &mut mean),
        tensor(&e, &v, &mut var),
    ];
    let td = tensor(&e, &r, &mut dst);
    let cp = crate::graph::compiled::CompiledPartition::new(ps[0].clone());
    cp.set(c).unwrap();
    cp.execute(&st, &t, &[td], None, &[]).unwrap();
    assert_eq!(dst, [0.0, 2.0, 0.0, 2.0, 5.0, 2.0, 0.0, 2.0, 0.0]);
}
