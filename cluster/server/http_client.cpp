// One HTTP request on libevent's evhttp (server/http_client.hpp).
#include "server/http_client.hpp"

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <memory>

#include "superstep/core/error.hpp"

namespace superstep::server {

namespace {

struct answer {
  int status = 0;  // 0: none came
};

void on_answer(evhttp_request* req, void* arg) {
  auto* a = static_cast<answer*>(arg);
  a->status = req ? evhttp_request_get_response_code(req) : 0;
}

template <class T, void (*Free)(T*)>
struct freer {
  void operator()(T* p) const noexcept {
    if (p) Free(p);
  }
};

}  // namespace

int http_post_json(const std::string& url, const std::string& body, std::chrono::seconds timeout) {
  std::unique_ptr<evhttp_uri, freer<evhttp_uri, evhttp_uri_free>> uri(
      evhttp_uri_parse(url.c_str()));
  if (!uri) throw error(error_code::invalid_argument, "'" + url + "' is not a URL");
  const char* scheme_text = evhttp_uri_get_scheme(uri.get());
  const std::string scheme = scheme_text ? scheme_text : "";
  const char* host = evhttp_uri_get_host(uri.get());
  if ((scheme != "http" && scheme != "https") || !host || !*host)
    throw error(error_code::invalid_argument,
                "'" + url + "' is not an http:// or https:// URL with a host");
  const bool tls = scheme == "https";
  int port = evhttp_uri_get_port(uri.get());
  if (port < 0) port = tls ? 443 : 80;
  std::string target = evhttp_uri_get_path(uri.get()) && *evhttp_uri_get_path(uri.get())
                           ? evhttp_uri_get_path(uri.get())
                           : "/";
  if (const char* q = evhttp_uri_get_query(uri.get())) target += std::string("?") + q;

  std::unique_ptr<event_base, freer<event_base, event_base_free>> base(event_base_new());
  if (!base) throw error(error_code::unavailable, "webhook: cannot make an event loop");
  std::unique_ptr<SSL_CTX, freer<SSL_CTX, SSL_CTX_free>> ctx;
  bufferevent* bev = nullptr;
  if (tls) {
    ctx.reset(SSL_CTX_new(TLS_client_method()));
    if (!ctx) throw error(error_code::unavailable, "webhook: cannot make a TLS context");
    SSL_CTX_set_default_verify_paths(ctx.get());
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
    SSL* ssl = SSL_new(ctx.get());
    if (!ssl) throw error(error_code::unavailable, "webhook: cannot make a TLS session");
    SSL_set_tlsext_host_name(ssl, host);
    SSL_set1_host(ssl, host);
    bev = bufferevent_openssl_socket_new(base.get(), -1, ssl, BUFFEREVENT_SSL_CONNECTING,
                                         BEV_OPT_CLOSE_ON_FREE | BEV_OPT_DEFER_CALLBACKS);
    if (!bev) {
      SSL_free(ssl);
      throw error(error_code::unavailable, "webhook: cannot make a TLS connection");
    }
  }
  std::unique_ptr<evhttp_connection, freer<evhttp_connection, evhttp_connection_free>> conn(
      evhttp_connection_base_bufferevent_new(base.get(), nullptr, bev, host,
                                             static_cast<unsigned short>(port)));
  if (!conn) throw error(error_code::unavailable, "webhook: cannot connect to '" + url + "'");
  evhttp_connection_set_timeout(conn.get(), static_cast<int>(timeout.count()));
  answer a;
  evhttp_request* req = evhttp_request_new(on_answer, &a);  // freed by the connection
  evkeyvalq* headers = evhttp_request_get_output_headers(req);
  evhttp_add_header(headers, "Host", host);
  evhttp_add_header(headers, "Content-Type", "application/json");
  evhttp_add_header(headers, "User-Agent", "superstep");
  evbuffer_add(evhttp_request_get_output_buffer(req), body.data(), body.size());
  if (evhttp_make_request(conn.get(), req, EVHTTP_REQ_POST, target.c_str()) != 0)
    throw error(error_code::unavailable, "webhook: cannot send to '" + url + "'");
  event_base_dispatch(base.get());
  if (a.status == 0) throw error(error_code::unavailable, "webhook: no answer from '" + url + "'");
  return a.status;
}

}  // namespace superstep::server
