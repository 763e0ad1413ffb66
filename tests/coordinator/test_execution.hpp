#pragma once

// Graph suites run once per execution mode: CTest passes `-- --execution=threads` to the
// second run (see tests/CMakeLists.txt).

#include <boost/test/unit_test.hpp>
#include <string>

#include "superstep/graph/state_graph.hpp"

namespace superstep::test {

inline execution execution_under_test() {
  const auto& suite = boost::unit_test::framework::master_test_suite();
  for (int i = 1; i < suite.argc; ++i)
    if (std::string(suite.argv[i]) == "--execution=threads") return execution::threads;
  return execution::actors;
}

/// Compile options for the execution mode under test.
inline compile_options opts() {
  compile_options o;
  o.mode = execution_under_test();
  return o;
}

}  // namespace superstep::test
