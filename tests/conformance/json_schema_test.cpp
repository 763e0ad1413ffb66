// libs/langgraph/tests/test_state.py and test_pregel.py: the JSON schemas of a graph's input,
// output and context. LangGraph reads them from Python type hints (TypedDict Required and
// NotRequired, dataclass defaults, entrypoint return annotations); superstep's keys declare the
// same with `key_schema`, and these cases check what LangGraph makes of the declarations.
#include <set>

#include "conformance.hpp"
#include "superstep/channels/binary_operator_aggregate.hpp"
#include "superstep/channels/ephemeral_value.hpp"
#include "superstep/channels/last_value.hpp"
#include "superstep/core/error.hpp"
#include "superstep/func/functional.hpp"
#include "support/expect_error.hpp"

using namespace superstep;
using namespace superstep::conformance;
namespace fn = superstep::functional;

namespace {

const value string_type = object{{"type", "string"}};
const value optional_string =
    object{{"anyOf", value::array({object{{"type", "string"}}, object{{"type", "null"}}})}};
const value dict_type = object{{"additionalProperties", true}, {"type", "object"}};

std::set<std::string> required_of(const value& schema) {
  std::set<std::string> out;
  if (const value* r = schema.find("required"))
    for (const auto& k : r->as_list()) out.insert(k.as_string());
  return out;
}

std::set<std::string> properties_of(const value& schema) {
  std::set<std::string> out;
  for (const auto& [k, v] : schema.get("properties").as_object()) out.insert(k);
  return out;
}

std::set<std::string> both(std::set<std::string> a, const std::set<std::string>& b) {
  a.insert(b.begin(), b.end());
  return a;
}

value identity(const value& state, node_context&) { return state; }

template <class F>
void expect_error(error_code code, const std::string& part, F&& f) {
  test::expect_error(std::forward<F>(f), code, part);
}

}  // namespace

// libs/langgraph/tests/test_state.py::test_state_schema_optional_values
// (total_: whether the TypedDicts' own keys without a Required/NotRequired marker are required)
BOOST_AUTO_TEST_CASE(test_state_schema_optional_values) {
  for (const bool total : {true, false}) {
    BOOST_TEST_CONTEXT("total " << total) {
      state_graph builder;
      // SomeParentState (total): val0a, val0b; InputState and OutputState add the others.
      builder.add_key("val0a").set_key_schema("val0a", {string_type, true});
      builder.add_key("val0b").set_key_schema("val0b", {optional_string, true});
      builder.add_key("val1").set_key_schema("val1", {string_type, total});
      builder.add_key("val2").set_key_schema("val2", {optional_string, total});
      builder.add_key("val3", "merge").set_key_schema("val3", {dict_type, true});
      builder.add_key("val4").set_key_schema("val4", {dict_type, false});
      builder.add_key("val5").set_key_schema("val5", {string_type, true});
      builder.add_key("val6").set_key_schema("val6", {string_type, false});
      builder.add_key("out_val1").set_key_schema("out_val1", {string_type, total});
      builder.add_key("out_val2").set_key_schema("out_val2", {optional_string, total});
      builder.add_key("out_val3").set_key_schema("out_val3", {string_type, true});
      builder.add_key("out_val4").set_key_schema("out_val4", {dict_type, false});
      builder.add_key("out_val5").set_key_schema("out_val5", {string_type, true});
      builder.add_key("out_val6").set_key_schema("out_val6", {string_type, false});
      builder.set_schema_title("State");
      builder.set_input_keys({"val0a", "val0b", "val1", "val2", "val3", "val4", "val5", "val6"},
                             "InputState");
      builder.set_output_keys({"val0a", "val0b", "out_val1", "out_val2", "out_val3", "out_val4",
                               "out_val5", "out_val6"},
                              "OutputState");
      builder.add_node("n", identity);
      builder.add_edge(std::string(START), "n");
      std::shared_ptr<pregel> graph = builder.compile(opts());
      const value json_schema = graph->input_json_schema();

      BOOST_TEST(dynamic_cast<const channels::binary_operator_aggregate*>(
                     graph->graph().channels.at("val3").get()) != nullptr);

      std::set<std::string> expected_required, expected_optional;
      if (total)
        expected_required = {"val1", "val2"};
      else
        expected_optional = {"val2", "val1"};
      expected_required.insert({"val0a", "val0b", "val3", "val5"});
      expected_optional.insert({"val4", "val6"});
      BOOST_TEST(required_of(json_schema) == expected_required);
      BOOST_TEST(properties_of(json_schema) == both(expected_required, expected_optional));
      BOOST_TEST(json_schema.get("title") == value("InputState"));

      const value output_schema = graph->output_json_schema();
      expected_required.clear();
      expected_optional.clear();
      if (total)
        expected_required = {"out_val1", "out_val2"};
      else
        expected_optional = {"out_val2", "out_val1"};
      expected_required.insert({"val0a", "val0b", "out_val3", "out_val5"});
      expected_optional.insert({"out_val4", "out_val6"});
      BOOST_TEST(required_of(output_schema) == expected_required);
      BOOST_TEST(properties_of(output_schema) == both(expected_required, expected_optional));
      BOOST_TEST(output_schema.get("title") == value("OutputState"));
    }
  }
}

// libs/langgraph/tests/test_state.py::test_state_schema_default_values
// (kw_only_, a dataclass option, changes nothing LangGraph asserts; one run)
BOOST_AUTO_TEST_CASE(test_state_schema_default_values) {
  const value int_type = object{{"type", "integer"}};
  const value optional_int =
      object{{"anyOf", value::array({object{{"type", "integer"}}, object{{"type", "null"}}})}};
  const value optional_number =
      object{{"anyOf", value::array({object{{"type", "number"}}, object{{"type", "null"}}})}};
  // A dataclass field without a default is required; an Optional one defaults to None.
  const std::vector<std::pair<std::string, key_schema>> fields{
      {"val1", {string_type, true}},
      {"val2", {optional_int, false, value()}},
      {"val3", {optional_number, false, value()}},
      {"val4", {optional_string, false, value()}},
      {"val5", {object{{"items", int_type}, {"type", "array"}}, false, value::array({1, 2, 3})}},
      {"val6",
       {object{{"additionalProperties", int_type}, {"type", "object"}}, false, object{{"a", 1}}}},
      {"val7", {string_type, true}},
      {"val8", {int_type, false, 42}},
      {"val9", {string_type, false, "some foo"}},
      {"val10", {string_type, false, "default"}},
      {"val11",
       {object{{"items", string_type}, {"type", "array"}}, false, value::array({"a", "b"})}}};
  state_graph builder;
  for (const auto& [name, schema] : fields) builder.add_key(name).set_key_schema(name, schema);
  builder.add_node("n", identity);
  builder.add_edge(std::string(START), "n");
  std::shared_ptr<pregel> graph = builder.compile(opts());
  const std::set<std::string> expected_required{"val1", "val7"};
  const std::set<std::string> expected_optional{"val2", "val3", "val4",  "val5", "val6",
                                                "val8", "val9", "val10", "val11"};
  for (const value& json_schema : {graph->input_json_schema(), graph->output_json_schema()}) {
    BOOST_TEST(required_of(json_schema) == expected_required);
    BOOST_TEST(properties_of(json_schema) == both(expected_required, expected_optional));
  }
  // What pydantic shows of a dataclass state, LangGraph's schema named after the graph.
  BOOST_TEST(graph->input_json_schema().get("title") == value("LangGraphInput"));
  BOOST_TEST(graph->output_json_schema().get("title") == value("LangGraphOutput"));
  BOOST_TEST(graph->input_json_schema().get("properties").get("val5").to_json() ==
             R"({"default":[1,2,3],"items":{"type":"integer"},"title":"Val5","type":"array"})");
  BOOST_TEST(graph->input_json_schema().get("properties").get("val10").to_json() ==
             R"({"default":"default","title":"Val10","type":"string"})");
}

// libs/langgraph/tests/test_pregel.py::test_context_json_schema
BOOST_AUTO_TEST_CASE(test_context_json_schema) {
  pregel_graph g;
  g.channels = {{"ephemeral", std::make_shared<channels::ephemeral_value>("ephemeral")},
                {"input", std::make_shared<channels::last_value>("input")},
                {"output", std::make_shared<channels::last_value>("output")}};
  g.nodes.push_back(subscribe_node("one", {"input"},
                                   [](const value& x, node_context&) { return x; }, {"output"}));
  g.input_channels = {"input", "ephemeral"};
  g.output_channels = {"output"};
  g.output_single = true;
  runtime_options o;
  o.mode = mode();
  // The dataclass Foo: x: int; y: str = "foo".
  o.context_schema = object_schema{
      "Foo", {{"x", {object{{"type", "integer"}}, true}}, {"y", {string_type, false, "foo"}}}};
  pregel app(std::move(g), o);
  BOOST_TEST(app.context_json_schema() == value::parse_json(R"({
    "properties": {"x": {"title": "X", "type": "integer"},
                   "y": {"default": "foo", "title": "Y", "type": "string"}},
    "required": ["x"], "title": "Foo", "type": "object"})"));
}

// libs/langgraph/tests/test_pregel.py::test_entrypoint_output_schema_with_return_and_save
// (The TypeError for `entrypoint.final[int]`, a return annotation with one type where
// LangGraph wants two, needs Python's annotations.)
BOOST_AUTO_TEST_CASE(test_entrypoint_output_schema_with_return_and_save) {
  auto body = [](const value&, fn::call_context&) { return fn::final("foo", 1); };
  fn::entrypoint_options o;
  o.runtime.mode = mode();
  // An unparameterized entrypoint.final: any value.
  o.name = "foo2";
  auto foo2 = fn::entrypoint(o, body);
  BOOST_TEST(foo2->output_json_schema() == value::parse_json(R"({"title": "LangGraphOutput"})"));
  // entrypoint.final[str, int]: the return value is a string.
  o.name = "foo";
  o.output_schema = string_type;
  auto foo = fn::entrypoint(o, body);
  BOOST_TEST(foo->output_json_schema() ==
             value::parse_json(R"({"title": "LangGraphOutput", "type": "string"})"));
  BOOST_TEST(foo->invoke("input") == value("foo"));
}

BOOST_AUTO_TEST_CASE(a_pregel_without_declared_schemas_describes_its_channels) {
  pregel_graph g;
  g.channels = {{"input", std::make_shared<channels::last_value>("input")},
                {"output", std::make_shared<channels::last_value>("output")},
                {"extra", std::make_shared<channels::last_value>("extra")}};
  g.nodes.push_back(subscribe_node("one", {"input"},
                                   [](const value& x, node_context&) { return x; }, {"output"}));
  g.input_channels = {"input", "extra"};
  g.output_channels = {"output"};
  g.output_single = true;
  g.channel_schemas = {{"input", object{{"type", "integer"}}}, {"output", string_type}};
  runtime_options o;
  o.mode = mode();
  pregel app(std::move(g), o);
  // LangGraph's create_model of the input channels: each optional, defaulting to None.
  BOOST_TEST(app.input_json_schema().to_json() ==
             R"({"properties":{"input":{"default":null,"title":"Input","type":"integer"},)"
             R"("extra":{"default":null,"title":"Extra"}},"title":"LangGraphInput",)"
             R"("type":"object"})");
  BOOST_TEST(app.output_json_schema().to_json() ==
             R"({"title":"LangGraphOutput","type":"string"})");
  BOOST_TEST(app.context_json_schema().is_null());
}

BOOST_AUTO_TEST_CASE(invalid_key_schemas_are_rejected_naming_the_key) {
  state_graph builder;
  builder.add_key("a").add_key("b");
  expect_error(error_code::invalid_graph, "state key 'a': its JSON schema must be an object",
               [&] { builder.set_key_schema("a", {value::array({1})}); });
  expect_error(error_code::invalid_graph, "refers to \"#/$defs/Missing\"", [&] {
    builder.set_key_schema("a", {object{{"$ref", "#/$defs/Missing"}}});
  });
  expect_error(error_code::invalid_graph, "state key 'b': its \"$defs\" entry 'X'", [&] {
    builder.set_key_schema("b", {object{{"$defs", object{{"X", 1}}}}});
  });
  expect_error(error_code::invalid_graph, "state key 'b': a required key has no default", [&] {
    builder.set_key_schema("b", {string_type, true, "x"});
  });

  builder.add_node("n", identity).add_edge(std::string(START), "n");
  state_graph unknown = builder;
  unknown.set_key_schema("c", {string_type});
  expect_error(error_code::invalid_graph, "unknown state key 'c'",
               [&] { (void)unknown.compile(opts()); });

  // Two keys defining one name differently.
  builder.set_key_schema("a",
                         {object{{"$ref", "#/$defs/X"}, {"$defs", object{{"X", string_type}}}}});
  builder.set_key_schema(
      "b", {object{{"$ref", "#/$defs/X"}, {"$defs", object{{"X", object{{"type", "integer"}}}}}}});
  expect_error(error_code::invalid_graph,
               "the input schema 'LangGraphInput': keys 'a' and 'b' define \"$defs\" 'X' "
               "differently",
               [&] { (void)builder.compile(opts()); });

  fn::entrypoint_options o;
  o.name = "e";
  o.input_schema = "string";
  expect_error(error_code::invalid_argument, "entrypoint 'e': its input schema", [&] {
    (void)fn::entrypoint(o, [](const value& v, fn::call_context&) { return v; });
  });
}

BOOST_AUTO_TEST_CASE(titles_follow_python_title_case) {
  BOOST_TEST(json_schema_title("agent_outcome") == "Agent Outcome");
  BOOST_TEST(json_schema_title("val10") == "Val10");
  BOOST_TEST(json_schema_title("a1b") == "A1B");
  BOOST_TEST(json_schema_title("camelCase") == "Camelcase");
  BOOST_TEST(json_schema_title("_private_") == "Private");
}

BOOST_AUTO_TEST_CASE(a_state_of_one_value_is_described_by_that_value) {
  state_graph builder;
  builder.add_key(std::string(ROOT), "add")
      .set_key_schema(std::string(ROOT), {object{{"items", string_type}, {"type", "array"}}});
  builder.add_node("n", [](const value&, node_context&) { return value::array({"x"}); });
  builder.add_edge(std::string(START), "n");
  std::shared_ptr<pregel> graph = builder.compile(opts());
  BOOST_TEST(graph->input_json_schema().to_json() ==
             R"({"items":{"type":"string"},"title":"LangGraphInput","type":"array"})");
  BOOST_TEST(graph->output_json_schema().get("title") == value("LangGraphOutput"));
}
