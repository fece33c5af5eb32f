# Builds the Rust crate with cargo and imports the result.
#
# Defines:
#   dnnl_cargo           custom target, part of ALL, runs `cargo build` every time
#                        (cargo decides what is stale)
#   dnnl                 IMPORTED shared library: ${DNNL_BUILD_LIBDIR}/libdnnl.so.3
#   DNNL_CARGO_LIBRARY   what cargo writes: <target-dir>/<profile>/libdnnl.so
#   DNNL_BUILD_LIBDIR    <build>/lib, holding libdnnl.so.3 -> DNNL_CARGO_LIBRARY and
#                        libdnnl.so -> libdnnl.so.3
#   DNNL_ZE_DRIVER       <target-dir>/<profile>/libze_ocl_driver.so: the in-repository
#                        Level Zero driver over OpenCL (crates/ze-ocl-driver), built by
#                        the same cargo command; the ze tests load it through the
#                        Level Zero loader (ZE_ENABLE_ALT_DRIVERS)
#
# Cache variables:
#   DNNL_CARGO_PROFILE   cargo profile, `release` by default (`dev` builds target/debug)
#   DNNL_CARGO_FLAGS     extra arguments for `cargo build` (a ;-list), e.g. --locked

set(DNNL_CARGO_PROFILE "release" CACHE STRING "Cargo profile that builds libdnnl.so")
set(DNNL_CARGO_FLAGS "" CACHE STRING "Extra arguments for cargo build (;-separated)")

find_program(CARGO_EXECUTABLE cargo HINTS "$ENV{CARGO_HOME}/bin" "$ENV{HOME}/.cargo/bin")
if(NOT CARGO_EXECUTABLE)
  message(FATAL_ERROR "cargo not found: install Rust (https://rustup.rs) or set CARGO_EXECUTABLE")
endif()

set(_dnnl_manifest "${CMAKE_SOURCE_DIR}/Cargo.toml")
if(NOT EXISTS "${_dnnl_manifest}")
  message(FATAL_ERROR "${_dnnl_manifest} is missing: this build drives the Rust crate at the "
                      "repository root")
endif()

# Where cargo puts its output: ask cargo, which knows about CARGO_TARGET_DIR and
# .cargo/config.toml. `cargo test --release` then shares the same artefacts.
execute_process(
  COMMAND "${CARGO_EXECUTABLE}" metadata --format-version 1 --no-deps --offline
          --manifest-path "${_dnnl_manifest}"
  OUTPUT_VARIABLE _dnnl_metadata
  ERROR_VARIABLE _dnnl_metadata_err
  RESULT_VARIABLE _dnnl_metadata_rc)
if(_dnnl_metadata_rc EQUAL 0)
  string(JSON _dnnl_target_dir GET "${_dnnl_metadata}" target_directory)
else()
  message(WARNING "cargo metadata failed (${_dnnl_metadata_err}); assuming target/")
  set(_dnnl_target_dir "${CMAKE_SOURCE_DIR}/target")
endif()

if(DNNL_CARGO_PROFILE STREQUAL "release")
  set(_dnnl_profile_args --release)
  set(_dnnl_profile_dir release)
elseif(DNNL_CARGO_PROFILE STREQUAL "dev")
  set(_dnnl_profile_args)
  set(_dnnl_profile_dir debug)
else()
  set(_dnnl_profile_args --profile "${DNNL_CARGO_PROFILE}")
  set(_dnnl_profile_dir "${DNNL_CARGO_PROFILE}")
endif()

set(DNNL_CARGO_LIBRARY "${_dnnl_target_dir}/${_dnnl_profile_dir}/libdnnl.so")
set(DNNL_BUILD_LIBDIR "${CMAKE_BINARY_DIR}/lib")
set(DNNL_ZE_DRIVER "${_dnnl_target_dir}/${_dnnl_profile_dir}/libze_ocl_driver.so")

# The library's build output also goes by its SONAME: the C programs record
# libdnnl.so.3 (NEEDED) and find it through their RUNPATH, build/lib. The links are
# made once here; they dangle until the first build.
file(MAKE_DIRECTORY "${DNNL_BUILD_LIBDIR}")
file(CREATE_LINK "${DNNL_CARGO_LIBRARY}" "${DNNL_BUILD_LIBDIR}/libdnnl.so.3" SYMBOLIC)
file(CREATE_LINK "libdnnl.so.3" "${DNNL_BUILD_LIBDIR}/libdnnl.so" SYMBOLIC)

add_custom_target(dnnl_cargo ALL
  COMMAND "${CARGO_EXECUTABLE}" build --lib -p dnnl -p ze-ocl-driver ${_dnnl_profile_args}
          ${DNNL_CARGO_FLAGS} --manifest-path "${_dnnl_manifest}"
  BYPRODUCTS "${DNNL_CARGO_LIBRARY}" "${DNNL_BUILD_LIBDIR}/libdnnl.so.3" "${DNNL_ZE_DRIVER}"
  WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}"
  COMMENT "cargo build ${_dnnl_profile_args} (libdnnl.so, libze_ocl_driver.so)"
  USES_TERMINAL
  VERBATIM)

add_library(dnnl SHARED IMPORTED GLOBAL)
set_target_properties(dnnl PROPERTIES
  IMPORTED_LOCATION "${DNNL_BUILD_LIBDIR}/libdnnl.so.3"
  IMPORTED_SONAME "libdnnl.so.3"
  INTERFACE_INCLUDE_DIRECTORIES "${CMAKE_SOURCE_DIR}/include")
# Followed transitively: everything that links `dnnl` builds after cargo ran.
add_dependencies(dnnl dnnl_cargo)
