//! The `primitive,create` and `primitive,exec` lines of `ONEDNN_VERBOSE`, in
//! oneDNN's field order: operation, engine, primitive kind, implementation,
//! prop kind, memory descriptors, attributes, auxiliary, problem, time in ms.
//!
//! The memory descriptors are named and chosen per kind as upstream v3.13
//! prints them, since upstream's verbose converter reads those names to
//! rebuild a benchdnn case (`tests-c/verbose`): every source of concat, sum and
//! binary is `src`; convolution, deconvolution, inner product and matmul name
//! their operands `src wei bia dst` in every direction (the diff tensors under
//! the plain names); eltwise, LRN, shuffle and batch normalization show their
//! data tensor as `data` (and its gradient as `diff`); PReLU `data` and `wei`;
//! layer and group normalization `src dst`, with `stats`, `scale` and `shift`.
//! A descriptor whose format the user left to the primitive carries the `a`
//! flag.

use crate::abi::*;
use crate::core::engine::Engine;
use crate::core::memory_desc::{Format, MemoryDesc};
use crate::core::names::enum_str;
use crate::core::primitive::PrimitiveDesc;
use crate::core::verbose;

/// `cpu` or `gpu`, with `:<index>` only when there are several engines of the kind.
fn engine_field(engine: &Engine) -> String {
    let kind = engine.kind();
    if Engine::count(kind) > 1 {
        format!("{}:{}", kind.name(), engine.index())
    } else {
        kind.name().to_string()
    }
}

/// One memory descriptor: `name:dt:flags:format_kind:tag:strides:extra`.
pub(crate) fn md_field(name: &str, md: &MemoryDesc) -> String {
    md_field_with(name, md, false, "f0")
}

/// [`md_field`] with the `a` flag forced (`chosen`: the user left the format
/// to the primitive) and the extra field given.
fn md_field_with(name: &str, md: &MemoryDesc, chosen: bool, extra: &str) -> String {
    let dt = enum_str(dnnl_data_type_t::ALL, md.data_type(), "dnnl_", "undef");
    let (kind, tag) = match md.format() {
        Format::Undef => ("undef", String::new()),
        Format::Any => ("any", String::new()),
        Format::Blocked(_) => ("blocked", md.layout_tag()),
        Format::Sparse(_) => ("sparse", String::new()),
        Format::HostScalar => ("host_scalar", String::new()),
    };
    let mut flags = String::new();
    if chosen || md.is_any_format() {
        flags.push('a');
    }
    if md.padded_dims() != md.dims() {
        flags.push('p');
    }
    if md.offset0() != 0 {
        flags.push('0');
    }
    format!("{name}:{dt}:{flags}:{kind}:{tag}::{extra}")
}

/// Whether [`verbose_arg`] has a table for `kind`.
fn has_own_names(kind: &str) -> bool {
    matches!(
        kind,
        "convolution"
            | "deconvolution"
            | "inner_product"
            | "matmul"
            | "eltwise"
            | "lrn"
            | "shuffle"
            | "batch_normalization"
            | "prelu"
            | "layer_normalization"
            | "group_normalization"
            | "concat"
            | "sum"
            | "binary"
            | "rnn"
    )
}

fn arg_name(arg: i32) -> String {
    match arg {
        DNNL_ARG_SRC => "src".into(),
        DNNL_ARG_DST => "dst".into(),
        DNNL_ARG_WEIGHTS => "wei".into(),
        DNNL_ARG_BIAS => "bia".into(),
        DNNL_ARG_DIFF_SRC => "diff_src".into(),
        DNNL_ARG_DIFF_DST => "diff_dst".into(),
        DNNL_ARG_DIFF_WEIGHTS => "diff_wei".into(),
        DNNL_ARG_DIFF_BIAS => "diff_bia".into(),
        DNNL_ARG_WORKSPACE => "ws".into(),
        a if (DNNL_ARG_SRC_0..DNNL_ARG_DST_0).contains(&a) => format!("src{}", a - DNNL_ARG_SRC_0),
        a => format!("arg{a}"),
    }
}

/// The name upstream gives argument `arg` of a `kind` primitive in verbose
/// lines, with its rank in the field (lower first), or `None` where upstream
/// leaves the argument out.
fn verbose_arg(kind: &str, arg: i32) -> Option<(&'static str, u8)> {
    let operands = |a| match a {
        DNNL_ARG_SRC | DNNL_ARG_DIFF_SRC => Some(("src", 0)),
        DNNL_ARG_WEIGHTS | DNNL_ARG_DIFF_WEIGHTS => Some(("wei", 1)),
        DNNL_ARG_BIAS | DNNL_ARG_DIFF_BIAS => Some(("bia", 2)),
        DNNL_ARG_DST | DNNL_ARG_DIFF_DST => Some(("dst", 3)),
        _ => None,
    };
    let data = |a| match a {
        DNNL_ARG_SRC | DNNL_ARG_DST => Some(("data", 0)),
        DNNL_ARG_DIFF_SRC => Some(("diff", 2)),
        _ => None,
    };
    let norm = |a| match a {
        DNNL_ARG_SRC => Some(("src", 0)),
        DNNL_ARG_DST => Some(("dst", 1)),
        DNNL_ARG_DIFF_SRC => Some(("diff_src", 2)),
        DNNL_ARG_DIFF_DST => Some(("diff_dst", 3)),
        DNNL_ARG_MEAN => Some(("stats", 4)),
        DNNL_ARG_SCALE | DNNL_ARG_DIFF_SCALE => Some(("scale", 5)),
        DNNL_ARG_SHIFT | DNNL_ARG_DIFF_SHIFT => Some(("shift", 6)),
        _ => None,
    };
    match kind {
        "convolution" | "deconvolution" | "inner_product" | "matmul" => operands(arg),
        "eltwise" | "lrn" | "shuffle" | "batch_normalization" => data(arg),
        "prelu" => match arg {
            DNNL_ARG_SRC => Some(("data", 0)),
            DNNL_ARG_WEIGHTS => Some(("wei", 1)),
            DNNL_ARG_DIFF_SRC => Some(("diff_data", 2)),
            DNNL_ARG_DIFF_WEIGHTS => Some(("diff_wei", 3)),
            _ => None,
        },
        "layer_normalization" => norm(arg),
        // Group normalization's statistics are not shown, as upstream.
        "group_normalization" => norm(arg).filter(|(name, _)| *name != "stats"),
        "rnn" => rnn_arg(arg),
        "concat" | "sum" | "binary" => match arg {
            a if (DNNL_ARG_MULTIPLE_SRC..DNNL_ARG_MULTIPLE_DST).contains(&a) => Some(("src", 0)),
            a if (DNNL_ARG_SRC_0..DNNL_ARG_DST_0).contains(&a) => Some(("src", 0)),
            DNNL_ARG_DST => Some(("dst", 1)),
            _ => None,
        },
        _ => None,
    }
}

/// RNN's names and order (its workspace and cell states are not shown,
/// as upstream).
fn rnn_arg(arg: i32) -> Option<(&'static str, u8)> {
    Some(match arg {
        DNNL_ARG_SRC_LAYER => ("src_layer", 0),
        DNNL_ARG_SRC_ITER => ("src_iter", 1),
        DNNL_ARG_WEIGHTS_LAYER => ("wei_layer", 2),
        DNNL_ARG_WEIGHTS_ITER => ("wei_iter", 3),
        DNNL_ARG_WEIGHTS_PEEPHOLE => ("wei_peephole", 4),
        DNNL_ARG_WEIGHTS_PROJECTION => ("wei_proj", 5),
        DNNL_ARG_BIAS => ("bias", 6),
        DNNL_ARG_DST_LAYER => ("dst_layer", 7),
        DNNL_ARG_DST_ITER => ("dst_iter", 8),
        DNNL_ARG_DIFF_SRC_LAYER => ("diff_src_layer", 9),
        DNNL_ARG_DIFF_SRC_ITER => ("diff_src_iter", 10),
        DNNL_ARG_DIFF_WEIGHTS_LAYER => ("diff_wei_layer", 11),
        DNNL_ARG_DIFF_WEIGHTS_ITER => ("diff_wei_iter", 12),
        DNNL_ARG_DIFF_WEIGHTS_PEEPHOLE => ("diff_wei_peephole", 13),
        DNNL_ARG_DIFF_WEIGHTS_PROJECTION => ("diff_wei_proj", 14),
        DNNL_ARG_DIFF_BIAS => ("diff_bias", 15),
        DNNL_ARG_DIFF_DST_LAYER => ("diff_dst_layer", 16),
        DNNL_ARG_DIFF_DST_ITER => ("diff_dst_iter", 17),
        _ => return None,
    })
}

/// The `extra` field of argument `arg`'s descriptor: `f0`, and for matmul's
/// bias the mask of its dimensions that are not 1 (`f0_mask2`), from which
/// benchdnn's `--bia_mask` is rebuilt.
fn md_extra(kind: &str, arg: i32, md: &MemoryDesc) -> String {
    if kind == "matmul" && arg == DNNL_ARG_BIAS {
        let mask = md
            .dims()
            .iter()
            .enumerate()
            .filter(|(_, d)| **d != 1)
            .fold(0u64, |m, (i, _)| m | (1 << i));
        return format!("f0_mask{mask}");
    }
    "f0".to_string()
}

/// The line's fields after the operation and the engine.
fn fields(pd: &PrimitiveDesc) -> String {
    let op = pd.op();
    let kind = enum_str(dnnl_primitive_kind_t::ALL, op.kind(), "dnnl_", "undef");
    let prop = enum_str(dnnl_prop_kind_t::ALL, op.prop_kind(), "dnnl_", "undef");
    let mut named: Vec<(u8, usize, String)> = Vec::new();
    let mut shown = 0;
    for arg in op
        .inputs()
        .into_iter()
        .chain(op.outputs())
        // Post-op operands are spelled in the attributes field, as upstream does.
        .filter(|&arg| arg < DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE)
    {
        let Some(md) = op.arg_md(arg) else { continue };
        let (name, rank) = match verbose_arg(kind, arg) {
            Some((name, rank)) => (name.to_string(), rank),
            // Kinds without a table of their own keep every argument, by
            // its generic name.
            None if !has_own_names(kind) => (arg_name(arg), 0),
            None => continue,
        };
        // The data tensor is shown once (eltwise's forward has src and dst).
        if name == "data" && named.iter().any(|(_, _, f)| f.starts_with("data:")) {
            continue;
        }
        let field = md_field_with(
            &name,
            md,
            op.verbose_any_format(arg),
            &md_extra(kind, arg, md),
        );
        named.push((rank, shown, field));
        shown += 1;
    }
    named.sort_by_key(|(rank, order, _)| (*rank, *order));
    let mds: Vec<String> = named.into_iter().map(|(_, _, f)| f).collect();
    let problem = op.verbose_problem();
    format!(
        "{kind},{},{prop},{},{},{},{problem}",
        pd.impl_name().to_string_lossy(),
        mds.join(" "),
        pd.attr_verbose(),
        op.verbose_aux()
    )
}

/// Logs a primitive creation that took `ms` milliseconds (`hit`: the
/// implementation came from the primitive cache).
pub fn log_create(pd: &PrimitiveDesc, hit: bool, ms: f64) {
    let kind = enum_str(dnnl_primitive_kind_t::ALL, pd.op().kind(), "dnnl_", "undef");
    if !verbose::enabled(verbose::flag::PROFILE_CREATE) || !verbose::passes_filter(kind) {
        return;
    }
    verbose::emit_line(
        "primitive,",
        &format!(
            "create:{},{},{},{ms:.6}",
            if hit { "cache_hit" } else { "cache_miss" },
            engine_field(pd.engine()),
            fields(pd)
        ),
    );
}

/// Logs an execution that took `ms` milliseconds.
pub fn log_exec(pd: &PrimitiveDesc, ms: f64) {
    let kind = enum_str(dnnl_primitive_kind_t::ALL, pd.op().kind(), "dnnl_", "undef");
    if !verbose::passes_filter(kind) {
        return;
    }
    verbose::emit_line(
        "primitive,",
        &format!("exec,{},{},{ms:.6}", engine_field(pd.engine()), fields(pd)),
    );
}

/// Whether an execution should be timed and logged.
pub fn exec_logged() -> bool {
    verbose::enabled(verbose::flag::PROFILE_EXEC)
}
