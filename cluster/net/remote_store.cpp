#include "net/remote_store.hpp"

#include "superstep/core/error.hpp"

namespace superstep::net {

namespace {

[[noreturn]] void malformed(const std::string& what) {
  throw error(error_code::protocol_error, "malformed store operation: " + what);
}

storage::namespace_path ns_of(const value& v, const char* what) {
  if (v.is_null()) return {};
  if (!v.is_list()) malformed(std::string(what) + " is not a list");
  storage::namespace_path ns;
  for (const value& l : v.as_list()) {
    if (!l.is_string()) malformed(std::string(what) + " has a label that is not a string");
    ns.push_back(l.as_string());
  }
  return ns;
}

std::string string_of(const value& args, const char* field) {
  const value& v = args.get(field);
  if (!v.is_string()) malformed(std::string(field) + " is not a string");
  return v.as_string();
}

std::optional<bool> flag_of(const value& v) {
  if (v.is_null()) return std::nullopt;
  if (!v.is_bool()) malformed("refresh_ttl is not a boolean");
  return v.as_bool();
}

std::size_t count_of(const value& v, std::size_t fallback) {
  if (v.is_null()) return fallback;
  if (!v.is_int() || v.as_int() < 0) malformed("a count is not a non-negative integer");
  return static_cast<std::size_t>(v.as_int());
}

storage::item item_of(const value& v) {
  storage::item it;
  it.ns = ns_of(v.get("namespace"), "namespace");
  it.key = string_of(v, "key");
  it.v = v.get("value");
  it.created_at = string_of(v, "created_at");
  it.updated_at = string_of(v, "updated_at");
  if (v.get("score").is_number()) it.score = v.get("score").as_double();
  return it;
}

}  // namespace

value namespace_json(const storage::namespace_path& ns) {
  return value(list(ns.begin(), ns.end()));
}

value item_json(const storage::item& it) {
  object o{{"namespace", namespace_json(it.ns)},
           {"key", it.key},
           {"value", it.v},
           {"created_at", it.created_at},
           {"updated_at", it.updated_at}};
  if (it.score) o.set("score", *it.score);
  return value(std::move(o));
}

value run_store_op(storage::store& store, const std::string& op, const value& args) {
  if (!args.is_object()) malformed("arguments are not an object");
  if (op == "put") {
    storage::put_index index;
    const value& idx = args.get("index");
    if (idx.is_bool()) {
      index.enabled = idx.as_bool();
    } else if (idx.is_list()) {
      index.fields.emplace();
      for (const value& f : idx.as_list()) {
        if (!f.is_string()) malformed("index has a field that is not a string");
        index.fields->push_back(f.as_string());
      }
    } else if (!idx.is_null()) {
      malformed("index is not a boolean or a list");
    }
    storage::put_ttl ttl;
    const value& t = args.get("ttl");
    if (t.is_number())
      ttl = storage::put_ttl(t.as_double());
    else if (t.is_string() && t.as_string() == "never")
      ttl = storage::put_ttl(std::nullopt);
    else if (!t.is_null())
      malformed("ttl is not a number, \"never\" or null");
    store.put(ns_of(args.get("ns"), "ns"), string_of(args, "key"), args.get("value"), index, ttl);
    return value();
  }
  if (op == "get") {
    auto it = store.get(ns_of(args.get("ns"), "ns"), string_of(args, "key"),
                        flag_of(args.get("refresh_ttl")));
    return it ? item_json(*it) : value();
  }
  if (op == "remove") {
    store.remove(ns_of(args.get("ns"), "ns"), string_of(args, "key"));
    return value();
  }
  if (op == "search") {
    storage::search_options o;
    o.ns_prefix = ns_of(args.get("prefix"), "prefix");
    const value& f = args.get("filter");
    if (f.is_object())
      o.filter = f.as_object();
    else if (!f.is_null())
      malformed("filter is not an object");
    if (args.get("query").is_string()) o.query = args.get("query").as_string();
    o.limit = count_of(args.get("limit"), o.limit);
    o.offset = count_of(args.get("offset"), 0);
    o.refresh_ttl = flag_of(args.get("refresh_ttl"));
    list out;
    for (const auto& it : store.search(o)) out.push_back(item_json(it));
    return value(std::move(out));
  }
  if (op == "list_namespaces") {
    storage::list_namespaces_options o;
    o.prefix = ns_of(args.get("prefix"), "prefix");
    o.suffix = ns_of(args.get("suffix"), "suffix");
    if (!args.get("max_depth").is_null()) o.max_depth = count_of(args.get("max_depth"), 0);
    o.limit = count_of(args.get("limit"), o.limit);
    o.offset = count_of(args.get("offset"), 0);
    list out;
    for (const auto& ns : store.list_namespaces(o)) out.push_back(namespace_json(ns));
    return value(std::move(out));
  }
  if (op == "sweep") return value(static_cast<std::int64_t>(store.sweep()));
  malformed("unknown operation '" + op + "'");
}

value store_error_answer(const std::exception& e) {
  const auto* err = dynamic_cast<const error*>(&e);
  const auto code = err ? err->code() : error_code::storage_error;
  return object{
      {"error", object{{"code", static_cast<std::int64_t>(code)}, {"message", e.what()}}}};
}

void throw_if_store_error(const value& answer) {
  const value& e = answer.is_object() ? answer.get("error") : value();
  if (!e.is_object()) return;
  const value& code = e.get("code");
  const value& message = e.get("message");
  throw error(code.is_int() ? static_cast<error_code>(code.as_int()) : error_code::storage_error,
              message.is_string() ? message.as_string() : "the head's store failed");
}

void remote_store::put(const storage::namespace_path& ns, const std::string& key, value v,
                       storage::put_index index, storage::put_ttl ttl) {
  object args{{"ns", namespace_json(ns)}, {"key", key}, {"value", std::move(v)}};
  if (index.fields)
    args.set("index", value(list(index.fields->begin(), index.fields->end())));
  else
    args.set("index", index.enabled);
  if (!ttl.is_default()) args.set("ttl", ttl.minutes() ? value(*ttl.minutes()) : value("never"));
  (void)call_("put", value(std::move(args)));
}

std::optional<storage::item> remote_store::get(const storage::namespace_path& ns,
                                               const std::string& key,
                                               std::optional<bool> refresh_ttl) {
  object args{{"ns", namespace_json(ns)}, {"key", key}};
  if (refresh_ttl) args.set("refresh_ttl", *refresh_ttl);
  value answer = call_("get", value(std::move(args)));
  if (answer.is_null()) return std::nullopt;
  return item_of(answer);
}

void remote_store::remove(const storage::namespace_path& ns, const std::string& key) {
  (void)call_("remove", object{{"ns", namespace_json(ns)}, {"key", key}});
}

std::vector<storage::item> remote_store::search(const storage::search_options& options) {
  object args{{"prefix", namespace_json(options.ns_prefix)},
              {"filter", value(options.filter)},
              {"limit", static_cast<std::int64_t>(options.limit)},
              {"offset", static_cast<std::int64_t>(options.offset)}};
  if (options.query) args.set("query", *options.query);
  if (options.refresh_ttl) args.set("refresh_ttl", *options.refresh_ttl);
  value answer = call_("search", value(std::move(args)));
  std::vector<storage::item> out;
  if (!answer.is_list()) malformed("search answered with no list");
  for (const value& v : answer.as_list()) out.push_back(item_of(v));
  return out;
}

std::vector<storage::namespace_path> remote_store::list_namespaces(
    const storage::list_namespaces_options& options) {
  object args{{"prefix", namespace_json(options.prefix)},
              {"suffix", namespace_json(options.suffix)},
              {"limit", static_cast<std::int64_t>(options.limit)},
              {"offset", static_cast<std::int64_t>(options.offset)}};
  if (options.max_depth) args.set("max_depth", static_cast<std::int64_t>(*options.max_depth));
  value answer = call_("list_namespaces", value(std::move(args)));
  if (!answer.is_list()) malformed("list_namespaces answered with no list");
  std::vector<storage::namespace_path> out;
  for (const value& v : answer.as_list()) out.push_back(ns_of(v, "namespace"));
  return out;
}

std::size_t remote_store::sweep() {
  value answer = call_("sweep", object{});
  return answer.is_int() ? static_cast<std::size_t>(answer.as_int()) : 0;
}

}  // namespace superstep::net
