//! Build script: generates the C headers with cbindgen, the Rust newtypes of the
//! C enums, and sets the SONAME.
//!
//! Every header of `include/oneapi/dnnl/` is generated here into
//! `$OUT_DIR/include/`; it never writes into the source tree. `tests/headers.rs`
//! compares the generated copy with the committed one.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// One public header: which Rust sources describe it and what surrounds them.
struct Header {
    name: &'static str,
    /// Files or directories (all `.rs` files below) that cbindgen reads.
    sources: &'static [&'static str],
    /// `#include`s, in order: `<...>` for system headers, plain names for ours.
    includes: &'static [&'static str],
    /// Raw C (from `src/abi/raw/`) printed after the includes and after the items.
    before: Option<&'static str>,
    after: Option<&'static str>,
    summary: &'static str,
}

const HEADERS: &[Header] = &[
    Header {
        name: "dnnl_config.h",
        sources: &["src/abi/config.rs"],
        includes: &[],
        before: Some("config_before.h"),
        after: Some("config_after.h"),
        summary: "Build configuration: export macros, runtimes, experimental switches.",
    },
    Header {
        name: "dnnl_version.h",
        sources: &["src/abi/version.rs"],
        includes: &[],
        before: None,
        after: None,
        summary: "Version of the oneDNN API this library implements.",
    },
    Header {
        name: "dnnl_version_hash.h",
        sources: &[],
        includes: &[],
        before: None,
        after: Some("version_hash.h"),
        summary: "Commit identifier macro (the library reports its own in dnnl_version()).",
    },
    Header {
        name: "dnnl_common_types.h",
        sources: &[
            "src/abi/c_enums/common_types.rs",
            "src/abi/macros/common_types.rs",
            "src/abi/common_types.rs",
        ],
        includes: &["<stddef.h>", "<stdint.h>", "dnnl_config.h"],
        before: None,
        after: Some("common_types_after.h"),
        summary: "Types shared by the primitive and graph APIs.",
    },
    Header {
        name: "dnnl_common.h",
        sources: &["src/capi/common"],
        includes: &["dnnl_common_types.h", "dnnl_config.h", "dnnl_version.h"],
        before: None,
        after: None,
        summary: "Engines, streams and service functions shared by the primitive and graph APIs.",
    },
    Header {
        name: "dnnl_types.h",
        sources: &[
            "src/abi/c_enums/types.rs",
            "src/abi/macros/types.rs",
            "src/abi/types.rs",
        ],
        includes: &["dnnl_common_types.h"],
        before: None,
        after: Some("types_after.h"),
        summary: "Types of the primitive API.",
    },
    Header {
        name: "dnnl.h",
        sources: &["src/capi/dnnl"],
        includes: &[
            "dnnl_config.h",
            "dnnl_common.h",
            "dnnl_types.h",
            "dnnl_version.h",
        ],
        before: None,
        after: None,
        summary: "The primitive API: memory, primitive descriptors, primitives, attributes.",
    },
    Header {
        name: "dnnl_debug.h",
        sources: &["src/capi/debug"],
        includes: &["dnnl_config.h", "dnnl_types.h", "dnnl_version.h"],
        before: None,
        after: None,
        summary: "Names of enumerators as strings, for logs and diagnostics.",
    },
    Header {
        name: "dnnl_ocl_types.h",
        sources: &["src/abi/c_enums/ocl_types.rs"],
        includes: &[],
        before: None,
        after: None,
        summary: "Types of the OpenCL interoperability API.",
    },
    Header {
        name: "dnnl_ocl.h",
        sources: &["src/capi/ocl"],
        includes: &["dnnl.h", "dnnl_ocl_types.h", "<CL/cl.h>"],
        before: None,
        after: None,
        summary: "OpenCL interoperability: engines, streams and memory over user OpenCL objects.",
    },
    Header {
        name: "dnnl_ze.h",
        sources: &["src/capi/ze"],
        includes: &["dnnl.h", "<level_zero/ze_api.h>"],
        before: None,
        after: None,
        summary: "Level Zero interoperability: engines, streams and memory over user Level Zero objects.",
    },
    Header {
        name: "dnnl_graph_types.h",
        sources: &[
            "src/abi/c_enums/graph_types.rs",
            "src/abi/macros/graph_types.rs",
            "src/abi/graph_types.rs",
        ],
        includes: &["<stddef.h>", "<stdint.h>", "dnnl_common_types.h"],
        before: None,
        after: Some("graph_types_after.h"),
        summary: "Types of the graph API.",
    },
    Header {
        name: "dnnl_graph.h",
        sources: &["src/capi/graph"],
        includes: &["dnnl_common.h", "dnnl_config.h", "dnnl_graph_types.h"],
        before: None,
        after: None,
        summary: "The graph API: logical tensors, ops, graphs, partitions, compiled partitions.",
    },
    Header {
        name: "dnnl_graph_ocl.h",
        sources: &["src/abi/graph_ocl.rs", "src/capi/graph_ocl"],
        includes: &["dnnl_graph.h", "<CL/cl.h>"],
        before: None,
        after: None,
        summary: "OpenCL interoperability of the graph API: allocators and execution with events.",
    },
    Header {
        name: "dnnl_ukernel_types.h",
        sources: &[
            "src/abi/c_enums/ukernel_types.rs",
            "src/abi/ukernel_types.rs",
        ],
        includes: &["dnnl_types.h"],
        before: None,
        after: None,
        summary: "Types of the experimental ukernel API.",
    },
    Header {
        name: "dnnl_ukernel.h",
        sources: &["src/capi/ukernel"],
        includes: &["dnnl.h", "dnnl_ukernel_types.h"],
        before: None,
        after: None,
        summary: "The experimental ukernel API (batch-reduce GEMM and transforms).",
    },
    Header {
        name: "dnnl_threadpool.h",
        sources: &["src/capi/threadpool"],
        includes: &["dnnl_config.h", "dnnl_types.h"],
        before: None,
        after: None,
        summary: "Threadpool interoperability of CPU engines and streams.",
    },
];

/// Top-level compatibility headers: `include/<name>` includes `oneapi/dnnl/<name>`.
const COMPAT: &[&str] = &[
    "dnnl.h",
    "dnnl_config.h",
    "dnnl_debug.h",
    "dnnl_ocl.h",
    "dnnl_threadpool.h",
    "dnnl_types.h",
    "dnnl_version.h",
];

/// Experimental switches that `dnnl_config.h` always defines, to 0 unless the user
/// defines them first (see `src/abi/raw/config_after.h`): cbindgen's `#if defined(..)`
/// guards for them become `#if ..`.
const VALUE_SWITCHES: &[&str] = &["DNNL_EXPERIMENTAL_GROUPED_MEMORY"];

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    for path in ["src/abi", "src/capi", "cbindgen.toml", "build.rs"] {
        println!("cargo:rerun-if-changed={path}");
    }
    println!("cargo:rerun-if-env-changed=DNNL_BUILD_HASH");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libdnnl.so.3");

    generate_enum_newtypes(&root, &out.join("c_enums"));
    generate_headers(&root, &out.join("include"));
    // For tests/headers.rs, which compares these with the committed copies.
    println!(
        "cargo:rustc-env=DNNL_GENERATED_INCLUDE={}",
        out.join("include").display()
    );
    println!("cargo:rustc-env=DNNL_BUILD_HASH={}", build_hash(&root));
}

/// The identifier `dnnl_version()` reports: `DNNL_BUILD_HASH` if set, else the
/// commit checked out at build time, else "N/A" (as upstream does outside git).
fn build_hash(root: &Path) -> String {
    if let Ok(hash) = std::env::var("DNNL_BUILD_HASH") {
        return hash;
    }
    let head = root.join(".git/HEAD");
    if head.exists() {
        println!("cargo:rerun-if-changed={}", head.display());
    }
    std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(root)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|s| s.len() == 40)
        .unwrap_or_else(|| "N/A".to_string())
}

fn rust_sources(root: &Path, entry: &str) -> Vec<PathBuf> {
    let path = root.join(entry);
    if path.is_file() {
        return vec![path];
    }
    // cbindgen follows `mod` items from a module root by itself.
    if path.join("mod.rs").is_file() {
        return vec![path.join("mod.rs")];
    }
    let mut files = Vec::new();
    let mut stack = vec![path];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "rs") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

fn generate_headers(root: &Path, include: &Path) {
    let dir = include.join("oneapi/dnnl");
    fs::create_dir_all(&dir).unwrap();
    let base = cbindgen::Config::from_file(root.join("cbindgen.toml")).expect("cbindgen.toml");
    for h in HEADERS {
        let mut config = base.clone();
        let guard = format!("ONEAPI_DNNL_{}", h.name.replace('.', "_").to_uppercase());
        config.include_guard = Some(guard);
        config.header = Some(format!(
            "/// @file {}\n/// {}\n/// Part of libdnnl.so.3, an implementation of the oneDNN v3.13 C API.",
            h.name, h.summary
        ));
        config.sys_includes = Vec::new();
        config.includes = Vec::new();
        let mut after_includes = String::new();
        for inc in h.includes {
            if let Some(sys) = inc.strip_prefix('<').and_then(|s| s.strip_suffix('>')) {
                config.sys_includes.push(sys.to_string());
            } else {
                config.includes.push(format!("oneapi/dnnl/{inc}"));
            }
        }
        if let Some(raw) = h.before {
            after_includes.push_str(&read_raw(root, raw));
        }
        config.after_includes = Some(after_includes).filter(|s| !s.is_empty());

        let sources: Vec<PathBuf> = h
            .sources
            .iter()
            .flat_map(|src| rust_sources(root, src))
            .collect();
        // Types headers have no functions to reach their items from: name them all.
        config.export.include = sources
            .iter()
            .flat_map(|f| exported_type_names(f))
            .collect();
        let mut builder = cbindgen::Builder::new().with_config(config);
        for file in &sources {
            builder = builder.with_src(file);
        }
        let bindings = builder
            .generate()
            .unwrap_or_else(|e| panic!("cbindgen failed for {}: {e}", h.name));
        let mut text = Vec::new();
        bindings.write(&mut text);
        let mut text = String::from_utf8(text).expect("cbindgen writes UTF-8");
        if let Some(raw) = h.after {
            // Raw C goes inside the include guard, before its closing #endif.
            let end = text.rfind("#endif").expect("include guard");
            text.insert_str(end, &format!("{}\n", read_raw(root, raw).trim_end()));
            text = text.replace("\n\n\n", "\n\n");
        }
        // Switches that the configuration header always defines (0 or 1) are tested
        // by value, as upstream does, not by being defined.
        for switch in VALUE_SWITCHES {
            text = text.replace(&format!("#if defined({switch})"), &format!("#if {switch}"));
        }
        write_if_changed(&dir.join(h.name), &text);
    }
    for name in COMPAT {
        let guard = name.replace('.', "_").to_uppercase();
        let text = format!(
            "/// @file {name}\n/// Compatibility header: the API lives in oneapi/dnnl/{name}.\n\
             #ifndef {guard}\n#define {guard}\n\n#include \"oneapi/dnnl/{name}\"\n\n#endif /* {guard} */\n"
        );
        write_if_changed(&include.join(name), &text);
    }
}

/// The names of the `pub` types (enums, structs, unions, aliases) a file declares.
fn exported_type_names(file: &Path) -> Vec<String> {
    let text = fs::read_to_string(file).unwrap();
    let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let public = |v: &syn::Visibility| matches!(v, syn::Visibility::Public(_));
    ast.items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Enum(i) if public(&i.vis) => Some(i.ident.to_string()),
            syn::Item::Struct(i) if public(&i.vis) => Some(i.ident.to_string()),
            syn::Item::Union(i) if public(&i.vis) => Some(i.ident.to_string()),
            syn::Item::Type(i) if public(&i.vis) => Some(i.ident.to_string()),
            _ => None,
        })
        .collect()
}

fn read_raw(root: &Path, name: &str) -> String {
    let path = root.join("src/abi/raw").join(name);
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn write_if_changed(path: &Path, text: &str) {
    if fs::read_to_string(path).ok().as_deref() != Some(text) {
        fs::write(path, text).unwrap();
    }
}

/// Turns each `#[repr(C)] pub enum` of `src/abi/c_enums/*.rs` into a
/// `#[repr(transparent)]` newtype with one constant per enumerator.
fn generate_enum_newtypes(root: &Path, out: &Path) {
    fs::create_dir_all(out).unwrap();
    for file in rust_sources(root, "src/abi/c_enums") {
        let text = fs::read_to_string(&file).unwrap();
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let mut rust = String::from("// Generated by build.rs from the C enums; do not edit.\n");
        for item in ast.items {
            let syn::Item::Enum(e) = item else { continue };
            let name = e.ident.to_string();
            let cfg = cfg_attr(&e.attrs);
            let mut variants = Vec::new();
            for v in &e.variants {
                let value = discriminant(v.discriminant.as_ref().map(|d| &d.1))
                    .unwrap_or_else(|| panic!("{name}::{} needs an explicit value", v.ident));
                variants.push((v.ident.to_string(), value, cfg_attr(&v.attrs)));
            }
            let repr = if variants.iter().any(|v| v.1 < 0) {
                "i32"
            } else {
                "u32"
            };
            let _ = writeln!(
                rust,
                "\n/// The C enum `{name}` as the integer a C caller passes.\n{cfg}\
                 #[repr(transparent)]\n#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]\n\
                 pub struct {name}(pub {repr});"
            );
            for (v, value, vcfg) in &variants {
                let _ = writeln!(rust, "{cfg}{vcfg}pub const {v}: {name} = {name}({value});");
            }
            let _ = writeln!(
                rust,
                "{cfg}impl {name} {{\n    /// Every enumerator in declaration order (aliases included).\n    \
                 pub const ALL: &'static [(&'static ::core::ffi::CStr, {name})] = &["
            );
            for (v, _, vcfg) in &variants {
                let _ = writeln!(rust, "        {vcfg}(c\"{v}\", {v}),");
            }
            let _ = writeln!(rust, "    ];\n}}");
        }
        let stem = file.file_stem().unwrap().to_string_lossy();
        write_if_changed(&out.join(format!("{stem}.rs")), &rust);
    }
}

fn cfg_attr(attrs: &[syn::Attribute]) -> String {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .map(|a| {
            let syn::Meta::List(list) = &a.meta else {
                return String::new();
            };
            format!("#[cfg({})] ", list.tokens)
        })
        .collect()
}

fn discriminant(expr: Option<&syn::Expr>) -> Option<i64> {
    match expr? {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => discriminant(Some(expr)).map(|v| -v),
        _ => None,
    }
}
