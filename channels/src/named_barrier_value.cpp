// LangGraph's NamedBarrierValue, and the name bookkeeping its after-finish variant shares.
#include "superstep/channels/named_barrier_value.hpp"

#include "barrier_support.hpp"
#include "channel_errors.hpp"
#include "superstep/core/error.hpp"

namespace superstep::channels {

namespace detail {

namespace {

std::string describe_names(const std::set<std::string>& names) {
  return names_list(names).to_json();
}

}  // namespace

bool record_names(const std::string& key, const std::set<std::string>& names,
                  std::set<std::string>& seen, std::span<const value> writes) {
  for (const value& w : writes)
    if (!w.is_string() || !names.contains(w.as_string()))
      throw_invalid_update(key, "Value " + w.to_json() + " not in " + describe_names(names));
  bool grew = false;
  for (const value& w : writes) grew |= seen.insert(w.as_string()).second;
  return grew;
}

value names_list(const std::set<std::string>& names) {
  list out;
  out.reserve(names.size());
  for (const std::string& n : names) out.emplace_back(n);
  return value(std::move(out));
}

std::set<std::string> restore_names(const std::string& key, std::string_view channel_type,
                                    const std::set<std::string>& names, const value& saved) {
  if (!saved.is_list()) throw_bad_checkpoint(key, channel_type, "a list of names", saved);
  std::set<std::string> out;
  for (const value& n : saved.as_list()) {
    if (!n.is_string()) throw_bad_checkpoint(key, channel_type, "a list of names", n);
    if (!names.contains(n.as_string()))
      throw error(error_code::invalid_argument,
                  "At key '" + key + "': " + std::string(channel_type) + " checkpoint names " +
                      n.to_json() + ", which is not in " + describe_names(names));
    out.insert(n.as_string());
  }
  return out;
}

}  // namespace detail

named_barrier_value::named_barrier_value(std::string key, std::vector<std::string> names)
    : channel(std::move(key)), names_(names.begin(), names.end()) {}

std::unique_ptr<channel> named_barrier_value::from_checkpoint(
    const std::optional<value>& checkpoint) const {
  auto restored = std::make_unique<named_barrier_value>(*this);
  restored->seen_.clear();
  if (checkpoint) restored->seen_ = detail::restore_names(key(), type_name(), names_, *checkpoint);
  return restored;
}

std::unique_ptr<channel> named_barrier_value::copy() const {
  return std::make_unique<named_barrier_value>(*this);
}

bool named_barrier_value::update(std::span<const value> writes) {
  return detail::record_names(key(), names_, seen_, writes);
}

value named_barrier_value::get() const {
  if (!is_available()) detail::throw_empty(key());
  return value();
}

std::optional<value> named_barrier_value::checkpoint() const {
  if (seen_.empty()) return std::nullopt;
  return detail::names_list(seen_);
}

bool named_barrier_value::consume() {
  if (!is_available()) return false;
  seen_.clear();
  return true;
}

}  // namespace superstep::channels
