// The server API's runs once made: listed, read, deleted, cancelled, joined (whole or as
// their event stream) (server/service.hpp).
#include <algorithm>

#include "server/active_run.hpp"
#include "server/api_support.hpp"
#include "server/service.hpp"

namespace superstep::server {

api_response service::list_runs(const std::string& thread_id, const http_request& r) {
  find_thread(thread_id);
  const std::string status = r.query_value("status");
  std::vector<value> found = runs_.where([&](const value& run) {
    return run.get("thread_id") == thread_id && (status.empty() || run.get("status") == status);
  });
  std::stable_sort(found.begin(), found.end(), [](const value& a, const value& b) {
    return a.get("created_at").as_string() > b.get("created_at").as_string();
  });
  const std::size_t offset = detail::query_count(r, "offset", 0),
                    limit = detail::query_count(r, "limit", 10);
  found = detail::page(std::move(found), offset, limit);
  return {200, value(list(found.begin(), found.end()))};
}

api_response service::get_run(const std::string& thread_id, const std::string& run_id) {
  auto rec = runs_.get(run_id);
  if (!rec || rec->get("thread_id") != thread_id) throw api_error{404, "Run not found"};
  return {200, *rec};
}

api_response service::delete_run(const std::string& thread_id, const std::string& run_id) {
  get_run(thread_id, run_id);
  if (auto run = running(run_id)) {
    std::lock_guard lock(run->mutex);
    if (run->started && !run->done) throw api_error{409, "Run " + run_id + " is still running"};
  }
  runs_.erase(run_id);
  return {204, value()};
}

bool service::cancel_active(const std::shared_ptr<active_run>& run, const std::string& action,
                            const std::string& reason) {
  bool pending = false;
  {
    std::lock_guard lock(run->mutex);
    if (run->done) return false;
    run->cancel_action = action;
    if (!run->started) {
      pending = true;
      run->started = true;  // claimed: execute() will not start it
      run->status = "interrupted";
      run->result =
          value(object{{"__error__", object{{"error", "CancelledError"}, {"message", reason}}}});
    }
  }
  if (pending) {
    finish_run(run);  // rolled back, it erases the run's record
  } else {
    run->control->request_cancel(reason);
  }
  return true;
}

namespace {

std::string cancel_action_of(const http_request& r) {
  const std::string action = r.has_query("action") ? r.query_value("action") : "interrupt";
  if (action != "interrupt" && action != "rollback")
    throw api_error{422, "action: interrupt or rollback, not '" + action + "'"};
  return action;
}

}  // namespace

api_response service::cancel_run(const std::string& thread_id, const std::string& run_id,
                                 const http_request& r, const std::shared_ptr<http_exchange>& x,
                                 bool& answered) {
  get_run(thread_id, run_id);
  const std::string action = cancel_action_of(r);
  const bool wait = r.query_value("wait") == "true" || r.query_value("wait") == "1";
  auto run = running(run_id);
  if (!run) return {wait ? 204 : 202, value()};
  if (wait) {
    std::lock_guard lock(run->mutex);
    if (run->started && !run->done) {
      answered = true;
      run->waiters.push_back([x](const value&) { x->send(204, {}, ""); });
    }
  }
  cancel_active(run, action);
  if (answered) return {};
  return {wait ? 204 : 202, value()};
}

api_response service::cancel_runs(const value& body, const http_request& r) {
  const std::string action = cancel_action_of(r);
  const std::string thread_id = detail::string_field(body, "thread_id");
  const std::string status = detail::string_field(body, "status");
  const value& ids = body.get("run_ids");
  if (!ids.is_null() && !ids.is_list()) throw api_error{422, "run_ids: a list of run ids"};
  if (!status.empty() && status != "pending" && status != "running" && status != "all")
    throw api_error{422, "status: pending, running or all, not '" + status + "'"};
  if (ids.is_null() && thread_id.empty() && status.empty())
    throw api_error{422, "run_ids, thread_id or status: say which runs to cancel"};
  std::vector<std::shared_ptr<active_run>> chosen;
  if (ids.is_list()) {
    for (const value& id : ids.as_list()) {
      if (!id.is_string()) throw api_error{422, "run_ids: each id is a string"};
      auto rec = runs_.get(id.as_string());
      if (!rec || (!thread_id.empty() && rec->get("thread_id") != thread_id))
        throw api_error{404, "Run " + id.as_string() + " not found"};
      if (auto run = running(id.as_string())) chosen.push_back(run);
    }
  } else {
    if (!thread_id.empty()) find_thread(thread_id);
    std::lock_guard lock(runs_mutex_);
    for (const auto& [id, run] : active_) {
      if (!thread_id.empty() && run->thread_id != thread_id) continue;
      std::lock_guard run_lock(run->mutex);
      const bool started = run->started;
      if (status == "pending" && started) continue;
      if (status == "running" && !started) continue;
      chosen.push_back(run);
    }
  }
  for (const auto& run : chosen) cancel_active(run, action);
  return {204, value()};
}

api_response service::create_batch(const std::string& text) {
  const value payloads = parse_body(text, true);
  if (!payloads.is_list()) throw api_error{422, "the body: a list of run payloads"};
  list created;
  for (std::size_t i = 0; i < payloads.as_list().size(); ++i) {
    const value& one = payloads.as_list()[i];
    if (!one.is_object())
      throw api_error{422, "[" + std::to_string(i) + "]: a run payload is an object"};
    bool answered = false;
    try {
      created.push_back(create_run("", one, "background", nullptr, answered).body);
    } catch (const api_error& e) {
      throw api_error{e.status, "[" + std::to_string(i) + "]: " + e.message};
    }
  }
  return {200, value(std::move(created))};
}

api_response service::join_run(const std::string& thread_id, const std::string& run_id,
                               const std::shared_ptr<http_exchange>& x, bool& answered) {
  get_run(thread_id, run_id);
  if (auto run = running(run_id)) {
    std::lock_guard lock(run->mutex);
    if (!run->done) {
      answered = true;
      x->start(200, {{"Content-Type", "application/json"}});
      run->kept_alive.push_back(x);
      run->waiters.push_back([x](const value& result) {
        x->write(result.to_json());
        x->end();
      });
      return {};
    }
  }
  const value t = find_thread(thread_id);
  return {200, t.get("values").is_null() ? value(object{}) : t.get("values")};
}

void service::keep_events(const std::string& run_id, std::vector<std::string> frames) {
  const auto now = std::chrono::steady_clock::now();
  std::erase_if(kept_events_, [&](const auto& kept) { return kept.second.until <= now; });
  kept_events_[run_id] = {std::move(frames), now + resumable_events_kept};
}

api_response service::join_thread_stream(const std::string& thread_id, const http_request& r,
                                         const std::shared_ptr<http_exchange>& x, bool& answered) {
  find_thread(thread_id);
  for (const std::string key : {"stream_modes", "stream_mode"})
    if (r.has_query(key) && r.query_value(key) != "run_modes")
      throw api_error{422, std::string(key) + ": only run_modes is served (every event of the " +
                               "thread's runs), not '" + r.query_value(key) + "'"};
  answered = true;
  x->start(200, detail::sse_headers("/threads/" + thread_id));
  std::shared_ptr<active_run> now;
  {
    std::lock_guard lock(runs_mutex_);
    thread_streams_[thread_id].push_back(x);
    for (const auto& [id, run] : active_)
      if (run->thread_id == thread_id) {
        std::lock_guard run_lock(run->mutex);
        if (run->started && !run->done) now = run;
      }
    if (now) {
      std::lock_guard run_lock(now->mutex);
      for (const std::string& frame : now->frames) x->write(frame);
      now->thread_streams.push_back(x);
    }
  }
  // A client that goes leaves the thread's streams (and the run's: its writes to a closed
  // exchange are dropped until the run ends).
  x->on_gone([this, thread_id, weak = std::weak_ptr<http_exchange>(x),
              alive = std::weak_ptr<int>(alive_)] {
    if (alive.expired()) return;
    std::lock_guard lock(runs_mutex_);
    auto it = thread_streams_.find(thread_id);
    if (it == thread_streams_.end()) return;
    const auto gone = weak.lock();
    if (!gone) return;
    std::erase_if(it->second, [&](const auto& s) { return s == gone; });
    if (it->second.empty()) thread_streams_.erase(it);
  });
  return {};
}

void service::attach_thread_streams(const std::shared_ptr<active_run>& run) {
  std::lock_guard lock(runs_mutex_);
  auto it = thread_streams_.find(run->thread_id);
  if (it == thread_streams_.end()) return;
  std::lock_guard run_lock(run->mutex);
  for (const auto& x : it->second) {
    for (const std::string& frame : run->frames) x->write(frame);
    run->thread_streams.push_back(x);
  }
}

api_response service::join_stream(const std::string& thread_id, const std::string& run_id,
                                  const http_request& r, const std::shared_ptr<http_exchange>& x,
                                  bool& answered) {
  get_run(thread_id, run_id);
  const std::string location = "/threads/" + thread_id + "/runs/" + run_id;
  std::size_t after = 0;
  bool resume = false;
  if (const std::string last = r.header("Last-Event-ID"); !last.empty()) {
    try {
      after = std::stoul(last);
      resume = true;
    } catch (const std::exception&) {
    }
  }
  answered = true;
  auto run = running(run_id);
  x->start(200, detail::sse_headers(location));
  if (!run) {
    // Ended: the events of a resumable run, kept a while, after the client's last.
    std::lock_guard lock(runs_mutex_);
    if (auto kept = kept_events_.find(run_id);
        kept != kept_events_.end() && kept->second.until > std::chrono::steady_clock::now())
      for (std::size_t i = resume ? after + 1 : 0; i < kept->second.frames.size(); ++i)
        x->write(kept->second.frames[i]);
    x->end();
    return {};
  }
  std::lock_guard lock(run->mutex);
  // Frames are numbered from 0 (metadata): a client that saw frame N gets N+1 onwards.
  for (std::size_t i = resume ? after + 1 : 0; i < run->frames.size(); ++i)
    x->write(run->frames[i]);
  if (run->done) {
    x->end();
    return {};
  }
  run->streams.push_back(x);
  return {};
}

}  // namespace superstep::server
