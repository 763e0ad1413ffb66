#include "argument_check.hpp"

#include <algorithm>

#include "python_format.hpp"

namespace superstep::agents::detail {

namespace {

bool has_type(const value& v, const std::string& type) {
  if (type == "string") return v.is_string();
  if (type == "integer")
    return v.is_int() ||
           (v.is_double() &&
            v.as_double() == static_cast<double>(static_cast<long long>(v.as_double())));
  if (type == "number") return v.is_number();
  if (type == "boolean") return v.is_bool();
  if (type == "array") return v.is_list();
  if (type == "object") return v.is_object();
  if (type == "null") return v.is_null();
  return true;  // a type we do not know is not ours to refuse
}

std::string type_problem(const std::string& type) {
  if (type == "string") return "Input should be a valid string";
  if (type == "integer") return "Input should be a valid integer";
  if (type == "number") return "Input should be a valid number";
  if (type == "boolean") return "Input should be a valid boolean";
  if (type == "array") return "Input should be a valid list";
  if (type == "object") return "Input should be a valid dictionary";
  if (type == "null") return "Input should be None";
  return "Input should be a valid " + type;
}

void check(const value& schema, const value& v, const std::string& loc,
           std::vector<std::string>& problems) {
  if (!schema.is_object()) return;
  const auto report = [&](const std::string& what) {
    problems.push_back((loc.empty() ? std::string() : loc + ": ") + what);
  };
  const value& type = schema.get("type");
  if (type.is_string() && !has_type(v, type.as_string())) {
    report(type_problem(type.as_string()));
    return;
  }
  if (type.is_list()) {
    const list& types = type.as_list();
    if (!types.empty() && std::none_of(types.begin(), types.end(), [&](const value& t) {
          return t.is_string() && has_type(v, t.as_string());
        })) {
      report(type_problem(types[0].is_string() ? types[0].as_string() : "value"));
      return;
    }
  }
  if (const value& options = schema.get("enum"); options.is_list()) {
    const list& allowed = options.as_list();
    if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
      std::string text = "Input should be ";
      for (std::size_t i = 0; i < allowed.size(); ++i) {
        if (i > 0) text += i + 1 == allowed.size() ? " or " : ", ";
        text += python_repr(allowed[i]);
      }
      report(text);
      return;
    }
  }
  if (v.is_object()) {
    const value& properties = schema.get("properties");
    if (const value& required = schema.get("required"); required.is_list())
      for (const value& key : required.as_list())
        if (key.is_string() && !v.find(key.as_string()))
          problems.push_back((loc.empty() ? "" : loc + ".") + key.as_string() + ": Field required");
    for (const auto& [key, field] : v.as_object()) {
      const std::string at = loc.empty() ? key : loc + "." + key;
      const value* property = properties.is_object() ? properties.find(key) : nullptr;
      if (property) {
        check(*property, field, at, problems);
      } else if (schema.get("additionalProperties") == value(false)) {
        problems.push_back(at + ": Extra inputs are not permitted");
      }
    }
  }
  if (v.is_list() && schema.get("items").is_object()) {
    const list& items = v.as_list();
    for (std::size_t i = 0; i < items.size(); ++i)
      check(schema.get("items"), items[i], (loc.empty() ? "" : loc + ".") + std::to_string(i),
            problems);
  }
}

}  // namespace

std::vector<std::string> check_arguments(const value& schema, const value& args) {
  std::vector<std::string> problems;
  check(schema, args, "", problems);
  return problems;
}

}  // namespace superstep::agents::detail
