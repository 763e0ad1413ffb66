#pragma once

// LangGraph's prebuilt ToolNode and tools_condition: run the tool calls of the last AI message
// and answer each with a tool message; route to the tools while the model asks for them.

#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "superstep/agents/messages.hpp"
#include "superstep/agents/tool.hpp"
#include "superstep/core/value.hpp"
#include "superstep/pregel/node_context.hpp"

namespace superstep::agents {

/// How the tool node answers an exception from a tool (LangGraph's `handle_tool_errors`): the
/// content of the error tool message, or nullopt to let the exception fail the node.
/// Interrupts, parent Commands and the run's own stops (superstep::error with code
/// interrupted, parent_command, run_cancelled, drained, cancelled, node_timeout) are never
/// given to it: they always propagate (LangGraph's GraphBubbleUp).
using tool_error_handler = std::function<std::optional<std::string>(const std::exception_ptr& error,
                                                                    const tool_call& call)>;

/// The default (LangGraph's `_default_handle_tool_errors`): arguments that do not match the
/// schema (tool_invocation_error) answer with its message; other errors fail the node.
tool_error_handler handle_invocation_errors();
/// Every error answers "Error: <repr>\n Please fix your mistakes." (handle_tool_errors=True),
/// <repr> being the exception's type and message: `std::invalid_argument('Test error')`.
tool_error_handler handle_all_errors();
/// Every error answers `content` (handle_tool_errors="...").
tool_error_handler handle_errors_with(std::string content);
/// Errors of the types `E...` answer as `handle_all_errors`; others fail the node
/// (handle_tool_errors=(ValueError, ...)).
template <class... E>
tool_error_handler handle_errors_of();
/// Errors of type `E` answer `f(e)`; others fail the node (a handler with a typed parameter).
template <class E>
tool_error_handler handle_errors_with(std::function<std::string(const E&)> f);
/// No error is handled (handle_tool_errors=False): an empty handler.
inline tool_error_handler handle_no_errors() { return {}; }

/// "Error: <repr>\n Please fix your mistakes." for `e` (LangGraph's TOOL_CALL_ERROR_TEMPLATE).
std::string tool_call_error_content(const std::exception_ptr& e);

/// One tool call as an interceptor sees it (LangGraph's ToolCallRequest).
struct tool_call_request {
  agents::tool_call tool_call;
  /// The tool that will run: the node's tool of that name, or null when it has none (then the
  /// node answers "Error: NAME is not a valid tool, try one of [...]"). An interceptor may
  /// point it at another tool (LangGraph's `request.override(tool=...)`).
  const agents::tool* tool = nullptr;
  tool_runtime* runtime = nullptr;
};

/// Runs a request: validates, injects, calls the tool and handles its errors; returns what the
/// tool node makes of the answer (a tool message, a Command, or a list of them).
using tool_executor = std::function<value(const tool_call_request& request)>;
/// Intercepts each tool call (LangGraph's `wrap_tool_call`): may change the request, call
/// `execute` (any number of times) or answer by itself. An exception it throws is handled as
/// the tool's own.
using tool_call_wrapper =
    std::function<value(const tool_call_request& request, const tool_executor& execute)>;

struct tool_node_options {
  /// The state key holding the messages (LangGraph's `messages_key`).
  std::string messages_key = "messages";
  tool_error_handler handle_tool_errors = handle_invocation_errors();
  tool_call_wrapper wrap_tool_call;
  /// Run the calls of one AI message on threads of their own (the first on the caller's).
  bool parallel = true;
};

/// What `tool_node::invoke` runs in: the node (when in a graph) and the store.
struct tool_node_call {
  node_context* context = nullptr;
  /// The store tools read; null: the context's.
  storage::store* store = nullptr;
};

/// LangGraph's ToolNode. Its input is one of:
///  - a state object whose `messages_key` holds messages: the tool calls of the last AI message
///    run, the answer is {messages_key: [tool messages]};
///  - a list of messages: likewise, the answer the list of tool messages;
///  - a list of tool calls ({"name", "args", "id", "type": "tool_call"}): those run, the
///    answer as for a state;
///  - {"__type": "tool_call_with_context", "tool_call", "state"} (a Send of one call).
/// Calls run in parallel; answers keep the order of the calls. A call of an unknown tool is
/// answered "Error: NAME is not a valid tool, try one of [A, B]." (status "error"). When a tool
/// returns Commands, the answer is a list: each Command (tool messages in its update get the
/// call's tool name; an update to this graph must hold the tool message answering the call),
/// and {messages_key: [message]} for each plain answer; parent-graph Commands made only of
/// Sends are merged into one.
///
/// Thread-safety: const; one tool node may run in several tasks at once.
class tool_node {
 public:
  /// Throws `superstep::error` (invalid_argument) for a tool without a name or function, or
  /// two tools of one name.
  explicit tool_node(std::vector<tool> tools, tool_node_options options = {});

  /// Runs the tool calls of `input` (see the class). Throws what a tool throws when its
  /// handler does not handle it; `superstep::error` (invalid_argument) when the input holds
  /// no messages or no AI message, or a tool needs a store and there is none.
  value invoke(const value& input, const tool_node_call& call = {}) const;

  /// The node function for `state_graph::add_node`.
  node_function as_node() const;

  const std::vector<tool>& tools() const noexcept { return tools_; }

 private:
  value run_one(const tool_call_request& request, const std::string& input_type) const;
  value execute(const tool_call_request& request, const std::string& input_type) const;
  value normalize(const value& response, const tool_call& call,
                  const std::string& input_type) const;
  value validate_command(const value& command, const tool_call& call, const std::string& input_type,
                         bool require_terminator) const;
  value combine(const std::vector<value>& outputs, const std::string& input_type) const;

  std::vector<tool> tools_;
  std::map<std::string, std::size_t, std::less<>> by_name_;
  tool_node_options options_;
};

/// LangGraph's tools_condition: "tools" when the last message of `state` (a list of messages or
/// a state with `messages_key`) is an AI message with tool calls, else END ("__end__").
/// Throws `superstep::error` (invalid_argument) when there are no messages.
std::string tools_condition(const value& state, const std::string& messages_key = "messages");

/// tools_condition as a router for `state_graph::add_conditional_edges`.
router_function tools_condition_router(std::string messages_key = "messages");

template <class... E>
tool_error_handler handle_errors_of() {
  return [](const std::exception_ptr& error, const tool_call&) -> std::optional<std::string> {
    bool handled = false;
    const auto check = [&]<class T>() {
      if (handled) return;
      try {
        std::rethrow_exception(error);
      } catch (const T&) {
        handled = true;
      } catch (...) {
      }
    };
    (check.template operator()<E>(), ...);
    if (!handled) return std::nullopt;
    return tool_call_error_content(error);
  };
}

template <class E>
tool_error_handler handle_errors_with(std::function<std::string(const E&)> f) {
  return [f = std::move(f)](const std::exception_ptr& error,
                            const tool_call&) -> std::optional<std::string> {
    try {
      std::rethrow_exception(error);
    } catch (const E& e) {
      return f(e);
    } catch (...) {
      return std::nullopt;
    }
  };
}

}  // namespace superstep::agents
