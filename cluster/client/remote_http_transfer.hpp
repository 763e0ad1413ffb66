#pragma once

// One HTTP transfer on libcurl for remote_graph's LangGraph Server client (client/remote_http.hpp):
// idle handles kept with their connections, a whole answer or a 2xx answer's bytes as they
// arrive, and its failure as superstep's error; the server-sent events of a run's answer, and
// what ends a transfer from another thread. Private to the remote_graph library; CAF-free.

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "superstep/core/error.hpp"

namespace superstep::remote_detail {

/// One server-sent event: its `event:` name ("message" when none came), its `data:` lines
/// joined with '\n', and its `id:`.
struct sse_event {
  std::string event;
  std::string data;
  std::string id;
};

/// Server-sent events from bytes as they arrive (the WHATWG event-stream format): `event:`,
/// `data:` (several joined), `id:`, comments (": heartbeat") skipped, an event handed on at
/// each blank line. Lines may end in "\n", "\r\n" or "\r"; a chunk may end anywhere.
class sse_parser {
 public:
  explicit sse_parser(std::function<void(sse_event)> on_event);
  /// Parses `bytes`, handing each event they complete to on_event (whose exceptions pass).
  void feed(std::string_view bytes);
  /// The end of the stream: an event without its blank line is handed on.
  void finish();

 private:
  void line(std::string_view l);
  void dispatch();

  std::function<void(sse_event)> on_event_;
  std::string partial_;  // a line not ended yet
  bool after_cr_ = false;
  sse_event current_;
  bool has_data_ = false;
};

/// Ends a streaming transfer from another thread at once: the reading thread's socket is shut
/// down and its callbacks stop the transfer. Thread-safe.
class transfer_stop {
 public:
  void stop() noexcept;
  bool stopped() const noexcept { return stopped_.load(); }
  // The socket of the transfer (libcurl's open and close socket callbacks).
  void opened(int fd) noexcept;
  void closed(int fd) noexcept;

 private:
  std::atomic<bool> stopped_{false};
  std::mutex m_;
  std::vector<int> sockets_;
};

/// Idle libcurl handles between transfers: an idle handle keeps its connection open, so the
/// next call skips the TCP and TLS handshakes; transfers at the same time each take their own.
/// Thread-safe.
class handle_pool {
 public:
  handle_pool() = default;
  ~handle_pool();
  handle_pool(const handle_pool&) = delete;
  handle_pool& operator=(const handle_pool&) = delete;

  void* take();
  void give_back(void* handle);

 private:
  std::mutex m_;
  std::vector<void*> idle_;
};

/// What a transfer got.
struct http_answer {
  bool ok = false;         ///< the transfer completed (whatever its status)
  bool connected = false;  ///< the connection was made
  bool timed_out = false;
  bool too_large = false;  ///< a whole answer over the limit (256 MiB)
  std::string detail;      ///< libcurl's words for a failed transfer
  long status = 0;
  std::string body;  ///< the answer; of a 2xx answer given to on_data, nothing
};

/// Performs `method url` with `body` (none when null) and `headers` ("Name: value") on a handle
/// of `pool`, connecting within `connect_timeout`, the whole transfer within `timeout` (zero:
/// no limit). The bytes of a 2xx answer go to `on_data` as they arrive when it is given; what
/// it throws stops the transfer and passes. With `stop`, the transfer has a connection of its
/// own, which `stop` ends at once. Never throws for HTTP or transport failures: they are in
/// the answer.
http_answer http_exchange(handle_pool& pool, const char* method, const std::string& url,
                          const std::string* body, const std::vector<std::string>& headers,
                          std::chrono::milliseconds connect_timeout,
                          std::chrono::milliseconds timeout,
                          const std::function<void(std::string_view)>* on_data,
                          transfer_stop* stop);

/// Throws what a failed transfer or an answer that is not 2xx stands for, naming the server
/// (`url`) and the call ("GET /path"): unavailable when it cannot be reached ("cannot reach
/// the server at URL: ..."), did not answer within `timeout` or was lost; protocol_error for
/// an answer too large; else the code of the status (code_of_status) with the server's
/// message (LangGraph Server's {"detail": ...}, or the answer's text).
void check_answer(const http_answer& a, const std::string& url, const std::string& call,
                  std::chrono::milliseconds timeout);

/// The code of an HTTP status that is not 2xx: 404 not_found, 401 and 403 unauthorized, 409
/// thread_busy, 408, 502, 503 and 504 unavailable, other 4xx invalid_argument, other 5xx
/// internal, anything else (a redirect, which is not followed) protocol_error.
error_code code_of_status(long status);

}  // namespace superstep::remote_detail
