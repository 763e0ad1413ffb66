#pragma once

// Multi-agent handoffs (LangGraph's multi-agent how-to and langgraph-supervisor): a tool that
// passes the conversation to another agent of the parent graph, and a supervisor that routes
// between agents with such tools.

#include <memory>
#include <string>
#include <vector>

#include "superstep/agents/chat_model.hpp"
#include "superstep/agents/react_agent.hpp"
#include "superstep/agents/tool.hpp"
#include "superstep/graph/state_graph.hpp"

namespace superstep::agents {

/// A tool "transfer_to_<agent_name>" that hands the conversation to the node `agent_name` of
/// the parent graph: it answers Command(goto=agent_name, graph=PARENT, update={"messages":
/// the agent's messages plus "Successfully transferred to <agent_name>"}), as LangGraph's
/// `create_handoff_tool`. Use it in an agent that runs as a node of a graph holding
/// `agent_name`. Throws `superstep::error` (invalid_argument) for an empty name.
tool make_handoff_tool(const std::string& agent_name, std::string description = "");

/// One agent a supervisor routes to: its node name and the compiled graph that runs it
/// (e.g. a create_react_agent).
struct supervised_agent {
  std::string name;
  std::shared_ptr<const pregel> graph;
};

/// Options of `create_supervisor` (langgraph-supervisor's).
struct supervisor_options {
  /// The supervisor's own prompt (react_agent_options::prompt).
  value prompt;
  /// Name of the supervisor's node and of its messages.
  std::string name = "supervisor";
  /// Checkpointer, store, interrupts of the whole graph.
  compile_options compile;
};

/// A graph of a supervisor and its agents (langgraph-supervisor's create_supervisor): the
/// supervisor is a ReAct agent over `model` with one handoff tool per agent; an agent it hands
/// over to works on the shared "messages" and returns to the supervisor, which answers when it
/// calls no tool. Throws `superstep::error` (invalid_argument) when there are no agents, an
/// agent has no name or graph, or two agents share a name.
std::shared_ptr<pregel> create_supervisor(std::vector<supervised_agent> agents,
                                          std::shared_ptr<const chat_model> model,
                                          supervisor_options options = {});

}  // namespace superstep::agents
