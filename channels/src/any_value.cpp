// LangGraph's AnyValue: last write wins, and a step without writes clears it.
#include "superstep/channels/any_value.hpp"

#include "channel_errors.hpp"

namespace superstep::channels {

any_value::any_value(std::string key) : channel(std::move(key)) {}

std::unique_ptr<channel> any_value::from_checkpoint(const std::optional<value>& checkpoint) const {
  auto restored = std::make_unique<any_value>(key());
  restored->value_ = checkpoint;
  return restored;
}

std::unique_ptr<channel> any_value::copy() const { return std::make_unique<any_value>(*this); }

bool any_value::update(std::span<const value> writes) {
  if (writes.empty()) {
    bool had_value = value_.has_value();
    value_.reset();
    return had_value;
  }
  value_ = writes.back();
  return true;
}

value any_value::get() const {
  if (!value_) detail::throw_empty(key());
  return *value_;
}

}  // namespace superstep::channels
