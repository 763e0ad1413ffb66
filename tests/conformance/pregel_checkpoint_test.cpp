// libs/langgraph/tests/test_pregel.py: checkpoints of Pregel and StateGraph runs, resuming
// from them (pending writes, errors, time travel from a checkpoint id).
#include <atomic>
#include <map>

#include "conformance.hpp"
#include "superstep/channels/binary_operator_aggregate.hpp"
#include "superstep/channels/last_value.hpp"
#include "superstep/core/error.hpp"
#include "support/expect_error.hpp"
#include "support/throwing_saver.hpp"

using namespace superstep;
using namespace superstep::conformance;
namespace ch = superstep::channels;
using test::throwing_saver;

namespace {

value J(std::string_view json) { return value::parse_json(json); }

compile_options with_saver(std::shared_ptr<checkpoint_saver> saver) {
  compile_options o = opts();
  o.checkpointer = std::move(saver);
  return o;
}

value thread_with(const char* id, const char* durability) {
  return object{{"configurable", object{{"thread_id", id}}}, {"durability", durability}};
}

value config_of(const checkpoint_config& c) {
  return object{{"configurable", object{{"thread_id", c.thread_id},
                                        {"checkpoint_ns", c.checkpoint_ns},
                                        {"checkpoint_id", c.checkpoint_id}}}};
}

// The keys of a map, sorted and joined with ",".
template <class Map>
std::string keys_of(const Map& m) {
  std::vector<std::string> k;
  for (const auto& [key, _] : m) k.push_back(key);
  std::sort(k.begin(), k.end());
  std::string s;
  for (const auto& n : k) s += (s.empty() ? "" : ",") + n;
  return s;
}

std::string sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  std::string s;
  for (const auto& n : v) s += (s.empty() ? "" : ",") + n;
  return s;
}

value values_of(const checkpoint& cp) {
  object o;
  for (const auto& [k, v] : cp.channel_values) o.set(k, v);
  return value(std::move(o));
}

// A tuple's pending writes as "channel=value" (errors as the channel alone), sorted.
std::string writes_of(const checkpoint_tuple& t) {
  std::vector<std::string> w;
  for (const auto& p : t.pending_writes)
    w.push_back(p.channel == std::string(ERROR) ? p.channel : p.channel + "=" + p.v.to_json());
  return sorted(std::move(w));
}

std::string names(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& n : v) s += (s.empty() ? "" : ",") + n;
  return s;
}

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_invoke_checkpoint_three (a Pregel graph without
// stream channels shows every channel in its snapshots, not only its output channel)
BOOST_AUTO_TEST_CASE(test_invoke_checkpoint_three) {
  namespace ch = superstep::channels;
  auto saver = conformance::saver();
  ch::reducer add{
      "add", [](const value& a, const value& b) { return value(a.as_int() + b.as_int()); }, {}};
  pregel_graph g;
  g.channels = {{"total", std::make_shared<ch::binary_operator_aggregate>("total", add, value(0))},
                {"input", std::make_shared<ch::last_value>("input")},
                {"output", std::make_shared<ch::last_value>("output")}};
  pregel_node one;
  one.name = "one";
  one.triggers = {"input"};
  one.reads = {"input", "total"};
  // adder, then raise_if_above_10: a failed task writes nothing.
  one.fn = [](const value& x, node_context&) -> value {
    const std::int64_t sum = x.get("total").as_int() + x.get("input").as_int();
    if (sum > 10) throw std::runtime_error("Input is too large");
    return sum;
  };
  for (const char* channel : {"output", "total"})
    one.writers.push_back([channel = std::string(channel)](const value& out, write_scope& s) {
      s.write(channel, out);
    });
  g.nodes.push_back(std::move(one));
  g.input_channels = {"input"};
  g.input_single = true;
  g.output_channels = {"output"};
  g.output_single = true;
  runtime_options o;
  o.mode = mode();
  o.checkpointer = saver;
  pregel app(std::move(g), o);

  const value thread_1 = object{{"configurable", object{{"thread_id", "1"}}}};
  // total starts out as 0, so output is 0+2=2
  BOOST_TEST(app.invoke(2, thread_1) == value(2));
  state_snapshot state = app.get_state(thread_1);
  BOOST_TEST(state.values.get("total") == value(2));
  BOOST_TEST(state.values.to_json() == R"({"input":2,"output":2,"total":2})");
  BOOST_TEST(state.next.empty());
  BOOST_TEST(state.config.checkpoint_id == saver->get_tuple({"1", "", ""})->checkpoint.id);
  // total is now 2, so output is 2+3=5
  BOOST_TEST(app.invoke(3, thread_1) == value(5));
  state = app.get_state(thread_1);
  BOOST_TEST(state.values.get("total") == value(7));
  BOOST_TEST(state.config.checkpoint_id == saver->get_tuple({"1", "", ""})->checkpoint.id);
  // total is now 2+5=7, so output would be 7+4=11, but raises
  BOOST_CHECK_THROW(app.invoke(4, thread_1), std::exception);
  // the checkpoint has the new input, and "one" still to run
  state = app.get_state(thread_1);
  BOOST_TEST(state.values.get("total") == value(7));
  BOOST_TEST(names(state.next) == "one");
  // new input recovers from the error
  BOOST_TEST(app.invoke(2, thread_1) == value(9));
  state = app.get_state(thread_1);
  BOOST_TEST(state.values.get("total") == value(16));  // 7+9
  BOOST_TEST(state.next.empty());

  const value thread_2 = object{{"configurable", object{{"thread_id", "2"}}}};
  // on a new thread, total starts out as 0, so output is 0+5=5
  BOOST_TEST(app.invoke(5, thread_2) == value(5));
  state = app.get_state(thread_1);
  BOOST_TEST(state.values.get("total") == value(16));
  BOOST_TEST(state.next.empty());  // the other thread's checkpoint is untouched
  state = app.get_state(thread_2);
  BOOST_TEST(state.values.get("total") == value(5));
  BOOST_TEST(state.next.empty());

  list_options one_only;
  one_only.limit = 1;
  BOOST_TEST(app.get_state_history(thread_1, one_only).size() == 1u);
  const auto history = app.get_state_history(thread_1);
  BOOST_REQUIRE_EQUAL(history.size(), 7u);
  std::map<std::string, int> sources;
  for (const auto& c : history) ++sources[c.metadata.get("source").as_string()];
  BOOST_TEST((sources == std::map<std::string, int>{{"input", 4}, {"loop", 3}}));
  BOOST_TEST(history[0].config.checkpoint_id > history[1].config.checkpoint_id);
  // cursor pagination
  list_options cursor;
  cursor.limit = 1;
  cursor.before = history[0].config;
  const auto cursored = app.get_state_history(thread_1, cursor);
  BOOST_REQUIRE_EQUAL(cursored.size(), 1u);
  BOOST_TEST(cursored[0].config.checkpoint_id == history[1].config.checkpoint_id);
  BOOST_TEST(history[0].values.get("total") == value(16));  // the last checkpoint
  BOOST_TEST(history[5].values.get("total") == value(2));   // the first "loop" checkpoint
  BOOST_TEST(saver->get_tuple(history[0].config)->checkpoint.id == history[0].config.checkpoint_id);
  BOOST_TEST(saver->get_tuple(history[1].config)->checkpoint.id == history[1].config.checkpoint_id);

  value next_config = app.update_state(config_of(history[1].config), value(10));
  // update creates a new checkpoint, the child of the one it updated
  BOOST_TEST(next_config.get("configurable").get("checkpoint_id").as_string() >
             history[0].config.checkpoint_id);
  state_snapshot updated = app.get_state(next_config);
  BOOST_TEST_REQUIRE(updated.parent_config.has_value());
  BOOST_TEST(updated.parent_config->checkpoint_id == history[1].config.checkpoint_id);
  const auto after = app.get_state_history(thread_1);
  BOOST_TEST(after.size() == 8u);
  sources.clear();
  for (const auto& c : after) ++sources[c.metadata.get("source").as_string()];
  BOOST_TEST((sources == std::map<std::string, int>{{"input", 4}, {"loop", 3}, {"update", 1}}));
  // the latest checkpoint is the updated one
  BOOST_TEST(app.get_state(thread_1).to_value() == updated.to_value());
}

// libs/langgraph/tests/test_pregel.py::test_pending_writes_resume (each durability).
// Not asserted: the tasks' `result` (our snapshot tasks carry none) and the error's Python
// repr; the checkpoint's pending writes are checked by channel.
BOOST_AUTO_TEST_CASE(test_pending_writes_resume) {
  for (const char* durability : {"sync", "async", "exit"}) {
    BOOST_TEST_CONTEXT("durability " << durability) {
      auto saver = conformance::saver();
      std::atomic<int> one_calls{0}, two_calls{0};
      std::atomic<bool> two_fails{true};
      state_graph b;
      b.add_key("value", "add");
      b.add_node("one", [&](const value&, node_context&) -> value {
        ++one_calls;
        return object{{"value", 2}};
      });
      node_options retry;
      retry.retry = {retry_policy{}};
      retry.retry[0].max_attempts = 2;
      retry.retry[0].initial_interval_ms = 0;
      retry.retry[0].jitter = false;
      b.add_node(
          "two",
          [&](const value&, node_context&) -> value {
            ++two_calls;
            if (two_fails) throw std::runtime_error("I'm not good");
            return object{{"value", 3}};
          },
          retry);
      b.add_edge("__start__", "one").add_edge("__start__", "two");
      auto graph = b.compile(with_saver(saver));
      value thread1 =
          object{{"configurable", object{{"thread_id", "1"}}}, {"durability", durability}};

      test::expect_error(
          [&] {
            graph->invoke(object{{"value", 1}}, thread1);
          },
          error_code::node_error, "I'm not good");
      BOOST_TEST(one_calls == 1);
      BOOST_TEST(two_calls == 2);  // two attempts

      // The latest checkpoint is before "one" and "two", with the write of "one" applied.
      state_snapshot state = graph->get_state(thread1);
      BOOST_TEST(state.values.to_json() == R"({"value":3})");
      BOOST_TEST(state.next == std::vector<std::string>{"two"});
      BOOST_TEST_REQUIRE(state.tasks.size() == 2u);
      BOOST_TEST(state.tasks[0].name == "one");
      BOOST_TEST(!state.tasks[0].error);
      BOOST_TEST(state.tasks[1].name == "two");
      BOOST_TEST_REQUIRE(state.tasks[1].error.has_value());
      BOOST_TEST(state.tasks[1].error->find("I'm not good") != std::string::npos);
      BOOST_TEST(state.metadata.get("source").to_json() == R"("loop")");
      BOOST_TEST(state.metadata.get("step").to_json() == "0");
      // get_state with the checkpoint id applies no pending writes.
      value at = object{{"configurable", object{{"thread_id", "1"},
                                                {"checkpoint_id", state.config.checkpoint_id}}}};
      state_snapshot exact = graph->get_state(at);
      BOOST_TEST(exact.values.to_json() == R"({"value":1})");
      BOOST_TEST((exact.next == std::vector<std::string>{"one", "two"}));
      // The checkpoint holds the write of "one" and the error of "two", from different tasks.
      auto tuple = saver->get_tuple(checkpoint_config{"1", "", ""});
      BOOST_TEST_REQUIRE(tuple.has_value());
      BOOST_TEST_REQUIRE(tuple->pending_writes.size() == 2u);
      const pending_write* value_write = nullptr;
      const pending_write* error_write = nullptr;
      for (const auto& w : tuple->pending_writes)
        (w.channel == "__error__" ? error_write : value_write) = &w;
      BOOST_TEST_REQUIRE(value_write);
      BOOST_TEST_REQUIRE(error_write);
      BOOST_TEST(value_write->channel == "value");
      BOOST_TEST(value_write->v.to_json() == "2");
      BOOST_TEST(error_write->task_id != value_write->task_id);

      // Resuming runs "two" again only, and fails again.
      test::expect_error([&] { graph->invoke(value(), thread1); }, error_code::node_error,
                         "I'm not good");
      BOOST_TEST(one_calls == 1);
      BOOST_TEST(two_calls == 4);
      // No new checkpoint was saved.
      BOOST_TEST(graph->get_state(thread1).metadata.to_json() == state.metadata.to_json());

      // Resumed without the error: the pending write and the new one apply, 1 + 2 + 3 = 6.
      two_fails = false;
      BOOST_TEST(graph->invoke(value(), thread1).to_json() == R"({"value":6})");
      auto checkpoints = saver->list(checkpoint_config{"1", "", ""}, {});
      const bool exit = std::string(durability) == "exit";
      BOOST_TEST_REQUIRE(checkpoints.size() == (exit ? 2u : 3u));
      // The last one: both nodes' writes applied.
      const checkpoint_tuple& last = checkpoints[0];
      BOOST_TEST(keys_of(last.checkpoint.versions_seen) ==
                 "__input__,__interrupt__,__start__,one,two");
      BOOST_TEST(keys_of(last.checkpoint.versions_seen.at("one")) == "branch:to:one");
      BOOST_TEST(keys_of(last.checkpoint.versions_seen.at("two")) == "branch:to:two");
      BOOST_TEST(keys_of(last.checkpoint.versions_seen.at("__input__")) == "");
      BOOST_TEST(keys_of(last.checkpoint.versions_seen.at("__start__")) == "__start__");
      BOOST_TEST(keys_of(last.checkpoint.versions_seen.at("__interrupt__")) ==
                 "__start__,branch:to:one,branch:to:two,value");
      BOOST_TEST(keys_of(last.checkpoint.channel_versions) ==
                 "__start__,branch:to:one,branch:to:two,value");
      BOOST_TEST(values_of(last.checkpoint) == J(R"({"value":6})"));
      BOOST_TEST(last.checkpoint.updated_channels == std::vector<std::string>{"value"});
      BOOST_TEST(metadata_to_value(last.metadata) ==
                 J(R"({"parents":{},"step":1,"source":"loop"})"));
      BOOST_TEST_REQUIRE(last.parent_config.has_value());
      BOOST_TEST(last.parent_config->checkpoint_id == checkpoints[1].config.checkpoint_id);
      BOOST_TEST(last.pending_writes.empty());
      // The one before: the original error and the writes of the resumed step.
      const checkpoint_tuple& before = checkpoints[1];
      BOOST_TEST(keys_of(before.checkpoint.versions_seen) == "__input__,__start__");
      BOOST_TEST(keys_of(before.checkpoint.versions_seen.at("__start__")) == "__start__");
      BOOST_TEST(keys_of(before.checkpoint.channel_versions) ==
                 "__start__,branch:to:one,branch:to:two,value");
      BOOST_TEST(values_of(before.checkpoint) ==
                 J(R"({"value":1,"branch:to:one":null,"branch:to:two":null})"));
      BOOST_TEST(sorted(before.checkpoint.updated_channels) == "branch:to:one,branch:to:two,value");
      BOOST_TEST(metadata_to_value(before.metadata) ==
                 J(R"({"parents":{},"step":0,"source":"loop"})"));
      BOOST_TEST(before.parent_config.has_value() == !exit);
      if (!exit)
        BOOST_TEST(before.parent_config->checkpoint_id == checkpoints[2].config.checkpoint_id);
      BOOST_TEST(writes_of(before) == (exit ? "__error__,value=2" : "__error__,value=2,value=3"));
      if (exit) continue;
      // The input checkpoint.
      const checkpoint_tuple& input = checkpoints[2];
      BOOST_TEST(keys_of(input.checkpoint.versions_seen) == "__input__");
      BOOST_TEST(keys_of(input.checkpoint.channel_versions) == "__start__");
      BOOST_TEST(values_of(input.checkpoint) == J(R"({"__start__":{"value":1}})"));
      BOOST_TEST(input.checkpoint.updated_channels == std::vector<std::string>{"__start__"});
      BOOST_TEST(metadata_to_value(input.metadata) ==
                 J(R"({"parents":{},"step":-1,"source":"input"})"));
      BOOST_TEST(!input.parent_config.has_value());
      BOOST_TEST(writes_of(input) == "branch:to:one=null,branch:to:two=null,value=1");
    }
  }
}

// libs/langgraph/tests/test_pregel.py::test_checkpoint_errors (not ported: the faulty
// get_next_version, which our runs never call: versions are issued by the run loop above the
// saver's latest_version)
BOOST_AUTO_TEST_CASE(test_checkpoint_errors) {
  auto build = [](bool parallel) {
    state_graph builder;
    builder.add_key(std::string(ROOT), "add");
    auto logic = [](const value&, node_context&) -> value { return value(""); };
    builder.add_node("agent", logic);
    builder.add_edge("__start__", "agent");
    if (parallel) {  // add parallel node
      builder.add_node("parallel", logic);
      builder.add_edge("__start__", "parallel");
    }
    return builder;
  };
  {
    auto saver = std::make_shared<throwing_saver>(conformance::saver());
    saver->fail_get_tuple = true;
    auto graph = build(false).compile(with_saver(saver));
    test::expect_error([&] { graph->invoke(value(""), thread("thread-1")); },
                       error_code::storage_error, "get_tuple: the disk is on fire");
  }
  {
    auto saver = std::make_shared<throwing_saver>(conformance::saver());
    saver->fail_put = true;
    auto graph = build(false).compile(with_saver(saver));
    test::expect_error([&] { graph->invoke(value(""), thread("thread-1")); },
                       error_code::storage_error, "put: the disk is on fire");
  }
  {
    auto saver = std::make_shared<throwing_saver>(conformance::saver());
    saver->fail_put_writes = true;
    auto graph = build(true).compile(with_saver(saver));
    test::expect_error([&] { graph->invoke(value(""), thread_with("thread-1", "async")); },
                       error_code::storage_error, "put_writes: the disk is on fire");
  }
}

// libs/langgraph/tests/test_pregel.py::test_invoke_checkpoint_two (RetryPolicy() retries
// ConnectionError, not ValueError: retry_on says so; 1 ms intervals)
BOOST_AUTO_TEST_CASE(test_invoke_checkpoint_two) {
  auto saver = conformance::saver();
  ch::reducer add{
      "add", [](const value& a, const value& b) { return value(a.as_int() + b.as_int()); }, {}};
  std::atomic<bool> errored_once{false};
  pregel_graph g;
  g.channels = {{"total", std::make_shared<ch::binary_operator_aggregate>("total", add, value(0))},
                {"input", std::make_shared<ch::last_value>("input")},
                {"output", std::make_shared<ch::last_value>("output")}};
  pregel_node one;
  one.name = "one";
  one.triggers = {"input"};
  one.reads = {"input", "total"};
  // add_one, written to output and total, then raise_if_above_10: a failed task writes nothing
  one.fn = [&](const value& x, node_context&) -> value {
    const std::int64_t sum = x.get("total").as_int() + x.get("input").as_int();
    if (sum > 4 && !errored_once.exchange(true)) throw std::runtime_error("I will be retried");
    if (sum > 10) throw std::runtime_error("Input is too large");
    return sum;
  };
  for (const char* channel : {"output", "total"})
    one.writers.push_back([channel = std::string(channel)](const value& out, write_scope& s) {
      s.write(channel, out);
    });
  one.retry = {retry_policy{}};
  one.retry[0].initial_interval_ms = 1;
  one.retry[0].retry_on = [](const error& e) {
    return std::string(e.what()).find("I will be retried") != std::string::npos;
  };
  g.nodes.push_back(std::move(one));
  g.input_channels = {"input"};
  g.input_single = true;
  g.output_channels = {"output"};
  g.output_single = true;
  runtime_options o;
  o.mode = mode();
  o.checkpointer = saver;
  pregel app(std::move(g), o);
  auto total = [&](const char* thread_id) {
    return saver->get_tuple({thread_id, "", ""})->checkpoint.channel_values.at("total");
  };

  // total starts out as 0, so output is 0+2=2
  BOOST_TEST(app.invoke(2, thread("1")) == value(2));
  BOOST_TEST(total("1") == value(2));
  // total is now 2, so output is 2+3=5
  BOOST_TEST(app.invoke(3, thread("1")) == value(5));
  BOOST_TEST(errored_once.load(), "errored and retried");
  BOOST_TEST(total("1") == value(7));
  // total is now 2+5=7, so output would be 7+4=11, but raises
  test::expect_error([&] { app.invoke(4, thread("1")); }, error_code::node_error,
                     "Input is too large");
  // checkpoint is not updated, error is recorded
  auto tuple = saver->get_tuple({"1", "", ""});
  BOOST_TEST(tuple->checkpoint.channel_values.at("total") == value(7));
  BOOST_TEST_REQUIRE(tuple->pending_writes.size() == 1u);
  BOOST_TEST(tuple->pending_writes[0].channel == std::string(ERROR));
  BOOST_TEST(tuple->pending_writes[0].v.to_json().find("Input is too large") != std::string::npos);
  // on a new thread, total starts out as 0, so output is 0+5=5
  BOOST_TEST(app.invoke(5, thread("2")) == value(5));
  BOOST_TEST(total("1") == value(7));
  BOOST_TEST(total("2") == value(5));
}

// libs/langgraph/tests/test_pregel.py::test_run_from_checkpoint_id_retains_previous_writes
BOOST_AUTO_TEST_CASE(test_run_from_checkpoint_id_retains_previous_writes) {
  state_graph builder;
  builder.add_key("myval", "add", value(0)).add_key("otherval");  // int: starts at 0
  // One callable object shared by both nodes: it flips at each call.
  auto switch_ = std::make_shared<std::atomic<bool>>(false);
  auto thenode = [switch_](const value&, node_context&) -> value {
    bool on = !switch_->load();
    switch_->store(on);
    return object{{"myval", on ? 2 : 1}, {"otherval", on}};
  };
  builder.add_node("node_one", thenode);
  builder.add_node("node_two", thenode);
  builder.add_edge(std::string(START), "node_one");
  auto getedge = [](std::string src) {
    std::string swap = src == "node_two" ? "node_one" : "node_two";
    return [src, swap](const value& st, node_context&) -> value {
      if (st.get("myval").as_int() > 3) return value(std::string(END));
      if (st.get("otherval").truthy()) return value(swap);
      return value(src);
    };
  };
  builder.add_conditional_edges("node_one", getedge("node_one"));
  builder.add_conditional_edges("node_two", getedge("node_two"));
  auto graph = builder.compile(opts_with_saver());

  value thread1 = thread_with("thread-uuid", "async");
  value result = graph->invoke(J(R"({"myval":1})"), thread1);
  BOOST_TEST(result.get("myval") == value(4));
  auto history = graph->get_state_history(thread1);
  BOOST_TEST_REQUIRE(history.size() == 4u);
  BOOST_TEST(history.back().values == J(R"({"myval":0})"), history.back().values.to_json());
  BOOST_TEST(history[0].values == J(R"({"myval":4,"otherval":false})"));

  value second_run_config =
      object{{"configurable", object{{"thread_id", "thread-uuid"},
                                     {"checkpoint_id", history[1].config.checkpoint_id}}}};
  value second_result = graph->invoke(value(), second_run_config);
  BOOST_TEST(second_result == J(R"({"myval":5,"otherval":true})"), second_result.to_json());

  auto new_history = graph->get_state_history(
      object{{"configurable", object{{"thread_id", "thread-uuid"}, {"checkpoint_ns", ""}}}});
  // +2: one fork checkpoint from time travel, one from the new execution
  BOOST_TEST_REQUIRE(new_history.size() == history.size() + 2);
  BOOST_TEST(new_history[1].metadata.get("source") == value("fork"));
  for (std::size_t i = 0; i < history.size(); ++i) {
    const auto& original = history[i];
    const auto& now = new_history[i + 2];
    BOOST_TEST(original.values == now.values);
    BOOST_TEST(names(original.next) == names(now.next));
    BOOST_TEST(original.metadata.get("step") == now.metadata.get("step"));
    BOOST_TEST_REQUIRE(original.tasks.size() == now.tasks.size());
    for (std::size_t t = 0; t < original.tasks.size(); ++t) {
      BOOST_TEST(original.tasks[t].id == now.tasks[t].id);
      BOOST_TEST(original.tasks[t].name == now.tasks[t].name);
      BOOST_TEST((original.tasks[t].error == now.tasks[t].error));
      BOOST_TEST(value(original.tasks[t].interrupts) == value(now.tasks[t].interrupts));
    }
  }
}
