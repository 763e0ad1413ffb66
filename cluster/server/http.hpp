#pragma once

// The HTTP/1.1 layer of `superstep serve`, on libevent's evhttp: one event loop thread holds
// every connection (a client waiting for a run or reading a stream costs no thread). Requests
// reach a handler on that thread, which answers at once or hands the exchange to other
// threads; an exchange is answered from any thread, whole or as a stream of chunks.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace superstep::server {

using header_list = std::vector<std::pair<std::string, std::string>>;

/// A request as the handler sees it: the body whole (bounded by http_options::max_body).
struct http_request {
  std::string method;  ///< GET, POST, PUT, PATCH, DELETE, OPTIONS or HEAD
  std::string path;    ///< decoded, without the query
  std::vector<std::pair<std::string, std::string>> query;  ///< decoded, in order
  header_list headers;
  std::string body;
  std::string peer;  ///< HOST:PORT of the client

  /// The value of header `name` (case-insensitive), empty when absent.
  std::string header(std::string_view name) const;
  /// The value of query parameter `name`, empty when absent.
  std::string query_value(std::string_view name) const;
  bool has_query(std::string_view name) const;
};

class http_server;

/// One request's answer, shared between the loop and whoever produces it. Every method may
/// be called from any thread; calls after the client went away do nothing.
class http_exchange : public std::enable_shared_from_this<http_exchange> {
 public:
  /// Answers whole.
  void send(int status, header_list headers, std::string body);
  /// Starts a streamed answer (chunked); then `write` any number of times and `end`.
  void start(int status, header_list headers);
  void write(std::string chunk);
  void end();

  /// Whether the client went away before the answer ended.
  bool gone() const noexcept { return gone_.load(); }
  /// Called once (on the loop thread) if the client goes away before the answer ended; at
  /// once if it already has.
  void on_gone(std::function<void()> f);
  /// Bytes given to `write` that the client has not taken yet (roughly: what waits in the
  /// connection's buffer), for a producer that would rather drop than pile up.
  std::size_t backlog() const noexcept { return backlog_.load(); }

 private:
  friend class http_server;
  struct op {
    enum kind : std::uint8_t { whole, start, chunk, finish } what;
    int status = 0;
    header_list headers;
    std::string data;
  };
  explicit http_exchange(http_server* server) : server_(server) {}

  http_server* server_;
  void* request_ = nullptr;  // evhttp_request*, touched on the loop thread only
  std::atomic<bool> gone_{false};
  std::atomic<std::size_t> backlog_{0};
  bool answered_ = false;  // loop thread
  std::mutex mutex_;
  std::function<void()> on_gone_;
};

struct http_options {
  std::string host = "127.0.0.1";
  std::uint16_t port = 8123;
  std::size_t max_body = 64u << 20;     ///< larger bodies get 413
  std::size_t max_headers = 64u << 10;  ///< larger header blocks get 400
  unsigned timeout_s = 60;              ///< a client silent this long while sending is dropped
};

using http_handler = std::function<void(http_request, std::shared_ptr<http_exchange>)>;

class http_server {
 public:
  /// Binds to options.host:port (port 0: any free one). Throws superstep::error
  /// (unavailable) naming the address when it cannot.
  http_server(http_options options, http_handler handler);
  ~http_server();
  http_server(const http_server&) = delete;
  http_server& operator=(const http_server&) = delete;

  /// The port bound.
  std::uint16_t port() const noexcept { return port_; }

  /// Runs the loop on this thread until `stop`.
  void run();
  /// Ends `run` (from any thread); streams still open are ended.
  void stop();

 private:
  friend class http_exchange;
  struct impl;
  void enqueue(std::shared_ptr<http_exchange> x, http_exchange::op o);

  std::unique_ptr<impl> impl_;
  std::uint16_t port_ = 0;
};

/// The reason phrase of an HTTP status ("Not Found").
const char* status_reason(int status);

}  // namespace superstep::server
