// `superstep store put|get|delete|search|namespaces`: the long-term store in the data folder
// (the `store` column family of the database), with semantic search by the embedder that
// --embedder names (hashing by default).
#include <memory>

#include "net/remote_store.hpp"
#include "ops/data_dir.hpp"
#include "ops/operations.hpp"
#include "ops/support.hpp"
#include "superstep/core/error.hpp"

namespace superstep::ops {

using net::item_json;
using net::namespace_json;

int run_store(const store_args& args, const cluster::function_registry& registry,
              std::shared_ptr<const storage::serializer> serde,
              const std::function<void(const value&)>& print) {
  // As the checkpoints: without fsync, the WAL survives the process being killed.
  // The actions that only read open the database read-only, beside a process writing to it.
  const bool reads = args.action == "get" || args.action == "search" || args.action == "namespaces";
  auto store = open_store(args.data_dir, {.index = store_index(args.embedder, registry),
                                          .read_only = reads,
                                          .serde = std::move(serde)});
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

}  // namespace superstep::ops
