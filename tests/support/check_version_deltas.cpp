// Linked into every test program (tests/CMakeLists.txt, conformance/CMakeLists.txt): CTest
// sets SUPERSTEP_CHECK_VERSION_DELTAS=1 for every suite, and since no library reads the
// environment, the test program turns the savers' check on from it here, before any test
// runs: each checkpoint a saver stores as a delta has its version maps read back, so that a
// change the run loop forgot to report fails the test that made it. The child `superstep`
// processes of the cluster and CLI suites inherit the variable; the program's main turns the
// check on from it the same way (cluster/cli/env.cpp).
#undef BOOST_TEST_MODULE  // the suite's own file makes the module
#include <boost/test/unit_test.hpp>
#include <cstdlib>

#include "superstep/storage/version_delta_check.hpp"

namespace {

struct version_delta_check {
  version_delta_check() {
    const char* v = std::getenv("SUPERSTEP_CHECK_VERSION_DELTAS");
    superstep::storage::check_version_deltas_if(v ? v : "");
  }
};

}  // namespace

BOOST_TEST_GLOBAL_FIXTURE(version_delta_check);
