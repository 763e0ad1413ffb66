#pragma once

// Internal: argument checks and the metadata filter every saver shares.

#include <string>

#include "superstep/checkpoint/checkpoint.hpp"

namespace superstep::storage {

/// Throws `superstep::error` (invalid_argument) "<saver>::<what> needs a non-empty thread_id".
void require_thread(const std::string& thread_id, const char* saver, const char* what);
/// Throws `superstep::error` (invalid_argument) "<saver>::<what> needs a non-empty checkpoint_id".
void require_checkpoint_id(const std::string& id, const char* saver, const char* what);
/// Whether `metadata` has every key of `filter` with an equal value (LangGraph's list filter).
bool metadata_matches(const object& filter, const checkpoint_metadata& metadata);

}  // namespace superstep::storage
