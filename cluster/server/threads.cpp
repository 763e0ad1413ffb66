// The server API's threads: create, search, read, change, delete; their state and history
// through ops/ (server/service.hpp).
#include <set>

#include "ops/operations.hpp"
#include "ops/support.hpp"
#include "server/active_run.hpp"
#include "server/api_support.hpp"
#include "server/service.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/pregel.hpp"

namespace superstep::server {

using detail::count_field;
using detail::merged;
using detail::object_field;
using detail::string_field;
using detail::thread_state_of;

// ---- threads ------------------------------------------------------------------------------

value service::find_thread(const std::string& id) const {
  if (auto t = threads_.get(id)) return *t;
  throw api_error{404, "Thread with ID " + id + " not found"};
}

void service::set_thread(const std::string& id, const std::function<void(object&)>& change,
                         record_batch* batch) {
  auto t = threads_.get(id);
  if (!t) return;
  object o = t->as_object();
  change(o);
  o.set("updated_at", now_iso());
  if (batch)
    batch->put(threads_, id, value(std::move(o)));
  else
    threads_.put(id, value(std::move(o)));
}

api_response service::create_thread(const value& body) {
  std::string id = string_field(body, "thread_id");
  if (id.empty()) id = uuid4();
  if (auto existing = threads_.get(id)) {
    if (string_field(body, "if_exists") == "do_nothing") return {200, *existing};
    throw api_error{409, "Thread already exists"};
  }
  const value metadata = object_field(body, "metadata");
  const value& supersteps = body.get("supersteps");
  if (!supersteps.is_null() && !supersteps.is_list())
    throw api_error{422, "supersteps: a list of {\"updates\": [...]}"};
  const std::string now = now_iso();
  value t(object{{"thread_id", id},
                 {"created_at", now},
                 {"updated_at", now},
                 {"metadata", metadata},
                 {"status", "idle"},
                 {"config", object{}}});
  if (supersteps.is_list() && !supersteps.as_list().empty()) {
    const value& graph_id = metadata.get("graph_id");
    if (!graph_id.is_string() || !config_.graphs.count(graph_id.as_string()))
      throw api_error{422, "supersteps: the thread's metadata.graph_id must name a graph"};
    apply_supersteps(id, graph_id.as_string(), supersteps);
    threads_.put(id, t);
    if (auto state = read_state(id, "", false))
      set_thread(id, [&](object& o) {
        o.set("values", state->get("values"));
        o.set("status", state->get("next").as_list().empty() ? "idle" : "interrupted");
      });
    return {200, find_thread(id)};
  }
  threads_.put(id, t);
  return {200, t};
}

void service::apply_supersteps(const std::string& id, const std::string& graph_id,
                               const value& supersteps) {
  std::vector<std::vector<state_update>> steps;
  for (std::size_t i = 0; i < supersteps.as_list().size(); ++i) {
    const std::string where = "supersteps[" + std::to_string(i) + "]";
    const value& updates = supersteps.as_list()[i].get("updates");
    if (!updates.is_list()) throw api_error{422, where + ".updates: a list of updates"};
    std::vector<state_update>& step = steps.emplace_back();
    for (const value& u : updates.as_list()) {
      if (!u.is_object()) throw api_error{422, where + ".updates: each update is an object"};
      state_update one;
      const value& command = u.get("command");
      one.values = command.is_object() ? value(object{{"__command__", command}}) : u.get("values");
      if (u.get("as_node").is_string()) one.as_node = u.get("as_node").as_string();
      step.push_back(std::move(one));
    }
  }
  data_.save_graph_text(id, config_.graphs.at(graph_id).to_json());
  graph_of(graph_id).graph->bulk_update_state(
      value(object{{"configurable", object{{"thread_id", id}, {"checkpoint_ns", ""}}}}), steps);
}

api_response service::search_threads(const value& body, bool count_only) {
  const value metadata = object_field(body, "metadata");
  const value values = object_field(body, "values");
  const std::string status = string_field(body, "status");
  const value& ids = body.get("ids");
  std::set<std::string> wanted;
  if (ids.is_list())
    for (const value& i : ids.as_list())
      if (i.is_string()) wanted.insert(i.as_string());
  std::vector<value> found = threads_.where([&](const value& t) {
    return metadata_matches(t.get("metadata"), metadata) &&
           metadata_matches(t.get("values"), values) &&
           (status.empty() || t.get("status") == status) &&
           (wanted.empty() || wanted.count(t.get("thread_id").as_string()));
  });
  if (count_only) return {200, value(static_cast<std::int64_t>(found.size()))};
  return detail::search_page(std::move(found), body, "created_at",
                             [](const value& t) { return t; });
}

api_response service::patch_thread(const std::string& id, const value& body) {
  find_thread(id);
  const value metadata = object_field(body, "metadata");
  set_thread(id, [&](object& t) {
    t.set("metadata", merged(t.find("metadata") ? *t.find("metadata") : value(), metadata));
  });
  return {200, find_thread(id)};
}

api_response service::delete_thread(const std::string& id) {
  find_thread(id);
  threads_.erase(id);
  for (const value& run : runs_.where([&](const value& r) { return r.get("thread_id") == id; }))
    runs_.erase(run.get("run_id").as_string());
  for (const value& c : crons_.where([&](const value& c) { return c.get("thread_id") == id; }))
    crons_.erase(c.get("cron_id").as_string());
  data_.saver()->delete_thread(id);
  data_.forget_graph(id);
  return {204, value()};
}

api_response service::copy_thread(const std::string& id) {
  const value source = find_thread(id);
  const std::string copy = uuid4();
  const std::string now = now_iso();
  object t = source.as_object();
  object metadata =
      source.get("metadata").is_object() ? source.get("metadata").as_object() : object{};
  metadata.set("thread_id", copy);
  t.set("thread_id", copy);
  t.set("created_at", now);
  t.set("updated_at", now);
  t.set("metadata", value(std::move(metadata)));
  t.set("status", "idle");
  t.set("interrupts", object{});
  if (auto spec = data_.saved_graph(id)) {
    data_.saver()->copy_thread(id, copy);
    data_.save_graph(copy, *spec);
    if (auto state = read_state(copy, "", false)) {
      t.set("values", state->get("values"));
      if (!state->get("next").as_list().empty()) t.set("status", "interrupted");
    }
  }
  threads_.put(copy, value(t));
  return {200, value(std::move(t))};
}

api_response service::prune_threads(const value& body) {
  const value& ids = body.get("thread_ids");
  if (!ids.is_list()) throw api_error{422, "thread_ids: a list of thread ids"};
  const std::string strategy =
      body.get("strategy").is_string() ? body.get("strategy").as_string() : "delete";
  if (strategy != "delete" && strategy != "keep_latest")
    throw api_error{422, "strategy: delete or keep_latest, not '" + strategy + "'"};
  std::int64_t pruned = 0;
  std::vector<std::string> keep;
  for (const value& v : ids.as_list()) {
    if (!v.is_string()) throw api_error{422, "thread_ids: each id is a string"};
    const std::string& id = v.as_string();
    if (!threads_.get(id)) continue;
    if (strategy == "delete") {
      delete_thread(id);
    } else {
      keep.push_back(id);
    }
    ++pruned;
  }
  if (!keep.empty()) data_.saver()->prune(keep, 1);
  return {200, value(object{{"pruned_count", pruned}})};
}

std::optional<value> service::read_state(const std::string& thread_id,
                                         const std::string& checkpoint_id, bool subgraphs,
                                         const std::string& checkpoint_ns) const {
  if (!data_.saved_graph(thread_id)) return std::nullopt;
  ops::command_env env = ops_env();
  value line;
  env.print = [&](const value& v) { line = v; };
  ops::state_args args;
  args.where.thread = thread_id;
  args.checkpoint = checkpoint_id;
  args.subgraphs = subgraphs;
  args.checkpoint_ns = checkpoint_ns;
  try {
    ops::show_state(env, args);
  } catch (const error& e) {
    if (e.code() == error_code::not_found && checkpoint_id.empty()) return std::nullopt;
    throw;
  }
  return thread_state_of(line);
}

api_response service::thread_state(const std::string& id, const std::string& checkpoint_id,
                                   bool subgraphs, const std::string& checkpoint_ns) {
  find_thread(id);
  if (auto state = read_state(id, checkpoint_id, subgraphs, checkpoint_ns)) return {200, *state};
  if (!checkpoint_id.empty()) throw api_error{404, "Checkpoint " + checkpoint_id + " not found"};
  return {200, value(object{{"values", object{}},
                            {"next", list{}},
                            {"tasks", list{}},
                            {"metadata", object{}},
                            {"created_at", value()},
                            {"checkpoint", value()},
                            {"parent_checkpoint", value()}})};
}

api_response service::update_thread_state(const std::string& id, const value& body) {
  const value t = find_thread(id);
  {
    std::lock_guard lock(runs_mutex_);
    for (const auto& [run_id, run] : active_)
      if (run->thread_id == id) throw api_error{409, "Thread is busy"};
  }
  ops::command_env env = ops_env();
  value line;
  env.print = [&](const value& v) { line = v; };
  ops::update_args args;
  args.where.thread = id;
  args.values = body.get("values");
  if (body.get("as_node").is_string()) args.as_node = body.get("as_node").as_string();
  const value& cp = body.get("checkpoint");
  if (cp.is_object()) {
    args.checkpoint = string_field(cp, "checkpoint_id");
    args.checkpoint_ns = string_field(cp, "checkpoint_ns");
  }
  if (body.get("checkpoint_id").is_string())
    args.checkpoint = body.get("checkpoint_id").as_string();
  if (!read_state(id, "", false)) {
    // A thread without checkpoints takes the graph of the assistant its metadata names (as
    // its runs set it), and the update makes its first checkpoint.
    if (!args.checkpoint.empty())
      throw api_error{404, "Checkpoint " + args.checkpoint + " not found"};
    const value& graph_id = t.get("metadata").get("graph_id");
    if (!graph_id.is_string())
      throw api_error{409,
                      "Thread " + id + " has no graph yet: run it once before updating its state"};
    auto graph = config_.graphs.find(graph_id.as_string());
    if (graph == config_.graphs.end())
      throw api_error{422, "Thread " + id + ": its metadata.graph_id '" + graph_id.as_string() +
                               "' is not a graph this server serves"};
    data_.save_graph_text(id, graph->second.to_json());
    line =
        graph_of(graph_id.as_string())
            .graph->update_state(
                value(object{{"configurable", object{{"thread_id", id}, {"checkpoint_ns", ""}}}}),
                args.values, args.as_node);
  } else {
    ops::update_state(env, args);
  }
  if (auto state = read_state(id, "", false))
    set_thread(id, [&](object& o) {
      o.set("values", state->get("values"));
      o.set("status", state->get("next").as_list().empty() ? "idle" : "interrupted");
    });
  const value& c = line.get("configurable");
  return {200, value(object{{"checkpoint", object{{"thread_id", id},
                                                  {"checkpoint_ns", args.checkpoint_ns},
                                                  {"checkpoint_id", c.get("checkpoint_id")}}}})};
}

api_response service::thread_history(const std::string& id, const value& body) {
  find_thread(id);
  if (!data_.saved_graph(id)) return {200, value(list{})};
  ops::command_env env = ops_env();
  list states;
  env.print = [&](const value& v) { states.push_back(thread_state_of(v)); };
  ops::history_args args;
  args.where.thread = id;
  args.limit = count_field(body, "limit", 10);
  // `before`: a config ({"configurable": {...}}), a checkpoint ({checkpoint_id, ...}, as
  // RemoteGraph and the Python SDK send it) or an id.
  const value& before = body.get("before");
  if (before.is_object())
    args.before = string_field(
        before.find("configurable") ? before.get("configurable") : before, "checkpoint_id");
  if (before.is_string()) args.before = before.as_string();
  // The SDK's `checkpoint` names a subgraph's checkpoints by their namespace; with an id, that
  // checkpoint alone, as a saver's list filtered by it gives.
  if (const value& cp = body.get("checkpoint"); cp.is_object()) {
    args.checkpoint_ns = string_field(cp, "checkpoint_ns");
    if (const std::string only = string_field(cp, "checkpoint_id"); !only.empty()) {
      list one;
      try {
        if (auto state = read_state(id, only, false, args.checkpoint_ns))
          one.push_back(std::move(*state));
      } catch (const error& e) {
        if (e.code() != error_code::not_found) throw;
      }
      return {200, value(std::move(one))};
    }
  }
  const value filter = object_field(body, "metadata");
  args.filter = filter.as_object();
  try {
    ops::show_history(env, args);
  } catch (const error& e) {
    if (e.code() != error_code::not_found) throw;
  }
  return {200, value(std::move(states))};
}

}  // namespace superstep::server
