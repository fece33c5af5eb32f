# The fuzz and stress suite (README.md in this folder): seeded random call
# sequences, a 16-thread stress, refcount and leak cycles, cache blob mutation,
# and a differential run against Intel's library. Each program prints one
# SUMMARY line with its counts; the counts and the seed come from the
# environment, with the CI defaults below. Labelled `fuzz` (select with
# `ctest -L fuzz`) and `ours-only` (they are not meant to run against Intel's
# library through LD_LIBRARY_PATH). Included from tests-c/CMakeLists.txt.

# fuzz_calls: the CPU engine (fuzz_calls), and the CPU engine with an OpenCL
# engine beside it on each OpenCL runtime (fuzz_calls_ocl@pocl, @intel).
dnnl_c_test(fuzz_calls SOURCES fuzz/fuzz_calls.c LABELS "fuzz;cpu;ours-only" ARGS cpu
            TIMEOUT 300)
dnnl_c_test(fuzz_calls_ocl SOURCES fuzz/fuzz_calls.c LABELS "fuzz;ours-only" OPENCL ARGS gpu
            TIMEOUT 300)
target_link_libraries(fuzz_calls PRIVATE m)
target_link_libraries(fuzz_calls_ocl PRIVATE m)
