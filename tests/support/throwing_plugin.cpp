// Node libraries that throw what is not a std::exception: from a node factory (the worker
// that loads a spec naming it reports the error and goes on serving), or while registering
// (the program that loads it says so and exits, cluster_test).
#include "superstep/cluster/plugin.hpp"

#ifdef SUPERSTEP_THROW_WHILE_REGISTERING
SUPERSTEP_PLUGIN(registry) {
  static_cast<void>(registry);
  throw 42;  // NOLINT(hicpp-exception-baseclass): what the test is about
}
#else
SUPERSTEP_PLUGIN(registry) {
  registry.add_node("bad.factory", [](const superstep::value&) -> superstep::node_function {
    throw 42;  // NOLINT(hicpp-exception-baseclass): what the test is about
  });
}
#endif
