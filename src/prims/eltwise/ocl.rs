//! Eltwise on GPU engines: builds `eltwise.cl` specialised for one op and
//! enqueues it. The launch code serves OpenCL and Level Zero engines through
//! `core::gpu`.
//!
//! Layer: prims, over `core` (engine, stream, memory, `core::gpu`).
//! Two kernels per direction (one program holds a direction pair):
//! - `eltwise_*_dense` (`ocl:eltwise_dense_vec4`): the tensors share one dense
//!   layout. Each work-item moves `ITEMS` float4 vectors (1 to 4 by data
//!   type, see [`items`]) at a stride of the global size, through aligned
//!   vector accesses, so the kernel runs at memory bandwidth (measured: the
//!   plain float4 ReLU kernel's figure on an H100 and an H200). The
//!   algorithm and types are baked in; sizes and offsets are arguments, so
//!   one program serves every shape. When every element offset is a
//!   multiple of 4 the vectors are accessed through aligned vector pointers
//!   (one 16-byte access per float4); a USM pointer that breaks that
//!   alignment at execution gets the unaligned build.
//! - `eltwise_*_strided` (`ocl:eltwise_strided`): any layouts. One work-item per
//!   output element in memory order; offsets are expressions baked in with
//!   `-D` (shapes and strides are constants, so divisions fold).

use std::sync::{Arc, Mutex};

use super::{Direction, EltwiseOp};
use crate::abi::DNNL_ARG_DIFF_DST;
use crate::core::engine::Engine;
use crate::core::error::Result;
use crate::core::gpu::{Event, GpuEngine, Kernel, KernelArg};
use crate::core::primitive::{ExecContext, Implementation};
use crate::prims::common::buffers::Buffer;
use crate::prims::common::cl_walk;
use crate::prims::common::dt::{self, Elem};
use crate::prims::common::layout::{Layout, Walker};

/// The kernels' source after the element types and the post-ops prelude:
/// the forward formulas (`common/eltwise_alg.cl`), then `eltwise.cl`.
const BODY: &str = concat!(
    include_str!("../common/eltwise_alg.cl"),
    include_str!("eltwise.cl")
);

/// The source of `op`'s program: the shared element types and positions,
/// its post-ops,
/// then the kernels.
fn source(op: &EltwiseOp) -> String {
    format!(
        "{}{}{}{BODY}",
        dt::CL_TYPES,
        cl_walk::CL_POSITIONS,
        op.post_ops().cl_source()
    )
}

/// Work-group size (lowered to what the kernel allows).
const LOCAL: usize = 256;

/// The OpenCL implementation: the dense vectorised kernel (`dense`) or the
/// kernel for any layouts, built for `engine`.
pub(super) fn create(
    op: &Arc<EltwiseOp>,
    engine: &Engine,
    dense: bool,
) -> Result<Arc<dyn Implementation>> {
    let ocl = engine.gpu("eltwise")?;
    let op = op.clone();
    let mode = if dense {
        let aligned = offsets_aligned(&op);
        let items = items(&op, ocl);
        let kernel = build(
            ocl,
            &op,
            &dense_options(&op, aligned, items),
            kernel_name(&op, true),
        )?;
        Mode::Dense {
            aligned,
            items,
            kernel,
            unaligned: Mutex::new(None),
        }
    } else {
        Mode::Strided {
            kernel: build(ocl, &op, &strided_options(&op), kernel_name(&op, false))?,
        }
    };
    let kernel = match &mode {
        Mode::Dense { kernel, .. } | Mode::Strided { kernel } => kernel,
    };
    let local = ocl.work_group_size(kernel)?.clamp(1, LOCAL);
    Ok(Arc::new(OclEltwise { op, mode, local }))
}

fn build(ocl: GpuEngine, op: &EltwiseOp, options: &str, name: &str) -> Result<Kernel> {
    ocl.kernel(&source(op), options, name)
}

/// The options every build shares: algorithm and types. The direction is
/// not one: a program holds both kernels, so forward and backward with the
/// same options (on CPU runtimes, f32) share a build.
fn common_options(op: &EltwiseOp) -> String {
    let l = op.layouts();
    let b = l.diff_dst.as_ref().map_or("F32", |d| d.elem.cl_name());
    format!(
        "-DALG_{} -DELT_ID={} -DA_DT={} -DB_DT={b} -DC_DT={}",
        op.alg().cl_name(),
        op.alg().cl_id(),
        l.data.elem.cl_name(),
        l.out.elem.cl_name()
    )
}

/// The kernel's name: `eltwise_{fwd,bwd}_{dense,strided}`.
fn kernel_name(op: &EltwiseOp, dense: bool) -> &'static str {
    match (op.direction(), dense) {
        (Direction::Forward, true) => "eltwise_fwd_dense",
        (Direction::Forward, false) => "eltwise_fwd_strided",
        (Direction::Backward, true) => "eltwise_bwd_dense",
        (Direction::Backward, false) => "eltwise_bwd_strided",
    }
}

fn all_layouts(op: &EltwiseOp) -> impl Iterator<Item = &Layout> {
    let l = op.layouts();
    [Some(&l.data), l.diff_dst.as_ref(), Some(&l.out)]
        .into_iter()
        .flatten()
}

/// Whether every tensor starts at a multiple of 4 elements (buffers are
/// aligned far beyond a 4-vector, so the vectors then are too).
fn offsets_aligned(op: &EltwiseOp) -> bool {
    all_layouts(op).all(|l| l.offset0 % 4 == 0)
}

/// float4 vectors per work-item of the dense kernel, chosen from
/// measurements on an H100 and an H200 (NVIDIA OpenCL 580, 1 GiB tensors)
/// against a plain float4 ReLU kernel (3.0 and 4.27 TB/s):
/// - backward: 1 (2 or 4 halve GELU-erf backward: register pressure);
/// - forward f32 and bf16: 2 (H200: ReLU 99% of the plain kernel with 1 or
///   2, GELU-erf 91% with 1 and 99% with 2; bf16 ReLU 3.5 -> 4.2 TB/s);
/// - forward with 1-byte types only: 4 (2.3 -> 3.6 TB/s);
/// - f16: 1 (its vloada_half/vstorea_half conversions lose with more).
///
/// CPU runtimes vectorise across work-items instead: 1 (and less code to build).
fn items(op: &EltwiseOp, ocl: GpuEngine) -> usize {
    if op.direction() == Direction::Backward || !ocl.is_gpu_device() {
        return 1;
    }
    let elems: Vec<Elem> = all_layouts(op).map(|l| l.elem).collect();
    if elems.contains(&Elem::F16) {
        1
    } else if elems.iter().all(|e| e.size() == 1) {
        4
    } else {
        2
    }
}

fn dense_options(op: &EltwiseOp, aligned: bool, items: usize) -> String {
    let n = op.layouts().out.nelems();
    let idx = if n < (1 << 31) { "uint" } else { "ulong" };
    format!(
        "{} -DITEMS={items} -DIDX_T={idx} -DALIGNED={}",
        common_options(op),
        u8::from(aligned)
    )
}

/// The strided kernel's options: the output's walk and every offset as
/// expressions of the work-item index `t`.
fn strided_options(op: &EltwiseOp) -> String {
    let l = op.layouts();
    let out = &l.out;
    let walker = Walker::new(out);
    let mut opts = common_options(op);
    opts += &format!(" -DTOTAL={}", walker.total());
    opts += &cl_walk::walk_options(out, &walker, "C_OFF");
    // Inputs: the same logical position, in their own padding.
    let input_off =
        |layout: &Layout| layout.cl_offset_expr(&|d| cl_walk::shifted_position(layout, out, d));
    opts += &format!(" -DA_OFF={}", input_off(&l.data));
    if let Some(dd) = &l.diff_dst {
        opts += &format!(" -DB_OFF={}", input_off(dd));
    }
    // Positions outside the logical tensor (padding) get zeros.
    opts += &cl_walk::bounds_option(out);
    if !op.post_ops().is_empty() {
        opts += " -DWITH_POST_OPS";
        for d in 0..out.ndims {
            if out.padded_offsets[d] != 0 {
                opts += &format!(" -DO{d}={}", out.padded_offsets[d]);
            }
        }
    }
    opts
}

enum Mode {
    Dense {
        aligned: bool,
        /// float4 vectors per work-item.
        items: usize,
        kernel: Kernel,
        /// Built on first need: a USM pointer that is not 4-vector aligned.
        unaligned: Mutex<Option<Arc<Kernel>>>,
    },
    Strided {
        kernel: Kernel,
    },
}

/// The implementation. It holds no engine (the primitive cache keeps
/// implementations until their engine goes, so one that held it would keep
/// it forever); execution takes the engine from the stream.
struct OclEltwise {
    op: Arc<EltwiseOp>,
    mode: Mode,
    /// The work-group size.
    local: usize,
}

/// Rounds `n` up to a multiple of `m`.
fn round_up(n: usize, m: usize) -> usize {
    n.div_ceil(m) * m
}

impl Implementation for OclEltwise {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let op = &self.op;
        let queue = ctx.queue()?;
        let l = op.layouts();
        let mut buffers = vec![(Buffer::of(ctx.arg(op.data_arg())?)?, &l.data)];
        if let Some(dd) = &l.diff_dst {
            buffers.push((Buffer::of(ctx.arg(DNNL_ARG_DIFF_DST)?)?, dd));
        }
        let out = Buffer::of(ctx.arg(op.out_arg())?)?;
        if l.out.padded_nelems() == 0 {
            return Ok(Some(queue.marker(ctx.deps)?));
        }
        for (buffer, layout) in &buffers {
            buffer.check_holds(layout.byte_range().1, "input")?;
        }
        out.check_holds(l.out.byte_range().1, "output")?;
        let (alpha, beta) = (op.alpha(), op.beta());
        let post = op.post_ops().cl_buffers(ctx)?;
        let event = match &self.mode {
            Mode::Dense {
                aligned,
                items,
                kernel,
                unaligned,
            } => {
                // A USM pointer decides alignment only now.
                let misaligned = buffers
                    .iter()
                    .map(|(b, layout)| (b, layout.elem.size()))
                    .chain(std::iter::once((&out, l.out.elem.size())))
                    .any(|(b, size)| b.usm_addr().is_some_and(|a| a % (4 * size) != 0));
                let fallback = if *aligned && misaligned {
                    let mut slot = unaligned.lock()?;
                    if slot.is_none() {
                        let ocl = ctx.stream.engine().gpu("eltwise")?;
                        let name = kernel_name(op, true);
                        *slot = Some(Arc::new(build(
                            ocl,
                            op,
                            &dense_options(op, false, *items),
                            name,
                        )?));
                    }
                    slot.clone()
                } else {
                    None
                };
                let kernel = fallback.as_deref().unwrap_or(kernel);
                let n = l.out.nelems() as usize;
                let mut args = Vec::new();
                for (buffer, layout) in &buffers {
                    args.push(buffer.kernel_arg()?);
                    args.push(KernelArg::I64(layout.offset0));
                }
                args.push(out.kernel_arg()?);
                args.push(KernelArg::I64(l.out.offset0));
                args.push(KernelArg::U64(n as u64));
                args.push(KernelArg::F32(alpha));
                args.push(KernelArg::F32(beta));
                let local = self.local;
                let global = round_up((n / 4).div_ceil(*items).max(1), local);
                queue.enqueue_kernel(kernel, &args, &[global], Some(&[local]), ctx.deps)?
            }
            Mode::Strided { kernel } => {
                let mut args = Vec::new();
                for (buffer, _) in &buffers {
                    args.push(buffer.kernel_arg()?);
                }
                args.push(out.kernel_arg()?);
                args.push(KernelArg::F32(alpha));
                args.push(KernelArg::F32(beta));
                for buffer in &post {
                    args.push(buffer.kernel_arg()?);
                }
                let local = self.local;
                let global = round_up(l.out.padded_nelems() as usize, local);
                queue.enqueue_kernel(kernel, &args, &[global], Some(&[local]), ctx.deps)?
            }
        };
        Ok(Some(event))
    }
}
