// The server API's runs: created in the background, streamed as server-sent events, or
// waited for; joined, listed, cancelled (server/service.hpp). Each run is a `superstep run`
// (ops::run_graph) on the run pool, whose JSON lines become the stream's events.
#include <algorithm>
#include <chrono>
#include <condition_variable>

#include "ops/operations.hpp"
#include "server/active_run.hpp"
#include "server/api_support.hpp"
#include "server/http_client.hpp"
#include "server/service.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/run_control.hpp"

namespace superstep::server {

namespace {

std::string sse_frame(const std::string& event, const value& data, std::size_t id) {
  std::string out = "event: " + event + "\ndata: ";
  data.to_json(out);
  out += "\nid: " + std::to_string(id) + "\n\n";
  return out;
}

std::string run_location(const active_run& run) {
  return run.temporary ? "/runs/" + run.run_id
                       : "/threads/" + run.thread_id + "/runs/" + run.run_id;
}

// The engine's name of an API stream mode, and the event name the API gives its events.
std::pair<stream_mode, std::string> api_mode(const std::string& name) {
  if (name == "messages-tuple" || name == "messages") return {stream_mode::messages, "messages"};
  if (name == "values") return {stream_mode::values, "values"};
  if (name == "updates") return {stream_mode::updates, "updates"};
  if (name == "custom") return {stream_mode::custom, "custom"};
  if (name == "debug") return {stream_mode::debug, "debug"};
  if (name == "tasks") return {stream_mode::tasks, "tasks"};
  if (name == "checkpoints") return {stream_mode::checkpoints, "checkpoints"};
  throw api_error{422, "stream_mode: unknown mode '" + name +
                           "' (values, updates, messages-tuple, custom, debug, tasks, "
                           "checkpoints)"};
}

// LangGraph's name of the exception class behind an error.
std::string error_class(const error& e) {
  switch (e.code()) {
    case error_code::graph_recursion: return "GraphRecursionError";
    case error_code::invalid_update: return "InvalidUpdateError";
    case error_code::empty_channel: return "EmptyChannelError";
    case error_code::node_timeout: return "NodeTimeoutError";
    case error_code::step_timeout: return "TimeoutError";
    case error_code::cancelled:
    case error_code::run_cancelled: return "CancelledError";
    case error_code::invalid_argument:
    case error_code::invalid_spec:
    case error_code::invalid_graph: return "ValueError";
    default: return exception_class(e);  // a node's: the class of what it threw
  }
}

value run_record(const active_run& run, const value& body, const std::string& status,
                 const std::string& created) {
  object kwargs;
  for (const char* k : {"input", "command", "config", "context", "stream_mode", "interrupt_before",
                        "interrupt_after", "webhook", "checkpoint", "checkpoint_id", "durability",
                        "stream_subgraphs", "after_seconds"})
    kwargs.set(k, body.get(k));
  // The modes as a list, ["values"] when none was asked (as LangGraph Server keeps them).
  const value& modes = body.get("stream_mode");
  kwargs.set("stream_mode", modes.is_list()     ? modes
                            : modes.is_string() ? value(list{modes})
                                                : value(list{value("values")}));
  if (run.temporary) kwargs.set("temporary", true);
  return value(object{
      {"run_id", run.run_id},
      {"thread_id", run.thread_id},
      {"assistant_id", run.assistant_id},
      {"created_at", created},
      {"updated_at", created},
      {"status", status},
      {"metadata", body.get("metadata").is_object() ? body.get("metadata") : value(object{})},
      {"kwargs", value(std::move(kwargs))},
      {"multitask_strategy", body.get("multitask_strategy").is_string()
                                 ? body.get("multitask_strategy")
                                 : value("reject")}});
}

// Merges config objects as LangGraph Server does: keys of `over` win, and `configurable`
// merges key by key.
value merge_config(const value& base, const value& over) {
  object out = base.is_object() ? base.as_object() : object{};
  if (!over.is_object()) return value(std::move(out));
  for (const auto& [k, v] : over.as_object()) {
    if (k == "configurable" && v.is_object() && out.find(k) && out.find(k)->is_object()) {
      object c = out.find(k)->as_object();
      for (const auto& [ck, cv] : v.as_object()) c.set(ck, cv);
      out.set(k, value(std::move(c)));
    } else {
      out.set(k, v);
    }
  }
  return value(std::move(out));
}

}  // namespace

void legacy_message_stream::chunk(
    const value& data, const std::function<void(const std::string&, const value&)>& emit) {
  // data: [message chunk, metadata]
  if (!data.is_list() || data.as_list().size() < 2) return;
  const value& message = data.as_list()[0];
  const value& id = message.get("id");
  if (!id.is_string()) return;
  auto it = partial.find(id.as_string());
  if (it == partial.end()) {
    it = partial.emplace(id.as_string(), message).first;
    emit("messages/metadata",
         value(object{{id.as_string(), object{{"metadata", data.as_list()[1]}}}}));
  } else {
    object merged = it->second.as_object();
    const value& before = it->second.get("content");
    const value& more = message.get("content");
    if (before.is_string() && more.is_string())
      merged.set("content", before.as_string() + more.as_string());
    else if (!more.is_null() && !(more.is_string() && more.as_string().empty()))
      merged.set("content", more);
    it->second = value(std::move(merged));
  }
  emit("messages/partial", value(list{it->second}));
}

void legacy_message_stream::update(
    const value& data, const std::function<void(const std::string&, const value&)>& emit) {
  // data: {node: {messages: [...] or a message}}: each message with an id not seen complete
  if (!data.is_object()) return;
  list done;
  auto take = [&](const value& m) {
    const value& id = m.get("id");
    if (!m.is_object() || !id.is_string() || !completed.insert(id.as_string()).second) return;
    done.push_back(m);
  };
  for (const auto& [node, update] : data.as_object()) {
    const value& messages = update.get("messages");
    if (messages.is_list())
      for (const value& m : messages.as_list()) take(m);
    else if (messages.is_object())
      take(messages);
  }
  if (!done.empty()) emit("messages/complete", value(std::move(done)));
}

namespace {

// A checkpoint event's payload with the API's `checkpoint` and `parent_checkpoint` beside
// its configs, as LangGraph Server gives it.
value with_checkpoints(const value& payload) {
  if (!payload.is_object()) return payload;
  object out = payload.as_object();
  out.set("checkpoint", detail::checkpoint_of(payload.get("config")));
  out.set("parent_checkpoint", detail::checkpoint_of(payload.get("parent_config")));
  return value(std::move(out));
}

}  // namespace

value api_event_data(const std::string& type, const value& data) {
  // State values, a node's update, a messages-tuple pair: their messages as LangChain's.
  if (type == "values" || type == "updates" || type == "messages")
    return detail::langchain_messages(data);
  // A checkpoint's values, a task's input and result ([channel, value] pairs), a debug
  // event's payload of either: two levels further down.
  if (type == "checkpoints") return with_checkpoints(detail::langchain_messages(data, 5));
  if (type == "debug" && data.get("type") == "checkpoint") {
    object out = data.as_object();
    out.set("payload", with_checkpoints(detail::langchain_messages(data.get("payload"), 5)));
    return value(std::move(out));
  }
  if (type == "debug") return detail::langchain_messages(data, 6);
  if (type == "tasks" && data.is_object() && data.find("triggers") && !data.find("interrupts")) {
    object out = detail::langchain_messages(data, 5).as_object();
    out.set("interrupts", list{});  // a task starting: none yet, as LangGraph Server says
    return value(std::move(out));
  }
  if (type == "tasks") return detail::langchain_messages(data, 5);
  return data;
}

header_list detail::sse_headers(const std::string& location) {
  return {{"Content-Type", "text/event-stream"}, {"Cache-Control", "no-cache"},
          {"Connection", "keep-alive"},          {"X-Accel-Buffering", "no"},
          {"Content-Location", location},        {"Location", location + "/stream"}};
}

std::shared_ptr<active_run> service::running(const std::string& run_id) const {
  std::lock_guard lock(runs_mutex_);
  auto it = active_.find(run_id);
  return it == active_.end() ? nullptr : it->second;
}

api_response service::create_run(const std::string& thread_in, const value& body,
                                 const std::string& mode, const std::shared_ptr<http_exchange>& x,
                                 bool& answered, const value* resumed) {
  const std::string wanted =
      body.get("assistant_id").is_string() ? body.get("assistant_id").as_string() : "";
  if (wanted.empty()) throw api_error{422, "assistant_id: required"};
  value assistant;
  try {
    assistant = find_assistant(wanted);
  } catch (const api_error&) {
    throw api_error{404, "No assistant found for \"" + wanted +
                             "\". Make sure the assistant ID is for a valid assistant or a valid "
                             "graph ID."};
  }
  auto run = std::make_shared<active_run>();
  run->run_id = resumed ? resumed->get("run_id").as_string() : uuid4();
  run->assistant_id = assistant.get("assistant_id").as_string();
  run->graph_id = assistant.get("graph_id").as_string();
  run->spec = config_.graphs.at(run->graph_id);
  const std::string strategy = body.get("multitask_strategy").is_string()
                                   ? body.get("multitask_strategy").as_string()
                                   : "reject";
  if (strategy != "reject" && strategy != "interrupt" && strategy != "rollback" &&
      strategy != "enqueue")
    throw api_error{
        422, "multitask_strategy: reject, interrupt, rollback or enqueue, not '" + strategy + "'"};
  const std::string now = now_iso();
  if (resumed) {
    run->thread_id = thread_in;
    run->temporary = resumed->get("kwargs").get("temporary").truthy();
    if (!threads_.get(thread_in)) create_thread(value(object{{"thread_id", thread_in}}));
  } else if (thread_in.empty()) {
    run->temporary = body.get("on_completion") != "keep";
    run->thread_id = uuid4();
    create_thread(value(object{{"thread_id", run->thread_id}}));
  } else {
    run->thread_id = thread_in;
    if (!threads_.get(thread_in)) {
      if (body.get("if_not_exists") != "create")
        throw api_error{404, "Thread with ID " + thread_in + " not found"};
      create_thread(value(object{{"thread_id", thread_in}}));
    }
  }
  const value thread = find_thread(run->thread_id);
  // Admitted on the thread until registered in active_ (below), atomically with the check:
  // runs created at once on an idle thread with reject are taken one only.
  struct admission {
    service& s;
    std::string thread;
    bool held = false;
    void release() {
      if (!held) return;
      s.admitting_.erase(s.admitting_.find(thread));
      held = false;
    }
    ~admission() {
      if (!held) return;
      std::lock_guard lock(s.runs_mutex_);
      release();
    }
  } admitted{*this, run->thread_id};
  {
    std::lock_guard lock(runs_mutex_);
    if (!resumed && strategy == "reject") {
      bool busy = thread.get("status") == "busy" || admitting_.count(run->thread_id) > 0;
      for (const auto& [id, other] : active_) {
        if (busy) break;
        if (other->thread_id != run->thread_id) continue;
        std::lock_guard other_lock(other->mutex);
        busy = !other->done;  // one that ended and is going counts no more
      }
      if (busy)
        throw api_error{409,
                        "Thread is already running a task. Wait for it to finish or choose a "
                        "different multitask strategy."};
    }
    admitting_.insert(run->thread_id);
    admitted.held = true;
  }

  // What the run does: ops::run_graph's arguments.
  ops::run_args& a = run->args;
  a.where.thread = run->thread_id;
  a.run_id = run->run_id;
  a.multitask = strategy;
  const value& command = body.get("command");
  if (command.is_object()) {
    if (command.find("resume")) a.resume = command.get("resume");
    if (command.find("update") && !command.get("update").is_null())
      a.update = command.get("update");
    const value& go = command.get("goto");
    if (go.is_list())
      a.go_to.assign(go.as_list().begin(), go.as_list().end());
    else if (!go.is_null())
      a.go_to.push_back(go);
  } else if (!body.get("input").is_null()) {
    a.input = body.get("input");
  } else if (!data_.saved_graph(run->thread_id)) {
    a.input = value(object{});  // a first run without input starts from an empty state
  }
  const value& cp = body.get("checkpoint");
  if (cp.is_object() && cp.get("checkpoint_id").is_string())
    a.checkpoint = cp.get("checkpoint_id").as_string();
  if (body.get("checkpoint_id").is_string()) a.checkpoint = body.get("checkpoint_id").as_string();
  if (body.get("durability").is_string()) a.durability = body.get("durability").as_string();
  value config =
      merge_config(merge_config(assistant.get("config"), body.get("config")),
                   value(object{{"configurable", object{{"run_id", run->run_id},
                                                        {"thread_id", run->thread_id},
                                                        {"assistant_id", run->assistant_id},
                                                        {"graph_id", run->graph_id}}}}));
  // The run's metadata goes into its checkpoints' (LangGraph's config["metadata"]).
  if (body.get("metadata").is_object()) {
    object c = config.as_object();
    c.set("metadata", merge_config(config.get("metadata"), body.get("metadata")));
    config = value(std::move(c));
  }
  a.config = config;
  // A run the server was carrying out when it stopped goes on from its last checkpoint; one
  // that saved none starts again.
  if (resumed && run_saved_checkpoint(run->thread_id, run->run_id)) {
    a.input.reset();
    a.resume.reset();
    a.update.reset();
    a.go_to.clear();
    a.checkpoint.clear();
  }
  a.context = merge_config(assistant.get("context"), body.get("context"));
  if (a.context.is_object() && a.context.as_object().empty()) a.context = value();
  a.subgraphs = body.get("stream_subgraphs").truthy();
  for (const char* key : {"interrupt_before", "interrupt_after"}) {
    const value& v = body.get(key);
    if (v.is_null()) continue;
    std::vector<std::string> nodes;
    if (v.is_string()) {
      if (v.as_string() != "*")
        throw api_error{422, std::string(key) + ": \"*\" or a list of node names"};
      nodes.push_back("*");
    } else if (v.is_list()) {
      for (const value& n : v.as_list()) {
        if (!n.is_string()) throw api_error{422, std::string(key) + ": node names are strings"};
        nodes.push_back(n.as_string());
      }
    } else {
      throw api_error{422, std::string(key) + ": \"*\" or a list of node names"};
    }
    (std::string(key) == "interrupt_before" ? a.interrupt_before : a.interrupt_after) =
        std::move(nodes);
  }
  std::vector<std::string> modes;
  const value& sm = body.get("stream_mode");
  if (sm.is_string())
    modes.push_back(sm.as_string());
  else if (sm.is_list())
    for (const value& m : sm.as_list())
      if (m.is_string()) modes.push_back(m.as_string());
  if (modes.empty()) modes.push_back("values");
  auto want = [&](stream_mode engine) {
    if (std::find(a.modes.begin(), a.modes.end(), engine) == a.modes.end())
      a.modes.push_back(engine);
  };
  const bool updates_asked = std::find(modes.begin(), modes.end(), "updates") != modes.end();
  for (const std::string& m : modes) {
    if (m == "events") continue;  // LangChain's callback events: not produced here
    if (m == "messages") {
      // The legacy mode: messages/metadata, messages/partial and messages/complete, made
      // from the model's chunks and the nodes' updates (server/runs.cpp, legacy_messages).
      run->legacy_messages = std::make_shared<legacy_message_stream>();
      want(stream_mode::messages);
      want(stream_mode::updates);
      run->hide_updates = !updates_asked;
      continue;
    }
    if (m == "messages-tuple") run->tuple_messages = true;
    want(api_mode(m).first);
  }
  if (mode != "stream" &&
      std::find(a.modes.begin(), a.modes.end(), stream_mode::values) == a.modes.end())
    a.modes.push_back(stream_mode::values);  // joined streams see the run's values
  run->cancel_on_disconnect = body.get("on_disconnect") == "cancel";
  run->resumable = body.get("stream_resumable").truthy();
  const value& after = body.get("after_seconds");
  run->not_before = std::chrono::steady_clock::now();
  if (after.is_number())
    run->not_before += std::chrono::milliseconds(static_cast<long long>(after.as_double() * 1000));

  // The run pending and its thread busy, written as one.
  record_batch created;
  created.put(runs_, run->run_id,
              run_record(*run, body, "pending",
                         resumed ? resumed->get("created_at").as_string() : now));
  set_thread(run->thread_id, [&](object& t) {
    object metadata = t.find("metadata") && t.find("metadata")->is_object()
                          ? t.find("metadata")->as_object()
                          : object{};
    metadata.set("graph_id", run->graph_id);
    metadata.set("assistant_id", run->assistant_id);
    t.set("metadata", value(std::move(metadata)));
    t.set("status", "busy");
  }, &created);
  created.commit();
  std::vector<std::shared_ptr<active_run>> replaced;  // runs this one interrupts or rolls back
  {
    std::lock_guard lock(runs_mutex_);
    if (stopping_) throw api_error{503, "The server is shutting down"};
    if (strategy == "interrupt" || strategy == "rollback")
      for (const auto& [id, other] : active_)
        if (other->thread_id == run->thread_id) replaced.push_back(other);
    active_[run->run_id] = run;
    admitted.release();
  }
  // As LangGraph Server does, a run replaced is cancelled at once (its running tasks are told
  // through their stop token), and this one starts when it has ended; one still pending ends
  // now. Rolled back, its record and its checkpoints go (finish_run).
  for (const auto& other : replaced)
    cancel_active(other, strategy,
                  "replaced by run " + run->run_id + " (multitask " + strategy + ")");

  const std::string location = run_location(*run);
  // Every stream of the run, joined now or later, begins with its metadata (event 0).
  run->frames.push_back(
      sse_frame("metadata", value(object{{"run_id", run->run_id}, {"attempt", 1}}), 0));
  if (mode == "stream") {
    answered = true;
    std::lock_guard lock(run->mutex);
    x->start(200, detail::sse_headers(location));
    x->write(run->frames.front());
    run->streams.push_back(x);
    if (run->cancel_on_disconnect)
      x->on_gone([weak = std::weak_ptr<active_run>(run)] {
        if (auto r = weak.lock()) r->control->request_cancel("the client went away");
      });
  } else if (mode == "wait") {
    answered = true;
    std::lock_guard lock(run->mutex);
    // Answered at once and kept alive with a newline now and then (heartbeat) until the
    // output comes, as LangGraph Server does: no proxy times the request out.
    x->start(200, {{"Content-Type", "application/json"}, {"Content-Location", location}});
    run->kept_alive.push_back(x);
    run->waiters.push_back([x](const value& result) {  // runs/wait's answer
      x->write(result.to_json());
      x->end();
    });
    if (run->cancel_on_disconnect)
      x->on_gone([weak = std::weak_ptr<active_run>(run)] {
        if (auto r = weak.lock()) r->control->request_cancel("the client went away");
      });
  }
  {
    // One run at a time on a thread: the others wait in its queue, holding no thread.
    std::lock_guard lock(runs_mutex_);
    bool busy = false;
    for (const auto& [id, other] : active_)
      busy = busy || (other != run && other->thread_id == run->thread_id);
    if (busy)
      waiting_[run->thread_id].push_back(run);
    else
      dispatch_locked(run);
  }
  if (mode == "background") return {200, *runs_.get(run->run_id), {{"Content-Location", location}}};
  return {};
}

bool service::run_saved_checkpoint(const std::string& thread_id, const std::string& run_id) const {
  if (!data_.saved_graph(thread_id)) return false;
  list_options o;
  o.filter = object{{"run_id", run_id}};
  o.limit = 1;
  return !data_.saver()->list(checkpoint_config{thread_id, "", ""}, o).empty();
}

void service::resume_runs() {
  std::vector<value> left = runs_.where([](const value& r) {
    const value& s = r.get("status");
    return s == "pending" || s == "running";
  });
  std::sort(left.begin(), left.end(), [](const value& a, const value& b) {
    return a.get("created_at").as_string() < b.get("created_at").as_string();
  });
  for (const value& rec : left) {
    const std::string run_id = rec.get("run_id").as_string();
    object body = rec.get("kwargs").is_object() ? rec.get("kwargs").as_object() : object{};
    body.erase("after_seconds");  // its time has come
    body.set("assistant_id", rec.get("assistant_id"));
    body.set("metadata", rec.get("metadata"));
    body.set("multitask_strategy", "enqueue");  // after the runs before it, as they were queued
    bool answered = false;
    try {
      create_run(rec.get("thread_id").as_string(), value(std::move(body)), "background", nullptr,
                 answered, &rec);
      log_("run " + run_id + " (left by a server that stopped) goes on");
    } catch (...) {
      std::string why;
      try {
        throw;
      } catch (const api_error& e) {
        why = e.message;
      } catch (const std::exception& e) {
        why = e.what();
      }
      log_("run " + run_id + " (left by a server that stopped) cannot go on: " + why);
      object changed = rec.as_object();
      changed.set("status", "error");
      changed.set("updated_at", now_iso());
      runs_.put(run_id, value(std::move(changed)));
      set_thread(rec.get("thread_id").as_string(), [](object& t) {
        if (t.find("status") && t.find("status")->is_string() &&
            t.find("status")->as_string() == "busy")
          t.set("status", "error");
      });
    }
  }
}

void service::heartbeat() {
  std::unique_lock lock(runs_mutex_);
  while (!stopping_) {
    heartbeat_due_.wait_for(lock, heartbeat_every);
    if (stopping_) break;
    std::vector<std::shared_ptr<active_run>> runs;
    for (const auto& [id, run] : active_) runs.push_back(run);
    for (const auto& [thread, streams] : thread_streams_)
      for (const auto& s : streams) s->write(": heartbeat\n\n");
    lock.unlock();
    for (const auto& run : runs) {
      std::lock_guard run_lock(run->mutex);
      if (run->done) continue;
      // An SSE comment, which the SDK reads as a heartbeat (and sizes its idle reconnect by);
      // whitespace before a JSON answer.
      for (const auto& s : run->streams) s->write(": heartbeat\n\n");
      for (const auto& w : run->kept_alive) w->write("\n");
    }
    lock.lock();
  }
}

void service::start_scheduled() {
  std::unique_lock lock(runs_mutex_);
  while (!stopping_) {
    if (scheduled_.empty()) {
      scheduled_changed_.wait(lock);
      continue;
    }
    const auto due = scheduled_.begin()->first;
    if (std::chrono::steady_clock::now() < due) {
      scheduled_changed_.wait_until(lock, due);
      continue;
    }
    std::shared_ptr<active_run> run = scheduled_.begin()->second;
    scheduled_.erase(scheduled_.begin());
    run_pool_.post([this, run] { execute(run); });
  }
}

void service::shutdown() {
  std::vector<std::shared_ptr<active_run>> runs;
  {
    std::lock_guard lock(runs_mutex_);
    stopping_ = true;
    for (const auto& [id, run] : active_) runs.push_back(run);
    scheduled_changed_.notify_all();
    heartbeat_due_.notify_all();
  }
  // Each stops once its current step is saved; the thread goes on from there next time.
  for (const auto& run : runs) run->control->request_drain("the server is stopping");
}

void service::execute(const std::shared_ptr<active_run>& run) {
  {
    std::lock_guard lock(run->mutex);
    if (run->done || run->started) return;  // cancelled while pending
    run->started = true;
    run->status = "running";
    run->started_at = now_iso();
  }
  attach_thread_streams(run);
  // Running in memory only: a server that starts again carries out its pending and running
  // runs alike (resume_runs), so the database need not tell them apart.
  if (auto rec = runs_.get(run->run_id)) {
    object r = rec->as_object();
    r.set("status", "running");
    r.set("updated_at", now_iso());
    runs_.put_in_memory(run->run_id, value(std::move(r)));
  }
  std::size_t next_id = 1;
  ops::command_env env = ops_env();
  env.spec_text = spec_text_of(run->graph_id);
  try {  // else run_graph loads it, and tells why it cannot as the run's error
    env.graph = graph_of(run->graph_id);
  } catch (const std::exception&) {
  }
  env.control = run->control;
  env.note = [this](const std::string& text) { log_("note: " + text); };
  env.final_state = [&run](const state_snapshot& s) {
    run->final_state = detail::thread_state_of(s.to_value());
  };
  value final_line;
  env.print = [&](const value& line) {
    const std::string type = line.get("type").is_string() ? line.get("type").as_string() : "";
    if (type == "output" || type == "interrupt") {
      final_line = line;
      return;
    }
    std::string ns_suffix;
    if (const value& ns = line.get("ns"); ns.is_list() && !ns.as_list().empty())
      for (const value& part : ns.as_list()) ns_suffix += "|" + part.as_string();
    std::lock_guard lock(run->mutex);
    auto emit = [&](const std::string& event, const value& data) {
      const std::string frame = sse_frame(event + ns_suffix, data, next_id++);
      run->frames.push_back(frame);
      for (const auto& s : run->streams) s->write(frame);
      for (const auto& s : run->thread_streams) s->write(frame);
    };
    const value data = api_event_data(type, line.get("data"));
    if (run->legacy_messages) {
      if (type == "messages") {
        run->legacy_messages->chunk(data, emit);
        if (!run->tuple_messages) return;
      } else if (type == "updates") {
        run->legacy_messages->update(data, emit);
        if (run->hide_updates) return;
      }
    }
    emit(type, data);
  };
  std::string status = "success";
  value result;
  try {
    // A run that stops at an interrupt succeeded; its thread is the one interrupted.
    const bool interrupted = ops::run_graph(env, run->args) == ops::exit_interrupted;
    object values =
        final_line.get("data").is_object() ? final_line.get("data").as_object() : object{};
    if (interrupted && final_line.get("interrupts").is_list() &&
        !final_line.get("interrupts").as_list().empty())
      values.set("__interrupt__", final_line.get("interrupts"));
    result = detail::langchain_messages(value(std::move(values)));
  } catch (const error& e) {
    const bool cancelled =
        e.code() == error_code::cancelled || e.code() == error_code::run_cancelled;
    status = cancelled ? "interrupted" : "error";
    result = value(object{
        {"__error__", object{{"error", error_class(e)}, {"message", std::string(e.what())}}}});
  } catch (const std::exception& e) {
    status = "error";
    result = value(object{
        {"__error__", object{{"error", exception_class(e)}, {"message", std::string(e.what())}}}});
  }
  {
    std::lock_guard lock(run->mutex);
    run->status = status;
    run->result = result;
    // A run cancelled with action interrupt (a cancel, a multitask interrupt) just ends, as
    // LangGraph Server's stream does; one that failed or was rolled back says why.
    if (status == "error" || (status == "interrupted" && result.find("__error__") &&
                              run->cancel_action != "interrupt")) {
      const value& e = result.get("__error__");
      const std::string frame = sse_frame("error", e, next_id++);
      run->frames.push_back(frame);
      for (const auto& s : run->streams) s->write(frame);
      for (const auto& s : run->thread_streams) s->write(frame);
    }
  }
  finish_run(run);
}

void service::finish_run(const std::shared_ptr<active_run>& run) {
  std::string status;
  value result;
  {
    std::lock_guard lock(run->mutex);
    status = run->status;
    result = run->result;
  }
  // The run's record and its thread are final before anyone is told it ended: a client that
  // joins or reads the thread next sees what the run left.
  bool rolled_back = false;
  {
    std::lock_guard lock(run->mutex);
    rolled_back = run->cancel_action == "rollback";
  }
  // The run's final status and its thread's, written as one (below). A run rolled back is
  // never seen ended: its record goes without a final status.
  record_batch ended;
  if (auto rec = runs_.get(run->run_id); rec && !rolled_back) {
    object r = rec->as_object();
    r.set("status", status);
    r.set("updated_at", now_iso());
    ended.put(runs_, run->run_id, value(std::move(r)));
  }
  if (rolled_back) {  // as if it never ran: its record and what it saved go
    runs_.erase(run->run_id);
    try {  // the run's checkpoints, found in its thread alone
      list_options o;
      o.every_namespace = true;
      o.filter = object{{"run_id", run->run_id}};
      std::vector<checkpoint_config> saved;
      for (auto& tuple : data_.saver()->list(checkpoint_config{run->thread_id, "", ""}, o))
        saved.push_back(std::move(tuple.config));
      if (!saved.empty()) data_.saver()->delete_checkpoints(run->thread_id, saved);
    } catch (const std::exception& e) {
      log_("rollback of run " + run->run_id + ": its checkpoints stay: " + e.what());
    }
  }
  // The thread as its last checkpoint leaves it: as the run told it, unless the run failed or
  // what it saved was removed.
  std::optional<value> state;
  if (run->final_state && !rolled_back)
    state = std::move(run->final_state);
  else
    try {
      state = read_state(run->thread_id, "", false);
    } catch (const std::exception&) {
    }
  bool others = false;  // another run waits for the thread or holds it
  bool cancelled = false;
  {
    std::lock_guard lock(run->mutex);
    cancelled = !run->cancel_action.empty();
  }
  {
    std::lock_guard lock(runs_mutex_);
    for (const auto& [id, other] : active_)
      others = others || (other != run && other->thread_id == run->thread_id);
  }
  set_thread(run->thread_id, [&](object& t) {
    std::string thread_status = others ? "busy" : status == "error" ? "error" : "idle";
    object interrupts;
    if (state) {
      t.set("values", state->get("values"));
      for (const value& task : state->get("tasks").as_list())
        if (!task.get("interrupts").as_list().empty())
          interrupts.set(task.get("id").as_string(), task.get("interrupts"));
      // Stopped at an interrupt or a breakpoint; not a run that was cancelled (its thread is
      // idle again, as LangGraph Server leaves it).
      if (!others && status != "error" && !cancelled && !state->get("next").as_list().empty())
        thread_status = "interrupted";
    }
    t.set("interrupts", value(std::move(interrupts)));
    t.set("status", thread_status);
  }, &ended);
  try {
    ended.commit();
  } catch (const std::exception& e) {  // the run ends for its clients all the same
    log_("run " + run->run_id + ": its end was not saved: " + e.what());
  }
  if (!rolled_back) send_webhook(run, status, result, state);
  if (run->temporary) {
    try {
      delete_thread(run->thread_id);
    } catch (const std::exception&) {
    }
  }
  std::vector<std::shared_ptr<http_exchange>> streams;
  std::vector<std::function<void(const value&)>> waiters;
  std::vector<std::string> resumable_frames;  // kept for streams that come back
  {
    std::lock_guard lock(run->mutex);
    run->done = true;
    if (run->resumable) resumable_frames = run->frames;
    streams.swap(run->streams);
    run->kept_alive.clear();
    waiters.swap(run->waiters);
  }
  run->ended.notify_all();
  for (const auto& s : streams) s->end();
  for (const auto& w : waiters) w(result);
  std::lock_guard lock(runs_mutex_);
  active_.erase(run->run_id);
  if (run->resumable) keep_events(run->run_id, std::move(resumable_frames));
  // A run that waited its turn leaves the queue; the thread's run hands it to the next.
  auto queue = waiting_.find(run->thread_id);
  if (queue == waiting_.end()) return;
  auto& q = queue->second;
  if (auto it = std::find(q.begin(), q.end(), run); it != q.end()) {
    q.erase(it);
  } else if (!q.empty()) {
    dispatch_locked(q.front());
    q.pop_front();
  }
  if (q.empty()) waiting_.erase(queue);
}

void service::send_webhook(const std::shared_ptr<active_run>& run, const std::string& status,
                           const value& result, const std::optional<value>& state) {
  auto rec = runs_.get(run->run_id);
  if (!rec) return;
  const value& hook = rec->get("kwargs").get("webhook");
  if (!hook.is_string() || hook.as_string().empty()) return;
  // As LangGraph Server posts it: the run, when it ran, the thread's values and the error.
  object payload = rec->as_object();
  payload.set("status", status);
  {
    std::lock_guard lock(run->mutex);
    payload.set("run_started_at", run->started_at.empty() ? value() : value(run->started_at));
  }
  payload.set("run_ended_at", now_iso());
  payload.set("values", state ? state->get("values") : value());
  if (const value& e = result.get("__error__"); e.is_object())
    payload.set("error", e.get("message"));
  std::string url = hook.as_string();
  if (!url.empty() && url.front() == '/') url = self_url_ + url;  // a route of this server
  webhooks_.post([this, url, payload = std::move(payload), id = run->run_id]() mutable {
    payload.set("webhook_sent_at", now_iso());
    try {
      const int code = http_post_json(url, value(std::move(payload)).to_json());
      if (code >= 300)
        log_("webhook of run " + id + ": " + url + " answered " + std::to_string(code));
    } catch (const std::exception& e) {
      log_("webhook of run " + id + ": " + e.what());
    }
  });
}

void service::dispatch_locked(const std::shared_ptr<active_run>& run) {
  if (stopping_) return;  // left pending: it goes on when the server starts again
  if (run->not_before <= std::chrono::steady_clock::now()) {
    run_pool_.post([this, run] { execute(run); });
  } else {
    scheduled_.emplace(run->not_before, run);
    scheduled_changed_.notify_one();
  }
}

}  // namespace superstep::server
