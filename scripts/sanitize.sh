#!/usr/bin/env bash
# The sanitizer pass of the test suite (README, "Reliability"), run by
# scripts/test.sh after the plain tests and on its own after a build:
#   1. every C test again (one runtime per API: the @intel, @ze-validation and
#      *_sweep_ze@ze twins only with DNNL_SANITIZE_ALL_RUNTIMES=1), built with AddressSanitizer and UndefinedBehaviorSanitizer
#      (CMake's Debug configuration, in build-asan/; the Rust library is the
#      same release build, so ASan sees every C-side allocation and access);
#   2. valgrind memcheck over a representative subset (CPU engine, PoCL, Intel's
#      runtime), any error fatal, with tests-c/sanitize/opencl-runtimes.supp
#      suppressing only the OpenCL runtimes' own reports (the file says how they
#      are told apart from ours);
#   3. cargo miri over the host-only logic: the handle registry, memory
#      descriptors, attributes, stable keys (Rust code with no FFI underneath).
# Exits non-zero if any step fails. DNNL_TEST_JOBS sets the parallelism;
# DNNL_SANITIZE_STEPS (default "asan valgrind miri") picks steps.
set -euo pipefail
command -v cargo >/dev/null || PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
jobs=${DNNL_TEST_JOBS:-$(nproc)}
steps=${DNNL_SANITIZE_STEPS:-asan valgrind miri}
failed=()

step() { [[ " $steps " == *" $1 "* ]]; }

if step asan; then
    echo "== sanitize: C tests under ASan+UBSan (build-asan/, Debug)"
    cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug >/dev/null
    cmake --build build-asan -j"$jobs" >/dev/null
    # UBSan reports are fatal; ASan's leak check runs for the CPU-only tests
    # (DnnlCTest.cmake turns it off for OpenCL ones, whose runtimes keep allocations).
    # Left out: the wild-handle tests. They hand the library unmapped pointers, which it
    # probes with system calls that report EFAULT; in an ASan process the sanitizer's
    # runtime intercepts those calls (and maps 0xdeadbeef000 as its shadow) and faults
    # first. They run in the plain ctest pass.
    echo "sanitize: the *wild_handles* tests are left out under ASan (its runtime intercepts the library's EFAULT probes)"
    # Each C program runs under ASan on one runtime per API: CPU, OpenCL on PoCL (and
    # SVM on Intel's runtime), Level Zero without the validation layer. Left out: the
    # @intel and @ze-validation twins, and the primitive sweeps' Level Zero builds
    # (*_sweep_ze@ze: the C source of their _ocl twins): the same C code over another
    # runtime or layer, three quarters of the pass (Intel's CPU compiler builds each
    # kernel in seconds). The plain ctest pass runs them all;
    # DNNL_SANITIZE_ALL_RUNTIMES=1 runs them under ASan too.
    exclude='wild_handles'
    if [ "${DNNL_SANITIZE_ALL_RUNTIMES:-0}" != 1 ]; then
        exclude='wild_handles|@intel$|@ze-validation$|_sweep_ze@ze$'
        echo "sanitize: the @intel, @ze-validation and *_sweep_ze@ze twins are left out under ASan (the plain pass runs them; DNNL_SANITIZE_ALL_RUNTIMES=1 keeps them)"
    fi
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        ctest --test-dir build-asan --output-on-failure -j"$jobs" -E "$exclude" ||
        failed+=("asan")
fi

if step valgrind; then
    echo "== sanitize: valgrind memcheck over a subset"
    if ! command -v valgrind >/dev/null; then
        echo "sanitize: valgrind is not installed (scripts/setup.sh installs it)" >&2
        failed+=("valgrind")
    else
        supp="$repo/tests-c/sanitize/opencl-runtimes.supp"
        bin="$repo/build/tests-c"
        # name, OpenCL runtime (- for none)
        subset=(
            "engine_cpu -" "memory_cpu_create -" "memory_desc_create -" "attr_post_ops -"
            "binary_binary -" "binary_softmax -" "matmul_matmul -" "matmul_inner_product -"
            "reorder_reorder -" "reorder_sum -" "reorder_concat -" "primitives_eltwise -"
            "primitives_exec_args -" "graph_api -" "graph_mlp -"
            "primitives_exec_args_ocl pocl" "reorder_reorder_ocl pocl" "ocl_memory_buffer pocl"
            "ocl_stream_interop pocl" "primitives_exec_args_ocl intel"
        )
        for entry in "${subset[@]}"; do
            read -r name rt <<<"$entry"
            env=()
            [[ $rt == - ]] || env=(OCL_ICD_VENDORS="$repo/.venv/icd/$rt")
            log="$repo/build/valgrind-$name@$rt.log"
            rc=0
            env "${env[@]}" valgrind -q --error-exitcode=99 --suppressions="$supp" \
                --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite \
                --num-callers=30 "$bin/$name" >"$log" 2>&1 || rc=$?
            if ((rc == 0)); then
                echo "  valgrind $name@$rt: clean"
            elif ((rc == 77)); then
                echo "  valgrind $name@$rt: SKIP: $(grep -m1 '^SKIP:' "$log" || echo '(no reason)')"
            else
                echo "  valgrind $name@$rt: FAILED (exit $rc), see $log" >&2
                tail -40 "$log" >&2
                failed+=("valgrind $name@$rt")
            fi
        done
    fi
fi

if step miri; then
    echo "== sanitize: cargo miri (handle registry, memory descriptors, attributes, keys)"
    have_miri=0
    if command -v rustup >/dev/null; then
        have_miri=1
        rustup toolchain list | grep -q '^nightly' ||
            rustup toolchain install nightly --profile minimal --component miri || have_miri=0
        rustup +nightly component list --installed 2>/dev/null | grep -q '^miri' ||
            rustup component add --toolchain nightly miri || have_miri=0
    fi
    if [ "$have_miri" = 0 ]; then
        echo "sanitize: SKIP miri: no rustup, or the nightly toolchain's miri could not be installed (offline?)" >&2
    else
        # Left out: the float printing test (it calls the C library's snprintf, which
        # miri cannot run) and the exhaustive blob mutations (minutes under miri; the
        # fuzz suite's blob mutation covers them natively).
        cargo +nightly miri test --lib -- capi::handles core::memory_desc core::attr core::key \
            --skip floats_print_as_cpp_streams_do --skip damaged_blobs --skip blobs_of ||
            failed+=("miri")
    fi
fi

if ((${#failed[@]})); then
    echo "sanitize.sh: FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "sanitize.sh: clean"
