#include "superstep/pregel/config.hpp"

#include <string>
#include <string_view>

#include "superstep/core/error.hpp"

namespace superstep {

namespace {

const object& object_of(const value& v, std::string_view what) {
  if (!v.is_object())
    throw error(error_code::invalid_argument,
                std::string(what) + " must be an object, not " + v.to_json());
  return v.as_object();
}

// `into` with the keys of `from` set over it; an "lc_versions" object in metadata merges
// with the one already there (LangGraph's _merge_metadata).
object merged_keys(object into, const object& from, bool metadata) {
  for (const auto& [key, v] : from) {
    const value* old = into.find(key);
    if (metadata && key == "lc_versions" && old && old->is_object() && v.is_object()) {
      into.set(key, value(merged_keys(old->as_object(), v.as_object(), false)));
    } else {
      into.set(key, v);
    }
  }
  return into;
}

void merge_into(object& base, const value& config) {
  if (config.is_null()) return;
  for (const auto& [key, v] : object_of(config, "config")) {
    if (!v.truthy()) continue;
    const value* old = base.find(key);
    if (key == "configurable" || key == "metadata") {
      const object& add = object_of(v, "config " + key);
      base.set(key, value(old ? merged_keys(old->as_object(), add, key == "metadata") : add));
    } else if (key == "tags") {
      if (!v.is_list())
        throw error(error_code::invalid_argument, "config tags must be a list, not " + v.to_json());
      list tags = old ? old->as_list() : list{};
      tags.insert(tags.end(), v.as_list().begin(), v.as_list().end());
      base.set(key, value(std::move(tags)));
    } else if (key == "recursion_limit") {
      if (!(v.is_int() && v.as_int() == default_recursion_limit)) base.set(key, v);
    } else {
      base.set(key, v);
    }
  }
}

}  // namespace

value merge_configs(const value& base, const value& override) {
  object out;
  merge_into(out, base);
  merge_into(out, override);
  if (!out.contains("configurable")) out.set("configurable", object{});
  return value(std::move(out));
}

}  // namespace superstep
