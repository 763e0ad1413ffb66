#include "superstep/pregel/pregel.hpp"

#include <algorithm>
#include <mutex>
#include <set>

#include "pregel_impl.hpp"
#include "run_rollback.hpp"
#include "stream_messages.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/core/ids.hpp"
#include "superstep/pregel/algo.hpp"
#include "superstep/pregel/config.hpp"
#include "superstep/pregel/run_context.hpp"
#include "superstep/pregel/run_loop.hpp"
#include "superstep/pregel/task_executor.hpp"
#include "superstep/pregel/trace_context.hpp"

namespace superstep {

namespace {

void validate(const pregel_graph& g) {
  auto need_channel = [&](const std::string& ch, const std::string& what) {
    if (!g.channels.count(ch))
      throw error(error_code::invalid_graph, what + " names unknown channel '" + ch + "'");
  };
  std::set<std::string> names, handlers;
  for (const auto& n : g.nodes) names.insert(n.name);
  for (const auto& n : g.nodes)
    if (!n.error_handler.empty()) {
      if (!names.count(n.error_handler))
        throw error(
            error_code::invalid_graph,
            "node '" + n.name + "' names unknown error handler node '" + n.error_handler + "'");
      handlers.insert(n.error_handler);
    }
  names.clear();
  for (const auto& n : g.nodes) {
    if (!names.insert(n.name).second)
      throw error(error_code::invalid_graph, "duplicate node '" + n.name + "'");
    // An error handler runs in the task of the node that failed, not on triggers.
    if (n.triggers.empty() && !handlers.count(n.name))
      throw error(error_code::invalid_graph, "node '" + n.name + "' has no trigger channels");
    for (const auto& t : n.triggers) need_channel(t, "node '" + n.name + "'");
    if (n.timeout)
      if (std::string problem = n.timeout->problem(); !problem.empty())
        throw error(error_code::invalid_graph, "node '" + n.name + "': " + problem);
    for (const auto& r : n.reads) need_channel(r, "node '" + n.name + "'");
    if (n.single_read && n.reads.size() != 1)
      throw error(error_code::invalid_graph, "node '" + n.name + "' reads one channel but names " +
                                                 std::to_string(n.reads.size()));
  }
  if (g.step_timeout_ms && !(*g.step_timeout_ms > 0))
    throw error(error_code::invalid_graph, "step_timeout must be greater than 0");
  if (g.input_channels.empty())
    throw error(error_code::invalid_graph, "graph has no input channels");
  for (const auto& c : g.input_channels) need_channel(c, "input");
  for (const auto& c : g.output_channels) need_channel(c, "output");
  for (const auto* list : {&g.interrupt_before, &g.interrupt_after})
    for (const auto& n : *list)
      if (n != "*" && !names.count(n))
        throw error(error_code::invalid_graph, "interrupt names unknown node '" + n + "'");
}

std::uint32_t mode_bits(const std::vector<stream_mode>& modes) {
  std::uint32_t bits = 0;
  for (auto m : modes) bits |= 1u << static_cast<unsigned>(m);
  return bits;
}

// Runs the tasks of one step on `executor`, reporting each to the loop as it finishes.
value run_sync(detail::run_loop& loop, task_executor& executor, const value& input) {
  return loop.run(input, [&](task_list& tasks, const std::vector<std::uint32_t>& todo) {
    // max_concurrency: the tasks past it wait for a place (LangGraph's
    // semaphore), or until the run cancels them.
    std::optional<detail::task_gate> gate;
    if (loop.max_concurrency() && loop.max_concurrency() < todo.size())
      gate.emplace(loop.max_concurrency());
    executor.run_batch(todo.size(), [&](std::size_t i) {
      pregel_task& t = tasks[todo[i]];
      detail::task_context ctx(loop.shared(), t, loop.step(), loop.channels());
      {
        auto place = gate ? gate->enter(ctx.stop_token()) : detail::task_gate::place();
        detail::run_task(loop.graph(), t, ctx);
      }
      loop.task_finished(t);
    });
  });
}

// The run's id: the config's "run_id", or a fresh uuid.
std::string run_id_of(const value& config) {
  if (const value* id = config.find("run_id"); id && id->is_string() && !id->as_string().empty())
    return id->as_string();
  return detail::fresh_uuid4();
}

multitask_strategy multitask_of(const value& config, const stream_options& options) {
  if (options.multitask) return *options.multitask;
  const value* s = config.find("multitask_strategy");
  if (!s || s->is_null()) return multitask_strategy::reject;
  if (!s->is_string())
    throw error(error_code::invalid_argument,
                "config multitask_strategy must be a string, not " + s->to_json());
  return parse_multitask_strategy(s->as_string());
}

}  // namespace

pregel::pregel(pregel_graph graph, runtime_options options)
    : graph_(std::move(graph)), options_(std::move(options)) {
  validate(graph_);
  if (!options_.retry.empty())
    for (auto& n : graph_.nodes)
      if (n.retry.empty()) n.retry = options_.retry;
  // As LangGraph's Pregel without stream_channels: snapshots show every channel.
  if (graph_.state_channels.empty())
    for (const auto& [name, _] : graph_.channels) graph_.state_channels.push_back(name);
  impl_ = std::make_unique<impl>();
  impl_->index = algo::graph_index::build(graph_);
}

pregel::~pregel() = default;

void pregel::clear_cache(const std::vector<std::string>& nodes) const {
  if (!options_.cache)
    throw error(error_code::invalid_argument,
                "No cache is set for this graph. Cannot clear cache.");
  std::vector<node_cache::cache_namespace> namespaces;
  for (const auto& n : graph_.nodes)
    if (nodes.empty() || std::find(nodes.begin(), nodes.end(), n.name) != nodes.end())
      namespaces.push_back(detail::cache_namespace_of(n.name));
  options_.cache->clear(&namespaces);
}

std::shared_ptr<pregel> pregel::with_config(const value& config) const {
  runtime_options o = options_;
  o.config = merge_configs(options_.config, config);
  return std::make_shared<pregel>(graph_, std::move(o));
}

value pregel::bound_config(const value& config) const {
  return options_.config.is_null() ? config : merge_configs(options_.config, config);
}

std::shared_ptr<pregel> pregel::with_checkpointer(std::shared_ptr<checkpoint_saver> saver) const {
  runtime_options o = options_;
  o.checkpointer = std::move(saver);
  return std::make_shared<pregel>(graph_, std::move(o));
}

task_executor& pregel::impl::thread_pool(const runtime_options& o) {
  if (o.executor) return *o.executor;
  // Made on first use: a graph that only runs on actors never starts these threads.
  std::lock_guard lock(m);
  if (!executor) executor = make_thread_pool_executor();
  return *executor;
}

namespace {
std::shared_ptr<const execution_driver> (*default_driver)() = nullptr;
}

void detail::set_default_driver(std::shared_ptr<const execution_driver> (*make)()) {
  default_driver = make;
}

graph_driver& pregel::impl::driver(const pregel_graph& g, const runtime_options& o) {
  std::lock_guard lock(m);
  if (!driven) {
    std::shared_ptr<const execution_driver> given = o.driver;
    if (!given && default_driver) given = default_driver();
    if (!given)
      throw error(error_code::invalid_argument,
                  "execution::actors needs an execution driver: link superstep::coordinator "
                  "(its actors are the default), give runtime_options::driver, or run with "
                  "execution::threads");
    driven = given->attach(g, o);
  }
  return *driven;
}

value pregel::invoke(const value& input, const value& config, const stream_options& options) const {
  return stream(input, config, options, nullptr);
}

value pregel::stream(const value& input, const value& given, const stream_options& options,
                     const stream_sink& sink) const {
  if (!given.is_null() && !given.is_object())
    throw error(error_code::invalid_argument, "config must be an object");
  // A graph without a checkpointer invoked from inside a node with no config of its own, or
  // with the node's config (LangGraph's async nodes hand theirs on), runs as that node's
  // subgraph, as LangGraph's config reaching it through the context: in the node's namespace
  // of its run's checkpointer, its interrupts and its Commands for the parent the node's
  // (thrown through the node function).
  if (!sink && !options_.checkpointer)
    if (detail::task_context* parent = detail::current_task();
        parent && (given.is_null() || given == parent->config())) {
      value out = run_nested(input, *parent);
      if (as_command(out)) throw error::parent_command(std::move(out));
      return out;
    }
  const value config = bound_config(given);
  const value* thread = config.is_null() ? nullptr : config.get("configurable").find("thread_id");
  // One run per thread: take the thread's slot (waiting, or stopping its run, as the
  // strategy says), run, and remove what the run saved if a later run rolled it back.
  const bool holds_thread = options_.checkpointer && thread && thread->is_string();
  // Made only when something reads it: a fresh one costs reads of the random device.
  const std::string run_id =
      holds_thread || !options.callbacks.empty() ? run_id_of(config) : std::string();
  std::optional<thread_runs::slot> slot;
  if (holds_thread)
    slot.emplace(options_.checkpointer->runs().begin(thread->as_string(), run_id,
                                                     multitask_of(config, options)));
  value out;
  std::exception_ptr failure;
  try {
    if (options.started) options.started();
    out = run_unguarded(input, config, options, sink, slot ? &*slot : nullptr, run_id);
  } catch (...) {
    failure = std::current_exception();
  }
  auto stopped = slot ? slot->stop_request() : std::nullopt;
  if (stopped && stopped->first == multitask_strategy::rollback) {
    const std::string& thread_id = slot->thread_id();
    try {
      detail::roll_back_run(*options_.checkpointer, thread_id, slot->footprint());
      failure = std::make_exception_ptr(
          error(error_code::run_cancelled,
                "run " + slot->run_id() + " on thread '" + thread_id + "' was rolled back by run " +
                    stopped->second + " (multitask strategy rollback): what it saved is removed"));
    } catch (...) {
      failure = std::current_exception();
    }
  }
  if (options.finished) {
    try {
      options.finished();
    } catch (...) {
      if (!failure) failure = std::current_exception();  // else the run's own error is told
    }
  }
  if (failure) std::rethrow_exception(failure);
  return out;
}

value pregel::run_unguarded(const value& input, const value& config, const stream_options& options,
                            const stream_sink& sink, thread_runs::slot* slot,
                            const std::string& run_id) const {
  std::mutex sink_mutex;
  detail::run_shared shared;
  shared.config = config.is_null() ? value(object{}) : config;
  // Given the caller's trace, the run carries its own under it (trace_context.hpp).
  if (auto caller = trace_context::of(shared.config))
    shared.config = caller->child(slot ? slot->run_id() : run_id_of(config)).in(shared.config);
  shared.modes = sink ? mode_bits(options.modes) : 0;
  shared.subgraphs = options.subgraphs;
  shared.message_events = options.message_events;
  // A sink that throws stream_stop closes the stream: it gets nothing more, and the run is
  // cancelled (its calls never overlap, so `closed` needs no lock).
  detail::run_loop* running = nullptr;  // set once the loop exists, before any event
  bool closed = false;
  stream_sink closable;
  if (sink)
    closable = [&](const stream_event& e) {
      if (closed) return;
      try {
        sink(e);
      } catch (const stream_stop&) {
        closed = true;
        if (running)
          running->cancellation().cancel(
              error(error_code::cancelled, "run cancelled: its stream was closed by its sink"));
      }
    };
  // The `messages` stream's messages from node outputs are deduplicated run-wide, subgraphs'
  // included (stream_messages.hpp).
  const stream_sink filtered = closable && shared.wants(stream_mode::messages)
                                   ? detail::dedupe_messages(closable)
                                   : stream_sink();
  shared.sink = filtered ? &filtered : closable ? &closable : nullptr;
  shared.sink_mutex = &sink_mutex;
  shared.store = options_.store.get();
  shared.cache = options_.cache.get();
  shared.run_slot = slot;
  shared.stop_asked = options.stop ? &options.stop : nullptr;
  if (options.interrupt_before) shared.interrupt_before = &*options.interrupt_before;
  if (options.interrupt_after) shared.interrupt_after = &*options.interrupt_after;
  if (options.control || options.node_finished || !options.callbacks.empty()) {
    auto hooks = std::make_shared<detail::run_hooks>();
    hooks->control = options.control;
    hooks->node_finished = options.node_finished;
    hooks->callbacks = options.callbacks;
    hooks->run_id = run_id;
    shared.hooks = std::move(hooks);
  }
  if (options.control) shared.cancel = options.control->cancel_token();
  detail::run_loop loop(graph_, impl_->index, options_.checkpointer.get(), shared);
  running = &loop;
  value out;
  if (options_.mode == execution::threads)
    out = run_sync(loop, impl_->thread_pool(options_), input);
  else
    out = impl_->driver(graph_, options_)
              .run(loop, input, options.progress ? &options.progress : nullptr);
  // As LangGraph's loop on exit: the top-level graph tells the pause, its checkpoint saved;
  // a subgraph's interrupts reached it as its tasks'.
  if (loop.interrupted() && shared.hooks && !shared.hooks->callbacks.empty()) {
    graph_interrupt_event event;
    event.status = loop.status();
    event.checkpoint_id = loop.state().checkpoint.id;
    event.interrupts = loop.interrupts();
    shared.hooks->interrupted(std::move(event));
  }
  return out;
}

value pregel::run_nested(const value& input, node_context& parent) const {
  auto* ctx = dynamic_cast<detail::task_context*>(&parent);
  if (!ctx) throw error(error_code::internal, "run_nested needs the runtime's node context");
  const detail::run_shared& up = ctx->run();
  detail::run_shared shared;
  shared.config = bound_config(up.config);
  shared.ns = up.ns;
  shared.ns.push_back(ctx->task().name + ":" + ctx->task().id);
  // A task that runs several graphs gives each after the first a namespace of its own.
  if (std::size_t n = ctx->next_subgraph_call()) shared.ns.push_back(std::to_string(n));
  if (options_.as_subgraph == subgraph_checkpointer::stateful) {
    // LangGraph's checkpointer=True: the namespace without task ids, the same on every
    // invocation, so the subgraph finds the state its last invocation left.
    for (auto& part : shared.ns) part = part.substr(0, part.find(':'));
  }
  shared.checkpoint_ns = detail::join_ns(shared.ns);
  {
    // Nodes inside the subgraph see its namespace in config.configurable.checkpoint_ns, as
    // in LangGraph.
    object cfg = shared.config.is_object() ? shared.config.as_object() : object{};
    const value& conf_in = shared.config.get("configurable");
    object conf = conf_in.is_object() ? conf_in.as_object() : object{};
    conf.set("checkpoint_ns", shared.checkpoint_ns);
    cfg.set("configurable", value(std::move(conf)));
    shared.config = value(std::move(cfg));
  }
  // Subgraph events reach the caller only when it asked for subgraphs.
  shared.modes = up.subgraphs ? up.modes : 0;
  shared.subgraphs = up.subgraphs;
  shared.message_events = up.message_events;
  shared.sink = up.sink;
  shared.sink_mutex = up.sink_mutex;
  // LangGraph's checkpointer=False: no checkpoints, whatever the parent has.
  shared.saver = options_.as_subgraph == subgraph_checkpointer::none ? nullptr : up.saver;
  shared.store = options_.store ? options_.store.get() : up.store;
  shared.cache = options_.cache ? options_.cache.get() : up.cache;
  shared.resuming = up.resuming;
  shared.parents = up.parents;
  shared.parents[up.checkpoint_ns] = up.checkpoint_id;
  shared.resume = ctx->task().rare->resume;
  shared.replay = up.replay;
  shared.hooks = up.hooks;
  shared.cancel = up.cancel;  // cancelling the parent task cancels the subgraph's run
  detail::run_loop loop(graph_, impl_->index, shared.saver, shared);
  value out;
  try {
    out = run_sync(loop, impl_->thread_pool(options_), input);
  } catch (const error& e) {
    if (e.code() != error_code::parent_command || !e.payload()) throw;
    return *e.payload();  // the subgraph node returns the Command upwards
  }
  // An interrupt inside the subgraph pauses its parent task too; resuming the parent re-runs
  // the task, and the subgraph continues from its own checkpoint with the resume value.
  // Every interrupt the subgraph's step raised (parallel tasks, nested subgraphs) is its
  // parent task's, each answered by id when resumed.
  if (!loop.interrupts().empty()) throw error::interrupt(value(loop.interrupts()));
  // A breakpoint (interrupt_before/after) inside the subgraph pauses its parent task too, with
  // no interrupt value (LangGraph's empty GraphInterrupt): the null the task records is not
  // shown among the run's interrupts.
  if (loop.interrupted()) throw error::interrupt(value());
  return out;
}

}  // namespace superstep
