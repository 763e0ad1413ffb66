// How a graph describes its input, output and context as JSON schemas (LangGraph's
// `get_input_jsonschema`, `get_output_jsonschema`, `get_context_jsonschema`).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "superstep/core/value.hpp"

namespace superstep {

/// How one key (a state key, a field of a context) appears in a JSON schema: LangGraph reads
/// it from the key's type hint, its Required/NotRequired marker and its default, and pydantic
/// renders it. Superstep's keys carry no C++ type, so it is declared.
struct key_schema {
  /// The JSON schema of the key's value, e.g. {"type": "string"}; null: any value ({}). The
  /// definitions it refers to ("$ref": "#/$defs/Name") go in its own "$defs", which the
  /// schema of the whole object gathers at its top, as pydantic does. A "title" of its own
  /// replaces the one made from the key's name ("agent_outcome": "Agent Outcome").
  value schema = value();
  /// Listed under the object's "required" (LangGraph: a TypedDict key that is Required, a
  /// dataclass field or model field without a default).
  bool required = false;
  /// Shown as the property's "default" (LangGraph: a dataclass or model field's default).
  std::optional<value> default_value = std::nullopt;

  /// What makes it invalid, or "" when it is valid: a schema that is not an object, "$defs"
  /// that are not an object of objects, a "$ref" to a definition its "$defs" lack, a required
  /// key with a default.
  std::string problem() const;
};

/// An object described key by key (LangGraph: a TypedDict, dataclass or pydantic model used
/// as a schema, `title` being its class name).
struct object_schema {
  std::string title;
  /// The object's keys in the order they are shown.
  std::vector<std::pair<std::string, key_schema>> keys;

  /// The JSON schema: {"$defs"?, "properties", "required"?, "title", "type": "object"}, each
  /// property titled after its key, keys sorted as pydantic sorts them (alphabetically, except
  /// the keys of "properties" and of defaults). Throws `superstep::error` (invalid_argument)
  /// naming the key whose schema is invalid, or the two keys whose "$defs" define one name
  /// differently.
  value to_json_schema() const;
};

/// The title pydantic gives a field: Python's `name.title()` with '_' as spaces
/// ("tool_input": "Tool Input", "val1": "Val1").
std::string json_schema_title(std::string_view name);

/// The schema with its keys in pydantic's order: every object's keys sorted, except those of
/// a "properties" or a "default" object, recursively (pydantic's `GenerateJsonSchema.sort`).
value sort_json_schema(const value& schema);

}  // namespace superstep
