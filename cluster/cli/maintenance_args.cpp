// The command lines of `superstep check` and `superstep repair` (ops/maintenance.cpp runs
// them).
#include <memory>

#include "cli/args_support.hpp"

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

}  // namespace superstep::cli
