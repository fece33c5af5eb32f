//! Partitions (`dnnl_graph_partition_*`): a group of ops with the tensors
//! that cross its border (the ports), whether it lowers onto our
//! primitives, and compilation.
//!
//! Layer: graph. Input ports are the tensors the ops read that no op of the
//! partition writes, in the order the ops read them; output ports are the
//! tensors the ops write that another op of the graph reads, or no op reads
//! (graph outputs). Ids come from one process-wide counter, as upstream's.

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::abi::*;
use crate::core::engine::{Engine, EngineKind};
use crate::core::error::{Error, Result};
use crate::graph::compiled::Compiled;
use crate::graph::graph::{FpMath, Policy};
use crate::graph::logical_tensor::{self, Lt};
use crate::graph::op::Op;
use crate::graph::partitioner::{self, Group, Pattern};

static NEXT_ID: AtomicUsize = AtomicUsize::new(1);

/// A partition.
pub struct Partition {
    id: usize,
    engine_kind: EngineKind,
    fpmath: FpMath,
    ops: Vec<Op>,
    pattern: Pattern,
    supported: bool,
    inputs: Vec<Lt>,
    outputs: Vec<Lt>,
}

impl Partition {
    /// The partition of `group` of `all` (the graph's ops in order).
    pub fn new(
        group: Group,
        engine_kind: EngineKind,
        fpmath: FpMath,
        all: &[Op],
    ) -> Arc<Partition> {
        let ops: Vec<Op> = group.ops.iter().map(|&i| all[i].clone()).collect();
        let produced: HashSet<usize> = ops
            .iter()
            .flat_map(|o| o.outputs.iter().map(|l| l.id))
            .collect();
        let mut inputs: Vec<Lt> = Vec::new();
        for op in &ops {
            for lt in &op.inputs {
                if !produced.contains(&lt.id) && !inputs.iter().any(|i| i.id == lt.id) {
                    inputs.push(*lt);
                }
            }
        }
        let members: HashSet<usize> = group.ops.iter().copied().collect();
        let read_outside = |id: usize| {
            all.iter()
                .enumerate()
                .any(|(i, o)| !members.contains(&i) && o.inputs.iter().any(|l| l.id == id))
        };
        let read_inside = |id: usize| ops.iter().any(|o| o.inputs.iter().any(|l| l.id == id));
        let mut outputs: Vec<Lt> = Vec::new();
        for op in &ops {
            for lt in &op.outputs {
                let port = read_outside(lt.id) || !read_inside(lt.id);
                if port && !outputs.iter().any(|o| o.id == lt.id) {
                    outputs.push(*lt);
                }
            }
        }
        Arc::new(Partition {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            engine_kind,
            fpmath,
            ops,
            pattern: group.pattern,
            supported: group.supported,
            inputs,
            outputs,
        })
    }

    /// `dnnl_graph_partition_create_with_op`: the partition of one op
    /// (checked against its schema), as a one-op graph would give.
    pub fn with_op(op: &Op, engine_kind: EngineKind) -> Result<Arc<Partition>> {
        op.check()?;
        let ops = vec![op.clone()];
        let group = partitioner::partition(&ops, Policy::Debug, engine_kind)
            .into_iter()
            .next()
            .ok_or_else(|| Error::invalid("an End op makes no partition"))?;
        let fpmath = FpMath {
            mode: crate::core::settings::default_fpmath_mode(),
            apply_to_int: false,
        };
        Ok(Partition::new(group, engine_kind, fpmath, &ops))
    }

    pub fn id(&self) -> usize {
        self.id
    }

    pub fn engine_kind(&self) -> EngineKind {
        self.engine_kind
    }

    pub fn fpmath(&self) -> FpMath {
        self.fpmath
    }

    pub fn ops(&self) -> &[Op] {
        &self.ops
    }

    pub fn pattern(&self) -> &Pattern {
        &self.pattern
    }

    pub fn is_supported(&self) -> bool {
        self.supported
    }

    pub fn inputs(&self) -> &[Lt] {
        &self.inputs
    }

    pub fn outputs(&self) -> &[Lt] {
        &self.outputs
    }

    /// The kind verbose lines print: the pattern's name.
    pub fn kind_name(&self) -> &'static str {
        match &self.pattern {
            Pattern::Single => self.ops.first().map_or("", |o| o.kind_name()),
            Pattern::Matmul {
                dq_src: Some(_), ..
            }
            | Pattern::Matmul {
                quantize: Some(_), ..
            } => "quantized_matmul_post_ops",
            Pattern::Matmul { .. } => "matmul_post_ops",
            Pattern::Conv(chains) => {
                let first = &chains[0];
                let transposed = self
                    .ops
                    .get(first.conv)
                    .is_some_and(|o| o.kind == dnnl_graph_op_conv_transpose);
                match (first.dq_src.is_some(), transposed) {
                    (true, true) => "quantized_convtranspose_post_ops",
                    (true, false) => "quantized_convolution_post_ops",
                    (false, true) => "convtranspose_post_ops",
                    (false, false) => "convolution_post_ops",
                }
            }
            Pattern::Post(chain) => match self.ops.get(chain.anchor).map(|o| o.kind) {
                Some(dnnl_graph_op_batch_norm_inference) => "bn_relu",
                Some(dnnl_graph_op_batch_norm_forward_training) => "bn_fwd_train_relu",
                Some(dnnl_graph_op_max_pool | dnnl_graph_op_avg_pool) => "pool_post_ops",
                Some(dnnl_graph_op_interpolate) => "interpolate_post_ops",
                Some(dnnl_graph_op_layer_norm) => "layernorm_post_ops",
                Some(dnnl_graph_op_group_norm) => "groupnorm_post_ops",
                _ => "reduction_post_ops",
            },
        }
    }

    /// Compiles for `engine` with the given input and output tensors:
    /// every input port needs a tensor of known shape (matched by id); the
    /// output tensors may leave shapes unknown and layouts `any`.
    pub fn compile(
        self: &Arc<Self>,
        inputs: &[Lt],
        outputs: &[Lt],
        engine: &Arc<Engine>,
    ) -> Result<Arc<Compiled>> {
        if !self.supported {
            return Err(Error::invalid(format!(
                "partition {} ({}) is not supported and cannot be compiled",
                self.id,
                self.kind_name()
            )));
        }
        if engine.kind() != self.engine_kind {
            return Err(Error::invalid(format!(
                "partition {} is for {} engines, not {}",
                self.id,
                self.engine_kind.name(),
                engine.kind().name()
            )));
        }
        if matches!(engine.backend(), crate::core::engine::Backend::Ze(_)) {
            return Err(crate::graph::compiled::ze_unsupported());
        }
        let mut ins = Vec::with_capacity(self.inputs.len());
        for port in &self.inputs {
            let given = inputs.iter().find(|l| l.id == port.id).ok_or_else(|| {
                Error::invalid(format!(
                    "no input logical tensor with id {} was given",
                    port.id
                ))
            })?;
            if !logical_tensor::shape_known(given) {
                return Err(Error::InvalidShape(
                    format!("input tensor {} has an unknown shape", given.id).into(),
                ));
            }
            ins.push(*given);
        }
        let mut outs = Vec::with_capacity(self.outputs.len());
        for port in &self.outputs {
            let given = outputs.iter().find(|l| l.id == port.id).ok_or_else(|| {
                Error::invalid(format!(
                    "no output logical tensor with id {} was given",
                    port.id
                ))
            })?;
            outs.push(*given);
        }
        crate::graph::cp_cache::get_or_compile(self, ins, outs, engine)
    }
}

/// The scratchpad tensor of a compiled partition needing `size` bytes.
pub fn scratchpad_lt(size: usize) -> Result<Lt> {
    let bytes = i64::try_from(size)
        .map_err(|_| Error::invalid(format!("a scratchpad of {size} bytes does not fit")))?;
    let mut lt = logical_tensor::init_with_dims(
        logical_tensor::SCRATCHPAD_ID,
        dnnl_u8,
        &[bytes],
        dnnl_graph_layout_type_strided,
        dnnl_graph_tensor_property_variable,
    )?;
    lt.property = dnnl_graph_tensor_property_variable;
    Ok(lt)
}
