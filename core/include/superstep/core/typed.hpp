#pragma once

// Typed state: use your own structs as graph state and node inputs.
//
//   struct essay { std::string topic; std::string content; double score = 0; };
//   template <> struct superstep::fields<essay> {
//     static constexpr auto list = std::make_tuple(superstep::field("topic", &essay::topic),
//                                                  superstep::field("content", &essay::content),
//                                                  superstep::field("score", &essay::score));
//   };
//
// Then `to_value(e)` and `from_value<essay>(v)` convert, `partial<essay>` builds a state update
// of the fields a node sets, and `typed_node<essay>(fn)` (coordinator/typed_node.hpp) adapts
// a function of `const essay&` into a node.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "superstep/core/error.hpp"
#include "superstep/core/value.hpp"

namespace superstep {

/// A named member of a struct, for `fields<T>::list`.
template <class T, class M>
struct field_def {
  const char* name;
  M T::*member;
};

template <class T, class M>
constexpr field_def<T, M> field(const char* name, M T::*member) {
  return {name, member};
}

/// Specialise with `static constexpr auto list = std::make_tuple(field(...), ...)`.
template <class T>
struct fields;

template <class T, class = void>
struct has_fields : std::false_type {};
template <class T>
struct has_fields<T, std::void_t<decltype(fields<T>::list)>> : std::true_type {};

template <class T>
value to_value(const T& x);
template <class T>
T from_value(const value& v);

namespace detail {

template <class T>
struct is_vector : std::false_type {};
template <class U, class A>
struct is_vector<std::vector<U, A>> : std::true_type {};
template <class T>
struct is_optional : std::false_type {};
template <class U>
struct is_optional<std::optional<U>> : std::true_type {};
template <class T>
struct is_string_map : std::false_type {};
template <class U, class C, class A>
struct is_string_map<std::map<std::string, U, C, A>> : std::true_type {};

[[noreturn]] inline void field_error(const char* name, const error& e) {
  throw error(error_code::type_error, std::string("field '") + name + "': " + e.what());
}

}  // namespace detail

/// Converts a C++ value to a `value`: bool, integers, floating point, std::string, value,
/// std::vector, std::optional (empty: null), std::map<std::string, U>, and structs with
/// `fields<T>`.
template <class T>
value to_value(const T& x) {
  if constexpr (std::is_same_v<T, value>) {
    return x;
  } else if constexpr (std::is_same_v<T, bool>) {
    return value(x);
  } else if constexpr (std::is_integral_v<T>) {
    return value(static_cast<std::int64_t>(x));
  } else if constexpr (std::is_floating_point_v<T>) {
    return value(static_cast<double>(x));
  } else if constexpr (std::is_same_v<T, std::string>) {
    return value(x);
  } else if constexpr (detail::is_optional<T>::value) {
    return x ? to_value(*x) : value();
  } else if constexpr (detail::is_vector<T>::value) {
    list l;
    l.reserve(x.size());
    for (const auto& e : x) l.push_back(to_value(e));
    return value(std::move(l));
  } else if constexpr (detail::is_string_map<T>::value) {
    object o;
    for (const auto& [k, e] : x) o.set(k, to_value(e));
    return value(std::move(o));
  } else {
    static_assert(has_fields<T>::value, "specialise superstep::fields<T> for this struct");
    object o;
    std::apply([&](const auto&... f) { (o.set(f.name, to_value(x.*(f.member))), ...); },
               fields<T>::list);
    return value(std::move(o));
  }
}

/// Converts a `value` to a C++ type (see `to_value`). Absent struct fields keep their
/// default; a value of the wrong kind throws `superstep::error` (type_error) naming the field.
template <class T>
T from_value(const value& v) {
  if constexpr (std::is_same_v<T, value>) {
    return v;
  } else if constexpr (std::is_same_v<T, bool>) {
    return v.as_bool();
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(v.as_int());
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v.as_double());
  } else if constexpr (std::is_same_v<T, std::string>) {
    return v.as_string();
  } else if constexpr (detail::is_optional<T>::value) {
    if (v.is_null()) return T{};
    return T{from_value<typename T::value_type>(v)};
  } else if constexpr (detail::is_vector<T>::value) {
    T out;
    out.reserve(v.as_list().size());
    for (const auto& e : v.as_list()) out.push_back(from_value<typename T::value_type>(e));
    return out;
  } else if constexpr (detail::is_string_map<T>::value) {
    T out;
    for (const auto& [k, e] : v.as_object()) out.emplace(k, from_value<typename T::mapped_type>(e));
    return out;
  } else {
    static_assert(has_fields<T>::value, "specialise superstep::fields<T> for this struct");
    const object& o = v.as_object();
    T out{};
    std::apply(
        [&](const auto&... f) {
          (
              [&] {
                if (const value* m = o.find(f.name); m && !m->is_null()) {
                  try {
                    out.*(f.member) =
                        from_value<std::remove_reference_t<decltype(out.*(f.member))>>(*m);
                  } catch (const error& e) {
                    detail::field_error(f.name, e);
                  }
                }
              }(),
              ...);
        },
        fields<T>::list);
    return out;
  }
}

/// The names of a struct's fields, in declaration order (its state keys).
template <class T>
std::vector<std::string> field_names() {
  std::vector<std::string> names;
  std::apply([&](const auto&... f) { (names.emplace_back(f.name), ...); }, fields<T>::list);
  return names;
}

/// A state update setting some fields of `T`: what a typed node returns.
template <class T>
class partial {
 public:
  /// Sets the field `member` to `v` in the update.
  template <class M, class V>
  partial& set(M T::*member, V&& v) {
    const char* name = nullptr;
    std::apply(
        [&](const auto&... f) {
          (
              [&] {
                if constexpr (std::is_same_v<decltype(f.member), M T::*>)
                  if (f.member == member) name = f.name;
              }(),
              ...);
        },
        fields<T>::list);
    if (!name)
      throw error(error_code::invalid_argument, "partial::set: member is not in fields<T>");
    update_.set(name, superstep::to_value(M(std::forward<V>(v))));
    return *this;
  }

  /// The update as a value object of the fields set.
  value to_value() const { return value(update_); }

 private:
  object update_;
};

}  // namespace superstep
