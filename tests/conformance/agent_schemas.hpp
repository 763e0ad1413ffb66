#pragma once

// The JSON schemas of LangChain's AgentAction and AgentFinish, for the ports whose states hold
// them (LangGraph's syrupy snapshots of get_input_jsonschema show them under "$defs").

#include "superstep/pregel/json_schema.hpp"

namespace superstep::conformance {

/// A schema with its "description" (pydantic shows a class's docstring there), in pydantic's
/// key order.
inline value described(const value& schema, const char* description) {
  object s = schema.as_object();
  s.set("description", description);
  return sort_json_schema(value(std::move(s)));
}

/// LangChain's AgentAction as pydantic describes it.
inline value agent_action_schema() {
  auto type = [](const char* json) { return value::parse_json(json); };
  const value schema = object_schema{
      "AgentAction",
      {{"tool", {type(R"({"type": "string"})"), true}},
       {"tool_input",
        {type(
             R"({"anyOf": [{"type": "string"}, {"additionalProperties": true, "type": "object"}]})"),
         true}},
       {"log", {type(R"({"type": "string"})"), true}},
       {"type",
        {type(R"({"const": "AgentAction", "type": "string"})"), false,
         "AgentAction"}}}}.to_json_schema();
  return described(schema,
                   "Represents a request to execute an action by an agent.\n\nThe action consists "
                   "of the name of the tool to execute and the input to pass\nto the tool. The log "
                   "is used to pass along extra information about the action.");
}

/// LangChain's AgentFinish, likewise.
inline value agent_finish_schema() {
  auto type = [](const char* json) { return value::parse_json(json); };
  const value schema = object_schema{
      "AgentFinish",
      {{"return_values", {type(R"({"additionalProperties": true, "type": "object"})"), true}},
       {"log", {type(R"({"type": "string"})"), true}},
       {"type",
        {type(R"({"const": "AgentFinish", "type": "string"})"), false,
         "AgentFinish"}}}}.to_json_schema();
  return described(schema,
                   "Final return value of an ActionAgent.\n\nAgents return an AgentFinish when "
                   "they have reached a stopping condition.");
}

/// The schema of a key holding an AgentAction, an AgentFinish or None.
inline value agent_outcome_schema() {
  object s = value::parse_json(R"({"anyOf": [{"$ref": "#/$defs/AgentAction"},
    {"$ref": "#/$defs/AgentFinish"}, {"type": "null"}]})")
                 .as_object();
  object defs;
  defs.set("AgentAction", agent_action_schema());
  defs.set("AgentFinish", agent_finish_schema());
  s.set("$defs", value(std::move(defs)));
  return value(std::move(s));
}

/// The schema of a list of [AgentAction, observation] pairs.
inline value intermediate_steps_schema() {
  object s = value::parse_json(R"({"type": "array", "items": {"type": "array", "prefixItems":
    [{"$ref": "#/$defs/AgentAction"}, {"type": "string"}], "minItems": 2, "maxItems": 2}})")
                 .as_object();
  object defs;
  defs.set("AgentAction", agent_action_schema());
  s.set("$defs", value(std::move(defs)));
  return value(std::move(s));
}

/// The input and output schema of an AgentState of the three keys above (TypedDict, total=False):
/// LangGraph's snapshot test_large_cases.py::test_conditional_state_graph[memory].
inline constexpr const char* agent_state_schema =
    R"({"$defs": {"AgentAction": {"description": "Represents a request to execute an action by )"
    R"(an agent.\n\nThe action consists of the name of the tool to execute and the input to )"
    R"(pass\nto the tool. The log is used to pass along extra information about the action.", )"
    R"("properties": {"tool": {"title": "Tool", "type": "string"}, "tool_input": {"anyOf": )"
    R"([{"type": "string"}, {"additionalProperties": true, "type": "object"}], "title": "Tool )"
    R"(Input"}, "log": {"title": "Log", "type": "string"}, "type": {"const": "AgentAction", )"
    R"("default": "AgentAction", "title": "Type", "type": "string"}}, "required": ["tool", )"
    R"("tool_input", "log"], "title": "AgentAction", "type": "object"}, "AgentFinish": )"
    R"({"description": "Final return value of an ActionAgent.\n\nAgents return an AgentFinish )"
    R"(when they have reached a stopping condition.", "properties": {"return_values": )"
    R"({"additionalProperties": true, "title": "Return Values", "type": "object"}, "log": )"
    R"({"title": "Log", "type": "string"}, "type": {"const": "AgentFinish", "default": )"
    R"("AgentFinish", "title": "Type", "type": "string"}}, "required": ["return_values", )"
    R"("log"], "title": "AgentFinish", "type": "object"}}, "properties": {"input": {"title": )"
    R"("Input", "type": "string"}, "agent_outcome": {"anyOf": [{"$ref": )"
    R"("#/$defs/AgentAction"}, {"$ref": "#/$defs/AgentFinish"}, {"type": "null"}], "title": )"
    R"("Agent Outcome"}, "intermediate_steps": {"items": {"maxItems": 2, "minItems": 2, )"
    R"("prefixItems": [{"$ref": "#/$defs/AgentAction"}, {"type": "string"}], "type": "array"}, )"
    R"("title": "Intermediate Steps", "type": "array"}}, "title": "AgentState", "type": )"
    R"("object"})";

}  // namespace superstep::conformance
