#pragma once

// A client's command to a head as typed fields (cluster/schema/request.capnp): the client
// parses its own command line and reads its own files; the head runs the command from the
// fields alone and never parses an argument list or opens a path a client names. CAF-free.

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "net/command.hpp"

namespace superstep::net {

/// Client -> head: a run, state, history, update, delete, graph, cancel or threads command as
/// the client parsed it, with the graph spec it read. Only the fields that travel are set: where a
/// command runs
/// (--data, GRAPH.json's path, --plugin, --head, --key-file, TLS) is never sent.
///
/// To carry a new option: add it to the operation's struct in net/command.hpp, a field at the end
/// of ClientRequest in request.capnp, and one line each to encode_request and decode_request.
struct client_request {
  net::command cmd;
  std::optional<value> spec;
  /// A graph the head serves by name (`superstep head --serve`), in place of `spec`
  /// (remote_graph). Empty: none.
  std::string graph;
  /// The client reads a failure as a numbered code (the head sends `failure` before
  /// `finished`).
  bool typed_errors = false;
  /// Headers sent with the request (remote_graph_options::headers, remote_run_options::
  /// headers, the tracing headers): names are not empty. What a run does with them:
  /// net/headers.hpp.
  std::map<std::string, std::string> headers;
  /// Set by the decoder instead of throwing when the bytes are not a request this head can
  /// run: why, for the refusal the client is sent.
  std::string malformed;
};

/// The request for `cmd` (a thread command given --head) with the spec the client read.
/// `cmd`'s thread must be set (a run without one gets a fresh id from the caller); a
/// graph_args (remote_graph::get_graph) and a threads_args have none; a cancel_args names its
/// run. Throws usage_error for a command a head does not run.
client_request make_client_request(const net::command& cmd, std::optional<value> spec);

/// The request as Cap'n Proto bytes. Throws error(protocol_error) for a value that cannot be
/// encoded (nested too deeply) and usage_error for a command a head does not run.
std::string encode_request(const client_request& r);

/// The request in `bytes`. Throws error(protocol_error) naming what is malformed: bytes that
/// are not a message, a newer format, an unknown command kind, a missing thread, a bad
/// stream mode or durability, a cancel naming no run, a threads request naming a thread, a
/// header without a name or named twice.
client_request decode_request(std::string_view bytes);

}  // namespace superstep::net
