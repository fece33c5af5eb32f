#!/usr/bin/env python3
"""Self-test of check_abi.py: it must pass a faithful copy and catch broken ones.

    python3 tests-c/abi/selftest.py [-v] [-j N]

"Faithful" is the official include directory turned into what ours should be: the
SYCL-build markers removed, the build macros describing another build (the allowed
differences), and the seed-only v1 OpenCL functions declared in dnnl_ocl.h. Each
broken case edits that copy in one way and names the lines check_abi.py must print;
the library cases use stub libraries built here. Not a CTest test (it takes about a
minute); run it after changing check_abi.py.
"""
import argparse
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHECK = HERE / "check_abi.py"
sys.path.insert(0, str(HERE))
import check_abi  # noqa: E402

V1_DECLS = "".join(
    f"dnnl_status_t DNNL_API {n}({', '.join(p)});\n"
    for n, p in check_abi.SEED_V1_FUNCTIONS.items())

# The faithful copy: (file, text, replacement).
FAITHFUL = [
    ("dnnl_config.h", "#define DNNL_WITH_SYCL\n", "/* #undef DNNL_WITH_SYCL */\n"),
    ("dnnl_config.h", "#define DNNL_CPU_RUNTIME DNNL_RUNTIME_SYCL",
     "#define DNNL_CPU_RUNTIME DNNL_RUNTIME_SEQ"),
    ("dnnl_config.h", "#define DNNL_GPU_RUNTIME DNNL_RUNTIME_SYCL",
     "#define DNNL_GPU_RUNTIME DNNL_RUNTIME_OCL"),
    ("dnnl_config.h", "#define DNNL_GPU_VENDOR DNNL_VENDOR_INTEL",
     "#define DNNL_GPU_VENDOR DNNL_VENDOR_GENERIC"),
    ("dnnl_version.h", "#define DNNL_VERSION_PATCH 2", "#define DNNL_VERSION_PATCH 0"),
    ("dnnl_ocl.h", "/// @} dnnl_api\n\n#ifdef __cplusplus", V1_DECLS + "\n#ifdef __cplusplus"),
]
# Every copy, the "as is" one too: the value switches can be turned on by the user
# (check_abi passes -DX=1 to ours), as in our dnnl_config.h.
SWITCHABLE = [
    ("dnnl_config.h", "#define DNNL_EXPERIMENTAL_GROUPED_MEMORY 0\n",
     "#ifndef DNNL_EXPERIMENTAL_GROUPED_MEMORY\n#define DNNL_EXPERIMENTAL_GROUPED_MEMORY 0\n#endif\n"),
]

# (name, command, edits, lines that must be printed). The faithful copy, the complete
# library and a spelling-only difference must exit 0, every broken case 1.
CASES = [
    ("faithful copy: values", "values", [], ["2092 of 2092 enumerators match",
                                             "167 of 167 macros match",
                                             "4 of 4 structs match"]),
    ("faithful copy: prototypes", "prototypes", [], ["322 of 322 prototypes match",
                                                     "7 of 7 seed-only v1 prototypes match"]),
    ("official copy as is: SYCL markers", "values", ["UNFAITHFUL"],
     ["MISMATCH macro DNNL_WITH_SYCL: ours defines it",
      "MISMATCH macro DNNL_ENABLE_CONCURRENT_EXEC: ours defines it"]),
    ("changed enumerator value", "values",
     [("dnnl_common_types.h", "    dnnl_f32 = 3,", "    dnnl_f32 = 4,")],
     ["2091 of 2092 enumerators match",
      "MISMATCH enumerator dnnl_f32: official 'int32 3', ours 'int32 4'"]),
    ("missing enumerator", "values",
     [("dnnl_common_types.h", "    dnnl_f32 = 3,\n", "")],
     ["MISMATCH enumerator dnnl_f32: ours does not compile it: use of undeclared identifier"]),
    ("missing macro", "values", [("dnnl_types.h", "#define DNNL_ARG_BIAS 41\n", "")],
     ["166 of 167 macros match",
      "MISMATCH macro DNNL_ARG_BIAS: official 'int32 41', ours 'undefined'"]),
    ("macro of another type", "values",
     [("dnnl_config.h", "#define DNNL_RUNTIME_OCL 256u", "#define DNNL_RUNTIME_OCL 256")],
     ["MISMATCH macro DNNL_RUNTIME_OCL: official 'uint32 256', ours 'int32 256'"]),
    ("function-like macro without parentheses", "values",
     [("dnnl_types.h", "(DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE * ((idx) + 1))",
       "(DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE * (idx + 1))")],
     ["166 of 167 macros match",
      "MISMATCH macro DNNL_ARG_ATTR_MULTIPLE_POST_OP(i << 1) with int i = 5: "
      "ours does not compile it: operator '<<' has lower precedence than '+'"]),
    ("field type changed, same size", "values",
     [("dnnl_common_types.h", "    int patch;", "    unsigned patch;")],
     ["3 of 4 structs match", "MISMATCH field type dnnl_version_t.patch: official 'int'"]),
    ("field type changed, other size", "values",
     [("dnnl_graph_types.h", "    size_t id;", "    int id;")],
     ["MISMATCH struct dnnl_graph_logical_tensor_t: official 'size 224 align 8', "
      "ours 'size 216 align 8'",
      "MISMATCH field dnnl_graph_logical_tensor_t.ndims: official 'offset 8 size 4', "
      "ours 'offset 4 size 4'"]),
    ("enum made an integer typedef (cbindgen's repr(u32) style)", "values",
     [("dnnl_common_types.h", "typedef enum {\n    /// An unspecified engine.",
       "enum dnnl_engine_kind {\n    /// An unspecified engine."),
      ("dnnl_common_types.h", "} dnnl_engine_kind_t;",
       "};\ntypedef unsigned int dnnl_engine_kind_t;")],
     ["29 of 30 enum types match",
      "MISMATCH enum dnnl_engine_kind_t: ours does not define it as an enum type"]),
    ("typedef changed", "values",
     [("dnnl_common_types.h", "typedef int64_t dnnl_dim_t;", "typedef long long dnnl_dim_t;")],
     ["38 of 39 typedefs match",
      "MISMATCH typedef dnnl_dim_t: official 'size 8 align 8 int64_t', "
      "ours 'size 8 align 8 another type'"]),
    ("macro moved out of its header's reach", "values",
     [("dnnl_version.h", "#define DNNL_VERSION_MINOR 13\n", ""),
      ("dnnl_ukernel_types.h", "#include \"oneapi/dnnl/dnnl_types.h\"\n",
       "#include \"oneapi/dnnl/dnnl_types.h\"\n#define DNNL_VERSION_MINOR 13\n")],
     ["NOT REACHABLE DNNL_VERSION_MINOR: declared in our dnnl_ukernel_types.h, which our "
      "dnnl_version.h does not include"]),
    ("missing header", "values", [("dnnl_version_hash.h", None, None)],
     ["16 of 17 headers present", "MISSING header dnnl_version_hash.h",
      "MISMATCH macro DNNL_VERSION_HASH: official 'defined', ours 'undefined'"]),
    ("header that does not compile", "values",
     [("dnnl_debug.h", "#include \"oneapi/dnnl/dnnl_types.h\"\n",
       "#include \"oneapi/dnnl/dnnl_types.h\"\nint broken = ;\n")],
     ["FAIL: our headers do not compile", "dnnl_debug.h"]),
    ("parameter type changed", "prototypes",
     [("dnnl.h", "dnnl_memory_desc_t *memory_desc, int ndims, const dnnl_dims_t dims,\n"
       "        dnnl_data_type_t data_type, dnnl_format_tag_t tag);",
       "dnnl_memory_desc_t *memory_desc, long ndims, const dnnl_dims_t dims,\n"
       "        dnnl_data_type_t data_type, dnnl_format_tag_t tag);")],
     ["321 of 322 prototypes match",
      "MISMATCH dnnl_memory_desc_create_with_tag: parameter 2 is 'long', official 'int'",
      "MISMATCH dnnl_memory_desc_create_with_tag: C11: "]),
    ("same type spelled differently: passes with a note", "prototypes",
     [("dnnl.h", "dnnl_memory_desc_t *memory_desc, int ndims, const dnnl_dims_t dims,\n"
       "        dnnl_data_type_t data_type, dnnl_format_tag_t tag);",
       "dnnl_memory_desc_t *memory_desc, int32_t ndims, const int64_t *dims,\n"
       "        dnnl_data_type_t data_type, dnnl_format_tag_t tag);")],
     ["322 of 322 prototypes match",
      "note: dnnl_memory_desc_create_with_tag: parameter 2 is 'int32_t', official 'int'",
      "note: dnnl_memory_desc_create_with_tag: parameter 3 is 'const int64_t *', "
      "official 'const dnnl_dim_t *'"]),
    ("enum parameter as an integer (C++ only)", "prototypes",
     [("dnnl_common.h", "dnnl_engine_t engine, dnnl_engine_kind_t *kind);",
       "dnnl_engine_t engine, unsigned int *kind);")],
     ["MISMATCH dnnl_engine_get_kind: C++: "]),
    ("missing function", "prototypes",
     [("dnnl_common.h", "dnnl_status_t DNNL_API dnnl_stream_wait(dnnl_stream_t stream);", "")],
     ["321 of 322 prototypes match", "MISMATCH dnnl_stream_wait: not declared in ours"]),
    ("extra function", "prototypes",
     [("dnnl_common.h", "dnnl_status_t DNNL_API dnnl_stream_wait(dnnl_stream_t stream);",
       "dnnl_status_t DNNL_API dnnl_stream_wait(dnnl_stream_t stream);\n"
       "dnnl_status_t DNNL_API dnnl_not_upstream(void);")],
     ["1 functions declared in ours but not upstream",
      "EXTRA dnnl_not_upstream: declared in our dnnl_common.h"]),
    ("seed-only function with a wrong type", "prototypes",
     [("dnnl_ocl.h", "dnnl_memory_set_ocl_mem_object(dnnl_memory_t, cl_mem)",
       "dnnl_memory_set_ocl_mem_object(dnnl_memory_t, void *)")],
     ["6 of 7 seed-only v1 prototypes match",
      "MISMATCH dnnl_memory_set_ocl_mem_object: C11: "]),
    ("function moved out of its header's reach", "prototypes",
     [("dnnl_common.h", "dnnl_status_t DNNL_API dnnl_stream_wait(dnnl_stream_t stream);", ""),
      ("dnnl_ukernel.h", "#include \"oneapi/dnnl/dnnl_ukernel_types.h\"\n",
       "#include \"oneapi/dnnl/dnnl_ukernel_types.h\"\n"
       "dnnl_status_t DNNL_API dnnl_stream_wait(dnnl_stream_t stream);\n")],
     ["MISMATCH dnnl_stream_wait: declared in our dnnl_ukernel.h, which our dnnl_common.h "
      "does not include"]),
    ("library exporting everything", "exports", ["LIB:good"], ["exported 329 of 329"]),
    ("library missing a function", "exports", ["LIB:bad"],
     ["exported 327 of 329", "MISSING dnnl_stream_wait: missing",
      "MISSING dnnl_engine_create_ocl: exported as type D, not a function",
      "note: dnnl_not_upstream is exported but is neither upstream nor in the seeds"]),
]


def edit(root: Path, edits):
    d = root / "oneapi" / "dnnl"
    for f, old, new in edits:
        if old is None:
            (d / f).unlink()
            continue
        text = (d / f).read_text()
        assert text.count(old) == 1, f"{f}: {old!r} found {text.count(old)} times"
        (d / f).write_text(text.replace(old, new))


def stub_library(path: Path, names, data=(), extra=()):
    """A shared library defining each name as a function (each in `data` as an int)."""
    src = path.with_suffix(".c")
    src.write_text("".join(f"int {n} = 1;\n" if n in data else f"void {n}(void) {{}}\n"
                           for n in list(names) + list(extra)))
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(path), str(src)], check=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-v", action="store_true", help="print check_abi.py's output")
    p.add_argument("-j", type=int, default=2, help="cases run at once")
    args = p.parse_args()
    official = check_abi.ref.include_dir()
    ref = check_abi.ref
    switched = ref.switched_on_dir(official)
    names = [fn["name"] for fn in
             ref.facts(switched, defines=ref.EXPERIMENTAL_DEFINES + ref.SWITCH_DEFINES)
             ["functions"]]
    names += list(check_abi.SEED_V1_FUNCTIONS)

    with tempfile.TemporaryDirectory(prefix="dnnl-abi-selftest-") as tmp:
        tmp = Path(tmp)
        stub_library(tmp / "good.so", names)
        stub_library(tmp / "bad.so", [n for n in names if n != "dnnl_stream_wait"],
                     data=["dnnl_engine_create_ocl"], extra=["dnnl_not_upstream"])

        def run(i, case):
            name, command, edits, wanted = case
            root = tmp / f"case{i}"
            if command == "exports":
                argv = ["exports", "--lib", str(tmp / (edits[0][4:] + ".so"))]
            else:
                shutil.copytree(official, root)
                edit(root, SWITCHABLE)
                if edits != ["UNFAITHFUL"]:
                    edit(root, FAITHFUL)
                    edit(root, edits)
                argv = [command, "--ours", str(root)]
            r = subprocess.run([sys.executable, str(CHECK)] + argv, capture_output=True,
                               text=True)
            out = r.stdout + r.stderr
            want_rc = 0 if name.startswith(("faithful", "library exporting", "same type")) \
                else 1
            lost = [w for w in wanted if w not in out]
            ok = r.returncode == want_rc and not lost
            return ok, name, r.returncode, want_rc, lost, out

        failed = 0
        with ThreadPoolExecutor(args.j) as pool:
            for ok, name, rc, want_rc, lost, out in pool.map(lambda a: run(*a),
                                                             enumerate(CASES)):
                print(f"{'PASS' if ok else 'FAIL'}  {name} (exit {rc}, expected {want_rc})")
                for w in lost:
                    print(f"      did not print: {w}")
                if args.v or not ok:
                    print("      | " + out.rstrip().replace("\n", "\n      | "))
                failed += not ok
    print(f"{len(CASES) - failed} of {len(CASES)} self-test cases pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
