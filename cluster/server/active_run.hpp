#pragma once

// Internal to the server's runs (server/runs.cpp, run_queries.cpp): a run this process carries
// out, and the headers of its event streams.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ops/operations.hpp"
#include "server/http.hpp"
#include "superstep/core/value.hpp"
#include "superstep/pregel/run_control.hpp"

namespace superstep::server {

class http_exchange;

/// The legacy `messages` stream mode of a run: the model's chunks become messages/metadata
/// (a message's first) and messages/partial (the message so far) events; the messages of the
/// nodes' updates, messages/complete ones, each once.
struct legacy_message_stream {
  std::map<std::string, value> partial;  // by message id
  std::set<std::string> completed;
  void chunk(const value& data, const std::function<void(const std::string&, const value&)>& emit);
  void update(const value& data, const std::function<void(const std::string&, const value&)>& emit);
};

/// A run this process is carrying out (or holding until after_seconds).
struct active_run {
  std::string run_id, thread_id, assistant_id, graph_id;
  bool temporary = false;  // a stateless run's thread, deleted when it ends
  ops::run_args args;
  value spec;
  std::chrono::steady_clock::time_point not_before;
  std::shared_ptr<run_control> control = std::make_shared<run_control>();
  bool cancel_on_disconnect = false;
  bool resumable = false;  // stream_resumable: its events are kept a while after it ends
  std::shared_ptr<legacy_message_stream> legacy_messages;  // with stream_mode "messages"
  bool tuple_messages = false;                             // "messages-tuple" asked too
  bool hide_updates = false;                               // updates made only for legacy_messages

  std::mutex mutex;
  std::condition_variable ended;    // done became true
  std::vector<std::string> frames;  // every event so far, as sent (for a stream that joins)
  std::vector<std::shared_ptr<http_exchange>> streams;
  // The thread's streams (GET /threads/{id}/stream) while it runs: written to, never ended.
  std::vector<std::shared_ptr<http_exchange>> thread_streams;
  std::vector<std::shared_ptr<http_exchange>>
      kept_alive;  // runs/wait and join, answered at the end
  std::vector<std::function<void(const value&)>> waiters;
  bool started = false, done = false;
  std::string status = "pending";
  std::string started_at;     // when it started running (ISO 8601)
  std::string cancel_action;  // interrupt or rollback, once cancelled
  value result;               // what runs/wait and join answer
  // The thread's state (ThreadState) as the run left it, told by the run itself (on the run's
  // thread, before finish_run): nullopt when it failed.
  std::optional<value> final_state;
};

/// An event's data as the API streams it: checkpoint events (the `checkpoints` mode, the
/// `debug` mode's) with `checkpoint` and `parent_checkpoint`; a starting task (`tasks` mode)
/// with its `interrupts`, none yet.
value api_event_data(const std::string& type, const value& data);

namespace detail {

/// The headers of a run's event stream, which clients rejoin at `location` + "/stream".
header_list sse_headers(const std::string& location);

}  // namespace detail

}  // namespace superstep::server
