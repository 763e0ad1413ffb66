#pragma once

// Graph-level persistence suites run once per saver: CTest passes `-- --saver=rocksdb` to the
// second run (see tests/CMakeLists.txt). Each RocksDB saver gets its own folder, removed when
// the saver is destroyed.

#include <unistd.h>

#include <atomic>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <memory>
#include <string>

#include "superstep/pregel/send.hpp"
#include "superstep/storage/memory_saver.hpp"
#include "superstep/storage/rocksdb_saver.hpp"
#include "support/temp_dir.hpp"

namespace superstep::test {

inline bool rocksdb_under_test() {
  const auto& suite = boost::unit_test::framework::master_test_suite();
  for (int i = 1; i < suite.argc; ++i)
    if (std::string(suite.argv[i]) == "--saver=rocksdb") return true;
  return false;
}

/// The config of thread `id`.
inline value thread(const char* id) { return object{{"configurable", object{{"thread_id", id}}}}; }

/// A Command that resumes the thread with `v`.
inline value resume(value v) {
  command c;
  c.resume = std::move(v);
  return make_command(c);
}

/// A fresh, empty saver of the kind under test.
inline std::shared_ptr<checkpoint_saver> make_saver() {
  if (!rocksdb_under_test()) return std::make_shared<storage::memory_saver>();
  auto dir = std::make_shared<temp_dir>("superstep-graph-saver");
  storage::rocksdb_saver_options o;
  o.sync = false;  // a test process that dies loses nothing it needs
  std::shared_ptr<storage::rocksdb_saver> saver = storage::rocksdb_saver::open(dir->str(), o);
  // The folder goes when the last user of the saver lets go of it (after the saver closes).
  return std::shared_ptr<checkpoint_saver>(saver.get(), [saver, dir](checkpoint_saver*) mutable {
    saver.reset();
    dir.reset();
  });
}

}  // namespace superstep::test
