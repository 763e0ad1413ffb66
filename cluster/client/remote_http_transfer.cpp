// One HTTP transfer on libcurl for remote_graph's LangGraph Server client
// (client/remote_http_transfer.hpp), the server-sent events parser and the stop of a transfer.
#include "client/remote_http_transfer.hpp"

#include <curl/curl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <exception>
#include <memory>

#include "superstep/core/value.hpp"

namespace superstep::remote_detail {

namespace {

// A whole answer larger than this is not one the API gives.
constexpr std::size_t max_answer_bytes = std::size_t(256) << 20;

void init_curl_once() {
  // curl_global_init is not thread-safe on every libcurl: once per process, before any handle.
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
      throw error(error_code::internal, "remote_graph: libcurl could not be initialized");
  });
}

// The message of an answer that is not 2xx: LangGraph Server's {"detail": ...}, else the text.
std::string message_of(const std::string& body) {
  try {
    const value v = value::parse_json(body);
    for (const char* key : {"detail", "message", "error"})
      if (v.get(key).is_string()) return v.get(key).as_string();
  } catch (const error&) {
  }
  std::string text = body.substr(0, 2000);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text.empty() ? "(no message)" : text;
}

struct slist_deleter {
  void operator()(curl_slist* l) const noexcept { curl_slist_free_all(l); }
};

// One transfer's state, shared with libcurl's callbacks.
struct transfer {
  CURL* curl = nullptr;
  const std::function<void(std::string_view)>* on_data = nullptr;  // a 2xx answer streamed
  transfer_stop* stop = nullptr;
  long status = 0;
  std::string body;  // the answer (all of it, or of a failure)
  std::exception_ptr failure;
  bool too_large = false;
};

long status_of(transfer& t) {
  if (t.status == 0) curl_easy_getinfo(t.curl, CURLINFO_RESPONSE_CODE, &t.status);
  return t.status;
}

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<transfer*>(user);
  const std::size_t n = size * count;
  if (t->stop && t->stop->stopped()) return 0;
  const long status = status_of(*t);
  if (status >= 200 && status < 300 && t->on_data && *t->on_data) {
    try {
      (*t->on_data)(std::string_view(data, n));
    } catch (...) {
      t->failure = std::current_exception();
      return 0;  // libcurl stops with CURLE_WRITE_ERROR
    }
    return n;
  }
  if (t->body.size() + n > max_answer_bytes) {
    t->too_large = true;
    return 0;
  }
  t->body.append(data, n);
  return n;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<transfer*>(user);
  return t->stop && t->stop->stopped() ? 1 : 0;
}

curl_socket_t on_open_socket(void* user, curlsocktype, curl_sockaddr* address) {
  auto* stop = static_cast<transfer_stop*>(user);
  const int fd = ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
  if (fd < 0) return CURL_SOCKET_BAD;
  stop->opened(fd);
  return fd;
}

int on_close_socket(void* user, curl_socket_t fd) {
  static_cast<transfer_stop*>(user)->closed(fd);
  return ::close(fd);
}

}  // namespace

handle_pool::~handle_pool() {
  for (void* h : idle_) curl_easy_cleanup(static_cast<CURL*>(h));
}

void* handle_pool::take() {
  {
    std::lock_guard lock(m_);
    if (!idle_.empty()) {
      void* h = idle_.back();
      idle_.pop_back();
      return h;
    }
  }
  init_curl_once();
  CURL* h = curl_easy_init();
  if (!h) throw error(error_code::internal, "remote_graph: curl_easy_init failed");
  return h;
}

void handle_pool::give_back(void* handle) {
  curl_easy_reset(static_cast<CURL*>(handle));  // forgets the call's options, keeps connections
  std::lock_guard lock(m_);
  if (idle_.size() < 4) {
    idle_.push_back(handle);
    return;
  }
  curl_easy_cleanup(static_cast<CURL*>(handle));
}

http_answer http_exchange(handle_pool& pool, const char* method, const std::string& url,
                          const std::string* body, const std::vector<std::string>& headers,
                          std::chrono::milliseconds connect_timeout,
                          std::chrono::milliseconds timeout,
                          const std::function<void(std::string_view)>* on_data,
                          transfer_stop* stop) {
  std::unique_ptr<curl_slist, slist_deleter> list;
  for (const std::string& h : headers) {
    curl_slist* l = curl_slist_append(list.get(), h.c_str());
    if (!l) throw error(error_code::internal, "remote_graph: out of memory");
    static_cast<void>(list.release());
    list.reset(l);
  }
  CURL* c = static_cast<CURL*>(pool.take());
  transfer t;
  t.curl = c;
  t.on_data = on_data;
  t.stop = stop;
  char detail[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  if (body) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body->data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body->size()));
  } else if (std::string_view(method) == "POST") {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, "");
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(0));
  } else {
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
  }
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, list.get());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, detail);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(connect_timeout.count()));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM, safe in threads
  curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
  if (stop) {
    // A transfer another thread may end: a connection of its own, whose socket it can shut.
    curl_easy_setopt(c, CURLOPT_FRESH_CONNECT, 1L);
    curl_easy_setopt(c, CURLOPT_FORBID_REUSE, 1L);
    curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, on_open_socket);
    curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, stop);
    curl_easy_setopt(c, CURLOPT_CLOSESOCKETFUNCTION, on_close_socket);
    curl_easy_setopt(c, CURLOPT_CLOSESOCKETDATA, stop);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, &t);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  }
  http_answer a;
  const CURLcode done = curl_easy_perform(c);
  a.ok = done == CURLE_OK;
  a.timed_out = done == CURLE_OPERATION_TIMEDOUT;
  status_of(t);
  curl_off_t connect_us = 0;
  curl_easy_getinfo(c, CURLINFO_CONNECT_TIME_T, &connect_us);
  a.connected = connect_us > 0 || t.status != 0;
  if (a.ok)
    pool.give_back(c);  // only a handle that finished cleanly keeps its connection
  else
    curl_easy_cleanup(c);
  if (t.failure) std::rethrow_exception(t.failure);
  a.detail = detail[0] ? detail : curl_easy_strerror(done);
  a.status = t.status;
  a.body = std::move(t.body);
  a.too_large = t.too_large;
  return a;
}

void check_answer(const http_answer& a, const std::string& url, const std::string& call,
                  std::chrono::milliseconds timeout) {
  if (!a.ok) {
    if (a.too_large)
      throw error(error_code::protocol_error, "the server at " + url + " answered " + call +
                                                  " with more than " +
                                                  std::to_string(max_answer_bytes >> 20) + " MiB");
    if (!a.connected)
      throw error(error_code::unavailable, "cannot reach the server at " + url + ": " + a.detail);
    if (a.timed_out)
      throw error(error_code::unavailable, "the server at " + url + " did not answer " + call +
                                               " within " + std::to_string(timeout.count()) +
                                               " ms");
    throw error(error_code::unavailable,
                "lost the server at " + url + " before " + call + " ended: " + a.detail);
  }
  if (a.status < 200 || a.status >= 300)
    throw error(code_of_status(a.status), "the server at " + url + " answered " + call +
                                              " with HTTP " + std::to_string(a.status) + ": " +
                                              message_of(a.body));
}

error_code code_of_status(long status) {
  switch (status) {
    case 404: return error_code::not_found;
    case 401:
    case 403: return error_code::unauthorized;
    case 409: return error_code::thread_busy;
    case 408:
    case 502:
    case 503:
    case 504: return error_code::unavailable;
    default:
      if (status >= 400 && status < 500) return error_code::invalid_argument;
      return status >= 500 ? error_code::internal : error_code::protocol_error;
  }
}

sse_parser::sse_parser(std::function<void(sse_event)> on_event) : on_event_(std::move(on_event)) {}

void sse_parser::feed(std::string_view bytes) {
  for (char c : bytes) {
    if (after_cr_) {
      after_cr_ = false;
      if (c == '\n') continue;  // the "\n" of a "\r\n"
    }
    if (c == '\r' || c == '\n') {
      after_cr_ = c == '\r';
      const std::string l = std::move(partial_);
      partial_.clear();
      line(l);
      continue;
    }
    partial_ += c;
  }
}

void sse_parser::finish() {
  if (!partial_.empty()) {
    const std::string l = std::move(partial_);
    partial_.clear();
    line(l);
  }
  dispatch();
}

void sse_parser::line(std::string_view l) {
  if (l.empty()) {
    dispatch();
    return;
  }
  if (l.front() == ':') return;  // a comment: the server's heartbeat
  const std::size_t colon = l.find(':');
  std::string_view field = l.substr(0, colon);
  std::string_view text =
      colon == std::string_view::npos ? std::string_view() : l.substr(colon + 1);
  if (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  if (field == "event") {
    current_.event = std::string(text);
  } else if (field == "data") {
    if (has_data_) current_.data += '\n';
    current_.data += text;
    has_data_ = true;
  } else if (field == "id") {
    current_.id = std::string(text);
  }  // retry and unknown fields: nothing to do
}

void sse_parser::dispatch() {
  if (current_.event.empty() && !has_data_) return;
  sse_event ev = std::move(current_);
  current_ = sse_event();
  has_data_ = false;
  if (ev.event.empty()) ev.event = "message";
  on_event_(std::move(ev));
}

void transfer_stop::stop() noexcept {
  stopped_ = true;
  std::lock_guard lock(m_);
  for (int fd : sockets_) ::shutdown(fd, SHUT_RDWR);  // the reading thread wakes at once
}

void transfer_stop::opened(int fd) noexcept {
  std::lock_guard lock(m_);
  sockets_.push_back(fd);
  if (stopped_) ::shutdown(fd, SHUT_RDWR);
}

void transfer_stop::closed(int fd) noexcept {
  std::lock_guard lock(m_);
  sockets_.erase(std::remove(sockets_.begin(), sockets_.end(), fd), sockets_.end());
}

}  // namespace superstep::remote_detail
