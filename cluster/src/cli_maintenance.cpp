// `superstep check` and `superstep repair`: verifying the data folder's database, and
// salvaging what can be read of a damaged one.
#include <memory>

#include "cli_args_support.hpp"
#include "cli_commands.hpp"
#include "cli_commands_support.hpp"
#include "superstep/storage/rocksdb_check.hpp"
#include "superstep/storage/serializer.hpp"

namespace superstep::cli {

namespace detail {

namespace {

constexpr const char* check_usage =
    "usage: superstep check [--data DIR]\n"
    "\n"
    "Verifies the database of the data folder without changing it (it may run beside a\n"
    "process writing to it): that it opens with its write-ahead log and MANIFEST whole,\n"
    "RocksDB's checksums of every table, that every checkpoint reads whole (values, version\n"
    "maps, pending writes) with its parent and delta bases present, and that every item of\n"
    "the store reads. Prints one JSON line: {\"data\", \"ok\", \"threads\", \"checkpoints\",\n"
    "\"pending_writes\", \"store_items\", \"problems\": [...]}.\n";

constexpr const char* check_footer =
    "environment:\n"
    "  SUPERSTEP_AES_KEY     the key the checkpoints were encrypted with, if any\n"
    "\n"
    "exit status: 0 sound, 1 damaged (or not a database), 2 usage error\n";

constexpr const char* repair_usage =
    "usage: superstep repair [--data DIR]\n"
    "\n"
    "Salvages what can be read of a damaged database (stop every process using the folder\n"
    "first). It opens the database as it is, else skipping the damaged records of its\n"
    "write-ahead log, else rebuilds it with RocksDB's repair from the files it can read\n"
    "(setting the others aside in DIR/lost; values kept in blob files are lost then). Then\n"
    "every checkpoint that still does not read whole, or whose parent was lost, is dropped\n"
    "with its pending writes. A thread then continues from its latest checkpoint left.\n"
    "Prints one JSON line: {\"data\", \"ok\", \"repaired\",\n"
    "\"lost\": [...], \"problems_before\": [...], \"check\": {what 'superstep check' prints}}.\n"
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
  add_help(*app);
  return {app, [app, out]() -> command {
            take_extras(*app);
            return *out;
          }};
}

}  // namespace detail

namespace {

value check_json(const std::string& dir, const storage::database_check& c) {
  list problems(c.problems.begin(), c.problems.end());
  return object{{"data", dir},
                {"ok", c.ok()},
                {"threads", static_cast<std::int64_t>(c.threads)},
                {"checkpoints", static_cast<std::int64_t>(c.checkpoints)},
                {"pending_writes", static_cast<std::int64_t>(c.pending_writes)},
                {"store_items", static_cast<std::int64_t>(c.store_items)},
                {"problems", value(std::move(problems))}};
}

}  // namespace

int run_maintenance(const maintenance_args& args) {
  auto serde = storage::serializer_from_env(storage::make_capnp_serializer());
  if (!args.repair) {
    const auto c = storage::check_rocksdb_database(args.data_dir, serde);
    detail::print_line(check_json(args.data_dir, c));
    return c.ok() ? exit_done : exit_failed;
  }
  const auto r = storage::repair_rocksdb_database(args.data_dir, serde);
  list lost(r.lost.begin(), r.lost.end());
  list before(r.before.problems.begin(), r.before.problems.end());
  detail::print_line(object{{"data", args.data_dir},
                            {"ok", r.after.ok()},
                            {"repaired", !r.before.ok()},
                            {"lost", value(std::move(lost))},
                            {"problems_before", value(std::move(before))},
                            {"check", check_json(args.data_dir, r.after)}});
  return r.after.ok() ? exit_done : exit_failed;
}

}  // namespace superstep::cli
