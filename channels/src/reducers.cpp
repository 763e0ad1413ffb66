// The built-in reducers: append, add, max, min, merge (add_messages is in add_messages.cpp).
//
// Each has a `fold` that handles a whole step's updates in one pass, so a step with n writes
// costs O(current + n): the accumulated list, string or object is built once per step.
#include <cstdint>
#include <string>

#include "reducer_support.hpp"
#include "superstep/channels/reducer.hpp"
#include "superstep/core/error.hpp"

namespace superstep::channels {

value reducer::apply(const value& current, std::span<const value> updates) const {
  if (updates.empty()) return current;
  if (fold) return fold(current, updates);
  value result = current;
  for (const value& u : updates) result = binary(result, u);
  return result;
}

namespace detail {

void throw_reducer_error(std::string_view reducer, const std::string& why) {
  throw error(error_code::invalid_update, "reducer '" + std::string(reducer) + "': " + why);
}

std::string kind_of(const value& v) { return std::string(kind_name(v.kind())); }

}  // namespace detail

namespace {

using detail::kind_of;
using detail::throw_reducer_error;

// Lifts a fold into a binary operator, for callers that combine two values at a time.
template <value (*Fold)(const value&, std::span<const value>)>
value binary_from_fold(const value& current, const value& update) {
  return Fold(current, std::span<const value>(&update, 1));
}

const list& expect_list(std::string_view reducer, const value& v) {
  if (!v.is_list()) throw_reducer_error(reducer, "expected list, got " + kind_of(v));
  return v.as_list();
}

value concat_lists(std::string_view reducer, const value& current, std::span<const value> updates) {
  std::size_t added = 0;
  for (const value& u : updates) added += expect_list(reducer, u).size();
  const list& head = expect_list(reducer, current);
  if (added == 0) return current;
  list out;
  out.reserve(head.size() + added);
  out.insert(out.end(), head.begin(), head.end());
  for (const value& u : updates) out.insert(out.end(), u.as_list().begin(), u.as_list().end());
  return value(std::move(out));
}

value append_fold(const value& current, std::span<const value> updates) {
  return concat_lists("append", current, updates);
}

[[noreturn]] void cannot_add(const value& a, const value& b) {
  throw_reducer_error("add", "cannot add " + kind_of(a) + " and " + kind_of(b));
}

value add_numbers(const value& current, std::span<const value> updates) {
  bool real = current.is_double();
  std::int64_t i = real ? 0 : current.as_int();
  double d = real ? current.as_double() : 0.0;
  for (const value& u : updates) {
    if (!u.is_number()) cannot_add(real ? value(d) : value(i), u);
    if (!real && u.is_int()) {
      if (__builtin_add_overflow(i, u.as_int(), &i)) throw_reducer_error("add", "integer overflow");
      continue;
    }
    if (!real) d = static_cast<double>(i), real = true;
    d += u.as_double();
  }
  return real ? value(d) : value(i);
}

value add_strings(const value& current, std::span<const value> updates) {
  std::size_t size = current.as_string().size();
  for (const value& u : updates) {
    if (!u.is_string()) cannot_add(current, u);
    size += u.as_string().size();
  }
  std::string out;
  out.reserve(size);
  out += current.as_string();
  for (const value& u : updates) out += u.as_string();
  return value(std::move(out));
}

value add_fold(const value& current, std::span<const value> updates) {
  if (updates.empty()) return current;
  switch (current.kind()) {
    case value_kind::integer:
    case value_kind::real: return add_numbers(current, updates);
    case value_kind::string: return add_strings(current, updates);
    case value_kind::list:
      for (const value& u : updates)
        if (!u.is_list()) cannot_add(current, u);
      return concat_lists("add", current, updates);
    default: cannot_add(current, updates.front());
  }
}

// Whether `b` orders strictly before `a`; both numbers or both strings, else an error.
bool less(std::string_view reducer, const value& a, const value& b) {
  if (a.is_int() && b.is_int()) return a.as_int() < b.as_int();
  if (a.is_number() && b.is_number()) return a.as_double() < b.as_double();
  if (a.is_string() && b.is_string()) return a.as_string() < b.as_string();
  throw_reducer_error(reducer, "cannot compare " + kind_of(a) + " and " + kind_of(b) +
                                   " (expected numbers or strings)");
}

// As Python's max(a, b) and min(a, b): on a tie the current value stays.
value max_fold(const value& current, std::span<const value> updates) {
  value best = current;
  for (const value& u : updates)
    if (less("max", best, u)) best = u;
  return best;
}

value min_fold(const value& current, std::span<const value> updates) {
  value best = current;
  for (const value& u : updates)
    if (less("min", u, best)) best = u;
  return best;
}

const object& expect_object(const value& v) {
  if (!v.is_object()) throw_reducer_error("merge", "expected object, got " + kind_of(v));
  return v.as_object();
}

value merge_fold(const value& current, std::span<const value> updates) {
  const object& head = expect_object(current);
  std::size_t added = 0;
  for (const value& u : updates) added += expect_object(u).size();
  if (added == 0) return current;
  std::vector<object::entry> entries;
  entries.reserve(head.size() + added);
  entries.insert(entries.end(), head.begin(), head.end());
  for (const value& u : updates)
    entries.insert(entries.end(), u.as_object().begin(), u.as_object().end());
  return value(object(std::move(entries)));
}

template <value (*Fold)(const value&, std::span<const value>)>
reducer make_builtin(std::string name) {
  return reducer{std::move(name), &binary_from_fold<Fold>, Fold};
}

}  // namespace

const reducer* builtin_reducer(std::string_view name) {
  static const reducer append = make_builtin<append_fold>("append");
  static const reducer add = make_builtin<add_fold>("add");
  static const reducer max = make_builtin<max_fold>("max");
  static const reducer min = make_builtin<min_fold>("min");
  static const reducer merge = make_builtin<merge_fold>("merge");
  static const reducer add_messages = make_builtin<detail::add_messages_fold>("add_messages");
  static const reducer messages_delta = make_builtin<detail::messages_delta_fold>("messages_delta");
  for (const reducer* r : {&append, &add, &max, &min, &merge, &add_messages, &messages_delta})
    if (r->name == name) return r;
  return nullptr;
}

}  // namespace superstep::channels
