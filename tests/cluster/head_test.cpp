// A cluster's head as clients meet it, through real processes on loopback: commands arrive as
// typed values (the head opens no file a client names and refuses what it cannot read, saying
// why), a bounded pool that answers "head busy", graphs unloaded past --max-graphs, an orderly
// shutdown, and what a lost --durability exit run leaves behind.
#include <boost/test/unit_test.hpp>
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <chrono>
#include <future>
#include <regex>

#include "cluster/cluster_support.hpp"
#include "head/request_pool.hpp"
#include "net/headers.hpp"
#include "net/request.hpp"
#include "net/schema/request.capnp.h"
#include "net/transport.hpp"
#include "superstep/actors/protocol.hpp"
#include "superstep/core/capnp_message.hpp"
#include "superstep/core/error.hpp"

using namespace superstep;
using namespace std::chrono_literals;
using superstep::test::child;
using superstep::test::cli_result;
using superstep::test::run_to_end;
using superstep::test::scratch;

namespace {

std::string spec(const std::string& name) { return test::example_spec(name); }

// A chain of `steps` sleeping nodes (`ms` each), every one appending its name to `trace`.
std::string slow_chain(const scratch& s, int steps, int ms) {
  std::string nodes, edges = R"(["__start__", "s1"])";
  for (int i = 1; i <= steps; ++i) {
    std::string n = "s" + std::to_string(i);
    nodes += (i > 1 ? ", " : "") +
             ("\"" + n + "\": {\"fn\": \"std.sleep\", \"params\": {\"ms\": " + std::to_string(ms) +
              ", \"update\": {\"trace\": [\"" + n + "\"]}}}");
    edges += ", [\"" + n + "\", \"" +
             (i == steps ? std::string("__end__") : "s" + std::to_string(i + 1)) + "\"]";
  }
  return s.write("chain" + std::to_string(steps) + ".json",
                 R"({"spec": "superstep.graph/1", "name": "chain", "state": {"trace": )"
                 R"({"reducer": "append"}}, "nodes": {)" +
                     nodes + "}, \"edges\": [" + edges + "]}");
}

value chain_trace(int steps) {
  list t;
  for (int i = 1; i <= steps; ++i) t.push_back(value("s" + std::to_string(i)));
  return value(std::move(t));
}

using cluster = test::test_cluster;

// What a client that is not `superstep` sends: a request of the argument-list form heads
// took before (a head re-parsed it, reading `--input @FILE` on the head), or any bytes.
struct argv_request {
  std::vector<std::string> argv;
  value spec;
  bool has_spec = false;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, argv_request& x) {
  return f(caf::meta::type_name("client_request"), x.argv, x.spec, x.has_spec);
}
struct bytes_request {
  std::string bytes;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, bytes_request& x) {
  return f(caf::meta::type_name("client_request"), x.bytes);
}

using request_atom = caf::atom_constant<caf::atom("request")>;
using line_atom = caf::atom_constant<caf::atom("line")>;
using finished_atom = caf::atom_constant<caf::atom("finished")>;

// Sends `req` as the head's message type and tells what came back: "refused: WHY" (the
// head's answer), "finished: STATUS WHY" (a command it ran), or "no answer".
template <class Request>
std::string send_raw(int port, Request req) {
  caf::actor_system_config cfg;
  cfg.load<caf::io::middleman>();
  cfg.add_message_type<Request>("superstep.client_request");
  caf::actor_system sys{cfg};
  // It speaks the cluster's link protocol (a head without a key: plain links).
  net::link_transport links(sys, net::link_options{});
  auto linked =
      links.connect("127.0.0.1", static_cast<std::uint16_t>(port), std::chrono::seconds(10));
  if (!linked.actor) BOOST_FAIL("cannot reach the head: " + linked.error);
  caf::scoped_actor self{sys};
  self->send(linked.actor, request_atom::value, std::move(req));
  std::string out = "no answer";
  for (bool waiting = true; waiting;) {
    self->receive(
        [&](std::string& why) {
          if (!why.empty()) out = "refused: " + why, waiting = false;
        },
        [&](bool accepted) {
          if (!accepted) out = "refused", waiting = false;
        },
        [&](line_atom, std::string&) {},
        [&](finished_atom, std::int32_t status, std::string& why) {
          out = "finished: " + std::to_string(status) + " " + why;
          waiting = false;
        },
        caf::others >> [](caf::message_view&) -> caf::result<caf::message> { return caf::none; },
        caf::after(std::chrono::seconds(10)) >> [&] { waiting = false; });
  }
  return out;
}

// Runs `superstep ARGS` to its end with `dir` as its working folder.
cli_result in_folder(const scratch& dir, const std::vector<std::string>& args) {
  std::string cmd =
      "cd " + test::quote(dir.dir.string()) + " && exec " + test::quote(test::superstep_bin());
  for (const auto& a : args) cmd += " " + test::quote(a);
  cmd += " 2>" + test::quote((dir.dir / "stderr").string());
  cli_result r;
  FILE* p = ::popen(cmd.c_str(), "r");
  BOOST_REQUIRE(p != nullptr);
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  int status = ::pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = test::read_file((dir.dir / "stderr").string());
  return r;
}

// The largest N of "(N graphs loaded)" in a worker's log.
int most_graphs_loaded(const std::string& log) {
  static const std::regex count(R"(\((\d+) graphs loaded\))");
  int most = 0;
  for (std::sregex_iterator it(log.begin(), log.end(), count), end; it != end; ++it)
    most = std::max(most, std::stoi((*it)[1]));
  return most;
}

long ms_since(std::chrono::steady_clock::time_point start) {
  return static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::steady_clock::now() - start)
                               .count());
}

int occurrences(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_request_travels_as_typed_values_that_name_no_path) {
  net::run_args run;
  run.where.thread = "t";
  run.where.data_dir = "/elsewhere";
  run.where.graph_path = "/client/graph.json";
  run.where.plugins = {"/client/lib.so"};
  run.input = value("@/etc/hostname");  // a string, as the client's JSON said
  run.durability = "exit";
  run.multitask = "enqueue";
  run.config = object{{"recursion_limit", 5}};
  run.modes = {stream_mode::updates, stream_mode::custom};
  run.subgraphs = true;
  run.run_id = "r1";
  auto req = net::make_client_request(run, value(object{{"spec", "superstep.graph/1"}}));
  req.headers = {{"X-Team", "a"}, {"langsmith-trace", "t"}};
  auto back = net::decode_request(net::encode_request(req));
  BOOST_TEST((back.headers == req.headers));
  const auto& r = std::get<net::run_args>(back.cmd);
  BOOST_TEST(r.where.thread == "t");
  BOOST_TEST(r.where.data_dir == net::default_data_dir);  // never sent
  BOOST_TEST(r.where.graph_path.empty());
  BOOST_TEST(r.where.plugins.empty());
  BOOST_TEST(*r.input == value("@/etc/hostname"));
  BOOST_TEST(!r.resume);
  BOOST_TEST(r.durability == "exit");
  BOOST_TEST(r.multitask == "enqueue");
  BOOST_TEST(r.config == run.config);
  BOOST_TEST(r.modes == run.modes);
  BOOST_TEST(r.subgraphs);
  BOOST_TEST(r.run_id == "r1");
  BOOST_TEST(*back.spec == *req.spec);

  net::history_args history;
  history.where.thread = "h";
  history.limit = 3;
  history.before = "c1";
  history.filter = object{{"source", "loop"}};
  auto h = std::get<net::history_args>(
      net::decode_request(net::encode_request(net::make_client_request(history, {}))).cmd);
  BOOST_TEST(*h.limit == 3u);
  BOOST_TEST(h.before == "c1");
  BOOST_TEST(value(h.filter) == value(history.filter));

  net::update_args update;
  update.where.thread = "u";
  update.values = object{{"x", 1}};
  update.as_node = "pick";
  auto u = std::get<net::update_args>(
      net::decode_request(net::encode_request(net::make_client_request(update, {}))).cmd);
  BOOST_TEST(u.values == update.values);
  BOOST_TEST(*u.as_node == "pick");

  net::cancel_args cancel;
  cancel.where.thread = "c";
  cancel.run_id = "r1";
  cancel.wait = true;
  auto k = std::get<net::cancel_args>(
      net::decode_request(net::encode_request(net::make_client_request(cancel, {}))).cmd);
  BOOST_TEST(k.where.thread == "c");
  BOOST_TEST(k.run_id == "r1");
  BOOST_TEST(k.wait);
  cancel.run_id.clear();
  BOOST_CHECK_THROW((void)net::make_client_request(cancel, {}), net::usage_error);

  net::threads_args threads;  // names no thread
  threads.where.data_dir = "/elsewhere";
  auto l = net::decode_request(net::encode_request(net::make_client_request(threads, {})));
  BOOST_TEST(std::holds_alternative<net::threads_args>(l.cmd));
  BOOST_TEST(std::get<net::threads_args>(l.cmd).where.data_dir == net::default_data_dir);
}

BOOST_AUTO_TEST_CASE(a_run_sees_its_x_headers_in_configurable_and_the_callers_trace) {
  const trace_context caller = trace_context::start();
  net::header_map headers = caller.to_headers();
  headers["X-Team"] = "a";
  headers["x-user"] = "from a header";
  headers["X-API-Key"] = "secret";
  headers["accept"] = "*/*";
  value config = net::run_config_with_headers(
      value::parse_json(R"({"configurable": {"x-user": "from the config"}})"), headers);
  // x- headers by their lower-case names, not x-api-key, not over the config's own keys.
  BOOST_TEST(config.get("configurable") ==
             value::parse_json(R"({"x-user": "from the config", "x-team": "a"})"));
  BOOST_TEST((*trace_context::of(config) == caller));
  // None: the config unchanged.
  BOOST_TEST(net::run_config_with_headers(value::parse_json(R"({"a": 1})"), {}) ==
             value::parse_json(R"({"a": 1})"));
  // The tracing headers merged into a caller's: its baggage first.
  auto merged = net::with_tracing_headers({{"baggage", "team=a"}, {"x-b", "1"}}, caller);
  BOOST_TEST(merged.at("baggage") == "team=a," + caller.to_headers().at("baggage"));
  BOOST_TEST(merged.at("langsmith-trace") == caller.dotted_order);
  BOOST_TEST(merged.at("x-b") == "1");
  BOOST_TEST(
      (net::with_tracing_headers({{"x-b", "1"}}, std::nullopt) == net::header_map{{"x-b", "1"}}));
}

BOOST_AUTO_TEST_CASE(a_malformed_request_is_an_error_naming_what_is_wrong) {
  auto fails = [](std::string_view bytes, const std::string& expected) {
    try {
      (void)net::decode_request(bytes);
      BOOST_ERROR("decoded: " << expected);
    } catch (const error& e) {
      BOOST_TEST(e.code() == error_code::protocol_error);
      BOOST_TEST(std::string(e.what()).find(expected) != std::string::npos, e.what());
    }
  };
  fails("not a message", "malformed request");
  auto build = [](auto fill) {
    capnp::MallocMessageBuilder b;
    auto r = b.initRoot<wire::ClientRequest>();
    r.setFormat(1);
    r.setThread("t");
    fill(r);
    return capnp_io::message_bytes(b);
  };
  fails(build([](auto r) { r.setFormat(2); }), "format 2 (this head reads format 1)");
  fails(build([](auto r) { r.setKind(static_cast<wire::ClientRequest::Kind>(9)); }),
        "command kind 9");
  fails(build([](auto r) { r.setThread(""); }), "no thread");
  fails(build([](auto r) { r.setDurability("often"); }), "durability 'often'");
  fails(build([](auto r) { r.setMultitask("later"); }), "multitask strategy 'later'");
  fails(build([](auto r) { r.initStreamModes(1).set(0, "everything"); }), "everything");
  fails(build([](auto r) { r.setKind(wire::ClientRequest::Kind::CANCEL); }),
        "a cancel request that names no run");
  fails(build([](auto r) {
          r.setKind(wire::ClientRequest::Kind::CANCEL);
          r.setThread("");
          r.setRunId("r1");
        }),
        "no thread");
  fails(build([](auto r) { r.setKind(wire::ClientRequest::Kind::THREADS); }),
        "a threads request that names a thread");
  fails(build([](auto r) { r.initHeaders(1)[0].setValue("v"); }), "a header without a name");
  fails(build([](auto r) {
          auto h = r.initHeaders(2);
          h[0].setName("x-a");
          h[1].setName("x-a");
        }),
        "header 'x-a' given twice");
}

BOOST_AUTO_TEST_CASE(the_head_opens_no_file_a_request_names_and_says_why_it_refuses_one) {
  scratch s;
  cluster c(s);
  c.add_worker("w");
  const std::string input = R"({"subjects": ["a"]})";
  cli_result first = c.client({"submit", spec("jokes"), "--input", input, "--thread", "t"});
  BOOST_REQUIRE_MESSAGE(first.status == 0, first.err);
  // A file only the head could read: a request in the old argument-list form asks for it.
  const std::string secret = s.write("secret.json", R"({"subjects": ["secret"]})");
  std::string answer = send_raw(
      c.port(), argv_request{{"run", "--thread", "t", "--input", "@" + secret}, value(), false});
  BOOST_TEST(answer.find("refused: malformed request") == 0u, answer);
  cli_result state = c.client({"state", "--thread", "t"});
  BOOST_REQUIRE_MESSAGE(state.status == 0, state.err);
  BOOST_TEST(state.out.find("secret") == std::string::npos, state.out);
  // Bytes that are no request: refused with the reason, not left unanswered.
  answer = send_raw(c.port(), bytes_request{"garbage"});
  BOOST_TEST(answer.find("refused: malformed request") == 0u, answer);
  BOOST_TEST(c.head().err_text().find("refused a request: malformed request") != std::string::npos);
  // The client reads its own files: relative paths in its folder, which the head (working
  // in another) could not open; what it sends are their values.
  scratch client_dir;
  client_dir.write("mine.json", R"({"subjects": ["mine"]})");
  test::fs::copy_file(spec("jokes"), client_dir.dir / "graph.json");
  BOOST_REQUIRE(!test::fs::exists("mine.json") && !test::fs::exists("graph.json"));
  cli_result r = in_folder(client_dir, {"submit", "--head", c.address(), "graph.json", "--input",
                                        "@mine.json", "--thread", "m"});
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data").get("best").as_string() == "joke about mine");
}

BOOST_AUTO_TEST_CASE(the_request_pool_queues_to_its_bound_then_refuses_and_stops_cleanly) {
  net::request_pool pool(1, 1);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
  std::vector<std::string> refused;
  std::mutex m;
  auto refuse = [&](const std::string& why) {
    std::lock_guard lock(m);
    refused.push_back(why);
  };
  bool second_ran = false;
  BOOST_TEST(!pool.submit({[&] {
                             started.set_value();
                             released.wait();
                           },
                           refuse}));
  started.get_future().wait();                                     // the one thread is busy
  BOOST_TEST(!pool.submit({[&] { second_ran = true; }, refuse}));  // waits
  auto full = pool.submit({[] {}, refuse});
  BOOST_REQUIRE(full);
  BOOST_TEST(*full == "head busy: 1 requests running, 1 queued; try again");
  BOOST_TEST(pool.running() == 1u);
  pool.stop("head shutting down");  // the waiting one is refused, the running one goes on
  BOOST_TEST(refused == std::vector<std::string>{"head shutting down"});
  BOOST_TEST(*pool.submit({[] {}, refuse}) == "head shutting down");
  BOOST_TEST(!pool.wait_idle(std::chrono::milliseconds(0)));
  release.set_value();
  BOOST_TEST(pool.wait_idle(std::chrono::seconds(10)));
  BOOST_TEST(!second_ran);
}

BOOST_AUTO_TEST_CASE(a_full_head_answers_busy_at_once) {
  scratch s;
  cluster c(s, {"--request-threads", "1", "--request-queue", "0"});
  c.add_worker("w");
  const std::string chain = slow_chain(s, 6, 200);
  auto slow = c.start_client(
      {"submit", chain, "--input", R"({"trace": []})", "--thread", "slow", "--stream", "updates"});
  BOOST_REQUIRE_MESSAGE(slow->wait_for_out("\"updates\"", 30s), slow->err_text());
  const auto start = std::chrono::steady_clock::now();
  cli_result busy =
      c.client({"submit", chain, "--input", R"({"trace": []})", "--thread", "second"});
  BOOST_TEST(busy.status == 1);
  BOOST_TEST(
      busy.err.find("head busy: 1 requests running, 0 queued; try again") != std::string::npos,
      busy.err);
  BOOST_TEST(ms_since(start) < 5000);
  // The other commands have threads of their own: a run on every run thread holds none up.
  cli_result state = c.client({"state", "--thread", "slow"});
  BOOST_TEST(state.status == 0, state.err);
  BOOST_REQUIRE(slow->wait(30s));
  BOOST_TEST(slow->result().status == 0, slow->result().err);
  cli_result after = c.client({"state", "--thread", "slow"});
  BOOST_TEST(after.status == 0, after.err);
}

BOOST_AUTO_TEST_CASE(graphs_past_max_graphs_are_unloaded_and_load_again_when_used) {
  scratch s;
  cluster c(s, {"--max-graphs", "2"});
  child& worker = c.add_worker("w");
  const std::vector<std::pair<std::string, std::string>> runs{
      {"jokes", R"({"subjects": ["cats"]})"}, {"loop", "{}"},
      {"pregel_cycle", R"({"value": "a"})"},  {"seed_reducers_b", R"({"foo": "a", "bar": ["a"]})"},
      {"jokes", R"({"subjects": ["cats"]})"},  // unloaded by now: loaded again
  };
  std::vector<value> outputs;
  for (const auto& [name, input] : runs) {
    cli_result r = c.client({"submit", spec(name), "--input", input});
    BOOST_REQUIRE_MESSAGE(r.status == 0, name + ": " + r.err);
    outputs.push_back(r.last().get("data"));
  }
  BOOST_TEST(outputs.back() == outputs.front());
  const std::string log = worker.err_text();
  BOOST_TEST(occurrences(log, "loaded graph ") - occurrences(log, "unloaded graph ") >= 5);
  BOOST_TEST(most_graphs_loaded(log) <= 2, log);
  BOOST_TEST(occurrences(log, "unloaded graph ") >= 3, log);
  BOOST_TEST(occurrences(c.head().err_text(), "unloaded graph ") >= 3);
}

BOOST_AUTO_TEST_CASE(a_stopping_head_lets_the_running_step_commit_and_tells_the_client) {
  scratch s;
  cluster c(s, {"--shutdown-wait", "10"});
  c.add_worker("w");
  const int steps = 8;
  const std::string chain = slow_chain(s, steps, 300);
  auto client = c.start_client(
      {"submit", chain, "--input", R"({"trace": []})", "--thread", "t", "--stream", "updates"});
  BOOST_REQUIRE_MESSAGE(client->wait_for_out("\"updates\"", 30s), client->err_text());
  const auto start = std::chrono::steady_clock::now();
  ::kill(c.head().pid(), SIGTERM);
  BOOST_REQUIRE_MESSAGE(c.head().wait(15s), "the head did not stop: " + c.head().err_text());
  BOOST_TEST(ms_since(start) < 5000);  // one step, not the whole run
  BOOST_TEST(c.head().result().status == 0);
  BOOST_REQUIRE(client->wait(15s));
  cli_result r = client->result();
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("head shutting down") != std::string::npos, r.err);
  BOOST_TEST(r.err.find("lost the head") == std::string::npos, r.err);
  BOOST_TEST(c.head().err_text().find("run of thread t stopped by the shutdown") !=
             std::string::npos);
  // Restarted on the same data: the thread kept the steps it saved, and finishes.
  c.start_head({}, c.port());
  BOOST_REQUIRE(c.head().wait_for_err("worker w joined", 30s));
  cli_result state = c.client({"state", "--thread", "t"});
  BOOST_REQUIRE_MESSAGE(state.status == 0, state.err);
  const std::size_t saved = state.last().get("values").get("trace").as_list().size();
  BOOST_TEST(saved >= 1u);
  BOOST_TEST(saved < static_cast<std::size_t>(steps));
  cli_result resumed = c.client({"submit", "--thread", "t"});
  BOOST_REQUIRE_MESSAGE(resumed.status == 0, resumed.err);
  BOOST_TEST(resumed.last().get("data").get("trace") == chain_trace(steps));
}

BOOST_AUTO_TEST_CASE(a_lost_durability_exit_run_is_reported_when_its_thread_runs_again) {
  scratch s;
  const std::string data = s.path("data");
  const std::string chain = slow_chain(s, 6, 200);
  cli_result first =
      run_to_end({"run", chain, "--input", R"({"trace": []})", "--thread", "t", "--data", data}, s);
  BOOST_REQUIRE_MESSAGE(first.status == 0, first.err);
  BOOST_TEST(first.err.find("note:") == std::string::npos);
  child lost({"run", chain, "--input", R"({"trace": ["again"]})", "--thread", "t", "--durability",
              "exit", "--data", data, "--stream", "updates"},
             s);
  BOOST_REQUIRE_MESSAGE(lost.wait_for_out("\"updates\"", 30s), lost.err_text());
  lost.kill();
  cli_result next = run_to_end({"run", "--thread", "t", "--data", data}, s);
  BOOST_REQUIRE_MESSAGE(next.status == 0, next.err);
  BOOST_TEST(next.err.find("note: thread t: its run with durability exit that started at") !=
                 std::string::npos,
             next.err);
  BOOST_TEST(next.err.find("none of that run's steps were saved") != std::string::npos);
  BOOST_TEST(next.last().get("data").get("trace") == chain_trace(6));  // the run before it
  // Said once: the run after that is an ordinary one.
  cli_result again = run_to_end({"run", "--thread", "t", "--data", data}, s);
  BOOST_TEST(again.err.find("note:") == std::string::npos, again.err);
  // A durability exit run that ends leaves nothing to report.
  cli_result ended = run_to_end({"run", chain, "--input", R"({"trace": []})", "--thread", "u",
                                 "--durability", "exit", "--data", data},
                                s);
  BOOST_REQUIRE_MESSAGE(ended.status == 0, ended.err);
  cli_result after = run_to_end({"run", "--thread", "u", "--data", data}, s);
  BOOST_TEST(after.err.find("note:") == std::string::npos, after.err);
}

BOOST_AUTO_TEST_CASE(a_stopping_head_waits_for_a_step_no_longer_than_shutdown_wait) {
  scratch s;
  cluster c(s, {"--shutdown-wait", "1"});
  c.add_worker("w");
  // One step of two tasks: `fast` reports its update while `slow` still sleeps for 20 s.
  const std::string spec = s.write("long_step.json", R"({
    "spec": "superstep.graph/1", "name": "long_step", "state": {"trace": {"reducer": "append"}},
    "nodes": {
      "fast": {"fn": "std.sleep", "params": {"ms": 1, "update": {"trace": ["fast"]}}},
      "slow": {"fn": "std.sleep", "params": {"ms": 20000, "update": {"trace": ["slow"]}}}},
    "edges": [["__start__", "fast"], ["__start__", "slow"], ["fast", "__end__"],
              ["slow", "__end__"]]})");
  auto client = c.start_client(
      {"submit", spec, "--input", R"({"trace": []})", "--thread", "t", "--stream", "updates"});
  BOOST_REQUIRE_MESSAGE(client->wait_for_out("\"fast\"", 30s), client->err_text());
  const auto start = std::chrono::steady_clock::now();
  ::kill(c.head().pid(), SIGTERM);
  BOOST_REQUIRE_MESSAGE(c.head().wait(15s), "the head did not stop: " + c.head().err_text());
  BOOST_TEST(ms_since(start) < 8000);
  BOOST_TEST(
      c.head().err_text().find("commands still running were interrupted (runs of threads t)") !=
          std::string::npos,
      c.head().err_text());
  BOOST_REQUIRE(client->wait(15s));
  BOOST_TEST(client->result().status == 1);
}

BOOST_AUTO_TEST_CASE(threads_lists_a_heads_threads_and_cancel_stops_a_busy_ones_run) {
  scratch s;
  const std::string key = s.write("key", "0123456789abcdef0123456789abcdef\n");
  cluster c(s, {"--key-file", key});
  c.add_worker("w", {"--key-file", key});
  const auto keyed = [&](std::vector<std::string> args) {
    args.insert(args.end(), {"--key-file", key});
    return c.client(args);
  };
  cli_result none = keyed({"threads"});
  BOOST_REQUIRE_MESSAGE(none.status == 0, none.err);
  BOOST_TEST(none.out == "");
  cli_result r =
      keyed({"submit", spec("jokes"), "--input", R"({"subjects": ["a"]})", "--thread", "done"});
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  r = keyed({"submit", spec("ask_name"), "--input", "{}", "--thread", "asks"});
  BOOST_REQUIRE_MESSAGE(r.status == 3, r.err);
  // A run going on: its thread is busy, with the run's id.
  auto slow = c.start_client({"submit", slow_chain(s, 6, 300), "--input", R"({"trace": []})",
                              "--thread", "slow", "--stream", "updates", "--key-file", key});
  BOOST_REQUIRE_MESSAGE(slow->wait_for_out("\"updates\"", 30s), slow->err_text());

  r = keyed({"threads"});
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  std::vector<value> lines = r.lines();
  BOOST_REQUIRE_EQUAL(lines.size(), 3u);
  BOOST_TEST(lines[0].get("thread").as_string() == "asks");
  BOOST_TEST(lines[0].get("status").as_string() == "interrupted");
  BOOST_TEST(lines[0].get("next").to_json() == R"(["ask"])");
  BOOST_TEST(lines[1].get("thread").as_string() == "done");
  BOOST_TEST(lines[1].get("status").as_string() == "done");
  BOOST_TEST(lines[1].get("step").as_int() > 0);
  BOOST_TEST(!lines[1].get("checkpoint").as_string().empty());
  BOOST_TEST(lines[2].get("thread").as_string() == "slow");
  BOOST_TEST(lines[2].get("status").as_string() == "busy", lines[2].to_json());
  BOOST_TEST(lines[2].get("run").as_string().size() == 36u);
  const std::string run = lines[2].get("run").as_string();

  // `superstep cancel` stops it: its client hears the run was cancelled; the thread keeps its
  // last checkpoint and has its step left to finish.
  cli_result cancel = keyed({"cancel", "--thread", "slow", "--run", run, "--wait"});
  BOOST_REQUIRE_MESSAGE(cancel.status == 0, cancel.err);
  BOOST_TEST(cancel.last() == value(object{{"thread", "slow"}, {"run", run}, {"cancelled", true}}));
  BOOST_REQUIRE(slow->wait(30s));
  BOOST_TEST(slow->result().status == 1);
  BOOST_TEST(slow->result().err.find("run cancelled") != std::string::npos, slow->result().err);
  lines = keyed({"threads"}).lines();
  BOOST_REQUIRE_EQUAL(lines.size(), 3u);
  BOOST_TEST(lines[2].get("status").as_string() == "pending", lines[2].to_json());
  BOOST_TEST(lines[2].get("step").as_int() < 6);
  cli_result again = keyed({"cancel", "--thread", "slow", "--run", run});
  BOOST_TEST(again.status == 1);
  BOOST_TEST(
      again.err.find("thread 'slow' has no run '" + run + "' in progress") != std::string::npos,
      again.err);
  // Continued, it finishes.
  cli_result resumed = keyed({"submit", "--thread", "slow"});
  BOOST_REQUIRE_MESSAGE(resumed.status == 0, resumed.err);
  BOOST_TEST(resumed.last().get("data").get("trace") == chain_trace(6));
  lines = keyed({"threads"}).lines();
  BOOST_REQUIRE_EQUAL(lines.size(), 3u);
  BOOST_TEST(lines[2].get("status").as_string() == "done");
  BOOST_TEST(lines[2].get("step").as_int() == 6);
  BOOST_TEST(run_to_end({"cancel", "--head", c.address(), "--thread", "slow"}, s).status == 2);
  BOOST_TEST(run_to_end({"cancel", "--thread", "slow", "--run", run}, s).status == 2);

  // Without the key, refused; options of a local listing, refused with --head.
  cli_result refused = c.client({"threads"});
  BOOST_TEST(refused.status == 1);
  BOOST_TEST(refused.err.find("requires the cluster's key") != std::string::npos, refused.err);
  cli_result plugin = keyed({"threads", "--plugin", "lib.so"});
  BOOST_TEST(plugin.status == 2);
  BOOST_TEST(plugin.err.find("--plugin: not with --head") != std::string::npos, plugin.err);
  cli_result saver = keyed({"threads", "--saver", "redis://127.0.0.1:1"});
  BOOST_TEST(saver.status == 2);
  BOOST_TEST(saver.err.find("--saver is the head's option") != std::string::npos, saver.err);
}

BOOST_AUTO_TEST_CASE(a_run_cancelled_while_it_waits_for_its_thread_never_runs) {
  scratch s;
  cluster c(s, {"--log-requests"});
  c.add_worker("w");
  const std::string chain = slow_chain(s, 4, 300);
  auto first = c.start_client({"submit", chain, "--input", R"({"trace": ["first"]})", "--thread",
                               "q", "--stream", "updates"});
  BOOST_REQUIRE_MESSAGE(first->wait_for_out("\"updates\"", 30s), first->err_text());
  // Queued behind the first (LangGraph's pending run), then cancelled.
  auto second = c.start_client({"submit", "--input", R"({"trace": ["second"]})", "--thread", "q",
                                "--multitask", "enqueue", "--config", R"({"run_id": "waiting"})"});
  BOOST_REQUIRE(c.head().wait_for_err("request: run with input", 30s, 2));
  cli_result cancel = c.client({"cancel", "--thread", "q", "--run", "waiting", "--wait"});
  BOOST_REQUIRE_MESSAGE(cancel.status == 0, cancel.err);
  BOOST_REQUIRE(second->wait(30s));
  BOOST_TEST(second->result().status == 1);
  BOOST_TEST(second->result().err.find("run cancelled") != std::string::npos, second->result().err);
  BOOST_REQUIRE(first->wait(30s));
  BOOST_TEST(first->result().status == 0, first->result().err);
  // The first ran to its end; the second left nothing: no input, no step.
  cli_result state = c.client({"state", "--thread", "q"});
  BOOST_REQUIRE_MESSAGE(state.status == 0, state.err);
  value trace = state.last().get("values").get("trace");
  BOOST_TEST(trace.as_list().front() == value("first"), trace.to_json());
  BOOST_TEST(trace.to_json().find("second") == std::string::npos, trace.to_json());
}

// A client that stops reading its values stream (stopped, here) costs the head a bounded
// buffer: past --client-backlog its link is closed, the run goes on and ends, and the head
// serves the next client.
BOOST_AUTO_TEST_CASE(a_client_that_stops_reading_its_stream_costs_the_head_a_bounded_buffer) {
  scratch s;
  cluster c(s, {"--client-backlog", "16"});
  c.add_worker("w");
  // 300 steps over a 1 MB key: 300 MB of values for the client.
  const std::string big = s.write("big_values.json", R"({"spec": "superstep.graph/1",
    "state": {"doc": {}, "n": {"default": 0}},
    "nodes": {"inc": {"fn": "std.increment", "params": {"key": "n"}}},
    "edges": [["__start__", "inc"]],
    "conditional_edges": [{"from": "inc", "router": "std.route",
      "params": {"key": "n", "less_than": 300, "then": "inc", "else": "__end__"}}]})");
  const std::string input =
      s.write("doc.json", R"({"doc": ")" + std::string(1 << 20, 'x') + R"("})");
  auto stuck = c.start_client({"submit", big, "--input", "@" + input, "--thread", "big", "--stream",
                               "values", "--config", R"({"recursion_limit": 1000})"});
  BOOST_REQUIRE(c.head().wait_for_err("run of thread big started", 20s));
  ::kill(stuck->pid(), SIGSTOP);
  BOOST_TEST(c.head().wait_for_err("--client-backlog", 60s), c.head().err_text());
  BOOST_TEST(c.head().wait_for_err("run of thread big ended", 60s), c.head().err_text());
  ::kill(stuck->pid(), SIGKILL);
  const std::uint64_t peak = test::peak_mib(c.head().pid());
  BOOST_TEST(peak < 250u, "head peak " << peak << " MiB");
  cli_result state = c.client({"state", "--thread", "big"});
  BOOST_REQUIRE_MESSAGE(state.status == 0, state.err);
  BOOST_TEST(state.last().get("values").get("n").as_int() == 300);
}
