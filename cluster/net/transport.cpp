#include "net/transport.hpp"

#include <netdb.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <caf/io/basp_broker.hpp>
#include <caf/io/middleman.hpp>
#include <caf/io/middleman_actor_impl.hpp>
#include <caf/scoped_actor.hpp>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "net/gatekeeper.hpp"
#include "net/link.hpp"
#include "superstep/core/error.hpp"

namespace superstep::net {

using namespace links;

// The middleman actor that opens and connects through links.

namespace {

class link_manager final : public caf::io::middleman_actor_impl {
 public:
  link_manager(caf::actor_config& cfg, caf::actor broker, state_ptr st,
               std::function<void(gatekeeper_ptr)> keep)
      : caf::io::middleman_actor_impl(cfg, std::move(broker)),
        st_(std::move(st)),
        keep_(std::move(keep)) {}

  const char* name() const override { return "superstep.link_manager"; }

 protected:
  caf::expected<caf::io::scribe_ptr> connect(const std::string& host, std::uint16_t port) override {
    const auto deadline = clock_type::now() + st_->options.handshake_timeout;
    std::string why;
    SSL* ssl = nullptr;
    bool refused = false;
    bool reached = false;  // by the last attempt: the head took the connection
    native_socket fd = -1;
    // A head short of room for connections in their handshake resets the newest: while time
    // remains, try again after a pause growing from 10 to 200 ms -- not when it refused us,
    // nor when nobody listens.
    for (auto pause = std::chrono::milliseconds(10);;
         pause = std::min<std::chrono::milliseconds>(2 * pause, std::chrono::milliseconds(200))) {
      reached = false;
      const std::string first = opening(ssl, why);
      if (!first.empty()) {
        bool reset = false;
        fd = connect_by(host, port, deadline, why, reset);
        reached = fd >= 0 || reset;
        if (fd >= 0 && !handshake(fd, deadline, first, ssl, why, refused)) {
          ::close(fd);
          fd = -1;
        }
      }
      if (fd >= 0) break;
      if (ssl) SSL_free(ssl);
      ssl = nullptr;
      if (refused || !reached || clock_type::now() + pause >= deadline) break;
      std::this_thread::sleep_for(pause);
    }
    // The text, whether trying again is pointless, and whether the head took the connection
    // and cut it off (it is busy) travel in the error's context.
    if (fd < 0)
      return caf::make_error(caf::sec::cannot_connect_to_node, why, refused, reached && !refused);
    auto l = std::make_unique<link>(st_, fd, ssl, host + ":" + std::to_string(port), false);
    return caf::make_counted<link_scribe>(mpx(), fd, std::move(l));
  }

  caf::expected<caf::io::doorman_ptr> open(std::uint16_t port, const char* addr,
                                           bool reuse) override {
    auto fd = caf::io::network::new_tcp_acceptor_impl(port, addr, reuse);
    if (!fd) return std::move(fd.error());
    gatekeeper_ptr g;
    try {
      g = start_gatekeeper(st_, *fd);
    } catch (const std::exception& e) {
      ::close(*fd);
      return caf::make_error(caf::sec::cannot_open_port, e.what());
    }
    keep_(g);
    return make_link_doorman(mpx(), st_, std::move(g));
  }

 private:
  default_mpx& mpx() { return static_cast<default_mpx&>(system().middleman().backend()); }

  // Whether `fd` becomes ready for `events` before `deadline`.
  static bool wait_for(native_socket fd, short events, clock_type::time_point deadline) {
    for (;;) {
      auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock_type::now());
      if (left.count() <= 0) return false;
      pollfd p{fd, events, 0};
      int n = ::poll(&p, 1, static_cast<int>(left.count()));
      if (n > 0) return true;
      if (n == 0 || errno != EINTR) return false;
    }
  }

  // A TCP connection to host:port made before `deadline` (the name resolved first), or -1
  // with `why`; `reset`: the head took the connection and reset it before the connect
  // completed here (a head short of room does that), so trying again may succeed.
  static native_socket connect_by(const std::string& host, std::uint16_t port,
                                  clock_type::time_point deadline, std::string& why, bool& reset) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
    if (rc != 0) {
      why = "cannot resolve '" + host + "': " + ::gai_strerror(rc);
      return -1;
    }
    why = "cannot connect";
    native_socket out = -1;
    for (addrinfo* a = found; a && out < 0; a = a->ai_next) {
      native_socket fd =
          ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
      if (fd < 0) continue;
      int r = ::connect(fd, a->ai_addr, a->ai_addrlen);
      int err = r == 0 ? 0 : errno;
      if (err == EINPROGRESS) {
        if (wait_for(fd, POLLOUT, deadline)) {
          socklen_t len = sizeof err;
          ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
        } else {
          err = ETIMEDOUT;
        }
      }
      if (err == 0) {
        out = fd;
      } else {
        why = std::string("cannot connect: ") + std::strerror(err);
        if (err == ECONNRESET) reset = true;
        ::close(fd);
      }
    }
    ::freeaddrinfo(found);
    return out;
  }

  // What a connection says first: our hello and, on a secured link, the TLS ClientHello right
  // behind it, in one write. The ClientHello is made into memory before connecting (the head's
  // hello comes first on the socket, so the socket takes over once that is read). With the
  // cluster key it carries the proof of the key (its binder): a head short of room keeps the
  // connections that proved it, and sees this proof in our first bytes. Empty, with `why`:
  // TLS cannot start.
  std::string opening(SSL*& ssl, std::string& why) {
    auto hello = make_hello(st_->mode);
    std::string out(hello.begin(), hello.end());
    if (st_->mode == security::plain) return out;
    ssl = SSL_new(st_->client_ctx);
    BIO* in = BIO_new(BIO_s_mem());
    BIO* written = BIO_new(BIO_s_mem());
    if (!ssl || !in || !written) {
      why = "cannot start TLS: " + ssl_errors();
      BIO_free(in);
      BIO_free(written);
      if (ssl) SSL_free(ssl);
      ssl = nullptr;
      return "";
    }
    BIO_set_mem_eof_return(in, -1);  // nothing to read yet: "try again", not the end
    SSL_set_bio(ssl, in, written);   // the SSL owns both
    SSL_set_connect_state(ssl);
    ERR_clear_error();
    int r = SSL_do_handshake(ssl);
    char* bytes = nullptr;
    long n = BIO_get_mem_data(written, &bytes);
    if (r == 1 || SSL_get_error(ssl, r) != SSL_ERROR_WANT_READ || n <= 0) {
      why = "cannot start TLS: " + ssl_errors();
      SSL_free(ssl);
      ssl = nullptr;
      return "";
    }
    out.append(bytes, static_cast<std::size_t>(n));
    return out;
  }

  // Says `opened` (opening), reads the head's hello, then finishes TLS (begun by opening on
  // `ssl`), bounded by `deadline`. On failure `ssl` is the caller's to free.
  bool handshake(native_socket fd, clock_type::time_point deadline, const std::string& opened,
                 SSL* ssl, std::string& why, bool& refused) {
    auto wait = [&](short events) { return wait_for(fd, events, deadline); };
    for (std::size_t sent = 0; sent < opened.size();) {
      long n = ::send(fd, opened.data() + sent, opened.size() - sent, MSG_NOSIGNAL);
      if (n > 0) {
        sent += static_cast<std::size_t>(n);
        continue;
      }
      if (n < 0 && would_block(errno) && wait(POLLOUT)) continue;
      why = "the head closed the connection";
      return false;
    }
    std::array<char, hello_size> theirs{};
    std::size_t got = 0;
    while (got < hello_size) {
      if (!wait(POLLIN)) {
        why = "the head did not say hello within " + st_->timeout_text();
        return false;
      }
      long n = ::recv(fd, theirs.data() + got, hello_size - got, 0);
      if (n == 0 || (n < 0 && !would_block(errno))) {
        why =
            "the head closed the connection before its hello (it may refuse this process: "
            "see its log)";
        return false;
      }
      if (n > 0) got += static_cast<std::size_t>(n);
    }
    why = hello_mismatch(theirs, st_->mode, true);
    if (!why.empty()) {
      refused = true;
      return false;
    }
    if (st_->mode == security::plain) return true;
    if (SSL_set_fd(ssl, fd) != 1) {  // replaces (and frees) the memory BIOs
      why = "cannot start TLS: " + ssl_errors();
      return false;
    }
    for (;;) {
      ERR_clear_error();
      int r = SSL_do_handshake(ssl);
      if (r == 1) {
        if (st_->mode != security::tls_key || proved_key(ssl)) return true;
        why = "the head did not prove the cluster key (it answered TLS without it): refused";
        refused = true;
      } else {
        int e = SSL_get_error(ssl, r);
        if ((e == SSL_ERROR_WANT_READ && wait(POLLIN)) ||
            (e == SSL_ERROR_WANT_WRITE && wait(POLLOUT)))
          continue;
        // Final: the head sent an alert (it refused us), or the head failed our checks.
        // Anything else (a reset, a closed connection, a timeout) may pass: try again.
        unsigned long first = ERR_peek_error();
        refused = e == SSL_ERROR_SSL && (ERR_GET_REASON(first) >= SSL_AD_REASON_OFFSET ||
                                         ERR_GET_REASON(first) == SSL_R_CERTIFICATE_VERIFY_FAILED);
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
          why = "the TLS handshake did not finish within " + st_->timeout_text();
        else if (!refused)
          why = "the TLS handshake was cut off (" + ssl_errors() + ")";
        else if (st_->mode == security::tls_key &&
                 ERR_GET_REASON(first) == SSL_R_CERTIFICATE_VERIFY_FAILED)
          why =
              "the head did not prove the cluster key (it answered TLS with a certificate "
              "instead): refused";
        else if (st_->mode == security::tls_key)
          why = "the head refused the key, or holds another one (TLS handshake failed: " +
                ssl_errors() + ")";
        else
          why = "TLS handshake failed: " + ssl_errors();
      }
      return false;
    }
  }

  state_ptr st_;
  std::function<void(gatekeeper_ptr)> keep_;
};

// TLS contexts.

unsigned int psk_server_callback(SSL* ssl, const char* identity, unsigned char* psk,
                                 unsigned int max_len) {
  auto* st = static_cast<link_state*>(SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl)));
  if (!st || !identity || std::strcmp(identity, "superstep-cluster") != 0) return 0;
  if (st->psk.size() > max_len) return 0;
  std::memcpy(psk, st->psk.data(), st->psk.size());
  return static_cast<unsigned int>(st->psk.size());
}

unsigned int psk_client_callback(SSL* ssl, const char*, char* identity, unsigned int max_identity,
                                 unsigned char* psk, unsigned int max_len) {
  auto* st = static_cast<link_state*>(SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl)));
  static const char id[] = "superstep-cluster";
  if (!st || sizeof id > max_identity || st->psk.size() > max_len) return 0;
  std::memcpy(identity, id, sizeof id);
  std::memcpy(psk, st->psk.data(), st->psk.size());
  return static_cast<unsigned int>(st->psk.size());
}

int refuse_certificates(int, X509_STORE_CTX*) { return 0; }

[[noreturn]] void tls_failure(const std::string& what) {
  throw error(error_code::invalid_argument, what + ": " + ssl_errors());
}

// A throwaway self-signed certificate for --tls alone (the client checks nothing).
void use_throwaway_certificate(SSL_CTX* ctx) {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  if (!key) tls_failure("cannot make a TLS key");
  X509* cert = X509_new();
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert), 10L * 365 * 24 * 3600);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("superstep"), -1, -1, 0);
  X509_set_issuer_name(cert, name);
  bool ok = X509_sign(cert, key, EVP_sha256()) > 0 && SSL_CTX_use_certificate(ctx, cert) == 1 &&
            SSL_CTX_use_PrivateKey(ctx, key) == 1;
  X509_free(cert);
  EVP_PKEY_free(key);
  if (!ok) tls_failure("cannot make a TLS certificate");
}

SSL_CTX* make_context(link_state& st, bool server) {
  SSL_CTX* ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
  if (!ctx) tls_failure("cannot create a TLS context");
  SSL_CTX_set_app_data(ctx, &st);
  SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
  SSL_CTX_set_num_tickets(ctx, 0);
  SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET | SSL_OP_NO_RENEGOTIATION);
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
  const auto& tls = st.options.tls;
  switch (st.mode) {
    case security::tls_key:
      if (server) {
        SSL_CTX_set_psk_server_callback(ctx, psk_server_callback);
      } else {
        SSL_CTX_set_psk_client_callback(ctx, psk_client_callback);
        // Only the key authenticates: a head that answers with a certificate instead (it
        // does not hold the key) fails the handshake.
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, refuse_certificates);
      }
      break;
    case security::tls_certificates:
      if (SSL_CTX_use_certificate_chain_file(ctx, tls.cert.c_str()) != 1)
        tls_failure("cannot use the certificate '" + tls.cert + "'");
      if (SSL_CTX_use_PrivateKey_file(ctx, tls.key.c_str(), SSL_FILETYPE_PEM) != 1)
        tls_failure("cannot use the private key '" + tls.key + "'");
      if (SSL_CTX_check_private_key(ctx) != 1)
        tls_failure("the key '" + tls.key + "' is not the certificate's");
      if (SSL_CTX_load_verify_locations(ctx, tls.ca.c_str(), nullptr) != 1)
        tls_failure("cannot use the CA certificate '" + tls.ca + "'");
      SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
      break;
    case security::tls_anonymous:
      if (server) use_throwaway_certificate(ctx);
      SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
      break;
    case security::plain: break;
  }
  return ctx;
}

std::string derive_psk(const std::string& key) {
  static const char label[] = "superstep cluster link psk v1";
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
            reinterpret_cast<const unsigned char*>(label), sizeof label - 1, out, &len))
    throw error(error_code::internal, "HMAC-SHA256 failed");
  return std::string(reinterpret_cast<char*>(out), len);
}

}  // namespace

struct link_transport::impl {
  impl(caf::actor_system& s) : sys(s), st(std::make_shared<link_state>()) {}
  caf::actor_system& sys;
  state_ptr st;
  caf::io::middleman_actor manager;
  std::mutex m;
  std::vector<gatekeeper_ptr> gatekeepers;
};

link_transport::link_transport(caf::actor_system& sys, link_options options)
    : impl_(std::make_unique<impl>(sys)) {
  std::signal(SIGPIPE, SIG_IGN);  // a TLS write to a closed socket must not end the process
  link_state& st = *impl_->st;
  st.options = std::move(options);
  const auto& tls = st.options.tls;
  const bool certificates = !tls.cert.empty() || !tls.key.empty() || !tls.ca.empty();
  if (st.options.key && certificates)
    throw error(error_code::invalid_argument,
                "--key-file and --tls-cert/--tls-key/--tls-ca: give one (the cluster key "
                "already authenticates and encrypts every link)");
  if (st.options.key) {
    st.mode = security::tls_key;
    st.psk = derive_psk(*st.options.key);
  } else if (certificates) {
    st.mode = security::tls_certificates;
  } else if (tls.on) {
    st.mode = security::tls_anonymous;
  }
  if (st.mode != security::plain) {
    st.server_ctx = make_context(st, true);
    st.client_ctx = make_context(st, false);
  }
  auto broker = sys.middleman().named_broker<caf::io::basp_broker>(caf::atom("BASP"));
  impl* self = impl_.get();
  impl_->manager = sys.spawn<link_manager, caf::detached + caf::hidden>(
      broker, impl_->st, [self](gatekeeper_ptr g) {
        std::lock_guard lock(self->m);
        self->gatekeepers.push_back(std::move(g));
      });
}

link_transport::~link_transport() {
  {
    caf::scoped_actor self{impl_->sys, true};
    self->send_exit(impl_->manager, caf::exit_reason::kill);
    self->wait_for(impl_->manager);
  }
  std::lock_guard lock(impl_->m);
  for (auto& g : impl_->gatekeepers) stop_gatekeeper(*g);
}

caf::expected<std::uint16_t> link_transport::publish(const caf::actor& whom,
                                                     const std::string& host, std::uint16_t port) {
  caf::scoped_actor self{impl_->sys};
  caf::expected<std::uint16_t> out{caf::sec::cannot_open_port};
  std::set<std::string> sigs;
  self->request(impl_->manager, caf::infinite, caf::publish_atom::value, port,
                caf::actor_cast<caf::strong_actor_ptr>(whom), sigs, host, true)
      .receive([&](std::uint16_t p) { out = p; }, [&](caf::error& e) { out = std::move(e); });
  return out;
}

link_connect_result link_transport::connect(const std::string& host, std::uint16_t port,
                                            std::chrono::milliseconds timeout) {
  link_connect_result out;
  caf::scoped_actor self{impl_->sys};
  // The link manager bounds the hellos and TLS by the handshake timeout; CAF's own
  // handshake comes after.
  self->request(impl_->manager, timeout + impl_->st->options.handshake_timeout,
                caf::connect_atom::value, host, port)
      .receive(
          [&](const caf::node_id&, caf::strong_actor_ptr& whom, const std::set<std::string>&) {
            if (whom)
              out.actor = caf::actor_cast<caf::actor>(std::move(whom));
            else
              out.error = "nothing is published on port " + std::to_string(port);
          },
          [&](caf::error& e) {
            // The link manager's own failures carry their text, whether they are final and
            // whether the head cut the connection off; CAF's handshake comes after.
            using cut = link_connect_result::handshake_cut;
            const auto& context = e.context();
            if (context.match_elements<std::string, bool, bool>()) {
              out.error = context.get_as<std::string>(0);
              out.refused = context.get_as<bool>(1);
              if (context.get_as<bool>(2)) out.cut = cut::busy;
            } else {
              out.error = impl_->sys.render(e);
              if (e == caf::sec::connection_timeout || e == caf::sec::request_timeout)
                out.cut = cut::busy;
              if (e == caf::sec::disconnect_during_handshake) out.cut = cut::closed;
            }
          });
  return out;
}

std::string link_transport::describe() const { return describe_security(impl_->st->mode); }

bool link_transport::limit_backlog(const caf::node_id& peer, std::size_t bytes) {
  if (peer == caf::node_id{} || peer == impl_->sys.node()) return false;
  // The BASP broker knows the peer's connection; its scribe (link_scribe::addr/port) names
  // the socket's peer as the link's own peer_of did when it was accepted.
  std::string host;
  std::uint16_t port = 0;
  caf::scoped_actor self{impl_->sys};
  self->request(impl_->manager, std::chrono::seconds(5), caf::get_atom::value, peer)
      .receive(
          [&](const caf::node_id&, std::string& addr, std::uint16_t p) {
            host = std::move(addr);
            port = p;
          },
          [&](caf::error&) {});
  if (host.empty()) return false;
  const bool v6 = host.find(':') != std::string::npos;
  return impl_->st->limit_peer((v6 ? "[" + host + "]" : host) + ":" + std::to_string(port), bytes);
}

}  // namespace superstep::net
