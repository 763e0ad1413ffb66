// The OpenAI-compatible HTTP embedder against a real HTTP server on loopback
// (support/embeddings_server.hpp): requests, keys, batches, every failure named, and a store
// indexed through it.
#include "superstep/storage/embedder_openai.hpp"

#include <chrono>
#include <cstdlib>
#include <optional>

#include "superstep/storage/store_rocksdb.hpp"
#include "support/embeddings_server.hpp"
#include "support/environment_keys.hpp"
#include "support/expect_error.hpp"
#include "support/temp_dir.hpp"

using namespace superstep;
using server = superstep::test::embeddings_server;
using superstep::test::expect_error;

namespace {

constexpr std::size_t dims = 16;

// The embedder's key variables, cleared for each test that uses this, put back after.
struct key_environment {
  static constexpr const char* names[] = {"SUPERSTEP_EMBEDDINGS_KEY", "OPENAI_API_KEY",
                                          "SUPERSTEP_TEST_KEY"};
  std::optional<std::string> saved[3];
  key_environment() {
    for (int i = 0; i < 3; ++i) {
      if (const char* v = std::getenv(names[i])) saved[i] = v;
      ::unsetenv(names[i]);
    }
  }
  ~key_environment() {
    for (int i = 0; i < 3; ++i) {
      if (saved[i])
        ::setenv(names[i], saved[i]->c_str(), 1);
      else
        ::unsetenv(names[i]);
    }
  }
};

storage::openai_embedder_options options_for(const server& s, std::size_t n = dims) {
  storage::openai_embedder_options o;
  o.url = s.url();
  o.model = "test-model";
  o.dims = n;
  o.timeout = std::chrono::milliseconds(5000);
  o.keys = superstep::test::environment_keys();  // the library reads no environment
  return o;
}

std::vector<std::vector<float>> expected(const std::vector<std::string>& texts,
                                         std::size_t n = dims) {
  return storage::make_hashing_embedder(n)(texts);
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(openai_embedder, key_environment)

BOOST_AUTO_TEST_CASE(vectors_come_back_in_input_order_with_the_models_values) {
  server s(dims);
  ::setenv("SUPERSTEP_EMBEDDINGS_KEY", "sk-test-123", 1);
  auto embed = storage::make_openai_embedder(options_for(s));
  const std::vector<std::string> texts{"I like pizza", "chess on weekends", "rain in Paris"};
  // The server lists the vectors last to first, each with its index.
  BOOST_TEST((embed(texts) == expected(texts)));
  const auto seen = s.requests();
  BOOST_REQUIRE_EQUAL(seen.size(), 1u);
  BOOST_TEST(seen[0].method == "POST");
  BOOST_TEST(seen[0].path == "/v1/embeddings");
  BOOST_TEST(seen[0].authorization == "Bearer sk-test-123");
  BOOST_TEST(
      seen[0].body.to_json() ==
      R"({"model":"test-model","input":["I like pizza","chess on weekends","rain in Paris"]})");
  // No texts, no request.
  BOOST_TEST(embed({}).empty());
  BOOST_TEST(s.requests().size() == 1u);
}

BOOST_AUTO_TEST_CASE(texts_beyond_the_batch_size_go_in_several_requests_in_order) {
  server s(dims);
  auto o = options_for(s);
  o.batch = 2;
  auto embed = storage::make_openai_embedder(o);
  const std::vector<std::string> texts{"one", "two", "three", "four", "five"};
  BOOST_TEST((embed(texts) == expected(texts)));
  const auto seen = s.requests();
  BOOST_REQUIRE_EQUAL(seen.size(), 3u);
  BOOST_TEST(seen[0].body.get("input").to_json() == R"(["one","two"])");
  BOOST_TEST(seen[1].body.get("input").to_json() == R"(["three","four"])");
  BOOST_TEST(seen[2].body.get("input").to_json() == R"(["five"])");
}

BOOST_AUTO_TEST_CASE(the_key_comes_from_the_environment_superstep_variable_first) {
  server s(dims);
  const auto authorization = [&](const storage::openai_embedder_options& o) {
    static_cast<void>(storage::make_openai_embedder(o)({"x"}));
    return s.requests().back().authorization;
  };
  auto o = options_for(s);
  BOOST_TEST(authorization(o) == "");  // no key: no header
  ::setenv("OPENAI_API_KEY", "sk-openai", 1);
  BOOST_TEST(authorization(o) == "Bearer sk-openai");
  ::setenv("SUPERSTEP_EMBEDDINGS_KEY", "sk-superstep", 1);
  BOOST_TEST(authorization(o) == "Bearer sk-superstep");
  o.key_env = "SUPERSTEP_TEST_KEY";
  expect_error([&] { (void)storage::make_openai_embedder(o); }, error_code::invalid_argument,
               "SUPERSTEP_TEST_KEY");
  ::setenv("SUPERSTEP_TEST_KEY", "sk-named", 1);
  BOOST_TEST(authorization(o) == "Bearer sk-named");
  o.api_key = "sk-given";
  BOOST_TEST(authorization(o) == "Bearer sk-given");
}

BOOST_AUTO_TEST_CASE(send_dims_asks_the_model_for_fewer_dimensions) {
  server s(dims);
  auto o = options_for(s);
  o.dims = 8;
  o.send_dims = true;
  BOOST_TEST((storage::make_openai_embedder(o)({"pizza"}) == expected({"pizza"}, 8)));
  BOOST_TEST(s.requests().back().body.get("dimensions") == value(8));
}

BOOST_AUTO_TEST_CASE(an_http_error_names_the_status_and_the_servers_message_never_the_key) {
  server s(dims);
  s.set_mode(server::mode::unauthorized);
  auto o = options_for(s);
  o.api_key = "sk-wrong-key";
  try {
    (void)storage::make_openai_embedder(o)({"pizza"});
    BOOST_FAIL("no error");
  } catch (const error& e) {
    const std::string what = e.what();
    BOOST_TEST((e.code() == error_code::unauthorized), what);
    BOOST_TEST(what.find("HTTP 401") != std::string::npos, what);
    BOOST_TEST(what.find("Incorrect API key provided") != std::string::npos, what);
    BOOST_TEST(what.find(s.url()) != std::string::npos, what);
    BOOST_TEST(what.find("sk-wrong-key") == std::string::npos, what);
  }
  BOOST_TEST(s.requests().back().authorization == "Bearer sk-wrong-key");
}

BOOST_AUTO_TEST_CASE(answers_without_one_vector_of_dims_numbers_per_text_are_named) {
  const auto expect_failure = [](server::mode m, error_code code, const std::string& part) {
    server s(dims);
    s.set_mode(m);
    expect_error(
        [&] {
          (void)storage::make_openai_embedder(options_for(s))({"a", "b"});
        },
        code, part);
  };
  expect_failure(server::mode::malformed, error_code::protocol_error, "the answer is not JSON");
  expect_failure(server::mode::short_data, error_code::protocol_error, "1 embeddings for 2 texts");
  // Listed last to first: text 1 comes first.
  expect_failure(server::mode::wrong_dims, error_code::invalid_argument,
                 "the vector of text 1 has dimension 17, the index expects 16");
}

BOOST_AUTO_TEST_CASE(an_answer_slower_than_the_timeout_is_unavailable) {
  server s(dims);
  s.set_mode(server::mode::slow);
  auto o = options_for(s);
  o.timeout = std::chrono::milliseconds(200);
  const auto start = std::chrono::steady_clock::now();
  expect_error([&] { (void)storage::make_openai_embedder(o)({"a"}); }, error_code::unavailable,
               "no answer within 200 ms");
  BOOST_TEST((std::chrono::steady_clock::now() - start < std::chrono::seconds(5)));
}

BOOST_AUTO_TEST_CASE(a_closed_port_is_unavailable) {
  storage::openai_embedder_options o;
  {
    server gone(dims);
    o = options_for(gone);
  }
  expect_error([&] { (void)storage::make_openai_embedder(o)({"a"}); }, error_code::unavailable,
               "cannot connect");
}

BOOST_AUTO_TEST_CASE(bad_options_are_refused_when_made) {
  storage::openai_embedder_options o;
  o.url = "";
  expect_error([&] { (void)storage::make_openai_embedder(o); }, error_code::invalid_argument,
               "url");
  o = {};
  o.batch = 0;
  expect_error([&] { (void)storage::make_openai_embedder(o); }, error_code::invalid_argument,
               "batch");
  o = {};
  o.send_dims = true;
  expect_error([&] { (void)storage::make_openai_embedder(o); }, error_code::invalid_argument,
               "send_dims needs dims");
  o = {};
  o.url = "ftp://127.0.0.1/v1/embeddings";
  expect_error([&] { (void)storage::make_openai_embedder(o)({"a"}); }, error_code::invalid_argument,
               "bad url");
}

// A store indexed through the endpoint: a put whose embedding fails changes nothing, and a
// query ranks by the model's vectors.
BOOST_AUTO_TEST_CASE(a_store_indexed_over_http_keeps_its_items_when_the_endpoint_fails) {
  constexpr std::size_t store_dims = 128;  // fewer collisions of the hashing "model"
  server s(store_dims);
  test::temp_dir dir;
  storage::rocksdb_store_options so;
  so.sync = false;
  so.index = storage::index_config{
      store_dims, storage::make_openai_embedder(options_for(s, store_dims)), {"$"}};
  so.index->embedder_id = "openai/test-model";
  auto store = storage::rocksdb_store::open(dir.str(), so);
  const storage::namespace_path ns{"1", "memories"};
  store->put(ns, "food", object{{"food_preference", "I like pizza"}});
  store->put(ns, "hobby", object{{"hobby", "I play chess on weekends"}});

  s.set_mode(server::mode::unauthorized);
  expect_error(
      [&] {
        store->put(ns, "weather", object{{"weather", "rain in Paris"}});
      },
      error_code::unauthorized, "HTTP 401");
  expect_error(
      [&] {
        store->put(ns, "food", object{{"food_preference", "I like sushi"}});
      },
      error_code::unauthorized, "HTTP 401");
  s.set_mode(server::mode::wrong_dims);
  expect_error(
      [&] {
        store->put(ns, "food", object{{"food_preference", "I like soup"}});
      },
      error_code::invalid_argument, "dimension 129");
  BOOST_TEST(!store->get(ns, "weather").has_value());
  BOOST_TEST(store->get(ns, "food")->v == value(object{{"food_preference", "I like pizza"}}));

  s.set_mode(server::mode::good);
  storage::search_options q;
  q.ns_prefix = {"1"};
  q.query = "What does the user like to eat? pizza";
  const auto found = store->search(q);
  BOOST_REQUIRE_EQUAL(found.size(), 2u);
  BOOST_TEST(found[0].key == "food");
  BOOST_TEST(*found[0].score > *found[1].score);
  BOOST_TEST(s.requests().back().body.get("input").to_json() ==
             R"(["What does the user like to eat? pizza"])");
}

BOOST_AUTO_TEST_SUITE_END()
