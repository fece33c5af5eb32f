//! Lowering: a partition, with the shapes of one compilation, becomes a
//! program of primitive executions over buffers.
//!
//! Layer: graph, over `prims` (through `core::primitive`). A program is a
//! list of steps, each a primitive with its arguments; an argument names a
//! buffer and the memory descriptor through which the step sees it (so a
//! transposed MatMul operand or a reshaped tensor is a view, not a copy).
//! Buffers are the partition's inputs and outputs (the user's tensors),
//! temporaries (intermediate results: memory from the engine's graph
//! allocator, or carved from the user's scratchpad), constants made at
//! compilation (quantization scales and zero points), and prepacked
//! constant inputs (MatMul weights and bias with the `constant` property,
//! reordered once into the layout and type the primitive was created with
//! and kept in the constant tensor cache).
//!
//! - `kinds`: which op kinds lower, and to which algorithms;
//! - `shape`: shape and data-type inference;
//! - `single`: partitions of one op;
//! - `matmul`: MatMul with its (de)quantization and post-op chain;
//! - `conv_geom`: the convolution ops' attributes, shapes and views;
//! - `conv`: the convolution ops, alone or with their (de)quantization and
//!   post-op chain;
//! - `post`: an anchor op (BatchNormInference, BatchNormForwardTraining,
//!   MaxPool, AvgPool, LayerNorm, GroupNorm, Interpolate, the reductions)
//!   with its post-op chain;
//! - `bnorm`: BatchNormInference as binary primitives;
//! - `bnorm_train`: BatchNormForwardTraining and BatchNormTrainingBackward
//!   onto the batch normalization primitive;
//! - `pool`: MaxPool, AvgPool and their backward ops onto the pooling
//!   primitive;
//! - `lnorm`: LayerNorm, LayerNormBackward and RMSNorm onto the layer
//!   normalization primitive;
//! - `gnorm`: GroupNorm onto the group normalization primitive;
//! - `interp`: Interpolate and InterpolateBackward onto the resampling
//!   primitive;
//! - `reduce`: the Reduce* ops onto the reduction primitive;
//! - `prelu`: PReLU and PReLUBackward onto the PReLU primitive.

mod bnorm;
mod bnorm_train;
mod conv;
pub(crate) mod conv_geom;
mod gnorm;
mod interp;
mod kinds;
mod lnorm;
mod matmul;
mod pool;
mod post;
mod prelu;
mod reduce;
pub mod shape;
mod single;

use std::collections::HashMap;
use std::sync::Arc;

use crate::abi::*;
use crate::core::attr::PrimitiveAttr;
use crate::core::engine::Engine;
use crate::core::error::{Error, Result};
use crate::core::memory::{DataHandle, Memory};
use crate::core::memory_desc::MemoryDesc;
use crate::core::primitive::{Kind, Primitive, PrimitiveDesc};
use crate::graph::logical_tensor::{self, Lt};
use crate::graph::partition::Partition;
use crate::graph::partitioner::Pattern;
use crate::prims::reorder::ReorderOp;

pub use kinds::{Binary, Eltwise, binary as binary_post_op, lowers_chain, supports_single};

/// The eltwise post-op of a unary forward op, if it has one.
pub fn eltwise_post_op(op: &crate::graph::op::Op) -> Option<Eltwise> {
    kinds::eltwise_forward(op)
}

/// A buffer of a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Buf {
    /// Input port `i`.
    In(usize),
    /// Output port `i`.
    Out(usize),
    /// Temporary `i`.
    Temp(usize),
    /// Constant `i`, made at compilation.
    Const(usize),
    /// Prepacked constant input `i` (see [`Prepack`]).
    Cached(usize),
}

/// One argument of a step.
pub struct Arg {
    pub arg: i32,
    pub buf: Buf,
    pub md: MemoryDesc,
}

/// One primitive execution.
pub struct Step {
    pub prim: Arc<Primitive>,
    pub args: Vec<Arg>,
}

/// A constant input prepared once: `step` reads input port `input` and
/// writes `Buf::Cached(k)` (`size` bytes).
pub struct Prepack {
    pub input: usize,
    pub size: usize,
    pub step: Step,
}

/// A lowered partition.
pub struct Program {
    pub steps: Vec<Step>,
    /// Sizes of the temporaries, bytes.
    pub temps: Vec<usize>,
    pub consts: Vec<Arc<Memory>>,
    pub prepacks: Vec<Prepack>,
    /// (input id, output id) pairs that may share memory.
    pub inplace: Vec<(usize, usize)>,
}

/// Alignment of temporaries (bytes).
pub const TEMP_ALIGNMENT: usize = 64;

impl Program {
    /// Bytes of the scratchpad that holds every temporary.
    pub fn scratchpad_size(&self) -> Result<usize> {
        Ok(self.temp_offsets()?.1)
    }

    /// Each temporary's offset in the scratchpad, and the total; invalid
    /// arguments when the total does not fit in `isize` (tensors that
    /// large cannot be allocated).
    pub fn temp_offsets(&self) -> Result<(Vec<usize>, usize)> {
        let too_large = || Error::invalid("the partition's temporaries need more bytes than fit");
        let mut offsets = Vec::with_capacity(self.temps.len());
        let mut at = 0usize;
        for &size in &self.temps {
            offsets.push(at);
            let aligned = size
                .checked_next_multiple_of(TEMP_ALIGNMENT)
                .ok_or_else(too_large)?;
            at = at.checked_add(aligned).ok_or_else(too_large)?;
        }
        isize::try_from(at).map_err(|_| too_large())?;
        Ok((offsets, at))
    }
}

/// What lowering builds a program with.
pub(crate) struct Builder<'a> {
    engine: &'a Arc<Engine>,
    pub fpmath: crate::graph::graph::FpMath,
    lts: HashMap<usize, Lt>,
    ins: Vec<Lt>,
    outs: Vec<Lt>,
    bufs: HashMap<usize, Buf>,
    program: Program,
}

impl<'a> Builder<'a> {
    /// The resolved tensor `id`.
    pub fn lt(&self, id: usize) -> Result<Lt> {
        self.lts
            .get(&id)
            .copied()
            .ok_or_else(|| Error::runtime(format!("tensor {id} was not resolved")))
    }

    /// The memory descriptor of tensor `id` as stored.
    pub fn md(&self, id: usize) -> Result<MemoryDesc> {
        logical_tensor::to_md(&self.lt(id)?)
    }

    /// The buffer holding tensor `id` (an intermediate gets a temporary).
    pub fn buf(&mut self, id: usize) -> Result<Buf> {
        if let Some(b) = self.bufs.get(&id) {
            return Ok(*b);
        }
        let size = self.md(id)?.size(0);
        let b = self.temp(size);
        self.bufs.insert(id, b);
        Ok(b)
    }

    /// Whether tensor `id` is an input with the constant property.
    pub fn constant_input(&self, id: usize) -> Option<usize> {
        self.ins
            .iter()
            .position(|l| l.id == id && l.property == dnnl_graph_tensor_property_constant)
    }

    /// A new temporary of `size` bytes.
    pub fn temp(&mut self, size: usize) -> Buf {
        self.program.temps.push(size);
        Buf::Temp(self.program.temps.len() - 1)
    }

    /// A constant buffer of `values` (`f32` or `s32` bytes) as a 1-D tensor.
    fn konst(&mut self, bytes: &[u8], n: usize, dt: dnnl_data_type_t) -> Result<(Buf, MemoryDesc)> {
        let md = MemoryDesc::with_strides(&[n as i64], dt, Some(&[1]))?;
        let mem = Memory::create(
            self.engine.clone(),
            md.clone(),
            None,
            &[DataHandle::Allocate],
        )?;
        let addr = mem.map(0)?;
        // SAFETY: a mapping of the whole buffer, `md.size(0)` == bytes.len().
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), addr as *mut u8, bytes.len()) };
        mem.unmap(0, addr)?;
        self.program.consts.push(mem);
        Ok((Buf::Const(self.program.consts.len() - 1), md))
    }

    /// A constant f32 vector.
    pub fn konst_f32(&mut self, values: &[f32]) -> Result<(Buf, MemoryDesc)> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
        self.konst(&bytes, values.len(), dnnl_f32)
    }

    /// A constant s32 vector.
    pub fn konst_s32(&mut self, values: &[i32]) -> Result<(Buf, MemoryDesc)> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
        self.konst(&bytes, values.len(), dnnl_s32)
    }

    /// The primitive of `op` (the first implementation that accepts it).
    pub fn primitive<K: Kind>(&self, op: K) -> Result<Arc<Primitive>> {
        PrimitiveDesc::create(self.engine.clone(), Arc::new(op))?.create_primitive()
    }

    /// Appends a step.
    pub fn step(&mut self, prim: Arc<Primitive>, args: Vec<Arg>) {
        self.program.steps.push(Step { prim, args });
    }

    /// A reorder step from `src` to `dst` with `attr` (and its quantization
    /// arguments in `extra`).
    pub fn reorder(
        &self,
        src: (&MemoryDesc, Buf),
        dst: (&MemoryDesc, Buf),
        attr: Option<&PrimitiveAttr>,
        extra: Vec<Arg>,
    ) -> Result<Step> {
        let op = ReorderOp::new(src.0, self.engine.clone(), dst.0, self.engine.clone(), attr)?;
        let prim = self.primitive(op)?;
        let mut args = vec![
            Arg {
                arg: DNNL_ARG_SRC,
                buf: src.1,
                md: src.0.clone(),
            },
            Arg {
                arg: DNNL_ARG_DST,
                buf: dst.1,
                md: dst.0.clone(),
            },
        ];
        args.extend(extra);
        Ok(Step { prim, args })
    }

    /// Declares that input `input_id` and output `output_id` may share memory.
    pub fn inplace(&mut self, input_id: usize, output_id: usize) {
        self.program.inplace.push((input_id, output_id));
    }
}

/// The shape of each tensor of `p` for the given port tensors: inputs as
/// given (an `any` layout resolved to dense strides), every other tensor
/// inferred, output ports checked against what the caller gave.
fn resolve(p: &Partition, ins: &[Lt], outs: &[Lt]) -> Result<HashMap<usize, Lt>> {
    let mut lts: HashMap<usize, Lt> = HashMap::new();
    for lt in ins {
        lts.insert(
            lt.id,
            logical_tensor::resolved(lt, logical_tensor::dims(lt)),
        );
    }
    for op in p.ops() {
        let inputs: Vec<Lt> = op
            .inputs
            .iter()
            .map(|l| {
                lts.get(&l.id).copied().ok_or_else(|| {
                    Error::invalid(format!(
                        "tensor {} of op {} has no known shape",
                        l.id, op.id
                    ))
                })
            })
            .collect::<Result<_>>()?;
        let given_of = |own: &Lt| {
            outs.iter()
                .find(|l| l.id == own.id)
                .copied()
                .unwrap_or(*own)
        };
        let first = op.outputs.first().map(given_of);
        let dims = shape::infer(op, &inputs, first.as_ref())?;
        for (k, own) in op.outputs.iter().enumerate() {
            let given = given_of(own);
            let dims = if k == 0 {
                dims.clone()
            } else {
                match shape::infer_extra(op, k, &inputs)? {
                    Some(d) => d,
                    None => logical_tensor::dims(&given).to_vec(),
                }
            };
            let rank_differs = logical_tensor::ndims(&given).is_some_and(|n| n != dims.len());
            if rank_differs
                || (logical_tensor::shape_known(&given)
                    && logical_tensor::dims(&given) != dims.as_slice())
            {
                return Err(Error::InvalidShape(
                    format!(
                        "output tensor {} is given as {:?} but op {} computes {:?}",
                        given.id,
                        logical_tensor::dims(&given),
                        op.id,
                        dims
                    )
                    .into(),
                ));
            }
            let mut lt = given;
            lt.data_type = shape::infer_dt(op, &inputs, given.data_type);
            lts.insert(own.id, logical_tensor::resolved(&lt, &dims));
        }
    }
    Ok(lts)
}

/// Lowers `p` for the given port tensors on `engine`; returns the program
/// and the resolved input and output tensors.
pub fn lower(
    p: &Partition,
    ins: &[Lt],
    outs: &[Lt],
    engine: &Arc<Engine>,
) -> Result<(Program, Vec<Lt>, Vec<Lt>)> {
    let lts = resolve(p, ins, outs)?;
    // Every tensor's size must fit before anything is sized from it.
    for lt in lts.values() {
        logical_tensor::mem_size(lt)?;
    }
    let r_ins: Vec<Lt> = ins.iter().map(|l| lts[&l.id]).collect();
    let r_outs: Vec<Lt> = outs.iter().map(|l| lts[&l.id]).collect();
    let mut bufs = HashMap::new();
    for (i, l) in r_ins.iter().enumerate() {
        bufs.insert(l.id, Buf::In(i));
    }
    for (i, l) in r_outs.iter().enumerate() {
        bufs.insert(l.id, Buf::Out(i));
    }
    let mut b = Builder {
        engine,
        fpmath: p.fpmath(),
        lts,
        ins: r_ins.clone(),
        outs: r_outs.clone(),
        bufs,
        program: Program {
            steps: Vec::new(),
            temps: Vec::new(),
            consts: Vec::new(),
            prepacks: Vec::new(),
            inplace: Vec::new(),
        },
    };
    match p.pattern() {
        Pattern::Single => single::lower(&mut b, &p.ops()[0])?,
        Pattern::Matmul { .. } => matmul::lower(&mut b, p)?,
        Pattern::Conv(_) => conv::lower(&mut b, p)?,
        Pattern::Post(_) => post::lower(&mut b, p)?,
    }
    let _ = &b.outs;
    Ok((b.program, r_ins, r_outs))
}
