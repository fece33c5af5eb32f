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
# stream        streams on immediate and regular lists, get_list
# foreign_list  a command list of another context refused by stream_create
# memory        USM of each kind, NONE, ALLOCATE, map/unmap, set/get data handle
# execute       dnnl_ze_interop_primitive_execute: deps, the returned event, bad counts
# ownership     every user object outlives the library's objects
# event_chain   matmul then binary on two lists, ordered by events only
# cache_blob    engine and primitive cache blobs: round trips and refusals
# primitives    every primitive kind of the API on a ze engine against references in double
# two_drivers   objects of one driver given to an engine of another (below)
foreach(t engine stream foreign_list memory execute ownership event_chain cache_blob primitives)
  dnnl_ze_test(ze_${t} SOURCES interop/ze/${t}.c LABELS "api;ze" TIMEOUT 120)
  if(TARGET ze_${t})
    target_link_libraries(ze_${t} PRIVATE m)
  endif()
endforeach()

# two_drivers: a device, context, list and USM of one driver given to an engine of
# another. The loader gets two drivers when ZE_ENABLE_ALT_DRIVERS names two files: the
# test appends DNNL_ZE_SECOND_DRIVER, a copy of our driver under another name (a copy,
# not a link: the dynamic linker would load a link's target once), made on every build.
set(_dnnl_ze_second_driver "${CMAKE_BINARY_DIR}/ze-second-driver/libze_ocl_driver_copy.so")
add_custom_target(dnnl_ze_second_driver ALL
  COMMAND "${CMAKE_COMMAND}" -E make_directory "${CMAKE_BINARY_DIR}/ze-second-driver"
  COMMAND "${CMAKE_COMMAND}" -E copy_if_different "${DNNL_ZE_DRIVER}" "${_dnnl_ze_second_driver}"
  DEPENDS dnnl_cargo
  COMMENT "copy of the Level Zero test driver (a second driver for ze_two_drivers)"
  VERBATIM)
dnnl_ze_test(ze_two_drivers SOURCES interop/ze/two_drivers.c LABELS "api;ze" TIMEOUT 120
             ENVIRONMENT "DNNL_ZE_SECOND_DRIVER=${_dnnl_ze_second_driver}")
if(TARGET ze_two_drivers)
  add_dependencies(ze_two_drivers dnnl_ze_second_driver)
endif()

# wild_handles  wild pointers as drivers, devices, contexts, lists, events and USM are
#               refused (ours only: upstream crashes); once more with the loader forced
#               to wrap handles (ZE_ENABLE_LOADER_INTERCEPT=1), where it reads through
#               them itself
dnnl_ze_test(ze_wild_handles SOURCES interop/ze/wild_handles.c LABELS "api;ze;ours-only"
             TIMEOUT 120)
dnnl_ze_test(ze_wild_handles_intercept SOURCES interop/ze/wild_handles.c
             LABELS "api;ze;ours-only" TIMEOUT 120 ENVIRONMENT "ZE_ENABLE_LOADER_INTERCEPT=1")
