// LangGraph's BinaryOperatorAggregate: a reducer folds each step's writes into the value.
#include "superstep/channels/binary_operator_aggregate.hpp"

#include "channel_errors.hpp"
#include "superstep/core/error.hpp"

namespace superstep::channels {

binary_operator_aggregate::binary_operator_aggregate(std::string key, reducer op,
                                                     std::optional<value> initial)
    : channel(std::move(key)),
      reducer_(std::move(op)),
      initial_(std::move(initial)),
      value_(initial_) {
  if (!reducer_.binary && !reducer_.fold)
    throw error(error_code::invalid_argument,
                "At key '" + this->key() + "': reducer '" + reducer_.name + "' has no function");
}

std::unique_ptr<channel> binary_operator_aggregate::from_checkpoint(
    const std::optional<value>& checkpoint) const {
  auto restored = std::make_unique<binary_operator_aggregate>(*this);
  restored->value_ = checkpoint ? checkpoint : initial_;
  return restored;
}

std::unique_ptr<channel> binary_operator_aggregate::copy() const {
  return std::make_unique<binary_operator_aggregate>(*this);
}

bool binary_operator_aggregate::update(std::span<const value> writes) {
  if (writes.empty()) return false;

  const value* replacement = detail::single_overwrite(key(), writes);
  if (replacement) {
    value_ = *replacement;
    return true;
  }

  value start = value_ ? *value_ : writes.front();
  std::span<const value> rest = value_ ? writes : writes.subspan(1);
  try {
    value_ = reducer_.apply(start, rest);
  } catch (const error& e) {
    throw error(e.code(), "At key '" + key() + "': " + e.what());
  }
  return true;
}

value binary_operator_aggregate::get() const {
  if (!value_) detail::throw_empty(key());
  return *value_;
}

}  // namespace superstep::channels
