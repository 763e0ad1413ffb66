#pragma once

#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <string_view>

namespace superstep {

/// Numbered error codes. Append only: codes travel between processes and into storage.
enum class error_code : std::uint16_t {
  none = 0,
  type_error = 1,         ///< a value had the wrong kind
  json_error = 2,         ///< malformed JSON text
  empty_channel = 3,      ///< read of a channel that holds no value (LangGraph EmptyChannelError)
  invalid_update = 4,     ///< illegal channel write (LangGraph InvalidUpdateError)
  graph_recursion = 5,    ///< recursion_limit reached (LangGraph GraphRecursionError)
  invalid_graph = 6,      ///< a graph that does not compile, named offender in the message
  invalid_spec = 7,       ///< a malformed graph spec, with the JSON path of the offender
  node_error = 8,         ///< a node raised; the message is the node's
  unknown_function = 9,   ///< a function name not found in a registry
  invalid_argument = 10,  ///< a bad argument to an API call or command
  interrupted = 11,       ///< a node called interrupt() (GraphInterrupt); not a failure
  storage_error = 12,     ///< the checkpointer or store failed
  not_found = 13,         ///< a missing thread, checkpoint or item
  internal = 14,          ///< a bug of ours
  parent_command = 15,    ///< a Command for the parent graph leaving a subgraph; the
                          ///< message is the Command as JSON
  unavailable = 16,       ///< no process of a cluster can do it (no worker hosts a node)
  unauthorized = 17,      ///< a peer without the cluster's key
  protocol_error = 18,    ///< a malformed or unexpected message from another process
  thread_busy = 19,       ///< the thread has a run in progress (multitask strategy reject)
  run_cancelled = 20,     ///< another run on the thread stopped this one (interrupt, rollback)
  node_timeout = 21,      ///< a node attempt passed its run or idle timeout (NodeTimeoutError)
  drained = 22,           ///< the run stopped between steps at a drain request (GraphDrained)
  cancelled = 23,         ///< a run, a task or a functional API task call was cancelled
                          ///< (asyncio CancelledError)
  step_timeout = 24,      ///< a step passed the graph's step_timeout (LangGraph TimeoutError)
};

std::string_view code_name(error_code c) noexcept;

/// Writes the code's name (for test output and logs).
std::ostream& operator<<(std::ostream& os, error_code c);

/// The exception type of the superstep API: a numbered code and a message naming the offender.
///
/// Errors that cross an actor or process boundary travel as (code, message) pairs and are
/// rethrown as this type on the other side.
class error : public std::runtime_error {
 public:
  error(error_code code, const std::string& message) : std::runtime_error(message), code_(code) {}
  error_code code() const noexcept { return code_; }

 private:
  error_code code_;
};

}  // namespace superstep
