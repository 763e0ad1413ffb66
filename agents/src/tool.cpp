#include "superstep/agents/tool.hpp"

#include <utility>

#include "python_format.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/node_context.hpp"

namespace superstep::agents {

namespace {

std::string invocation_message(const std::string& tool_name, const value& args,
                               const std::vector<std::string>& problems) {
  std::string joined;
  for (const std::string& p : problems) joined += (joined.empty() ? "" : "\n") + p;
  return "Error invoking tool '" + tool_name + "' with kwargs " + detail::python_repr(args) +
         " with error:\n " + joined + "\n Please fix the error and try again.";
}

}  // namespace

tool_invocation_error::tool_invocation_error(std::string tool_name, value args,
                                             std::vector<std::string> problems)
    : tool_exception(invocation_message(tool_name, args, problems)),
      tool_name_(std::move(tool_name)),
      args_(std::move(args)),
      problems_(std::move(problems)) {}

tool_runtime::tool_runtime(value state, std::string tool_call_id, node_context* context,
                           storage::store* store, std::vector<std::string> tools)
    : state_(std::move(state)),
      tool_call_id_(std::move(tool_call_id)),
      context_(context),
      store_(store),
      tools_(std::move(tools)),
      interrupts_(std::make_shared<std::mutex>()) {}

const value& tool_runtime::context() const noexcept {
  static const value none;
  return context_ ? context_->context() : none;
}

const value& tool_runtime::config() const noexcept {
  static const value none;
  return context_ ? context_->config() : none;
}

void tool_runtime::emit_custom(value data) const {
  if (context_) context_->emit_custom(std::move(data));
}

void tool_runtime::emit_output_delta(value delta) const {
  if (!in_call_ || !context_ || !context_->streams(stream_mode::tools)) return;
  context_->emit_tool_event(object{{"event", "tool-output-delta"},
                                   {"tool_call_id", tool_call_id_},
                                   {"delta", std::move(delta)}});
}

value tool_runtime::interrupt(value v) const {
  if (!context_)
    throw error(error_code::invalid_argument,
                "tool call '" + tool_call_id_ + "' called interrupt() outside a graph");
  std::lock_guard lock(*interrupts_);
  return context_->interrupt(std::move(v));
}

tool_spec tool::spec() const { return tool_spec{name, description, parameters}; }

void tool_registry::add(tool t) {
  if (t.name.empty())
    throw error(error_code::invalid_argument, "tool_registry: a tool needs a name");
  if (!t.function)
    throw error(error_code::invalid_argument,
                "tool_registry: tool '" + t.name + "' has no function");
  if (tools_.count(t.name))
    throw error(error_code::invalid_argument,
                "tool_registry: a tool named '" + t.name + "' is already registered");
  std::string name = t.name;
  tools_.emplace(std::move(name), std::move(t));
}

bool tool_registry::has(std::string_view name) const noexcept {
  return tools_.find(name) != tools_.end();
}

const tool& tool_registry::get(std::string_view name) const {
  auto it = tools_.find(name);
  if (it == tools_.end()) {
    std::string known;
    for (const auto& [n, t] : tools_) known += (known.empty() ? "" : ", ") + n;
    throw error(error_code::unknown_function,
                "unknown tool '" + std::string(name) +
                    "' (registered: " + (known.empty() ? "none" : known) + ")");
  }
  return it->second;
}

std::vector<tool> tool_registry::get_all(const std::vector<std::string>& names) const {
  std::vector<tool> out;
  out.reserve(names.size());
  for (const std::string& n : names) out.push_back(get(n));
  return out;
}

std::vector<std::string> tool_registry::names() const {
  std::vector<std::string> out;
  for (const auto& [n, t] : tools_) out.push_back(n);
  return out;
}

}  // namespace superstep::agents
