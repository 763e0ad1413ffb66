#include "superstep/core/value.hpp"

#include <algorithm>
#include <unordered_map>

#include "superstep/core/error.hpp"

namespace superstep {

std::string_view kind_name(value_kind k) noexcept {
  switch (k) {
    case value_kind::null: return "null";
    case value_kind::boolean: return "bool";
    case value_kind::integer: return "int";
    case value_kind::real: return "double";
    case value_kind::string: return "string";
    case value_kind::bytes: return "bytes";
    case value_kind::list: return "list";
    case value_kind::object: return "object";
    case value_kind::send: return "send";
  }
  return "?";
}

std::string_view code_name(error_code c) noexcept {
  switch (c) {
    case error_code::none: return "none";
    case error_code::type_error: return "type_error";
    case error_code::json_error: return "json_error";
    case error_code::empty_channel: return "empty_channel";
    case error_code::invalid_update: return "invalid_update";
    case error_code::graph_recursion: return "graph_recursion";
    case error_code::invalid_graph: return "invalid_graph";
    case error_code::invalid_spec: return "invalid_spec";
    case error_code::node_error: return "node_error";
    case error_code::unknown_function: return "unknown_function";
    case error_code::invalid_argument: return "invalid_argument";
    case error_code::interrupted: return "interrupted";
    case error_code::storage_error: return "storage_error";
    case error_code::not_found: return "not_found";
    case error_code::internal: return "internal";
    case error_code::parent_command: return "parent_command";
    case error_code::unavailable: return "unavailable";
    case error_code::unauthorized: return "unauthorized";
    case error_code::protocol_error: return "protocol_error";
    case error_code::thread_busy: return "thread_busy";
    case error_code::run_cancelled: return "run_cancelled";
    case error_code::node_timeout: return "node_timeout";
    case error_code::drained: return "drained";
    case error_code::cancelled: return "cancelled";
    case error_code::step_timeout: return "step_timeout";
  }
  return "unknown";
}

namespace {

[[noreturn]] void kind_mismatch(value_kind want, value_kind got) {
  throw error(error_code::type_error,
              "expected " + std::string(kind_name(want)) + ", got " + std::string(kind_name(got)));
}

const value null_value{};

}  // namespace

bool value::as_bool() const {
  if (auto* p = std::get_if<bool>(&v_)) return *p;
  kind_mismatch(value_kind::boolean, kind());
}

std::int64_t value::as_int() const {
  if (auto* p = std::get_if<std::int64_t>(&v_)) return *p;
  kind_mismatch(value_kind::integer, kind());
}

double value::as_double() const {
  if (auto* p = std::get_if<double>(&v_)) return *p;
  if (auto* p = std::get_if<std::int64_t>(&v_)) return static_cast<double>(*p);
  kind_mismatch(value_kind::real, kind());
}

const std::string& value::as_string() const {
  if (auto* p = std::get_if<std::shared_ptr<const std::string>>(&v_)) return **p;
  kind_mismatch(value_kind::string, kind());
}

const std::string& value::as_bytes() const {
  if (auto* p = std::get_if<bytes_ptr>(&v_)) return *p->p;
  kind_mismatch(value_kind::bytes, kind());
}

const list& value::as_list() const {
  if (auto* p = std::get_if<std::shared_ptr<const list>>(&v_)) return **p;
  kind_mismatch(value_kind::list, kind());
}

list* value::sole_list() noexcept {
  // Lists are made as non-const objects (value(list)), shared as const: the one holder may
  // change one.
  auto* p = std::get_if<std::shared_ptr<const list>>(&v_);
  if (!p || !*p || p->use_count() != 1) return nullptr;
  return const_cast<list*>(p->get());
}

const object& value::as_object() const {
  if (auto* p = std::get_if<std::shared_ptr<const object>>(&v_)) return **p;
  kind_mismatch(value_kind::object, kind());
}

const send_packet& value::as_send() const {
  if (auto* p = std::get_if<std::shared_ptr<const send_packet>>(&v_)) return **p;
  kind_mismatch(value_kind::send, kind());
}

value value::send(const value& node, value arg, value timeout) {
  if (!node.is_string()) kind_mismatch(value_kind::string, node.kind());
  // 72 bytes with the shared count, allocated in blocks of 80: not in the pages of the
  // 64-byte blocks that a one-entry object's entries take (a fan-out's arguments, {"item":
  // i}), made one after the other with the Sends. Freed, as the planner frees them, the
  // Sends leave whole pages rather than holes between arguments that stay.
  value out;
  out.v_ = std::make_shared<const send_packet>(node, std::move(arg), std::move(timeout));
  return out;
}

send_packet::send_packet(value node, value arg, value timeout)
    : node_(std::move(node)),
      arg_(std::move(arg)),
      timeout_(timeout.is_null() ? nullptr : std::make_unique<const value>(std::move(timeout))) {}

const std::string& send_packet::node() const noexcept {
  return *std::get<std::shared_ptr<const std::string>>(node_.v_);
}

const value& send_packet::timeout() const noexcept { return timeout_ ? *timeout_ : null_value; }

value send_packet::object_form() const {
  std::vector<object::entry> e;
  e.reserve(timeout_ ? 3 : 2);
  e.emplace_back("__send__", node_);
  e.emplace_back("arg", arg_);
  if (timeout_) e.emplace_back("timeout", *timeout_);
  return value(object(std::move(e), object::unique_keys));
}

const value* value::find(std::string_view key) const noexcept {
  if (auto* p = std::get_if<std::shared_ptr<const object>>(&v_)) return (*p)->find(key);
  return nullptr;
}

const value& value::get(std::string_view key) const noexcept {
  const value* v = find(key);
  return v ? *v : null_value;
}

bool value::truthy() const noexcept {
  switch (kind()) {
    case value_kind::null: return false;
    case value_kind::boolean: return std::get<bool>(v_);
    case value_kind::integer: return std::get<std::int64_t>(v_) != 0;
    case value_kind::real: return std::get<double>(v_) != 0.0;
    case value_kind::string: return !std::get<std::shared_ptr<const std::string>>(v_)->empty();
    case value_kind::bytes: return !std::get<bytes_ptr>(v_).p->empty();
    case value_kind::list: return !std::get<std::shared_ptr<const list>>(v_)->empty();
    case value_kind::object: return !std::get<std::shared_ptr<const object>>(v_)->empty();
    case value_kind::send: return true;
  }
  return false;
}

bool value::same_instance(const value& other) const noexcept {
  if (v_.index() != other.v_.index()) return false;
  switch (kind()) {
    case value_kind::string: return std::get<4>(v_) == std::get<4>(other.v_);
    case value_kind::bytes: return std::get<5>(v_).p == std::get<5>(other.v_).p;
    case value_kind::list: return std::get<6>(v_) == std::get<6>(other.v_);
    case value_kind::object: return std::get<7>(v_) == std::get<7>(other.v_);
    case value_kind::send: return std::get<8>(v_) == std::get<8>(other.v_);
    // Scalars are compared directly: `operator==` calls this function, so deferring to it
    // here would recurse forever.
    case value_kind::null: return true;
    case value_kind::boolean: return std::get<1>(v_) == std::get<1>(other.v_);
    case value_kind::integer: return std::get<2>(v_) == std::get<2>(other.v_);
    case value_kind::real: return std::get<3>(v_) == std::get<3>(other.v_);
  }
  return false;
}

namespace {

// Whether `o` is the object form of Send `s`, as `as_send` reads that form: "__send__",
// "arg" and, when the Send gives one, "timeout", in that order.
bool is_object_form(const send_packet& s, const object& o) noexcept {
  const bool timed = !s.timeout().is_null();
  if (o.size() != (timed ? 3u : 2u)) return false;
  auto e = o.begin();
  if (e->first != "__send__" || !e->second.is_string() || e->second.as_string() != s.node())
    return false;
  ++e;
  if (e->first != "arg" || !(e->second == s.arg())) return false;
  if (!timed) return true;
  ++e;
  return e->first == "timeout" && e->second == s.timeout();
}

}  // namespace

bool operator==(const value& a, const value& b) noexcept {
  if (a.is_number() && b.is_number() && a.kind() != b.kind()) return a.as_double() == b.as_double();
  // A Send equals the object it is shown as (a Send read from before Sends had a kind).
  if (a.is_send() && b.is_object()) return is_object_form(a.as_send(), b.as_object());
  if (a.is_object() && b.is_send()) return is_object_form(b.as_send(), a.as_object());
  if (a.kind() != b.kind()) return false;
  if (a.same_instance(b)) return true;
  switch (a.kind()) {
    case value_kind::null: return true;
    case value_kind::boolean: return a.as_bool() == b.as_bool();
    case value_kind::integer: return a.as_int() == b.as_int();
    case value_kind::real: return a.as_double() == b.as_double();
    case value_kind::string: return a.as_string() == b.as_string();
    case value_kind::bytes: return a.as_bytes() == b.as_bytes();
    case value_kind::list: return a.as_list() == b.as_list();
    case value_kind::object: return a.as_object() == b.as_object();
    case value_kind::send: {
      const send_packet& x = a.as_send();
      const send_packet& y = b.as_send();
      return x.node() == y.node() && x.arg() == y.arg() && x.timeout() == y.timeout();
    }
  }
  return false;
}

object::object(std::initializer_list<entry> items) {
  items_.reserve(items.size());
  for (const auto& e : items) set(e.first, e.second);
}

object::object(std::vector<entry> items) {
  // Small objects: the linear path is faster than hashing.
  if (items.size() <= 8) {
    bool duplicates = false;
    for (std::size_t i = 1; i < items.size() && !duplicates; ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (items[i].first == items[j].first) {
          duplicates = true;
          break;
        }
    if (!duplicates) {
      items_ = std::move(items);  // keeps the caller's buffer: no allocation
      return;
    }
    items_.reserve(items.size());
    for (auto& e : items) set(std::move(e.first), std::move(e.second));
    return;
  }
  std::unordered_map<std::string_view, std::size_t> first;  // key -> position in items_
  first.reserve(items.size());
  bool duplicates = false;
  for (const auto& e : items) duplicates |= !first.emplace(e.first, 0).second;
  if (!duplicates) {
    items_ = std::move(items);
    return;
  }
  // The keys of `first` view strings in `items`, so move only values out of it.
  first.clear();
  items_.reserve(items.size());
  for (auto& e : items) {
    auto [it, inserted] = first.emplace(e.first, items_.size());
    if (inserted)
      items_.emplace_back(e.first, std::move(e.second));
    else
      items_[it->second].second = std::move(e.second);
  }
}

const value* object::find(std::string_view key) const noexcept {
  for (const auto& e : items_)
    if (e.first == key) return &e.second;
  return nullptr;
}

void object::set(std::string key, value v) {
  for (auto& e : items_) {
    if (e.first == key) {
      e.second = std::move(v);
      return;
    }
  }
  items_.emplace_back(std::move(key), std::move(v));
}

bool object::erase(std::string_view key) {
  auto it =
      std::find_if(items_.begin(), items_.end(), [&](const entry& e) { return e.first == key; });
  if (it == items_.end()) return false;
  items_.erase(it);
  return true;
}

bool operator==(const object& a, const object& b) noexcept {
  // Order-insensitive, as Python dict equality.
  if (a.size() != b.size()) return false;
  for (const auto& [k, v] : a) {
    const value* o = b.find(k);
    if (!o || !(*o == v)) return false;
  }
  return true;
}

}  // namespace superstep
