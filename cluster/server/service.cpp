// The LangGraph Server API: routing, meta, assistants and threads (server/service.hpp).
#include "server/service.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "ops/operations.hpp"
#include "ops/support.hpp"
#include "server/api_documents.hpp"
#include "server/api_support.hpp"
#include "superstep/core/error.hpp"
#include "superstep/version.hpp"

namespace superstep::server {

using detail::count_field;
using detail::merged;
using detail::object_field;
using detail::page;
using detail::query_count;
using detail::string_field;

namespace {

// LangGraph Server's namespace of system assistants' ids: uuid5(this, graph_id).
constexpr const char* assistant_namespace = "6ba7b821-9dad-11d1-80b4-00c04fd430c8";

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    if (slash > start) parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

}  // namespace

value parse_body(const std::string& body, bool any) {
  if (body.find_first_not_of(" \t\r\n") == std::string::npos) return value(object{});
  value v;
  try {
    v = value::parse_json(body);
  } catch (const std::exception& e) {
    throw api_error{422, std::string("the body is not JSON: ") + e.what()};
  }
  if (!any && !v.is_object()) throw api_error{422, "the body must be a JSON object"};
  return v;
}

namespace {

// `superstep serve`'s loader: the graph runs in this process, its loop on the run's thread
// (execution::threads: the same run_loop as on actors, without the coordinator's, node and
// channel actors' hand-offs, which cost a short run more than its work).
graph_loader in_process(const cluster::function_registry& registry) {
  return [&registry](const value& spec, runtime_options options) {
    options.mode = execution::threads;
    return cluster::load_graph(spec, registry, std::move(options));
  };
}

}  // namespace

job_pool::job_pool(unsigned threads) {
  for (unsigned i = 0; i < std::max(1u, threads); ++i)
    threads_.emplace_back([this] {
      for (;;) {
        std::function<void()> job;
        {
          std::unique_lock lock(mutex_);
          ready_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
          if (jobs_.empty()) return;
          job = std::move(jobs_.front());
          jobs_.pop_front();
        }
        job();
      }
    });
}

job_pool::~job_pool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (auto& t : threads_) t.join();
}

void job_pool::post(std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    jobs_.push_back(std::move(job));
  }
  ready_.notify_one();
}

service::service(server_config config, ops::data_dir& data,
                 const cluster::function_registry& registry,
                 std::function<void(const std::string&)> log, unsigned run_threads,
                 std::shared_ptr<const storage::serializer> serde, graph_loader load)
    : config_(std::move(config)),
      data_(data),
      registry_(registry),
      load_(load ? std::move(load) : in_process(registry)),
      log_(std::move(log)),
      run_threads_(run_threads),
      records_(data.records()),
      assistants_(*records_, serde ? serde : storage::make_capnp_serializer(), data.path(),
                  "assistants", log_),
      threads_(*records_, serde ? serde : storage::make_capnp_serializer(), data.path(), "threads",
               log_),
      runs_(*records_, serde ? serde : storage::make_capnp_serializer(), data.path(), "runs", log_),
      crons_(*records_, serde ? serde : storage::make_capnp_serializer(), data.path(), "crons",
             log_),
      run_pool_(run_threads),
      requests_(4) {
  for (const auto& [name, spec] : config_.graphs) graph_of(name);  // fails at start, not later
  make_system_assistants();
  // Runs a stopped server left pending or running go on (server/runs.cpp).
  resume_runs();
  timer_ = std::thread([this] { start_scheduled(); });
  cron_timer_ = std::thread([this] { run_crons(); });
  heartbeat_ = std::thread([this] { heartbeat(); });
}

service::~service() {
  stop_crons();
  shutdown();
  if (timer_.joinable()) timer_.join();
  if (heartbeat_.joinable()) heartbeat_.join();
}

// ---- graphs -------------------------------------------------------------------------------

cluster::loaded_graph service::load_cached(const value& spec, runtime_options options) const {
  return load_cached(spec.to_json(), spec, std::move(options));
}

cluster::loaded_graph service::load_cached(const std::string& key, const value& spec,
                                           runtime_options options) const {
  std::lock_guard lock(graphs_mutex_);
  // A loaded graph's nodes take one task at a time (an actor each): runs of one graph at once
  // each get an instance of their own. One no run holds (the cache's is its only reference) is
  // taken again; a new one is loaded while there are fewer than the run pool's threads.
  std::vector<cluster::loaded_graph>& loaded = graphs_[key];
  for (const cluster::loaded_graph& g : loaded)
    if (g.graph.use_count() == 1) return g;
  if (loaded.size() < run_threads_) {
    loaded.push_back(load_(spec, std::move(options)));
    return loaded.back();
  }
  return loaded[next_instance_++ % loaded.size()];
}

ops::command_env service::ops_env() const {
  ops::command_env env{data_, registry_, nullptr};
  env.load = [this](const value& spec, runtime_options o) {
    return load_cached(spec, std::move(o));
  };
  return env;
}

cluster::loaded_graph service::graph_of(const std::string& graph_id) const {
  auto it = config_.graphs.find(graph_id);
  if (it == config_.graphs.end()) throw api_error{404, "Graph '" + graph_id + "' not found"};
  runtime_options options;
  options.checkpointer = data_.saver();
  options.store = data_.store();
  return load_cached(spec_text_of(graph_id), it->second, std::move(options));
}

const std::string& service::spec_text_of(const std::string& graph_id) const {
  std::lock_guard lock(graphs_mutex_);
  auto text = spec_texts_.find(graph_id);
  if (text == spec_texts_.end())
    text = spec_texts_.emplace(graph_id, config_.graphs.at(graph_id).to_json()).first;
  return text->second;
}

// ---- requests -----------------------------------------------------------------------------

header_list service::cors_headers(const http_request& r) const {
  const std::string origin = r.header("Origin");
  if (origin.empty()) return {};
  bool allowed = false;
  for (const auto& o : config_.cors_origins) allowed = allowed || o == "*" || o == origin;
  if (!allowed) return {};
  return {{"Access-Control-Allow-Origin", origin},
          {"Access-Control-Allow-Credentials", "true"},
          {"Vary", "Origin"},
          {"Access-Control-Expose-Headers",
           "Content-Location, Location, X-Pagination-Total, X-Pagination-Next"}};
}

void service::reply(const http_request& r, const std::shared_ptr<http_exchange>& x,
                    api_response res) {
  header_list headers = cors_headers(r);
  for (auto& h : res.headers) headers.push_back(std::move(h));
  if (res.status == 204 || (res.body.is_null() && res.status == 202)) {
    x->send(res.status, std::move(headers), "");
    return;
  }
  // Errors carry their message as plain text, as LangGraph Server's do (its SDK shows them as
  // "HTTP 404: Assistant not found").
  const bool failed = res.status >= 400 && res.body.is_string();
  headers.emplace_back("Content-Type", failed ? "text/plain;charset=UTF-8" : "application/json");
  std::string text = failed ? res.body.as_string() : res.body.to_json();
  x->send(res.status, std::move(headers), r.method == "HEAD" ? "" : std::move(text));
}

void service::handle(http_request request, std::shared_ptr<http_exchange> exchange) {
  if (request.method == "OPTIONS") {  // a browser's preflight
    header_list headers = cors_headers(request);
    if (!headers.empty()) {
      headers.emplace_back("Access-Control-Allow-Methods",
                           "GET, POST, PUT, PATCH, DELETE, OPTIONS");
      const std::string asked = request.header("Access-Control-Request-Headers");
      headers.emplace_back("Access-Control-Allow-Headers", asked.empty() ? "*" : asked);
      headers.emplace_back("Access-Control-Max-Age", "600");
      if (request.header("Access-Control-Request-Private-Network") == "true")
        headers.emplace_back("Access-Control-Allow-Private-Network", "true");
    }
    exchange->send(204, std::move(headers), "");
    return;
  }
  requests_.post([this, r = std::move(request), x = std::move(exchange)] { dispatch(r, x); });
}

void service::dispatch(const http_request& r, const std::shared_ptr<http_exchange>& x) {
  bool answered = false;
  api_response res;
  try {
    res = route(r, split_path(r.path), x, answered);
  } catch (const api_error& e) {
    res = {e.status, value(e.message)};
  } catch (const error& e) {
    const int status = e.code() == error_code::not_found          ? 404
                       : e.code() == error_code::invalid_argument ? 422
                       : e.code() == error_code::thread_busy      ? 409
                                                                  : 500;
    res = {status, value(std::string(e.what()))};
  } catch (const std::exception& e) {
    res = {500, value(std::string(e.what()))};
  }
  if (!answered) reply(r, x, std::move(res));
}

api_response service::route(const http_request& r, const std::vector<std::string>& p,
                            const std::shared_ptr<http_exchange>& x, bool& answered) {
  const std::string& m = r.method;
  const bool get = m == "GET" || m == "HEAD", post = m == "POST", patch = m == "PATCH",
             del = m == "DELETE";
  const std::size_t n = p.size();
  auto body = [&] { return parse_body(r.body); };
  auto not_allowed = [&]() -> api_response {
    throw api_error{405, "Method " + m + " not allowed on " + r.path};
  };
  if (n == 0) {
    if (get) return {200, value(object{{"ok", true}})};
    return not_allowed();
  }
  const std::string& root = p[0];
  if (n == 1 && (root == "ok" || root == "info") && !get) return not_allowed();
  if (n == 1 && root == "ok") return {200, value(object{{"ok", true}})};
  if (n == 1 && root == "info")
    return {200, value(object{{"version", superstep::version()},
                              {"server", "superstep"},
                              {"flags", object{{"assistants", true},
                                               {"crons", true},
                                               {"langsmith", false},
                                               {"langsmith_tracing_replicas", false}}},
                              {"host", object{{"kind", "self-hosted"}}}})};
  if (n == 1 && (root == "openapi.json" || root == "docs") && get) {
    answered = true;
    header_list headers = cors_headers(r);
    headers.emplace_back("Content-Type",
                         root == "docs" ? "text/html;charset=UTF-8" : "application/json");
    const std::string_view text = root == "docs" ? docs_html() : openapi_json();
    x->send(200, std::move(headers), r.method == "HEAD" ? "" : std::string(text));
    return {};
  }
  if (root == "internal" && n == 2 && p[1] == "truncate" && post) return truncate(body());

  if (root == "assistants") {
    if (n == 1 && post) return create_assistant(body());
    if (n == 2 && p[1] == "search" && post) return search_assistants(body(), false);
    if (n == 2 && p[1] == "count" && post) return search_assistants(body(), true);
    if (n == 2) {
      if (get) return {200, find_assistant(p[1])};
      if (patch) return patch_assistant(p[1], body());
      if (del) return delete_assistant(p[1], r.query_value("delete_threads") == "true");
      return not_allowed();
    }
    if (n == 3 && p[2] == "graph" && get) return assistant_graph(p[1], r);
    if (n == 3 && p[2] == "schemas" && get) return assistant_schemas(p[1]);
    if ((n == 3 || n == 4) && p[2] == "subgraphs" && get)
      return assistant_subgraphs(p[1], n == 4 ? p[3] : "", r.query_value("recurse") == "true");
    if (n == 3 && p[2] == "versions" && post) return assistant_versions(p[1], body());
    if (n == 3 && p[2] == "latest" && post) return set_latest(p[1], body());
  }

  if (root == "threads") {
    if (n == 1 && post) return create_thread(body());
    if (n == 2 && p[1] == "search" && post) return search_threads(body(), false);
    if (n == 2 && p[1] == "count" && post) return search_threads(body(), true);
    if (n == 2 && p[1] == "prune" && post) return prune_threads(body());
    if (n == 2) {
      if (get) return {200, find_thread(p[1])};
      if (patch) return patch_thread(p[1], body());
      if (del) return delete_thread(p[1]);
      return not_allowed();
    }
    const std::string& id = p[1];
    if (n == 3 && p[2] == "copy" && post) return copy_thread(id);
    if (n == 3 && p[2] == "state") {
      if (get) return thread_state(id, "", r.query_value("subgraphs") == "true");
      if (post) return update_thread_state(id, body());
      return not_allowed();
    }
    if (n == 4 && p[2] == "state" && p[3] == "checkpoint" && post) {
      const value b = body();
      const value cp = b.get("checkpoint");
      return thread_state(id, cp.is_object() ? string_field(cp, "checkpoint_id") : "",
                          b.get("subgraphs").truthy(),
                          cp.is_object() ? string_field(cp, "checkpoint_ns") : "");
    }
    if (n == 4 && p[2] == "state" && get)
      return thread_state(id, p[3], r.query_value("subgraphs") == "true");
    if (n == 3 && p[2] == "stream" && get) return join_thread_stream(id, r, x, answered);
    if (n == 3 && p[2] == "history") {
      if (post) return thread_history(id, body());
      if (get) {
        object b;
        if (r.has_query("limit"))
          b.set("limit", static_cast<std::int64_t>(query_count(r, "limit", 10)));
        if (r.has_query("before"))
          b.set("before",
                object{{"configurable", object{{"checkpoint_id", r.query_value("before")}}}});
        return thread_history(id, value(std::move(b)));
      }
      return not_allowed();
    }
    if (n >= 3 && p[2] == "runs") {
      if (n == 3 && post) return create_run(id, body(), "background", x, answered);
      if (n == 3 && get) return list_runs(id, r);
      if (n == 4 && p[3] == "stream" && post) return create_run(id, body(), "stream", x, answered);
      if (n == 4 && p[3] == "crons" && post) return create_cron(id, body());
      if (n == 4 && p[3] == "wait" && post) return create_run(id, body(), "wait", x, answered);
      if (n == 4 && get) return get_run(id, p[3]);
      if (n == 4 && del) return delete_run(id, p[3]);
      if (n == 5 && p[4] == "join" && get) return join_run(id, p[3], x, answered);
      if (n == 5 && p[4] == "stream" && get) return join_stream(id, p[3], r, x, answered);
      if (n == 5 && p[4] == "cancel" && post) return cancel_run(id, p[3], r, x, answered);
    }
  }

  if (root == "runs") {
    if (n == 1 && post) return create_run("", body(), "background", x, answered);
    if (n == 2 && p[1] == "stream" && post) return create_run("", body(), "stream", x, answered);
    if (n == 2 && p[1] == "wait" && post) return create_run("", body(), "wait", x, answered);
    if (n == 2 && p[1] == "batch" && post) return create_batch(r.body);
    if (n >= 2 && p[1] == "crons") {
      if (n == 2 && post) return create_cron("", body());
      if (n == 3 && p[2] == "search" && post) return search_crons(body(), false);
      if (n == 3 && p[2] == "count" && post) return search_crons(body(), true);
      if (n == 3 && patch) return patch_cron(p[2], body());
      if (n == 3 && del) return delete_cron(p[2]);
    }
    if (n == 2 && p[1] == "cancel" && post) return cancel_runs(body(), r);
    // A stateless run, at the Content-Location its creation answered.
    if ((n == 2 || (n == 3 && p[2] == "stream")) && get && p[1] != "crons") {
      auto rec = runs_.get(p[1]);
      if (!rec) throw api_error{404, "Run not found"};
      const std::string thread = rec->get("thread_id").as_string();
      if (n == 2) return get_run(thread, p[1]);
      return join_stream(thread, p[1], r, x, answered);
    }
  }

  if (root == "store") return store_route(r, p, body());

  throw api_error{404, "404 Not Found"};
}

api_response service::truncate(const value& body) {
  if (body.get("runs").truthy()) runs_.clear();
  if (body.get("crons").truthy()) {
    crons_.clear();
    wake_crons();
  }
  if (body.get("threads").truthy() || body.get("checkpointer").truthy() ||
      body.get("checkpoint").truthy()) {
    for (const value& t : threads_.all()) {
      const std::string id = t.get("thread_id").as_string();
      try {
        data_.saver()->delete_thread(id);
      } catch (const std::exception&) {
      }
      data_.forget_graph(id);
    }
    threads_.clear();
  }
  if (body.get("assistants").truthy()) {
    assistants_.clear();
    make_system_assistants();
  }
  return {200, value(object{{"ok", true}})};
}

// ---- assistants ---------------------------------------------------------------------------

void service::make_system_assistants() {
  // LANGGRAPH_CONFIG (a key of the registry's source: the program's environment, then the
  // config's "env"), as LangGraph Server reads it: {graph_id: config} for the system
  // assistants, a config's "context" their context.
  value defaults = object{};
  const auto text = registry_.keys() ? registry_.keys()("LANGGRAPH_CONFIG") : std::nullopt;
  if (text && !text->empty()) {
    try {
      defaults = value::parse_json(*text);
    } catch (const error& e) {
      throw error(error_code::invalid_argument,
                  std::string("LANGGRAPH_CONFIG: not JSON: ") + e.what());
    }
    if (!defaults.is_object())
      throw error(error_code::invalid_argument,
                  "LANGGRAPH_CONFIG: expected an object of graph ids to configs");
    for (const auto& [graph_id, c] : defaults.as_object())
      if (!c.is_object())
        throw error(error_code::invalid_argument,
                    "LANGGRAPH_CONFIG." + graph_id + ": expected a config object");
  }
  for (const auto& [graph_id, spec] : config_.graphs) {
    const std::string id = uuid5(assistant_namespace, graph_id);
    if (assistants_.get(id)) continue;
    const std::string now = now_iso();
    object config =
        defaults.get(graph_id).is_object() ? defaults.get(graph_id).as_object() : object{};
    value context = config.find("context") ? *config.find("context") : value(object{});
    config.erase("context");
    assistants_.put(id, value(object{{"assistant_id", id},
                                     {"graph_id", graph_id},
                                     {"config", value(std::move(config))},
                                     {"context", std::move(context)},
                                     {"metadata", object{{"created_by", "system"}}},
                                     {"name", graph_id},
                                     {"description", value()},
                                     {"version", 1},
                                     {"created_at", now},
                                     {"updated_at", now},
                                     {"versions", list{}}}));
  }
}

namespace {

// An assistant as the API shows it (its versions kept apart).
value public_assistant(const value& a) {
  object out = a.as_object();
  out.erase("versions");
  return value(std::move(out));
}

}  // namespace

value service::find_assistant(const std::string& id_or_graph) const {
  if (auto a = assistants_.get(id_or_graph)) return public_assistant(*a);
  if (config_.graphs.count(id_or_graph))
    if (auto a = assistants_.get(uuid5(assistant_namespace, id_or_graph)))
      return public_assistant(*a);
  throw api_error{404, "Assistant not found"};
}

api_response service::create_assistant(const value& body) {
  const std::string graph_id = string_field(body, "graph_id");
  if (graph_id.empty()) throw api_error{422, "graph_id: required"};
  if (!config_.graphs.count(graph_id)) throw api_error{404, "Graph '" + graph_id + "' not found"};
  std::string id = string_field(body, "assistant_id");
  if (id.empty()) id = uuid4();
  if (auto existing = assistants_.get(id)) {
    if (string_field(body, "if_exists") == "do_nothing") return {200, public_assistant(*existing)};
    throw api_error{409, "Assistant already exists"};
  }
  const std::string now = now_iso();
  object a{{"assistant_id", id},
           {"graph_id", graph_id},
           {"config", object_field(body, "config")},
           {"context", object_field(body, "context")},
           {"metadata", object_field(body, "metadata")},
           {"name", body.get("name").is_string() ? body.get("name") : value("Untitled")},
           {"description", body.get("description")},
           {"version", 1},
           {"created_at", now},
           {"updated_at", now}};
  value record(a);
  a.set("versions", list{record});
  assistants_.put(id, value(a));
  return {200, record};
}

namespace {

// `text` in lower case (ASCII), for the name search: a substring, case insensitive, as
// LangGraph Server's.
std::string lowered(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

api_response service::search_assistants(const value& body, bool count_only) {
  const value metadata = object_field(body, "metadata");
  const std::string graph_id = string_field(body, "graph_id");
  const std::string name = string_field(body, "name");
  std::vector<value> found = assistants_.where([&](const value& a) {
    return metadata_matches(a.get("metadata"), metadata) &&
           (graph_id.empty() || a.get("graph_id") == graph_id) &&
           (name.empty() ||
            (a.get("name").is_string() &&
             lowered(a.get("name").as_string()).find(lowered(name)) != std::string::npos));
  });
  if (count_only) return {200, value(static_cast<std::int64_t>(found.size()))};
  return detail::search_page(std::move(found), body, "created_at", public_assistant);
}

api_response service::patch_assistant(const std::string& id, const value& body) {
  const value current = find_assistant(id);
  const std::string real = current.get("assistant_id").as_string();
  object stored = assistants_.get(real)->as_object();
  object a = current.as_object();
  if (body.find("graph_id")) {
    const std::string g = string_field(body, "graph_id");
    if (!config_.graphs.count(g)) throw api_error{404, "Graph '" + g + "' not found"};
    a.set("graph_id", g);
  }
  if (body.find("config")) a.set("config", object_field(body, "config"));
  if (body.find("context")) a.set("context", object_field(body, "context"));
  if (body.find("metadata"))
    a.set("metadata", merged(a.find("metadata") ? *a.find("metadata") : value(),
                             object_field(body, "metadata")));
  if (body.find("name")) a.set("name", body.get("name"));
  if (body.find("description")) a.set("description", body.get("description"));
  const value* versions = stored.find("versions");
  list all = versions && versions->is_list() ? versions->as_list() : list{};
  std::int64_t newest = 0;
  for (const value& v : all) newest = std::max(newest, v.get("version").as_int());
  a.set("version", std::max<std::int64_t>(newest, current.get("version").as_int()) + 1);
  a.set("updated_at", now_iso());
  value record(a);
  all.push_back(record);
  object to_store = a;
  to_store.set("versions", value(std::move(all)));
  assistants_.put(real, value(std::move(to_store)));
  return {200, record};
}

api_response service::delete_assistant(const std::string& id, bool delete_threads) {
  const value a = find_assistant(id);
  const std::string real = a.get("assistant_id").as_string();
  assistants_.erase(real);
  for (const value& c : crons_.where([&](const value& c) { return c.get("assistant_id") == real; }))
    crons_.erase(c.get("cron_id").as_string());
  if (delete_threads)
    for (const value& t : threads_.where(
             [&](const value& t) { return t.get("metadata").get("assistant_id") == real; }))
      delete_thread(t.get("thread_id").as_string());
  return {204, value()};
}

api_response service::assistant_graph(const std::string& id, const http_request& r) {
  const value a = find_assistant(id);
  cluster::loaded_graph g = graph_of(a.get("graph_id").as_string());
  const std::string xray = r.query_value("xray");
  int depth = 0;
  if (xray == "true")
    depth = 1000;
  else if (!xray.empty() && xray != "false")
    depth = static_cast<int>(query_count(r, "xray", 0));
  return {200, g.graph->get_graph(depth).to_json()};
}

namespace {

// A graph's schemas as GraphSchema.
value schemas_of(const value& graph_id, const pregel& g) {
  return object{{"graph_id", graph_id},
                {"input_schema", g.input_json_schema()},
                {"output_schema", g.output_json_schema()},
                {"state_schema", g.output_json_schema()},
                // The run context's, for both: a superstep graph's configurable is its context
                // (as LangGraph.js gives the one schema as both).
                {"config_schema", g.context_json_schema()},
                {"context_schema", g.context_json_schema()}};
}

// A subgraph's schemas: GraphSchema's fields (the SDK's type, the Python server's answer)
// and the JS server's {state, input, output, config}, so that clients of either read them.
value subgraph_schemas(const value& graph_id, const pregel& g) {
  object out = schemas_of(graph_id, g).as_object();
  out.set("state", out.find("state_schema") ? *out.find("state_schema") : value());
  out.set("input", g.input_json_schema());
  out.set("output", g.output_json_schema());
  out.set("config", g.context_json_schema());
  return value(std::move(out));
}

// LangGraph's get_subgraphs: the subgraph nodes of `g` in node order, named by namespace
// below `prefix`; with `ns`, only the one it names and those below it (`ns` a namespace
// relative to `g`); with `recurse` (or below `ns`), their subgraphs too.
void collect_subgraphs(const value& graph_id, const pregel& g, const std::string& prefix,
                       std::string_view ns, bool recurse, object& out) {
  for (const pregel_node& node : g.graph().nodes) {
    if (!node.subgraph) continue;
    const std::string name = prefix.empty() ? node.name : prefix + "|" + node.name;
    if (!ns.empty()) {
      if (ns == node.name) {
        out.set(name, subgraph_schemas(graph_id, *node.subgraph));
        return;
      }
      if (ns.substr(0, node.name.size() + 1) != node.name + "|") continue;
      collect_subgraphs(graph_id, *node.subgraph, name, ns.substr(node.name.size() + 1), recurse,
                        out);
      continue;
    }
    out.set(name, subgraph_schemas(graph_id, *node.subgraph));
    if (recurse) collect_subgraphs(graph_id, *node.subgraph, name, "", true, out);
  }
}

}  // namespace

api_response service::assistant_schemas(const std::string& id) {
  const value a = find_assistant(id);
  cluster::loaded_graph g = graph_of(a.get("graph_id").as_string());
  return {200, schemas_of(a.get("graph_id"), *g.graph)};
}

api_response service::assistant_subgraphs(const std::string& id, const std::string& ns,
                                          bool recurse) {
  const value a = find_assistant(id);
  cluster::loaded_graph g = graph_of(a.get("graph_id").as_string());
  object out;
  collect_subgraphs(a.get("graph_id"), *g.graph, "", ns, recurse, out);
  return {200, value(std::move(out))};
}

api_response service::assistant_versions(const std::string& id, const value& body) {
  const value a = find_assistant(id);
  const value stored = *assistants_.get(a.get("assistant_id").as_string());
  const value metadata = object_field(body, "metadata");
  std::vector<value> versions;
  if (const value* v = stored.find("versions"); v && v->is_list())
    for (const value& ver : v->as_list())
      if (metadata_matches(ver.get("metadata"), metadata)) versions.push_back(ver);
  std::stable_sort(versions.begin(), versions.end(), [](const value& x, const value& y) {
    return x.get("version").as_int() > y.get("version").as_int();
  });
  versions =
      page(std::move(versions), count_field(body, "offset", 0), count_field(body, "limit", 10));
  return {200, value(list(versions.begin(), versions.end()))};
}

api_response service::set_latest(const std::string& id, const value& body) {
  const value a = find_assistant(id);
  const std::string real = a.get("assistant_id").as_string();
  object stored = assistants_.get(real)->as_object();
  const value& want = body.get("version");
  if (!want.is_int()) throw api_error{422, "version: expected a number"};
  const value* versions = stored.find("versions");
  if (versions && versions->is_list())
    for (const value& v : versions->as_list())
      if (v.get("version") == want) {
        object now = v.as_object();
        now.set("versions", *versions);
        assistants_.put(real, value(std::move(now)));
        return {200, v};
      }
  throw api_error{404, "Assistant version not found"};
}

}  // namespace superstep::server
