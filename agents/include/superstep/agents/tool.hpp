#pragma once

// Tools (LangChain's BaseTool as LangGraph's ToolNode runs them): a name, a description, the
// JSON schema of the arguments a model fills in, and a C++ function.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "superstep/agents/chat_model.hpp"
#include "superstep/core/value.hpp"

namespace superstep {
class node_context;
namespace storage {
class store;
}
}  // namespace superstep

namespace superstep::agents {

struct tool;

/// A failure a tool reports on purpose (LangChain's ToolException). A tool's own
/// `handle_tool_error` answers these.
class tool_exception : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Arguments a model gave that do not match the tool's schema (LangGraph's
/// ToolInvocationError). Its message is LangGraph's: "Error invoking tool 'NAME' with kwargs
/// {...} with error:\n <field>: <problem>...\n Please fix the error and try again."
class tool_invocation_error : public tool_exception {
 public:
  tool_invocation_error(std::string tool_name, value args, std::vector<std::string> problems);
  const std::string& tool_name() const noexcept { return tool_name_; }
  const value& args() const noexcept { return args_; }
  /// One line per problem: "some_val: Field required".
  const std::vector<std::string>& problems() const noexcept { return problems_; }

 private:
  std::string tool_name_;
  value args_;
  std::vector<std::string> problems_;
};

/// What a running tool sees besides its arguments (LangGraph's ToolRuntime).
/// Valid during the call only.
class tool_runtime {
 public:
  tool_runtime(value state, std::string tool_call_id, node_context* context, storage::store* store,
               std::vector<std::string> tools);

  /// The graph state the tool node was given (a list input is {messages_key: list}).
  const value& state() const noexcept { return state_; }
  /// The id of the tool call being answered (LangChain's InjectedToolCallId).
  const std::string& tool_call_id() const noexcept { return tool_call_id_; }
  /// The run's context (the `context` of invoke); null outside a graph or without one.
  const value& context() const noexcept;
  /// The run's config; null outside a graph.
  const value& config() const noexcept;
  /// The long-term store: the graph's, or the one given to `tool_node::invoke`; null when none.
  storage::store* store() const noexcept { return store_; }
  /// The node running the tool; null outside a graph.
  node_context* node() const noexcept { return context_; }
  /// Names of the tool node's tools, in order.
  const std::vector<std::string>& tools() const noexcept { return tools_; }
  /// Sends `data` to the `custom` stream (LangGraph's stream writer); a no-op outside a graph.
  void emit_custom(value data) const;
  /// Streams a partial output of the call (LangGraph's `ToolRuntime.emit_output_delta`): a
  /// {"event": "tool-output-delta", "tool_call_id", "delta"} event on the `tools` stream,
  /// between the call's "tool-started" and its end. A no-op outside a graph, when the run
  /// does not stream `tools`, and outside the tool's function (the tool node sets the writer
  /// for the function's call only).
  void emit_output_delta(value delta) const;
  /// Pauses the run to ask a human (node_context::interrupt). Tool calls of one node run in
  /// parallel: their interrupts are taken one at a time. Throws `superstep::error`
  /// (invalid_argument) outside a graph.
  value interrupt(value v) const;

 private:
  value state_;
  std::string tool_call_id_;
  node_context* context_;
  storage::store* store_;
  std::vector<std::string> tools_;
  std::shared_ptr<std::mutex> interrupts_;
  bool in_call_ = false;  // while the tool node runs the tool's function
  friend class tool_node;
};

/// A tool's code: gets the call's arguments (those of the model, validated against the tool's
/// schema, plus the injected ones) and returns the answer: any value (a string is the tool
/// message's content as is; content blocks [{"type": "text"|"image_url"|..., ...}] too; any
/// other value is written as JSON, Python's json.dumps style), a tool message, a Command
/// (`make_command`), or a list of Commands and tool messages. May throw.
using tool_function = std::function<value(const value& args, tool_runtime& runtime)>;

/// A tool. `parameters` lists only what the model fills in; `injected_state` and
/// `injected_store` declare what the tool node adds (LangGraph's InjectedState, InjectedStore;
/// arguments a model sends under those names are dropped, so a model cannot forge them).
struct tool {
  std::string name;
  std::string description;
  /// JSON schema of the arguments: {"type": "object", "properties", "required"}.
  value parameters = value(object{{"type", "object"}, {"properties", object{}}});
  tool_function function;
  /// Argument name -> state key added to the arguments ("": the whole state). A state key
  /// the state lacks fails the call (not a tool error: it is not handled).
  std::map<std::string, std::string> injected_state;
  /// Names of arguments the tool node strips from the model's (LangChain's InjectedToolArg).
  std::vector<std::string> injected_args;
  /// The tool reads `tool_runtime::store()`: running it without a store fails.
  bool injected_store = false;
  /// The content of the error message answering a `tool_exception` of this tool (LangChain's
  /// `BaseTool.handle_tool_error`), before the tool node's own handling.
  std::optional<std::string> handle_tool_error;
  /// A call of it ends the agent's loop (LangChain's `return_direct`): the tool message is the
  /// agent's last word.
  bool return_direct = false;

  /// What a model is told of it.
  tool_spec spec() const;
};

/// Tools by name, for node libraries and graph specs (as cluster::function_registry holds
/// node factories): `main()` fills one and passes it in; no global registry.
/// Thread-safety: fill it on one thread; afterwards concurrent const lookups are safe.
class tool_registry {
 public:
  /// Adds `t`. Throws `superstep::error` (invalid_argument) when its name is empty, already
  /// registered, or it has no function.
  void add(tool t);
  bool has(std::string_view name) const noexcept;
  /// The tool `name`; throws `superstep::error` (unknown_function) naming it and listing the
  /// known tools.
  const tool& get(std::string_view name) const;
  /// The tools `names`, in that order (each as `get`).
  std::vector<tool> get_all(const std::vector<std::string>& names) const;
  /// Registered names, sorted.
  std::vector<std::string> names() const;

 private:
  std::map<std::string, tool, std::less<>> tools_;
};

}  // namespace superstep::agents
