// The agent examples (examples/agents/) run as the README's "Agents" section says: the
// scripted OpenAI-compatible server program serves each example's script on loopback and
// `superstep run SPEC --model demo --model-url URL` prints the expected answer.
#include <signal.h>

#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <map>
#include <string>

#include "cluster/cli_support.hpp"
#include "cluster/cluster_support.hpp"

using namespace superstep;
using namespace superstep::test;

namespace {

std::string agent_example(const std::string& file) {
  return std::string(SUPERSTEP_AGENT_EXAMPLES) + "/" + file;
}

// build/tests/scripted_openai_server --script FILE --port 0, as the README starts it; its
// first line is its base url. Stopped (SIGTERM) when the test ends.
class scripted_server {
 public:
  explicit scripted_server(const std::string& script) {
    const std::string cmd =
        "echo $$; exec " + quote(SCRIPTED_SERVER_BIN) + " --script " + quote(script) + " --port 0";
    pipe_ = ::popen(cmd.c_str(), "r");
    BOOST_REQUIRE(pipe_ != nullptr);
    pid_ = std::stoi(line());
    url_ = line();
    BOOST_REQUIRE_MESSAGE(url_.starts_with("http://127.0.0.1:"), "server said: " << url_);
  }
  ~scripted_server() {
    if (pid_ > 0) ::kill(pid_, SIGTERM);
    ::pclose(pipe_);
  }
  scripted_server(const scripted_server&) = delete;
  scripted_server& operator=(const scripted_server&) = delete;

  const std::string& url() const { return url_; }

 private:
  std::string line() {
    char buf[512];
    if (!std::fgets(buf, sizeof buf, pipe_)) return {};
    std::string s(buf);
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s;
  }

  FILE* pipe_ = nullptr;
  int pid_ = -1;
  std::string url_;
};

std::string model_args(const scripted_server& server) {
  return " --model demo --model-url " + quote(server.url());
}

// The text of the last message of the output's messages.
std::string last_text(const value& output) {
  const value& messages = output.get("data").get("messages");
  BOOST_REQUIRE(messages.is_list() && !messages.as_list().empty());
  return messages.as_list().back().get("content").as_string();
}

}  // namespace

BOOST_AUTO_TEST_CASE(router_routes_by_structured_output) {
  scripted_server server(agent_example("router.script.json"));
  cli_result r =
      run_cli("run " + quote(agent_example("router.json")) +
              " --input '{\"input\": \"Tell me a joke about cats\"}'" + model_args(server));
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  value out = r.last();
  BOOST_TEST(out.get("data").get("decision") == value(object{{"step", "joke"}}));
  BOOST_TEST(last_text(out) == "Why do cats sit on keyboards? To keep an eye on the mouse.");
  BOOST_TEST(out.get("data").get("messages").as_list().size() == 1u);
}

BOOST_AUTO_TEST_CASE(react_agent_runs_tools_and_remembers_across_threads) {
  scripted_server server(agent_example("react.script.json"));
  scratch s;
  const std::string data = " --data " + quote(s.path("data"));
  cli_result first = run_cli("run " + quote(agent_example("react.json")) + data +
                             " --thread ada --input '{\"messages\": [{\"role\": \"user\", "
                             "\"content\": \"Hi, I am Ada. What is 6 times 7?\"}]}'" +
                             model_args(server));
  BOOST_REQUIRE_MESSAGE(first.status == 0, first.err);
  const value first_out = first.last();
  const list& messages = first_out.get("data").get("messages").as_list();
  BOOST_REQUIRE_EQUAL(messages.size(), 5u);
  // Both calls of one AI message answered, in the calls' order.
  BOOST_TEST(messages[2].get("type") == value("tool"));
  BOOST_TEST(messages[2].get("content") == value("Saved."));
  BOOST_TEST(messages[3].get("content") == value("42"));
  BOOST_TEST(messages[4].get("content") == value("Nice to meet you, Ada. 6 times 7 is 42."));

  // The memory is in the store, and another thread finds it.
  cli_result stored = run_cli("store search --ns memories" + data);
  BOOST_REQUIRE_MESSAGE(stored.status == 0, stored.err);
  BOOST_TEST(stored.last().get("value") == value(object{{"fact", "The user's name is Ada."}}));
  cli_result later = run_cli("run " + quote(agent_example("react.json")) + data +
                             " --thread later --input '{\"messages\": [{\"role\": \"user\", "
                             "\"content\": \"What is my name?\"}]}'" +
                             model_args(server));
  BOOST_REQUIRE_MESSAGE(later.status == 0, later.err);
  const value later_out = later.last();
  const list& again = later_out.get("data").get("messages").as_list();
  BOOST_REQUIRE_EQUAL(again.size(), 4u);
  BOOST_TEST(again[2].get("content") == value("[\"The user's name is Ada.\"]"));
  BOOST_TEST(last_text(later.last()) == "Your name is Ada.");
}

BOOST_AUTO_TEST_CASE(stream_tools_shows_each_tool_call_started_then_finished) {
  scripted_server server(agent_example("react.script.json"));
  scratch s;
  cli_result r =
      run_cli("run " + quote(agent_example("react.json")) + " --data " + quote(s.path("data")) +
              " --thread ada --stream tools --input '{\"messages\": [{\"role\": "
              "\"user\", \"content\": \"Hi, I am Ada. What is 6 times 7?\"}]}'" +
              model_args(server));
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  // The two calls of one AI message run in parallel: each starts, then finishes.
  std::map<std::string, std::vector<std::string>> by_call;
  for (const value& line : r.lines())
    if (line.get("type") == value("tools"))
      by_call[line.get("data").get("tool_call_id").as_string()].push_back(
          line.get("data").get("event").as_string());
  BOOST_TEST(by_call.size() == 2u);
  for (const auto& [id, events] : by_call)
    BOOST_TEST(events == (std::vector<std::string>{"tool-started", "tool-finished"}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(supervisor_hands_work_to_two_agents) {
  scripted_server server(agent_example("supervisor.script.json"));
  cli_result r = run_cli("run " + quote(agent_example("supervisor.json")) +
                         " --stream updates --input '{\"messages\": [{\"role\": \"user\", "
                         "\"content\": \"How many years passed between the first powered "
                         "flight and the Moon landing?\"}]}'" +
                         model_args(server));
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  std::vector<std::string> order;
  for (const value& line : r.lines())
    if (line.get("type") == value("updates"))
      for (const auto& [node, update] : line.get("data").as_object()) order.push_back(node);
  const std::vector<std::string> expected{"supervisor", "researcher", "researcher_tools",
                                          "researcher", "supervisor", "writer",
                                          "supervisor"};
  BOOST_TEST(order == expected, boost::test_tools::per_element());
  value out = r.last();
  BOOST_TEST(out.get("data").get("next") == value("FINISH"));
  BOOST_TEST(last_text(out) ==
             "Only 66 years passed between the first powered flight (1903) and the Moon "
             "landing (1969).");
}

BOOST_AUTO_TEST_CASE(llm_chat_without_a_model_fails_naming_the_node_and_the_option) {
  cli_result r =
      run_cli("run " + quote(agent_example("router.json")) + " --input '{\"input\": \"x\"}'");
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("route") != std::string::npos, r.err);
  BOOST_TEST(r.err.find("--model") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_CASE(a_server_that_cannot_be_reached_fails_the_run_naming_the_endpoint) {
  // A port nothing listens on: the server just stopped.
  std::string url;
  {
    scripted_server server(agent_example("router.script.json"));
    url = server.url();
  }
  cli_result r = run_cli("run " + quote(agent_example("router.json")) +
                         " --input '{\"input\": \"x\"}' --model demo --model-url " + quote(url));
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find(url) != std::string::npos, r.err);
}

BOOST_AUTO_TEST_CASE(submit_refuses_model_options) {
  cli_result r = run_cli("submit --head 127.0.0.1:1 " + quote(agent_example("router.json")) +
                         " --input '{}' --model demo");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(r.err.find("the model is the workers'") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_CASE(model_options_need_a_value) {
  cli_result r = run_cli("run " + quote(agent_example("router.json")) + " --input '{}' --model");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(r.err.find("--model needs a value") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_CASE(on_a_cluster_the_workers_model_serves_a_head_without_one) {
  scripted_server server(agent_example("router.script.json"));
  scratch s;
  test_cluster c(s);
  c.add_worker("w", {"--model", "demo", "--model-url", server.url()});
  cli_result r = c.client({"submit", agent_example("router.json"), "--input",
                           R"({"input": "Tell me a joke about cats"})"});
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data").get("decision") == value(object{{"step", "joke"}}));
  BOOST_TEST(last_text(r.last()) == "Why do cats sit on keyboards? To keep an eye on the mouse.");
}

BOOST_AUTO_TEST_CASE(a_node_librarys_tool_runs_by_name) {
  scratch s;
  const std::string spec = s.write("tools.json", R"({
    "spec": "superstep.graph/1", "name": "plugin_tool",
    "state": {"messages": {"reducer": "add_messages"}},
    "nodes": {"tools": {"fn": "tools.run", "params": {"tools": ["word_count"]}}},
    "edges": [["__start__", "tools"], ["tools", "__end__"]]})");
  const std::string input =
      R"({"messages": [{"type": "ai", "content": "", "tool_calls": [{"name": "word_count",)"
      R"( "args": {"text": "three little words"}, "id": "c1", "type": "tool_call"}]}]})";
  cli_result r = run_cli("run " + quote(spec) + " --plugin " + quote(SUPERSTEP_PLUGIN_LIB) +
                         " --input " + quote(input));
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  BOOST_TEST(last_text(r.last()) == "3");
  cli_result without = run_cli("run " + quote(spec) + " --input " + quote(input));
  BOOST_TEST(without.status == 1);
  BOOST_TEST(without.err.find("unknown tool 'word_count'") != std::string::npos, without.err);
}
