// The `std` node library: value-shaping nodes (set, double, copy, config, template, pick,
// increment, map, sum) here; nodes with effects or routing, and the routers, in nodes/std_flow.cpp.
#include "superstep/cluster/std_library.hpp"

#include "nodes/std_support.hpp"
#include "superstep/cluster/function_params.hpp"

namespace superstep::cluster {

namespace detail {

[[noreturn]] void fail_run(std::string_view fn, std::string message, error_code code) {
  throw error(code, std::string(fn) + ": " + message);
}

const value& input_field(std::string_view fn, const value& input, const std::string& key) {
  if (!input.is_object())
    fail_run(
        fn, "expected the state (an object) as input, got " + std::string(kind_name(input.kind())));
  const value* v = input.find(key);
  if (!v) fail_run(fn, "the state has no value for key '" + key + "'");
  return *v;
}

value arithmetic(std::string_view fn, const value& a, char op, const value& b) {
  if (!a.is_number() || !b.is_number())
    fail_run(fn,
             "expected numbers, got " + std::string(kind_name(a.kind())) + " and " +
                 std::string(kind_name(b.kind())),
             error_code::type_error);
  if (a.is_int() && b.is_int())
    return op == '+' ? value(a.as_int() + b.as_int()) : value(a.as_int() * b.as_int());
  return op == '+' ? value(a.as_double() + b.as_double()) : value(a.as_double() * b.as_double());
}

bool wrap_in_list(const function_params& p) {
  const value* w = p.find("wrap");
  if (!w || w->is_null()) return false;
  if (!w->is_string() || w->as_string() != "list")
    p.fail("wrap", "expected \"list\", got " + w->to_json());
  return true;
}

}  // namespace detail

namespace {

using detail::arithmetic;
using detail::fail_run;
using detail::input_field;

value update_of(std::string key, value v, bool wrap) {
  if (wrap) v = value::array({std::move(v)});
  return object{{std::move(key), std::move(v)}};
}

node_function make_set(const value& params) {
  function_params p(params, {"update"});
  value update = p.any("update");
  return [update](const value&, node_context&) { return update; };
}

std::int64_t length_of(const value& x) {
  if (x.is_string()) return static_cast<std::int64_t>(x.as_string().size());
  if (x.is_list()) return static_cast<std::int64_t>(x.as_list().size());
  return static_cast<std::int64_t>(x.to_json().size());
}

node_function make_double(const value& params) {
  function_params p(params, {"until_len"});
  std::optional<std::int64_t> until;
  if (p.has("until_len")) {
    until = p.integer("until_len");
    if (*until < 0) p.fail("until_len", "must not be negative");
  }
  return [until](const value& x, node_context&) -> value {
    if (!x.is_string() && !x.is_number() && !x.is_list())
      fail_run("std.double",
               "expected a string, number or list, got " + std::string(kind_name(x.kind())),
               error_code::type_error);
    if (until && length_of(x) >= *until) return value();
    if (x.is_string()) return value(x.as_string() + x.as_string());
    if (x.is_number()) return arithmetic("std.double", x, '+', x);
    list doubled = x.as_list();
    doubled.insert(doubled.end(), x.as_list().begin(), x.as_list().end());
    return value(std::move(doubled));
  };
}

node_function make_copy(const value& params) {
  function_params p(params, {"from", "to"});
  std::string from = p.string("from"), to = p.string("to");
  return [from, to](const value& state, node_context&) -> value {
    return object{{to, input_field("std.copy", state, from)}};
  };
}

node_function make_config(const value& params) {
  function_params p(params, {"from", "to"});
  std::string from = p.string("from"), to = p.string("to");
  return [from, to](const value&, node_context& ctx) -> value {
    return object{{to, ctx.config().get(from)}};
  };
}

// A template split at its placeholders: literal text and keys alternate, starting with text.
struct parsed_template {
  std::vector<std::string> texts;
  std::vector<std::string> keys;  // keys.size() == texts.size() - 1
};

parsed_template parse_template(const function_params& p) {
  const std::string& text = p.string("text");
  parsed_template t{{""}, {}};
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      t.texts.back() += c;
      ++i;
    } else if (c == '{') {
      std::size_t close = text.find_first_of("{}", i + 1);
      if (close == std::string::npos || text[close] != '}')
        p.fail("text", "unclosed '{' at offset " + std::to_string(i));
      if (close == i + 1) p.fail("text", "empty placeholder '{}' at offset " + std::to_string(i));
      t.keys.push_back(text.substr(i + 1, close - i - 1));
      t.texts.emplace_back();
      i = close;
    } else if (c == '}') {
      p.fail("text", "single '}' at offset " + std::to_string(i) + " (write '}}')");
    } else {
      t.texts.back() += c;
    }
  }
  return t;
}

node_function make_template(const value& params) {
  function_params p(params, {"text", "to", "wrap"});
  parsed_template t = parse_template(p);
  std::string to = p.string("to");
  bool wrap = detail::wrap_in_list(p);
  return [t, to, wrap](const value& input, node_context&) -> value {
    std::string out = t.texts.front();
    for (std::size_t i = 0; i < t.keys.size(); ++i) {
      const value& v = input_field("std.template", input, t.keys[i]);
      out += v.is_string() ? v.as_string() : v.to_json();
      out += t.texts[i + 1];
    }
    return update_of(to, value(std::move(out)), wrap);
  };
}

node_function make_pick(const value& params) {
  function_params p(params, {"from", "index", "to"});
  std::string from = p.string("from"), to = p.string("to");
  std::int64_t index = p.integer("index");
  return [from, to, index](const value& state, node_context&) -> value {
    const value& l = input_field("std.pick", state, from);
    if (!l.is_list())
      fail_run("std.pick", "'" + from + "' is " + std::string(kind_name(l.kind())) + ", not a list",
               error_code::type_error);
    auto size = static_cast<std::int64_t>(l.as_list().size());
    std::int64_t i = index < 0 ? index + size : index;
    if (i < 0 || i >= size)
      fail_run("std.pick", "index " + std::to_string(index) + " is out of range for '" + from +
                               "' (" + std::to_string(size) + " items)");
    return object{{to, l.as_list()[static_cast<std::size_t>(i)]}};
  };
}

// The number at `key`, 0 when absent or null.
value number_or_zero(std::string_view fn, const value& state, const std::string& key) {
  if (!state.is_object()) input_field(fn, state, key);  // throws: not an object
  const value& v = state.get(key);
  return v.is_null() ? value(0) : v;
}

node_function make_increment(const value& params) {
  function_params p(params, {"key", "by"});
  std::string key = p.string("key");
  value by = p.number_or("by", value(1));
  return [key, by](const value& state, node_context&) -> value {
    return object{
        {key, arithmetic("std.increment", number_or_zero("std.increment", state, key), '+', by)}};
  };
}

node_function make_map(const value& params) {
  function_params p(params, {"from", "to", "mul", "add", "wrap"});
  std::string from = p.string("from");
  std::string to = p.string_or("to", from);
  value mul = p.number_or("mul", value(1)), add = p.number_or("add", value(0));
  bool wrap = detail::wrap_in_list(p);
  return [from, to, mul, add, wrap](const value& state, node_context&) -> value {
    value x = number_or_zero("std.map", state, from);
    value y = arithmetic("std.map", arithmetic("std.map", x, '*', mul), '+', add);
    return update_of(to, std::move(y), wrap);
  };
}

node_function make_sum(const value& params) {
  function_params p(params, {"from", "to"});
  std::string from = p.string("from"), to = p.string("to");
  return [from, to](const value& state, node_context&) -> value {
    const value& l = input_field("std.sum", state, from);
    if (!l.is_list())
      fail_run("std.sum", "'" + from + "' is " + std::string(kind_name(l.kind())) + ", not a list",
               error_code::type_error);
    value total(0);
    for (const value& item : l.as_list()) total = arithmetic("std.sum", total, '+', item);
    return object{{to, total}};
  };
}

}  // namespace

void register_std_library(function_registry& registry) {
  registry.add_node("std.set", make_set);
  registry.add_node("std.double", make_double);
  registry.add_node("std.copy", make_copy);
  registry.add_node("std.config", make_config);
  registry.add_node("std.template", make_template);
  registry.add_node("std.pick", make_pick);
  registry.add_node("std.increment", make_increment);
  registry.add_node("std.map", make_map);
  registry.add_node("std.sum", make_sum);
  detail::register_std_flow(registry);
  detail::register_std_agents(registry);
}

}  // namespace superstep::cluster
