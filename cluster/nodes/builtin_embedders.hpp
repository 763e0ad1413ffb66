#pragma once

// The embedders every function_registry knows: "hashing" and "openai".

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "superstep/cluster/function_registry.hpp"

namespace superstep::cluster {

/// A built-in embedder's factory: its params, and where the keys they name are found.
using builtin_embedder_factory =
    std::function<storage::embed_fn(const value& params, const key_source& keys)>;

/// The built-in embedder `name`, or nullptr.
const builtin_embedder_factory* builtin_embedder(std::string_view name) noexcept;

/// The names of the built-in embedders, sorted.
std::vector<std::string> builtin_embedder_names();

}  // namespace superstep::cluster
