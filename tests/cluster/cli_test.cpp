// The `superstep` program, run as a child process on the example specs.
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>

#include "cluster/cli_support.hpp"
#include "support/embeddings_server.hpp"

using namespace superstep;
using superstep::test::example;
using superstep::test::quote;
using superstep::test::scratch;

namespace {

using result = test::cli_result;

result run(const std::string& args) { return test::run_cli(args); }

// The data of the output line, which must be the only line.
std::string only_output(const result& r) {
  std::vector<value> lines = r.lines();
  if (lines.size() != 1u || lines[0].get("type") != value("output"))
    return "not one output: " + r.out;
  return lines[0].get("data").to_json();
}

}  // namespace

BOOST_AUTO_TEST_CASE(run_prints_the_output_as_a_json_line) {
  result r = run("run " + example("pregel_single_node") + " --input '{\"a\": \"foo\"}'");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(only_output(r) == R"({"b":"foofoo"})");
  // Without --thread the run gets a fresh thread id, and names its last checkpoint.
  value line = r.last();
  BOOST_TEST(line.get("thread").as_string().size() == 36u);
  BOOST_TEST(line.get("checkpoint").as_string().size() == 36u);
}

BOOST_AUTO_TEST_CASE(run_streams_events_of_each_mode_before_the_output) {
  result r = run("run " + example("pregel_two_nodes") +
                 " --input '{\"a\": \"foo\"}' --stream updates values");
  BOOST_TEST(r.status == 0, r.err);
  std::vector<value> lines = r.lines();
  BOOST_REQUIRE(lines.size() == 6u);
  // As LangGraph's Pregel without stream_channels: `values` shows every channel, the input
  // channel too; the output is the output channels.
  BOOST_TEST(lines[0].to_json() == R"({"type":"values","data":{"a":"foo"}})");
  BOOST_TEST(lines[1].to_json() == R"({"type":"updates","data":{"node1":{"b":"foofoo"}}})");
  BOOST_TEST(lines[2].to_json() == R"({"type":"values","data":{"b":"foofoo"}})");
  BOOST_TEST(lines[3].to_json() == R"({"type":"updates","data":{"node2":{"c":"foofoofoofoo"}}})");
  BOOST_TEST(lines[4].to_json() == R"({"type":"values","data":{"b":"foofoo","c":"foofoofoofoo"}})");
  BOOST_TEST(lines[5].get("type") == value("output"));
  BOOST_TEST(lines[5].get("data").to_json() == R"({"b":"foofoo","c":"foofoofoofoo"})");
}

BOOST_AUTO_TEST_CASE(run_reads_the_input_from_a_file_and_takes_a_thread) {
  scratch s;
  std::string input = s.write("input.json", R"({"subjects": ["cats", "dogs"]})");
  result r = run("run " + example("jokes") + " --input @" + quote(input) +
                 " --thread t1 --stream updates --stream values");
  BOOST_TEST(r.status == 0, r.err);
  std::vector<value> lines = r.lines();
  BOOST_REQUIRE(!lines.empty());
  BOOST_TEST(lines.back().get("thread") == value("t1"));
  BOOST_TEST(lines.back().get("data").to_json() ==
             R"({"jokes":["joke about cats","joke about dogs"],"best":"joke about cats"})");
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

// std.fail counts its attempts in the data folder's store: they survive the process, so
// continuing the thread eventually gets past it (GRAPH_SPEC.md).
BOOST_AUTO_TEST_CASE(std_fail_attempts_survive_the_process) {
  scratch s;
  std::string spec = s.write("fail.json", R"({"spec": "superstep.graph/1", "state": {"a": {}},
    "nodes": {"f": {"fn": "std.fail", "params": {"times": 2, "update": {"a": "done"}}}},
    "edges": [["__start__", "f"]]})");
  const std::string data = " --data " + quote(s.path("db"));
  result first = run("run " + quote(spec) + " --input '{}' --thread t" + data);
  BOOST_TEST(first.status == 1);
  BOOST_TEST(first.err.find("attempt 1 of 2") != std::string::npos, first.err);
  result second = run("run --thread t" + data);
  BOOST_TEST(second.status == 1);
  BOOST_TEST(second.err.find("attempt 2 of 2") != std::string::npos, second.err);
  result third = run("run --thread t" + data);
  BOOST_TEST(third.status == 0, third.err);
  BOOST_TEST(only_output(third) == R"({"a":"done"})");
  // The count is an item of the store, as `superstep store` shows it.
  result item = run("store get --ns std.fail.t --key f" + data);
  BOOST_TEST(item.last().get("value").get("attempts").as_int() == 3);
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
  r = run("run " + example("jokes") + " --input '{}' --durability often");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(r.err.find("--durability: expected sync, async or exit") != std::string::npos);
  r = run("run " + example("jokes") + " --resume '\"yes\"'");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(r.err.find("--resume needs --thread ID") != std::string::npos);
  BOOST_TEST(run("run " + example("jokes") + " --thread t --input '{}' --resume 1").status == 2);
  r = run("state");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(r.err.find("state: missing --thread ID") != std::string::npos);
  BOOST_TEST(run("history --thread t --limit many").status == 2);
  BOOST_TEST(run("history --thread t --filter '[1]'").status == 2);
  BOOST_TEST(run("update --thread t").status == 2);
  BOOST_TEST(run("delete --thread t --graph g.json").status == 2);
}

BOOST_AUTO_TEST_CASE(help_describes_each_command) {
  result r = run("--help");
  BOOST_TEST(r.status == 0);
  BOOST_TEST(r.out.find("usage: superstep COMMAND") != std::string::npos);
  r = run("run --help");
  BOOST_TEST(r.status == 0);
  BOOST_TEST(r.out.find("--subgraphs") != std::string::npos);
  BOOST_TEST(r.out.find("--resume") != std::string::npos);
  BOOST_TEST(r.out.find("3 interrupted") != std::string::npos);
  r = run("graph --help");
  BOOST_TEST(r.status == 0);
  BOOST_TEST(r.out.find("--mermaid") != std::string::npos);
  for (const char* command : {"state", "history", "update", "delete"}) {
    BOOST_TEST_CONTEXT(command) {
      r = run(std::string(command) + " --help");
      BOOST_TEST(r.status == 0);
      BOOST_TEST(r.out.find(std::string("usage: superstep ") + command) != std::string::npos);
      BOOST_TEST(r.out.find("--data DIR") != std::string::npos);
    }
  }
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

BOOST_AUTO_TEST_CASE(graph_prints_the_json_schemas_of_input_and_output) {
  result r = run("graph " + example("schemas") + " --json-schema");
  BOOST_TEST(r.status == 0, r.err);
  std::vector<value> lines = r.lines();
  BOOST_REQUIRE(lines.size() == 1u);
  BOOST_TEST(lines[0].get("input").get("required").to_json() == R"(["question"])");
  BOOST_TEST(lines[0].get("output").get("title") == value("schemasOutput"));
  r = run("graph " + example("schemas") + " --json-schema --mermaid");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(r.err.find("not both --json-schema and --mermaid") != std::string::npos, r.err);
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
        BOOST_TEST(only_output(r) == c.output);
      } else {
        BOOST_TEST(r.status == 1);
        BOOST_TEST(r.err.find(c.error) != std::string::npos, r.err);
      }
    }
  }
}

// The store's seed example through the program: memories of user "1" found by meaning, a
// second user's apart, bad input named.
BOOST_AUTO_TEST_CASE(store_commands_put_get_search_and_list) {
  test::scratch s;
  const std::string data = " --data " + test::quote(s.path("db"));
  auto store = [&](const std::string& args) { return run("store " + args + data); };
  BOOST_REQUIRE_EQUAL(
      store(R"(put --ns 1.memories --key a --value '{"food_preference": "I like pizza"}')").status,
      0);
  BOOST_REQUIRE_EQUAL(
      store(R"(put --ns 1.memories --key b --value '{"hobby": "I play chess on weekends"}')")
          .status,
      0);
  BOOST_REQUIRE_EQUAL(
      store(R"(put --ns 2.memories --key c --value '{"weather": "rain in Paris"}')").status, 0);

  result got = store("get --ns 1.memories --key a");
  BOOST_REQUIRE_EQUAL(got.status, 0);
  BOOST_TEST(got.last().get("value").to_json() == R"({"food_preference":"I like pizza"})");
  BOOST_TEST(got.last().get("namespace").to_json() == R"(["1","memories"])");
  BOOST_TEST(!got.last().get("created_at").as_string().empty());

  result found = store(R"(search --ns 1 --query "What does the user like to eat?")");
  BOOST_REQUIRE_EQUAL(found.status, 0);
  auto lines = found.lines();
  BOOST_REQUIRE_EQUAL(lines.size(), 2u);  // only user 1's
  BOOST_TEST(lines[0].get("key").as_string() == "a");
  BOOST_TEST(lines[0].get("score").as_double() > lines[1].get("score").as_double());

  result filtered = store(R"(search --filter '{"hobby": {"$ne": null}}')");
  BOOST_REQUIRE_EQUAL(filtered.lines().size(), 1u);
  BOOST_TEST(filtered.last().get("key").as_string() == "b");

  BOOST_TEST(store("namespaces").out == "[\"1\",\"memories\"]\n[\"2\",\"memories\"]\n");
  BOOST_TEST(store("delete --ns 1.memories --key a").status == 0);
  result gone = store("get --ns 1.memories --key a");
  BOOST_TEST(gone.status == 1);
  BOOST_TEST(gone.err.find("no item 'a' in namespace '1.memories'") != std::string::npos);

  result bad = store(R"(put --ns 1..x --key a --value '{}')");
  BOOST_TEST(bad.status == 1);
  BOOST_TEST(bad.err.find("empty label") != std::string::npos, bad.err);
  result op = store(R"(search --filter '{"x": {"$foo": 1}}')");
  BOOST_TEST(op.status == 1);
  BOOST_TEST(op.err.find("unknown filter operator") != std::string::npos, op.err);
  BOOST_TEST(store("put --ns 1.m --key a").status == 2);  // no --value
}

// The store through an OpenAI-compatible HTTP endpoint: a server on loopback in this process
// answers the program. The database then refuses another embedder, reading needs none, and a
// put whose embedding fails stores nothing and never shows the key.
BOOST_AUTO_TEST_CASE(store_commands_embed_through_an_http_endpoint) {
  test::embeddings_server server(64);
  ::setenv("SUPERSTEP_EMBEDDINGS_KEY", "sk-cli-test", 1);
  test::scratch s;
  const std::string data = " --data " + test::quote(s.path("db"));
  const std::string openai = " --embedder openai --embedder-model test-model --dims 64" +
                             std::string(" --embedder-url ") + test::quote(server.url());
  auto store = [&](const std::string& args) { return run("store " + args + data); };
  BOOST_REQUIRE_EQUAL(
      store(R"(put --ns 1.memories --key a --value '{"food_preference": "I like pizza"}')" + openai)
          .status,
      0);
  BOOST_REQUIRE_EQUAL(
      store(R"(put --ns 1.memories --key b --value '{"hobby": "I play chess on weekends"}')" +
            openai)
          .status,
      0);
  result found = store(R"(search --ns 1 --query "What does the user like to eat? pizza")" + openai);
  BOOST_REQUIRE_EQUAL(found.status, 0);
  auto lines = found.lines();
  BOOST_REQUIRE_EQUAL(lines.size(), 2u);
  BOOST_TEST(lines[0].get("key").as_string() == "a");
  const auto seen = server.requests();
  BOOST_REQUIRE_EQUAL(seen.size(), 3u);
  BOOST_TEST(seen[2].authorization == "Bearer sk-cli-test");
  BOOST_TEST(seen[2].body.to_json() ==
             R"({"model":"test-model","input":["What does the user like to eat? pizza"]})");

  result other = store(R"(search --query "pizza")");
  BOOST_TEST(other.status == 1);
  BOOST_TEST(
      other.err.find("embedder \"openai/test-model\" with 64 dimensions") != std::string::npos,
      other.err);
  BOOST_TEST(other.err.find("not embedder \"hashing\" with 384 dimensions") != std::string::npos,
             other.err);
  BOOST_TEST(store("get --ns 1.memories --key a").status == 0);

  server.set_mode(test::embeddings_server::mode::unauthorized);
  result failed = store(R"(put --ns 1.memories --key c --value '{"x": "y"}')" + openai);
  BOOST_TEST(failed.status == 1);
  BOOST_TEST(failed.err.find("HTTP 401: Incorrect API key provided") != std::string::npos,
             failed.err);
  BOOST_TEST(failed.err.find("sk-cli-test") == std::string::npos, failed.err);
  BOOST_TEST(store("get --ns 1.memories --key c").status == 1);
  ::unsetenv("SUPERSTEP_EMBEDDINGS_KEY");
}

// --distance: a database indexed under l2 scores by negated Euclidean distance, keeps its
// distance type, and refuses a search under the default (cosine) naming both.
BOOST_AUTO_TEST_CASE(store_commands_take_a_distance_type) {
  test::scratch s;
  const std::string data = " --data " + test::quote(s.path("db"));
  auto store = [&](const std::string& args) { return run("store " + args + data); };
  BOOST_REQUIRE_EQUAL(
      store(R"(put --ns 1.m --key a --value '{"food": "I like pizza"}' --distance l2)").status, 0);
  BOOST_REQUIRE_EQUAL(
      store(R"(put --ns 1.m --key b --value '{"hobby": "chess"}' --distance l2)").status, 0);
  result found = store(R"(search --ns 1 --query "pizza" --distance l2)");
  BOOST_REQUIRE_EQUAL(found.status, 0);
  auto lines = found.lines();
  BOOST_REQUIRE_EQUAL(lines.size(), 2u);
  BOOST_TEST(lines[0].get("key").as_string() == "a");
  BOOST_TEST(lines[0].get("score").as_double() < 0);
  BOOST_TEST(lines[0].get("score").as_double() > lines[1].get("score").as_double());
  result cosine = store(R"(search --ns 1 --query "pizza")");
  BOOST_TEST(cosine.status == 1);
  BOOST_TEST(cosine.err.find("384 dimensions and l2 distance, not embedder \"hashing\" with 384 "
                             "dimensions and cosine distance") != std::string::npos,
             cosine.err);
  BOOST_TEST(store("get --ns 1.m --key a").status == 0);

  result unknown = run("store search --query x --distance hamming" + data);
  BOOST_TEST(unknown.status == 2);
  BOOST_TEST(unknown.err.find("--distance: unknown distance type \"hamming\" (expected cosine, "
                              "inner_product or l2)") != std::string::npos,
             unknown.err);
  BOOST_TEST(run("store search --query x --head 127.0.0.1:1 --distance l2").status == 2);
}

BOOST_AUTO_TEST_CASE(embedder_options_are_checked) {
  BOOST_TEST(run("store search --query x --embedder openai").status == 2);  // no --dims
  BOOST_TEST(run("store search --query x --embedder-url http://127.0.0.1:1").status == 2);
  BOOST_TEST(run("store search --query x --head 127.0.0.1:1 --embedder openai --dims 3").status ==
             2);
  BOOST_TEST(run("run " + example("jokes") + " --input '{}' --embedder openai").status == 2);
  BOOST_TEST(
      run("submit --head 127.0.0.1:1 " + example("jokes") + " --input '{}' --dims 8").status == 2);
  BOOST_TEST(run("head --listen 127.0.0.1:0 --embedder openai").status == 2);
  result unknown = run("store search --query x --embedder nope --dims 3");
  BOOST_TEST(unknown.status == 1);
  BOOST_TEST(
      unknown.err.find("unknown embedder 'nope' (known: hashing, openai)") != std::string::npos,
      unknown.err);
  result params = run("store search --query x --embedder hashing --embedder-params '{\"x\": 1}'");
  BOOST_TEST(params.status == 1);
  BOOST_TEST(params.err.find("embedder 'hashing': params.x: unknown param") != std::string::npos,
             params.err);
}

// A node library's embedder (examples/plugin: text.letters counts letters) by name.
BOOST_AUTO_TEST_CASE(store_commands_use_an_embedder_from_a_plugin) {
  test::scratch s;
  const std::string data = " --data " + test::quote(s.path("db"));
  const std::string letters =
      " --plugin " + test::quote(SUPERSTEP_PLUGIN_LIB) + " --embedder text.letters --dims 26";
  auto store = [&](const std::string& args) { return run("store " + args + data); };
  BOOST_REQUIRE_EQUAL(store(R"(put --ns n --key a --value '{"t": "aaaa"}')" + letters).status, 0);
  BOOST_REQUIRE_EQUAL(store(R"(put --ns n --key z --value '{"t": "zzzz"}')" + letters).status, 0);
  result found = store("search --query zzz" + letters);
  BOOST_REQUIRE_EQUAL(found.status, 0);
  BOOST_TEST(found.lines().front().get("key").as_string() == "z");
  result missing = store("search --query zzz --embedder text.letters --dims 26");
  BOOST_TEST(missing.status == 1);
  BOOST_TEST(missing.err.find("unknown embedder 'text.letters'") != std::string::npos, missing.err);
}

// Out of memory (here a 3 GB address-space limit, and 6,000 tasks each making a distinct
// 1 MB string): the run fails with an error saying so, exit status 1, instead of the process
// aborting without a word (mimalloc's own operator new aborts).
BOOST_AUTO_TEST_CASE(running_out_of_memory_fails_the_run_with_an_error) {
  scratch s;
  const std::string spec = s.write("oom.json", R"({"spec": "superstep.graph/1",
    "state": {"item": {}, "docs": {"reducer": "append"}},
    "nodes": {"w": {"fn": "std.template", "params": {"text": ")" +
                                                   std::string(1 << 20, 'x') +
                                                   R"({item}", "to": "docs", "wrap": "list"}}},
    "edges": [["w", "__end__"]],
    "conditional_edges": [{"from": "__start__", "router": "std.send_each",
      "params": {"items": 6000, "node": "w", "as": "item"}}]})");
  const std::string err = s.path("oom.err");
  const std::string command = "ulimit -v 3000000 && exec " + quote(test::superstep_bin()) +
                              " run " + quote(spec) + " --input '{}' > /dev/null 2> " + quote(err);
  const int status = std::system(("sh -c " + quote(command)).c_str());
  BOOST_TEST_REQUIRE(WIFEXITED(status), "ended by a signal: " << status);
  BOOST_TEST(WEXITSTATUS(status) == 1);
  std::ifstream in(err);
  const std::string said((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  BOOST_TEST(said.find("out of memory") != std::string::npos, said);
}
