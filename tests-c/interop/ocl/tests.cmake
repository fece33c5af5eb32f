# OpenCL interop tests (dnnl_ocl.h, and the generic engine/stream/memory API on
# OpenCL engines). Each runs once per OpenCL runtime (<name>@pocl, <name>@intel) and
# skips (77) when no OpenCL device is visible. Included from tests-c/CMakeLists.txt.

find_package(OpenCL QUIET)
if(NOT OpenCL_FOUND)
  message(STATUS "tests-c/interop/ocl: OpenCL headers or ICD loader not found "
                 "(apt-get install ocl-icd-opencl-dev opencl-headers): OpenCL tests not built")
  return()
endif()

# dnnl_ocl_test(<name> <source> [LABELS ...] [OPENCL] [ENVIRONMENT ...]): a C test that
# calls OpenCL directly.
function(dnnl_ocl_test name source)
  cmake_parse_arguments(PARSE_ARGV 2 arg "OPENCL" "" "LABELS;ENVIRONMENT")
  set(labels "api;ocl")
  if(arg_LABELS)
    string(REPLACE "\\;" ";" arg_LABELS "${arg_LABELS}")
    list(APPEND labels ${arg_LABELS})
  endif()
  set(extra)
  if(arg_OPENCL)
    list(APPEND extra OPENCL)
  endif()
  if(arg_ENVIRONMENT)
    list(APPEND extra ENVIRONMENT ${arg_ENVIRONMENT})
  endif()
  dnnl_c_test(${name} SOURCES interop/ocl/${source} LABELS "${labels}" TIMEOUT 60 ${extra})
  target_link_libraries(${name} PRIVATE OpenCL::OpenCL)
  target_compile_definitions(${name} PRIVATE CL_TARGET_OPENCL_VERSION=300)
endfunction()

dnnl_ocl_test(ocl_engine_count engine_count.c OPENCL)
dnnl_ocl_test(ocl_engine_interop engine_interop.c OPENCL)
dnnl_ocl_test(ocl_engine_v1 engine_v1.c OPENCL)
dnnl_ocl_test(ocl_stream stream.c OPENCL)
dnnl_ocl_test(ocl_stream_interop stream_interop.c OPENCL)
dnnl_ocl_test(ocl_memory_buffer memory_buffer.c OPENCL)
dnnl_ocl_test(ocl_memory_user_buffer memory_user_buffer.c OPENCL)
dnnl_ocl_test(ocl_memory_set_data_handle memory_set_data_handle.c OPENCL)
dnnl_ocl_test(ocl_memory_invalid memory_invalid.c OPENCL)
dnnl_ocl_test(ocl_memory_foreign_context memory_foreign_context.c OPENCL LABELS ours-only)
dnnl_ocl_test(ocl_memory_v2 memory_v2.c OPENCL)
dnnl_ocl_test(ocl_memory_usm memory_usm.c OPENCL)
dnnl_ocl_test(ocl_cache_blob cache_blob.c OPENCL)
dnnl_ocl_test(ocl_primitive_event_chain primitive_event_chain.c OPENCL)
target_link_libraries(ocl_primitive_event_chain PRIVATE m)

# Both runtimes at once: objects of one platform given to engines of the other.
dnnl_ocl_test(ocl_two_platforms two_platforms.c
              ENVIRONMENT "OCL_ICD_VENDORS=${CMAKE_SOURCE_DIR}/.venv/icd/all"
                          "ASAN_OPTIONS=detect_leaks=0")

# USM through shared virtual memory on Intel's runtime too (DNNL_OCL_USM=svm).
dnnl_ocl_svm_twin(ocl_memory_usm)
dnnl_ocl_svm_twin(ocl_wild_handles)

# Ours only: through SVM (PoCL; Intel's runtime under DNNL_OCL_USM=svm) a pointer the
# host cannot read, given as USM, is refused and ONEDNN_VERBOSE=check says why.
set(_usm_verbose_regex "common,check,dnnl_ocl_interop_memory_create,invalid_arguments,0x[0-9a-f]+ is not shared virtual memory of the engine's OpenCL context: not readable for 2048 bytes.*USM memory on [^\n]*through SVM[^\n]*: ok")
if("pocl" IN_LIST DNNL_OCL_RUNTIMES)
  add_test(NAME ocl_memory_usm_verbose@pocl
           COMMAND sh "${_dnnl_ocl_runner}" pocl "${DNNL_OCL_ICD_pocl}"
                   "${DNNL_OCL_ICD_ROOT}/pocl" "${_dnnl_ocl_hint_pocl}"
                   $<TARGET_FILE:ocl_memory_usm>)
  set_tests_properties(ocl_memory_usm_verbose@pocl PROPERTIES
    LABELS "api;ocl;pocl;ours-only" TIMEOUT 60 SKIP_RETURN_CODE 77
    ENVIRONMENT "ONEDNN_VERBOSE=check;ASAN_OPTIONS=detect_leaks=0"
    PASS_REGULAR_EXPRESSION "${_usm_verbose_regex}")
endif()

# Ours only (upstream crashes): wild pointers given as OpenCL objects are refused with
# invalid_arguments, on each runtime, and with no OpenCL platform at all (<name>@none:
# an empty OCL_ICD_VENDORS directory, the program's argument `none`).
dnnl_ocl_test(ocl_wild_handles wild_handles.c OPENCL LABELS ours-only)
add_test(NAME ocl_wild_handles@none COMMAND $<TARGET_FILE:ocl_wild_handles> none)
set_tests_properties(ocl_wild_handles@none PROPERTIES
  LABELS "api;ocl;ours-only" TIMEOUT 60 SKIP_RETURN_CODE 77
  ENVIRONMENT "OCL_ICD_VENDORS=${DNNL_OCL_ICD_ROOT}/none;ASAN_OPTIONS=detect_leaks=0")
# The reason is in the verbose log (ONEDNN_VERBOSE=check).
foreach(_rt IN LISTS DNNL_OCL_RUNTIMES)
  add_test(NAME ocl_wild_handles_verbose@${_rt}
           COMMAND sh "${_dnnl_ocl_runner}" ${_rt} "${DNNL_OCL_ICD_${_rt}}"
                   "${DNNL_OCL_ICD_ROOT}/${_rt}" "${_dnnl_ocl_hint_${_rt}}"
                   $<TARGET_FILE:ocl_wild_handles>)
  set_tests_properties(ocl_wild_handles_verbose@${_rt} PROPERTIES
    LABELS "api;ocl;${_rt};ours-only" TIMEOUT 60 SKIP_RETURN_CODE 77
    ENVIRONMENT "ONEDNN_VERBOSE=check;ASAN_OPTIONS=detect_leaks=0"
    PASS_REGULAR_EXPRESSION "common,check,dnnl_ocl_interop_stream_create,invalid_arguments,cl_command_queue 0xdeadbeef000 is not an OpenCL object: its memory is not readable.*the real objects still work: ok")
endforeach()
