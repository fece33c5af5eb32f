//! Post-ops as primitives apply them: an attribute's chain checked against a
//! destination, then evaluated per element on the CPU or compiled into an
//! OpenCL kernel.
//!
//! Layer: prims. A primitive kind that applies post-ops builds a
//! [`PostOpsPlan`] at descriptor creation (which refuses what cannot be
//! applied: `unimplemented` with the reason), reports its extra execution
//! arguments through [`PostOpsPlan::inputs`] / [`PostOpsPlan::arg_md`], and
//! puts [`PostOpsPlan::cache_key`] into its own cache key.
//!
//! CPU kernels call [`HostPostOps::apply`] on each `f32` result with its
//! logical destination position and, when [`PostOpsPlan::sum_elem`] is
//! `Some`, the destination's old value read as that type.
//!
//! OpenCL kernels are built from `PostOpsPlan::cl_source()` followed by their
//! own source. That prelude always defines:
//! - `POST_OPS_PARAMS`: the kernel parameters the post-ops read (empty, or a
//!   list starting with a comma), put last in the kernel's parameter list;
//! - `POST_OPS_ARGS`: the same names, to pass on to `post_ops`;
//! - `POST_OPS_SUM` (0 or 1) and `PO_SUM_DT` (an element type name such as
//!   `F32`, for `LD_<DT>`): whether and how to read the old destination;
//! - `float post_ops(float v, float old, const long *pos POST_OPS_PARAMS)`,
//!   where `pos` holds the logical destination position (one entry per
//!   dimension).
//!
//! The buffers behind `POST_OPS_PARAMS` come from
//! [`PostOpsPlan::cl_buffers`], to be appended, in order, after the kernel's
//! own arguments.

use std::fmt::Write as _;
use std::sync::Arc;

use crate::abi::*;
use crate::core::attr::{PostOp, PostOps};
use crate::core::error::{Error, Result};
use crate::core::key::KeyWriter;
use crate::core::memory_desc::MemoryDesc;
use crate::core::primitive::ExecContext;
use crate::prims::common::binary_alg::{self, BinaryAlg};
use crate::prims::common::buffers::{Buffer, host_bytes};
use crate::prims::common::dt::{self, Elem};
use crate::prims::common::eltwise_alg::{self, Alg};
use crate::prims::common::layout::Layout;

/// The execution argument of post-op `index`'s operand `arg`
/// (`DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | arg`).
pub fn post_op_arg(index: usize, arg: i32) -> i32 {
    (DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE * (index as i32 + 1)) | arg
}

/// A tensor a post-op reads, broadcast to the destination.
#[derive(Clone, Debug)]
struct Operand {
    /// Its execution argument.
    arg: i32,
    md: Arc<MemoryDesc>,
    layout: Layout,
}

impl Operand {
    /// Checks `md` against the destination dimensions: the same number,
    /// each equal or 1. `any` becomes plain row-major.
    fn new(arg: i32, md: &MemoryDesc, dst_dims: &[i64], what: &str) -> Result<Operand> {
        let md = if md.is_any_format() {
            MemoryDesc::with_strides(md.dims(), md.data_type(), None)?
        } else {
            md.clone()
        };
        if md.ndims() != dst_dims.len() {
            return Err(Error::unimplemented(format!(
                "{what} has {} dimensions, the destination {}",
                md.ndims(),
                dst_dims.len()
            )));
        }
        if md
            .dims()
            .iter()
            .zip(dst_dims)
            .any(|(&d, &o)| d != o && d != 1)
        {
            return Err(Error::unimplemented(format!(
                "{what} dimensions {:?} do not broadcast to the destination's {:?}",
                md.dims(),
                dst_dims
            )));
        }
        if md.has_runtime_dims_or_strides() {
            return Err(Error::unimplemented(format!(
                "{what} has run-time dimensions"
            )));
        }
        Elem::from_c(md.data_type()).ok_or_else(|| {
            Error::unimplemented(format!(
                "{what}: data type {} is not supported",
                md.data_type().0
            ))
        })?;
        let layout = Layout::new(&md)?;
        Ok(Operand {
            arg,
            md: Arc::new(md),
            layout,
        })
    }

    /// The padded position of the element broadcast to destination position `pos`.
    fn padded(&self, pos: &[i64], out: &mut [i64]) {
        let dims = self.layout.dims();
        for d in 0..dims.len() {
            let p = if dims[d] == 1 { 0 } else { pos[d] };
            out[d] = p + self.layout.padded_offsets[d];
        }
    }

    /// The OpenCL expression of that element's offset, from `pos[d]`.
    fn cl_offset(&self) -> String {
        let dims = self.layout.dims().to_vec();
        let shift = self.layout.padded_offsets;
        self.layout
            .cl_offset_expr(&move |d| match (dims[d] == 1, shift[d]) {
                (true, s) => s.to_string(),
                (false, 0) => format!("pos[{d}]"),
                (false, s) => format!("(pos[{d}]+{s})"),
            })
    }
}

/// One applicable post-op.
#[derive(Clone, Debug)]
enum Entry {
    Sum {
        scale: f32,
        zero_point: i32,
    },
    Eltwise {
        alg: Alg,
        alpha: f32,
        beta: f32,
    },
    Binary {
        alg: BinaryAlg,
        src1: Box<Operand>,
        src2: Option<Box<Operand>>,
    },
    Prelu {
        weights: Box<Operand>,
    },
}

/// A post-op chain ready to apply to one destination.
#[derive(Clone, Debug, Default)]
pub struct PostOpsPlan {
    entries: Vec<Entry>,
    /// The type the sum reads the old destination as.
    sum_dt: Option<dnnl_data_type_t>,
    /// The attribute's chain as given, which (with the destination) decides
    /// everything above: what the cache key writes.
    source: Vec<PostOp>,
}

impl PostOpsPlan {
    /// No post-ops.
    pub fn none() -> PostOpsPlan {
        PostOpsPlan::default()
    }

    /// Checks `post_ops` against the destination `dst` (dimensions, type);
    /// unimplemented (with the reason) for what cannot be applied: a fused
    /// depthwise convolution, more than one sum, a sum whose data type
    /// differs in size from the destination's, operands that do not
    /// broadcast to the destination.
    pub fn new(post_ops: &PostOps, dst: &MemoryDesc) -> Result<PostOpsPlan> {
        let dims = dst.dims();
        let dst_elem = Elem::from_c(dst.data_type());
        let mut plan = PostOpsPlan::none();
        for (i, op) in post_ops.entries().iter().enumerate() {
            let entry = match op {
                PostOp::Sum {
                    scale,
                    zero_point,
                    data_type,
                } => {
                    if plan.sum_dt.is_some() {
                        return Err(Error::unimplemented("post-ops hold more than one sum"));
                    }
                    if *data_type != dnnl_data_type_undef {
                        let size = Elem::from_c(*data_type).map(Elem::size);
                        if size.is_none() || size != dst_elem.map(Elem::size) {
                            return Err(Error::unimplemented(
                                "the sum post-op's data type differs in size from the destination's",
                            ));
                        }
                    }
                    plan.sum_dt = Some(if *data_type == dnnl_data_type_undef {
                        dst.data_type()
                    } else {
                        *data_type
                    });
                    Entry::Sum {
                        scale: *scale,
                        zero_point: *zero_point,
                    }
                }
                PostOp::Eltwise { alg, alpha, beta } => Entry::Eltwise {
                    alg: Alg::from_c(*alg)
                        .ok_or_else(|| Error::invalid("not an eltwise algorithm"))?,
                    alpha: *alpha,
                    beta: *beta,
                },
                PostOp::Binary { alg, src1, src2 } => {
                    let alg = BinaryAlg::from_c(*alg)
                        .ok_or_else(|| Error::invalid("not a binary algorithm"))?;
                    let what = format!("post-op {i} (binary) src1");
                    let src1 = Operand::new(post_op_arg(i, DNNL_ARG_SRC_1), src1, dims, &what)?;
                    let src2 = match (alg.is_ternary(), src2) {
                        (true, Some(md)) => {
                            let what = format!("post-op {i} (binary) src2");
                            Some(Operand::new(
                                post_op_arg(i, DNNL_ARG_SRC_2),
                                md,
                                dims,
                                &what,
                            )?)
                        }
                        (true, None) => {
                            return Err(Error::invalid("binary select needs src2"));
                        }
                        (false, _) => None,
                    };
                    Entry::Binary {
                        alg,
                        src1: Box::new(src1),
                        src2: src2.map(Box::new),
                    }
                }
                PostOp::Prelu { mask } => {
                    // Weights: the destination's dimensions where the mask has
                    // a bit, 1 elsewhere; f32, plain.
                    let wdims: Vec<i64> = dims
                        .iter()
                        .enumerate()
                        .map(|(d, &n)| if mask >> d & 1 == 1 { n } else { 1 })
                        .collect();
                    let md = MemoryDesc::with_strides(&wdims, dnnl_f32, None)?;
                    let what = format!("post-op {i} (prelu) weights");
                    Entry::Prelu {
                        weights: Box::new(Operand::new(
                            post_op_arg(i, DNNL_ARG_WEIGHTS),
                            &md,
                            dims,
                            &what,
                        )?),
                    }
                }
                PostOp::Depthwise { .. } => {
                    return Err(Error::unimplemented(
                        "fused depthwise convolution post-ops are not implemented",
                    ));
                }
            };
            plan.entries.push(entry);
        }
        plan.source = post_ops.entries().to_vec();
        Ok(plan)
    }

    /// Whether the chain is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// When the chain has a sum: the type to read the old destination as.
    pub fn sum_elem(&self, dst: Elem) -> Option<Elem> {
        self.sum_dt.map(|dt| Elem::from_c(dt).unwrap_or(dst))
    }

    fn operands(&self) -> impl Iterator<Item = &Operand> {
        self.entries.iter().flat_map(|e| -> Vec<&Operand> {
            match e {
                Entry::Binary { src1, src2, .. } => {
                    std::iter::once(&**src1).chain(src2.as_deref()).collect()
                }
                Entry::Prelu { weights } => vec![&**weights],
                _ => Vec::new(),
            }
        })
    }

    /// The execution arguments the chain reads
    /// (`DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_1`, ...).
    pub fn inputs(&self) -> Vec<i32> {
        self.operands().map(|o| o.arg).collect()
    }

    /// The descriptor of one of [`PostOpsPlan::inputs`].
    pub fn arg_md(&self, arg: i32) -> Option<&Arc<MemoryDesc>> {
        self.operands().find(|o| o.arg == arg).map(|o| &o.md)
    }

    /// Writes what distinguishes this chain in a primitive cache key: tag
    /// `"post_ops"`, then the attribute's entries.
    pub fn cache_key(&self, w: &mut KeyWriter) {
        w.tag("post_ops").put(&self.source);
    }

    /// The chain with copies of its operands, for CPU kernels. An operand
    /// must be host memory that holds its descriptor.
    pub fn bind<'a>(&'a self, ctx: &ExecContext<'a>) -> Result<HostPostOps<'a>> {
        let mut data = Vec::new();
        for operand in self.operands() {
            let buffer = Buffer::of(ctx.arg(operand.arg)?)?;
            let (_, end) = operand.layout.byte_range();
            buffer.check_holds(end, "post-op operand")?;
            let addr = buffer.host_addr();
            if addr == 0 {
                return Err(Error::invalid("a post-op operand is not host memory"));
            }
            // SAFETY: the buffer holds `end` bytes (checked where it can be
            // known; a user pointer is trusted, as upstream trusts it), and
            // the copy is made before the kernel writes anything.
            data.push(unsafe { host_bytes(addr, end) }.to_vec());
        }
        Ok(HostPostOps { plan: self, data })
    }

    /// The OpenCL C prelude (see the module documentation).
    pub fn cl_source(&self) -> String {
        let mut params = String::new();
        let mut args = String::new();
        let mut body = String::new();
        let mut n = 0;
        let mut operand = |o: &Operand, body: &mut String| {
            let name = format!("po_{n}");
            n += 1;
            let dt = o.layout.elem.cl_name();
            let _ = write!(params, ", global const T_{dt} *{name}");
            let _ = write!(args, ", {name}");
            let _ = writeln!(body, "    long {name}_off = {};", o.cl_offset());
            format!("LD_{dt}({name}, {name}_off)")
        };
        for e in &self.entries {
            match e {
                Entry::Sum { scale, zero_point } => {
                    let _ = writeln!(
                        body,
                        "    v += {} * (old - {}.0f);",
                        cl_float(*scale),
                        zero_point
                    );
                }
                Entry::Eltwise { alg, alpha, beta } => {
                    let _ = writeln!(
                        body,
                        "    v = eltwise_fwd({}, v, {}, {});",
                        alg.cl_id(),
                        cl_float(*alpha),
                        cl_float(*beta)
                    );
                }
                Entry::Binary { alg, src1, src2 } => {
                    let _ = writeln!(body, "    {{");
                    let b = operand(src1, &mut body);
                    let c = match src2 {
                        Some(s) => operand(s, &mut body),
                        None => "0.0f".to_string(),
                    };
                    let _ = writeln!(
                        body,
                        "    v = binary_op({}, v, {b}, {c});\n    }}",
                        alg.cl_id()
                    );
                }
                Entry::Prelu { weights } => {
                    let _ = writeln!(body, "    {{");
                    let w = operand(weights, &mut body);
                    let _ = writeln!(body, "    v = v > 0.0f ? v : v * {w};\n    }}");
                }
            }
        }
        let sum_dt = self
            .sum_dt
            .and_then(Elem::from_c)
            .map_or("F32", Elem::cl_name);
        let mut s = String::new();
        s += eltwise_alg::CL_SOURCE;
        s += binary_alg::CL_SOURCE;
        let _ = writeln!(s, "#define POST_OPS_PARAMS {params}");
        let _ = writeln!(s, "#define POST_OPS_ARGS {args}");
        let _ = writeln!(
            s,
            "#define POST_OPS_SUM {}",
            u8::from(self.sum_dt.is_some())
        );
        let _ = writeln!(s, "#define PO_SUM_DT {sum_dt}");
        let _ = writeln!(
            s,
            "inline float post_ops(float v, float old, const long *pos POST_OPS_PARAMS) {{\n{body}    return v;\n}}"
        );
        s
    }

    /// The buffers behind `POST_OPS_PARAMS`, in order.
    pub fn cl_buffers(&self, ctx: &ExecContext) -> Result<Vec<Buffer>> {
        self.operands()
            .map(|o| {
                let buffer = Buffer::of(ctx.arg(o.arg)?)?;
                buffer.check_holds(o.layout.byte_range().1, "post-op operand")?;
                Ok(buffer)
            })
            .collect()
    }
}

/// An f32 as an OpenCL C literal that reads back to the same value.
fn cl_float(v: f32) -> String {
    if v.is_nan() {
        "NAN".to_string()
    } else if v.is_infinite() {
        if v > 0.0 { "INFINITY" } else { "(-INFINITY)" }.to_string()
    } else {
        format!("as_float(0x{:08x}u)", v.to_bits())
    }
}

/// A chain bound to one execution's arguments, on the host.
pub struct HostPostOps<'a> {
    plan: &'a PostOpsPlan,
    /// Copies of the operands' bytes, in [`PostOpsPlan::inputs`] order.
    data: Vec<Vec<u8>>,
}

impl HostPostOps<'_> {
    /// Applies the chain to `value`, the result at logical destination
    /// position `pos`; `old` is the destination's previous value (read only
    /// when the chain has a sum).
    pub fn apply(&self, value: f32, old: f32, pos: &[i64]) -> f32 {
        let mut v = value;
        let mut next = 0;
        let mut p = [0i64; crate::core::memory_desc::MAX_NDIMS];
        let mut load = |o: &Operand| {
            o.padded(pos, &mut p);
            let bytes = &self.data[next];
            next += 1;
            dt::load(
                o.layout.elem,
                bytes,
                o.layout.offset(&p[..pos.len()]) as usize,
            )
        };
        for e in &self.plan.entries {
            v = match e {
                Entry::Sum { scale, zero_point } => v + scale * (old - *zero_point as f32),
                Entry::Eltwise { alg, alpha, beta } => eltwise_alg::fwd(*alg, *alpha, *beta, v),
                Entry::Binary { alg, src1, src2 } => {
                    let b = load(src1);
                    let c = src2.as_deref().map_or(0.0, &mut load);
                    alg.apply(v, b, c)
                }
                Entry::Prelu { weights } => {
                    let w = load(weights);
                    if v > 0.0 { v } else { v * w }
                }
            };
        }
        v
    }
}
