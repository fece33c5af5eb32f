# Install tree (cmake --install build --prefix <prefix>):
#   include/oneapi/dnnl/*.h, include/dnnl*.h       public and compatibility headers
#   lib/libdnnl.so.3, lib/libdnnl.so -> libdnnl.so.3
#   lib/cmake/dnnl/dnnlConfig.cmake                 imported target DNNL::dnnl
#   lib/cmake/dnnl/dnnlConfigVersion.cmake
#   lib/pkgconfig/dnnl.pc
# ("lib" is CMAKE_INSTALL_LIBDIR: lib/<multiarch> when the prefix is /usr on Debian.)
include(CMakePackageConfigHelpers)

set(DNNL_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/dnnl")

install(DIRECTORY "${CMAKE_SOURCE_DIR}/include/"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
        FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp")

install(PROGRAMS "${DNNL_CARGO_LIBRARY}"
        DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        RENAME libdnnl.so.3)
# The development name, a relative link as distributions make it.
install(CODE "
  set(_link \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/libdnnl.so\")
  message(STATUS \"Installing: \${_link} -> libdnnl.so.3\")
  file(CREATE_LINK libdnnl.so.3 \"\${_link}\" SYMBOLIC)
  list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${_link}\")
")

configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/dnnlConfig.cmake.in"
  "${CMAKE_BINARY_DIR}/cmake/dnnlConfig.cmake"
  INSTALL_DESTINATION "${DNNL_INSTALL_CMAKEDIR}"
  PATH_VARS CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(
  "${CMAKE_BINARY_DIR}/cmake/dnnlConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMajorVersion)
install(FILES "${CMAKE_BINARY_DIR}/cmake/dnnlConfig.cmake"
              "${CMAKE_BINARY_DIR}/cmake/dnnlConfigVersion.cmake"
        DESTINATION "${DNNL_INSTALL_CMAKEDIR}")

# dnnl.pc names the prefix it is installed under, known only at install time
# (cmake --install --prefix ...), so it is written then.
install(CODE "
  set(prefix \"\${CMAKE_INSTALL_PREFIX}\")
  set(DNNL_PC_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
  set(DNNL_PC_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
  set(DNNL_PC_VERSION \"${PROJECT_VERSION}\")
  set(DNNL_PC_DESCRIPTION \"${PROJECT_DESCRIPTION}\")
  set(_pc \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig/dnnl.pc\")
  message(STATUS \"Installing: \${_pc}\")
  configure_file(\"${CMAKE_CURRENT_LIST_DIR}/dnnl.pc.in\" \"\${_pc}\" @ONLY)
  list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${_pc}\")
")
