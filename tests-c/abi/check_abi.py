#!/usr/bin/env python3
"""ABI conformance of our headers and library with the official oneDNN v3.13 ones.

    check_abi.py values     --ours INCLUDE_DIR   values, sizes and offsets
    check_abi.py prototypes --ours INCLUDE_DIR   every DNNL_API function, same type
    check_abi.py exports    --lib LIBDNNL_SO     every DNNL_API function exported
    check_abi.py all        --ours INCLUDE_DIR --lib LIBDNNL_SO

The reference is the official include directory that tools/onednn_ref.py unpacks
from the pinned `onednn-devel` wheel into a cache directory outside the repository
(`--official DIR` points elsewhere). Every name checked comes from those headers;
the only hand-kept items are the short, documented exception lists below.
Exit status: 0 when everything matches, 1 on any mismatch.

How the checks work:
- values: one generated C program prints a line per item: the value of every
  enumerator and macro with its type category (a C11 _Generic), sizeof/_Alignof of
  every struct, enum and typedef, offsetof/sizeof and type of every struct field. It
  is built and run against the official headers and against ours, and the outputs are
  compared line by line. An item that ours cannot compile (a missing name, usually) is
  pinned to its item by the compiler diagnostic's line number, dropped, and reported
  on its own; the program is then built again without it.
- prototypes: a generated translation unit, including our headers only, initialises
  a pointer of each official function's type, spelled from the official AST, with our
  function: compiled as C11 (types compatible, i.e. ABI) and as C++ (types identical,
  which C++ callers, e.g. the official dnnl.hpp, need). The two ASTs are compared too:
  same functions, same parameter counts, reachable from the same header; type names
  that differ in spelling only are listed as notes.
- exports: `nm -D --defined-only` on the library.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import onednn_ref as ref  # noqa: E402

# --- Documented exceptions: everything else is compared exactly. ------------------

# Macros that describe the build rather than the API: ours only has to define them.
BUILD_MACROS = {
    "DNNL_VERSION_PATCH": "our own patch level",
    "DNNL_VERSION_HASH": "our own commit",
    "DNNL_CPU_RUNTIME": "the official wheel is a SYCL build",
    "DNNL_GPU_RUNTIME": "the official wheel is a SYCL build; ours is OpenCL",
    "DNNL_CPU_THREADING_RUNTIME": "the official wheel uses TBB",
    "DNNL_GPU_VENDOR": "the official wheel is Intel-only; ours runs on any vendor",
}
# Markers of a SYCL build: a program testing them would take SYCL code paths that
# our library (no SYCL) cannot serve, so ours must not define them.
MUST_NOT_DEFINE = {
    "DNNL_WITH_SYCL": "set by SYCL builds only",
    "DNNL_ENABLE_CONCURRENT_EXEC": "set when DNNL_CPU_RUNTIME is SYCL",
}
# Macros that expand to attributes, not values: ours only has to define them. Macros
# whose official expansion is empty (markers) are treated the same way, automatically.
ATTRIBUTE_MACROS = ["DNNL_API", "DNNL_DEPRECATED", "DNNL_HELPER_DLL_IMPORT",
                    "DNNL_HELPER_DLL_EXPORT"]
# Arguments for the official function-like macros with one parameter
# (DNNL_ARG_ATTR_MULTIPLE_POST_OP(idx); upstream notes that idx = 31 is the last
# that does not overflow).
MACRO_ARGS = [0, 1, 2, 31]
# Functions that oneDNN v1 had and v3.13 dropped, which we keep (DESIGN.md). The
# seed ../shared/seeds/ocl_interop_guide_v1.md gives their calls, e.g.
# dnnl_engine_create_ocl(&engine, kind, ocl_dev, ocl_ctx); the types are oneDNN v1's
# (dnnl.h, DNNL_GPU_RUNTIME == OCL), the same as those of their v3.13 successors
# dnnl_ocl_interop_engine_create, _get_context, _get_device, _stream_create,
# _stream_get_command_queue, _memory_get_mem_object and _memory_set_mem_object.
SEED_V1_FUNCTIONS = {
    "dnnl_engine_create_ocl": ["dnnl_engine_t *", "dnnl_engine_kind_t", "cl_device_id",
                               "cl_context"],
    "dnnl_stream_create_ocl": ["dnnl_stream_t *", "dnnl_engine_t", "cl_command_queue"],
    "dnnl_engine_get_ocl_device": ["dnnl_engine_t", "cl_device_id *"],
    "dnnl_engine_get_ocl_context": ["dnnl_engine_t", "cl_context *"],
    "dnnl_stream_get_ocl_command_queue": ["dnnl_stream_t", "cl_command_queue *"],
    "dnnl_memory_get_ocl_mem_object": ["const_dnnl_memory_t", "cl_mem *"],
    "dnnl_memory_set_ocl_mem_object": ["dnnl_memory_t", "cl_mem"],
}
SEED_V1_RET = "dnnl_status_t"
# Symbol types of `nm` that mean "function code": T (text), W (weak), i (GNU ifunc).
FUNCTION_SYMBOL_TYPES = "TWi"

CC = os.environ.get("DNNL_ABI_CC", "clang")
CXX = os.environ.get("DNNL_ABI_CXX", "clang++")
DEFINES = [f"-D{d}" for d in ref.EXPERIMENTAL_DEFINES + ref.SWITCH_DEFINES]


# --- Header sets --------------------------------------------------------------------

def header_names(inc: Path):
    """The public C headers of an include directory, SYCL ones excepted."""
    d = inc / "oneapi" / "dnnl"
    return sorted(p.name for p in d.glob("*.h") if "sycl" not in p.name)


INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](?:oneapi/dnnl/)?(dnnl[^">/]*\.h)[">]', re.M)


def reachable(inc: Path):
    """{header: set of our headers its #include closure contains, itself included}."""
    d = inc / "oneapi" / "dnnl"
    direct = {h: set(INCLUDE.findall((d / h).read_text())) for h in header_names(inc)}
    out = {}
    for h in direct:
        seen, todo = set(), [h]
        while todo:
            x = todo.pop()
            if x not in seen:
                seen.add(x)
                todo += direct.get(x, ())
        out[h] = seen
    return out


class Headers:
    """One include directory: which official headers it has, and its AST facts."""

    def __init__(self, inc: Path, official_names):
        self.inc = inc
        have = set(header_names(inc)) if (inc / "oneapi" / "dnnl").is_dir() else set()
        self.present = [h for h in official_names if h in have]
        self.missing = [h for h in official_names if h not in have]
        self.extra = sorted(have - set(official_names))
        self.reach = reachable(inc) if have else {}
        self.facts = None
        self.error = None
        umbrella = [h for h in ref.HEADERS if h in have]
        try:
            self.facts = ref.facts(inc, defines=ref.EXPERIMENTAL_DEFINES + ref.SWITCH_DEFINES,
                                   headers=umbrella)
        except subprocess.CalledProcessError as e:
            self.error = e.stderr.decode(errors="replace")

    def where(self):
        """{name: headers declaring it} for enums (and their enumerators), structs,
        typedefs, functions and macros (a macro may be defined in several)."""
        out = {}
        for e in self.facts["enums"]:
            out.setdefault(e["name"], set()).add(e["header"])
            for x in e["enumerators"]:
                out.setdefault(x["name"], set()).add(e["header"])
        for kind in ("structs", "typedefs", "functions"):
            for x in self.facts[kind]:
                out.setdefault(x["name"], set()).add(x["header"])
        d = self.inc / "oneapi" / "dnnl"
        for h in header_names(self.inc):
            for line in (d / h).read_text().splitlines():
                m = ref.DEFINE.match(line)
                if m:
                    out.setdefault(m.group(1), set()).add(h)
        return out


def visibility_problems(names, official, ours):
    """Names that ours declares in a header the official one's #includes miss:
    a program including only the official header would not compile against ours."""
    ours_where = ours.where()
    problems, checked = [], 0
    for name, header in names:
        have = ours_where.get(name)
        if not have or header not in ours.reach:
            continue
        checked += 1
        if not have & ours.reach[header]:
            problems.append(f"{name}: declared in our {', '.join(sorted(have))}, which our "
                            f"{header} does not include (upstream declares it in {header})")
    return checked, problems


def report_headers(official, ours):
    total = len(official.present)
    print(f"{total - len(ours.missing)} of {total} headers present")
    for h in ours.missing:
        print(f"  MISSING header {h}")
    for h in ours.extra:
        print(f"  note: extra header {h} (not upstream)")
    return not ours.missing


# --- Compiling generated sources, pinning diagnostics to items -----------------------

DIAG = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?:\d+:)? "
                  r"(?P<sev>fatal error|error|warning|note): (?P<msg>.*)$")


class Source:
    """A generated source made of items, each a check with its own lines, so that a
    compiler diagnostic's line number tells which item it is about."""

    def __init__(self, head, tail=""):
        self.head, self.tail, self.items = head, tail, []

    def add(self, key, code):
        self.items.append((key, code))

    def render(self, skip):
        lines, owner = self.head.splitlines(), {}
        for key, code in self.items:
            if key in skip:
                continue
            for line in code.splitlines():
                lines.append(line)
                owner[len(lines)] = key
        lines += self.tail.splitlines()
        return "\n".join(lines) + "\n", owner


def build(src: Source, inc: Path, workdir: Path, lang: str, flags, output=None):
    """Compiles `src` against `inc`, dropping each item the compiler rejects.

    Returns ({key: diagnostic} for the dropped items, None) or, when an error cannot
    be pinned to an item (a broken header, say), (dropped, all the diagnostics).
    """
    path = workdir / ("check.c" if lang == "c" else "check.cpp")
    dropped = {}
    for _ in range(10):
        text, owner = src.render(dropped)
        path.write_text(text)
        cmd = [CC if lang == "c" else CXX, "-x", lang] + flags + [
            "-I", str(inc), *DEFINES, "-fno-color-diagnostics", "-fno-caret-diagnostics",
            "-ferror-limit=0", str(path)]
        cmd += ["-o", str(output)] if output else ["-fsyntax-only"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode == 0:
            return dropped, None
        new, unpinned = {}, False
        for block in _diagnostic_blocks(r.stderr):
            keys = [owner.get(int(d["line"])) for d in block
                    if Path(d["file"]) == path and owner.get(int(d["line"]))]
            if not keys:
                unpinned = True
            for k in keys:
                new.setdefault(k, block[0]["msg"])
        if unpinned or not new:
            return dropped, r.stderr
        dropped.update(new)
    return dropped, r.stderr


def _diagnostic_blocks(stderr):
    """Groups the diagnostics: an error (or -Werror warning) with the notes after it."""
    blocks = []
    for line in stderr.splitlines():
        m = DIAG.match(line)
        if not m:
            continue
        if m["sev"] == "note" and blocks:
            blocks[-1].append(m.groupdict())
        elif m["sev"] != "note":
            blocks.append([m.groupdict()])
    return blocks


def include_lines(headers):
    return "".join(f'#include "oneapi/dnnl/{h}"\n' for h in headers)


# --- values -------------------------------------------------------------------------

VALUES_HEAD = r"""
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#define U_ __attribute__((unused))
U_ static void p_int(const char *k, long long v, size_t n) {
    printf("%s\tint%zu %lld\n", k, 8 * n, v); }
U_ static void p_uint(const char *k, unsigned long long v, size_t n) {
    printf("%s\tuint%zu %llu\n", k, 8 * n, v); }
U_ static void p_bool(const char *k, _Bool v, size_t n) {
    printf("%s\tbool%zu %d\n", k, 8 * n, (int)v); }
U_ static void p_char(const char *k, char v, size_t n) {
    printf("%s\tchar%zu %d\n", k, 8 * n, (int)v); }
U_ static void p_f32(const char *k, float v, size_t n) {
    uint32_t u; memcpy(&u, &v, sizeof u);
    printf("%s\tfloat%zu bits 0x%08" PRIx32 "\n", k, 8 * n, u); }
U_ static void p_f64(const char *k, double v, size_t n) {
    uint64_t u; memcpy(&u, &v, sizeof u);
    printf("%s\tfloat%zu bits 0x%016" PRIx64 "\n", k, 8 * n, u); }
U_ static void p_str(const char *k, const char *v, size_t n) {
    (void)n; printf("%s\tstring \"%s\"\n", k, v); }
U_ static void p_ptr(const char *k, const volatile void *v, size_t n) {
    printf("%s\tpointer%zu 0x%" PRIxPTR "\n", k, 8 * n, (uintptr_t)v); }
/* Prints key, type category (with width) and value of expression x. */
#define VALUE(k, x) _Generic((x), _Bool: p_bool, char: p_char, signed char: p_int, \
    short: p_int, int: p_int, long: p_int, long long: p_int, unsigned char: p_uint, \
    unsigned short: p_uint, unsigned int: p_uint, unsigned long: p_uint, \
    unsigned long long: p_uint, float: p_f32, double: p_f64, char *: p_str, \
    const char *: p_str, default: p_ptr)(k, (x), sizeof(x))
/* The type an enum promotes to (its signedness, in short). */
#define PROMOTED(x) _Generic(+(x), int: "int", unsigned int: "unsigned int", \
    long: "long", unsigned long: "unsigned long", default: "other")
#define DEFINED(k) printf("%s\tdefined\n", k)
#define UNDEFINED(k) printf("%s\tundefined\n", k)
"""


def official_macro_kinds(official: Headers):
    """(object-like macro names, one-parameter function-like macro names, names whose
    official expansion is empty) of the official headers."""
    objects = [m["name"] for m in official.facts["macros"]]
    functions, seen = [], set()
    for h in official.present:
        for line in (official.inc / "oneapi" / "dnnl" / h).read_text().splitlines():
            m = re.match(r"\s*#\s*define\s+([A-Za-z_]\w*)\(\s*\w+\s*\)", line)
            if m and m.group(1) not in seen:
                seen.add(m.group(1))
                functions.append(m.group(1))
    dm = subprocess.run([CC, "-x", "c", "-E", "-dM", "-I", str(official.inc), *DEFINES, "-"],
                        input=include_lines(official.present), capture_output=True,
                        text=True, check=True).stdout
    empty = {m.group(1) for m in re.finditer(r"^#define (\w+) ?$", dm, re.M)}
    return objects, functions, empty


def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def values_source(official: Headers, headers):
    """The value printer, with the groups its keys belong to for the summary."""
    f = official.facts
    src = Source(VALUES_HEAD + include_lines(headers) + "int main(void) {\n",
                 "return 0;\n}\n")
    groups = {"enumerators": {}, "enum types": {}, "macros": {}, "structs": {},
              "typedefs": {}}

    def item(group, owner, key, code):
        groups[group].setdefault(owner, []).append(key)
        src.add(key, code)

    for e in f["enums"]:
        t = e["name"]
        item("enum types", t, f"enum {t}",
             f'printf("%s\\tsize %zu align %zu promotes to %s\\n", "enum {t}", '
             f"sizeof({t}), _Alignof({t}), PROMOTED(({t})0));")
        for x in e["enumerators"]:
            item("enumerators", x["name"], f"enumerator {x['name']}",
                 f'VALUE("enumerator {x["name"]}", {x["name"]});')

    objects, functions, empty = official_macro_kinds(official)
    for m in objects:
        key = f"macro {m}"
        if m in ATTRIBUTE_MACROS or m in BUILD_MACROS or m in MUST_NOT_DEFINE or m in empty:
            body = f'DEFINED("{key}");'
        else:
            body = f'VALUE("{key}", {m});'
        item("macros", m, key, f'#ifdef {m}\n{body}\n#else\nUNDEFINED("{key}");\n#endif')
    for m in functions:
        for a in MACRO_ARGS:
            key = f"macro {m}({a})"
            item("macros", m, key,
                 f'#ifdef {m}\nVALUE("{key}", {m}({a}));\n#else\nUNDEFINED("{key}");\n#endif')
        # An argument that is neither a constant nor a primary expression (it shows
        # whether the macro parenthesises its parameter).
        key = f"macro {m}(i << 1) with int i = 5"
        item("macros", m, key, f'#ifdef {m}\n{{ int i = 5; VALUE("{key}", {m}(i << 1)); }}\n'
                               f'#else\nUNDEFINED("{key}");\n#endif')

    for s in f["structs"]:
        t = s["name"]
        item("structs", t, f"struct {t}",
             f'printf("%s\\tsize %zu align %zu\\n", "struct {t}", sizeof({t}), _Alignof({t}));')

        def fields(prefix, members):
            for fd in members:
                path = prefix + fd["name"]
                item("structs", t, f"field {t}.{path}",
                     f'printf("%s\\toffset %zu size %zu\\n", "field {t}.{path}", '
                     f"offsetof({t}, {path}), sizeof((({t} *)0)->{path}));")
                if "fields" in fd:  # a record defined in place: its type has no name
                    fields(path + ".", fd["fields"])
                else:
                    item("structs", t, f"field type {t}.{path}",
                         f'printf("%s\\t%s\\n", "field type {t}.{path}", '
                         f"__builtin_types_compatible_p(__typeof__((({t} *)0)->{path}), "
                         f'{fd["type"]}) ? {c_str(fd["type"])} : "another type");')
        fields("", s["fields"])

    for td in f["typedefs"]:
        t, u = td["name"], td["type"]
        item("typedefs", t, f"typedef {t}",
             f'printf("%s\\tsize %zu align %zu %s\\n", "typedef {t}", sizeof({t}), '
             f"_Alignof({t}), __builtin_types_compatible_p({t}, {u}) ? "
             f'{c_str(u)} : "another type");')
    return src, groups


def run_values(official: Headers, ours: Headers, workdir: Path, label: str):
    """Builds and runs the value printer on both header sets: ({key: value} official,
    {key: value or None} ours, {key: why ours could not compile it}), or None."""
    src, groups = values_source(official, official.present)
    flags = ["-std=c11", "-Wall", "-Wextra", "-Werror"]  # what tests-c/ builds with
    results = []
    for name, h in (("official", official), (label, ours)):
        exe = workdir / f"values-{name}"
        src.head = VALUES_HEAD + include_lines(h.present) + "int main(void) {\n"
        dropped, fatal = build(src, h.inc, workdir, "c", flags, output=exe)
        if fatal or (dropped and h is official):
            print(f"cannot build the value printer against the {name} headers:")
            print(fatal or "\n".join(f"{k}: {v}" for k, v in dropped.items()))
            return None
        r = subprocess.run([str(exe)], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"the value printer built against the {name} headers failed "
                  f"(exit {r.returncode}):\n{r.stderr}")
            return None
        results.append((dict(line.split("\t", 1) for line in r.stdout.splitlines()),
                        dropped))
    (theirs, _), (mine, dropped) = results
    return theirs, mine, dropped, groups


def cmd_values(args):
    official = Headers(args.official, header_names(args.official))
    ours = Headers(args.ours, header_names(args.official))
    print(f"values: official {official.inc}\n        ours     {ours.inc}")
    ok = report_headers(official, ours)
    if ours.error or not ours.present:
        print("FAIL: our headers do not compile:\n" + (ours.error or "no headers"))
        return False
    with tempfile.TemporaryDirectory(prefix="dnnl-abi-") as tmp:
        got = run_values(official, ours, Path(tmp), "ours")
    if got is None:
        return False
    theirs, mine, dropped, groups = got

    problems = {g: {} for g in groups}  # group -> owner -> [lines]
    for group, owners in groups.items():
        for owner, keys in owners.items():
            for key in keys:
                want, have = theirs[key], mine.get(key)
                if group == "macros" and owner in MUST_NOT_DEFINE:
                    if have == "undefined":
                        continue
                    line = f"MISMATCH {key}: ours defines it ({MUST_NOT_DEFINE[owner]})"
                elif key in dropped:
                    line = f"MISMATCH {key}: ours does not compile it: {dropped[key]}"
                elif have != want:
                    line = f"MISMATCH {key}: official {want!r}, ours {have!r}"
                else:
                    continue
                problems[group].setdefault(owner, []).append(line)

    # What the values cannot show: that an enum type and its enumerators are an enum
    # (C++ callers cannot pass an int where the enum is expected).
    our_enums = {e["name"]: {x["name"] for x in e["enumerators"]}
                 for e in ours.facts["enums"]}
    for e in official.facts["enums"]:
        t = e["name"]
        if t not in our_enums:
            problems["enum types"].setdefault(t, []).append(
                f"MISMATCH enum {t}: ours does not define it as an enum type")
            continue
        for x in e["enumerators"]:
            if x["name"] not in our_enums[t] and f"enumerator {x['name']}" not in dropped:
                problems["enumerators"].setdefault(x["name"], []).append(
                    f"MISMATCH enumerator {x['name']}: not an enumerator of our enum {t}")

    for group, owners in groups.items():
        n = len(owners) - len(problems[group])
        print(f"{n} of {len(owners)} {group} match")
    for group in groups:
        for lines in problems[group].values():
            for line in lines:
                print("  " + line)
                ok = False

    f = official.facts
    names = [(x["name"], e["header"]) for e in f["enums"] for x in e["enumerators"]]
    names += [(x["name"], x["header"]) for k in ("enums", "structs", "typedefs", "macros")
              for x in f[k]]
    checked, vis = visibility_problems(names, official, ours)
    print(f"{checked - len(vis)} of {checked} names reachable through their official header")
    for line in vis:
        print("  NOT REACHABLE " + line)
    return ok and not vis


# --- prototypes ---------------------------------------------------------------------

def spelled(t):
    """A type as written, tokens separated by single spaces, without the top-level
    const of a parameter (not part of the function type)."""
    tokens = re.findall(r"\w+|\S", t)
    if tokens[:1] == ["const"] and not set("*[(") & set(tokens):
        tokens = tokens[1:]
    if tokens[-2:] == ["*", "const"]:
        tokens = tokens[:-1]
    return " ".join(tokens)


def pointer_decl(name, ret, params):
    plist = ", ".join(params) or "void"
    return f"DNNL_ABI_UNUSED static {ret} (*p_{name})({plist}) = {name};"


def cmd_prototypes(args):
    official = Headers(args.official, header_names(args.official))
    ours = Headers(args.ours, header_names(args.official))
    print(f"prototypes: official {official.inc}\n            ours     {ours.inc}")
    ok = report_headers(official, ours)
    if ours.error or not ours.present:
        print("FAIL: our headers do not compile:\n" + (ours.error or "no headers"))
        return False
    theirs = {fn["name"]: fn for fn in official.facts["functions"]}
    mine = {fn["name"]: fn for fn in ours.facts["functions"]}
    expected = {n: (fn["ret"], [p["type"] for p in fn["params"]]) for n, fn in theirs.items()}
    expected.update({n: (SEED_V1_RET, p) for n, p in SEED_V1_FUNCTIONS.items()})

    # One pointer per function, initialised with ours: compiled as C11 and as C++.
    head = ("#define DNNL_ABI_UNUSED __attribute__((unused))\n"
            + include_lines(ours.present))
    src = Source(head)
    for name, (ret, params) in expected.items():
        assert "(" not in ret, f"{name}: a function-returning type needs another spelling"
        src.add(name, pointer_decl(name, ret, params))
    problems = {n: [] for n in expected}  # fail
    spellings = {n: [] for n in expected}  # type names spelled differently
    compiled = {n: [] for n in expected}  # compiler diagnostics
    with tempfile.TemporaryDirectory(prefix="dnnl-abi-") as tmp:
        for lang, flags, what in (
                ("c", ["-std=c11", "-Wall", "-Wextra", "-Werror",
                       "-Wincompatible-pointer-types"], "C11"),
                ("c++", ["-std=c++11", "-Wall", "-Wextra", "-Werror"], "C++")):
            flags = flags + ["-Wno-deprecated-declarations"]  # upstream deprecates some
            dropped, fatal = build(src, ours.inc, Path(tmp), lang, flags)
            if fatal:
                print(f"FAIL: cannot compile our headers as {what}:\n{fatal}")
                return False
            for name, msg in dropped.items():
                if name in mine and not compiled[name]:  # C++ only says more if C passed
                    compiled[name].append(f"{what}: {msg}")

    # The ASTs: same functions, parameter counts, header, spelled type names.
    for name, (ret, params) in expected.items():
        fn, source = mine.get(name), "official" if name in theirs else "seed v1"
        if fn is None:
            problems[name].append("not declared in ours")
            continue
        got = [p["type"] for p in fn["params"]]
        if len(got) != len(params):
            problems[name].append(f"{len(got)} parameters, {source} {len(params)}")
        if spelled(fn["ret"]) != spelled(ret):
            spellings[name].append(f"returns '{fn['ret']}', {source} '{ret}'")
        for i, (a, b) in enumerate(zip(got, params)):
            if spelled(a) != spelled(b):
                spellings[name].append(f"parameter {i + 1} is '{a}', {source} '{b}'")
        if name in theirs:
            header = theirs[name]["header"]
            if fn["deprecated"] != theirs[name]["deprecated"]:
                spellings[name].append("deprecated" if fn["deprecated"] else "not deprecated")
            if header in ours.reach and fn["header"] not in ours.reach[header]:
                problems[name].append(f"declared in our {fn['header']}, which our {header} "
                                      f"does not include (upstream declares it in {header})")
    notes = {}
    for name in expected:  # a spelling explains a real mismatch, or fails when asked to
        if problems[name] or compiled[name] or args.strict_names:
            problems[name] += spellings[name] + compiled[name]
        elif spellings[name]:
            notes[name] = spellings[name]
    extra = sorted(set(mine) - set(expected))

    official_ok = [n for n in theirs if not problems[n]]
    seed_ok = [n for n in SEED_V1_FUNCTIONS if not problems[n]]
    print(f"{len(official_ok)} of {len(theirs)} prototypes match")
    print(f"{len(seed_ok)} of {len(SEED_V1_FUNCTIONS)} seed-only v1 prototypes match")
    print(f"{len(extra)} functions declared in ours but not upstream or in the seeds")
    for name in expected:
        for p in problems[name]:
            print(f"  MISMATCH {name}: {p}")
    for name in extra:
        print(f"  EXTRA {name}: declared in our {mine[name]['header']}")
    where = sorted({mine[n]["header"] for n in SEED_V1_FUNCTIONS if n in mine})
    if where:
        print(f"  note: the seed-only v1 functions are declared in our {', '.join(where)}")
    if notes:
        print(f"  note: {len(notes)} functions spell a type name differently, same types "
              "(C and C++ accept them; --strict-names fails on them):")
        for name, lines in notes.items():
            for x in lines:
                print(f"  note: {name}: {x}")
    return ok and not extra and len(official_ok) == len(theirs) \
        and len(seed_ok) == len(SEED_V1_FUNCTIONS)


# --- exports ------------------------------------------------------------------------

def cmd_exports(args):
    lib = Path(args.lib)
    print(f"exports: {lib}")
    if not lib.exists():
        print(f"FAIL: {lib} does not exist")
        return False
    official = Headers(args.official, header_names(args.official))
    r = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"FAIL: nm -D {lib}:\n{r.stderr}")
        return False
    symbols = {}
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            symbols.setdefault(parts[-1].split("@")[0], parts[-2])
    wanted = [fn["name"] for fn in official.facts["functions"]] + list(SEED_V1_FUNCTIONS)
    missing = [n for n in wanted if symbols.get(n, "") not in FUNCTION_SYMBOL_TYPES
               or n not in symbols]
    print(f"exported {len(wanted) - len(missing)} of {len(wanted)}")
    for n in missing:
        why = f"exported as type {symbols[n]}, not a function" if n in symbols else "missing"
        print(f"  MISSING {n}: {why}")
    others = sorted(n for n in symbols if n.startswith("dnnl_") and n not in set(wanted))
    for n in others:
        print(f"  note: {n} is exported but is neither upstream nor in the seeds")
    return not missing


# --- main ---------------------------------------------------------------------------

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    for name in ("values", "prototypes", "exports", "all"):
        s = sub.add_parser(name)
        if name != "exports":
            s.add_argument("--ours", type=Path, required=True,
                           help="our include directory (holding oneapi/dnnl/*.h)")
        if name in ("exports", "all"):
            s.add_argument("--lib", required=True, help="the library to check (libdnnl.so)")
        if name in ("prototypes", "all"):
            s.add_argument("--strict-names", action="store_true",
                           help="fail on type names spelled differently, too")
        s.add_argument("--official", type=Path, default=None,
                       help="official include directory (default: the cached wheel)")
    args = p.parse_args(argv)
    if args.official is None:
        args.official = ref.include_dir()
    # The experimental switches tested by value (DNNL_EXPERIMENTAL_GROUPED_MEMORY) are
    # compared on: DEFINES sets them for ours, a patched copy for the official headers.
    args.official = ref.switched_on_dir(args.official)
    tools = {"values": [CC], "prototypes": [CC, CXX], "exports": ["nm"]}
    for tool in tools.get(args.command, [CC, CXX, "nm"]):
        if not shutil.which(tool):
            print(f"FAIL: {tool} not found")
            return 1
    steps = {"values": [cmd_values], "prototypes": [cmd_prototypes],
             "exports": [cmd_exports], "all": [cmd_values, cmd_prototypes, cmd_exports]}
    ok = True
    for step in steps[args.command]:
        ok = step(args) and ok
        sys.stdout.flush()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
