// `superstep store put|get|delete|search|namespaces`: the long-term store in the data folder
// (the `store` column family of the database), with semantic search by the embedder that
// --embedder names (hashing by default).
#include <algorithm>
#include <sstream>

#include "cli_args_support.hpp"
#include "cli_commands.hpp"
#include "cli_commands_support.hpp"
#include "cli_data_dir.hpp"
#include "net_store.hpp"
#include "superstep/core/error.hpp"

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
    "  store namespaces [--prefix NS] [--suffix NS] [--max-depth N] [--limit N] [--offset N]\n"
    "\n"
    "options:\n"
    "  --data DIR            the database (default: .superstep)\n"
    "  --head HOST:PORT      the store of a cluster's head instead (with --key-file F and\n"
    "                        the head's --tls options)\n"
    "  --plugin LIB.so       a library whose embedder --embedder names (repeatable)\n"
    "  --help                show this help\n"
    "\n";

constexpr const char* store_usage_end =
    "\n"
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

}  // namespace

help_request store_help() {
  return help_request{std::string(store_usage) + embedder_usage + store_usage_end};
}

command parse_store(arg_cursor args) {
  store_args out;
  if (args.done()) throw usage_error("store: missing put, get, delete, search or namespaces");
  out.action = args.next();
  if (is_help(out.action)) return store_help();
  static const char* actions[] = {"put", "get", "delete", "search", "namespaces"};
  if (std::find(std::begin(actions), std::end(actions), out.action) == std::end(actions))
    throw usage_error("store: unknown action '" + out.action +
                      "' (put, get, delete, search or namespaces)");
  bool has_ns = false;
  while (!args.done()) {
    std::string a = args.next();
    if (is_help(a)) return store_help();
    if (take_tls_option(a, args, out.tls)) continue;
    if (take_embedder_option(a, args, out.embedder)) continue;
    if (a == "--head") {
      out.head = args.value_of(a);
    } else if (a == "--key-file") {
      out.key_file = args.value_of(a);
    } else if (a == "--data") {
      out.data_dir = args.value_of(a);
    } else if (a == "--ns") {
      out.ns = namespace_arg(args.value_of(a));
      has_ns = true;
    } else if (a == "--key") {
      out.key = args.value_of(a);
    } else if (a == "--value") {
      out.item_value = read_json_arg(a, args.value_of(a));
    } else if (a == "--ttl") {
      out.ttl_minutes = minutes_arg(a, args.value_of(a));
    } else if (a == "--no-index") {
      out.index = false;
    } else if (a == "--query") {
      out.query = args.value_of(a);
    } else if (a == "--filter") {
      value f = read_json_arg(a, args.value_of(a));
      if (!f.is_object()) throw usage_error("--filter: expected a JSON object");
      out.filter = f.as_object();
    } else if (a == "--limit") {
      out.limit = count_arg(a, args.value_of(a));
    } else if (a == "--offset") {
      out.offset = count_arg(a, args.value_of(a));
    } else if (a == "--prefix") {
      out.prefix = namespace_arg(args.value_of(a));
    } else if (a == "--suffix") {
      out.suffix = namespace_arg(args.value_of(a));
    } else if (a == "--max-depth") {
      out.max_depth = count_arg(a, args.value_of(a));
    } else if (a == "--plugin") {
      out.plugins.push_back(args.value_of(a));
    } else {
      unexpected_argument(a, std::string(store_usage) + embedder_usage + store_usage_end);
    }
  }
  const bool keyed = out.action == "put" || out.action == "get" || out.action == "delete";
  if (keyed && !has_ns) throw usage_error("store " + out.action + ": missing --ns NS");
  if (keyed && out.key.empty()) throw usage_error("store " + out.action + ": missing --key K");
  if (out.action == "put" && !out.item_value) throw usage_error("store put: missing --value JSON");
  if (!out.head.empty() && out.data_dir != default_data_dir)
    throw usage_error("store: --data and --head name two different stores");
  if (!out.head.empty() && (out.embedder.given() || !out.plugins.empty()))
    throw usage_error(
        "store: with --head the embedder is the head's (--embedder, --dims, --distance and "
        "--plugin go to 'superstep head')");
  check_embedder(out.embedder);
  check_tls(out.tls);
  return out;
}

}  // namespace detail

using net::item_json;
using net::namespace_json;

int run_store(const store_args& args, const cluster::function_registry& registry,
              const std::function<void(const value&)>& print) {
  // As the checkpoints: without fsync, the WAL survives the process being killed.
  // The actions that only read open the database read-only, beside a process writing to it.
  const bool reads = args.action == "get" || args.action == "search" || args.action == "namespaces";
  auto store = open_store(args.data_dir, store_index(args.embedder, registry), false, reads);
  return run_store_with(*store, args, print);
}

int run_store_with(storage::store& target, const store_args& args,
                   const std::function<void(const value&)>& print) {
  storage::store* store = &target;
  if (args.action == "put") {
    storage::put_index idx;
    idx.enabled = args.index;
    storage::put_ttl ttl;
    if (args.ttl_minutes) ttl = storage::put_ttl(*args.ttl_minutes);
    store->put(args.ns, args.key, *args.item_value, idx, ttl);
    print(object{{"namespace", namespace_json(args.ns)}, {"key", args.key}, {"stored", true}});
  } else if (args.action == "get") {
    auto it = store->get(args.ns, args.key);
    if (!it) {
      std::string ns;
      for (const auto& l : args.ns) ns += (ns.empty() ? "" : ".") + l;
      throw error(error_code::not_found, "no item '" + args.key + "' in namespace '" + ns + "'");
    }
    print(item_json(*it));
  } else if (args.action == "delete") {
    store->remove(args.ns, args.key);
    print(object{{"namespace", namespace_json(args.ns)}, {"key", args.key}, {"deleted", true}});
  } else if (args.action == "search") {
    storage::search_options o;
    o.ns_prefix = args.ns;
    o.filter = args.filter;
    o.query = args.query;
    if (args.limit) o.limit = *args.limit;
    o.offset = args.offset;
    for (const auto& it : store->search(o)) print(item_json(it));
  } else {
    storage::list_namespaces_options o;
    o.prefix = args.prefix;
    o.suffix = args.suffix;
    o.max_depth = args.max_depth;
    if (args.limit) o.limit = *args.limit;
    o.offset = args.offset;
    for (const auto& ns : store->list_namespaces(o)) print(namespace_json(ns));
  }
  return exit_done;
}

}  // namespace superstep::cli
