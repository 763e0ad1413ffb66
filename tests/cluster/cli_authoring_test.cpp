// Writing graphs with the `superstep` program: help, version, "did you mean", the spec schema,
// and drawing a spec (text, DOT, PNG), with node libraries loaded by --plugin.
#include <filesystem>
#include <fstream>

#include "cluster/cli_support.hpp"
#include "superstep/version.hpp"

using namespace superstep;
using superstep::test::example;
using superstep::test::quote;
using superstep::test::scratch;

namespace {

using result = test::cli_result;

result run(const std::string& args) { return test::run_cli(args); }

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(version_and_help) {
  for (const char* cmd : {"--version", "version"}) {
    result r = run(cmd);
    BOOST_TEST(r.status == 0, r.err);
    BOOST_TEST(r.out == std::string("superstep ") + SUPERSTEP_VERSION_STRING + "\n");
  }
  result r = run("help");
  BOOST_TEST(r.status == 0);
  BOOST_TEST(has(r.out, "usage: superstep COMMAND"));
  r = run("help history");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(has(r.out, "usage: superstep history --thread ID"));
  BOOST_TEST(r.out == run("history --help").out);
  r = run("help nothing");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(has(r.err, "unknown command 'nothing'"), r.err);
  BOOST_TEST(run("version extra").status == 2);
}

BOOST_AUTO_TEST_CASE(mistyped_commands_and_options_get_a_suggestion) {
  result r = run("rnu");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(has(r.err, "unknown command 'rnu' (did you mean 'run'?)"), r.err);
  r = run("hisotry --thread 1");
  BOOST_TEST(has(r.err, "unknown command 'hisotry' (did you mean 'history'?)"), r.err);
  r = run("run " + example("loop") + " --inptu '{}'");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(has(r.err, "unknown option '--inptu' (did you mean '--input'?)"), r.err);
  r = run("history --thred 1");
  BOOST_TEST(has(r.err, "unknown option '--thred' (did you mean '--thread'?)"), r.err);
  r = run("head --lisen 127.0.0.1:0");
  BOOST_TEST(has(r.err, "unknown option '--lisen' (did you mean '--listen'?)"), r.err);
  // Nothing close: no suggestion.
  r = run("zzzzzz");
  BOOST_TEST(r.err.find("did you mean") == std::string::npos, r.err);
  r = run("graph " + example("loop") + " --qqqqqqqq");
  BOOST_TEST(has(r.err, "unknown option '--qqqqqqqq'"), r.err);
  BOOST_TEST(r.err.find("did you mean") == std::string::npos, r.err);
}

BOOST_AUTO_TEST_CASE(an_unknown_function_names_close_ones_and_plugin) {
  scratch dir;
  std::string spec = dir.write("typo.json", R"({"spec": "superstep.graph/1",
    "state": {"a": {}}, "nodes": {"n": {"fn": "std.templte"}}, "edges": [["__start__", "n"]]})");
  result r = run("graph " + quote(spec));
  BOOST_TEST(r.status == 1);
  BOOST_TEST(has(r.err, "unknown node function 'std.templte' (did you mean 'std.template'?)"),
             r.err);
  BOOST_TEST(has(r.err, "--plugin LIB"), r.err);
}

BOOST_AUTO_TEST_CASE(schema_prints_the_spec_json_schema) {
  result r = run("schema");
  BOOST_TEST(r.status == 0, r.err);
  value s = value::parse_json(r.out);
  BOOST_TEST(s.get("title").as_string() == "superstep graph spec");
  BOOST_TEST(s.get("$defs").find("state_graph") != nullptr);
  BOOST_TEST(run("schema --help").status == 0);
  BOOST_TEST(run("schema extra").status == 2);
}

BOOST_AUTO_TEST_CASE(graph_draws_as_text_dot_and_png) {
  result r = run("graph " + example("jokes") + " --ascii");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(has(r.out, "| __start__ |"));
  BOOST_TEST(has(r.out, "| generate |"));
  BOOST_TEST(has(r.out, "  generate --> pick\n"));
  BOOST_TEST(has(r.out, "  __start__ -.-> generate\n"));
  // Rows follow the edges: generate above pick above __end__.
  BOOST_TEST(r.out.find("| generate |") < r.out.find("| pick |"));
  BOOST_TEST(r.out.find("| pick |") < r.out.find("| __end__ |"));

  r = run("graph " + example("loop") + " --dot");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out.rfind("digraph G {", 0) == 0);
  BOOST_TEST(has(r.out, "\"step\" [label=\"step\", shape=box];"));
  BOOST_TEST(has(r.out, "style=dashed"));

  r = run("graph " + example("loop") + " --dot --ascii");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(has(r.err, "not both --dot and --ascii"), r.err);

  scratch dir;
  const std::string png = dir.path("loop.png");
  r = run("graph " + example("loop") + " --png " + quote(png));
  if (r.status != 0 && has(r.err, "needs Graphviz's dot")) {
    BOOST_TEST_MESSAGE("graphviz is not installed: the PNG is not checked (make deps installs it)");
    return;
  }
  BOOST_TEST(r.status == 0, r.err);
  std::ifstream in(png, std::ios::binary);
  char magic[8] = {};
  in.read(magic, 8);
  BOOST_TEST(std::string(magic + 1, 3) == "PNG");
  r = run("graph " + example("loop") + " --png " + quote(dir.path("no/such/dir/x.png")));
  BOOST_TEST(r.status == 1);
  BOOST_TEST(has(r.err, "dot failed to write"), r.err);
}

BOOST_AUTO_TEST_CASE(graph_loads_node_libraries_with_plugin) {
  result r = run("graph " + example("shout"));
  BOOST_TEST(r.status == 1);
  BOOST_TEST(has(r.err, "unknown node function 'text.upper'"), r.err);
  r = run("graph " + example("shout") + " --plugin " + quote(SUPERSTEP_PLUGIN_LIB) + " --ascii");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(has(r.out, "| upper |"));
}

// "std." names are the std library's: a head runs an input node whose routers are std routers
// itself, as no user code.
BOOST_AUTO_TEST_CASE(a_node_library_registering_a_std_name_is_refused) {
  result r = run("graph " + example("shout") + " --plugin " + quote(SUPERSTEP_SQUATTER_LIB));
  BOOST_TEST(r.status != 0);
  BOOST_TEST(has(r.err,
                 "registers the router 'std.everyone': names starting with 'std.' are "
                 "the std library's"),
             r.err);
}

BOOST_AUTO_TEST_CASE(threads_lists_each_thread_with_its_status) {
  scratch dir;
  const std::string data = " --data " + quote(dir.path("db"));
  BOOST_TEST(run("threads" + data).out == "");
  BOOST_TEST(run("run " + example("loop") + data + " --thread done --input '{}'").status == 0);
  BOOST_TEST(run("run " + example("ask_name") + data + " --thread asks --input '{}'").status == 3);
  result r = run("run " + example("shout") + data + " --thread shout --plugin " +
                 quote(SUPERSTEP_PLUGIN_LIB) + " --input '{\"words\": [\"a\"]}'");
  BOOST_TEST(r.status == 0, r.err);

  r = run("threads" + data);
  BOOST_TEST(r.status == 0, r.err);
  std::vector<value> lines = r.lines();
  BOOST_REQUIRE(lines.size() == 3u);
  BOOST_TEST(lines[0].get("thread").as_string() == "asks");
  BOOST_TEST(lines[0].get("status").as_string() == "interrupted");
  BOOST_TEST(lines[0].get("next").to_json() == R"(["ask"])");
  BOOST_TEST(lines[1].get("thread").as_string() == "done");
  BOOST_TEST(lines[1].get("status").as_string() == "done");
  BOOST_TEST(lines[1].get("next").to_json() == "[]");
  BOOST_TEST(lines[1].get("step").as_int() > 0);
  BOOST_TEST(!lines[1].get("checkpoint").as_string().empty());
  BOOST_TEST(!lines[1].get("updated_at").as_string().empty());
  // Its spec needs a node library not loaded.
  BOOST_TEST(lines[2].get("thread").as_string() == "shout");
  BOOST_TEST(lines[2].get("status").as_string() == "unknown");
  BOOST_TEST(has(lines[2].get("error").as_string(), "text.upper"));
  r = run("threads" + data + " --plugin " + quote(SUPERSTEP_PLUGIN_LIB));
  BOOST_TEST(r.lines().at(2).get("status").as_string() == "done");

  // The answer given, the thread is done.
  BOOST_TEST(run("run" + data + " --thread asks --resume '\"Ada\"'").status == 0);
  BOOST_TEST(run("threads" + data).lines().at(0).get("status").as_string() == "done");
  // A head's threads (head_test.cpp): one that cannot be reached is named.
  r = run("threads --head 127.0.0.1:1");
  BOOST_TEST(r.status == 1);
  BOOST_TEST(has(r.err, "cannot reach the head at 127.0.0.1:1"), r.err);
}
