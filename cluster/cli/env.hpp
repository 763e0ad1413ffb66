#pragma once

// The one place the `superstep` program reads its environment. The libraries read none: what
// they would have taken from it (API keys, the AES key of stored records, the savers' check of
// version deltas, a failure test's fault point) they take from the program, which reads the
// variables here and passes them on.

#include <memory>

#include "superstep/core/key_source.hpp"
#include "superstep/storage/serializer.hpp"

namespace superstep::cli {

/// Arms the fault point SUPERSTEP_FAULT names (actors::arm_fault_point; failure tests set it
/// for the processes they kill). Returns 0, or, for a malformed value or one given to a build
/// without fault points, exit_usage after a line "SUPERSTEP_FAULT: ..." on stderr. Call first
/// in main, before any thread starts.
[[nodiscard]] int arm_fault_point_from_env();

/// Turns the savers' check of version deltas on (storage::check_version_deltas) when
/// SUPERSTEP_CHECK_VERSION_DELTAS is set, not empty and not "0" (the test suites set it).
void check_version_deltas_from_env();

/// The environment as a key source: the variable `name`, or nullopt when it is unset or empty.
/// The registry's models and embedders find their keys (SUPERSTEP_MODEL_KEY, OPENAI_API_KEY,
/// SUPERSTEP_EMBEDDINGS_KEY, a spec's key_env) with it.
key_source environment_keys();

/// `inner` encrypting with the key SUPERSTEP_AES_KEY spells (storage::serializer_with_key), or
/// `inner` when the variable is unset or empty. Throws `superstep::error` (invalid_argument)
/// naming the variable when its value is malformed.
std::shared_ptr<const storage::serializer> serializer_from_env(
    std::shared_ptr<const storage::serializer> inner);

}  // namespace superstep::cli
