#include "superstep/pregel/runtime.hpp"

#include "superstep/core/error.hpp"
#include "superstep/pregel/node_context.hpp"
#include "superstep/pregel/run_control.hpp"

namespace superstep {

namespace {

template <class T>
void replace_if_set(T& field, const std::optional<T>& with) {
  if (with) field = *with;
}

// A string value's text, or none (LangGraph's thread_id and run_id of an ExecutionInfo).
std::optional<std::string> text_of(const value& v) {
  if (v.is_string() && !v.as_string().empty()) return v.as_string();
  return std::nullopt;
}

// LangGraph's `str(x) if x else ""`.
std::string id_text(const value& v) {
  if (!v.truthy()) return "";
  return v.is_string() ? v.as_string() : v.to_json();
}

}  // namespace

execution_info execution_info::patch(const execution_info_patch& p) const {
  execution_info out = *this;
  replace_if_set(out.checkpoint_id, p.checkpoint_id);
  replace_if_set(out.checkpoint_ns, p.checkpoint_ns);
  replace_if_set(out.task_id, p.task_id);
  replace_if_set(out.thread_id, p.thread_id);
  replace_if_set(out.run_id, p.run_id);
  replace_if_set(out.node_attempt, p.node_attempt);
  replace_if_set(out.node_first_attempt_time, p.node_first_attempt_time);
  return out;
}

std::optional<server_info> server_info::from_config(const value& config) {
  const value& conf = config.get("configurable");
  const value& assistant_id = conf.get("assistant_id");
  const value& graph_id = conf.get("graph_id");
  const value& auth_user = conf.get("langgraph_auth_user");
  value user = auth_user.is_object() && auth_user.find("identity") ? auth_user : value();
  if (assistant_id.is_null() && graph_id.is_null() && user.is_null()) return std::nullopt;
  return server_info{id_text(assistant_id), id_text(graph_id), std::move(user)};
}

runtime runtime::merge(const runtime& other) const {
  runtime out = *this;
  if (other.context.truthy()) out.context = other.context;
  if (other.store) out.store = other.store;
  if (other.stream_writer) out.stream_writer = other.stream_writer;
  if (other.heartbeat) out.heartbeat = other.heartbeat;
  if (!other.previous.is_null()) out.previous = other.previous;
  if (other.execution_info) out.execution_info = other.execution_info;
  if (other.server_info) out.server_info = other.server_info;
  if (other.control) out.control = other.control;
  return out;
}

runtime runtime::override(const runtime_overrides& o) const {
  runtime out = *this;
  replace_if_set(out.context, o.context);
  replace_if_set(out.store, o.store);
  replace_if_set(out.stream_writer, o.stream_writer);
  replace_if_set(out.heartbeat, o.heartbeat);
  replace_if_set(out.previous, o.previous);
  if (o.execution_info) out.execution_info = *o.execution_info;
  replace_if_set(out.server_info, o.server_info);
  replace_if_set(out.control, o.control);
  return out;
}

runtime runtime::patch_execution_info(const execution_info_patch& p) const {
  if (!execution_info)
    throw error(error_code::invalid_argument, "Cannot patch execution_info before it has been set");
  runtime out = *this;
  out.execution_info = execution_info->patch(p);
  return out;
}

bool runtime::drain_requested() const noexcept { return control && control->drain_requested(); }

std::optional<std::string> runtime::drain_reason() const {
  return control ? control->drain_reason() : std::nullopt;
}

const value& node_context::previous() const noexcept {
  static const value none;
  return none;
}

runtime node_context::runtime() {
  superstep::runtime rt;
  rt.context = context();
  rt.store = store();
  rt.stream_writer = [this](value data) { emit_custom(std::move(data)); };
  rt.heartbeat = [this] { heartbeat(); };
  rt.previous = previous();
  superstep::execution_info& info = rt.execution_info.emplace();
  info.checkpoint_id = checkpoint_id();
  const std::string_view ns = checkpoint_ns();
  info.checkpoint_ns = std::string(ns) + (ns.empty() ? "" : "|") + std::string(node()) + ":" +
                       std::string(task_id());
  info.task_id = task_id();
  info.thread_id = text_of(configurable("thread_id"));
  info.run_id = text_of(config().get("run_id"));
  info.node_attempt = node_attempt();
  if (const double t = node_first_attempt_time(); t > 0) info.node_first_attempt_time = t;
  rt.server_info = server_info::from_config(config());
  rt.control = control();
  return rt;
}

}  // namespace superstep
