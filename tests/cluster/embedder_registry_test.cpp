// Embedders by name in the function registry: the built-in hashing and openai embedders, ones
// registered as a node library would, and clear errors for unknown names and bad params.
#include <cstdlib>

#include "superstep/cluster/function_registry.hpp"
#include "support/embeddings_server.hpp"
#include "support/environment_keys.hpp"
#include "support/expect_error.hpp"

using namespace superstep;
using superstep::test::expect_error;

BOOST_AUTO_TEST_CASE(hashing_and_openai_are_built_in) {
  cluster::function_registry r;
  BOOST_TEST(r.has_embedder("hashing"));
  BOOST_TEST(r.has_embedder("openai"));
  BOOST_TEST(!r.has_embedder("nope"));
  BOOST_TEST((r.embedder_names() == std::vector<std::string>{"hashing", "openai"}));
  auto embed = r.make_embedder("hashing", object{{"dims", 8}});
  BOOST_TEST((embed({"pizza"}) == storage::make_hashing_embedder(8)({"pizza"})));
  expect_error([&] { r.add_embedder("hashing", [](const value&) { return storage::embed_fn(); }); },
               error_code::invalid_argument, "built in");
}

BOOST_AUTO_TEST_CASE(a_registered_embedder_is_made_with_its_params) {
  cluster::function_registry r;
  // As SUPERSTEP_PLUGIN(registry) { registry.add_embedder(...); } does.
  r.add_embedder("constant", [](const value& params) -> storage::embed_fn {
    const auto dims = static_cast<std::size_t>(params.get("dims").as_int());
    const auto x = static_cast<float>(params.get("x").as_double());
    return [dims, x](const std::vector<std::string>& texts) {
      return std::vector<std::vector<float>>(texts.size(), std::vector<float>(dims, x));
    };
  });
  auto embed = r.make_embedder("constant", object{{"dims", 3}, {"x", 0.5}});
  BOOST_TEST((embed({"a", "b"}) == std::vector<std::vector<float>>(2, {0.5f, 0.5f, 0.5f})));
  BOOST_TEST((r.embedder_names() == std::vector<std::string>{"constant", "hashing", "openai"}));
  expect_error(
      [&] { r.add_embedder("constant", [](const value&) { return storage::embed_fn(); }); },
      error_code::invalid_argument, "already registered");
  expect_error([&] { (void)r.make_embedder("nope", object{}); }, error_code::unknown_function,
               "unknown embedder 'nope' (known: constant, hashing, openai)");
}

BOOST_AUTO_TEST_CASE(bad_params_name_the_embedder_and_the_param) {
  cluster::function_registry r;
  const auto bad = [&](const char* name, object params, const std::string& part) {
    expect_error([&] { (void)r.make_embedder(name, value(params)); }, error_code::invalid_argument,
                 part);
  };
  bad("hashing", {}, "embedder 'hashing': params.dims: missing required param");
  bad("hashing", {{"dims", 0}}, "params.dims: must be at least 1");
  bad("hashing", {{"dims", 8}, {"url", "x"}}, "params.url: unknown param");
  bad("openai", {{"dims", 8}}, "embedder 'openai': params.model: missing");
  bad("openai", {{"dims", 8}, {"model", "m"}, {"send_dims", "yes"}},
      "params.send_dims: expected bool");
  bad("openai", {{"dims", 8}, {"model", "m"}, {"batch", -1}}, "params.batch: must be at least 1");
}

BOOST_AUTO_TEST_CASE(openai_params_reach_the_http_request) {
  test::embeddings_server s(8);
  ::setenv("SUPERSTEP_REGISTRY_TEST_KEY", "sk-registry", 1);
  cluster::function_registry r;
  r.set_key_source(test::environment_keys());  // as the program's, from its environment
  auto embed = r.make_embedder("openai", object{{"dims", 4},
                                                {"model", "m1"},
                                                {"url", s.url()},
                                                {"key_env", "SUPERSTEP_REGISTRY_TEST_KEY"},
                                                {"batch", 1},
                                                {"timeout_ms", 5000},
                                                {"send_dims", true}});
  BOOST_TEST((embed({"a", "b"}) == storage::make_hashing_embedder(4)({"a", "b"})));
  const auto seen = s.requests();
  BOOST_REQUIRE_EQUAL(seen.size(), 2u);  // batch 1
  BOOST_TEST(seen[0].authorization == "Bearer sk-registry");
  BOOST_TEST(seen[1].body.to_json() == R"({"model":"m1","input":["b"],"dimensions":4})");
  ::unsetenv("SUPERSTEP_REGISTRY_TEST_KEY");
}
