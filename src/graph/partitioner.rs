//! The partitioner: which ops run together.
//!
//! Layer: graph. Rules (policy `fusion`):
//! - a MatMul takes along the Dequantize ops that produce its src and
//!   weights (when their output has no other consumer), then a chain of
//!   consumers, each the only consumer of the previous output: first a
//!   BiasAdd (when the MatMul has no bias input), then any unary eltwise
//!   op that is a post-op (ReLU, GELU, Clamp, ...), and binary ops (Add,
//!   Multiply, Maximum, Minimum, Subtract and Divide with the chain as their
//!   first input, SquaredDifference) whose other input comes from outside,
//!   broadcast to the chain's shape; a Quantize ends the chain. The whole
//!   group runs as one matmul primitive with post-ops (plus reorders for
//!   the (de)quantization);
//! - a Convolution or ConvTranspose does the same with the rules upstream's
//!   v3.13 library follows (probed through its C API, partition by
//!   partition): the Dequantize ops of src and weights only as a pair (the
//!   weights' one possibly fed by a Quantize of f32 weights), then a BiasAdd
//!   (without a bias input), a BatchNormInference (Convolution only, not
//!   int8), at most 19 unary and binary post-ops (not Reciprocal, Pow,
//!   SquaredDifference, GreaterEqual; the binary ones with the chain as
//!   first input, or either input of Add, Multiply, Maximum and Minimum
//!   when the first comes from no other convolution or MatMul that could
//!   take the op), an int8 Add's other operand with its Dequantize when it
//!   has the chain's shape; then a Quantize (int8) or a TypeCast from bf16
//!   to f32 (floating point) ends the chain. A 2-D 1x1 Convolution's chain
//!   may continue into a depthwise 3x3 Convolution and its own chain;
//! - an anchor op (pooling, Interpolate, a reduction, a normalization) takes
//!   the chain upstream v3.13 gives it ([`chain_rules`], probed through its
//!   C API): pooling, Interpolate and the reductions at most 19 unary and
//!   binary post-ops (pooling, int8: between a Dequantize of its source and
//!   a Quantize, an Add's dequantized operand with its Dequantize);
//!   GroupNorm any number, LayerNorm 19, both after an optional TypeCast to
//!   f32 and before an optional Quantize, LayerNorm's chain cut where
//!   upstream's binary patterns (matched before it) take ops; the batch
//!   normalizations one ReLU; a TypeCast from bf16 or f16 to f32 the
//!   Quantize that follows it. Only anchors whose lowering takes a chain
//!   ([`lower::lowers_chain`]: the batch normalizations, MaxPool, AvgPool,
//!   LayerNorm, GroupNorm, Interpolate and the reductions) form groups;
//! - every other op that lowers onto a primitive is a partition of its own;
//! - every op that does not (Wildcard, an Interpolate with
//!   `align_corners`, ...)
//!   is a partition of its own that says it is not supported;
//! - End ops only mark graph outputs: they belong to no partition.
//!
//! Policy `debug` puts every op (End excepted) in a partition of its own.
//! Partitions come in the order of their first op, and the ops are in
//! topological order, so the partitions are too.

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

use std::collections::HashMap;

use crate::abi::*;
use crate::core::engine::EngineKind;
use crate::graph::graph::Policy;
use crate::graph::logical_tensor;
use crate::graph::lower;
use crate::graph::op::Op;

/// What a group of ops is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// One op.
    Single,
    /// A MatMul with its (de)quantization and post-op chain; indices into
    /// the partition's ops.
    Matmul {
        dq_src: Option<usize>,
        dq_wei: Option<usize>,
        matmul: usize,
        bias_add: Option<usize>,
        post: Vec<usize>,
        quantize: Option<usize>,
    },
    /// A Convolution or ConvTranspose with its (de)quantization and post-op
    /// chain, followed, for a fused depthwise convolution, by that
    /// convolution's chain.
    Conv(Vec<ConvChain>),
    /// A pooling, normalization, Interpolate or reduction op with its
    /// post-op chain.
    Post(PostChain),
}

/// The roles of the ops of an anchor and its chain; indices into the
/// partition's ops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PostChain {
    /// The Dequantize of the source (int8 pooling).
    pub dq_src: Option<usize>,
    pub anchor: usize,
    /// A TypeCast from bf16 or f16 to f32 right after the anchor.
    pub typecast: Option<usize>,
    /// Unary and binary post-ops, each with the Dequantize that produces a
    /// binary op's other operand when it is part of the group.
    pub post: Vec<(usize, Option<usize>)>,
    pub quantize: Option<usize>,
}

/// The roles of one convolution's ops in a group; indices into the
/// partition's ops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvChain {
    pub dq_src: Option<usize>,
    /// A Quantize of f32 weights feeding `dq_wei`.
    pub q_wei: Option<usize>,
    pub dq_wei: Option<usize>,
    pub conv: usize,
    pub bias_add: Option<usize>,
    pub bn: Option<usize>,
    /// Unary and binary post-ops, each with the Dequantize that produces a
    /// binary op's other operand when it is part of the group.
    pub post: Vec<(usize, Option<usize>)>,
    /// A Quantize (int8) or a TypeCast (floating point) ending the chain.
    pub quantize: Option<usize>,
    pub typecast: Option<usize>,
}

/// A group of ops (indices into the ordered ops) and whether it lowers.
#[derive(Clone, Debug)]
pub struct Group {
    pub ops: Vec<usize>,
    pub pattern: Pattern,
    pub supported: bool,
}

struct Uses {
    consumers: HashMap<usize, Vec<usize>>,
    producer: HashMap<usize, usize>,
}

impl Uses {
    fn of(ops: &[Op]) -> Uses {
        let mut consumers: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut producer = HashMap::new();
        for (i, op) in ops.iter().enumerate() {
            for lt in &op.inputs {
                consumers.entry(lt.id).or_default().push(i);
            }
            for lt in &op.outputs {
                producer.entry(lt.id).or_insert(i);
            }
        }
        Uses {
            consumers,
            producer,
        }
    }

    /// The one consumer of `id`, if it has exactly one (an End does not
    /// count as a consumer that can be fused, so an End makes it none).
    fn only_consumer(&self, id: usize) -> Option<usize> {
        match self.consumers.get(&id).map(Vec::as_slice) {
            Some([c]) => Some(*c),
            _ => None,
        }
    }
}

/// Partitions `ops` (in topological order) of a graph for `engine` kind
/// engines.
pub fn partition(ops: &[Op], policy: Policy, engine: EngineKind) -> Vec<Group> {
    let uses = Uses::of(ops);
    let mut taken = vec![false; ops.len()];
    let mut groups: Vec<Group> = Vec::new();
    if policy == Policy::Fusion {
        for m in 0..ops.len() {
            if taken[m] {
                continue;
            }
            let g = match ops[m].kind {
                dnnl_graph_op_matmul => matmul_group(ops, &uses, &taken, m),
                dnnl_graph_op_convolution | dnnl_graph_op_conv_transpose => {
                    conv_group(ops, &uses, &taken, m, engine)
                }
                _ => post_group(ops, &uses, &taken, m),
            };
            if let Some(g) = g {
                for &i in &g.ops {
                    taken[i] = true;
                }
                groups.push(g);
            }
        }
    }
    for (i, op) in ops.iter().enumerate() {
        if taken[i] || op.kind == dnnl_graph_op_end {
            continue;
        }
        groups.push(Group {
            ops: vec![i],
            pattern: Pattern::Single,
            supported: lower::supports_single(op),
        });
    }
    groups.sort_by_key(|g| g.ops.iter().copied().min().unwrap_or(0));
    groups
}

fn is_int8(dt: dnnl_data_type_t) -> bool {
    dt == dnnl_s8 || dt == dnnl_u8
}

/// The fused group anchored at MatMul `m`, or `None` for a MatMul on its
/// own (which then becomes a single partition).
fn matmul_group(ops: &[Op], uses: &Uses, taken: &[bool], m: usize) -> Option<Group> {
    let mm = &ops[m];
    if mm.inputs.len() < 2 || mm.outputs.len() != 1 {
        return None;
    }
    let dequant = |slot: usize| -> Option<usize> {
        let p = *uses.producer.get(&mm.inputs[slot].id)?;
        let ok = ops[p].kind == dnnl_graph_op_dequantize
            && !taken[p]
            && uses.only_consumer(mm.inputs[slot].id) == Some(m);
        ok.then_some(p)
    };
    let dq_src = dequant(0);
    let dq_wei = dequant(1);
    // Integer operands need their dequantization in the group.
    let int_src = is_int8(mm.inputs[0].data_type) && dq_src.is_none();
    let int_wei = is_int8(mm.inputs[1].data_type) && dq_wei.is_none();
    if int_src || int_wei {
        return None;
    }
    let mut order = vec![];
    order.extend(dq_src);
    order.extend(dq_wei);
    order.push(m);
    let mut bias_add = None;
    let mut post = Vec::new();
    let mut quantize = None;
    let mut tail = mm.outputs[0];
    while let Some(c) = uses.only_consumer(tail.id) {
        let op = &ops[c];
        if taken[c] || op.outputs.len() != 1 {
            break;
        }
        let first_post = bias_add.is_none() && post.is_empty();
        if op.kind == dnnl_graph_op_bias_add {
            if !(first_post && mm.inputs.len() == 2 && op.inputs[0].id == tail.id) {
                break;
            }
            bias_add = Some(c);
        } else if op.kind == dnnl_graph_op_quantize {
            quantize = Some(c);
            order.push(c);
            break;
        } else if lower::eltwise_post_op(op).is_some() {
            if op.inputs[0].id != tail.id {
                break;
            }
            post.push(c);
        } else if binary_fusible(op, &tail) {
            post.push(c);
        } else {
            break;
        }
        order.push(c);
        tail = op.outputs[0];
    }
    if order.len() == 1 {
        return None;
    }
    let pos = |i: usize| order.iter().position(|&o| o == i).unwrap_or(0);
    Some(Group {
        pattern: Pattern::Matmul {
            dq_src: dq_src.map(pos),
            dq_wei: dq_wei.map(pos),
            matmul: pos(m),
            bias_add: bias_add.map(pos),
            post: post.iter().map(|&p| pos(p)).collect(),
            quantize: quantize.map(pos),
        },
        ops: order,
        supported: true,
    })
}

/// Whether binary op `op` can be a post-op of a chain ending in `tail`:
/// a binary kind with a post-op algorithm, the chain as its first input
/// (or either input for the commutative kinds), the other input broadcast
/// to the chain's shape where shapes are known.
fn binary_fusible(op: &Op, tail: &logical_tensor::Lt) -> bool {
    let Some(spec) = lower::binary_post_op(op.kind) else {
        return false;
    };
    if op.inputs.len() != 2 || op.inputs[0].id == op.inputs[1].id {
        return false;
    }
    let other = if op.inputs[0].id == tail.id {
        &op.inputs[1]
    } else if op.inputs[1].id == tail.id && spec.commutative {
        &op.inputs[0]
    } else {
        return false;
    };
    if op.str_or(dnnl_graph_op_attr_auto_broadcast, "numpy") != "numpy"
        && !(logical_tensor::shape_known(other)
            && logical_tensor::dims(other) == logical_tensor::dims(tail))
    {
        return false;
    }
    if !(logical_tensor::shape_known(other) && logical_tensor::shape_known(tail)) {
        return true;
    }
    let (o, t) = (logical_tensor::dims(other), logical_tensor::dims(tail));
    o.len() <= t.len()
        && o.iter()
            .rev()
            .zip(t.iter().rev())
            .all(|(&a, &b)| a == b || a == 1)
}

/// The most unary and binary post-ops a convolution chain takes, as
/// upstream (its 20th such op starts a partition of its own).
const CONV_MAX_POST: usize = 19;

/// Whether `op` produces its output for a consumer that fuses it: a
/// Convolution, ConvTranspose or MatMul not taken yet (the residual rule
/// of [`conv_group`]).
fn is_anchor(op: &Op) -> bool {
    matches!(
        op.kind,
        dnnl_graph_op_convolution | dnnl_graph_op_conv_transpose | dnnl_graph_op_matmul
    )
}

/// The known dimensions of `lt`, if any.
fn known_dims(lt: &logical_tensor::Lt) -> Option<&[i64]> {
    logical_tensor::shape_known(lt).then(|| logical_tensor::dims(lt))
}

/// The op producing input `slot` of `ops[at]` when it is of `kind`, not
/// taken, and `ops[at]` is its output's only consumer.
fn sole_producer(
    ops: &[Op],
    uses: &Uses,
    taken: &[bool],
    at: usize,
    slot: usize,
    kind: dnnl_graph_op_kind_t,
) -> Option<usize> {
    let id = ops[at].inputs.get(slot)?.id;
    let p = *uses.producer.get(&id)?;
    (ops[p].kind == kind && !taken[p] && uses.only_consumer(id) == Some(at)).then_some(p)
}

/// Whether a 2-D Convolution's weights describe a 1x1 kernel.
fn kernel_is(op: &Op, k: i64) -> bool {
    let Some(w) = op.inputs.get(1).and_then(known_dims) else {
        return false;
    };
    if w.len() != 4 {
        return false;
    }
    let x_first = op.str_or(dnnl_graph_op_attr_weights_format, "XIO") == "XIO";
    let kernel = if x_first { &w[..2] } else { &w[2..] };
    kernel.iter().all(|&d| d == k)
}

/// Whether Convolution `op` is depthwise (one input channel per group)
/// with a 3x3 kernel in 2-D: the kind upstream fuses after a 1x1 one.
fn is_depthwise_3x3(op: &Op) -> bool {
    let Some(src) = op.inputs.first().and_then(known_dims) else {
        return false;
    };
    let ncx = op.str_or(dnnl_graph_op_attr_data_format, "NXC") == "NCX";
    let channels = if ncx { src.get(1) } else { src.last() };
    let groups = op.s64_or(dnnl_graph_op_attr_groups, 1);
    src.len() == 4 && groups > 1 && channels == Some(&groups) && kernel_is(op, 3)
}

/// The fused group anchored at Convolution or ConvTranspose `c`, or `None`
/// for one on its own (then a single partition).
fn conv_group(
    ops: &[Op],
    uses: &Uses,
    taken: &[bool],
    c: usize,
    engine: EngineKind,
) -> Option<Group> {
    let mut order = Vec::new();
    let mut chains = Vec::new();
    let mut taken = taken.to_vec();
    let mut anchor = c;
    loop {
        let first = chains.is_empty();
        let dw_allowed = first && engine == EngineKind::Cpu;
        let Some((chain, next)) = conv_chain(ops, uses, &taken, anchor, first, dw_allowed) else {
            if chains.is_empty() {
                return None;
            }
            break;
        };
        for i in chain_ops(&chain) {
            taken[i] = true;
            order.push(i);
        }
        chains.push(chain);
        match next {
            Some(dw) => anchor = dw,
            None => break,
        }
    }
    if order.len() == 1 {
        return None;
    }
    let pos = |i: usize| order.iter().position(|&o| o == i).unwrap_or(0);
    let map = |c: &ConvChain| ConvChain {
        dq_src: c.dq_src.map(pos),
        q_wei: c.q_wei.map(pos),
        dq_wei: c.dq_wei.map(pos),
        conv: pos(c.conv),
        bias_add: c.bias_add.map(pos),
        bn: c.bn.map(pos),
        post: c.post.iter().map(|&(p, d)| (pos(p), d.map(pos))).collect(),
        quantize: c.quantize.map(pos),
        typecast: c.typecast.map(pos),
    };
    Some(Group {
        pattern: Pattern::Conv(chains.iter().map(map).collect()),
        ops: order,
        supported: true,
    })
}

/// The ops of `chain` in execution order.
fn chain_ops(chain: &ConvChain) -> Vec<usize> {
    let mut v = Vec::new();
    v.extend(chain.dq_src);
    v.extend(chain.q_wei);
    v.extend(chain.dq_wei);
    v.push(chain.conv);
    v.extend(chain.bias_add);
    v.extend(chain.bn);
    for &(p, dq) in &chain.post {
        v.extend(dq);
        v.push(p);
    }
    v.extend(chain.quantize);
    v.extend(chain.typecast);
    v
}

/// The chain of Convolution or ConvTranspose `c` (indices into `ops`), and
/// the depthwise Convolution that continues it (when `dw` allows one and
/// the chain fits). `first`: the chain is no fused depthwise one.
fn conv_chain(
    ops: &[Op],
    uses: &Uses,
    taken: &[bool],
    c: usize,
    first: bool,
    dw: bool,
) -> Option<(ConvChain, Option<usize>)> {
    let cv = &ops[c];
    if !(2..=3).contains(&cv.inputs.len()) || cv.outputs.len() != 1 {
        return None;
    }
    let mut chain = ConvChain {
        dq_src: None,
        q_wei: None,
        dq_wei: None,
        conv: c,
        bias_add: None,
        bn: None,
        post: Vec::new(),
        quantize: None,
        typecast: None,
    };
    // int8: both operands dequantized (a src Dequantize alone is not taken).
    let dq_src = sole_producer(ops, uses, taken, c, 0, dnnl_graph_op_dequantize);
    let dq_wei = sole_producer(ops, uses, taken, c, 1, dnnl_graph_op_dequantize);
    let int8 = first && dq_src.is_some() && dq_wei.is_some();
    if int8 {
        chain.dq_src = dq_src;
        chain.dq_wei = dq_wei;
        chain.q_wei =
            dq_wei.and_then(|d| sole_producer(ops, uses, taken, d, 0, dnnl_graph_op_quantize));
    } else if cv.inputs.iter().take(2).any(|l| is_int8(l.data_type)) {
        return None;
    }
    let conv_kind = cv.kind == dnnl_graph_op_convolution;
    let mut tail = cv.outputs[0];
    let mut next_dw = None;
    while let Some(n) = uses.only_consumer(tail.id) {
        let op = &ops[n];
        if taken[n] || op.outputs.len() != 1 {
            break;
        }
        let nothing_yet = chain.bias_add.is_none() && chain.bn.is_none() && chain.post.is_empty();
        let from_tail = op.inputs.first().is_some_and(|l| l.id == tail.id);
        match op.kind {
            dnnl_graph_op_bias_add => {
                if !(nothing_yet && cv.inputs.len() == 2 && from_tail) {
                    break;
                }
                chain.bias_add = Some(n);
            }
            dnnl_graph_op_batch_norm_inference => {
                if !(conv_kind && !int8 && chain.bn.is_none() && chain.post.is_empty() && from_tail)
                {
                    break;
                }
                chain.bn = Some(n);
            }
            dnnl_graph_op_quantize => {
                if int8 && from_tail {
                    chain.quantize = Some(n);
                }
                break;
            }
            dnnl_graph_op_type_cast => {
                if !int8
                    && from_tail
                    && tail.data_type == dnnl_bf16
                    && op.outputs[0].data_type == dnnl_f32
                {
                    chain.typecast = Some(n);
                }
                break;
            }
            dnnl_graph_op_convolution => {
                // A depthwise convolution after a 2-D 1x1 one, in floating
                // point, without BatchNormInference.
                let fits = dw
                    && !int8
                    && conv_kind
                    && chain.bn.is_none()
                    && from_tail
                    && op.inputs.len() >= 2
                    && kernel_is(cv, 1)
                    && is_depthwise_3x3(op);
                if fits {
                    next_dw = Some(n);
                }
                break;
            }
            dnnl_graph_op_reciprocal | dnnl_graph_op_pow => break,
            _ if lower::eltwise_post_op(op).is_some() => {
                if !from_tail || chain.post.len() >= CONV_MAX_POST {
                    break;
                }
                chain.post.push((n, None));
            }
            _ => {
                if chain.post.len() >= CONV_MAX_POST
                    || matches!(
                        op.kind,
                        dnnl_graph_op_squared_difference | dnnl_graph_op_greater_equal
                    )
                    || !binary_fusible(op, &tail)
                {
                    break;
                }
                let other = if from_tail { 1 } else { 0 };
                if !from_tail {
                    // The first operand's producer may take the op instead.
                    let first_from = uses.producer.get(&op.inputs[0].id);
                    if first_from.is_some_and(|&p| !taken[p] && p != c && is_anchor(&ops[p])) {
                        break;
                    }
                }
                // int8: an Add of a dequantized tensor of the chain's shape
                // takes its Dequantize.
                let dq = if int8 && op.kind == dnnl_graph_op_add {
                    sole_producer(ops, uses, taken, n, other, dnnl_graph_op_dequantize).filter(
                        |_| {
                            let o = known_dims(&op.inputs[other]);
                            o.is_some() && o == known_dims(&tail)
                        },
                    )
                } else {
                    None
                };
                chain.post.push((n, dq));
            }
        }
        tail = op.outputs[0];
    }
    Some((chain, next_dw))
}

/// How an anchor op takes its chain (upstream v3.13's patterns, probed
/// through its C API).
#[derive(Clone, Copy, Debug)]
struct ChainRules {
    /// The most unary and binary post-ops.
    max_post: usize,
    /// Only ReLU is a post-op (the batch normalizations).
    relu_only: bool,
    /// A TypeCast from bf16/f16 to f32 may follow the anchor.
    typecast: bool,
    /// A Quantize may end the chain (int8 pooling: only with the source's
    /// Dequantize).
    quantize: bool,
    /// Dequantize -> anchor -> ... -> Quantize, int8 Add operands included.
    int8: bool,
    /// Upstream's binary patterns (a binary op followed by another post-op;
    /// a unary op followed by a binary one) take their ops first.
    binary_first: bool,
}

/// The chain rules of `op` when it anchors a group of ours: its kind has
/// rules and its lowering takes a chain.
fn chain_rules(op: &Op) -> Option<ChainRules> {
    if !lower::lowers_chain(op) {
        return None;
    }
    let r = |max_post, relu_only, typecast, quantize, int8, binary_first| ChainRules {
        max_post,
        relu_only,
        typecast,
        quantize,
        int8,
        binary_first,
    };
    Some(match op.kind {
        dnnl_graph_op_max_pool | dnnl_graph_op_avg_pool => {
            r(CONV_MAX_POST, false, false, false, true, false)
        }
        dnnl_graph_op_interpolate
        | dnnl_graph_op_reduce_l1
        | dnnl_graph_op_reduce_l2
        | dnnl_graph_op_reduce_max
        | dnnl_graph_op_reduce_mean
        | dnnl_graph_op_reduce_min
        | dnnl_graph_op_reduce_prod
        | dnnl_graph_op_reduce_sum => r(CONV_MAX_POST, false, false, false, false, false),
        dnnl_graph_op_group_norm => r(usize::MAX, false, true, true, false, false),
        dnnl_graph_op_layer_norm => r(CONV_MAX_POST, false, true, true, false, true),
        dnnl_graph_op_batch_norm_inference | dnnl_graph_op_batch_norm_forward_training => {
            r(1, true, false, false, false, false)
        }
        // A TypeCast to f32 followed by a Quantize.
        dnnl_graph_op_type_cast => r(0, false, false, true, false, false),
        _ => return None,
    })
}

/// The group anchored at pooling, normalization, Interpolate or reduction
/// op `a`, or `None` for one on its own.
fn post_group(ops: &[Op], uses: &Uses, taken: &[bool], a: usize) -> Option<Group> {
    let rules = chain_rules(&ops[a])?;
    if ops[a].outputs.is_empty() || ops[a].inputs.is_empty() {
        return None;
    }
    let dq_src = if rules.int8 {
        sole_producer(ops, uses, taken, a, 0, dnnl_graph_op_dequantize)
    } else {
        None
    };
    // int8 needs the Dequantize and the Quantize both; without them the
    // chain is a floating-point one.
    let mut chain = post_chain(ops, uses, taken, a, rules, dq_src);
    if chain.dq_src.is_some() && chain.quantize.is_none() {
        chain = post_chain(ops, uses, taken, a, rules, None);
    }
    if chain.dq_src.is_none() && is_int8(ops[a].inputs[0].data_type) {
        return None;
    }
    if rules.binary_first {
        yield_to_binary_patterns(ops, &mut chain);
    }
    let mut order = Vec::new();
    order.extend(chain.dq_src);
    order.push(a);
    order.extend(chain.typecast);
    for &(p, dq) in &chain.post {
        order.extend(dq);
        order.push(p);
    }
    order.extend(chain.quantize);
    if order.len() == 1 {
        return None;
    }
    let pos = |i: usize| order.iter().position(|&o| o == i).unwrap_or(0);
    let pattern = Pattern::Post(PostChain {
        dq_src: chain.dq_src.map(pos),
        anchor: pos(a),
        typecast: chain.typecast.map(pos),
        post: chain
            .post
            .iter()
            .map(|&(p, d)| (pos(p), d.map(pos)))
            .collect(),
        quantize: chain.quantize.map(pos),
    });
    Some(Group {
        ops: order,
        pattern,
        supported: true,
    })
}

/// The chain of anchor `a` (indices into `ops`) under `rules`, int8 when
/// `dq_src` is given.
fn post_chain(
    ops: &[Op],
    uses: &Uses,
    taken: &[bool],
    a: usize,
    rules: ChainRules,
    dq_src: Option<usize>,
) -> PostChain {
    let int8 = dq_src.is_some();
    let mut chain = PostChain {
        dq_src,
        anchor: a,
        typecast: None,
        post: Vec::new(),
        quantize: None,
    };
    let mut tail = ops[a].outputs[0];
    while let Some(n) = uses.only_consumer(tail.id) {
        let op = &ops[n];
        if taken[n] || op.outputs.len() != 1 {
            break;
        }
        let from_tail = op.inputs.first().is_some_and(|l| l.id == tail.id);
        match op.kind {
            dnnl_graph_op_quantize => {
                if from_tail && (if rules.int8 { int8 } else { rules.quantize }) {
                    chain.quantize = Some(n);
                }
                break;
            }
            dnnl_graph_op_type_cast => {
                let fits = rules.typecast
                    && from_tail
                    && chain.typecast.is_none()
                    && chain.post.is_empty()
                    && matches!(tail.data_type, dnnl_bf16 | dnnl_f16)
                    && op.outputs[0].data_type == dnnl_f32;
                if !fits {
                    break;
                }
                chain.typecast = Some(n);
            }
            dnnl_graph_op_reciprocal | dnnl_graph_op_pow => break,
            _ if chain.post.len() >= rules.max_post => break,
            _ if rules.relu_only => {
                if op.kind != dnnl_graph_op_relu || !from_tail {
                    break;
                }
                chain.post.push((n, None));
            }
            _ if lower::eltwise_post_op(op).is_some() => {
                if !from_tail {
                    break;
                }
                chain.post.push((n, None));
            }
            _ => {
                if matches!(
                    op.kind,
                    dnnl_graph_op_squared_difference | dnnl_graph_op_greater_equal
                ) || !binary_fusible(op, &tail)
                {
                    break;
                }
                let other = if from_tail { 1 } else { 0 };
                // int8: an Add of a dequantized tensor of the chain's shape
                // takes its Dequantize.
                let dq = if int8 && op.kind == dnnl_graph_op_add {
                    sole_producer(ops, uses, taken, n, other, dnnl_graph_op_dequantize).filter(
                        |_| {
                            let o = known_dims(&op.inputs[other]);
                            o.is_some() && o == known_dims(&tail)
                        },
                    )
                } else {
                    None
                };
                chain.post.push((n, dq));
            }
        }
        tail = op.outputs[0];
    }
    chain
}

/// Cuts a LayerNorm's chain where upstream's binary patterns, which it
/// matches first, take ops: from the first binary op followed by another
/// post-op, or else from a unary op followed by the chain's last op when
/// that is a binary one. The cut ops (and a Quantize after them) are left
/// to partitions of their own.
fn yield_to_binary_patterns(ops: &[Op], chain: &mut PostChain) {
    let is_binary = |&(p, _): &(usize, Option<usize>)| lower::binary_post_op(ops[p].kind).is_some();
    let k = chain.post.len();
    let cut = match (0..k).find(|&i| is_binary(&chain.post[i]) && i + 1 < k) {
        Some(i) => i,
        None if k >= 2 && is_binary(&chain.post[k - 1]) && !is_binary(&chain.post[k - 2]) => k - 2,
        None => k,
    };
    if cut < k {
        chain.post.truncate(cut);
        chain.quantize = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lt(id: usize, dt: dnnl_data_type_t) -> logical_tensor::Lt {
        logical_tensor::init_with_dims(
            id,
            dt,
            &[2, 4, 6, 6],
            dnnl_graph_layout_type_strided,
            dnnl_graph_tensor_property_variable,
        )
        .unwrap()
    }

    /// An anchor (op 0, tensor 1 -> 2) followed by `spec`: r ReLU, s
    /// Sigmoid, a Add, m Multiply (other operands 100..), Q Quantize.
    fn graph(anchor: dnnl_graph_op_kind_t, spec: &str) -> Vec<Op> {
        let mut a = Op::new(0, anchor, "anchor");
        a.inputs = vec![lt(1, dnnl_f32)];
        a.outputs = vec![lt(2, dnnl_f32)];
        let mut ops = vec![a];
        let mut tail = 2;
        for (i, c) in spec.chars().enumerate() {
            let (kind, dt) = match c {
                'r' => (dnnl_graph_op_relu, dnnl_f32),
                's' => (dnnl_graph_op_sigmoid, dnnl_f32),
                'a' => (dnnl_graph_op_add, dnnl_f32),
                'm' => (dnnl_graph_op_multiply, dnnl_f32),
                _ => (dnnl_graph_op_quantize, dnnl_u8),
            };
            let mut o = Op::new(i + 1, kind, "post");
            o.inputs = vec![lt(tail, dnnl_f32)];
            if matches!(c, 'a' | 'm') {
                o.inputs.push(lt(100 + i, dnnl_f32));
            }
            o.outputs = vec![lt(10 + i, dt)];
            tail = 10 + i;
            ops.push(o);
        }
        ops
    }

    /// The ids of the post-ops and Quantize a chain takes under `rules`.
    fn taken(anchor: dnnl_graph_op_kind_t, spec: &str, rules: ChainRules) -> Vec<usize> {
        let ops = graph(anchor, spec);
        let uses = Uses::of(&ops);
        let mut chain = post_chain(&ops, &uses, &vec![false; ops.len()], 0, rules, None);
        if rules.binary_first {
            yield_to_binary_patterns(&ops, &mut chain);
        }
        let mut ids: Vec<usize> = chain.post.iter().map(|&(p, _)| ops[p].id).collect();
        ids.extend(chain.quantize.map(|q| ops[q].id));
        ids
    }

    const LN: ChainRules = ChainRules {
        max_post: CONV_MAX_POST,
        relu_only: false,
        typecast: true,
        quantize: true,
        int8: false,
        binary_first: true,
    };

    /// LayerNorm's chains as upstream v3.13 cuts them (probed through its C
    /// API): its binary patterns take a binary op followed by another
    /// post-op, or a unary op followed by a last binary one.
    #[test]
    fn layer_norm_yields_to_binary_patterns() {
        let ln = dnnl_graph_op_layer_norm;
        assert_eq!(taken(ln, "rr", LN), vec![1, 2]);
        assert_eq!(taken(ln, "a", LN), vec![1]);
        assert_eq!(taken(ln, "ra", LN), Vec::<usize>::new());
        assert_eq!(taken(ln, "rra", LN), vec![1]);
        assert_eq!(taken(ln, "ram", LN), vec![1]);
        assert_eq!(taken(ln, "rmr", LN), vec![1]);
        assert_eq!(taken(ln, "am", LN), Vec::<usize>::new());
        assert_eq!(taken(ln, "aQ", LN), vec![1, 2]);
        assert_eq!(taken(ln, "rrQ", LN), vec![1, 2, 3]);
        assert_eq!(taken(ln, "raQ", LN), Vec::<usize>::new());
        // Without the rule (GroupNorm), the whole chain.
        let gn = ChainRules {
            max_post: usize::MAX,
            binary_first: false,
            ..LN
        };
        assert_eq!(
            taken(dnnl_graph_op_group_norm, "ramQ", gn),
            vec![1, 2, 3, 4]
        );
    }

    /// The batch normalizations take one ReLU and nothing else.
    #[test]
    fn batch_norm_takes_one_relu() {
        let bn = ChainRules {
            max_post: 1,
            relu_only: true,
            typecast: false,
            quantize: false,
            int8: false,
            binary_first: false,
        };
        let kind = dnnl_graph_op_batch_norm_inference;
        assert_eq!(taken(kind, "rr", bn), vec![1]);
        assert_eq!(taken(kind, "s", bn), Vec::<usize>::new());
        assert_eq!(taken(kind, "a", bn), Vec::<usize>::new());
        assert_eq!(taken(kind, "rQ", bn), vec![1]);
    }
}
