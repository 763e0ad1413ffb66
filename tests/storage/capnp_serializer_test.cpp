// The Cap'n Proto serializer (make_capnp_serializer): every value kind round-trips exactly
// (kinds, bits of doubles, key order, NULs); deep nesting round-trips up to the documented
// limit and is refused beyond it when writing; garbage, truncated or flipped bytes are a
// storage_error, never a crash.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include "superstep/core/error.hpp"
#include "superstep/storage/serializer.hpp"
#include "support/expect_error.hpp"

using namespace superstep;
using superstep::storage::make_capnp_serializer;
using superstep::test::expect_error;

namespace {

// Equal and of the same kinds throughout, doubles bit for bit, object keys in the same order.
bool identical(const value& a, const value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case value_kind::null: return true;
    case value_kind::boolean: return a.as_bool() == b.as_bool();
    case value_kind::integer: return a.as_int() == b.as_int();
    case value_kind::real: {
      const double x = a.as_double(), y = b.as_double();
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    case value_kind::string: return a.as_string() == b.as_string();
    case value_kind::bytes: return a.as_bytes() == b.as_bytes();
    case value_kind::list: {
      const auto &x = a.as_list(), &y = b.as_list();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i)
        if (!identical(x[i], y[i])) return false;
      return true;
    }
    case value_kind::object: {
      const auto &x = a.as_object(), &y = b.as_object();
      if (x.size() != y.size()) return false;
      for (auto i = x.begin(), j = y.begin(); i != x.end(); ++i, ++j)
        if (i->first != j->first || !identical(i->second, j->second)) return false;
      return true;
    }
    case value_kind::send: {
      const send_packet &x = a.as_send(), &y = b.as_send();
      return x.node() == y.node() && identical(x.arg(), y.arg()) &&
             identical(x.timeout(), y.timeout());
    }
  }
  return false;
}

value round_trip(const value& v) {
  auto serde = make_capnp_serializer();
  return serde->loads(serde->dumps(v));
}

value nested_lists(int depth) {
  value v = "leaf";
  for (int i = 0; i < depth; ++i) v = value::array({v});
  return v;
}

value nested_objects(int depth) {
  value v = 1;
  for (int i = 0; i < depth; ++i) v = object{{"k" + std::to_string(i), v}};
  return v;
}

// The error loads(bytes) throws, or nullopt when it reads a value.
std::optional<error> loads_error(std::string_view bytes) {
  try {
    (void)make_capnp_serializer()->loads(bytes);
  } catch (const error& e) {
    return e;
  }
  return std::nullopt;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_value_kind_round_trips_exactly) {
  std::string all_bytes;
  for (int c = 0; c < 256; ++c) all_bytes.push_back(static_cast<char>(c));
  const std::vector<value> values{
      value(),
      value(true),
      value(false),
      value(0),
      value(std::numeric_limits<std::int64_t>::min()),
      value(std::numeric_limits<std::int64_t>::max()),
      value(-0.0),
      value(2.0),
      value(1e308),
      value(std::numeric_limits<double>::denorm_min()),
      value(-std::numeric_limits<double>::infinity()),
      value(""),
      value("h\xc3\xa9llo \xe2\x9c\x93 \xf0\x9f\x98\x80"),
      value(std::string("nul\0inside", 10)),
      value(bytes{}),
      value(bytes{all_bytes}),
      value(list{}),
      value::array({1, 2.0, "3", value::array({value()}), bytes{"b"}}),
      value(object{}),
      value(object{{"z", 1}, {"a", 2}, {std::string("k\0", 2), object{{"", list{}}}}}),
      value(std::string(1 << 20, 'x')),
      value::send("worker", object{{"item", 1}}),
      value::send("", value()),
      value::send("w", value::array({value::send("inner", 2.5)}), object{{"run_timeout_ms", 10}}),
  };
  for (const auto& v : values) {
    const value back = round_trip(v);
    BOOST_TEST(identical(back, v), v << " came back as " << back);
  }
  BOOST_TEST(make_capnp_serializer()->name() == "capnp");
  BOOST_TEST(std::signbit(round_trip(-0.0).as_double()));
  BOOST_TEST(std::isnan(round_trip(std::nan("")).as_double()));
}

BOOST_AUTO_TEST_CASE(bytes_at_any_alignment_are_read) {
  const value v = object{{"list", value::array({1, "two"})}, {"s", "text"}};
  const std::string bytes = make_capnp_serializer()->dumps(v);
  for (std::size_t offset = 0; offset < 8; ++offset) {
    std::string shifted(offset, '#');
    shifted += bytes;
    const value back = make_capnp_serializer()->loads(std::string_view(shifted).substr(offset));
    BOOST_TEST(identical(back, v), "offset " << offset);
  }
}

BOOST_AUTO_TEST_CASE(deep_nesting_round_trips_up_to_the_limit) {
  for (int depth : {64, 200, 511}) {
    const value v = nested_lists(depth);
    BOOST_TEST(identical(round_trip(v), v), depth << " nested lists");
  }
  for (int depth : {64, 200, 341}) {
    const value v = nested_objects(depth);
    BOOST_TEST(identical(round_trip(v), v), depth << " nested objects");
  }
  // Beyond it, nothing is written that could not be read back.
  expect_error([] { (void)make_capnp_serializer()->dumps(nested_lists(512)); },
               error_code::storage_error, "nested too deeply");
  expect_error([] { (void)make_capnp_serializer()->dumps(nested_objects(342)); },
               error_code::storage_error, "511 nested lists or 341 nested objects");
}

BOOST_AUTO_TEST_CASE(garbage_and_truncated_bytes_are_a_storage_error) {
  expect_error([] { (void)make_capnp_serializer()->loads(""); }, error_code::storage_error,
               "0 bytes");
  expect_error([] { (void)make_capnp_serializer()->loads("garbage"); }, error_code::storage_error,
               "capnp serializer: unreadable value (7 bytes)");
  expect_error([] { (void)make_capnp_serializer()->loads("garbage!garbage!"); },
               error_code::storage_error, "unreadable value");
  expect_error([] { (void)make_capnp_serializer()->loads(std::string(64, '\xff')); },
               error_code::storage_error, "unreadable value");

  const value v = object{{"messages", value::array({"hi", object{{"n", 1}}})}, {"b", bytes{"x"}}};
  const std::string good = make_capnp_serializer()->dumps(v);
  BOOST_TEST(identical(make_capnp_serializer()->loads(good), v));
  for (std::size_t n = 0; n < good.size(); ++n) {
    auto e = loads_error(good.substr(0, n));
    BOOST_TEST(e.has_value(), "truncated to " << n << " bytes and read");
    if (e) BOOST_TEST((e->code() == error_code::storage_error), e->what());
  }
  expect_error([&] { (void)make_capnp_serializer()->loads(good + std::string(8, '\0')); },
               error_code::storage_error, "8 bytes follow the message");

  // Flipping any bit of any byte: a value or a storage_error, never a crash or another error.
  std::size_t refused = 0;
  for (std::size_t i = 0; i < good.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = good;
      bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
      if (auto e = loads_error(bad)) {
        ++refused;
        BOOST_TEST((e->code() == error_code::storage_error), e->what());
      }
    }
  BOOST_TEST(refused > 0u);
}

// A list that holds itself cannot be built, only forged in bytes; a reader without a nesting
// limit would recurse until its stack overflows.
BOOST_AUTO_TEST_CASE(a_list_that_contains_itself_is_refused_when_read) {
  std::string bytes = make_capnp_serializer()->dumps(nested_lists(2));  // [["leaf"]]
  // One segment: an 8-byte segment table, then words. Walk the pointers to the inner list.
  const auto word = [&](std::size_t i) {
    std::uint64_t w;
    std::memcpy(&w, bytes.data() + 8 + 8 * i, 8);
    return w;
  };
  const auto offset = [](std::uint64_t pointer) {
    return static_cast<std::int64_t>(static_cast<std::int32_t>(pointer & 0xffffffffu) >> 2);
  };
  const std::size_t data_words = (word(0) >> 32) & 0xffff;  // of every Value struct
  const std::size_t outer = 1 + data_words;                 // root's pointer: the outer list
  const std::size_t outer_tag = outer + 1 + offset(word(outer));
  const std::size_t outer_elem = outer_tag + 1;
  const std::size_t inner = outer_elem + data_words;  // its pointer: the inner list
  const std::size_t inner_tag = inner + 1 + offset(word(inner));
  const std::size_t inner_elem = inner_tag + 1;
  const std::size_t leaf = inner_elem + data_words;  // its pointer: the text "leaf"
  BOOST_REQUIRE(8 + 8 * (leaf + 1) <= bytes.size());
  // The inner element becomes a list (its data words say so) that points to its own list.
  std::memcpy(bytes.data() + 8 + 8 * inner_elem, bytes.data() + 8 + 8 * outer_elem, 8 * data_words);
  std::uint64_t cycle = word(inner) & ~std::uint64_t{0xffffffff};
  cycle |= static_cast<std::uint32_t>(
      (static_cast<std::int64_t>(inner_tag) - static_cast<std::int64_t>(leaf + 1)) * 4 + 1);
  std::memcpy(bytes.data() + 8 + 8 * leaf, &cycle, 8);
  expect_error([&] { (void)make_capnp_serializer()->loads(bytes); }, error_code::storage_error,
               "too deeply-nested or contains cycles");
}

// Values of 16 KB and more are written packed (a big list of small objects is mostly zero
// bytes as a flat message); damaged packed bytes are as clear an error as damaged flat ones.
BOOST_AUTO_TEST_CASE(big_values_are_written_packed_and_read_back) {
  list sends;
  for (int i = 0; i < 5000; ++i)
    sends.push_back(object{{"__send__", "worker"}, {"arg", object{{"item", i}}}});
  const value big(std::move(sends));
  auto serde = make_capnp_serializer();
  const std::string bytes = serde->dumps(big);
  BOOST_TEST(bytes.substr(0, 8) == std::string("\xff\xff\xff\xffpack", 8));
  BOOST_TEST(bytes.size() < 5000u * 100);  // flat, each object takes ~180 bytes
  BOOST_TEST(serde->loads(bytes) == big);
  // Small values stay flat.
  BOOST_TEST(serde->dumps(value("small")).substr(0, 4) != std::string(4, '\xff'));

  const auto expect_unreadable = [](const std::string& damaged) {
    auto e = loads_error(damaged);
    BOOST_TEST_REQUIRE(e.has_value());
    BOOST_TEST(e->code() == error_code::storage_error);
    BOOST_TEST(std::string(e->what()).find("unreadable value") != std::string::npos);
  };
  expect_unreadable(bytes.substr(0, bytes.size() / 2));
  expect_unreadable(bytes + "12345678");
  // A few bytes claiming a huge run of zero words: refused, not allocated.
  std::string bomb = bytes.substr(0, 8);
  for (int i = 0; i < 64; ++i) bomb += std::string("\x00\xff", 2);
  expect_unreadable(bomb);
}

// A list of 16384 elements or more (a fan-out's Sends, a long append list) is written in parts
// of that many elements, never as one message held whole unpacked; it reads back the same,
// and damaged parts are a clear error.
BOOST_AUTO_TEST_CASE(a_big_list_is_written_in_parts_and_read_back) {
  list sends;
  for (int i = 0; i < 40000; ++i)
    sends.push_back(object{{"__send__", "worker"}, {"arg", object{{"item", i}}}});
  const value big(std::move(sends));
  auto serde = make_capnp_serializer();
  const std::string bytes = serde->dumps(big);
  const std::string magic("\xff\xff\xff\xffpart", 8);
  BOOST_TEST(bytes.substr(0, 8) == magic);
  BOOST_TEST(bytes.size() < 40000u * 100);  // each part packed
  BOOST_TEST(identical(serde->loads(bytes), big));
  // Just below the threshold: one message.
  const value smaller(list(big.as_list().begin(), big.as_list().begin() + 16383));
  BOOST_TEST(serde->dumps(smaller).substr(0, 8) != magic);
  BOOST_TEST(identical(serde->loads(serde->dumps(smaller)), smaller));

  const auto expect_unreadable = [](const std::string& damaged, const std::string& why) {
    auto e = loads_error(damaged);
    BOOST_TEST_REQUIRE(e.has_value());
    BOOST_TEST(e->code() == error_code::storage_error);
    BOOST_TEST(std::string(e->what()).find("unreadable value") != std::string::npos, e->what());
    BOOST_TEST(std::string(e->what()).find(why) != std::string::npos, e->what());
  };
  // Cut anywhere: an error, never a crash or a shorter list.
  for (std::size_t n = 0; n < bytes.size(); n += 997) {
    auto e = loads_error(bytes.substr(0, n));
    BOOST_TEST(e.has_value(), "cut to " << n << " bytes and read");
  }
  // A count that is not what the parts hold, either way.
  std::string more = bytes;
  more[8] = static_cast<char>(more[8] + 1);
  expect_unreadable(more, "holds 40000 of its 40001 elements");
  std::string fewer = bytes;
  fewer[8] = static_cast<char>(fewer[8] - 1);
  expect_unreadable(fewer, "more elements than it claims");
  // A huge count is refused before anything is reserved for it.
  std::string huge = bytes;
  huge[15] = '\x7f';
  expect_unreadable(huge, "more elements than its bytes hold");
  // A part that is not a list.
  const std::string part = serde->dumps(value("not a list"));
  std::string forged = magic + std::string("\x01\0\0\0\0\0\0\0", 8);
  forged.push_back(static_cast<char>(part.size()));
  forged += std::string(7, '\0') + part;
  expect_unreadable(forged, "is not a list");
}
