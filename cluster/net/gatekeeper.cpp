#include "net/gatekeeper.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <caf/io/network/acceptor.hpp>
#include <cerrno>
#include <deque>
#include <optional>
#include <thread>
#include <vector>

#include "superstep/core/error.hpp"

namespace superstep::net::links {

// The accepting side: a thread accepts, exchanges hellos and runs the TLS handshake of each
// new connection, then hands finished ones to CAF through a socket pair that CAF watches as
// if it were the listening socket.
//
// A connection costs this thread next to nothing before its peer has shown something: every
// superstep peer says hello first, so ours only answers theirs; no TLS state exists before the
// peer's whole first record (its ClientHello) is here (SO_RCVLOWAT keeps the socket quiet until
// then); a connection turned away is reset (no TIME_WAIT kept here), and nothing is formatted
// for it beyond the log's 20 lines a second. Who gets in when room is short:
// - connections that have not said their hello are kept apart, --max-pending of them at most,
//   the one silent the longest making room for a new one: a flood of connections that say
//   nothing only pushes out its own;
// - --max-pending is the most that have said hello and wait for the rest of their handshake
//   (CAF's BASP handshake included). A connection whose hello has come takes the place of the
//   one that has been stuck the longest at its stage -- if that one is stuck for the stall
//   limit, or this one has already proved the cluster key. One that proved the key (the binder
//   of its ClientHello verified, which a keyed client sends along with its hello) is never
//   pushed out: without the key, a flood pushes out no client that has it.

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
    static_cast<void>(caf::io::network::nonblocking(handoff_read_, true));
    static_cast<void>(caf::io::network::nonblocking(handoff_write_, true));
    static_cast<void>(caf::io::network::nonblocking(listener_, true));
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
    for (auto& [fd, p] : pending_) drop(p, true);
    for (auto& r : queue_) drop_ready(r);
    if (epoll_ >= 0) ::close(epoll_);
    ::close(listener_);
    ::close(handoff_write_);
    // handoff_read_ belongs to CAF's acceptor once launched (closed with it).
    if (!handed_read_) ::close(handoff_read_);
  }

  void start() {
    thread_ = std::thread([this] { run(); });
  }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

  native_socket take_handoff_socket() {
    handed_read_ = true;
    return handoff_read_;
  }
  std::uint16_t port() const noexcept { return port_; }

  // On CAF's multiplexer thread: the next link ready for BASP, if any. The hand-off socket
  // holds a byte while the queue is not empty (CAF's poller is level-triggered).
  std::optional<ready_link> next() {
    std::lock_guard lock(qm_);
    std::optional<ready_link> out;
    if (!queue_.empty()) {
      out = std::move(queue_.front());
      queue_.pop_front();
    }
    if (queue_.empty() && signaled_) {
      char bytes[64];
      while (::recv(handoff_read_, bytes, sizeof bytes, 0) > 0) {
      }
      signaled_ = false;
    }
    return out;
  }

  // Links handed off and not yet taken by CAF.
  std::size_t queued() {
    std::lock_guard lock(qm_);
    return queue_.size();
  }

  // A link CAF cannot take (its doorman is gone): closed, and no longer counted.
  void discard(ready_link& r) { drop_ready(r); }

 private:
  // How far a connection has come in its handshake.
  enum class stage : std::uint8_t {
    hello,   // the peer's hello is not complete; nothing was sent to it
    record,  // hellos exchanged: the peer's first TLS record is awaited whole, no TLS state yet
    tls,     // TLS under way
    proved,  // TLS under way, the peer proved the cluster key (its ClientHello's binder)
  };
  static constexpr std::size_t tls_header_size = 5;
  static constexpr std::size_t max_first_record = 16384;  // TLS's largest plaintext record
  static constexpr auto sweep_every = std::chrono::milliseconds(20);

  struct pending {
    native_socket fd = -1;
    SSL* ssl = nullptr;
    clock_type::time_point deadline;  // for the whole handshake
    clock_type::time_point hello_by;  // for the peer's hello
    clock_type::time_point since;     // when it reached its stage
    std::array<char, hello_size> hello{};
    std::size_t got = 0;
    std::size_t record = 0;  // the first TLS record's size with its header, once known
    stage at = stage::hello;
    bool placed = false;           // it holds one of --max-pending's places
    std::uint32_t want = EPOLLIN;  // what the handshake waits for
    std::uint32_t watched = 0;     // what epoll watches
  };

  // What advancing a connection came to.
  enum class outcome { waiting, closed, ready };

  // 0: said nothing complete; 1: said its hello (and maybe more); 2: proved the cluster key.
  static int shown(const pending& p) {
    if (p.at == stage::proved) return 2;
    return p.at != stage::hello || p.got == hello_size ? 1 : 0;
  }
  // The time a connection that said its hello may be stuck at a stage before a newcomer no
  // further on takes its place: far more than a real peer's round trip.
  std::chrono::milliseconds stall_limit() const {
    return std::min(st_->options.handshake_timeout, std::chrono::milliseconds(250));
  }
  // The time a peer has for its hello (a real one sends it as soon as it is connected).
  std::chrono::milliseconds hello_limit() const {
    return std::min(st_->options.handshake_timeout, std::chrono::milliseconds(2000));
  }
  static std::string text_of(std::chrono::milliseconds d) {
    auto ms = d.count();
    return ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
  }
  // Logs (at most once a second) that `fd` is refused: `w` others wait, none stuck.
  void log_no_room(native_socket fd, std::size_t w) {
    st_->log_lazily([&] {
      return "refused " + peer_of(fd) + ": " + std::to_string(w) +
             " connections already wait for their handshake (--max-pending), none stuck for " +
             text_of(stall_limit());
    });
  }

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
  static void set_lowat(native_socket fd, std::size_t bytes) {
    int n = static_cast<int>(bytes);
    ::setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &n, sizeof n);
  }
  // Closes `fd` with a reset: the peer learns at once, and this side keeps no TIME_WAIT.
  static void reset(native_socket fd) {
    linger l{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    ::close(fd);
  }
  // (Closing a socket also takes it out of the epoll set.)
  void drop(pending& p, bool with_reset) {
    if (p.ssl) SSL_free(p.ssl);
    p.ssl = nullptr;
    if (with_reset)
      reset(p.fd);
    else
      ::close(p.fd);
    --st_->open;
  }
  void drop_ready(ready_link& r) {
    if (r.ssl) SSL_free(r.ssl);
    ::close(r.fd);
    --st_->open;
  }
  void close_pending(native_socket fd, bool with_reset) {
    auto it = pending_.find(fd);
    if (it == pending_.end()) return;
    if (!it->second.placed) --silent_;
    drop(it->second, with_reset);
    pending_.erase(it);
  }
  void enter(pending& p, stage s, clock_type::time_point now) {
    p.at = s;
    p.since = now;
  }

  void run() {
    std::vector<epoll_event> events(64);
    clock_type::time_point next_sweep{};
    while (!stop_) {
      int n = ::epoll_wait(epoll_, events.data(), static_cast<int>(events.size()), 100);
      for (int i = 0; i < n && !stop_; ++i) {
        const epoll_event& ev = events[static_cast<std::size_t>(i)];
        if (ev.data.fd == listener_)
          accept_all();
        else
          advance(ev.data.fd, ev.events);
      }
      auto now = clock_type::now();
      if (now >= next_sweep) {  // not after every event: a flood brings many
        next_sweep = now + sweep_every;
        expire(now);
        st_->expire(now);
      }
      if (paused_ && now >= resume_at_) {
        paused_ = false;
        modify(listener_, EPOLLIN);
      }
    }
  }

  // Links waiting for their handshake that hold a place of --max-pending.
  std::size_t waiting() { return pending_.size() - silent_ + queued() + st_->unproven_count(); }

  void accept_all() {
    while (!stop_) {
      native_socket fd = ::accept4(listener_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
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
      const auto& o = st_->options;
      if (st_->open.load() >= o.max_connections) {
        st_->log_lazily([&] {
          return "refused " + peer_of(fd) + ": " + std::to_string(st_->open.load()) +
                 " links are open, the most allowed (--max-connections)";
        });
        reset(fd);
        continue;
      }
      const auto now = clock_type::now();
      ++st_->open;  // from here drop() un-counts it
      pending p;
      p.fd = fd;
      p.deadline = now + o.handshake_timeout;
      p.hello_by = now + hello_limit();
      p.since = now;
      // What the peer sent already (a keyed client sends its hello and ClientHello in one
      // write): it decides where the newcomer stands.
      const outcome out = step(p, 0, now);
      if (out == outcome::closed) {
        drop(p, false);
        continue;
      }
      if (shown(p) > 0) {
        std::size_t w = waiting();
        if (w >= o.max_pending && !make_room(shown(p), w, now, -1)) {
          log_no_room(fd, w);
          drop(p, true);
          continue;
        }
        p.placed = true;
      } else {
        if (silent_ >= o.max_pending) make_silent_room();
        ++silent_;
      }
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      if (out == outcome::ready) {
        hand_off(std::move(p));
        continue;
      }
      p.watched = p.want | EPOLLRDHUP;
      add(fd, p.watched);
      pending_.emplace(fd, std::move(p));
    }
  }

  // Room among the connections that have said nothing yet: the one silent the longest goes.
  void make_silent_room() {
    auto oldest = pending_.end();
    for (auto it = pending_.begin(); it != pending_.end(); ++it) {
      if (it->second.placed) continue;
      if (oldest == pending_.end() || it->second.since < oldest->second.since) oldest = it;
    }
    if (oldest == pending_.end()) return;
    const native_socket victim = oldest->first;
    st_->log_lazily([&] {
      return "closed " + peer_of(victim) + ": the longest silent of " + std::to_string(silent_) +
             " connections that have not said hello (--max-pending), for a new one";
    });
    close_pending(victim, true);
  }

  // Room among the `w` links waiting for their handshake, for one that has shown `level`
  // (`self`: itself, if it is among them already). Goes to the one stuck the longest at its
  // stage, among those that did not prove the key, if it is stuck for the stall limit or the
  // newcomer proved the key. False: nobody goes, the newcomer is refused.
  bool make_room(int level, std::size_t w, clock_type::time_point now, native_socket self) {
    for (; w >= st_->options.max_pending; --w) {
      auto victim = pending_.end();
      for (auto it = pending_.begin(); it != pending_.end(); ++it) {
        const pending& q = it->second;
        if (!q.placed || it->first == self || shown(q) >= 2) continue;
        if (victim == pending_.end() || q.since < victim->second.since) victim = it;
      }
      if (victim == pending_.end()) return false;  // all proved the key, or CAF has them
      if (level < 2 && now - victim->second.since < stall_limit()) return false;
      const native_socket fd = victim->first;
      st_->log_lazily([&] {
        return "closed " + peer_of(fd) + ": stuck the longest of " + std::to_string(w) +
               " connections waiting for their handshake (--max-pending), for a new one" +
               (level >= 2 ? " that proved the key" : "");
      });
      close_pending(fd, true);
    }
    return true;
  }

  // Advances `p` as far as what its peer sent allows. `events`: epoll's, 0 when just accepted.
  // Logs the refusals it makes; the caller closes what comes out closed.
  outcome step(pending& p, std::uint32_t events, clock_type::time_point now) {
    if (p.at == stage::hello) {
      long n = ::recv(p.fd, p.hello.data() + p.got, hello_size - p.got, 0);
      if (n == 0 || (n < 0 && !would_block(errno))) return outcome::closed;  // gone: no refusal
      if (n < 0) return outcome::waiting;
      p.got += static_cast<std::size_t>(n);
      if (p.got < hello_size) return outcome::waiting;
      // Ours answers theirs, also when they do not match: the peer then says which side lacks
      // what.
      std::string why = hello_mismatch(p.hello, st_->mode, false);
      auto hello = make_hello(st_->mode);
      if (::send(p.fd, hello.data(), hello.size(), MSG_NOSIGNAL) != static_cast<long>(hello.size()))
        return outcome::closed;
      if (!why.empty()) {
        st_->log_lazily([&] { return "refused " + peer_of(p.fd) + ": " + why; });
        // What came with its hello (a keyed client's ClientHello) is read off, so that the
        // close is an end, not a reset (which may cost the peer our hello, unread).
        char sink[4096];
        (void)!::recv(p.fd, sink, sizeof sink, 0);
        return outcome::closed;
      }
      if (st_->mode == security::plain) return outcome::ready;
      enter(p, stage::record, now);
      set_lowat(p.fd, tls_header_size);
    }
    if (p.at == stage::record) {
      unsigned char h[tls_header_size];
      long n = ::recv(p.fd, h, sizeof h, MSG_PEEK);
      if (n == 0 || (n < 0 && !would_block(errno))) return outcome::closed;
      const bool hangup = (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0;
      if (n < static_cast<long>(sizeof h)) return hangup ? outcome::closed : outcome::waiting;
      if (p.record == 0) {
        const std::size_t len = (std::size_t{h[3]} << 8) | h[4];
        if (h[0] != 22 || h[1] != 3 || len == 0 || len > max_first_record) {
          st_->log_lazily(
              [&] { return "refused " + peer_of(p.fd) + ": it did not start a TLS handshake"; });
          return outcome::closed;
        }
        p.record = sizeof h + len;
      }
      int queued_bytes = 0;
      if (::ioctl(p.fd, FIONREAD, &queued_bytes) != 0) return outcome::closed;
      if (static_cast<std::size_t>(queued_bytes) < p.record) {
        if (hangup) return outcome::closed;
        set_lowat(p.fd, p.record);  // epoll stays quiet until the record is whole
        return outcome::waiting;
      }
      set_lowat(p.fd, 1);  // as OpenSSL and CAF expect from here on
      p.ssl = SSL_new(st_->server_ctx);
      if (!p.ssl || SSL_set_fd(p.ssl, p.fd) != 1) {
        st_->log_lazily(
            [&] { return "refused " + peer_of(p.fd) + ": cannot start TLS: " + ssl_errors(); });
        return outcome::closed;
      }
      SSL_set_accept_state(p.ssl);
      enter(p, stage::tls, now);
    }
    ERR_clear_error();
    int r = SSL_do_handshake(p.ssl);
    if (r == 1) {
      if (st_->mode == security::tls_key && !proved_key(p.ssl)) {
        st_->log_lazily(
            [&] { return "refused " + peer_of(p.fd) + ": it did not prove the cluster key"; });
        return outcome::closed;
      }
      return outcome::ready;
    }
    int e = SSL_get_error(p.ssl, r);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
      p.want = e == SSL_ERROR_WANT_READ ? EPOLLIN : EPOLLOUT;
      // The server resumes the key's session only once the ClientHello's binder, made with the
      // key, is verified: the peer holds the key.
      if (p.at == stage::tls && st_->mode == security::tls_key && SSL_session_reused(p.ssl) == 1)
        enter(p, stage::proved, now);
      return outcome::waiting;
    }
    st_->log_lazily([&] {
      const std::string why = ssl_errors();
      return "refused " + peer_of(p.fd) + ": TLS handshake failed" +
             (st_->mode == security::tls_key ? ": it does not have the cluster's key (" + why + ")"
                                             : ": " + why);
    });
    return outcome::closed;
  }

  void advance(native_socket fd, std::uint32_t events) {
    auto it = pending_.find(fd);
    if (it == pending_.end()) return;
    pending& p = it->second;
    const auto now = clock_type::now();
    const outcome out = step(p, events, now);
    if (out == outcome::closed) {
      close_pending(fd, false);
      return;
    }
    if (!p.placed && shown(p) > 0) {
      // Its hello has come: it takes a place among those waiting for their handshake.
      --silent_;
      p.placed = true;
      std::size_t w = waiting() - 1;  // the others
      if (w >= st_->options.max_pending && !make_room(shown(p), w, now, fd)) {
        log_no_room(fd, w);
        close_pending(fd, true);
        return;
      }
    }
    if (out == outcome::ready) {
      ::epoll_ctl(epoll_, EPOLL_CTL_DEL, fd, nullptr);
      auto node = pending_.extract(fd);
      hand_off(std::move(node.mapped()));
      return;
    }
    const std::uint32_t want = p.want | EPOLLRDHUP;
    if (want != p.watched) {
      p.watched = want;
      modify(fd, want);
    }
  }

  void hand_off(pending&& p) {
    ready_link r{p.fd, p.ssl, peer_of(p.fd), p.deadline};
    p.ssl = nullptr;
    std::lock_guard lock(qm_);
    queue_.push_back(std::move(r));
    if (!signaled_) {
      char byte = 1;
      signaled_ = ::send(handoff_write_, &byte, 1, MSG_NOSIGNAL) == 1;
    }
  }

  void expire(clock_type::time_point now) {
    {
      std::lock_guard lock(qm_);
      for (auto it = queue_.begin(); it != queue_.end();) {
        if (it->deadline > now) {
          ++it;
          continue;
        }
        st_->log("closed " + it->peer + ": not taken up within " + st_->timeout_text());
        drop_ready(*it);
        it = queue_.erase(it);
      }
    }
    for (auto it = pending_.begin(); it != pending_.end();) {
      pending& p = it->second;
      const bool no_hello = p.at == stage::hello && p.hello_by <= now;
      if (p.deadline > now && !no_hello) {
        ++it;
        continue;
      }
      st_->log_lazily([&] {
        return "closed " + peer_of(p.fd) + ": " +
               (no_hello ? "no hello within " + text_of(hello_limit())
                         : "no handshake within " + st_->timeout_text());
      });
      if (!p.placed) --silent_;
      drop(p, true);
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
  std::size_t silent_ = 0;                    // of pending_, those not placed
  std::mutex qm_;
  std::deque<ready_link> queue_;
  bool signaled_ = false;  // under qm_: the hand-off socket holds a byte
  std::atomic<bool> stop_{false};
  std::thread thread_;
  bool paused_ = false;
  clock_type::time_point resume_at_{}, last_exhausted_log_{};
};

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
    auto& policy = policy_of();
    if (!policy.current) return false;
    if (detached()) {
      gate_->discard(*policy.current);
      policy.current.reset();
      return false;
    }
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
    gate_->stop();  // nobody takes its links any more
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

gatekeeper_ptr start_gatekeeper(state_ptr st, native_socket listener) {
  auto g = std::make_shared<gatekeeper>(std::move(st), listener);
  g->start();
  return g;
}

void stop_gatekeeper(gatekeeper& g) { g.stop(); }

caf::io::doorman_ptr make_link_doorman(default_mpx& mpx, state_ptr st, gatekeeper_ptr g) {
  native_socket handoff = g->take_handoff_socket();
  return caf::make_counted<link_doorman>(mpx, std::move(st), std::move(g), handoff);
}

}  // namespace superstep::net::links
