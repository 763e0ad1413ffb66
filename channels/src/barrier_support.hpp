// The bookkeeping both named barrier channels share. Private to the channels library.
#pragma once

#include <set>
#include <span>
#include <string>
#include <string_view>

#include "superstep/core/value.hpp"

namespace superstep::channels::detail {

/// Adds the written names to `seen`; returns whether it grew. Every write must be a string
/// in `names`, else throws error(invalid_update) naming the key and the write, with `seen`
/// left unchanged.
bool record_names(const std::string& key, const std::set<std::string>& names,
                  std::set<std::string>& seen, std::span<const value> writes);

/// A set of names as a sorted list of strings.
value names_list(const std::set<std::string>& names);

/// The inverse of `names_list`, for checkpoints. Throws error(invalid_argument) naming the
/// key when `saved` is not a list of strings from `names`.
std::set<std::string> restore_names(const std::string& key, std::string_view channel_type,
                                    const std::set<std::string>& names, const value& saved);

}  // namespace superstep::channels::detail
