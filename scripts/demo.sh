#!/usr/bin/env bash
# README command 1: installs what is needed (scripts/setup.sh), builds the library and
# the C programs with CMake into build/, and runs two examples with both OpenCL
# runtimes visible (PoCL and Intel's CPU runtime):
# - examples-c/engines.c prints the library version and the engines it finds, and
#   creates each one in the default device order;
# - examples-c/ocl_interop.c runs the OpenCL interop walk-through on the default device
#   (GPU engine 0): engine, stream and memory over the user's OpenCL objects, a user
#   kernel, USM where the device has it. It exits 0 with a message when there is no
#   OpenCL device.
set -euo pipefail
# rustup installs into ~/.cargo/bin, which a non-login shell may not have on PATH.
command -v cargo >/dev/null || PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)" --target engines ocl_interop ocl_matmul

echo
echo "== build/examples-c/engines (OCL_ICD_VENDORS=.venv/icd/all)"
OCL_ICD_VENDORS="$repo/.venv/icd/all" build/examples-c/engines

echo
echo "== build/examples-c/ocl_interop (OCL_ICD_VENDORS=.venv/icd/all, default device)"
OCL_ICD_VENDORS="$repo/.venv/icd/all" build/examples-c/ocl_interop

echo
echo "== build/examples-c/ocl_matmul (OCL_ICD_VENDORS=.venv/icd/all, default device)"
OCL_ICD_VENDORS="$repo/.venv/icd/all" build/examples-c/ocl_matmul
