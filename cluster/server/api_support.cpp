// What the server API's routes share (server/api_support.hpp).
#include "server/api_support.hpp"

#include <algorithm>

namespace superstep::server::detail {

namespace {

// Sorts records by `sort_by` (a timestamp or id field), newest first unless "asc".
void sort_records(std::vector<value>& records, const std::string& sort_by, const std::string& order,
                  const std::string& fallback) {
  const std::string key = sort_by.empty() ? fallback : sort_by;
  const bool asc = order == "asc";
  std::stable_sort(records.begin(), records.end(), [&](const value& a, const value& b) {
    const value& x = a.get(key);
    const value& y = b.get(key);
    const std::string xs = x.is_string() ? x.as_string() : x.to_json();
    const std::string ys = y.is_string() ? y.as_string() : y.to_json();
    return asc ? xs < ys : xs > ys;
  });
}

// Keeps only the fields of `select` (all when it is empty or absent).
value selected(const value& record, const value& select) {
  if (!select.is_list() || select.as_list().empty()) return record;
  object out;
  for (const value& f : select.as_list())
    if (f.is_string())
      if (const value* v = record.find(f.as_string())) out.set(f.as_string(), *v);
  return value(std::move(out));
}

// The ThreadState of a snapshot as ops::show_state prints it (state_snapshot::to_value with

}  // namespace

std::string string_field(const value& body, std::string_view key, const std::string& fallback) {
  const value& v = body.get(key);
  if (v.is_null()) return fallback;
  if (!v.is_string()) throw api_error{422, std::string(key) + ": expected a string"};
  return v.as_string();
}

value object_field(const value& body, std::string_view key) {
  const value& v = body.get(key);
  if (v.is_null()) return value(object{});
  if (!v.is_object()) throw api_error{422, std::string(key) + ": expected an object"};
  return v;
}

std::size_t count_field(const value& body, std::string_view key, std::size_t fallback) {
  const value& v = body.get(key);
  if (v.is_null()) return fallback;
  if (!v.is_int() || v.as_int() < 0)
    throw api_error{422, std::string(key) + ": expected a number of 0 or more"};
  return static_cast<std::size_t>(v.as_int());
}

std::size_t query_count(const http_request& r, std::string_view key, std::size_t fallback) {
  if (!r.has_query(key)) return fallback;
  const std::string text = r.query_value(key);
  try {
    std::size_t used = 0;
    const long long n = std::stoll(text, &used);
    if (used == text.size() && n >= 0) return static_cast<std::size_t>(n);
  } catch (const std::exception&) {
  }
  throw api_error{422, std::string(key) + ": expected a number of 0 or more, not '" + text + "'"};
}

value merged(const value& base, const value& over) {
  object out = base.is_object() ? base.as_object() : object{};
  if (over.is_object())
    for (const auto& [k, v] : over.as_object()) out.set(k, v);
  return value(std::move(out));
}

std::vector<value> page(std::vector<value> records, std::size_t offset, std::size_t limit) {
  if (offset >= records.size()) return {};
  const std::size_t end = std::min(records.size(), offset + limit);
  return std::vector<value>(records.begin() + static_cast<std::ptrdiff_t>(offset),
                            records.begin() + static_cast<std::ptrdiff_t>(end));
}

api_response search_page(std::vector<value> found, const value& body,
                         const std::string& fallback_sort,
                         const std::function<value(const value&)>& shown) {
  sort_records(found, string_field(body, "sort_by"), string_field(body, "sort_order"),
               fallback_sort);
  const std::size_t offset = count_field(body, "offset", 0), limit = count_field(body, "limit", 10);
  const std::size_t total = found.size();
  list out;
  for (const value& record : page(std::move(found), offset, limit))
    out.push_back(selected(shown(record), body.get("select")));
  header_list headers{{"X-Pagination-Total", std::to_string(total)}};
  if (offset + out.size() < total)
    headers.emplace_back("X-Pagination-Next", std::to_string(offset + out.size()));
  return {200, value(std::move(out)), std::move(headers)};
}

// each task's result).
value checkpoint_of(const value& config) {
  const value& c = config.get("configurable");
  if (!c.is_object()) return value();
  object out;
  out.set("thread_id", c.get("thread_id"));
  out.set("checkpoint_ns", c.get("checkpoint_ns").is_null() ? value("") : c.get("checkpoint_ns"));
  out.set("checkpoint_id", c.get("checkpoint_id"));
  out.set("checkpoint_map", value());
  return value(std::move(out));
}

namespace {

bool is_message(const value& v) {
  if (!v.is_object()) return false;
  const value* type = v.as_object().find("type");
  if (!type || !type->is_string() || !v.as_object().find("content")) return false;
  const std::string& t = type->as_string();
  return t == "human" || t == "ai" || t == "system" || t == "tool" || t == "function" ||
         t == "chat" || t == "remove" || t == "AIMessageChunk";
}

bool is_ai(const value& m) {
  const std::string& t = m.get("type").as_string();
  return t == "ai" || t == "AIMessageChunk";
}

bool lacks_fields(const value& m) {
  const object& o = m.as_object();
  return !o.find("additional_kwargs") || !o.find("response_metadata") ||
         (is_ai(m) && (!o.find("tool_calls") || !o.find("invalid_tool_calls")));
}

// Whether a message within `depth` levels of `v` lacks a field (nothing is copied then).
bool needs_fields(const value& v, int depth) {
  if (is_message(v)) return lacks_fields(v);
  if (depth == 0) return false;
  if (v.is_list()) {
    for (const value& item : v.as_list())
      if (needs_fields(item, depth - 1)) return true;
  } else if (v.is_object()) {
    for (const auto& [key, item] : v.as_object())
      if (needs_fields(item, depth - 1)) return true;
  }
  return false;
}

value with_fields(const value& v, int depth) {
  if (is_message(v)) {
    if (!lacks_fields(v)) return v;
    object m = v.as_object();
    if (!m.find("additional_kwargs")) m.set("additional_kwargs", object{});
    if (!m.find("response_metadata")) m.set("response_metadata", object{});
    if (is_ai(v)) {
      if (!m.find("tool_calls")) m.set("tool_calls", list{});
      if (!m.find("invalid_tool_calls")) m.set("invalid_tool_calls", list{});
    }
    return value(std::move(m));
  }
  if (depth == 0 || !needs_fields(v, depth)) return v;
  if (v.is_list()) {
    list out;
    out.reserve(v.as_list().size());
    for (const value& item : v.as_list()) out.push_back(with_fields(item, depth - 1));
    return value(std::move(out));
  }
  std::vector<object::entry> out;
  out.reserve(v.as_object().size());
  for (const auto& [key, item] : v.as_object()) out.emplace_back(key, with_fields(item, depth - 1));
  return value(object(std::move(out), object::unique_keys));
}

}  // namespace

value langchain_messages(const value& v, int depth) { return with_fields(v, depth); }

value thread_state_of(const value& snap) {
  list tasks;
  for (const value& t : snap.get("tasks").as_list()) {
    object task;
    task.set("id", t.get("id"));
    task.set("name", t.get("name"));
    task.set("path", t.get("path").is_list() ? t.get("path") : value(list{}));
    task.set("error", t.get("error"));
    task.set("interrupts", t.get("interrupts").is_list() ? t.get("interrupts") : value(list{}));
    const value& state = t.get("state");
    // Where the task's subgraph keeps its checkpoints, as LangGraph Server gives it: the
    // thread and the namespace, no checkpoint id (the subgraph's latest).
    if (const value* c = state.is_object() ? state.find("configurable") : nullptr)
      task.set("checkpoint", object{{"thread_id", c->get("thread_id")},
                                    {"checkpoint_ns", c->get("checkpoint_ns")}});
    else
      task.set("checkpoint", value());
    task.set("state", state.is_object() && state.find("values") ? thread_state_of(state) : value());
    task.set("result", t.get("result"));
    tasks.push_back(value(std::move(task)));
  }
  object out;
  out.set("values", langchain_messages(snap.get("values")));
  out.set("next", snap.get("next"));
  out.set("tasks", value(std::move(tasks)));
  out.set("metadata", snap.get("metadata"));
  out.set("created_at", snap.get("created_at"));
  out.set("checkpoint", checkpoint_of(snap.get("config")));
  out.set("parent_checkpoint", checkpoint_of(snap.get("parent_config")));
  return value(std::move(out));
}

}  // namespace superstep::server::detail
