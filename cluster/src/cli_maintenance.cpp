// `superstep check` and `superstep repair`: verifying the data folder's database, and
// salvaging what can be read of a damaged one.
#include <filesystem>
#include <memory>
#include <system_error>

#include "cli_args_support.hpp"
#include "cli_commands.hpp"
#include "cli_commands_support.hpp"
#include "cli_env.hpp"
#include "superstep/core/error.hpp"
#include "superstep/storage/memory_saver.hpp"
#include "superstep/storage/rocksdb_check.hpp"
#include "superstep/storage/serializer.hpp"
#include "superstep/storage/store_memory.hpp"

namespace superstep::cli {

namespace detail {

namespace {

constexpr const char* check_usage =
    "usage: superstep check [--data DIR] [--plugin LIB.so]...\n"
    "\n"
    "Verifies the data folder without changing it (it may run beside a process writing to\n"
    "it): that its database opens with its write-ahead log and MANIFEST whole, RocksDB's\n"
    "checksums of every table, that every checkpoint reads whole (values, version maps,\n"
    "pending writes) with its parent and delta bases present, that every item of the store\n"
    "reads, and that every saved graph spec (DIR/graphs) loads as 'state' loads it (give the\n"
    "plugins the graphs use). Prints one JSON line: {\"data\", \"ok\", \"threads\",\n"
    "\"checkpoints\", \"pending_writes\", \"store_items\", \"graphs\", \"problems\": [...]}.\n";

constexpr const char* check_footer =
    "environment:\n"
    "  SUPERSTEP_AES_KEY     the key the checkpoints were encrypted with, if any\n"
    "\n"
    "exit status: 0 sound, 1 damaged (or not a database), 2 usage error\n";

constexpr const char* repair_usage =
    "usage: superstep repair [--data DIR] [--from-tables] [--plugin LIB.so]...\n"
    "\n"
    "Salvages a damaged database (stop every process using the folder first), never in\n"
    "place: the salvage is made beside the folder and swapped in only when everything that\n"
    "read before reads in it the same, byte for byte, and it checks; the folder as it was is\n"
    "kept as DIR.before-repair-TIME. When the database opens, the salvage is a new database\n"
    "with every record that reads (past damaged blocks of its tables). When it does not, a\n"
    "copy is opened skipping the damaged records of its write-ahead log, else, only with\n"
    "--from-tables, rebuilt by RocksDB's repair from the tables it can read (a table with a\n"
    "damaged block is then lost whole, values kept in blob files too, and what a lost table\n"
    "deleted may be back). Then every checkpoint that does not read whole is dropped with its\n"
    "pending writes; its children, which read, are kept. A repair that would lose what reads,\n"
    "or leave problems, is refused and changes nothing. Saved graph specs are checked, not\n"
    "repaired. Prints one JSON line: {\"data\", \"ok\", \"repaired\", \"lost\": [...],\n"
    "\"backup\", \"problems_before\": [...], \"check\": {what 'superstep check' prints}}.\n"
    "A sound database is left as it is.\n";

constexpr const char* repair_footer =
    "exit status: 0 sound (after repairing), 1 not repaired, 2 usage error\n";

}  // namespace

subcommand maintenance_command(CLI::App& root, bool repair) {
  auto out = std::make_shared<maintenance_args>();
  out->repair = repair;
  CLI::App* app =
      add_command(root, repair ? "repair" : "check", repair ? repair_usage : check_usage,
                  repair ? repair_footer : check_footer);
  add_value(*app, "--data", "DIR", "the data folder (default: .superstep)",
            [out](const std::string& v) {
              if (v.empty()) throw usage_error("--data: the folder name is empty");
              out->data_dir = v;
            });
  add_value(*app, "--plugin", "LIB.so", "a node library the saved graphs need (repeatable)",
            [out](const std::string& v) { out->plugins.push_back(v); });
  if (repair)
    add_switch(*app, "--from-tables",
               "when the database does not open at all, rebuild it with RocksDB's repair\n"
               "from the tables it can read (see above for what that loses)",
               [out] { out->from_tables = true; });
  add_help(*app);
  return {app, [app, out]() -> command {
            take_extras(*app);
            return *out;
          }};
}

}  // namespace detail

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

int run_maintenance(const maintenance_args& args, const cluster::function_registry& registry) {
  auto serde = serializer_from_env(storage::make_capnp_serializer());
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

}  // namespace superstep::cli
