// LangGraph's DeltaChannel: a reducer channel checkpointed as its writes, with snapshots.
#include "superstep/channels/delta_channel.hpp"

#include "channel_errors.hpp"
#include "superstep/core/error.hpp"

namespace superstep::channels {

namespace {

constexpr std::string_view snapshot_key = "__delta_snapshot__";

}  // namespace

value delta_snapshot(value v) { return value(object{{std::string(snapshot_key), std::move(v)}}); }

const value* as_delta_snapshot(const value& stored) noexcept {
  if (!stored.is_object() || stored.as_object().size() != 1) return nullptr;
  return stored.as_object().find(snapshot_key);
}

delta_channel::delta_channel(std::string key, reducer op, value empty,
                             std::int64_t snapshot_frequency)
    : channel(std::move(key)),
      reducer_(std::move(op)),
      empty_(std::move(empty)),
      snapshot_frequency_(snapshot_frequency),
      value_(empty_) {
  if (!reducer_.binary && !reducer_.fold)
    throw error(error_code::invalid_argument,
                "At key '" + this->key() + "': reducer '" + reducer_.name + "' has no function");
  if (snapshot_frequency_ <= 0)
    throw error(error_code::invalid_argument,
                "At key '" + this->key() +
                    "': snapshot_frequency must be a positive integer, got " +
                    std::to_string(snapshot_frequency_));
}

std::unique_ptr<channel> delta_channel::from_checkpoint(
    const std::optional<value>& checkpoint) const {
  auto restored = std::make_unique<delta_channel>(*this);
  restored->reseed(checkpoint);
  return restored;
}

void delta_channel::reseed(const std::optional<value>& checkpoint) {
  overwritten_ = false;
  if (!checkpoint)
    value_ = empty_;
  else if (const value* snapshot = as_delta_snapshot(*checkpoint))
    value_ = *snapshot;
  else
    value_ = *checkpoint;
}

std::unique_ptr<channel> delta_channel::copy() const {
  return std::make_unique<delta_channel>(*this);
}

value delta_channel::fold(const value& base, std::span<const value> writes) const {
  try {
    return reducer_.apply(base, writes);
  } catch (const error& e) {
    throw error(e.code(), "At key '" + key() + "': " + e.what());
  }
}

bool delta_channel::update(std::span<const value> writes) {
  if (writes.empty()) return false;
  const value* replacement = detail::single_overwrite(key(), writes);
  if (replacement) {
    // As LangGraph: Overwrite(None) resets to the empty value.
    value_ = replacement->is_null() ? empty_ : *replacement;
    overwritten_ = true;
    return true;
  }
  value_ = fold(value_, writes);
  return true;
}

void delta_channel::replay(std::span<const value> writes) {
  if (writes.empty()) return;
  value base = value_;
  std::size_t start = 0;
  for (std::size_t i = 0; i < writes.size(); ++i)
    if (const value* carried = as_overwrite(writes[i])) {
      base = carried->is_null() ? empty_ : *carried;
      start = i + 1;
    }
  value_ = start < writes.size() ? fold(base, writes.subspan(start)) : std::move(base);
}

}  // namespace superstep::channels
