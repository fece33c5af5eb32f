# Interop tests, one folder per runtime (ocl/, and later ze/): each folder's
# tests.cmake registers its own tests. Included from tests-c/CMakeLists.txt, so paths
# in SOURCES stay relative to tests-c/.
file(GLOB _dnnl_interop_areas CONFIGURE_DEPENDS "${CMAKE_CURRENT_LIST_DIR}/*/tests.cmake")
foreach(_interop_area IN LISTS _dnnl_interop_areas)
  include("${_interop_area}")
endforeach()
