//! Graph dumps (`dnnl_graph_set_dump_mode`, or `ONEDNN_GRAPH_DUMP` =
//! `graph`, `subgraph` or both, comma-separated): JSON files in the working
//! directory describing a finalized graph (`graph-<graph id>.json`) and each
//! compiled partition (`graph-partition-<partition id>.json`), with every op
//! (id, kind, name, attributes, input and output tensors) and, for a
//! partition, its resolved input and output tensors. The format is ours and
//! simpler than upstream's: one object with `ops` (and `inputs`/`outputs`).
//!
//! Layer: graph. A failure to write is logged (verbose `warn`), never an
//! error of the API call.

use std::sync::Once;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::abi::*;
use crate::core::error::{Error, Result};
use crate::core::verbose::{self, flag};
use crate::graph::compiled::Compiled;
use crate::graph::logical_tensor::{self, Lt};
use crate::graph::op::Op;
use crate::graph::partition::Partition;

const SUBGRAPH: u32 = 1;
const GRAPH: u32 = 2;

static MODE: AtomicU32 = AtomicU32::new(0);
static FROM_ENV: Once = Once::new();

fn mode() -> u32 {
    FROM_ENV.call_once(|| {
        if let Some(v) = crate::core::env::get("GRAPH_DUMP") {
            let mut m = 0;
            for t in v.split(',').map(str::trim) {
                match t {
                    "graph" => m |= GRAPH,
                    "subgraph" => m |= SUBGRAPH,
                    _ => {}
                }
            }
            MODE.fetch_or(m, Ordering::Relaxed);
        }
    });
    MODE.load(Ordering::Relaxed)
}

/// `dnnl_graph_set_dump_mode`: a combination of the mode bits.
pub fn set_mode(modes: dnnl_graph_dump_mode_t) -> Result<()> {
    if modes.0 & !(SUBGRAPH | GRAPH) != 0 {
        return Err(Error::invalid(format!("{:#x} is not a dump mode", modes.0)));
    }
    mode();
    MODE.store(modes.0, Ordering::Relaxed);
    Ok(())
}

fn lt_json(lt: &Lt) -> String {
    let dims = logical_tensor::dims(lt)
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let strides = logical_tensor::strides(lt)
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let dt = crate::core::names::enum_str(dnnl_data_type_t::ALL, lt.data_type, "dnnl_", "undef");
    format!(
        "{{\"id\": {}, \"dtype\": \"{dt}\", \"shape\": [{dims}], \"stride\": [{strides}], \"layout_type\": {}, \"property_type\": {}}}",
        lt.id, lt.layout_type.0, lt.property.0
    )
}

fn op_json(op: &Op) -> String {
    let lts = |v: &[Lt]| v.iter().map(lt_json).collect::<Vec<_>>().join(", ");
    let attrs = op
        .attrs
        .iter()
        .map(|(a, v)| {
            let name = crate::graph::schema::attr_name(dnnl_graph_op_attr_t(*a)).unwrap_or("?");
            format!("\"{name}\": {}", v.to_json())
        })
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "{{\"id\": {}, \"name\": {:?}, \"kind\": \"{}\", \"attrs\": {{{attrs}}}, \"inputs\": [{}], \"outputs\": [{}]}}",
        op.id,
        op.name,
        op.kind_name(),
        lts(&op.inputs),
        lts(&op.outputs)
    )
}

fn write(name: &str, body: String) {
    if let Err(e) = std::fs::write(name, body)
        && verbose::enabled(flag::WARN)
    {
        verbose::emit_line("graph,warn,", &format!("dump,cannot write {name}: {e}"));
    }
}

/// Dumps a finalized graph (graph mode).
pub fn graph(id: usize, ops: &[Op]) {
    if mode() & GRAPH == 0 {
        return;
    }
    let ops = ops.iter().map(op_json).collect::<Vec<_>>().join(",\n    ");
    write(
        &format!("graph-{id}.json"),
        format!("{{\n  \"graph\": {id},\n  \"ops\": [\n    {ops}\n  ]\n}}\n"),
    );
}

/// Dumps a compiled partition (subgraph mode).
pub fn subgraph(p: &Partition, c: &Compiled) {
    if mode() & SUBGRAPH == 0 {
        return;
    }
    let lts = |v: &[Lt]| v.iter().map(lt_json).collect::<Vec<_>>().join(", ");
    let ops = p
        .ops()
        .iter()
        .map(op_json)
        .collect::<Vec<_>>()
        .join(",\n    ");
    write(
        &format!("graph-partition-{}.json", p.id()),
        format!(
            "{{\n  \"partition\": {},\n  \"kind\": \"{}\",\n  \"inputs\": [{}],\n  \"outputs\": [{}],\n  \"ops\": [\n    {ops}\n  ]\n}}\n",
            p.id(),
            p.kind_name(),
            lts(c.inputs()),
            lts(c.outputs())
        ),
    );
}
