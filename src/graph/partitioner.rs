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
//! - every other op that lowers onto a primitive is a partition of its own;
//! - every op that does not (Convolution, pooling, normalisations, Wildcard
//!   ...) is a partition of its own that says it is not supported;
//! - End ops only mark graph outputs: they belong to no partition.
//!
//! Policy `debug` puts every op (End excepted) in a partition of its own.
//! Partitions come in the order of their first op, and the ops are in
//! topological order, so the partitions are too.

use std::collections::HashMap;

use crate::abi::*;
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

/// Partitions `ops` (in topological order).
pub fn partition(ops: &[Op], policy: Policy) -> Vec<Group> {
    let uses = Uses::of(ops);
    let mut taken = vec![false; ops.len()];
    let mut groups: Vec<Group> = Vec::new();
    if policy == Policy::Fusion {
        for m in 0..ops.len() {
            if ops[m].kind == dnnl_graph_op_matmul && !taken[m] {
                if let Some(g) = matmul_group(ops, &uses, &taken, m) {
                    for &i in &g.ops {
                        taken[i] = true;
                    }
                    groups.push(g);
                }
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
