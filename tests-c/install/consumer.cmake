# Install-tree tests, run by CTest as `cmake -D... -P consumer.cmake` (tests-c/CMakeLists.txt).
#
#   MODE=install     fresh install of BUILD_DIR into PREFIX (the fixture)
#   MODE=cmake       configure, build and run cmake_consumer/ with find_package(dnnl)
#   MODE=pkgconfig   compile cmake_consumer/consumer.c with `pkg-config --cflags --libs dnnl`
#                    and run it with LD_LIBRARY_PATH=<prefix>/lib
#
# The consumer checks dnnl_version() and that the library it loaded lies under PREFIX.
cmake_minimum_required(VERSION 3.20)

foreach(var MODE PREFIX BUILD_DIR WORK_DIR SOURCE_DIR VERSION GENERATOR C_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "consumer.cmake: -D${var}=... is required")
  endif()
endforeach()

function(run)
  string(REPLACE ";" " " shown "${ARGN}")
  message(STATUS "$ ${shown}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${shown}")
  endif()
endfunction()

function(find_libdir out)
  foreach(dir lib lib64 lib/x86_64-linux-gnu)
    if(EXISTS "${PREFIX}/${dir}/libdnnl.so.3")
      set(${out} "${PREFIX}/${dir}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "no libdnnl.so.3 under ${PREFIX}: did install_tree run?")
endfunction()

if(MODE STREQUAL "install")
  file(REMOVE_RECURSE "${PREFIX}")
  run("${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}")
  find_libdir(libdir)
  foreach(f "${libdir}/libdnnl.so.3" "${libdir}/libdnnl.so"
            "${libdir}/cmake/dnnl/dnnlConfig.cmake" "${libdir}/cmake/dnnl/dnnlConfigVersion.cmake"
            "${libdir}/pkgconfig/dnnl.pc" "${PREFIX}/include/oneapi/dnnl/dnnl.h")
    if(NOT EXISTS "${f}")
      message(FATAL_ERROR "missing from the install tree: ${f}")
    endif()
  endforeach()
  if(NOT IS_SYMLINK "${libdir}/libdnnl.so" OR IS_SYMLINK "${libdir}/libdnnl.so.3")
    message(FATAL_ERROR "expected libdnnl.so -> libdnnl.so.3, and libdnnl.so.3 a file")
  endif()
  message(STATUS "installed into ${PREFIX}")

elseif(MODE STREQUAL "cmake")
  set(bin "${WORK_DIR}/cmake-consumer")
  file(REMOVE_RECURSE "${bin}")
  run("${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${bin}" -G "${GENERATOR}"
      "-DCMAKE_C_COMPILER=${C_COMPILER}" "-DCMAKE_PREFIX_PATH=${PREFIX}"
      "-DDNNL_EXPECTED_VERSION=${VERSION}")
  run("${CMAKE_COMMAND}" --build "${bin}")
  # No LD_LIBRARY_PATH: the RUNPATH that DNNL::dnnl gave the program must find the library.
  run("${bin}/consumer" "${PREFIX}")

elseif(MODE STREQUAL "pkgconfig")
  find_program(PKG_CONFIG pkg-config REQUIRED)
  find_libdir(libdir)
  set(ENV{PKG_CONFIG_PATH} "${libdir}/pkgconfig")
  execute_process(COMMAND "${PKG_CONFIG}" --modversion dnnl
                  OUTPUT_VARIABLE modversion OUTPUT_STRIP_TRAILING_WHITESPACE
                  COMMAND_ERROR_IS_FATAL ANY)
  if(NOT modversion STREQUAL VERSION)
    message(FATAL_ERROR "pkg-config --modversion dnnl: ${modversion}, expected ${VERSION}")
  endif()
  execute_process(COMMAND "${PKG_CONFIG}" --cflags --libs dnnl
                  OUTPUT_VARIABLE flags OUTPUT_STRIP_TRAILING_WHITESPACE
                  COMMAND_ERROR_IS_FATAL ANY)
  message(STATUS "pkg-config --cflags --libs dnnl: ${flags}")
  separate_arguments(flags UNIX_COMMAND "${flags}")
  set(bin "${WORK_DIR}/pkgconfig-consumer")
  file(REMOVE_RECURSE "${bin}")
  file(MAKE_DIRECTORY "${bin}")
  run("${C_COMPILER}" -std=c11 -Wall -Wextra -Werror "${SOURCE_DIR}/consumer.c"
      -o "${bin}/consumer" ${flags})
  set(ENV{LD_LIBRARY_PATH} "${libdir}")
  run("${bin}/consumer" "${PREFIX}")

else()
  message(FATAL_ERROR "consumer.cmake: unknown MODE '${MODE}'")
endif()
