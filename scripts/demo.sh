#!/usr/bin/env bash
# README command 1: installs what is needed (scripts/setup.sh), builds the library and
# the C programs with CMake into build/, and runs examples-c/engines.c with both
# OpenCL runtimes visible (PoCL and Intel's CPU runtime). It prints the library version
# and the engines it finds, and creates each one on the default device order.
set -euo pipefail
# rustup installs into ~/.cargo/bin, which a non-login shell may not have on PATH.
command -v cargo >/dev/null || PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)" --target engines

echo
echo "== build/examples-c/engines (OCL_ICD_VENDORS=.venv/icd/all)"
OCL_ICD_VENDORS="$repo/.venv/icd/all" build/examples-c/engines
