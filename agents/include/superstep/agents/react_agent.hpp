#pragma once

// LangGraph's prebuilt ReAct agent (langgraph.prebuilt.create_react_agent): a model node that
// calls the model on the messages, a tool node that runs the tool calls it makes, looping until
// the model answers without tool calls.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "superstep/agents/chat_model.hpp"
#include "superstep/agents/tool.hpp"
#include "superstep/agents/tool_node.hpp"
#include "superstep/graph/state_graph.hpp"

namespace superstep::agents {

/// The messages the model gets, computed from the state (LangGraph's callable prompt).
using prompt_function = std::function<list(const value& state, node_context& ctx)>;

/// Picks the model of each call from the state (LangGraph's dynamic model). Its tools are its
/// own: bind them (`bind_tools`) in the function.
using model_selector =
    std::function<std::shared_ptr<const chat_model>(const value& state, node_context& ctx)>;

/// A state key of the agent besides "messages": last value wins, or folded with a built-in
/// reducer (append, add, max, min, merge, add_messages).
struct agent_state_key {
  std::string name;
  std::string reducer;
};

/// Options of `create_react_agent`, LangGraph's keyword arguments.
struct react_agent_options {
  /// Null: the messages as they are; a string: a system message with it before them; a system
  /// message (system_message(...)): that message before them.
  value prompt;
  /// Replaces `prompt` when set.
  agents::prompt_function prompt_function;
  /// Replaces the model given to create_react_agent when set.
  agents::model_selector model_selector;
  /// A structured final answer: when the loop ends, the model is asked once more, with this
  /// schema, and its object is written to the state key "structured_response".
  std::optional<agents::response_format> response_format;
  /// A system prompt put before the messages of that last call (LangGraph's
  /// `response_format=(prompt, schema)`); empty: none.
  std::string response_format_prompt;
  /// Further state keys (LangGraph's `state_schema` beyond AgentState's "messages").
  std::vector<agent_state_key> state_schema;
  /// Runs before each model call (LangGraph's `pre_model_hook`), as the node "pre_model_hook":
  /// it may rewrite "messages", or return {"llm_input_messages": [...]} to give the model
  /// other messages than the state keeps (that key is not part of the agent's output).
  node_function pre_model_hook;
  /// Runs after each model call (LangGraph's `post_model_hook`), as the node
  /// "post_model_hook"; the tool calls still unanswered after it run next (each a Send).
  node_function post_model_hook;
  /// "v1": one task of the "tools" node runs every call of an AI message; "v2": each call is a
  /// task of its own (a Send of {"__type": "tool_call_with_context", "tool_call", "state"}), so
  /// an interrupt in one call does not run the others again.
  std::string version = "v2";
  /// The agent's name: set as "name" on its AI messages and as the compiled graph's name.
  std::string name;
  /// How the tool node handles errors, intercepts calls, and where messages live (its
  /// `messages_key` must stay "messages").
  tool_node_options tools;
  /// Call the model with `chat_options::stream_to` set, so its tokens reach the `messages`
  /// stream mode.
  bool stream_tokens = true;
  /// Checkpointer, store, interrupt_before/interrupt_after (e.g. {"tools"} to review tool
  /// calls), execution mode.
  compile_options compile;
};

/// LangGraph's create_react_agent. The graph:
///   START -> ["pre_model_hook" ->] "agent" [-> "post_model_hook"]
///     -> (tool calls? "tools" : [generate_structured_response ->] END)
///   "tools" -> "pre_model_hook" or "agent" (or END after a tool with `return_direct`)
/// State: "messages" (add_messages), the managed "remaining_steps", "structured_response" with
/// a response format, and `state_schema`'s keys. With no tools, the graph is the agent alone.
///
/// The "agent" node checks the history first: an AI tool call without a tool message answering
/// it fails the node (error invalid_argument, "Found AIMessages with tool_calls that do not
/// have a corresponding ToolMessage..."). When the model still asks for tools with fewer than
/// two steps left before the recursion limit (or fewer than one, when every call is to a
/// return_direct tool), the agent answers "Sorry, need more steps to process this request."
/// instead, keeping the model message's id.
///
/// `model` gets the tools bound (`bind_tools`) unless it already has tools bound; then those
/// must be the same tools: throws `superstep::error` (invalid_argument) when their number or
/// names differ ("Number of tools in the model.bind_tools() and tools passed to
/// create_react_agent must match...", "Missing tools '...' in the model.bind_tools()"). Also
/// throws it for a null model without `model_selector`, a version other than v1/v2, and the
/// tool node's own errors.
std::shared_ptr<pregel> create_react_agent(std::shared_ptr<const chat_model> model,
                                           std::vector<tool> tools,
                                           react_agent_options options = {});

/// Throws `superstep::error` (invalid_argument) when an AI message of `messages` has a tool
/// call that no tool message answers (LangGraph's `_validate_chat_history`).
void validate_chat_history(const list& messages);

}  // namespace superstep::agents
