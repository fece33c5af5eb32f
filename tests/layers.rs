//! The layers of `src/` import only downward, and a primitive kind imports
//! only the shared parts of `prims` (`prims::common`), never another kind.
//!
//! Layers, bottom first: `abi`, `base`, `runtime`, `core`, `prims`, `graph`,
//! `capi`. A file may name (`crate::<module>`) its own layer and the layers
//! below it. The test reads every `.rs` file under `src/`, skipping comments,
//! and fails listing each path that breaks a rule.

use std::path::{Path, PathBuf};

/// The layers, bottom first.
const LAYERS: [&str; 7] = ["abi", "base", "runtime", "core", "prims", "graph", "capi"];

fn rank(layer: &str) -> Option<usize> {
    LAYERS.iter().position(|l| *l == layer)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `crate::a::b` path named in `source` outside comments, as (line
/// number, `a`, `b`).
fn crate_paths(source: &str) -> Vec<(usize, String, String)> {
    let mut found = Vec::new();
    for (n, line) in source.lines().enumerate() {
        let code = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            // `$crate::` in macros names this crate too.
            let after = &rest[i + "crate::".len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let sub = after[name.len()..]
                .strip_prefix("::")
                .map(|s| {
                    s.chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '{')
                        .collect::<String>()
                })
                .unwrap_or_default();
            found.push((n + 1, name.clone(), sub));
            rest = &after[name.len()..];
        }
    }
    found
}

/// The layer and, under `prims`, the kind of a file (`src/prims/eltwise/ocl.rs`
/// -> ("prims", Some("eltwise"))).
fn place(rel: &Path) -> (String, Option<String>) {
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let layer = parts[0].trim_end_matches(".rs").to_string();
    let kind = (layer == "prims" && parts.len() > 2).then(|| parts[1].clone());
    (layer, kind)
}

#[test]
fn layers_import_only_downward() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut broken = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let (layer, kind) = place(rel);
        let Some(own) = rank(&layer) else {
            continue; // lib.rs: the module map and the load-time hook
        };
        let source = std::fs::read_to_string(file).unwrap();
        for (line, to, sub) in crate_paths(&source) {
            let Some(target) = rank(&to) else {
                broken.push(format!(
                    "{}:{line}: unknown module crate::{to}",
                    rel.display()
                ));
                continue;
            };
            if target > own {
                broken.push(format!(
                    "{}:{line}: {layer} imports crate::{to} (a layer above it)",
                    rel.display()
                ));
            }
            // A kind (and `prims::common`, shared by every kind) uses no
            // other kind.
            if let Some(kind) = &kind
                && to == "prims"
                && sub != "common"
                && sub != *kind
            {
                broken.push(format!(
                        "{}:{line}: the {kind} kind imports crate::prims::{sub} (another kind; share through prims::common)",
                        rel.display()
                    ));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "{} import(s) break the layering:\n{}",
        broken.len(),
        broken.join("\n")
    );
    println!("{} files checked", files.len());
}

/// The checker itself: a path above the importing layer is reported, a
/// comment is not.
#[test]
fn the_checker_sees_paths_and_skips_comments() {
    let found = crate_paths(
        "use crate::core::engine::Engine; // crate::capi::x\n/// [`P`](crate::graph::P)\nlet x = $crate::base::Error::invalid(\"\");",
    );
    let names: Vec<(&str, &str)> = found
        .iter()
        .map(|(_, a, b)| (a.as_str(), b.as_str()))
        .collect();
    assert_eq!(names, [("core", "engine"), ("base", "Error")]);
    assert_eq!(
        place(Path::new("prims/eltwise/ocl.rs")),
        ("prims".into(), Some("eltwise".into()))
    );
    assert_eq!(place(Path::new("prims/mod.rs")), ("prims".into(), None));
}
