// libs/checkpoint-sqlite's tests of get_delta_channel_history and of a thread moving from a
// reducer key to a delta key (test_get_delta_channel_history.py,
// test_delta_channel_migration.py), run against our savers through real delta-key graphs
// instead of SqliteSaver; see conformance.hpp. Their async twins call the same through
// AsyncSqliteSaver: our savers have no async API (NOT_PORTED.md).
#include <string>
#include <vector>

#include "conformance.hpp"
#include "superstep/channels/delta_channel.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

node_function noop() {
  return [](const value&, node_context&) -> value { return object{}; };
}

// StateGraph with items: DeltaChannel(operator.add), START -> noop -> END.
std::shared_ptr<pregel> delta_graph(std::shared_ptr<checkpoint_saver> saver,
                                    channels::reducer reducer) {
  state_graph b;
  b.add_delta_key("items", std::move(reducer));
  b.add_node("noop", noop());
  b.add_edge("__start__", "noop").add_edge("noop", "__end__");
  compile_options o = opts();
  o.checkpointer = std::move(saver);
  return b.compile(o);
}

const channels::reducer& list_add() { return *channels::builtin_reducer("append"); }

// The migration tests' _list_concat: extends with a list write, appends any other.
channels::reducer list_concat() {
  channels::reducer r;
  r.name = "list_concat";
  r.fold = [](const value& state, std::span<const value> writes) {
    list out = state.as_list();
    for (const value& w : writes)
      if (w.is_list())
        out.insert(out.end(), w.as_list().begin(), w.as_list().end());
      else
        out.push_back(w);
    return value(std::move(out));
  };
  return r;
}

// The same graph with items: BinaryOperatorAggregate(list, operator.add).
std::shared_ptr<pregel> binop_graph(std::shared_ptr<checkpoint_saver> saver) {
  state_graph b;
  b.add_key("items", "append");
  b.add_node("noop", noop());
  b.add_edge("__start__", "noop").add_edge("noop", "__end__");
  compile_options o = opts();
  o.checkpointer = std::move(saver);
  return b.compile(o);
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

// (config, items) of each checkpoint whose next is ["__start__"]: the boundaries between
// invokes, newest first.
std::vector<std::pair<checkpoint_config, value>> settled_boundaries(
    const std::vector<state_snapshot>& history) {
  std::vector<std::pair<checkpoint_config, value>> out;
  for (const auto& s : history)
    if (s.next == std::vector<std::string>{"__start__"}) {
      const value* items = s.values.find("items");
      out.emplace_back(s.config, items ? *items : value(list{}));
    }
  return out;
}

}  // namespace

// libs/checkpoint-sqlite/tests/test_get_delta_channel_history.py::test_empty_channels_returns_empty_mapping_sync
BOOST_AUTO_TEST_CASE(test_empty_channels_returns_empty_mapping_sync) {
  auto s = saver();
  BOOST_TEST(s->get_delta_channel_history(checkpoint_config{"empty", "", ""}, {}).empty());
}

// libs/checkpoint-sqlite/tests/test_get_delta_channel_history.py::test_writes_history_oldest_to_newest_sync
BOOST_AUTO_TEST_CASE(test_writes_history_oldest_to_newest_sync) {
  auto s = saver();
  const value config = thread("history-sync");
  auto graph = delta_graph(s, list_add());
  drive(*graph, config, "v", 3);

  std::optional<checkpoint_config> target;
  for (const auto& tuple : s->list(checkpoint_config{"history-sync", "", ""}, {}))
    if (tuple.parent_config) {
      target = tuple.config;
      break;
    }
  BOOST_TEST_REQUIRE(target.has_value());
  auto result = s->get_delta_channel_history(*target, {"items"});
  BOOST_TEST_REQUIRE(result.count("items"));
  std::vector<std::string> values;
  for (const auto& w : result["items"].writes) {
    BOOST_TEST(w.channel == "items");
    if (w.v.is_list())
      for (const auto& v : w.v.as_list()) values.push_back(v.as_string());
    else
      values.push_back(w.v.as_string());
  }
  for (std::size_t i = 0; i < values.size(); ++i)
    BOOST_TEST(values[i] == "v" + std::to_string(i), "writes not oldest to newest");
  // Every invoke's write is on the newest checkpoint's path (no snapshot cut it short).
  BOOST_TEST(values.size() == 3u);
}

// libs/checkpoint-sqlite/tests/test_get_delta_channel_history.py::test_seed_present_when_snapshot_in_ancestor_sync
BOOST_AUTO_TEST_CASE(test_seed_present_when_snapshot_in_ancestor_sync) {
  auto s = saver();
  const value config = thread("seed-sync");
  auto graph = delta_graph(s, list_add());
  drive(*graph, config, "v", 2);

  auto history = s->list(checkpoint_config{"seed-sync", "", ""}, {});
  BOOST_TEST_REQUIRE(history.size() >= 2u);
  const checkpoint_tuple& leaf = history.front();
  BOOST_TEST_REQUIRE(leaf.parent_config.has_value());
  auto parent = s->get_tuple(*leaf.parent_config);
  BOOST_TEST_REQUIRE(parent.has_value());

  // Surgery: the leaf's parent stored again with a snapshot of items, under a new version so
  // the saver stores the value.
  const value snapshot_value = list{"seeded", "items"};
  parent->checkpoint.channel_values["items"] = channels::delta_snapshot(snapshot_value);
  const channel_version version = s->latest_version(parent->config) + 1;
  parent->checkpoint.channel_versions["items"] = version;
  checkpoint_config put_at = parent->parent_config.value_or(
      checkpoint_config{parent->config.thread_id, parent->config.checkpoint_ns, ""});
  s->put(put_at, parent->checkpoint, parent->metadata, {{"items", version}});

  auto result = s->get_delta_channel_history(leaf.config, {"items"});
  const delta_channel_history& entry = result["items"];
  BOOST_TEST_REQUIRE(entry.seed.has_value(), "expected a seed");
  const value* seeded = channels::as_delta_snapshot(*entry.seed);
  BOOST_TEST_REQUIRE(seeded, "expected a snapshot, got " << entry.seed->to_json());
  BOOST_TEST(*seeded == snapshot_value);
}

// libs/checkpoint-sqlite/tests/test_get_delta_channel_history.py::test_seed_omitted_when_walk_reaches_root_sync
BOOST_AUTO_TEST_CASE(test_seed_omitted_when_walk_reaches_root_sync) {
  auto s = saver();
  const value config = thread("root-sync");
  auto graph = delta_graph(s, list_add());
  drive(*graph, config, "v", 1);

  auto history = s->list(checkpoint_config{"root-sync", "", ""}, {});
  BOOST_TEST_REQUIRE(!history.empty());
  const checkpoint_tuple& root = history.back();
  BOOST_TEST(!root.parent_config.has_value());
  auto result = s->get_delta_channel_history(root.config, {"items"});
  BOOST_TEST(!result["items"].seed.has_value(), "a walk from the root has no seed");
  BOOST_TEST(result["items"].writes.empty());
}

// libs/checkpoint-sqlite/tests/test_delta_channel_migration.py::test_migration_preserves_pre_migration_state_sync
BOOST_AUTO_TEST_CASE(test_migration_preserves_pre_migration_state_sync) {
  auto s = saver();
  const value config = thread("mig-sync");
  auto binop = binop_graph(s);
  drive(*binop, config, "u", 3);

  auto pre_boundaries = settled_boundaries(binop->get_state_history(config));
  BOOST_TEST_REQUIRE(pre_boundaries.size() >= 2u, "expected several settled boundaries");

  // The key is a delta key now: each earlier checkpoint reads as it did (its stored value is
  // the seed).
  auto delta = delta_graph(s, list_concat());
  for (const auto& [cfg, items] : pre_boundaries) {
    const value values = delta->get_state(config_of(cfg)).values;
    const value* now = values.find("items");
    BOOST_TEST((now ? *now : value(list{})) == items, "at " << cfg.checkpoint_id);
  }
}

// libs/checkpoint-sqlite/tests/test_delta_channel_migration.py::test_migration_continued_thread_folds_deltas_on_seed_sync
BOOST_AUTO_TEST_CASE(test_migration_continued_thread_folds_deltas_on_seed_sync) {
  auto s = saver();
  const value config = thread("mig-continue-sync");
  auto binop = binop_graph(s);
  drive(*binop, config, "u", 3);

  auto pre_boundaries = settled_boundaries(binop->get_state_history(config));
  BOOST_TEST_REQUIRE(!pre_boundaries.empty());
  const auto& [leaf_cfg, leaf_items] = pre_boundaries.front();
  BOOST_TEST_REQUIRE(!leaf_items.as_list().empty(), "expected a non-empty pre-migration leaf");

  auto delta = delta_graph(s, list_concat());
  delta->invoke(object{{"items", list{"after-migration"}}}, config_of(leaf_cfg));
  const value items = delta->get_state(config).values.get("items");
  const list& now = items.as_list();
  BOOST_TEST_REQUIRE(now.size() > leaf_items.as_list().size());
  for (std::size_t i = 0; i < leaf_items.as_list().size(); ++i)
    BOOST_TEST(now[i] == leaf_items.as_list()[i]);
  BOOST_TEST((std::find(now.begin(), now.end(), value("after-migration")) != now.end()));
}
