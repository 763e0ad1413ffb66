// LangGraph's Topic: a list of the values written, flattened, optionally kept across steps.
#include "superstep/channels/topic.hpp"

#include <utility>

#include "channel_errors.hpp"
#include "superstep/core/error.hpp"

namespace superstep::channels {

topic::topic(std::string key, bool accumulate)
    : channel(std::move(key)), accumulate_(accumulate), values_(list{}) {}

std::unique_ptr<channel> topic::from_checkpoint(const std::optional<value>& checkpoint) const {
  auto restored = std::make_unique<topic>(key(), accumulate_);
  if (checkpoint) {
    if (!checkpoint->is_list())
      detail::throw_bad_checkpoint(key(), type_name(), "a list", *checkpoint);
    restored->values_ = *checkpoint;
  }
  return restored;
}

std::unique_ptr<channel> topic::copy() const { return std::make_unique<topic>(*this); }

bool topic::update(std::span<const value> writes) {
  std::size_t written = 0;
  for (const value& w : writes) written += w.is_list() ? w.as_list().size() : 1;

  const list& current = values_.as_list();
  const bool cleared = !accumulate_ && (released_ || !current.empty());
  released_ = false;
  if (written == 0) {
    if (cleared) values_ = value(list{});
    return cleared;
  }

  list next;
  next.reserve((accumulate_ ? current.size() : 0) + written);
  if (accumulate_) next.insert(next.end(), current.begin(), current.end());
  for (const value& w : writes) {
    if (w.is_list())
      next.insert(next.end(), w.as_list().begin(), w.as_list().end());
    else
      next.push_back(w);
  }
  values_ = value(std::move(next));
  return true;
}

namespace {

[[noreturn]] void throw_released(const std::string& key) {
  throw error(error_code::internal, "channel '" + key +
                                        "': its values went to the tasks planned from them; "
                                        "it holds values again once the step commits");
}

}  // namespace

value topic::get() const {
  if (released_) throw_released(key());
  if (values_.as_list().empty()) detail::throw_empty(key());
  return values_;
}

bool topic::is_available() const { return released_ || !values_.as_list().empty(); }

std::optional<value> topic::checkpoint() const {
  if (released_) throw_released(key());
  if (values_.as_list().empty()) return std::nullopt;
  return values_;
}

value topic::release() {
  if (accumulate_ || values_.as_list().empty()) return value();
  released_ = true;
  return std::exchange(values_, value(list{}));
}

}  // namespace superstep::channels
