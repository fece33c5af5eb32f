# Graph allocators, graph tensors and the graph OpenCL interop (dnnl_graph.h,
# dnnl_graph_ocl.h). The OpenCL tests run once per OpenCL runtime (<name>@pocl,
# <name>@intel) and on Intel's runtime once more with USM through shared virtual memory
# (<name>@intel-svm, DNNL_OCL_USM=svm), the way PoCL and NVIDIA give it. Included from tests-c/CMakeLists.txt (paths relative to tests-c/).
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
# What make_engine_from_cache_blob_with_allocator accepts as upstream does: an empty
# blob, the device's blob id.
dnnl_graph_ocl_test(graph_ocl_cache_blob ocl_cache_blob.c)

dnnl_ocl_svm_twin(graph_ocl_allocator)
dnnl_ocl_svm_twin(graph_ocl_execute)
dnnl_ocl_svm_twin(graph_ocl_cache_blob)

# Ours only: an OpenCL allocator returning memory the host cannot read is refused, and
# ONEDNN_VERBOSE=check says why.
foreach(_rt IN LISTS DNNL_OCL_RUNTIMES)
  add_test(NAME graph_ocl_allocator_verbose@${_rt}
           COMMAND sh "${_dnnl_ocl_runner}" ${_rt} "${DNNL_OCL_ICD_${_rt}}"
                   "${DNNL_OCL_ICD_ROOT}/${_rt}" "${_dnnl_ocl_hint_${_rt}}"
                   $<TARGET_FILE:graph_ocl_allocator>)
  set_tests_properties(graph_ocl_allocator_verbose@${_rt} PROPERTIES
    LABELS "api;graph;ocl;${_rt};ours-only" TIMEOUT 60 SKIP_RETURN_CODE 77
    ENVIRONMENT "ONEDNN_VERBOSE=check;ASAN_OPTIONS=detect_leaks=0"
    PASS_REGULAR_EXPRESSION "graph,error,dnnl_graph_tensor_create,runtime_error,the graph OpenCL allocator returned 0x[0-9a-f]+, which is not USM memory of the engine's context.*graph_ocl_allocator: ok")
endforeach()
