// The overwrite marker and the error helpers every channel shares.
#include "superstep/channels/channel.hpp"

#include "channel_errors.hpp"
#include "superstep/core/error.hpp"

namespace superstep::channels {

namespace {

constexpr std::string_view overwrite_key = "__overwrite__";

}  // namespace

namespace detail {

const value* single_overwrite(const std::string& key, std::span<const value> writes) {
  const value* replacement = nullptr;
  for (const value& w : writes) {
    const value* carried = as_overwrite(w);
    if (!carried) continue;
    if (replacement)
      throw_invalid_update(key, "Can receive only one Overwrite value per super-step.");
    replacement = carried;
  }
  return replacement;
}

}  // namespace detail

value overwrite(value v) { return value(object{{std::string(overwrite_key), std::move(v)}}); }

const value* as_overwrite(const value& write) noexcept {
  if (!write.is_object()) return nullptr;
  const object& o = write.as_object();
  if (o.size() == 1) return o.find(overwrite_key);
  // The form an `Overwrite` takes once JSON serialisation has erased its Python class
  // (LangGraph accepts it too): {"type": "__overwrite__", "value": v}.
  if (const value* type = o.find("type");
      type && type->is_string() && type->as_string() == overwrite_key)
    return o.find("value");
  return nullptr;
}

namespace detail {

void throw_invalid_update(const std::string& key, std::string_view what) {
  throw error(error_code::invalid_update, "At key '" + key + "': " + std::string(what));
}

void throw_empty(const std::string& key) {
  throw error(error_code::empty_channel, "At key '" + key + "': channel is empty");
}

void throw_bad_checkpoint(const std::string& key, std::string_view channel_type,
                          std::string_view expected, const value& got) {
  throw error(error_code::invalid_argument, "At key '" + key + "': " + std::string(channel_type) +
                                                " checkpoint must be " + std::string(expected) +
                                                ", got " + std::string(kind_name(got.kind())));
}

}  // namespace detail

}  // namespace superstep::channels
