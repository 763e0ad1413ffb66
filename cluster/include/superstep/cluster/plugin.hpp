#pragma once

// Writing a node library: a shared object that a worker (or `superstep run`) loads with
// --plugin LIB.so. It defines one C entry point, through SUPERSTEP_PLUGIN, that fills the
// registry it is given with node functions, routers, reducers and embedders (for the store's
// semantic search: `superstep store|run|head --plugin LIB.so --embedder NAME`) and tools
// (for `llm.chat` and `tools.run` nodes: `registry.add_tool(superstep::agents::tool{...})`,
// see superstep/agents/tool.hpp):
//
//   #include "superstep/cluster/plugin.hpp"
//   SUPERSTEP_PLUGIN(registry) {
//     registry.add_node("text.upper", [](const superstep::value& params) { ... });
//     registry.add_embedder("text.letters", [](const superstep::value& params) { ... });
//   }
//
// The library is built against the same superstep headers as the program that loads it and
// links nothing of superstep: its symbols resolve to the program's. examples/plugin shows one.

#include <cstddef>
#include <cstring>
#include <exception>

#include "superstep/cluster/function_registry.hpp"
#include "superstep/core/error.hpp"

/// Bumped whenever the registry or the types it carries change incompatibly.
#define SUPERSTEP_PLUGIN_ABI 2

/// The entry point's name, as the loader looks it up.
#define SUPERSTEP_PLUGIN_ENTRY "superstep_plugin_register"

/// Defines the entry point; the block that follows fills `registry_name`. Returns 0 when
/// filled, 1 on an ABI mismatch, 2 when filling threw (its message in `message`).
#define SUPERSTEP_PLUGIN(registry_name)                                                        \
  static void superstep_plugin_fill(::superstep::cluster::function_registry& registry_name);   \
  extern "C" __attribute__((visibility("default"))) int superstep_plugin_register(             \
      ::superstep::cluster::function_registry* registry, unsigned abi, char* message,          \
      std::size_t size) {                                                                      \
    if (abi != SUPERSTEP_PLUGIN_ABI) return 1;                                                 \
    try {                                                                                      \
      superstep_plugin_fill(*registry);                                                        \
    } catch (const std::exception& e) {                                                        \
      if (size) {                                                                              \
        std::strncpy(message, e.what(), size - 1);                                             \
        message[size - 1] = 0;                                                                 \
      }                                                                                        \
      return 2;                                                                                \
    } catch (...) {                                                                            \
      if (size) {                                                                              \
        std::strncpy(message, "it threw an exception that is not a std::exception", size - 1); \
        message[size - 1] = 0;                                                                 \
      }                                                                                        \
      return 2;                                                                                \
    }                                                                                          \
    return 0;                                                                                  \
  }                                                                                            \
  static void superstep_plugin_fill(::superstep::cluster::function_registry& registry_name)

namespace superstep::cluster {

/// Loads the node library `path` and lets it fill `registry`. Throws
/// error(invalid_argument) naming the file when it cannot be loaded (missing, not a shared
/// object, an undefined symbol), has no entry point, was built for another ABI, or its
/// registrations fail (e.g. a name already registered by another library). A library stays
/// loaded for the life of the process.
void load_plugin(const std::string& path, function_registry& registry);

}  // namespace superstep::cluster
