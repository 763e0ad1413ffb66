#pragma once

// The pieces of a cluster link (net/transport.hpp): the hello each side sends first, the guard
// on BASP frames, the state shared by a process's links, and one established link as CAF's
// stream policy and scribe. Internal to the transport; include only from its translation
// units.

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

#include <array>
#include <atomic>
#include <caf/io/network/default_multiplexer.hpp>
#include <caf/io/network/stream_impl.hpp>
#include <caf/io/scribe.hpp>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "net/transport.hpp"

namespace superstep::net::links {

using caf::io::network::native_socket;
using caf::io::network::rw_state;
using clock_type = std::chrono::steady_clock;
using default_mpx = caf::io::network::default_multiplexer;

// Link security and the hello each side sends first.

enum class security : std::uint8_t {
  plain = 0,
  tls_anonymous = 1,
  tls_certificates = 2,
  tls_key = 3
};

constexpr char hello_magic[14] = {'s', 'u', 'p', 'e', 'r', 's', 't',
                                  'e', 'p', '-', 'l', 'i', 'n', 'k'};
constexpr std::uint8_t link_version = 1;
constexpr std::size_t hello_size = 16;

/// How `s` secures links, in words.
std::string describe_security(security s);
/// The hello a side of security `s` sends.
std::array<char, hello_size> make_hello(security s);
/// Why a peer whose hello is `h` cannot link with this side (`mine`); empty when it can.
/// `peer_is_head` words it for a worker or client.
std::string hello_mismatch(const std::array<char, hello_size>& h, security mine, bool peer_is_head);
/// "ip:port" of the socket's peer.
std::string peer_of(native_socket fd);
/// OpenSSL's queued errors, in words.
std::string ssl_errors();
/// Whether a finished TLS handshake was keyed by the cluster key: TLS 1.3 resumed from the
/// external PSK, with no certificate from the peer.
bool proved_key(SSL* ssl);
bool would_block(int e);

// Guards the BASP frames a peer sends: each is a 32-byte header whose payload length is the
// big-endian uint32 at offset 4, then the payload. The bytes pass through here before CAF
// sees them, so a header declaring too large a payload is refused before CAF allocates it.

class frame_guard {
 public:
  /// `first_operation`: the BASP operation the peer's first frame must have, its handshake
  /// (a head expects client_handshake, 1; a worker or client server_handshake, 0).
  frame_guard(std::uint8_t first_operation, std::uint64_t first_limit, std::uint64_t limit)
      : first_operation_(first_operation), first_limit_(first_limit), limit_(limit) {}

  // The reason to close the link, or empty.
  std::string feed(const char* p, std::size_t n) {
    while (n > 0) {
      if (payload_left_ > 0) {
        std::size_t take = std::min<std::uint64_t>(n, payload_left_);
        payload_left_ -= take;
        p += take;
        n -= take;
        if (payload_left_ == 0) ++frames_;
        continue;
      }
      std::size_t take = std::min(n, header_size - have_);
      std::memcpy(header_ + have_, p, take);
      have_ += take;
      p += take;
      n -= take;
      if (have_ < header_size) continue;
      have_ = 0;
      std::uint32_t len = (std::uint32_t{static_cast<unsigned char>(header_[4])} << 24) |
                          (std::uint32_t{static_cast<unsigned char>(header_[5])} << 16) |
                          (std::uint32_t{static_cast<unsigned char>(header_[6])} << 8) |
                          std::uint32_t{static_cast<unsigned char>(header_[7])};
      if (frames_ == 0 && static_cast<std::uint8_t>(header_[0]) != first_operation_)
        return "a first frame of BASP operation " +
               std::to_string(static_cast<std::uint8_t>(header_[0])) + ", not its handshake";
      const std::uint64_t limit = frames_ == 0 ? first_limit_ : limit_;
      if (len > limit)
        return std::string(frames_ == 0 ? "a first frame (the handshake)" : "a frame") +
               " declaring " + std::to_string(len) + " bytes (limit " + std::to_string(limit) + ")";
      if (len == 0)
        ++frames_;
      else
        payload_left_ = len;
    }
    return "";
  }

  bool handshake_done() const noexcept { return frames_ > 0; }

 private:
  static constexpr std::size_t header_size = 32;
  std::uint8_t first_operation_;
  std::uint64_t first_limit_, limit_;
  char header_[header_size] = {};
  std::size_t have_ = 0;
  std::uint64_t payload_left_ = 0;
  std::uint64_t frames_ = 0;
};

// The transport's state, shared with every link and the accepting thread.

class link;

/// How long a client link over its bound of unsent bytes may go without its socket taking a
/// byte before it is closed (link::over_backlog); over four times the bound closes it at once.
constexpr std::chrono::seconds backlog_grace{10};

struct link_state {
  link_options options;
  security mode = security::plain;
  std::string psk;  // 32 bytes derived from the cluster key
  SSL_CTX* server_ctx = nullptr;
  SSL_CTX* client_ctx = nullptr;

  // Accepted links (this process listens): open ones, and those whose BASP handshake has not
  // come yet, by socket, with their peer and deadline.
  std::atomic<std::size_t> open{0};
  std::mutex m;
  struct watched {
    std::string peer;
    clock_type::time_point deadline;
  };
  std::map<native_socket, watched> unproven;
  // Accepted links by peer ("ip:port", as peer_of writes it), for a bound set once the peer
  // is known to be a client (link_transport::limit_backlog).
  std::map<std::string, link*> peers;

  std::mutex log_m;
  clock_type::time_point log_second{};
  int log_lines = 0, log_skipped = 0;

  ~link_state() {
    if (server_ctx) SSL_CTX_free(server_ctx);
    if (client_ctx) SSL_CTX_free(client_ctx);
  }

  // At most 20 lines a second: a flood of connections must not flood the log too; what is
  // left out is counted in the next line logged.
  void log(const std::string& text) {
    log_lazily([&] { return text; });
  }
  // As log, with the line made by `make()` only if it is logged: a flood of refusals costs no
  // formatting (nor the peer's address looked up) beyond the lines logged.
  template <class Make>
  void log_lazily(Make&& make) {
    if (!options.log) return;
    std::string line;
    {
      std::lock_guard lock(log_m);
      auto now = clock_type::now();
      if (now - log_second >= std::chrono::seconds(1)) {
        log_second = now;
        if (log_skipped > 0)
          line = "(" + std::to_string(log_skipped) + " more such lines left out) ";
        log_skipped = 0;
        log_lines = 0;
      }
      if (++log_lines > 20) {
        ++log_skipped;
        return;
      }
    }
    options.log(line + make());
  }
  std::size_t unproven_count() {
    std::lock_guard lock(m);
    return unproven.size();
  }
  void watch(native_socket fd, std::string peer, clock_type::time_point deadline) {
    std::lock_guard lock(m);
    unproven[fd] = watched{std::move(peer), deadline};
  }
  void unwatch(native_socket fd) {
    std::lock_guard lock(m);
    unproven.erase(fd);
  }
  void add_peer(const std::string& peer, link* l) {
    std::lock_guard lock(m);
    peers[peer] = l;
  }
  void remove_peer(const std::string& peer, link* l) {
    std::lock_guard lock(m);
    auto it = peers.find(peer);
    if (it != peers.end() && it->second == l) peers.erase(it);
  }
  /// Bounds the unsent bytes of the accepted link from `peer`; whether there is one.
  bool limit_peer(const std::string& peer, std::size_t bytes);
  // Shuts down the links past their deadline (their reads then fail and CAF closes them).
  void expire(clock_type::time_point now) {
    std::vector<std::string> closed;
    {
      std::lock_guard lock(m);
      for (auto it = unproven.begin(); it != unproven.end();) {
        if (it->second.deadline > now) {
          ++it;
          continue;
        }
        closed.push_back(it->second.peer);
        ::shutdown(it->first, SHUT_RDWR);
        it = unproven.erase(it);
      }
    }
    for (const auto& peer : closed)
      log("closed " + peer + ": no handshake within " + timeout_text());
  }
  std::string timeout_text() const {
    auto ms = options.handshake_timeout.count();
    return ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
  }
};

using state_ptr = std::shared_ptr<link_state>;

// One established link: its TLS session (none on plain links), its peer, its frame guard.

class link {
 public:
  link(state_ptr st, native_socket fd, SSL* ssl, std::string peer, bool accepted)
      : st_(std::move(st)),
        fd_(fd),
        ssl_(ssl),
        peer_(std::move(peer)),
        accepted_(accepted),
        guard_(accepted ? 1 : 0, st_->options.max_handshake_frame, st_->options.max_frame) {
    if (accepted_) st_->add_peer(peer_, this);
  }
  ~link() {
    if (ssl_) SSL_free(ssl_);
    if (accepted_) {
      st_->remove_peer(peer_, this);
      st_->unwatch(fd_);
      --st_->open;
    }
  }
  link(const link&) = delete;
  link& operator=(const link&) = delete;

  rw_state read_some(std::size_t& result, native_socket fd, void* buf, std::size_t len) {
    result = 0;
    if (len == 0) return rw_state::indeterminate;
    long n = 0;
    if (ssl_) {
      ERR_clear_error();
      int r = SSL_read(ssl_, buf, static_cast<int>(std::min<std::size_t>(len, 1 << 30)));
      if (r <= 0) {
        int e = SSL_get_error(ssl_, r);
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return rw_state::success;
        return rw_state::failure;
      }
      n = r;
    } else {
      n = ::recv(fd, buf, len, 0);
      if (n == 0) return rw_state::failure;
      if (n < 0) return would_block(errno) ? rw_state::success : rw_state::failure;
    }
    const bool before = guard_.handshake_done();
    std::string why = guard_.feed(static_cast<const char*>(buf), static_cast<std::size_t>(n));
    if (!why.empty()) {
      st_->log("closed " + peer_ + ": " + why);
      return rw_state::failure;
    }
    if (accepted_ && !before && guard_.handshake_done()) st_->unwatch(fd_);
    result = static_cast<std::size_t>(n);
    return rw_state::success;
  }

  rw_state write_some(std::size_t& result, native_socket fd, const void* buf, std::size_t len) {
    result = 0;
    if (len == 0) return rw_state::indeterminate;
    if (ssl_) {
      ERR_clear_error();
      int r = SSL_write(ssl_, buf, static_cast<int>(std::min<std::size_t>(len, 1 << 30)));
      if (r <= 0) {
        int e = SSL_get_error(ssl_, r);
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return rw_state::success;
        return rw_state::failure;
      }
      result = static_cast<std::size_t>(r);
      wrote_at_ = clock_type::now();
      return rw_state::success;
    }
    long n = ::send(fd, buf, len, MSG_NOSIGNAL);
    if (n < 0) return would_block(errno) ? rw_state::success : rw_state::failure;
    result = static_cast<std::size_t>(n);
    if (n > 0) wrote_at_ = clock_type::now();
    return rw_state::success;
  }

  // Bytes TLS has already taken off the socket: read them now, since no readiness event will
  // come for them (CAF stops after a number of reads unless this says there is more).
  bool must_read_more(native_socket, std::size_t) {
    return ssl_ && (SSL_pending(ssl_) > 0 || SSL_has_pending(ssl_) == 1);
  }

  // The bytes CAF may hold for this link unsent (0: no bound), set from any thread once its
  // peer is known to be a client: what a client that stops reading leaves the head with.
  // Workers' links carry task batches of up to --max-frame and are never bounded.
  void limit_backlog(std::size_t bytes) { backlog_cap_.store(bytes, std::memory_order_relaxed); }
  bool closing() const noexcept { return closing_; }

  // On CAF's multiplexer thread, after each flush: `queued` bytes wait behind the write in
  // progress (the socket takes no more). Over the bound with the socket taking nothing for
  // backlog_grace (the peer stopped reading), or over four times the bound (it reads far
  // slower than it asked), the link is shut down: its reads then fail and CAF closes it, the
  // peer's actors are down for the head and what the head sends them is dropped. True then.
  bool over_backlog(std::size_t queued) {
    const std::size_t cap = backlog_cap_.load(std::memory_order_relaxed);
    if (cap == 0 || closing_ || queued <= cap) return false;
    const bool stalled = clock_type::now() - wrote_at_ >= backlog_grace;
    if (!stalled && queued <= 4 * cap) return false;
    closing_ = true;
    st_->log("closed " + peer_ + ": " + std::to_string(queued >> 20) +
             " MiB wait unsent for it, more than --client-backlog " + std::to_string(cap >> 20) +
             " MiB" +
             (stalled ? ", and it read nothing for " + std::to_string(backlog_grace.count()) + " s"
                      : "") +
             "; what it asked for goes on without it");
    ::shutdown(fd_, SHUT_RDWR);
    return true;
  }

 private:
  state_ptr st_;
  native_socket fd_;
  SSL* ssl_;
  std::string peer_;
  bool accepted_;
  frame_guard guard_;
  std::atomic<std::size_t> backlog_cap_{0};
  clock_type::time_point wrote_at_ = clock_type::now();  // multiplexer thread only
  bool closing_ = false;                                 // multiplexer thread only
};

inline bool link_state::limit_peer(const std::string& peer, std::size_t bytes) {
  std::lock_guard lock(m);
  auto it = peers.find(peer);
  if (it == peers.end()) return false;
  it->second->limit_backlog(bytes);  // removed under `m` before it is destroyed
  return true;
}

// CAF's stream policy over a link.
struct link_policy {
  explicit link_policy(std::unique_ptr<link> l) : link_(std::move(l)) {}
  rw_state read_some(std::size_t& result, native_socket fd, void* buf, std::size_t len) {
    return link_->read_some(result, fd, buf, len);
  }
  rw_state write_some(std::size_t& result, native_socket fd, const void* buf, std::size_t len) {
    return link_->write_some(result, fd, buf, len);
  }
  bool must_read_more(native_socket fd, std::size_t threshold) {
    return link_->must_read_more(fd, threshold);
  }
  std::unique_ptr<link> link_;
};

// A BASP connection over a link (CAF's scribe_impl with our stream policy).
class link_scribe final : public caf::io::scribe {
 public:
  link_scribe(default_mpx& mpx, native_socket fd, std::unique_ptr<link> l)
      : caf::io::scribe(caf::io::network::conn_hdl_from_socket(fd)),
        link_(l.get()),
        stream_(mpx, fd, std::move(l)) {}

  void configure_read(caf::io::receive_policy::config config) override {
    stream_.configure_read(config);
    if (!launched_) {
      launched_ = true;
      stream_.start(this);
    }
  }
  void ack_writes(bool enable) override { stream_.ack_writes(enable); }
  std::vector<char>& wr_buf() override { return stream_.wr_buf(); }
  std::vector<char>& rd_buf() override { return stream_.rd_buf(); }
  void graceful_shutdown() override {
    stream_.graceful_shutdown();
    detach(&stream_.backend(), false);
  }
  // BASP writes each message into wr_buf() and flushes: what the socket does not take waits
  // there (CAF bounds it nowhere). A bounded link over its bound drops it and every later one.
  void flush() override {
    if (link_->closing()) {
      std::vector<char>().swap(stream_.wr_buf());
      return;
    }
    stream_.flush(this);
    if (link_->over_backlog(stream_.wr_buf().size())) std::vector<char>().swap(stream_.wr_buf());
  }
  std::string addr() const override {
    auto x = caf::io::network::remote_addr_of_fd(stream_.fd());
    return x ? *x : std::string();
  }
  std::uint16_t port() const override {
    auto x = caf::io::network::remote_port_of_fd(stream_.fd());
    return x ? *x : 0;
  }
  void add_to_loop() override { stream_.activate(this); }
  void remove_from_loop() override { stream_.passivate(); }

 private:
  bool launched_ = false;
  link* link_;  // owned by stream_'s policy
  caf::io::network::stream_impl<link_policy> stream_;
};

}  // namespace superstep::net::links
