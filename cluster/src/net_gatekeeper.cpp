#include "net_gatekeeper.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

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
    for (auto& [fd, p] : pending_) drop(p);
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
      std::size_t waiting = pending_.size() + queued() + st_->unproven_count();
      if (st_->open.load() >= o.max_connections) {
        st_->log("refused " + peer + ": " + std::to_string(st_->open.load()) +
                 " links are open, the most allowed (--max-connections)");
        ::close(fd);
        continue;
      }
      if (waiting >= o.max_pending && !pending_.empty()) {
        // The oldest connection still waiting makes room: a real peer finishes its handshake
        // within milliseconds, so the oldest ones are those that stall on purpose.
        auto oldest = pending_.begin();
        for (auto it = pending_.begin(); it != pending_.end(); ++it)
          if (it->second.deadline < oldest->second.deadline) oldest = it;
        st_->log("closed " + oldest->second.peer + ": the oldest of " + std::to_string(waiting) +
                 " connections waiting for their handshake (--max-pending), for a new one");
        close_pending(oldest->first);
        --waiting;
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
      if (st_->mode == security::tls_key && !proved_key(p.ssl)) {
        st_->log("refused " + p.peer + ": it did not prove the cluster key");
        close_pending(fd);
        return;
      }
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
