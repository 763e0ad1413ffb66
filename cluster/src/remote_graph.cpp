// superstep::remote_graph: a graph a head serves, reached through the client requests of
// `superstep submit` (net_request.hpp) over the cluster's links (net_transport.hpp).
#include "superstep/cluster/remote_graph.hpp"

#include <algorithm>
#include <caf/io/middleman.hpp>
#include <condition_variable>
#include <deque>
#include <exception>
#include <future>
#include <mutex>
#include <thread>

#include "net_auth.hpp"
#include "net_protocol.hpp"
#include "net_request.hpp"
#include "net_transport.hpp"
#include "remote_graph_values.hpp"
#include "superstep/actors/caf_runtime.hpp"
#include "superstep/coordinator/send.hpp"
#include "superstep/core/error.hpp"

namespace superstep {

using namespace remote_detail;

namespace {

// One link to the head: its own small actor system, joined to the gate.
struct connection {
  std::unique_ptr<actors::runtime> rt;
  std::unique_ptr<net::link_transport> transport;
  caf::actor gate;

  ~connection() {
    gate = caf::actor();
    transport.reset();  // before its actor system
  }
  caf::actor_system& system() { return rt->internals().system; }
};

// remote_run_stream::close -> the actor reading a run's answers: stop reading.
using close_atom = caf::atom_constant<caf::atom("close")>;

// A line of a run's events as a stream_event (its mode, namespace and data).
stream_event event_of(const value& line) {
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
value output_of(const value& line) {
  value output = line.get("data");
  if (string_at(line, "type") == "interrupt" && output.is_object()) {
    object o = output.as_object();
    o.set("__interrupt__", line.get("interrupts"));
    output = value(std::move(o));
  }
  return output;
}

bool is_output_line(const value& line) {
  const std::string type = string_at(line, "type");
  return type == "output" || type == "interrupt";
}

bool has_mode(const std::vector<stream_mode>& ms, stream_mode m) {
  return std::find(ms.begin(), ms.end(), m) != ms.end();
}

}  // namespace

struct remote_graph::impl {
  std::string graph_id;
  std::string name;
  value config;
  remote_graph_options options;
  std::string host;
  std::uint16_t port = 0;

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
    links.tls = cli::tls_args{options.tls || !options.tls_cert.empty(), options.tls_cert,
                              options.tls_key, options.tls_ca};
    c->transport = std::make_unique<net::link_transport>(c->system(), std::move(links));
    auto linked = c->transport->connect(host, port, options.connect_timeout);
    if (!linked.actor)
      throw error(linked.refused ? error_code::unauthorized : error_code::unavailable,
                  "cannot reach the head at " + options.head + ": " + linked.error);
    c->gate = linked.actor;
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
          [&](net::failure_atom, std::uint16_t code, const std::string& why) {
            failed = error(static_cast<error_code>(code), why);
          },
          [&](net::finished_atom, std::int32_t s, const std::string& why) {
            status = s;
            if (status != cli::exit_done && status != cli::exit_interrupted && !failed)
              failed = error(error_code::node_error, why);
          },
          [&](caf::down_msg&) {
            status = cli::exit_failed;
            failed = error(error_code::unavailable,
                           "lost the head at " + options.head + " before the request ended");
          },
          [&](close_atom) {
            status = cli::exit_failed;
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
      thread = fresh_thread_id();
    }
    return thread;
  }

  value merged(const value& call_config) const { return merge_configs(config, call_config); }
};

remote_graph::remote_graph(std::string graph_id, remote_graph_options options)
    : impl_(std::make_shared<impl>()) {
  if (graph_id.empty()) throw error(error_code::invalid_argument, "remote_graph: no graph id");
  parse_head_address(options.head, impl_->host, impl_->port);
  const int certs = !options.tls_cert.empty() + !options.tls_key.empty() + !options.tls_ca.empty();
  if (certs != 0 && certs != 3)
    throw error(error_code::invalid_argument,
                "remote_graph: tls_cert, tls_key and tls_ca go together (or tls alone)");
  if (!options.config.is_null() && !options.config.is_object())
    throw error(error_code::invalid_argument, "remote_graph: the config is not an object");
  impl_->graph_id = std::move(graph_id);
  impl_->name = options.name.empty() ? impl_->graph_id : options.name;
  impl_->config = options.config.is_null() ? value(object{}) : options.config;
  impl_->options = std::move(options);
}

remote_graph::~remote_graph() = default;
remote_graph::remote_graph(const remote_graph&) = default;
remote_graph& remote_graph::operator=(const remote_graph&) = default;

const std::string& remote_graph::graph_id() const noexcept { return impl_->graph_id; }
const std::string& remote_graph::name() const noexcept { return impl_->name; }
const value& remote_graph::config() const noexcept { return impl_->config; }

remote_graph remote_graph::with_config(const value& config) const {
  if (!config.is_null() && !config.is_object())
    throw error(error_code::invalid_argument, "with_config: the config is not an object");
  remote_graph copy(*this);
  auto i = std::make_shared<impl>(*impl_);  // the same link (shared_link)
  i->config = merge_configs(impl_->config, config);
  copy.impl_ = std::move(i);
  return copy;
}

namespace {

// The run request of a stream: the fields of `input` and `config` as a remote run sends them,
// the modes asked for (`requested`) and those the parent's stream needs (`parent_modes`).
cli::run_args run_request(const value& input, const value& sent_config,
                          const remote_run_options& options,
                          const std::vector<stream_mode>& requested,
                          const std::vector<stream_mode>& parent_modes, std::string thread) {
  cli::run_args a;
  a.where.thread = std::move(thread);
  a.config = sent_config;
  a.context = options.context;
  if (auto c = as_command(input)) {
    if (!c->go_to.empty() || !c->graph.empty())
      throw error(error_code::invalid_argument,
                  "stream: a remote run takes a Command with resume (and update), not goto or "
                  "graph");
    if (!c->resume)
      throw error(error_code::invalid_argument,
                  "stream: a remote run takes a Command with a resume value (an update travels "
                  "with one, never alone); this one has none");
    a.resume = *c->resume;
    if (!c->update.is_null()) a.update = c->update;
  } else if (!input.is_null()) {
    a.input = input;
  }
  // LangGraph's _get_stream_modes: the modes asked for (updates by default), the parent's,
  // and updates always, to see interrupts.
  std::vector<stream_mode> wanted = requested;
  wanted.insert(wanted.end(), parent_modes.begin(), parent_modes.end());
  for (auto m : wanted)
    if (!has_mode(a.modes, m)) a.modes.push_back(m);
  if (!has_mode(a.modes, stream_mode::updates)) a.modes.push_back(stream_mode::updates);
  a.subgraphs = options.subgraphs || !parent_modes.empty();
  return a;
}

std::vector<stream_mode> requested_modes(const remote_run_options& options) {
  if (!options.modes.empty()) return options.modes;
  return std::vector<stream_mode>(1, stream_mode::updates);
}

}  // namespace

value remote_graph::run(const value& input, const value& config, const remote_run_options& options,
                        const stream_sink& sink, node_context* parent) const {
  if (!config.is_null() && !config.is_object())
    throw error(error_code::invalid_argument, "stream: the config is not an object");
  value sent = sanitize_config(impl_->merged(config));
  std::string thread = impl::take_thread(sent, true, "stream");
  const std::vector<stream_mode> requested = requested_modes(options);
  const std::vector<stream_mode> parent_modes =
      parent ? parent->subgraph_stream_modes() : std::vector<stream_mode>{};
  cli::run_args a = run_request(input, sent, options, requested, parent_modes, std::move(thread));

  // The caller's namespace (as a node: its task's), put before the remote namespaces of
  // what goes to the parent's stream; with one, an interrupt raises.
  const std::vector<std::string> caller_ns =
      split_ns(string_at(config.get("configurable"), "checkpoint_ns"));
  const auto has = has_mode;
  value output;
  std::optional<value> raised;  // the interrupts that end the stream
  net::client_request req = net::make_client_request(cli::command(a), std::nullopt);
  impl_->exchange(std::move(req), [&](value line) {
    if (raised) return;
    if (is_output_line(line)) {
      output = output_of(line);
      return;
    }
    stream_event ev = event_of(line);
    if (parent && has(parent_modes, ev.mode)) {
      stream_event up{caller_ns, ev.mode, ev.data};
      up.ns.insert(up.ns.end(), ev.ns.begin(), ev.ns.end());
      parent->emit_subgraph_event(std::move(up));
    }
    if (ev.mode == stream_mode::updates && !caller_ns.empty() && ev.data.is_object())
      if (const value* ints = ev.data.find("__interrupt__")) {
        raised = *ints;
        return;
      }
    if (has(requested, ev.mode) && sink) sink(ev);
  });
  if (raised) throw error(error_code::interrupted, raised->to_json());
  return output;
}

value remote_graph::stream(const value& input, const value& config,
                           const remote_run_options& options, const stream_sink& sink) const {
  return run(input, config, options, sink, nullptr);
}

value remote_graph::invoke(const value& input, const value& config, const value& context) const {
  remote_run_options o;
  o.modes = {stream_mode::values};
  o.context = context;
  std::optional<value> last;
  value out = run(
      input, config, o,
      [&](const stream_event& e) {
        if (e.ns.empty()) last = e.data;
      },
      nullptr);
  return last ? *last : out;
}

node_function remote_graph::as_node() const {
  remote_graph self(*this);
  return [self](const value& input, node_context& ctx) -> value {
    // The node's config with its task's namespace, as LangGraph hands it to a node.
    object cfg = ctx.config().is_object() ? ctx.config().as_object() : object{};
    const value& conf_in = ctx.config().get("configurable");
    object conf = conf_in.is_object() ? conf_in.as_object() : object{};
    std::string ns(ctx.checkpoint_ns());
    ns += (ns.empty() ? "" : "|") + std::string(ctx.node()) + ":" + std::string(ctx.task_id());
    conf.set("checkpoint_ns", ns);
    cfg.set("configurable", value(std::move(conf)));
    remote_run_options o;
    o.modes = {stream_mode::values};
    o.context = ctx.context();
    // The parent resumed this task: the remote thread, paused at the interrupt the task
    // raised, resumes with the newest value, as a local subgraph would.
    const list resumes = ctx.resume_values_given();
    value sent = input;
    if (!resumes.empty()) {
      command c;
      c.resume = resumes.back();
      sent = make_command(c);
    }
    std::optional<value> last;
    value out = self.run(
        sent, value(std::move(cfg)), o,
        [&](const stream_event& e) {
          if (e.ns.empty()) last = e.data;
        },
        &ctx);
    return last ? *last : out;
  };
}

state_snapshot remote_graph::get_state(const value& config, bool subgraphs) const {
  value sent = impl_->merged(config);
  cli::state_args a;
  a.where.thread = impl::take_thread(sent, false, "get_state");
  a.checkpoint = string_at(sent.get("configurable"), "checkpoint_id");
  a.subgraphs = subgraphs;
  std::optional<state_snapshot> out;
  impl_->exchange(net::make_client_request(cli::command(a), std::nullopt),
                  [&](value line) { out = snapshot_of(line); });
  if (!out) throw error(error_code::protocol_error, "the head sent no state");
  return std::move(*out);
}

std::vector<state_snapshot> remote_graph::get_state_history(const value& config,
                                                            const list_options& options) const {
  value sent = impl_->merged(config);
  cli::history_args a;
  a.where.thread = impl::take_thread(sent, false, "get_state_history");
  a.limit = options.limit ? options.limit : std::optional<std::size_t>(10);
  if (options.before) a.before = options.before->checkpoint_id;
  a.filter = options.filter;
  std::vector<state_snapshot> out;
  impl_->exchange(net::make_client_request(cli::command(a), std::nullopt),
                  [&](value line) { out.push_back(snapshot_of(line)); });
  return out;
}

value remote_graph::update_state(const value& config, const value& values,
                                 const std::optional<std::string>& as_node) const {
  value sent = impl_->merged(config);
  cli::update_args a;
  a.where.thread = impl::take_thread(sent, false, "update_state");
  a.checkpoint = string_at(sent.get("configurable"), "checkpoint_id");
  a.values = values;
  a.as_node = as_node;
  value out;
  impl_->exchange(net::make_client_request(cli::command(a), std::nullopt),
                  [&](value line) { out = std::move(line); });
  // LangGraph's _get_config: the checkpoint's coordinates and its checkpoint_map.
  checkpoint_config c = config_of(out);
  return object{{"configurable", object{{"thread_id", c.thread_id},
                                        {"checkpoint_ns", c.checkpoint_ns},
                                        {"checkpoint_id", c.checkpoint_id},
                                        {"checkpoint_map", object{}}}}};
}

graph_description remote_graph::get_graph(int xray) const {
  cli::graph_args a;
  a.xray = xray;
  std::optional<graph_description> out;
  impl_->exchange(net::make_client_request(cli::command(a), std::nullopt),
                  [&](value line) { out = description_of(line); });
  if (!out) throw error(error_code::protocol_error, "the head sent no graph");
  return std::move(*out);
}

void remote_graph::cancel(const std::string& thread_id, const std::string& run_id,
                          bool wait) const {
  if (thread_id.empty()) throw error(error_code::invalid_argument, "cancel: no thread id");
  if (run_id.empty()) throw error(error_code::invalid_argument, "cancel: no run id");
  cli::cancel_args a;
  a.where.thread = thread_id;
  a.run_id = run_id;
  a.wait = wait;
  impl_->exchange(net::make_client_request(cli::command(a), std::nullopt), [](value) {});
}

// What a remote_run_stream shares with the thread reading the head's answers.
struct remote_run_stream::state {
  remote_graph graph;
  net::client_request request;
  std::vector<stream_mode> requested;
  std::string thread;
  std::string run_id;

  mutable std::mutex m;
  std::condition_variable changed;
  bool entered = false;
  bool closed = false;
  std::deque<value> lines;  // the head's lines not read yet
  bool ended = false;       // the head answered `finished` (or the link was lost)
  std::exception_ptr failure;
  value output;
  // The actor reading the answers, and the connection it lives on (kept while it is told to
  // stop); the thread it runs on.
  caf::actor reader;
  std::shared_ptr<void> reader_link;
  std::thread reading;

  explicit state(remote_graph g) : graph(std::move(g)) {}

  // Ends the reading (the head's later lines are dropped) and wakes a waiting `next`.
  // Calls may overlap (close and abort from two threads): one of them joins the thread.
  void shut() noexcept {
    caf::actor r;
    std::thread t;
    {
      std::lock_guard lock(m);
      closed = true;
      r = reader;
      t = std::move(reading);
    }
    if (r) caf::anon_send(r, close_atom::value);
    if (t.joinable()) t.join();
    {
      std::lock_guard lock(m);
      reader = caf::actor();
      reader_link.reset();
    }
    changed.notify_all();
  }
};

remote_run_stream::remote_run_stream(std::shared_ptr<state> s) : state_(std::move(s)) {}
remote_run_stream::remote_run_stream(remote_run_stream&&) noexcept = default;
remote_run_stream& remote_run_stream::operator=(remote_run_stream&& other) noexcept {
  if (this != &other) {
    close();
    state_ = std::move(other.state_);
  }
  return *this;
}
remote_run_stream::~remote_run_stream() { close(); }

void remote_run_stream::enter() {
  state& st = *state_;
  {
    std::lock_guard lock(st.m);
    if (st.closed) throw error(error_code::invalid_argument, "remote_run_stream: closed");
    if (st.entered) throw error(error_code::invalid_argument, "remote_run_stream: entered already");
  }
  auto taken = std::make_shared<std::promise<void>>();
  std::future<void> started = taken->get_future();
  std::thread reading([s = state_, taken] {
    bool told = false;
    try {
      s->graph.impl_->exchange(
          s->request,
          [&s](value line) {
            {
              std::lock_guard lock(s->m);
              s->lines.push_back(std::move(line));
            }
            s->changed.notify_all();
          },
          [&](const caf::actor& reader, std::shared_ptr<connection> link) {
            {
              std::lock_guard lock(s->m);
              s->reader = reader;
              s->reader_link = std::move(link);
            }
            told = true;
            taken->set_value();
          });
    } catch (...) {
      if (!told) {
        taken->set_exception(std::current_exception());
        return;
      }
      std::lock_guard lock(s->m);
      s->failure = std::current_exception();
    }
    {
      std::lock_guard lock(s->m);
      s->ended = true;
    }
    s->changed.notify_all();
  });
  try {
    started.get();
  } catch (...) {
    reading.join();
    std::lock_guard lock(st.m);
    st.closed = true;  // as LangGraph unwinds the SDK thread when run.start raises
    throw;
  }
  std::lock_guard lock(st.m);
  st.reading = std::move(reading);
  st.entered = true;
}

std::optional<stream_event> remote_run_stream::next() {
  state& st = *state_;
  std::unique_lock lock(st.m);
  if (!st.entered) throw error(error_code::invalid_argument, "remote_run_stream: not entered");
  for (;;) {
    st.changed.wait(lock, [&] { return st.closed || !st.lines.empty() || st.ended; });
    if (st.closed) throw error(error_code::invalid_argument, "remote_run_stream: closed");
    if (!st.lines.empty()) {
      value line = std::move(st.lines.front());
      st.lines.pop_front();
      if (is_output_line(line)) {
        st.output = output_of(line);
        continue;
      }
      stream_event ev = event_of(line);
      if (has_mode(st.requested, ev.mode)) return ev;
      continue;
    }
    if (st.failure) std::rethrow_exception(st.failure);
    return std::nullopt;
  }
}

value remote_run_stream::output() {
  while (next()) {
  }
  std::lock_guard lock(state_->m);
  return state_->output;
}

void remote_run_stream::abort() noexcept {
  if (!state_) return;
  state& st = *state_;
  bool cancel = false;
  {
    std::lock_guard lock(st.m);
    if (st.closed) return;
    st.closed = true;
    cancel = st.entered;
  }
  if (cancel) {
    try {
      st.graph.cancel(st.thread, st.run_id);
    } catch (...) {  // LangGraph logs it and closes all the same
    }
  }
  st.shut();
}

void remote_run_stream::close() noexcept {
  if (!state_) return;
  state_->shut();
}

bool remote_run_stream::entered() const noexcept {
  std::lock_guard lock(state_->m);
  return state_->entered;
}

bool remote_run_stream::closed() const noexcept {
  std::lock_guard lock(state_->m);
  return state_->closed;
}

const std::string& remote_run_stream::thread_id() const noexcept { return state_->thread; }

std::string remote_run_stream::run_id() const {
  std::lock_guard lock(state_->m);
  return state_->entered ? state_->run_id : std::string();
}

remote_run_stream remote_graph::stream_events(const value& input, const value& config,
                                              const remote_run_options& options) const {
  if (!config.is_null() && !config.is_object())
    throw error(error_code::invalid_argument, "stream_events: the config is not an object");
  value sent = sanitize_config(impl_->merged(config));
  std::string thread = impl::take_thread(sent, true, "stream_events");
  auto st = std::make_shared<remote_run_stream::state>(*this);
  st->requested = requested_modes(options);
  cli::run_args a = run_request(input, sent, options, st->requested, {}, thread);
  a.run_id = fresh_thread_id();
  st->thread = std::move(thread);
  st->run_id = a.run_id;
  st->request = net::make_client_request(cli::command(a), std::nullopt);
  (void)net::encode_request(st->request);  // what cannot be sent fails here, before enter
  return remote_run_stream(std::move(st));
}

}  // namespace superstep
