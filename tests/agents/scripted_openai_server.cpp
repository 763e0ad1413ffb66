#include "agents/scripted_openai_server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <stdexcept>
#include <vector>

#include "superstep/core/error.hpp"

namespace superstep::test {

namespace {

struct connection {
  std::string in;
  bool stalled = false;  // a {"stall": true} reply: read and drop until the client hangs up
};

bool send_all(int fd, const std::string& data) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

std::string reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Status";
  }
}

std::string http_response(int status, const std::string& body, const std::string& extra_headers,
                          const std::string& content_type = "application/json") {
  return "HTTP/1.1 " + std::to_string(status) + " " + reason(status) +
         "\r\nContent-Type: " + content_type +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" + extra_headers + "\r\n" +
         body;
}

// The OpenAI form of a scripted call {"id", "name", "args"}, with `arguments` as given.
value openai_call(const value& call, std::int64_t index, value arguments, bool with_header) {
  object out{{"index", index}};
  if (with_header) {
    out.set("id", call.get("id"));
    out.set("type", "function");
  }
  object fn;
  if (with_header) fn.set("name", call.get("name"));
  fn.set("arguments", std::move(arguments));
  out.set("function", value(std::move(fn)));
  return value(std::move(out));
}

std::vector<std::string> word_chunks(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == ' ' && i + 1 < text.size()) {
      out.push_back(text.substr(start, i + 1 - start));
      start = i + 1;
    }
  if (start < text.size()) out.push_back(text.substr(start));
  return out;
}

std::string header_value(const std::string& head, std::string_view name) {
  std::size_t at = 0;
  while ((at = head.find("\r\n", at)) != std::string::npos) {
    at += 2;
    if (head.size() - at < name.size() + 1) break;
    bool match = true;
    for (std::size_t i = 0; i < name.size() && match; ++i)
      match = std::tolower(static_cast<unsigned char>(head[at + i])) == name[i];
    if (match && head[at + name.size()] == ':') {
      std::size_t end = head.find("\r\n", at);
      std::string v = head.substr(at + name.size() + 1, end - at - name.size() - 1);
      while (!v.empty() && v.front() == ' ') v.erase(0, 1);
      return v;
    }
  }
  return {};
}

scripted_openai_server::reply_outcome sent(bool ok) {
  return ok ? scripted_openai_server::reply_outcome::keep
            : scripted_openai_server::reply_outcome::close;
}

}  // namespace

scripted_openai_server::scripted_openai_server(list script, std::uint16_t port)
    : script_(script.begin(), script.end()) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (listen_fd_ < 0) throw std::runtime_error("scripted server: socket failed");
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 16) != 0) {
    ::close(listen_fd_);
    throw std::runtime_error("scripted server: cannot listen on 127.0.0.1:" + std::to_string(port) +
                             ": " + std::strerror(errno));
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  if (::pipe(wake_) != 0) {
    ::close(listen_fd_);
    throw std::runtime_error("scripted server: pipe failed");
  }
  thread_ = std::thread([this] { serve(); });
}

scripted_openai_server::~scripted_openai_server() {
  stopping_ = true;
  const char byte = 0;
  [[maybe_unused]] const ssize_t n = ::write(wake_[1], &byte, 1);
  if (thread_.joinable()) thread_.join();
  ::close(listen_fd_);
  ::close(wake_[0]);
  ::close(wake_[1]);
}

std::string scripted_openai_server::base_url() const {
  return "http://127.0.0.1:" + std::to_string(port_) + "/v1";
}

void scripted_openai_server::append(value reply) {
  std::lock_guard lock(mutex_);
  script_.push_back(std::move(reply));
}

list scripted_openai_server::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

void scripted_openai_server::serve() {
  std::map<int, connection> connections;
  while (!stopping_) {
    std::vector<pollfd> fds{{wake_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}};
    for (const auto& [fd, c] : connections) fds.push_back({fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents) break;
    if (fds[1].revents & POLLIN) {
      const int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd >= 0) connections[fd];
    }
    for (std::size_t i = 2; i < fds.size(); ++i) {
      if (!fds[i].revents) continue;
      const int fd = fds[i].fd;
      char buffer[16384];
      const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
      bool keep = n > 0;
      connection& c = connections[fd];
      if (keep && !c.stalled) {
        c.in.append(buffer, static_cast<std::size_t>(n));
        // Every complete request in the buffer, in order.
        while (keep && !c.stalled) {
          const std::size_t head_end = c.in.find("\r\n\r\n");
          if (head_end == std::string::npos) break;
          const std::string head = c.in.substr(0, head_end);
          const std::string length = header_value(head, "content-length");
          const std::size_t body_size = length.empty() ? 0 : std::stoul(length);
          if (c.in.size() < head_end + 4 + body_size) break;
          const std::string body = c.in.substr(head_end + 4, body_size);
          c.in.erase(0, head_end + 4 + body_size);
          const std::size_t sp1 = head.find(' '), sp2 = head.find(' ', sp1 + 1);
          const std::string path = head.substr(sp1 + 1, sp2 - sp1 - 1);
          const reply_outcome outcome = answer(fd, path, header_value(head, "authorization"), body);
          keep = outcome != reply_outcome::close;
          c.stalled = outcome == reply_outcome::stall;
        }
      }
      if (!keep) {
        ::close(fd);
        connections.erase(fd);
      }
    }
  }
  for (const auto& [fd, c] : connections) ::close(fd);
}

scripted_openai_server::reply_outcome scripted_openai_server::answer(
    int fd, const std::string& path, const std::string& authorization, const std::string& body) {
  value request;
  try {
    request = value::parse_json(body);
  } catch (const error&) {
    request = value(body);
  }
  value reply;
  std::int64_t number = 0;
  {
    std::lock_guard lock(mutex_);
    requests_.push_back(
        object{{"path", path}, {"authorization", authorization}, {"body", request}});
    number = ++served_;
    if (!script_.empty()) {
      reply = script_.front();
      script_.pop_front();
    }
  }
  if (path != "/v1/chat/completions")
    return sent(send_all(fd, http_response(404, R"({"error":{"message":"no such path"}})", "")));
  if (reply.is_null())
    return sent(
        send_all(fd, http_response(500, R"({"error":{"message":"script exhausted"}})", "")));
  if (reply.get("stall").truthy()) return reply_outcome::stall;
  if (const value& status = reply.get("status"); status.is_int() && status.as_int() != 200) {
    std::string headers;
    if (reply.get("retry_after").is_string())
      headers = "Retry-After: " + reply.get("retry_after").as_string() + "\r\n";
    const value err =
        object{{"error", object{{"message", reply.get("error")}, {"type", "scripted"}}}};
    return sent(
        send_all(fd, http_response(static_cast<int>(status.as_int()), err.to_json(), headers)));
  }
  if (const value& flood = reply.get("flood"); flood.is_int()) {
    // A stream that never ends its first event: `flood` bytes of one data line, 1 MiB at a
    // time, or until the client hangs up.
    if (!send_all(fd,
                  "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: "
                  "close\r\n\r\ndata: "))
      return reply_outcome::close;
    const std::string piece(std::size_t(1) << 20, 'x');
    for (std::int64_t left = flood.as_int(); left > 0; left -= std::int64_t(piece.size()))
      if (!send_all(fd, piece)) break;
    return reply_outcome::close;
  }
  if (reply.get("raw").is_string())
    return sent(send_all(fd, http_response(200, reply.get("raw").as_string(), "")));

  const std::string id = reply.get("id").is_string() ? reply.get("id").as_string()
                                                     : "chatcmpl-" + std::to_string(number);
  const value model = request.get("model");
  const std::string content =
      reply.get("content").is_string() ? reply.get("content").as_string() : "";
  const list calls = reply.get("tool_calls").is_list() ? reply.get("tool_calls").as_list() : list{};
  const value finish = reply.get("finish_reason").is_string() ? reply.get("finish_reason")
                       : calls.empty()                        ? value("stop")
                                                              : value("tool_calls");
  value usage;
  if (reply.get("usage").is_object()) {
    const std::int64_t p = reply.get("usage").get("prompt_tokens").as_int();
    const std::int64_t c = reply.get("usage").get("completion_tokens").as_int();
    usage = object{{"prompt_tokens", p}, {"completion_tokens", c}, {"total_tokens", p + c}};
  }
  if (!request.get("stream").truthy()) {
    object message{{"role", "assistant"},
                   {"content", content.empty() && !calls.empty() ? value() : value(content)}};
    if (!calls.empty()) {
      list openai;
      for (std::size_t i = 0; i < calls.size(); ++i)
        openai.push_back(openai_call(calls[i], static_cast<std::int64_t>(i),
                                     calls[i].get("args").to_json(), true));
      message.set("tool_calls", value(std::move(openai)));
    }
    object doc{{"id", id},
               {"object", "chat.completion"},
               {"model", model},
               {"choices", list{object{{"index", 0},
                                       {"message", value(std::move(message))},
                                       {"finish_reason", finish}}}}};
    if (!usage.is_null()) doc.set("usage", usage);
    return sent(send_all(fd, http_response(200, value(std::move(doc)).to_json(), "")));
  }

  // Server-sent events, then the connection closes (no length to announce).
  const auto event = [&](value delta, value finish_reason) {
    object chunk{{"id", id},
                 {"object", "chat.completion.chunk"},
                 {"model", model},
                 {"choices", list{object{{"index", 0},
                                         {"delta", std::move(delta)},
                                         {"finish_reason", std::move(finish_reason)}}}}};
    return "data: " + value(std::move(chunk)).to_json() + "\n\n";
  };
  std::string out =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
  out += event(object{{"role", "assistant"}, {"content", ""}}, value());
  std::vector<std::string> pieces;
  if (reply.get("chunks").is_list()) {
    for (const value& p : reply.get("chunks").as_list()) pieces.push_back(p.as_string());
  } else {
    pieces = word_chunks(content);
  }
  for (const std::string& p : pieces) out += event(object{{"content", p}}, value());
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const std::string args = calls[i].get("args").to_json();
    const std::size_t half = args.size() / 2;
    const auto index = static_cast<std::int64_t>(i);
    out += event(object{{"tool_calls", list{openai_call(calls[i], index, "", true)}}}, value());
    out += event(
        object{{"tool_calls", list{openai_call(calls[i], index, args.substr(0, half), false)}}},
        value());
    out +=
        event(object{{"tool_calls", list{openai_call(calls[i], index, args.substr(half), false)}}},
              value());
  }
  out += event(object{}, finish);
  if (!usage.is_null() && request.get("stream_options").get("include_usage").truthy())
    out += "data: " +
           value(object{{"id", id},
                        {"object", "chat.completion.chunk"},
                        {"model", model},
                        {"choices", list{}},
                        {"usage", usage}})
               .to_json() +
           "\n\n";
  out += "data: [DONE]\n\n";
  if (reply.get("crlf").truthy()) {
    // Events ending in CRLF pairs, as some servers send them.
    const std::size_t head = out.find("\r\n\r\n") + 4;
    std::string events;
    for (std::size_t i = head; i < out.size(); ++i) {
      if (out[i] == '\n') events += '\r';
      events += out[i];
    }
    out = out.substr(0, head) + events;
  }
  send_all(fd, out);
  return reply_outcome::close;
}

}  // namespace superstep::test
