#pragma once

// The CAF side of `runtime`. Include only from actor translation units.

#include <caf/all.hpp>

#include "superstep/actors/runtime.hpp"

namespace superstep::actors {

struct runtime::impl {
  impl(unsigned threads, const runtime_options& options);
  caf::actor_system_config cfg;
  caf::actor_system system;
  unsigned threads;
};

}  // namespace superstep::actors
