// Exporting graphs to graph specs: every example spec read, exported and read back gives an
// equal graph that runs to the same result; graphs built in C++ from registered functions
// export; what a spec cannot say fails naming the offender.
#include "superstep/cluster/graph_export.hpp"

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "superstep/checkpoint/constants.hpp"
#include "superstep/cluster/graph_spec.hpp"
#include "superstep/cluster/named_function.hpp"
#include "superstep/cluster/std_library.hpp"
#include "superstep/core/error.hpp"

using namespace superstep;
using namespace superstep::cluster;

namespace {

// A fresh registry for each graph: std.fail counts attempts per registration.
function_registry registry() {
  function_registry r;
  register_std_library(r);
  // shout.json's node, which examples/plugin registers; the same behaviour for a list of one.
  r.add_node("text.upper", [](const value& params) -> node_function {
    std::string from = params.get("from").as_string(), to = params.get("to").as_string();
    return [from, to](const value& in, node_context&) {
      std::string s = in.get(from).as_string();
      for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      return value(object{{to, value(list{value(s)})}});
    };
  });
  r.add_reducer("longest",
                channels::reducer{"",
                                  [](const value& a, const value& b) {
                                    return a.as_string().size() >= b.as_string().size() ? a : b;
                                  },
                                  nullptr});
  return r;
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `g` on `input`: its output, or the error it failed with, as text.
std::string outcome(const loaded_graph& g, const value& input) {
  object config;
  if (g.recursion_limit) config.set("recursion_limit", value(*g.recursion_limit));
  try {
    value out = g.graph->invoke(input, value(std::move(config)));
    // Interrupt ids come from fresh checkpoint ids: their values are what both runs share.
    if (const value* interrupts = out.find("__interrupt__")) {
      list values;
      for (const auto& i : interrupts->as_list()) values.push_back(i.get("value"));
      object rest = out.as_object();
      rest.set("__interrupt__", value(std::move(values)));
      out = value(std::move(rest));
    }
    return out.to_json();
  } catch (const error& e) {
    return std::string("error: ") + e.what();
  }
}

// What a reader sees of a graph: its drawing, node code and JSON schemas.
std::string described(const loaded_graph& g, const value& spec) {
  std::string out = g.graph->draw_mermaid() + "\n" + g.graph->input_json_schema().to_json() + "\n" +
                    g.graph->output_json_schema().to_json() + "\n";
  for (const auto& [node, fns] : functions_by_node(spec)) {
    out += node + ":";
    for (const auto& f : fns) out += " " + f;
    out += "\n";
  }
  const pregel_graph& pg = g.graph->graph();
  out += "name " + pg.name + ", limit " +
         (g.recursion_limit ? std::to_string(*g.recursion_limit) : "none") + ", timeout " +
         (pg.step_timeout_ms ? std::to_string(*pg.step_timeout_ms) : "none");
  for (const auto& n : pg.interrupt_before) out += " before " + n;
  for (const auto& n : pg.interrupt_after) out += " after " + n;
  for (const auto& [node, r] : g.retry)
    out += " retry " + node + " " + std::to_string(r.max_attempts) + " " +
           std::to_string(r.initial_interval_ms) + " " + std::to_string(r.backoff) + " " +
           std::to_string(r.max_interval_ms);
  return out;
}

// Reads `spec`, exports it, reads the export back (through JSON text, as a file would):
// both describe the same graph, the export is a fixed point, and both runs of `input` (when
// given) end alike.
void round_trip(const value& spec, const std::optional<value>& input, const std::string& what) {
  BOOST_TEST_CONTEXT(what) {
    function_registry r1 = registry(), r2 = registry();
    loaded_graph original = load_graph(spec, r1);
    value exported = export_graph_spec(*original.graph, {original.recursion_limit});
    value reread_spec = value::parse_json(exported.to_json());
    loaded_graph reread = load_graph(reread_spec, r2);
    BOOST_TEST(described(reread, reread_spec) == described(original, spec));
    BOOST_TEST(export_graph_spec(*reread.graph, {reread.recursion_limit}).to_json() ==
               exported.to_json());
    if (input) BOOST_TEST(outcome(reread, *input) == outcome(original, *input));
  }
}

const value* input_of(const std::string& spec_name) {
  static const std::map<std::string, value> inputs = {
      {"jokes", value::parse_json(R"({"subjects": ["cats", "dogs"]})")},
      {"schemas", value::parse_json(R"({"question": "life"})")},
      {"loop", value(object{})},
      {"map_reduce", value(object{})},
      {"subgraph", value::parse_json(R"({"text": "hi"})")},
      {"seed_persistence", value::parse_json(R"({"foo": ""})")},
      {"seed_parallel_conflict", value(object{})},
      {"seed_private_state", value::parse_json(R"({"user_input": "hi"})")},
      {"seed_recursion", value(object{})},
      {"seed_reducers_a", value(object{})},
      {"seed_reducers_b", value(object{})},
      {"retry", value(object{})},
      {"slow_steps", value::parse_json(R"({"trace": []})")},
      {"ask_name", value(object{})},
      {"shout", value::parse_json(R"({"words": ["hey", "you"]})")},
      {"weather_agent",
       value::parse_json(R"({"messages": [{"type": "human", "content": "weather in nyc?"}]})")},
  };
  auto it = inputs.find(spec_name);
  return it == inputs.end() ? nullptr : &it->second;
}

error export_error(const state_graph& g) {
  try {
    export_graph_spec(g);
  } catch (const error& e) {
    return e;
  }
  BOOST_FAIL("the graph exported");
  throw;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_example_state_graph_spec_reads_back_to_an_equal_graph) {
  std::size_t checked = 0, ran = 0;
  for (const auto& entry : std::filesystem::directory_iterator(SUPERSTEP_EXAMPLE_SPECS)) {
    if (entry.path().extension() != ".json") continue;
    value spec = value::parse_json(read_text(entry.path()));
    if (spec.get("spec").as_string() != "superstep.graph/1") continue;
    const std::string name = entry.path().stem().string();
    const value* input = input_of(name);
    round_trip(spec, input ? std::optional<value>(*input) : std::nullopt, name);
    ++checked;
    ran += input != nullptr;
  }
  BOOST_TEST(checked >= 18u);
  BOOST_TEST(ran >= 16u);
}

// The specs the test suites give as raw string literals (R"(...)"), where they are whole
// "superstep.graph/1" specs that load: those meant to fail, or cut into pieces, are left out.
BOOST_AUTO_TEST_CASE(the_test_suites_specs_read_back_to_equal_graphs) {
  const std::filesystem::path tests =
      std::filesystem::path(SUPERSTEP_EXAMPLE_SPECS) / ".." / ".." / "tests";
  std::size_t checked = 0;
  for (const char* area : {"cluster", "conformance", "coordinator"}) {
    if (!std::filesystem::exists(tests / area)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(tests / area)) {
      if (entry.path().extension() != ".cpp" && entry.path().extension() != ".hpp") continue;
      const std::string text = read_text(entry.path());
      for (std::size_t at = text.find("R\""); at != std::string::npos;
           at = text.find("R\"", at + 2)) {
        const std::size_t open = text.find('(', at);
        if (open == std::string::npos || open - at > 18) continue;
        const std::string close = ")" + text.substr(at + 2, open - at - 2) + "\"";
        const std::size_t end = text.find(close, open);
        if (end == std::string::npos) break;
        const std::string literal = text.substr(open + 1, end - open - 1);
        if (literal.find("superstep.graph/1") == std::string::npos) continue;
        value spec;
        try {
          spec = value::parse_json(literal);
          function_registry r = registry();
          load_graph(spec, r);
        } catch (const std::exception&) {
          continue;
        }
        if (!spec.is_object() || !spec.find("spec") ||
            spec.get("spec") != value("superstep.graph/1"))
          continue;
        round_trip(spec, std::nullopt,
                   entry.path().filename().string() + " at " + std::to_string(at));
        ++checked;
      }
    }
  }
  BOOST_TEST_MESSAGE(checked << " specs of the test suites read back");
  BOOST_TEST(checked >= 20u);
}

BOOST_AUTO_TEST_CASE(joins_path_maps_delta_keys_and_run_settings_read_back) {
  round_trip(value::parse_json(R"({
    "spec": "superstep.graph/1", "name": "features", "title": "Features",
    "state": {
      "n": {"default": 0, "schema": {"type": "integer"}, "required": true},
      "log": {"reducer": "append", "delta": {"snapshot_frequency": 3}},
      "best": {"reducer": "longest", "default": ""}
    },
    "input": ["n"], "output": ["n", "log", "best"],
    "nodes": {
      "a": {"fn": "std.increment", "params": {"key": "n"}, "defer": true},
      "b": {"fn": "std.set", "params": {"update": {"log": ["b"], "best": "bee"}}},
      "c": {"fn": "std.set", "params": {"update": {"log": ["c"], "best": "c"}},
            "retry": {"max_attempts": 2, "initial_interval_ms": 1}},
      "d": {"fn": "std.goto", "params": {"goto": "__end__"}, "destinations": ["__end__"]}
    },
    "edges": [["__start__", "a"], ["__start__", "b"], [["a", "b"], "c"]],
    "conditional_edges": [
      {"from": "c", "router": "std.route",
       "params": {"key": "n", "less_than": 3, "then": "again", "else": "done"},
       "path_map": {"again": "a", "done": "d"}}
    ],
    "interrupt_after": ["d"], "recursion_limit": 40, "step_timeout_ms": 5000
  })"),
             value::parse_json(R"({"n": 0})"), "features");
}

BOOST_AUTO_TEST_CASE(destinations_with_labels_read_back) {
  round_trip(value::parse_json(R"({
    "spec": "superstep.graph/1", "state": {"a": {}},
    "nodes": {
      "jump": {"fn": "std.goto", "params": {"goto": "land", "update": {"a": 1}},
               "destinations": {"land": "to land", "__end__": "stop"}},
      "land": {"fn": "std.increment", "params": {"key": "a", "by": 10}}
    },
    "edges": [["__start__", "jump"]]
  })"),
             value(object{}), "labelled destinations");
}

BOOST_AUTO_TEST_CASE(a_graph_built_in_cpp_from_registered_functions_exports) {
  function_registry r = registry();
  state_graph inner;
  inner.add_key("text").add_key("log", "append");
  inner.add_node("shout", r.make_node("std.template",
                                      value::parse_json(R"({"to": "text", "text": "{text}!"})")));
  inner.set_entry_point("shout");
  compile_options inner_options;
  inner_options.name = "inner";
  state_graph g;
  g.add_key("text").add_key("log", r.reducer("longest"));
  g.add_node("prepare", r.make_node("std.template",
                                    value::parse_json(R"({"to": "text", "text": "<{text}>"})")));
  g.add_node("inner", inner.compile(inner_options));
  // A function of the program's own, named as it is registered.
  auto twice = [](const value& in, node_context&) {
    return value(object{{"text", value(in.get("text").as_string() + in.get("text").as_string())}});
  };
  r.add_node("app.twice", [twice](const value&) { return node_function(twice); });
  g.add_node("twice", name_function("app.twice", value(), twice));
  g.add_edge(std::string(START), "prepare").add_edge("prepare", "inner").add_edge("inner", "twice");
  g.add_conditional_edges("twice", r.make_router("std.route", value::parse_json(R"(
      {"key": "text", "equals": "", "then": "prepare", "else": "__end__"})")));
  compile_options options;
  options.name = "built";
  options.interrupt_before = {"twice"};
  value spec = export_graph_spec(g, options);
  BOOST_TEST(spec.get("name").as_string() == "built");
  BOOST_TEST(spec.get("state").get("log").get("reducer").as_string() == "longest");
  BOOST_TEST(spec.get("nodes").get("prepare").get("fn").as_string() == "std.template");
  BOOST_TEST(spec.get("nodes").get("prepare").get("params").get("text").as_string() == "<{text}>");
  BOOST_TEST(spec.get("nodes").get("inner").get("fn").as_string() == "graph");
  BOOST_TEST(spec.get("nodes").get("inner").get("graph").get("name").as_string() == "inner");
  BOOST_TEST(spec.get("nodes").get("twice").get("fn").as_string() == "app.twice");
  BOOST_TEST(spec.get("conditional_edges").as_list()[0].get("router").as_string() == "std.route");
  BOOST_TEST(spec.get("interrupt_before").as_list()[0].as_string() == "twice");
  // The compiled graph exports the same spec, and the spec runs as the C++ graph does.
  auto compiled = g.compile(options);
  BOOST_TEST(export_graph_spec(*compiled).to_json() == spec.to_json());
  options.interrupt_before.clear();
  auto plain = g.compile(options);
  value plain_spec = export_graph_spec(*plain);
  auto reread = load_graph(value::parse_json(plain_spec.to_json()), r).graph;
  value input = value::parse_json(R"({"text": "hi"})");
  BOOST_TEST(reread->invoke(input).to_json() == plain->invoke(input).to_json());
  BOOST_TEST(plain->invoke(input).get("text").as_string() == "<hi>!<hi>!");
}

BOOST_AUTO_TEST_CASE(an_anonymous_node_or_router_fails_the_export_naming_it) {
  function_registry r = registry();
  state_graph g;
  g.add_key("x");
  g.add_node("mystery", [](const value&, node_context&) { return value(object{}); });
  g.set_entry_point("mystery");
  error e = export_error(g);
  BOOST_TEST(e.code() == error_code::invalid_graph);
  BOOST_TEST(std::string(e.what()).find("node 'mystery' runs an anonymous function") !=
             std::string::npos);
  BOOST_TEST(std::string(e.what()).find("name_function") != std::string::npos);

  state_graph h;
  h.add_key("x");
  h.add_node("a", r.make_node("std.set", value::parse_json(R"({"update": {"x": 1}})")));
  h.set_entry_point("a");
  h.add_conditional_edges("a", [](const value&, node_context&) { return value(std::string(END)); });
  BOOST_TEST(std::string(export_error(h).what()).find("the router after 'a' runs an anonymous") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(what_a_spec_cannot_say_fails_the_export_naming_it) {
  function_registry r = registry();
  auto set_x = [&] { return r.make_node("std.set", value::parse_json(R"({"update": {"x": 1}})")); };
  {
    state_graph g;
    g.add_key("x", channels::reducer{"", [](const value&, const value& b) { return b; }, nullptr});
    g.add_node("a", set_x()).set_entry_point("a");
    BOOST_TEST(
        std::string(export_error(g).what()).find("state key 'x' has a reducer without a name") !=
        std::string::npos);
  }
  {
    state_graph g;
    g.add_key("x");
    node_options o;
    o.cache = cache_policy{};
    g.add_node("a", set_x(), o).set_entry_point("a");
    BOOST_TEST(std::string(export_error(g).what()).find("node 'a' has a cache policy") !=
               std::string::npos);
  }
  {
    state_graph g;
    g.add_key("x").add_untracked_key("handle");
    g.add_node("a", set_x()).set_entry_point("a");
    BOOST_TEST(std::string(export_error(g).what()).find("state key 'handle' is untracked") !=
               std::string::npos);
  }
  {
    // A graph read from a "superstep.pregel/1" spec has no state_graph to export.
    auto pregel_spec =
        load_graph(value::parse_json(read_text(std::filesystem::path(SUPERSTEP_EXAMPLE_SPECS) /
                                               "pregel_two_nodes.json")),
                   r);
    try {
      export_graph_spec(*pregel_spec.graph);
      BOOST_FAIL("a Pregel graph exported");
    } catch (const error& e) {
      BOOST_TEST(e.code() == error_code::invalid_graph);
      BOOST_TEST(std::string(e.what()).find("was not compiled from a state_graph") !=
                 std::string::npos);
    }
  }
}
