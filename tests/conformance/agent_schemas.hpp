#pragma once

// The JSON schemas of LangChain's AgentAction and AgentFinish, for the ports whose states hold
// them (LangGraph's syrupy snapshots of get_input_jsonschema show them under "$defs").

#include "superstep/coordinator/json_schema.hpp"

namespace superstep::conformance {

/// LangChain's AgentAction as pydantic describes it (its docstring, shown under
/// "description", left out).
inline value agent_action_schema() {
  auto type = [](const char* json) { return value::parse_json(json); };
  return object_schema{
      "AgentAction",
      {{"tool", {type(R"({"type": "string"})"), true}},
       {"tool_input",
        {type(
             R"({"anyOf": [{"type": "string"}, {"additionalProperties": true, "type": "object"}]})"),
         true}},
       {"log", {type(R"({"type": "string"})"), true}},
       {"type", {type(R"({"const": "AgentAction", "type": "string"})"), false, "AgentAction"}}}}
      .to_json_schema();
}

/// LangChain's AgentFinish, likewise.
inline value agent_finish_schema() {
  auto type = [](const char* json) { return value::parse_json(json); };
  return object_schema{
      "AgentFinish",
      {{"return_values", {type(R"({"additionalProperties": true, "type": "object"})"), true}},
       {"log", {type(R"({"type": "string"})"), true}},
       {"type", {type(R"({"const": "AgentFinish", "type": "string"})"), false, "AgentFinish"}}}}
      .to_json_schema();
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
/// LangGraph's snapshot test_large_cases.py::test_conditional_state_graph[memory] without the
/// descriptions.
inline constexpr const char* agent_state_schema = R"({"$defs": {"AgentAction": {"properties": {
  "tool": {"title": "Tool", "type": "string"}, "tool_input": {"anyOf": [{"type": "string"},
  {"additionalProperties": true, "type": "object"}], "title": "Tool Input"}, "log": {"title":
  "Log", "type": "string"}, "type": {"const": "AgentAction", "default": "AgentAction", "title":
  "Type", "type": "string"}}, "required": ["tool", "tool_input", "log"], "title": "AgentAction",
  "type": "object"}, "AgentFinish": {"properties": {"return_values": {"additionalProperties":
  true, "title": "Return Values", "type": "object"}, "log": {"title": "Log", "type": "string"},
  "type": {"const": "AgentFinish", "default": "AgentFinish", "title": "Type", "type": "string"}},
  "required": ["return_values", "log"], "title": "AgentFinish", "type": "object"}},
  "properties": {"input": {"title": "Input", "type": "string"}, "agent_outcome": {"anyOf":
  [{"$ref": "#/$defs/AgentAction"}, {"$ref": "#/$defs/AgentFinish"}, {"type": "null"}], "title":
  "Agent Outcome"}, "intermediate_steps": {"items": {"maxItems": 2, "minItems": 2,
  "prefixItems": [{"$ref": "#/$defs/AgentAction"}, {"type": "string"}], "type": "array"},
  "title": "Intermediate Steps", "type": "array"}}, "title": "AgentState", "type": "object"})";

}  // namespace superstep::conformance
