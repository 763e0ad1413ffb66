// A run fails with the error of whatever failed under it (a saver, a stream sink, a node, a
// subgraph) and leaves the thread's state as LangGraph leaves it: the process survives, no
// thread is left using the run's freed state, and `get_state` shows the successful tasks'
// writes applied with only the failed nodes next. Runs against both savers and both
// execution modes (tests/CMakeLists.txt).
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <memory>
#include <string>
#include <vector>

#include "coordinator/test_execution.hpp"
#include "superstep/coordinator/state_graph.hpp"
#include "superstep/core/error.hpp"
#include "support/expect_error.hpp"
#include "test_saver.hpp"

using namespace superstep;

namespace {

value thread(const char* id) { return object{{"configurable", object{{"thread_id", id}}}}; }

// Forwards to a real saver; the calls switched on throw a storage error instead.
class throwing_saver final : public checkpoint_saver {
 public:
  explicit throwing_saver(std::shared_ptr<checkpoint_saver> inner) : inner_(std::move(inner)) {}

  std::atomic<bool> fail_put_writes{false};
  std::atomic<bool> fail_put{false};
  bool only_in_subgraphs = false;  // fail only calls for a non-empty checkpoint namespace

  checkpoint_config put(const checkpoint_config& config, const checkpoint& cp,
                        const checkpoint_metadata& metadata,
                        const std::map<std::string, channel_version>& new_versions) override {
    check(fail_put, config, "put");
    return inner_->put(config, cp, metadata, new_versions);
  }
  checkpoint_config put_changes(const checkpoint_config& config, const checkpoint& cp,
                                const checkpoint_metadata& metadata,
                                const checkpoint_changes& changes) override {
    check(fail_put, config, "put");
    return inner_->put_changes(config, cp, metadata, changes);
  }
  void put_writes(const checkpoint_config& config,
                  const std::vector<std::pair<std::string, value>>& writes,
                  const std::string& task_id, const std::string& task_path) override {
    check(fail_put_writes, config, "put_writes");
    inner_->put_writes(config, writes, task_id, task_path);
  }
  void put_writes_many(const checkpoint_config& config,
                       const std::vector<task_writes>& tasks) override {
    check(fail_put_writes, config, "put_writes");
    inner_->put_writes_many(config, tasks);
  }
  std::optional<checkpoint_tuple> get_tuple(const checkpoint_config& config) override {
    return inner_->get_tuple(config);
  }
  std::vector<checkpoint_tuple> list(const checkpoint_config& config,
                                     const list_options& options) override {
    return inner_->list(config, options);
  }
  void delete_thread(const std::string& thread_id) override { inner_->delete_thread(thread_id); }
  void copy_thread(const std::string& source, const std::string& target) override {
    inner_->copy_thread(source, target);
  }
  void prune(const std::vector<std::string>& thread_ids, std::size_t keep_last) override {
    inner_->prune(thread_ids, keep_last);
  }
  void delete_checkpoints(const std::string& thread_id,
                          const std::vector<checkpoint_config>& which) override {
    inner_->delete_checkpoints(thread_id, which);
  }
  void delete_writes(const checkpoint_config& config) override { inner_->delete_writes(config); }
  channel_version get_next_version(channel_version current) override {
    return inner_->get_next_version(current);
  }
  channel_version latest_version(const checkpoint_config& config) override {
    return inner_->latest_version(config);
  }

 private:
  void check(const std::atomic<bool>& flag, const checkpoint_config& config, const char* call) {
    if (!flag.load()) return;
    if (only_in_subgraphs && config.checkpoint_ns.empty()) return;
    throw error(error_code::storage_error, std::string(call) + ": the disk is on fire");
  }

  std::shared_ptr<checkpoint_saver> inner_;
};

compile_options with_saver(std::shared_ptr<checkpoint_saver> saver) {
  compile_options o = test::opts();
  o.checkpointer = std::move(saver);
  return o;
}

// __start__ fans out to six parallel nodes, each adding 1 to `value`.
state_graph six_parallel_nodes() {
  state_graph b;
  b.add_key("value", "add");
  for (int i = 0; i < 6; ++i) {
    std::string name = "n" + std::to_string(i);
    b.add_node(name, [](const value&, node_context&) -> value { return object{{"value", 1}}; });
    b.add_edge("__start__", name);
  }
  return b;
}

constexpr int rounds = 20;  // repeated to shake out a thread left using the run's freed state

}  // namespace

BOOST_AUTO_TEST_CASE(a_saver_whose_put_writes_throws_fails_the_run_with_its_error) {
  auto saver = std::make_shared<throwing_saver>(test::make_saver());
  auto graph = six_parallel_nodes().compile(with_saver(saver));
  saver->fail_put_writes = true;
  for (int i = 0; i < rounds; ++i)
    test::expect_error([&] { graph->invoke(object{{"value", 0}}, thread("t")); },
                       error_code::storage_error, "put_writes: the disk is on fire");
  saver->fail_put_writes = false;  // the graph still runs once the saver recovers
  BOOST_TEST(graph->invoke(object{{"value", 0}}, thread("ok")).to_json() == R"({"value":6})");
}

BOOST_AUTO_TEST_CASE(a_saver_whose_put_throws_fails_the_run_with_its_error) {
  auto saver = std::make_shared<throwing_saver>(test::make_saver());
  auto graph = six_parallel_nodes().compile(with_saver(saver));
  saver->fail_put = true;
  for (int i = 0; i < rounds; ++i)
    test::expect_error([&] { graph->invoke(object{{"value", 0}}, thread("t")); },
                       error_code::storage_error, "put: the disk is on fire");
}

BOOST_AUTO_TEST_CASE(a_stream_sink_that_throws_fails_the_run_with_its_error) {
  auto graph = six_parallel_nodes().compile(with_saver(test::make_saver()));
  stream_options so;
  so.modes = {stream_mode::updates};
  for (int i = 0; i < rounds; ++i)
    test::expect_error(
        [&] {
          graph->stream(object{{"value", 0}}, thread("t"), so, [](const stream_event&) {
            throw error(error_code::unavailable, "the sink's client went away");
          });
        },
        error_code::unavailable, "the sink's client went away");
}

BOOST_AUTO_TEST_CASE(a_subgraph_whose_saver_throws_fails_the_parent_run_with_its_error) {
  auto saver = std::make_shared<throwing_saver>(test::make_saver());
  saver->only_in_subgraphs = true;
  // Each of six parallel parent nodes runs a subgraph of six parallel nodes: the subgraphs'
  // batches run on pool threads (threads mode), their saves failing there.
  auto child = six_parallel_nodes().compile(test::opts());
  state_graph parent;
  parent.add_key("value", "add");
  for (int i = 0; i < 6; ++i) {
    std::string name = "sub" + std::to_string(i);
    parent.add_node(name, child);
    parent.add_edge("__start__", name);
  }
  auto graph = parent.compile(with_saver(saver));
  saver->fail_put_writes = true;
  for (int i = 0; i < rounds; ++i)
    test::expect_error([&] { graph->invoke(object{{"value", 0}}, thread("t")); },
                       error_code::storage_error, "put_writes: the disk is on fire");
}
