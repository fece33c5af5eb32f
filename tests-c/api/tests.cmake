# API tests that need no engine. Included from tests-c/CMakeLists.txt.

dnnl_c_test(api_debug_strings SOURCES api/debug_strings.c LABELS "api;cpu")
dnnl_c_test(api_service SOURCES api/service.c LABELS "api;cpu")
# ONEDNN_PRIMITIVE_CACHE_CAPACITY (and its DNNL_ spelling) sets the starting capacity.
dnnl_c_test(api_cache_capacity_env SOURCES api/cache_capacity_env.c LABELS "api;cpu"
            ENVIRONMENT "DNNL_PRIMITIVE_CACHE_CAPACITY=7")

if(NOT Python3_EXECUTABLE)
  find_package(Python3 COMPONENTS Interpreter REQUIRED)
endif()

# Generated from our headers and src/capi (see gen_boundary_tests.py): every
# unimplemented entry point, and every destroy function given bad handles.
set(_gen "${CMAKE_CURRENT_BINARY_DIR}/generated")
file(GLOB_RECURSE _capi_sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/src/capi/*.rs")
file(GLOB _headers CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/include/oneapi/dnnl/*.h")
add_custom_command(
  OUTPUT "${_gen}/unimplemented.c" "${_gen}/destroy.c"
  COMMAND ${Python3_EXECUTABLE} "${CMAKE_CURRENT_SOURCE_DIR}/api/gen_boundary_tests.py"
          "${PROJECT_SOURCE_DIR}" "${_gen}"
  DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/api/gen_boundary_tests.py" ${_capi_sources} ${_headers}
  COMMENT "Generating the unimplemented and destroy boundary tests")
dnnl_c_test(api_unimplemented SOURCES "${_gen}/unimplemented.c" LABELS "api;cpu;ours-only")
dnnl_c_test(api_destroy_bad_handles SOURCES "${_gen}/destroy.c" LABELS "api;cpu;ours-only")
foreach(_t api_unimplemented api_destroy_bad_handles)
  target_compile_definitions(${_t} PRIVATE DNNL_EXPERIMENTAL_UKERNEL DNNL_EXPERIMENTAL_PROFILING)
endforeach()

# ONEDNN_VERBOSE, as a user sees it on stdout.
dnnl_c_test(api_verbose_check SOURCES api/verbose_rejected_call.c LABELS "api;cpu;ours-only"
            ENVIRONMENT "ONEDNN_VERBOSE=check")
set_tests_properties(api_verbose_check PROPERTIES
  PASS_REGULAR_EXPRESSION "onednn_verbose,v1,info,oneDNN v3\\.13\\.[0-9]+ \\(commit [^)]+\\).*onednn_verbose,v1,common,check,dnnl_engine_destroy,invalid_arguments,0xdeadbee0 is not a live engine")
function(dnnl_verbose_case name env pass fail)
  add_test(NAME ${name} COMMAND api_verbose_check)
  set_tests_properties(${name} PROPERTIES LABELS "api;cpu;ours-only" ENVIRONMENT "${env}")
  if(pass)
    set_tests_properties(${name} PROPERTIES PASS_REGULAR_EXPRESSION "${pass}")
  endif()
  if(fail)
    set_tests_properties(${name} PROPERTIES FAIL_REGULAR_EXPRESSION "${fail}")
  endif()
endfunction()
# The older DNNL_ name is read too.
dnnl_verbose_case(api_verbose_dnnl_name "DNNL_VERBOSE=check" "common,check,dnnl_engine_destroy" "")
# ONEDNN_ wins over DNNL_.
dnnl_verbose_case(api_verbose_onednn_wins "ONEDNN_VERBOSE=none;DNNL_VERBOSE=check" "done 3\\.13" "onednn_verbose")
# The default (error) prints nothing for a rejected call.
dnnl_verbose_case(api_verbose_default_quiet "" "done 3\\.13" "onednn_verbose")
# An unknown token is reported, not silently ignored.
dnnl_verbose_case(api_verbose_unknown_token "ONEDNN_VERBOSE=OFF" "common,error,ONEDNN_VERBOSE: unknown token 'off' ignored" "common,check")
# An ill-formed filter is reported.
dnnl_verbose_case(api_verbose_bad_filter "ONEDNN_VERBOSE=all,filter=(" "filter format is ill-formed" "")
# A filter that excludes the component silences its lines; common lines pass.
dnnl_verbose_case(api_verbose_filter "ONEDNN_VERBOSE=all,filter=graph" "common,check,dnnl_engine_destroy" "")
# Destroying NULL is a success (as upstream) and no check line.
dnnl_verbose_case(api_verbose_destroy_null_quiet "ONEDNN_VERBOSE=all" "common,check,dnnl_engine_destroy" "dnnl_stream_destroy")
# Timestamps go after the version field.
dnnl_verbose_case(api_verbose_timestamp "ONEDNN_VERBOSE=check;ONEDNN_VERBOSE_TIMESTAMP=1" "onednn_verbose,v1,[0-9]+\\.[0-9]+,common,check" "")

# A destroyed handle is dead at its destroy while other objects keep its object;
# query results live on (issue 18). CPU engine, and each OpenCL runtime.
dnnl_c_test(api_handle_lifetime SOURCES api/handle_lifetime.c LABELS "api;cpu;ours-only"
            ARGS cpu TIMEOUT 120)
dnnl_c_test(api_handle_lifetime_ocl SOURCES api/handle_lifetime.c LABELS "api;ours-only"
            OPENCL ARGS gpu TIMEOUT 120)

# Every implemented primitive descriptor create over a sweep of descriptors,
# axes and counts: a status, never a panic (issue 18).
dnnl_c_test(api_pd_create_shapes SOURCES api/pd_create_shapes.c LABELS "api;cpu;ours-only"
            ARGS cpu TIMEOUT 300)
dnnl_c_test(api_pd_create_shapes_ocl SOURCES api/pd_create_shapes.c LABELS "api;ours-only"
            OPENCL ARGS gpu TIMEOUT 300)
