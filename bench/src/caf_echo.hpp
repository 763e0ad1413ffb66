#pragma once

// The reference rows' actor: answers every int with the same int. Include only from the
// reference's CAF translation units (caf_reference.cpp, caf_remote.cpp).

#include <caf/all.hpp>

namespace superstep::bench {

using echo_actor = caf::typed_actor<caf::replies_to<int>::with<int>>;

// Class-based: a function-based actor spawned without arguments trips a benign UBSan report
// inside CAF 0.17.
class echo_impl : public echo_actor::base {
 public:
  explicit echo_impl(caf::actor_config& cfg) : echo_actor::base(cfg) {}

  echo_actor::behavior_type make_behavior() override {
    return {[](int x) { return x; }};
  }
};

}  // namespace superstep::bench
