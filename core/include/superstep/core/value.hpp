#pragma once

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace superstep {

class value;
class object;
class send_packet;

/// A list of values. Lists inside a `value` are shared immutably.
using list = std::vector<value>;

/// The kinds a `value` can hold, in the order JSON tooling expects.
/// `send` is a Send (LangGraph `Send`) held compactly; as JSON it is the object
/// {"__send__": node, "arg": arg} (with "timeout" when it gives one).
enum class value_kind : std::uint8_t {
  null,
  boolean,
  integer,
  real,
  string,
  bytes,
  list,
  object,
  send
};

/// Name of a kind, for error messages ("expected list, got string").
std::string_view kind_name(value_kind k) noexcept;

/// Marker type to construct a bytes value (opaque binary data).
struct bytes {
  std::string data;
};

/// A dynamic value used for channel values, updates and node inputs.
///
/// Strings, bytes, lists and objects are held through shared pointers to immutable data, so
/// copying a value is O(1) and readers in one process never deep-copy. A value is safe to read
/// from several threads at once; it is never mutated after construction.
class value {
 public:
  value() noexcept = default;
  value(std::nullptr_t) noexcept {}
  value(bool b) noexcept : v_(b) {}
  value(int i) noexcept : v_(static_cast<std::int64_t>(i)) {}
  value(unsigned i) noexcept : v_(static_cast<std::int64_t>(i)) {}
  value(long i) noexcept : v_(static_cast<std::int64_t>(i)) {}
  value(long long i) noexcept : v_(static_cast<std::int64_t>(i)) {}
  value(unsigned long i) noexcept : v_(static_cast<std::int64_t>(i)) {}
  value(unsigned long long i) noexcept : v_(static_cast<std::int64_t>(i)) {}
  value(double d) noexcept : v_(d) {}
  value(const char* s) : v_(std::make_shared<const std::string>(s)) {}
  value(std::string s) : v_(std::make_shared<const std::string>(std::move(s))) {}
  value(std::string_view s) : v_(std::make_shared<const std::string>(s)) {}
  value(bytes b) : v_(bytes_ptr{std::make_shared<const std::string>(std::move(b.data))}) {}
  value(list l) : v_(std::shared_ptr<const list>(std::make_shared<list>(std::move(l)))) {}
  value(object o);

  /// A list value from its elements: `value::array({1, "a"})`.
  static value array(std::initializer_list<value> items) { return value(list(items)); }
  /// A Send to `node` (a string value, shared as it is) with `arg`, and the time limits
  /// `timeout` of its task (null: the node's). One allocation of 72 bytes: a fan-out holds
  /// 10^6 of them, where an object of two entries takes 160. Use `make_send` (send.hpp), which
  /// checks the timeout. Throws `superstep::error` (type_error) when `node` is not a string.
  static value send(const value& node, value arg, value timeout = {});

  value_kind kind() const noexcept { return static_cast<value_kind>(v_.index()); }
  bool is_null() const noexcept { return kind() == value_kind::null; }
  bool is_bool() const noexcept { return kind() == value_kind::boolean; }
  bool is_int() const noexcept { return kind() == value_kind::integer; }
  bool is_double() const noexcept { return kind() == value_kind::real; }
  bool is_number() const noexcept { return is_int() || is_double(); }
  bool is_string() const noexcept { return kind() == value_kind::string; }
  bool is_bytes() const noexcept { return kind() == value_kind::bytes; }
  bool is_list() const noexcept { return kind() == value_kind::list; }
  bool is_object() const noexcept { return kind() == value_kind::object; }
  bool is_send() const noexcept { return kind() == value_kind::send; }

  /// Accessors throw `superstep::error` (code type_error) naming both kinds on a mismatch.
  bool as_bool() const;
  std::int64_t as_int() const;
  /// An integer converts to double; anything else but a double throws.
  double as_double() const;
  const std::string& as_string() const;
  const std::string& as_bytes() const;
  const list& as_list() const;
  /// The list, to change in place, when this value is its only holder; nullptr when another
  /// value shares it, or for another kind. For a caller that consumes the last copy of a big
  /// list element by element (a fan-out's Sends, each let go once its task is made): no one
  /// else can see the change.
  list* sole_list() noexcept;
  const object& as_object() const;
  const send_packet& as_send() const;

  /// Member of an object, or nullptr when this is not an object or has no such key.
  const value* find(std::string_view key) const noexcept;
  /// Member of an object, or a null value when absent (like `dict.get`).
  const value& get(std::string_view key) const noexcept;

  /// Truthiness as in Python: null, false, 0, "", [] and {} are false.
  bool truthy() const noexcept;

  /// Deep equality; an integer equals a double of the same numeric value.
  friend bool operator==(const value& a, const value& b) noexcept;
  friend class send_packet;
  friend bool operator!=(const value& a, const value& b) noexcept { return !(a == b); }

  /// True when both share the same heap representation (cheap identity check).
  bool same_instance(const value& other) const noexcept;

  /// Compact JSON. Bytes are written as {"$bytes": "<base64>"}.
  std::string to_json() const;
  void to_json(std::string& out) const;
  /// Parse JSON; throws `superstep::error` (code json_error) naming line, column and reason.
  static value parse_json(std::string_view text);

 private:
  struct bytes_ptr {
    std::shared_ptr<const std::string> p;
  };
  std::variant<std::monostate, bool, std::int64_t, double, std::shared_ptr<const std::string>,
               bytes_ptr, std::shared_ptr<const list>, std::shared_ptr<const object>,
               std::shared_ptr<const send_packet>>
      v_;
};

/// What a value of kind `send` holds: the target node's name, the argument, and the time
/// limits its task runs under when the Send gives its own.
class send_packet {
 public:
  /// `node` is a string value (value::send checks).
  send_packet(value node, value arg, value timeout);

  const std::string& node() const noexcept;
  const value& arg() const noexcept { return arg_; }
  /// The Send's own time limits (`timeout_to_value`'s form); null when it gives none.
  const value& timeout() const noexcept;
  /// The Send as an object: {"__send__": node, "arg": arg} and "timeout" when set, the form
  /// JSON shows and Sends took before they had a kind of their own.
  value object_form() const;

 private:
  value node_;  // shared: a fan-out's Sends to one node share its name
  value arg_;
  std::unique_ptr<const value> timeout_;  // absent when null: most Sends give none
};

/// A JSON-like object: string keys in insertion order, as Python dicts.
///
/// Lookups are linear, which is fastest for the small objects state updates are made of.
class object {
 public:
  using entry = std::pair<std::string, value>;
  using const_iterator = std::vector<entry>::const_iterator;

  object() = default;
  object(std::initializer_list<entry> items);
  /// Builds an object from entries in O(n) expected time (a loop of `set` is O(n^2)). A key
  /// given more than once keeps its first position and its last value, as with `set`.
  explicit object(std::vector<entry> items);
  /// Tag of the constructor whose caller guarantees the keys are distinct.
  struct unique_keys_t {};
  static constexpr unique_keys_t unique_keys{};
  /// Builds an object from entries whose keys the caller guarantees to be distinct: O(n), no
  /// checks (e.g. channel names read into a state object).
  object(std::vector<entry> items, unique_keys_t) noexcept : items_(std::move(items)) {}

  const value* find(std::string_view key) const noexcept;
  bool contains(std::string_view key) const noexcept { return find(key) != nullptr; }
  /// Inserts or replaces; a replaced key keeps its position.
  void set(std::string key, value v);
  /// Removes a key; returns whether it was present.
  bool erase(std::string_view key);
  std::size_t size() const noexcept { return items_.size(); }
  bool empty() const noexcept { return items_.empty(); }
  const_iterator begin() const noexcept { return items_.begin(); }
  const_iterator end() const noexcept { return items_.end(); }
  void reserve(std::size_t n) { items_.reserve(n); }

  friend bool operator==(const object& a, const object& b) noexcept;

 private:
  std::vector<entry> items_;
};

/// Writes the value as JSON (for test output and logs).
std::ostream& operator<<(std::ostream& os, const value& v);

inline value::value(object o) : v_(std::make_shared<const object>(std::move(o))) {}

}  // namespace superstep
