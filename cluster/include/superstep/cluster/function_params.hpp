#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "superstep/core/error.hpp"
#include "superstep/core/value.hpp"

namespace superstep::cluster {

/// A param of a node or router factory that is missing, unknown or of the wrong kind.
///
/// It names the param apart from the reason, so the spec loader can report the offender's full
/// JSON path: "invalid graph spec at nodes.generate.params.to: expected string, got int".
/// The code is invalid_spec; `what()` is "params.<param>: <reason>" ("params: <reason>" when
/// `param` is empty, i.e. the params object itself is wrong).
class invalid_param : public error {
 public:
  invalid_param(std::string param, std::string reason);
  const std::string& param() const noexcept { return param_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::string param_;
  std::string reason_;
};

/// Typed access to the params of a node or router factory, for use while the factory runs:
/// every accessor validates and throws `invalid_param` naming the param. Factories read all
/// their params up front, so a bad spec fails when it is loaded.
class function_params {
 public:
  /// `params` must be null (no params) or an object whose keys are all in `allowed`.
  function_params(const value& params, std::initializer_list<std::string_view> allowed);

  /// The param, or nullptr when absent. A param given as null counts as given.
  const value* find(std::string_view name) const noexcept;
  bool has(std::string_view name) const noexcept { return find(name) != nullptr; }

  /// A required param of any kind.
  const value& any(std::string_view name) const;
  /// An optional param of any kind; null when absent.
  value any_or_null(std::string_view name) const;

  const std::string& string(std::string_view name) const;
  std::string string_or(std::string_view name, std::string fallback) const;
  std::int64_t integer(std::string_view name) const;
  std::int64_t integer_or(std::string_view name, std::int64_t fallback) const;
  /// A number (int or double), kept as a value so integers stay integers.
  value number(std::string_view name) const;
  value number_or(std::string_view name, value fallback) const;
  /// A string, or a list of strings.
  std::vector<std::string> strings(std::string_view name) const;

  /// Throws invalid_param for `name` with `reason`.
  [[noreturn]] void fail(std::string_view name, std::string reason) const;

 private:
  const value* params_ = nullptr;  // an object, or nullptr for none
};

}  // namespace superstep::cluster
