// A tool call's arguments checked against the tool's JSON schema, with pydantic's wording (the
// validation LangChain's tools do before running): the subset of JSON schema tools use.
#pragma once

#include <string>
#include <vector>

#include "superstep/core/value.hpp"

namespace superstep::agents::detail {

/// The problems of `args` under `schema`, one "loc: msg" line each ("some_val: Field
/// required", "days.0: Input should be a valid string"); none when it conforms. Understands
/// "type" (a name or a list of names), "properties", "required", "additionalProperties":
/// false, "items", "enum"; other keywords are not checked.
std::vector<std::string> check_arguments(const value& schema, const value& args);

}  // namespace superstep::agents::detail
