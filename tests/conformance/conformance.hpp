#pragma once

// LangGraph's own test suites, ported (issue 13). Each suite of this folder is one executable
// that CTest runs once per backend and, for graph suites, once per execution mode:
//   -- --execution=threads   tasks on the thread pool instead of node actors
//   -- --backend=rocksdb     checkpoints and the store in RocksDB instead of memory
//   -- --backend=redis       checkpoints and the store on a redis-server this process starts
//                            (saver_ and store_ suites, and a few graph suites;
//                            tests/support/redis_server.hpp)
// (tests/conformance/CMakeLists.txt). A case calls `saver()`, `store()` and `opts()` and so
// runs against whatever the command line asked for.
//
// Each case is named after the LangGraph test it ports, with the file and test in a comment:
//   // libs/langgraph/tests/test_pregel.py::test_invoke_two_processes_in_out
//   BOOST_AUTO_TEST_CASE(test_invoke_two_processes_in_out) { ... }
// Tests left out are listed in NOT_PORTED.md with the reason.

#include <boost/test/unit_test.hpp>
#include <memory>
#include <string>
#include <string_view>

#include "superstep/checkpoint/constants.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/pregel/send.hpp"
#include "superstep/storage/memory_saver.hpp"
#include "superstep/storage/rocksdb_saver.hpp"
#include "superstep/storage/store_memory.hpp"
#include "superstep/storage/store_rocksdb.hpp"
#include "support/temp_dir.hpp"

namespace superstep::conformance {

inline bool has_arg(std::string_view arg) {
  const auto& suite = boost::unit_test::framework::master_test_suite();
  for (int i = 1; i < suite.argc; ++i)
    if (suite.argv[i] == arg) return true;
  return false;
}

/// The execution mode under test.
inline execution mode() {
  return has_arg("--execution=threads") ? execution::threads : execution::actors;
}

/// True when checkpoints and the store live in RocksDB.
inline bool rocksdb_backend() { return has_arg("--backend=rocksdb"); }

/// True when checkpoints and the store live on a redis-server (started once per process).
inline bool redis_backend() { return has_arg("--backend=redis"); }

/// A saver with its own key prefix on the redis-server of this process, started on first use
/// (redis_backend.cpp, a library of its own: the Redis headers stay out of every suite).
std::shared_ptr<checkpoint_saver> redis_saver();

/// A store with its own key prefix on the redis-server of this process.
std::shared_ptr<storage::store> redis_store(std::optional<storage::index_config> index,
                                            storage::ttl_config ttl);

/// A fresh, empty saver of the backend under test. A RocksDB one has its own folder, removed
/// when the last user lets go of the saver; a Redis one its own key prefix on the process's
/// server.
inline std::shared_ptr<checkpoint_saver> saver() {
  if (redis_backend()) return redis_saver();
  if (!rocksdb_backend()) return std::make_shared<storage::memory_saver>();
  auto dir = std::make_shared<test::temp_dir>("superstep-conformance-saver");
  storage::rocksdb_saver_options o;
  o.sync = false;  // a test process that dies loses nothing it needs
  std::shared_ptr<storage::rocksdb_saver> s = storage::rocksdb_saver::open(dir->str(), o);
  return std::shared_ptr<checkpoint_saver>(s.get(), [s, dir](checkpoint_saver*) mutable {
    s.reset();
    dir.reset();
  });
}

/// A fresh, empty store of the backend under test (index and TTL as given).
inline std::shared_ptr<storage::store> store(std::optional<storage::index_config> index = {},
                                             storage::ttl_config ttl = {}) {
  if (redis_backend()) return redis_store(std::move(index), std::move(ttl));
  if (!rocksdb_backend()) {
    if (index) return std::make_shared<storage::memory_store>(std::move(*index), std::move(ttl));
    return std::make_shared<storage::memory_store>(std::move(ttl));
  }
  auto dir = std::make_shared<test::temp_dir>("superstep-conformance-store");
  storage::rocksdb_store_options o;
  o.sync = false;
  o.index = std::move(index);
  o.ttl = std::move(ttl);
  std::shared_ptr<storage::rocksdb_store> s = storage::rocksdb_store::open(dir->str(), o);
  return std::shared_ptr<storage::store>(s.get(), [s, dir](storage::store*) mutable {
    s.reset();
    dir.reset();
  });
}

/// Compile options for the mode under test, without a checkpointer.
inline compile_options opts() {
  compile_options o;
  o.mode = mode();
  return o;
}

/// Compile options for the mode under test with a fresh saver of the backend under test.
inline compile_options opts_with_saver() {
  compile_options o = opts();
  o.checkpointer = saver();
  return o;
}

/// The config of thread `id`.
inline value thread(std::string_view id) {
  return object{{"configurable", object{{"thread_id", std::string(id)}}}};
}

/// A Command that resumes the thread with `v`.
inline value resume(value v) {
  command c;
  c.resume = std::move(v);
  return make_command(c);
}

}  // namespace superstep::conformance
