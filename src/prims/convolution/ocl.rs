//! Convolutions on GPU engines (`ocl:gemm_conv`): `gemm.cl`'s tiled kernel
//! (the one matmul and inner product run, with its tiles and epilogue)
//! with the convolution's addressing from `conv.cl`, so that no im2col
//! buffer exists: the tiles load their elements straight from the data
//! tensors. The launch code serves OpenCL and Level Zero engines through
//! `core::gpu`.
//!
//! Layer: prims. Everything about the problem (sizes, strides, offsets) is
//! baked into the build with `-D`; an operand that is a plain matrix (the
//! weights in the layout `any` gives, the source of a 1x1 convolution, a
//! channels-last result) keeps `gemm.cl`'s own strided (and 4-wide)
//! loads, the others are gathered. The groups are the third NDRange
//! dimension. The bias gradient of backward weights is `conv_bias_sum`
//! (a work-group per channel).
//!
//! On NVIDIA tensor cores (`ocl:gemm_conv_mma`) the same addressing feeds
//! `gemm_mma.cl` through `conv.cl`'s element indices (`MMA_A_AT`,
//! `MMA_B_AT`), every direction; backward weights orders its columns tap
//! first, channels innermost (`COL_KI`), so that B's runs are channels,
//! and reads A (`diff_dst`, rows the output channels) into an M-major tile
//! (`A_MN`) where `wgmma` takes it.

use std::sync::{Arc, Mutex};

use super::geometry::{DataAt, Dir};
use super::{ConvOp, ZeroPoint};
use crate::abi::*;
use crate::core::engine::Engine;
use crate::core::error::{Error, Result};
use crate::core::gpu::{Event, GpuEngine, Kernel, KernelArg};
use crate::core::primitive::{ExecContext, Implementation};
use crate::prims::common::buffers::Buffer;
use crate::prims::common::dt::Elem;
use crate::prims::common::gemm::mma::{self, MmaType};
use crate::prims::common::gemm::ocl::{
    GemmShape, MmaKernel, MmaLoads, Tiles, epilogue_options, mma_kernel, mma_source_with,
    source_with,
};
use crate::prims::common::gemm::{WeiScale, plain_strides};

const CONV_CL: &str = include_str!("conv.cl");
/// The most work-items of `conv_bias_sum`'s work-group (its local array).
const BIAS_WG: usize = 256;

/// The scratchpad: the partial sums of a backward weights split over
/// depth (none otherwise).
pub(super) fn scratchpad(op: &ConvOp) -> usize {
    let p = op.problem();
    let splits = p.depth_splits();
    if splits <= 1 {
        return 0;
    }
    let map = p.mapping();
    (splits * p.shape.g * map.m * map.n * 4) as usize
}

/// What `op` would multiply on `engine`'s tensor cores: every direction
/// of floating-point types (f16, bf16, f32 as tf32 under an fpmath mode
/// other than strict), without zero points.
fn mma_type(op: &ConvOp, engine: &Engine) -> Result<MmaType> {
    let p = op.problem();
    let (ea, eb, _) = p.elems();
    if op.zero_points() != (None, None) || matches!(ea, Elem::U8 | Elem::S8) {
        return Err(Error::unimplemented("int8 keeps gemm_tiled"));
    }
    let ocl = engine.gpu("convolution")?;
    mma::supported(ocl, "convolution", ea, eb, op.fpmath(), op.epilogue())
}

/// `ocl:gemm_conv_mma`: whether `op` runs on `engine`'s tensor cores.
pub(super) fn accepts_mma(op: &ConvOp, engine: &Engine) -> Result<()> {
    mma_type(op, engine).map(|_| ())
}

/// Builds the tensor-core implementation for `op` on `engine`: `gemm_mma`
/// with `conv.cl`'s addressing, mma.sync on operands read one element at
/// a time.
pub(super) fn create_mma(op: &Arc<ConvOp>, engine: &Engine) -> Result<Arc<dyn Implementation>> {
    let ty = mma_type(op, engine)?;
    build(op, engine, Some(ty))
}

/// Builds the implementation for `op` on `engine` (its kernels built now).
pub(super) fn create(op: &Arc<ConvOp>, engine: &Engine) -> Result<Arc<dyn Implementation>> {
    build(op, engine, None)
}

/// The implementation on `gemm_tiled`, or on `gemm_mma` multiplying `mma`.
fn build(
    op: &Arc<ConvOp>,
    engine: &Engine,
    mma: Option<MmaType>,
) -> Result<Arc<dyn Implementation>> {
    let ocl = engine.gpu("convolution")?;
    let p = op.problem();
    let map = p.mapping();
    let splits = p.depth_splits();
    let tiles = Tiles::for_gemm(
        ocl,
        Some(GemmShape {
            m: map.m,
            n: map.n,
            k: if splits > 1 { p.depth_chunk() } else { map.k },
            copies: p.shape.g * splits,
            wide: p.dir == Dir::Y,
            small: p.dir != Dir::W,
            // The forward 3x3 measured 45.0 -> 44.2 TFLOP/s with
            // GPU_WIDE_DB (H200).
            double: false,
        }),
    );
    let plan = Plan::new(op, tiles, mma.is_some());
    let source = source_with(&op.epilogue().post_ops, CONV_CL);
    let (gemm, mma_launch) = match mma {
        Some(ty) => {
            let loads = plan.mma_loads(op, ty);
            let k = conv_mma_kernel(op, &plan, ocl, ty, loads)?;
            let launch = MmaLaunch {
                ty,
                block: k.block,
                work_group: k.work_group,
                vec: loads.a_vec || loads.b_vec,
                elementwise: Mutex::new(None),
            };
            (k.kernel, Some(launch))
        }
        None => (ocl.kernel(&source, &plan.options, "gemm_tiled")?, None),
    };
    let reduce = if p.depth_splits() > 1 {
        Some(ocl.kernel(&source, &plan.options, "conv_w_reduce")?)
    } else {
        None
    };
    let bias_sum = match (p.dir, op.role_args().bias) {
        (Dir::W, Some(_)) => {
            let kernel = ocl.kernel(&source, &plan.options, "conv_bias_sum")?;
            let most = ocl.work_group_size(&kernel)?.min(BIAS_WG);
            // The largest power of two the kernel may run (the tree needs one).
            Some((kernel, 1usize << most.max(1).ilog2()))
        }
        _ => None,
    };
    Ok(Arc::new(OclConv {
        op: op.clone(),
        plan,
        gemm,
        mma_launch,
        reduce,
        bias_sum,
    }))
}

/// `gemm_mma` with the convolution's addressing, its operands loaded as
/// `loads` say.
fn conv_mma_kernel(
    op: &ConvOp,
    plan: &Plan,
    ocl: GpuEngine,
    ty: MmaType,
    loads: MmaLoads,
) -> Result<MmaKernel> {
    let p = op.problem();
    let map = p.mapping();
    let source = mma_source_with(&op.epilogue().post_ops, CONV_CL);
    let options = format!("{} {}", plan.options, ty.option());
    let shape = (map.m, map.n, p.shape.g * p.depth_splits());
    mma_kernel(ocl, ty, &source, &options, loads, shape)
}

/// How `gemm_mma` runs a convolution.
struct MmaLaunch {
    ty: MmaType,
    block: (usize, usize),
    work_group: usize,
    /// Whether the kernel loads an operand 16 bytes at a time (which a USM
    /// pointer off 16 bytes cannot take).
    vec: bool,
    /// The kernel loading every element alone, built on first need.
    elementwise: Mutex<Option<Arc<MmaKernel>>>,
}

/// How the operands are addressed, and the build options that say it.
struct Plan {
    options: String,
    tiles: Tiles,
    /// Plain operands: (offset, row stride, column stride, group stride).
    a: Option<[i64; 4]>,
    b: Option<[i64; 4]>,
    c: Option<[i64; 4]>,
}

fn data_defs(name: &str, t: &DataAt) -> String {
    format!(
        " -D{name}_OFF={} -D{name}_N={} -D{name}_C={} -D{name}_D={} -D{name}_H={} -D{name}_W={}",
        t.off, t.n, t.c, t.sp[0], t.sp[1], t.sp[2]
    )
}

impl Plan {
    /// How `gemm_mma` multiplying `ty` loads the operands: 16 bytes at a
    /// time where a plain operand's rows (or a gathered operand's runs of
    /// channels, a multiple of 16 bytes, so that no run leaves its tap or
    /// group) are contiguous and every offset and stride a multiple of 16
    /// bytes.
    fn mma_loads(&self, op: &ConvOp, ty: MmaType) -> MmaLoads {
        let p = op.problem();
        let s = &p.shape;
        let whole = |v: i64| v % ty.per_16_bytes() == 0;
        let a_vec = match (self.a, p.dir) {
            // Backward weights' A (Y: rows oc, depth positions): runs of
            // channels into an M-major tile (A_MN, wgmma), plain or
            // gathered alike (conv.cl's MMA_A_AT).
            (_, Dir::W) => {
                let y = &p.y;
                y.c == 1
                    && [s.oc, y.off, y.n, y.sp[0], y.sp[1], y.sp[2]]
                        .into_iter()
                        .all(whole)
            }
            (Some([off, rs, cs, gs]), _) => cs == 1 && [off, rs, gs].into_iter().all(whole),
            (None, Dir::Y | Dir::X) => {
                let (t, ch) = if p.dir == Dir::Y {
                    (&p.x, s.ic)
                } else {
                    (&p.y, s.oc)
                };
                t.c == 1
                    && [ch, t.off, t.n, t.sp[0], t.sp[1], t.sp[2]]
                        .into_iter()
                        .all(whole)
            }
        };
        let (b_vec, b_kn) = match (self.b, p.dir) {
            // Backward weights' B (X, columns (tap, ic) with COL_KI): runs
            // of channels, plain or gathered alike (conv.cl's MMA_B_AT).
            (_, Dir::W) => {
                let x = &p.x;
                let whole_runs = x.c == 1
                    && [s.ic, x.off, x.n, x.sp[0], x.sp[1], x.sp[2]]
                        .into_iter()
                        .all(whole);
                (whole_runs, false)
            }
            (Some([off, rs, cs, gs]), _) if rs == 1 && cs != 1 => {
                ([off, cs, gs].into_iter().all(whole), true)
            }
            (Some([off, rs, 1, gs]), _) => ([off, rs, gs].into_iter().all(whole), false),
            // Gathered weights: runs along the depth's channels (k) or the
            // columns' (n) where those are contiguous, whole 16 bytes.
            (None, Dir::Y | Dir::X) => {
                let w = &p.w;
                let (k_ch, k_step, n_ch, n_step) = if p.dir == Dir::Y {
                    (s.ic, w.ic, s.oc, w.oc)
                } else {
                    (s.oc, w.oc, s.ic, w.ic)
                };
                let rest = [w.off, w.g, w.k[0], w.k[1], w.k[2]].into_iter().all(whole);
                if rest && k_step == 1 && whole(k_ch) && whole(n_step) {
                    (true, true)
                } else {
                    (rest && n_step == 1 && whole(n_ch) && whole(k_step), false)
                }
            }
            _ => (false, false),
        };
        MmaLoads {
            a_vec,
            b_vec,
            b_kn,
            a_mn: p.dir == Dir::W,
        }
    }

    /// `mma`: for `gemm_mma` (backward weights' columns then go tap-major,
    /// conv.cl's COL_KI).
    fn new(op: &ConvOp, tiles: Tiles, mma: bool) -> Plan {
        let p = op.problem();
        let s = &p.shape;
        let map = p.mapping();
        let (ea, eb, ec) = p.elems();
        let epi = op.epilogue();
        let bias = match p.dir {
            Dir::W => None,
            _ => op
                .role_args()
                .bias
                .map(|_| op.bias_elem().unwrap_or(Elem::F32)),
        };
        let splits = p.depth_splits();
        // A split backward weights computes f32 partial sums.
        let ec_gemm = if splits > 1 { Elem::F32 } else { ec };
        let mut o = epilogue_options(ea, eb, ec_gemm, bias, epi);
        if splits > 1 {
            o += &format!(
                " -DSPLIT_K=1 -DKCHUNK={} -DKTOT={} -DW_DT={}",
                p.depth_chunk(),
                map.k,
                ec.cl_name()
            );
        }
        // The bias gradient's type (conv_bias_sum stores it).
        o += &format!(" -DBS_DT={}", op.bias_elem().unwrap_or(Elem::F32).cl_name());
        o += &format!(" {}", tiles.options());
        o += &format!(
            " -DDIR={} -DG={} -DIC={} -DOC={} -DMB={}",
            p.dir as u8, s.g, s.ic, s.oc, s.mb
        );
        for (names, v) in [
            (["ID", "IH", "IW"], s.i),
            (["OD", "OH", "OW"], s.o),
            (["KD", "KH", "KW"], s.k),
            (["SD", "SH", "SW"], s.s),
            (["DD", "DH", "DW"], s.d),
            (["PD", "PH", "PW"], s.p),
        ] {
            for (n, x) in names.iter().zip(v) {
                o += &format!(" -D{n}={x}");
            }
        }
        o += &data_defs("X", &p.x);
        o += &data_defs("Y", &p.y);
        let w = &p.w;
        o += &format!(
            " -DW_OFF={} -DW_G={} -DW_OC={} -DW_IC={} -DW_KD={} -DW_KH={} -DW_KW={}",
            w.off, w.g, w.oc, w.ic, w.k[0], w.k[1], w.k[2]
        );
        let (zs, zd) = op.zero_points();
        let zp = |z: Option<ZeroPoint>| match z {
            None => 0,
            Some(ZeroPoint::Common) => 1,
            Some(ZeroPoint::PerChannel) => 2,
        };
        // 32-bit offsets where everything fits.
        let fits = |bytes: usize, elem: Elem| bytes / elem.size() < (1 << 31);
        let small = fits(p.x.bytes, p.x.elem)
            && fits(p.y.bytes, p.y.elem)
            && fits(p.w.bytes, p.w.elem)
            && map.m < (1 << 31)
            && map.k < (1 << 31)
            && map.n < (1 << 31);
        o += if small { " -DIDX=int" } else { " -DIDX=long" };
        let nsp = op.dst_ndims() - 2;
        o += &format!(
            " -DZP_SRC={} -DZP_DST={} -DNSP={nsp} -DPO_NB={nsp}",
            zp(zs),
            zp(zd)
        );

        // Plain operands keep gemm.cl's strided loads; with the group
        // stride as the batch stride.
        let a = p.a_plain().filter(|_| zs.is_none());
        let b = p.b_plain();
        let c = p.c_plain().map(|(off, rs, cs)| {
            let g = match p.dir {
                Dir::Y => s.oc * p.y.c,
                _ => s.ic * p.x.c,
            };
            [off, rs, cs, g]
        });
        // Which index runs fastest across work-items: along depth for A
        // when the data's channels (the depth's innermost part) are
        // contiguous, along columns for B.
        let a_k_fast = match (p.dir, a) {
            (_, Some([_, rs, cs, _])) => rs != 1 || cs == 1,
            (Dir::Y, None) => p.x.c <= p.x.sp[2],
            (Dir::X, None) => p.y.c <= p.y.sp[2],
            (Dir::W, None) => p.y.sp[2] <= p.y.c,
        };
        let b_n_fast = match (b, p.dir) {
            (Some([_, rs, cs, _]), _) => rs != 1 || cs == 1,
            // Gathered: along the columns where they are the closer ones.
            (None, Dir::Y) => w.oc <= w.ic,
            (None, Dir::X) => w.ic <= w.oc,
            (None, Dir::W) => p.x.c <= p.x.sp[2],
        };
        let four = |v: i64| v % 4 == 0;
        // A gathered 4 channels at a time: forward or backward data over a
        // tensor whose channels are contiguous, their count a multiple of 4.
        let gather_tensor = match p.dir {
            Dir::Y => Some((&p.x, s.ic)),
            Dir::X => Some((&p.y, s.oc)),
            Dir::W => None,
        };
        let gather_vec =
            a.is_none() && a_k_fast && gather_tensor.is_some_and(|(t, ch)| t.c == 1 && ch % 4 == 0);
        let a_vec = (matches!(a, Some([_, _, 1, _])) && a_k_fast && map.k >= 4 && splits == 1)
            || gather_vec;
        let b_vec = matches!(b, Some([_, _, 1, _])) && b_n_fast && map.n >= 4 && splits == 1;
        let a_aligned = match (a, gather_tensor) {
            (Some([off, rs, _, gs]), _) => four(off) && four(rs) && four(gs),
            (None, Some((t, ch))) => [t.off, t.n, t.sp[0], t.sp[1], t.sp[2], ch * t.c]
                .into_iter()
                .all(four),
            (None, None) => false,
        };
        let aligned = (a_vec || b_vec)
            && (!a_vec || a_aligned)
            && b.is_none_or(|[off, rs, _, gs]| !b_vec || (four(off) && four(rs) && four(gs)));
        // One tap per K step: the tap is decoded once per step.
        let uniform = gather_vec
            && match p.dir {
                Dir::Y => s.ic % tiles.tk as i64 == 0,
                Dir::X => s.oc % tiles.tk as i64 == 0,
                Dir::W => false,
            };
        o += &format!(" -DCONV_UNIFORM={}", u8::from(uniform));
        o += &format!(" -DCOL_KI={}", u8::from(mma && p.dir == Dir::W));
        o += &format!(
            " -DA_GATHER={} -DB_GATHER={} -DC_GATHER={} -DA_K_FAST={} -DB_N_FAST={} \
             -DA_VEC4={} -DB_VEC4={} -DALIGNED={}",
            u8::from(a.is_none()),
            u8::from(b.is_none()),
            u8::from(c.is_none()),
            u8::from(a_k_fast),
            u8::from(b_n_fast),
            u8::from(a_vec),
            u8::from(b_vec),
            u8::from(aligned)
        );
        Plan {
            options: o,
            tiles,
            a,
            b,
            c,
        }
    }
}

impl MmaLaunch {
    /// The kernel loading every element alone (built now on first need).
    fn elementwise(&self, op: &ConvOp, plan: &Plan, ctx: &ExecContext) -> Result<Arc<MmaKernel>> {
        let mut slot = self.elementwise.lock()?;
        if let Some(k) = &*slot {
            return Ok(k.clone());
        }
        let ocl = ctx.stream.engine().gpu("convolution")?;
        let loads = MmaLoads {
            a_vec: false,
            b_vec: false,
            b_kn: false,
            a_mn: false,
        };
        let k = Arc::new(conv_mma_kernel(op, plan, ocl, self.ty, loads)?);
        *slot = Some(k.clone());
        Ok(k)
    }
}

/// The implementation (holds no engine: execution takes it from the stream).
struct OclConv {
    op: Arc<ConvOp>,
    plan: Plan,
    gemm: Kernel,
    /// How `gemm` runs where it is `gemm_mma`.
    mma_launch: Option<MmaLaunch>,
    /// Adds up the parts of a split backward weights.
    reduce: Option<Kernel>,
    /// The bias gradient's sums, and the most work-items per work-group
    /// they may run (a power of two, at most `BIAS_WG`).
    bias_sum: Option<(Kernel, usize)>,
}

impl Implementation for OclConv {
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>> {
        let op = &self.op;
        let p = op.problem();
        let args = op.role_args();
        let queue = ctx.queue()?;
        let x = Buffer::of(ctx.arg(args.x)?)?;
        let w = Buffer::of(ctx.arg(args.w)?)?;
        let y = Buffer::of(ctx.arg(args.y)?)?;
        x.check_holds(p.x.bytes, "X")?;
        w.check_holds(p.w.bytes, "weights")?;
        y.check_holds(p.y.bytes, "Y")?;
        let (a, b, c) = match p.dir {
            Dir::Y => (&x, &w, &y),
            Dir::X => (&y, &w, &x),
            Dir::W => (&y, &x, &w),
        };
        let map = p.mapping();
        let s = &p.shape;
        let epi = op.epilogue();
        let channels = s.g * p.c_channels().max(1);
        let values = |arg: i32, count: i64, what| -> Result<Buffer> {
            Buffer::values(ctx.arg(arg)?, count as usize * 4, what)
        };
        let scale = |on: bool, arg: i32, count: i64| -> Result<Buffer> {
            if on {
                values(DNNL_ARG_ATTR_SCALES | arg, count, "scales")
            } else {
                Ok(Buffer::None)
            }
        };
        let s_src = scale(epi.src_scale, DNNL_ARG_SRC, 1)?;
        let s_wei = match epi.wei_scale {
            None => Buffer::None,
            Some(WeiScale::Common) => scale(true, DNNL_ARG_WEIGHTS, 1)?,
            Some(WeiScale::PerN) => scale(true, DNNL_ARG_WEIGHTS, channels)?,
        };
        let s_dst = scale(epi.dst_scale, DNNL_ARG_DST, 1)?;
        let (zs, zd) = op.zero_points();
        let zp = |z: Option<ZeroPoint>, arg: i32, per: i64| -> Result<Buffer> {
            match z {
                None => Ok(Buffer::None),
                Some(ZeroPoint::Common) => {
                    values(DNNL_ARG_ATTR_ZERO_POINTS | arg, 1, "zero points")
                }
                Some(ZeroPoint::PerChannel) => {
                    values(DNNL_ARG_ATTR_ZERO_POINTS | arg, per, "zero points")
                }
            }
        };
        let zp_src = zp(zs, DNNL_ARG_SRC, s.g * p.a_channels())?;
        let zp_dst = zp(zd, DNNL_ARG_DST, channels)?;
        let (bias, bias_op) = match (p.dir, args.bias) {
            (Dir::Y | Dir::X, Some(arg)) => {
                let md = op
                    .bias_md()
                    .ok_or_else(|| Error::invalid("no bias descriptor"))?;
                let buffer = Buffer::of(ctx.arg(arg)?)?;
                buffer.check_holds(crate::prims::common::gemm::span_bytes(md)?, "bias")?;
                let stride = plain_strides(md, "bias")?[0];
                (buffer, [md.offset0(), 0, stride, p.c_channels() * stride])
            }
            _ => (Buffer::None, [0; 4]),
        };
        let po_buffers = epi.post_ops.cl_buffers(ctx)?;

        let splits = p.depth_splits();
        let partial = if splits > 1 {
            let buffer = Buffer::of(ctx.scratchpad()?)?;
            buffer.check_holds(scratchpad(op), "scratchpad")?;
            Some(buffer)
        } else {
            None
        };
        let mut events = Vec::new();
        if map.m > 0 && map.n > 0 && s.g > 0 {
            let plain = |v: Option<[i64; 4]>| v.unwrap_or([0; 4]);
            let (pa, pb, pc) = (plain(self.plan.a), plain(self.plan.b), plain(self.plan.c));
            let mut kargs = Vec::new();
            let c_out = partial.as_ref().unwrap_or(c);
            for (buffer, v) in [(a, pa), (b, pb), (c_out, pc), (&bias, bias_op)] {
                kargs.push(buffer.kernel_arg()?);
                kargs.push(KernelArg::I64(v[0]));
                kargs.push(KernelArg::I64(v[1]));
                kargs.push(KernelArg::I64(v[2]));
                kargs.push(KernelArg::I64(0));
                kargs.push(KernelArg::I64(v[3]));
            }
            kargs.extend([
                KernelArg::I64(map.m),
                KernelArg::I64(map.n),
                KernelArg::I64(if splits > 1 { p.depth_chunk() } else { map.k }),
                KernelArg::I64(s.g),
                KernelArg::I64(0),
                s_src.kernel_arg()?,
                s_wei.kernel_arg()?,
                s_dst.kernel_arg()?,
                zp_src.kernel_arg()?,
                zp_dst.kernel_arg()?,
            ]);
            for b in &po_buffers {
                kargs.push(b.kernel_arg()?);
            }
            let t = self.plan.tiles;
            // A USM pointer off 16 bytes takes the element loads.
            let misaligned = [a, b]
                .iter()
                .any(|x| x.usm_addr().is_some_and(|p| p % 16 != 0));
            let mut gemm = &self.gemm;
            let mut launch = self.mma_launch.as_ref().map(|l| (l.block, l.work_group));
            let elementwise;
            if let Some(l) = &self.mma_launch
                && l.vec
                && misaligned
            {
                elementwise = l.elementwise(op, &self.plan, ctx)?;
                gemm = &elementwise.kernel;
                launch = Some((elementwise.block, elementwise.work_group));
            }
            let (global, local) = match launch {
                Some(((bm, bn), wg)) => (
                    [
                        (map.n as usize).div_ceil(bn) * wg,
                        (map.m as usize).div_ceil(bm),
                        (s.g * splits) as usize,
                    ],
                    [wg, 1, 1],
                ),
                None => {
                    let (tm, tn) = (t.wg_m * t.rm, t.wg_n * t.rn);
                    (
                        [
                            (map.n as usize).div_ceil(tn) * t.wg_n,
                            (map.m as usize).div_ceil(tm) * t.wg_m,
                            (s.g * splits) as usize,
                        ],
                        [t.wg_n, t.wg_m, 1],
                    )
                }
            };
            let event = queue.enqueue_kernel(gemm, &kargs, &global, Some(&local), ctx.deps)?;
            match (&self.reduce, &partial) {
                (Some(kernel), Some(part)) => {
                    let kargs = [
                        part.kernel_arg()?,
                        c.kernel_arg()?,
                        KernelArg::I64(splits),
                        KernelArg::I64(map.m),
                        KernelArg::I64(map.n),
                    ];
                    let total = (s.g * map.m * map.n) as usize;
                    let local = 64usize;
                    events.push(queue.enqueue_kernel(
                        kernel,
                        &kargs,
                        &[total.div_ceil(local) * local],
                        Some(&[local]),
                        std::slice::from_ref(&event),
                    )?);
                }
                _ => events.push(event),
            }
        }
        if let (Some((kernel, most)), Some(arg)) = (&self.bias_sum, args.bias) {
            let md = op
                .bias_md()
                .ok_or_else(|| Error::invalid("no bias descriptor"))?;
            let out = Buffer::of(ctx.arg(arg)?)?;
            out.check_holds(crate::prims::common::gemm::span_bytes(md)?, "diff_bias")?;
            let (t, tb, per) = if args.bias_from == args.y {
                (&p.y, &y, s.o)
            } else {
                (&p.x, &x, s.i)
            };
            let count = md.dims()[0];
            let kargs = [
                tb.kernel_arg()?,
                KernelArg::I64(t.off),
                KernelArg::I64(t.n),
                KernelArg::I64(t.c),
                KernelArg::I64(t.sp[0]),
                KernelArg::I64(t.sp[1]),
                KernelArg::I64(t.sp[2]),
                KernelArg::I64(s.mb),
                KernelArg::I64(per[0]),
                KernelArg::I64(per[1]),
                KernelArg::I64(per[2]),
                KernelArg::I64(count),
                out.kernel_arg()?,
                KernelArg::I64(md.offset0()),
                KernelArg::I64(plain_strides(md, "diff_bias")?[0]),
            ];
            // A work-group per channel, no wider than its elements.
            let elements = (s.mb * per[0] * per[1] * per[2]).max(1) as usize;
            let local = elements.next_power_of_two().min(*most);
            let global = count as usize * local;
            events.push(queue.enqueue_kernel(
                kernel,
                &kargs,
                &[global],
                Some(&[local]),
                ctx.deps,
            )?);
        }
        match events.len() {
            0 => Ok(Some(queue.marker(ctx.deps)?)),
            1 => Ok(events.pop()),
            _ => Ok(Some(queue.marker(&events)?)),
        }
    }
}
