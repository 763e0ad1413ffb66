#include "saver_checks.hpp"

#include "superstep/core/error.hpp"

namespace superstep::storage {

void require_thread(const std::string& thread_id, const char* saver, const char* what) {
  if (thread_id.empty())
    throw error(error_code::invalid_argument,
                std::string(saver) + "::" + what + " needs a non-empty thread_id");
}

void require_checkpoint_id(const std::string& id, const char* saver, const char* what) {
  if (id.empty())
    throw error(error_code::invalid_argument,
                std::string(saver) + "::" + what + " needs a non-empty checkpoint_id");
}

bool metadata_matches(const object& filter, const checkpoint_metadata& metadata) {
  if (filter.empty()) return true;
  const value meta = metadata_to_value(metadata);
  for (const auto& [key, expected] : filter)
    if (meta.get(key) != expected) return false;
  return true;
}

}  // namespace superstep::storage
