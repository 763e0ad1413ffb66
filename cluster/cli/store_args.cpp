// The command line of `superstep store put|get|delete|search|namespaces` (ops/store.cpp runs
// it).
#include <algorithm>
#include <memory>
#include <sstream>

#include "cli/args_support.hpp"
#include "nodes/suggest.hpp"

namespace superstep::cli {

namespace detail {

namespace {

constexpr const char* store_usage =
    "usage: superstep store put|get|delete|search|namespaces [options]\n"
    "\n"
    "The long-term store (memory across threads) kept in the data folder. A namespace is\n"
    "given as its labels joined by dots (labels cannot hold one): --ns user1.memories.\n"
    "Prints JSON: an item as {\"namespace\", \"key\", \"value\", \"created_at\",\n"
    "\"updated_at\"} (and \"score\" from a --query search), one per line.\n"
    "\n"
    "  store put --ns NS --key K --value JSON|@FILE [--ttl MINUTES] [--no-index]\n"
    "  store get --ns NS --key K           (exit status 1 when there is no such item)\n"
    "  store delete --ns NS --key K\n"
    "  store search [--ns PREFIX] [--query TEXT] [--filter JSON] [--limit N] [--offset N]\n"
    "  store namespaces [--prefix NS] [--suffix NS] [--max-depth N] [--limit N] [--offset N]\n";

constexpr const char* store_usage_end =
    "Filters: {\"field\": value} or {\"field\": {\"$eq|$ne|$gt|$gte|$lt|$lte\": value}}.\n"
    "exit status: 0 done, 1 failed (or no such item), 2 usage error\n";

double minutes_arg(const std::string& option, const std::string& text) {
  try {
    std::size_t used = 0;
    double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  throw usage_error(option + ": expected a number of minutes, not '" + text + "'");
}

std::vector<std::string> namespace_arg(const std::string& text) {
  std::vector<std::string> labels;
  if (text.empty()) return labels;
  std::stringstream s(text);
  for (std::string label; std::getline(s, label, '.');) labels.push_back(label);
  if (text.back() == '.') labels.emplace_back();  // an empty last label: the store says so
  return labels;
}

struct store_parse {
  store_args out;
  bool has_ns = false;
  std::vector<std::string> actions;  // the arguments: the action, one
};

}  // namespace

subcommand store_command(CLI::App& root) {
  auto p = std::make_shared<store_parse>();
  store_args& s = p->out;
  CLI::App* app = add_command(root, "store", store_usage, store_usage_end);
  app->add_option("ACTION", p->actions)->group("");
  add_value(*app, "--ns", "NS", "the namespace (put, get, delete) or its prefix (search)",
            [p](const std::string& v) {
              p->out.ns = namespace_arg(v);
              p->has_ns = true;
            });
  add_value(*app, "--key", "K", "the item's key", [&s](const std::string& v) { s.key = v; });
  add_value(*app, "--value", "JSON|@FILE", "put: the item's value",
            [&s](const std::string& v) { s.item_value = read_json_arg("--value", v); });
  add_value(*app, "--ttl", "MINUTES", "put: the item's time to live, in minutes",
            [&s](const std::string& v) { s.ttl_minutes = minutes_arg("--ttl", v); });
  add_switch(*app, "--no-index", "put: do not index the value for --query searches",
             [&s] { s.index = false; });
  add_value(*app, "--query", "TEXT", "search: rank items by their likeness to TEXT",
            [&s](const std::string& v) { s.query = v; });
  add_value(*app, "--filter", "JSON|@FILE", "search: only items whose value matches",
            [&s](const std::string& v) {
              value f = read_json_arg("--filter", v);
              if (!f.is_object()) throw usage_error("--filter: expected a JSON object");
              s.filter = f.as_object();
            });
  add_value(*app, "--limit", "N", "search, namespaces: at most N results",
            [&s](const std::string& v) { s.limit = count_arg("--limit", v); });
  add_value(*app, "--offset", "N", "search, namespaces: skip the first N results",
            [&s](const std::string& v) { s.offset = count_arg("--offset", v); });
  add_value(*app, "--prefix", "NS", "namespaces: only those starting with NS",
            [&s](const std::string& v) { s.prefix = namespace_arg(v); });
  add_value(*app, "--suffix", "NS", "namespaces: only those ending with NS",
            [&s](const std::string& v) { s.suffix = namespace_arg(v); });
  add_value(*app, "--max-depth", "N", "namespaces: cut them to N labels",
            [&s](const std::string& v) { s.max_depth = count_arg("--max-depth", v); });
  add_value(*app, "--data", "DIR", "the database (default: .superstep)",
            [&s](const std::string& v) { s.data_dir = v; });
  add_value(*app, "--head", "HOST:PORT",
            "the store of a cluster's head instead (with --key-file F and\n"
            "the head's --tls options)",
            [&s](const std::string& v) { s.head = v; });
  add_value(*app, "--key-file", "FILE", "the cluster's key, when the head has one",
            [&s](const std::string& v) { s.key_file = v; });
  add_tls_options(*app, s.tls);
  add_log_level_option(*app, s.log_level, "warn");
  add_value(*app, "--plugin", "LIB.so", "a library whose embedder --embedder names (repeatable)",
            [&s](const std::string& v) { s.plugins.push_back(v); });
  add_embedder_options(*app, s.embedder);
  add_help(*app);
  return {app, [app, p]() -> command {
            take_extras(*app);
            store_args& out = p->out;
            if (p->actions.empty())
              throw usage_error("store: missing put, get, delete, search or namespaces");
            out.action = p->actions.front();
            static const char* actions[] = {"put", "get", "delete", "search", "namespaces"};
            if (std::find(std::begin(actions), std::end(actions), out.action) == std::end(actions))
              throw usage_error(
                  "store: unknown action '" + out.action +
                  "' (put, get, delete, search or namespaces)" +
                  cluster::did_you_mean(out.action, {std::begin(actions), std::end(actions)}));
            if (p->actions.size() > 1)
              throw usage_error("unexpected argument '" + p->actions[1] + "'");
            const bool keyed = out.action == "put" || out.action == "get" || out.action == "delete";
            if (keyed && !p->has_ns) throw usage_error("store " + out.action + ": missing --ns NS");
            if (keyed && out.key.empty())
              throw usage_error("store " + out.action + ": missing --key K");
            if (out.action == "put" && !out.item_value)
              throw usage_error("store put: missing --value JSON");
            if (!out.head.empty() && out.data_dir != default_data_dir)
              throw usage_error("store: --data and --head name two different stores");
            if (!out.head.empty() && (out.embedder.given() || !out.plugins.empty()))
              throw usage_error(
                  "store: with --head the embedder is the head's (--embedder, --dims, --distance "
                  "and --plugin go to 'superstep head')");
            check_embedder(out.embedder);
            check_tls(out.tls);
            return out;
          }};
}

}  // namespace detail

}  // namespace superstep::cli
