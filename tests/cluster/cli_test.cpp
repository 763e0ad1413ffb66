// The `superstep` program, run as a child process on the example specs.
#include <sys/wait.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "superstep/core/value.hpp"

using namespace superstep;
namespace fs = std::filesystem;

namespace {

struct result {
  int status = -1;
  std::string out;
  std::string err;

  std::vector<value> lines() const {
    std::vector<value> v;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) v.push_back(value::parse_json(line));
    return v;
  }
};

// A scratch folder for spec files and captured stderr, removed at the end of a test.
struct scratch {
  scratch()
      : dir(fs::temp_directory_path() /
            ("superstep_cli_test_" + std::to_string(::getpid()) + "_" + std::to_string(++count))) {
    fs::create_directories(dir);
  }
  ~scratch() { fs::remove_all(dir); }

  std::string write(const std::string& name, const std::string& text) const {
    fs::path p = dir / name;
    std::ofstream(p) << text;
    return p.string();
  }

  fs::path dir;
  static inline int count = 0;
};

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string example(const std::string& name) {
  return quote(std::string(SUPERSTEP_EXAMPLE_SPECS) + "/" + name + ".json");
}

// Runs `superstep <args>` (already shell-quoted) and captures its output and exit status.
result run(const std::string& args) {
  scratch s;
  fs::path err = s.dir / "stderr";
  std::string cmd = quote(SUPERSTEP_BIN) + " " + args + " 2>" + quote(err.string());
  result r;
  FILE* p = ::popen(cmd.c_str(), "r");
  BOOST_REQUIRE(p != nullptr);
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  int status = ::pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err);
  std::ostringstream e;
  e << in.rdbuf();
  r.err = e.str();
  return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(run_prints_the_output_as_a_json_line) {
  result r = run("run " + example("pregel_single_node") + " --input '{\"a\": \"foo\"}'");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out == "{\"type\":\"output\",\"data\":{\"b\":\"foofoo\"}}\n");
}

BOOST_AUTO_TEST_CASE(run_streams_events_of_each_mode_before_the_output) {
  result r = run("run " + example("pregel_two_nodes") +
                 " --input '{\"a\": \"foo\"}' --stream updates values");
  BOOST_TEST(r.status == 0, r.err);
  std::vector<value> lines = r.lines();
  BOOST_REQUIRE(lines.size() == 5u);
  BOOST_TEST(lines[0].to_json() == R"({"type":"updates","data":{"node1":{"b":"foofoo"}}})");
  BOOST_TEST(lines[1].to_json() == R"({"type":"values","data":{"b":"foofoo"}})");
  BOOST_TEST(lines[2].to_json() == R"({"type":"updates","data":{"node2":{"c":"foofoofoofoo"}}})");
  BOOST_TEST(lines[3].to_json() == R"({"type":"values","data":{"b":"foofoo","c":"foofoofoofoo"}})");
  BOOST_TEST(lines[4].to_json() == R"({"type":"output","data":{"b":"foofoo","c":"foofoofoofoo"}})");
}

BOOST_AUTO_TEST_CASE(run_reads_the_input_from_a_file_and_takes_a_thread) {
  scratch s;
  std::string input = s.write("input.json", R"({"subjects": ["cats", "dogs"]})");
  result r = run("run " + example("jokes") + " --input @" + quote(input) +
                 " --thread t1 --stream updates --stream values");
  BOOST_TEST(r.status == 0, r.err);
  std::vector<value> lines = r.lines();
  BOOST_REQUIRE(!lines.empty());
  BOOST_TEST(
      lines.back().to_json() ==
      R"({"type":"output","data":{"jokes":["joke about cats","joke about dogs"],"best":"joke about cats"}})");
  std::size_t updates = 0;
  for (const value& l : lines) updates += l.get("type") == value("updates");
  BOOST_TEST(updates == 3u);  // generate twice, pick once
}

BOOST_AUTO_TEST_CASE(subgraphs_adds_the_namespace_to_each_event) {
  result r = run("run " + example("subgraph") +
                 " --input '{\"text\": \"hi\"}' --stream custom updates --subgraphs");
  BOOST_TEST(r.status == 0, r.err);
  bool saw_custom = false;
  for (const value& l : r.lines()) {
    if (l.get("type") == value("output")) {
      BOOST_TEST(!l.find("ns"));
      continue;
    }
    BOOST_REQUIRE(l.get("ns").is_list());
    if (l.get("type") == value("custom")) {
      saw_custom = true;
      BOOST_REQUIRE(l.get("ns").as_list().size() == 1u);
      BOOST_TEST(l.get("ns").as_list()[0].as_string().rfind("inner:", 0) == 0);
      BOOST_TEST(l.get("data").to_json() == R"({"progress":"shouting"})");
    }
  }
  BOOST_TEST(saw_custom);
}

BOOST_AUTO_TEST_CASE(a_bad_spec_fails_with_the_path_on_stderr) {
  scratch s;
  std::string spec = s.write("bad.json", R"({"spec": "superstep.graph/1", "state": {"a": {}},
    "nodes": {"pick": {"fn": "std.set", "params": {"update": {}}}},
    "edges": [["__start__", "pick"], ["pik", "__end__"]]})");
  result r = run("run " + quote(spec) + " --input '{}'");
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.out.empty());
  BOOST_TEST(r.err == "error: invalid graph spec at edges[1][0]: unknown node 'pik'\n");
}

BOOST_AUTO_TEST_CASE(a_failing_node_fails_the_run) {
  scratch s;
  std::string spec = s.write("fail.json", R"({"spec": "superstep.graph/1", "state": {"a": {}},
    "nodes": {"f": {"fn": "std.fail", "params": {"times": 1}}},
    "edges": [["__start__", "f"]]})");
  result r = run("run " + quote(spec) + " --input '{}' --thread t");
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("error: std.fail: attempt 1 of 1 fails on purpose") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(usage_errors_exit_with_two) {
  BOOST_TEST(run("").status == 2);
  BOOST_TEST(run("launch").status == 2);
  result r = run("run " + example("jokes"));
  BOOST_TEST(r.status == 2);
  BOOST_TEST(r.err.find("missing --input") != std::string::npos);
  r = run("run " + example("jokes") + " --input '{' ");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(r.err.find("error: --input: invalid JSON") != std::string::npos);
  BOOST_TEST(run("run " + example("jokes") + " --input '{}' --stream everything").status == 2);
  BOOST_TEST(run("run " + example("jokes") + " --input '{}' --verbose").status == 2);
}

BOOST_AUTO_TEST_CASE(help_describes_each_command) {
  result r = run("--help");
  BOOST_TEST(r.status == 0);
  BOOST_TEST(r.out.find("usage: superstep COMMAND") != std::string::npos);
  r = run("run --help");
  BOOST_TEST(r.status == 0);
  BOOST_TEST(r.out.find("--subgraphs") != std::string::npos);
  r = run("graph --help");
  BOOST_TEST(r.status == 0);
  BOOST_TEST(r.out.find("--mermaid") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(graph_draws_the_edges_in_mermaid) {
  result r = run("graph " + example("loop") + " --mermaid");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out.find("graph TD;") != std::string::npos);
  BOOST_TEST(r.out.find("__start__ --> step;") != std::string::npos);
  BOOST_TEST(r.out.find("step --> log;") != std::string::npos);
  BOOST_TEST(r.out.find("log -. &nbsp;again&nbsp; .-> step;") != std::string::npos);
  r = run("graph " + example("pregel_topic") + " --mermaid");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out.find("node1 --> node2;") != std::string::npos);
}

// The examples of LangGraph's guides, as specs through `superstep run`: the same outputs and
// errors as the C++ API gives in tests/coordinator.
BOOST_AUTO_TEST_CASE(seed_examples_give_langgraphs_results_through_the_program) {
  struct expectation {
    const char* spec;
    const char* input;
    const char* output;  // the output line's data, or nullptr when the run must fail
    const char* error;   // part of stderr when it must fail
  };
  const expectation cases[] = {
      {"pregel_single_node", R"({"a":"foo"})", R"({"b":"foofoo"})", nullptr},
      {"pregel_two_nodes", R"({"a":"foo"})", R"({"b":"foofoo","c":"foofoofoofoo"})", nullptr},
      {"pregel_topic", R"({"a":"foo"})", R"({"c":["foofoo","foofoofoofoo"]})", nullptr},
      {"pregel_cycle", R"({"value":"a"})", R"({"value":"aaaaaaaaaaaaaaaa"})", nullptr},
      {"seed_private_state", R"({"user_input":"My"})", R"({"graph_output":"My name is Lance"})",
       nullptr},
      {"seed_reducers_a", R"({"foo":1,"bar":["hi"]})", R"({"foo":2,"bar":["bye"]})", nullptr},
      {"seed_reducers_b", R"({"foo":1,"bar":["hi"]})", R"({"foo":2,"bar":["hi","bye"]})", nullptr},
      {"jokes", R"({"subjects":["lions","elephants","penguins"]})",
       R"({"jokes":["joke about lions","joke about elephants","joke about penguins"],"best":"joke about lions"})",
       nullptr},
      {"seed_parallel_conflict", R"({"x":0})", nullptr,
       "At key 'x': Can receive only one value per step"},
      {"seed_recursion", R"({"aggregate":[]})", nullptr, "Recursion limit of 5 reached"},
      {"retry", R"({})", R"({"status":"ok after retries"})", nullptr},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.spec) {
      result r = run("run " + example(c.spec) + " --input " + quote(c.input));
      if (c.output) {
        BOOST_TEST(r.status == 0, r.err);
        BOOST_TEST(r.out == std::string(R"({"type":"output","data":)") + c.output + "}\n");
      } else {
        BOOST_TEST(r.status == 1);
        BOOST_TEST(r.err.find(c.error) != std::string::npos, r.err);
      }
    }
  }
}
