#pragma once

#include <functional>
#include <optional>
#include <string>

namespace superstep {

/// Where a library finds a secret it knows by name (the API key a model's or an embedder's
/// `key_env` names): a function of the caller's, giving the secret or nullopt when it has none
/// by that name. No library reads the environment: a caller whose keys are environment
/// variables passes a source that reads them (the `superstep` program does, for the variables
/// its options and specs name). An empty source knows no key. It may be called from several
/// threads at once.
using key_source = std::function<std::optional<std::string>(const std::string& name)>;

}  // namespace superstep
