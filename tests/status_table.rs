//! `docs/status.md`, the table of implemented and not yet implemented entry
//! points, is generated from the source tree and kept current by this test.
//!
//! An exported function lives in `src/capi/<family>/`; it is "not yet
//! implemented" exactly when it sits in that family's `unimplemented.rs`.
//! `DNNL_BLESS_DOCS=1` rewrites the committed table.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

const FAMILIES: &[(&str, &str)] = &[
    ("common", "dnnl_common.h"),
    ("dnnl", "dnnl.h"),
    ("debug", "dnnl_debug.h"),
    ("ocl", "dnnl_ocl.h"),
    ("ze", "dnnl_ze.h"),
    ("graph", "dnnl_graph.h"),
    ("graph_ocl", "dnnl_graph_ocl.h"),
    ("ukernel", "dnnl_ukernel.h"),
    ("threadpool", "dnnl_threadpool.h"),
];

fn exported_fns(file: &Path) -> Vec<String> {
    let text = fs::read_to_string(file).unwrap();
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("pub unsafe extern \"C\" fn "))
        .map(|rest| rest.split('(').next().unwrap().to_string())
        .collect()
}

fn table() -> String {
    let capi = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/capi");
    let mut out = String::from(
        "# Implementation status\n\n\
         Generated from `src/capi/` by `tests/status_table.rs` (`DNNL_BLESS_DOCS=1 cargo test --test \
         status_table` rewrites it). Every function is exported; one that is not implemented yet \
         returns `dnnl_unimplemented` (or 0 where it returns a value), writes nothing through its \
         pointers, and says so under `ONEDNN_VERBOSE=check`. The `*_destroy` functions are real: they \
         release the caller's handle, accept NULL as upstream does (but \
         `dnnl_graph_allocator_destroy`, as upstream), and reject unknown and already destroyed \
         handles and those returned by queries (until a kind's create functions exist, every \
         non-NULL handle of that kind is rejected).\n\n",
    );
    let mut rows = Vec::new();
    let mut sections = String::new();
    let (mut total_done, mut total) = (0, 0);
    for (family, header) in FAMILIES {
        let dir = capi.join(family);
        let mut status: BTreeMap<String, bool> = BTreeMap::new();
        for entry in fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let done = path.file_name().unwrap() != "unimplemented.rs";
            for name in exported_fns(&path) {
                status.insert(name, done);
            }
        }
        let done = status.values().filter(|d| **d).count();
        total_done += done;
        total += status.len();
        rows.push(format!("| `{header}` | {done} | {} |", status.len()));
        sections.push_str(&format!(
            "\n## `{header}`\n\n| function | status |\n| --- | --- |\n"
        ));
        for (name, done) in &status {
            let mark = if *done { "implemented" } else { "not yet" };
            sections.push_str(&format!("| `{name}` | {mark} |\n"));
        }
    }
    out.push_str("| header | implemented | exported |\n| --- | --- | --- |\n");
    out.push_str(&rows.join("\n"));
    out.push_str(&format!("\n| **all** | **{total_done}** | **{total}** |\n"));
    out.push_str(&sections);
    out
}

#[test]
fn status_table_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/status.md");
    let wanted = table();
    if std::env::var_os("DNNL_BLESS_DOCS").is_some() {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, &wanted).unwrap();
        return;
    }
    let have = fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == wanted,
        "docs/status.md is stale: run DNNL_BLESS_DOCS=1 cargo test --test status_table"
    );
}
