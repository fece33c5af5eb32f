//! The `primitive,create` and `primitive,exec` lines of `ONEDNN_VERBOSE`, in
//! oneDNN's field order: operation, engine, primitive kind, implementation,
//! prop kind, memory descriptors, attributes, auxiliary, problem, time in ms.

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
    let dt = enum_str(dnnl_data_type_t::ALL, md.data_type(), "dnnl_", "undef");
    let (kind, tag) = match md.format() {
        Format::Undef => ("undef", String::new()),
        Format::Any => ("any", String::new()),
        Format::Blocked(_) => ("blocked", md.layout_tag()),
        Format::Sparse(_) => ("sparse", String::new()),
        Format::HostScalar => ("host_scalar", String::new()),
    };
    let mut flags = String::new();
    if md.is_any_format() {
        flags.push('a');
    }
    if md.padded_dims() != md.dims() {
        flags.push('p');
    }
    if md.offset0() != 0 {
        flags.push('0');
    }
    format!("{name}:{dt}:{flags}:{kind}:{tag}::f0")
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
        a if (DNNL_ARG_SRC_0..DNNL_ARG_DST_0).contains(&a) => format!("src{}", a - DNNL_ARG_SRC_0),
        a => format!("arg{a}"),
    }
}

/// The line's fields after the operation and the engine.
fn fields(pd: &PrimitiveDesc) -> String {
    let op = pd.op();
    let kind = enum_str(dnnl_primitive_kind_t::ALL, op.kind(), "dnnl_", "undef");
    let prop = enum_str(dnnl_prop_kind_t::ALL, op.prop_kind(), "dnnl_", "undef");
    let mds: Vec<String> = op
        .inputs()
        .into_iter()
        .chain(op.outputs())
        // Post-op operands are spelled in the attributes field, as upstream does.
        .filter(|&arg| arg < DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE)
        .filter_map(|arg| op.arg_md(arg).map(|md| md_field(&arg_name(arg), md)))
        .collect();
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
