#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <string_view>

namespace superstep {

class value;

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
  interrupted = 11,       ///< a node called interrupt() (GraphInterrupt); not a failure; the
                          ///< error carries the interrupts
  storage_error = 12,     ///< the checkpointer or store failed
  not_found = 13,         ///< a missing thread, checkpoint or item
  internal = 14,          ///< a bug of ours
  parent_command = 15,    ///< a Command for the parent graph leaving a subgraph
                          ///< (LangGraph ParentCommand); the error carries the Command
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

/// The readable name of a C++ type (demangled, namespaces included).
std::string type_name(const std::type_info& type);

/// The class of an exception as LangGraph names one (Python's type(e).__name__): its dynamic
/// type's name without namespaces or template arguments ("CustomError", "runtime_error");
/// for a superstep::error, the class its node_failure payload names, else "Error".
std::string exception_class(const std::exception& e);

/// The exception type of the superstep API: a numbered code and a message naming the offender,
/// and for the errors that stand for control flow a value they carry (a payload): the Command
/// of a parent_command error, the interrupts of an interrupted one, as LangGraph's
/// ParentCommand(command) and GraphInterrupt(interrupts) carry theirs. Code reads the payload,
/// never the message: the message is for people and logs.
///
/// Errors that cross an actor or process boundary travel as (code, message) pairs, with the
/// payload when they have one, and are rethrown as this type on the other side. Copies share
/// the payload (it is immutable), so an error is cheap to copy into a `std::optional<error>`
/// or an exception_ptr.
class error : public std::runtime_error {
 public:
  error(error_code code, const std::string& message) : std::runtime_error(message), code_(code) {}
  /// An error carrying `payload` (none when it is null).
  error(error_code code, const std::string& message, std::shared_ptr<const value> payload)
      : std::runtime_error(message), code_(code), payload_(std::move(payload)) {}

  /// LangGraph's ParentCommand: `command` (a Command value, see command.hpp) for the parent
  /// graph, leaving the subgraph that returned it. The message is the Command as JSON.
  static error parent_command(value command);
  /// LangGraph's GraphInterrupt: `interrupts` is one interrupt ({"value", "id"}), a list of
  /// them (all those of a subgraph), or null (a pause without a value: a subgraph's
  /// breakpoint). The message is the interrupts as JSON.
  static error interrupt(value interrupts);
  /// A node's failure from an exception that is not a superstep::error: node_error with the
  /// exception's message, carrying {"error": its class name} (`exception_class`), as LangGraph
  /// keeps the exception whose type(e).__name__ the server reports.
  static error node_failure(const std::exception& e);

  error_code code() const noexcept { return code_; }
  /// The value the error carries, or nullptr when it carries none. An interrupted or
  /// parent_command error made with the two-argument constructor carries none: the runtime
  /// takes the first as a pause without interrupts, and lets the second fail the run.
  const value* payload() const noexcept { return payload_.get(); }
  /// The payload, shared: for a copy of the error in another form (a task's error).
  const std::shared_ptr<const value>& shared_payload() const noexcept { return payload_; }

 private:
  error_code code_;
  std::shared_ptr<const value> payload_;
};

}  // namespace superstep
