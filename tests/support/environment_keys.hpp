#pragma once

// The environment as a key source, for tests of what reads keys by name: the libraries read
// no environment variable, so a test that keeps its keys in variables passes this, as the
// `superstep` program passes its own (cluster/cli/env.cpp).

#include <cstdlib>
#include <optional>
#include <string>

#include "superstep/core/key_source.hpp"

namespace superstep::test {

inline key_source environment_keys() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (!v || !*v) return std::nullopt;
    return std::string(v);
  };
}

}  // namespace superstep::test
