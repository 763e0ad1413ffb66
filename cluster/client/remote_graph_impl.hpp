#pragma once

// What remote_graph.cpp and client/remote_run_stream.cpp share: the link to a head, the state of a
// remote_graph (its `impl`, with the HTTP client of a LangGraph Server instead of the link when
// it has a url) and the translation of a run's lines into stream events. Private to the
// remote_graph library; includes CAF.

#include <algorithm>
#include <caf/io/middleman.hpp>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "client/remote_graph_values.hpp"
#include "client/remote_http.hpp"
#include "net/auth.hpp"
#include "net/headers.hpp"
#include "net/protocol.hpp"
#include "net/request.hpp"
#include "net/transport.hpp"
#include "superstep/actors/caf_runtime.hpp"
#include "superstep/cluster/remote_graph.hpp"
#include "superstep/core/error.hpp"

namespace superstep {

namespace remote_detail {

// One link to the head: its own small actor system, joined to the gate.
struct connection {
  std::unique_ptr<actors::runtime> rt;
  std::unique_ptr<net::link_transport> transport;
  net::gate_actor gate;

  ~connection() {
    gate = net::gate_actor();
    transport.reset();  // before its actor system
  }
  caf::actor_system& system() { return rt->internals().system; }
};

// remote_run_stream::close -> the actor reading a run's answers: stop reading.
using close_atom = caf::atom_constant<caf::atom("close")>;

// A line of a run's events as a stream_event (its mode, namespace and data).
inline stream_event event_of(const value& line) {
  stream_event ev;
  ev.mode = parse_stream_mode(string_at(line, "type"));
  if (line.get("ns").is_list())
    for (const auto& part : line.get("ns").as_list())
      if (part.is_string()) ev.ns.push_back(part.as_string());
  ev.data = line.get("data");
  return ev;
}

// The output of a run from its "output" or "interrupt" line: the data, with the interrupts
// under "__interrupt__".
inline value output_of(const value& line) {
  value output = line.get("data");
  if (string_at(line, "type") == "interrupt" && output.is_object()) {
    object o = output.as_object();
    o.set("__interrupt__", line.get("interrupts"));
    output = value(std::move(o));
  }
  return output;
}

inline bool is_output_line(const value& line) {
  const std::string type = string_at(line, "type");
  return type == "output" || type == "interrupt";
}

inline bool has_mode(const std::vector<stream_mode>& ms, stream_mode m) {
  return std::find(ms.begin(), ms.end(), m) != ms.end();
}

// The run request of a stream: the fields of `input` and `config` as a remote run sends them,
// the modes asked for (`requested`) and those the parent's stream needs (`parent_modes`).
// Throws error(invalid_argument) for a Command a remote run does not take.
net::run_args run_request(const value& input, const value& sent_config,
                          const remote_run_options& options,
                          const std::vector<stream_mode>& requested,
                          const std::vector<stream_mode>& parent_modes, std::string thread);

// The headers of a run: the graph's and the run's (which win), and with distributed tracing
// those of the trace in the caller's config (before sanitising).
net::header_map run_headers(const remote_graph_options& graph, const remote_run_options& run,
                            const value& caller_config);

// The modes a stream's caller asked for (updates when none).
std::vector<stream_mode> requested_modes(const remote_run_options& options);

}  // namespace remote_detail

struct remote_graph::impl {
  using connection = remote_detail::connection;
  using close_atom = remote_detail::close_atom;
  std::string graph_id;
  std::string name;
  value config;
  remote_graph_options options;
  std::string host;
  std::uint16_t port = 0;
  // With a url: the LangGraph Server's API, shared by the copies; null with a head.
  std::shared_ptr<const remote_detail::http_api> http;

  // The link, shared by the copies of one remote_graph.
  struct shared_link {
    std::mutex m;
    std::shared_ptr<connection> conn;
  };
  std::shared_ptr<shared_link> link = std::make_shared<shared_link>();

  std::shared_ptr<connection> connect() const {
    std::lock_guard lock(link->m);
    if (link->conn) return link->conn;
    std::optional<std::string> key;
    if (!options.key_file.empty()) key = net::read_key_file(options.key_file);
    auto c = std::make_shared<connection>();
    c->rt = std::make_unique<actors::runtime>(net::cluster_runtime(1));
    net::link_options links;
    links.key = key;
    links.tls = net::tls_args{options.tls || !options.tls_cert.empty(), options.tls_cert,
                              options.tls_key, options.tls_ca};
    c->transport = std::make_unique<net::link_transport>(c->system(), std::move(links));
    auto linked = c->transport->connect(host, port, options.connect_timeout);
    if (!linked.actor)
      throw error(linked.refused ? error_code::unauthorized : error_code::unavailable,
                  "cannot reach the head at " + options.head + ": " + linked.error);
    c->gate = net::gate_of(linked.actor);
    {
      caf::scoped_actor self{c->system()};
      net::join_gate(self, c->gate, key);
    }
    link->conn = c;
    return c;
  }

  void drop(const std::shared_ptr<connection>& c) const {
    std::lock_guard lock(link->m);
    if (link->conn == c) link->conn.reset();
  }

  // Sends `req` and hands each line the head sends back to `on_line`; returns the exit
  // status. A failure of the command is thrown with its code.
  //
  // `taken`, when given, is called once the head took the request, with the actor that reads
  // the answers and the connection it lives on: a close_atom sent to it ends the call at once
  // (exit_failed, nothing thrown, the lines after it dropped).
  int exchange(net::client_request req, const std::function<void(value)>& on_line,
               const std::function<void(const caf::actor&, std::shared_ptr<connection>)>& taken =
                   nullptr) const {
    req.graph = graph_id;
    req.typed_errors = true;
    req.headers.insert(options.headers.begin(), options.headers.end());  // the request's win
    (void)net::encode_request(req);  // what cannot be sent fails here, with its reason
    std::shared_ptr<connection> c = connect();
    caf::scoped_actor self{c->system()};
    std::optional<std::string> refusal;
    std::string failure;
    self->request(c->gate, options.answer_timeout, net::request_atom::value, req)
        .receive([&](std::string& why) { refusal = std::move(why); },
                 [&](caf::error& e) { failure = c->system().render(e); });
    if (!failure.empty()) {
      drop(c);
      throw error(error_code::unavailable,
                  "the head at " + options.head + " did not answer: " + failure);
    }
    if (refusal && !refusal->empty())
      throw error(error_code::unavailable,
                  "the head at " + options.head + " refused the request: " + *refusal);
    self->monitor(c->gate);
    if (taken) taken(caf::actor_cast<caf::actor>(self.ptr()), c);
    int status = -1;
    bool closed = false;
    std::optional<error> failed;
    std::exception_ptr thrown;  // by on_line: the lines after it are not looked at
    while (status < 0) {
      self->receive(
          [&](net::line_atom, const std::string& line) {
            if (thrown) return;
            try {
              on_line(value::parse_json(line));
            } catch (...) {
              thrown = std::current_exception();
            }
          },
          [&](net::note_atom, const std::string&) {},
          [&](net::progress_atom, std::int64_t, std::uint64_t, std::uint64_t) {},
          [&](net::failure_atom, std::uint16_t code, const std::string& why,
              const std::string& payload) {
            // The payload (a Command for this side's graph) comes as a field of its own; one
            // that does not parse leaves the error without it.
            std::shared_ptr<const value> carried;
            if (!payload.empty()) try {
                carried = std::make_shared<const value>(value::parse_json(payload));
              } catch (const error&) {
              }
            failed = error(static_cast<error_code>(code), why, std::move(carried));
          },
          [&](net::finished_atom, std::int32_t s, const std::string& why) {
            status = s;
            if (status != net::exit_done && status != net::exit_interrupted && !failed)
              failed = error(error_code::node_error, why);
          },
          [&](caf::down_msg&) {
            status = net::exit_failed;
            failed = error(error_code::unavailable,
                           "lost the head at " + options.head + " before the request ended");
          },
          [&](close_atom) {
            status = net::exit_failed;
            closed = true;
          });
    }
    if (closed) return status;
    if (failed && failed->code() == error_code::unavailable) drop(c);
    if (thrown) std::rethrow_exception(thrown);
    if (failed) throw *failed;
    return status;
  }

  // The request's thread: the config's thread_id (taken out of it), else `fresh` or an error.
  static std::string take_thread(value& sanitized, bool fresh, const char* call) {
    object cfg = sanitized.as_object();
    const value* conf = cfg.find("configurable");
    std::string thread;
    if (conf && conf->is_object()) {
      object c = conf->as_object();
      if (const value* t = c.find("thread_id"); t && t->is_string()) thread = t->as_string();
      c.erase("thread_id");
      cfg.set("configurable", value(std::move(c)));
    }
    sanitized = value(std::move(cfg));
    if (thread.empty()) {
      if (!fresh)
        throw error(error_code::invalid_argument,
                    std::string(call) + " needs a config with configurable.thread_id");
      thread = remote_detail::fresh_thread_id();
    }
    return thread;
  }

  value merged(const value& call_config) const {
    return remote_detail::merge_configs(config, call_config);
  }
};

}  // namespace superstep
