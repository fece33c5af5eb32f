#!/usr/bin/env python3
"""Bootstrap generator: writes the mechanical parts of src/abi and the
unimplemented entry points from the official oneDNN v3.13 headers.

What it takes from upstream are facts only: names, numeric values, prototypes.
Comments are ours. Run it again when moving to a new oneDNN ABI version, then
review the diff; the files it writes are ordinary sources afterwards:

  * src/abi/c_enums/<header>.rs   every C enum, as the Rust enum cbindgen prints
  * src/abi/macros/<header>.rs    integer object-like macros as `pub const`
  * src/capi/<family>/unimplemented.rs  entry points not implemented yet
    (only written when missing: implemented functions move out of it by hand)
"""
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import onednn_ref  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

# Our one-line summaries of the C enums; the enumerator names speak for themselves.
ENUM_DOCS = {
    "dnnl_status_t": "Status codes returned by the library's functions.",
    "dnnl_data_type_t": "Element data types.",
    "dnnl_fpmath_mode_t": "Floating-point math modes: which implicit down-conversions are allowed.",
    "dnnl_accumulation_mode_t": "Accumulation modes: which data type intermediate sums may use.",
    "dnnl_engine_kind_t": "Kinds of engines.",
    "dnnl_stream_flags_t": "Stream flags (a bit set).",
    "dnnl_format_kind_t": "Kinds of memory formats.",
    "dnnl_sparse_encoding_t": "Sparse encodings.",
    "dnnl_profiling_data_kind_t": "Kinds of profiling data (experimental).",
    "dnnl_format_tag_t": "Memory format tags: plain and blocked layouts by name.",
    "dnnl_prop_kind_t": "Propagation kinds.",
    "dnnl_primitive_kind_t": "Primitive kinds.",
    "dnnl_alg_kind_t": "Algorithm kinds.",
    "dnnl_normalization_flags_t": "Flags of normalization primitives (a bit set).",
    "dnnl_rnn_flags_t": "Flags of RNN cells (a bit set).",
    "dnnl_rnn_direction_t": "Directions of RNN execution.",
    "dnnl_scratchpad_mode_t": "Who manages the scratchpad: the library or the user.",
    "dnnl_rounding_mode_t": "Rounding modes of down-conversions.",
    "dnnl_quantization_mode_t": "Quantization modes of scales.",
    "dnnl_query_t": "What a primitive descriptor or memory descriptor query asks for.",
    "dnnl_cpu_isa_t": "CPU instruction set architectures (a bit set).",
    "dnnl_cpu_isa_hints_t": "CPU instruction set hints.",
    "dnnl_graph_layout_type_t": "Layout types of graph logical tensors.",
    "dnnl_graph_tensor_property_t": "Properties of graph logical tensors.",
    "dnnl_graph_partition_policy_t": "Partitioning policies of graphs.",
    "dnnl_graph_dump_mode_t": "Graph dump modes (a bit set).",
    "dnnl_graph_op_kind_t": "Kinds of graph operations.",
    "dnnl_graph_op_attr_t": "Attributes of graph operations.",
    "dnnl_ocl_interop_memory_kind_t": "Kinds of OpenCL memory: USM or buffer.",
    "dnnl_pack_type_t": "Packing types of ukernel operands (experimental).",
}

# The header a function family's Rust sources live under (src/capi/<family>/).
FAMILY = {
    "dnnl.h": "dnnl", "dnnl_common.h": "common", "dnnl_debug.h": "debug",
    "dnnl_ocl.h": "ocl", "dnnl_ze.h": "ze", "dnnl_graph.h": "graph",
    "dnnl_graph_ocl.h": "graph_ocl", "dnnl_ukernel.h": "ukernel",
    "dnnl_threadpool.h": "threadpool",
}

EXPERIMENTAL_FEATURE = {
    "DNNL_EXPERIMENTAL_PROFILING": "experimental_profiling",
    "DNNL_EXPERIMENTAL_UKERNEL": "experimental_ukernel",
}


def stem(header):
    return header[len("dnnl_"):-2] if header.startswith("dnnl_") else header[:-2]


def only_with(define, all_facts):
    """Names that exist only when `define` is set (enums, enumerators, functions)."""
    others = [d for d in onednn_ref.EXPERIMENTAL_DEFINES if d != define]
    without = onednn_ref.facts(defines=others)
    names = set()
    for e in without["enums"]:
        names.add(e["name"])
        names.update(x["name"] for x in e["enumerators"])
    names.update(f["name"] for f in without["functions"])
    out = set()
    for e in all_facts["enums"]:
        if e["name"] not in names:
            out.add(e["name"])
        out.update(x["name"] for x in e["enumerators"] if x["name"] not in names)
    out.update(f["name"] for f in all_facts["functions"] if f["name"] not in names)
    return out


def cfg_of(name, gated):
    for define, names in gated.items():
        if name in names:
            return f'#[cfg(feature = "{EXPERIMENTAL_FEATURE[define]}")]'
    return None


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    print(f"wrote {path.relative_to(ROOT)}")


def gen_enums(facts, gated):
    by_header = {}
    for e in facts["enums"]:
        by_header.setdefault(e["header"], []).append(e)
    for header, enums in by_header.items():
        lines = [f"//! The C enums of `{header}`, as cbindgen prints them.",
                 "//!",
                 "//! This file is not compiled as a module: build.rs reads it twice, once to",
                 "//! give cbindgen `typedef enum {...}` declarations, once to generate the",
                 "//! `#[repr(transparent)]` newtypes and constants the Rust code uses (a C",
                 "//! caller may pass any integer, which a Rust enum cannot hold soundly).",
                 "//! Written by tools/gen_abi.py from the oneDNN v3.13 values.", ""]
        for e in enums:
            doc = ENUM_DOCS.get(e["name"])
            if doc is None:
                sys.exit(f"no summary for {e['name']}: add one to ENUM_DOCS")
            lines.append(f"/// {doc}")
            cfg = cfg_of(e["name"], gated)
            if cfg:
                lines.append(cfg)
            lines += ["#[repr(C)]", f"pub enum {e['name']} {{"]
            for x in e["enumerators"]:
                cfg = cfg_of(x["name"], gated)
                if cfg and cfg != cfg_of(e["name"], gated):
                    lines.append(f"    {cfg}")
                v = x["value"]
                lit = f"{v}" if v < 0 or v < 256 else hex(v)
                lines.append(f"    {x['name']} = {lit},")
            lines += ["}", ""]
        write(ROOT / "src/abi/c_enums" / f"{stem(header)}.rs", "\n".join(lines))


MACRO_PROBE = r"""
#include <stdio.h>
#include <stdint.h>
%(includes)s
#define KIND(x) _Generic((x), int: "c_int", unsigned int: "u32", long: "i64", \
    unsigned long: "u64", long long: "i64", unsigned long long: "u64", default: "?")
int main(void) {
%(body)s
    return 0;
}
"""


def macro_values(inc, names):
    """Evaluates integer object-like macros with the C compiler: name -> (rust type, value)."""
    includes = onednn_ref.umbrella_source()
    body = []
    for n in names:
        body.append(f'#if defined({n})\n    printf("{n} %s %lld\\n", KIND({n}), (long long)({n}));\n#endif')
    src = MACRO_PROBE % {"includes": includes, "body": "\n".join(body)}
    with tempfile.TemporaryDirectory() as tmp:
        c = Path(tmp) / "probe.c"
        c.write_text(src)
        exe = Path(tmp) / "probe"
        defs = [f"-D{d}" for d in onednn_ref.EXPERIMENTAL_DEFINES]
        subprocess.run(["cc", "-std=c11", f"-I{inc}", *defs, "-o", str(exe), str(c)], check=True)
        out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    vals = {}
    for line in out.splitlines():
        n, kind, v = line.split()
        vals[n] = (kind, int(v))
    return vals


# Macros whose value is not an integer, or that describe a build rather than
# the API: written by hand (src/abi/*.rs and the raw C in build.rs).
HAND_WRITTEN_MACROS = re.compile(
    r"^(DNNL_MEMORY_(NONE|ALLOCATE)|DNNL_RUNTIME_(DIM|SIZE|F32|S32)_VAL|DNNL_VERSION_.*"
    r"|DNNL_(CPU|GPU)_.*|DNNL_HELPER_.*|DNNL_API|DNNL_DEPRECATED|DNNL_WITH_SYCL"
    r"|DNNL_ENABLE_CONCURRENT_EXEC|ONEDNN_BUILD_GRAPH|BUILD_.*|DNNL_EXPERIMENTAL_.*"
    r"|DNNL_RUNTIME_(NONE|SEQ|OMP|TBB|THREADPOOL|OCL|SYCL|DPCPP|ZE)|DNNL_VENDOR_.*"
    r"|DNNL_GRAPH_UNKNOWN_DIM)$")


def gen_macros(facts, inc):
    names = [m["name"] for m in facts["macros"] if not HAND_WRITTEN_MACROS.match(m["name"])]
    vals = macro_values(inc, names)
    by_header = {}
    for m in facts["macros"]:
        if m["name"] in vals:
            by_header.setdefault(m["header"], []).append(m["name"])
    for header, names in by_header.items():
        lines = [f"//! Integer constants that `{header}` defines as macros; cbindgen prints",
                 "//! each as a `#define`. Written by tools/gen_abi.py from the v3.13 values.", "",
                 "#[allow(unused_imports)]", "use ::core::ffi::c_int;", ""]
        for n in names:
            kind, v = vals[n]
            suffix = "u32" if kind == "u32" else ""
            lines.append(f"pub const {n}: {kind} = {v}{suffix};")
        lines.append("")
        write(ROOT / "src/abi/macros" / f"{stem(header)}.rs", "\n".join(lines))


BASE_TYPES = {
    "void": "c_void", "char": "c_char", "int": "c_int", "unsigned int": "c_uint",
    "float": "f32", "size_t": "usize", "int8_t": "i8", "uint8_t": "u8", "int32_t": "i32",
    "int64_t": "i64", "uint64_t": "u64",
}


def rust_type(c):
    """Spells a C parameter type from the official AST in Rust."""
    c = c.strip()
    m = re.match(r"^(.*?)\s*\*\s*(const)?$", c)
    if m:
        # The qualifier of the immediate pointee: `T *const *` or `const T *`,
        # but not `const T **` (there the pointee is a mutable `const T *`).
        inner = m.group(1).strip()
        if re.search(r"(\s|\*)const$", inner):
            return "*const " + rust_type(inner[: -len("const")])
        if "*" not in inner and inner.startswith("const "):
            return "*const " + rust_type(inner[len("const "):])
        return "*mut " + rust_type(inner)
    c = re.sub(r"^const\s+", "", c)  # by-value const is not part of the type
    return BASE_TYPES.get(c, c)


def default_return(ret):
    if ret == "dnnl_status_t":
        return None
    return ret


def gen_unimplemented(facts, gated):
    by_family = {}
    for f in facts["functions"]:
        by_family.setdefault(FAMILY[f["header"]], []).append(f)
    for family, funcs in by_family.items():
        path = ROOT / "src/capi" / family / "unimplemented.rs"
        if path.exists():
            continue
        lines = [f"//! Entry points of `{[h for h, fam in FAMILY.items() if fam == family][0]}`"
                 " that are not implemented yet.",
                 "//!",
                 "//! Each returns `dnnl_unimplemented` (or a neutral value where the function",
                 "//! returns no status), writes nothing through its pointers, and says so under",
                 "//! ONEDNN_VERBOSE. Implementing a function means moving it out of this file.",
                 "",
                 "#[allow(unused_imports)]",
                 "use ::core::ffi::{c_char, c_int, c_uint, c_void};",
                 "",
                 "#[allow(unused_imports)]",
                 "use crate::abi::*;",
                 "use crate::capi::boundary;",
                 ""]
        for f in funcs:
            params = ", ".join(f"{p['name'] or f'arg{i}'}: {rust_type(p['type'])}"
                               for i, p in enumerate(f["params"]))
            ret = f["ret"]
            cfg = cfg_of(f["name"], gated)
            lines.append(f"/// Not implemented yet: returns `dnnl_unimplemented`.")
            if cfg:
                lines.append(cfg)
            lines.append("#[unsafe(no_mangle)]")
            unused = "".join(f"    let _ = {p['name'] or f'arg{i}'};\n" for i, p in enumerate(f["params"]))
            if ret == "dnnl_status_t":
                lines.append(f"pub unsafe extern \"C\" fn {f['name']}({params}) -> dnnl_status_t {{")
                lines.append(f'    boundary::unimplemented("{f["name"]}")')
            else:
                rt = rust_type(ret)
                lines.append(f"pub unsafe extern \"C\" fn {f['name']}({params}) -> {rt} {{")
                lines.append(f'    boundary::unimplemented_value("{f["name"]}")')
            lines.append("}")
            lines.append("")
        # Parameters are unused by design: silence that once for the file.
        lines.insert(6, "#![allow(unused_variables)]\n")
        write(path, "\n".join(lines))


def main():
    inc = onednn_ref.include_dir()
    facts = onednn_ref.facts(inc)
    gated = {d: only_with(d, facts) for d in onednn_ref.EXPERIMENTAL_DEFINES}
    what = sys.argv[1:] or ["enums", "macros", "unimplemented"]
    if "enums" in what:
        gen_enums(facts, gated)
    if "macros" in what:
        gen_macros(facts, inc)
    if "unimplemented" in what:
        gen_unimplemented(facts, gated)


if __name__ == "__main__":
    main()
