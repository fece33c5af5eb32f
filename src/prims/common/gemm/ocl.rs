//! The GEMM engine's GPU kernels: [`GemmKernels`] (tiled as [`Tiles`] say)
//! and [`enqueue_col_sum`]. Matmul and inner product run their
//! `ocl:gemm_tiled` implementations on them. The launch code serves OpenCL
//! and Level Zero engines through `core::gpu`.
//!
//! Layer: prims, over `core` (engine, stream, memory, `core::gpu`).
//! `gemm.cl` holds a tiled kernel (block tiles through local memory,
//! register tiles per work-item; see the file for the scheme) and a column
//! sum (inner product's bias gradient). Types, the epilogue and the tile
//! sizes are baked in with `-D`; shapes, strides, offsets and batch strides
//! are arguments, so one build serves every shape of a configuration. Which
//! index of each operand runs fastest in memory picks one of a few load
//! variants (built on first use and kept with the implementation).
//! Int8 operands get the same kernel with integer accumulation
//! ([`GemmKernels::new_int8`]).
//!
//! Batches: dst's batch dimensions are merged where every operand allows it
//! (and dimensions of 1 dropped); the two innermost go to the kernel's third
//! NDRange dimension, and the host enqueues one launch per index of the
//! others.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::b_copy::BCopy;
use super::mma::MmaType;
use super::{BatchDim, Epilogue, Gemm, GemmArgs, WeiScale, Zp};
use crate::abi::*;
use crate::core::error::Result;
use crate::core::gpu::{Event, GpuEngine, Kernel, KernelArg, PTX_ARCH_SPECIFIC, Queue};
use crate::core::primitive::ExecContext;
use crate::prims::common::buffers::Buffer;
use crate::prims::common::dt::Elem;
use crate::prims::common::post_ops::PostOpsPlan;

const TYPES: &str = include_str!("../types.cl");
const GEMM_CL: &str = include_str!("gemm.cl");

/// The kernels' source for a post-op chain.
fn source(plan: &PostOpsPlan) -> String {
    format!("{TYPES}{}{GEMM_CL}", plan.cl_source())
}

/// The tensor-core kernel's source (`gemm_mma.cl` after `gemm.cl`, whose
/// macros it uses) for a post-op chain.
pub(crate) fn mma_source(plan: &PostOpsPlan) -> String {
    format!("{}{}", source(plan), super::mma::GEMM_MMA_CL)
}

/// `gemm_mma`'s source with `hooks` (as [`source_with`]; `conv.cl`'s
/// define `gemm_mma.cl`'s element indices too).
pub(crate) fn mma_source_with(plan: &PostOpsPlan, hooks: &str) -> String {
    format!("{}{}", source_with(plan, hooks), super::mma::GEMM_MMA_CL)
}

/// Builds `gemm_mma` for a GEMM of `shape` (rows, columns, copies) with
/// `build` (the tiles' options to the kernel): on wgmma's tiles where
/// `async_copies` (both operands copied 16 bytes at a time), B's tile is
/// k-fastest or the type takes either (tf32 wgmma only K-major) and
/// `mma::wgmma` allows, the large blocks where they fill the device; else,
/// or where that build fails (shown under `ONEDNN_VERBOSE=dispatch`),
/// mma.sync's.
fn build_mma(
    ocl: GpuEngine,
    ty: MmaType,
    async_copies: bool,
    b_kn: bool,
    shape: (i64, i64, i64),
    build: impl Fn(MmaTiles) -> Result<Kernel>,
) -> Result<(Kernel, MmaTiles)> {
    let (m, n, copies) = shape;
    let wgmma_fits = async_copies && (ty != MmaType::Tf32 || b_kn);
    let wgmma = (wgmma_fits && super::mma::wgmma(ocl, ty)).then(|| {
        let units = i64::from(ocl.compute_units().unwrap_or(1));
        let (bm, bn) = MmaTiles::wgmma_tiles(WgmmaSize::Large).block();
        let (bm, bn) = (bm as i64, bn as i64);
        if copies * ((m + bm - 1) / bm) * ((n + bn - 1) / bn) >= units {
            WgmmaSize::Large
        } else {
            WgmmaSize::Small
        }
    });
    let tiles = MmaTiles::of(async_copies, wgmma);
    match build(tiles) {
        Err(e) if matches!(tiles, MmaTiles::Wgmma { .. }) => {
            super::mma::wgmma_failed(ocl, ty, &e);
            let tiles = MmaTiles::of(async_copies, None);
            Ok((build(tiles)?, tiles))
        }
        k => Ok((k?, tiles)),
    }
}

/// How a `gemm_mma` caller with its own addressing (a convolution, whose
/// `conv.cl` gives `MMA_A_AT` / `MMA_B_AT`) loads its operands: 16 bytes at
/// a time (`A_VEC8`, `B_VEC8`), B's tile k-fastest (`B_KN`), A's runs
/// along m into an M-major tile (`A_MN`, with `a_vec`: `wgmma` of 16-bit
/// types only; elsewhere such an A is loaded element by element).
#[derive(Clone, Copy, Debug)]
pub(crate) struct MmaLoads {
    pub a_vec: bool,
    pub b_vec: bool,
    pub b_kn: bool,
    pub a_mn: bool,
}

/// A built `gemm_mma` and how it is launched: its block of C (rows,
/// columns) and work-group size.
pub(crate) struct MmaKernel {
    pub kernel: Kernel,
    pub block: (usize, usize),
    pub work_group: usize,
}

/// `gemm_mma` from `source` with `options` (types, epilogue, the caller's
/// addressing) for a GEMM of `shape` (rows, columns, copies) loading its
/// operands as `loads` say; tiles as for matmul (`build_mma`).
pub(crate) fn mma_kernel(
    ocl: GpuEngine,
    ty: MmaType,
    source: &str,
    options: &str,
    loads: MmaLoads,
    shape: (i64, i64, i64),
) -> Result<MmaKernel> {
    let a_mn = loads.a_vec
        && loads.a_mn
        && matches!(ty, MmaType::F16 | MmaType::Bf16)
        && super::mma::wgmma(ocl, ty);
    let a_vec = loads.a_vec && (!loads.a_mn || a_mn);
    // 16-byte loads of a k-fastest B only by cp.async (with A's); element
    // loads of B fill the n-fastest tile.
    let b_vec = loads.b_vec && (a_vec || !loads.b_kn);
    let async_copies = a_vec && b_vec;
    let b_kn = loads.b_kn && b_vec;
    let (kernel, tiles) = build_mma(ocl, ty, async_copies, b_kn, shape, |tiles| {
        // An M-major A on mma.sync (the wgmma build failed): element loads.
        let on_wgmma = matches!(tiles, MmaTiles::Wgmma { .. });
        let a_vec = a_vec && (!a_mn || on_wgmma);
        let options = format!(
            "{options} -DA_VEC8={} -DB_VEC8={} -DB_KN={} -DB_N4=0 -DA_MN={}{}",
            u8::from(a_vec),
            u8::from(b_vec),
            u8::from(b_kn),
            u8::from(a_mn && on_wgmma),
            tiles.options()
        );
        ocl.kernel(source, &options, "gemm_mma")
    })?;
    Ok(MmaKernel {
        kernel,
        block: tiles.block(),
        work_group: tiles.work_group(),
    })
}

/// The kernels' source with `hooks` (definitions of `gemm.cl`'s hook
/// macros, as `conv.cl` has) before the GEMM.
pub(crate) fn source_with(plan: &PostOpsPlan, hooks: &str) -> String {
    format!("{TYPES}{}{hooks}{GEMM_CL}", plan.cl_source())
}

/// The `-D` options of the operand types and the epilogue.
pub(crate) fn epilogue_options(
    a: Elem,
    b: Elem,
    c: Elem,
    bias: Option<Elem>,
    epi: &Epilogue,
) -> String {
    let wei = match epi.wei_scale {
        None => 0,
        Some(WeiScale::Common) => 1,
        Some(WeiScale::PerN) => 2,
    };
    format!(
        "-DA_DT={} -DB_DT={} -DC_DT={} -DBIAS_DT={} -DWITH_BIAS={} -DSRC_SCALES={} \
         -DWEI_SCALES={wei} -DDST_SCALES={} -DPO_ON={}",
        a.cl_name(),
        b.cl_name(),
        c.cl_name(),
        bias.unwrap_or(Elem::F32).cl_name(),
        u8::from(bias.is_some()),
        u8::from(epi.src_scale),
        u8::from(epi.dst_scale),
        u8::from(!epi.post_ops.is_empty()),
    )
}

/// The least depth at which [`Tiles::for_gemm`] reads local memory 16
/// bytes at a time (between the measured 64, slower, and 1024, faster).
pub(crate) const VLDS_MIN_K: i64 = 256;

/// The least number of [`Tiles::GPU_LARGE`] (or [`Tiles::GPU_WIDE`])
/// blocks covering C for which [`Tiles::for_gemm`] takes them (2048^3 has
/// 128 and gains; 1024^3 has 32 and loses).
pub(crate) const LARGE_MIN_BLOCKS: i64 = 128;

/// What [`Tiles::for_gemm`] looks at: C is `m x n` in `copies` independent
/// GEMMs (batches, groups, depth parts), each of depth `k`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GemmShape {
    pub m: i64,
    pub n: i64,
    pub k: i64,
    pub copies: i64,
    /// Whether [`Tiles::GPU_WIDE`] may be taken (the convolution's
    /// backward data measured slower with it: 36.5 -> 30.7 TFLOP/s).
    pub wide: bool,
    /// Whether [`Tiles::GPU_NARROW`] and [`Tiles::GPU_SLIM`] may be taken
    /// (the convolution's backward weights measured slower with them on an
    /// H200: 3x3 24.7 -> 15.8 TFLOP/s, 1x1 10.6 -> 7.5).
    pub small: bool,
    /// Whether [`Tiles::GPU_WIDE_DB`] may be taken: B's n index is
    /// contiguous (B's tile stores then run along local rows, which it
    /// leaves unpadded; B transposed measured 0.81 -> 0.58 of cuBLAS with
    /// it).
    pub double: bool,
}

impl GemmShape {
    pub fn of(g: &Gemm) -> GemmShape {
        GemmShape {
            m: g.m,
            n: g.n,
            k: g.k,
            copies: g.batches(),
            wide: true,
            small: true,
            double: g.b.cs == 1,
        }
    }
}

/// Tile sizes (the tuning switches of `gemm.cl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tiles {
    /// Work-items per work-group along M and N.
    pub wg_m: usize,
    pub wg_n: usize,
    /// Register tile per work-item.
    pub rm: usize,
    pub rn: usize,
    /// K step through local memory.
    pub tk: usize,
    /// Register tiles in runs of 4 rows and columns, read from local
    /// memory 16 bytes at a time (`gemm.cl`'s VLDS; rm and rn multiples
    /// of 4).
    pub vlds: bool,
    /// Two local buffers, one barrier per K step (`gemm.cl`'s DBUF).
    pub dbuf: bool,
}

impl Tiles {
    /// GPUs: 128 x 128 block tiles of 16 x 16 work-items with 8 x 8
    /// register tiles, K steps of 16 (16 KiB of local memory). CPU
    /// runtimes: 32 x 64 block tiles of 4 x 16 work-items with 8 x 4
    /// register tiles, K steps of 16: 16 work-items along dimension 0, the
    /// width Intel's CPU runtime vectorises over (measured at 256^3/512^3 on
    /// a 2-core AVX-512 host: 8-13 GFLOP/s on Intel's runtime where 8 x 8
    /// work-groups of 4 x 4 tiles, K steps of 8, gave 1.4-1.6; 1.7-2.3 on
    /// PoCL, was 0.9-1.1).
    pub fn for_device(ocl: GpuEngine) -> Tiles {
        if ocl.is_gpu_device() {
            Tiles::GPU
        } else {
            Tiles::SMALL
        }
    }

    /// [`Tiles::for_device`] for a GEMM of `shape` (`None`: not known at
    /// creation):
    /// - the 16-byte local reads (`vlds`) only from a depth of
    ///   [`VLDS_MIN_K`] on. Measured on an H100 (f32, same run, without ->
    ///   with): matmul 1024^3 14.2 -> 15.9 TFLOP/s, 4096^3 29.9 -> 33.3,
    ///   8192^3 29.9 -> 33.5, the 3x3 convolution's GEMM (K 2304) 35.2 ->
    ///   37.9; but K 64 (a 1x1 convolution's) 27.0 -> 24.5, where the
    ///   epilogue weighs more than the products;
    /// - from that depth on, on NVIDIA GPUs (work-groups of 512 allowed),
    ///   bigger blocks where at least [`LARGE_MIN_BLOCKS`] of them cover C:
    ///   [`Tiles::GPU_WIDE`] where one block spans N (128 < N <= 256: each
    ///   row of A is read once), else [`Tiles::GPU_LARGE`]. Measured on an
    ///   H200 (f32, same run): GPU -> GPU_LARGE, matmul 2048^3 32.8 -> 39.3
    ///   TFLOP/s, 4096^3 33.3 -> 40.1, 8192^3 33.4 -> 40.5 (GPU_WIDE: 33.6
    ///   at 4096^3), the 3x3 convolution 37.8 -> 43.8 (GPU_WIDE: 44.9, and
    ///   44.4 for the matmul of its GEMM, N 256); but 1024^3 (32 blocks)
    ///   15.9 -> 9.4, and the 3x3 convolution's backward weights (126
    ///   blocks of its depth parts) 24.7 -> 19.7;
    /// - where B's n index is contiguous ([`GemmShape::double`]) and N
    ///   exceeds 128, the big blocks are [`Tiles::GPU_WIDE_DB`] (two local
    ///   buffers, one barrier per K step). Measured on an H200 (f32, same
    ///   run, against cuBLAS): matmul 2048^3 0.84 -> 0.87, 4096^3 0.84 ->
    ///   0.87, 8192^3 0.85 -> 0.88;
    /// - on NVIDIA GPUs where fewer big blocks would cover C, smaller ones
    ///   that fill the device: [`Tiles::GPU_NARROW`] (128 x 64) where one
    ///   wave of them, one per multiprocessor, covers C, else
    ///   [`Tiles::GPU_SLIM`] (64 x 128; also where M <= 64, which it spans
    ///   without padding). Measured on an H200 (f32, same run, TFLOP/s):
    ///   1024^3 GPU 16.8, GPU_NARROW 30.6, GPU_SLIM 28.9; 1536^3 GPU 19.6
    ///   (144 blocks on 132 multiprocessors: the second wave nearly
    ///   empty), GPU_NARROW 27.1, GPU_SLIM 30.5; 2048^3 GPU_LARGE 42.3,
    ///   GPU_NARROW 38.5, GPU_SLIM 32.1.
    pub fn for_gemm(ocl: GpuEngine, shape: Option<GemmShape>) -> Tiles {
        let mut t = Tiles::for_device(ocl);
        let Some(s) = shape else {
            return t;
        };
        if s.k < VLDS_MIN_K {
            t.vlds = false;
            return t;
        }
        if t != Tiles::GPU || ocl.nv_compute_capability().is_none() {
            return t;
        }
        let blocks = |t: Tiles| {
            let (bm, bn) = ((t.wg_m * t.rm) as i64, (t.wg_n * t.rn) as i64);
            s.copies * ((s.m + bm - 1) / bm) * ((s.n + bn - 1) / bn)
        };
        let fits = ocl
            .local_mem_size()
            .is_some_and(|have| have >= Tiles::GPU_WIDE_DB.local_bytes());
        let big = if s.double && fits && s.n > 128 {
            Tiles::GPU_WIDE_DB
        } else if s.wide && s.n > 128 && s.n <= 256 {
            Tiles::GPU_WIDE
        } else {
            Tiles::GPU_LARGE
        };
        if blocks(big) >= LARGE_MIN_BLOCKS {
            return Tiles::tuning_override().unwrap_or(big);
        }
        if !s.small {
            return t;
        }
        let units = i64::from(ocl.compute_units().unwrap_or(1));
        if s.m <= 64 || blocks(Tiles::GPU_NARROW) > units {
            Tiles::GPU_SLIM
        } else {
            Tiles::GPU_NARROW
        }
    }

    /// 128 x 64 block tiles of 16 x 16 work-items with 8 x 4 register
    /// tiles, K steps of 16: see [`Tiles::for_gemm`].
    pub const GPU_NARROW: Tiles = Tiles {
        wg_m: 16,
        wg_n: 16,
        rm: 8,
        rn: 4,
        tk: 16,
        vlds: true,
        dbuf: false,
    };

    /// 64 x 128 block tiles of 8 x 16 work-items with 8 x 8 register
    /// tiles, K steps of 16: see [`Tiles::for_gemm`].
    pub const GPU_SLIM: Tiles = Tiles {
        wg_m: 8,
        wg_n: 16,
        rm: 8,
        rn: 8,
        tk: 16,
        vlds: true,
        dbuf: false,
    };

    /// 256 x 128 block tiles of 32 x 16 work-items with 8 x 8 register
    /// tiles, K steps of 16 (25 KiB of local memory): see
    /// [`Tiles::for_gemm`].
    pub const GPU_LARGE: Tiles = Tiles {
        wg_m: 32,
        wg_n: 16,
        rm: 8,
        rn: 8,
        tk: 16,
        vlds: true,
        dbuf: false,
    };

    /// 128 x 256 block tiles of 16 x 32 work-items with 8 x 8 register
    /// tiles, K steps of 16: see [`Tiles::for_gemm`].
    pub const GPU_WIDE: Tiles = Tiles {
        wg_m: 16,
        wg_n: 32,
        rm: 8,
        rn: 8,
        tk: 16,
        vlds: true,
        dbuf: false,
    };

    pub const GPU: Tiles = Tiles {
        wg_m: 16,
        wg_n: 16,
        rm: 8,
        rn: 8,
        tk: 16,
        vlds: true,
        dbuf: false,
    };

    pub const SMALL: Tiles = Tiles {
        wg_m: 4,
        wg_n: 16,
        rm: 8,
        rn: 4,
        tk: 16,
        vlds: false,
        dbuf: false,
    };

    /// 128 x 256 block tiles as [`Tiles::GPU_WIDE`], with two local
    /// buffers (48 KiB: rows unpadded): see [`Tiles::for_gemm`].
    pub const GPU_WIDE_DB: Tiles = Tiles {
        dbuf: true,
        ..Tiles::GPU_WIDE
    };

    /// `DNNL_GEMM_TILES` = `wg_m,wg_n,rm,rn,tk,dbuf` (for tuning): the
    /// tiles [`Tiles::for_gemm`] takes instead of its big ones, with 16-byte
    /// local reads.
    fn tuning_override() -> Option<Tiles> {
        match super::tuning_numbers("DNNL_GEMM_TILES")?[..] {
            [wg_m, wg_n, rm, rn, tk, dbuf] => Some(Tiles {
                wg_m,
                wg_n,
                rm,
                rn,
                tk,
                vlds: true,
                dbuf: dbuf != 0,
            }),
            _ => None,
        }
    }

    /// Whether the register tiles read local memory 16 bytes at a time.
    fn vlds_on(&self) -> bool {
        self.vlds && self.rm.is_multiple_of(4) && self.rn.is_multiple_of(4)
    }

    /// The local memory `gemm_tiled` takes with these tiles (4-byte
    /// accumulators; rows padded as `gemm.cl` pads them).
    pub fn local_bytes(&self) -> u64 {
        let pad = match (self.vlds_on(), self.dbuf) {
            (true, true) => 0,
            (true, false) => 4,
            _ => 1,
        };
        let (tm, tn) = (self.wg_m * self.rm, self.wg_n * self.rn);
        let one = self.tk * (tm + pad + tn + pad) * 4;
        (one * if self.dbuf { 2 } else { 1 }) as u64
    }

    pub(crate) fn options(&self) -> String {
        format!(
            "-DWG_M={} -DWG_N={} -DRM={} -DRN={} -DTK={} -DVLDS={} -DDBUF={}",
            self.wg_m,
            self.wg_n,
            self.rm,
            self.rn,
            self.tk,
            u8::from(self.vlds_on()),
            u8::from(self.dbuf)
        )
    }
}

/// A built GEMM kernel and, for `gemm_mma`, its tiles.
type Built = (Arc<Kernel>, Option<MmaTiles>);

/// The GEMM kernels of one configuration (types, epilogue, tiles).
pub(crate) struct GemmKernels {
    source: String,
    options: String,
    tiles: Tiles,
    /// `gemm_mma` (tensor cores, `mma.rs`) instead of `gemm_tiled`, on
    /// values of this type.
    mma: Option<MmaType>,
    post_ops: bool,
    /// Whether a tf32 GEMM with n-fastest B copies B K-major into the
    /// scratchpad first (`BCopy`: the caller declared the scratchpad for
    /// it, as matmul does).
    b_copy: bool,
    /// Kernels by variant, with `gemm_mma`'s tiles.
    built: Mutex<HashMap<String, Built>>,
}

/// Which wgmma blocks a GEMM takes: the large ones where they fill the
/// device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WgmmaSize {
    Large,
    Small,
}

/// `gemm_mma`'s block of C and how it is multiplied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MmaTiles {
    /// `mma.sync`: `warps_m` x `warps_n` warps of 64 x `wn` each, K steps
    /// through `stages` local stages (cp.async; 1: register staged).
    Sync {
        warps_m: usize,
        warps_n: usize,
        wn: usize,
        stages: usize,
    },
    /// `wgmma` (sm_90a, `mma::wgmma`): `groups` warpgroups along M, each
    /// computing `blocks` blocks of 64 x `n`, K steps through `stages`
    /// cp.async stages.
    Wgmma {
        groups: usize,
        blocks: usize,
        n: usize,
        stages: usize,
        /// wgmma groups left in flight at each K step (1 or 2).
        depth: usize,
    },
}

impl MmaTiles {
    /// The tiles for a GEMM whose operands both load 16 bytes at a time
    /// (`async_copies`: cp.async stages) or not (register-staged loads),
    /// on wgmma where `wgmma` (which needs `async_copies`).
    fn of(async_copies: bool, wgmma: Option<WgmmaSize>) -> MmaTiles {
        if let (true, Some(size)) = (async_copies, wgmma) {
            MmaTiles::wgmma_tiles(size)
        } else if async_copies {
            MmaTiles::Sync {
                warps_m: 2,
                warps_n: 2,
                wn: 64,
                stages: 3,
            }
        } else {
            MmaTiles::Sync {
                warps_m: 2,
                warps_n: 4,
                wn: 32,
                stages: 1,
            }
        }
    }

    /// wgmma's tiles: 128 x 256 blocks of two warpgroups where they fill
    /// the device (`WgmmaSize::Large`), else 128 x 128 of one; five stages
    /// of K 64 bytes (120 or 80 KiB of local memory: NVIDIA's OpenCL
    /// reports 48 KiB, but takes more in a kernel's own arrays), two wgmma
    /// groups in flight. Measured (f16, TFLOP/s; cuBLAS 825-850 at 4096^3
    /// and about 750 at 8192^3 in the same runs): on an H200 at 4096^3,
    /// 128 x 256 with 5 stages 519, 128 x 128 with 5 stages 499, with 4
    /// stages 480, and with one group in flight (stages copied one step
    /// further ahead) 442 at 3 stages (48 KiB), 128 x 256 with 3 stages
    /// 389; on an H100, 128 x 256 with 4, 5 and 6 stages 467, 520 and 520
    /// at 4096^3, with 5 stages 521 at 8192^3 (128 x 128: 465) but 78 at
    /// 1024^3, where 128 x 128 gave 106. `DNNL_WGMMA_TILES` =
    /// `groups,blocks,n,stages,depth` overrides them (for tuning).
    fn wgmma_tiles(size: WgmmaSize) -> MmaTiles {
        let (groups, blocks, n) = match size {
            WgmmaSize::Large => (2, 1, 256),
            WgmmaSize::Small => (1, 2, 128),
        };
        let chosen = MmaTiles::Wgmma {
            groups,
            blocks,
            n,
            stages: 5,
            depth: 2,
        };
        let parsed = super::tuning_numbers("DNNL_WGMMA_TILES").and_then(|f| match f[..] {
            [groups, blocks, n, stages, depth] => Some(MmaTiles::Wgmma {
                groups,
                blocks,
                n,
                stages,
                depth,
            }),
            _ => None,
        });
        parsed.unwrap_or(chosen)
    }

    fn work_group(self) -> usize {
        match self {
            MmaTiles::Sync {
                warps_m, warps_n, ..
            } => 32 * warps_m * warps_n,
            MmaTiles::Wgmma { groups, .. } => 128 * groups,
        }
    }

    /// Rows and columns of C per work-group.
    fn block(self) -> (usize, usize) {
        match self {
            MmaTiles::Sync {
                warps_m,
                warps_n,
                wn,
                ..
            } => (64 * warps_m, wn * warps_n),
            MmaTiles::Wgmma {
                groups, blocks, n, ..
            } => (64 * groups * blocks, n),
        }
    }

    fn options(self) -> String {
        match self {
            MmaTiles::Sync {
                warps_m,
                warps_n,
                wn,
                stages,
            } => format!(
                " -DMMA_WARPS_M={warps_m} -DMMA_WARPS_N={warps_n} -DMMA_WN={wn} -DMMA_STAGES={}",
                stages.max(2)
            ),
            MmaTiles::Wgmma {
                groups,
                blocks,
                n,
                stages,
                depth,
            } => format!(
                " -DMMA_WGMMA=1 -DWGM_WGS={groups} -DWGM_I={blocks} -DWGM_N={n} \
                 -DMMA_STAGES={stages} -DWGM_DEPTH={depth} {PTX_ARCH_SPECIFIC}"
            ),
        }
    }
}

impl GemmKernels {
    /// Kernels for operands of types `a`, `b`, `c` (and `bias`) with
    /// epilogue `epi`, tiled as `tiles`; int8 `a` gives [`Self::new_int8`].
    pub fn new(
        a: Elem,
        b: Elem,
        c: Elem,
        bias: Option<Elem>,
        epi: &Epilogue,
        tiles: Tiles,
    ) -> GemmKernels {
        if matches!(a, Elem::U8 | Elem::S8) {
            return GemmKernels::new_int8(a, b, c, bias, epi, tiles);
        }
        GemmKernels::with_options(a, b, c, bias, epi, tiles, "")
    }

    /// The integer GEMM: `u8`/`s8` operands `a` and `b`, accumulated
    /// exactly in 32-bit ints (zero points subtracted at tile loads), then
    /// the float epilogue, the dst zero point and the store to `c`; an s32
    /// `c` without any epilogue gets the accumulator itself. The kernel is
    /// `gemm.cl`'s tiling with `ACC_INT`.
    pub fn new_int8(
        a: Elem,
        b: Elem,
        c: Elem,
        bias: Option<Elem>,
        epi: &Epilogue,
        tiles: Tiles,
    ) -> GemmKernels {
        let int = int_options(c, bias, epi);
        GemmKernels::with_options(a, b, c, bias, epi, tiles, &int)
    }

    fn with_options(
        a: Elem,
        b: Elem,
        c: Elem,
        bias: Option<Elem>,
        epi: &Epilogue,
        tiles: Tiles,
        extra: &str,
    ) -> GemmKernels {
        let options = format!(
            "{} {} {extra}",
            epilogue_options(a, b, c, bias, epi),
            tiles.options()
        );
        GemmKernels {
            source: source(&epi.post_ops),
            options,
            tiles,
            mma: None,
            post_ops: !epi.post_ops.is_empty(),
            b_copy: false,
            built: Mutex::new(HashMap::new()),
        }
    }

    /// Tensor-core kernels (`gemm_mma.cl`) multiplying `ty` values from
    /// operands of type `a` (see `mma::supported`), results of type `c`.
    pub fn new_mma(
        ty: MmaType,
        a: Elem,
        b: Elem,
        c: Elem,
        bias: Option<Elem>,
        epi: &Epilogue,
    ) -> GemmKernels {
        let mut options = format!("{} {}", epilogue_options(a, b, c, bias, epi), ty.option());
        if matches!(ty, MmaType::Int8 { .. }) {
            options = format!("{options} {}", int_options(c, bias, epi));
        }
        GemmKernels {
            source: mma_source(&epi.post_ops),
            options,
            tiles: Tiles::GPU,
            mma: Some(ty),
            post_ops: !epi.post_ops.is_empty(),
            b_copy: false,
            built: Mutex::new(HashMap::new()),
        }
    }

    /// The same kernels, copying a tf32 GEMM's n-fastest B K-major into the
    /// scratchpad where `BCopy::plan` says (the caller declares the
    /// scratchpad `BCopy` sizes).
    pub fn with_b_copy(self) -> GemmKernels {
        GemmKernels {
            b_copy: true,
            ..self
        }
    }

    /// The load-variant options for `g`; `usm_misaligned`: a USM pointer
    /// of a 4-wide operand is not 16-byte aligned (buffers always are).
    fn variant(&self, g: &Gemm, usm_misaligned: bool) -> String {
        if let Some(ty) = self.mma {
            return self.mma_variant(ty, g, usm_misaligned);
        }
        let a_k_fast = g.a.rs != 1 || g.a.cs == 1;
        let b_n_fast = g.b.rs != 1 || g.b.cs == 1;
        let a_vec = a_k_fast && g.a.cs == 1 && g.k >= 4;
        let b_vec = b_n_fast && g.b.cs == 1 && g.n >= 4;
        // Aligned 4-vectors: every row of a 4-wide operand starts at a
        // multiple of 4 elements (the kernel's 4-wide loads then start at
        // multiples of 4 too).
        let four = |v: i64| v % 4 == 0;
        let aligned_a = four(g.a.off) && four(g.a.rs) && g.batch.iter().all(|d| four(d.a));
        let aligned_b = four(g.b.off) && four(g.b.rs) && g.batch.iter().all(|d| four(d.b));
        let aligned =
            (a_vec || b_vec) && (!a_vec || aligned_a) && (!b_vec || aligned_b) && !usm_misaligned;
        let v = format!(
            " -DA_K_FAST={} -DB_N_FAST={} -DA_VEC4={} -DB_VEC4={} -DALIGNED={}",
            u8::from(a_k_fast),
            u8::from(b_n_fast),
            u8::from(a_vec),
            u8::from(b_vec),
            u8::from(aligned)
        );
        v + &self.batch_option(g)
    }

    /// The post-ops' batch dimensions.
    fn batch_option(&self, g: &Gemm) -> String {
        if !self.post_ops || g.batch.is_empty() {
            return String::new();
        }
        let dims: Vec<String> = g.batch.iter().map(|d| d.size.to_string()).collect();
        format!(
            " -DPO_NB={} -DPO_BATCH_DIMS={}",
            g.batch.len(),
            dims.join(",")
        )
    }

    /// How `gemm_mma` loads `g`'s A and B: (A 16 bytes at a time, B 16
    /// bytes at a time, B's tile k-fastest). An operand loads 16 bytes at
    /// a time where its fast index is contiguous and every row starts at a
    /// multiple of 16 bytes; B's fast index is k where k is contiguous
    /// and n is not, and for integers always. `usm_misaligned`: a USM
    /// pointer is not 16-byte aligned (then neither operand loads 16 bytes
    /// at a time: cp.async needs it). B's tile k-fastest takes 16-byte
    /// loads of B only with A's too (cp.async).
    pub(super) fn mma_loads(ty: MmaType, g: &Gemm, usm_misaligned: bool) -> (bool, bool, bool) {
        let whole = |v: i64| v % ty.per_16_bytes() == 0;
        let b_kn = ty.b_k_fast() || (g.b.rs == 1 && g.b.cs != 1);
        let a_vec =
            g.a.cs == 1 && whole(g.a.off) && whole(g.a.rs) && g.batch.iter().all(|d| whole(d.a));
        let b_vec = if b_kn {
            g.b.rs == 1 && whole(g.b.cs)
        } else {
            g.b.cs == 1 && whole(g.b.rs)
        } && whole(g.b.off)
            && g.batch.iter().all(|d| whole(d.b));
        if usm_misaligned {
            return (false, false, b_kn);
        }
        (a_vec, b_vec && (a_vec || !b_kn), b_kn)
    }

    /// Whether `gemm_mma` loads an integer `g`'s n-fastest B 4 bytes at a
    /// time (`B_N4`): rows, offset and batch steps multiples of 4 bytes,
    /// and no 16-byte loads of B.
    fn mma_b_n4(ty: MmaType, g: &Gemm, usm_misaligned: bool) -> bool {
        let (_, b_vec, _) = Self::mma_loads(ty, g, usm_misaligned);
        let whole = |v: i64| v % 4 == 0;
        matches!(ty, MmaType::Int8 { .. })
            && !b_vec
            && !usm_misaligned
            && g.b.cs == 1
            && whole(g.b.rs)
            && whole(g.b.off)
            && g.batch.iter().all(|d| whole(d.b))
    }

    /// `gemm_mma`'s load variant and tiles for `g`.
    fn mma_variant(&self, ty: MmaType, g: &Gemm, usm_misaligned: bool) -> String {
        let (a_vec, b_vec, b_kn) = Self::mma_loads(ty, g, usm_misaligned);
        format!(
            " -DA_K_FAST={} -DB_N_FAST={} -DA_VEC8={} -DB_VEC8={} -DB_KN={} -DB_N4={} -DALIGNED={}{}",
            u8::from(g.a.rs != 1 || g.a.cs == 1),
            u8::from(g.b.rs != 1 || g.b.cs == 1),
            u8::from(a_vec),
            u8::from(b_vec),
            u8::from(b_kn),
            u8::from(Self::mma_b_n4(ty, g, usm_misaligned)),
            u8::from(!usm_misaligned),
            self.batch_option(g)
        )
    }

    /// The kernel for `g`, built on first need.
    pub fn kernel(&self, ocl: GpuEngine, g: &Gemm, usm_misaligned: bool) -> Result<Arc<Kernel>> {
        Ok(self.kernel_and_tiles(ocl, g, usm_misaligned)?.0)
    }

    /// The kernel for `g` and, for `gemm_mma`, the tiles it was built with:
    /// wgmma's where `mma::wgmma` allows them, else (or where that build
    /// fails, which shows under `ONEDNN_VERBOSE=dispatch`) mma.sync's.
    fn kernel_and_tiles(&self, ocl: GpuEngine, g: &Gemm, usm_misaligned: bool) -> Result<Built> {
        let variant = self.variant(g, usm_misaligned);
        let mut built = self.built.lock()?;
        if let Some(k) = built.get(&variant) {
            return Ok(k.clone());
        }
        let Some(ty) = self.mma else {
            let options = format!("{}{variant}", self.options);
            let kernel = Arc::new(ocl.kernel(&self.source, &options, "gemm_tiled")?);
            built.insert(variant, (kernel.clone(), None));
            return Ok((kernel, None));
        };
        let (a_vec, b_vec, b_kn) = Self::mma_loads(ty, g, usm_misaligned);
        let shape = (g.m, g.n, g.batches());
        let (kernel, tiles) = build_mma(ocl, ty, a_vec && b_vec, b_kn, shape, |tiles| {
            let options = format!("{}{variant}{}", self.options, tiles.options());
            ocl.kernel(&self.source, &options, "gemm_mma")
        })?;
        let kernel = Arc::new(kernel);
        built.insert(variant, (kernel.clone(), Some(tiles)));
        Ok((kernel, Some(tiles)))
    }

    /// `b_k_major` (the K-major copy of B, `BCopy`) from the program of
    /// the GEMM `g` on the copy.
    fn b_copy_kernel(&self, ocl: GpuEngine, g: &Gemm, usm_misaligned: bool) -> Result<Arc<Kernel>> {
        let variant = self.variant(g, usm_misaligned);
        let key = format!("b_k_major{variant}");
        if let Some((k, _)) = self.built.lock()?.get(&key) {
            return Ok(k.clone());
        }
        let (_, tiles) = self.kernel_and_tiles(ocl, g, usm_misaligned)?;
        let tiles = tiles.map(MmaTiles::options).unwrap_or_default();
        let options = format!("{}{variant}{tiles}", self.options);
        let kernel = Arc::new(ocl.kernel(&self.source, &options, "b_k_major")?);
        self.built.lock()?.insert(key, (kernel.clone(), None));
        Ok(kernel)
    }

    /// Enqueues `g` with epilogue `epi` on `ctx`'s stream after its events;
    /// returns the event of the last command.
    pub fn enqueue(
        &self,
        ctx: &ExecContext,
        g: &Gemm,
        epi: &Epilogue,
        args: GemmArgs,
    ) -> Result<Event> {
        let queue = ctx.queue()?;
        let ocl = ctx.stream.engine().gpu("matmul")?;
        let a = Buffer::of(ctx.arg(args.a)?)?;
        let b = Buffer::of(ctx.arg(args.b)?)?;
        let c = Buffer::of(ctx.arg(args.c)?)?;
        let bias = match args.bias {
            Some(arg) => Buffer::of(ctx.arg(arg)?)?,
            None => Buffer::None,
        };
        let batches = g.batches();
        if g.m == 0 || g.n == 0 || batches == 0 {
            return queue.marker(ctx.deps);
        }
        if g.k > 0 {
            a.check_holds(g.a.bytes, "A")?;
            b.check_holds(g.b.bytes, "B")?;
        }
        c.check_holds(g.c.bytes, "C")?;
        if let Some(op) = &g.bias {
            bias.check_holds(op.bytes, "bias")?;
        }
        let scale = |on: bool, arg: i32, count: i64| -> Result<Buffer> {
            if !on {
                return Ok(Buffer::None);
            }
            Buffer::values(
                ctx.arg(DNNL_ARG_ATTR_SCALES | arg)?,
                count as usize * 4,
                "scales",
            )
        };
        let s_src = scale(epi.src_scale, DNNL_ARG_SRC, 1)?;
        let s_wei = match epi.wei_scale {
            None => Buffer::None,
            Some(WeiScale::Common) => scale(true, DNNL_ARG_WEIGHTS, 1)?,
            Some(WeiScale::PerN) => scale(true, DNNL_ARG_WEIGHTS, g.n)?,
        };
        let s_dst = scale(epi.dst_scale, DNNL_ARG_DST, 1)?;
        let zp = |z: Option<Zp>, arg: i32| -> Result<Buffer> {
            match z {
                None => Ok(Buffer::None),
                Some(z) => Buffer::values(
                    ctx.arg(DNNL_ARG_ATTR_ZERO_POINTS | arg)?,
                    z.count(g.k, g.n) * 4,
                    "zero points",
                ),
            }
        };
        let zps = [
            zp(epi.zp_src, DNNL_ARG_SRC)?,
            zp(epi.zp_wei, DNNL_ARG_WEIGHTS)?,
            zp(epi.zp_dst, DNNL_ARG_DST)?,
        ];
        let po_buffers = epi.post_ops.cl_buffers(ctx)?;
        let misaligned = |x: &Buffer| x.usm_addr().is_some_and(|p| p % 16 != 0);
        // A tf32 GEMM with n-fastest B runs on wgmma from a K-major copy
        // of B, where the primitive declared the scratchpad for it.
        let copy = match (self.mma, ctx.scratchpad) {
            (Some(ty), Some(s)) if self.b_copy => {
                BCopy::plan(ocl, ty, g, misaligned(&a)).filter(|c| s.md().size(0) >= c.bytes)
            }
            _ => None,
        };
        let (g, b, deps) = match &copy {
            Some(copy) => {
                let scratch = Buffer::of(ctx.scratchpad()?)?;
                let kernel = self.b_copy_kernel(ocl, &copy.gemm, misaligned(&scratch))?;
                let done = copy.enqueue(&queue, &kernel, &b, &scratch, ctx.deps)?;
                (&copy.gemm, scratch, vec![done])
            }
            None => (g, b, ctx.deps.to_vec()),
        };
        let (kernel, mma_tiles) =
            self.kernel_and_tiles(ocl, g, misaligned(&a) || misaligned(&b))?;

        let dims = merge_batch(&g.batch);
        let split = dims.len().saturating_sub(2);
        let (outer, inner) = dims.split_at(split);
        let unit = BatchDim {
            size: 1,
            a: 0,
            b: 0,
            c: 0,
            bias: 0,
        };
        let (d0, d1) = match inner {
            [x, y] => (*x, *y),
            [y] => (unit, *y),
            _ => (unit, unit),
        };
        let per_launch = d0.size * d1.size;
        let launches: i64 = outer.iter().map(|d| d.size).product();
        let t = self.tiles;
        let (global, local) = if let Some(tiles) = mma_tiles {
            let (bm, bn) = tiles.block();
            let wg = tiles.work_group();
            (
                [
                    (g.n as usize).div_ceil(bn) * wg,
                    (g.m as usize).div_ceil(bm),
                    per_launch as usize,
                ],
                [wg, 1, 1],
            )
        } else {
            let (tm, tn) = (t.wg_m * t.rm, t.wg_n * t.rn);
            (
                [
                    (g.n as usize).div_ceil(tn) * t.wg_n,
                    (g.m as usize).div_ceil(tm) * t.wg_m,
                    per_launch as usize,
                ],
                [t.wg_n, t.wg_m, 1],
            )
        };
        let bias_op = g.bias.unwrap_or(g.c);
        let mut events = Vec::new();
        for o in 0..launches {
            // Offsets of the outer batch index o.
            let (mut rest, mut offs) = (o, [0i64; 4]);
            for d in outer.iter().rev() {
                let i = rest % d.size;
                rest /= d.size;
                offs[0] += i * d.a;
                offs[1] += i * d.b;
                offs[2] += i * d.c;
                offs[3] += i * d.bias;
            }
            let mut kargs = vec![
                a.kernel_arg()?,
                KernelArg::I64(g.a.off + offs[0]),
                KernelArg::I64(g.a.rs),
                KernelArg::I64(g.a.cs),
                KernelArg::I64(d0.a),
                KernelArg::I64(d1.a),
                b.kernel_arg()?,
                KernelArg::I64(g.b.off + offs[1]),
                KernelArg::I64(g.b.rs),
                KernelArg::I64(g.b.cs),
                KernelArg::I64(d0.b),
                KernelArg::I64(d1.b),
                c.kernel_arg()?,
                KernelArg::I64(g.c.off + offs[2]),
                KernelArg::I64(g.c.rs),
                KernelArg::I64(g.c.cs),
                KernelArg::I64(d0.c),
                KernelArg::I64(d1.c),
                bias.kernel_arg()?,
                KernelArg::I64(bias_op.off + offs[3]),
                KernelArg::I64(bias_op.rs),
                KernelArg::I64(bias_op.cs),
                KernelArg::I64(d0.bias),
                KernelArg::I64(d1.bias),
                KernelArg::I64(g.m),
                KernelArg::I64(g.n),
                KernelArg::I64(g.k),
                KernelArg::I64(d1.size),
                KernelArg::I64(o * per_launch),
                s_src.kernel_arg()?,
                s_wei.kernel_arg()?,
                s_dst.kernel_arg()?,
                zps[0].kernel_arg()?,
                zps[1].kernel_arg()?,
                zps[2].kernel_arg()?,
            ];
            for p in &po_buffers {
                kargs.push(p.kernel_arg()?);
            }
            events.push(queue.enqueue_kernel(&kernel, &kargs, &global, Some(&local), &deps)?);
        }
        if events.len() == 1 {
            return Ok(events.remove(0));
        }
        queue.marker(&events)
    }
}

/// Batch dimensions with the ones of size 1 dropped and neighbours merged
/// where every operand's strides allow it, outermost first.
fn merge_batch(batch: &[BatchDim]) -> Vec<BatchDim> {
    let mut out: Vec<BatchDim> = Vec::new();
    for d in batch.iter().filter(|d| d.size != 1) {
        if let Some(p) = out.last_mut() {
            let fits = |outer: i64, inner: i64| outer == inner * d.size;
            if fits(p.a, d.a) && fits(p.b, d.b) && fits(p.c, d.c) && fits(p.bias, d.bias) {
                p.size *= d.size;
                p.a = d.a;
                p.b = d.b;
                p.c = d.c;
                p.bias = d.bias;
                continue;
            }
        }
        out.push(*d);
    }
    out
}

/// Enqueues `out[j] = Σ_r x[r, j]` (`rows` x `cols`, element `(r, j)` at
/// `x_off + r * x_rs + j * x_cs`) after `deps`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn enqueue_col_sum(
    ocl: GpuEngine,
    queue: Queue,
    x: (&Buffer, Elem, i64, i64, i64),
    rows: i64,
    cols: i64,
    out: (&Buffer, Elem, i64, i64),
    deps: &[Event],
) -> Result<Event> {
    let options = format!("-DA_DT={} -DC_DT={}", x.1.cl_name(), out.1.cl_name());
    let kernel = ocl.kernel(&source(&PostOpsPlan::none()), &options, "col_sum")?;
    let local = 64usize;
    let global = (cols as usize).div_ceil(local) * local;
    let args = [
        x.0.kernel_arg()?,
        KernelArg::I64(x.2),
        KernelArg::I64(x.3),
        KernelArg::I64(x.4),
        KernelArg::I64(rows),
        KernelArg::I64(cols),
        out.0.kernel_arg()?,
        KernelArg::I64(out.2),
        KernelArg::I64(out.3),
    ];
    queue.enqueue_kernel(&kernel, &args, &[global], Some(&[local]), deps)
}

/// The integer GEMM's options (`ACC_INT`, zero points, exact s32 C) for
/// results of type `c`, `bias` and epilogue `epi`.
fn int_options(c: Elem, bias: Option<Elem>, epi: &Epilogue) -> String {
    let exact = c == Elem::S32
        && bias.is_none()
        && !epi.src_scale
        && epi.wei_scale.is_none()
        && !epi.dst_scale
        && epi.zp_dst.is_none()
        && epi.post_ops.is_empty();
    format!(
        "-DACC_INT=1 -DGZP_A={} -DGZP_B={} -DGZP_C={} -DC_EXACT={}",
        Zp::code(epi.zp_src),
        Zp::code(epi.zp_wei),
        Zp::code(epi.zp_dst),
        u8::from(exact)
    )
}
