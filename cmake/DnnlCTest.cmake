# dnnl_c_test(): the one way a C test or example becomes a CTest test.
#
#   dnnl_c_test(<name> SOURCES <file>... [LABELS <label>...] [OPENCL]
#               [TIMEOUT <seconds>] [ARGS <arg>...] [ENVIRONMENT <VAR=value>...]
#               [EXPECT_EXIT <code>] [EXPECT_OUTPUT <regex>...])
#
# Builds executable <name> (C11, -Wall -Wextra -Werror, ASan+UBSan in Debug) linked to
# the imported `dnnl`, and registers it with SKIP_RETURN_CODE 77 (see tests-c/check.h).
# With EXPECT_OUTPUT, the program runs under cmake/expect-output.sh: each regex must
# match a line it prints and its exit status must be EXPECT_EXIT (default 0); an
# unexpected 77 is still a skip.
#
# Without OPENCL the test is called <name>. With OPENCL it is registered once per
# OpenCL runtime in DNNL_OCL_RUNTIMES, as <name>@pocl and <name>@intel, labelled `ocl`
# and the runtime's name. Each runs with OCL_ICD_VENDORS set to a directory holding
# only that runtime's .icd file, so the ICD loader sees that runtime alone. A runtime
# that is not installed still has its test: it exits 77 (skipped) and says why.
#
# With -DDNNL_REFERENCE_LIBDIR=<dir holding upstream's libdnnl.so.3>, each test not
# labelled `ours-only` is registered once more as <test>@ref, with LD_LIBRARY_PATH=<dir>
# (our programs link with RUNPATH, which LD_LIBRARY_PATH overrides) and the environment
# of DNNL_REFERENCE_ENV. Unless DNNL_REFERENCE_GPU is on, tests labelled `ocl` or `ze`
# get no twin: the reference scripts/setup.sh installs (PyPI's `onednn`, a SYCL build)
# has no OpenCL or Level Zero interop API and no GPU engine on these devices.

set(DNNL_C_TEST_TIMEOUT 300 CACHE STRING "Default CTest timeout of a C test, in seconds")
set(DNNL_REFERENCE_LIBDIR "" CACHE PATH
    "Directory with upstream oneDNN's libdnnl.so.3: registers reference runs (<test>@ref)")
set(DNNL_REFERENCE_ENV "" CACHE STRING
    "Extra environment (VAR=value;...) of the reference runs")
option(DNNL_REFERENCE_GPU
    "The reference library has an OpenCL GPU runtime: OpenCL and Level Zero tests get @ref runs too"
    OFF)

# OpenCL runtimes that OPENCL tests run on, and the .icd file that selects each one.
set(DNNL_OCL_RUNTIMES pocl intel)
set(DNNL_OCL_ICD_pocl "/etc/OpenCL/vendors/pocl.icd" CACHE FILEPATH
    "ICD file of PoCL (Debian package pocl-opencl-icd)")
set(DNNL_OCL_ICD_intel "${CMAKE_SOURCE_DIR}/.venv/icd/intel/intel-cpu.icd" CACHE FILEPATH
    "ICD file of Intel's CPU OpenCL runtime (written by scripts/setup.sh)")
set(_dnnl_ocl_hint_pocl "install it with: apt-get install pocl-opencl-icd")
set(_dnnl_ocl_hint_intel "install it with: scripts/setup.sh")

set(DNNL_OCL_ICD_ROOT "${CMAKE_BINARY_DIR}/icd")
set(_dnnl_ocl_runner "${CMAKE_CURRENT_LIST_DIR}/ocl-runtime.sh")
set(_dnnl_expect_output "${CMAKE_CURRENT_LIST_DIR}/expect-output.sh")

# <build>/icd/<runtime>/ holds a link to that runtime's .icd file; the link is resolved
# when a test runs, so installing a runtime later needs no reconfigure.
# <build>/icd/none/ is empty: a process given it sees no OpenCL platform at all.
file(MAKE_DIRECTORY "${DNNL_OCL_ICD_ROOT}/none")
foreach(_rt IN LISTS DNNL_OCL_RUNTIMES)
  set(_dir "${DNNL_OCL_ICD_ROOT}/${_rt}")
  file(REMOVE_RECURSE "${_dir}")
  file(MAKE_DIRECTORY "${_dir}")
  get_filename_component(_icd_name "${DNNL_OCL_ICD_${_rt}}" NAME)
  file(CREATE_LINK "${DNNL_OCL_ICD_${_rt}}" "${_dir}/${_icd_name}" SYMBOLIC)
endforeach()

set(DNNL_TESTS_C_DIR "${CMAKE_SOURCE_DIR}/tests-c")

# Registers test <test> running <command...>, plus its reference twin when asked for.
function(_dnnl_add_ctest test labels timeout env)
  add_test(NAME "${test}" COMMAND ${ARGN})
  set_tests_properties("${test}" PROPERTIES
    LABELS "${labels}" SKIP_RETURN_CODE 77 TIMEOUT "${timeout}")
  if(env)
    set_tests_properties("${test}" PROPERTIES ENVIRONMENT "${env}")
  endif()
  set(ref OFF)
  if(DNNL_REFERENCE_LIBDIR AND NOT "ours-only" IN_LIST labels)
    set(ref ON)
    if(NOT DNNL_REFERENCE_GPU AND ("ocl" IN_LIST labels OR "ze" IN_LIST labels))
      set(ref OFF)
    endif()
  endif()
  if(ref)
    add_test(NAME "${test}@ref" COMMAND ${ARGN})
    set(ref_labels ${labels} reference)
    set(ref_env ${env} ${DNNL_REFERENCE_ENV} "LD_LIBRARY_PATH=${DNNL_REFERENCE_LIBDIR}")
    set_tests_properties("${test}@ref" PROPERTIES
      LABELS "${ref_labels}" SKIP_RETURN_CODE 77 TIMEOUT "${timeout}"
      ENVIRONMENT "${ref_env}")
  endif()
endfunction()

function(dnnl_c_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "OPENCL" "TIMEOUT;EXPECT_EXIT"
                        "SOURCES;LABELS;ARGS;ENVIRONMENT;EXPECT_OUTPUT")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "dnnl_c_test(${name}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  set(program $<TARGET_FILE:${name}>)
  if(arg_EXPECT_OUTPUT OR DEFINED arg_EXPECT_EXIT)
    if(NOT DEFINED arg_EXPECT_EXIT)
      set(arg_EXPECT_EXIT 0)
    endif()
    set(program sh "${_dnnl_expect_output}" ${arg_EXPECT_EXIT} ${arg_EXPECT_OUTPUT} --
        $<TARGET_FILE:${name}>)
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "dnnl_c_test(${name}): SOURCES is required")
  endif()
  # LABELS "a;b" arrives as one escaped element through PARSE_ARGV: make it a list.
  string(REPLACE "\\;" ";" arg_LABELS "${arg_LABELS}")
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT ${DNNL_C_TEST_TIMEOUT})
  endif()

  add_executable(${name} ${arg_SOURCES})
  target_link_libraries(${name} PRIVATE dnnl)
  target_include_directories(${name} PRIVATE "${DNNL_TESTS_C_DIR}")
  target_compile_options(${name} PRIVATE -Wall -Wextra -Werror
    $<$<CONFIG:Debug>:-fsanitize=address,undefined -fno-omit-frame-pointer>)
  # RUNPATH rather than RPATH, so that LD_LIBRARY_PATH can swap the library (@ref runs).
  target_link_options(${name} PRIVATE -Wl,--enable-new-dtags
    $<$<CONFIG:Debug>:-fsanitize=address,undefined>)

  set(env ${arg_ENVIRONMENT})
  # Under ASan (Debug), an impossible allocation (the out-of-memory tests ask for
  # 2^40 bytes and more) returns NULL as the C library's would, instead of aborting.
  if(NOT arg_OPENCL)
    list(APPEND env "ASAN_OPTIONS=allocator_may_return_null=1")
    _dnnl_add_ctest("${name}" "${arg_LABELS}" "${arg_TIMEOUT}" "${env}"
                    ${program} ${arg_ARGS})
    return()
  endif()

  # OpenCL runtimes may keep allocations until exit; LeakSanitizer would blame us.
  list(APPEND env "ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1")
  foreach(rt IN LISTS DNNL_OCL_RUNTIMES)
    set(labels ${arg_LABELS} ocl ${rt})
    list(REMOVE_DUPLICATES labels)
    set(rt_env ${env} "OCL_ICD_VENDORS=${DNNL_OCL_ICD_ROOT}/${rt}")
    _dnnl_add_ctest("${name}@${rt}" "${labels}" "${arg_TIMEOUT}" "${rt_env}"
      sh "${_dnnl_ocl_runner}" "${rt}" "${DNNL_OCL_ICD_${rt}}"
         "${DNNL_OCL_ICD_ROOT}/${rt}" "${_dnnl_ocl_hint_${rt}}"
         ${program} ${arg_ARGS})
  endforeach()
endfunction()

# dnnl_ocl_svm_twin(<name> [ARGS <arg>...] [ENVIRONMENT <VAR=value>...]
#                   [PASS_REGULAR_EXPRESSION <regex>]): registers <name>@intel-svm, the
# program of OPENCL test <name> on Intel's CPU OpenCL runtime with DNNL_OCL_USM=svm, so
# that the library (and the tests' helpers) take USM through shared virtual memory
# there, as on PoCL and NVIDIA, although Intel's USM extension exists.
function(dnnl_ocl_svm_twin name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "PASS_REGULAR_EXPRESSION" "ARGS;ENVIRONMENT")
  if(NOT "intel" IN_LIST DNNL_OCL_RUNTIMES)
    return()
  endif()
  get_test_property("${name}@intel" LABELS labels)
  get_test_property("${name}@intel" TIMEOUT timeout)
  if(NOT labels)
    set(labels "api;ocl")
  endif()
  if(NOT timeout)
    set(timeout ${DNNL_C_TEST_TIMEOUT})
  endif()
  list(APPEND labels intel ours-only)
  list(REMOVE_DUPLICATES labels)
  add_test(NAME "${name}@intel-svm"
           COMMAND sh "${_dnnl_ocl_runner}" intel "${DNNL_OCL_ICD_intel}"
                   "${DNNL_OCL_ICD_ROOT}/intel" "${_dnnl_ocl_hint_intel}"
                   $<TARGET_FILE:${name}> ${arg_ARGS})
  set(env "DNNL_OCL_USM=svm" "ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1"
      ${arg_ENVIRONMENT})
  set_tests_properties("${name}@intel-svm" PROPERTIES
    LABELS "${labels}" TIMEOUT "${timeout}" SKIP_RETURN_CODE 77 ENVIRONMENT "${env}")
  if(arg_PASS_REGULAR_EXPRESSION)
    set_tests_properties("${name}@intel-svm" PROPERTIES
      PASS_REGULAR_EXPRESSION "${arg_PASS_REGULAR_EXPRESSION}")
  endif()
endfunction()

# dnnl_ze_test(): a C test of the Level Zero side, run through the Level Zero loader.
#
#   dnnl_ze_test(<name> SOURCES <file>... [LABELS <label>...] [TIMEOUT <seconds>]
#                [ENVIRONMENT <VAR=value>...] [EXPECT_OUTPUT <regex>...])
#
# Builds executable <name> like dnnl_c_test() does, linked to `dnnl` and to the Level
# Zero loader (DNNL_ZE_LOADER), with the Level Zero headers on the include path (both
# <level_zero/ze_api.h> and <ze_api.h> work). Registers it twice, labelled `ze`:
#   <name>@ze             ZE_ENABLE_ALT_DRIVERS=<DNNL_ZE_DRIVER> (the in-repository driver
#                         over OpenCL) and OCL_ICD_VENDORS=<build>/icd/intel, so the
#                         driver sees Intel's CPU OpenCL runtime only
#   <name>@ze-validation  the same plus ZE_ENABLE_VALIDATION_LAYER=1 and
#                         ZE_ENABLE_PARAMETER_VALIDATION=1 (the loader's validation
#                         layer checks every call the test and the library make)
# With NO_VALIDATION only <name>@ze is registered: the sweeps, whose Level Zero calls
# are the same few (module, kernel, launch) over many kernels, each of which Intel's CPU
# compiler builds in seconds; the other tests check every call under the layer.
# The runner (cmake/ze-runtime.sh) exits 77 with `SKIP: reason` when the loader, the
# validation layer (for @ze-validation) or Intel's OpenCL runtime is not installed.
# Without the loader or headers at configure time the program cannot be built: both
# tests are still registered and skip, saying so.
find_path(DNNL_ZE_INCLUDE_DIR NAMES level_zero/ze_api.h
          DOC "Directory holding level_zero/ze_api.h (Debian package libze-dev)")
find_library(DNNL_ZE_LOADER NAMES ze_loader libze_loader.so.1
             DOC "The Level Zero loader (Debian package libze1)")
set(DNNL_ZE_VALIDATION_LAYER "libze_validation_layer.so.1" CACHE STRING
    "Library name of the loader's validation layer (dlopen'ed by the loader)")
set(_dnnl_ze_runner "${CMAKE_CURRENT_LIST_DIR}/ze-runtime.sh")

function(dnnl_ze_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "NO_VALIDATION" "TIMEOUT" "SOURCES;LABELS;ENVIRONMENT;EXPECT_OUTPUT")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "dnnl_ze_test(${name}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  set(variants ze ze-validation)
  if(arg_NO_VALIDATION)
    set(variants ze)
  endif()
  set(program $<TARGET_FILE:${name}>)
  if(arg_EXPECT_OUTPUT)
    set(program sh "${_dnnl_expect_output}" 0 ${arg_EXPECT_OUTPUT} -- $<TARGET_FILE:${name}>)
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "dnnl_ze_test(${name}): SOURCES is required")
  endif()
  string(REPLACE "\\;" ";" arg_LABELS "${arg_LABELS}")
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT ${DNNL_C_TEST_TIMEOUT})
  endif()
  set(labels ${arg_LABELS} ze)
  list(REMOVE_DUPLICATES labels)

  if(NOT DNNL_ZE_INCLUDE_DIR OR NOT DNNL_ZE_LOADER)
    set(why "the Level Zero loader or headers were not found at configure time")
    foreach(variant ${variants})
      _dnnl_add_ctest("${name}@${variant}" "${labels}" "${arg_TIMEOUT}" ""
        sh -c "echo 'SKIP: ${why}; install libze-dev and reconfigure'; exit 77")
    endforeach()
    return()
  endif()

  add_executable(${name} ${arg_SOURCES})
  target_link_libraries(${name} PRIVATE dnnl "${DNNL_ZE_LOADER}")
  target_include_directories(${name} PRIVATE "${DNNL_TESTS_C_DIR}"
    "${DNNL_ZE_INCLUDE_DIR}" "${DNNL_ZE_INCLUDE_DIR}/level_zero")
  target_compile_options(${name} PRIVATE -Wall -Wextra -Werror
    $<$<CONFIG:Debug>:-fsanitize=address,undefined -fno-omit-frame-pointer>)
  target_link_options(${name} PRIVATE -Wl,--enable-new-dtags
    $<$<CONFIG:Debug>:-fsanitize=address,undefined>)
  # The driver is built by the same cargo command as the library.
  add_dependencies(${name} dnnl_cargo)

  set(env ${arg_ENVIRONMENT} "ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1"
      "ZE_ENABLE_ALT_DRIVERS=${DNNL_ZE_DRIVER}"
      "OCL_ICD_VENDORS=${DNNL_OCL_ICD_ROOT}/intel")
  set(validation_env ${env} ZE_ENABLE_VALIDATION_LAYER=1 ZE_ENABLE_PARAMETER_VALIDATION=1)
  foreach(variant ${variants})
    if(variant STREQUAL "ze")
      set(variant_env ${env})
      set(layer none)
    else()
      set(variant_env ${validation_env})
      set(layer "${DNNL_ZE_VALIDATION_LAYER}")
    endif()
    _dnnl_add_ctest("${name}@${variant}" "${labels}" "${arg_TIMEOUT}" "${variant_env}"
      sh "${_dnnl_ze_runner}" "${DNNL_ZE_LOADER}" "${DNNL_ZE_DRIVER}"
         "${DNNL_OCL_ICD_intel}" "${layer}" ${program})
  endforeach()
endfunction()
