// One HTTP POST through libcurl, for the chat model (the embedder of storage/src/
// embedder_openai.cpp does the same for its endpoint; the two share the approach, not code,
// since storage's helpers are private to that library).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace superstep::agents::detail {

/// Idle libcurl handles between calls: an idle handle keeps its connection open, so
/// consecutive calls skip the TCP and TLS handshakes; calls at the same time each take their own.
class handle_pool {
 public:
  handle_pool();
  ~handle_pool();
  handle_pool(const handle_pool&) = delete;
  handle_pool& operator=(const handle_pool&) = delete;

  void* take();
  void give_back(void* handle);

 private:
  std::mutex mutex_;
  std::vector<void*> idle_;
};

/// What a POST got.
struct http_answer {
  /// Empty when the transfer completed; else what failed (connect, timeout, ...).
  std::string transport_error;
  /// The url was malformed or of a protocol other than http(s).
  bool bad_url = false;
  long status = 0;
  /// The body (of a 200 answer only when no `on_data` was given).
  std::string body;
  /// The Retry-After header, in milliseconds (seconds form only).
  std::optional<std::chrono::milliseconds> retry_after;
  /// Some bytes of a 200 answer were passed to `on_data`.
  bool streamed = false;
};

/// POSTs `body` to `url` with `headers` ("Name: value" lines) within `timeout`. With
/// `on_data`, the bytes of a 200 answer go to it as they arrive; an exception it throws stops
/// the transfer and propagates. Never throws for HTTP or transport failures: they are in the
/// answer.
http_answer http_post(handle_pool& pool, const std::string& url,
                      const std::vector<std::string>& headers, const std::string& body,
                      std::chrono::milliseconds timeout,
                      const std::function<void(std::string_view)>& on_data);

/// A random uuid4 text.
std::string random_uuid();

}  // namespace superstep::agents::detail
