//! Recurrent layers: vanilla RNN, LSTM (with peephole and projection), GRU,
//! linear-before-reset GRU, AUGRU and linear-before-reset AUGRU, forward and
//! backward (`dnnl_{vanilla_rnn,lstm,gru,lbr_gru,augru,lbr_augru}_{forward,backward}_primitive_desc_create`).
//!
//! Layer: prims. This file holds the descriptor (upstream's checks, `any`
//! resolved, the queries and verbose fields) and the implementation list:
//! - `cpu:rnn_gemm` (`cpu.rs`): per direction and layer, one GEMM of the
//!   layer weights over all time steps, then per step one GEMM of the
//!   iteration weights and the cell's element-wise math; backward walks the
//!   steps back and accumulates the weight gradients with GEMMs over all
//!   steps. The GEMMs run in the `gemm` crate, split over the host's threads.
//! - `ocl:rnn_gemm` (`ocl.rs`, `rnn.cl`): the same algorithm on GPU engines
//!   (OpenCL and Level Zero), f32, bf16 and f16 data in plain strided
//!   layouts, forward and backward (f16 forward only), and int8 inference
//!   (`ocl/int8.rs`: the CPU's quantization points, `gemm.cl`'s integer
//!   GEMM); the same workspace layout.
//!
//! Shapes (rnn.md): `L` layers, `D` directions (2 for the bidirectional
//! ones), `T` steps, `N` batch, `G` gates (1, 4, 3; the bias of the LBR
//! cells has `G + 1`), `SLC`/`SIC` the channels of src_layer/src_iter,
//! `DHC` the hidden channels, `DIC` the channels of dst_iter (the
//! projection's output with LSTMP, else `DHC`), `DLC` those of dst_layer.
//! src_layer `{T, N, SLC}`, src_iter `{L, D, N, SIC}`, src_iter_c
//! `{L, D, N, DHC}`, AUGRU attention `{T, N, 1}`, weights_layer
//! `{L, D, SLC, G, DHC}`, weights_iter `{L, D, SIC, G, DHC}`,
//! weights_peephole `{L, D, 3, DHC}`, weights_projection `{L, D, DHC, DIC}`,
//! bias `{L, D, G(+1), DHC}`, dst_layer `{T, N, DLC}`, dst_iter
//! `{L, D, N, DIC}`, dst_iter_c `{L, D, N, DHC}`; the diff tensors have
//! their forward tensor's shape. Checked as upstream (Intel's library
//! answers the same on each rule): `DLC = DIC` (twice that for
//! bidirectional_concat), with `L > 1` `DLC = SLC` (times 2 for concat),
//! with `T > 1` `SIC = DIC`, GRU-family cells `SIC = DHC`, AUGRU one layer
//! and left2right only, LSTM src_iter and src_iter_c given together
//! (dst_iter and dst_iter_c too). Directions run independently through all layers
//! (rnn.md); bidirectional_concat puts direction 0 in the first `DIC`
//! channels of dst_layer, bidirectional_sum adds the two.
//!
//! Optional arguments (NULL or the zero descriptor: absent): src_iter(_c)
//! (zeros), dst_iter(_c) (not written), bias (zeros; Intel's CPU library
//! answers unimplemented without a bias, which is accepted here),
//! weights_peephole, weights_projection. Backward: each diff tensor is
//! given exactly when its forward tensor is.
//!
//! Types (rnn.md's table): f32 everywhere; bf16 layer and iteration data
//! and weights with f32 or bf16 bias, cell states and peephole weights, f32
//! gradients; f16 the same, forward only (upstream defines no f16
//! backward; Intel's CPU library has no f16 RNN, ours runs it); int8
//! inference (below). bf16 and f16 LSTMP are unimplemented, as upstream.
//! Computation in f32; with bf16 or f16 data the hidden states are rounded
//! to that type after each step, as upstream keeps them (cell states stay
//! f32 in between). Other types are `unimplemented`, said under
//! ONEDNN_VERBOSE=check.
//!
//! int8 (`cpu/int8.rs`, `ocl/int8.rs`): forward_inference of LSTM (projection included,
//! no peephole) and GRU; u8 src_layer, src_iter and dst_iter, u8 or f32
//! dst_layer, s8 weights_layer / weights_iter / weights_projection, f32
//! bias and cell states. The attributes give the quantization:
//! `dnnl_primitive_attr_set_rnn_data_qparams` (u8 = f32 * scale + shift),
//! `..._set_rnn_weights_qparams` (s8 = f32 * scale, mask 0 or 24: per gate
//! and channel, at least `G * DHC` scales) and
//! `..._set_rnn_weights_projection_qparams` (mask 0 or 8: per DIC channel).
//! Everything else Intel's library refuses is `unimplemented` here too:
//! training, other cells, a peephole, an f32 dst_iter, s8 data (AMX only
//! upstream), other masks; the quantization attributes with non-int8 data.
//! A weights scale array shorter than its mask selects is
//! `invalid_arguments` (Intel's library takes it and reads past it).
//! Attributes otherwise: the defaults only.
//!
//! `any` resolves to: src_layer, dst_layer, attention and their diffs
//! `tnc`; src_iter(_c), dst_iter(_c) and their diffs `ldnc`; forward
//! weights_layer / weights_iter `ldigo`, backward ones `ldgoi` (upstream's
//! CPU choice, documented as the backward layout); weights_projection
//! `ldio` forward, `ldoi` backward; peephole and bias `ldgo`; diff weights
//! `ldigo` and diff projection `ldio`. int8 weights `any` are plain
//! `ldigo` / `ldio` s8 too, where upstream chooses its packed format (the
//! user reorders into whatever the query answers, so both work). Any other
//! blocked layout (ntc, strided views, explicit `ldigo` int8 weights, which
//! Intel's library refuses) is accepted as given.
//!
//! Workspace (forward training writes it, backward reads it): a byte vector
//! whose layout is ours (`cpu.rs`, [`WsLayout`]); its size comes from the
//! workspace query. Backward takes no `hint_fwd_pd`, or one of the same
//! problem (training or inference, as upstream): the workspace layout is
//! the problem's; a hint of another problem is `unimplemented`.
//!
//! Backward accumulates into diff_weights_* and diff_bias (rnn.md) unless
//! the flag `dnnl_rnn_flags_diff_weights_overwrite` is set; diff_src_*,
//! diff_attention are overwritten.
//!
//! AUGRU backward computes what upstream computes, which is not the exact
//! gradient of its forward: the attention scales the update gate's
//! gradient (and gets `-sum(dG0 * u)`), but h_prev's and o's gradients take
//! `u` where the forward has `(1 - a) u` (found by running Intel's library;
//! every other cell matches the exact gradient, and so does AUGRU with zero
//! attention).

// The C enumerators are matched by their C names; the descriptor tables
// pair each argument with its descriptor and rule.
#![allow(non_upper_case_globals, clippy::type_complexity)]

mod cpu;
mod ocl;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::abi::*;
use crate::core::attr::{AttrPart, AttrSupport, PrimitiveAttr, RnnWeightsQparams};
use crate::core::error::{Error, Result};
use crate::core::key::KeyWriter;
use crate::core::memory_desc::{Format, MemoryDesc};
use crate::core::names;
use crate::core::primitive::{Impl, Kind, OpDesc, any_op};

/// The cell functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    Vanilla,
    Lstm,
    Gru,
    LbrGru,
    Augru,
    LbrAugru,
}

impl Cell {
    pub fn from_c(alg: dnnl_alg_kind_t) -> Option<Cell> {
        match alg {
            dnnl_vanilla_rnn => Some(Cell::Vanilla),
            dnnl_vanilla_lstm => Some(Cell::Lstm),
            dnnl_vanilla_gru => Some(Cell::Gru),
            dnnl_lbr_gru => Some(Cell::LbrGru),
            dnnl_vanilla_augru => Some(Cell::Augru),
            dnnl_lbr_augru => Some(Cell::LbrAugru),
            _ => None,
        }
    }

    pub fn to_c(self) -> dnnl_alg_kind_t {
        match self {
            Cell::Vanilla => dnnl_vanilla_rnn,
            Cell::Lstm => dnnl_vanilla_lstm,
            Cell::Gru => dnnl_vanilla_gru,
            Cell::LbrGru => dnnl_lbr_gru,
            Cell::Augru => dnnl_vanilla_augru,
            Cell::LbrAugru => dnnl_lbr_augru,
        }
    }

    /// Gates of the weights.
    pub fn gates(self) -> i64 {
        match self {
            Cell::Vanilla => 1,
            Cell::Lstm => 4,
            _ => 3,
        }
    }

    /// Linear before reset: the bias has one more gate.
    pub fn lbr(self) -> bool {
        matches!(self, Cell::LbrGru | Cell::LbrAugru)
    }

    /// A GRU-family cell (the previous state enters element-wise).
    pub fn gru_like(self) -> bool {
        !matches!(self, Cell::Vanilla | Cell::Lstm)
    }

    pub fn augru(self) -> bool {
        matches!(self, Cell::Augru | Cell::LbrAugru)
    }
}

/// The vanilla RNN activations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    Relu,
    Tanh,
    Logistic,
}

/// The problem's sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    pub l: i64,
    pub d: i64,
    pub t: i64,
    pub n: i64,
    pub g: i64,
    pub slc: i64,
    pub sic: i64,
    pub dhc: i64,
    pub dic: i64,
    pub dlc: i64,
}

/// Where each part of one (layer, direction) lives in the workspace, in
/// f32 elements from the start of that part's block; a block per (layer,
/// direction), `block` elements apart. States are indexed by step (0: the
/// initial state; step `s + 1` after the `s`-th processed time step).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WsLayout {
    /// Width of a state row: `max(SIC, DIC)`.
    pub w: i64,
    /// `T * N * G * DHC` gate values (vanilla: before the activation; other
    /// cells: after).
    pub gates: i64,
    /// `(T + 1) * N * w` hidden states.
    pub h: i64,
    /// `(T + 1) * N * DHC` cell states (LSTM).
    pub c: i64,
    /// `T * N * DHC` LSTMP hidden states before the projection.
    pub hh: i64,
    /// `T * N * DHC` LBR `U_o h + B_u'` values.
    pub lbr: i64,
    /// The f32 elements of one block.
    pub block: i64,
}

impl WsLayout {
    fn new(cell: Cell, projection: bool, d: &Dims) -> WsLayout {
        let w = d.sic.max(d.dic);
        let gates = 0;
        let h = gates + d.t * d.n * d.g * d.dhc;
        let c = h + (d.t + 1) * d.n * w;
        let hh = c + if cell == Cell::Lstm {
            (d.t + 1) * d.n * d.dhc
        } else {
            0
        };
        let lbr = hh + if projection { d.t * d.n * d.dhc } else { 0 };
        let block = lbr + if cell.lbr() { d.t * d.n * d.dhc } else { 0 };
        WsLayout {
            w,
            gates,
            h,
            c,
            hh,
            lbr,
            block,
        }
    }

    /// The f32 elements of the whole workspace.
    pub fn elems(&self, d: &Dims) -> i64 {
        self.block * d.l * d.d
    }
}

/// The memory descriptors of a creation call (absent: `None`), forward
/// ones and, for backward, the diff ones.
#[derive(Clone, Default)]
pub struct RnnDescs {
    pub src_layer: Option<Arc<MemoryDesc>>,
    pub src_iter: Option<Arc<MemoryDesc>>,
    pub src_iter_c: Option<Arc<MemoryDesc>>,
    pub attention: Option<Arc<MemoryDesc>>,
    pub weights_layer: Option<Arc<MemoryDesc>>,
    pub weights_iter: Option<Arc<MemoryDesc>>,
    pub weights_peephole: Option<Arc<MemoryDesc>>,
    pub weights_projection: Option<Arc<MemoryDesc>>,
    pub bias: Option<Arc<MemoryDesc>>,
    pub dst_layer: Option<Arc<MemoryDesc>>,
    pub dst_iter: Option<Arc<MemoryDesc>>,
    pub dst_iter_c: Option<Arc<MemoryDesc>>,
    pub diff_src_layer: Option<Arc<MemoryDesc>>,
    pub diff_src_iter: Option<Arc<MemoryDesc>>,
    pub diff_src_iter_c: Option<Arc<MemoryDesc>>,
    pub diff_attention: Option<Arc<MemoryDesc>>,
    pub diff_weights_layer: Option<Arc<MemoryDesc>>,
    pub diff_weights_iter: Option<Arc<MemoryDesc>>,
    pub diff_weights_peephole: Option<Arc<MemoryDesc>>,
    pub diff_weights_projection: Option<Arc<MemoryDesc>>,
    pub diff_bias: Option<Arc<MemoryDesc>>,
    pub diff_dst_layer: Option<Arc<MemoryDesc>>,
    pub diff_dst_iter: Option<Arc<MemoryDesc>>,
    pub diff_dst_iter_c: Option<Arc<MemoryDesc>>,
}

/// The scalar parameters of a creation call.
#[derive(Clone, Copy, Debug)]
pub struct RnnParams {
    pub prop_kind: dnnl_prop_kind_t,
    pub cell: dnnl_alg_kind_t,
    /// The vanilla RNN activation (`undef` for the other cells).
    pub activation: dnnl_alg_kind_t,
    pub direction: dnnl_rnn_direction_t,
    pub flags: u32,
    pub alpha: f32,
    pub beta: f32,
}

/// An RNN operation, either direction.
pub struct RnnOp {
    backward: bool,
    prop_kind: dnnl_prop_kind_t,
    cell: Cell,
    activation: Option<Activation>,
    activation_c: dnnl_alg_kind_t,
    direction: dnnl_rnn_direction_t,
    flags: u32,
    alpha: f32,
    beta: f32,
    dims: Dims,
    /// The data type of src_layer (f32, bf16, f16 or u8).
    data_type: dnnl_data_type_t,
    /// int8: the quantization parameters.
    quant: Option<Quant>,
    /// The descriptors by execution argument, resolved.
    mds: Vec<(i32, Arc<MemoryDesc>)>,
    /// The arguments the user gave as `any`.
    any: Vec<i32>,
    ws: Option<Arc<MemoryDesc>>,
    ws_layout: WsLayout,
}

/// `md` unless it is the zero descriptor.
fn present(md: &Option<Arc<MemoryDesc>>) -> Option<&Arc<MemoryDesc>> {
    md.as_ref().filter(|m| !m.is_zero())
}

fn check_md(md: &MemoryDesc, what: &str, ndims: usize) -> Result<()> {
    if md.ndims() != ndims {
        return Err(Error::invalid(format!(
            "{what} has {} dimensions, an RNN takes {ndims}",
            md.ndims()
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
    if md.padded_dims() != md.dims() {
        return Err(Error::unimplemented(format!(
            "{what}: layouts with padding are not supported"
        )));
    }
    Ok(())
}

fn dt_name(dt: dnnl_data_type_t) -> &'static str {
    names::enum_str(dnnl_data_type_t::ALL, dt, "dnnl_", "?")
}

/// Upstream's data type configurations the CPU implementation runs:
/// all f32; bf16 or f16 data with f32 (or the data type's) bias, cell
/// states and peephole weights and f32 gradients (f16: forward only); int8
/// inference (see [`check_int8_types`]). Anything else is unimplemented.
fn check_types(
    descs: &RnnDescs,
    backward: bool,
    prop_kind: dnnl_prop_kind_t,
    cell: Cell,
) -> Result<dnnl_data_type_t> {
    let dt = present(&descs.src_layer).map_or(dnnl_f32, |m| m.data_type());
    match dt {
        dnnl_f32 | dnnl_bf16 | dnnl_f16 => {}
        dnnl_u8 => return check_int8_types(descs, backward, prop_kind, cell),
        dnnl_s8 => {
            return Err(Error::unimplemented(
                "RNN with s8 data is not implemented (upstream's CPU runs it only with \
                 AMX; u8 data with s8 weights is the int8 configuration here)",
            ));
        }
        _ => {
            return Err(Error::unimplemented(format!(
                "RNN with {} data is not implemented (f32, bf16, f16 and u8 are)",
                dt_name(dt)
            )));
        }
    }
    if dt == dnnl_f16 && backward {
        return Err(Error::unimplemented(
            "RNN backward with f16 data is not implemented (upstream defines f16 forward only)",
        ));
    }
    let data = [
        (&descs.src_layer, "src_layer"),
        (&descs.src_iter, "src_iter"),
        (&descs.attention, "attention"),
        (&descs.weights_layer, "weights_layer"),
        (&descs.weights_iter, "weights_iter"),
        (&descs.weights_projection, "weights_projection"),
        (&descs.dst_layer, "dst_layer"),
        (&descs.dst_iter, "dst_iter"),
    ];
    let flexible = [
        (&descs.bias, "bias"),
        (&descs.src_iter_c, "src_iter_c"),
        (&descs.dst_iter_c, "dst_iter_c"),
        (&descs.weights_peephole, "weights_peephole"),
    ];
    let diffs = [
        (&descs.diff_src_layer, "diff_src_layer"),
        (&descs.diff_src_iter, "diff_src_iter"),
        (&descs.diff_src_iter_c, "diff_src_iter_c"),
        (&descs.diff_attention, "diff_attention"),
        (&descs.diff_weights_layer, "diff_weights_layer"),
        (&descs.diff_weights_iter, "diff_weights_iter"),
        (&descs.diff_weights_peephole, "diff_weights_peephole"),
        (&descs.diff_weights_projection, "diff_weights_projection"),
        (&descs.diff_bias, "diff_bias"),
        (&descs.diff_dst_layer, "diff_dst_layer"),
        (&descs.diff_dst_iter, "diff_dst_iter"),
        (&descs.diff_dst_iter_c, "diff_dst_iter_c"),
    ];
    let wrong = |what: &str, got: dnnl_data_type_t, want: &str| {
        Err(Error::unimplemented(format!(
            "{what} is {} in an RNN of {} data ({want} expected, as upstream)",
            dt_name(got),
            dt_name(dt)
        )))
    };
    for (md, what) in data {
        if let Some(m) = present(md)
            && m.data_type() != dt
        {
            return wrong(what, m.data_type(), dt_name(dt));
        }
    }
    for (md, what) in flexible {
        if let Some(m) = present(md)
            && m.data_type() != dnnl_f32
            && m.data_type() != dt
        {
            return wrong(what, m.data_type(), "f32 or the data type");
        }
    }
    if backward {
        for (md, what) in diffs {
            if let Some(m) = present(md)
                && m.data_type() != dnnl_f32
            {
                return wrong(what, m.data_type(), "f32");
            }
        }
    }
    if dt != dnnl_f32 && present(&descs.weights_projection).is_some() {
        return Err(Error::unimplemented(format!(
            "LSTM projection with {} data is not supported (as upstream)",
            dt_name(dt)
        )));
    }
    Ok(dt)
}

/// The int8 configuration (rnn.md): forward inference of LSTM (projection
/// included, peephole not) and GRU, u8 src_layer, src_iter and dst_iter,
/// u8 or f32 dst_layer, s8 weights (layer, iteration, projection), f32
/// bias and cell states. Anything else is unimplemented,
/// as Intel's library answers.
fn check_int8_types(
    descs: &RnnDescs,
    backward: bool,
    prop_kind: dnnl_prop_kind_t,
    cell: Cell,
) -> Result<dnnl_data_type_t> {
    if backward || prop_kind != dnnl_forward_inference {
        return Err(Error::unimplemented(
            "int8 (u8 data) RNN is forward_inference only, as upstream",
        ));
    }
    if !matches!(cell, Cell::Lstm | Cell::Gru) {
        let name = names::enum_str(dnnl_alg_kind_t::ALL, cell.to_c(), "dnnl_", "?");
        return Err(Error::unimplemented(format!(
            "int8 (u8 data) RNN runs the LSTM and GRU cells only, not {name} (as upstream)"
        )));
    }
    if present(&descs.weights_peephole).is_some() {
        return Err(Error::unimplemented(
            "int8 (u8 data) LSTM with peephole is not supported (as upstream)",
        ));
    }
    let rules: [(&Option<Arc<MemoryDesc>>, &str, &[dnnl_data_type_t]); 10] = [
        (&descs.src_layer, "src_layer", &[dnnl_u8]),
        (&descs.src_iter, "src_iter", &[dnnl_u8]),
        (&descs.dst_iter, "dst_iter", &[dnnl_u8]),
        (&descs.dst_layer, "dst_layer", &[dnnl_u8, dnnl_f32]),
        (&descs.weights_layer, "weights_layer", &[dnnl_s8]),
        (&descs.weights_iter, "weights_iter", &[dnnl_s8]),
        (&descs.weights_projection, "weights_projection", &[dnnl_s8]),
        (&descs.bias, "bias", &[dnnl_f32]),
        (&descs.src_iter_c, "src_iter_c", &[dnnl_f32]),
        (&descs.dst_iter_c, "dst_iter_c", &[dnnl_f32]),
    ];
    for (md, what, allowed) in rules {
        if let Some(m) = present(md)
            && !allowed.contains(&m.data_type())
        {
            let want: Vec<&str> = allowed.iter().map(|&t| dt_name(t)).collect();
            return Err(Error::unimplemented(format!(
                "{what} is {} in an int8 RNN ({} expected, as upstream)",
                dt_name(m.data_type()),
                want.join(" or ")
            )));
        }
    }
    Ok(dnnl_u8)
}

/// The int8 quantization parameters of an op, from the attributes:
/// u8 data = f32 data * `scale` + `shift`; s8 weights = f32 weights *
/// their scale (one per gate and channel, expanded from a common one).
#[derive(Clone, Debug, PartialEq)]
pub struct Quant {
    pub scale: f32,
    pub shift: f32,
    /// `G * DHC` scales of weights_layer and weights_iter.
    pub weights: Vec<f32>,
    /// `DIC` scales of weights_projection (LSTMP; empty otherwise).
    pub projection: Vec<f32>,
}

/// The weights scales of `q` for `n` channels: mask 0 (one scale) or the
/// channel mask `per_channel` (at least `n` scales; Intel's library does not
/// check the count and reads past a short array).
fn expand_scales(q: &RnnWeightsQparams, per_channel: i32, n: i64, what: &str) -> Result<Vec<f32>> {
    let n = n as usize;
    match q.mask {
        0 => Ok(vec![q.scales[0]; n]),
        m if m == per_channel => {
            if q.scales.len() < n {
                return Err(Error::invalid(format!(
                    "{what}: mask {m} selects {n} scales, {} given",
                    q.scales.len()
                )));
            }
            Ok(q.scales[..n].to_vec())
        }
        m => Err(Error::unimplemented(format!(
            "{what}: mask {m} is not supported (0 or {per_channel}, as upstream)"
        ))),
    }
}

/// The quantization parameters of `attr` for an op of data type `dt`:
/// int8 takes them (defaults: scale 1, shift 0); other types refuse
/// non-default ones, as Intel's library does.
fn quant_of(
    attr: &PrimitiveAttr,
    dt: dnnl_data_type_t,
    d: &Dims,
    projection: bool,
) -> Result<Option<Quant>> {
    if dt != dnnl_u8 {
        let default = PrimitiveAttr::default();
        if attr.rnn_data_qparams != default.rnn_data_qparams
            || attr.rnn_weights_qparams != default.rnn_weights_qparams
            || attr.rnn_weights_projection_qparams != default.rnn_weights_projection_qparams
        {
            return Err(Error::unimplemented(format!(
                "RNN quantization parameters apply to int8 (u8 data) only, not {} data",
                dt_name(dt)
            )));
        }
        return Ok(None);
    }
    let weights = expand_scales(
        &attr.rnn_weights_qparams,
        (1 << 3) | (1 << 4),
        d.g * d.dhc,
        "RNN weights scales",
    )?;
    let projection = if projection {
        expand_scales(
            &attr.rnn_weights_projection_qparams,
            1 << 3,
            d.dic,
            "RNN projection weights scales",
        )?
    } else {
        Vec::new()
    };
    Ok(Some(Quant {
        scale: attr.rnn_data_qparams.scale,
        shift: attr.rnn_data_qparams.shift,
        weights,
        projection,
    }))
}

fn expect_dims(md: &MemoryDesc, what: &str, want: &[i64], rule: &str) -> Result<()> {
    if md.dims() != want {
        return Err(Error::invalid(format!(
            "{what} has dimensions {:?}, expected {want:?} ({rule})",
            md.dims()
        )));
    }
    Ok(())
}

fn resolve(md: &MemoryDesc, tag: dnnl_format_tag_t) -> Result<MemoryDesc> {
    if md.is_any_format() {
        MemoryDesc::with_tag(md.dims(), md.data_type(), tag)
    } else {
        Ok(md.clone())
    }
}

impl RnnOp {
    /// A forward (`hint` `None`, `backward` false) or backward op from the
    /// descriptors of a creation call; every rule of the module doc.
    pub fn new(
        p: RnnParams,
        descs: &RnnDescs,
        backward: bool,
        hint: Option<&RnnOp>,
        attr: &PrimitiveAttr,
    ) -> Result<RnnOp> {
        let cell = Cell::from_c(p.cell)
            .ok_or_else(|| Error::invalid(format!("{:#x} is not an RNN cell kind", p.cell.0)))?;
        if backward {
            if p.prop_kind != dnnl_backward {
                return Err(Error::invalid(format!(
                    "bad propagation kind {} for RNN backward (dnnl_backward expected)",
                    p.prop_kind.0
                )));
            }
        } else if !matches!(p.prop_kind, dnnl_forward_training | dnnl_forward_inference) {
            return Err(Error::invalid(format!(
                "bad propagation kind {} for RNN forward",
                p.prop_kind.0
            )));
        }
        let activation = if cell == Cell::Vanilla {
            Some(match p.activation {
                dnnl_eltwise_relu => Activation::Relu,
                dnnl_eltwise_tanh => Activation::Tanh,
                dnnl_eltwise_logistic => Activation::Logistic,
                a => {
                    return Err(Error::invalid(format!(
                        "activation {:#x}: vanilla RNN takes eltwise_relu, eltwise_tanh or \
                         eltwise_logistic",
                        a.0
                    )));
                }
            })
        } else {
            None
        };
        let dirs = match p.direction {
            dnnl_unidirectional_left2right | dnnl_unidirectional_right2left => 1,
            dnnl_bidirectional_concat | dnnl_bidirectional_sum => 2,
            d => {
                return Err(Error::invalid(format!("{} is not an RNN direction", d.0)));
            }
        };
        if p.flags & !(dnnl_rnn_flags_diff_weights_overwrite.0) != 0 {
            return Err(Error::invalid(format!(
                "flags {:#x}: only dnnl_rnn_flags_diff_weights_overwrite is defined",
                p.flags
            )));
        }
        let required = |md: &Option<Arc<MemoryDesc>>, what: &str| -> Result<Arc<MemoryDesc>> {
            present(md).cloned().ok_or_else(|| {
                Error::invalid(format!(
                    "{what} is required (NULL or a zero descriptor given)"
                ))
            })
        };
        let src_layer = required(&descs.src_layer, "src_layer")?;
        let weights_layer = required(&descs.weights_layer, "weights_layer")?;
        let weights_iter = required(&descs.weights_iter, "weights_iter")?;
        let dst_layer = required(&descs.dst_layer, "dst_layer")?;
        check_md(&src_layer, "src_layer", 3)?;
        check_md(&weights_layer, "weights_layer", 5)?;
        check_md(&weights_iter, "weights_iter", 5)?;
        check_md(&dst_layer, "dst_layer", 3)?;
        let wl = weights_layer.dims();
        let projection = present(&descs.weights_projection).cloned();
        let peephole = present(&descs.weights_peephole).cloned();
        if cell != Cell::Lstm && (projection.is_some() || peephole.is_some()) {
            return Err(Error::invalid(
                "peephole and projection weights are LSTM's only",
            ));
        }
        if let Some(pr) = &projection {
            check_md(pr, "weights_projection", 4)?;
        }
        let dic = projection.as_ref().map_or(wl[4], |pr| pr.dims()[3]);
        let d = Dims {
            l: wl[0],
            d: wl[1],
            t: src_layer.dims()[0],
            n: src_layer.dims()[1],
            g: wl[3],
            slc: src_layer.dims()[2],
            sic: weights_iter.dims()[2],
            dhc: wl[4],
            dic,
            dlc: dst_layer.dims()[2],
        };
        if [d.l, d.t, d.n, d.slc, d.sic, d.dhc, d.dic, d.dlc]
            .iter()
            .any(|&v| v <= 0)
        {
            return Err(Error::invalid(format!(
                "every RNN dimension must be positive: {d:?}"
            )));
        }
        if d.d != dirs {
            return Err(Error::invalid(format!(
                "weights_layer dimension 1 is {}, the direction has {dirs}",
                d.d
            )));
        }
        if d.g != cell.gates() {
            return Err(Error::invalid(format!(
                "weights_layer dimension 3 is {}, the cell has {} gates",
                d.g,
                cell.gates()
            )));
        }
        expect_dims(
            &weights_layer,
            "weights_layer",
            &[d.l, d.d, d.slc, d.g, d.dhc],
            "SLC",
        )?;
        expect_dims(
            &weights_iter,
            "weights_iter",
            &[d.l, d.d, d.sic, d.g, d.dhc],
            "L, D, G, DHC",
        )?;
        let concat = p.direction == dnnl_bidirectional_concat;
        let mult = if concat { 2 } else { 1 };
        if d.dlc != mult * d.dic {
            return Err(Error::invalid(format!(
                "dst_layer has {} channels; the direction needs {} (DIC = {})",
                d.dlc,
                mult * d.dic,
                d.dic
            )));
        }
        expect_dims(
            &dst_layer,
            "dst_layer",
            &[d.t, d.n, d.dlc],
            "T, N as src_layer",
        )?;
        if d.l > 1 && d.dlc != mult * d.slc {
            return Err(Error::invalid(format!(
                "with {} layers src_layer's channels ({}) must be dst_layer's ({}){}",
                d.l,
                d.slc,
                d.dlc,
                if concat { " halved" } else { "" }
            )));
        }
        if d.t > 1 && d.sic != d.dic {
            return Err(Error::invalid(format!(
                "with {} steps src_iter's channels (SIC {}) must be dst_iter's (DIC {})",
                d.t, d.sic, d.dic
            )));
        }
        if cell.gru_like() && d.sic != d.dhc {
            return Err(Error::invalid(format!(
                "a GRU cell needs weights_iter's input channels ({}) equal to the hidden ones ({})",
                d.sic, d.dhc
            )));
        }
        if cell.augru() && d.l != 1 {
            return Err(Error::invalid(format!(
                "AUGRU takes one layer, not {}",
                d.l
            )));
        }
        if cell.augru() && p.direction != dnnl_unidirectional_left2right {
            return Err(Error::invalid(
                "AUGRU takes the unidirectional_left2right direction only (as upstream)",
            ));
        }
        let layer_dims = [d.l, d.d, d.n];
        let iter_dims = |ch: i64| [layer_dims[0], layer_dims[1], layer_dims[2], ch];
        let mut checks: Vec<(&Option<Arc<MemoryDesc>>, &str, Vec<i64>)> = vec![
            (&descs.src_iter, "src_iter", iter_dims(d.sic).to_vec()),
            (&descs.dst_iter, "dst_iter", iter_dims(d.dic).to_vec()),
            (
                &descs.bias,
                "bias",
                vec![d.l, d.d, d.g + i64::from(cell.lbr()), d.dhc],
            ),
        ];
        if cell == Cell::Lstm {
            checks.push((&descs.src_iter_c, "src_iter_c", iter_dims(d.dhc).to_vec()));
            checks.push((&descs.dst_iter_c, "dst_iter_c", iter_dims(d.dhc).to_vec()));
            checks.push((
                &descs.weights_peephole,
                "weights_peephole",
                vec![d.l, d.d, 3, d.dhc],
            ));
            checks.push((
                &descs.weights_projection,
                "weights_projection",
                vec![d.l, d.d, d.dhc, d.dic],
            ));
        }
        if cell.augru() {
            checks.push((&descs.attention, "attention", vec![d.t, d.n, 1]));
        }
        for (md, what, want) in &checks {
            if let Some(md) = present(md) {
                check_md(md, what, want.len())?;
                expect_dims(md, what, want, "from the other tensors")?;
            }
        }
        if cell == Cell::Lstm {
            if present(&descs.src_iter).is_some() != present(&descs.src_iter_c).is_some() {
                return Err(Error::invalid(
                    "LSTM takes src_iter and src_iter_c together (both or neither)",
                ));
            }
            if present(&descs.dst_iter).is_some() != present(&descs.dst_iter_c).is_some() {
                return Err(Error::invalid(
                    "LSTM takes dst_iter and dst_iter_c together (both or neither)",
                ));
            }
        }
        // AUGRU without the attention descriptor: accepted, as upstream;
        // the attention then reads as zero (a GRU).

        let data_type = check_types(descs, backward, p.prop_kind, cell)?;
        let quant = quant_of(attr, data_type, &d, projection.is_some())?;

        // The forward tensors, resolved.
        let wtag = if backward { dnnl_ldgoi } else { dnnl_ldigo };
        let ptag = if backward { dnnl_ldoi } else { dnnl_ldio };
        let mut fwd: Vec<(i32, &Option<Arc<MemoryDesc>>, dnnl_format_tag_t)> = vec![
            (DNNL_ARG_SRC_LAYER, &descs.src_layer, dnnl_tnc),
            (DNNL_ARG_SRC_ITER, &descs.src_iter, dnnl_ldnc),
            (DNNL_ARG_WEIGHTS_LAYER, &descs.weights_layer, wtag),
            (DNNL_ARG_WEIGHTS_ITER, &descs.weights_iter, wtag),
            (DNNL_ARG_BIAS, &descs.bias, dnnl_ldgo),
            (DNNL_ARG_DST_LAYER, &descs.dst_layer, dnnl_tnc),
            (DNNL_ARG_DST_ITER, &descs.dst_iter, dnnl_ldnc),
        ];
        if cell == Cell::Lstm {
            fwd.push((DNNL_ARG_SRC_ITER_C, &descs.src_iter_c, dnnl_ldnc));
            fwd.push((DNNL_ARG_DST_ITER_C, &descs.dst_iter_c, dnnl_ldnc));
            fwd.push((
                DNNL_ARG_WEIGHTS_PEEPHOLE,
                &descs.weights_peephole,
                dnnl_ldgo,
            ));
            fwd.push((DNNL_ARG_WEIGHTS_PROJECTION, &descs.weights_projection, ptag));
        }
        if cell.augru() {
            fwd.push((DNNL_ARG_AUGRU_ATTENTION, &descs.attention, dnnl_tnc));
        }
        let mut mds = Vec::new();
        let mut any = Vec::new();
        for (arg, md, tag) in &fwd {
            if let Some(md) = present(md) {
                if md.is_any_format() {
                    any.push(*arg);
                }
                mds.push((*arg, Arc::new(resolve(md, *tag)?)));
            }
        }
        if backward {
            let pairs: [(
                i32,
                &Option<Arc<MemoryDesc>>,
                &Option<Arc<MemoryDesc>>,
                &str,
                i32,
            ); 12] = [
                (
                    DNNL_ARG_SRC_LAYER,
                    &descs.src_layer,
                    &descs.diff_src_layer,
                    "diff_src_layer",
                    0,
                ),
                (
                    DNNL_ARG_SRC_ITER,
                    &descs.src_iter,
                    &descs.diff_src_iter,
                    "diff_src_iter",
                    0,
                ),
                (
                    DNNL_ARG_SRC_ITER_C,
                    &descs.src_iter_c,
                    &descs.diff_src_iter_c,
                    "diff_src_iter_c",
                    0,
                ),
                (
                    DNNL_ARG_AUGRU_ATTENTION,
                    &descs.attention,
                    &descs.diff_attention,
                    "diff_attention",
                    0,
                ),
                (
                    DNNL_ARG_WEIGHTS_LAYER,
                    &descs.weights_layer,
                    &descs.diff_weights_layer,
                    "diff_weights_layer",
                    1,
                ),
                (
                    DNNL_ARG_WEIGHTS_ITER,
                    &descs.weights_iter,
                    &descs.diff_weights_iter,
                    "diff_weights_iter",
                    1,
                ),
                (
                    DNNL_ARG_WEIGHTS_PEEPHOLE,
                    &descs.weights_peephole,
                    &descs.diff_weights_peephole,
                    "diff_weights_peephole",
                    2,
                ),
                (
                    DNNL_ARG_WEIGHTS_PROJECTION,
                    &descs.weights_projection,
                    &descs.diff_weights_projection,
                    "diff_weights_projection",
                    3,
                ),
                (DNNL_ARG_BIAS, &descs.bias, &descs.diff_bias, "diff_bias", 2),
                (
                    DNNL_ARG_DST_LAYER,
                    &descs.dst_layer,
                    &descs.diff_dst_layer,
                    "diff_dst_layer",
                    0,
                ),
                (
                    DNNL_ARG_DST_ITER,
                    &descs.dst_iter,
                    &descs.diff_dst_iter,
                    "diff_dst_iter",
                    0,
                ),
                (
                    DNNL_ARG_DST_ITER_C,
                    &descs.dst_iter_c,
                    &descs.diff_dst_iter_c,
                    "diff_dst_iter_c",
                    0,
                ),
            ];
            for (arg, fwd_md, diff_md, what, kind) in pairs {
                let applies = cell == Cell::Lstm
                    || !matches!(
                        arg,
                        DNNL_ARG_SRC_ITER_C
                            | DNNL_ARG_DST_ITER_C
                            | DNNL_ARG_WEIGHTS_PEEPHOLE
                            | DNNL_ARG_WEIGHTS_PROJECTION
                    );
                let applies = applies && (cell.augru() || arg != DNNL_ARG_AUGRU_ATTENTION);
                if !applies {
                    continue;
                }
                let diff_arg = diff_arg_of(arg);
                match (present(fwd_md), present(diff_md)) {
                    (None, None) => {}
                    (Some(f), Some(df)) => {
                        check_md(df, what, f.ndims())?;
                        expect_dims(df, what, f.dims(), "the forward tensor's")?;
                        let tag = match kind {
                            0 => {
                                if f.ndims() == 3 {
                                    dnnl_tnc
                                } else {
                                    dnnl_ldnc
                                }
                            }
                            1 => dnnl_ldigo,
                            2 => dnnl_ldgo,
                            _ => dnnl_ldio,
                        };
                        if df.is_any_format() {
                            any.push(diff_arg);
                        }
                        mds.push((diff_arg, Arc::new(resolve(df, tag)?)));
                    }
                    (Some(_), None) => {
                        return Err(Error::invalid(format!(
                            "{what} is required: its forward tensor is given"
                        )));
                    }
                    (None, Some(_)) => {
                        return Err(Error::invalid(format!(
                            "{what} is given but its forward tensor is not"
                        )));
                    }
                }
            }
        }
        let ws_layout = WsLayout::new(cell, projection.is_some(), &d);
        let ws = (backward || p.prop_kind == dnnl_forward_training)
            .then(|| {
                let bytes = ws_layout.elems(&d) * 4;
                MemoryDesc::with_strides(&[bytes], dnnl_u8, None)
            })
            .transpose()?
            .map(Arc::new);
        let op = RnnOp {
            backward,
            prop_kind: p.prop_kind,
            cell,
            activation,
            activation_c: if cell == Cell::Vanilla {
                p.activation
            } else {
                dnnl_alg_kind_undef
            },
            direction: p.direction,
            flags: p.flags,
            alpha: p.alpha,
            beta: p.beta,
            dims: d,
            data_type,
            quant,
            mds,
            any,
            ws,
            ws_layout,
        };
        if backward {
            // The workspace layout is the problem's, whatever the hint:
            // upstream accepts no hint or an inference one; a hint of
            // another problem is refused.
            let fits = hint.is_none_or(|h| {
                !h.backward
                    && h.cell == op.cell
                    && h.direction == op.direction
                    && h.activation == op.activation
                    && h.dims == op.dims
            });
            if !fits {
                return Err(Error::unimplemented(
                    "hint_fwd_pd is a descriptor of another RNN problem \
                     (cell, direction, activation or shapes)",
                ));
            }
        }
        Ok(op)
    }

    pub fn is_backward(&self) -> bool {
        self.backward
    }

    pub fn cell(&self) -> Cell {
        self.cell
    }

    pub fn activation(&self) -> Option<Activation> {
        self.activation
    }

    pub fn alpha(&self) -> f32 {
        self.alpha
    }

    pub fn direction(&self) -> dnnl_rnn_direction_t {
        self.direction
    }

    /// The data type of the layer and iteration data (f32, bf16, f16 or
    /// u8).
    pub fn data_type(&self) -> dnnl_data_type_t {
        self.data_type
    }

    /// int8: the quantization parameters.
    pub fn quant(&self) -> Option<&Quant> {
        self.quant.as_ref()
    }

    pub fn dims(&self) -> &Dims {
        &self.dims
    }

    pub fn ws_layout(&self) -> &WsLayout {
        &self.ws_layout
    }

    /// Whether backward overwrites the weight gradients.
    pub fn overwrites_diff_weights(&self) -> bool {
        self.flags & dnnl_rnn_flags_diff_weights_overwrite.0 != 0
    }

    /// Whether argument `arg` was given.
    pub fn has(&self, arg: i32) -> bool {
        self.mds.iter().any(|(a, _)| *a == arg)
    }

    fn weights_args(&self, diff: bool) -> Vec<i32> {
        let base = [
            DNNL_ARG_WEIGHTS_LAYER,
            DNNL_ARG_WEIGHTS_ITER,
            DNNL_ARG_WEIGHTS_PEEPHOLE,
            DNNL_ARG_WEIGHTS_PROJECTION,
            DNNL_ARG_BIAS,
        ];
        base.iter()
            .filter(|a| self.has(**a))
            .map(|&a| if diff { diff_arg_of(a) } else { a })
            .collect()
    }

    fn present_of(&self, args: &[i32]) -> Vec<i32> {
        args.iter().copied().filter(|a| self.has(*a)).collect()
    }
}

/// The diff argument of forward argument `arg`.
pub fn diff_arg_of(arg: i32) -> i32 {
    match arg {
        DNNL_ARG_BIAS => DNNL_ARG_DIFF_BIAS,
        DNNL_ARG_AUGRU_ATTENTION => DNNL_ARG_DIFF_AUGRU_ATTENTION,
        a => a + DNNL_ARG_DIFF_SRC_LAYER - DNNL_ARG_SRC_LAYER,
    }
}

impl OpDesc for RnnOp {
    fn kind(&self) -> dnnl_primitive_kind_t {
        dnnl_rnn
    }

    fn prop_kind(&self) -> dnnl_prop_kind_t {
        self.prop_kind
    }

    fn arg_md(&self, arg: i32) -> Option<&Arc<MemoryDesc>> {
        if arg == DNNL_ARG_WORKSPACE {
            return self.ws.as_ref();
        }
        self.mds.iter().find(|(a, _)| *a == arg).map(|(_, md)| md)
    }

    fn inputs(&self) -> Vec<i32> {
        let mut v = self.present_of(&[
            DNNL_ARG_SRC_LAYER,
            DNNL_ARG_AUGRU_ATTENTION,
            DNNL_ARG_SRC_ITER,
            DNNL_ARG_SRC_ITER_C,
        ]);
        v.extend(self.weights_args(false));
        if self.backward {
            v.extend(self.present_of(&[
                DNNL_ARG_DST_LAYER,
                DNNL_ARG_DST_ITER,
                DNNL_ARG_DST_ITER_C,
                DNNL_ARG_DIFF_DST_LAYER,
                DNNL_ARG_DIFF_DST_ITER,
                DNNL_ARG_DIFF_DST_ITER_C,
            ]));
            v.push(DNNL_ARG_WORKSPACE);
        }
        v
    }

    fn outputs(&self) -> Vec<i32> {
        if self.backward {
            let mut v = self.present_of(&[
                DNNL_ARG_DIFF_SRC_LAYER,
                DNNL_ARG_DIFF_AUGRU_ATTENTION,
                DNNL_ARG_DIFF_SRC_ITER,
                DNNL_ARG_DIFF_SRC_ITER_C,
            ]);
            v.extend(self.weights_args(true));
            return v;
        }
        let mut v = self.present_of(&[DNNL_ARG_DST_LAYER, DNNL_ARG_DST_ITER, DNNL_ARG_DST_ITER_C]);
        if self.ws.is_some() {
            v.push(DNNL_ARG_WORKSPACE);
        }
        v
    }

    fn query_f32(&self, what: dnnl_query_t) -> Option<f32> {
        match what {
            dnnl_query_alpha_f32 => Some(self.alpha),
            _ => None,
        }
    }

    fn query_s32(&self, what: dnnl_query_t) -> Option<i32> {
        match what {
            dnnl_query_cell_kind => Some(self.cell.to_c().0 as i32),
            dnnl_query_activation_kind => Some(self.activation_c.0 as i32),
            dnnl_query_direction => Some(self.direction.0 as i32),
            _ => None,
        }
    }

    fn md_query_arg(&self, what: dnnl_query_t, index: i32) -> Option<i32> {
        // The weights queries count the present weights in upstream's
        // order: layer, iter, peephole, projection, bias.
        let diff = match what {
            dnnl_query_weights_md => false,
            dnnl_query_diff_weights_md => true,
            _ => return None,
        };
        let args = self.weights_args(diff);
        Some(
            usize::try_from(index)
                .ok()
                .and_then(|i| args.get(i).copied())
                .unwrap_or(DNNL_ARG_UNDEF),
        )
    }

    fn verbose_aux(&self) -> String {
        let alg = names::enum_str(dnnl_alg_kind_t::ALL, self.cell.to_c(), "dnnl_", "undef");
        let dir = names::enum_str(dnnl_rnn_direction_t::ALL, self.direction, "dnnl_", "undef");
        let act = names::enum_str(dnnl_alg_kind_t::ALL, self.activation_c, "dnnl_", "undef");
        let flags = if self.overwrites_diff_weights() {
            "O"
        } else {
            ""
        };
        format!("alg:{alg} direction:{dir} activation:{act} flags:{flags}")
    }

    fn verbose_problem(&self) -> String {
        let d = &self.dims;
        format!(
            "l{}t{}mb{}sic{}slc{}dhc{}dic{}",
            d.l, d.t, d.n, d.sic, d.slc, d.dhc, d.dic
        )
    }

    fn verbose_any_format(&self, arg: i32) -> bool {
        self.any.contains(&arg)
    }

    fn cache_key(&self, w: &mut KeyWriter) -> bool {
        w.tag("rnn")
            .bool(self.backward)
            .put(&self.prop_kind)
            .put(&self.cell.to_c())
            .put(&self.activation_c)
            .u32(self.direction.0)
            .u32(self.flags)
            .f32(self.alpha)
            .f32(self.beta);
        for (arg, md) in &self.mds {
            w.i32(*arg).put(&**md);
        }
        w.opt(self.ws.as_deref());
        if let Some(q) = &self.quant {
            w.f32(q.scale).f32(q.shift);
            for &v in q.weights.iter().chain(&q.projection) {
                w.f32(v);
            }
        }
        true
    }
}

impl Kind for RnnOp {
    const NAME: &'static str = "rnn";
    const IMPLS: &'static [Impl<RnnOp>] = &[
        Impl::cpu(c"cpu:rnn_gemm", any_op, cpu::create),
        Impl::gpu(c"ocl:rnn_gemm", ocl::accepts, ocl::create)
            .with_scratchpad(ocl::scratchpad_bytes),
    ];

    fn attr_support(&self) -> AttrSupport {
        // The quantization parameters; `RnnOp::new` refuses them but for
        // int8, as upstream.
        AttrSupport::parts(&[
            AttrPart::RnnDataQparams,
            AttrPart::RnnWeightsQparams,
            AttrPart::RnnWeightsProjectionQparams,
        ])
    }
}
