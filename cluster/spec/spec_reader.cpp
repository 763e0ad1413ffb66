#include "spec/spec_reader.hpp"

namespace superstep::cluster::detail {

void fail_at(const std::string& path, const std::string& message, error_code code) {
  throw error(code, path.empty() ? "invalid graph spec: " + message
                                 : "invalid graph spec at " + path + ": " + message);
}

std::string spec_node::path_of(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

std::string spec_node::path_of(std::size_t index) const {
  return path_ + "[" + std::to_string(index) + "]";
}

void spec_node::fail(const std::string& reason, error_code code) const {
  fail_at(path_, reason, code);
}

void spec_node::expected(std::string_view what) const {
  fail("expected " + std::string(what) + ", got " + std::string(kind_name(v_->kind())));
}

const object& spec_node::expect_object() const {
  if (!v_->is_object()) expected("object");
  return v_->as_object();
}

const object& spec_node::expect_object(std::initializer_list<std::string_view> allowed) const {
  const object& o = expect_object();
  for (const auto& [key, v] : o) {
    bool known = false;
    for (std::string_view a : allowed) known |= a == key;
    if (known) continue;
    std::string names;
    for (std::string_view a : allowed) names += (names.empty() ? "" : ", ") + std::string(a);
    fail_at(path_of(key), "unknown key (expected one of " + names + ")", error_code::invalid_spec);
  }
  return o;
}

const list& spec_node::expect_list() const {
  if (!v_->is_list()) expected("list");
  return v_->as_list();
}

const std::string& spec_node::expect_string() const {
  if (!v_->is_string()) expected("string");
  return v_->as_string();
}

bool spec_node::expect_bool() const {
  if (!v_->is_bool()) expected("bool");
  return v_->as_bool();
}

std::int64_t spec_node::expect_int() const {
  if (!v_->is_int()) expected("int");
  return v_->as_int();
}

double spec_node::expect_number() const {
  if (!v_->is_number()) expected("number");
  return v_->as_double();
}

std::vector<std::string> spec_node::expect_strings(bool allow_single) const {
  if (allow_single && v_->is_string()) return {v_->as_string()};
  if (!v_->is_list()) expected(allow_single ? "string or list of strings" : "list of strings");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v_->as_list().size(); ++i) out.push_back(item(i).expect_string());
  return out;
}

spec_node spec_node::field(std::string_view key) const {
  const value* v = v_->find(key);
  if (!v) fail("missing required key '" + std::string(key) + "'");
  return spec_node(*v, path_of(key));
}

spec_node spec_node::item(std::size_t index) const {
  return spec_node(expect_list().at(index), path_of(index));
}

}  // namespace superstep::cluster::detail
