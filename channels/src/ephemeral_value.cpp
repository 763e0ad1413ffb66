// LangGraph's EphemeralValue: visible for exactly one step after it was written.
#include "superstep/channels/ephemeral_value.hpp"

#include "channel_errors.hpp"

namespace superstep::channels {

ephemeral_value::ephemeral_value(std::string key, bool guard)
    : channel(std::move(key)), guard_(guard) {}

std::unique_ptr<channel> ephemeral_value::from_checkpoint(
    const std::optional<value>& checkpoint) const {
  auto restored = std::make_unique<ephemeral_value>(key(), guard_);
  restored->value_ = checkpoint;
  return restored;
}

std::unique_ptr<channel> ephemeral_value::copy() const {
  return std::make_unique<ephemeral_value>(*this);
}

bool ephemeral_value::update(std::span<const value> writes) {
  if (writes.empty()) {
    bool had_value = value_.has_value();
    value_.reset();
    return had_value;
  }
  if (guard_ && writes.size() > 1)
    detail::throw_invalid_update(key(),
                                 "ephemeral_value(guard=true) can receive only one value per "
                                 "step. Use guard=false to keep any one of several values.");
  value_ = writes.back();
  return true;
}

value ephemeral_value::get() const {
  if (!value_) detail::throw_empty(key());
  return *value_;
}

}  // namespace superstep::channels
