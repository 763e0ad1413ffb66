// The node functions of the server tests' graphs (tests/server/graphs/*.json), ports of
// LangGraph.js's API test graphs (libs/langgraph-api/tests/graphs in langchain-ai/langgraphjs):
// the `agent` graph's scripted model, its tool and its router.
#include <chrono>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>

#include "superstep/cluster/plugin.hpp"

namespace {

using superstep::list;
using superstep::node_context;
using superstep::object;
using superstep::value;

// The model of each thread answers "begin", then "end", then again from the start, as the
// test graph's FakeListChatModel({responses: ["begin", "end"]}) does.
std::string next_answer(const std::string& thread) {
  static std::mutex mutex;
  static std::map<std::string, std::size_t> calls;
  std::lock_guard lock(mutex);
  static const char* answers[] = {"begin", "end"};
  return answers[calls[thread]++ % 2];
}

std::string message_id() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  static const char digits[] = "0123456789abcdef";
  std::string id;
  for (int i = 0; i < 32; ++i) {
    if (i == 8 || i == 12 || i == 16 || i == 20) id.push_back('-');
    id.push_back(digits[rng() % 16]);
  }
  return id;
}

const value& last_message(const value& state) {
  static const value none;
  const value& messages = state.get("messages");
  if (!messages.is_list() || messages.as_list().empty()) return none;
  return messages.as_list().back();
}

}  // namespace

SUPERSTEP_PLUGIN(registry) {
  // test.agent: interrupts when state.interrupt is set, sleeps for state.sleep seconds after a
  // human message, then answers with the thread's next scripted message.
  registry.add_node("test.agent", [](const value&) {
    return [](const value& state, node_context& ctx) -> value {
      if (state.get("interrupt").truthy()) ctx.interrupt(value("i want to interrupt"));
      const value& sleep = state.get("sleep");
      // The sleep ends early when the run is cancelled, and the model is not called then: the
      // JS graph's model call takes the run's abort signal.
      if (sleep.is_number() && last_message(state).get("type") == value("human")) {
        const auto until = std::chrono::steady_clock::now() +
                           std::chrono::milliseconds(static_cast<long long>(sleep.as_double() * 1000));
        while (std::chrono::steady_clock::now() < until && !ctx.cancelled())
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      ctx.throw_if_cancelled();
      const value& thread = ctx.configurable("thread_id");
      const std::string answer = next_answer(thread.is_string() ? thread.as_string() : "$");
      return object{{"interrupt", false},
                    {"messages", list{value(object{{"type", "ai"},
                                                   {"content", answer},
                                                   {"id", message_id()}})}}};
    };
  });
  // test.tool: the tool's answer to the last message.
  registry.add_node("test.tool", [](const value&) {
    return [](const value& state, node_context&) -> value {
      const value& last = last_message(state);
      if (last.is_null()) return object{{"messages", list{}}};
      const std::string content = last.get("content").is_string() ? last.get("content").as_string() : "";
      return object{{"messages", list{value(object{{"type", "tool"},
                                                   {"content", "tool_call__" + content},
                                                   {"tool_call_id", "tool_call_id"},
                                                   {"id", message_id()}})}}};
    };
  });
  // test.agent_route: the end after "end" (or when the first message says "should_end"),
  // the tool otherwise.
  registry.add_router("test.agent_route", [](const value&) {
    return [](const value& state, node_context&) -> value {
      const value& messages = state.get("messages");
      if (messages.is_list() && !messages.as_list().empty() &&
          messages.as_list().front().get("content") == value("should_end"))
        return value("__end__");
      if (last_message(state).get("content") == value("end")) return value("__end__");
      return value("tool");
    };
  });
}
