// LangGraph's UntrackedValue: a last-value channel that is never persisted.
#include "superstep/channels/untracked_value.hpp"

#include "channel_errors.hpp"

namespace superstep::channels {

untracked_value::untracked_value(std::string key, bool guard)
    : channel(std::move(key)), guard_(guard) {}

std::unique_ptr<channel> untracked_value::from_checkpoint(const std::optional<value>&) const {
  return std::make_unique<untracked_value>(key(), guard_);
}

std::unique_ptr<channel> untracked_value::from_transfer(
    const std::optional<value>& transferred) const {
  auto c = std::make_unique<untracked_value>(key(), guard_);
  c->value_ = transferred;
  return c;
}

std::unique_ptr<channel> untracked_value::copy() const {
  return std::make_unique<untracked_value>(*this);
}

bool untracked_value::update(std::span<const value> writes) {
  if (writes.empty()) return false;
  if (guard_ && writes.size() > 1)
    detail::throw_invalid_update(key(),
                                 "untracked_value(guard=true) can receive only one value per "
                                 "step. Use guard=false to keep any one of several values.");
  const value* replacement = as_overwrite(writes.back());
  value_ = replacement ? *replacement : writes.back();
  return true;
}

value untracked_value::get() const {
  if (!value_) detail::throw_empty(key());
  return *value_;
}

}  // namespace superstep::channels
