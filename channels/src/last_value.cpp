// LangGraph's LastValue: one write per step, kept until the next write.
#include "superstep/channels/last_value.hpp"

#include "channel_errors.hpp"

namespace superstep::channels {

last_value::last_value(std::string key) : channel(std::move(key)) {}

std::unique_ptr<channel> last_value::from_checkpoint(const std::optional<value>& checkpoint) const {
  auto restored = std::make_unique<last_value>(key());
  restored->value_ = checkpoint;
  return restored;
}

std::unique_ptr<channel> last_value::copy() const { return std::make_unique<last_value>(*this); }

bool last_value::update(std::span<const value> writes) {
  if (writes.empty()) return false;
  if (writes.size() > 1)
    detail::throw_invalid_update(key(),
                                 "Can receive only one value per step. Use an Annotated key to "
                                 "handle multiple values.");
  value_ = writes.back();
  return true;
}

value last_value::get() const {
  if (!value_) detail::throw_empty(key());
  return *value_;
}

}  // namespace superstep::channels
