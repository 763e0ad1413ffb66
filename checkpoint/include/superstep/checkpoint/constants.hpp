#pragma once

#include <string_view>

namespace superstep {

/// Reserved node and channel names, as in LangGraph.
inline constexpr std::string_view START = "__start__";
inline constexpr std::string_view END = "__end__";
inline constexpr std::string_view TASKS = "__pregel_tasks";
inline constexpr std::string_view ERROR = "__error__";
inline constexpr std::string_view INTERRUPT = "__interrupt__";
inline constexpr std::string_view RESUME = "__resume__";
/// Saved with a failed task whose node's error handler took over: the failure it handles, so a
/// resume runs the handler again, not the node (LangGraph ERROR_SOURCE_NODE).
inline constexpr std::string_view ERROR_SOURCE_NODE = "__error_source_node__";
inline constexpr std::string_view NO_WRITES = "__no_writes__";
inline constexpr std::string_view INPUT = "__input__";
inline constexpr std::string_view PUSH = "__pregel_push";
inline constexpr std::string_view PULL = "__pregel_pull";
/// The task id of writes that belong to no task: a Command's update and goto, saved against
/// the checkpoint they apply to (LangGraph NULL_TASK_ID).
inline constexpr std::string_view NULL_TASK_ID = "00000000-0000-0000-0000-000000000000";

/// Pending-write indices of the special writes (LangGraph WRITES_IDX_MAP).
inline constexpr int error_write_index = -1;
inline constexpr int scheduled_write_index = -2;
inline constexpr int interrupt_write_index = -3;
inline constexpr int resume_write_index = -4;

/// Whether `name` is a reserved channel that never reaches a channel's update().
bool is_reserved_channel(std::string_view name) noexcept;

}  // namespace superstep

namespace superstep::functional {

/// The channel of the value an entrypoint remembers between runs (LangGraph PREVIOUS).
inline constexpr std::string_view PREVIOUS = "__previous__";
/// The channel of a task call's result in its saved writes (LangGraph RETURN).
inline constexpr std::string_view RETURN = "__return__";

}  // namespace superstep::functional
