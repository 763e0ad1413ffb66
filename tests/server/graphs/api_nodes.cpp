// The node functions of the server tests' graphs (tests/server/graphs/*.json), ports of
// LangGraph.js's API test graphs (libs/langgraph-api/tests/graphs in langchain-ai/langgraphjs):
// the `agent` graph's scripted model, its tool, its store checks and its router; the nodes of
// the `weather`, `error`, `delay` and `simple_runtime` graphs; the reducer of `dynamic`.
#include <chrono>
#include <map>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>

#include "superstep/checkpoint/store.hpp"
#include "superstep/cluster/plugin.hpp"

namespace {

// What the `error` graph's node throws (the original graph's CustomError).
struct CustomError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

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

// Waits `ms`, in small slices, until the task is cancelled: then throws as throw_if_cancelled.
void wait_ms(node_context& ctx, double ms) {
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::microseconds(static_cast<long long>(ms * 1000));
  while (std::chrono::steady_clock::now() < until && !ctx.cancelled())
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ctx.throw_if_cancelled();
}

std::string text_of(const value& v) { return v.is_string() ? v.as_string() : v.to_json(); }

// Where the agent's nodes share a value through the store (the JS graph's "shared state").
const superstep::storage::namespace_path shared_namespace{"sharedState", "data"};
const char* const shared_key = "user_id";

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
      // state.sleep is seconds, or {steps, ms}: `steps` waits of `ms`, each announced on the
      // custom stream as {type: "sleep", step}.
      const bool after_human = last_message(state).get("type") == value("human");
      if (sleep.is_number() && after_human) {
        wait_ms(ctx, sleep.as_double() * 1000);
      } else if (sleep.is_object() && after_human) {
        const std::int64_t steps = sleep.get("steps").is_number() ? sleep.get("steps").as_int() : 0;
        const double ms = sleep.get("ms").is_number() ? sleep.get("ms").as_double() : 0;
        for (std::int64_t step = 0; step < steps; ++step) {
          ctx.emit_custom(value(object{{"type", "sleep"}, {"step", step}}));
          wait_ms(ctx, ms);
        }
      }
      ctx.throw_if_cancelled();
      const value& thread = ctx.configurable("thread_id");
      const std::string answer = next_answer(thread.is_string() ? thread.as_string() : "$");
      // The first node puts the run's user id in the store, for the tool node to read back,
      // unless the state has it already.
      if (auto* store = ctx.store(); store && !state.get("sharedStateFromStoreConfig").truthy())
        store->put(shared_namespace, shared_key,
                   value(object{{"id", ctx.configurable("user_id")}}));
      // The answer streams one character at a time on `messages`, as the JS graph's chat
      // model streams its tokens; the message the node returns is then not streamed again.
      const std::string id = message_id();
      if (ctx.streams(superstep::stream_mode::messages)) {
        for (char c : answer)
          ctx.emit_message(value(
              object{{"type", "AIMessageChunk"}, {"content", std::string(1, c)}, {"id", id}}));
        ctx.note_message_seen(id);
      }
      return object{
          {"interrupt", false},
          {"messages", list{value(object{{"type", "ai"}, {"content", answer}, {"id", id}})}}};
    };
  });
  // test.tool: the tool's answer to the last message.
  // It also reads back what test.agent put in the store, to sharedStateFromStoreConfig.
  registry.add_node("test.tool", [](const value&) {
    return [](const value& state, node_context& ctx) -> value {
      value shared;
      if (auto* store = ctx.store())
        if (auto item = store->get(shared_namespace, shared_key)) shared = item->v;
      const value& last = last_message(state);
      if (last.is_null())
        return object{{"messages", list{}}, {"sharedStateFromStoreConfig", shared}};
      const std::string content =
          last.get("content").is_string() ? last.get("content").as_string() : "";
      return object{{"messages", list{value(object{{"type", "tool"},
                                                   {"content", "tool_call__" + content},
                                                   {"tool_call_id", "tool_call_id"},
                                                   {"id", message_id()}})}},
                    {"sharedStateFromStoreConfig", shared}};
    };
  });
  // test.check_shared_state: fails unless the store holds {isTrue: true} at
  // ("inputtedState", "data") / "my_key", which the test put there through the API.
  registry.add_node("test.check_shared_state", [](const value&) {
    return [](const value&, node_context& ctx) -> value {
      if (auto* store = ctx.store()) {
        auto item = store->get({"inputtedState", "data"}, "my_key");
        if (!item || !item->v.get("isTrue").truthy()) throw std::runtime_error("Value is not true");
      }
      return object{};
    };
  });
  // test.agent_route: the end after "end" (or when the first message says "should_end"),
  // checkSharedState when the first message says "___check_state_value", the tool otherwise.
  registry.add_router("test.agent_route", [](const value&) {
    return [](const value& state, node_context&) -> value {
      const value& messages = state.get("messages");
      if (messages.is_list() && !messages.as_list().empty() &&
          messages.as_list().front().get("content") == value("should_end"))
        return value("__end__");
      if (messages.is_list() && !messages.as_list().empty() &&
          messages.as_list().front().get("content") == value("___check_state_value"))
        return value("checkSharedState");
      if (last_message(state).get("content") == value("end")) return value("__end__");
      return value("tool");
    };
  });

  // test.weather_report (the `weather` graph's weather_node): the weather in state.city.
  registry.add_node("test.weather_report", [](const value&) {
    return [](const value& state, node_context&) -> value {
      return object{
          {"messages",
           list{value(object{{"type", "ai"},
                             {"content", "It's sunny in " + text_of(state.get("city")) + "!"},
                             {"id", message_id()}})}}};
    };
  });
  // test.custom_error (the `error` graph's node): fails with "Boo!" after a second, as the JS
  // graph does, with an exception of its own class, which the server reports.
  registry.add_node("test.custom_error", [](const value&) {
    return [](const value&, node_context& ctx) -> value {
      wait_ms(ctx, 1000);
      throw CustomError("Boo!");
    };
  });
  // test.long_running (the `delay` graph's node): waits state.delay ms, then says so.
  registry.add_node("test.long_running", [](const value&) {
    return [](const value& state, node_context& ctx) -> value {
      const value& delay = state.get("delay");
      wait_ms(ctx, delay.is_number() ? delay.as_double() : 0);
      return object{{"messages", list{value("finished after " + text_of(delay) + "ms")}}};
    };
  });
  // test.use_context (the `simple_runtime` graph's node): the run context's model.
  registry.add_node("test.use_context", [](const value&) {
    return [](const value&, node_context& ctx) -> value {
      return object{{"model", ctx.context().get("model")}};
    };
  });
  // test.dynamic_node (the `dynamic` graph's node): writes its own name to `node` and to
  // `messages`.
  registry.add_node("test.dynamic_node", [](const value&) {
    return [](const value&, node_context& ctx) -> value {
      const std::string name(ctx.node());
      return object{{"node", name}, {"messages", list{value(name)}}};
    };
  });
  // test.dynamic_route (the `dynamic` graph's entry): the node named by the configurable
  // `nodeName`, "default" without one. The JS graph is built per run with that one node.
  registry.add_router("test.dynamic_route", [](const value&) {
    return [](const value&, node_context& ctx) -> value {
      const value& name = ctx.configurable("nodeName");
      return name.is_string() ? name : value("default");
    };
  });
  // test.append_items (the `dynamic` graph's messages reducer): appends a list's items, or
  // one value that is not a list.
  registry.add_reducer(
      "test.append_items",
      superstep::channels::reducer{"test.append_items",
                                   [](const value& current, const value& update) -> value {
                                     list out = current.is_list() ? current.as_list() : list{};
                                     if (update.is_list())
                                       out.insert(out.end(), update.as_list().begin(),
                                                  update.as_list().end());
                                     else
                                       out.push_back(update);
                                     return value(std::move(out));
                                   },
                                   {}});
}
