# Graph allocators, graph tensors and the graph OpenCL interop (dnnl_graph.h,
# dnnl_graph_ocl.h). The OpenCL tests run once per OpenCL runtime (<name>@pocl,
# <name>@intel); on a runtime without USM (PoCL) they skip the parts that need USM
# and say why. Included from tests-c/CMakeLists.txt (paths relative to tests-c/).

dnnl_c_test(graph_allocator SOURCES graph_ocl/graph_allocator.c LABELS "api;cpu;graph"
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
  dnnl_c_test(${name} SOURCES graph_ocl/${source} LABELS "api;graph" TIMEOUT 120 OPENCL)
  target_link_libraries(${name} PRIVATE OpenCL::OpenCL Threads::Threads m)
  target_compile_definitions(${name} PRIVATE CL_TARGET_OPENCL_VERSION=300
                                             COUNT_WITH_OPENCL)
endfunction()

dnnl_graph_ocl_test(graph_ocl_allocator ocl_allocator.c)
dnnl_graph_ocl_test(graph_ocl_execute ocl_execute.c)
