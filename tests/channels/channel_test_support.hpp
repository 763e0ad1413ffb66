// Helpers for the channel and reducer test suites.
#pragma once

#include <boost/test/unit_test.hpp>
#include <initializer_list>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "superstep/channels/channel.hpp"
#include "superstep/core/error.hpp"
#include "superstep/core/value.hpp"

namespace superstep::channels::test {

/// Applies one step's writes to `ch`.
inline bool step(channel& ch, std::initializer_list<value> writes) {
  std::vector<value> w(writes);
  return ch.update(w);
}

/// Checks that `f` throws superstep::error with `code` and a message containing every one of
/// `fragments`.
template <class F>
void check_error(F&& f, error_code code, std::initializer_list<std::string_view> fragments) {
  try {
    f();
  } catch (const error& e) {
    BOOST_TEST(code_name(e.code()) == code_name(code));
    std::string message = e.what();
    for (std::string_view fragment : fragments)
      BOOST_TEST(message.find(fragment) != std::string::npos,
                 "message \"" << message << "\" lacks \"" << fragment << "\"");
    return;
  }
  BOOST_ERROR("expected a superstep::error with code " << code_name(code));
}

}  // namespace superstep::channels::test
