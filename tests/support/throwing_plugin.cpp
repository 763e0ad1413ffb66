// Node libraries that throw what is not a std::exception: from a node factory (the worker
// that loads a spec naming it reports the error and goes on serving), or while registering
// (the program that loads it says so and exits); and a node that crashes its worker
// (cluster_test).
#include <csignal>

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
  // A node that kills the process running it, as a segfaulting one does.
  registry.add_node("bad.crash", [](const superstep::value&) -> superstep::node_function {
    return [](const superstep::value&, superstep::node_context&) -> superstep::value {
      ::raise(SIGSEGV);
      return superstep::value();
    };
  });
}
#endif
