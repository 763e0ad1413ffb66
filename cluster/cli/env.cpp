#include "cli/env.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cli/args.hpp"
#include "superstep/actors/fault_point.hpp"
#include "superstep/core/error.hpp"
#include "superstep/storage/version_delta_check.hpp"

namespace superstep::cli {

namespace {

// The variable `name`; empty when unset.
std::string_view variable(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string_view(v) : std::string_view();
}

}  // namespace

int arm_fault_point_from_env() {
  try {
    actors::arm_fault_point(variable("SUPERSTEP_FAULT"));
    return 0;
  } catch (const error& e) {
    const std::string line = std::string("SUPERSTEP_FAULT: ") + e.what() + "\n";
    std::fputs(line.c_str(), stderr);
    return exit_usage;
  }
}

void check_version_deltas_from_env() {
  storage::check_version_deltas_if(variable("SUPERSTEP_CHECK_VERSION_DELTAS"));
}

key_source environment_keys() {
  return [](const std::string& name) -> std::optional<std::string> {
    const std::string_view v = variable(name.c_str());
    if (v.empty()) return std::nullopt;
    return std::string(v);
  };
}

std::shared_ptr<const storage::serializer> serializer_from_env(
    std::shared_ptr<const storage::serializer> inner) {
  return storage::serializer_with_key(std::move(inner), variable("SUPERSTEP_AES_KEY"),
                                      "SUPERSTEP_AES_KEY");
}

}  // namespace superstep::cli
