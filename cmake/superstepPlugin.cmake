# superstep_add_plugin(NAME SOURCES...): builds lib<NAME>.so, a node library the `superstep`
# program loads with --plugin. It is compiled against superstep's headers only and links
# nothing of superstep: its superstep symbols resolve in the program that loads it, so the
# plugin and the program share one copy of the runtime.
function(superstep_add_plugin name)
  if(NOT ARGN)
    message(FATAL_ERROR "superstep_add_plugin(${name}): no sources")
  endif()
  add_library(${name} MODULE ${ARGN})
  target_link_libraries(${name} PRIVATE superstep::headers)
  set_target_properties(${name} PROPERTIES PREFIX "lib" CXX_VISIBILITY_PRESET default)
endfunction()
