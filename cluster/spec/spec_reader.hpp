#pragma once

// Internal: reading a graph spec with errors that name the JSON path of the offender.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "superstep/core/error.hpp"
#include "superstep/core/value.hpp"

namespace superstep::cluster::detail {

/// A value inside a spec together with its JSON path ("nodes.generate.params", "edges[1][1]",
/// "" for the root). Every check throws error(invalid_spec, "invalid graph spec at <path>:
/// <reason>"). Cheap to copy; refers to the value, which must outlive it.
class spec_node {
 public:
  spec_node(const value& v, std::string path) : v_(&v), path_(std::move(path)) {}

  const value& get() const noexcept { return *v_; }
  const std::string& path() const noexcept { return path_; }
  /// The path of a member or item, without reading it ("nodes" + "x" = "nodes.x").
  std::string path_of(std::string_view key) const;
  std::string path_of(std::size_t index) const;

  /// Throws error(code, "invalid graph spec at <path>: <reason>").
  [[noreturn]] void fail(const std::string& reason,
                         error_code code = error_code::invalid_spec) const;

  /// Checks that this is an object whose keys are all in `allowed`; an unknown key fails at
  /// its own path, listing the allowed ones.
  const object& expect_object(std::initializer_list<std::string_view> allowed) const;
  /// Checks that this is an object (any keys).
  const object& expect_object() const;
  const list& expect_list() const;
  const std::string& expect_string() const;
  bool expect_bool() const;
  std::int64_t expect_int() const;
  double expect_number() const;
  /// A list of strings, or (with `allow_single`) one string.
  std::vector<std::string> expect_strings(bool allow_single = false) const;

  /// Whether this object has member `key`.
  bool has(std::string_view key) const noexcept { return v_->find(key) != nullptr; }
  /// Member `key` of this object; fails "missing required key '<key>'" when absent.
  spec_node field(std::string_view key) const;
  /// Item `index` of this list.
  spec_node item(std::size_t index) const;

 private:
  [[noreturn]] void expected(std::string_view what) const;

  const value* v_;
  std::string path_;
};

/// Prefixes an error's message with the path: "invalid graph spec at <path>: <message>".
[[noreturn]] void fail_at(const std::string& path, const std::string& message, error_code code);

}  // namespace superstep::cluster::detail
