#include "net_transport.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <caf/io/basp_broker.hpp>
#include <caf/io/middleman.hpp>
#include <caf/io/middleman_actor_impl.hpp>
#include <caf/io/network/acceptor_impl.hpp>
#include <caf/io/network/default_multiplexer.hpp>
#include <caf/io/network/stream_impl.hpp>
#include <caf/io/scribe.hpp>
#include <caf/scoped_actor.hpp>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "superstep/core/error.hpp"

namespace superstep::net {

namespace {

using caf::io::network::native_socket;
using caf::io::network::rw_state;
using clock_type = std::chrono::steady_clock;

// ---------------------------------------------------------------------------------------------
// Link security and the hello each side sends first.

enum class security : std::uint8_t { plain = 0, tls_anonymous = 1, tls_certificates = 2, tls_key = 3 };

constexpr char hello_magic[14] = {'s', 'u', 'p', 'e', 'r', 's', 't', 'e', 'p', '-', 'l', 'i', 'n', 'k'};
constexpr std::uint8_t link_version = 1;
constexpr std::size_t hello_size = 16;

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

// Why a peer whose hello is `h` cannot link with this side (`mine`); empty when it can.
// `peer_is_head` words it for a worker or client.
std::string hello_mismatch(const std::array<char, hello_size>& h, security mine,
                           bool peer_is_head) {
  if (std::memcmp(h.data(), hello_magic, sizeof hello_magic) != 0)
    return "it does not speak superstep's link protocol (another program, or a superstep "
           "older than this one)";
  if (static_cast<std::uint8_t>(h[14]) != link_version)
    return "it speaks version " + std::to_string(static_cast<std::uint8_t>(h[14])) +
           " of superstep's link protocol, this process version " +
           std::to_string(link_version);
  auto theirs = static_cast<security>(static_cast<std::uint8_t>(h[15]));
  if (static_cast<std::uint8_t>(h[15]) > 3) return "it asks for an unknown link security";
  if (theirs == mine) return "";
  const std::string who = peer_is_head ? "the head" : "it";
  if (theirs == security::tls_key)
    return peer_is_head ? "the head requires the cluster's key (--key-file FILE)"
                        : "it has the cluster key, this head has none";
  if (mine == security::tls_key)
    return peer_is_head ? "the head has no cluster key, so it cannot prove it holds this "
                          "process's key: refused (give the head the same --key-file)"
                        : "it does not have the cluster's key (its links: " +
                              describe_security(theirs) + ")";
  return who + " uses " + describe_security(theirs) + ", this process " +
         describe_security(mine) + " (every process of a cluster gives the same options)";
}

std::string peer_of(native_socket fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return "an unknown peer";
  char host[INET6_ADDRSTRLEN] = {0};
  std::uint16_t port = 0;
  if (addr.ss_family == AF_INET) {
    auto* a = reinterpret_cast<sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
    port = ntohs(a->sin_port);
    return std::string(host) + ":" + std::to_string(port);
  }
  if (addr.ss_family == AF_INET6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
    port = ntohs(a->sin6_port);
    return "[" + std::string(host) + "]:" + std::to_string(port);
  }
  return "an unknown peer";
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

void set_nonblocking(native_socket fd) {
  int flags = ::fcntl(fd, F_GETFL, 0);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

// ---------------------------------------------------------------------------------------------
// Guards the BASP frames a peer sends: each is a 32-byte header whose payload length is the
// big-endian uint32 at offset 4, then the payload. The bytes pass through here before CAF
// sees them, so a header declaring too large a payload is refused before CAF allocates it.

class frame_guard {
 public:
  frame_guard(std::uint64_t first_limit, std::uint64_t limit)
      : first_limit_(first_limit), limit_(limit) {}

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
      const std::uint64_t limit = frames_ == 0 ? first_limit_ : limit_;
      if (len > limit)
        return std::string(frames_ == 0 ? "a first frame (the handshake)" : "a frame") +
               " declaring " + std::to_string(len) + " bytes (limit " + std::to_string(limit) +
               ")";
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
  std::uint64_t first_limit_, limit_;
  char header_[header_size] = {};
  std::size_t have_ = 0;
  std::uint64_t payload_left_ = 0;
  std::uint64_t frames_ = 0;
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// The transport's state, shared with every link and the accepting thread.

struct link_transport::state {
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

  ~state() {
    if (server_ctx) SSL_CTX_free(server_ctx);
    if (client_ctx) SSL_CTX_free(client_ctx);
  }

  void log(const std::string& text) const {
    if (options.log) options.log(text);
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
  // Shuts down the links past their deadline (their reads then fail and CAF closes them).
  void expire(clock_type::time_point now) {
    std::lock_guard lock(m);
    for (auto it = unproven.begin(); it != unproven.end();) {
      if (it->second.deadline > now) {
        ++it;
        continue;
      }
      log("closed " + it->second.peer + ": no handshake within " + timeout_text());
      ::shutdown(it->first, SHUT_RDWR);
      it = unproven.erase(it);
    }
  }
  std::string timeout_text() const {
    auto ms = options.handshake_timeout.count();
    return ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
  }
};

namespace {

using state_ptr = std::shared_ptr<link_transport::state>;

// ---------------------------------------------------------------------------------------------
// One established link: its TLS session (none on plain links), its peer, its frame guard.

class link {
 public:
  link(state_ptr st, native_socket fd, SSL* ssl, std::string peer, bool accepted)
      : st_(std::move(st)),
        fd_(fd),
        ssl_(ssl),
        peer_(std::move(peer)),
        accepted_(accepted),
        guard_(st_->options.max_handshake_frame, st_->options.max_frame) {}
  ~link() {
    if (ssl_) SSL_free(ssl_);
    if (accepted_) {
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
      return rw_state::success;
    }
    long n = ::send(fd, buf, len, MSG_NOSIGNAL);
    if (n < 0) return would_block(errno) ? rw_state::success : rw_state::failure;
    result = static_cast<std::size_t>(n);
    return rw_state::success;
  }

  // Bytes TLS has already taken off the socket: read them now, since no readiness event will
  // come for them (CAF stops after a number of reads unless this says there is more).
  bool must_read_more(native_socket, std::size_t) {
    return ssl_ && (SSL_pending(ssl_) > 0 || SSL_has_pending(ssl_) == 1);
  }

 private:
  state_ptr st_;
  native_socket fd_;
  SSL* ssl_;
  std::string peer_;
  bool accepted_;
  frame_guard guard_;
};

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

using default_mpx = caf::io::network::default_multiplexer;

// A BASP connection over a link (CAF's scribe_impl with our stream policy).
class link_scribe final : public caf::io::scribe {
 public:
  link_scribe(default_mpx& mpx, native_socket fd, std::unique_ptr<link> l)
      : caf::io::scribe(caf::io::network::conn_hdl_from_socket(fd)), stream_(mpx, fd, std::move(l)) {}

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
  void flush() override { stream_.flush(this); }
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
  caf::io::network::stream_impl<link_policy> stream_;
};

// ---------------------------------------------------------------------------------------------
// The accepting side: a thread accepts, exchanges hellos and runs the TLS handshake of each
// new connection, then hands finished ones to CAF through a socket pair that CAF watches as
// if it were the listening socket.

struct ready_link {
  native_socket fd = -1;
  SSL* ssl = nullptr;
  std::string peer;
  clock_type::time_point deadline;
};

class gatekeeper {
 public:
  gatekeeper(state_ptr st, native_socket listener) : st_(std::move(st)), listener_(listener) {
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
      throw error(error_code::internal, std::string("socketpair: ") + std::strerror(errno));
    handoff_read_ = pair[0];
    handoff_write_ = pair[1];
    set_nonblocking(handoff_read_);
    set_nonblocking(handoff_write_);
    set_nonblocking(listener_);
    epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
    if (epoll_ < 0)
      throw error(error_code::internal, std::string("epoll_create1: ") + std::strerror(errno));
    add(listener_, EPOLLIN);
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
    if (addr.ss_family == AF_INET)
      port_ = ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
    else if (addr.ss_family == AF_INET6)
      port_ = ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  }

  ~gatekeeper() {
    stop();
    for (auto& [fd, p] : pending_) drop(p);
    for (auto& r : queue_) drop_ready(r);
    if (epoll_ >= 0) ::close(epoll_);
    ::close(listener_);
    ::close(handoff_write_);
    // handoff_read_ belongs to CAF's acceptor once launched (closed with it).
    if (!handed_read_) ::close(handoff_read_);
  }

  void start() { thread_ = std::thread([this] { run(); }); }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

  native_socket take_handoff_socket() {
    handed_read_ = true;
    return handoff_read_;
  }
  std::uint16_t port() const noexcept { return port_; }

  // On CAF's multiplexer thread: the next link ready for BASP, if any.
  std::optional<ready_link> next() {
    char byte;
    (void)!::recv(handoff_read_, &byte, 1, 0);
    std::lock_guard lock(qm_);
    if (queue_.empty()) return std::nullopt;
    ready_link r = std::move(queue_.front());
    queue_.pop_front();
    return r;
  }

 private:
  struct pending {
    native_socket fd = -1;
    SSL* ssl = nullptr;
    std::string peer;
    clock_type::time_point deadline;
    std::array<char, hello_size> hello{};
    std::size_t got = 0;
    bool tls = false;
  };

  void add(native_socket fd, std::uint32_t events) {
    epoll_event ev{};
    ev.events = events;
    ev.data.fd = fd;
    ::epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &ev);
  }
  void modify(native_socket fd, std::uint32_t events) {
    epoll_event ev{};
    ev.events = events;
    ev.data.fd = fd;
    ::epoll_ctl(epoll_, EPOLL_CTL_MOD, fd, &ev);
  }
  void drop(pending& p) {
    if (p.ssl) SSL_free(p.ssl);
    p.ssl = nullptr;
    ::close(p.fd);
    --st_->open;
  }
  void drop_ready(ready_link& r) {
    if (r.ssl) SSL_free(r.ssl);
    ::close(r.fd);
    --st_->open;
  }
  void close_pending(native_socket fd) {
    auto it = pending_.find(fd);
    if (it == pending_.end()) return;
    ::epoll_ctl(epoll_, EPOLL_CTL_DEL, fd, nullptr);
    drop(it->second);
    pending_.erase(it);
  }

  void run() {
    std::vector<epoll_event> events(64);
    while (!stop_) {
      int n = ::epoll_wait(epoll_, events.data(), static_cast<int>(events.size()), 100);
      for (int i = 0; i < n && !stop_; ++i) {
        native_socket fd = events[static_cast<std::size_t>(i)].data.fd;
        if (fd == listener_)
          accept_all();
        else
          advance(fd);
      }
      auto now = clock_type::now();
      expire(now);
      st_->expire(now);
      if (paused_ && now >= resume_at_) {
        paused_ = false;
        modify(listener_, EPOLLIN);
      }
    }
  }

  void accept_all() {
    while (!stop_) {
      sockaddr_storage addr{};
      socklen_t len = sizeof addr;
      native_socket fd = ::accept4(listener_, reinterpret_cast<sockaddr*>(&addr), &len,
                                   SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
          // Out of descriptors: the waiting connection stays in the backlog. Without a pause
          // the listening socket would stay readable and this thread would spin.
          auto now = clock_type::now();
          if (now - last_exhausted_log_ > std::chrono::seconds(5)) {
            last_exhausted_log_ = now;
            st_->log("cannot accept connections: " + std::string(std::strerror(errno)) + " (" +
                     std::to_string(st_->open.load()) + " links open); pausing");
          }
          paused_ = true;
          resume_at_ = now + std::chrono::milliseconds(200);
          modify(listener_, 0);
        }
        return;
      }
      std::string peer = peer_of(fd);
      const auto& o = st_->options;
      const std::size_t waiting = pending_.size() + st_->unproven_count();
      if (st_->open.load() >= o.max_connections) {
        st_->log("refused " + peer + ": " + std::to_string(st_->open.load()) +
                 " links are open, the most allowed (--max-connections)");
        ::close(fd);
        continue;
      }
      if (waiting >= o.max_pending) {
        st_->log("refused " + peer + ": " + std::to_string(waiting) +
                 " connections already wait for their handshake (--max-pending)");
        ::close(fd);
        continue;
      }
      ++st_->open;
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      pending p;
      p.fd = fd;
      p.peer = std::move(peer);
      p.deadline = clock_type::now() + o.handshake_timeout;
      auto hello = make_hello(st_->mode);
      if (::send(fd, hello.data(), hello.size(), MSG_NOSIGNAL) != static_cast<long>(hello.size())) {
        drop(p);
        continue;
      }
      pending_.emplace(fd, std::move(p));
      add(fd, EPOLLIN);
    }
  }

  void advance(native_socket fd) {
    auto it = pending_.find(fd);
    if (it == pending_.end()) return;
    pending& p = it->second;
    if (!p.tls) {
      long n = ::recv(fd, p.hello.data() + p.got, hello_size - p.got, 0);
      if (n == 0 || (n < 0 && !would_block(errno))) {
        close_pending(fd);  // gone before saying anything: nothing to refuse
        return;
      }
      if (n < 0) return;
      p.got += static_cast<std::size_t>(n);
      if (p.got < hello_size) return;
      std::string why = hello_mismatch(p.hello, st_->mode, false);
      if (!why.empty()) {
        st_->log("refused " + p.peer + ": " + why);
        close_pending(fd);
        return;
      }
      if (st_->mode == security::plain) {
        hand_off(fd);
        return;
      }
      p.tls = true;
      p.ssl = SSL_new(st_->server_ctx);
      if (!p.ssl || SSL_set_fd(p.ssl, fd) != 1) {
        st_->log("refused " + p.peer + ": cannot start TLS: " + ssl_errors());
        close_pending(fd);
        return;
      }
      SSL_set_accept_state(p.ssl);
    }
    ERR_clear_error();
    int r = SSL_do_handshake(p.ssl);
    if (r == 1) {
      hand_off(fd);
      return;
    }
    int e = SSL_get_error(p.ssl, r);
    if (e == SSL_ERROR_WANT_READ) {
      modify(fd, EPOLLIN);
      return;
    }
    if (e == SSL_ERROR_WANT_WRITE) {
      modify(fd, EPOLLOUT);
      return;
    }
    std::string why = ssl_errors();
    st_->log("refused " + p.peer + ": TLS handshake failed" +
             (st_->mode == security::tls_key ? ": it does not have the cluster's key (" + why + ")"
                                             : ": " + why));
    close_pending(fd);
  }

  void hand_off(native_socket fd) {
    auto it = pending_.find(fd);
    ::epoll_ctl(epoll_, EPOLL_CTL_DEL, fd, nullptr);
    ready_link r{fd, it->second.ssl, std::move(it->second.peer), it->second.deadline};
    pending_.erase(it);
    {
      std::lock_guard lock(qm_);
      queue_.push_back(std::move(r));
    }
    char byte = 1;
    (void)!::send(handoff_write_, &byte, 1, MSG_NOSIGNAL);
  }

  void expire(clock_type::time_point now) {
    for (auto it = pending_.begin(); it != pending_.end();) {
      if (it->second.deadline > now) {
        ++it;
        continue;
      }
      st_->log("closed " + it->second.peer + ": no handshake within " + st_->timeout_text());
      ::epoll_ctl(epoll_, EPOLL_CTL_DEL, it->first, nullptr);
      drop(it->second);
      it = pending_.erase(it);
    }
  }

  state_ptr st_;
  native_socket listener_;
  native_socket handoff_read_ = -1, handoff_write_ = -1;
  bool handed_read_ = false;
  int epoll_ = -1;
  std::uint16_t port_ = 0;
  std::map<native_socket, pending> pending_;  // the thread's own
  std::mutex qm_;
  std::deque<ready_link> queue_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  bool paused_ = false;
  clock_type::time_point resume_at_{}, last_exhausted_log_{};
};

using gatekeeper_ptr = std::shared_ptr<gatekeeper>;

// CAF's acceptor policy over the hand-off socket: each byte announces one ready link.
struct handoff_policy {
  explicit handoff_policy(gatekeeper_ptr g) : gate(std::move(g)) {}
  bool try_accept(native_socket& result, native_socket) {
    current = gate->next();
    if (!current) return false;
    result = current->fd;
    return true;
  }
  gatekeeper_ptr gate;
  std::optional<ready_link> current;
};

// Hands the gatekeeper's ready links to the BASP broker as new connections.
class link_doorman final : public caf::io::doorman {
 public:
  link_doorman(default_mpx& mpx, state_ptr st, gatekeeper_ptr g, native_socket handoff)
      : caf::io::doorman(caf::io::network::accept_hdl_from_socket(handoff)),
        st_(std::move(st)),
        gate_(g),
        acceptor_(mpx, handoff, g) {}

  bool new_connection() override {
    if (detached()) return false;
    auto& policy = policy_of();
    if (!policy.current) return false;
    ready_link r = std::move(*policy.current);
    policy.current.reset();
    auto& mpx = acceptor_.backend();
    native_socket fd = r.fd;
    st_->watch(fd, r.peer, r.deadline);
    auto l = std::make_unique<link>(st_, fd, r.ssl, std::move(r.peer), true);
    auto scribe = caf::make_counted<link_scribe>(mpx, fd, std::move(l));
    auto hdl = scribe->hdl();
    parent()->add_scribe(std::move(scribe));
    return caf::io::doorman::new_connection(&mpx, hdl);
  }
  void graceful_shutdown() override {
    acceptor_.graceful_shutdown();
    detach(&acceptor_.backend(), false);
  }
  void launch() override { acceptor_.start(this); }
  std::string addr() const override {
    auto x = caf::io::network::local_addr_of_fd(acceptor_.fd());
    return x ? *x : std::string();
  }
  std::uint16_t port() const override { return gate_->port(); }
  void add_to_loop() override { acceptor_.activate(this); }
  void remove_from_loop() override { acceptor_.passivate(); }

 private:
  handoff_policy& policy_of() { return acceptor_.policy(); }

  class acceptor final : public caf::io::network::acceptor {
   public:
    acceptor(default_mpx& mpx, native_socket fd, gatekeeper_ptr g)
        : caf::io::network::acceptor(mpx, fd), policy_(std::move(g)) {}
    void handle_event(caf::io::network::operation op) override {
      this->handle_event_impl(op, policy_);
    }
    handoff_policy& policy() { return policy_; }

   private:
    handoff_policy policy_;
  };

  state_ptr st_;
  gatekeeper_ptr gate_;
  acceptor acceptor_;
};

}  // namespace

// ---------------------------------------------------------------------------------------------
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
  caf::expected<caf::io::scribe_ptr> connect(const std::string& host,
                                             std::uint16_t port) override {
    auto fd = caf::io::network::new_tcp_connection(host, port);
    if (!fd) return std::move(fd.error());
    std::string why;
    SSL* ssl = nullptr;
    bool refused = false;
    if (!handshake(*fd, ssl, why, refused)) {
      ::close(*fd);
      // The text and whether trying again is pointless travel in the error's context.
      return caf::make_error(caf::sec::cannot_connect_to_node, why, refused);
    }
    auto l = std::make_unique<link>(st_, *fd, ssl, host + ":" + std::to_string(port), false);
    return caf::make_counted<link_scribe>(mpx(), *fd, std::move(l));
  }

  caf::expected<caf::io::doorman_ptr> open(std::uint16_t port, const char* addr,
                                           bool reuse) override {
    auto fd = caf::io::network::new_tcp_acceptor_impl(port, addr, reuse);
    if (!fd) return std::move(fd.error());
    gatekeeper_ptr g;
    try {
      g = std::make_shared<gatekeeper>(st_, *fd);
    } catch (const std::exception& e) {
      ::close(*fd);
      return caf::make_error(caf::sec::cannot_open_port, e.what());
    }
    g->start();
    keep_(g);
    native_socket handoff = g->take_handoff_socket();
    return caf::make_counted<link_doorman>(mpx(), st_, g, handoff);
  }

 private:
  default_mpx& mpx() { return static_cast<default_mpx&>(system().middleman().backend()); }

  // Hellos, then TLS, on a blocking schedule bounded by the handshake timeout.
  bool handshake(native_socket fd, SSL*& ssl, std::string& why, bool& refused) {
    const auto deadline = clock_type::now() + st_->options.handshake_timeout;
    set_nonblocking(fd);
    auto wait = [&](short events) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                                        clock_type::now());
      if (left.count() <= 0) return false;
      pollfd p{fd, events, 0};
      return ::poll(&p, 1, static_cast<int>(left.count())) > 0;
    };
    auto hello = make_hello(st_->mode);
    if (::send(fd, hello.data(), hello.size(), MSG_NOSIGNAL) != static_cast<long>(hello.size())) {
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
        why = "the head closed the connection before its hello (it may refuse this process: "
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
    ssl = SSL_new(st_->client_ctx);
    if (!ssl || SSL_set_fd(ssl, fd) != 1) {
      why = "cannot start TLS: " + ssl_errors();
      if (ssl) SSL_free(ssl);
      ssl = nullptr;
      return false;
    }
    SSL_set_connect_state(ssl);
    for (;;) {
      ERR_clear_error();
      int r = SSL_do_handshake(ssl);
      if (r == 1) return true;
      int e = SSL_get_error(ssl, r);
      if ((e == SSL_ERROR_WANT_READ && wait(POLLIN)) || (e == SSL_ERROR_WANT_WRITE && wait(POLLOUT)))
        continue;
      if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
        why = "the TLS handshake did not finish within " + st_->timeout_text();
      else if (st_->mode == security::tls_key) {
        why = "the head refused the key, or holds another one (TLS handshake failed: " +
              ssl_errors() + ")";
        refused = true;
      } else {
        why = "TLS handshake failed: " + ssl_errors();
        refused = true;
      }
      SSL_free(ssl);
      ssl = nullptr;
      return false;
    }
  }

  state_ptr st_;
  std::function<void(gatekeeper_ptr)> keep_;
};

// ---------------------------------------------------------------------------------------------
// TLS contexts.

unsigned int psk_server_callback(SSL* ssl, const char* identity, unsigned char* psk,
                                 unsigned int max_len) {
  auto* st = static_cast<link_transport::state*>(SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl)));
  if (!st || !identity || std::strcmp(identity, "superstep-cluster") != 0) return 0;
  if (st->psk.size() > max_len) return 0;
  std::memcpy(psk, st->psk.data(), st->psk.size());
  return static_cast<unsigned int>(st->psk.size());
}

unsigned int psk_client_callback(SSL* ssl, const char*, char* identity, unsigned int max_identity,
                                 unsigned char* psk, unsigned int max_len) {
  auto* st = static_cast<link_transport::state*>(SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl)));
  static const char id[] = "superstep-cluster";
  if (!st || sizeof id > max_identity || st->psk.size() > max_len) return 0;
  std::memcpy(identity, id, sizeof id);
  std::memcpy(psk, st->psk.data(), st->psk.size());
  return static_cast<unsigned int>(st->psk.size());
}

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

SSL_CTX* make_context(link_transport::state& st, bool server) {
  SSL_CTX* ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
  if (!ctx) tls_failure("cannot create a TLS context");
  SSL_CTX_set_app_data(ctx, &st);
  SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
  SSL_CTX_set_num_tickets(ctx, 0);
  SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
  const auto& tls = st.options.tls;
  switch (st.mode) {
    case security::tls_key:
      if (server)
        SSL_CTX_set_psk_server_callback(ctx, psk_server_callback);
      else
        SSL_CTX_set_psk_client_callback(ctx, psk_client_callback);
      break;
    case security::tls_certificates:
      SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
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
    case security::plain:
      break;
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

// ---------------------------------------------------------------------------------------------

struct link_transport::impl {
  impl(caf::actor_system& s) : sys(s), st(std::make_shared<state>()) {}
  caf::actor_system& sys;
  state_ptr st;
  caf::io::middleman_actor manager;
  std::mutex m;
  std::vector<gatekeeper_ptr> gatekeepers;
};

link_transport::link_transport(caf::actor_system& sys, link_options options)
    : impl_(std::make_unique<impl>(sys)) {
  std::signal(SIGPIPE, SIG_IGN);  // a TLS write to a closed socket must not end the process
  state& st = *impl_->st;
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
  for (auto& g : impl_->gatekeepers) g->stop();
}

caf::expected<std::uint16_t> link_transport::publish(const caf::actor& whom,
                                                     const std::string& host,
                                                     std::uint16_t port) {
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
  self->request(impl_->manager, timeout, caf::connect_atom::value, host, port)
      .receive(
          [&](const caf::node_id&, caf::strong_actor_ptr& whom, const std::set<std::string>&) {
            if (whom)
              out.actor = caf::actor_cast<caf::actor>(std::move(whom));
            else
              out.error = "nothing is published on port " + std::to_string(port);
          },
          [&](caf::error& e) {
            // The link manager's own failures carry their text and whether they are final.
            const auto& context = e.context();
            if (context.match_elements<std::string, bool>()) {
              out.error = context.get_as<std::string>(0);
              out.refused = context.get_as<bool>(1);
            } else {
              out.error = impl_->sys.render(e);
            }
          });
  return out;
}

std::string link_transport::describe() const { return describe_security(impl_->st->mode); }

}  // namespace superstep::net
