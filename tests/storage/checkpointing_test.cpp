// What a graph run saves through its checkpointer: the persistence guide's example
// (shared/seeds/000_*: node_a -> node_b with an append reducer on `bar`), a second run on the
// thread, failed tasks and resuming after them, tasks without writes, and the thread_id
// requirement.
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <set>
#include <stdexcept>

#include "saver_test_support.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/pregel/algo.hpp"
#include "superstep/storage/memory_saver.hpp"

using namespace superstep;
using namespace superstep::conformance;
using superstep::storage::memory_saver;

namespace {

node_function returns(value update) {
  return [update](const value&, node_context&) { return update; };
}

const value thread_1 = object{{"configurable", object{{"thread_id", "1"}}}};

// The seed graph: foo keeps the last value, bar appends.
std::shared_ptr<pregel> seed_graph(std::shared_ptr<checkpoint_saver> saver) {
  state_graph b;
  b.add_key("foo").add_key("bar", "append");
  b.add_node("node_a", returns(object{{"foo", "a"}, {"bar", value::array({"a"})}}));
  b.add_node("node_b", returns(object{{"foo", "b"}, {"bar", value::array({"b"})}}));
  b.add_edge(std::string(START), "node_a").add_edge("node_a", "node_b");
  b.add_edge("node_b", std::string(END));
  compile_options options;
  options.checkpointer = std::move(saver);
  return b.compile(options);
}

// The state as LangGraph's StateSnapshot.values shows it: the channels restored from the
// checkpoint, read as the graph's output. A channel with no saved value starts as its
// prototype (`bar` holds [] before any write).
value values_of(const pregel& graph, const checkpoint& cp) {
  const pregel_graph& g = graph.graph();
  auto state = algo::restore(g, cp);
  auto values = algo::read_channels(state.channels, g.output_channels, g.output_single);
  BOOST_REQUIRE(values);
  return *values;
}

// The state keys among a checkpoint's channel values, as saved.
value state_of(const checkpoint& cp) {
  object o;
  for (const char* key : {"foo", "bar"})
    if (auto it = cp.channel_values.find(key); it != cp.channel_values.end())
      o.set(key, it->second);
  return value(std::move(o));
}

// The nodes a checkpoint would run next: those with a trigger channel that holds a value at a
// version newer than the node last saw.
std::set<std::string> next_of(const checkpoint& cp) {
  const std::map<std::string, std::string> trigger{
      {"__start__", "__start__"}, {"node_a", "branch:to:node_a"}, {"node_b", "branch:to:node_b"}};
  std::set<std::string> next;
  for (const auto& [node, channel] : trigger) {
    auto version = cp.channel_versions.find(channel);
    if (version == cp.channel_versions.end() || !cp.channel_values.count(channel)) continue;
    channel_version seen = 0;
    if (auto s = cp.versions_seen.find(node); s != cp.versions_seen.end())
      if (auto v = s->second.find(channel); v != s->second.end()) seen = v->second;
    if (version->second > seen) next.insert(node);
  }
  return next;
}

// The value each task wrote to `channel` among `writes`, by task id.
std::map<std::string, value> written_to(const std::vector<pending_write>& writes,
                                        const std::string& channel) {
  std::map<std::string, value> out;
  for (const auto& w : writes)
    if (w.channel == channel) out[w.task_id] = w.v;
  return out;
}

// The one value written to `channel` among `writes`.
value only_write(const std::vector<pending_write>& writes, const std::string& channel) {
  auto found = written_to(writes, channel);
  BOOST_REQUIRE_MESSAGE(found.size() == 1u, found.size() << " tasks wrote " << channel);
  return found.begin()->second;
}

}  // namespace

BOOST_AUTO_TEST_CASE(seed_example_saves_exactly_four_checkpoints) {
  auto saver = std::make_shared<memory_saver>();
  auto graph = seed_graph(saver);
  BOOST_TEST(graph->invoke(object{{"foo", ""}}, thread_1) ==
             value(object{{"foo", "b"}, {"bar", value::array({"a", "b"})}}));

  auto history = saver->list({"1", "", ""}, {});
  BOOST_REQUIRE_EQUAL(history.size(), 4u);
  const auto& step2 = history[0];
  const auto& step1 = history[1];
  const auto& step0 = history[2];
  const auto& input = history[3];

  BOOST_TEST(step2.metadata.source == "loop");
  BOOST_TEST(step2.metadata.step == 2);
  // LangGraph's current metadata: source, step and parents, no `writes`.
  BOOST_TEST(metadata_to_value(step2.metadata).to_json() ==
             R"({"source":"loop","step":2,"parents":{}})");
  BOOST_TEST(values_of(*graph, step2.checkpoint) ==
             value(object{{"foo", "b"}, {"bar", value::array({"a", "b"})}}));
  BOOST_TEST(state_of(step2.checkpoint) == values_of(*graph, step2.checkpoint));
  BOOST_TEST(next_of(step2.checkpoint).empty());

  BOOST_TEST(step1.metadata.source == "loop");
  BOOST_TEST(step1.metadata.step == 1);
  BOOST_TEST(state_of(step1.checkpoint) ==
             value(object{{"foo", "a"}, {"bar", value::array({"a"})}}));
  BOOST_TEST(next_of(step1.checkpoint) == std::set<std::string>{"node_b"});

  BOOST_TEST(step0.metadata.source == "loop");
  BOOST_TEST(step0.metadata.step == 0);
  BOOST_TEST(values_of(*graph, step0.checkpoint) == value(object{{"foo", ""}, {"bar", list{}}}));
  // As with LangGraph's InMemorySaver, `bar` has no version before a node writes it, so no
  // value is saved for it: its [] above is the channel's initial value.
  BOOST_TEST(state_of(step0.checkpoint) == value(object{{"foo", ""}}));
  BOOST_TEST(next_of(step0.checkpoint) == std::set<std::string>{"node_a"});

  BOOST_TEST(input.metadata.source == "input");
  BOOST_TEST(input.metadata.step == -1);
  BOOST_TEST(metadata_to_value(input.metadata).to_json() ==
             R"({"source":"input","step":-1,"parents":{}})");
  BOOST_TEST(values_of(*graph, input.checkpoint) == value(object{{"bar", list{}}}));
  BOOST_TEST(state_of(input.checkpoint) == value(object{}));
  BOOST_TEST(input.checkpoint.channel_values.count("__start__") == 1u);
  if (input.checkpoint.channel_values.count("__start__"))
    BOOST_TEST(input.checkpoint.channel_values.at("__start__") == value(object{{"foo", ""}}));
  BOOST_TEST(next_of(input.checkpoint) == std::set<std::string>{"__start__"});

  // Each checkpoint's parent is the one before it; ids grow; every one has a timestamp.
  BOOST_TEST(!input.parent_config);
  for (std::size_t i = 0; i + 1 < history.size(); ++i) {
    BOOST_REQUIRE(history[i].parent_config);
    BOOST_TEST(config_value(*history[i].parent_config) == config_value(history[i + 1].config));
    BOOST_TEST(history[i + 1].checkpoint.id < history[i].checkpoint.id);
  }
  for (const auto& t : history) {
    BOOST_TEST(!t.checkpoint.ts.empty());
    BOOST_TEST(t.metadata.parents.empty());
    BOOST_TEST(config_value(t.config) == config_value({"1", "", t.checkpoint.id}));
  }

  // The latest is what get_tuple returns without an id.
  auto latest = saver->get_tuple({"1", "", ""});
  BOOST_REQUIRE(latest);
  BOOST_TEST(latest->checkpoint.id == step2.checkpoint.id);

  // node_a ran on the trigger version step 0 saved.
  BOOST_TEST(step1.checkpoint.versions_seen.at("node_a").at("branch:to:node_a") ==
             step0.checkpoint.channel_versions.at("branch:to:node_a"));
  BOOST_TEST(step2.checkpoint.versions_seen.at("node_b").at("branch:to:node_b") ==
             step1.checkpoint.channel_versions.at("branch:to:node_b"));

  // A task's writes are saved against the checkpoint its step started from.
  BOOST_TEST(step2.pending_writes.empty());
  for (const auto* t : {&step0, &step1, &input}) {
    std::set<std::string> tasks;
    for (const auto& w : t->pending_writes) tasks.insert(w.task_id);
    BOOST_TEST(tasks.size() == 1u, "one task per step in checkpoint step " << t->metadata.step);
  }
  BOOST_TEST(only_write(step0.pending_writes, "foo") == value("a"));
  BOOST_TEST(only_write(step0.pending_writes, "bar") == value::array({"a"}));
  BOOST_TEST(only_write(step1.pending_writes, "foo") == value("b"));
  BOOST_TEST(only_write(step1.pending_writes, "bar") == value::array({"b"}));
  BOOST_TEST(only_write(input.pending_writes, "foo") == value(""));
  BOOST_TEST(written_to(input.pending_writes, "branch:to:node_a").size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_second_run_continues_the_thread_from_its_latest_checkpoint) {
  auto saver = std::make_shared<memory_saver>();
  auto graph = seed_graph(saver);
  graph->invoke(object{{"foo", ""}}, thread_1);
  const std::string first_latest = saver->get_tuple({"1", "", ""})->checkpoint.id;
  // bar is restored from the saved blobs and appended to again.
  BOOST_TEST(graph->invoke(object{{"foo", "again"}}, thread_1) ==
             value(object{{"foo", "b"}, {"bar", value::array({"a", "b", "a", "b"})}}));

  auto history = saver->list({"1", "", ""}, {});
  BOOST_REQUIRE_EQUAL(history.size(), 8u);
  std::vector<std::int64_t> steps;
  for (const auto& t : history) steps.push_back(t.metadata.step);
  BOOST_TEST(steps == (std::vector<std::int64_t>{6, 5, 4, 3, 2, 1, 0, -1}));
  const auto& input = history[3];
  BOOST_TEST(input.metadata.source == "input");
  BOOST_REQUIRE(input.parent_config);
  BOOST_TEST(input.parent_config->checkpoint_id == first_latest);
  BOOST_TEST(values_of(*graph, history[2].checkpoint) ==
             value(object{{"foo", "again"}, {"bar", value::array({"a", "b"})}}));
  BOOST_TEST(next_of(history[2].checkpoint) == std::set<std::string>{"node_a"});
}

BOOST_AUTO_TEST_CASE(a_failing_task_saves_its_error_and_its_siblings_their_writes) {
  auto saver = std::make_shared<memory_saver>();
  state_graph b;
  b.add_key("ok").add_key("bad");
  b.add_node("fine", returns(object{{"ok", "done"}}));
  b.add_node("broken", [](const value&, node_context&) -> value {
    throw std::runtime_error("boom in broken");
  });
  b.add_edge(std::string(START), "fine").add_edge(std::string(START), "broken");
  compile_options options;
  options.checkpointer = saver;
  auto graph = b.compile(options);
  expect_error(
      [&] {
        graph->invoke(object{{"ok", "start"}}, thread_1);
      },
      error_code::node_error, "boom in broken");

  // No checkpoint for the failed step: the latest is step 0, holding both tasks' writes.
  auto latest = saver->get_tuple({"1", "", ""});
  BOOST_REQUIRE(latest);
  BOOST_TEST(latest->metadata.step == 0);
  BOOST_TEST(saver->list({"1", "", ""}, {}).size() == 2u);
  auto errors = written_to(latest->pending_writes, std::string(ERROR));
  auto oks = written_to(latest->pending_writes, "ok");
  BOOST_REQUIRE_EQUAL(errors.size(), 1u);
  BOOST_REQUIRE_EQUAL(oks.size(), 1u);
  BOOST_TEST(errors.begin()->second.as_string().find("boom in broken") != std::string::npos);
  BOOST_TEST(oks.begin()->second == value("done"));
  BOOST_TEST(errors.begin()->first != oks.begin()->first);
  // The failed task saved nothing but its error.
  for (const auto& w : latest->pending_writes)
    if (w.task_id == errors.begin()->first) BOOST_TEST(w.channel == std::string(ERROR));
}

// DESIGN 2.3: on resume, stored pending writes attach to the re-created tasks, which are not
// run again; only the failed task runs. Fails today: run_loop::begin drops the tuple's
// pending_writes, so every task of the step runs again.
BOOST_AUTO_TEST_CASE(resuming_after_a_failure_reruns_only_the_failed_task) {
  auto saver = std::make_shared<memory_saver>();
  std::atomic<int> fine_runs{0}, broken_runs{0};
  state_graph b;
  b.add_key("ok").add_key("bad");
  b.add_node("fine", [&](const value&, node_context&) -> value {
    ++fine_runs;
    return object{{"ok", "done"}};
  });
  b.add_node("broken", [&](const value&, node_context&) -> value {
    if (++broken_runs == 1) throw std::runtime_error("boom in broken");
    return object{{"bad", "fixed"}};
  });
  b.add_edge(std::string(START), "fine").add_edge(std::string(START), "broken");
  compile_options options;
  options.checkpointer = saver;
  auto graph = b.compile(options);
  expect_error(
      [&] {
        graph->invoke(object{{"ok", "start"}}, thread_1);
      },
      error_code::node_error, "boom in broken");

  BOOST_TEST(graph->invoke(value(), thread_1) == value(object{{"ok", "done"}, {"bad", "fixed"}}));
  BOOST_TEST(broken_runs.load() == 2);
  BOOST_TEST(fine_runs.load() == 1, "fine ran " << fine_runs.load() << " times");
  auto latest = saver->get_tuple({"1", "", ""});
  BOOST_REQUIRE(latest);
  BOOST_TEST(latest->metadata.step == 1);
  BOOST_TEST(saver->list({"1", "", ""}, {}).size() == 3u);
}

// As LangGraph's runner: a finished task with no writes saves [(__no_writes__, null)], so a
// resume knows it finished. Fails today: run_loop::save_writes saves the empty batch, which
// stores nothing.
BOOST_AUTO_TEST_CASE(a_task_that_writes_nothing_saves_a_no_writes_marker) {
  auto saver = std::make_shared<memory_saver>();
  state_graph b;
  b.add_key("x");
  b.add_node("quiet", returns(object{}));
  b.add_edge(std::string(START), "quiet").add_edge("quiet", std::string(END));
  compile_options options;
  options.checkpointer = saver;
  b.compile(options)->invoke(object{{"x", 1}}, thread_1);

  auto history = saver->list({"1", "", ""}, {});
  BOOST_REQUIRE_EQUAL(history.size(), 3u);
  const auto& step0 = history[1];
  BOOST_TEST(step0.metadata.step == 0);
  BOOST_TEST(
      writes_value(step0.pending_writes).to_json().find("__no_writes__") != std::string::npos,
      "step 0 pending writes: " << writes_value(step0.pending_writes));
}

BOOST_AUTO_TEST_CASE(a_graph_with_a_checkpointer_needs_a_thread_id) {
  auto saver = std::make_shared<memory_saver>();
  auto graph = seed_graph(saver);
  expect_error(
      [&] {
        graph->invoke(object{{"foo", ""}});
      },
      error_code::invalid_argument, "thread_id");
  expect_error(
      [&] {
        graph->invoke(object{{"foo", ""}}, object{{"configurable", object{}}});
      },
      error_code::invalid_argument, "thread_id");
  BOOST_TEST(saver->list({"", "", ""}, {}).empty());
}
