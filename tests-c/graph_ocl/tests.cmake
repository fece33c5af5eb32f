# Graph allocators, graph tensors and the graph OpenCL interop (dnnl_graph.h,
# dnnl_graph_ocl.h). The OpenCL tests run once per OpenCL runtime (<name>@pocl,
# <name>@intel); on a runtime without USM (PoCL) they skip the parts that need USM
# and say why. Included from tests-c/CMakeLists.txt (paths relative to tests-c/).
# All are ours-only: they check where we are stricter than upstream (a NULL
# allocator is refused, not dereferenced) and our documented choices (scalar
# tensors copy their value; free callbacks get the event they waited for).

dnnl_c_test(graph_allocator SOURCES graph_ocl/graph_allocator.c LABELS "api;cpu;graph;ours-only"
            TIMEOUT 60)
find_package(Threads REQUIRED)
target_link_libraries(graph_allocator PRIVATE Threads::Threads m)

find_package(OpenCL QUIET)
if(NOT OpenCL_FOUND)
  message(STATUS "tests-c/graph_ocl: OpenCL headers or ICD loader not found "
                 "(apt-get install ocl-icd-opencl-dev opencl-headers): OpenCL graph tests "
                 "not built")
  return()
endif()

# dnnl_graph_ocl_test(<name> <source>): a graph test on each OpenCL runtime that calls
# OpenCL directly.
function(dnnl_graph_ocl_test name source)
  dnnl_c_test(${name} SOURCES graph_ocl/${source} LABELS "api;graph;ours-only" TIMEOUT 120 OPENCL)
  target_link_libraries(${name} PRIVATE OpenCL::OpenCL Threads::Threads m)
  target_compile_definitions(${name} PRIVATE CL_TARGET_OPENCL_VERSION=300
                                             COUNT_WITH_OPENCL)
endfunction()

dnnl_graph_ocl_test(graph_ocl_allocator ocl_allocator.c)
dnnl_graph_ocl_test(graph_ocl_execute ocl_execute.c)

# Ours only: on PoCL (no USM extension) graph memory requests say why they are
# unimplemented under ONEDNN_VERBOSE=check.
if("pocl" IN_LIST DNNL_OCL_RUNTIMES)
  add_test(NAME graph_ocl_allocator_verbose@pocl
           COMMAND sh "${_dnnl_ocl_runner}" pocl "${DNNL_OCL_ICD_pocl}"
                   "${DNNL_OCL_ICD_ROOT}/pocl" "${_dnnl_ocl_hint_pocl}"
                   $<TARGET_FILE:graph_ocl_allocator>)
  set_tests_properties(graph_ocl_allocator_verbose@pocl PROPERTIES
    LABELS "api;graph;ocl;pocl;ours-only" TIMEOUT 60 SKIP_RETURN_CODE 77
    ENVIRONMENT "ONEDNN_VERBOSE=check;ASAN_OPTIONS=detect_leaks=0"
    PASS_REGULAR_EXPRESSION "graph,check,dnnl_graph_tensor_create,unimplemented,graph memory on OpenCL is USM memory[^\n]*cl_intel_unified_shared_memory.*graph_ocl_allocator: ok")
endif()
