#pragma once

// A small OpenAI-compatible chat-completions server on loopback that answers from a script,
// one reply per request, for tests and examples: no test reaches outside the machine.
//
// A reply is an object:
//   {"content": "text", "tool_calls": [{"id", "name", "args": {...}}], "usage":
//    {"prompt_tokens", "completion_tokens"}, "finish_reason": "stop", "chunks": ["te", "xt"]}
//      a completion; answered as JSON, or as server-sent events when the request streams
//      (content in `chunks`, by default word by word; each call's arguments in two halves);
//      its id "chatcmpl-N" (N: the request's number on this server), or the reply's "id"
//      (give ids when several servers answer one conversation: a message id is its identity);
//      "crlf": true ends the events' lines in CRLF;
//   {"status": 429, "error": "message", "retry_after": "0"}  an error answer;
//   {"raw": "text"}  a 200 answer with that body (a malformed answer);
//   {"stall": true}  reads the request and never answers (until the client hangs up);
//   {"flood": N}  a 200 event stream whose first event never ends: N bytes of one data line.
// A request past the end of the script gets HTTP 500 "script exhausted".

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "superstep/core/value.hpp"

namespace superstep::test {

class scripted_openai_server {
 public:
  /// Listens on 127.0.0.1 (`port` 0: a free port) and serves `script` on its own thread.
  /// Throws std::runtime_error when it cannot listen.
  explicit scripted_openai_server(list script = {}, std::uint16_t port = 0);
  /// Stops serving and closes every connection.
  ~scripted_openai_server();
  scripted_openai_server(const scripted_openai_server&) = delete;
  scripted_openai_server& operator=(const scripted_openai_server&) = delete;

  /// "http://127.0.0.1:PORT/v1".
  std::string base_url() const;
  std::uint16_t port() const noexcept { return port_; }
  /// Adds replies to the end of the script.
  void append(value reply);
  /// The requests received so far, in order: {"path", "authorization", "body": parsed JSON}.
  list requests() const;

  /// What a connection does after a reply.
  enum class reply_outcome { keep, close, stall };

 private:
  void serve();
  reply_outcome answer(int fd, const std::string& path, const std::string& authorization,
                       const std::string& body);

  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  std::uint16_t port_ = 0;
  mutable std::mutex mutex_;
  std::deque<value> script_;
  list requests_;
  std::int64_t served_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace superstep::test
