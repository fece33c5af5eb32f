//! The GEMM engine matmul and inner product share: the description of a
//! GEMM problem with concrete shapes and strides ([`Gemm`], its
//! [`Operand`]s and batch dimensions), what happens to each accumulated
//! value before it is stored ([`Epilogue`]: scales, bias, post-ops, built
//! from the attributes by [`epilogue`]), and the two engines that run it:
//! `cpu.rs` (the `gemm` crate on the host) and `ocl.rs` (`gemm.cl`'s tiled
//! kernel on GPU engines, plus the column sum inner product's bias
//! gradient needs).
//!
//! Layer: prims. The kinds describe their problem as a [`Gemm`] and keep
//! their descriptor logic and implementation lists; this module only runs
//! GEMMs.

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

pub(crate) mod b_copy;
pub(crate) mod blas;
pub(crate) mod blocked;
pub(crate) mod cpu;
pub(crate) mod int8;
pub(crate) mod mma;
pub(crate) mod ocl;

use crate::abi::*;
use crate::core::attr::PrimitiveAttr;
use crate::core::error::{Error, Result};
use crate::core::key::{KeyWriter, StableKey};
use crate::core::memory_desc::{Format, MemoryDesc};
use crate::prims::common::dt::Elem;
use crate::prims::common::layout::Layout;
use crate::prims::common::post_ops::PostOpsPlan;

/// The comma-separated numbers of the tuning variable `var` (`DNNL_GEMM_TILES`
/// and its kin), those that parse; None where it is unset.
pub(crate) fn tuning_numbers(var: &str) -> Option<Vec<usize>> {
    let v = std::env::var(var).ok()?;
    Some(v.split(',').filter_map(|x| x.trim().parse().ok()).collect())
}

/// One operand of a GEMM: element `(r, c)` of batch offset `b` sits at
/// element `off + b + r * rs + c * cs` of its buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Operand {
    pub elem: Elem,
    pub off: i64,
    pub rs: i64,
    pub cs: i64,
    /// Bytes the buffer must hold.
    pub bytes: usize,
}

/// One batch dimension of a GEMM: its size, and the stride of each operand
/// along it (0 where the operand broadcasts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BatchDim {
    pub size: i64,
    pub a: i64,
    pub b: i64,
    pub c: i64,
    pub bias: i64,
}

/// A GEMM with concrete shapes: `C[m, n] = Σ_k A[m, k] · B[k, n]` per batch,
/// batches enumerated row-major over `batch` (dst's batch dimensions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Gemm {
    pub m: i64,
    pub n: i64,
    pub k: i64,
    pub batch: Vec<BatchDim>,
    pub a: Operand,
    pub b: Operand,
    pub c: Operand,
    /// Indexed by `(m, n)` like `C`.
    pub bias: Option<Operand>,
}

impl Gemm {
    /// The number of batches.
    pub fn batches(&self) -> i64 {
        self.batch.iter().map(|d| d.size).product()
    }

    /// The element offsets of batch `index` in A, B, C and the bias (without
    /// the operands' own `off`).
    pub fn batch_offsets(&self, mut index: i64) -> [i64; 4] {
        let mut offs = [0i64; 4];
        for d in self.batch.iter().rev() {
            let i = index % d.size.max(1);
            index /= d.size.max(1);
            offs[0] += i * d.a;
            offs[1] += i * d.b;
            offs[2] += i * d.c;
            offs[3] += i * d.bias;
        }
        offs
    }
}

/// How the weights are scaled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum WeiScale {
    Common,
    PerN,
}

/// How a zero point of an int8 GEMM applies: one value, one per K index
/// (src), or one per N index (weights, dst).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Zp {
    Common,
    PerK,
    PerN,
}

impl Zp {
    /// The number of values for a GEMM of depth `k` and width `n`.
    pub fn count(self, k: i64, n: i64) -> usize {
        match self {
            Zp::Common => 1,
            Zp::PerK => k.max(0) as usize,
            Zp::PerN => n.max(0) as usize,
        }
    }

    /// 0 for none, 1 common, 2 per K, 3 per N (key byte and `-D` value).
    pub fn code(z: Option<Zp>) -> u8 {
        match z {
            None => 0,
            Some(Zp::Common) => 1,
            Some(Zp::PerK) => 2,
            Some(Zp::PerN) => 3,
        }
    }
}

/// What happens to each accumulated value before it is stored. Int8 GEMMs
/// (`u8`/`s8` operands) accumulate `Σ (a - zp_src)·(b - zp_wei)` exactly in
/// s32 first.
#[derive(Clone, Debug, Default)]
pub(crate) struct Epilogue {
    pub src_scale: bool,
    pub wei_scale: Option<WeiScale>,
    pub dst_scale: bool,
    pub zp_src: Option<Zp>,
    pub zp_wei: Option<Zp>,
    pub zp_dst: Option<Zp>,
    pub post_ops: PostOpsPlan,
}

/// One byte: 0 for `Common`, 1 for `PerN`.
impl StableKey for WeiScale {
    fn write_key(&self, w: &mut KeyWriter) {
        w.u8(match self {
            WeiScale::Common => 0,
            WeiScale::PerN => 1,
        });
    }
}

impl Epilogue {
    /// Writes what distinguishes it in a cache key: tag `"epilogue"`, the
    /// three scales, the three zero points, the post-ops.
    pub fn cache_key(&self, w: &mut KeyWriter) {
        w.tag("epilogue")
            .bool(self.src_scale)
            .put(&self.wei_scale)
            .bool(self.dst_scale)
            .u8(Zp::code(self.zp_src))
            .u8(Zp::code(self.zp_wei))
            .u8(Zp::code(self.zp_dst));
        self.post_ops.cache_key(w);
    }
}

/// The execution arguments behind a GEMM's operands.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GemmArgs {
    pub a: i32,
    pub b: i32,
    pub c: i32,
    pub bias: Option<i32>,
}

/// Plain strides of `md` (unimplemented for blocked or non-blocked formats).
pub(crate) fn plain_strides(md: &MemoryDesc, what: &str) -> Result<Vec<i64>> {
    match md.format() {
        Format::Blocked(b) if b.inner_nblks == 0 => Ok(b.strides[..md.ndims()].to_vec()),
        Format::Blocked(_) => Err(Error::unimplemented(format!(
            "{what}: blocked layouts are not supported (plain strided layouts only)"
        ))),
        _ => Err(Error::unimplemented(format!(
            "{what}: only blocked memory formats are supported"
        ))),
    }
}

/// The bytes a tensor spans from its buffer's start (0 when empty).
pub(crate) fn span_bytes(md: &MemoryDesc) -> Result<usize> {
    Ok(Layout::new(md)?.byte_range().1)
}

/// The element type of `md`: f32, f16 or bf16, else unimplemented.
pub(crate) fn float_elem(md: &MemoryDesc, what: &str) -> Result<Elem> {
    match Elem::from_c(md.data_type()) {
        Some(e @ (Elem::F32 | Elem::F16 | Elem::Bf16)) => Ok(e),
        _ => Err(Error::unimplemented(format!(
            "{what}: data type {} is not supported (f32, f16 and bf16 are)",
            md.data_type().0
        ))),
    }
}

/// The element type of an int8 GEMM input: u8 or s8, else None.
pub(crate) fn int8_elem(md: &MemoryDesc) -> Option<Elem> {
    match Elem::from_c(md.data_type()) {
        Some(e @ (Elem::U8 | Elem::S8)) => Some(e),
        _ => None,
    }
}

/// The element type of an int8 GEMM's dst or bias: f32, f16, bf16, s32, s8
/// or u8 (all the library computes with), else unimplemented.
pub(crate) fn any_elem(md: &MemoryDesc, what: &str) -> Result<Elem> {
    Elem::from_c(md.data_type()).ok_or_else(|| {
        Error::unimplemented(format!(
            "{what}: data type {} is not supported",
            md.data_type().0
        ))
    })
}

/// Which attributes a GEMM kind takes: scales (`Some(ndims)`: the per-N
/// weights mask is bit `ndims - 1`), zero points (int8 matmul: `Some(ndims)`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct AttrRules {
    pub scales_ndims: Option<usize>,
    pub zp_ndims: Option<usize>,
    /// Int8 inputs: s32 accumulation is the mode.
    pub int8: bool,
}

/// Checks the attributes matmul and inner product take, and builds the
/// epilogue.
pub(crate) fn epilogue(
    attr: Option<&PrimitiveAttr>,
    dst: &MemoryDesc,
    rules: AttrRules,
    kind: &str,
) -> Result<Epilogue> {
    let Some(attr) = attr else {
        return Ok(Epilogue::default());
    };
    let s32_ok = rules.int8 && attr.accumulation == dnnl_accumulation_mode_s32;
    if !s32_ok
        && !matches!(
            attr.accumulation,
            dnnl_accumulation_mode_strict
                | dnnl_accumulation_mode_relaxed
                | dnnl_accumulation_mode_any
                | dnnl_accumulation_mode_f32
        )
    {
        return Err(Error::unimplemented(format!(
            "{kind} accumulates in f32: accumulation mode {} is not supported",
            attr.accumulation.0
        )));
    }
    let mut epi = Epilogue::default();
    if !attr.scales.is_empty() {
        let Some(n) = rules.scales_ndims else {
            return Err(Error::unimplemented(format!(
                "{kind} applies scales to int8 problems only"
            )));
        };
        scales_into(&mut epi, attr, 1 << (n - 1), kind)?;
    }
    if !attr.zero_points.is_empty() {
        let Some(n) = rules.zp_ndims else {
            return Err(Error::unimplemented(format!(
                "{kind}: zero points are not supported here (int8 matmul takes them)"
            )));
        };
        zero_points_into(&mut epi, attr, n, kind)?;
    }
    epi.post_ops = PostOpsPlan::new(&attr.post_ops, dst)?;
    Ok(epi)
}

/// The zero points of an int8 matmul of `ndims` dimensions: src common
/// (mask 0) or per K (bit `ndims - 1`), weights common or per N (bit
/// `ndims - 1`), dst common or per N; s32 values in device memory.
fn zero_points_into(
    epi: &mut Epilogue,
    attr: &PrimitiveAttr,
    ndims: usize,
    kind: &str,
) -> Result<()> {
    let last = 1 << (ndims - 1);
    for (&arg, spec) in &attr.zero_points {
        if spec.data_type != dnnl_s32 || spec.groups.is_some() || spec.on_host {
            return Err(Error::unimplemented(
                "zero points: only s32 values in device memory, without groups, are supported",
            ));
        }
        let zp = match (arg, spec.mask) {
            (_, 0) => Zp::Common,
            (DNNL_ARG_SRC, m) if m == last => Zp::PerK,
            (DNNL_ARG_WEIGHTS | DNNL_ARG_DST, m) if m == last => Zp::PerN,
            (_, m) => {
                return Err(Error::unimplemented(format!(
                    "{kind}: zero points of argument {arg} with mask {m} are not supported \
                     (0, and {last}: per K for src, per N for weights and dst)"
                )));
            }
        };
        match arg {
            DNNL_ARG_SRC => epi.zp_src = Some(zp),
            DNNL_ARG_WEIGHTS => epi.zp_wei = Some(zp),
            DNNL_ARG_DST => epi.zp_dst = Some(zp),
            _ => {
                return Err(Error::unimplemented(format!(
                    "{kind}: zero points of argument {arg} are not supported"
                )));
            }
        }
    }
    Ok(())
}

/// The scales of `attr` into `epi`: src and dst with mask 0, weights with
/// mask 0 or `per_channel` (one per output channel); anything else is
/// unimplemented.
pub(crate) fn scales_into(
    epi: &mut Epilogue,
    attr: &PrimitiveAttr,
    per_channel: i32,
    kind: &str,
) -> Result<()> {
    for (&arg, spec) in &attr.scales {
        if spec.data_type != dnnl_f32 || spec.groups.is_some() || spec.on_host {
            return Err(Error::unimplemented(
                "scales: only f32 values in device memory, without groups, are supported",
            ));
        }
        if spec.qmode != dnnl_quantization_mode_static_sazp {
            return Err(Error::unimplemented("scales: only the static mode"));
        }
        match (arg, spec.mask) {
            (DNNL_ARG_SRC, 0) => epi.src_scale = true,
            (DNNL_ARG_DST, 0) => epi.dst_scale = true,
            (DNNL_ARG_WEIGHTS, 0) => epi.wei_scale = Some(WeiScale::Common),
            (DNNL_ARG_WEIGHTS, m) if m == per_channel => epi.wei_scale = Some(WeiScale::PerN),
            _ => {
                return Err(Error::unimplemented(format!(
                    "{kind}: scales of argument {arg} with mask {} are not supported",
                    spec.mask
                )));
            }
        }
    }
    Ok(())
}
