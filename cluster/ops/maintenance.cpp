// `superstep check` and `superstep repair`: verifying the data folder's database, and
// salvaging what can be read of a damaged one.
#include <filesystem>
#include <memory>
#include <system_error>

#include "ops/operations.hpp"
#include "ops/support.hpp"
#include "superstep/core/error.hpp"
#include "superstep/storage/memory_saver.hpp"
#include "superstep/storage/rocksdb_check.hpp"
#include "superstep/storage/serializer.hpp"
#include "superstep/storage/store_memory.hpp"

namespace superstep::ops {

namespace {

// The thread a saved spec is of, from its file's name (data_dir::graph_file: the id in hex);
// "" for a long id, of which the name keeps only a hash.
std::string thread_of_spec(const std::string& stem) {
  const auto digit = [](char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
  };
  if (stem.empty() || stem.size() % 2 != 0) return "";
  std::string out;
  for (std::size_t i = 0; i < stem.size(); i += 2) {
    const int high = digit(stem[i]), low = digit(stem[i + 1]);
    if (high < 0 || low < 0) return "";
    out += static_cast<char>(high * 16 + low);
  }
  return out;
}

// Loads every saved spec of the folder (DIR/graphs/*.json) as `state`, `history` and `run`
// load a thread's (on a memory saver and store: nothing is written), each that does not load a
// problem naming the thread and the file. Returns how many there are.
std::size_t check_specs(const std::string& dir, const cluster::function_registry& registry,
                        std::vector<std::string>& problems) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::size_t count = 0;
  for (fs::directory_iterator it(fs::path(dir) / "graphs", ec), end; !ec && it != end;
       it.increment(ec)) {
    const fs::path file = it->path();
    if (file.extension() != ".json") continue;  // a writer's temporary file, an exit-run record
    ++count;
    const std::string thread = thread_of_spec(file.stem().string());
    const std::string whose =
        thread.empty() ? "a saved graph spec" : "the saved graph spec of thread '" + thread + "'";
    try {
      runtime_options options;
      options.checkpointer = std::make_shared<storage::memory_saver>();
      options.store = std::make_shared<storage::memory_store>();
      static_cast<void>(
          cluster::load_graph(cluster::read_spec_file(file.string()), registry, options));
    } catch (const error& e) {
      problems.push_back(whose + " (" + file.string() + ") does not load, so state, history " +
                         "and run fail on the thread: " + e.what() +
                         (e.code() == error_code::unknown_function
                              ? " (give --plugin for a plugin's functions)"
                              : ""));
    } catch (const std::exception& e) {
      problems.push_back(whose + " (" + file.string() + ") does not load: " + e.what());
    }
  }
  if (ec && ec != std::errc::no_such_file_or_directory)
    problems.push_back("listing the saved graph specs in " + (fs::path(dir) / "graphs").string() +
                       ": " + ec.message());
  return count;
}

value check_json(const std::string& dir, const storage::database_check& c,
                 const std::vector<std::string>& spec_problems, std::size_t graphs) {
  list problems(c.problems.begin(), c.problems.end());
  problems.insert(problems.end(), spec_problems.begin(), spec_problems.end());
  return object{{"data", dir},
                {"ok", c.ok() && spec_problems.empty()},
                {"threads", static_cast<std::int64_t>(c.threads)},
                {"checkpoints", static_cast<std::int64_t>(c.checkpoints)},
                {"pending_writes", static_cast<std::int64_t>(c.pending_writes)},
                {"store_items", static_cast<std::int64_t>(c.store_items)},
                {"graphs", static_cast<std::int64_t>(graphs)},
                {"problems", value(std::move(problems))}};
}

}  // namespace

int run_maintenance(const maintenance_args& args, const cluster::function_registry& registry,
                    std::shared_ptr<const storage::serializer> serde) {
  if (!serde) serde = storage::make_capnp_serializer();
  if (!args.repair) {
    const auto c = storage::check_rocksdb_database(args.data_dir, serde);
    std::vector<std::string> spec_problems;
    const std::size_t graphs = check_specs(args.data_dir, registry, spec_problems);
    detail::print_line(check_json(args.data_dir, c, spec_problems, graphs));
    return c.ok() && spec_problems.empty() ? exit_done : exit_failed;
  }
  storage::repair_options options;
  options.from_tables = args.from_tables;
  // Refused (nothing changed): an error naming what would be lost or guessed.
  const auto r = storage::repair_rocksdb_database(args.data_dir, serde, options);
  std::vector<std::string> spec_problems;  // not repaired: a spec is the user's to give again
  const std::size_t graphs = check_specs(args.data_dir, registry, spec_problems);
  list lost(r.lost.begin(), r.lost.end());
  list before(r.before.problems.begin(), r.before.problems.end());
  const bool ok = r.after.ok() && spec_problems.empty();
  detail::print_line(object{{"data", args.data_dir},
                            {"ok", ok},
                            {"repaired", !r.backup.empty()},
                            {"lost", value(std::move(lost))},
                            {"backup", r.backup.empty() ? value() : value(r.backup)},
                            {"problems_before", value(std::move(before))},
                            {"check", check_json(args.data_dir, r.after, spec_problems, graphs)}});
  return ok ? exit_done : exit_failed;
}

}  // namespace superstep::ops
