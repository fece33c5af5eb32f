# The experimental profiling API (dnnl_reset_profiling, dnnl_query_profiling_data).
# Included from tests-c/CMakeLists.txt.
#   profiling_cpu  the CPU engine's answers (an @ref twin runs them on upstream's)
#   profiling_ocl  profiling OpenCL streams, the library's and the user's queue
#                  (each runtime)
#   profiling_ze   profiling Level Zero streams (the in-repository driver)
dnnl_c_test(profiling_cpu SOURCES profiling/cpu.c LABELS "api;cpu" TIMEOUT 60)

find_package(OpenCL QUIET)
if(OpenCL_FOUND)
  dnnl_c_test(profiling_ocl SOURCES profiling/ocl.c LABELS "api;ocl" OPENCL TIMEOUT 120)
  target_link_libraries(profiling_ocl PRIVATE OpenCL::OpenCL m)
  target_compile_definitions(profiling_ocl PRIVATE CL_TARGET_OPENCL_VERSION=300)
  target_include_directories(profiling_ocl PRIVATE "${CMAKE_CURRENT_LIST_DIR}/../interop/ocl")
else()
  message(STATUS "tests-c/profiling: OpenCL not found: profiling_ocl not built")
endif()

if(COMMAND dnnl_ze_test)
  dnnl_ze_test(profiling_ze SOURCES profiling/ze.c LABELS "api;ze" TIMEOUT 120)
  if(TARGET profiling_ze)
    target_link_libraries(profiling_ze PRIVATE m)
    target_include_directories(profiling_ze PRIVATE "${CMAKE_CURRENT_LIST_DIR}/../interop/ze")
  endif()
endif()
if(TARGET profiling_cpu)
  target_link_libraries(profiling_cpu PRIVATE m)
endif()
