# The official oneDNN v3.13 C++ headers over our C headers and our library.
# Included from tests-c/CMakeLists.txt.
#
# `cxx_ocl_interop` compiles cxx/ocl_interop.cpp (C++11) with the official dnnl.hpp,
# dnnl_common.hpp and dnnl_ocl.hpp from the pinned onednn-devel wheel (fetched by
# tools/onednn_ref.py into a cache outside the repository, as the ABI test does), and
# with our include/ for every .h file: only the .hpp files are copied into
# <build>/tests-c/cxx-official/oneapi/dnnl/, so the official C headers and the official
# dnnl_config.h (which says SYCL) cannot be picked up. It runs once per OpenCL runtime.

include(CheckLanguage)
check_language(CXX)
find_package(OpenCL QUIET)

set(_cxx_skip "")
if(NOT CMAKE_CXX_COMPILER)
  set(_cxx_skip "no C++ compiler was found")
elseif(NOT OpenCL_FOUND)
  set(_cxx_skip "OpenCL headers or ICD loader not found")
else()
  if(EXISTS "${PROJECT_SOURCE_DIR}/.venv/bin/python")
    set(_cxx_python "${PROJECT_SOURCE_DIR}/.venv/bin/python")
  else()
    if(NOT Python3_EXECUTABLE)
      find_package(Python3 COMPONENTS Interpreter REQUIRED)
    endif()
    set(_cxx_python "${Python3_EXECUTABLE}")
  endif()
  execute_process(
    COMMAND "${_cxx_python}" -c
            "import sys; sys.path.insert(0, sys.argv[1]); import onednn_ref; print(onednn_ref.include_dir())"
            "${PROJECT_SOURCE_DIR}/tools"
    OUTPUT_VARIABLE _cxx_official OUTPUT_STRIP_TRAILING_WHITESPACE
    ERROR_VARIABLE _cxx_err RESULT_VARIABLE _cxx_rc TIMEOUT 300)
  if(NOT _cxx_rc EQUAL 0 OR NOT EXISTS "${_cxx_official}/oneapi/dnnl/dnnl_ocl.hpp")
    set(_cxx_skip "the official headers could not be fetched (tools/onednn_ref.py): ${_cxx_err}")
  endif()
endif()

if(_cxx_skip)
  message(STATUS "tests-c/cxx: ${_cxx_skip}; cxx_ocl_interop and cxx_host_scalar are registered as skipped")
  string(REPLACE "\n" " " _cxx_skip "${_cxx_skip}")
  add_test(NAME cxx_ocl_interop COMMAND sh -c "echo 'SKIP: ${_cxx_skip}'; exit 77")
  set_tests_properties(cxx_ocl_interop PROPERTIES LABELS "api;ocl;cxx" SKIP_RETURN_CODE 77)
  add_test(NAME cxx_host_scalar COMMAND sh -c "echo 'SKIP: ${_cxx_skip}'; exit 77")
  set_tests_properties(cxx_host_scalar PROPERTIES LABELS "api;cpu;cxx" SKIP_RETURN_CODE 77)
  return()
endif()

enable_language(CXX)
set(_cxx_hpp_dir "${CMAKE_CURRENT_BINARY_DIR}/cxx-official")
file(REMOVE_RECURSE "${_cxx_hpp_dir}")
file(GLOB _cxx_hpp "${_cxx_official}/oneapi/dnnl/*.hpp")
file(COPY ${_cxx_hpp} DESTINATION "${_cxx_hpp_dir}/oneapi/dnnl")

dnnl_c_test(cxx_ocl_interop SOURCES cxx/ocl_interop.cpp LABELS "api;ocl;cxx" OPENCL TIMEOUT 60)
set_target_properties(cxx_ocl_interop PROPERTIES
  CXX_STANDARD 11 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
# Ours first (the imported `dnnl` carries include/); the official .hpp files as system
# headers, so that their own warnings do not fail -Werror.
target_include_directories(cxx_ocl_interop SYSTEM PRIVATE "${_cxx_hpp_dir}")
target_link_libraries(cxx_ocl_interop PRIVATE OpenCL::OpenCL)
# USM through shared virtual memory on Intel's runtime too (DNNL_OCL_USM=svm).
dnnl_ocl_svm_twin(cxx_ocl_interop)
# Host-scalar memory through the official C++ API (CPU only; with a reference run).
dnnl_c_test(cxx_host_scalar SOURCES cxx/host_scalar.cpp LABELS "api;cpu;cxx" TIMEOUT 60)
set_target_properties(cxx_host_scalar PROPERTIES
  CXX_STANDARD 11 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
target_include_directories(cxx_host_scalar SYSTEM PRIVATE "${_cxx_hpp_dir}")
