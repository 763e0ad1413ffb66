// The HTTP layer on libevent's evhttp (server/http.hpp). Everything that touches libevent
// runs on the loop thread; other threads reach it through a mailbox and a wake-up event.
#include "server/http.hpp"

#include <arpa/inet.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/thread.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <strings.h>
#include <sys/socket.h>

#include <cstdlib>
#include <unordered_map>

#include "superstep/core/error.hpp"

namespace superstep::server {

namespace {

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && ::strncasecmp(a.data(), b.data(), a.size()) == 0;
}

std::string method_name(evhttp_cmd_type cmd) {
  switch (cmd) {
    case EVHTTP_REQ_GET: return "GET";
    case EVHTTP_REQ_POST: return "POST";
    case EVHTTP_REQ_HEAD: return "HEAD";
    case EVHTTP_REQ_PUT: return "PUT";
    case EVHTTP_REQ_DELETE: return "DELETE";
    case EVHTTP_REQ_OPTIONS: return "OPTIONS";
    case EVHTTP_REQ_PATCH: return "PATCH";
    default: return "OTHER";
  }
}

// evhttp's decoders return malloc'd strings.
std::string decoded(const char* text) {
  if (!text) return {};
  std::size_t size = 0;
  char* out = evhttp_uridecode(text, 0, &size);
  if (!out) return text;
  std::string s(out, size);
  std::free(out);
  return s;
}

}  // namespace

std::string http_request::header(std::string_view name) const {
  for (const auto& [k, v] : headers)
    if (same_name(k, name)) return v;
  return {};
}

std::string http_request::query_value(std::string_view name) const {
  for (const auto& [k, v] : query)
    if (k == name) return v;
  return {};
}

bool http_request::has_query(std::string_view name) const {
  for (const auto& [k, v] : query)
    if (k == name) return true;
  return false;
}

const char* status_reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 413: return "Payload Too Large";
    case 422: return "Unprocessable Entity";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    default: return "Status";
  }
}

struct http_server::impl {
  http_options options;
  http_handler handler;
  event_base* base = nullptr;
  evhttp* http = nullptr;
  event* wake = nullptr;
  std::mutex mutex;  // the mailbox
  std::vector<std::pair<std::shared_ptr<http_exchange>, http_exchange::op>> mailbox;
  bool stopping = false;
  // Exchanges not answered yet, by request and by connection (loop thread).
  std::unordered_map<evhttp_request*, std::shared_ptr<http_exchange>> by_request;
  std::unordered_map<evhttp_connection*, std::shared_ptr<http_exchange>> by_connection;

  void forget(evhttp_request* req) {
    auto it = by_request.find(req);
    if (it == by_request.end()) return;
    it->second->request_ = nullptr;
    if (evhttp_connection* conn = evhttp_request_get_connection(req)) by_connection.erase(conn);
    by_request.erase(it);
  }

  void apply(http_exchange& x, http_exchange::op& o) {
    auto* req = static_cast<evhttp_request*>(x.request_);
    if (!req || x.gone_) return;
    if (o.what == http_exchange::op::whole || o.what == http_exchange::op::start) {
      if (x.answered_) return;
      x.answered_ = true;
      evkeyvalq* out = evhttp_request_get_output_headers(req);
      for (const auto& [k, v] : o.headers) evhttp_add_header(out, k.c_str(), v.c_str());
    }
    switch (o.what) {
      case http_exchange::op::whole: {
        evbuffer* body = evbuffer_new();
        evbuffer_add(body, o.data.data(), o.data.size());
        forget(req);
        evhttp_send_reply(req, o.status, status_reason(o.status), body);
        evbuffer_free(body);
        break;
      }
      case http_exchange::op::start:
        evhttp_send_reply_start(req, o.status, status_reason(o.status));
        break;
      case http_exchange::op::chunk: {
        evbuffer* body = evbuffer_new();
        evbuffer_add(body, o.data.data(), o.data.size());
        evhttp_send_reply_chunk(req, body);
        evbuffer_free(body);
        if (evhttp_connection* conn = evhttp_request_get_connection(req))
          if (bufferevent* bev = evhttp_connection_get_bufferevent(conn))
            x.backlog_ = evbuffer_get_length(bufferevent_get_output(bev));
        break;
      }
      case http_exchange::op::finish:
        forget(req);
        evhttp_send_reply_end(req);
        break;
    }
  }

  void drain() {
    std::vector<std::pair<std::shared_ptr<http_exchange>, http_exchange::op>> ops;
    bool stop_now = false;
    {
      std::lock_guard lock(mutex);
      ops.swap(mailbox);
      stop_now = stopping;
    }
    for (auto& [x, o] : ops) apply(*x, o);
    if (stop_now) event_base_loopexit(base, nullptr);
  }

  static void on_wake(evutil_socket_t, short, void* arg) { static_cast<impl*>(arg)->drain(); }

  static void on_close(evhttp_connection* conn, void* arg) {
    auto* self = static_cast<impl*>(arg);
    auto it = self->by_connection.find(conn);
    if (it == self->by_connection.end()) return;
    std::shared_ptr<http_exchange> x = it->second;
    self->by_connection.erase(it);
    if (x->request_) self->by_request.erase(static_cast<evhttp_request*>(x->request_));
    x->request_ = nullptr;
    x->gone_ = true;
    std::function<void()> f;
    {
      std::lock_guard lock(x->mutex_);
      f = std::move(x->on_gone_);
    }
    if (f) f();
  }

  static void on_complete(evhttp_request* req, void* arg) { static_cast<impl*>(arg)->forget(req); }

  static void on_request(evhttp_request* req, void* arg) {
    auto* self = static_cast<impl*>(arg);
    // Answers and stream events go out when written, not held for Nagle's algorithm (with the
    // client's delayed ACK, a small answer otherwise waited ~40 ms).
    if (evhttp_connection* conn = evhttp_request_get_connection(req))
      if (bufferevent* bev = evhttp_connection_get_bufferevent(conn)) {
        const int fd = bufferevent_getfd(bev);
        const int one = 1;
        if (fd >= 0) ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      }
    http_request r;
    r.method = method_name(evhttp_request_get_command(req));
    const evhttp_uri* uri = evhttp_request_get_evhttp_uri(req);
    r.path = decoded(uri ? evhttp_uri_get_path(uri) : "/");
    if (r.path.empty()) r.path = "/";
    if (const char* q = uri ? evhttp_uri_get_query(uri) : nullptr) {
      evkeyvalq params;
      if (evhttp_parse_query_str(q, &params) == 0) {
        for (evkeyval* kv = params.tqh_first; kv; kv = kv->next.tqe_next)
          r.query.emplace_back(kv->key, kv->value);
        evhttp_clear_headers(&params);
      }
    }
    evkeyvalq* in = evhttp_request_get_input_headers(req);
    for (evkeyval* kv = in->tqh_first; kv; kv = kv->next.tqe_next)
      r.headers.emplace_back(kv->key, kv->value);
    evbuffer* body = evhttp_request_get_input_buffer(req);
    r.body.resize(evbuffer_get_length(body));
    if (!r.body.empty()) evbuffer_remove(body, r.body.data(), r.body.size());
    evhttp_connection* conn = evhttp_request_get_connection(req);
    if (conn) {
      char* addr = nullptr;
      ev_uint16_t port = 0;
      evhttp_connection_get_peer(conn, &addr, &port);
      r.peer = std::string(addr ? addr : "?") + ":" + std::to_string(port);
    }

    std::shared_ptr<http_exchange> x(new http_exchange(self->owner));
    x->request_ = req;
    self->by_request[req] = x;
    if (conn) {
      self->by_connection[conn] = x;
      evhttp_connection_set_closecb(conn, &impl::on_close, self);
    }
    evhttp_request_set_on_complete_cb(req, &impl::on_complete, self);
    self->handler(std::move(r), std::move(x));
  }

  http_server* owner = nullptr;
};

void http_exchange::send(int status, header_list headers, std::string body) {
  if (gone_) return;
  server_->enqueue(shared_from_this(), op{op::whole, status, std::move(headers), std::move(body)});
}

void http_exchange::start(int status, header_list headers) {
  if (gone_) return;
  server_->enqueue(shared_from_this(), op{op::start, status, std::move(headers), {}});
}

void http_exchange::write(std::string chunk) {
  if (gone_ || chunk.empty()) return;
  backlog_ += chunk.size();
  server_->enqueue(shared_from_this(), op{op::chunk, 0, {}, std::move(chunk)});
}

void http_exchange::end() {
  if (gone_) return;
  server_->enqueue(shared_from_this(), op{op::finish, 0, {}, {}});
}

void http_exchange::on_gone(std::function<void()> f) {
  {
    std::lock_guard lock(mutex_);
    if (!gone_) {
      on_gone_ = std::move(f);
      return;
    }
  }
  f();
}

http_server::http_server(http_options options, http_handler handler)
    : impl_(std::make_unique<impl>()) {
  static const int threads_on = evthread_use_pthreads();
  (void)threads_on;
  impl_->owner = this;
  impl_->options = std::move(options);
  impl_->handler = std::move(handler);
  impl_->base = event_base_new();
  impl_->http = impl_->base ? evhttp_new(impl_->base) : nullptr;
  if (!impl_->http) throw error(error_code::unavailable, "cannot start the HTTP server's loop");
  evhttp_set_allowed_methods(impl_->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD |
                                              EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE |
                                              EVHTTP_REQ_OPTIONS | EVHTTP_REQ_PATCH);
  evhttp_set_max_body_size(impl_->http, static_cast<ev_ssize_t>(impl_->options.max_body));
  evhttp_set_max_headers_size(impl_->http, static_cast<ev_ssize_t>(impl_->options.max_headers));
  evhttp_set_timeout(impl_->http, static_cast<int>(impl_->options.timeout_s));
  evhttp_set_default_content_type(impl_->http, "application/json");
  evhttp_set_gencb(impl_->http, &impl::on_request, impl_.get());
  evhttp_bound_socket* bound =
      evhttp_bind_socket_with_handle(impl_->http, impl_->options.host.c_str(), impl_->options.port);
  if (!bound) {
    const std::string where = impl_->options.host + ":" + std::to_string(impl_->options.port);
    evhttp_free(impl_->http);
    event_base_free(impl_->base);
    throw error(error_code::unavailable,
                "cannot listen on " + where +
                    " (in use, or not an address of this machine): give --listen HOST:PORT");
  }
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(evhttp_bound_socket_get_fd(bound), reinterpret_cast<sockaddr*>(&addr), &len) ==
      0) {
    if (addr.ss_family == AF_INET)
      port_ = ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
    else if (addr.ss_family == AF_INET6)
      port_ = ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  }
  impl_->wake = event_new(impl_->base, -1, 0, &impl::on_wake, impl_.get());
}

http_server::~http_server() {
  if (impl_->wake) event_free(impl_->wake);
  // Answers never given are dropped with their connections.
  for (auto& [req, x] : impl_->by_request) {
    x->request_ = nullptr;
    x->gone_ = true;
  }
  if (impl_->http) evhttp_free(impl_->http);
  if (impl_->base) event_base_free(impl_->base);
}

void http_server::run() { event_base_dispatch(impl_->base); }

void http_server::stop() {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->stopping = true;
  }
  event_active(impl_->wake, 0, 0);
}

void http_server::enqueue(std::shared_ptr<http_exchange> x, http_exchange::op o) {
  bool first = false;
  {
    std::lock_guard lock(impl_->mutex);
    first = impl_->mailbox.empty();
    impl_->mailbox.emplace_back(std::move(x), std::move(o));
  }
  if (first) event_active(impl_->wake, 0, 0);
}

}  // namespace superstep::server
