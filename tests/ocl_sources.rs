//! Every OpenCL C file the library ships (`src/**/*.cl`) builds on each
//! OpenCL device present.
//!
//! Each kind's launch code (`src/prims/<kind>/ocl.rs`, or the shared engines
//! `src/prims/common/gemm/ocl.rs` and `src/prims/common/xfer/ocl.rs`)
//! assembles its program from shared preludes and its own `.cl` file
//! (`gemm.cl`, `xfer.cl` beside the shared engines) and specialises it with `-D`
//! macros. The assembling functions are private to `prims`, so this test
//! rebuilds the same programs: the preludes the library exports
//! (`dt::CL_TYPES`, `cl_walk::CL_POSITIONS`, `binary_alg::CL_SOURCE`, the
//! post-ops prelude of `PostOpsPlan::none()`), each kind's `.cl` files read
//! from disk in the order its `ocl.rs` concatenates them, and option sets
//! written after what each `ocl.rs` passes (one per kernel variant: dense and
//! strided walks, forward and backward, the load variants of the GEMM).
//!
//! A `.cl` file under `src/` that no build below contains fails the test: a
//! new kernel file needs a build here.

mod ocl_common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use dnnl::prims::common::{binary_alg, cl_walk, dt, post_ops::PostOpsPlan};
use dnnl::runtime::ocl::{Context, Program};

/// One program to build: the files it contains (paths from the repository
/// root), its source, options, and the kernels it must define.
struct Build {
    what: &'static str,
    files: &'static [&'static str],
    source: String,
    options: String,
    kernels: &'static [&'static str],
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(file: &str) -> String {
    std::fs::read_to_string(root().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// Every `.cl` file under `dir`, as paths from the repository root.
fn cl_files(dir: &Path, out: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            cl_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "cl") {
            let rel = path.strip_prefix(root()).unwrap();
            out.insert(rel.to_string_lossy().into_owned());
        }
    }
}

const TYPES: &str = "src/prims/common/types.cl";
const POSITIONS: &str = "src/prims/common/positions.cl";
const BINARY_ALG: &str = "src/prims/common/binary_alg.cl";
const ELTWISE_ALG: &str = "src/prims/common/eltwise_alg.cl";

/// A 4x8 row-major output walked in memory order by work-item `t`, the
/// options `cl_walk::walk_options` gives such a walk; `off` names the
/// output's offset macro.
fn walk_4x8(off: &str) -> String {
    format!(" -DP0=((t/8)*1) -DP1=((t%8)*1) -D{off}=(0+(t/8)*8+(t%8)*1)")
}

fn builds() -> Vec<Build> {
    // The prelude every post-op chain starts with (the forward eltwise
    // formulas and the binary algorithms, then `post_ops()`): the empty
    // chain's, as the primitives without post-ops build.
    let post_ops = PostOpsPlan::none().cl_source();
    let mut v = Vec::new();

    // Eltwise (`eltwise/ocl.rs` `source()`): types, positions, post-ops,
    // then the forward formulas and `eltwise.cl`.
    let eltwise = format!(
        "{}{}{post_ops}{}{}",
        dt::CL_TYPES,
        cl_walk::CL_POSITIONS,
        read(ELTWISE_ALG),
        read("src/prims/eltwise/eltwise.cl")
    );
    let eltwise_files: &[&str] = &[
        TYPES,
        POSITIONS,
        BINARY_ALG,
        ELTWISE_ALG,
        "src/prims/eltwise/eltwise.cl",
    ];
    const DENSE: &[&str] = &["eltwise_fwd_dense", "eltwise_bwd_dense"];
    const STRIDED: &[&str] = &["eltwise_fwd_strided", "eltwise_bwd_strided"];
    for (what, options, kernels) in [
        (
            "eltwise dense relu f32, aligned",
            "-DALG_RELU -DELT_ID=0 -DA_DT=F32 -DB_DT=F32 -DC_DT=F32 -DITEMS=2 -DIDX_T=uint -DALIGNED=1"
                .to_string(),
            DENSE,
        ),
        (
            "eltwise dense gelu_erf f16/bf16, unaligned",
            "-DALG_GELU_ERF -DELT_ID=17 -DA_DT=F16 -DB_DT=BF16 -DC_DT=BF16 -DITEMS=1 -DIDX_T=ulong -DALIGNED=0"
                .to_string(),
            DENSE,
        ),
        (
            "eltwise dense tanh s8/u8",
            "-DALG_TANH -DELT_ID=1 -DA_DT=S8 -DB_DT=F32 -DC_DT=U8 -DITEMS=4 -DIDX_T=uint -DALIGNED=1"
                .to_string(),
            DENSE,
        ),
        (
            "eltwise strided relu f32, padded, with post-ops",
            format!(
                "-DALG_RELU -DELT_ID=0 -DA_DT=F32 -DB_DT=F32 -DC_DT=F32 -DTOTAL=32{} \
                 -DA_OFF=(p0*8+p1) -DB_OFF=(p0*8+p1) -DINB=((p0<3)) -DWITH_POST_OPS -DO1=1",
                walk_4x8("C_OFF")
            ),
            STRIDED,
        ),
    ] {
        v.push(Build {
            what,
            files: eltwise_files,
            source: eltwise.clone(),
            options,
            kernels,
        });
    }

    // Binary (`binary/ocl.rs` `source()`): types, positions, the binary
    // algorithms, post-ops, then `binary.cl`.
    let binary = format!(
        "{}{}{}{post_ops}{}",
        dt::CL_TYPES,
        cl_walk::CL_POSITIONS,
        binary_alg::CL_SOURCE,
        read("src/prims/binary/binary.cl")
    );
    let binary_files: &[&str] = &[
        TYPES,
        POSITIONS,
        BINARY_ALG,
        ELTWISE_ALG,
        "src/prims/binary/binary.cl",
    ];
    for (what, options, kernels) in [
        (
            "binary dense add f32/f16, src0 scale",
            "-DALG=0 -DA_DT=F32 -DB_DT=F16 -DD_DT=F32 -DSCALE0=1 -DSCALE1=0".to_string(),
            &["binary_dense"],
        ),
        (
            "binary dense select s8/u8 to bf16, src1 scale",
            "-DALG=12 -DA_DT=S8 -DB_DT=U8 -DD_DT=BF16 -DSCALE0=0 -DSCALE1=1 -DHAS_C=1 -DC_DT=U8"
                .to_string(),
            &["binary_dense"],
        ),
        (
            "binary generic mul f32, broadcast src1, padded dst",
            format!(
                "-DALG=1 -DA_DT=F32 -DB_DT=F32 -DD_DT=F32 -DSCALE0=0 -DSCALE1=0 -DTOTAL=32 -DNDIMS=2{} \
                 -DA_OFF=(p0*8+p1) -DB_OFF=(p1) -DC_OFF=(p0*8+p1) -DLPOS=p0,p1 -DINB=((p0<3))",
                walk_4x8("D_OFF")
            ),
            &["binary_generic"],
        ),
    ] {
        v.push(Build {
            what,
            files: binary_files,
            source: binary.clone(),
            options,
            kernels,
        });
    }

    // Softmax (`softmax/ocl.rs`): types, positions, post-ops, `softmax.cl`.
    let softmax = format!(
        "{}{}{post_ops}{}",
        dt::CL_TYPES,
        cl_walk::CL_POSITIONS,
        read("src/prims/softmax/softmax.cl")
    );
    let softmax_files: &[&str] = &[
        TYPES,
        POSITIONS,
        BINARY_ALG,
        ELTWISE_ALG,
        "src/prims/softmax/softmax.cl",
    ];
    // 4 rows of 8 along dimension 1 of a 4x8 row-major tensor.
    let rows = "-DROWS=4 -DAX_LO=0 -DAX_LEN=8 -DAX_PADDED=8 -DNDIMS=2 -DP0=(r%4) \
                -DD_OFF=(p0*8+i) -DA_OFF=(p0*8+i) -DLPOS=p0,j -DINROW=1";
    for (what, options, kernels) in [
        (
            "softmax forward, a work-group per row, scales",
            format!("-DWG=128 -DA_DT=F32 -DD_DT=F32 -DSCALE_SRC=1 -DSCALE_DST=1 {rows}"),
            &["softmax_fwd"],
        ),
        (
            "softmax forward log, short rows, bf16 to s8",
            format!("-DWG=32 -DA_DT=BF16 -DD_DT=S8 -DSCALE_SRC=0 -DSCALE_DST=0 -DALG_LOG {rows}"),
            &["softmax_fwd"],
        ),
        (
            "softmax forward, a row per work-item",
            format!("-DWG=0 -DA_DT=F16 -DD_DT=F32 -DSCALE_SRC=0 -DSCALE_DST=0 {rows}"),
            &["softmax_fwd"],
        ),
        (
            "softmax backward",
            format!(
                "-DWG=128 -DA_DT=F32 -DD_DT=F32 -DSCALE_SRC=0 -DSCALE_DST=0 {rows} \
                 -DBWD -DB_DT=F32 -DB_OFF=(p0*8+i)"
            ),
            &["softmax_bwd"],
        ),
        (
            "softmax backward log, a row per work-item",
            format!(
                "-DWG=0 -DA_DT=F32 -DD_DT=F32 -DSCALE_SRC=0 -DSCALE_DST=0 {rows} \
                 -DALG_LOG -DBWD -DB_DT=F16 -DB_OFF=(p0*8+i)"
            ),
            &["softmax_bwd"],
        ),
    ] {
        v.push(Build {
            what,
            files: softmax_files,
            source: softmax.clone(),
            options,
            kernels,
        });
    }

    // Reductions (`common/reduce/ocl.rs`): types, positions, post-ops, `reduce.cl`.
    let reduction = format!(
        "{}{}{post_ops}{}",
        dt::CL_TYPES,
        cl_walk::CL_POSITIONS,
        read("src/prims/common/reduce/reduce.cl")
    );
    let reduction_files: &[&str] = &[
        TYPES,
        POSITIONS,
        BINARY_ALG,
        ELTWISE_ALG,
        "src/prims/common/reduce/reduce.cl",
    ];
    // A 4x8 row-major tensor reduced along dimension 1 (4 outputs of 8).
    let reduce = "-DP=as_float(0x40000000u) -DEPS=as_float(0x3a83126fu) -DP_TWO=1 -DP_ONE=0 \
                  -DOUTPUTS=4 -DR_TOTAL=8 -DNDIMS=2 -DPART_OFF=0 -DS_BASE=(o*8) -DD_OFF=o -DP0=(o%4) \
                  -DLPOS=p0,p1";
    for (what, options) in [
        (
            "reduction norm_lp_max, one pass, work-group along the reduction",
            format!(
                "-DALG=5 -DFIRST=1 -DPARTIAL=0 -DS_DT=BF16 -DD_DT=S8 -DR=8 -DCH=8 -DLX=1 -DLY=8 -DR_OFF=r {reduce}"
            ),
        ),
        (
            "reduction mean, chunks to partial results",
            format!(
                "-DALG=4 -DFIRST=1 -DPARTIAL=1 -DS_DT=F16 -DD_DT=F32 -DR=8 -DCH=4 -DLX=4 -DLY=2 -DR_OFF=r {reduce}"
            ),
        ),
        (
            "reduction max, the pass over partial results",
            format!(
                "-DALG=0 -DFIRST=0 -DPARTIAL=0 -DS_DT=F32 -DD_DT=U8 -DR=2 -DCH=2 -DLX=4 -DLY=1 -DR_OFF=(r*4) {reduce}"
            ),
        ),
    ] {
        v.push(Build {
            what,
            files: reduction_files,
            source: reduction.clone(),
            options,
            kernels: &["reduction"],
        });
    }

    // PReLU (`prelu/ocl.rs`): types, `prelu.cl`.
    let prelu = format!("{}{}", dt::CL_TYPES, read("src/prims/prelu/prelu.cl"));
    let prelu_files: &[&str] = &[TYPES, "src/prims/prelu/prelu.cl"];
    // A 4x8 row-major tensor with per-row weights.
    let offs = "-DN=32 -DOFF0=t -DOFF1=(t/8) -DOFF2=t -DOFF3=t -DOFF4=(t/8) -DOFF5=t";
    for (what, options, kernels) in [
        (
            "prelu forward",
            format!("-DT0_DT=BF16 -DT1_DT=F32 -DT2_DT=BF16 {offs}"),
            &["prelu_fwd"],
        ),
        (
            "prelu forward, float4 rows",
            format!(
                "-DT0_DT=F32 -DT1_DT=F16 -DT2_DT=F32 -DIDX_T=int -DVEC=4 -DINC0=1 -DINC1=0 \
                 -DINC2=1 {offs}"
            ),
            &["prelu_fwd"],
        ),
        (
            "prelu backward, products",
            format!(
                "-DT0_DT=F32 -DT1_DT=S8 -DT2_DT=F16 -DT3_DT=F32 -DT4_DT=F32 -DBWD -DPRODUCTS=1 {offs}"
            ),
            &["prelu_bwd"],
        ),
        (
            "prelu backward, diff_weights directly",
            format!(
                "-DT0_DT=U8 -DT1_DT=F32 -DT2_DT=U8 -DT3_DT=U8 -DT4_DT=S32 -DBWD -DPRODUCTS=0 {offs}"
            ),
            &["prelu_bwd"],
        ),
    ] {
        v.push(Build {
            what,
            files: prelu_files,
            source: prelu.clone(),
            options,
            kernels,
        });
    }

    // Pooling (`pooling/ocl.rs`): types, positions, post-ops, `pooling.cl`.
    let pooling = format!(
        "{}{}{post_ops}{}",
        dt::CL_TYPES,
        cl_walk::CL_POSITIONS,
        read("src/prims/pooling/pooling.cl")
    );
    let pooling_files: &[&str] = &[
        TYPES,
        POSITIONS,
        BINARY_ALG,
        ELTWISE_ALG,
        "src/prims/pooling/pooling.cl",
    ];
    // 2D, 1x2x4x4 to 1x2x2x2 (nchw), a 2x2 window at stride 2.
    let window = "-DIDX_T=int -DTOTAL=8 -DP1=(t/4) -DP2=((t/2)%2) -DP3=(t%2) \
                  -DN_POS=(p0) -DC_POS=(p1) -DY0=0 -DY1=(p2) -DY2=(p3) \
                  -DK0=1 -DS0=1 -DDL0=1 -DPL0=0 -DI0=1 -DO0=1 \
                  -DK1=2 -DS1=2 -DDL1=1 -DPL1=0 -DI1=4 -DO1=2 \
                  -DK2=2 -DS2=2 -DDL2=1 -DPL2=0 -DI2=4 -DO2=2 -DLOWEST=(-1.0f)";
    for (what, options, kernels) in [
        (
            "pooling forward max with the workspace",
            format!(
                "-DALG_MAX -DS_DT=F32 -DD_DT=F16 -DW_DT=U8 -DWS=1 {window} \
                 -DOUT_OFF=(t) -DIN_OFF=(c*16+z1*4+z2) -DW_OFF=(t)"
            ),
            &["pooling_fwd"],
        ),
        (
            "pooling forward max, 4 f32 outputs per work-item sharing rows, workspace, post-ops",
            format!(
                "-DALG_MAX -DS_DT=F16 -DD_DT=F32 -DW_DT=S32 -DWS=1 {window} \
                 -DOUT_OFF=(t) -DIN_OFF=(c*16+z1*4+z2) -DW_OFF=(p1*4+p2*2+p3) -DINB=(p1<2) \
                 -DWITH_POST_OPS -DNDIMS=4 -DLPOS=p0,p1,p2,p3 -DVEC=4 -DVEC_P=p3 -DVEC_STRIDE=1 \
                 -DROW4=1"
            ),
            &["pooling_fwd"],
        ),
        (
            "pooling forward avg excluding padding, s8 to u8, padded output",
            format!(
                "-DALG_AVG_EXCL -DS_DT=S8 -DD_DT=U8 -DW_DT=U8 -DWS=0 {window} \
                 -DOUT_OFF=(t) -DIN_OFF=(c*16+z1*4+z2) -DINB=(p1<2) -DWITH_POST_OPS -DNDIMS=4 \
                 -DLPOS=p0,p1,p2,p3"
            ),
            &["pooling_fwd"],
        ),
        (
            "pooling backward max",
            format!(
                "-DALG_MAX -DS_DT=BF16 -DD_DT=F32 -DW_DT=S32 -DWS=1 {window} -DBWD \
                 -DOUT_OFF=(t) -DIN_OFF=(c*4+z1*2+z2) -DW_OFF=(c*4+z1*2+z2)"
            ),
            &["pooling_bwd"],
        ),
        (
            "pooling backward avg including padding",
            format!(
                "-DALG_AVG_INCL -DS_DT=F32 -DD_DT=F32 -DW_DT=U8 -DWS=0 {window} -DBWD \
                 -DOUT_OFF=(t) -DIN_OFF=(c*4+z1*2+z2)"
            ),
            &["pooling_bwd"],
        ),
    ] {
        v.push(Build {
            what,
            files: pooling_files,
            source: pooling.clone(),
            options,
            kernels,
        });
    }

    // Resampling (`resampling/ocl.rs`): types, positions, post-ops, `resampling.cl`.
    let resampling = format!(
        "{}{}{post_ops}{}",
        dt::CL_TYPES,
        cl_walk::CL_POSITIONS,
        read("src/prims/resampling/resampling.cl")
    );
    let resampling_files: &[&str] = &[
        TYPES,
        POSITIONS,
        BINARY_ALG,
        ELTWISE_ALG,
        "src/prims/resampling/resampling.cl",
    ];
    // 2D, 1x2x3x3 to 1x2x5x2 (nchw).
    let shape = "-DIDX_T=int -DTOTAL=20 -DP1=(t/10) -DP2=((t/2)%5) -DP3=(t%2) \
                 -DN_POS=(p0) -DC_POS=(p1) -DY0=0 -DI0=1 -DO0=1 -DLIN0=0 \
                 -DI1=3 -DO1=5 -DI2=3 -DO2=2";
    for (what, options, kernels) in [
        (
            "resampling forward linear, f32 to s8, with post-ops",
            format!(
                "-DS_DT=F32 -DD_DT=S8 -DEMPTY_IN=0 {shape} -DY1=(p2) -DY2=(p3) -DLIN1=1 \
                 -DLIN2=1 -DOUT_OFF=(t) -DIN_OFF=(c*9+z1*3+z2) -DWITH_POST_OPS -DNDIMS=4 \
                 -DLPOS=p0,p1,p2,p3"
            ),
            &["resampling_fwd"],
        ),
        (
            "resampling forward linear, f32 rows of 4 per work-item, with post-ops",
            format!(
                "-DS_DT=F16 -DD_DT=F32 -DEMPTY_IN=0 {shape} -DY1=(p2) -DY2=(p3) -DLIN1=1 \
                 -DLIN2=1 -DOUT_OFF=(t) -DIN_OFF=(c*9+z1*3+z2) -DWITH_POST_OPS -DNDIMS=4 \
                 -DLPOS=p0,p1,p2,p3 -DVEC=4 -DVEC_P=p3 -DVEC_STRIDE=1"
            ),
            &["resampling_fwd"],
        ),
        (
            "resampling forward nearest, empty source",
            format!(
                "-DS_DT=BF16 -DD_DT=F16 -DEMPTY_IN=1 {shape} -DY1=(p2) -DY2=(p3) -DLIN1=0 \
                 -DLIN2=0 -DOUT_OFF=(t) -DIN_OFF=(c*9+z1*3+z2)"
            ),
            &["resampling_fwd"],
        ),
        (
            "resampling backward linear",
            format!(
                "-DS_DT=F32 -DD_DT=BF16 -DEMPTY_IN=0 {shape} -DY1=(p2) -DY2=(p3) -DLIN1=1 \
                 -DLIN2=1 -DBWD -DOUT_OFF=(t) -DIN_OFF=(c*10+z1*2+z2)"
            ),
            &["resampling_bwd"],
        ),
        (
            "resampling backward nearest",
            format!(
                "-DS_DT=U8 -DD_DT=S32 -DEMPTY_IN=0 {shape} -DY1=(p2) -DY2=(p3) -DLIN1=0 \
                 -DLIN2=0 -DBWD -DOUT_OFF=(t) -DIN_OFF=(c*10+z1*2+z2)"
            ),
            &["resampling_bwd"],
        ),
    ] {
        v.push(Build {
            what,
            files: resampling_files,
            source: resampling.clone(),
            options,
            kernels,
        });
    }

    // Normalization (`normalization/ocl.rs`): types, `normalization.cl`; a 2x3x4
    // nchw-like view (batch: one stat per channel; group: per n and group).
    let norm = format!(
        "{}{post_ops}{}",
        dt::CL_TYPES,
        read("src/prims/normalization/normalization.cl")
    );
    let norm_files: &[&str] = &[
        TYPES,
        BINARY_ALG,
        ELTWISE_ALG,
        "src/prims/normalization/normalization.cl",
    ];
    let view = "-DWG=64 -DN=2 -DC=3 -DSP=4 -DS=3 -DM=8 -DEPS=as_float(0x3a83126fu) \
                -DSRC_DT=F32 -DOUT_DT=F32 -DSRC_OFF=(n*12+c*4+sp) -DOUT_OFF=(n*12+c*4+sp) \
                -DDD_DT=F32 -DDD_OFF=(n*12+c*4+sp) -DADD_DT=F32 -DADD_OFF=(n*12+c*4+sp) \
                -DMV_OFF=s -DSS_DT=F32 -DSS_OFF=c -DDSS_DT=F32 -DDSS_OFF=c -DCLAST=0 \
                -DRELU_ALPHA=as_float(0u) -DSCALE_SRC=0 -DSCALE_DST=0 -DPART_BASE=0 \
                -DMEAN_BASE=12 -DVAR_BASE=15 -DCHAN_BASE=18 -DSUM_BASE=24 -DNDIMS=3 \
                -DLPOS=n,c,sp";
    let batch = "-DG=3 -DCG=1 -DPER_N=0 -DRMS=0";
    let group = "-DG=1 -DCG=3 -DPER_N=1 -DRMS=0";
    let rms_rows = "-DG=1 -DCG=3 -DPER_N=1 -DRMS=1";
    let fwd = "-DUSE_SCALE=1 -DUSE_SHIFT=1 -DGLOBAL=0 -DWRITE_STATS=1 -DWS=1 -DRELU=1 -DADD=1 \
               -DSTATS_IN_SCRATCH=0 -DWRITE_DSCALE=0 -DWRITE_DSHIFT=0";
    let bwd = "-DUSE_SCALE=1 -DUSE_SHIFT=1 -DGLOBAL=0 -DWRITE_STATS=0 -DWS=1 -DRELU=0 -DADD=1 \
               -DSTATS_IN_SCRATCH=0 -DWRITE_DSCALE=1 -DWRITE_DSHIFT=1";
    let reduce = |mode: u32, chan: u32| {
        format!(
            "-DNRM_REDUCE -DMODE={mode} -DCHAN_DOMAIN={chan} -DO=3 -DRED=8 -DNCHUNK=1 \
             -DCHUNK=4096 -DSL=1 -DRL=64"
        )
    };
    for (what, options, kernels) in [
        (
            "normalization forward, a work-group per stat",
            format!("{view} {batch} {fwd} -DNRM_FUSED_FWD"),
            &["nrm_fused_fwd"][..],
        ),
        (
            "normalization forward, element-wise",
            format!("{view} {group} {fwd} -DNRM_FWD"),
            &["nrm_fwd"],
        ),
        (
            "normalization forward, element-wise, float4 rows",
            format!("{view} {batch} {fwd} -DNRM_FWD -DVEC4=1"),
            &["nrm_fwd"],
        ),
        (
            "normalization forward, a work-group per row held as float4",
            format!("{view} {rms_rows} {fwd} -DNRM_FUSED_FWD -DFUSED4=2"),
            &["nrm_fused_fwd"],
        ),
        (
            "normalization statistics, mean then variance",
            format!("{view} {batch} {fwd} {}", reduce(0, 0)),
            &["nrm_reduce", "nrm_finish"],
        ),
        (
            "normalization statistics, variance",
            format!("{view} {batch} {fwd} {}", reduce(1, 0)),
            &["nrm_reduce", "nrm_finish"],
        ),
        (
            "normalization backward, per-channel sums",
            format!("{view} {group} {bwd} {}", reduce(2, 1)),
            &["nrm_reduce", "nrm_finish"],
        ),
        (
            "normalization backward, per-stat sums, RMS",
            format!("{view} {rms_rows} {bwd} {}", reduce(3, 0)),
            &["nrm_reduce", "nrm_finish"],
        ),
        (
            "normalization backward, element-wise",
            format!("{view} {batch} {bwd} -DNRM_BWD"),
            &["nrm_bwd"],
        ),
    ] {
        v.push(Build {
            what,
            files: norm_files,
            source: norm.clone(),
            options,
            kernels,
        });
    }

    // GEMM of matmul and inner product (`common/gemm/ocl.rs` `source()`):
    // types, post-ops, `gemm.cl`;
    // `GemmKernels::new` and `variant` give the options, `Tiles::GPU` and
    // `Tiles::SMALL` the tiles.
    let matmul = format!(
        "{}{post_ops}{}",
        dt::CL_TYPES,
        read("src/prims/common/gemm/gemm.cl")
    );
    let matmul_files: &[&str] = &[
        TYPES,
        BINARY_ALG,
        ELTWISE_ALG,
        "src/prims/common/gemm/gemm.cl",
    ];
    let gpu_tiles = "-DWG_M=16 -DWG_N=16 -DRM=8 -DRN=8 -DTK=16 -DVLDS=1";
    let small_tiles = "-DWG_M=4 -DWG_N=16 -DRM=8 -DRN=4 -DTK=16 -DVLDS=0";
    for (what, options, kernels) in [
        (
            "gemm f32, bias and scales, 4-wide aligned loads",
            format!(
                "-DA_DT=F32 -DB_DT=F32 -DC_DT=F32 -DBIAS_DT=F32 -DWITH_BIAS=1 -DSRC_SCALES=1 \
                 -DWEI_SCALES=2 -DDST_SCALES=1 -DPO_ON=0 {gpu_tiles} \
                 -DA_K_FAST=1 -DB_N_FAST=1 -DA_VEC4=1 -DB_VEC4=1 -DALIGNED=1"
            ),
            &["gemm_tiled", "col_sum"][..],
        ),
        (
            "gemm f32, 256 x 128 blocks (Tiles::GPU_LARGE)",
            "-DA_DT=F32 -DB_DT=F32 -DC_DT=F32 -DBIAS_DT=F32 -DWITH_BIAS=0 -DSRC_SCALES=0 \
             -DWEI_SCALES=0 -DDST_SCALES=0 -DPO_ON=0 -DWG_M=32 -DWG_N=16 -DRM=8 -DRN=8 -DTK=16 \
             -DVLDS=1 -DA_K_FAST=1 -DB_N_FAST=1 -DA_VEC4=1 -DB_VEC4=1 -DALIGNED=1"
                .to_string(),
            &["gemm_tiled"][..],
        ),
        (
            "gemm f32, 128 x 64 blocks (Tiles::GPU_NARROW)",
            "-DA_DT=F32 -DB_DT=F32 -DC_DT=F32 -DBIAS_DT=F32 -DWITH_BIAS=0 -DSRC_SCALES=0 \
             -DWEI_SCALES=0 -DDST_SCALES=0 -DPO_ON=0 -DWG_M=16 -DWG_N=16 -DRM=8 -DRN=4 -DTK=16 \
             -DVLDS=1 -DA_K_FAST=1 -DB_N_FAST=1 -DA_VEC4=1 -DB_VEC4=1 -DALIGNED=1"
                .to_string(),
            &["gemm_tiled"][..],
        ),
        (
            "gemm f32, 64 x 128 blocks (Tiles::GPU_SLIM)",
            "-DA_DT=F32 -DB_DT=F32 -DC_DT=F32 -DBIAS_DT=F32 -DWITH_BIAS=0 -DSRC_SCALES=0 \
             -DWEI_SCALES=0 -DDST_SCALES=0 -DPO_ON=0 -DWG_M=8 -DWG_N=16 -DRM=8 -DRN=8 -DTK=16 \
             -DVLDS=1 -DA_K_FAST=1 -DB_N_FAST=1 -DA_VEC4=1 -DB_VEC4=1 -DALIGNED=1"
                .to_string(),
            &["gemm_tiled"][..],
        ),
        (
            "gemm f16 x bf16, transposed operands, post-ops over a batch",
            format!(
                "-DA_DT=F16 -DB_DT=BF16 -DC_DT=F16 -DBIAS_DT=F16 -DWITH_BIAS=0 -DSRC_SCALES=0 \
                 -DWEI_SCALES=1 -DDST_SCALES=0 -DPO_ON=1 {small_tiles} \
                 -DA_K_FAST=0 -DB_N_FAST=0 -DA_VEC4=0 -DB_VEC4=0 -DALIGNED=0 \
                 -DPO_NB=1 -DPO_BATCH_DIMS=2"
            ),
            &["gemm_tiled"][..],
        ),
        (
            "gemm s8 x s8 to s32, scalar loads",
            format!(
                "-DA_DT=S8 -DB_DT=S8 -DC_DT=S32 -DBIAS_DT=F32 -DWITH_BIAS=1 -DSRC_SCALES=0 \
                 -DWEI_SCALES=0 -DDST_SCALES=0 -DPO_ON=0 {small_tiles} \
                 -DA_K_FAST=1 -DB_N_FAST=1 -DA_VEC4=0 -DB_VEC4=0 -DALIGNED=0"
            ),
            &["gemm_tiled"][..],
        ),
        (
            "column sums s8 to s32 (enqueue_col_sum)",
            "-DA_DT=S8 -DC_DT=S32".to_string(),
            &["col_sum"][..],
        ),
    ] {
        v.push(Build {
            what,
            files: matmul_files,
            source: matmul.clone(),
            options,
            kernels,
        });
    }

    // Convolutions (`convolution/ocl.rs`, `source_with`): types, post-ops,
    // `conv.cl`, then `gemm.cl`; `Plan::new` gives the options: the problem
    // baked in, which operands are gathered, the direction.
    let conv = format!(
        "{}{post_ops}{}{}",
        dt::CL_TYPES,
        read("src/prims/convolution/conv.cl"),
        read("src/prims/common/gemm/gemm.cl")
    );
    let conv_files: &[&str] = &[
        TYPES,
        BINARY_ALG,
        ELTWISE_ALG,
        "src/prims/convolution/conv.cl",
        "src/prims/common/gemm/gemm.cl",
    ];
    let geometry = CONV_GEOMETRY;
    for (what, options, kernels) in [
        (
            "conv forward f32, 4-wide gathers one tap per K step, bias, scales, int offsets",
            format!(
                "-DA_DT=F32 -DB_DT=F32 -DC_DT=F32 -DBIAS_DT=F32 -DWITH_BIAS=1 -DSRC_SCALES=1 \
                 -DWEI_SCALES=2 -DDST_SCALES=1 -DPO_ON=1 -DBS_DT=F32 {gpu_tiles} -DDIR=0 \
                 {geometry} -DZP_SRC=0 -DZP_DST=0 -DIDX=int -DCONV_UNIFORM=1 -DA_GATHER=1 \
                 -DB_GATHER=0 -DC_GATHER=0 -DA_K_FAST=1 -DB_N_FAST=1 -DA_VEC4=1 -DB_VEC4=1 \
                 -DALIGNED=1"
            ),
            &["gemm_tiled", "conv_bias_sum"][..],
        ),
        (
            "conv forward u8 x s8 to s8, zero points per channel, scalar gathers",
            format!(
                "-DA_DT=U8 -DB_DT=S8 -DC_DT=S8 -DBIAS_DT=S32 -DWITH_BIAS=1 -DSRC_SCALES=0 \
                 -DWEI_SCALES=0 -DDST_SCALES=0 -DPO_ON=0 -DBS_DT=F32 {small_tiles} -DDIR=0 \
                 {geometry} -DZP_SRC=2 -DZP_DST=1 -DIDX=long -DCONV_UNIFORM=0 -DA_GATHER=1 \
                 -DB_GATHER=1 -DC_GATHER=1 -DA_K_FAST=0 -DB_N_FAST=0 -DA_VEC4=0 -DB_VEC4=0 \
                 -DALIGNED=0"
            ),
            &["gemm_tiled"][..],
        ),
        (
            "conv backward data bf16, one tap per K step",
            format!(
                "-DA_DT=BF16 -DB_DT=BF16 -DC_DT=F32 -DBIAS_DT=F32 -DWITH_BIAS=0 -DSRC_SCALES=0 \
                 -DWEI_SCALES=0 -DDST_SCALES=0 -DPO_ON=0 -DBS_DT=F32 {gpu_tiles} -DDIR=1 \
                 {geometry} -DZP_SRC=0 -DZP_DST=0 -DIDX=int -DCONV_UNIFORM=1 -DA_GATHER=1 \
                 -DB_GATHER=1 -DC_GATHER=0 -DA_K_FAST=1 -DB_N_FAST=0 -DA_VEC4=1 -DB_VEC4=0 \
                 -DALIGNED=0"
            ),
            &["gemm_tiled"][..],
        ),
        (
            "conv backward weights f16, split over depth, bias gradient",
            format!(
                "-DA_DT=F16 -DB_DT=F16 -DC_DT=F32 -DBIAS_DT=F32 -DWITH_BIAS=0 -DSRC_SCALES=0 \
                 -DWEI_SCALES=0 -DDST_SCALES=0 -DPO_ON=0 -DBS_DT=F16 {small_tiles} -DDIR=2 \
                 {geometry} -DZP_SRC=0 -DZP_DST=0 -DIDX=int -DSPLIT_K=1 -DKCHUNK=64 -DKTOT=128 \
                 -DW_DT=F16 -DCONV_UNIFORM=0 -DA_GATHER=0 -DB_GATHER=1 -DC_GATHER=1 \
                 -DA_K_FAST=0 -DB_N_FAST=1 -DA_VEC4=0 -DB_VEC4=0 -DALIGNED=0"
            ),
            &["gemm_tiled", "conv_w_reduce", "conv_bias_sum"][..],
        ),
    ] {
        v.push(Build {
            what,
            files: conv_files,
            source: conv.clone(),
            options,
            kernels,
        });
    }

    // RNN (`rnn/ocl.rs` `source()`): types, `rnn.cl`; no options (sizes,
    // offsets and the cell kind are arguments).
    v.push(Build {
        what: "rnn copies, cells forward and backward, gradient sums",
        files: &[TYPES, "src/prims/rnn/rnn.cl"],
        source: format!("{}{}", dt::CL_TYPES, read("src/prims/rnn/rnn.cl")),
        options: String::new(),
        kernels: &[
            "rnn_copy",
            "rnn_zero",
            "rnn_fwd_cell",
            "rnn_bwd_dh",
            "rnn_bwd_carry",
            "rnn_bwd_cell",
            "rnn_bwd_bias",
            "rnn_bwd_peephole",
            "rnn_bwd_attention",
        ],
    });

    // Reorder, sum and concat (`common/xfer/ocl.rs` `SOURCE`): types, `xfer.cl`;
    // int indices, or long ones for huge tensors.
    let xfer = format!("{}{}", dt::CL_TYPES, read("src/prims/common/xfer/xfer.cl"));
    for (what, options) in [
        ("xfer, int indices", ""),
        ("xfer, long indices", "-DIDX_T=long"),
    ] {
        v.push(Build {
            what,
            files: &[TYPES, "src/prims/common/xfer/xfer.cl"],
            source: xfer.clone(),
            options: options.to_string(),
            kernels: &["xfer", "xfer_tile"],
        });
    }

    // The blocked reorder (`common/xfer/blocked.rs` `SOURCE`): types,
    // `blocked.cl`; a type pair per build, copied as stored (RAW) or
    // converted, int or long indices (tiles as `blocked.rs` sizes them).
    let blocked = format!(
        "{}{}",
        dt::CL_TYPES,
        read("src/prims/common/xfer/blocked.cl")
    );
    for (what, options) in [
        (
            "blocked, f32 as stored",
            "-DSDT=F32 -DDDT=F32 -DALIGNED=1 -DIDX_T=int -DRAW -DGROUP=64 -DTILE_N=512",
        ),
        (
            "blocked, s8 as stored, long",
            "-DSDT=S8 -DDDT=S8 -DALIGNED=1 -DIDX_T=long -DRAW -DGROUP=64 -DTILE_N=512",
        ),
        (
            "blocked, f32 to bf16",
            "-DSDT=F32 -DDDT=BF16 -DALIGNED=1 -DIDX_T=int -DGROUP=64 -DTILE_N=512",
        ),
        (
            "blocked, f16 to u8, long",
            "-DSDT=F16 -DDDT=U8 -DALIGNED=1 -DIDX_T=long -DGROUP=64 -DTILE_N=512",
        ),
        (
            "blocked, s32 to f16",
            "-DSDT=S32 -DDDT=F16 -DALIGNED=1 -DIDX_T=int -DGROUP=64 -DTILE_N=512",
        ),
    ] {
        v.push(Build {
            what,
            files: &[TYPES, "src/prims/common/xfer/blocked.cl"],
            source: blocked.clone(),
            options: options.to_string(),
            kernels: &["blk_runs", "blk_tiles"],
        });
    }

    // Shuffle (`shuffle/ocl.rs`): `shuffle.cl` alone. A 4x8 row-major tensor
    // shuffled along its rows (groups of 2), and along its 8 columns (groups
    // of 4), scalar and with vectors of 4.
    let rows = "-DOFF_OUT=(0+(e/8)*8+(e%8)*1) -DOFF_IN=(0+(((e/8)%2)*2+(e/8)/2)*8+(e%8)*1)";
    let cols = "-DOFF_OUT=(0+(e/8)*8+(e%8)*1) -DOFF_IN=(0+(e/8)*8+(((e%8)%2)*4+(e%8)/2)*1)";
    for (what, options) in [
        (
            "shuffle, vectors of 4 uint",
            format!("-DT=uint -DVEC=4 -DIDX_T=int -DN=8 {rows}"),
        ),
        (
            "shuffle, vectors of 8 uchar",
            format!("-DT=uchar -DVEC=8 -DIDX_T=long -DN=4 {rows}"),
        ),
        (
            "shuffle, scalar ushort on the axis",
            format!("-DT=ushort -DVEC=1 -DIDX_T=int -DN=32 {cols}"),
        ),
    ] {
        v.push(Build {
            what,
            files: &["src/prims/shuffle/shuffle.cl"],
            source: read("src/prims/shuffle/shuffle.cl"),
            options,
            kernels: &["shuffle_permute"],
        });
    }

    // LRN (`lrn/ocl.rs`): types, `lrn.cl`. A 2x7x4x5 row-major tensor (a
    // backward diff_dst channels-last), across and within, with an empty
    // window too.
    let lrn = format!("{}{}", dt::CL_TYPES, read("src/prims/lrn/lrn.cl"));
    let lrn_files: &[&str] = &[TYPES, "src/prims/lrn/lrn.cl"];
    let shape = "-DNDIMS=4 -DN=280 -DDIMS_INIT=2,7,4,5 -DDIV_INIT=140,20,5,1 -DSX_INIT=140,20,5,1 \
                 -DX_OFF0=0 -DSO_INIT=140,20,5,1 -DO_OFF0=0";
    for (what, options, kernels) in [
        (
            "lrn forward across, f32",
            format!("-DDT=F32 {shape} -DACROSS=1 -DREACH=2 -DWIN=5 -DWIN_TOTAL=25"),
            &["lrn_fwd"][..],
        ),
        (
            "lrn forward within, bf16, no window",
            format!("-DDT=BF16 {shape} -DACROSS=0 -DREACH=-1 -DWIN=1 -DWIN_TOTAL=1"),
            &["lrn_fwd"][..],
        ),
        (
            "lrn backward within, f16",
            format!(
                "-DDT=F16 {shape} -DACROSS=0 -DREACH=1 -DWIN=3 -DWIN_TOTAL=9 -DBWD \
                 -DSG_INIT=140,1,35,7 -DG_OFF0=0"
            ),
            &["lrn_bwd_terms", "lrn_bwd"][..],
        ),
    ] {
        v.push(Build {
            what,
            files: lrn_files,
            source: lrn.clone(),
            options,
            kernels,
        });
    }
    v
}

/// The builds only NVIDIA devices of compute capability 8.0 or later take
/// (inline PTX; the wgmma ones 9.0, through the arch-specific PTX route):
/// the tensor-core GEMM (`common/gemm/ocl.rs` `mma_source()`, `new_mma`,
/// `mma_variant` and `MmaTiles` give the options).
/// A convolution's problem as `convolution/ocl.rs` bakes it in: 2 x 16 x 8 x
/// 8 -> 32 channels, 3x3, stride 1, padding 1, channels last.
const CONV_GEOMETRY: &str = "-DG=1 -DIC=16 -DOC=32 -DMB=2 -DID=1 -DIH=8 -DIW=8 -DOD=1 -DOH=8 \
     -DOW=8 -DKD=1 -DKH=3 -DKW=3 -DSD=1 -DSH=1 -DSW=1 -DDD=1 -DDH=1 -DDW=1 -DPD=0 -DPH=1 -DPW=1 \
     -DX_OFF=0 -DX_N=1024 -DX_C=1 -DX_D=0 -DX_H=128 -DX_W=16 -DY_OFF=0 -DY_N=2048 -DY_C=1 \
     -DY_D=0 -DY_H=256 -DY_W=32 -DW_OFF=0 -DW_G=4608 -DW_OC=1 -DW_IC=32 -DW_KD=0 -DW_KH=1536 \
     -DW_KW=512 -DNSP=2 -DPO_NB=2";

fn nvidia_builds() -> Vec<Build> {
    let post_ops = PostOpsPlan::none().cl_source();
    let source = format!(
        "{}{post_ops}{}{}",
        dt::CL_TYPES,
        read("src/prims/common/gemm/gemm.cl"),
        read("src/prims/common/gemm/gemm_mma.cl")
    );
    let files: &[&str] = &[
        TYPES,
        BINARY_ALG,
        ELTWISE_ALG,
        "src/prims/common/gemm/gemm.cl",
        "src/prims/common/gemm/gemm_mma.cl",
    ];
    let mut v = Vec::new();
    for (what, options, kernels) in [
        (
            "gemm_mma f16, 8-wide aligned loads, bias and scales",
            "-DA_DT=F16 -DB_DT=F16 -DC_DT=F32 -DBIAS_DT=F32 -DWITH_BIAS=1 -DSRC_SCALES=1 \
             -DWEI_SCALES=2 -DDST_SCALES=1 -DPO_ON=0 -DMMA_BF16=0 -DMMA_TF32=0 -DA_K_FAST=1 -DB_N_FAST=1 \
             -DA_VEC8=1 -DB_VEC8=1 -DALIGNED=1 -DMMA_WARPS_M=2 -DMMA_WARPS_N=2 -DMMA_WN=64 \
             -DMMA_STAGES=3",
            &["gemm_mma", "mma_probe"][..],
        ),
        (
            "gemm_mma f16, k-fastest B tiles, cp.async",
            "-DA_DT=F16 -DB_DT=F16 -DC_DT=F16 -DBIAS_DT=F32 -DWITH_BIAS=0 -DSRC_SCALES=0 \
             -DWEI_SCALES=0 -DDST_SCALES=0 -DPO_ON=0 -DMMA_BF16=0 -DMMA_TF32=0 -DA_K_FAST=1 -DB_N_FAST=0 \
             -DA_VEC8=1 -DB_VEC8=1 -DB_KN=1 -DALIGNED=1 -DMMA_WARPS_M=2 -DMMA_WARPS_N=2 -DMMA_WN=64 \
             -DMMA_STAGES=3",
            &["gemm_mma"][..],
        ),
        (
            "gemm_mma u8 x s8 -> s32, k-fastest B tiles, cp.async",
            "-DA_DT=U8 -DB_DT=S8 -DC_DT=S32 -DBIAS_DT=F32 -DWITH_BIAS=0 -DSRC_SCALES=0 \
             -DWEI_SCALES=0 -DDST_SCALES=0 -DPO_ON=0 -DMMA_INT8=1 -DMMA_A_U8=1 -DMMA_B_U8=0 \
             -DACC_INT=1 -DGZP_A=0 -DGZP_B=0 -DGZP_C=0 -DC_EXACT=1 -DA_K_FAST=1 -DB_N_FAST=0 \
             -DA_VEC8=1 -DB_VEC8=1 -DB_KN=1 -DALIGNED=1 -DMMA_WARPS_M=2 -DMMA_WARPS_N=2 -DMMA_WN=64 \
             -DMMA_STAGES=3",
            &["gemm_mma", "mma_probe"][..],
        ),
        (
            "gemm_mma s8 x u8 -> s8, element loads, scales and a dst zero point",
            "-DA_DT=S8 -DB_DT=U8 -DC_DT=S8 -DBIAS_DT=F32 -DWITH_BIAS=1 -DSRC_SCALES=1 \
             -DWEI_SCALES=2 -DDST_SCALES=1 -DPO_ON=0 -DMMA_INT8=1 -DMMA_A_U8=0 -DMMA_B_U8=1 \
             -DACC_INT=1 -DGZP_A=0 -DGZP_B=0 -DGZP_C=1 -DC_EXACT=0 -DA_K_FAST=1 -DB_N_FAST=1 \
             -DA_VEC8=1 -DB_VEC8=0 -DB_KN=1 -DALIGNED=1 -DMMA_WARPS_M=2 -DMMA_WARPS_N=4 -DMMA_WN=32 \
             -DMMA_STAGES=2",
            &["gemm_mma"][..],
        ),
        (
            "gemm_mma u8 x s8 -> s32, 4-byte loads of an n-fastest B (B_N4)",
            "-DA_DT=U8 -DB_DT=S8 -DC_DT=S32 -DBIAS_DT=F32 -DWITH_BIAS=0 -DSRC_SCALES=0 \
             -DWEI_SCALES=0 -DDST_SCALES=0 -DPO_ON=0 -DMMA_INT8=1 -DMMA_A_U8=1 -DMMA_B_U8=0 \
             -DACC_INT=1 -DGZP_A=0 -DGZP_B=0 -DGZP_C=0 -DC_EXACT=1 -DA_K_FAST=1 -DB_N_FAST=1 \
             -DA_VEC8=1 -DB_VEC8=0 -DB_KN=1 -DB_N4=1 -DALIGNED=1 -DMMA_WARPS_M=2 -DMMA_WARPS_N=4 \
             -DMMA_WN=32 -DMMA_STAGES=2",
            &["gemm_mma"][..],
        ),
        (
            "gemm_mma bf16, transposed operands, post-ops over a batch",
            "-DA_DT=BF16 -DB_DT=BF16 -DC_DT=BF16 -DBIAS_DT=F32 -DWITH_BIAS=0 -DSRC_SCALES=0 \
             -DWEI_SCALES=1 -DDST_SCALES=0 -DPO_ON=1 -DMMA_BF16=1 -DA_K_FAST=0 -DB_N_FAST=0 \
             -DA_VEC8=0 -DB_VEC8=0 -DALIGNED=0 -DPO_NB=1 -DPO_BATCH_DIMS=2",
            &["gemm_mma"][..],
        ),
        (
            "gemm_mma f32 through tf32, 16-byte loads, post-ops",
            "-DA_DT=F32 -DB_DT=F32 -DC_DT=F32 -DBIAS_DT=F32 -DWITH_BIAS=1 -DSRC_SCALES=0 \
             -DWEI_SCALES=0 -DDST_SCALES=0 -DPO_ON=1 -DMMA_BF16=0 -DMMA_TF32=1 -DA_K_FAST=1 \
             -DB_N_FAST=1 -DA_VEC8=1 -DB_VEC8=1 -DALIGNED=1 -DMMA_WARPS_M=2 -DMMA_WARPS_N=2 \
             -DMMA_WN=64 -DMMA_STAGES=3",
            &["gemm_mma", "mma_probe"][..],
        ),
        (
            "gemm_mma f16 on wgmma (sm_90a), MN-major B, 128 x 256 blocks",
            "-DA_DT=F16 -DB_DT=F16 -DC_DT=F16 -DBIAS_DT=F32 -DWITH_BIAS=1 -DSRC_SCALES=0 \
             -DWEI_SCALES=0 -DDST_SCALES=0 -DPO_ON=0 -DMMA_BF16=0 -DMMA_TF32=0 -DA_K_FAST=1 -DB_N_FAST=1 \
             -DA_VEC8=1 -DB_VEC8=1 -DALIGNED=1 -DMMA_WGMMA=1 -DWGM_WGS=2 -DWGM_I=1 -DWGM_N=256 \
             -DMMA_STAGES=5 -DWGM_DEPTH=2 -DDNNL_PTX_ARCH_SPECIFIC=1",
            &["gemm_mma", "mma_probe"][..],
        ),
        (
            "gemm_mma bf16 on wgmma (sm_90a), K-major B, 128 x 128 blocks",
            "-DA_DT=BF16 -DB_DT=BF16 -DC_DT=F32 -DBIAS_DT=F32 -DWITH_BIAS=0 -DSRC_SCALES=0 \
             -DWEI_SCALES=0 -DDST_SCALES=0 -DPO_ON=0 -DMMA_BF16=1 -DMMA_TF32=0 -DA_K_FAST=1 -DB_N_FAST=0 \
             -DA_VEC8=1 -DB_VEC8=1 -DB_KN=1 -DALIGNED=1 -DMMA_WGMMA=1 -DWGM_WGS=1 -DWGM_I=2 \
             -DWGM_N=128 -DMMA_STAGES=5 -DWGM_DEPTH=2 -DDNNL_PTX_ARCH_SPECIFIC=1",
            &["gemm_mma", "mma_probe"][..],
        ),
        (
            "gemm_mma f32 through tf32 on wgmma (sm_90a), K-major B",
            "-DA_DT=F32 -DB_DT=F32 -DC_DT=F32 -DBIAS_DT=F32 -DWITH_BIAS=0 -DSRC_SCALES=0 \
             -DWEI_SCALES=0 -DDST_SCALES=0 -DPO_ON=1 -DMMA_BF16=0 -DMMA_TF32=1 -DA_K_FAST=1 \
             -DB_N_FAST=0 -DA_VEC8=1 -DB_VEC8=1 -DB_KN=1 -DALIGNED=1 -DMMA_WGMMA=1 -DWGM_WGS=2 \
             -DWGM_I=1 -DWGM_N=256 -DMMA_STAGES=5 -DWGM_DEPTH=2 -DDNNL_PTX_ARCH_SPECIFIC=1",
            &["gemm_mma", "mma_probe"][..],
        ),
        (
            "gemm_mma u8 x s8 -> s32 on wgmma (sm_90a), one group in flight",
            "-DA_DT=U8 -DB_DT=S8 -DC_DT=S32 -DBIAS_DT=F32 -DWITH_BIAS=0 -DSRC_SCALES=0 \
             -DWEI_SCALES=0 -DDST_SCALES=0 -DPO_ON=0 -DMMA_INT8=1 -DMMA_A_U8=1 -DMMA_B_U8=0 \
             -DACC_INT=1 -DGZP_A=0 -DGZP_B=0 -DGZP_C=0 -DC_EXACT=1 -DA_K_FAST=1 -DB_N_FAST=0 \
             -DA_VEC8=1 -DB_VEC8=1 -DB_KN=1 -DALIGNED=1 -DMMA_WGMMA=1 -DWGM_WGS=1 -DWGM_I=2 \
             -DWGM_N=128 -DMMA_STAGES=3 -DWGM_DEPTH=1 -DDNNL_PTX_ARCH_SPECIFIC=1",
            &["gemm_mma", "mma_probe"][..],
        ),
        (
            "gemm_mma f32 through tf32, element loads",
            "-DA_DT=F32 -DB_DT=F32 -DC_DT=F16 -DBIAS_DT=F32 -DWITH_BIAS=0 -DSRC_SCALES=0 \
             -DWEI_SCALES=0 -DDST_SCALES=0 -DPO_ON=0 -DMMA_BF16=0 -DMMA_TF32=1 -DA_K_FAST=0 \
             -DB_N_FAST=1 -DA_VEC8=0 -DB_VEC8=0 -DALIGNED=0",
            &["gemm_mma"][..],
        ),
    ] {
        v.push(Build {
            what,
            files,
            source: source.clone(),
            options: options.to_string(),
            kernels,
        });
    }

    // Convolutions on the tensor cores (`convolution/ocl.rs` `build`,
    // `mma_source_with`): `conv.cl` before `gemm.cl` and `gemm_mma.cl`,
    // element loads through `MMA_A_AT` / `MMA_B_AT`, mma.sync's
    // register-staged tiles.
    let conv = format!(
        "{}{post_ops}{}{}{}",
        dt::CL_TYPES,
        read("src/prims/convolution/conv.cl"),
        read("src/prims/common/gemm/gemm.cl"),
        read("src/prims/common/gemm/gemm_mma.cl")
    );
    let conv_files: &[&str] = &[
        TYPES,
        BINARY_ALG,
        ELTWISE_ALG,
        "src/prims/convolution/conv.cl",
        "src/prims/common/gemm/gemm.cl",
        "src/prims/common/gemm/gemm_mma.cl",
    ];
    let tiled = "-DWG_M=16 -DWG_N=16 -DRM=8 -DRN=8 -DTK=16 -DVLDS=1";
    let mma_tiles = format!(
        "{tiled} -DA_VEC8=0 -DB_VEC8=0 -DB_KN=0 -DB_N4=0 -DMMA_WARPS_M=2 -DMMA_WARPS_N=4 \
         -DMMA_WN=32 -DMMA_STAGES=2"
    );
    // Channels contiguous in sixteens of bytes: A's runs gathered 16 bytes
    // at a time (cp.async), B plain.
    let forward_f16 = format!(
        "-DA_DT=F16 -DB_DT=F16 -DC_DT=F16 -DBIAS_DT=F32 -DWITH_BIAS=1 -DSRC_SCALES=0 \
         -DWEI_SCALES=0 -DDST_SCALES=0 -DPO_ON=1 -DBS_DT=F32 {tiled} -DDIR=0 {CONV_GEOMETRY} \
         -DZP_SRC=0 -DZP_DST=0 -DIDX=int -DCONV_UNIFORM=1 -DA_GATHER=1 -DB_GATHER=0 \
         -DC_GATHER=0 -DA_K_FAST=1 -DB_N_FAST=1 -DA_VEC4=1 -DB_VEC4=1 -DALIGNED=1 \
         -DMMA_BF16=0 -DMMA_TF32=0 -DA_VEC8=1 -DB_VEC8=1 -DB_KN=0 -DB_N4=0"
    );
    for (what, options) in [
        (
            "conv forward f16 on mma.sync, 16-byte gathers by cp.async",
            format!("{forward_f16} -DMMA_WARPS_M=2 -DMMA_WARPS_N=2 -DMMA_WN=64 -DMMA_STAGES=3"),
        ),
        (
            "conv backward data f16 on mma.sync, both operands gathered 16 bytes at a time",
            format!(
                "-DA_DT=F16 -DB_DT=F16 -DC_DT=F16 -DBIAS_DT=F32 -DWITH_BIAS=0 -DSRC_SCALES=0 \
                 -DWEI_SCALES=0 -DDST_SCALES=0 -DPO_ON=0 -DBS_DT=F32 {tiled} -DDIR=1 \
                 {CONV_GEOMETRY} -DZP_SRC=0 -DZP_DST=0 -DIDX=int -DCONV_UNIFORM=1 -DA_GATHER=1 \
                 -DB_GATHER=1 -DC_GATHER=0 -DA_K_FAST=1 -DB_N_FAST=0 -DA_VEC4=1 -DB_VEC4=0 \
                 -DALIGNED=1 -DMMA_BF16=0 -DMMA_TF32=0 -DA_VEC8=1 -DB_VEC8=1 -DB_KN=1 -DB_N4=0 \
                 -DMMA_WARPS_M=2 -DMMA_WARPS_N=2 -DMMA_WN=64 -DMMA_STAGES=3"
            ),
        ),
        (
            "conv forward f16 on wgmma (sm_90a), 16-byte gathers by cp.async",
            format!(
                "{forward_f16} -DMMA_WGMMA=1 -DWGM_WGS=2 -DWGM_I=1 -DWGM_N=256 -DMMA_STAGES=5 \
                 -DWGM_DEPTH=2 -DDNNL_PTX_ARCH_SPECIFIC=1"
            ),
        ),
        (
            "conv forward f16 on mma.sync, gathered A, bias, post-ops",
            format!(
                "-DA_DT=F16 -DB_DT=F16 -DC_DT=F16 -DBIAS_DT=F32 -DWITH_BIAS=1 -DSRC_SCALES=0 \
                 -DWEI_SCALES=2 -DDST_SCALES=0 -DPO_ON=1 -DBS_DT=F32 {mma_tiles} -DDIR=0 \
                 {CONV_GEOMETRY} -DZP_SRC=0 -DZP_DST=0 -DIDX=int -DCONV_UNIFORM=1 -DA_GATHER=1 \
                 -DB_GATHER=0 -DC_GATHER=0 -DA_K_FAST=1 -DB_N_FAST=1 -DA_VEC4=1 -DB_VEC4=1 \
                 -DALIGNED=1 -DMMA_BF16=0 -DMMA_TF32=0"
            ),
        ),
        (
            "conv backward data f32 through tf32 on mma.sync, every operand gathered",
            format!(
                "-DA_DT=F32 -DB_DT=F32 -DC_DT=F32 -DBIAS_DT=F32 -DWITH_BIAS=0 -DSRC_SCALES=0 \
                 -DWEI_SCALES=0 -DDST_SCALES=0 -DPO_ON=0 -DBS_DT=F32 {mma_tiles} -DDIR=1 \
                 {CONV_GEOMETRY} -DZP_SRC=0 -DZP_DST=0 -DIDX=long -DCONV_UNIFORM=0 -DA_GATHER=1 \
                 -DB_GATHER=1 -DC_GATHER=1 -DA_K_FAST=0 -DB_N_FAST=0 -DA_VEC4=0 -DB_VEC4=0 \
                 -DALIGNED=0 -DMMA_BF16=0 -DMMA_TF32=1"
            ),
        ),
        (
            "conv backward weights f16 on mma.sync, split over depth, columns tap-major, \
             B's channels 16 bytes at a time",
            format!(
                "-DA_DT=F16 -DB_DT=F16 -DC_DT=F32 -DBIAS_DT=F32 -DWITH_BIAS=0 -DSRC_SCALES=0 \
                 -DWEI_SCALES=0 -DDST_SCALES=0 -DPO_ON=0 -DBS_DT=F16 {tiled} -DDIR=2 \
                 {CONV_GEOMETRY} -DZP_SRC=0 -DZP_DST=0 -DIDX=int -DSPLIT_K=1 -DKCHUNK=64 \
                 -DKTOT=128 -DW_DT=F16 -DCONV_UNIFORM=0 -DCOL_KI=1 -DA_GATHER=0 -DB_GATHER=1 \
                 -DC_GATHER=1 -DA_K_FAST=0 -DB_N_FAST=1 -DA_VEC4=0 -DB_VEC4=0 -DALIGNED=0 \
                 -DMMA_BF16=0 -DMMA_TF32=0 -DA_VEC8=0 -DB_VEC8=1 -DB_KN=0 -DB_N4=0 \
                 -DMMA_WARPS_M=2 -DMMA_WARPS_N=4 -DMMA_WN=32 -DMMA_STAGES=2"
            ),
        ),
        (
            "conv backward weights bf16 on wgmma (sm_90a), A M-major and B N-major, both \
             gathered 16 bytes at a time",
            format!(
                "-DA_DT=BF16 -DB_DT=BF16 -DC_DT=BF16 -DBIAS_DT=F32 -DWITH_BIAS=0 \
                 -DSRC_SCALES=0 -DWEI_SCALES=0 -DDST_SCALES=0 -DPO_ON=0 -DBS_DT=BF16 {tiled} \
                 -DDIR=2 {CONV_GEOMETRY} -DZP_SRC=0 -DZP_DST=0 -DIDX=int -DCONV_UNIFORM=0 \
                 -DCOL_KI=1 -DA_GATHER=0 -DB_GATHER=1 -DC_GATHER=1 -DA_K_FAST=0 -DB_N_FAST=1 \
                 -DA_VEC4=0 -DB_VEC4=0 -DALIGNED=0 -DMMA_BF16=1 -DMMA_TF32=0 -DA_VEC8=1 \
                 -DB_VEC8=1 -DB_KN=0 -DB_N4=0 -DA_MN=1 -DMMA_WGMMA=1 -DWGM_WGS=1 -DWGM_I=2 \
                 -DWGM_N=128 -DMMA_STAGES=5 -DWGM_DEPTH=2 -DDNNL_PTX_ARCH_SPECIFIC=1"
            ),
        ),
    ] {
        v.push(Build {
            what,
            files: conv_files,
            source: conv.clone(),
            options,
            kernels: &["gemm_mma", "gemm_tiled"][..],
        });
    }
    v
}

/// Every `.cl` file under `src/` is part of some build, and each build holds
/// the files it names.
#[test]
fn every_cl_file_has_a_build() {
    let mut on_disk = BTreeSet::new();
    cl_files(&root().join("src"), &mut on_disk);
    assert!(!on_disk.is_empty(), "no .cl file found under src/");
    let mut builds = builds();
    builds.extend(nvidia_builds());
    if let Some(dir) = std::env::var_os("OCL_SOURCES_DUMP") {
        dump(Path::new(&dir), &builds);
    }
    let mut covered = BTreeSet::new();
    for b in &builds {
        for &file in b.files {
            let text = read(file);
            assert!(
                b.source.contains(text.trim()),
                "build '{}' names {file} but its source does not contain it",
                b.what
            );
            covered.insert(file.to_string());
        }
    }
    let missing: Vec<_> = on_disk.difference(&covered).collect();
    assert!(
        missing.is_empty(),
        "OpenCL C files no build of tests/ocl_sources.rs contains (add one): {missing:?}"
    );
    let gone: Vec<_> = covered.difference(&on_disk).collect();
    assert!(
        gone.is_empty(),
        "builds name files not under src/: {gone:?}"
    );
}

/// Writes each build as `<n>.cl` and `<n>.options` (one line) into `dir`,
/// and `index.txt` (n and what), for compilers this test cannot reach
/// (clang's `nvptx64-nvidia-nvcl` target checks the NVIDIA builds' syntax
/// on a machine without an NVIDIA GPU).
fn dump(dir: &Path, builds: &[Build]) {
    std::fs::create_dir_all(dir).expect("OCL_SOURCES_DUMP directory");
    let mut index = String::new();
    for (n, b) in builds.iter().enumerate() {
        std::fs::write(dir.join(format!("{n}.cl")), &b.source).expect("write source");
        std::fs::write(dir.join(format!("{n}.options")), &b.options).expect("write options");
        index += &format!("{n} {}\n", b.what);
    }
    std::fs::write(dir.join("index.txt"), index).expect("write index");
}

/// Builds every program of [`builds`] on each OpenCL device and checks its
/// kernels; a failed build reports its log. All failures are listed at once.
#[test]
fn every_cl_file_builds_on_each_device() {
    let Some(devices) = ocl_common::test_devices("every_cl_file_builds_on_each_device") else {
        return;
    };
    let (portable, nvidia) = (builds(), nvidia_builds());
    let mut failures = Vec::new();
    for device in &devices {
        let info = device.info().expect("device info");
        let sm80 = info
            .nv_compute_capability
            .is_some_and(|(major, _)| major >= 8);
        let sm90 = info.nv_compute_capability == Some((9, 0));
        let mut builds: Vec<&Build> = portable.iter().collect();
        if sm80 {
            let (wgmma, sync): (Vec<&Build>, Vec<&Build>) = nvidia
                .iter()
                .partition(|b| b.options.contains("DNNL_PTX_ARCH_SPECIFIC"));
            builds.extend(sync);
            if sm90 {
                builds.extend(wgmma);
            } else {
                println!(
                    "ocl_sources: {}: skipping the {} wgmma builds (sm_90a: compute capability \
                     9.0 only)",
                    info.name,
                    wgmma.len()
                );
            }
        } else {
            println!(
                "ocl_sources: {}: skipping the {} builds with inline PTX (NVIDIA compute \
                 capability 8.0 or later only)",
                info.name,
                nvidia.len()
            );
        }
        println!(
            "ocl_sources: {} ({}, driver {}): {} builds",
            info.name,
            info.platform_name,
            info.driver_version,
            builds.len()
        );
        let context = Context::create(device).expect("context");
        for b in builds {
            match Program::build_source(&context, device, &b.source, &b.options) {
                Ok(program) => {
                    let names = program.kernel_names().expect("kernel names");
                    for k in b.kernels {
                        if !names.iter().any(|n| n == k) {
                            failures.push(format!(
                                "{}: {}: kernel {k} missing (has {names:?})",
                                info.name, b.what
                            ));
                        }
                    }
                }
                Err(e) => failures.push(format!(
                    "{}: {} (options `{}`): {e}",
                    info.name, b.what, b.options
                )),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
