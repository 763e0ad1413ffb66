// Checkpoint workloads: saver operations on a ~1 KB state, a raw RocksDB WriteBatch of the same
// bytes as the reference, and a graph whose 1 MB state changes by one small key per step.
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <chrono>
#include <memory>

#include "bench.hpp"
#include "superstep/coordinator/actor_driver.hpp"
#include "superstep/core/ids.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/pregel/send.hpp"
#include "superstep/storage/rocksdb_saver.hpp"

namespace superstep::bench {

namespace {

constexpr int puts_per_run = 2000;

// A checkpoint of ~1 KB: a 1000-byte string channel and two small ones, all changed.
checkpoint one_kb_checkpoint(checkpoint_id_generator& ids, channel_version v) {
  checkpoint cp;
  cp.id = ids.next();
  cp.ts = now_iso8601();
  cp.channel_values = {{"text", value(std::string(1000, 'x'))}, {"n", value(7)}, {"ok", true}};
  cp.channel_versions = {{"text", v}, {"n", v}, {"ok", v}};
  return cp;
}

measurement checkpoint_put(const options& opts, const std::string& mode) {
  scratch_dir dir("put");
  auto saver = open_saver(mode, dir);
  checkpoint_id_generator ids;
  channel_version v = 0;
  checkpoint_config cfg{"t", "", ""};
  checkpoint_metadata meta;
  meta.source = "loop";
  return measure(mode, "checkpoint_put_1KB", "put", puts_per_run, opts.runs, [&] {
    for (int i = 0; i < puts_per_run; ++i) {
      ++v;
      checkpoint cp = one_kb_checkpoint(ids, v);
      meta.step = static_cast<std::int64_t>(v);
      cfg = saver->put(cfg, cp, meta, {{"text", v}, {"n", v}, {"ok", v}});
    }
  });
}

measurement checkpoint_get_tuple(const options& opts, const std::string& mode) {
  scratch_dir dir("get");
  auto saver = open_saver(mode, dir);
  checkpoint_id_generator ids;
  checkpoint_config cfg{"t", "", ""};
  checkpoint_metadata meta;
  meta.source = "loop";
  for (channel_version v = 1; v <= 100; ++v)
    cfg = saver->put(cfg, one_kb_checkpoint(ids, v), meta, {{"text", v}, {"n", v}, {"ok", v}});
  const checkpoint_config latest{"t", "", ""};
  return measure(mode, "checkpoint_get_tuple", "get", puts_per_run, opts.runs, [&] {
    for (int i = 0; i < puts_per_run; ++i) {
      auto t = saver->get_tuple(latest);
      check(t && t->checkpoint.channel_values.at("n") == value(7), "get_tuple: wrong checkpoint");
    }
  });
}

// `list` of the newest 10 checkpoints of a thread of 100 (with their values and writes).
measurement checkpoint_list(const options& opts, const std::string& mode) {
  constexpr int lists_per_run = 500;
  scratch_dir dir("list");
  auto saver = open_saver(mode, dir);
  checkpoint_id_generator ids;
  checkpoint_config cfg{"t", "", ""};
  checkpoint_metadata meta;
  meta.source = "loop";
  for (channel_version v = 1; v <= 100; ++v)
    cfg = saver->put(cfg, one_kb_checkpoint(ids, v), meta, {{"text", v}, {"n", v}, {"ok", v}});
  list_options page;
  page.limit = 10;
  return measure(mode, "checkpoint_list_10_of_100", "list", lists_per_run, opts.runs, [&] {
    for (int i = 0; i < lists_per_run; ++i) {
      auto l = saver->list({"t", "", ""}, page);
      check(l.size() == 10 && l.front().checkpoint.id == cfg.checkpoint_id, "list: wrong page");
    }
  });
}

// The machine's limit for what a put does: one WriteBatch of the same bytes into RocksDB.
measurement rocksdb_write_batch(const options& opts, const std::string& mode) {
  scratch_dir dir("raw");
  rocksdb::Options o;
  o.create_if_missing = true;
  rocksdb::DB* raw = nullptr;
  auto s = rocksdb::DB::Open(o, dir.path.string(), &raw);
  check(s.ok(), "rocksdb open: " + s.ToString());
  std::unique_ptr<rocksdb::DB> db(raw);
  rocksdb::WriteOptions w;
  w.sync = mode == "rocksdb_sync";
  const std::string blob(1100, 'x');
  std::int64_t n = 0;
  auto m = measure(mode, "rocksdb_writebatch_1KB", "batch", puts_per_run, opts.runs, [&] {
    for (int i = 0; i < puts_per_run; ++i) {
      rocksdb::WriteBatch batch;
      batch.Put("checkpoint/" + std::to_string(++n), blob);
      check(db->Write(w, &batch).ok(), "rocksdb write");
    }
  });
  db.reset();
  return m;
}

// The same entries as a put of `one_kb_checkpoint` writes, raw: its record (~300 bytes) in one
// column family and its three values (1000 bytes and two small) in another, one WriteBatch.
measurement rocksdb_write_batch_entries(const options& opts, const std::string& mode) {
  scratch_dir dir("raw4");
  rocksdb::Options o;
  o.create_if_missing = true;
  o.create_missing_column_families = true;
  std::vector<rocksdb::ColumnFamilyDescriptor> families{
      {rocksdb::kDefaultColumnFamilyName, {}}, {"checkpoints", {}}, {"blobs", {}}};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  auto s = rocksdb::DB::Open(o, dir.path.string(), families, &handles, &raw);
  check(s.ok(), "rocksdb open: " + s.ToString());
  rocksdb::WriteOptions w;
  w.sync = mode == "rocksdb_sync";
  const std::string record(300, 'r'), text(1010, 'x'), small(12, 's');
  std::int64_t n = 0;
  auto m = measure(mode, "rocksdb_writebatch_1KB_4_entries", "batch", puts_per_run, opts.runs, [&] {
    for (int i = 0; i < puts_per_run; ++i) {
      const std::string id = std::to_string(++n);
      rocksdb::WriteBatch batch;
      batch.Put(handles[1], "thread/checkpoint/" + id, record);
      batch.Put(handles[2], "thread/text/" + id, text);
      batch.Put(handles[2], "thread/n/" + id, small);
      batch.Put(handles[2], "thread/ok/" + id, small);
      check(raw->Write(w, &batch).ok(), "rocksdb write");
    }
  });
  for (auto* h : handles) raw->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  delete raw;
  return m;
}

// 50 checkpointed steps of a graph whose state holds `big_bytes` that never change, and a
// counter that changes every step. Only the steps are timed: each run's thread first gets its
// input (the big value) untimed, then is resumed with Command(update, goto). With checkpoints
// that cost O(changed bytes), the step cost does not follow big_bytes.
measurement big_state_step(const options& opts, const std::string& mode, std::size_t big_bytes,
                           const std::string& name) {
  constexpr int steps = 50;
  scratch_dir dir(name);
  storage::rocksdb_saver_options o;
  o.sync = false;
  std::shared_ptr<checkpoint_saver> saver = storage::rocksdb_saver::open(dir.path.string(), o);
  state_graph b;
  b.add_key("big").add_key("n", "add").add_key("limit");
  b.add_node(
      "tick",
      [](const value&, node_context&) -> value {
        return object{{"n", 1}};
      },
      node_options{.destinations = {"tick"}});
  b.add_edge("__start__", "tick");
  b.add_conditional_edges("tick", [](const value& st, node_context&) -> value {
    return st.get("n").as_int() >= st.get("limit").as_int() ? value("__end__") : value("tick");
  });
  compile_options c;
  c.checkpointer = saver;
  c.mode = mode == "threads" ? execution::threads : execution::actors;
  c.driver = make_actor_driver({.channel_actors = mode == "actors"});
  auto graph = b.compile(c);
  const value input = object{{"big", std::string(big_bytes, 'b')}, {"n", 0}, {"limit", 1}};
  command more;
  more.update = object{{"limit", steps + 1}};
  more.go_to = {value("tick")};
  const value resume = make_command(more);

  measurement m;
  m.mode = "rocksdb";
  m.name = name;
  m.unit = "step";
  m.units_per_run = steps;
  const bool hwm = reset_rss_high_water();
  for (int r = 0; r <= opts.runs; ++r) {  // run 0 is the warm-up
    value cfg = object{{"configurable", object{{"thread_id", "t" + std::to_string(r)}}},
                       {"recursion_limit", steps + 10}};
    graph->invoke(input, cfg);
    const auto t0 = std::chrono::steady_clock::now();
    value out = graph->invoke(resume, cfg);
    const auto t1 = std::chrono::steady_clock::now();
    check(out.get("n") == value(steps + 1), name + ": wrong count " + out.get("n").to_json());
    if (r > 0) m.run_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  m.workload_peak_rss_kib = hwm ? rss_high_water_kib() : 0;
  m.peak_rss_kib = peak_rss_kib();
  m.rss_kib = current_rss_kib();
  return m;
}

// A chat-like thread on RocksDB: a node loops `steps` times, each step appending one message
// of ~200 bytes to `messages` (folded by `append`). Written whole, the list would make step k
// cost O(k) (the whole run O(steps^2) bytes); as list deltas a step writes what it added. With
// `delta`, `messages` is a delta key (LangGraph's DeltaChannel): checkpoints hold no value of
// it, only the task's write, and a snapshot every 1000 steps.
measurement messages_append(const options& opts, const std::string& mode, int steps,
                            const std::string& name, bool delta = false) {
  scratch_dir dir(name);
  storage::rocksdb_saver_options o;
  o.sync = false;
  std::shared_ptr<checkpoint_saver> saver = storage::rocksdb_saver::open(dir.path.string(), o);
  state_graph b;
  if (delta)
    b.add_delta_key("messages", "append");
  else
    b.add_key("messages", "append");
  b.add_node(
      "chat",
      [](const value& st, node_context&) -> value {
        const std::size_t n = st.get("messages").as_list().size();
        return object{{"messages", value::array({object{{"role", n % 2 ? "ai" : "human"},
                                                        {"content", std::string(180, 'm')},
                                                        {"n", n}}})}};
      },
      node_options{.destinations = {"chat"}});
  b.add_edge("__start__", "chat");
  b.add_conditional_edges("chat", [steps](const value& st, node_context&) -> value {
    return st.get("messages").as_list().size() >= static_cast<std::size_t>(steps) ? value("__end__")
                                                                                  : value("chat");
  });
  compile_options c;
  c.checkpointer = saver;
  c.mode = mode == "threads" ? execution::threads : execution::actors;
  c.driver = make_actor_driver({.channel_actors = mode == "actors"});
  auto graph = b.compile(c);
  int run = 0;
  return measure(mode + "+rocksdb", name, "step", steps, opts.runs, [&] {
    value cfg = object{{"configurable", object{{"thread_id", "t" + std::to_string(run++)}}},
                       {"recursion_limit", steps + 10}};
    value out = graph->invoke(object{{"messages", value::array({})}}, cfg);
    check(out.get("messages").as_list().size() == static_cast<std::size_t>(steps),
          name + ": wrong message count");
  });
}

}  // namespace

std::vector<workload> checkpoint_workloads() {
  return {
      {"checkpoint_put_1KB", checkpoint_put},
      {"checkpoint_get_tuple", checkpoint_get_tuple},
      {"checkpoint_list_10_of_100", checkpoint_list},
      {"rocksdb_writebatch_1KB", rocksdb_write_batch},
      {"rocksdb_writebatch_1KB_4_entries", rocksdb_write_batch_entries},
      {"state_1MB_one_key_per_step",
       [](const options& o, const std::string& m) {
         return big_state_step(o, m, 1 << 20, "state_1MB_one_key_per_step");
       }},
      {"state_1KB_one_key_per_step",
       [](const options& o, const std::string& m) {
         return big_state_step(o, m, 1 << 10, "state_1KB_one_key_per_step");
       }},
      {"messages_append_100",
       [](const options& o, const std::string& m) {
         return messages_append(o, m, 100, "messages_append_100");
       }},
      {"messages_append_1000",
       [](const options& o, const std::string& m) {
         return messages_append(o, m, 1000, "messages_append_1000");
       }},
      {"messages_delta_1000",
       [](const options& o, const std::string& m) {
         return messages_append(o, m, 1000, "messages_delta_1000", true);
       }},
  };
}

}  // namespace superstep::bench
