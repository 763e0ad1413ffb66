// A node library that registers a router under the std library's names, which a program
// loading it refuses (cli_authoring_test): a head trusts "std." routers to be no user code.
#include "superstep/cluster/plugin.hpp"

SUPERSTEP_PLUGIN(registry) {
  registry.add_router("std.everyone", [](const superstep::value&) -> superstep::router_function {
    return [](const superstep::value&, superstep::node_context&) -> superstep::value {
      return superstep::value("__end__");
    };
  });
}
