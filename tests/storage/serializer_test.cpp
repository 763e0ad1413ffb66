// The encrypting serializer and serializer_from_env, over a test-local JSON serializer so the
// suite stands on its own: round trips, fresh nonces, wrong keys, every single-byte flip and
// truncation of a record, key lengths, the AAD binding of the inner format, and the
// SUPERSTEP_AES_KEY spellings.
#include "superstep/storage/serializer.hpp"

#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "superstep/core/error.hpp"

using namespace superstep;
using superstep::storage::make_encrypting_serializer;
using superstep::storage::serializer;

namespace {

// The `superstep` program's SUPERSTEP_AES_KEY, read as cluster/cli/env.cpp reads it: the
// library takes the key's text from its caller.
std::shared_ptr<const serializer> serializer_from_env(std::shared_ptr<const serializer> inner) {
  const char* text = std::getenv("SUPERSTEP_AES_KEY");
  return storage::serializer_with_key(std::move(inner), text ? text : "", "SUPERSTEP_AES_KEY");
}

// Values as JSON text, under a chosen name: two of these with different names write identical
// bytes, so only the name bound as AAD tells their records apart.
class json_serializer final : public serializer {
 public:
  explicit json_serializer(std::string name) : name_(std::move(name)) {}
  std::string_view name() const noexcept override { return name_; }
  std::string dumps(const value& v) const override { return v.to_json(); }
  value loads(std::string_view bytes) const override { return value::parse_json(bytes); }

 private:
  std::string name_;
};

std::shared_ptr<const serializer> json(std::string name = "json") {
  return std::make_shared<json_serializer>(std::move(name));
}

std::string key_of(unsigned char first) {
  std::string key;
  for (int i = 0; i < 32; ++i) key.push_back(static_cast<char>(first + i));
  return key;
}

constexpr std::size_t overhead = 4 + 12 + 16;  // "SSE1", nonce, tag
constexpr const char* auth_message =
    "encrypted record failed authentication: wrong key or tampered data";

std::vector<value> sample_values() {
  return {value(),
          value(true),
          value(-42),
          value(3.5),
          value(""),
          value("secret payload"),
          value(bytes{std::string("\0\x01\xff", 3)}),
          value::array({1, "two", value::array({3.0}), object{{"k", nullptr}}}),
          value(object{{"foo", "bar"}, {"bar", value::array({"a", "b"})}, {"n", 7}}),
          value(std::string(1 << 20, 'x'))};
}

// The error `f` throws, or nullopt when it throws none.
template <class F>
std::optional<error> thrown_by(F&& f) {
  try {
    f();
  } catch (const error& e) {
    return e;
  }
  return std::nullopt;
}

// Saves SUPERSTEP_AES_KEY and puts it back after the test.
struct env_key_fixture {
  env_key_fixture() {
    if (const char* v = std::getenv("SUPERSTEP_AES_KEY")) saved = v;
  }
  ~env_key_fixture() {
    if (saved)
      setenv("SUPERSTEP_AES_KEY", saved->c_str(), 1);
    else
      unsetenv("SUPERSTEP_AES_KEY");
  }
  std::optional<std::string> saved;
};

const std::string hex_key_0 = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const std::string base64_key_0 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
const std::string hex_key_a0_upper =
    "A0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBF";
const std::string base64_key_a0 = "oKGio6SlpqeoqaqrrK2ur7CxsrO0tba3uLm6u7y9vr8=";

}  // namespace

BOOST_AUTO_TEST_CASE(round_trips_every_value_kind_and_names_the_inner_format) {
  auto s = make_encrypting_serializer(json(), key_of(0));
  BOOST_TEST(s->name() == "aes-256-gcm+json");
  for (const value& v : sample_values()) {
    const std::string record = s->dumps(v);
    BOOST_TEST(record.size() == overhead + v.to_json().size());
    BOOST_TEST(record.substr(0, 4) == "SSE1");
    BOOST_TEST(s->loads(record) == v);
  }
}

BOOST_AUTO_TEST_CASE(hides_the_plaintext) {
  auto s = make_encrypting_serializer(json(), key_of(0));
  const std::string record = s->dumps(value("a very recognisable secret"));
  BOOST_TEST(record.find("recognisable") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(two_dumps_of_one_value_differ_in_nonce_and_both_load) {
  auto s = make_encrypting_serializer(json(), key_of(0));
  const value v = object{{"foo", "bar"}};
  const std::string a = s->dumps(v), b = s->dumps(v);
  BOOST_TEST(a != b);
  BOOST_TEST(a.substr(4, 12) != b.substr(4, 12));
  BOOST_TEST(s->loads(a) == v);
  BOOST_TEST(s->loads(b) == v);
}

BOOST_AUTO_TEST_CASE(a_wrong_key_fails_authentication) {
  auto writer = make_encrypting_serializer(json(), key_of(0));
  auto reader = make_encrypting_serializer(json(), key_of(1));
  const std::string record = writer->dumps(value("hello"));
  auto e = thrown_by([&] { (void)reader->loads(record); });
  BOOST_REQUIRE(e);
  BOOST_TEST(e->code() == error_code::storage_error);
  BOOST_TEST(std::string(e->what()) == auth_message);
}

BOOST_AUTO_TEST_CASE(flipping_any_single_byte_of_a_record_is_a_storage_error) {
  auto s = make_encrypting_serializer(json(), key_of(7));
  const std::string record = s->dumps(value::array({1, "ab"}));
  for (std::size_t i = 0; i < record.size(); ++i) {
    for (unsigned char mask : {0x01, 0x80, 0xff}) {
      std::string damaged = record;
      damaged[i] = static_cast<char>(damaged[i] ^ mask);
      auto e = thrown_by([&] { (void)s->loads(damaged); });
      BOOST_TEST_REQUIRE(e.has_value(), "byte " << i << " mask " << int(mask) << " loaded");
      BOOST_TEST(e->code() == error_code::storage_error);
      const std::string message = e->what();
      if (i < 4)
        BOOST_TEST(message.find("encrypted record: wrong magic") == 0, message);
      else
        BOOST_TEST(message == auth_message, "byte " << i << ": " << message);
    }
  }
}

BOOST_AUTO_TEST_CASE(every_truncation_and_an_extension_of_a_record_is_a_storage_error) {
  auto s = make_encrypting_serializer(json(), key_of(7));
  const std::string record = s->dumps(value("truncate me"));
  for (std::size_t n = 0; n < record.size(); ++n) {
    auto e = thrown_by([&] { (void)s->loads(std::string_view(record).substr(0, n)); });
    BOOST_TEST_REQUIRE(e.has_value(), "a record cut to " << n << " bytes loaded");
    BOOST_TEST(e->code() == error_code::storage_error);
    const std::string message = e->what();
    if (n < overhead)
      BOOST_TEST(message.find("encrypted record: " + std::to_string(n) + " bytes is shorter") == 0,
                 message);
    else
      BOOST_TEST(message == auth_message, message);
  }
  auto e = thrown_by([&] { (void)s->loads(record + '\0'); });
  BOOST_REQUIRE(e);
  BOOST_TEST(std::string(e->what()) == auth_message);
}

BOOST_AUTO_TEST_CASE(rejects_bytes_that_are_not_an_encrypted_record) {
  auto s = make_encrypting_serializer(json(), key_of(0));
  const std::string plain = R"({"not":"encrypted","padding":"...................."})";
  auto e = thrown_by([&] { (void)s->loads(plain); });
  BOOST_REQUIRE(e);
  BOOST_TEST(e->code() == error_code::storage_error);
  BOOST_TEST(std::string(e->what()).find("wrong magic") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_record_of_one_inner_format_does_not_load_through_another) {
  auto a = make_encrypting_serializer(json("json-a"), key_of(3));
  auto b = make_encrypting_serializer(json("json-b"), key_of(3));
  const std::string record = a->dumps(value("same bytes inside"));
  BOOST_TEST(a->loads(record) == value("same bytes inside"));
  auto e = thrown_by([&] { (void)b->loads(record); });
  BOOST_REQUIRE(e);
  BOOST_TEST(e->code() == error_code::storage_error);
  BOOST_TEST(std::string(e->what()) == auth_message);
}

BOOST_AUTO_TEST_CASE(a_key_of_another_length_is_an_invalid_argument) {
  for (std::size_t n : {0, 16, 31, 33, 64}) {
    auto e = thrown_by([&] { (void)make_encrypting_serializer(json(), std::string(n, 'k')); });
    BOOST_TEST_REQUIRE(e.has_value(), n << "-byte key accepted");
    BOOST_TEST(e->code() == error_code::invalid_argument);
    BOOST_TEST(std::string(e->what()) ==
               "AES-256-GCM needs a 32-byte key, got " + std::to_string(n));
  }
}

BOOST_AUTO_TEST_CASE(is_safe_to_share_between_threads) {
  auto s = make_encrypting_serializer(json(), key_of(9));
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        const value v = object{{"thread", t}, {"i", i}};
        if (s->loads(s->dumps(v)) != v) ++failures[t];
      }
    });
  for (auto& th : threads) th.join();
  for (int f : failures) BOOST_TEST(f == 0);
}

BOOST_FIXTURE_TEST_CASE(from_env_without_a_key_returns_the_inner_serializer, env_key_fixture) {
  auto inner = json();
  unsetenv("SUPERSTEP_AES_KEY");
  BOOST_TEST(serializer_from_env(inner) == inner);
  setenv("SUPERSTEP_AES_KEY", "", 1);
  BOOST_TEST(serializer_from_env(inner) == inner);
}

BOOST_FIXTURE_TEST_CASE(from_env_decodes_hex_and_base64_keys, env_key_fixture) {
  const value v = object{{"foo", "bar"}};
  struct spelling {
    std::string text;
    unsigned char first;
  };
  for (const auto& [text, first] :
       {spelling{hex_key_0, 0}, spelling{base64_key_0, 0}, spelling{hex_key_a0_upper, 0xa0},
        spelling{base64_key_a0, 0xa0}}) {
    setenv("SUPERSTEP_AES_KEY", text.c_str(), 1);
    auto from_env = serializer_from_env(json());
    BOOST_TEST(from_env->name() == "aes-256-gcm+json");
    // The decoded key is exactly the 32 bytes written: records cross in both directions.
    auto direct = make_encrypting_serializer(json(), key_of(first));
    BOOST_TEST(direct->loads(from_env->dumps(v)) == v, text);
    BOOST_TEST(from_env->loads(direct->dumps(v)) == v, text);
    auto other = make_encrypting_serializer(json(), key_of(first + 1));
    BOOST_TEST(thrown_by([&] { (void)other->loads(from_env->dumps(v)); }).has_value());
  }
}

BOOST_FIXTURE_TEST_CASE(from_env_rejects_malformed_keys_without_printing_them, env_key_fixture) {
  const std::vector<std::string> malformed = {
      hex_key_0.substr(0, 63),             // 63 hex digits
      hex_key_0 + "0",                     // 65 hex digits
      hex_key_0.substr(0, 62) + "zz",      // not hex
      base64_key_0.substr(0, 43),          // unpadded
      base64_key_0.substr(0, 43) + "A",    // 44 digits: 33 bytes
      "*" + base64_key_0.substr(1),        // not base64
      base64_key_0.substr(0, 42) + "9=",   // non-zero padding bits
      "-_" + base64_key_0.substr(2),       // URL-safe alphabet
      "0123456789abcdef0123456789abcdef",  // 32 characters used as raw bytes
      " " + hex_key_0,                     // stray space
  };
  for (const std::string& text : malformed) {
    setenv("SUPERSTEP_AES_KEY", text.c_str(), 1);
    auto e = thrown_by([&] { (void)serializer_from_env(json()); });
    BOOST_TEST_REQUIRE(e.has_value(), "accepted \"" << text << "\"");
    BOOST_TEST(e->code() == error_code::invalid_argument);
    const std::string message = e->what();
    BOOST_TEST(message ==
               "SUPERSTEP_AES_KEY must be 64 hex digits or 44 base64 characters (a 32-byte key)");
    BOOST_TEST(message.find(text) == std::string::npos);
  }
}
