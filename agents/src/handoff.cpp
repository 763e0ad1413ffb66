#include "superstep/agents/handoff.hpp"

#include <set>
#include <utility>

#include "superstep/agents/messages.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/send.hpp"

namespace superstep::agents {

tool make_handoff_tool(const std::string& agent_name, std::string description) {
  if (agent_name.empty())
    throw error(error_code::invalid_argument, "make_handoff_tool: the agent name is empty");
  tool t;
  t.name = "transfer_to_" + agent_name;
  t.description =
      description.empty() ? "Ask agent '" + agent_name + "' for help" : std::move(description);
  t.injected_state = {{"state", ""}};
  t.function = [agent_name, name = t.name](const value& args, tool_runtime& rt) {
    list messages;
    if (const value& m = args.get("state").get("messages"); m.is_list()) messages = m.as_list();
    messages.push_back(
        tool_message("Successfully transferred to " + agent_name, rt.tool_call_id(), name));
    command c;
    c.go_to = {value(agent_name)};
    c.graph = command::parent;
    c.update = object{{"messages", value(std::move(messages))}};
    return make_command(c);
  };
  return t;
}

std::shared_ptr<pregel> create_supervisor(std::vector<supervised_agent> agents,
                                          std::shared_ptr<const chat_model> model,
                                          supervisor_options options) {
  const auto invalid = [](const std::string& why) {
    throw error(error_code::invalid_argument, "create_supervisor: " + why);
  };
  if (agents.empty()) invalid("no agents");
  std::set<std::string> names;
  std::vector<tool> handoffs;
  for (const supervised_agent& a : agents) {
    if (a.name.empty() || !a.graph) invalid("an agent needs a name and a graph");
    if (a.name == options.name) invalid("an agent is named like the supervisor ('" + a.name + "')");
    if (!names.insert(a.name).second) invalid("two agents are named '" + a.name + "'");
    handoffs.push_back(make_handoff_tool(a.name));
  }
  react_agent_options o;
  o.prompt = options.prompt;
  o.name = options.name;
  // The supervisor runs inside the graph built here: its checkpoints are the graph's.
  o.compile.mode = options.compile.mode;
  o.compile.driver = options.compile.driver;
  o.compile.executor = options.compile.executor;
  std::shared_ptr<const pregel> supervisor =
      create_react_agent(std::move(model), std::move(handoffs), o);

  state_graph g;
  g.add_key("messages", "add_messages");
  node_options supervisor_node;
  for (const supervised_agent& a : agents) supervisor_node.destinations.push_back(a.name);
  supervisor_node.destinations.push_back(std::string(END));
  g.add_node(options.name, supervisor, supervisor_node);
  g.add_edge(std::string(START), options.name);
  for (const supervised_agent& a : agents) {
    g.add_node(a.name, a.graph);
    g.add_edge(a.name, options.name);
  }
  return g.compile(std::move(options.compile));
}

}  // namespace superstep::agents
