# The package: libsuperstep.so (every library of the project in one shared object), the static
# archives, public headers, the `superstep` program, the CMake package (superstep::superstep and
# one target per part), superstep.pc, a man page, and the Debian package CPack makes of them.

get_property(_superstep_parts GLOBAL PROPERTY SUPERSTEP_LIBRARIES)

# libsuperstep.so: the object files of the static libraries (built position-independent),
# linked with what they link outside the project.
add_library(superstep_shared SHARED ${PROJECT_SOURCE_DIR}/cmake/shared_library.cpp)
add_library(superstep::superstep ALIAS superstep_shared)
foreach(_part ${_superstep_parts})
  target_sources(superstep_shared PRIVATE $<TARGET_OBJECTS:${_part}>)
  get_target_property(_deps ${_part} LINK_LIBRARIES)
  foreach(_dep ${_deps})
    if(NOT _dep MATCHES "^superstep")
      target_link_libraries(superstep_shared PRIVATE ${_dep})
    endif()
  endforeach()
endforeach()
target_link_libraries(superstep_shared PUBLIC Threads::Threads)
target_link_options(superstep_shared PRIVATE -Wl,--no-undefined)
foreach(_part ${_superstep_parts})
  target_include_directories(superstep_shared PUBLIC
    $<BUILD_INTERFACE:$<TARGET_PROPERTY:${_part},INTERFACE_INCLUDE_DIRECTORIES>>)
endforeach()
target_include_directories(superstep_shared PUBLIC
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(superstep_shared PUBLIC cxx_std_20)
set_target_properties(superstep_shared PROPERTIES
  OUTPUT_NAME superstep EXPORT_NAME superstep
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
superstep_warnings(superstep_shared)

# superstep_add_plugin(NAME SOURCES...): a node library (a MODULE the `superstep` program
# loads with --plugin). It is compiled against superstep's headers and links nothing of
# superstep: its superstep symbols resolve in the program that loads it. Also installed, for
# projects that find_package(superstep).
include(${PROJECT_SOURCE_DIR}/cmake/superstepPlugin.cmake)
add_library(superstep_headers INTERFACE)
add_library(superstep::headers ALIAS superstep_headers)
foreach(_part ${_superstep_parts})
  target_include_directories(superstep_headers INTERFACE
    $<BUILD_INTERFACE:$<TARGET_PROPERTY:${_part},INTERFACE_INCLUDE_DIRECTORIES>>)
endforeach()
target_include_directories(superstep_headers INTERFACE
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(superstep_headers INTERFACE cxx_std_20)
set_target_properties(superstep_headers PROPERTIES EXPORT_NAME headers)

# The man page: the program's --help, as troff.
set(_superstep_man ${CMAKE_BINARY_DIR}/man/superstep.1)
add_custom_command(OUTPUT ${_superstep_man}
  COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:superstep> -DOUT=${_superstep_man}
          -DVERSION=${PROJECT_VERSION} -P ${PROJECT_SOURCE_DIR}/cmake/man_page.cmake
  DEPENDS superstep ${PROJECT_SOURCE_DIR}/cmake/man_page.cmake
  COMMENT "Writing the superstep(1) man page from --help")
add_custom_target(superstep_man ALL DEPENDS ${_superstep_man})

if(NOT SUPERSTEP_INSTALL)
  return()
endif()

include(CMakePackageConfigHelpers)
set(_superstep_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/superstep)
install(TARGETS superstep_shared superstep_headers EXPORT superstepTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
                NAMELINK_COMPONENT dev
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(TARGETS superstep RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(EXPORT superstepTargets NAMESPACE superstep:: DESTINATION ${_superstep_cmake_dir}
        COMPONENT dev)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/superstepConfig.cmake.in
  ${CMAKE_BINARY_DIR}/superstepConfig.cmake INSTALL_DESTINATION ${_superstep_cmake_dir})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/superstepConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/superstepConfig.cmake
              ${CMAKE_BINARY_DIR}/superstepConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/FindCAF.cmake
              ${PROJECT_SOURCE_DIR}/cmake/superstepPlugin.cmake
        DESTINATION ${_superstep_cmake_dir} COMPONENT dev)
configure_file(${PROJECT_SOURCE_DIR}/cmake/superstep.pc.in ${CMAKE_BINARY_DIR}/superstep.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/superstep.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)
install(FILES ${_superstep_man} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT runtime)

# The Debian package: `make package` (cpack -G DEB in the build folder, after the build).
# CPack installs what is built without building everything first (tests, benchmarks).
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME superstep)
set(CPACK_PACKAGE_VENDOR "superstep")
set(CPACK_PACKAGE_CONTACT "superstep maintainers <superstep@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "C++ runtime for LangGraph-style stateful graphs, in one process or on a cluster")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The program's log links spdlog and fmt as shared libraries: dpkg-shlibdeps (SHLIBDEPS above)
# adds their runtime packages (libspdlog1.10-fmt9, libfmt9; tests/package checks it). CLI11
# is header-only and compiled in. Neither is in a public header, so the CMake package needs
# none of their development packages.
# The CMake package's static targets and headers need the development packages of what
# superstep links.
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libcaf-dev, libcapnp-dev, capnproto, librocksdb-dev, libssl-dev, libcurl4-openssl-dev, libhiredis-dev, libmimalloc-dev")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
include(CPack)
