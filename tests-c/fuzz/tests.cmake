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

# The programs that call OpenCL themselves need its headers and loader.
find_package(OpenCL QUIET)

# leaks: create/destroy cycles with reference counts and the resident set checked,
# on the CPU engine (leaks) and on each OpenCL runtime (leaks_ocl@pocl, @intel).
dnnl_c_test(leaks SOURCES fuzz/leaks.c LABELS "fuzz;cpu;ours-only" ARGS cpu TIMEOUT 300)
if(OpenCL_FOUND)
  dnnl_c_test(leaks_ocl SOURCES fuzz/leaks.c LABELS "fuzz;ours-only" OPENCL ARGS gpu TIMEOUT 600)
  foreach(t leaks leaks_ocl)
    target_link_libraries(${t} PRIVATE OpenCL::OpenCL)
    target_compile_definitions(${t} PRIVATE CL_TARGET_OPENCL_VERSION=300)
  endforeach()
endif()

# stress: 16 threads sharing an engine and primitives of every kind, results compared
# bit for bit with a single-threaded run (stress on the CPU engine, stress_ocl@pocl,
# @intel on OpenCL).
find_package(Threads REQUIRED)
dnnl_c_test(stress SOURCES fuzz/stress.c LABELS "fuzz;cpu;ours-only" ARGS cpu TIMEOUT 300)
dnnl_c_test(stress_ocl SOURCES fuzz/stress.c LABELS "fuzz;ours-only" OPENCL ARGS gpu TIMEOUT 300)
target_link_libraries(stress PRIVATE Threads::Threads)
target_link_libraries(stress_ocl PRIVATE Threads::Threads)

# blobs: every bit flip and truncation of the structural parts of an engine and a
# primitive cache blob (a seeded sample of the device binaries), checksum-fixed
# mutations and garbage, on each OpenCL runtime (blobs_ocl@pocl, @intel). Blobs
# are an OpenCL matter: there is no CPU variant.
if(OpenCL_FOUND)
  dnnl_c_test(blobs_ocl SOURCES fuzz/blobs.c LABELS "fuzz;ours-only" OPENCL ARGS gpu TIMEOUT 600)
  target_link_libraries(blobs_ocl PRIVATE OpenCL::OpenCL)
  target_compile_definitions(blobs_ocl PRIVATE CL_TARGET_OPENCL_VERSION=300)
endif()

# differential: random configurations of every kind through Intel's library
# (DNNL_REFERENCE_LIBDIR; skipped when unset) and ours, each dlopen'ed in a child of
# its own -- so the program must not link to ours: --as-needed drops the library
# dnnl_c_test() links, as no symbol of it is referenced. Ours on the CPU engine
# (differential) and on each OpenCL runtime (differential_ocl@pocl, @intel).
# With -DDNNL_REFERENCE_LIBDIR (scripts/test.sh passes .venv/lib), the tests get it in
# their environment, and DNNL_REFERENCE_ENV (what Intel's library must see: its SYCL
# CPU device is Intel's OpenCL runtime) for the child that loads it, '|'-separated.
set(_fuzz_ref_env)
if(DNNL_REFERENCE_LIBDIR)
  string(REPLACE ";" "|" _fuzz_ref_vars "${DNNL_REFERENCE_ENV}")
  set(_fuzz_ref_env ENVIRONMENT "DNNL_REFERENCE_LIBDIR=${DNNL_REFERENCE_LIBDIR}"
                    "DNNL_FUZZ_REFERENCE_ENV=${_fuzz_ref_vars}")
endif()
foreach(t differential differential_ocl)
  if(t STREQUAL "differential")
    dnnl_c_test(${t} SOURCES fuzz/differential.c LABELS "fuzz;cpu;ours-only" ARGS cpu TIMEOUT 600
                ${_fuzz_ref_env})
  else()
    dnnl_c_test(${t} SOURCES fuzz/differential.c LABELS "fuzz;ours-only" OPENCL ARGS gpu TIMEOUT 600
                ${_fuzz_ref_env})
  endif()
  target_link_options(${t} PRIVATE -Wl,--as-needed)
  target_link_libraries(${t} PRIVATE m ${CMAKE_DL_LIBS})
  target_compile_definitions(${t} PRIVATE DNNL_OURS_LIB="${DNNL_BUILD_LIBDIR}/libdnnl.so.3")
endforeach()

# Minimal reproducers of what the suite found (regressions.c), on the CPU engine and
# on each OpenCL runtime.
dnnl_c_test(fuzz_regressions SOURCES fuzz/regressions.c LABELS "fuzz;api;cpu;ours-only" ARGS cpu
            TIMEOUT 120)
dnnl_c_test(fuzz_regressions_ocl SOURCES fuzz/regressions.c LABELS "fuzz;api;ours-only" OPENCL ARGS gpu
            TIMEOUT 120)
