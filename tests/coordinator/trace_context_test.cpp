// superstep::trace_context: a run's place in a trace, its headers, and the trace a run carries.
#include "superstep/pregel/trace_context.hpp"

#include <boost/test/unit_test.hpp>

#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/graph/state_graph.hpp"

using namespace superstep;

namespace {

bool names(const error& e, const std::string& part) {
  return e.code() == error_code::invalid_argument &&
         std::string(e.what()).find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_child_runs_under_its_parent_in_the_same_trace) {
  const trace_context root = trace_context::start("root-id", object{{"team", "a"}});
  BOOST_TEST(root.trace_id == "root-id");
  BOOST_TEST(root.run_id == "root-id");
  BOOST_TEST(root.parent_run_id.empty());
  // "%Y%m%dT%H%M%S", six digits of microseconds, 'Z', the id.
  BOOST_TEST(root.dotted_order.size() == 22u + 7u);
  BOOST_TEST(root.dotted_order.substr(21) == "Zroot-id");
  const trace_context child = root.child("child-id");
  BOOST_TEST(child.trace_id == "root-id");
  BOOST_TEST(child.run_id == "child-id");
  BOOST_TEST(child.parent_run_id == "root-id");
  BOOST_TEST(child.dotted_order.starts_with(root.dotted_order + "."));
  BOOST_TEST(child.dotted_order.ends_with("Zchild-id"));
  BOOST_TEST(child.metadata == root.metadata);
  // A fresh root has an id of its own.
  BOOST_TEST(trace_context::start().run_id.size() == 36u);
  BOOST_TEST(trace_context::start().run_id != trace_context::start().run_id);
}

BOOST_AUTO_TEST_CASE(its_headers_give_back_the_run_to_start_a_child_under) {
  const trace_context child = trace_context::start("root-id", object{{"k", "a b,c"}}).child("c1");
  const auto headers = child.to_headers();
  BOOST_TEST(headers.at("langsmith-trace") == child.dotted_order);
  BOOST_TEST(headers.at("baggage") == "langsmith-metadata=%7B%22k%22%3A%22a%20b%2Cc%22%7D");
  auto back = trace_context::from_headers(headers);
  BOOST_REQUIRE(back);
  BOOST_TEST((*back == child));
  // Other baggage items around it are skipped; no tracing header: no trace.
  auto mixed = headers;
  mixed["baggage"] = "team=x, " + headers.at("baggage") + ",other=1";
  BOOST_TEST((trace_context::from_headers(mixed)->metadata == child.metadata));
  BOOST_TEST(!trace_context::from_headers({{"baggage", headers.at("baggage")}}));
}

BOOST_AUTO_TEST_CASE(a_malformed_header_or_config_trace_is_named) {
  BOOST_CHECK_EXCEPTION(trace_context::from_headers({{"langsmith-trace", "abc"}}), error,
                        [](const error& e) { return names(e, "langsmith-trace 'abc'"); });
  const std::string order = trace_context::start("r").dotted_order;
  BOOST_CHECK_EXCEPTION(trace_context::from_headers(
                            {{"langsmith-trace", order}, {"baggage", "langsmith-metadata=%7"}}),
                        error, [](const error& e) { return names(e, "baggage"); });
  BOOST_CHECK_EXCEPTION(trace_context::from_headers(
                            {{"langsmith-trace", order}, {"baggage", "langsmith-metadata=%5B%5D"}}),
                        error, [](const error& e) { return names(e, "not an object"); });
  BOOST_CHECK_EXCEPTION(trace_context::of(value::parse_json(R"({"trace": 1})")), error,
                        [](const error& e) { return names(e, "config trace"); });
  BOOST_CHECK_EXCEPTION(trace_context::of(value::parse_json(R"({"trace": {"trace_id": 1}})")),
                        error, [](const error& e) { return names(e, "trace_id"); });
  BOOST_TEST(!trace_context::of(value()));
  BOOST_TEST(!trace_context::of(value::parse_json(R"({"configurable": {}})")));
}

BOOST_AUTO_TEST_CASE(a_run_given_a_trace_carries_its_own_under_it) {
  const trace_context caller = trace_context::start();
  value seen;
  state_graph g;
  g.add_key("x");
  g.add_node("n", [&](const value&, node_context& ctx) -> value {
    seen = ctx.config().get("trace");
    return object{{"x", 1}};
  });
  g.add_edge(std::string(START), "n");
  auto app = g.compile();
  value config = caller.in(object{{"run_id", "the-run"}});
  (void)app->invoke(object{{"x", 0}}, config);
  auto carried = trace_context::of(object{{"trace", seen}});
  BOOST_REQUIRE(carried);
  BOOST_TEST(carried->trace_id == caller.trace_id);
  BOOST_TEST(carried->run_id == "the-run");
  BOOST_TEST(carried->parent_run_id == caller.run_id);
  BOOST_TEST(carried->dotted_order.starts_with(caller.dotted_order + "."));
  // Without one, none.
  seen = value("unset");
  (void)app->invoke(object{{"x", 0}});
  BOOST_TEST(seen.is_null());
}
