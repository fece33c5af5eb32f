//! Inner product: forward, backward data and backward weights
//! (`dnnl_inner_product_*_primitive_desc_create`), on the GEMM engine of
//! `prims::common::gemm` (shared with matmul).
//!
//! Layer: prims. The source `N x C x spatial…` (2 to 5 dimensions) is read
//! as an `N x K` matrix, the weights `OC x C x spatial…` as `OC x K`, the
//! destination is `N x OC`, the bias `OC`:
//! - forward: `dst = src · weightsᵀ + bias`, then post-ops;
//! - backward data: `diff_src = diff_dst · weights`;
//! - backward weights: `diff_weights = diff_dstᵀ · src`, and
//!   `diff_bias = Σ_n diff_dst[n, :]` (column sums; the bias gradient may be
//!   absent: a NULL or zero descriptor).
//!
//! Layouts: plain strided ones whose `C x spatial…` part is dense in some
//! order (nchw, nhwc, ...); the weights' `C x spatial…` part must be dense in
//! the same order as the source's (oihw with nchw, ohwi with nhwc, ...), so
//! both flatten to the same K. Blocked layouts are unimplemented.
//! `format_tag::any` resolves to plain row-major for the source (and for
//! everything when nothing is given), to the source's order for the
//! weights (and the weights' order for the source gradient when the source
//! is not given), and to `ab` / `a` for the destination and the bias.
//!
//! Types: f32, f16 and bf16; the two GEMM inputs of one type, outputs of any
//! of the three, the bias f32 or of the destination's or source's type.
//! Forward int8: u8 or s8 source, s8 weights, destination and bias f32,
//! bf16, s32, s8 or u8 (as upstream, not f16), accumulated exactly in s32.
//! Attributes: post-ops forward (through `PostOpsPlan`); int8 forward also
//! takes scales of src (mask 0), weights (mask 0, or per output channel:
//! mask 1) and dst (mask 0): `post_ops(src_scale · wei_scale · acc + bias) /
//! dst_scale`, stored rounding half to even and saturating. Zero points are
//! unimplemented, as upstream's. Anything else but the scratchpad mode,
//! floating-point math modes (everything is computed in f32), s32
//! accumulation (int8) and the deterministic flag is unimplemented.
//! Run-time dimensions are unimplemented.

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::abi::*;
use crate::core::attr::PrimitiveAttr;
use crate::core::attr::{AttrPart, AttrSupport};
use crate::core::engine::Engine;
use crate::core::error::{Error, Result};
use crate::core::gpu::Event;
use crate::core::key::KeyWriter;
use crate::core::memory_desc::MemoryDesc;
use crate::core::primitive::{ExecContext, Impl, Implementation, Kind, OpDesc, any_op};
use crate::prims::common::buffers::{Buffer, host_bytes, host_bytes_mut};
use crate::prims::common::dt::{self, Elem};
use crate::prims::common::gemm::mma;
use crate::prims::common::gemm::ocl::{GemmKernels, GemmShape, Tiles, enqueue_col_sum};
use crate::prims::common::gemm::{
    AttrRules, Epilogue, Gemm, GemmArgs, Operand, any_elem, cpu, epilogue, float_elem, int8_elem,
    plain_strides, span_bytes,
};

use crate::prims::common::weighted::{Slots, check_given};

/// The pass (the framework's name for it here).
pub use crate::prims::common::weighted::Pass as Direction;

/// The column sum of backward weights: `out[j] = Σ_r x[r, j]`.
#[derive(Clone, Copy, Debug)]
struct BiasSum {
    rows: i64,
    cols: i64,
    /// `x`: `rs` between rows, `cs` between columns.
    x: Operand,
    /// `out`: `cs` between entries.
    out: Operand,
}

/// An inner product operation.
pub struct InnerProductOp {
    direction: Direction,
    prop_kind: dnnl_prop_kind_t,
    /// src (forward, backward weights) or diff_src (backward data).
    src: Arc<MemoryDesc>,
    /// weights or diff_weights.
    weights: Arc<MemoryDesc>,
    /// bias (forward) or diff_bias (backward weights).
    bias: Option<Arc<MemoryDesc>>,
    /// dst or diff_dst.
    dst: Arc<MemoryDesc>,
    epilogue: Epilogue,
    gemm: Gemm,
    bias_sum: Option<BiasSum>,
    /// The floating-point math mode: the attribute's (forward) or the
    /// default one (`dnnl_set_default_fpmath_mode`).
    fpmath: dnnl_fpmath_mode_t,
}

/// The order of the `C x spatial…` dimensions of `md` (those larger than
/// 1, outermost first) and the stride of the innermost; unimplemented when
/// they are not dense in some order.
fn k_order(md: &MemoryDesc, what: &str) -> Result<(Vec<usize>, i64)> {
    let s = plain_strides(md, what)?;
    let dims = md.dims();
    let mut order: Vec<usize> = (1..md.ndims()).filter(|&d| dims[d] > 1).collect();
    order.sort_by(|&a, &b| s[b].cmp(&s[a]).then(a.cmp(&b)));
    for w in order.windows(2) {
        if s[w[0]] != s[w[1]] * dims[w[1]] {
            return Err(Error::unimplemented(format!(
                "{what}: the channel and spatial dimensions are not dense in one order"
            )));
        }
    }
    let inner = order.last().map_or(1, |&d| s[d]);
    Ok((order, inner))
}

/// A plain descriptor of `dims` (type `dt`): dimension 0 outermost, then
/// the others in `order` (those not listed, of size 1, anywhere).
fn with_order(dims: &[i64], dt: dnnl_data_type_t, order: &[usize]) -> Result<MemoryDesc> {
    let n = dims.len();
    let mut full: Vec<usize> = vec![0];
    full.extend(order.iter().copied());
    full.extend((1..n).filter(|d| !order.contains(d)));
    let mut strides = vec![0i64; n];
    let mut s = 1i64;
    for &d in full.iter().rev() {
        strides[d] = s;
        s *= dims[d].max(1);
    }
    MemoryDesc::with_strides(dims, dt, Some(&strides))
}

fn plain(md: &MemoryDesc) -> Result<MemoryDesc> {
    MemoryDesc::with_strides(md.dims(), md.data_type(), None)
}

/// Checks the shapes: data `N x C x …` (2 to 5 dimensions), weights
/// `OC x C x …`, dst `N x OC`, bias `OC`.
fn check_shapes(
    data: &MemoryDesc,
    weights: &MemoryDesc,
    bias: Option<&MemoryDesc>,
    dst: &MemoryDesc,
) -> Result<()> {
    let n = data.ndims();
    if !(2..=5).contains(&n) {
        return Err(Error::invalid(format!(
            "inner product takes a source of 2 to 5 dimensions, not {n}"
        )));
    }
    if weights.ndims() != n || weights.dims()[1..] != data.dims()[1..] {
        return Err(Error::invalid(format!(
            "weights {:?} do not match the source {:?}",
            weights.dims(),
            data.dims()
        )));
    }
    if dst.ndims() != 2 || dst.dims() != [data.dims()[0], weights.dims()[0]] {
        return Err(Error::invalid(format!(
            "dst {:?} is not N x OC ({} x {})",
            dst.dims(),
            data.dims()[0],
            weights.dims()[0]
        )));
    }
    if let Some(b) = bias
        && (b.ndims() != 1 || b.dims()[0] != weights.dims()[0])
    {
        return Err(Error::invalid(format!(
            "the bias {:?} is not OC ({})",
            b.dims(),
            weights.dims()[0]
        )));
    }
    Ok(())
}

/// An operand over `md` with the given strides.
fn operand(md: &MemoryDesc, rs: i64, cs: i64, what: &str) -> Result<Operand> {
    Ok(Operand {
        elem: any_elem(md, what)?,
        off: md.offset0(),
        rs,
        cs,
        bytes: span_bytes(md)?,
    })
}

fn not_zero(md: Option<&MemoryDesc>) -> Option<&MemoryDesc> {
    md.filter(|m| !m.is_zero())
}

/// Resolves `any` in the `N x K` pair: `data` and `weights` follow each
/// other's order, or plain.
fn resolve_pair(data: &MemoryDesc, weights: &MemoryDesc) -> Result<(MemoryDesc, MemoryDesc)> {
    match (data.is_any_format(), weights.is_any_format()) {
        (false, false) => Ok((data.clone(), weights.clone())),
        (false, true) => {
            let (order, _) = k_order(data, "src")?;
            Ok((
                data.clone(),
                with_order(weights.dims(), weights.data_type(), &order)?,
            ))
        }
        (true, false) => {
            let (order, _) = k_order(weights, "weights")?;
            Ok((
                with_order(data.dims(), data.data_type(), &order)?,
                weights.clone(),
            ))
        }
        (true, true) => Ok((plain(data)?, plain(weights)?)),
    }
}

fn resolve_plain(md: &MemoryDesc) -> Result<MemoryDesc> {
    if md.is_any_format() {
        plain(md)
    } else {
        Ok(md.clone())
    }
}

/// Flattening facts of a checked pair: (data row stride, data k stride,
/// weights row stride, weights k stride).
fn flatten(data: &MemoryDesc, weights: &MemoryDesc, dname: &str) -> Result<[i64; 4]> {
    let (dorder, dk) = k_order(data, dname)?;
    let (worder, wk) = k_order(weights, "weights")?;
    if dorder != worder {
        return Err(Error::unimplemented(format!(
            "the weights' layout does not follow {dname}'s order of channel and spatial dimensions"
        )));
    }
    let ds = plain_strides(data, dname)?;
    let ws = plain_strides(weights, "weights")?;
    Ok([ds[0], dk, ws[0], wk])
}

impl InnerProductOp {
    /// `dnnl_inner_product_forward_primitive_desc_create`'s checks.
    pub fn forward(
        prop_kind: dnnl_prop_kind_t,
        src: &MemoryDesc,
        weights: &MemoryDesc,
        bias: Option<&MemoryDesc>,
        dst: &MemoryDesc,
        attr: &PrimitiveAttr,
    ) -> Result<InnerProductOp> {
        if !matches!(prop_kind, dnnl_forward_training | dnnl_forward_inference) {
            return Err(Error::invalid(format!(
                "bad propagation kind {} for inner product forward",
                prop_kind.0
            )));
        }
        let bias = not_zero(bias);
        for (md, what) in [(src, "src"), (weights, "weights"), (dst, "dst")] {
            check_given(md, what)?;
        }
        if let Some(b) = bias {
            check_given(b, "bias")?;
        }
        check_shapes(src, weights, bias, dst)?;
        let int8 = int8_elem(src).is_some();
        if int8 {
            // u8/s8 src, s8 weights; dst and bias f32, bf16, s32, s8 or u8.
            match int8_elem(weights) {
                Some(Elem::S8) => {}
                // As upstream: u8 weights are unimplemented, others invalid.
                Some(_) => {
                    return Err(Error::unimplemented(
                        "int8 inner product: u8 weights are not supported (s8 are)",
                    ));
                }
                None => {
                    return Err(Error::invalid(format!(
                        "int8 inner product: weights of data type {} (s8 with a u8/s8 src)",
                        weights.data_type().0
                    )));
                }
            }
            for md in std::iter::once(dst).chain(bias) {
                let e = any_elem(md, "dst or bias")?;
                if e == Elem::F16 {
                    return Err(Error::unimplemented(
                        "int8 inner product: f16 dst or bias is not supported",
                    ));
                }
            }
        } else {
            let (s, w) = (float_elem(src, "src")?, float_elem(weights, "weights")?);
            let d = float_elem(dst, "dst")?;
            if s != w {
                return Err(Error::unimplemented(
                    "src and weights of different data types are not supported",
                ));
            }
            if let Some(b) = bias {
                let e = float_elem(b, "bias")?;
                if e != Elem::F32 && e != d && e != s {
                    return Err(Error::unimplemented(
                        "the bias must be f32, or of dst's or src's data type",
                    ));
                }
            }
        }
        let (src, weights) = resolve_pair(src, weights)?;
        let dst = resolve_plain(dst)?;
        let bias = bias.map(resolve_plain).transpose()?;
        // Scales (int8 only): weights per output channel with mask 1.
        let rules = AttrRules {
            scales_ndims: int8.then_some(1),
            zp_ndims: None,
            int8,
        };
        let epilogue = epilogue(Some(attr), &dst, rules, "inner product")?;
        let [s0, sk, w0, wk] = flatten(&src, &weights, "src")?;
        let ds = plain_strides(&dst, "dst")?;
        let gemm = Gemm {
            m: src.dims()[0],
            n: weights.dims()[0],
            k: src.dims()[1..].iter().product(),
            batch: Vec::new(),
            a: operand(&src, s0, sk, "src")?,
            b: operand(&weights, wk, w0, "weights")?,
            c: operand(&dst, ds[0], ds[1], "dst")?,
            bias: match &bias {
                Some(b) => Some(operand(b, 0, plain_strides(b, "bias")?[0], "bias")?),
                None => None,
            },
        };
        Ok(InnerProductOp {
            direction: Direction::Forward,
            prop_kind,
            src: Arc::new(src),
            weights: Arc::new(weights),
            bias: bias.map(Arc::new),
            dst: Arc::new(dst),
            epilogue,
            gemm,
            bias_sum: None,
            fpmath: attr.fpmath.mode,
        })
    }

    /// `dnnl_inner_product_backward_data_primitive_desc_create`'s checks.
    pub fn backward_data(
        diff_src: &MemoryDesc,
        weights: &MemoryDesc,
        diff_dst: &MemoryDesc,
    ) -> Result<InnerProductOp> {
        for (md, what) in [
            (diff_src, "diff_src"),
            (weights, "weights"),
            (diff_dst, "diff_dst"),
        ] {
            check_given(md, what)?;
        }
        check_shapes(diff_src, weights, None, diff_dst)?;
        float_elem(diff_src, "diff_src")?;
        if float_elem(weights, "weights")? != float_elem(diff_dst, "diff_dst")? {
            return Err(Error::unimplemented(
                "weights and diff_dst of different data types are not supported",
            ));
        }
        let (diff_src, weights) = resolve_pair(diff_src, weights)?;
        let diff_dst = resolve_plain(diff_dst)?;
        let [s0, sk, w0, wk] = flatten(&diff_src, &weights, "diff_src")?;
        let dd = plain_strides(&diff_dst, "diff_dst")?;
        let gemm = Gemm {
            m: diff_src.dims()[0],
            n: diff_src.dims()[1..].iter().product(),
            k: weights.dims()[0],
            batch: Vec::new(),
            a: operand(&diff_dst, dd[0], dd[1], "diff_dst")?,
            b: operand(&weights, w0, wk, "weights")?,
            c: operand(&diff_src, s0, sk, "diff_src")?,
            bias: None,
        };
        Ok(InnerProductOp {
            direction: Direction::BackwardData,
            prop_kind: dnnl_backward_data,
            src: Arc::new(diff_src),
            weights: Arc::new(weights),
            bias: None,
            dst: Arc::new(diff_dst),
            epilogue: Epilogue::default(),
            gemm,
            bias_sum: None,
            fpmath: crate::core::settings::default_fpmath_mode(),
        })
    }

    /// `dnnl_inner_product_backward_weights_primitive_desc_create`'s checks
    /// (`diff_bias` None or the zero descriptor: no bias gradient).
    pub fn backward_weights(
        src: &MemoryDesc,
        diff_weights: &MemoryDesc,
        diff_bias: Option<&MemoryDesc>,
        diff_dst: &MemoryDesc,
    ) -> Result<InnerProductOp> {
        let diff_bias = not_zero(diff_bias);
        for (md, what) in [
            (src, "src"),
            (diff_weights, "diff_weights"),
            (diff_dst, "diff_dst"),
        ] {
            check_given(md, what)?;
        }
        if let Some(b) = diff_bias {
            check_given(b, "diff_bias")?;
            float_elem(b, "diff_bias")?;
        }
        check_shapes(src, diff_weights, diff_bias, diff_dst)?;
        float_elem(diff_weights, "diff_weights")?;
        if float_elem(src, "src")? != float_elem(diff_dst, "diff_dst")? {
            return Err(Error::unimplemented(
                "src and diff_dst of different data types are not supported",
            ));
        }
        let (src, diff_weights) = resolve_pair(src, diff_weights)?;
        let diff_dst = resolve_plain(diff_dst)?;
        let diff_bias = diff_bias.map(resolve_plain).transpose()?;
        let [s0, sk, w0, wk] = flatten(&src, &diff_weights, "src")?;
        let dd = plain_strides(&diff_dst, "diff_dst")?;
        let gemm = Gemm {
            m: diff_weights.dims()[0],
            n: src.dims()[1..].iter().product(),
            k: src.dims()[0],
            batch: Vec::new(),
            a: operand(&diff_dst, dd[1], dd[0], "diff_dst")?,
            b: operand(&src, s0, sk, "src")?,
            c: operand(&diff_weights, w0, wk, "diff_weights")?,
            bias: None,
        };
        let bias_sum = match &diff_bias {
            Some(b) => Some(BiasSum {
                rows: diff_dst.dims()[0],
                cols: diff_dst.dims()[1],
                x: operand(&diff_dst, dd[0], dd[1], "diff_dst")?,
                out: operand(b, 0, plain_strides(b, "diff_bias")?[0], "diff_bias")?,
            }),
            None => None,
        };
        Ok(InnerProductOp {
            direction: Direction::BackwardWeights,
            prop_kind: dnnl_backward_weights,
            src: Arc::new(src),
            weights: Arc::new(diff_weights),
            bias: diff_bias.map(Arc::new),
            dst: Arc::new(diff_dst),
            epilogue: Epilogue::default(),
            gemm,
            bias_sum,
            fpmath: crate::core::settings::default_fpmath_mode(),
        })
    }

    /// The pass.
    pub fn direction(&self) -> Direction {
        self.direction
    }

    fn args(&self) -> GemmArgs {
        match self.direction {
            Direction::Forward => GemmArgs {
                a: DNNL_ARG_SRC,
                b: DNNL_ARG_WEIGHTS,
                c: DNNL_ARG_DST,
                bias: self.bias.as_ref().map(|_| DNNL_ARG_BIAS),
            },
            Direction::BackwardData => GemmArgs {
                a: DNNL_ARG_DIFF_DST,
                b: DNNL_ARG_WEIGHTS,
                c: DNNL_ARG_DIFF_SRC,
                bias: None,
            },
            Direction::BackwardWeights => GemmArgs {
                a: DNNL_ARG_DIFF_DST,
                b: DNNL_ARG_SRC,
                c: DNNL_ARG_DIFF_WEIGHTS,
                bias: None,
            },
        }
    }
}

impl InnerProductOp {
    fn slots(&self) -> Slots<'_> {
        Slots {
            pass: self.direction,
            src: &self.src,
            weights: &self.weights,
            bias: self.bias.as_ref(),
            dst: &self.dst,
            post_ops: &self.epilogue.post_ops,
        }
    }
}

impl OpDesc for InnerProductOp {
    fn kind(&self) -> dnnl_primitive_kind_t {
        dnnl_inner_product
    }

    fn prop_kind(&self) -> dnnl_prop_kind_t {
        self.prop_kind
    }

    fn arg_md(&self, arg: i32) -> Option<&Arc<MemoryDesc>> {
        self.slots().arg_md(arg)
    }

    fn inputs(&self) -> Vec<i32> {
        self.slots().inputs()
    }

    fn outputs(&self) -> Vec<i32> {
        self.slots().outputs()
    }

    /// Upstream's problem string: `mb2ic3ih4iw5oc6` (spatial sizes by the
    /// source's dimensions: `iw`; `ih`, `iw`; `id`, `ih`, `iw`).
    fn verbose_problem(&self) -> String {
        let d = self.src.dims();
        let names: &[&str] = match d.len() {
            3 => &["iw"],
            4 => &["ih", "iw"],
            5 => &["id", "ih", "iw"],
            _ => &[],
        };
        let spatial: String = names
            .iter()
            .zip(&d[2..])
            .map(|(n, v)| format!("{n}{v}"))
            .collect();
        format!("mb{}ic{}{spatial}oc{}", d[0], d[1], self.weights.dims()[0])
    }

    fn cache_key(&self, w: &mut KeyWriter) -> bool {
        w.tag("inner_product")
            .put(&self.prop_kind)
            .put(&self.src)
            .put(&self.weights)
            .put(&self.bias)
            .put(&self.dst)
            .i32(self.fpmath.0 as i32);
        self.epilogue.cache_key(w);
        true
    }
}

impl Kind for InnerProductOp {
    const NAME: &'static str = "inner product";
    const IMPLS: &'static [Impl<InnerProductOp>] = &[
        Impl::cpu(c"cpu:gemm", any_op, |op, _| {
            Ok(Arc::new(CpuIp { op: op.clone() }))
        }),
        Impl::gpu(c"ocl:gemm_mma", accepts_mma, create_mma),
        Impl::gpu(c"ocl:gemm_tiled", any_op, create_ocl),
    ];

    fn attr_support(&self) -> AttrSupport {
        match self.prop_kind {
            dnnl_forward_training | dnnl_forward_inference => AttrSupport {
                parts: &[
                    AttrPart::PostOps,
                    AttrPart::Deterministic,
                    AttrPart::AccMode,
                    AttrPart::Scales,
                ],
                scales: |arg| matches!(arg, DNNL_ARG_SRC | DNNL_ARG_WEIGHTS | DNNL_ARG_DST),
                zero_points: |_| false,
            },
            _ => AttrSupport::parts(&[AttrPart::Deterministic]),
        }
    }
}

/// The GPU implementation: the shared GEMM kernels over the flattened
/// tensors.
fn create_ocl(op: &Arc<InnerProductOp>, engine: &Engine) -> Result<Arc<dyn Implementation>> {
    let op = op.clone();
    let ocl = engine.gpu("inner product")?;
    let g = &op.gemm;
    let kernels = GemmKernels::new(
        g.a.elem,
        g.b.elem,
        g.c.elem,
        g.bias.map(|b| b.elem),
        &op.epilogue,
        Tiles::for_gemm(ocl, Some(GemmShape::of(g))),
    );
    kernels.kernel(ocl, g, false)?;
    Ok(Arc::new(OclIp { op, kernels }))
}

/// What `op` would multiply on `engine`'s tensor cores.
fn mma_type(op: &InnerProductOp, engine: &Engine) -> Result<mma::MmaType> {
    let g = &op.gemm;
    let ocl = engine.gpu("inner product")?;
    mma::supported(
        ocl,
        "inner_product",
        g.a.elem,
        g.b.elem,
        op.fpmath,
        &op.epilogue,
    )
}

/// `ocl:gemm_mma`: whether `op` runs on `engine`'s tensor cores.
fn accepts_mma(op: &InnerProductOp, engine: &Engine) -> Result<()> {
    mma_type(op, engine).map(|_| ())
}

/// The tensor-core implementation (NVIDIA): `gemm_mma` over the flattened
/// tensors.
fn create_mma(op: &Arc<InnerProductOp>, engine: &Engine) -> Result<Arc<dyn Implementation>> {
    let op = op.clone();
    let ocl = engine.gpu("inner product")?;
    let g = &op.gemm;
    let kernels = GemmKernels::new_mma(
        mma_type(&op, engine)?,
        g.a.elem,
        g.b.elem,
        g.c.elem,
        g.bias.map(|b| b.elem),
        &op.epilogue,
    );
    kernels.kernel(ocl, g, false)?;
    Ok(Arc::new(OclIp { op, kernels }))
}

struct CpuIp {
    op: Arc<InnerProductOp>,
}

impl Implementation for CpuIp {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let op = &self.op;
        cpu::run(ctx, &op.gemm, &op.epilogue, op.args())?;
        if let Some(s) = &op.bias_sum {
            let x = Buffer::of(ctx.arg(DNNL_ARG_DIFF_DST)?)?;
            let out = Buffer::of(ctx.arg(DNNL_ARG_DIFF_BIAS)?)?;
            if s.cols == 0 {
                return Ok(None);
            }
            if s.rows > 0 {
                x.check_holds(s.x.bytes, "diff_dst")?;
            }
            out.check_holds(s.out.bytes, "diff_bias")?;
            if !matches!(out, Buffer::Host { .. }) {
                return Err(Error::invalid("the diff_bias memory is not host memory"));
            }
            // SAFETY: the buffers hold what the tensors span (checked, or
            // trusted user pointers); diff_dst is only read, and diff_bias
            // is not an input of this pass.
            let xb = unsafe { host_bytes(x.host_addr(), s.x.bytes) };
            // SAFETY: as above.
            let ob = unsafe { host_bytes_mut(out.host_addr(), s.out.bytes) };
            for j in 0..s.cols {
                let mut sum = 0f32;
                for r in 0..s.rows {
                    let at = s.x.off + r * s.x.rs + j * s.x.cs;
                    sum += dt::load(s.x.elem, xb, at as usize);
                }
                dt::store(s.out.elem, ob, (s.out.off + j * s.out.cs) as usize, sum);
            }
        }
        Ok(None)
    }
}

struct OclIp {
    op: Arc<InnerProductOp>,
    kernels: GemmKernels,
}

impl Implementation for OclIp {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let op = &self.op;
        let event = self
            .kernels
            .enqueue(ctx, &op.gemm, &op.epilogue, op.args())?;
        let Some(s) = &op.bias_sum else {
            return Ok(Some(event));
        };
        let queue = ctx.queue()?;
        let x = Buffer::of(ctx.arg(DNNL_ARG_DIFF_DST)?)?;
        let out = Buffer::of(ctx.arg(DNNL_ARG_DIFF_BIAS)?)?;
        if s.cols == 0 {
            return Ok(Some(event));
        }
        if s.rows > 0 {
            x.check_holds(s.x.bytes, "diff_dst")?;
        }
        out.check_holds(s.out.bytes, "diff_bias")?;
        let ocl = ctx.stream.engine().gpu("inner product")?;
        let sum = enqueue_col_sum(
            ocl,
            queue,
            (&x, s.x.elem, s.x.off, s.x.rs, s.x.cs),
            s.rows,
            s.cols,
            (&out, s.out.elem, s.out.off, s.out.cs),
            ctx.deps,
        )?;
        Ok(Some(queue.marker(&[event, sum])?))
    }
}
