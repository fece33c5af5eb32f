#!/usr/bin/env bash
# Times the CPU primitive set of bench-c/cpu_vs_ref.c through our libdnnl.so.3 and, when
# DNNL_REFERENCE_LIBDIR names a directory holding Intel's libdnnl.so.3, through Intel's
# in the same run (each library in its own child process: the program links ours by
# RUNPATH and LD_LIBRARY_PATH swaps in the other), then prints one table:
# op, ours, Intel, ratio (ours / Intel), and each side's implementation.
#
#   DNNL_REFERENCE_LIBDIR=$PWD/.venv/lib bash bench-c/cpu_vs_ref.sh [quick] [text]
#
# (`text`: only the ops whose name contains it, e.g. `gelu` or `matmul f32`.)
#
# DNNL_REFERENCE_ENV (VAR=value words) is added to the reference child's environment;
# it defaults to OCL_ICD_VENDORS=.venv/icd/intel when that exists (the PyPI build is a
# SYCL one, whose CPU engine needs Intel's OpenCL CPU runtime).
# ROUNDS (default 2) is how many times each library runs, alternating; each figure is
# the best of its rounds.
# BUILD_DIR (default build-bench) is the CMake build directory it configures with
# -DDNNL_BUILD_BENCH=ON and builds; CPU_VS_REF_BIN names a cpu_vs_ref built
# elsewhere instead (a machine without CMake: it finds our library through its
# RUNPATH or LD_LIBRARY_PATH). Other environment (ONEDNN_MAX_CPU_ISA,
# OMP_NUM_THREADS, ...) reaches both children unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-bench}
if [[ -n "${CPU_VS_REF_BIN:-}" ]]; then
  bin=$CPU_VS_REF_BIN
else
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DDNNL_BUILD_BENCH=ON \
    -DDNNL_BUILD_TESTS=OFF -DDNNL_BUILD_EXAMPLES=OFF >/dev/null
  cmake --build "$build" --target cpu_vs_ref -j2 >/dev/null
  bin="$build/bench-c/cpu_vs_ref"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ref=${DNNL_REFERENCE_LIBDIR:-}
if [[ -n "$ref" && ! -e "$ref/libdnnl.so.3" ]]; then
  echo "DNNL_REFERENCE_LIBDIR=$ref holds no libdnnl.so.3" >&2
  exit 1
fi
ref_env=${DNNL_REFERENCE_ENV-}
if [[ -z "${DNNL_REFERENCE_ENV+set}" && -d .venv/icd/intel ]]; then
  ref_env="OCL_ICD_VENDORS=$PWD/.venv/icd/intel"
fi
: >"$tmp/ours"
: >"$tmp/ref"
# Rounds alternate the libraries, and each figure is the best of its rounds, so that
# load from other processes during one library's turn weighs less on the ratio.
for ((round = 1; round <= ${ROUNDS:-2}; round++)); do
  "$bin" "$@" | tee -a "$tmp/ours" | sed "s/^/ours $round: /" >&2
  if [[ -n "$ref" ]]; then
    # shellcheck disable=SC2086 # ref_env is a list of VAR=value words
    env $ref_env LD_LIBRARY_PATH="$ref${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$bin" "$@" |
      tee -a "$tmp/ref" | sed "s/^/ref $round:  /" >&2
  fi
done
if [[ -n "$ref" && "$(grep -m1 '^lib|' "$tmp/ours")" == "$(grep -m1 '^lib|' "$tmp/ref")" ]]; then
  echo "the reference run loaded the same library as ours (LD_LIBRARY_PATH ignored?)" >&2
  exit 1
fi

awk -F'|' '
  FNR == 1 { file++ }
  $1 == "lib" { lib[file] = $2 " (" $3 ", effective ISA " $4 ")"; next }
  $1 != "row" { next }
  # A refused op has figure "-" and its status in the unit field; each side keeps
  # the best figure of its rounds.
  { value = ($3 == "-") ? $4 : $3; if ($3 != "-") unit[$2] = $4 }
  file == 1 {
    if (!($2 in ours)) order[++n] = $2
    if (!($2 in ours) || value + 0 > ours[$2] + 0) ours[$2] = value
    oimpl[$2] = $5; next
  }
  { if (!($2 in ref) || value + 0 > ref[$2] + 0) ref[$2] = value; rimpl[$2] = $5 }
  END {
    printf "ours: %s\n", lib[1]
    if (2 in lib) printf "Intel: %s\n", lib[2]
    print "| op | unit | ours | Intel | ratio | ours impl | Intel impl |"
    print "| --- | --- | --- | --- | --- | --- | --- |"
    for (i = 1; i <= n; i++) {
      op = order[i]; r = (op in ref) ? ref[op] : "n/a"
      ratio = (ours[op] ~ /^[0-9.]+$/ && r ~ /^[0-9.]+$/ && r > 0) ? sprintf("%.2f", ours[op] / r) : "-"
      printf "| %s | %s | %s | %s | %s | %s | %s |\n", op, unit[op], ours[op], r, ratio, oimpl[op], rimpl[op]
    }
  }' "$tmp/ours" "$tmp/ref"
