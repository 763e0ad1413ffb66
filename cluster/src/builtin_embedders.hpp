#pragma once

// The embedders every function_registry knows: "hashing" and "openai".

#include <string>
#include <string_view>
#include <vector>

#include "superstep/cluster/function_registry.hpp"

namespace superstep::cluster {

/// The built-in embedder `name`, or nullptr.
const embedder_factory* builtin_embedder(std::string_view name) noexcept;

/// The names of the built-in embedders, sorted.
std::vector<std::string> builtin_embedder_names();

}  // namespace superstep::cluster
