//! Graphs (`dnnl_graph_graph_*`): ops added one by one, finalized (checked
//! for consistency and cycles), then partitioned.
//!
//! Layer: graph. oneDNN v3.13's rules, as its library answers them:
//! - `add_op`: refused with `dnnl_invalid_graph` once the graph is
//!   finalized, with `dnnl_invalid_graph_op` when the op breaks its schema;
//!   an op whose id is already in the graph is ignored (success);
//! - `finalize`: `dnnl_invalid_graph` when two logical tensors under one id
//!   differ in anything `dnnl_graph_logical_tensor_is_equal` compares (data
//!   type, property, layout type, dimensions, strides: an unknown shape, an
//!   `any` layout or an undef property is different from a known one), or
//!   when the ops form
//!   a cycle (an op reading its own output included). An op input that no
//!   op produces is a graph input; an id produced by two ops is accepted;
//!   finalizing twice is a no-op;
//! - `filter` (and so the partitions) need a finalized graph
//!   (`dnnl_invalid_graph`); before it the graph has 0 partitions.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::abi::*;
use crate::core::engine::EngineKind;
use crate::core::error::{Error, Result};
use crate::core::settings;
use crate::graph::logical_tensor::{self, Lt};
use crate::graph::op::Op;
use crate::graph::partition::Partition;
use crate::graph::{dump, partitioner};

/// The partitioning policies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Fuse what can run as one primitive.
    Fusion,
    /// One op per partition.
    Debug,
}

impl Policy {
    /// The C value's policy; upstream treats any value but `debug` as fusion.
    pub fn from_c(policy: dnnl_graph_partition_policy_t) -> Policy {
        if policy == dnnl_graph_partition_policy_debug {
            Policy::Debug
        } else {
            Policy::Fusion
        }
    }
}

/// The floating-point math mode of a graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FpMath {
    pub mode: dnnl_fpmath_mode_t,
    pub apply_to_int: bool,
}

struct State {
    fpmath: FpMath,
    ops: Vec<Op>,
    finalized: bool,
    partitions: Vec<Arc<Partition>>,
}

/// A graph. The C API mutates it through `&self`.
pub struct Graph {
    id: usize,
    engine_kind: EngineKind,
    state: Mutex<State>,
}

/// Graph ids, for dumps.
static NEXT_GRAPH_ID: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(1);

impl Graph {
    /// An empty graph for engines of `kind`.
    pub fn new(engine_kind: EngineKind, fpmath: Option<FpMath>) -> Result<Arc<Graph>> {
        let fpmath = match fpmath {
            Some(f) => FpMath {
                mode: settings::check_fpmath_mode(f.mode)?,
                apply_to_int: f.apply_to_int,
            },
            None => FpMath {
                mode: settings::default_fpmath_mode(),
                apply_to_int: false,
            },
        };
        Ok(Arc::new(Graph {
            id: NEXT_GRAPH_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            engine_kind,
            state: Mutex::new(State {
                fpmath,
                ops: Vec::new(),
                finalized: false,
                partitions: Vec::new(),
            }),
        }))
    }

    /// The engine kind.
    pub fn engine_kind(&self) -> EngineKind {
        self.engine_kind
    }

    /// The floating-point math mode.
    pub fn fpmath(&self) -> Result<FpMath> {
        Ok(self.state.lock()?.fpmath)
    }

    /// Changes the floating-point math mode (before finalization).
    pub fn set_fpmath(&self, fpmath: FpMath) -> Result<()> {
        let mode = settings::check_fpmath_mode(fpmath.mode)?;
        let mut st = self.state.lock()?;
        if st.finalized {
            return Err(Error::InvalidGraph(
                "the floating-point math mode of a finalized graph cannot change".into(),
            ));
        }
        st.fpmath = FpMath {
            mode,
            apply_to_int: fpmath.apply_to_int,
        };
        Ok(())
    }

    /// Adds a copy of `op`.
    pub fn add_op(&self, op: &Op) -> Result<()> {
        let mut st = self.state.lock()?;
        if st.finalized {
            return Err(Error::InvalidGraph(
                "an op cannot be added to a finalized graph".into(),
            ));
        }
        op.check()?;
        if st.ops.iter().any(|o| o.id == op.id) {
            return Ok(());
        }
        st.ops.push(op.clone());
        Ok(())
    }

    /// Checks and freezes the graph.
    pub fn finalize(&self) -> Result<()> {
        let mut st = self.state.lock()?;
        if st.finalized {
            return Ok(());
        }
        check_consistent(&st.ops)?;
        topo_order(&st.ops)?;
        st.finalized = true;
        dump::graph(self.id, &st.ops);
        Ok(())
    }

    /// Whether the graph is finalized.
    pub fn is_finalized(&self) -> Result<bool> {
        Ok(self.state.lock()?.finalized)
    }

    /// Partitions the graph with `policy`.
    pub fn filter(&self, policy: Policy) -> Result<()> {
        let mut st = self.state.lock()?;
        if !st.finalized {
            return Err(Error::InvalidGraph(
                "the graph must be finalized before it is partitioned".into(),
            ));
        }
        let order = topo_order(&st.ops)?;
        let ordered: Vec<Op> = order.iter().map(|&i| st.ops[i].clone()).collect();
        st.partitions = partitioner::partition(&ordered, policy, self.engine_kind)
            .into_iter()
            .map(|group| Partition::new(group, self.engine_kind, st.fpmath, &ordered))
            .collect();
        Ok(())
    }

    /// The partitions of the last `filter`.
    pub fn partitions(&self) -> Result<Vec<Arc<Partition>>> {
        Ok(self.state.lock()?.partitions.clone())
    }
}

/// Every logical tensor under an id equals the first one under it.
fn check_consistent(ops: &[Op]) -> Result<()> {
    let mut seen: HashMap<usize, (Lt, usize)> = HashMap::new();
    for op in ops {
        for lt in op.inputs.iter().chain(&op.outputs) {
            match seen.get(&lt.id) {
                None => {
                    seen.insert(lt.id, (*lt, op.id));
                }
                Some((first, first_op)) if !logical_tensor::is_equal(first, lt) => {
                    return Err(Error::InvalidGraph(
                        format!(
                            "tensor {} is {:?} for op {first_op} but {:?} for op {}",
                            lt.id, first, lt, op.id
                        )
                        .into(),
                    ));
                }
                Some(_) => {}
            }
        }
    }
    Ok(())
}

/// The ops' indices in an order where each op follows the producers of its
/// inputs (stable: ties keep the order of addition); a cycle is an invalid
/// graph.
pub fn topo_order(ops: &[Op]) -> Result<Vec<usize>> {
    let mut producers: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, op) in ops.iter().enumerate() {
        for lt in &op.outputs {
            producers.entry(lt.id).or_default().push(i);
        }
    }
    // 0: unvisited, 1: on the stack, 2: done.
    let mut mark = vec![0u8; ops.len()];
    let mut order = Vec::with_capacity(ops.len());
    for start in 0..ops.len() {
        if mark[start] != 0 {
            continue;
        }
        // Iterative depth-first search: (op, next input to look at).
        let mut stack = vec![(start, 0usize)];
        mark[start] = 1;
        while let Some(&mut (op, ref mut next)) = stack.last_mut() {
            let preds: Vec<usize> = ops[op]
                .inputs
                .iter()
                .flat_map(|lt| producers.get(&lt.id).cloned().unwrap_or_default())
                .collect();
            if *next < preds.len() {
                let p = preds[*next];
                *next += 1;
                match mark[p] {
                    0 => {
                        mark[p] = 1;
                        stack.push((p, 0));
                    }
                    1 => {
                        return Err(Error::InvalidGraph(
                            format!(
                                "the graph has a cycle through op {} ({})",
                                ops[p].id, ops[p].name
                            )
                            .into(),
                        ));
                    }
                    _ => {}
                }
            } else {
                mark[op] = 2;
                order.push(op);
                stack.pop();
            }
        }
    }
    Ok(order)
}
