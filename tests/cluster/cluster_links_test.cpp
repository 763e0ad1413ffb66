// The cluster's links through real processes on loopback: only holders of the cluster's key
// join, submit or are answered, impostors and keyless peers reach no actor, frames and
// connections are bounded, garbage does not stop the head, and TLS admits only a CA's nodes.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <boost/test/unit_test.hpp>
#include <ctime>
#include <deque>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <thread>

#include "cluster/cluster_support.hpp"

using namespace superstep;
using namespace std::chrono_literals;
using superstep::test::cli_result;
using superstep::test::run_to_end;
using superstep::test::scratch;

namespace {

std::string spec(const std::string& name) { return test::example_spec(name); }

using cluster = test::test_cluster;

}  // namespace

BOOST_AUTO_TEST_CASE(only_holders_of_the_key_join_or_submit) {
  scratch s;
  const std::string key = s.write("key", "0123456789abcdef0123456789abcdef\n");
  const std::string wrong = s.write("wrong", "fedcba9876543210fedcba9876543210\n");
  cluster c(s, {"--key-file", key});
  c.add_worker("keyed", {"--key-file", key});
  const std::vector<std::string> submit{"submit", spec("jokes"), "--input",
                                        R"({"subjects": ["a"]})"};
  cli_result none = c.client(submit);
  BOOST_TEST(none.status == 1);
  BOOST_TEST(none.err.find("requires the cluster's key") != std::string::npos, none.err);
  auto with = [&](const std::string& file) {
    auto args = submit;
    args.insert(args.end(), {"--key-file", file});
    return c.client(args);
  };
  cli_result bad = with(wrong);
  BOOST_TEST(bad.status == 1);
  BOOST_TEST(bad.err.find("refused the key") != std::string::npos, bad.err);
  cli_result good = with(key);
  BOOST_TEST(good.status == 0, good.err);
  // A worker with the wrong key gives up with the reason; the head names the refusal.
  cli_result w = run_to_end({"worker", "--join", c.address(), "--key-file", wrong}, s);
  BOOST_TEST(w.status == 1);
  BOOST_TEST(w.err.find("refused the key") != std::string::npos, w.err);
  BOOST_TEST(c.head().err_text().find("does not have the cluster's key") != std::string::npos);
}

namespace {

// A TCP connection to 127.0.0.1:port, with reads bounded in time.
class raw_connection {
 public:
  explicit raw_connection(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    BOOST_REQUIRE(fd_ >= 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    BOOST_REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    sockaddr_in mine{};
    socklen_t len = sizeof mine;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&mine), &len);
    local_port_ = ntohs(mine.sin_port);
  }
  ~raw_connection() { ::close(fd_); }
  void send(const std::string& bytes) {
    (void)!::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  }
  // What arrives within `wait` (until the peer closes, or `wait` passes without a byte).
  std::string receive(std::chrono::milliseconds wait) {
    std::string out;
    for (;;) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(wait.count())) <= 0) return out;
      char buf[4096];
      long n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) {
        closed_ = true;
        return out;
      }
      out.append(buf, static_cast<std::size_t>(n));
    }
  }
  bool closed() const { return closed_; }
  std::string local_address() const { return "127.0.0.1:" + std::to_string(local_port_); }

 private:
  int fd_ = -1;
  int local_port_ = 0;
  bool closed_ = false;
};

const std::string plain_hello = std::string("superstep-link\x01\x00", 16);

// A BASP header (32 bytes) of operation `op` declaring `payload` bytes.
std::string basp_header(std::uint8_t op, std::uint32_t payload) {
  std::string h(32, '\0');
  h[0] = static_cast<char>(op);
  for (int i = 0; i < 4; ++i) h[4 + i] = static_cast<char>(payload >> (24 - 8 * i));
  return h;
}

}  // namespace

// The attack of issue 12: a process without the key learned the head's node id from CAF's
// handshake (sent in clear) and sent BASP messages claiming to come from the head's own gate,
// which ran them. Now a keyed head says only its 16-byte hello before the peer proves the key
// in TLS: no node id, no actor; whatever a keyless peer sends is refused, with its address.
BOOST_AUTO_TEST_CASE(a_process_without_the_key_reaches_no_actor_of_a_keyed_head) {
  scratch s;
  const std::string key = s.write("key", "0123456789abcdef0123456789abcdef\n");
  cluster c(s, {"--key-file", key});
  c.add_worker("keyed", {"--key-file", key});
  const std::vector<std::string> keyed{"--key-file", key};
  auto with_key = [&](std::vector<std::string> args) {
    args.insert(args.end(), keyed.begin(), keyed.end());
    return c.client(args);
  };
  cli_result run = with_key(
      {"submit", spec("seed_persistence"), "--input", R"({"foo": ""})", "--thread", "victim"});
  BOOST_REQUIRE_MESSAGE(run.status == 0, run.err);
  const value before = with_key({"state", "--thread", "victim"}).last();
  {
    raw_connection attacker(c.port());
    // The head says nothing before the peer's hello (every superstep peer speaks first).
    BOOST_TEST(attacker.receive(300ms).empty());
    // Pretending to have no key: the hello says "TLS with the cluster key" (3) and nothing
    // else comes: CAF's handshake, which carries the head's node id, is only sent inside TLS.
    attacker.send(plain_hello);
    std::string first = attacker.receive(500ms);
    BOOST_TEST(first == std::string("superstep-link\x01\x03", 16));
    // Then a BASP client handshake and a message "from the gate".
    attacker.send(basp_header(1, 40) + std::string(40, '\x01'));
    attacker.send(basp_header(2, 64) + std::string(64, '\x02'));
    attacker.receive(2s);
    BOOST_TEST(attacker.closed());
    BOOST_TEST(c.head().wait_for_err("refused " + attacker.local_address(), 5s),
               c.head().err_text());
  }
  {
    raw_connection attacker(c.port());
    attacker.receive(300ms);
    // Claiming the key without it: the TLS handshake cannot succeed.
    attacker.send(std::string("superstep-link\x01\x03", 16));
    attacker.send(basp_header(2, 64) + std::string(64, '\x02'));
    attacker.receive(2s);
    BOOST_TEST(attacker.closed());
    BOOST_TEST(c.head().wait_for_err("refused " + attacker.local_address(), 5s),
               c.head().err_text());
  }
  // The thread is as it was and the head serves its clients.
  BOOST_TEST(with_key({"state", "--thread", "victim"}).last() == before);
  cli_result again = with_key({"submit", spec("jokes"), "--input", R"({"subjects": ["a"]})"});
  BOOST_TEST(again.status == 0, again.err);
}

namespace {

// Someone who took the head's port: it says hello as a keyed head, then answers TLS with a
// certificate (from the test CA) instead of the key it does not have.
class impostor_head {
 public:
  impostor_head() {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    BOOST_REQUIRE(::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    BOOST_REQUIRE(::listen(listener_, 8) == 0);
    socklen_t len = sizeof addr;
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    ctx_ = SSL_CTX_new(TLS_server_method());
    const std::string dir = SUPERSTEP_TLS_DIR;
    BOOST_REQUIRE(SSL_CTX_use_certificate_chain_file(ctx_, (dir + "/node.pem").c_str()) == 1);
    BOOST_REQUIRE(
        SSL_CTX_use_PrivateKey_file(ctx_, (dir + "/node.key").c_str(), SSL_FILETYPE_PEM) == 1);
    thread_ = std::thread([this] { serve(); });
  }
  ~impostor_head() {
    stop_ = true;
    ::shutdown(listener_, SHUT_RDWR);
    thread_.join();
    ::close(listener_);
    SSL_CTX_free(ctx_);
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  int handshakes_done() const { return done_.load(); }

 private:
  void serve() {
    while (!stop_) {
      pollfd p{listener_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      int fd = ::accept(listener_, nullptr, nullptr);
      if (fd < 0) continue;
      timeval tv{5, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      std::string hello("superstep-link\x01\x03", 16);
      (void)!::send(fd, hello.data(), hello.size(), MSG_NOSIGNAL);
      char theirs[16];
      (void)!::recv(fd, theirs, sizeof theirs, MSG_WAITALL);
      SSL* ssl = SSL_new(ctx_);
      SSL_set_fd(ssl, fd);
      if (SSL_accept(ssl) == 1) {
        ++done_;
        char buf[64];
        (void)!SSL_read(ssl, buf, sizeof buf);
      }
      SSL_free(ssl);
      ::close(fd);
    }
  }

  int listener_ = -1;
  int port_ = 0;
  SSL_CTX* ctx_ = nullptr;
  std::atomic<bool> stop_{false};
  std::atomic<int> done_{0};
  std::thread thread_;
};

}  // namespace

// The other direction of the proof: a worker or client with the key talks to no head that
// does not prove it holds the same key (an impostor on the head's port gets nothing).
BOOST_AUTO_TEST_CASE(holders_of_the_key_refuse_an_impostor_without_it) {
  scratch s;
  const std::string key = s.write("key", "0123456789abcdef0123456789abcdef\n");
  impostor_head impostor;
  cli_result client = run_to_end({"submit", "--head", impostor.address(), spec("jokes"), "--input",
                                  R"({"subjects": ["a"]})", "--key-file", key},
                                 s);
  BOOST_TEST(client.status == 1);
  BOOST_TEST(client.err.find("did not prove the cluster key") != std::string::npos, client.err);
  cli_result w = run_to_end({"worker", "--join", impostor.address(), "--key-file", key}, s);
  BOOST_TEST(w.status == 1);
  BOOST_TEST(w.err.find("did not prove the cluster key") != std::string::npos, w.err);
  BOOST_TEST(impostor.handshakes_done() == 0);
}

// Workers and clients holding the key refuse a head that cannot prove it holds it too.
BOOST_AUTO_TEST_CASE(holders_of_the_key_refuse_a_head_without_it) {
  scratch s;
  const std::string key = s.write("key", "0123456789abcdef0123456789abcdef\n");
  cluster c(s);
  cli_result client =
      c.client({"submit", spec("jokes"), "--input", R"({"subjects": ["a"]})", "--key-file", key});
  BOOST_TEST(client.status == 1);
  BOOST_TEST(client.err.find("the head has no cluster key") != std::string::npos, client.err);
  cli_result w = run_to_end({"worker", "--join", c.address(), "--key-file", key}, s);
  BOOST_TEST(w.status == 1);
  BOOST_TEST(w.err.find("the head has no cluster key") != std::string::npos, w.err);
  BOOST_TEST(c.head().err_text().find("it has the cluster key, this head has none") !=
             std::string::npos);
}

// Before a peer has authenticated: a header declaring a huge payload is cut before anything
// is allocated, connections that never finish their handshake are closed at the deadline,
// and too many waiting ones are refused; each with the peer's address in the log.
BOOST_AUTO_TEST_CASE(huge_frames_and_idle_connections_are_cut_and_logged) {
  scratch s;
  cluster c(s, {"--handshake-timeout", "1", "--max-pending", "3"});
  c.add_worker("w");
  {
    raw_connection huge(c.port());
    huge.receive(200ms);
    huge.send(plain_hello);
    huge.send(basp_header(1, 0xfffffff0u));
    huge.receive(2s);
    BOOST_TEST(huge.closed());
    BOOST_TEST(
        c.head().wait_for_err("closed " + huge.local_address() +
                                  ": a first frame (the handshake) declaring 4294967280 bytes",
                              2s),
        c.head().err_text());
  }
  {
    // A frame that is not the handshake (a heartbeat, no payload) does not pass for one: it
    // would lift the limit to that of authenticated peers.
    raw_connection sly(c.port());
    sly.receive(200ms);
    sly.send(plain_hello);
    sly.send(basp_header(6, 0) + basp_header(2, 0x3ffffff0u));
    sly.receive(2s);
    BOOST_TEST(sly.closed());
    BOOST_TEST(c.head().wait_for_err("closed " + sly.local_address() +
                                         ": a first frame of BASP operation 6, not its handshake",
                                     2s),
               c.head().err_text());
  }
  std::vector<std::unique_ptr<raw_connection>> idle;
  for (int i = 0; i < 3; ++i) {
    idle.push_back(std::make_unique<raw_connection>(c.port()));
    BOOST_TEST(idle.back()->receive(100ms).empty());  // no hello: the head waits for theirs
  }
  // A fourth silent one while three are: the one silent the longest makes room (real peers say
  // hello as soon as they are connected).
  raw_connection fourth(c.port());
  idle[0]->receive(2s);
  BOOST_TEST(idle[0]->closed());
  BOOST_TEST(
      c.head().wait_for_err(
          "closed " + idle[0]->local_address() + ": the longest silent of 3 connections", 2s),
      c.head().err_text());
  for (std::size_t i = 1; i < idle.size(); ++i) {
    idle[i]->receive(3s);
    BOOST_TEST(idle[i]->closed());
    BOOST_TEST(
        c.head().wait_for_err("closed " + idle[i]->local_address() + ": no hello within 1 s", 2s),
        c.head().err_text());
  }
  fourth.receive(3s);
  BOOST_TEST(fourth.closed());
  BOOST_REQUIRE(c.head().running());
  cli_result r = c.client({"submit", spec("jokes"), "--input", R"({"subjects": ["a"]})"});
  BOOST_TEST(r.status == 0, r.err);
}

namespace {

// How a flood opens its connections, none with the key.
enum class flood_kind {
  silent,      // says nothing and holds up to 64 of them, closing the oldest
  hello_only,  // says a keyed hello and nothing more, and holds them likewise
  hang_up,     // closes each at once
};

// Opens connections to 127.0.0.1:port as fast as it can until `stop`; adds how many it opened
// and the CPU time it took to `opened` and `cpu_us`.
void flood(int port, flood_kind kind, const std::atomic<bool>& stop, std::atomic<long>& opened,
           std::atomic<long>& cpu_us) {
  const std::string keyed_hello("superstep-link\x01\x03", 16);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::deque<int> held;
  long n = 0;
  while (!stop) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) break;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd);
      continue;
    }
    ++n;
    if (kind == flood_kind::hang_up) {
      ::close(fd);
      continue;
    }
    if (kind == flood_kind::hello_only)
      (void)!::send(fd, keyed_hello.data(), keyed_hello.size(), MSG_NOSIGNAL);
    held.push_back(fd);
    if (held.size() > 64) {
      ::close(held.front());
      held.pop_front();
    }
  }
  for (int fd : held) ::close(fd);
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  opened += n;
  cpu_us += t.tv_sec * 1000000L + t.tv_nsec / 1000;
}

// The CPU time (user and system) process `pid` has taken so far.
long cpu_ms_of(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));  // after "pid (name) "
  std::string field;
  long ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i)
    if (i == 14 || i == 15) ticks += std::stol(field);  // utime, stime
  return ticks * 1000 / ::sysconf(_SC_CLK_TCK);
}

}  // namespace

// A flood of connections without the key, as fast as three threads can open them: silent ones
// held open, ones that say a keyed hello and stop, ones closed at once. The head used to close
// the oldest connection in its handshake for each new one, so the flood cut off every keyed
// client's TLS handshake ("the TLS handshake was cut off": none of 8 submits got through).
// Now connections that said nothing only push out each other, and a keyed client proves the
// key with its first bytes (its ClientHello's binder, sent with its hello), which no flood
// pushes out: every submit gets through, and the flood costs the head less CPU than its senders
// (the head's CPU beyond what the same runs take it without a flood).
BOOST_AUTO_TEST_CASE(a_flood_of_connections_without_the_key_keeps_no_keyed_client_out) {
  scratch s;
  const std::string key = s.write("key", "0123456789abcdef0123456789abcdef\n");
  cluster c(s, {"--key-file", key, "--max-pending", "8"});
  c.add_worker("keyed", {"--key-file", key});
  const auto submit = [&] {
    return c.client(
        {"submit", spec("jokes"), "--input", R"({"subjects": ["a"]})", "--key-file", key});
  };
  // What the head spends on the eight runs themselves, without a flood (after a first round
  // that loads the graph): the flood's cost to the head is what it takes beyond that.
  for (int i = 0; i < 8; ++i) BOOST_REQUIRE_EQUAL(submit().status, 0);
  const long quiet_before = cpu_ms_of(c.head().pid());
  for (int i = 0; i < 8; ++i) BOOST_REQUIRE_EQUAL(submit().status, 0);
  const long runs_ms = cpu_ms_of(c.head().pid()) - quiet_before;
  std::atomic<bool> stop{false};
  std::atomic<long> opened{0}, flood_cpu_us{0};
  const long head_before = cpu_ms_of(c.head().pid());
  std::vector<std::thread> floods;
  for (auto kind : {flood_kind::silent, flood_kind::hello_only, flood_kind::hang_up})
    floods.emplace_back(flood, c.port(), kind, std::cref(stop), std::ref(opened),
                        std::ref(flood_cpu_us));
  std::this_thread::sleep_for(500ms);  // the flood is on before the first client
  int through = 0;
  std::string failures;
  for (int i = 0; i < 8; ++i) {
    cli_result r = submit();
    if (r.status == 0)
      ++through;
    else
      failures += r.err;
  }
  stop = true;
  for (auto& t : floods) t.join();
  const long head_ms = cpu_ms_of(c.head().pid()) - head_before - runs_ms;
  const long flood_ms = flood_cpu_us.load() / 1000;
  BOOST_TEST_MESSAGE("flood: " << head_ms << " ms of the head's CPU beyond the runs' " << runs_ms
                               << ", " << flood_ms << " ms of its senders', " << opened.load()
                               << " connections");
  BOOST_TEST(through == 8, failures);
  BOOST_TEST(opened.load() > 1000, opened.load() << " connections: no flood");
  BOOST_TEST(head_ms < flood_ms, "the flood took "
                                     << head_ms << " ms of the head's CPU (beyond the " << runs_ms
                                     << " of the runs), its senders " << flood_ms << " ms for "
                                     << opened.load() << " connections");
  BOOST_REQUIRE(c.head().running());
  // The silent ones made room among themselves (logged at most once a second; on a loaded
  // machine the flood may not fill the room at all).
  BOOST_WARN(c.head().err_text().find("the longest silent of") != std::string::npos);
}

// A head holds at most --max-connections links (a worker's included); past that a new
// connection is refused at once and logged, and room comes back as links close.
BOOST_AUTO_TEST_CASE(links_past_the_connection_cap_are_refused_and_logged) {
  scratch s;
  cluster c(s, {"--max-connections", "3"});
  c.add_worker("w");
  {
    std::vector<std::unique_ptr<raw_connection>> idle;
    for (int i = 0; i < 2; ++i) {
      idle.push_back(std::make_unique<raw_connection>(c.port()));
      idle.back()->send(plain_hello);
      // The head's hello, and on a plain link its BASP handshake right after it.
      BOOST_TEST(idle.back()->receive(300ms).size() >= 16u);
    }
    raw_connection refused(c.port());
    refused.receive(1s);
    BOOST_TEST(refused.closed());
    BOOST_TEST(
        c.head().wait_for_err(
            "refused " + refused.local_address() + ": 3 links are open, the most allowed", 2s),
        c.head().err_text());
  }
  // The idle ones are gone: a client gets in.
  cli_result r;
  for (int attempt = 0; attempt < 20; ++attempt) {
    r = c.client({"submit", spec("jokes"), "--input", R"({"subjects": ["a"]})"});
    if (r.status == 0) break;
    std::this_thread::sleep_for(100ms);  // the head notices the closed sockets on its next poll
  }
  BOOST_TEST(r.status == 0, r.err);
}

BOOST_AUTO_TEST_CASE(garbage_sent_to_the_head_does_not_stop_it) {
  scratch s;
  cluster c(s);
  c.add_worker("w");
  std::mt19937 rng(7);
  for (int i = 0; i < 20; ++i) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    BOOST_REQUIRE(fd >= 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(c.port()));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    BOOST_REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    std::string junk(1 + rng() % 4096, '\0');
    for (auto& ch : junk) ch = static_cast<char>(rng());
    if (i % 4 == 0) junk.assign(64, '\xff');  // a header claiming a huge payload
    (void)!::send(fd, junk.data(), junk.size(), MSG_NOSIGNAL);
    ::close(fd);
  }
  std::this_thread::sleep_for(200ms);
  BOOST_REQUIRE(c.head().running());
  cli_result r = c.client({"submit", spec("jokes"), "--input", R"({"subjects": ["a"]})"});
  BOOST_TEST(r.status == 0, r.err);
}

BOOST_AUTO_TEST_CASE(tls_encrypts_and_certificates_admit_only_the_cas_nodes) {
  scratch s;
  const std::string dir = SUPERSTEP_TLS_DIR;
  const std::vector<std::string> certs{"--tls-cert",      dir + "/node.pem", "--tls-key",
                                       dir + "/node.key", "--tls-ca",        dir + "/ca.pem"};
  const std::vector<std::string> submit{"submit", spec("jokes"), "--input",
                                        R"({"subjects": ["a"]})"};
  auto with = [&](std::vector<std::string> extra) {
    auto args = submit;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  {
    cluster c(s, certs);
    c.add_worker("certified", certs);
    cli_result good = c.client(with(certs));
    BOOST_TEST(good.status == 0, good.err);
    cli_result other = c.client(with({"--tls-cert", dir + "/other.pem", "--tls-key",
                                      dir + "/other.key", "--tls-ca", dir + "/ca.pem"}));
    BOOST_TEST(other.status == 1);
    BOOST_TEST(other.err.find("cannot reach the head") != std::string::npos, other.err);
    cli_result plain = c.client(submit);
    BOOST_TEST(plain.status == 1);
    BOOST_TEST(c.head().running());
  }
  {
    cluster c(s, {"--tls"});
    c.add_worker("encrypted", {"--tls"});
    cli_result good = c.client(with({"--tls"}));
    BOOST_TEST(good.status == 0, good.err);
    BOOST_TEST(c.client(submit).status == 1);  // TLS on one side only
  }
  cli_result half = run_to_end({"head", "--listen", "127.0.0.1:0", "--tls-cert", "x"}, s);
  BOOST_TEST(half.status == 2);
  BOOST_TEST(half.err.find("go together") != std::string::npos, half.err);
}
