// LangGraph's NamedBarrierValueAfterFinish: a named barrier that opens only at finish().
#include "superstep/channels/named_barrier_value_after_finish.hpp"

#include "barrier_support.hpp"
#include "channel_errors.hpp"

namespace superstep::channels {

named_barrier_value_after_finish::named_barrier_value_after_finish(std::string key,
                                                                   std::vector<std::string> names)
    : channel(std::move(key)), names_(names.begin(), names.end()) {}

std::unique_ptr<channel> named_barrier_value_after_finish::from_checkpoint(
    const std::optional<value>& checkpoint) const {
  auto restored = std::make_unique<named_barrier_value_after_finish>(*this);
  restored->seen_.clear();
  restored->finished_ = false;
  if (!checkpoint) return restored;
  const value& saved = *checkpoint;
  if (!saved.is_list() || saved.as_list().size() != 2 || !saved.as_list()[1].is_bool())
    detail::throw_bad_checkpoint(key(), type_name(), "a list [names, finished]", saved);
  restored->seen_ = detail::restore_names(key(), type_name(), names_, saved.as_list()[0]);
  restored->finished_ = saved.as_list()[1].as_bool();
  return restored;
}

std::unique_ptr<channel> named_barrier_value_after_finish::copy() const {
  return std::make_unique<named_barrier_value_after_finish>(*this);
}

bool named_barrier_value_after_finish::update(std::span<const value> writes) {
  return detail::record_names(key(), names_, seen_, writes);
}

value named_barrier_value_after_finish::get() const {
  if (!is_available()) detail::throw_empty(key());
  return value();
}

std::optional<value> named_barrier_value_after_finish::checkpoint() const {
  if (seen_.empty() && !finished_) return std::nullopt;
  return value::array({detail::names_list(seen_), finished_});
}

bool named_barrier_value_after_finish::consume() {
  if (!is_available()) return false;
  seen_.clear();
  finished_ = false;
  return true;
}

bool named_barrier_value_after_finish::finish() {
  if (finished_ || !complete()) return false;
  finished_ = true;
  return true;
}

}  // namespace superstep::channels
