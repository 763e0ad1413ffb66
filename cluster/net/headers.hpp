#pragma once

// The headers of a client's request to a head (client_request::headers): what the client adds
// for distributed tracing, and what a run on the head sees of them. CAF-free.

#include <map>
#include <optional>
#include <string>

#include "superstep/core/value.hpp"
#include "superstep/pregel/trace_context.hpp"

namespace superstep::net {

using header_map = std::map<std::string, std::string>;

/// `headers` with the tracing headers of `current` (trace_context::to_headers) when there is
/// one (LangGraph's `_merge_tracing_headers`): they replace headers of the same name, except
/// that a given "baggage" keeps its items before the trace's ("given,trace"). Without a
/// current trace, `headers` unchanged.
header_map with_tracing_headers(header_map headers, const std::optional<trace_context>& current);

/// The config a head runs a run request with, given the request's headers (as LangGraph's
/// server passes request headers to configurable, `http.configurable_headers`): each header
/// named `x-...` (any case), but x-api-key, is set in configurable under its lower-case name
/// unless the config sets that key; a "langsmith-trace" header (with its "baggage") becomes
/// the config's trace (the caller's run, which the run then carries its own under), replacing
/// one the config had. Throws `superstep::error` (invalid_argument) naming a malformed
/// tracing header.
value run_config_with_headers(const value& config, const header_map& headers);

}  // namespace superstep::net
