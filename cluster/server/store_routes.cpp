// The server API's long-term store: /store/items, /store/items/search, /store/namespaces
// (server/service.hpp), on the data folder's store.
#include "net/remote_store.hpp"
#include "server/service.hpp"
#include "superstep/checkpoint/store.hpp"
#include "superstep/core/error.hpp"

namespace superstep::server {

using net::item_json;
using net::namespace_json;

namespace {

// A namespace from a JSON list of labels, checked as LangGraph Server checks it.
storage::namespace_path namespace_of(const value& v, const char* field, bool allow_empty) {
  if (v.is_null() && allow_empty) return {};
  if (!v.is_list()) throw api_error{422, std::string(field) + ": expected a list of labels"};
  storage::namespace_path ns;
  for (const value& label : v.as_list()) {
    if (!label.is_string()) throw api_error{422, std::string(field) + ": labels are strings"};
    const std::string& s = label.as_string();
    if (s.empty()) throw api_error{422, std::string(field) + ": a label is empty"};
    if (s.find('.') != std::string::npos)
      throw api_error{422, "Namespace labels cannot be empty or contain periods. Received: " + s};
    ns.push_back(s);
  }
  if (ns.empty() && !allow_empty) throw api_error{400, "Namespace is required"};
  return ns;
}

// A namespace from the query string: labels joined by '.'.
storage::namespace_path namespace_of_query(const std::string& text) {
  storage::namespace_path ns;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t dot = text.find('.', start);
    if (dot == std::string::npos) dot = text.size();
    const std::string label = text.substr(start, dot - start);
    if (label.empty())
      throw api_error{422,
                      "Namespace labels cannot be empty or contain periods. Received: " + text};
    ns.push_back(label);
    start = dot + 1;
  }
  return ns;
}

std::size_t count(const value& body, const char* key, std::size_t fallback) {
  const value& v = body.get(key);
  if (v.is_null()) return fallback;
  if (!v.is_int() || v.as_int() < 0) throw api_error{422, std::string(key) + ": a number >= 0"};
  return static_cast<std::size_t>(v.as_int());
}

}  // namespace

api_response service::store_route(const http_request& r, const std::vector<std::string>& p,
                                  const value& body) {
  storage::store& store = *data_.store();
  const std::string& m = r.method;
  if (p.size() == 2 && p[1] == "items") {
    if (m == "PUT") {
      const storage::namespace_path ns = namespace_of(body.get("namespace"), "namespace", false);
      if (!body.get("key").is_string() || body.get("key").as_string().empty())
        throw api_error{422, "key: a non-empty string"};
      if (!body.get("value").is_object()) throw api_error{422, "value: expected an object"};
      storage::put_index index;
      const value& idx = body.get("index");
      if (idx == value(false)) index.enabled = false;
      if (idx.is_list()) {
        std::vector<std::string> fields;
        for (const value& f : idx.as_list())
          if (f.is_string()) fields.push_back(f.as_string());
        index.fields = std::move(fields);
      }
      storage::put_ttl ttl;
      if (body.get("ttl").is_number()) ttl = storage::put_ttl(body.get("ttl").as_double());
      store.put(ns, body.get("key").as_string(), body.get("value"), index, ttl);
      return {204, value()};
    }
    if (m == "GET" || m == "HEAD") {
      const storage::namespace_path ns = namespace_of_query(r.query_value("namespace"));
      const std::string key = r.query_value("key");
      if (key.empty()) throw api_error{422, "key: required"};
      std::optional<bool> refresh;
      if (r.has_query("refresh_ttl")) refresh = r.query_value("refresh_ttl") == "true";
      auto it = store.get(ns, key, refresh);
      if (!it) return {200, value()};
      return {200, item_json(*it)};
    }
    if (m == "DELETE") {
      const storage::namespace_path ns = namespace_of(body.get("namespace"), "namespace", false);
      if (!body.get("key").is_string()) throw api_error{422, "key: required"};
      store.remove(ns, body.get("key").as_string());
      return {204, value()};
    }
  }
  if (p.size() == 3 && p[1] == "items" && p[2] == "search" && m == "POST") {
    storage::search_options o;
    o.ns_prefix = namespace_of(body.get("namespace_prefix"), "namespace_prefix", true);
    if (body.get("filter").is_object()) o.filter = body.get("filter").as_object();
    if (body.get("query").is_string()) o.query = body.get("query").as_string();
    o.limit = count(body, "limit", 10);
    o.offset = count(body, "offset", 0);
    if (body.get("refresh_ttl").is_bool()) o.refresh_ttl = body.get("refresh_ttl").as_bool();
    list items;
    // As LangGraph Server's search items: a score only when a query ranked them, else null.
    const bool ranked = body.get("query").is_string() && !body.get("query").as_string().empty();
    for (const auto& it : store.search(o)) {
      object item = item_json(it).as_object();
      if (!ranked || !it.score) item.set("score", value());
      items.push_back(value(std::move(item)));
    }
    return {200, value(object{{"items", value(std::move(items))}})};
  }
  if (p.size() == 2 && p[1] == "namespaces" && m == "POST") {
    storage::list_namespaces_options o;
    o.prefix = namespace_of(body.get("prefix"), "prefix", true);
    o.suffix = namespace_of(body.get("suffix"), "suffix", true);
    if (body.get("max_depth").is_int()) o.max_depth = count(body, "max_depth", 0);
    o.limit = count(body, "limit", 100);
    o.offset = count(body, "offset", 0);
    list out;
    for (const auto& ns : store.list_namespaces(o)) out.push_back(namespace_json(ns));
    return {200, value(object{{"namespaces", value(std::move(out))}})};
  }
  throw api_error{404, "404 Not Found"};
}

}  // namespace superstep::server
