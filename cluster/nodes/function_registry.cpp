#include "superstep/cluster/function_registry.hpp"

#include <algorithm>

#include "nodes/builtin_embedders.hpp"
#include "nodes/suggest.hpp"
#include "superstep/cluster/function_params.hpp"
#include "superstep/cluster/named_function.hpp"
#include "superstep/core/error.hpp"

namespace superstep::cluster {

namespace {

template <class Map, class T>
void add_unique(Map& map, std::string name, T item, const char* kind) {
  if (name.empty()) throw error(error_code::invalid_argument, std::string(kind) + " name is empty");
  if (!item)
    throw error(error_code::invalid_argument, std::string(kind) + " '" + name + "' is empty");
  if (map.count(name))
    throw error(error_code::invalid_argument,
                std::string(kind) + " '" + name + "' is already registered");
  map.emplace(std::move(name), std::move(item));
}

template <class Map>
std::vector<std::string> names_of(const Map& map) {
  std::vector<std::string> out;
  out.reserve(map.size());
  for (const auto& [name, item] : map) out.push_back(name);
  return out;
}

// Names the closest registered names, and where functions that are not built in come from.
[[noreturn]] void unknown(const char* kind, std::string_view name,
                          const std::vector<std::string>& known) {
  throw error(error_code::unknown_function,
              std::string("unknown ") + kind + " '" + std::string(name) + "'" +
                  did_you_mean(name, known) +
                  "; functions of a node library are known once it is loaded with --plugin LIB");
}

}  // namespace

void function_registry::add_node(std::string name, node_factory factory) {
  if (registry_nodes_.count(name))
    throw error(error_code::invalid_argument, "node function '" + name + "' is already registered");
  add_unique(nodes_, std::move(name), std::move(factory), "node function");
}

void function_registry::add_registry_node(std::string name, registry_node_factory factory) {
  if (nodes_.count(name))
    throw error(error_code::invalid_argument, "node function '" + name + "' is already registered");
  add_unique(registry_nodes_, std::move(name), std::move(factory), "node function");
}

void function_registry::add_tool(agents::tool t) { tools_.add(std::move(t)); }

void function_registry::add_router(std::string name, router_factory factory) {
  add_unique(routers_, std::move(name), std::move(factory), "router");
}

void function_registry::add_reducer(std::string name, channels::reducer reducer) {
  if (channels::builtin_reducer(name))
    throw error(error_code::invalid_argument,
                "reducer '" + name + "' is built in and cannot be registered");
  if (!reducer.binary && !reducer.fold)
    throw error(error_code::invalid_argument, "reducer '" + name + "' has no function");
  if (reducer.name.empty()) reducer.name = name;
  if (reducers_.count(name))
    throw error(error_code::invalid_argument, "reducer '" + name + "' is already registered");
  reducers_.emplace(std::move(name), std::move(reducer));
}

bool function_registry::has_node(std::string_view name) const noexcept {
  return nodes_.find(name) != nodes_.end() || registry_nodes_.find(name) != registry_nodes_.end();
}

bool function_registry::has_router(std::string_view name) const noexcept {
  return routers_.find(name) != routers_.end();
}

bool function_registry::has_reducer(std::string_view name) const noexcept {
  return channels::builtin_reducer(name) || reducers_.find(name) != reducers_.end();
}

node_function function_registry::make_node(std::string_view name, const value& params) const {
  // Named, so that a graph holding it can be exported to a spec (named_function.hpp).
  return name_function(std::string(name), params, make_unnamed_node(name, params));
}

node_function function_registry::make_unnamed_node(std::string_view name,
                                                   const value& params) const {
  if (auto r = registry_nodes_.find(name); r != registry_nodes_.end())
    return r->second(params, *this);
  auto it = nodes_.find(name);
  if (it == nodes_.end() && allow_missing_) {
    return [fn = std::string(name)](const value&, node_context&) -> value {
      throw error(error_code::unavailable, "node function '" + fn + "' is not in this process");
    };
  }
  if (it == nodes_.end()) unknown("node function", name, names_of(nodes_));
  return it->second(params);
}

router_function function_registry::make_router(std::string_view name, const value& params) const {
  return name_function(std::string(name), params, make_unnamed_router(name, params));
}

router_function function_registry::make_unnamed_router(std::string_view name,
                                                       const value& params) const {
  auto it = routers_.find(name);
  if (it == routers_.end() && allow_missing_) {
    return [fn = std::string(name)](const value&, node_context&) -> value {
      throw error(error_code::unavailable, "router '" + fn + "' is not in this process");
    };
  }
  if (it == routers_.end()) unknown("router", name, names_of(routers_));
  return it->second(params);
}

void function_registry::add_embedder(std::string name, embedder_factory factory) {
  if (builtin_embedder(name))
    throw error(error_code::invalid_argument,
                "embedder '" + name + "' is built in and cannot be registered");
  add_unique(embedders_, std::move(name), std::move(factory), "embedder");
}

bool function_registry::has_embedder(std::string_view name) const noexcept {
  return builtin_embedder(name) || embedders_.find(name) != embedders_.end();
}

storage::embed_fn function_registry::make_embedder(std::string_view name,
                                                   const value& params) const {
  const builtin_embedder_factory* builtin = builtin_embedder(name);
  const embedder_factory* factory = nullptr;
  if (auto it = embedders_.find(name); !builtin && it != embedders_.end()) factory = &it->second;
  if (!builtin && !factory) {
    std::string known;
    for (const auto& n : embedder_names()) known += (known.empty() ? "" : ", ") + n;
    throw error(error_code::unknown_function,
                "unknown embedder '" + std::string(name) + "' (known: " + known + ")");
  }
  try {
    return builtin ? (*builtin)(params, keys_) : (*factory)(params);
  } catch (const invalid_param& e) {
    throw error(error_code::invalid_argument,
                "embedder '" + std::string(name) + "': " + std::string(e.what()));
  }
}

const channels::reducer& function_registry::reducer(std::string_view name) const {
  if (const channels::reducer* r = channels::builtin_reducer(name)) return *r;
  auto it = reducers_.find(name);
  if (it == reducers_.end()) {
    auto known = names_of(reducers_);
    for (const char* b : {"append", "add", "max", "min", "merge", "add_messages", "messages_delta"})
      known.emplace_back(b);
    unknown("reducer", name, known);
  }
  return it->second;
}

std::vector<std::string> function_registry::node_names() const {
  std::vector<std::string> out = names_of(nodes_);
  const auto more = names_of(registry_nodes_);
  out.insert(out.end(), more.begin(), more.end());
  std::sort(out.begin(), out.end());
  return out;
}
std::vector<std::string> function_registry::router_names() const { return names_of(routers_); }
std::vector<std::string> function_registry::reducer_names() const { return names_of(reducers_); }

std::vector<std::string> function_registry::embedder_names() const {
  std::vector<std::string> out = builtin_embedder_names();
  const auto registered = names_of(embedders_);
  out.insert(out.end(), registered.begin(), registered.end());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace superstep::cluster
