// The input and output JSON schemas of a compiled state_graph (LangGraph's
// `CompiledStateGraph.get_input_jsonschema` and `_get_json_schema`).
#include "superstep/core/error.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/pregel/json_schema.hpp"

namespace superstep {

void state_graph::attach_json_schemas(pregel_graph& g,
                                      const std::unordered_set<std::string>& state_keys,
                                      const std::vector<std::string>& input_keys,
                                      const std::vector<std::string>& output_keys) const {
  for (const auto& [key, schema] : key_schemas_)
    if (!state_keys.count(key))
      throw error(error_code::invalid_graph,
                  "a JSON schema is given for unknown state key '" + key + "' (set_key_schema)");
  auto schema_of = [&](const std::string& key) {
    auto it = key_schemas_.find(key);
    return it == key_schemas_.end() ? key_schema{} : it->second;
  };
  // A state of one value: the schema of that value (LangGraph's root model).
  if (keys_.size() == 1 && state_keys.count(std::string(ROOT))) {
    const key_schema root = schema_of(std::string(ROOT));
    for (auto [target, title] : {std::pair{&g.input_schema, g.name + "Input"},
                                 std::pair{&g.output_schema, g.name + "Output"}}) {
      object out = root.schema.is_object() ? root.schema.as_object() : object{};
      out.set("title", std::move(title));
      if (root.default_value) out.set("default", *root.default_value);
      *target = sort_json_schema(value(std::move(out)));
    }
    return;
  }
  auto build = [&](const std::vector<std::string>& keys, const std::optional<std::string>& own,
                   bool keys_given, const char* what, std::string fallback) {
    object_schema s;
    s.title = own ? *own : (!keys_given && schema_title_) ? *schema_title_ : std::move(fallback);
    for (const auto& k : keys) s.keys.emplace_back(k, schema_of(k));
    try {
      return s.to_json_schema();
    } catch (const error& e) {
      throw error(error_code::invalid_graph,
                  std::string("the ") + what + " schema '" + s.title + "': " + e.what());
    }
  };
  g.input_schema =
      build(input_keys, input_title_, input_keys_.has_value(), "input", g.name + "Input");
  g.output_schema =
      build(output_keys, output_title_, output_keys_.has_value(), "output", g.name + "Output");
}

}  // namespace superstep
