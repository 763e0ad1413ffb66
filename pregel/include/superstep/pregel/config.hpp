#pragma once

#include <cstdint>

#include "superstep/core/value.hpp"

namespace superstep {

/// The recursion limit of a run whose config sets none (LangGraph's `DEFAULT_RECURSION_LIMIT`
/// before it was raised: 25).
inline constexpr std::int64_t default_recursion_limit = 25;

/// Merges two run configs as LangGraph's `merge_configs` does: the keys of `base`, then those
/// of `override` whose value is truthy (null, false, 0, "", [] and {} are skipped), where
/// "configurable" and "metadata" merge key by key (`override`'s winning; a "lc_versions"
/// object in metadata merges one level deeper), "tags" lists are concatenated (base's first,
/// no deduplication), "recursion_limit" is taken only when it is not
/// `default_recursion_limit`, and any other key is replaced. The result always has a
/// "configurable" object. Null configs count as empty. Throws `superstep::error`
/// (invalid_argument) when either is neither null nor an object, or when "configurable",
/// "metadata" or "tags" have the wrong kind (an object, an object, a list), naming it.
value merge_configs(const value& base, const value& override);

}  // namespace superstep
