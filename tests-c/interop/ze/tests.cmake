# Level Zero interop tests (dnnl_ze.h, and the generic engine/stream/memory/primitive
# API on ze engines). Each program links the Level Zero loader and is registered by
# dnnl_ze_test() (cmake/DnnlCTest.cmake) twice: <name>@ze, through the Debian loader
# with the in-repository driver (crates/ze-ocl-driver) named by ZE_ENABLE_ALT_DRIVERS,
# and <name>@ze-validation, the same with the loader's validation layer on. A program
# skips (77) only when no Level Zero driver or device is visible.
# Included from tests-c/CMakeLists.txt (through tests-c/interop/tests.cmake), so paths
# in SOURCES stay relative to tests-c/.

if(NOT COMMAND dnnl_ze_test)
  message(STATUS "tests-c/interop/ze: dnnl_ze_test() is not defined: Level Zero tests "
                 "not built")
  return()
endif()

# engine        dnnl_ze_interop_engine_create and its getters; NULL and wrong-kind handles
# stream        streams on immediate and regular lists, get_list, a foreign list
# memory        USM of each kind, NONE, ALLOCATE, map/unmap, set/get data handle
# execute       dnnl_ze_interop_primitive_execute: deps, the returned event, bad counts
# ownership     every user object outlives the library's objects
# event_chain   matmul then binary on two lists, ordered by events only
# cache_blob    engine and primitive cache blobs: round trips and refusals
# primitives    the part-A primitives on a ze engine against references in double
foreach(t engine stream memory execute ownership event_chain cache_blob primitives)
  dnnl_ze_test(ze_${t} SOURCES interop/ze/${t}.c LABELS "api;ze" TIMEOUT 120)
  target_link_libraries(ze_${t} PRIVATE m)
endforeach()
