#pragma once

#include <boost/test/unit_test.hpp>
#include <string>

#include "superstep/core/error.hpp"

namespace superstep::test {

/// Expects `f` to throw a superstep::error with `code` whose message contains `part`.
template <class F>
void expect_error(F&& f, error_code code, const std::string& part) {
  try {
    f();
    BOOST_FAIL("no error; expected one containing: " << part);
  } catch (const superstep::error& e) {
    BOOST_TEST((e.code() == code), "code " << code_name(e.code()) << ": " << e.what());
    BOOST_TEST(std::string(e.what()).find(part) != std::string::npos, e.what());
  }
}

}  // namespace superstep::test
