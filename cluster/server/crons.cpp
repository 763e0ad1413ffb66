// The server API's crons: runs created on a schedule, on a thread or each on a new thread
// (server/service.hpp). The records are kept with the others (record_set "crons"), each with
// its next_run_date; one thread sleeps until the earliest is due, creates its run as
// POST /threads/{id}/runs (or /runs) would, and writes the date after. A cron whose date passed
// while the server was down runs once when it starts again.
#include <chrono>
#include <memory>
#include <stdexcept>

#include "server/api_support.hpp"
#include "server/cron_schedule.hpp"
#include "server/service.hpp"
#include "server/time_zone.hpp"

namespace superstep::server {

using detail::object_field;
using detail::string_field;

namespace {

// The fields of a cron's body that are its runs' payload.
constexpr const char* payload_fields[] = {"input",
                                          "config",
                                          "context",
                                          "metadata",
                                          "interrupt_before",
                                          "interrupt_after",
                                          "webhook",
                                          "multitask_strategy",
                                          "durability",
                                          "stream_mode",
                                          "stream_subgraphs",
                                          "stream_resumable",
                                          "checkpoint_during",
                                          "command"};

std::int64_t now_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

cron_schedule schedule_of(const std::string& text) {
  try {
    return cron_schedule(text);
  } catch (const std::invalid_argument& e) {
    throw api_error{422, std::string("schedule: ") + e.what()};
  }
}

// The zone a cron's (or a body's) `timezone` names, null when it names none (UTC).
std::shared_ptr<const time_zone> zone_of(const value& cron) {
  const value& tz = cron.get("timezone");
  if (tz.is_null()) return nullptr;
  if (!tz.is_string())
    throw api_error{422, "timezone: an IANA time zone name (e.g. America/New_York)"};
  try {
    return time_zone::locate(tz.as_string());
  } catch (const std::invalid_argument& e) {
    throw api_error{422, std::string("timezone: ") + e.what() +
                             " (an IANA time zone name, e.g. America/New_York)"};
  }
}

std::optional<std::int64_t> end_of(const value& body) {
  const value& end = body.get("end_time");
  if (end.is_null()) return std::nullopt;
  if (!end.is_string()) throw api_error{422, "end_time: an ISO 8601 date and time"};
  auto t = time_of_iso(end.as_string());
  if (!t) throw api_error{422, "end_time: '" + end.as_string() + "' is not an ISO 8601 time"};
  return t;
}

// The next run date of a cron record after `after`, null when there is none (ended).
value next_date(const value& cron, std::int64_t after) {
  if (!cron.get("enabled").truthy()) return value();
  const auto zone = zone_of(cron);
  auto next = schedule_of(cron.get("schedule").as_string())
                  .next_after(after, zone ? *zone : time_zone::utc());
  if (!next) return value();
  if (auto end = end_of(cron); end && *next > *end) return value();
  return value(iso_of_time(*next));
}

}  // namespace

api_response service::create_cron(const std::string& thread_id, const value& body) {
  const std::string schedule = string_field(body, "schedule");
  if (schedule.empty()) throw api_error{422, "schedule: required (a cron schedule)"};
  schedule_of(schedule);
  zone_of(body);
  end_of(body);
  const std::string wanted = string_field(body, "assistant_id");
  if (wanted.empty()) throw api_error{422, "assistant_id: required"};
  const value assistant = find_assistant(wanted);
  if (!thread_id.empty()) find_thread(thread_id);
  const value& enabled = body.get("enabled");
  if (!enabled.is_null() && !enabled.is_bool()) throw api_error{422, "enabled: true or false"};
  const std::string completed = string_field(body, "on_run_completed", "delete");
  if (completed != "delete" && completed != "keep")
    throw api_error{422, "on_run_completed: delete or keep, not '" + completed + "'"};
  object payload;
  for (const char* k : payload_fields)
    if (!body.get(k).is_null()) payload.set(k, body.get(k));
  payload.set("assistant_id", assistant.get("assistant_id"));
  const std::string id = uuid4();
  const std::string now = now_iso();
  object cron{{"cron_id", id},
              {"assistant_id", assistant.get("assistant_id")},
              {"thread_id", thread_id.empty() ? value() : value(thread_id)},
              {"on_run_completed", thread_id.empty() ? value(completed) : value()},
              {"end_time", body.get("end_time")},
              {"schedule", schedule},
              {"timezone", body.get("timezone")},
              {"created_at", now},
              {"updated_at", now},
              {"payload", value(std::move(payload))},
              {"user_id", value()},
              {"metadata", object_field(body, "metadata")},
              {"enabled", enabled.is_null() ? true : enabled.as_bool()}};
  cron.set("next_run_date", next_date(value(cron), now_seconds()));
  crons_.put(id, value(cron));
  wake_crons();
  return {200, value(std::move(cron))};
}

api_response service::search_crons(const value& body, bool count_only) {
  const std::string assistant = string_field(body, "assistant_id");
  const std::string thread = string_field(body, "thread_id");
  const value metadata = object_field(body, "metadata");
  const value& enabled = body.get("enabled");
  std::string assistant_id;
  if (!assistant.empty()) {
    try {
      assistant_id = find_assistant(assistant).get("assistant_id").as_string();
    } catch (const api_error&) {
      assistant_id = assistant;  // matches nothing
    }
  }
  std::vector<value> found = crons_.where([&](const value& c) {
    return (assistant_id.empty() || c.get("assistant_id") == assistant_id) &&
           (thread.empty() || c.get("thread_id") == thread) &&
           (enabled.is_null() || c.get("enabled") == enabled) &&
           metadata_matches(c.get("metadata"), metadata);
  });
  if (count_only) return {200, value(static_cast<std::int64_t>(found.size()))};
  return detail::search_page(std::move(found), body, "created_at",
                             [](const value& c) { return c; });
}

api_response service::patch_cron(const std::string& id, const value& body) {
  auto rec = crons_.get(id);
  if (!rec) throw api_error{404, "Cron with ID " + id + " not found"};
  object cron = rec->as_object();
  if (!body.get("schedule").is_null()) {
    schedule_of(string_field(body, "schedule"));
    cron.set("schedule", body.get("schedule"));
  }
  if (!body.get("timezone").is_null()) {
    zone_of(body);
    cron.set("timezone", body.get("timezone"));
  }
  if (body.find("end_time")) {
    end_of(body);
    cron.set("end_time", body.get("end_time"));
  }
  if (!body.get("enabled").is_null()) {
    if (!body.get("enabled").is_bool()) throw api_error{422, "enabled: true or false"};
    cron.set("enabled", body.get("enabled"));
  }
  if (!body.get("on_run_completed").is_null()) {
    const std::string completed = string_field(body, "on_run_completed");
    if (completed != "delete" && completed != "keep")
      throw api_error{422, "on_run_completed: delete or keep, not '" + completed + "'"};
    if (!cron.find("thread_id") || cron.find("thread_id")->is_null())
      cron.set("on_run_completed", completed);
  }
  object payload = cron.find("payload")->as_object();
  for (const char* k : payload_fields)
    if (!body.get(k).is_null()) payload.set(k, body.get(k));
  if (!body.get("metadata").is_null()) cron.set("metadata", object_field(body, "metadata"));
  cron.set("payload", value(std::move(payload)));
  cron.set("updated_at", now_iso());
  cron.set("next_run_date", next_date(value(cron), now_seconds()));
  crons_.put(id, value(cron));
  wake_crons();
  return {200, value(std::move(cron))};
}

api_response service::delete_cron(const std::string& id) {
  if (!crons_.erase(id)) throw api_error{404, "Cron with ID " + id + " not found"};
  wake_crons();
  return {204, value()};
}

void service::fire_cron(const value& cron) {
  object body = cron.get("payload").as_object();
  body.set("assistant_id", cron.get("assistant_id"));
  const bool stateless = cron.get("thread_id").is_null();
  if (stateless) body.set("on_completion", cron.get("on_run_completed"));
  object metadata = body.find("metadata") && body.find("metadata")->is_object()
                        ? body.find("metadata")->as_object()
                        : object{};
  metadata.set("cron_id", cron.get("cron_id"));
  body.set("metadata", value(std::move(metadata)));
  bool answered = false;
  try {
    create_run(stateless ? "" : cron.get("thread_id").as_string(), value(std::move(body)),
               "background", nullptr, answered);
  } catch (const api_error& e) {
    log_("cron " + cron.get("cron_id").as_string() + ": its run was not created: " + e.message);
  } catch (const std::exception& e) {
    log_("cron " + cron.get("cron_id").as_string() + ": its run was not created: " + e.what());
  }
}

void service::run_crons() {
  std::unique_lock lock(crons_mutex_);
  while (!stopping_crons_) {
    const std::int64_t now = now_seconds();
    std::optional<std::int64_t> earliest;
    std::vector<value> due;
    for (const value& c : crons_.all()) {
      const value& next = c.get("next_run_date");
      if (!next.is_string() || !c.get("enabled").truthy()) continue;
      auto t = time_of_iso(next.as_string());
      if (!t) continue;
      if (*t <= now)
        due.push_back(c);
      else if (!earliest || *t < *earliest)
        earliest = t;
    }
    if (due.empty()) {
      if (earliest)
        crons_changed_.wait_until(
            lock, std::chrono::system_clock::time_point(std::chrono::seconds(*earliest)));
      else
        crons_changed_.wait(lock);
      continue;
    }
    lock.unlock();
    for (const value& c : due) {
      const std::string id = c.get("cron_id").as_string();
      // The date moves on first: a cron is never run twice for one date.
      auto current = crons_.get(id);
      if (!current || current->get("next_run_date") != c.get("next_run_date")) continue;
      object changed = current->as_object();
      try {
        changed.set("next_run_date", next_date(*current, now));
      } catch (const api_error& e) {
        // Checked when the cron was made; a zone file gone since stops the cron, not the timer.
        log_("cron " + id + ": no next run: " + e.message);
        changed.set("next_run_date", value());
      }
      crons_.put(id, value(std::move(changed)));
      fire_cron(*current);
    }
    lock.lock();
  }
}

void service::wake_crons() {
  // Taken once the record is written: the timer is either before its scan (and sees it) or
  // waiting (and is woken).
  { std::lock_guard lock(crons_mutex_); }
  crons_changed_.notify_all();
}

void service::stop_crons() {
  {
    std::lock_guard lock(crons_mutex_);
    stopping_crons_ = true;
  }
  crons_changed_.notify_all();
  if (cron_timer_.joinable()) cron_timer_.join();
}

}  // namespace superstep::server
