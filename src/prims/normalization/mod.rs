//! Batch, layer and group normalization, forward and backward
//! (`dnnl_{batch,layer,group}_normalization_{forward,backward}_primitive_desc_create`).
//!
//! Layer: prims. The three kinds share one core, [`NormOp`]: every tensor is
//! seen as `(n, c, sp)` (the *canonical view*), statistics (mean, variance)
//! are kept per *stat* `s`, and scale / shift per channel `c`:
//! - batch: `n` = dim 0, `c` = dim 1, `sp` = the spatial dims; one stat per
//!   channel (`s = c`), reduced over `n` and `sp`;
//! - layer: `n` = every dim but the last, `c` = the last dim, `sp` = one; one
//!   stat per `n` (`s = n`), reduced over `c`;
//! - group: as batch, with channels in `G` groups; one stat per `(n, g)`
//!   (`s = n * G + c / (C / G)`), reduced over the group's channels and `sp`.
//!
//! So `s = per_n ? n * G + c / CG : c` with `(per_n, G, CG)` = `(false, C, 1)`,
//! `(true, 1, C)` and `(true, groups, C / groups)`. Forward:
//! `y = scale[c] * (x - mean[s]) / sqrt(var[s] + eps) + shift[c]`
//! (plus `src_1` with `fuse_norm_add_relu`, then ReLU with the fused flags or
//! the ReLU post-op); the statistics are computed (mean, then the mean square
//! of `x - mean`: two passes) unless `use_global_stats`. Backward, with
//! `dd` the diff_dst masked by the workspace where ReLU is fused and
//! `xhat = (x - mean) / sqrt(var + eps)`: `diff_shift[c] = sum dd`,
//! `diff_scale[c] = sum dd * xhat` (over `n` and `sp`) and
//! `diff_src = (scale*dd - A[s]/M - xhat * B[s]/M) / sqrt(var + eps)`, where
//! `A[s]`, `B[s]` are the sums of `scale*dd` and `scale*dd*xhat` over the stat's
//! `M` elements (left out with `use_global_stats`). Layer norm's
//! `rms_norm` takes the mean as 0 (the variance is then the mean square)
//! and keeps both sums in backward, as Intel's library computes it (its
//! `@ref` run proves it), although the exact gradient of `x / rms(x)` has
//! no `A` term.
//!
//! Implementations: `cpu:*` (native Rust over the host's threads, sums in
//! f64) and `ocl:*` (`normalization.cl`: statistics by a work-group per stat
//! when a stat has few elements, else a two-level reduction over chunks,
//! partial sums in the scratchpad, then a finish; element-wise normalization).
//!
//! Layouts: any blocked layout without padding (plain strided layouts,
//! permuted ones, `nChw16c` with `C % 16 == 0`); layouts with padding are
//! unimplemented. `any` destinations (and diff_src / diff_dst) take the
//! layout of src. The workspace of the fused ReLU is `u8`, one byte per
//! element of src (as Intel's CPU library reports it).

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

mod cpu;
mod ocl;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::abi::*;
use crate::core::attr::PostOp;
use crate::core::attr::{AttrPart, AttrSupport, PrimitiveAttr};
use crate::core::error::{Error, Result};
use crate::core::key::KeyWriter;
use crate::core::memory_desc::{Format, MAX_NDIMS, MemoryDesc};
use crate::core::names;
use crate::core::primitive::{Impl, Kind, OpDesc, any_op, dims_str, mb_ic_spatial};
use crate::prims::common::dt::Elem;
use crate::prims::common::layout::{Layout, resolve_any};
use crate::prims::common::post_ops::PostOpsPlan;

/// The normalization flags (`dnnl_normalization_flags_t`).
pub const USE_GLOBAL_STATS: u32 = 0x1;
pub const USE_SCALE: u32 = 0x2;
pub const USE_SHIFT: u32 = 0x4;
pub const FUSE_NORM_RELU: u32 = 0x8;
pub const FUSE_NORM_ADD_RELU: u32 = 0x10;
pub const RMS_NORM: u32 = 0x20;

/// Which of the three kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Batch,
    Layer,
    Group,
}

impl Family {
    const fn name(self) -> &'static str {
        match self {
            Family::Batch => "batch normalization",
            Family::Layer => "layer normalization",
            Family::Group => "group normalization",
        }
    }

    fn kind(self) -> dnnl_primitive_kind_t {
        match self {
            Family::Batch => dnnl_batch_normalization,
            Family::Layer => dnnl_layer_normalization,
            Family::Group => dnnl_group_normalization,
        }
    }
}

/// Where the canonical `(n, c, sp)` indices sit among a tensor's dimensions.
#[derive(Clone, Debug)]
pub(crate) struct Axes {
    /// The dimensions of `n`, outermost first (row-major numbering).
    pub n: Vec<usize>,
    /// The dimension of `c`.
    pub c: usize,
    /// The dimensions of `sp`, outermost first.
    pub sp: Vec<usize>,
}

/// The canonical view's sizes and the stat mapping.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Geometry {
    pub n: i64,
    pub c: i64,
    pub sp: i64,
    /// Stats per `n` (layer, group) or per channel (batch).
    pub per_n: bool,
    /// Groups per `n` (channels per stat: `cg`).
    pub g: i64,
    pub cg: i64,
}

impl Geometry {
    /// Number of stats.
    pub fn stats(&self) -> i64 {
        if self.per_n { self.n * self.g } else { self.c }
    }

    /// Elements per stat.
    pub fn per_stat(&self) -> i64 {
        if self.per_n {
            self.cg * self.sp
        } else {
            self.n * self.sp
        }
    }

    /// The stat of `(n, c)`.
    pub fn stat(&self, n: i64, c: i64) -> i64 {
        if self.per_n {
            n * self.g + c / self.cg
        } else {
            c
        }
    }

    pub fn nelems(&self) -> i64 {
        self.n * self.c * self.sp
    }
}

/// A normalization of any of the three kinds, either direction.
pub struct NormOp {
    family: Family,
    prop_kind: dnnl_prop_kind_t,
    flags: u32,
    epsilon: f32,
    /// Group norm's groups (0 otherwise).
    groups: i64,
    backward: bool,
    geometry: Geometry,
    axes: Axes,
    /// Execution arguments and their descriptors.
    mds: Vec<(i32, Arc<MemoryDesc>)>,
    inputs: Vec<i32>,
    outputs: Vec<i32>,
    /// The ReLU applied to the forward result: its negative slope (0 for
    /// the fused flags), `None` without.
    relu: Option<f32>,
    /// Whether src / dst carry scales (layer and group norm).
    scales: [bool; 2],
    /// Post-ops other than batch norm's ReLU (layer and group norm).
    post_ops: PostOpsPlan,
}

/// The data tensors whose argument depends on the direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// dst (forward) / diff_src (backward).
    Out,
    /// src_1 (forward, add-ReLU) / diff_src_1 (backward).
    Add,
}

impl NormOp {
    pub fn family(&self) -> Family {
        self.family
    }
    pub fn flags(&self) -> u32 {
        self.flags
    }
    pub fn epsilon(&self) -> f32 {
        self.epsilon
    }
    pub fn is_backward(&self) -> bool {
        self.backward
    }
    pub(crate) fn geometry(&self) -> &Geometry {
        &self.geometry
    }
    pub(crate) fn axes(&self) -> &Axes {
        &self.axes
    }
    pub fn relu(&self) -> Option<f32> {
        self.relu
    }
    pub fn scales(&self) -> [bool; 2] {
        self.scales
    }
    pub fn has(&self, flag: u32) -> bool {
        self.flags & flag != 0
    }
    /// RMS normalization (layer norm): no mean, the mean square for variance.
    pub fn rms(&self) -> bool {
        self.has(RMS_NORM)
    }
    pub fn post_ops(&self) -> &PostOpsPlan {
        &self.post_ops
    }
    /// The descriptor of execution argument `arg`, post-op operands included.
    fn any_arg_md(&self, arg: i32) -> Option<&Arc<MemoryDesc>> {
        self.arg(arg).or_else(|| self.post_ops.arg_md(arg))
    }
    /// Whether the statistics are inputs (global) rather than computed.
    pub fn global_stats(&self) -> bool {
        self.has(USE_GLOBAL_STATS)
    }
    /// Whether forward writes mean and variance.
    pub fn writes_stats(&self) -> bool {
        !self.backward && !self.global_stats() && self.prop_kind == dnnl_forward_training
    }
    /// Whether forward writes, or backward reads, the workspace.
    pub fn uses_workspace(&self) -> bool {
        self.arg(DNNL_ARG_WORKSPACE).is_some()
    }
    /// Whether the fused ReLU adds src_1 first (forward) or writes
    /// diff_src_1 (backward).
    pub fn add_relu(&self) -> bool {
        self.has(FUSE_NORM_ADD_RELU)
    }
    /// Backward: whether diff_scale / diff_shift are written.
    pub fn writes_diff_scale(&self) -> bool {
        self.outputs.contains(&DNNL_ARG_DIFF_SCALE)
    }
    pub fn writes_diff_shift(&self) -> bool {
        self.outputs.contains(&DNNL_ARG_DIFF_SHIFT)
    }
    /// Whether argument `arg` is one the primitive reads or writes.
    pub fn uses_arg(&self, arg: i32) -> bool {
        self.inputs.contains(&arg) || self.outputs.contains(&arg)
    }

    /// The descriptor of execution argument `arg`, when the op has it.
    pub fn arg(&self, arg: i32) -> Option<&Arc<MemoryDesc>> {
        self.mds.iter().find(|m| m.0 == arg).map(|m| &m.1)
    }

    /// The argument of a data tensor's role.
    pub(crate) fn role_arg(&self, role: Role) -> i32 {
        match (role, self.backward) {
            (Role::Out, false) => DNNL_ARG_DST,
            (Role::Out, true) => DNNL_ARG_DIFF_SRC,
            (Role::Add, false) => DNNL_ARG_SRC_1,
            (Role::Add, true) => DNNL_ARG_DIFF_SRC_1,
        }
    }

    /// The layout of argument `arg` (decoded when asked: cheap).
    pub(crate) fn layout(&self, arg: i32) -> Option<Layout> {
        self.arg(arg).and_then(|md| Layout::new(md).ok())
    }
}

fn dt_name(dt: dnnl_data_type_t) -> &'static str {
    names::enum_str(dnnl_data_type_t::ALL, dt, "dnnl_", "?")
}

/// Checks a data tensor: dimensions as `reference`'s, a layout the kernels
/// take (blocked without padding, no run-time values).
fn check_data(md: &MemoryDesc, what: &str, reference: &MemoryDesc) -> Result<()> {
    if md.is_zero() {
        return Err(Error::invalid(format!(
            "the {what} memory descriptor has no dimensions"
        )));
    }
    if md.dims() != reference.dims() {
        return Err(Error::invalid(format!(
            "dimensions of {what} {:?} are inconsistent with src {:?}",
            md.dims(),
            reference.dims()
        )));
    }
    if md.has_runtime_dims_or_strides() {
        return Err(Error::unimplemented(format!(
            "{what} has run-time dimensions or strides"
        )));
    }
    if !matches!(md.format(), Format::Blocked(_) | Format::Any) {
        return Err(Error::unimplemented(format!(
            "{what}: only blocked memory formats are supported"
        )));
    }
    if !md.is_any_format() {
        let l = Layout::new(md)?;
        if l.has_padding() {
            return Err(Error::unimplemented(format!(
                "{what}: layouts with padding (blocks that overhang a dimension) are not supported"
            )));
        }
    }
    Ok(())
}

fn resolve(md: &MemoryDesc, reference: &MemoryDesc) -> Result<MemoryDesc> {
    if md.is_any_format() {
        resolve_any(Some(reference), reference.dims(), md.data_type())
    } else {
        Ok(md.clone())
    }
}

/// A dense f32 vector of `n` elements (mean, variance, scale, shift).
fn vector_md(n: i64, dt: dnnl_data_type_t) -> Result<Arc<MemoryDesc>> {
    Ok(Arc::new(MemoryDesc::with_strides(&[n], dt, None)?))
}

/// The `u8` workspace of the fused ReLU: one byte per element of src.
fn workspace_md(src: &MemoryDesc) -> Result<Arc<MemoryDesc>> {
    let n: i64 = src.dims().iter().product();
    vector_md(n, dnnl_u8)
}

/// The forward ReLU of `attr`'s post-ops: none, or exactly one eltwise ReLU
/// (negative slope 0 in training), as upstream accepts.
fn relu_post_op(attr: &PrimitiveAttr, training: bool) -> Result<Option<f32>> {
    let entries = attr.post_ops.entries();
    match entries {
        [] => Ok(None),
        [
            PostOp::Eltwise {
                alg: dnnl_eltwise_relu,
                alpha,
                ..
            },
        ] if !training || *alpha == 0.0 => Ok(Some(*alpha)),
        _ => Err(Error::unimplemented(
            "post-ops: only one eltwise ReLU (with a zero negative slope in training) is supported",
        )),
    }
}

/// Inputs and outputs of a normalization, in upstream's order.
struct Args {
    inputs: Vec<i32>,
    outputs: Vec<i32>,
}

impl NormOp {
    /// The forward op of any kind, after the kind's own shape checks.
    #[allow(clippy::too_many_arguments)]
    fn forward_common(
        family: Family,
        prop_kind: dnnl_prop_kind_t,
        src: &MemoryDesc,
        dst: &MemoryDesc,
        stat_md: Arc<MemoryDesc>,
        ss_dt: dnnl_data_type_t,
        epsilon: f32,
        flags: u32,
        groups: i64,
        geometry: Geometry,
        axes: Axes,
        relu_post: Option<f32>,
        scales: [bool; 2],
        post_ops: PostOpsPlan,
    ) -> Result<NormOp> {
        let dst = resolve(dst, src)?;
        let training = prop_kind == dnnl_forward_training;
        let global = flags & USE_GLOBAL_STATS != 0;
        let fused = flags & (FUSE_NORM_RELU | FUSE_NORM_ADD_RELU) != 0;
        let mut mds = vec![
            (DNNL_ARG_SRC, Arc::new(src.clone())),
            (DNNL_ARG_DST, Arc::new(dst.clone())),
        ];
        let mut args = Args {
            inputs: vec![DNNL_ARG_SRC],
            outputs: vec![DNNL_ARG_DST],
        };
        if global || training {
            mds.push((DNNL_ARG_MEAN, stat_md.clone()));
            mds.push((DNNL_ARG_VARIANCE, stat_md));
            let list = if global {
                &mut args.inputs
            } else {
                &mut args.outputs
            };
            // RMS normalization has no mean (its descriptor is still reported).
            if flags & RMS_NORM == 0 {
                list.push(DNNL_ARG_MEAN);
            }
            list.push(DNNL_ARG_VARIANCE);
        }
        let c = geometry.c;
        // As upstream, scale and shift are described when either is used.
        if flags & (USE_SCALE | USE_SHIFT) != 0 {
            mds.push((DNNL_ARG_SCALE, vector_md(c, ss_dt)?));
            mds.push((DNNL_ARG_SHIFT, vector_md(c, ss_dt)?));
        }
        if flags & USE_SCALE != 0 {
            args.inputs.push(DNNL_ARG_SCALE);
        }
        if flags & USE_SHIFT != 0 {
            args.inputs.push(DNNL_ARG_SHIFT);
        }
        if flags & FUSE_NORM_ADD_RELU != 0 {
            mds.push((DNNL_ARG_SRC_1, Arc::new(dst.clone())));
            args.inputs.push(DNNL_ARG_SRC_1);
        }
        if fused && training {
            mds.push((DNNL_ARG_WORKSPACE, workspace_md(src)?));
            args.outputs.push(DNNL_ARG_WORKSPACE);
        }
        let relu = if fused { Some(0.0) } else { relu_post };
        args.inputs.extend(post_ops.inputs());
        Ok(NormOp {
            family,
            prop_kind,
            flags,
            epsilon,
            groups,
            backward: false,
            geometry,
            axes,
            mds,
            inputs: args.inputs,
            outputs: args.outputs,
            relu,
            scales,
            post_ops,
        })
    }

    /// The backward op of any kind, after the kind's own shape checks.
    #[allow(clippy::too_many_arguments)]
    fn backward_common(
        family: Family,
        prop_kind: dnnl_prop_kind_t,
        diff_src: &MemoryDesc,
        diff_dst: &MemoryDesc,
        src: &MemoryDesc,
        stat_md: Arc<MemoryDesc>,
        diff_ss_dt: dnnl_data_type_t,
        ss_dt: dnnl_data_type_t,
        epsilon: f32,
        flags: u32,
        groups: i64,
        geometry: Geometry,
        axes: Axes,
        workspace: Option<Arc<MemoryDesc>>,
    ) -> Result<NormOp> {
        let diff_dst = resolve(diff_dst, src)?;
        let diff_src = resolve(diff_src, &diff_dst)?;
        let mut mds = vec![
            (DNNL_ARG_SRC, Arc::new(src.clone())),
            (DNNL_ARG_DIFF_DST, Arc::new(diff_dst.clone())),
            (DNNL_ARG_MEAN, stat_md.clone()),
            (DNNL_ARG_VARIANCE, stat_md),
            (DNNL_ARG_DIFF_SRC, Arc::new(diff_src)),
        ];
        let mut inputs = vec![
            DNNL_ARG_SRC,
            DNNL_ARG_MEAN,
            DNNL_ARG_VARIANCE,
            DNNL_ARG_DIFF_DST,
        ];
        if flags & RMS_NORM != 0 {
            inputs.retain(|&a| a != DNNL_ARG_MEAN);
        }
        let mut outputs = vec![DNNL_ARG_DIFF_SRC];
        let c = geometry.c;
        // As upstream, scale, shift and their diffs are described when
        // either flag is set.
        if flags & (USE_SCALE | USE_SHIFT) != 0 {
            mds.push((DNNL_ARG_SCALE, vector_md(c, ss_dt)?));
            mds.push((DNNL_ARG_SHIFT, vector_md(c, ss_dt)?));
            mds.push((DNNL_ARG_DIFF_SCALE, vector_md(c, diff_ss_dt)?));
            mds.push((DNNL_ARG_DIFF_SHIFT, vector_md(c, diff_ss_dt)?));
        }
        if flags & USE_SCALE != 0 {
            inputs.push(DNNL_ARG_SCALE);
            outputs.push(DNNL_ARG_DIFF_SCALE);
        }
        if flags & USE_SHIFT != 0 {
            outputs.push(DNNL_ARG_DIFF_SHIFT);
        }
        if let Some(ws) = workspace {
            mds.push((DNNL_ARG_WORKSPACE, ws));
            inputs.push(DNNL_ARG_WORKSPACE);
        }
        if flags & FUSE_NORM_ADD_RELU != 0 {
            mds.push((DNNL_ARG_DIFF_SRC_1, Arc::new(diff_dst)));
            outputs.push(DNNL_ARG_DIFF_SRC_1);
        }
        Ok(NormOp {
            family,
            prop_kind,
            flags,
            epsilon,
            groups,
            backward: true,
            geometry,
            axes,
            mds,
            inputs,
            outputs,
            relu: None,
            scales: [false; 2],
            post_ops: PostOpsPlan::none(),
        })
    }

    fn query_s32(&self, what: dnnl_query_t) -> Option<i32> {
        // The flags are an unsigned int; the framework writes its bits.
        (what == dnnl_query_flags).then_some(self.flags as i32)
    }

    /// The problem field as upstream's verbose lines give it: batch
    /// normalization `mb2ic8ih6iw6`, group normalization with `g<groups>`
    /// first, layer normalization the dimensions (`2x3x4`).
    fn verbose_problem(&self) -> String {
        let Some((_, md)) = self.mds.iter().find(|(a, _)| *a == DNNL_ARG_SRC) else {
            return String::new();
        };
        let d = md.dims();
        match self.family {
            Family::Batch => mb_ic_spatial(d),
            Family::Group => format!("g{}{}", self.groups, mb_ic_spatial(d)),
            Family::Layer => dims_str(d),
        }
    }

    fn verbose_aux(&self) -> String {
        let mut f = String::new();
        for (bit, letter) in [
            (USE_GLOBAL_STATS, 'G'),
            (USE_SCALE, 'C'),
            (USE_SHIFT, 'H'),
            (FUSE_NORM_RELU, 'R'),
            (FUSE_NORM_ADD_RELU, 'A'),
            (RMS_NORM, 'M'),
        ] {
            if self.has(bit) {
                f.push(letter);
            }
        }
        let mut s = format!("flags:{f}");
        if self.family == Family::Group {
            s += &format!(" groups:{}", self.groups);
        }
        s
    }

    fn cache_key(&self, w: &mut KeyWriter) -> bool {
        w.tag("normalization")
            .put(&self.family.kind())
            .put(&self.prop_kind)
            .put(&self.flags)
            .put(&self.epsilon.to_bits())
            .put(&self.groups)
            .put(&self.mds)
            .put(&self.relu.map(f32::to_bits))
            .put(&self.scales);
        self.post_ops.cache_key(w);
        true
    }
}

/// Batch normalization's checks, shared by both directions: the tensor's
/// rank and element types; returns the geometry and axes.
fn batch_geometry(src: &MemoryDesc) -> Result<(Geometry, Axes)> {
    let nd = src.ndims();
    if !(2..=MAX_NDIMS).contains(&nd) {
        return Err(Error::invalid(format!(
            "batch normalization needs 2 or more dimensions, src has {nd}"
        )));
    }
    let d = src.dims();
    let sp: i64 = d[2..].iter().product();
    Ok((
        Geometry {
            n: d[0],
            c: d[1],
            sp,
            per_n: false,
            g: d[1],
            cg: 1,
        },
        Axes {
            n: vec![0],
            c: 1,
            sp: (2..nd).collect(),
        },
    ))
}

fn check_flags(flags: u32, allowed: u32, kind: &str) -> Result<()> {
    if flags & !allowed != 0 {
        return Err(Error::invalid(format!(
            "{kind}: unknown flags {:#x}",
            flags & !allowed
        )));
    }
    Ok(())
}

fn float_elem(md: &MemoryDesc, what: &str, kind: &str, int_ok: bool) -> Result<Elem> {
    match Elem::from_c(md.data_type()) {
        Some(e @ (Elem::F32 | Elem::F16 | Elem::Bf16)) => Ok(e),
        Some(e @ (Elem::S8 | Elem::U8)) if int_ok => Ok(e),
        _ => Err(Error::unimplemented(format!(
            "{kind} {what}: data type {} is not supported",
            dt_name(md.data_type())
        ))),
    }
}

/// The normalization op of a kind: a newtype over [`NormOp`], so that each
/// kind has its own implementation list and forward hint type.
macro_rules! norm_kind {
    ($name:ident, $family:expr, $cpu:literal, $ocl:literal) => {
        pub struct $name(pub NormOp);

        impl std::ops::Deref for $name {
            type Target = NormOp;
            fn deref(&self) -> &NormOp {
                &self.0
            }
        }

        impl AsRef<NormOp> for $name {
            fn as_ref(&self) -> &NormOp {
                &self.0
            }
        }

        impl OpDesc for $name {
            fn kind(&self) -> dnnl_primitive_kind_t {
                $family.kind()
            }
            fn prop_kind(&self) -> dnnl_prop_kind_t {
                self.0.prop_kind
            }
            fn arg_md(&self, arg: i32) -> Option<&Arc<MemoryDesc>> {
                self.0.any_arg_md(arg)
            }
            fn inputs(&self) -> Vec<i32> {
                self.0.inputs.clone()
            }
            fn outputs(&self) -> Vec<i32> {
                self.0.outputs.clone()
            }
            fn query_f32(&self, what: dnnl_query_t) -> Option<f32> {
                (what == dnnl_query_epsilon_f32).then_some(self.0.epsilon)
            }
            fn query_s32(&self, what: dnnl_query_t) -> Option<i32> {
                self.0.query_s32(what)
            }
            fn query_s64(&self, what: dnnl_query_t) -> Option<i64> {
                // Group norm's number of groups.
                (what == dnnl_query_group_size_s64 && self.0.family == Family::Group)
                    .then_some(self.0.groups)
            }
            fn verbose_aux(&self) -> String {
                self.0.verbose_aux()
            }
            fn verbose_problem(&self) -> String {
                self.0.verbose_problem()
            }
            fn cache_key(&self, w: &mut KeyWriter) -> bool {
                self.0.cache_key(w)
            }
        }

        impl Kind for $name {
            const NAME: &'static str = $family.name();
            const IMPLS: &'static [Impl<$name>] = &[
                Impl::cpu($cpu, any_op, cpu::create::<$name>),
                Impl::gpu($ocl, any_op, ocl::create::<$name>)
                    .with_scratchpad(ocl::scratchpad_bytes::<$name>),
            ];
            fn attr_support(&self) -> AttrSupport {
                self.0.attr_support()
            }
        }
    };
}

impl NormOp {
    fn attr_support(&self) -> AttrSupport {
        if self.backward {
            return AttrSupport::NONE;
        }
        match self.family {
            Family::Batch => AttrSupport::parts(&[AttrPart::PostOps]),
            Family::Layer | Family::Group => AttrSupport {
                parts: &[AttrPart::Scales, AttrPart::PostOps],
                scales: |arg| matches!(arg, DNNL_ARG_SRC | DNNL_ARG_DST),
                zero_points: |_| false,
            },
        }
    }
}

norm_kind!(BatchNormOp, Family::Batch, c"cpu:bnorm", c"ocl:bnorm");

impl BatchNormOp {
    /// `dnnl_batch_normalization_forward_primitive_desc_create`'s checks:
    /// `prop_kind` forward training or inference, src of 2 to 12
    /// dimensions (N, C, spatial...), dst of the same shape and type (or
    /// `any`), `flags` of `dnnl_normalization_flags_t`, post-ops one ReLU.
    pub fn forward(
        prop_kind: dnnl_prop_kind_t,
        src: &MemoryDesc,
        dst: &MemoryDesc,
        epsilon: f32,
        flags: u32,
        attr: &PrimitiveAttr,
    ) -> Result<BatchNormOp> {
        const KIND: &str = "batch normalization";
        if !matches!(prop_kind, dnnl_forward_training | dnnl_forward_inference) {
            return Err(Error::invalid(format!(
                "bad propagation kind {} for batch normalization forward",
                prop_kind.0
            )));
        }
        check_flags(
            flags,
            USE_GLOBAL_STATS | USE_SCALE | USE_SHIFT | FUSE_NORM_RELU | FUSE_NORM_ADD_RELU,
            KIND,
        )?;
        if src.is_any_format() {
            return Err(Error::invalid("unsupported format tag for src: any"));
        }
        check_data(src, "src", src)?;
        check_data(dst, "dst", src)?;
        let (geometry, axes) = batch_geometry(src)?;
        let se = float_elem(src, "src", KIND, true)?;
        let de = float_elem(dst, "dst", KIND, true)?;
        if se != de {
            return Err(Error::unimplemented(format!(
                "batch normalization: src ({}) and dst ({}) of different data types",
                dt_name(src.data_type()),
                dt_name(dst.data_type())
            )));
        }
        if se.is_int() && (prop_kind != dnnl_forward_inference || flags & USE_GLOBAL_STATS == 0) {
            return Err(Error::unimplemented(
                "batch normalization: int8 data needs forward inference with use_global_stats",
            ));
        }
        let relu_post = relu_post_op(attr, prop_kind == dnnl_forward_training)?;
        let stat_md = vector_md(geometry.c, dnnl_f32)?;
        NormOp::forward_common(
            Family::Batch,
            prop_kind,
            src,
            dst,
            stat_md,
            dnnl_f32,
            epsilon,
            flags,
            0,
            geometry,
            axes,
            relu_post,
            [false; 2],
            PostOpsPlan::none(),
        )
        .map(BatchNormOp)
    }

    /// `dnnl_batch_normalization_backward_primitive_desc_create`'s checks:
    /// `prop_kind` backward or backward data; diff_src / diff_dst of src's
    /// shape (or `any`) and a floating-point type; the fused-ReLU flags need
    /// the forward hint, whose workspace the backward reads.
    #[allow(clippy::too_many_arguments)]
    pub fn backward(
        prop_kind: dnnl_prop_kind_t,
        diff_src: &MemoryDesc,
        diff_dst: &MemoryDesc,
        src: &MemoryDesc,
        epsilon: f32,
        flags: u32,
        hint: Option<&BatchNormOp>,
        _attr: &PrimitiveAttr,
    ) -> Result<BatchNormOp> {
        const KIND: &str = "batch normalization";
        if !matches!(prop_kind, dnnl_backward | dnnl_backward_data) {
            return Err(Error::invalid(format!(
                "bad propagation kind {} for batch normalization backward",
                prop_kind.0
            )));
        }
        check_flags(
            flags,
            USE_GLOBAL_STATS | USE_SCALE | USE_SHIFT | FUSE_NORM_RELU | FUSE_NORM_ADD_RELU,
            KIND,
        )?;
        // As upstream, a backward src of `any` is the plain (row-major) layout.
        let src = &if src.is_any_format() {
            resolve_any(None, src.dims(), src.data_type())?
        } else {
            src.clone()
        };
        check_data(src, "src", src)?;
        check_data(diff_dst, "diff_dst", src)?;
        check_data(diff_src, "diff_src", src)?;
        let (geometry, axes) = batch_geometry(src)?;
        let se = float_elem(src, "src", KIND, false)?;
        let dde = float_elem(diff_dst, "diff_dst", KIND, false)?;
        let dse = float_elem(diff_src, "diff_src", KIND, false)?;
        if se != dde || se != dse {
            return Err(Error::unimplemented(
                "batch normalization backward: src, diff_dst and diff_src of different data types",
            ));
        }
        let fused = flags & (FUSE_NORM_RELU | FUSE_NORM_ADD_RELU) != 0;
        let workspace = if fused {
            let hint = hint.ok_or_else(|| {
                Error::unimplemented(
                    "batch normalization backward with a fused ReLU needs the forward hint (its workspace)",
                )
            })?;
            let ws = hint.arg(DNNL_ARG_WORKSPACE).cloned().ok_or_else(|| {
                Error::unimplemented(
                    "batch normalization backward with a fused ReLU: the forward hint has no workspace",
                )
            })?;
            Some(ws)
        } else {
            None
        };
        let stat_md = vector_md(geometry.c, dnnl_f32)?;
        NormOp::backward_common(
            Family::Batch,
            prop_kind,
            diff_src,
            diff_dst,
            src,
            stat_md,
            dnnl_f32,
            dnnl_f32,
            epsilon,
            flags,
            0,
            geometry,
            axes,
            workspace,
        )
        .map(BatchNormOp)
    }
}

norm_kind!(LayerNormOp, Family::Layer, c"cpu:lnorm", c"ocl:lnorm");

/// Layer normalization's geometry: `n` every dimension but the last, `c`
/// the last.
fn layer_geometry(src: &MemoryDesc) -> Result<(Geometry, Axes)> {
    let nd = src.ndims();
    if !(2..=MAX_NDIMS).contains(&nd) {
        return Err(Error::invalid(format!(
            "layer normalization needs 2 or more dimensions, src has {nd}"
        )));
    }
    let d = src.dims();
    let c = d[nd - 1];
    Ok((
        Geometry {
            n: d[..nd - 1].iter().product(),
            c,
            sp: 1,
            per_n: true,
            g: 1,
            cg: c,
        },
        Axes {
            n: (0..nd - 1).collect(),
            c: nd - 1,
            sp: Vec::new(),
        },
    ))
}

/// Layer normalization's statistics descriptor: `stat_desc` (NULL or `any`:
/// dense row-major) of src's dimensions but the last, f32.
fn layer_stat_md(src: &MemoryDesc, stat: Option<&MemoryDesc>) -> Result<Arc<MemoryDesc>> {
    let nd = src.ndims();
    let dims = &src.dims()[..nd - 1];
    let md = match stat {
        Some(md) if !md.is_zero() => md,
        _ => return Ok(Arc::new(MemoryDesc::with_strides(dims, dnnl_f32, None)?)),
    };
    if md.dims() != dims {
        return Err(Error::invalid(format!(
            "the statistics descriptor's dimensions {:?} are not src's but the last {dims:?}",
            md.dims()
        )));
    }
    if md.data_type() != dnnl_f32 {
        return Err(Error::unimplemented(format!(
            "layer normalization statistics of type {}: only f32 is supported",
            dt_name(md.data_type())
        )));
    }
    if md.is_any_format() {
        return Ok(Arc::new(MemoryDesc::with_strides(dims, dnnl_f32, None)?));
    }
    check_data(md, "statistics", md)?;
    Ok(Arc::new(md.clone()))
}

/// The scale and shift data type of layer and group norm: f32, bf16 or f16.
fn check_ss_dt(dt: dnnl_data_type_t, what: &str) -> Result<dnnl_data_type_t> {
    match dt {
        dnnl_f32 | dnnl_bf16 | dnnl_f16 => Ok(dt),
        _ => Err(Error::unimplemented(format!(
            "{what} of type {}: only f32, bf16 and f16 are supported",
            dt_name(dt)
        ))),
    }
}

/// Scales (one f32 value per tensor, for int8 data only) and post-ops
/// (eltwise and binary) of layer and group norm forward, as upstream
/// accepts them.
fn quant_and_post_ops(
    attr: &PrimitiveAttr,
    src: &MemoryDesc,
    dst: &MemoryDesc,
    kind: &str,
) -> Result<([bool; 2], PostOpsPlan)> {
    let int8 = |md: &MemoryDesc| matches!(md.data_type(), dnnl_s8 | dnnl_u8);
    let mut scales = [false; 2];
    for (arg, spec) in &attr.scales {
        if !(int8(src) || int8(dst)) {
            return Err(Error::unimplemented(format!(
                "{kind}: scales apply to int8 data only"
            )));
        }
        if spec.mask != 0
            || spec.groups.is_some()
            || spec.data_type != dnnl_f32
            || spec.on_host
            || spec.qmode != dnnl_quantization_mode_static_sazp
        {
            return Err(Error::unimplemented(format!(
                "{kind} scales: only a common static f32 scale in device memory (mask 0) is supported"
            )));
        }
        scales[usize::from(*arg == DNNL_ARG_DST)] = true;
    }
    for op in attr.post_ops.entries() {
        if !matches!(op, PostOp::Eltwise { .. } | PostOp::Binary { .. }) {
            return Err(Error::unimplemented(format!(
                "{kind} post-ops: only eltwise and binary are supported"
            )));
        }
    }
    Ok((scales, PostOpsPlan::new(&attr.post_ops, dst)?))
}

impl LayerNormOp {
    /// `dnnl_layer_normalization_forward_primitive_desc_create(_v2)`'s
    /// checks: `prop_kind` forward training or inference; src of 2 to 12
    /// dimensions, normalized over the last; dst of src's shape (or `any`);
    /// f32, bf16, f16, s8, u8 each; `stat_desc` (may be NULL or `any`) of
    /// src's dimensions but the last, f32; scale and shift of
    /// `scale_shift_dt` (f32, bf16, f16); flags `use_global_stats`,
    /// `use_scale`, `use_shift`, `rms_norm`; scales (int8 only) and
    /// eltwise / binary post-ops.
    #[allow(clippy::too_many_arguments)]
    pub fn forward(
        prop_kind: dnnl_prop_kind_t,
        src: &MemoryDesc,
        dst: &MemoryDesc,
        stat_desc: Option<&MemoryDesc>,
        scale_shift_dt: dnnl_data_type_t,
        epsilon: f32,
        flags: u32,
        attr: &PrimitiveAttr,
    ) -> Result<LayerNormOp> {
        const KIND: &str = "layer normalization";
        if !matches!(prop_kind, dnnl_forward_training | dnnl_forward_inference) {
            return Err(Error::invalid(format!(
                "bad propagation kind {} for layer normalization forward",
                prop_kind.0
            )));
        }
        check_flags(
            flags,
            USE_GLOBAL_STATS | USE_SCALE | USE_SHIFT | RMS_NORM,
            KIND,
        )?;
        if src.is_any_format() {
            return Err(Error::invalid("unsupported format tag for src: any"));
        }
        check_data(src, "src", src)?;
        check_data(dst, "dst", src)?;
        let (geometry, axes) = layer_geometry(src)?;
        float_elem(src, "src", KIND, true)?;
        float_elem(dst, "dst", KIND, true)?;
        let ss_dt = check_ss_dt(scale_shift_dt, "scale and shift")?;
        let stat_md = layer_stat_md(src, stat_desc)?;
        let resolved = resolve(dst, src)?;
        let (scales, post_ops) = quant_and_post_ops(attr, src, &resolved, KIND)?;
        NormOp::forward_common(
            Family::Layer,
            prop_kind,
            src,
            dst,
            stat_md,
            ss_dt,
            epsilon,
            flags,
            0,
            geometry,
            axes,
            None,
            scales,
            post_ops,
        )
        .map(LayerNormOp)
    }

    /// `dnnl_layer_normalization_backward_primitive_desc_create(_v2)`'s
    /// checks: `prop_kind` backward or backward data (without scale or
    /// shift); src, diff_src, diff_dst f32, bf16 or f16 (diffs may be `any`:
    /// src's layout); the statistics as forward; diff scale / shift of
    /// `diff_scale_shift_dt`. `hint` does not change the result.
    #[allow(clippy::too_many_arguments)]
    pub fn backward(
        prop_kind: dnnl_prop_kind_t,
        diff_src: &MemoryDesc,
        diff_dst: &MemoryDesc,
        src: &MemoryDesc,
        stat_desc: Option<&MemoryDesc>,
        diff_scale_shift_dt: dnnl_data_type_t,
        scale_shift_dt: dnnl_data_type_t,
        epsilon: f32,
        flags: u32,
        _hint: Option<&LayerNormOp>,
        _attr: &PrimitiveAttr,
    ) -> Result<LayerNormOp> {
        const KIND: &str = "layer normalization";
        if !matches!(prop_kind, dnnl_backward | dnnl_backward_data) {
            return Err(Error::invalid(format!(
                "bad propagation kind {} for layer normalization backward",
                prop_kind.0
            )));
        }
        check_flags(
            flags,
            USE_GLOBAL_STATS | USE_SCALE | USE_SHIFT | RMS_NORM,
            KIND,
        )?;
        if prop_kind == dnnl_backward_data && flags & (USE_SCALE | USE_SHIFT) != 0 {
            return Err(Error::unimplemented(
                "layer normalization backward data with scale or shift",
            ));
        }
        let src = &if src.is_any_format() {
            resolve_any(None, src.dims(), src.data_type())?
        } else {
            src.clone()
        };
        check_data(src, "src", src)?;
        check_data(diff_dst, "diff_dst", src)?;
        check_data(diff_src, "diff_src", src)?;
        let (geometry, axes) = layer_geometry(src)?;
        float_elem(src, "src", KIND, false)?;
        float_elem(diff_dst, "diff_dst", KIND, false)?;
        float_elem(diff_src, "diff_src", KIND, false)?;
        let ss_dt = check_ss_dt(scale_shift_dt, "scale and shift")?;
        let dss_dt = check_ss_dt(diff_scale_shift_dt, "diff scale and shift")?;
        let stat_md = layer_stat_md(src, stat_desc)?;
        NormOp::backward_common(
            Family::Layer,
            prop_kind,
            diff_src,
            diff_dst,
            src,
            stat_md,
            dss_dt,
            ss_dt,
            epsilon,
            flags,
            0,
            geometry,
            axes,
            None,
        )
        .map(LayerNormOp)
    }
}

norm_kind!(GroupNormOp, Family::Group, c"cpu:gnorm", c"ocl:gnorm");

/// Group normalization's geometry: as batch norm's, with `groups` stats
/// per `n`.
fn group_geometry(src: &MemoryDesc, groups: i64) -> Result<(Geometry, Axes)> {
    let (mut g, axes) = batch_geometry(src).map_err(|_| {
        Error::invalid(format!(
            "group normalization needs 2 or more dimensions, src has {}",
            src.ndims()
        ))
    })?;
    if groups <= 0 || g.c % groups != 0 {
        return Err(Error::invalid(format!(
            "group normalization: {groups} groups do not divide {} channels",
            g.c
        )));
    }
    g.per_n = true;
    g.g = groups;
    g.cg = g.c / groups;
    Ok((g, axes))
}

impl GroupNormOp {
    /// `dnnl_group_normalization_forward_primitive_desc_create`'s checks:
    /// `prop_kind` forward training or inference; src of 2 to 12 dimensions
    /// (N, C, spatial...) with `groups` dividing C; dst of src's shape (or
    /// `any`); f32, bf16, f16, s8 each; flags `use_global_stats`,
    /// `use_scale`, `use_shift`; scales (int8 only) and eltwise / binary
    /// post-ops. Mean and variance are N x G, f32, row-major.
    #[allow(clippy::too_many_arguments)]
    pub fn forward(
        prop_kind: dnnl_prop_kind_t,
        src: &MemoryDesc,
        dst: &MemoryDesc,
        groups: i64,
        epsilon: f32,
        flags: u32,
        attr: &PrimitiveAttr,
    ) -> Result<GroupNormOp> {
        const KIND: &str = "group normalization";
        if !matches!(prop_kind, dnnl_forward_training | dnnl_forward_inference) {
            return Err(Error::invalid(format!(
                "bad propagation kind {} for group normalization forward",
                prop_kind.0
            )));
        }
        check_flags(flags, USE_GLOBAL_STATS | USE_SCALE | USE_SHIFT, KIND)?;
        if src.is_any_format() {
            return Err(Error::invalid("unsupported format tag for src: any"));
        }
        check_data(src, "src", src)?;
        check_data(dst, "dst", src)?;
        let (geometry, axes) = group_geometry(src, groups)?;
        float_elem(src, "src", KIND, true)?;
        float_elem(dst, "dst", KIND, true)?;
        let stat_md = Arc::new(MemoryDesc::with_strides(
            &[geometry.n, groups],
            dnnl_f32,
            None,
        )?);
        let resolved = resolve(dst, src)?;
        let (scales, post_ops) = quant_and_post_ops(attr, src, &resolved, KIND)?;
        NormOp::forward_common(
            Family::Group,
            prop_kind,
            src,
            dst,
            stat_md,
            dnnl_f32,
            epsilon,
            flags,
            groups,
            geometry,
            axes,
            None,
            scales,
            post_ops,
        )
        .map(GroupNormOp)
    }

    /// `dnnl_group_normalization_backward_primitive_desc_create`'s checks:
    /// `prop_kind` backward or backward data; src, diff_src, diff_dst f32,
    /// bf16 or f16 (the diffs may be `any`: src's layout; a src of `any` is
    /// the plain layout, as upstream); `groups` dividing C. `hint` does not
    /// change the result.
    #[allow(clippy::too_many_arguments)]
    pub fn backward(
        prop_kind: dnnl_prop_kind_t,
        diff_src: &MemoryDesc,
        diff_dst: &MemoryDesc,
        src: &MemoryDesc,
        groups: i64,
        epsilon: f32,
        flags: u32,
        _hint: Option<&GroupNormOp>,
        _attr: &PrimitiveAttr,
    ) -> Result<GroupNormOp> {
        const KIND: &str = "group normalization";
        if !matches!(prop_kind, dnnl_backward | dnnl_backward_data) {
            return Err(Error::invalid(format!(
                "bad propagation kind {} for group normalization backward",
                prop_kind.0
            )));
        }
        check_flags(flags, USE_GLOBAL_STATS | USE_SCALE | USE_SHIFT, KIND)?;
        let src = &if src.is_any_format() {
            resolve_any(None, src.dims(), src.data_type())?
        } else {
            src.clone()
        };
        check_data(src, "src", src)?;
        check_data(diff_dst, "diff_dst", src)?;
        check_data(diff_src, "diff_src", src)?;
        let (geometry, axes) = group_geometry(src, groups)?;
        float_elem(src, "src", KIND, false)?;
        float_elem(diff_dst, "diff_dst", KIND, false)?;
        float_elem(diff_src, "diff_src", KIND, false)?;
        let stat_md = Arc::new(MemoryDesc::with_strides(
            &[geometry.n, groups],
            dnnl_f32,
            None,
        )?);
        NormOp::backward_common(
            Family::Group,
            prop_kind,
            diff_src,
            diff_dst,
            src,
            stat_md,
            dnnl_f32,
            dnnl_f32,
            epsilon,
            flags,
            groups,
            geometry,
            axes,
            None,
        )
        .map(GroupNormOp)
    }
}
