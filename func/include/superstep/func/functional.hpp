#pragma once

// LangGraph's functional API: `entrypoint` and `task` (langgraph/func/__init__.py).
//
//   namespace fn = superstep::functional;
//   fn::task mapper("mapper", [](const value& x, fn::call_context&) {
//     return value(std::to_string(x.as_int()) + "!");
//   });
//   fn::entrypoint_options options;
//   options.name = "graph";
//   options.runtime.checkpointer = saver;
//   auto graph = fn::entrypoint(options, [&](const value& in, fn::call_context& ctx) {
//     std::vector<fn::future> futures;
//     for (const auto& x : in.as_list()) futures.push_back(mapper(ctx, x));
//     list out;
//     for (auto& f : futures) out.push_back(f.result());
//     return value(std::move(out));
//   });
//   graph->invoke(value::array({1, 2}), config);
//
// An entrypoint compiles to a `pregel` with one node (named after the entrypoint) triggered
// by the `__start__` channel, writing its return value to `__end__` (the output) and the value
// to remember to `__previous__` (what the next run on the thread sees as `previous()`). It
// runs on either execution mode, checkpoints, interrupts and resumes like any graph, and can
// be a node of a StateGraph or be invoked from another graph's node (run_nested).
//
// A task call runs the task's function concurrently with its caller and returns a `future`.
// Each call is a PUSH task of the caller's superstep (LangGraph's `Call`): its id is
// deterministic (the calling task's id, the caller's call counter and the task's name), its
// result is saved as that task's pending write (`__return__`) and streamed as an update
// `{name: result}`. When an interrupted entrypoint resumes, it runs again from its start; the
// calls that finished before return their saved results without running again, and an
// interrupt raised inside a task is answered in that task.
//
// How it runs, and its limits:
// - Each call runs on a thread of its own (a call may wait on calls it makes without taking a
//   pool's thread from them); the entrypoint's step ends once every call it made has ended.
//   A call whose error or interrupt its caller never asked for (`result()`) fails, or
//   interrupts, the entrypoint as LangGraph's runner does.
// - A call's interrupt reaches the run through the future its caller waits on: when several
//   calls interrupt at once, the one the entrypoint waits on first is surfaced; the others
//   interrupt again, one at a time, once it is answered (LangGraph surfaces them together).
// - Saved call results are found through the graph's checkpointer by the process running the
//   entrypoint: an entrypoint node hosted by a cluster worker (which has no checkpointer)
//   runs its calls again when it resumes.
// - A task with a cache policy (`task_options::cache`) takes its result from the graph's
//   cache (`runtime_options::cache`) when a call's input has a live entry: it does not run,
//   and its `updates` event carries `"__metadata__": {"cached": true}` (LangGraph).
// - Timeouts (`task_options::timeout`, `entrypoint_options::timeout`) are those of nodes: a
//   call past one fails with node_timeout at its next `check_timeout()` or when it returns.
// - A call can be cancelled (`future::cancel()`, LangGraph's `future.cancel()`): cooperative,
//   as std::jthread's stop requests. Its future reports cancelled at once (`result()` throws
//   error(cancelled)); its function, told through `call_context::stop_token()`, is expected
//   to stop soon (its return value or error is then dropped: nothing saved, cached or
//   streamed, so a resumed entrypoint runs the call again); the step still waits for it to
//   end. A cancelled call never fails its entrypoint. Cancelling the run (a run_control's
//   request_cancel, a stream sink's stream_stop, a step timeout, a failed sibling) cancels
//   its calls likewise; a caller waiting on one gets error(cancelled).
// - The run's config["max_concurrency"] holds for the calls an entrypoint makes (those beyond
//   it wait for a place); calls made by calls are not held back, so a call waiting on its own
//   calls cannot deadlock.

#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <utility>

#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/typed.hpp"
#include "superstep/pregel/node_cache.hpp"
#include "superstep/pregel/node_context.hpp"
#include "superstep/pregel/pregel.hpp"

namespace superstep::functional {

class task;
class future;

/// What an entrypoint or task function sees of its run: a node_context (config, stream
/// writers, store, `interrupt`), `previous()`, and the calling of tasks. Valid only during the
/// call it is passed to; a function may pass it to tasks it calls but not keep it.
class call_context : public node_context {
 public:
  /// The entrypoint's last saved value on this thread (LangGraph's `previous`): what the last
  /// run returned, or the `save` of its `final`; null on a thread's first run, without a
  /// checkpointer, and inside tasks.
  virtual const value& previous() const noexcept = 0;

  /// Calls `t` with `input` as a new task of this superstep, running concurrently with the
  /// caller. Prefer `t(ctx, input)`.
  virtual future call(const task& t, value input) = 0;

  /// Set once the caller cancelled this task call (`future::cancel()`), or the run cancels the
  /// entrypoint's task (node_context::stop_token: a cancelled run, a step timeout, a failed
  /// sibling), which cancels its calls too. A function that runs long should stop soon once
  /// it is: poll `stop_requested()`, wait with it (`std::condition_variable_any::wait(lock,
  /// token, pred)`, `sleep_for`), or call `check_cancelled()`. What it returns after is
  /// dropped.
  std::stop_token stop_token() const noexcept override = 0;
  /// Throws error(cancelled) naming the call when it was cancelled; else does nothing.
  virtual void check_cancelled() const = 0;

  /// Runs `graph` to its end as a subgraph of this call (LangGraph's `graph.invoke` inside an
  /// entrypoint or task): in this call's namespace, saving into the run's checkpointer,
  /// streaming to the run's stream when it asked for subgraphs; an interrupt inside pauses
  /// this call too. Returns the graph's output.
  virtual value invoke(const pregel& graph, const value& input) = 0;
};

/// The function of an entrypoint or a task: its input and its context; returns its result.
/// May throw: the error fails the task (and the entrypoint that waits on it).
using call_function = std::function<value(const value& input, call_context& ctx)>;

/// The result of a task call (LangGraph's SyncAsyncFuture). Movable, not copyable; waiting is
/// safe from the thread that called the task.
class future {
 public:
  struct state;
  future() = default;
  explicit future(std::shared_ptr<state> s) : state_(std::move(s)) {}

  /// Waits for the task and returns its result, or throws its error. A task that called
  /// `interrupt` throws the interrupt here, which pauses the caller too (do not catch it).
  const value& result() const;
  /// Whether the task has finished (its result or error is there), or was cancelled.
  bool done() const;
  /// Cancels the call (LangGraph's `future.cancel()`): true when this cancelled it, false when
  /// it had finished already (its result stands) or was cancelled before. A cancelled call's
  /// `result()` throws error(cancelled); its function is asked to stop through its
  /// `call_context::stop_token()` (it does not run at all when it had not started); whatever
  /// it returns is dropped. Thread-safe.
  bool cancel();
  /// Whether `cancel()` cancelled the call.
  bool cancelled() const;
  /// The called task's id (the id of its saved writes).
  const std::string& id() const;

 private:
  std::shared_ptr<state> state_;
};

/// Options of a task (LangGraph's `@task(name=..., retry_policy=..., cache_policy=...,
/// timeout=...)`).
struct task_options {
  /// Retries of a failing call (same semantics as a node's retry policy).
  std::optional<retry_policy> retry;
  /// Caching of the call's result by input, in the entrypoint's cache
  /// (`runtime_options::cache`; without one the task is not cached). None: no caching.
  std::optional<cache_policy> cache;
  /// Time limits of each attempt of a call, as a node's (`pregel_node::timeout`); the error
  /// names the task. None: no limit.
  std::optional<timeout_policy> timeout;
};

/// A task: a named function an entrypoint (or another task) calls with `t(ctx, input)`.
/// Copyable and cheap to copy; thread-safe.
class task {
 public:
  /// Throws `superstep::error` (invalid_argument) when `name` is empty or reserved, or `fn`
  /// is empty.
  task(std::string name, call_function fn, task_options options = {});

  /// Schedules a call of this task in the caller's superstep; see `call_context::call`.
  future operator()(call_context& ctx, value input) const {
    return ctx.call(*this, std::move(input));
  }

  const std::string& name() const noexcept { return name_; }
  const call_function& function() const noexcept { return fn_; }
  const task_options& options() const noexcept { return options_; }
  /// Drops this task's cached results from `cache` (LangGraph `task.clear_cache(cache)`).
  void clear_cache(node_cache& cache) const;

 private:
  std::string name_;
  call_function fn_;
  task_options options_;
};

/// The result of a `typed_task` call: `result()` converts the task's value to `R`.
template <class R>
class typed_future {
 public:
  explicit typed_future(future f) : f_(std::move(f)) {}
  /// Waits for the task; its result as `R` (throws as `future::result`).
  R result() const { return from_value<R>(f_.result()); }
  bool done() const { return f_.done(); }
  bool cancel() { return f_.cancel(); }
  bool cancelled() const { return f_.cancelled(); }
  const future& untyped() const noexcept { return f_; }

 private:
  future f_;
};

/// A task over C++ types converted as superstep/core/typed.hpp does (numbers, strings,
/// vectors, maps, optionals, described structs): `fn(const In&, call_context&)` returns `Out`.
///
///   functional::typed_task<std::string, int> mapper(
///       "mapper", [](const int& x, functional::call_context&) { return std::to_string(x); });
///   std::string s = mapper(ctx, 3).result();
template <class Out, class In>
class typed_task {
 public:
  using function = std::function<Out(const In&, call_context&)>;
  typed_task(std::string name, function fn, task_options options = {})
      : task_(std::move(name), wrap(std::move(fn)), std::move(options)) {}

  typed_future<Out> operator()(call_context& ctx, const In& input) const {
    return typed_future<Out>(task_(ctx, to_value(input)));
  }
  const task& untyped() const noexcept { return task_; }

 private:
  static call_function wrap(function fn) {
    if (!fn) return nullptr;
    return [fn = std::move(fn)](const value& in, call_context& ctx) {
      return to_value(fn(from_value<In>(in), ctx));
    };
  }
  task task_;
};

/// What an entrypoint returns to give the caller one value and remember another for the next
/// run on the thread (LangGraph's `entrypoint.final(value=..., save=...)`).
value final(value returned, value save);

/// Options of an entrypoint (LangGraph's `@entrypoint(checkpointer=..., store=..., cache=...,
/// cache_policy=..., timeout=...)`); the cache is `runtime.cache`.
struct entrypoint_options {
  /// The name of its node: what `updates` streams and snapshots name (LangGraph: the
  /// function's name).
  std::string name = "entrypoint";
  /// Checkpointer, execution mode, store, executor...
  runtime_options runtime;
  /// Retries of the entrypoint's node, as a Pregel node takes them (`pregel_node::retry`).
  /// A retry runs the entrypoint again from its start; calls that finished keep their results.
  decltype(pregel_node::retry) retry;
  /// Caching of the entrypoint's result by input, as a node's (`pregel_node::cache`).
  std::optional<superstep::cache_policy> cache_policy;
  /// Time limits of each attempt of the entrypoint, as a node's (`pregel_node::timeout`).
  std::optional<timeout_policy> timeout;
  /// The JSON schemas of its input and of its return value (LangGraph: the type hints of the
  /// function's first parameter and of its return, `entrypoint.final[R, S]`'s R), which
  /// `input_json_schema()`/`output_json_schema()` show titled "LangGraphInput" and
  /// "LangGraphOutput" (the name of LangGraph's entrypoint graph). Null: any value.
  value input_schema = value();
  value output_schema = value();
};

/// Compiles `fn` into a graph (LangGraph's `@entrypoint`). Throws `superstep::error`
/// (invalid_argument) when the name is empty or reserved, `fn` is empty, or a schema is
/// invalid (`key_schema::problem`).
std::shared_ptr<pregel> entrypoint(entrypoint_options options, call_function fn);

}  // namespace superstep::functional
