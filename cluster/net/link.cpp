#include "net/link.hpp"

#include <openssl/err.h>
#include <openssl/x509.h>
#include <sys/socket.h>

#include <caf/io/network/native_socket.hpp>
#include <cerrno>

namespace superstep::net::links {

std::string describe_security(security s) {
  switch (s) {
    case security::plain: return "plain TCP, no key";
    case security::tls_anonymous: return "TLS without certificates or key (--tls)";
    case security::tls_certificates: return "TLS with certificates";
    case security::tls_key: return "TLS with the cluster key";
  }
  return "unknown";
}

std::array<char, hello_size> make_hello(security s) {
  std::array<char, hello_size> h{};
  std::memcpy(h.data(), hello_magic, sizeof hello_magic);
  h[14] = static_cast<char>(link_version);
  h[15] = static_cast<char>(s);
  return h;
}

std::string hello_mismatch(const std::array<char, hello_size>& h, security mine,
                           bool peer_is_head) {
  if (std::memcmp(h.data(), hello_magic, sizeof hello_magic) != 0)
    return "it does not speak superstep's link protocol (another program, or a superstep "
           "older than this one)";
  if (static_cast<std::uint8_t>(h[14]) != link_version)
    return "it speaks version " + std::to_string(static_cast<std::uint8_t>(h[14])) +
           " of superstep's link protocol, this process version " + std::to_string(link_version);
  auto theirs = static_cast<security>(static_cast<std::uint8_t>(h[15]));
  if (static_cast<std::uint8_t>(h[15]) > 3) return "it asks for an unknown link security";
  if (theirs == mine) return "";
  const std::string who = peer_is_head ? "the head" : "it";
  if (theirs == security::tls_key)
    return peer_is_head ? "the head requires the cluster's key (--key-file FILE)"
                        : "it has the cluster key, this head has none";
  if (mine == security::tls_key)
    return peer_is_head
               ? "the head has no cluster key, so it cannot prove it holds this "
                 "process's key: refused (give the head the same --key-file)"
               : "it does not have the cluster's key (its links: " + describe_security(theirs) +
                     ")";
  return who + " uses " + describe_security(theirs) + ", this process " + describe_security(mine) +
         " (every process of a cluster gives the same options)";
}

std::string peer_of(native_socket fd) {
  auto host = caf::io::network::remote_addr_of_fd(fd);
  auto port = caf::io::network::remote_port_of_fd(fd);
  if (!host || !port) return "an unknown peer";
  const bool v6 = host->find(':') != std::string::npos;
  return (v6 ? "[" + *host + "]" : *host) + ":" + std::to_string(*port);
}

std::string ssl_errors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? "the connection was closed" : out;
}

bool would_block(int e) { return e == EAGAIN || e == EWOULDBLOCK || e == EINTR; }

// Whether a finished TLS handshake was keyed by the cluster key: TLS 1.3 resumed from the
// external PSK, with no certificate from the peer.
bool proved_key(SSL* ssl) {
  if (SSL_session_reused(ssl) != 1) return false;
  X509* cert = SSL_get1_peer_certificate(ssl);
  if (!cert) return true;
  X509_free(cert);
  return false;
}

}  // namespace superstep::net::links
