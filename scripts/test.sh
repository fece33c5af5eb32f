#!/usr/bin/env bash
# README command 2 (and CI, through .ci/run): installs what is needed
# (scripts/setup.sh), builds with CMake into build/, then runs every Rust test
# (cargo test --release, seeing both OpenCL runtimes) and every C test (ctest, which
# runs each OpenCL test once per runtime). Exits non-zero if anything fails; the C
# tests run even when a Rust test failed, so one run shows both.
#
# Environment: DNNL_TEST_JOBS (default: nproc) sets the build and ctest parallelism.
set -euo pipefail
# rustup installs into ~/.cargo/bin, which a non-login shell may not have on PATH.
command -v cargo >/dev/null || PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
jobs=${DNNL_TEST_JOBS:-$(nproc)}

bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$jobs"

failed=()
echo "== cargo fmt --check, cargo clippy -D warnings"
cargo fmt --check || failed+=("cargo fmt")
cargo clippy --workspace --release --all-targets -j"$jobs" -- -D warnings || failed+=("cargo clippy")
# The cmake build above built the Level Zero driver over OpenCL (crates/ze-ocl-driver);
# with it named in ZE_ENABLE_ALT_DRIVERS the Level Zero loader finds a device here too.
echo "== cargo test --workspace --release (OCL_ICD_VENDORS=.venv/icd/all: PoCL and Intel's CPU runtime;"
echo "   ZE_ENABLE_ALT_DRIVERS=target/release/libze_ocl_driver.so)"
cargo build --release -p ze-ocl-driver -j"$jobs"
OCL_ICD_VENDORS="$repo/.venv/icd/all" \
    ZE_ENABLE_ALT_DRIVERS="$repo/target/release/libze_ocl_driver.so" \
    cargo test --workspace --release -j"$jobs" || failed+=("cargo test")
echo "== ctest"
ctest --test-dir build --output-on-failure -j"$jobs" || failed+=("ctest")
# ctest names skipped tests but not why: the reasons are the programs' SKIP: lines.
awk '/^"[^"]*" start time:/ { split($0, q, "\""); name = q[2] }
     /^SKIP: / { print "  skipped " name ": " substr($0, 7) }' \
    build/Testing/Temporary/LastTest.log 2>/dev/null || true

if ((${#failed[@]})); then
    echo "test.sh: FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "test.sh: all Rust and C tests passed"
