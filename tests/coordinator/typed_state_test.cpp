// Users' own structs as graph state.
#include <boost/test/unit_test.hpp>

#include "superstep/core/error.hpp"
#include "superstep/graph/typed_node.hpp"
#include "test_execution.hpp"

namespace {

struct essay {
  std::string topic;
  std::optional<std::string> content;
  std::optional<double> score;
  std::vector<std::string> notes;
};

}  // namespace

template <>
struct superstep::fields<essay> {
  static constexpr auto list =
      std::make_tuple(field("topic", &essay::topic), field("content", &essay::content),
                      field("score", &essay::score), field("notes", &essay::notes));
};

using namespace superstep;

BOOST_AUTO_TEST_CASE(struct_state_round_trips_through_values) {
  essay e{"cats", "about cats", 9.5, {"a", "b"}};
  value v = to_value(e);
  BOOST_TEST(v.to_json() ==
             R"({"topic":"cats","content":"about cats","score":9.5,"notes":["a","b"]})");
  essay back = from_value<essay>(v);
  BOOST_TEST(back.topic == "cats");
  BOOST_TEST(*back.content == "about cats");
  BOOST_TEST(back.notes.size() == 2u);
  essay sparse = from_value<essay>(value::parse_json(R"({"topic":"x"})"));
  BOOST_TEST(!sparse.content.has_value());
}

BOOST_AUTO_TEST_CASE(wrong_kind_names_the_field) {
  try {
    (void)from_value<essay>(value::parse_json(R"({"topic":42})"));
    BOOST_FAIL("accepted");
  } catch (const superstep::error& e) {
    BOOST_TEST(std::string(e.what()) == "field 'topic': expected string, got int");
  }
}

BOOST_AUTO_TEST_CASE(typed_nodes_run_the_seed_essay_graph) {
  state_graph b;
  add_state_keys<essay>(b, {{"notes", "append"}});
  b.add_node("write_essay", typed_node<essay>([](const essay& s, node_context&) {
               return partial<essay>()
                   .set(&essay::content, "Essay about " + s.topic)
                   .set(&essay::notes, std::vector<std::string>{"written"});
             }));
  b.add_node("score_essay", typed_node<essay>([](const essay& s, node_context&) {
               return partial<essay>()
                   .set(&essay::score, s.content->size() > 5 ? 10.0 : 0.0)
                   .set(&essay::notes, std::vector<std::string>{"scored"});
             }));
  b.add_edge("__start__", "write_essay").add_edge("write_essay", "score_essay");
  auto graph = b.compile(test::opts());
  essay out = from_value<essay>(graph->invoke(to_value(essay{"cats", {}, {}, {}})));
  BOOST_TEST(*out.content == "Essay about cats");
  BOOST_TEST(*out.score == 10.0);
  BOOST_TEST((out.notes == std::vector<std::string>{"written", "scored"}));
}
