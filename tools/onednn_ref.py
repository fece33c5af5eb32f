#!/usr/bin/env python3
"""The official oneDNN v3.13 headers as data.

Fetches the pinned `onednn-devel` wheel from PyPI into a cache directory outside
the repository, and turns its headers into facts: enums with their enumerators and
values, structs with their fields, function prototypes, object-like macros.
clang's JSON AST is the parser, so nothing here is a hand-kept list.

Used by the ABI conformance test (tests-c/abi/) and by tools/gen_abi.py.
"""
import json
import os
import re
import subprocess
import sys
import zipfile
from contextlib import contextmanager
from pathlib import Path

WHEEL_NAME = "onednn-devel"
WHEEL_VERSION = "2026.1.0"
# The headers we implement; the SYCL ones need a SYCL compiler and are not ours.
HEADERS = [
    "dnnl.h", "dnnl_debug.h", "dnnl_ocl.h", "dnnl_ze.h", "dnnl_graph.h",
    "dnnl_graph_ocl.h", "dnnl_ukernel.h", "dnnl_threadpool.h", "dnnl_version.h",
]
# Experimental parts of the API that the official headers hide behind macros;
# we implement (and export) them, so they are part of what we compare.
EXPERIMENTAL_DEFINES = ["DNNL_EXPERIMENTAL_PROFILING", "DNNL_EXPERIMENTAL_UKERNEL"]
# Experimental switches that dnnl_config.h always defines (to 0 in the official build)
# and the headers test by value (`#if X`). We implement them too: the comparison turns
# them on, passing -DX=1 and reading the official headers from a copy whose
# dnnl_config.h says 1 (switched_on_dir), since the official one cannot be overridden.
VALUE_SWITCHES = ["DNNL_EXPERIMENTAL_GROUPED_MEMORY"]
SWITCH_DEFINES = [f"{s}=1" for s in VALUE_SWITCHES]


def cache_dir() -> Path:
    base = os.environ.get("DNNL_REF_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "dnnl-rs")
    return Path(base) / f"{WHEEL_NAME}-{WHEEL_VERSION}"


@contextmanager
def _locked(root: Path):
    """Serialises first-time downloads: CTest may start several ABI tests at once."""
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as lock:
        try:
            import fcntl
            fcntl.flock(lock, fcntl.LOCK_EX)
        except ImportError:  # not POSIX: no concurrent runs to guard against
            pass
        yield


def include_dir() -> Path:
    """Returns the official include directory, downloading the wheel on first use."""
    root = cache_dir()
    inc = root / "include"
    if (inc / "oneapi" / "dnnl" / "dnnl.h").exists():
        return inc
    with _locked(root):
        if not (inc / "oneapi" / "dnnl" / "dnnl.h").exists():
            _download_and_unpack(root, inc)
    return inc


def switched_on_dir(inc: Path) -> Path:
    """A copy of the official include directory `inc`, in a temporary directory that
    lives as long as the process, with every VALUE_SWITCHES switch defined to 1 in
    dnnl_config.h (the official build defines them to 0, unconditionally)."""
    import atexit
    import shutil
    import tempfile
    out = Path(tempfile.mkdtemp(prefix="dnnl-official-switched-")) / "include"
    atexit.register(shutil.rmtree, out.parent, ignore_errors=True)
    shutil.copytree(inc, out)
    config = out / "oneapi" / "dnnl" / "dnnl_config.h"
    text = config.read_text()
    for s in VALUE_SWITCHES:
        text, n = re.subn(rf"^#define {s} 0$", f"#define {s} 1", text, flags=re.M)
        if n != 1:
            raise RuntimeError(f"{inc}: dnnl_config.h has no '#define {s} 0' line")
    config.write_text(text)
    return out


def _download_and_unpack(root: Path, inc: Path):
    wheels = list(root.glob("*.whl"))
    if not wheels:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                        "-d", str(root), f"{WHEEL_NAME}=={WHEEL_VERSION}"], check=True)
        wheels = list(root.glob("*.whl"))
    with zipfile.ZipFile(wheels[0]) as z:
        for name in z.namelist():
            m = re.match(r"[^/]+\.data/data/include/(.+)$", name)
            if m and not name.endswith("/"):
                dest = inc / m.group(1)
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(z.read(name))


def umbrella_source(headers=HEADERS) -> str:
    return "".join(f'#include "oneapi/dnnl/{h}"\n' for h in headers)


def clang_ast(inc: Path, extra_includes=(), defines=EXPERIMENTAL_DEFINES,
              headers=HEADERS) -> dict:
    args = ["clang", "-x", "c", "-std=c11", "-fsyntax-only", "-Xclang", "-ast-dump=json",
            f"-I{inc}"] + [f"-I{p}" for p in extra_includes]
    args += [f"-D{d}" for d in defines] + ["-"]
    out = subprocess.run(args, input=umbrella_source(headers).encode(), capture_output=True,
                         check=True)
    return json.loads(out.stdout)


def _walk_files(node, state, visit):
    """Visits nodes in dump order, keeping track of the file clang last named."""
    for key in ("loc", "range"):
        part = node.get(key)
        if not part:
            continue
        locs = [part] if key == "loc" else [part.get("begin", {}), part.get("end", {})]
        for loc in locs:
            for sub in (loc, loc.get("spellingLoc", {}), loc.get("expansionLoc", {})):
                if "file" in sub:
                    state["file"] = sub["file"]
    visit(node, state["file"])
    for child in node.get("inner", []) or []:
        _walk_files(child, state, lambda n, f: None)


def _is_ours(name):
    return bool(name) and (name.startswith("dnnl_") or name.startswith("const_dnnl_"))


def facts(inc: Path = None, defines=EXPERIMENTAL_DEFINES, headers=HEADERS) -> dict:
    """`headers`: the umbrella to parse (another header set may lack some of these)."""
    inc = inc or include_dir()
    ast = clang_ast(inc, defines=defines, headers=headers)
    files = {}
    state = {"file": ""}
    for node in ast["inner"]:
        _walk_files(node, state, lambda n, f: files.__setitem__(n["id"], f))
    by_id = {n["id"]: n for n in ast["inner"]}
    enums, structs, functions, typedefs = [], [], [], []
    for node in ast["inner"]:
        kind, name = node["kind"], node.get("name")
        header = os.path.basename(files.get(node["id"], ""))
        if kind == "TypedefDecl" and _is_ours(name):
            tag = _tag_of(node, by_id)
            if tag and tag["kind"] == "EnumDecl":
                enums.append({"name": name, "header": header,
                              "enumerators": _enumerators(tag)})
            elif tag and tag["kind"] == "RecordDecl" and tag.get("completeDefinition"):
                structs.append({"name": name, "header": header, "fields": _fields(tag)})
            else:
                typedefs.append({"name": name, "header": header,
                                 "type": node["type"]["qualType"]})
        elif kind == "FunctionDecl" and _is_ours(name):
            params = [{"name": p.get("name", ""), "type": p["type"]["qualType"]}
                      for p in node.get("inner", []) if p["kind"] == "ParmVarDecl"]
            ftype = node["type"]["qualType"]
            functions.append({"name": name, "header": header, "type": ftype,
                              "ret": ftype.split("(")[0].strip(), "params": params,
                              "deprecated": any(i["kind"] == "DeprecatedAttr"
                                                for i in node.get("inner", []))})
    return {"enums": enums, "structs": structs, "functions": functions,
            "typedefs": typedefs, "macros": macros(inc)}


def _tag_of(typedef, by_id):
    """The enum or struct a typedef names directly: one defined in the typedef
    (`typedef enum {...} T;`, upstream's style) or elsewhere (`typedef enum T T;`).
    Pointers, arrays and functions of a tag are not followed."""
    t = (typedef.get("inner") or [None])[0]
    while t:
        if t.get("ownedTagDecl"):
            return by_id.get(t["ownedTagDecl"]["id"])
        if t["kind"] in ("EnumType", "RecordType"):
            return by_id.get(t["decl"]["id"])
        if t["kind"] not in ("ElaboratedType", "ParenType"):
            return None
        t = (t.get("inner") or [None])[0]
    return None


def _enumerators(tag):
    out, value = [], -1
    for c in tag.get("inner", []):
        if c["kind"] != "EnumConstantDecl":
            continue
        init = [i for i in c.get("inner", []) if i["kind"] != "FullComment"]
        explicit = _constant_value(init[0]) if init else None
        value = explicit if explicit is not None else value + 1
        out.append({"name": c["name"], "value": value})
    return out


def _constant_value(expr):
    """The value clang computed for an initialiser (under implicit casts)."""
    while expr is not None:
        if "value" in expr:
            return int(expr["value"])
        inner = [i for i in expr.get("inner", []) if i["kind"] != "FullComment"]
        expr = inner[0] if inner else None
    return None


def _fields(tag):
    """Fields in order. A field whose type is a record defined in place (the `layout`
    union of dnnl_graph_logical_tensor_t) also gets that record's members as "fields"."""
    out, inline = [], None
    for c in tag.get("inner", []):
        if c["kind"] == "RecordDecl":
            inline = c
        elif c["kind"] == "FieldDecl":
            field = {"name": c.get("name", ""), "type": c["type"]["qualType"]}
            if inline is not None and "(unnamed" in field["type"]:
                field["fields"] = _fields(inline)
            inline = None
            out.append(field)
    return out


DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)(\(?)")


def macros(inc: Path):
    """Object-like macros of the public headers, in order, with the header they are in."""
    out, seen = [], set()
    for path in sorted((inc / "oneapi" / "dnnl").glob("*.h")):
        if "sycl" in path.name:
            continue
        for line in path.read_text().splitlines():
            m = DEFINE.match(line)
            if not m or m.group(2) or m.group(1) in seen:
                continue
            name = m.group(1)
            if name.startswith("ONEAPI_DNNL_") and name.endswith("_H"):
                continue  # include guards
            seen.add(name)
            out.append({"name": name, "header": path.name})
    return out


if __name__ == "__main__":
    json.dump(facts(), sys.stdout, indent=1)
