# ONEDNN_VERBOSE lines through upstream's verbose converter (issue 15).
# Included from tests-c/CMakeLists.txt.
#
# verbose_every_kind runs one primitive of every implemented kind. verbose_converter
# runs it under ONEDNN_VERBOSE=all and converts each `primitive,exec` line with the
# converter vendored in third_party/onednn-verbose-converter (see converter_check.py
# for what is asserted); its @ref run does the same with Intel's library, so the
# check is shown to hold for upstream's own lines. verbose_converter_catches_break
# breaks a concat line on purpose and passes only when the check fails on it.

dnnl_c_test(verbose_every_kind SOURCES verbose/every_kind.c LABELS "api;cpu" ARGS cpu
            TIMEOUT 120)

if(EXISTS "${PROJECT_SOURCE_DIR}/.venv/bin/python")
  set(_verbose_python "${PROJECT_SOURCE_DIR}/.venv/bin/python")
else()
  find_package(Python3 COMPONENTS Interpreter QUIET)
  set(_verbose_python "${Python3_EXECUTABLE}")
endif()
set(_verbose_kinds "batch_normalization,binary,concat,convolution,deconvolution,eltwise,group_normalization,inner_product,layer_normalization,lrn,matmul,pooling,prelu,reduction,reorder,resampling,shuffle,softmax,sum")
set(_verbose_check "${_verbose_python}" "${CMAKE_CURRENT_LIST_DIR}/converter_check.py"
    --converter "${PROJECT_SOURCE_DIR}/third_party/onednn-verbose-converter"
    --kinds "${_verbose_kinds}")

if(NOT _verbose_python)
  foreach(_t verbose_converter verbose_converter_catches_break)
    add_test(NAME ${_t} COMMAND sh -c "echo 'SKIP: no Python 3 interpreter'; exit 77")
    set_tests_properties(${_t} PROPERTIES LABELS "api;cpu" SKIP_RETURN_CODE 77)
  endforeach()
  return()
endif()

# The environment dnnl_c_test gives its programs (they run under ASan in Debug builds).
_dnnl_add_ctest(verbose_converter "api;cpu" 300 "ASAN_OPTIONS=allocator_may_return_null=1"
  ${_verbose_check} -- $<TARGET_FILE:verbose_every_kind> cpu)
_dnnl_add_ctest(verbose_converter_catches_break "api;cpu;ours-only" 300
  "ASAN_OPTIONS=allocator_may_return_null=1"
  ${_verbose_check} --break -- $<TARGET_FILE:verbose_every_kind> cpu)
# The GPU engine's lines, on each OpenCL runtime.
foreach(_rt IN LISTS DNNL_OCL_RUNTIMES)
  _dnnl_add_ctest("verbose_converter_ocl@${_rt}" "api;ocl;${_rt}" 300
    "OCL_ICD_VENDORS=${DNNL_OCL_ICD_ROOT}/${_rt};ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1"
    sh "${_dnnl_ocl_runner}" "${_rt}" "${DNNL_OCL_ICD_${_rt}}"
       "${DNNL_OCL_ICD_ROOT}/${_rt}" "${_dnnl_ocl_hint_${_rt}}"
       ${_verbose_check} -- $<TARGET_FILE:verbose_every_kind> gpu)
endforeach()
