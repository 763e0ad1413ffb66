// superstep::remote_graph: a graph a head serves, reached through the client requests of
// `superstep submit` (net/request.hpp) over the cluster's links (net/transport.hpp), or a
// LangGraph Server's, reached through its HTTP API (client/remote_http.hpp).
#include "superstep/cluster/remote_graph.hpp"

#include "client/remote_graph_impl.hpp"
#include "superstep/pregel/send.hpp"

namespace superstep {

using namespace remote_detail;

namespace remote_detail {

net::run_args run_request(const value& input, const value& sent_config,
                          const remote_run_options& options,
                          const std::vector<stream_mode>& requested,
                          const std::vector<stream_mode>& parent_modes, std::string thread) {
  net::run_args a;
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

net::header_map run_headers(const remote_graph_options& graph, const remote_run_options& run,
                            const value& caller_config) {
  net::header_map headers = run.headers;
  headers.insert(graph.headers.begin(), graph.headers.end());  // the run's win
  if (!graph.distributed_tracing) return headers;
  return net::with_tracing_headers(std::move(headers), trace_context::of(caller_config));
}

std::vector<stream_mode> requested_modes(const remote_run_options& options) {
  if (!options.modes.empty()) return options.modes;
  return std::vector<stream_mode>(1, stream_mode::updates);
}

}  // namespace remote_detail

remote_graph::remote_graph(std::string graph_id, remote_graph_options options)
    : impl_(std::make_shared<impl>()) {
  if (graph_id.empty()) throw error(error_code::invalid_argument, "remote_graph: no graph id");
  if (options.head.empty() == options.url.empty())
    throw error(error_code::invalid_argument,
                "remote_graph: give either a head (HOST:PORT, a cluster's head) or a url "
                "(http://HOST:PORT, a LangGraph Server), " +
                    std::string(options.head.empty() ? "not neither" : "not both"));
  if (options.url.empty()) parse_head_address(options.head, impl_->host, impl_->port);
  const int certs = !options.tls_cert.empty() + !options.tls_key.empty() + !options.tls_ca.empty();
  if (certs != 0 && certs != 3)
    throw error(error_code::invalid_argument,
                "remote_graph: tls_cert, tls_key and tls_ca go together (or tls alone)");
  if (!options.config.is_null() && !options.config.is_object())
    throw error(error_code::invalid_argument, "remote_graph: the config is not an object");
  if (options.headers.count(""))
    throw error(error_code::invalid_argument, "remote_graph: a header without a name");
  if (!options.url.empty()) impl_->http = std::make_shared<const http_api>(graph_id, options);
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

value remote_graph::run(const value& input, const value& config, const remote_run_options& options,
                        const stream_sink& sink, node_context* parent) const {
  if (!config.is_null() && !config.is_object())
    throw error(error_code::invalid_argument, "stream: the config is not an object");
  const value merged = impl_->merged(config);
  value sent = sanitize_config(merged);
  // Over HTTP a run without a thread is stateless (POST /runs/stream), as LangGraph's.
  const bool threadless = string_at(sent.get("configurable"), "thread_id").empty();
  std::string thread = impl::take_thread(sent, true, "stream");
  const std::vector<stream_mode> requested = requested_modes(options);
  const std::vector<stream_mode> parent_modes =
      parent ? parent->subgraph_stream_modes() : std::vector<stream_mode>{};
  net::run_args a = run_request(input, sent, options, requested, parent_modes, std::move(thread));

  // The caller's namespace (as a node: its task's), put before the remote namespaces of
  // what goes to the parent's stream; with one, an interrupt raises.
  const std::vector<std::string> caller_ns =
      split_ns(string_at(config.get("configurable"), "checkpoint_ns"));
  const auto has = has_mode;
  value output;
  std::optional<value> raised;  // the interrupts that end the stream
  auto on_line = [&](value line) {
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
  };
  if (impl_->http) {
    impl_->http->stream_run(impl_->http->run_request(a, threadless ? std::string() : a.where.thread,
                                                     run_headers(impl_->options, options, merged)),
                            on_line);
  } else {
    net::client_request req = net::make_client_request(net::command(a), std::nullopt);
    req.headers = run_headers(impl_->options, options, merged);
    impl_->exchange(std::move(req), on_line);
  }
  if (raised) throw error::interrupt(std::move(*raised));
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
  net::state_args a;
  a.where.thread = impl::take_thread(sent, false, "get_state");
  a.checkpoint = string_at(sent.get("configurable"), "checkpoint_id");
  a.subgraphs = subgraphs;
  if (impl_->http) return impl_->http->get_state(a.where.thread, a.checkpoint, subgraphs);
  std::optional<state_snapshot> out;
  impl_->exchange(net::make_client_request(net::command(a), std::nullopt),
                  [&](value line) { out = snapshot_of(line); });
  if (!out) throw error(error_code::protocol_error, "the head sent no state");
  return std::move(*out);
}

std::vector<state_snapshot> remote_graph::get_state_history(const value& config,
                                                            const list_options& options) const {
  value sent = impl_->merged(config);
  net::history_args a;
  a.where.thread = impl::take_thread(sent, false, "get_state_history");
  a.limit = options.limit ? options.limit : std::optional<std::size_t>(10);
  if (options.before) a.before = options.before->checkpoint_id;
  a.filter = options.filter;
  if (impl_->http) {
    list_options o = options;
    o.limit = a.limit;
    return impl_->http->get_state_history(a.where.thread, o);
  }
  std::vector<state_snapshot> out;
  impl_->exchange(net::make_client_request(net::command(a), std::nullopt),
                  [&](value line) { out.push_back(snapshot_of(line)); });
  return out;
}

value remote_graph::update_state(const value& config, const value& values,
                                 const std::optional<std::string>& as_node) const {
  value sent = impl_->merged(config);
  net::update_args a;
  a.where.thread = impl::take_thread(sent, false, "update_state");
  a.checkpoint = string_at(sent.get("configurable"), "checkpoint_id");
  a.values = values;
  a.as_node = as_node;
  checkpoint_config c;
  if (impl_->http) {
    c = impl_->http->update_state(a.where.thread, a.checkpoint, values, as_node);
  } else {
    value out;
    impl_->exchange(net::make_client_request(net::command(a), std::nullopt),
                    [&](value line) { out = std::move(line); });
    c = config_of(out);
  }
  // LangGraph's _get_config: the checkpoint's coordinates and its checkpoint_map.
  return object{{"configurable", object{{"thread_id", c.thread_id},
                                        {"checkpoint_ns", c.checkpoint_ns},
                                        {"checkpoint_id", c.checkpoint_id},
                                        {"checkpoint_map", object{}}}}};
}

graph_description remote_graph::get_graph(int xray) const {
  if (impl_->http) return impl_->http->get_graph(xray);
  net::graph_args a;
  a.xray = xray;
  std::optional<graph_description> out;
  impl_->exchange(net::make_client_request(net::command(a), std::nullopt),
                  [&](value line) { out = description_of(line); });
  if (!out) throw error(error_code::protocol_error, "the head sent no graph");
  return std::move(*out);
}

void remote_graph::cancel(const std::string& thread_id, const std::string& run_id,
                          bool wait) const {
  if (thread_id.empty()) throw error(error_code::invalid_argument, "cancel: no thread id");
  if (run_id.empty()) throw error(error_code::invalid_argument, "cancel: no run id");
  if (impl_->http) return impl_->http->cancel(thread_id, run_id, wait);
  net::cancel_args a;
  a.where.thread = thread_id;
  a.run_id = run_id;
  a.wait = wait;
  impl_->exchange(net::make_client_request(net::command(a), std::nullopt), [](value) {});
}

}  // namespace superstep
