// LangGraph's LastValueAfterFinish: a last value that only becomes readable at finish().
#include "superstep/channels/last_value_after_finish.hpp"

#include "channel_errors.hpp"

namespace superstep::channels {

last_value_after_finish::last_value_after_finish(std::string key) : channel(std::move(key)) {}

std::unique_ptr<channel> last_value_after_finish::from_checkpoint(
    const std::optional<value>& checkpoint) const {
  auto restored = std::make_unique<last_value_after_finish>(key());
  if (!checkpoint) return restored;
  const value& saved = *checkpoint;
  if (saved.is_list() && saved.as_list().size() == 2 && saved.as_list()[1].is_bool()) {
    restored->value_ = saved.as_list()[0];
    restored->finished_ = saved.as_list()[1].as_bool();
  } else {
    restored->value_ = saved;
    restored->finished_ = true;
  }
  return restored;
}

std::unique_ptr<channel> last_value_after_finish::copy() const {
  return std::make_unique<last_value_after_finish>(*this);
}

bool last_value_after_finish::update(std::span<const value> writes) {
  if (writes.empty()) return false;
  value_ = writes.back();
  finished_ = false;
  return true;
}

value last_value_after_finish::get() const {
  if (!is_available()) detail::throw_empty(key());
  return *value_;
}

std::optional<value> last_value_after_finish::checkpoint() const {
  if (!value_) return std::nullopt;
  return value::array({*value_, finished_});
}

bool last_value_after_finish::consume() {
  if (!finished_) return false;
  value_.reset();
  finished_ = false;
  return true;
}

bool last_value_after_finish::finish() {
  if (finished_ || !value_) return false;
  finished_ = true;
  return true;
}

}  // namespace superstep::channels
