// superstep::remote_graph with a url: the LangGraph Server HTTP API, against the real
// `superstep serve` on a free loopback port. Runs and their streams (subgraph namespaces,
// interrupts and their resume, errors), state, history and updates, a remote graph as a node of
// a local one with a checkpointer, run streams and their cancel, and the errors of a graph
// the server does not serve and of a server that is not there. A stand-in server checks what
// goes on the wire (headers, body) and the reading of events as a server may split them.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <regex>

#include "cluster/process_support.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/cluster/function_registry.hpp"
#include "superstep/cluster/graph_spec.hpp"
#include "superstep/cluster/remote_graph.hpp"
#include "superstep/cluster/std_library.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/pregel/send.hpp"
#include "superstep/storage/memory_saver.hpp"
#include "support/loopback_port.hpp"

using namespace superstep;
using namespace superstep::test;

namespace {

const char* const one_spec = R"({"spec": "superstep.graph/1", "name": "one",
  "state": {"x": {}},
  "nodes": {"set": {"fn": "std.set", "params": {"update": {"x": 1}}}},
  "edges": [["__start__", "set"], ["set", "__end__"]]})";

// Two steps: four checkpoints (input, node_a, node_b... and the first empty one).
const char* const steps_spec = R"({"spec": "superstep.graph/1", "name": "steps",
  "state": {"foo": {}, "bar": {"reducer": "append"}},
  "nodes": {
    "node_a": {"fn": "std.set", "params": {"update": {"foo": "a", "bar": ["a"]}}},
    "node_b": {"fn": "std.set", "params": {"update": {"foo": "b", "bar": ["b"]}}}},
  "edges": [["__start__", "node_a"], ["node_a", "node_b"], ["node_b", "__end__"]]})";

// Node `my` runs a subgraph with a node `inner_set`.
const char* const nested_spec = R"({"spec": "superstep.graph/1", "name": "nested",
  "state": {"chunk": {}},
  "nodes": {
    "my": {"fn": "graph", "graph": {
      "spec": "superstep.graph/1", "name": "inner",
      "state": {"chunk": {}},
      "nodes": {"inner_set": {"fn": "std.set", "params": {"update": {"chunk": "inner"}}}},
      "edges": [["__start__", "inner_set"], ["inner_set", "__end__"]]}},
    "bye": {"fn": "std.set", "params": {"update": {"chunk": "bye"}}}},
  "edges": [["__start__", "my"], ["my", "bye"], ["bye", "__end__"]]})";

// Asks a question, then says it is done.
const char* const ask_spec = R"({"spec": "superstep.graph/1", "name": "ask",
  "state": {"answer": {}, "done": {}},
  "nodes": {
    "ask": {"fn": "std.interrupt", "params": {"value": {"question": "ok?"}, "to": "answer"}},
    "finish": {"fn": "std.set", "params": {"update": {"done": true}}}},
  "edges": [["__start__", "ask"], ["ask", "finish"], ["finish", "__end__"]]})";

// Goes on for a million steps unless cancelled.
const char* const loop_spec = R"({"spec": "superstep.graph/1", "name": "loop",
  "state": {"n": {}},
  "nodes": {"tick": {"fn": "std.increment", "params": {"key": "n"}}},
  "edges": [["__start__", "tick"]],
  "conditional_edges": [{"from": "tick", "router": "std.route",
    "params": {"key": "n", "less_than": 1000000, "then": "tick", "else": "__end__"}}],
  "recursion_limit": 2000000})";

value json(const char* text) { return value::parse_json(text); }
value config(const std::string& t) { return object{{"configurable", object{{"thread_id", t}}}}; }

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

// `superstep serve` with the graphs above, on a free port of its own, in a scratch folder;
// stopped (SIGTERM, then SIGKILL after a bounded wait) at the end of the case.
struct served {
  scratch s;
  std::unique_ptr<child> server;
  std::string url;

  served() {
    std::vector<std::string> args{"serve", "--listen", "127.0.0.1:0", "--data", s.path("data")};
    for (const auto& [name, spec] : {std::pair{"one", one_spec},
                                     {"steps", steps_spec},
                                     {"nested", nested_spec},
                                     {"ask", ask_spec},
                                     {"loop", loop_spec}}) {
      args.push_back("--graph");
      args.push_back(std::string(name) + "=" + s.write(std::string(name) + ".json", spec));
    }
    server = std::make_unique<child>(args, s);
    BOOST_REQUIRE_MESSAGE(server->wait_for_err("listening on http://", 20s),
                          "the server did not start: " + server->err_text());
    std::smatch m;
    const std::string log = server->err_text();
    BOOST_REQUIRE(
        std::regex_search(log, m, std::regex("listening on (http://127\\.0\\.0\\.1:[0-9]+)")));
    url = m[1];
  }
  ~served() { server->stop(SIGTERM); }  // SIGKILL after 10 s

  remote_graph graph(const std::string& id) const {
    remote_graph_options o;
    o.url = url;
    return remote_graph(id, o);
  }
};

// A local graph from a spec, with the std library, and `saver`.
std::shared_ptr<pregel> local(const char* text, std::shared_ptr<checkpoint_saver> saver) {
  static const cluster::function_registry registry = [] {
    cluster::function_registry r;
    cluster::register_std_library(r);
    return r;
  }();
  runtime_options o;
  o.checkpointer = std::move(saver);
  return cluster::load_graph(value::parse_json(text), registry, std::move(o)).graph;
}

// One HTTP exchange on a free loopback port: the request as it came, answered with `pieces`
// written one by one, then the connection closed.
struct stand_in_server {
  int listener = -1;
  int port = 0;
  std::string request;
  std::thread serving;

  explicit stand_in_server(std::vector<std::string> pieces) {
    listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    BOOST_REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&addr), len) == 0);
    BOOST_REQUIRE(::listen(listener, 1) == 0);
    BOOST_REQUIRE(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    port = ntohs(addr.sin_port);
    serving = std::thread([this, pieces = std::move(pieces)] {
      const int c = ::accept(listener, nullptr, nullptr);
      if (c < 0) return;
      int one = 1;
      ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      // The head, then as many bytes of body as it says.
      char buf[4096];
      std::size_t want = std::string::npos;
      while (request.size() < want) {
        const ssize_t n = ::recv(c, buf, sizeof buf, 0);
        if (n <= 0) break;
        request.append(buf, static_cast<std::size_t>(n));
        const std::size_t end = request.find("\r\n\r\n");
        if (want == std::string::npos && end != std::string::npos) {
          std::smatch m;
          const std::string head = request.substr(0, end);
          const bool sized =
              std::regex_search(head, m, std::regex("[Cc]ontent-[Ll]ength: *([0-9]+)"));
          want = end + 4 + (sized ? std::stoul(m[1]) : 0);
        }
      }
      for (const std::string& p : pieces) {
        (void)::send(c, p.data(), p.size(), MSG_NOSIGNAL);
        std::this_thread::sleep_for(2ms);  // so that the client reads them apart
      }
      ::close(c);
    });
  }
  ~stand_in_server() {
    ::shutdown(listener, SHUT_RDWR);
    serving.join();
    ::close(listener);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port); }
};

std::vector<std::string> shown(const std::vector<stream_event>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) {
    std::string ns;
    for (const auto& part : e.ns) ns += "|" + part.substr(0, part.find(':'));
    out.push_back(std::string(stream_mode_name(e.mode)) + ns + " " + e.data.to_json());
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(rejects_options_that_name_no_server_or_two) {
  remote_graph_options o;
  std::string why = error_of([&] { remote_graph("one", o); }, error_code::invalid_argument);
  BOOST_TEST(why.find("give either a head") != std::string::npos, why);
  o.head = "127.0.0.1:1";
  o.url = "http://127.0.0.1:1";
  why = error_of([&] { remote_graph("one", o); }, error_code::invalid_argument);
  BOOST_TEST(why.find("not both") != std::string::npos, why);
  o.head.clear();
  o.url = "ftp://127.0.0.1:1";
  why = error_of([&] { remote_graph("one", o); }, error_code::invalid_argument);
  BOOST_TEST(why.find("'ftp://127.0.0.1:1'") != std::string::npos, why);
  o.url = "http://127.0.0.1:1";
  o.key_file = "key";
  why = error_of([&] { remote_graph("one", o); }, error_code::invalid_argument);
  BOOST_TEST(why.find("key_file and the tls options are a head's") != std::string::npos, why);
}

BOOST_AUTO_TEST_CASE(names_a_server_it_cannot_reach) {
  remote_graph_options o;
  o.url = "http://127.0.0.1:" + std::to_string(free_loopback_port());
  o.connect_timeout = std::chrono::milliseconds(2000);
  remote_graph g("one", o);
  std::string why =
      error_of([&] { (void)g.invoke(object{}, config("t")); }, error_code::unavailable);
  BOOST_TEST(why.find("cannot reach the server at " + o.url) != std::string::npos, why);
  why = error_of([&] { (void)g.get_state(config("t")); }, error_code::unavailable);
  BOOST_TEST(why.find("cannot reach the server at " + o.url) != std::string::npos, why);
}

BOOST_AUTO_TEST_CASE(invokes_and_streams_as_a_local_run_does) {
  served server;
  remote_graph one = server.graph("one");
  // Stateless (no thread) and on a thread.
  BOOST_TEST(one.invoke(object{}) == json(R"({"x": 1})"));
  BOOST_TEST(one.invoke(object{}, config("t1")) == json(R"({"x": 1})"));
  BOOST_TEST(one.get_state(config("t1")).values == json(R"({"x": 1})"));

  // The modes asked for, in the order the local graph streams them.
  remote_run_options modes;
  modes.modes = {stream_mode::values, stream_mode::updates};
  std::vector<stream_event> remote_events, local_events;
  remote_graph steps = server.graph("steps");
  const value out = steps.stream(json(R"({"foo": ""})"), config("t2"), modes,
                                 [&](const stream_event& e) { remote_events.push_back(e); });
  BOOST_TEST(out == json(R"({"foo": "b", "bar": ["a", "b"]})"));
  stream_options so;
  so.modes = modes.modes;
  (void)local(steps_spec, std::make_shared<storage::memory_saver>())
      ->stream(json(R"({"foo": ""})"), config("t2"), so,
               [&](const stream_event& e) { local_events.push_back(e); });
  BOOST_TEST(shown(remote_events) == shown(local_events), boost::test_tools::per_element());
  BOOST_TEST(remote_events.size() == 5u);

  // Updates only (the default mode): values, asked for only to know the output, stay out.
  remote_events.clear();
  (void)steps.stream(json(R"({"foo": ""})"), config("t3"), {},
                     [&](const stream_event& e) { remote_events.push_back(e); });
  BOOST_TEST(shown(remote_events) ==
                 (std::vector<std::string>{R"(updates {"node_a":{"foo":"a","bar":["a"]}})",
                                           R"(updates {"node_b":{"foo":"b","bar":["b"]}})"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(streams_subgraph_events_with_their_namespace_when_asked) {
  served server;
  remote_graph nested = server.graph("nested");
  remote_run_options o;
  o.modes = {stream_mode::updates};
  o.subgraphs = true;
  std::vector<stream_event> events;
  (void)nested.stream(object{}, config("t"), o,
                      [&](const stream_event& e) { events.push_back(e); });
  BOOST_TEST(
      shown(events) == (std::vector<std::string>{R"(updates|my {"inner_set":{"chunk":"inner"}})",
                                                 R"(updates {"my":{"chunk":"inner"}})",
                                                 R"(updates {"bye":{"chunk":"bye"}})"}),
      boost::test_tools::per_element());
  BOOST_REQUIRE(events.size() == 3u);
  BOOST_TEST(events[0].ns.size() == 1u);
  BOOST_TEST(events[0].ns[0].starts_with("my:"));
  // Without subgraphs, the top level only.
  events.clear();
  o.subgraphs = false;
  (void)nested.stream(object{}, config("t2"), o,
                      [&](const stream_event& e) { events.push_back(e); });
  BOOST_TEST(events.size() == 2u);
}

BOOST_AUTO_TEST_CASE(reads_and_updates_a_threads_state_and_history) {
  served server;
  remote_graph steps = server.graph("steps");
  (void)steps.invoke(json(R"({"foo": ""})"), config("t"));
  state_snapshot s = steps.get_state(config("t"));
  BOOST_TEST(s.values == json(R"({"foo": "b", "bar": ["a", "b"]})"));
  BOOST_TEST(s.next.empty());
  BOOST_TEST(s.config.thread_id == "t");
  BOOST_TEST(!s.config.checkpoint_id.empty());
  BOOST_TEST(s.metadata.get("source") == value("loop"));
  BOOST_TEST(s.metadata.get("step") == value(2));
  BOOST_TEST(!s.created_at.empty());
  BOOST_REQUIRE(s.parent_config);

  std::vector<state_snapshot> history = steps.get_state_history(config("t"));
  BOOST_REQUIRE_EQUAL(history.size(), 4u);
  BOOST_TEST(history[0].config.checkpoint_id == s.config.checkpoint_id);
  BOOST_TEST(history[1].config.checkpoint_id == s.parent_config->checkpoint_id);
  BOOST_TEST(history[1].next == std::vector<std::string>{"node_b"},
             boost::test_tools::per_element());
  BOOST_TEST(history[3].metadata.get("source") == value("input"));
  list_options o;
  o.limit = 2;
  BOOST_TEST(steps.get_state_history(config("t"), o).size() == 2u);
  o.limit.reset();
  o.before = history[1].config;
  std::vector<state_snapshot> older = steps.get_state_history(config("t"), o);
  BOOST_REQUIRE_EQUAL(older.size(), 2u);
  BOOST_TEST(older[0].config.checkpoint_id == history[2].config.checkpoint_id);
  o.before.reset();
  o.filter = object{{"source", "input"}};
  BOOST_TEST(steps.get_state_history(config("t"), o).size() == 1u);

  // An update as node_a: the next checkpoint, then node_b to run.
  const value updated =
      steps.update_state(config("t"), json(R"({"foo": "u", "bar": ["u"]})"), std::string("node_a"));
  const value& c = updated.get("configurable");
  BOOST_TEST(c.get("thread_id") == value("t"));
  BOOST_TEST(c.get("checkpoint_ns") == value(""));
  BOOST_TEST(c.get("checkpoint_map") == value(object{}));
  s = steps.get_state(config("t"));
  BOOST_TEST(c.get("checkpoint_id") == value(s.config.checkpoint_id));
  BOOST_TEST(s.values == json(R"({"foo": "u", "bar": ["a", "b", "u"]})"));
  BOOST_TEST(s.next == std::vector<std::string>{"node_b"}, boost::test_tools::per_element());
  BOOST_TEST(s.metadata.get("source") == value("update"));
  // An old checkpoint by its id.
  object conf{{"thread_id", "t"}, {"checkpoint_id", history[1].config.checkpoint_id}};
  const state_snapshot old = steps.get_state(value(object{{"configurable", value(conf)}}));
  BOOST_TEST(old.values == json(R"({"foo": "a", "bar": ["a"]})"));
  // Running on goes on from the update.
  BOOST_TEST(steps.invoke(value(), config("t")) ==
             json(R"({"foo": "b", "bar": ["a", "b", "u", "b"]})"));

  // A thread the server does not have; the drawing of the graph.
  std::string why =
      error_of([&] { (void)steps.get_state(config("missing")); }, error_code::not_found);
  BOOST_TEST(why.find("HTTP 404") != std::string::npos, why);
  error_of([&] { (void)steps.get_state(value()); }, error_code::invalid_argument);
  graph_description d = steps.get_graph();
  BOOST_TEST(d.to_json() == local(steps_spec, nullptr)->get_graph().to_json());
}

BOOST_AUTO_TEST_CASE(stops_at_an_interrupt_and_resumes_with_a_command) {
  served server;
  remote_graph ask = server.graph("ask");
  const value paused = ask.invoke(object{}, config("t"));
  const value* ints = paused.find("__interrupt__");
  BOOST_REQUIRE(ints);
  BOOST_REQUIRE_EQUAL(ints->as_list().size(), 1u);
  BOOST_TEST(ints->as_list()[0].get("value") == json(R"({"question": "ok?"})"));
  state_snapshot s = ask.get_state(config("t"));
  BOOST_TEST(s.next == std::vector<std::string>{"ask"}, boost::test_tools::per_element());
  BOOST_REQUIRE_EQUAL(s.tasks.size(), 1u);
  BOOST_REQUIRE_EQUAL(s.tasks[0].interrupts.size(), 1u);
  BOOST_TEST(s.tasks[0].interrupts[0] == ints->as_list()[0]);
  command c;
  c.resume = value("yes");
  BOOST_TEST(ask.invoke(make_command(c), config("t")) ==
             json(R"({"answer": "yes", "done": true})"));
  BOOST_TEST(ask.get_state(config("t")).next.empty());

  // Streamed with a checkpoint_ns (as a node is called), the interrupt raises.
  value as_node = json(R"({"configurable": {"thread_id": "t2", "checkpoint_ns": "outer:1"}})");
  try {
    (void)ask.stream(object{}, as_node, {}, nullptr);
    BOOST_ERROR("no interrupt");
  } catch (const error& e) {
    BOOST_TEST(e.code() == error_code::interrupted);
    BOOST_REQUIRE(e.payload());
    BOOST_TEST(e.payload()->as_list().at(0).get("value") == json(R"({"question": "ok?"})"));
  }
}

BOOST_AUTO_TEST_CASE(runs_as_a_node_of_a_local_graph_with_a_checkpointer) {
  served server;
  auto saver = std::make_shared<storage::memory_saver>();
  // The simple graph as a node.
  {
    state_graph parent;
    parent.add_key("x");
    parent.add_key("seen");
    parent.add_node("remote", server.graph("one").as_node());
    parent.add_node("count", [](const value& s, node_context&) -> value {
      return object{{"seen", s.get("x")}};
    });
    parent.add_edge(std::string(START), "remote");
    parent.add_edge("remote", "count");
    compile_options o;
    o.checkpointer = saver;
    auto app = parent.compile(o);
    BOOST_TEST(app->invoke(object{}, config("p1")) == json(R"({"x": 1, "seen": 1})"));
    BOOST_TEST(app->get_state(config("p1")).next.empty());
    // The remote run ran on the parent's thread on the server.
    BOOST_TEST(server.graph("one").get_state(config("p1")).values == json(R"({"x": 1})"));
  }
  // The asking graph as a node: the parent pauses with the remote interrupt, and resuming it
  // resumes the remote thread.
  state_graph parent;
  parent.add_key("answer");
  parent.add_key("done");
  parent.add_node("remote", server.graph("ask").as_node());
  parent.add_edge(std::string(START), "remote");
  compile_options o;
  o.checkpointer = saver;
  auto app = parent.compile(o);
  const value paused = app->invoke(object{}, config("p2"));
  const value* ints = paused.find("__interrupt__");
  BOOST_REQUIRE(ints);
  BOOST_TEST(ints->as_list().at(0).get("value") == json(R"({"question": "ok?"})"));
  BOOST_TEST(app->get_state(config("p2")).next == std::vector<std::string>{"remote"},
             boost::test_tools::per_element());
  command c;
  c.resume = value("go");
  const value resumed = app->invoke(make_command(c), config("p2"));
  BOOST_TEST(!resumed.find("__interrupt__"));
  BOOST_TEST(resumed == json(R"({"answer": "go", "done": true})"));
  BOOST_TEST(server.graph("ask").get_state(config("p2")).values.get("answer") == value("go"));

  // The parent streaming subgraphs sees the remote events under the node's namespace.
  std::vector<stream_event> events;
  stream_options so;
  so.modes = {stream_mode::updates};
  so.subgraphs = true;
  state_graph streaming;
  streaming.add_key("x");
  streaming.add_node("remote", server.graph("one").as_node());
  streaming.add_edge(std::string(START), "remote");
  auto app2 = streaming.compile(o);
  (void)app2->stream(object{}, config("p3"), so,
                     [&](const stream_event& e) { events.push_back(e); });
  BOOST_TEST(shown(events) == (std::vector<std::string>{R"(updates|remote {"set":{"x":1}})",
                                                        R"(updates {"remote":{"x":1}})"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(names_what_the_server_does_not_serve_and_a_failed_run) {
  served server;
  std::string why = error_of([&] { (void)server.graph("two").invoke(object{}, config("t")); },
                             error_code::not_found);
  BOOST_TEST(why.find("HTTP 404: No assistant found for \"two\"") != std::string::npos, why);
  why = error_of([&] { (void)server.graph("two").get_graph(); }, error_code::not_found);
  BOOST_TEST(why.find("GET /assistants/two/graph") != std::string::npos, why);
  // A run that fails on the server: its error event, with its class as the code.
  why = error_of(
      [&] {
        (void)server.graph("loop").invoke(json(R"({"n": 0})"), json(R"({"recursion_limit": 3})"));
      },
      error_code::graph_recursion);
  BOOST_TEST(why.find("Recursion limit of 3") != std::string::npos, why);
}

BOOST_AUTO_TEST_CASE(reads_a_run_event_by_event_and_cancels_it) {
  served server;
  remote_graph loop = server.graph("loop");
  remote_run_options values;
  values.modes = {stream_mode::values};
  remote_run_stream run = loop.stream_events(json(R"({"n": 0})"), config("t"), values);
  BOOST_TEST(run.run_id().empty());
  run.enter();
  const std::string id = run.run_id();
  BOOST_TEST(!id.empty());
  BOOST_TEST(run.thread_id() == "t");
  BOOST_REQUIRE(run.next());
  BOOST_REQUIRE(run.next());
  loop.cancel("t", id);
  // As LangGraph Server streams it, a run cancelled (action interrupt) just ends: no error
  // event, no output.
  while (run.next()) {
  }
  error_of([&] { loop.cancel("t", "not-its-id"); }, error_code::not_found);
  const state_snapshot st = loop.get_state(config("t"));
  BOOST_TEST(st.values.get("n").as_int() < 1000000);

  // Closed, the stream reads nothing more and the run goes on, until cancelled (waiting).
  remote_run_stream other = loop.stream_events(json(R"({"n": 0})"), config("t2"), values);
  other.enter();
  BOOST_REQUIRE(other.next());
  other.close();
  error_of([&] { (void)other.next(); }, error_code::invalid_argument);
  loop.cancel("t2", other.run_id(), /*wait=*/true);
  const std::int64_t n = loop.get_state(config("t2")).values.get("n").as_int();
  BOOST_TEST(loop.get_state(config("t2")).values.get("n").as_int() == n);  // it stopped

  // Aborted: cancelled on the server, then closed.
  remote_run_stream third = loop.stream_events(json(R"({"n": 0})"), value(), values);
  third.enter();
  BOOST_REQUIRE(third.next());
  BOOST_TEST(!third.thread_id().empty());
  third.abort();
  BOOST_TEST(third.closed());
}

BOOST_AUTO_TEST_CASE(sends_the_key_and_headers_and_reads_events_however_they_are_split) {
  stand_in_server fake(
      {"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
       "Connection: close\r\n\r\n",
       "event: metadata\r\ndata: {\"run_id\": \"r1\", \"attempt\": 1}\r\n\r\n",
       ": heartbeat\r\n\r\n", "event: upd", "ates\r\ndata: {\"a\":", "\r\ndata: 1}\r\nid: 1\r\n",
       "\r\nevent: values|sub:1\ndata: {\"deep\": true}\n\n", "event: values\ndata: {\"a\": 1}\n\n",
       "event: feedback\ndata: {}\n\n"});
  remote_graph_options o;
  o.url = fake.url() + "/";
  o.api_key = "secret";
  o.headers = {{"X-Team", "blue"}};
  o.config = json(R"({"configurable": {"user": "u1", "checkpoint_ns": "dropped"}, "tags": ["t"]})");
  remote_graph g("agent", o);
  remote_run_options r;
  r.modes = {stream_mode::updates, stream_mode::values};
  r.subgraphs = true;
  r.headers = {{"x-run", "7"}};
  r.context = json(R"({"model": "m"})");
  std::vector<stream_event> events;
  const value out = g.stream(json(R"({"q": 1})"), config("th/1"), r,
                             [&](const stream_event& e) { events.push_back(e); });
  BOOST_TEST(shown(events) ==
                 (std::vector<std::string>{R"(updates {"a":1})", R"(values|sub {"deep":true})",
                                           R"(values {"a":1})"}),
             boost::test_tools::per_element());
  BOOST_TEST(out == json(R"({"a": 1})"));
  // The route, the headers and the body as LangGraph's RemoteGraph sends them.
  const std::string& req = fake.request;
  BOOST_TEST(req.starts_with("POST /threads/th%2F1/runs/stream HTTP/1.1\r\n"), req);
  BOOST_TEST(req.find("\r\nx-api-key: secret\r\n") != std::string::npos, req);
  BOOST_TEST(req.find("\r\nx-team: blue\r\n") != std::string::npos, req);
  BOOST_TEST(req.find("\r\nx-run: 7\r\n") != std::string::npos, req);
  BOOST_TEST(req.find("\r\nAccept: text/event-stream\r\n") != std::string::npos, req);
  const value body = value::parse_json(req.substr(req.find("\r\n\r\n") + 4));
  BOOST_TEST(body.get("assistant_id") == value("agent"));
  BOOST_TEST(body.get("input") == json(R"({"q": 1})"));
  BOOST_TEST(body.get("config") == json(R"({"configurable": {"user": "u1"}, "tags": ["t"]})"));
  BOOST_TEST(body.get("context") == json(R"({"model": "m"})"));
  BOOST_TEST(body.get("stream_mode") == json(R"(["updates", "values"])"));
  BOOST_TEST(body.get("stream_subgraphs") == value(true));
  BOOST_TEST(body.get("if_not_exists") == value("create"));
}

BOOST_AUTO_TEST_CASE(takes_a_refused_key_as_unauthorized) {
  const std::string detail = R"({"detail": "Invalid API key"})";
  stand_in_server fake(
      {"HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\n"
       "Content-Length: " +
       std::to_string(detail.size()) + "\r\nConnection: close\r\n\r\n" + detail});
  remote_graph_options o;
  o.url = fake.url();
  o.api_key = "wrong";
  std::string why =
      error_of([&] { (void)remote_graph("agent", o).get_graph(); }, error_code::unauthorized);
  BOOST_TEST(why.find("HTTP 403: Invalid API key") != std::string::npos, why);
}
