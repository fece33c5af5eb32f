//! The `graph,create:*` and `graph,exec` lines of `ONEDNN_VERBOSE`, in the
//! field order of oneDNN's template: operation, engine, partition id,
//! partition kind, op names, data formats, logical tensors, fpmath mode,
//! implementation, backend, time in ms.

use crate::abi::*;
use crate::core::engine::Engine;
use crate::core::names::enum_str;
use crate::core::verbose::{self, flag};
use crate::graph::compiled::Compiled;
use crate::graph::logical_tensor;

fn engine_field(engine: &Engine) -> String {
    let kind = engine.kind();
    if Engine::count(kind) > 1 {
        format!("{}:{}", kind.name(), engine.index())
    } else {
        kind.name().to_string()
    }
}

fn fields(c: &Compiled) -> String {
    let p = c.partition();
    let ops: Vec<&str> = p.ops().iter().map(|o| o.name.as_str()).collect();
    let lts = |prefix: &str, v: &[logical_tensor::Lt]| {
        v.iter()
            .enumerate()
            .map(|(i, l)| format!("{prefix}{i}_{}", logical_tensor::describe(l)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let fp = p.fpmath();
    format!(
        "{},{},{},{},data:strided,{} {},fpmath:{}:{},dnnl_rs:{}steps,dnnl_backend",
        engine_field(c.engine()),
        p.id(),
        p.kind_name(),
        ops.join(";"),
        lts("in", c.inputs()),
        lts("out", c.outputs()),
        enum_str(dnnl_fpmath_mode_t::ALL, fp.mode, "dnnl_fpmath_mode_", "?"),
        fp.apply_to_int,
        c.num_steps()
    )
}

/// Logs a compilation (`create:cache_hit` or `create:cache_miss`).
pub fn log_create(c: &Compiled, hit: bool, ms: f64) {
    if !verbose::enabled(flag::PROFILE_CREATE) || !verbose::passes_filter("graph") {
        return;
    }
    let op = if hit { "cache_hit" } else { "cache_miss" };
    verbose::emit_line(
        &format!("graph,create:{op},"),
        &format!("{},{ms:.6}", fields(c)),
    );
}

/// Whether executions are logged (they are then timed, the stream drained).
pub fn exec_logged() -> bool {
    verbose::enabled(flag::PROFILE_EXEC) && verbose::passes_filter("graph")
}

/// Logs an execution.
pub fn log_exec(c: &Compiled, ms: f64) {
    verbose::emit_line("graph,exec,", &format!("{},{ms:.6}", fields(c)));
}
