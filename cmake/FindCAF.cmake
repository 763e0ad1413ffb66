# Finds CAF 0.17 (Debian's libcaf-dev ships no CMake config) and defines CAF::core, CAF::io.
find_path(CAF_INCLUDE_DIR caf/all.hpp)
find_library(CAF_CORE_LIBRARY NAMES caf_core)
find_library(CAF_IO_LIBRARY NAMES caf_io)
find_library(CAF_OPENSSL_LIBRARY NAMES caf_openssl)
if(CAF_INCLUDE_DIR AND EXISTS "${CAF_INCLUDE_DIR}/caf/config.hpp")
  file(STRINGS "${CAF_INCLUDE_DIR}/caf/config.hpp" _caf_ver REGEX "#define CAF_VERSION [0-9]+")
  string(REGEX REPLACE ".*CAF_VERSION ([0-9]+).*" "\\1" _caf_num "${_caf_ver}")
  if(_caf_num)
    math(EXPR _maj "${_caf_num} / 10000")
    math(EXPR _min "(${_caf_num} / 100) % 100")
    math(EXPR _pat "${_caf_num} % 100")
    set(CAF_VERSION "${_maj}.${_min}.${_pat}")
  endif()
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CAF REQUIRED_VARS CAF_INCLUDE_DIR CAF_CORE_LIBRARY CAF_IO_LIBRARY
                                  VERSION_VAR CAF_VERSION)
if(CAF_FOUND AND NOT TARGET CAF::core)
  add_library(CAF::core SHARED IMPORTED)
  set_target_properties(CAF::core PROPERTIES IMPORTED_LOCATION "${CAF_CORE_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${CAF_INCLUDE_DIR}"
                        INTERFACE_LINK_LIBRARIES Threads::Threads)
  add_library(CAF::io SHARED IMPORTED)
  set_target_properties(CAF::io PROPERTIES IMPORTED_LOCATION "${CAF_IO_LIBRARY}"
                        INTERFACE_LINK_LIBRARIES CAF::core)
  if(CAF_OPENSSL_LIBRARY)
    # TLS for the middleman (libcaf-openssl0.17, with libcaf-dev).
    add_library(CAF::openssl SHARED IMPORTED)
    set_target_properties(CAF::openssl PROPERTIES IMPORTED_LOCATION "${CAF_OPENSSL_LIBRARY}"
                          INTERFACE_LINK_LIBRARIES CAF::io)
  endif()
endif()
