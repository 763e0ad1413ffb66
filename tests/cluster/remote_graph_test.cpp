// superstep::remote_graph's errors and security: a head that cannot be reached, a graph it
// does not serve, a key it refuses, options that do not make sense (LangGraph's RemoteGraph
// semantics are in tests/conformance/remote_graph*_test.cpp).
#include "superstep/cluster/remote_graph.hpp"

#include <netinet/in.h>
#include <sys/socket.h>

#include "cluster/cluster_support.hpp"

using namespace superstep;
using namespace superstep::test;

namespace {

const char* const spec = R"({"spec": "superstep.graph/1", "name": "one",
  "state": {"x": {}},
  "nodes": {"set": {"fn": "std.set", "params": {"update": {"x": 1}}}},
  "edges": [["__start__", "set"], ["set", "__end__"]]})";

value config(const std::string& t) { return object{{"configurable", object{{"thread_id", t}}}}; }

// A loopback port nothing listens on (bound, then closed).
int closed_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  BOOST_REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  socklen_t len = sizeof a;
  BOOST_REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0);
  ::close(fd);
  return ntohs(a.sin_port);
}

template <class F>
std::string error_of(F&& f, error_code code) {
  try {
    f();
  } catch (const error& e) {
    BOOST_TEST(e.code() == code, e.what());
    return e.what();
  }
  BOOST_ERROR("no error");
  return "";
}

}  // namespace

BOOST_AUTO_TEST_CASE(names_a_head_it_cannot_reach) {
  remote_graph_options o;
  o.head = "127.0.0.1:" + std::to_string(closed_port());
  o.connect_timeout = std::chrono::milliseconds(2000);
  remote_graph g("one", o);
  std::string why =
      error_of([&] { (void)g.invoke(object{}, config("t")); }, error_code::unavailable);
  BOOST_TEST(why.find("cannot reach the head at " + o.head) != std::string::npos, why);
}

BOOST_AUTO_TEST_CASE(rejects_options_that_do_not_make_sense) {
  remote_graph_options o;
  o.head = "nowhere";
  std::string why = error_of([&] { remote_graph("one", o); }, error_code::invalid_argument);
  BOOST_TEST(why.find("'nowhere'") != std::string::npos, why);
  o.head = "127.0.0.1:1";
  error_of([&] { remote_graph("", o); }, error_code::invalid_argument);
  o.tls_cert = "cert.pem";
  why = error_of([&] { remote_graph("one", o); }, error_code::invalid_argument);
  BOOST_TEST(why.find("tls_cert, tls_key and tls_ca go together") != std::string::npos, why);
}

BOOST_AUTO_TEST_CASE(names_a_graph_the_head_does_not_serve_and_a_missing_thread) {
  scratch s;
  const std::string file = s.write("one.json", spec);
  test_cluster c(s, {"--serve", "one=" + file});
  c.add_worker("w");
  remote_graph_options o;
  o.head = c.address();
  std::string why = error_of([&] { (void)remote_graph("two", o).invoke(object{}, config("t")); },
                             error_code::not_found);
  BOOST_TEST(why.find("serves no graph 'two' (it serves one)") != std::string::npos, why);
  remote_graph one("one", o);
  BOOST_TEST(one.invoke(object{}, config("t")) == value(object{{"x", 1}}));
  // A thread the head does not have; a call that needs a thread and has none.
  error_of([&] { (void)one.get_state(config("missing")); }, error_code::not_found);
  error_of([&] { (void)one.get_state(value()); }, error_code::invalid_argument);
  // The same remote_graph goes on after errors.
  BOOST_TEST(one.get_state(config("t")).values == value(object{{"x", 1}}));
}

BOOST_AUTO_TEST_CASE(is_let_in_only_with_the_clusters_key) {
  scratch s;
  const std::string key = s.write("key", "0123456789abcdef0123456789abcdef\n");
  const std::string wrong = s.write("wrong", "fedcba9876543210fedcba9876543210\n");
  const std::string file = s.write("one.json", spec);
  test_cluster c(s, {"--key-file", key, "--serve", "one=" + file});
  c.add_worker("keyed", {"--key-file", key});
  remote_graph_options o;
  o.head = c.address();
  o.connect_timeout = std::chrono::milliseconds(3000);
  error_of([&] { (void)remote_graph("one", o).get_graph(); }, error_code::unauthorized);
  o.key_file = wrong;
  error_of([&] { (void)remote_graph("one", o).get_graph(); }, error_code::unauthorized);
  o.key_file = key;
  remote_graph g("one", o);
  BOOST_TEST(g.invoke(object{}, config("keyed")) == value(object{{"x", 1}}));
  BOOST_TEST(g.get_graph().nodes.size() == 3u);
}

BOOST_AUTO_TEST_CASE(a_head_refuses_to_serve_a_spec_that_does_not_load) {
  scratch s;
  const std::string bad = s.write("bad.json", R"({"spec": "superstep.graph/1", "nodes": 3})");
  cli_result r = run_to_end(
      {"head", "--listen", "127.0.0.1:0", "--data", s.path("d"), "--serve", "bad=" + bad}, s);
  BOOST_TEST(r.status != 0);
  BOOST_TEST(r.err.find("--serve bad=" + bad) != std::string::npos, r.err);
  cli_result usage = run_to_end({"head", "--listen", "127.0.0.1:0", "--serve", "nameonly"}, s);
  BOOST_TEST(usage.status == 2);
  BOOST_TEST(usage.err.find("expected NAME=GRAPH.json") != std::string::npos, usage.err);
}
