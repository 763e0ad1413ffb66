// JSON schemas of graphs, as pydantic renders LangGraph's (`_get_json_schema`,
// `Pregel.get_input_schema`, `create_model`): a property per key titled after it, shared
// definitions gathered under "$defs", keys in pydantic's order.
#include "superstep/pregel/json_schema.hpp"

#include <algorithm>
#include <map>

#include "superstep/core/error.hpp"
#include "superstep/pregel/pregel.hpp"

namespace superstep {

namespace {

constexpr std::string_view defs_prefix = "#/$defs/";

// The first "$ref" into "#/$defs/" whose definition `defs` lacks, or "". Values that are
// data, not schemas (defaults, consts, enums, examples), are not searched.
std::string dangling_ref(const value& v, const value& defs) {
  if (v.is_list()) {
    for (const value& item : v.as_list())
      if (std::string r = dangling_ref(item, defs); !r.empty()) return r;
    return "";
  }
  if (!v.is_object()) return "";
  for (const auto& [k, item] : v.as_object()) {
    if (k == "default" || k == "const" || k == "enum" || k == "examples") continue;
    if (k == "$ref" && item.is_string()) {
      const std::string& ref = item.as_string();
      if (ref.rfind(defs_prefix, 0) == 0 && !defs.find(ref.substr(defs_prefix.size()))) return ref;
      continue;
    }
    if (std::string r = dangling_ref(item, defs); !r.empty()) return r;
  }
  return "";
}

value sort_recursive(const value& v, std::string_view parent_key) {
  if (v.is_list()) {
    list out;
    out.reserve(v.as_list().size());
    for (const value& item : v.as_list()) out.push_back(sort_recursive(item, parent_key));
    return value(std::move(out));
  }
  if (!v.is_object()) return v;
  std::vector<object::entry> entries(v.as_object().begin(), v.as_object().end());
  if (parent_key != "properties" && parent_key != "default")
    std::stable_sort(entries.begin(), entries.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [k, item] : entries) item = sort_recursive(item, k);
  return value(object(std::move(entries), object::unique_keys));
}

[[noreturn]] void invalid_argument(const std::string& msg) {
  throw error(error_code::invalid_argument, msg);
}

// A value's schema as the root of a JSON schema titled `title` (pydantic's RootModel, LangGraph's
// schema of a graph whose input or output is one channel).
value single_value_schema(const std::string& title, const value& schema) {
  object out = schema.is_object() ? schema.as_object() : object{};
  out.set("title", title);
  return sort_json_schema(value(std::move(out)));
}

// The schema of channels read or written as an object (LangGraph's `create_model` of the
// channels, each optional with a null default).
value channels_schema(const pregel_graph& g, const std::vector<std::string>& channels, bool single,
                      const std::string& title) {
  auto schema_of = [&](const std::string& ch) {
    auto it = g.channel_schemas.find(ch);
    return it == g.channel_schemas.end() ? value() : it->second;
  };
  if (single && channels.size() == 1) return single_value_schema(title, schema_of(channels[0]));
  object_schema s{title, {}};
  for (const auto& ch : channels)
    s.keys.emplace_back(ch, key_schema{schema_of(ch), false, value()});
  return s.to_json_schema();
}

}  // namespace

std::string key_schema::problem() const {
  if (!schema.is_null() && !schema.is_object())
    return "its JSON schema must be an object, got " + std::string(kind_name(schema.kind()));
  const value& defs = schema.get("$defs");
  if (!defs.is_null()) {
    if (!defs.is_object()) return "its \"$defs\" must be an object of schemas";
    for (const auto& [name, def] : defs.as_object())
      if (!def.is_object()) return "its \"$defs\" entry '" + name + "' is not an object";
  }
  if (std::string ref = dangling_ref(schema, defs); !ref.empty())
    return "its JSON schema refers to \"" + ref + "\", which its \"$defs\" do not define";
  if (required && default_value) return "a required key has no default";
  return "";
}

value object_schema::to_json_schema() const {
  object defs;
  std::map<std::string, std::string> defined_by;  // definition name -> key
  object properties;
  list required;
  for (const auto& [name, k] : keys) {
    if (std::string p = k.problem(); !p.empty()) invalid_argument("key '" + name + "': " + p);
    object property = k.schema.is_object() ? k.schema.as_object() : object{};
    if (const value* d = property.find("$defs")) {
      for (const auto& [def_name, def] : d->as_object()) {
        if (const value* seen = defs.find(def_name)) {
          if (*seen != def)
            invalid_argument("keys '" + defined_by[def_name] + "' and '" + name +
                             "' define \"$defs\" '" + def_name + "' differently");
          continue;
        }
        defs.set(def_name, def);
        defined_by[def_name] = name;
      }
      property.erase("$defs");
    }
    // A bare reference takes the title of what it refers to, as pydantic's model fields.
    const bool bare_ref = property.size() == 1 && property.contains("$ref");
    if (!property.contains("title") && !bare_ref) property.set("title", json_schema_title(name));
    if (k.default_value) property.set("default", *k.default_value);
    if (k.required) required.push_back(name);
    properties.set(name, value(std::move(property)));
  }
  object out;
  if (!defs.empty()) out.set("$defs", value(std::move(defs)));
  out.set("properties", value(std::move(properties)));
  if (!required.empty()) out.set("required", value(std::move(required)));
  out.set("title", title);
  out.set("type", "object");
  return sort_json_schema(value(std::move(out)));
}

std::string json_schema_title(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  bool after_cased = false;  // Python's str.title(): a letter after a letter is lower case
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    const bool ascii_letter = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z');
    if (ascii_letter) {
      const bool lower = u >= 'a';
      if (after_cased && !lower) c = static_cast<char>(u + ('a' - 'A'));
      if (!after_cased && lower) c = static_cast<char>(u - ('a' - 'A'));
    }
    after_cased = ascii_letter || u >= 0x80;  // UTF-8 bytes: taken as letters, left as they are
    out.push_back(c == '_' ? ' ' : c);
  }
  const auto first = out.find_first_not_of(" \t\n\r\f\v");
  if (first == std::string::npos) return "";
  return out.substr(first, out.find_last_not_of(" \t\n\r\f\v") - first + 1);
}

value sort_json_schema(const value& schema) { return sort_recursive(schema, ""); }

value pregel::input_json_schema() const {
  if (!graph_.input_schema.is_null()) return graph_.input_schema;
  std::vector<std::string> channels = graph_.input_channels;
  if (channels.empty())  // LangGraph: every channel
    for (const auto& [name, ch] : graph_.channels) channels.push_back(name);
  return channels_schema(graph_, channels, graph_.input_single, graph_.name + "Input");
}

value pregel::output_json_schema() const {
  if (!graph_.output_schema.is_null()) return graph_.output_schema;
  return channels_schema(graph_, graph_.output_channels, graph_.output_single,
                         graph_.name + "Output");
}

value pregel::context_json_schema() const {
  if (!options_.context_schema) return value();
  return options_.context_schema->to_json_schema();
}

}  // namespace superstep
