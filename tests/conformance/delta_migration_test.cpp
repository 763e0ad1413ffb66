// libs/langgraph/tests/test_delta_channel_migration.py: a thread written while a key was a
// reducer key (binary_operator_aggregate) read and continued once the key is a delta key:
// the stored values are the seeds the delta key's writes fold onto; see conformance.hpp.
#include <string>
#include <vector>

#include "conformance.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

node_function noop() {
  return [](const value&, node_context&) -> value { return object{}; };
}

std::shared_ptr<pregel> compiled(state_graph& b, std::shared_ptr<checkpoint_saver> saver) {
  b.add_node("noop", noop());
  b.add_edge("__start__", "noop").add_edge("noop", "__end__");
  compile_options o = opts();
  o.checkpointer = std::move(saver);
  return b.compile(o);
}

// items: BinaryOperatorAggregate(list, operator.add).
std::shared_ptr<pregel> binop_graph(std::shared_ptr<checkpoint_saver> saver) {
  state_graph b;
  b.add_key("items", "append");
  return compiled(b, std::move(saver));
}

// items: DeltaChannel(_list_concat).
std::shared_ptr<pregel> delta_graph(std::shared_ptr<checkpoint_saver> saver) {
  channels::reducer concat;
  concat.name = "list_concat";
  concat.fold = [](const value& state, std::span<const value> writes) {
    list out = state.as_list();
    for (const value& w : writes)
      if (w.is_list())
        out.insert(out.end(), w.as_list().begin(), w.as_list().end());
      else
        out.push_back(w);
    return value(std::move(out));
  };
  state_graph b;
  b.add_delta_key("items", concat);
  return compiled(b, std::move(saver));
}

// messages: add_messages, and the same key as DeltaChannel(_messages_delta_reducer).
std::shared_ptr<pregel> add_messages_graph(std::shared_ptr<checkpoint_saver> saver) {
  state_graph b;
  b.add_key("messages", "add_messages");
  return compiled(b, std::move(saver));
}
std::shared_ptr<pregel> delta_messages_graph(std::shared_ptr<checkpoint_saver> saver) {
  state_graph b;
  b.add_delta_key("messages", "messages_delta");
  return compiled(b, std::move(saver));
}

void drive(pregel& graph, const value& config, const std::string& tag, int n) {
  for (int i = 0; i < n; ++i)
    graph.invoke(object{{"items", list{tag + std::to_string(i)}}}, config);
}

value config_of(const checkpoint_config& c) {
  return object{{"configurable", object{{"thread_id", c.thread_id},
                                        {"checkpoint_ns", c.checkpoint_ns},
                                        {"checkpoint_id", c.checkpoint_id}}}};
}

value items_of(const value& values, const char* key = "items") {
  const value* v = values.find(key);
  return v ? *v : value(list{});
}

// (config, items) of each checkpoint between two invokes (next == ["__start__"]), newest first.
std::vector<std::pair<value, value>> settled_boundaries(const std::vector<state_snapshot>& history,
                                                        const char* key = "items") {
  std::vector<std::pair<value, value>> out;
  for (const auto& s : history)
    if (s.next == std::vector<std::string>{"__start__"})
      out.emplace_back(config_of(s.config), items_of(s.values, key));
  return out;
}

// (next, items) of every checkpoint of a thread, newest first.
std::string history_view(const pregel& graph, const value& config) {
  std::string out;
  for (const auto& s : graph.get_state_history(config)) {
    out += "[";
    for (const auto& n : s.next) out += n + ",";
    out += "]" + items_of(s.values).to_json() + ";";
  }
  return out;
}

// A saver answering get_delta_channel_history with checkpoint_saver's default walk (through
// get_tuple), not the saver's own: LangGraph's third-party-style saver.
class default_walk_saver final : public checkpoint_saver {
 public:
  explicit default_walk_saver(std::shared_ptr<checkpoint_saver> inner) : inner_(std::move(inner)) {}

  checkpoint_config put(const checkpoint_config& config, const checkpoint& cp,
                        const checkpoint_metadata& metadata,
                        const std::map<std::string, channel_version>& new_versions) override {
    return inner_->put(config, cp, metadata, new_versions);
  }
  checkpoint_config put_changes(const checkpoint_config& config, const checkpoint& cp,
                                const checkpoint_metadata& metadata,
                                const checkpoint_changes& changes) override {
    return inner_->put_changes(config, cp, metadata, changes);
  }
  void put_writes(const checkpoint_config& config,
                  const std::vector<std::pair<std::string, value>>& writes,
                  const std::string& task_id, const std::string& task_path) override {
    inner_->put_writes(config, writes, task_id, task_path);
  }
  void put_writes_many(const checkpoint_config& config,
                       const std::vector<task_writes>& tasks) override {
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
  channel_version latest_version(const checkpoint_config& config) override {
    return inner_->latest_version(config);
  }

 private:
  std::shared_ptr<checkpoint_saver> inner_;
};

std::vector<std::string> message_ids(const value& values) {
  std::vector<std::string> out;
  for (const auto& m : items_of(values, "messages").as_list())
    out.push_back(m.get("id").as_string());
  return out;
}

value human(const char* content, const char* id) {
  return object{{"messages", list{object{{"type", "human"}, {"content", content}, {"id", id}}}}};
}

}  // namespace

// libs/langgraph/tests/test_delta_channel_migration.py::test_basic_migration_preserves_pre_migration_state
BOOST_AUTO_TEST_CASE(test_basic_migration_preserves_pre_migration_state) {
  auto s = saver();
  const value config = thread("basic-sync");
  drive(*binop_graph(s), config, "u", 3);
  auto pre = settled_boundaries(binop_graph(s)->get_state_history(config));
  BOOST_TEST_REQUIRE(pre.size() >= 2u, "expected several settled boundaries");
  auto delta = delta_graph(s);
  for (const auto& [cfg, items] : pre)
    BOOST_TEST(items_of(delta->get_state(cfg).values) == items, cfg.to_json());
}

// libs/langgraph/tests/test_delta_channel_migration.py::test_time_travel_into_pre_migration_checkpoint
BOOST_AUTO_TEST_CASE(test_time_travel_into_pre_migration_checkpoint) {
  auto s = saver();
  const value config = thread("time-travel");
  drive(*binop_graph(s), config, "u", 3);
  auto pre = settled_boundaries(binop_graph(s)->get_state_history(config));
  std::vector<std::pair<value, value>> non_empty;
  for (const auto& b : pre)
    if (!b.second.as_list().empty()) non_empty.push_back(b);
  BOOST_TEST_REQUIRE(!non_empty.empty());
  const auto& [target, expected] = non_empty.back();  // the oldest: the longest way back
  BOOST_TEST(items_of(delta_graph(s)->get_state(target).values) == expected);
}

// libs/langgraph/tests/test_delta_channel_migration.py::test_continuing_migrated_thread_folds_deltas_on_seed
BOOST_AUTO_TEST_CASE(test_continuing_migrated_thread_folds_deltas_on_seed) {
  auto s = saver();
  const value config = thread("continue");
  drive(*binop_graph(s), config, "u", 2);
  auto pre = settled_boundaries(binop_graph(s)->get_state_history(config));
  std::optional<std::pair<value, value>> target;  // the oldest non-empty boundary
  for (auto it = pre.rbegin(); it != pre.rend() && !target; ++it)
    if (!it->second.as_list().empty()) target = *it;
  BOOST_TEST_REQUIRE(target.has_value());
  // Resumed from there: the START task staged there runs again under the delta key.
  const value result = delta_graph(s)->invoke(value(), target->first);
  const value items = items_of(result);
  const list& now = items.as_list();
  const list& seed = target->second.as_list();
  BOOST_TEST_REQUIRE(now.size() >= seed.size());
  for (std::size_t i = 0; i < seed.size(); ++i) BOOST_TEST(now[i] == seed[i]);
}

// libs/langgraph/tests/test_delta_channel_migration.py::test_base_saver_fallback_matches_optimized_override
BOOST_AUTO_TEST_CASE(test_base_saver_fallback_matches_optimized_override) {
  auto fast = saver();
  drive(*binop_graph(fast), thread("fast"), "u", 3);
  auto slow = std::make_shared<default_walk_saver>(saver());
  drive(*binop_graph(slow), thread("slow"), "u", 3);
  BOOST_TEST(history_view(*delta_graph(slow), thread("slow")) ==
             history_view(*delta_graph(fast), thread("fast")));
}

// libs/langgraph/tests/test_delta_channel_migration.py::test_delta_and_migrated_threads_do_not_cross_contaminate
BOOST_AUTO_TEST_CASE(test_delta_and_migrated_threads_do_not_cross_contaminate) {
  auto s = saver();
  drive(*binop_graph(s), thread("migrated"), "m", 2);
  auto delta = delta_graph(s);
  drive(*delta, thread("fresh"), "f", 2);
  for (const auto& [thread_id, tag] : {std::pair{"migrated", 'm'}, std::pair{"fresh", 'f'}}) {
    auto boundaries = settled_boundaries(delta->get_state_history(thread(thread_id)));
    BOOST_TEST_REQUIRE(!boundaries.empty(), thread_id);
    for (const auto& [_, items] : boundaries)
      for (const auto& item : items.as_list())
        BOOST_TEST(item.as_string().front() == tag, thread_id << " shows " << item.to_json());
  }
}

// libs/langgraph/tests/test_delta_channel_migration.py::test_tip_of_pre_migration_hydrates_directly
BOOST_AUTO_TEST_CASE(test_tip_of_pre_migration_hydrates_directly) {
  auto s = saver();
  const value config = thread("tip-sync");
  auto binop = binop_graph(s);
  drive(*binop, config, "u", 3);
  const value expected = items_of(binop->get_state(config).values);
  BOOST_TEST(expected.to_json() == R"(["u0","u1","u2"])");
  BOOST_TEST(items_of(delta_graph(s)->get_state(config).values) == expected);
}

// libs/langgraph/tests/test_delta_channel_migration.py::test_update_state_after_migration_uses_written_value
BOOST_AUTO_TEST_CASE(test_update_state_after_migration_uses_written_value) {
  auto s = saver();
  const value config = thread("update-state");
  drive(*binop_graph(s), config, "u", 2);
  auto delta = delta_graph(s);
  delta->invoke(object{{"items", list{"post"}}}, config);
  delta->update_state(config, object{{"items", list{"x", "y"}}});
  const value items = items_of(delta->get_state(config).values);
  BOOST_TEST(items.to_json() == R"(["u0","u1","post","x","y"])");
}

// libs/langgraph/tests/test_delta_channel_migration.py::test_fork_from_update_state_checkpoint
BOOST_AUTO_TEST_CASE(test_fork_from_update_state_checkpoint) {
  auto s = saver();
  const value config = thread("fork");
  drive(*binop_graph(s), config, "u", 2);
  auto delta = delta_graph(s);
  delta->invoke(object{{"items", list{"post"}}}, config);
  const value update_cfg = delta->update_state(config, object{{"items", list{"x", "y"}}});
  const value base = items_of(delta->get_state(update_cfg).values);
  BOOST_TEST(base.to_json() == R"(["u0","u1","post","x","y"])");
  const value forked = items_of(delta->invoke(object{{"items", list{"fork0"}}}, update_cfg));
  BOOST_TEST(forked.to_json() == R"(["u0","u1","post","x","y","fork0"])");
  // And read back cold.
  BOOST_TEST(items_of(delta->get_state(config).values) == forked);
}

// libs/langgraph/tests/test_delta_channel_migration.py::test_add_messages_to_delta_migration_preserves_message_history
BOOST_AUTO_TEST_CASE(test_add_messages_to_delta_migration_preserves_message_history) {
  auto s = saver();
  const value config = thread("add-messages-migration");
  auto pre = add_messages_graph(s);
  pre->invoke(human("hello", "h1"), config);
  pre->invoke(object{{"messages", list{object{{"type", "ai"}, {"content", "hi"}, {"id", "a1"}}}}},
              config);
  pre->invoke(human("thanks", "h2"), config);
  using ids = std::vector<std::string>;
  BOOST_TEST(message_ids(pre->get_state(config).values) == (ids{"h1", "a1", "h2"}),
             boost::test_tools::per_element());
  auto delta = delta_messages_graph(s);
  BOOST_TEST(message_ids(delta->get_state(config).values) == (ids{"h1", "a1", "h2"}),
             boost::test_tools::per_element());
  std::vector<ids> pre_settled, delta_settled;
  for (const auto& st : pre->get_state_history(config))
    if (st.next == std::vector<std::string>{"__start__"})
      pre_settled.push_back(message_ids(st.values));
  for (const auto& st : delta->get_state_history(config))
    if (st.next == std::vector<std::string>{"__start__"})
      delta_settled.push_back(message_ids(st.values));
  BOOST_TEST((delta_settled == pre_settled));
}

// libs/langgraph/tests/test_delta_channel_migration.py::test_first_post_migration_write_survives_cold_read
BOOST_AUTO_TEST_CASE(test_first_post_migration_write_survives_cold_read) {
  auto s = saver();
  const value config = thread("first-post-migration");
  binop_graph(s)->invoke(object{{"items", list{"a"}}}, config);
  auto delta = delta_graph(s);
  BOOST_TEST(items_of(delta->invoke(object{{"items", list{"b"}}}, config)).to_json() ==
             R"(["a","b"])");
  BOOST_TEST(items_of(delta->get_state(config).values).to_json() == R"(["a","b"])");
}

// libs/langgraph/tests/test_delta_channel_migration.py::test_post_migration_writes_match_base_saver_fallback
BOOST_AUTO_TEST_CASE(test_post_migration_writes_match_base_saver_fallback) {
  auto run = [](std::shared_ptr<checkpoint_saver> s, const char* thread_id) {
    const value config = thread(thread_id);
    drive(*binop_graph(s), config, "u", 2);
    auto delta = delta_graph(s);
    drive(*delta, config, "d", 3);
    return std::pair{history_view(*delta, config),
                     items_of(delta->get_state_history(config).front().values)};
  };
  auto fast = run(saver(), "fast");
  auto slow = run(std::make_shared<default_walk_saver>(saver()), "slow");
  BOOST_TEST(fast.first == slow.first);
  BOOST_TEST(fast.second.to_json() == R"(["u0","u1","d0","d1","d2"])");
}

// libs/langgraph/tests/test_delta_channel_migration.py::test_add_messages_migration_keeps_first_post_migration_message
BOOST_AUTO_TEST_CASE(test_add_messages_migration_keeps_first_post_migration_message) {
  auto s = saver();
  const value config = thread("add-messages-first-write");
  add_messages_graph(s)->invoke(human("hello", "h1"), config);
  auto delta = delta_messages_graph(s);
  delta->invoke(human("second", "h2"), config);
  BOOST_TEST(message_ids(delta->get_state(config).values) == (std::vector<std::string>{"h1", "h2"}),
             boost::test_tools::per_element());
}
