#!/usr/bin/env python3
"""Generates the Rust side of level-zero-sys from the Level Zero headers.

    python3 crates/level-zero-sys/gen/generate.py [/usr/include/level_zero]

Reads ze_api.h and ze_ddi.h (Debian libze-dev 1.8.12) and writes, next to this
script's crate:
  src/types.rs   handles, enums and flags (newtypes of u32 with their constants),
                 descriptors and properties (#[repr(C)], field for field)
  src/protos.rs  the `ze_api!` invocation listing the C functions `Api` loads
  src/ddi.rs     the driver-side DDI tables and zeGet*ProcAddrTable types
  tests/layout/table.rs  every struct and field, for the layout test against gcc

Only the names listed below are taken (the part of the API this project uses);
everything they need is pulled in. Comments of the header are not copied: the
output is names, values and layouts only.
"""
import os
import re
import sys

INCLUDE = sys.argv[1] if len(sys.argv) > 1 else "/usr/include/level_zero"
CRATE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Structs to generate (their field types follow).
STRUCTS = """
ze_ipc_mem_handle_t ze_ipc_event_pool_handle_t
ze_base_properties_t ze_base_desc_t
ze_driver_uuid_t ze_driver_properties_t ze_driver_ipc_properties_t ze_driver_extension_properties_t
ze_device_uuid_t ze_device_properties_t ze_device_thread_t ze_device_compute_properties_t
ze_native_kernel_uuid_t ze_device_module_properties_t ze_command_queue_group_properties_t
ze_device_memory_properties_t ze_device_memory_access_properties_t ze_device_cache_properties_t
ze_device_external_memory_properties_t ze_device_p2p_properties_t ze_device_image_properties_t
ze_context_desc_t ze_command_queue_desc_t ze_command_list_desc_t ze_copy_region_t
ze_event_pool_desc_t ze_event_desc_t ze_kernel_timestamp_data_t ze_kernel_timestamp_result_t
ze_fence_desc_t ze_device_mem_alloc_desc_t ze_host_mem_alloc_desc_t
ze_memory_allocation_properties_t ze_module_constants_t ze_module_desc_t ze_module_properties_t
ze_kernel_desc_t ze_kernel_uuid_t ze_kernel_properties_t
ze_kernel_preferred_group_size_properties_t ze_group_count_t
""".split()

# Enums that are no field of the structs above but are used by the functions.
EXTRA_ENUMS = """
ze_init_flag_t ze_result_t ze_structure_type_t ze_api_version_t ze_memory_type_t
ze_event_scope_flag_t ze_kernel_indirect_access_flag_t ze_cache_config_flag_t
ze_memory_advice_t ze_device_mem_alloc_flag_t ze_host_mem_alloc_flag_t
""".split()

# C functions that `Api` loads from libze_loader.so.1.
FUNCTIONS = """
zeInit zeDriverGet zeDriverGetApiVersion zeDriverGetProperties zeDriverGetIpcProperties
zeDriverGetExtensionProperties zeDriverGetExtensionFunctionAddress
zeDeviceGet zeDeviceGetSubDevices zeDeviceGetProperties zeDeviceGetComputeProperties
zeDeviceGetModuleProperties zeDeviceGetCommandQueueGroupProperties zeDeviceGetMemoryProperties
zeDeviceGetMemoryAccessProperties zeDeviceGetCacheProperties zeDeviceGetStatus
zeDeviceGetGlobalTimestamps
zeContextCreate zeContextDestroy zeContextGetStatus
zeCommandQueueCreate zeCommandQueueDestroy zeCommandQueueExecuteCommandLists
zeCommandQueueSynchronize
zeCommandListCreate zeCommandListCreateImmediate zeCommandListDestroy zeCommandListClose
zeCommandListReset zeCommandListAppendBarrier zeCommandListAppendMemoryCopy
zeCommandListAppendMemoryFill zeCommandListAppendSignalEvent zeCommandListAppendWaitOnEvents
zeCommandListAppendEventReset zeCommandListAppendLaunchKernel
zeCommandListAppendQueryKernelTimestamps
zeEventPoolCreate zeEventPoolDestroy zeEventCreate zeEventDestroy zeEventHostSignal
zeEventHostSynchronize zeEventQueryStatus zeEventHostReset zeEventQueryKernelTimestamp
zeFenceCreate zeFenceDestroy zeFenceHostSynchronize zeFenceQueryStatus zeFenceReset
zeMemAllocShared zeMemAllocDevice zeMemAllocHost zeMemFree zeMemGetAllocProperties
zeMemGetAddressRange
zeModuleCreate zeModuleDestroy zeModuleBuildLogDestroy zeModuleBuildLogGetString
zeModuleGetNativeBinary zeModuleGetKernelNames zeModuleGetProperties
zeKernelCreate zeKernelDestroy zeKernelSetGroupSize zeKernelSuggestGroupSize
zeKernelSetArgumentValue zeKernelSetIndirectAccess zeKernelGetProperties zeKernelGetName
""".split()

# DDI tables the driver can fill (ze_ddi.h), by struct name.
DDI_TABLES = """
ze_global_dditable_t ze_driver_dditable_t ze_device_dditable_t ze_context_dditable_t
ze_command_queue_dditable_t ze_command_list_dditable_t ze_fence_dditable_t
ze_event_pool_dditable_t ze_event_dditable_t ze_module_dditable_t
ze_module_build_log_dditable_t ze_kernel_dditable_t ze_mem_dditable_t
ze_image_dditable_t ze_sampler_dditable_t ze_physical_mem_dditable_t
ze_virtual_mem_dditable_t ze_device_exp_dditable_t ze_event_exp_dditable_t
ze_image_exp_dditable_t ze_kernel_exp_dditable_t ze_fabric_vertex_exp_dditable_t
ze_fabric_edge_exp_dditable_t
""".split()

PRIM = {
    "uint8_t": "u8", "int8_t": "i8", "uint16_t": "u16", "int16_t": "i16",
    "uint32_t": "u32", "int32_t": "i32", "uint64_t": "u64", "int64_t": "i64",
    "size_t": "usize", "char": "c_char", "void": "c_void", "int": "c_int",
    "float": "f32", "double": "f64", "ze_bool_t": "ze_bool_t",
}

api = open(os.path.join(INCLUDE, "ze_api.h")).read()
ddi_h = open(os.path.join(INCLUDE, "ze_ddi.h")).read()


def strip_comments(text):
    return re.sub(r"///.*", "", text)


defines = {m.group(1): int(m.group(2), 0)
           for m in re.finditer(r"#define\s+(ZE_\w+)\s+(0x[0-9a-fA-F]+|\d+)\s*$", api, re.M)}
handles = re.findall(r"typedef struct _(ze_\w+_handle_t) \*\1;", api)
flag_typedefs = set(re.findall(r"typedef uint32_t (ze_\w+_flags_t);", api))

enums = {}  # name -> [(const, value)]
enum_order = []
for m in re.finditer(r"typedef enum _(ze_\w+_t)\s*\{(.*?)\}\s*\1;", api, re.S):
    name, body = m.group(1), strip_comments(m.group(2))
    body = re.sub(r"ZE_BIT\(\s*(\d+)\s*\)", r"(1 << \1)", body)
    body = re.sub(r"ZE_MAKE_VERSION\(\s*(\d+)\s*,\s*(\d+)\s*\)", r"((\1 << 16) | \2)", body)
    consts, known = [], {}
    for item in body.split(","):
        item = item.strip()
        if not item:
            continue
        cname, expr = [s.strip() for s in item.split("=", 1)]
        if cname.endswith("_FORCE_UINT32"):
            continue
        value = eval(expr, {}, known)  # numbers, shifts and earlier constants only
        known[cname] = value
        consts.append((cname, value))
    enums[name] = consts
    enum_order.append(name)

structs = {}  # name -> [(ctype, field, array_len or None)]
for m in re.finditer(r"typedef struct _(ze_\w+_t)\s*\{(.*?)\}\s*\1;", api, re.S):
    name, body = m.group(1), strip_comments(m.group(2))
    fields = []
    for decl in body.split(";"):
        decl = " ".join(decl.split())
        if not decl:
            continue
        fm = re.match(r"(.+?)\s*\b(\w+)(?:\[(\w+)\])?$", decl)
        ctype, field, arr = fm.group(1), fm.group(2), fm.group(3)
        if arr is not None:
            arr = defines.get(arr, None) if not arr.isdigit() else int(arr)
        fields.append((ctype.strip(), field, arr))
    structs[name] = fields

# stype of each struct, from the comments of ze_structure_type_t (the first value wins).
stype_of = {}
for m in re.finditer(r"(ZE_STRUCTURE_TYPE_\w+)\s*=\s*\w+,\s*///< ::(ze_\w+_t)", api):
    stype_of.setdefault(m.group(2), m.group(1))

protos = {}
for m in re.finditer(r"ZE_APIEXPORT ze_result_t ZE_APICALL\s*(ze\w+)\(\s*(.*?)\);", api, re.S):
    params = []
    body = strip_comments(m.group(2))
    for p in body.split(","):
        p = " ".join(p.split())
        if not p or p == "void":
            continue
        pm = re.match(r"(.+?)\s*\b(\w+)$", p)
        params.append((pm.group(1).strip(), pm.group(2)))
    protos[m.group(1)] = params


def enum_of_type(ctype):
    """The enum backing a C type name (flags typedefs map to their _flag_t enum)."""
    if ctype in enums:
        return ctype
    if ctype in flag_typedefs:
        return ctype[:-len("s_t")] + "_t"
    return None


# Pull in what the chosen structs need.
needed_structs, needed_enums = [], list(EXTRA_ENUMS)


def need_type(ctype):
    base = " ".join(t for t in ctype.replace("*", " ").split() if t != "const")
    if base in structs and base not in needed_structs:
        for ftype, _, _ in structs[base]:
            need_type(ftype)
        needed_structs.append(base)
    e = enum_of_type(base)
    if e and e not in needed_enums:
        needed_enums.append(e)


for s in STRUCTS:
    need_type(s)
for f in FUNCTIONS:
    for ptype, _ in protos[f]:
        need_type(ptype)

known_types = set(PRIM) | set(handles) | set(needed_structs)
known_types |= {e for e in needed_enums}
known_types |= {e[:-2] + "s_t" for e in needed_enums if e[:-2] + "s_t" in flag_typedefs}


def rust_type(ctype):
    """C type text ("const ze_x_t*", "void**") -> Rust type, or None if unknown."""
    ctype = " ".join(ctype.split())
    stars = ctype.count("*")
    parts = ctype.replace("*", " * ").split()
    # Pointer constness: "const T*" is *const T; "const T**" is *mut *const T.
    base_const = parts[0] == "const"
    base = [p for p in parts if p not in ("const", "*")]
    if len(base) != 1:
        return None
    base = base[0]
    if base not in known_types:
        return None
    if base in enums and base.endswith("_flag_t") and base[:-2] + "s_t" in flag_typedefs:
        base = base[:-2] + "s_t"
    rt = PRIM.get(base, base)
    if stars == 0:
        return rt
    if "* const" in ctype:
        return None
    rt = ("*const " if base_const else "*mut ") + rt
    for _ in range(stars - 1):
        rt = "*mut " + rt
    return rt


def rust_ident(name):
    """A C identifier as Rust spells it (a Rust keyword gets the raw r# form)."""
    return "r#" + name if name in ("type", "ref", "mod", "fn", "in", "match", "move") else name


def flags_name(enum):
    f = enum[:-2] + "s_t"
    return f if f in flag_typedefs else None


HEADER = ("// @generated by crates/level-zero-sys/gen/generate.py from the Level Zero headers\n"
          "// (Debian libze-dev 1.8.12). Do not edit: change the script and run it again.\n")

out = [HEADER, "use core::ffi::{c_char, c_void};\n", "#[allow(unused_imports)]\nuse core::ffi::c_int;\n"]
out.append("\n/// `ze_bool_t`: 0 is false, anything else true.\npub type ze_bool_t = u8;\n")
for name, value in sorted(defines.items()):
    if name.startswith("ZE_MAX_") or name.startswith("ZE_SUBGROUPSIZE") or name == "ZE_MAX_IPC_HANDLE_SIZE":
        out.append(f"pub const {name}: usize = {value};\n")

out.append("\n// Handles: each one a pointer to its own opaque struct, as in C.\n")
for h in handles:
    out.append(f"#[repr(C)]\npub struct _{h} {{\n    _opaque: [u8; 0],\n}}\n"
               f"pub type {h} = *mut _{h};\n")

out.append("\n// Enums and flags: newtypes of u32 (a C caller may pass any value).\n")
for e in enum_order:
    if e not in needed_enums:
        continue
    fname = flags_name(e)
    tname = fname or e
    derive = "#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]"
    out.append(f"\n#[repr(transparent)]\n{derive}\npub struct {tname}(pub u32);\n")
    if fname:
        out.append(f"/// The single-flag enum of C; its constants have the flags type.\n"
                   f"pub type {e} = {fname};\n")
        out.append(f"impl_flags!({fname});\n")
    seen = {}
    for cname, value in enums[e]:
        out.append(f"pub const {cname}: {tname} = {tname}({value:#x});\n")
        seen.setdefault(value, cname)
    names = ", ".join(f"{v:#x} => \"{n}\"" for v, n in seen.items())
    out.append(f"impl_debug!({tname}, {{ {names} }});\n")

out.append("\n// Descriptors and properties: #[repr(C)], field for field.\n")
layout_rows = []
for s in needed_structs:
    out.append(f"\n#[repr(C)]\n#[derive(Clone, Copy, Debug)]\npub struct {s} {{\n")
    for ctype, field, arr in structs[s]:
        rt = rust_type(ctype)
        assert rt, f"{s}.{field}: unknown type {ctype}"
        if arr is not None:
            rt = f"[{rt}; {arr}]"
        out.append(f"    pub {rust_ident(field)}: {rt},\n")
    out.append("}\n")
    st = stype_of.get(s)
    if any(f == "stype" for _, f, _ in structs[s]) and st:
        out.append(f"impl_default!({s}, {st});\n")
    else:
        out.append(f"impl_default!({s});\n")
    layout_rows.append((s, [rust_ident(f) for _, f, _ in structs[s]]))

with open(os.path.join(CRATE, "src", "types.rs"), "w") as fp:
    fp.write("".join(out))

# Functions of Api.
out = [HEADER, "\nze_api! {\n"]
for f in FUNCTIONS:
    args = []
    for ptype, pname in protos[f]:
        rt = rust_type(ptype)
        assert rt, f"{f}({pname}): unknown type {ptype}"
        args.append(f"{pname}: {rt}")
    out.append(f"    fn {f}({', '.join(args)});\n")
out.append("}\n")
with open(os.path.join(CRATE, "src", "protos.rs"), "w") as fp:
    fp.write("".join(out))

# DDI tables.
pfns = {}
for m in re.finditer(r"typedef ze_result_t \(ZE_APICALL \*(ze_pfn\w+_t)\)\(\s*(.*?)\);", ddi_h, re.S):
    ptypes = [" ".join(p.split()) for p in strip_comments(m.group(2)).split(",")]
    pfns[m.group(1)] = [p for p in ptypes if p and p != "void"]
tables = {}
for m in re.finditer(r"typedef struct _(ze_\w+_dditable_t)\s*\{(.*?)\}\s*\1;", ddi_h, re.S):
    tables[m.group(1)] = re.findall(r"(ze_pfn\w+_t)\s+(\w+);", m.group(2))
getters = re.findall(r"typedef ze_result_t \(ZE_APICALL \*(ze_pfnGet(\w+)ProcAddrTable_t)\)\(\s*"
                     r"ze_api_version_t,\s*(ze_\w+_dditable_t)\*", ddi_h)

out = [HEADER, "//! Slots whose C signature uses a type this crate does not define are\n"
       "//! `Option<unsafe extern \"C\" fn()>`: same size, never called by this project.\n\n"
       "use crate::types::*;\n", "#[allow(unused_imports)]\nuse core::ffi::{c_char, c_void};\n\n"
       "/// A slot this crate leaves untyped (its C signature uses types not defined here).\n"
       "pub type ze_pfnUntyped_t = unsafe extern \"C\" fn();\n"]
emitted = set()
for t in DDI_TABLES:
    for pfn, _ in tables[t]:
        if pfn in emitted:
            continue
        rts = [rust_type(p) for p in pfns[pfn]]
        if all(rts):
            out.append(f"pub type {pfn} = unsafe extern \"C\" fn({', '.join(rts)}) -> ze_result_t;\n")
            emitted.add(pfn)
for t in DDI_TABLES:
    out.append(f"\n#[repr(C)]\n#[derive(Clone, Copy, Default)]\npub struct {t} {{\n")
    for pfn, field in tables[t]:
        ty = pfn if pfn in emitted else "ze_pfnUntyped_t"
        out.append(f"    pub {field}: Option<{ty}>,\n")
    out.append("}\n")
    layout_rows.append((t, [f for _, f in tables[t]]))
for pfn, table_name, t in getters:
    if t in DDI_TABLES:
        out.append(f"pub type {pfn} = unsafe extern \"C\" fn(ze_api_version_t, *mut {t}) -> ze_result_t;\n")

# The tools (zet) and sysman (zes) tables: a driver that has none of these features
# still answers the loader's zet*/zes* table requests (the loader's zeInit fails
# otherwise), with every slot NULL. Only their layout matters: all slots untyped.
for prefix in ("zet", "zes"):
    text = open(os.path.join(INCLUDE, f"{prefix}_ddi.h")).read()
    for m in re.finditer(r"typedef struct _(%s_\w+_dditable_t)\s*\{(.*?)\}\s*\1;" % prefix, text, re.S):
        t = m.group(1)
        if t == f"{prefix}_dditable_t":
            continue
        fields = re.findall(r"(%s_pfn\w+_t)\s+(\w+);" % prefix, m.group(2))
        out.append(f"\n#[repr(C)]\n#[derive(Clone, Copy, Default)]\npub struct {t} {{\n")
        for _, field in fields:
            out.append(f"    pub {field}: Option<ze_pfnUntyped_t>,\n")
        out.append("}\n")
        layout_rows.append((t, [f for _, f in fields]))
        getter = re.search(r"typedef ze_result_t \(ZE_APICALL \*(%s_pfnGet\w+ProcAddrTable_t)\)\(\s*ze_api_version_t,\s*%s\*" % (prefix, t), text)
        out.append(f"pub type {getter.group(1)} = unsafe extern \"C\" fn(ze_api_version_t, *mut {t}) -> ze_result_t;\n")
with open(os.path.join(CRATE, "src", "ddi.rs"), "w") as fp:
    fp.write("".join(out))

# Layout table for tests/layout.rs: (header, struct, [fields]).
out = [HEADER, "\nlayout_table! {\n"]
for s, fields in layout_rows:
    hdr = s.split("_")[0] + "_ddi.h" if s.endswith("_dditable_t") else "ze_api.h"
    out.append(f"    \"{hdr}\" {s} {{ {', '.join(fields)} }}\n")
out.append("}\n\nconst_table! {\n")
for e in enum_order:
    if e in needed_enums:
        out.append("    " + ", ".join(c for c, _ in enums[e]) + ",\n")
out.append("}\n")
os.makedirs(os.path.join(CRATE, "tests", "layout"), exist_ok=True)
with open(os.path.join(CRATE, "tests", "layout", "table.rs"), "w") as fp:
    fp.write("".join(out))
print(f"{len(needed_structs)} structs, {len(needed_enums)} enums, {len(FUNCTIONS)} functions, "
      f"{len(DDI_TABLES)} DDI tables")

# The repository's `cargo fmt --check` covers these files too.
import subprocess  # noqa: E402
subprocess.run(["rustfmt", "--edition", "2024",
                os.path.join(CRATE, "src", "types.rs"), os.path.join(CRATE, "src", "ddi.rs"),
                os.path.join(CRATE, "tests", "layout", "table.rs")], check=False)
