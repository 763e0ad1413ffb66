#pragma once

// What the server API's routes share (server/service.cpp, threads.cpp, runs.cpp): reading a
// request's fields, checked; merging objects; a search's page of records with its pagination
// headers; a snapshot as LangGraph Server's ThreadState.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "server/service.hpp"

namespace superstep::server::detail {

/// body[key] as a string (`fallback` when absent); api_error 422 naming the key otherwise.
std::string string_field(const value& body, std::string_view key, const std::string& fallback = "");
/// body[key] as an object ({} when absent); api_error 422 naming the key otherwise.
value object_field(const value& body, std::string_view key);
/// body[key] as a count (`fallback` when absent); api_error 422 naming the key otherwise.
std::size_t count_field(const value& body, std::string_view key, std::size_t fallback);
/// The query parameter `key` as a count (`fallback` when absent); api_error 422 otherwise.
std::size_t query_count(const http_request& r, std::string_view key, std::size_t fallback);

/// `base` with the keys of `over` set on it (a shallow merge of objects).
value merged(const value& base, const value& over);

/// A search's answer: `found` sorted by the body's sort_by (`fallback_sort` when absent;
/// newest first unless sort_order is "asc"), paged by its offset and limit (default 10), each
/// record shown through `shown` and cut to the body's `select`; with X-Pagination-Total, and
/// X-Pagination-Next when more follow.
api_response search_page(std::vector<value> found, const value& body,
                         const std::string& fallback_sort,
                         const std::function<value(const value&)>& shown);

/// The page [offset, offset + limit) of `records`.
std::vector<value> page(std::vector<value> records, std::size_t offset, std::size_t limit);

/// A config {"configurable": {thread_id, checkpoint_ns, checkpoint_id}} as the API's
/// Checkpoint; null when it has no configurable.
value checkpoint_of(const value& config);

/// `v` with its chat messages in the form LangChain serializes them to JSON, as LangGraph
/// Server sends them: each message (an object with a string "type" of a message and a
/// "content") gets "additional_kwargs" and "response_metadata" ({} when it has none), an AI
/// message "tool_calls" and "invalid_tool_calls" ([]). Looks at `v`, its members and theirs,
/// `depth` levels down (3: a state's keys, a list of messages, an update's node, a
/// messages-tuple event's pair); `v` itself when nothing there is a message short of a field.
value langchain_messages(const value& v, int depth = 3);

/// A snapshot as ops::show_state prints it (state_snapshot::to_value, each task with its
/// result) in LangGraph Server's ThreadState form.
value thread_state_of(const value& snapshot);

}  // namespace superstep::server::detail
