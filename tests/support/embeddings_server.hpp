#pragma once

// An OpenAI-compatible embeddings endpoint on loopback, for tests of the HTTP embedder: a
// thread with POSIX sockets that reads each request, records it and answers POST
// /v1/embeddings with the hashing embedder's vectors of the texts (a deterministic "model"),
// or with one of the failures a real endpoint has. One connection at a time; every answer
// closes its connection.

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "superstep/core/value.hpp"
#include "superstep/storage/embedder.hpp"

namespace superstep::test {

class embeddings_server {
 public:
  enum class mode {
    good,          ///< 200, the vectors, listed in reverse order with their "index"
    unauthorized,  ///< 401 with OpenAI's error body, which quotes the key it was given
    malformed,     ///< 200 with a body cut in the middle of its JSON
    short_data,    ///< 200 with one embedding fewer than texts
    wrong_dims,    ///< 200 with vectors one longer than asked
    slow,          ///< no answer until the client hangs up
  };

  /// What a request carried.
  struct request {
    std::string method, path, authorization;  ///< authorization: the header's value or ""
    value body;                               ///< the JSON body, parsed (null if not JSON)
  };

  /// Listens on 127.0.0.1, any free port. Vectors have `dims` numbers unless the request asks
  /// for "dimensions".
  explicit embeddings_server(std::size_t dims) : dims_(dims) {
    // libcurl must come straight here even where the environment names a proxy; child
    // processes (the CLI) inherit this.
    ::setenv("no_proxy", "127.0.0.1", 1);
    ::setenv("NO_PROXY", "127.0.0.1", 1);
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        ::listen(listener_, 16) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len) != 0 ||
        ::pipe2(wake_, O_CLOEXEC) != 0)
      throw std::runtime_error("embeddings_server: cannot listen on loopback");
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }

  ~embeddings_server() {
    const char stop = 's';
    [[maybe_unused]] const ssize_t sent = ::write(wake_[1], &stop, 1);
    thread_.join();
    ::close(listener_);
    ::close(wake_[0]);
    ::close(wake_[1]);
  }

  embeddings_server(const embeddings_server&) = delete;
  embeddings_server& operator=(const embeddings_server&) = delete;

  std::uint16_t port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
  void set_mode(mode m) { mode_ = m; }

  /// The requests so far, oldest first.
  std::vector<request> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }

  static constexpr const char* path = "/v1/embeddings";

 private:
  // Waits until `fd` is readable; false when the server is stopping.
  bool wait_readable(int fd, int timeout_ms = -1) const {
    pollfd fds[2] = {{fd, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    return ::poll(fds, 2, timeout_ms) > 0 && !(fds[1].revents & POLLIN) &&
           (fds[0].revents & (POLLIN | POLLHUP | POLLERR));
  }

  void serve() {
    while (wait_readable(listener_)) {
      const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      try {
        answer(fd);
      } catch (const std::exception& e) {  // a request this server cannot read
        reply(fd, 400, value(object{{"error", object{{"message", e.what()}}}}).to_json());
      }
      ::close(fd);
    }
  }

  // Reads one request from `fd` and answers it as the mode says.
  void answer(int fd) {
    std::string in;
    std::size_t header_end = std::string::npos, content_length = 0;
    while (header_end == std::string::npos || in.size() < header_end + 4 + content_length) {
      char buf[65536];
      if (!wait_readable(fd)) return;
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return;
      in.append(buf, static_cast<std::size_t>(n));
      if (header_end == std::string::npos &&
          (header_end = in.find("\r\n\r\n")) != std::string::npos)
        content_length =
            std::strtoul(header(in, header_end, "content-length").c_str(), nullptr, 10);
    }
    request r;
    r.method = in.substr(0, in.find(' '));
    r.path =
        in.substr(r.method.size() + 1, in.find(' ', r.method.size() + 1) - r.method.size() - 1);
    r.authorization = header(in, header_end, "authorization");
    try {
      r.body = value::parse_json(std::string_view(in).substr(header_end + 4, content_length));
    } catch (const std::exception&) {
    }
    {
      std::lock_guard lock(mutex_);
      requests_.push_back(r);
    }
    if (r.method != "POST" || r.path != path)
      return reply(fd, 404, R"({"error": {"message": "no such endpoint"}})");
    const mode m = mode_;
    if (m == mode::slow) {
      // Holds the connection until the client gives up (bounded, should it never).
      char buf[256];
      while (wait_readable(fd, 10000) && ::recv(fd, buf, sizeof buf, 0) > 0) {
      }
      return;
    }
    if (m == mode::unauthorized) {
      const std::string key = r.authorization.substr(r.authorization.find(' ') + 1);
      return reply(fd, 401,
                   value(object{{"error", object{{"message", "Incorrect API key provided: " + key +
                                                                 ". You can find your API key at "
                                                                 "https://platform.openai.com."},
                                                 {"type", "invalid_request_error"},
                                                 {"code", "invalid_api_key"}}}})
                       .to_json());
    }
    std::vector<std::string> texts;
    for (const value& t : r.body.get("input").as_list()) texts.push_back(t.as_string());
    std::size_t dims = r.body.get("dimensions").is_int()
                           ? static_cast<std::size_t>(r.body.get("dimensions").as_int())
                           : dims_;
    if (m == mode::wrong_dims) ++dims;
    const auto vectors = storage::make_hashing_embedder(dims)(texts);
    list data;
    for (std::size_t i = vectors.size(); i-- > (m == mode::short_data ? 1 : 0);) {
      list embedding(vectors[i].begin(), vectors[i].end());
      data.push_back(object{{"object", "embedding"},
                            {"index", static_cast<std::int64_t>(i)},
                            {"embedding", value(std::move(embedding))}});
    }
    std::string body = value(object{{"object", "list"},
                                    {"data", value(std::move(data))},
                                    {"model", r.body.get("model")},
                                    {"usage", object{{"prompt_tokens", 1}, {"total_tokens", 1}}}})
                           .to_json();
    if (m == mode::malformed) body.resize(body.size() / 2);
    reply(fd, 200, body);
  }

  // The value of header `name` (lowercase) in the head of `in`, or "".
  static std::string header(const std::string& in, std::size_t header_end,
                            const std::string& name) {
    for (std::size_t at = in.find("\r\n"); at < header_end; at = in.find("\r\n", at + 2)) {
      const std::size_t colon = in.find(':', at);
      if (colon > header_end) break;
      std::string key = in.substr(at + 2, colon - at - 2);
      for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (key != name) continue;
      std::size_t from = colon + 1;
      while (from < in.size() && in[from] == ' ') ++from;
      return in.substr(from, in.find("\r\n", from) - from);
    }
    return "";
  }

  static void reply(int fd, int status, const std::string& body) {
    const std::string out =
        "HTTP/1.1 " + std::to_string(status) + (status == 200 ? " OK" : " Error") +
        "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
        "\r\nConnection: close\r\n\r\n" + body;
    for (std::size_t done = 0; done < out.size();) {
      const ssize_t n = ::send(fd, out.data() + done, out.size() - done, MSG_NOSIGNAL);
      if (n <= 0) return;
      done += static_cast<std::size_t>(n);
    }
  }

  std::size_t dims_;
  int listener_ = -1;
  int wake_[2] = {-1, -1};
  std::uint16_t port_ = 0;
  std::atomic<mode> mode_{mode::good};
  mutable std::mutex mutex_;
  std::vector<request> requests_;
  std::thread thread_;
};

}  // namespace superstep::test
