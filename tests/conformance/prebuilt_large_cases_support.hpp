#pragma once

// What the ports of test_large_cases.py's agent graphs share (prebuilt_large_cases_*_test.cpp):
// LangGraph's FakeFunctionChatModel, messages compared as its _AnyId* messages (any string id),
// and the checks of their update streams and snapshots.
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "prebuilt_support.hpp"

namespace superstep::conformance::large_cases {

using namespace superstep::agents;
using strings = std::vector<std::string>;

/// FakeFunctionChatModel of test_message_graph: answers with `responses[i]`, then the next,
/// back to the first after the last.
class fake_function_chat_model final : public chat_model {
 public:
  explicit fake_function_chat_model(list responses) : responses_(std::move(responses)) {}
  void reset() {
    std::lock_guard lock(mutex_);
    i_ = 0;
  }
  std::string describe() const override { return "fake function chat model"; }

 protected:
  value generate(const list&, const chat_options&) const override {
    std::lock_guard lock(mutex_);
    value response = responses_.at(i_);
    i_ = i_ + 1 < responses_.size() ? i_ + 1 : 0;
    return response;
  }
  value generate_stream(const list& messages, const chat_options& options,
                        const chunk_callback& on_chunk) const override {
    value m = generate(messages, options);
    if (on_chunk) on_chunk(m);
    return m;
  }

 private:
  list responses_;
  mutable std::mutex mutex_;
  mutable std::size_t i_ = 0;
};

/// An expected message: `any_id` for LangGraph's _AnyId* (any string id).
struct expected {
  value message;
  bool any_id = false;
};

inline expected any_id(value m) { return {std::move(m), true}; }

inline expected exact(value m) { return {std::move(m), false}; }

inline void check_message(const value& got, const expected& want) {
  const value g = want.any_id ? without_id(got) : got;
  BOOST_TEST(g == want.message, g.to_json() << " != " << want.message.to_json());
}

inline void check_messages(const value& actual, const std::vector<expected>& want) {
  BOOST_TEST_REQUIRE(actual.is_list(), actual.to_json());
  const list& got = actual.as_list();
  BOOST_TEST_REQUIRE(got.size() == want.size(), actual.to_json());
  for (std::size_t i = 0; i < got.size(); ++i) BOOST_TEST_CONTEXT("message " << i) {
      check_message(got[i], want[i]);
    }
}

inline value answered(const char* content, const char* call_id) {
  return tool_message(content, call_id, "search_api");
}

/// A tool node's update message compared without its id: LangGraph's shows the id the
/// reducer gave the message later in the step (the streamed object is the one add_messages
/// mutates), ours the node's output as it was.
inline value without_any_id(const value& m) {
  object o = m.as_object();
  o.erase("id");
  return value(std::move(o));
}

inline value ai_calling(const char* id, const char* call_id, const char* query) {
  return ai_message("", {call("search_api", object{{"query", query}}, call_id)}, id);
}

/// The run's `updates`, each {node: update} checked against `want` (null: {"__interrupt__":
/// []}); a tool node's update is a list of one tool message, compared without its id.
inline void check_updates(const pregel& graph, const value& input, const value& config,
                          const std::vector<std::pair<std::string, value>>& want) {
  std::vector<value> got;
  stream_options o;
  o.modes = {stream_mode::updates};
  graph.stream(input, config, o, [&](const stream_event& e) { got.push_back(e.data); });
  BOOST_TEST_REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    BOOST_TEST_CONTEXT("update " << i << ": " << got[i].to_json()) {
      BOOST_TEST_REQUIRE(got[i].is_object());
      BOOST_TEST_REQUIRE(got[i].as_object().size() == 1u);
      const auto& [node, update] = *got[i].as_object().begin();
      BOOST_TEST(node == want[i].first);
      if (node == "__interrupt__") {
        BOOST_TEST(update == value(list{}));
      } else if (node == "tools") {
        BOOST_TEST_REQUIRE(update.is_list());
        BOOST_TEST_REQUIRE(update.as_list().size() == 1u);
        BOOST_TEST(without_any_id(update.as_list()[0]) == want[i].second);
      } else {
        BOOST_TEST(update == want[i].second);
      }
    }
  }
}

inline value with_durability(value config, const char* durability) {
  object o = config.as_object();
  o.set("durability", durability);
  return value(std::move(o));
}

/// The snapshot's checks: next (the tasks' names the same, no errors or interrupts), metadata,
/// config, created_at, and the parent checkpoint (none for the first).
inline void check_snapshot(const state_snapshot& s, const strings& next, const char* source,
                           std::int64_t step, const std::optional<std::string>& parent_id,
                           const std::string& thread_id) {
  BOOST_TEST(s.next == next, boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(s.tasks.size() == next.size());
  for (std::size_t i = 0; i < next.size(); ++i) {
    BOOST_TEST(s.tasks[i].name == next[i]);
    BOOST_TEST(!s.tasks[i].error.has_value());
    BOOST_TEST(s.tasks[i].interrupts.empty());
  }
  BOOST_TEST(s.metadata == value(object{{"parents", object{}}, {"source", source}, {"step", step}}),
             s.metadata.to_json());
  BOOST_TEST(s.config.thread_id == thread_id);
  BOOST_TEST(s.config.checkpoint_ns == "");
  BOOST_TEST(!s.config.checkpoint_id.empty());
  BOOST_TEST(!s.created_at.empty());
  if (parent_id) {
    BOOST_TEST_REQUIRE(s.parent_config.has_value());
    BOOST_TEST(s.parent_config->checkpoint_id == *parent_id);
  } else {
    BOOST_TEST(!s.parent_config.has_value());
  }
}

/// `list(checkpointer.list(config, limit=2))[-1].config`'s checkpoint id.
inline std::string previous_checkpoint(const pregel& graph, const value& config) {
  list_options lo;
  lo.limit = 2;
  const auto history = graph.get_state_history(config, lo);
  BOOST_TEST_REQUIRE(history.size() == 2u);
  return history.back().config.checkpoint_id;
}

/// A message with its first tool call's args changed (LangGraph edits the object).
inline value with_args(const value& message, value args) {
  object m = message.as_object();
  list calls = m.find("tool_calls")->as_list();
  object first = calls.at(0).as_object();
  first.set("args", std::move(args));
  calls[0] = value(std::move(first));
  m.set("tool_calls", value(std::move(calls)));
  return value(std::move(m));
}

}  // namespace superstep::conformance::large_cases
