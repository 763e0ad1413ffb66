// A ReAct agent with a RocksDB checkpointer, its process killed (SIGKILL) while a tool runs,
// resumes in another process without calling the model again for the step it saved.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include "agents/scripted_openai_server.hpp"
#include "superstep/agents/messages.hpp"
#include "superstep/agents/openai_chat_model.hpp"
#include "superstep/agents/react_agent.hpp"
#include "superstep/storage/rocksdb_saver.hpp"
#include "support/temp_dir.hpp"

using namespace superstep;
using namespace superstep::agents;
using superstep::test::scripted_openai_server;

namespace {

// The agent as both processes build it; `tool_body` is what the tool "add" does.
std::shared_ptr<pregel> make_agent(const std::string& url, const std::string& dir,
                                   tool_function tool_body) {
  openai_chat_options m;
  m.base_url = url;
  m.model = "scripted-1";
  m.api_key = "k";
  tool add;
  add.name = "add";
  add.parameters = value::parse_json(
      R"({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]})");
  add.function = std::move(tool_body);
  react_agent_options o;
  o.compile.checkpointer = storage::rocksdb_saver::open(dir, {});
  o.compile.mode = execution::threads;
  return create_react_agent(make_openai_chat_model(m), {add}, o);
}

const value config =
    object{{"configurable", object{{"thread_id", "killed"}}}, {"durability", "sync"}};

}  // namespace

BOOST_AUTO_TEST_CASE(resumes_after_a_sigkill_during_a_tool_without_calling_the_model_again) {
  scripted_openai_server server(
      {object{
           {"tool_calls",
            list{object{{"id", "c1"}, {"name", "add"}, {"args", object{{"a", 20}, {"b", 22}}}}}}},
       object{{"content", "The sum is 42."}}});
  test::temp_dir dir("superstep-agent-kill");
  int ready[2];
  BOOST_TEST_REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  BOOST_TEST_REQUIRE(child >= 0);
  if (child == 0) {
    // The process that dies: its tool says it started, then waits to be killed.
    ::close(ready[0]);
    try {
      const int fd = ready[1];
      auto agent =
          make_agent(server.base_url(), dir.str(), [fd](const value&, tool_runtime&) -> value {
            const char byte = 1;
            [[maybe_unused]] const ssize_t n = ::write(fd, &byte, 1);
            for (;;) ::pause();
          });
      agent->invoke(object{{"messages", list{human_message("20+22?")}}}, config);
    } catch (...) {
    }
    ::_exit(3);  // not reached when killed
  }
  ::close(ready[1]);
  pollfd p{ready[0], POLLIN, 0};
  const int polled = ::poll(&p, 1, 20000);
  char byte = 0;
  const bool started = polled == 1 && ::read(ready[0], &byte, 1) == 1;
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ::close(ready[0]);
  BOOST_TEST_REQUIRE(started, "the child's tool did not start within 20 s");
  BOOST_TEST(WIFSIGNALED(status));
  BOOST_TEST(server.requests().size() == 1u);

  // Another process (this one) resumes the thread from its checkpoints.
  auto agent =
      make_agent(server.base_url(), dir.str(), [](const value& args, tool_runtime&) -> value {
        return args.get("a").as_int() + args.get("b").as_int();
      });
  BOOST_TEST((agent->get_state(config).next == std::vector<std::string>{"tools"}));
  const value result = agent->invoke(value(), config);
  const list& messages = result.get("messages").as_list();
  BOOST_TEST_REQUIRE(messages.size() == 4u);
  BOOST_TEST(messages[2].get("content") == value("42"));
  BOOST_TEST(messages[3].get("content") == value("The sum is 42."));
  // One more model call: the answer after the tool, not the step saved before the kill.
  BOOST_TEST(server.requests().size() == 2u);
}
