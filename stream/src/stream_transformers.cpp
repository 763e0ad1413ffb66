// LangGraph's built-in v3 stream transformers (langgraph/stream/transformers.py).
#include "superstep/stream/stream_transformers.hpp"

#include <algorithm>

namespace superstep {

namespace {

bool starts_with(const std::vector<std::string>& ns, const std::vector<std::string>& prefix) {
  return ns.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), ns.begin());
}

value ns_value(const std::vector<std::string>& ns) {
  list l;
  l.reserve(ns.size());
  for (const auto& part : ns) l.emplace_back(part);
  return value(std::move(l));
}

/// "node:task id" -> (node, task id); a segment without ':' has no task id.
std::pair<std::string, std::optional<std::string>> parse_segment(const std::string& segment) {
  auto colon = segment.find(':');
  if (colon == std::string::npos) return {segment, std::nullopt};
  return {segment.substr(0, colon), segment.substr(colon + 1)};
}

/// A task result's terminal status: interrupts first (an interrupt is not an error).
std::pair<subgraph_status, std::optional<std::string>> terminal_from_result(const value& data) {
  if (data.get("interrupts").truthy()) return {subgraph_status::interrupted, std::nullopt};
  if (const value& err = data.get("error"); err.truthy())
    return {subgraph_status::failed, err.is_string() ? err.as_string() : err.to_json()};
  return {subgraph_status::completed, std::nullopt};
}

}  // namespace

std::pair<subgraph_status, std::optional<std::string>> status_from_exception(
    const std::exception_ptr& err) {
  try {
    if (err) std::rethrow_exception(err);
  } catch (const error& e) {
    if (e.code() == error_code::drained) return {subgraph_status::drained, std::nullopt};
    if (e.code() == error_code::interrupted) return {subgraph_status::interrupted, std::nullopt};
    return {subgraph_status::failed, std::string(e.what())};
  } catch (const std::exception& e) {
    return {subgraph_status::failed, std::string(e.what())};
  } catch (...) {
    return {subgraph_status::failed, std::string("unknown error")};
  }
  return {subgraph_status::failed, std::nullopt};
}

// ---- the projections of one mode ----

mode_projection_transformer::mode_projection_transformer(std::vector<std::string> scope,
                                                         stream_mode mode)
    : stream_transformer(std::move(scope)),
      mode_(mode),
      method_(stream_mode_name(mode)),
      log_(std::make_shared<stream_channel<value>>()) {}

stream_projections mode_projection_transformer::init() { return {{method_, log_}}; }

std::string mode_projection_transformer::name() const { return method_ + "_transformer"; }

bool mode_projection_transformer::process(protocol_event& event) {
  if (event.method != method_ || event.params.ns != scope()) return true;
  log_->push(event.params.data);
  observe(event);
  return true;
}

void values_transformer::observe(const protocol_event& event) {
  latest_ = event.params.data;
  if (event.params.interrupts && !event.params.interrupts->empty()) {
    interrupted_ = true;
    interrupts_.insert(interrupts_.end(), event.params.interrupts->begin(),
                       event.params.interrupts->end());
  }
}

// ---- subgraphs found from tasks events ----

bool tasks_lifecycle_transformer::process(protocol_event& event) {
  if (event.method != "tasks") return true;
  const auto& ns = event.params.ns;
  const value& data = event.params.data;
  if (data.find("result")) {
    handle_task_result(ns, data);
  } else {
    record_identity(ns, data);
    record_pending_tool_call(data);
    handle_task_start(ns, data);
  }
  // Folded into the projections: the main log does not show them twice.
  return false;
}

void tasks_lifecycle_transformer::record_identity(const std::vector<std::string>& ns,
                                                  const value& data) {
  if (agent_by_ns_.count(ns)) return;
  agent_by_ns_.emplace(ns, data.get("metadata").get("lc_agent_name"));
}

void tasks_lifecycle_transformer::record_pending_tool_call(const value& data) {
  const value& task_id = data.get("id");
  if (!task_id.is_string()) return;
  const value& input = data.get("input");
  std::optional<std::string> tool_call_id;
  if (const value& call = input.get("tool_call"); call.is_object()) {
    if (const value& id = call.get("id"); id.is_string()) tool_call_id = id.as_string();
  } else if (input.is_list()) {
    for (const auto& tc : input.as_list())
      if (const value& id = tc.get("id"); id.is_string()) {
        tool_call_id = id.as_string();
        break;
      }
  }
  if (tool_call_id) pending_tool_calls_[task_id.as_string()] = *tool_call_id;
}

void tasks_lifecycle_transformer::handle_task_start(const std::vector<std::string>& ns,
                                                    const value& data) {
  if (!should_track(ns) || seen_.count(ns)) return;
  seen_.insert(ns);
  auto [parsed_name, trigger_call_id] = parse_segment(ns.back());
  const value& agent = data.get("metadata").get("lc_agent_name");
  const bool is_subagent = !agent.is_null();
  std::optional<std::string> graph_name;
  if (is_subagent)
    graph_name = agent.is_string() ? agent.as_string() : agent.to_json();
  else if (!parsed_name.empty())
    graph_name = parsed_name;
  pending_cause_ = value();
  if (is_subagent && trigger_call_id)
    if (auto it = pending_tool_calls_.find(*trigger_call_id); it != pending_tool_calls_.end())
      pending_cause_ = object{{"type", "toolCall"}, {"tool_call_id", it->second}};
  on_started(ns, graph_name, trigger_call_id);
  if (trigger_call_id) open_[ns] = *trigger_call_id;
}

void tasks_lifecycle_transformer::handle_task_result(const std::vector<std::string>& ns,
                                                     const value& data) {
  const value& id = data.get("id");
  if (!id.is_string() || id.as_string().empty()) return;
  std::vector<
      std::pair<std::vector<std::string>, std::pair<subgraph_status, std::optional<std::string>>>>
      ended;
  for (auto it = open_.begin(); it != open_.end();) {
    const auto& child = it->first;
    if (child.size() == ns.size() + 1 && starts_with(child, ns) && it->second == id.as_string()) {
      ended.emplace_back(child, terminal_from_result(data));
      it = open_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& [child, st] : ended) on_terminal(child, st.first, st.second);
}

void tasks_lifecycle_transformer::finalize() {
  auto still_open = std::move(open_);
  open_.clear();
  for (const auto& [ns, _] : still_open) on_terminal(ns, subgraph_status::completed, std::nullopt);
}

void tasks_lifecycle_transformer::fail(const std::exception_ptr& err) {
  auto [status, message] = status_from_exception(err);
  auto still_open = std::move(open_);
  open_.clear();
  for (const auto& [ns, _] : still_open) on_terminal(ns, status, message);
}

// ---- lifecycle ----

lifecycle_transformer::lifecycle_transformer(std::vector<std::string> scope)
    : tasks_lifecycle_transformer(std::move(scope)),
      channel_(std::make_shared<stream_channel<value>>("lifecycle")) {}

stream_projections lifecycle_transformer::init() { return {{"lifecycle", channel_}}; }

bool lifecycle_transformer::should_track(const std::vector<std::string>& ns) const {
  return ns.size() > scope().size() && starts_with(ns, scope());
}

void lifecycle_transformer::on_started(const std::vector<std::string>& ns,
                                       const std::optional<std::string>& graph_name,
                                       const std::optional<std::string>& trigger_call_id) {
  // Without a task id no parent result can end it: finalize/fail will.
  if (!trigger_call_id) return;
  object payload{{"event", "started"}, {"namespace", ns_value(ns)}};
  if (graph_name && !graph_name->empty()) payload.set("graph_name", *graph_name);
  payload.set("trigger_call_id", *trigger_call_id);
  if (!cause().is_null()) payload.set("cause", cause());
  channel_->push(value(std::move(payload)));
}

void lifecycle_transformer::on_terminal(const std::vector<std::string>& ns, subgraph_status status,
                                        const std::optional<std::string>& error) {
  object payload{{"event", std::string(subgraph_status_name(status))}, {"namespace", ns_value(ns)}};
  if (error) payload.set("error", *error);
  channel_->push(value(std::move(payload)));
}

// ---- subgraph handles ----

subgraph_transformer::subgraph_transformer(std::vector<std::string> scope)
    : tasks_lifecycle_transformer(std::move(scope)),
      log_(std::make_shared<stream_channel<std::shared_ptr<subgraph_run_stream>>>()) {}

stream_projections subgraph_transformer::init() { return {{"subgraphs", log_}}; }

bool subgraph_transformer::should_track(const std::vector<std::string>& ns) const {
  // Direct children only: a child's own subgraph transformer finds its children.
  return ns.size() == scope().size() + 1 && starts_with(ns, scope());
}

void subgraph_transformer::on_started(const std::vector<std::string>& ns,
                                      const std::optional<std::string>& graph_name,
                                      const std::optional<std::string>& trigger_call_id) {
  if (!mux_) return;
  auto handle =
      std::make_shared<subgraph_run_stream>(mux_->make_child(ns), ns, graph_name, trigger_call_id);
  handles_[ns] = handle;
  log_->push(std::move(handle));
}

void subgraph_transformer::close_or_fail(subgraph_run_stream& h, subgraph_status status,
                                         const std::optional<std::string>& error) {
  if (h.mux().events().closed()) return;
  if (status == subgraph_status::failed)
    h.mux().fail(std::make_exception_ptr(
        superstep::error(error_code::node_error, error.value_or("Subgraph failed"))));
  else
    h.mux().close();
}

void subgraph_transformer::on_terminal(const std::vector<std::string>& ns, subgraph_status status,
                                       const std::optional<std::string>& error) {
  auto it = handles_.find(ns);
  if (it == handles_.end() || !it->second->mark_terminal(status, error)) return;
  close_or_fail(*it->second, status, error);
}

subgraph_run_stream* subgraph_transformer::handle_for(const protocol_event& event) const {
  const auto& ns = event.params.ns;
  const std::size_t depth = scope().size();
  if (ns.size() < depth + 1) return nullptr;
  auto it = handles_.find(std::vector<std::string>(ns.begin(), ns.begin() + depth + 1));
  if (it == handles_.end() || it->second->mux().events().closed()) return nullptr;
  return it->second.get();
}

bool subgraph_transformer::process(protocol_event& event) {
  // The tasks bookkeeping first, so a handle exists before its first event is forwarded.
  const bool keep = tasks_lifecycle_transformer::process(event);
  if (auto* h = handle_for(event)) {
    h->observe_event(event);
    h->mux().push(event);
  }
  return keep;
}

void subgraph_transformer::finalize() {
  std::exception_ptr first;
  try {
    tasks_lifecycle_transformer::finalize();
  } catch (...) {
    first = std::current_exception();
  }
  for (auto& [ns, h] : handles_) {
    if (!h->mark_terminal(subgraph_status::completed, std::nullopt)) continue;
    try {
      close_or_fail(*h, subgraph_status::completed, std::nullopt);
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

void subgraph_transformer::fail(const std::exception_ptr& err) {
  auto [status, message] = status_from_exception(err);
  open().clear();
  for (auto& [ns, h] : handles_) {
    h->mark_terminal(status, message);
    if (h->mux().events().closed()) continue;
    try {
      h->mux().fail(err);
    } catch (...) {  // NOLINT(bugprone-empty-catch): the others are failed regardless
    }
  }
}

}  // namespace superstep
