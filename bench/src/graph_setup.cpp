// How graph workloads compile and run for a mode label: execution mode, optional saver, the
// scratch folder of a RocksDB saver and a fresh thread per run.
#include <unistd.h>

#include <atomic>
#include <system_error>

#include "bench.hpp"
#include "superstep/coordinator/actor_driver.hpp"
#include "superstep/storage/memory_saver.hpp"
#include "superstep/storage/redis_saver.hpp"
#include "superstep/storage/rocksdb_saver.hpp"
#include "support/redis_server.hpp"

namespace superstep::bench {

namespace fs = std::filesystem;

bool selected(const options& opts, const std::string& name) {
  if (opts.only.empty()) return true;
  std::size_t from = 0;
  while (from <= opts.only.size()) {
    std::size_t comma = opts.only.find(',', from);
    if (comma == std::string::npos) comma = opts.only.size();
    const std::string prefix = opts.only.substr(from, comma - from);
    if (!prefix.empty() && name.rfind(prefix, 0) == 0) return true;
    from = comma + 1;
  }
  return false;
}

scratch_dir::scratch_dir(const std::string& name) {
  static std::atomic<int> seq{0};
  path = fs::temp_directory_path() / ("superstep_bench_" + name + "_" + std::to_string(::getpid()) +
                                      "_" + std::to_string(seq.fetch_add(1)));
  fs::remove_all(path);
}

scratch_dir::~scratch_dir() {
  std::error_code ec;
  fs::remove_all(path, ec);
}

namespace {

// The servers of the Redis rows, started on first use (tests/support/redis_server.hpp): one
// without persistence, one with its append-only file fsynced on every write.
test::redis_server& redis_server_for(const std::string& saver) {
  static std::unique_ptr<test::redis_server> plain, aof;
  auto& server = saver == "redis_aof" ? aof : plain;
  if (!server) server = std::make_unique<test::redis_server>(saver == "redis_aof");
  return *server;
}

}  // namespace

bool have_redis() { return test::have_redis_server(); }

std::shared_ptr<checkpoint_saver> open_saver(const std::string& saver, const scratch_dir& dir) {
  if (saver == "memory") return std::make_shared<storage::memory_saver>();
  if (saver == "redis" || saver == "redis_aof") {
    storage::redis_saver_options o;
    o.prefix = test::fresh_redis_prefix("bench");
    return storage::redis_saver::open(redis_server_for(saver).url(), o);
  }
  if (saver != "rocksdb" && saver != "rocksdb_sync")
    throw std::invalid_argument("unknown saver '" + saver + "'");
  storage::rocksdb_saver_options o;
  o.sync = saver == "rocksdb_sync";
  return storage::rocksdb_saver::open(dir.path.string(), o);
}

graph_setup::graph_setup(const std::string& mode) {
  const std::size_t plus = mode.find('+');
  const std::string exec = mode.substr(0, plus);
  if (exec != "actors" && exec != "actors_coordinator" && exec != "threads")
    throw std::invalid_argument("unknown execution mode '" + exec + "'");
  exec_ = exec == "threads" ? execution::threads : execution::actors;
  channel_actors_ = exec == "actors";
  if (plus == std::string::npos) return;
  const std::string saver = mode.substr(plus + 1);
  dir_ = std::make_unique<scratch_dir>("graph_" + saver);
  saver_ = open_saver(saver, *dir_);
}

graph_setup::~graph_setup() {
  saver_.reset();  // closes a RocksDB database (once the graph has gone) before its folder goes
  dir_.reset();
}

compile_options graph_setup::compile() const {
  compile_options o;
  o.mode = exec_;
  o.driver = make_actor_driver({.channel_actors = channel_actors_});
  o.checkpointer = saver_;
  return o;
}

value graph_setup::config(std::int64_t recursion_limit) {
  // Without a saver every run gets the same config: built once, so that it costs nothing.
  if (!saver_ && cached_ && cached_limit_ == recursion_limit) return *cached_;
  object c;
  if (saver_) {
    live_threads_.push_back("run" + std::to_string(threads_++));
    c.set("configurable", object{{"thread_id", live_threads_.back()}});
  }
  if (recursion_limit > 0) c.set("recursion_limit", recursion_limit);
  value v(std::move(c));
  if (!saver_) {
    cached_ = v;
    cached_limit_ = recursion_limit;
  }
  return v;
}

std::function<void()> graph_setup::forget_runs(std::shared_ptr<const pregel> graph) {
  return [this, graph = std::move(graph)] {
    for (const auto& t : live_threads_) graph->delete_thread(t);
    live_threads_.clear();
  };
}

}  // namespace superstep::bench
