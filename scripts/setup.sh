#!/usr/bin/env bash
# Installs what building and testing need on Debian 12 (with Rust already installed).
# Idempotent: a second run changes nothing and only re-checks.
#
#  1. Debian packages (apt-get, only when one is missing; through sudo when not root):
#     cmake clang pkg-config, OpenCL (ICD loader, headers, PoCL, clinfo),
#     Level Zero (loader and headers), python3-venv, and clang-15 llvm-spirv-15
#     spirv-tools (OpenCL C to SPIR-V, for the Level Zero kernels and tests).
#  2. .venv/ in the repository with Intel's CPU OpenCL runtime from PyPI
#     (intel-opencl-rt, and intel-cmplr-lib-rt for the compiler runtime it links to).
#     And Intel's oneDNN itself, the second reference of the C tests (scripts/test.sh
#     runs each CPU test again against it, as <test>@ref): PyPI's `onednn` (v3.13,
#     a SYCL build whose CPU engine runs on Intel's CPU OpenCL runtime) and
#     dpcpp-cpp-rt, the SYCL runtime it links to; .venv/lib/libdnnl.so.3.
#  3. ICD directories, one per runtime, for OCL_ICD_VENDORS:
#       .venv/icd/intel/intel-cpu.icd   Intel's CPU runtime only
#       .venv/icd/pocl/pocl.icd         PoCL only (copy of /etc/OpenCL/vendors/pocl.icd)
#       .venv/icd/all/                  both (what scripts/demo.sh uses)
#     and checks with clinfo that each one shows its platform.
set -euo pipefail
# rustup installs into ~/.cargo/bin, which a non-login shell may not have on PATH.
command -v cargo >/dev/null || PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv="$repo/.venv"
icd="$venv/icd"
# Pinned so that CI is reproducible; override to try another release.
intel_version=${DNNL_INTEL_OCL_VERSION:-2026.2.0}
# Intel's oneDNN v3.13 (the reference runs). PyPI has no onednn-cpu-gomp of this
# release (its last is 2023.2.0, oneDNN 3.2): `onednn` is the only v3.13 wheel.
reference_version=${DNNL_REFERENCE_VERSION:-2026.1.0}

log() { echo "setup: $*"; }
die() { echo "setup: error: $*" >&2; exit 1; }

# --- 1. Debian packages ------------------------------------------------------
packages=(cmake clang pkg-config ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
          libze-dev libze1 python3-venv clang-15 llvm-spirv-15 spirv-tools valgrind)
missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$p")
    fi
done
if ((${#missing[@]})); then
    log "installing Debian packages: ${missing[*]}"
    sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || die "not root and no sudo: install ${missing[*]}"
        sudo=(sudo)
    fi
    "${sudo[@]}" apt-get update -qq
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
    log "Debian packages present"
fi

command -v cargo >/dev/null ||
    die "cargo not found: install Rust first (https://rustup.rs)"

# --- 2. Intel's CPU OpenCL runtime in .venv ----------------------------------
# Debian's python first: python3-venv above is what makes its venv module work.
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3)
if [ ! -x "$venv/bin/python" ]; then
    log "creating $venv"
    "$python" -m venv "$venv"
fi
pip=("$venv/bin/python" -m pip --disable-pip-version-check --quiet)
version_of() { # <package>: its installed version in the venv, or nothing
    "$venv/bin/python" -c 'import importlib.metadata as m, sys; print(m.version(sys.argv[1]))' \
        "$1" 2>/dev/null || true
}
wanted=(intel-opencl-rt intel-cmplr-lib-rt dpcpp-cpp-rt)
need_install=0
for p in "${wanted[@]}"; do
    [ "$(version_of "$p")" = "$intel_version" ] || need_install=1
done
[ "$(version_of onednn)" = "$reference_version" ] || need_install=1
if ((need_install)); then
    log "pip install ${wanted[*]} (version $intel_version) and onednn $reference_version into $venv"
    "${pip[@]}" install "${wanted[@]/%/==$intel_version}" "onednn==$reference_version"
else
    log "intel-opencl-rt, intel-cmplr-lib-rt, dpcpp-cpp-rt $intel_version and onednn $reference_version present"
fi

# The wheels put libintelocl.so in .venv/lib. The .icd file they ship there
# (.venv/etc/OpenCL/vendors/intel-cpu.icd) names a build-time path, so we write our own.
# libintelocl.so finds TBB and the compiler runtime through its RUNPATH ($ORIGIN):
# no LD_LIBRARY_PATH is needed.
intel_lib=$(find "$venv" -name libintelocl.so \( -type f -o -type l \) -print -quit)
[ -n "$intel_lib" ] || die "libintelocl.so not found under $venv"
intel_lib=$(cd "$(dirname "$intel_lib")" && pwd -P)/libintelocl.so
if ldd "$intel_lib" | grep -q 'not found'; then
    ldd "$intel_lib" | grep 'not found' >&2
    die "$intel_lib has unresolved dependencies"
fi

# The reference library finds its dependencies (SYCL, TBB, the compiler runtime) in
# .venv/lib through LD_LIBRARY_PATH, as the reference runs give it.
reference_lib="$venv/lib/libdnnl.so.3"
[ -e "$reference_lib" ] || die "$reference_lib not found (package onednn)"
if LD_LIBRARY_PATH="$venv/lib" ldd "$reference_lib" | grep -q 'not found'; then
    LD_LIBRARY_PATH="$venv/lib" ldd "$reference_lib" | grep 'not found' >&2
    die "$reference_lib has unresolved dependencies"
fi

pocl_icd=/etc/OpenCL/vendors/pocl.icd
[ -f "$pocl_icd" ] || die "$pocl_icd missing (package pocl-opencl-icd)"

# --- 3. ICD directories ------------------------------------------------------
write_if_changed() { # <file> <content>
    if [ ! -f "$1" ] || [ "$(cat "$1")" != "$2" ]; then
        mkdir -p "$(dirname "$1")"
        printf '%s\n' "$2" >"$1.tmp"
        mv -f "$1.tmp" "$1"
    fi
}
write_if_changed "$icd/intel/intel-cpu.icd" "$intel_lib"
write_if_changed "$icd/pocl/pocl.icd" "$(cat "$pocl_icd")"
write_if_changed "$icd/all/intel-cpu.icd" "$intel_lib"
write_if_changed "$icd/all/pocl.icd" "$(cat "$pocl_icd")"

check_platform() { # <dir> <platform name>
    local out
    out=$(OCL_ICD_VENDORS="$1" clinfo -l 2>&1) || true
    grep -qF "$2" <<<"$out" || { echo "$out" >&2; die "clinfo with OCL_ICD_VENDORS=$1 does not list '$2'"; }
}
check_platform "$icd/intel" "Intel(R) OpenCL"
check_platform "$icd/pocl" "Portable Computing Language"
check_platform "$icd/all" "Intel(R) OpenCL"
check_platform "$icd/all" "Portable Computing Language"
log "OpenCL runtimes ready:"
log "  OCL_ICD_VENDORS=$icd/intel   Intel's CPU runtime ($intel_lib)"
log "  OCL_ICD_VENDORS=$icd/pocl    PoCL"
log "  OCL_ICD_VENDORS=$icd/all     both"
log "Intel's oneDNN (reference runs): $reference_lib"
