#!/usr/bin/env bash
# README command 2 (and CI, through .ci/run): installs what is needed
# (scripts/setup.sh), builds with CMake into build/, then runs every Rust test
# (cargo test --release, seeing both OpenCL runtimes) and every C test (ctest, which
# runs each OpenCL test once per runtime, and each CPU test a second time against
# Intel's oneDNN from .venv, as <test>@ref). Then it lists every skip with its reason
# and fails on one that scripts/expected-skips.txt does not expect
# (scripts/check_skips.py). Exits non-zero if anything fails; the C tests run even
# when a Rust test failed, so one run shows both.
#
# Environment: DNNL_TEST_JOBS (default: nproc) sets the build and ctest parallelism;
# DNNL_REFERENCE_LIBDIR (default: .venv/lib, where setup.sh installs Intel's
# libdnnl.so.3) the reference library, or `none` for no reference runs.
set -euo pipefail
# rustup installs into ~/.cargo/bin, which a non-login shell may not have on PATH.
command -v cargo >/dev/null || PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
jobs=${DNNL_TEST_JOBS:-$(nproc)}
reference=${DNNL_REFERENCE_LIBDIR:-$repo/.venv/lib}
[ "$reference" = none ] && reference=

bash scripts/setup.sh
# The reference (PyPI's onednn, a SYCL build) runs its CPU engine on a SYCL CPU device:
# Intel's CPU OpenCL runtime, which its runs must see.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDNNL_REFERENCE_LIBDIR="$reference" \
    -DDNNL_REFERENCE_ENV="OCL_ICD_VENDORS=$repo/.venv/icd/intel"
cmake --build build -j"$jobs"

failed=()
# Each stage's header says how far into the run it starts (CI's box has 90 minutes).
stage() { echo "== [$((SECONDS / 60)) min $((SECONDS % 60)) s] $*"; }
stage "cargo fmt --check, cargo clippy -D warnings"
cargo fmt --check || failed+=("cargo fmt")
cargo clippy --workspace --release --all-targets -j"$jobs" -- -D warnings || failed+=("cargo clippy")
# The cmake build above built the Level Zero driver over OpenCL (crates/ze-ocl-driver);
# with it named in ZE_ENABLE_ALT_DRIVERS the Level Zero loader finds a device here too.
stage "cargo test --workspace --release (OCL_ICD_VENDORS=.venv/icd/all: PoCL and Intel's CPU runtime;"
echo "   ZE_ENABLE_ALT_DRIVERS=target/release/libze_ocl_driver.so)"
cargo build --release -p ze-ocl-driver -j"$jobs"
cargo test --workspace --release -j"$jobs" --no-run
# The library's own test binary (its unit tests), which scripts/lib_tests.py runs in
# $jobs processes at once (each process builds one OpenCL program at a time).
lib_tests=$(cargo test --release -p dnnl --lib -j"$jobs" --no-run --message-format=json |
    python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "dnnl":
        print(m["executable"])')
# Rust tests report skips on stderr and append them here (tests/skip/mod.rs).
rust_skips=build/rust-skips.log
rm -f "$rust_skips"
run_rust() {
    OCL_ICD_VENDORS="$repo/.venv/icd/all" \
        ZE_ENABLE_ALT_DRIVERS="$repo/target/release/libze_ocl_driver.so" \
        DNNL_TEST_SKIP_LOG="$repo/$rust_skips" "$@"
}
# Everything but the library's unit tests: the integration tests (tests/), the other
# workspace crates, doc tests; then the unit tests.
run_rust cargo test --release -j"$jobs" -p dnnl --test '*' || failed+=("cargo test --test '*'")
run_rust cargo test --release -j"$jobs" -p dnnl --doc || failed+=("cargo test --doc")
run_rust cargo test --release -j"$jobs" --workspace --exclude dnnl || failed+=("cargo test (other crates)")
stage "the library's unit tests (cargo test --lib, in $jobs processes: scripts/lib_tests.py)"
run_rust python3 scripts/lib_tests.py "$lib_tests" --jobs "$jobs" || failed+=("cargo test --lib")
# The CPU kernels' portable path (README, "Supported devices"): the vector math, eltwise,
# softmax, GEMM and matmul tests again under ONEDNN_MAX_CPU_ISA=sse41, on the CPU engine
# alone (no OpenCL platform visible: their OpenCL parts ran above).
stage "cargo test --lib vmath eltwise softmax gemm matmul, portable path (ONEDNN_MAX_CPU_ISA=sse41)"
OCL_ICD_VENDORS="$repo/build/icd/none" ONEDNN_MAX_CPU_ISA=sse41 \
    python3 scripts/lib_tests.py "$lib_tests" --jobs "$jobs" -- vmath eltwise softmax gemm matmul ||
    failed+=("portable path tests")
stage "ctest${reference:+ (reference runs <test>@ref against $reference/libdnnl.so.3)}"
junit=build/ctest-junit.xml
rm -f "$junit"
ctest --test-dir build --output-on-failure -j"$jobs" --output-junit "$repo/$junit" \
    --test-output-size-passed 1048576 --test-output-size-failed 1048576 || failed+=("ctest")
if [ -n "$reference" ]; then
    python3 - "$junit" <<'EOF' || failed+=("reference runs")
import sys, xml.etree.ElementTree as ET
cases = [c for c in ET.parse(sys.argv[1]).getroot().iter("testcase") if c.get("name").endswith("@ref")]
bad = [c for c in cases if c.find("failure") is not None]
good = [c for c in cases if c.get("status") == "run" and c.find("failure") is None]
print(f"reference runs: {len(cases)} registered, {len(good)} passed against Intel's library, "
      f"{len(bad)} failed, {len(cases) - len(good) - len(bad)} skipped")
sys.exit(1 if not cases else 0)
EOF
fi
stage "skips (expected ones: scripts/expected-skips.txt)"
python3 scripts/check_skips.py scripts/expected-skips.txt --junit "$junit" \
    --rust-log "$rust_skips" || failed+=("unexpected skips")

# ASan+UBSan over every C test, valgrind over a subset, miri over the host-only Rust
# logic (README, "Reliability"). DNNL_SANITIZE=0 leaves it out of a local run.
if [ "${DNNL_SANITIZE:-1}" != 0 ]; then
    stage "sanitizers (scripts/sanitize.sh)"
    bash scripts/sanitize.sh || failed+=("sanitizers")
fi

if ((${#failed[@]})); then
    echo "test.sh: FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "test.sh: all Rust and C tests passed, every skip expected ($((SECONDS / 60)) min)"
