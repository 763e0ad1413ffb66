#include "superstep/cluster/function_params.hpp"

namespace superstep::cluster {

namespace {

std::string got(const value& v) { return ", got " + std::string(kind_name(v.kind())); }

}  // namespace

invalid_param::invalid_param(std::string param, std::string reason)
    : error(error_code::invalid_spec,
            (param.empty() ? std::string("params") : "params." + param) + ": " + reason),
      param_(std::move(param)),
      reason_(std::move(reason)) {}

function_params::function_params(const value& params,
                                 std::initializer_list<std::string_view> allowed) {
  if (params.is_null()) return;
  if (!params.is_object()) throw invalid_param("", "expected object" + got(params));
  params_ = &params;
  for (const auto& [key, v] : params.as_object()) {
    bool known = false;
    for (std::string_view a : allowed) known |= a == key;
    if (known) continue;
    std::string expected;
    for (std::string_view a : allowed) expected += (expected.empty() ? "" : ", ") + std::string(a);
    throw invalid_param(key, expected.empty() ? "unknown param (this function takes none)"
                                              : "unknown param (expected one of " + expected + ")");
  }
}

const value* function_params::find(std::string_view name) const noexcept {
  return params_ ? params_->find(name) : nullptr;
}

void function_params::fail(std::string_view name, std::string reason) const {
  throw invalid_param(std::string(name), std::move(reason));
}

const value& function_params::any(std::string_view name) const {
  const value* v = find(name);
  if (!v) fail(name, "missing required param");
  return *v;
}

value function_params::any_or_null(std::string_view name) const {
  const value* v = find(name);
  return v ? *v : value();
}

const std::string& function_params::string(std::string_view name) const {
  const value& v = any(name);
  if (!v.is_string()) fail(name, "expected string" + got(v));
  return v.as_string();
}

std::string function_params::string_or(std::string_view name, std::string fallback) const {
  return has(name) ? string(name) : std::move(fallback);
}

std::int64_t function_params::integer(std::string_view name) const {
  const value& v = any(name);
  if (!v.is_int()) fail(name, "expected int" + got(v));
  return v.as_int();
}

std::int64_t function_params::integer_or(std::string_view name, std::int64_t fallback) const {
  return has(name) ? integer(name) : fallback;
}

value function_params::number(std::string_view name) const {
  const value& v = any(name);
  if (!v.is_number()) fail(name, "expected number" + got(v));
  return v;
}

value function_params::number_or(std::string_view name, value fallback) const {
  return has(name) ? number(name) : std::move(fallback);
}

std::vector<std::string> function_params::strings(std::string_view name) const {
  const value& v = any(name);
  if (v.is_string()) return {v.as_string()};
  if (!v.is_list()) fail(name, "expected string or list of strings" + got(v));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.as_list().size(); ++i) {
    const value& item = v.as_list()[i];
    if (!item.is_string())
      fail(std::string(name) + "[" + std::to_string(i) + "]", "expected string" + got(item));
    out.push_back(item.as_string());
  }
  return out;
}

}  // namespace superstep::cluster
