#include "superstep/pregel/run_context.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <random>
#include <stop_token>
#include <thread>

#include "stream_messages.hpp"
#include "superstep/channels/reducer.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/core/ids.hpp"
#include "superstep/pregel/send.hpp"

namespace superstep {

bool should_retry_on(const retry_policy& policy, const error& e) {
  if (policy.retry_on) return policy.retry_on(e);
  return e.code() == error_code::node_error || e.code() == error_code::storage_error ||
         e.code() == error_code::node_timeout;
}

}  // namespace superstep

namespace superstep::detail {

void run_shared::emit(stream_mode m, value data) const {
  if (!sink || !wants(m)) return;
  stream_event ev{ns, m, std::move(data)};
  std::lock_guard lock(*sink_mutex);
  (*sink)(ev);
}

namespace {

// As LangChain's handle_event: each handler in turn; what one marked raise_error throws ends
// the dispatch and goes on to the run, what any other throws is passed over.
template <class Event, class Call>
void tell_handlers(const run_hooks& hooks, Event& event, Call call) {
  if (hooks.callbacks.empty()) return;
  event.run_id = hooks.run_id;
  std::lock_guard lock(hooks.m);
  for (const auto& handler : hooks.callbacks) {
    if (!handler) continue;
    try {
      call(*handler, event);
    } catch (...) {
      if (handler->raise_error()) throw;
    }
  }
}

}  // namespace

void run_hooks::resumed(graph_resume_event event) const {
  tell_handlers(*this, event,
                [](graph_callback_handler& h, const graph_resume_event& e) { h.on_resume(e); });
}

void run_hooks::interrupted(graph_interrupt_event event) const {
  tell_handlers(*this, event, [](graph_callback_handler& h, const graph_interrupt_event& e) {
    h.on_interrupt(e);
  });
}

std::string join_ns(const std::vector<std::string>& ns) {
  std::string out;
  for (std::size_t i = 0; i < ns.size(); ++i) out += (i ? "|" : "") + ns[i];
  return out;
}

std::string interrupt_id(std::string_view checkpoint_ns, std::string_view task_id) {
  std::string key(checkpoint_ns);
  key.append(1, '\0').append(task_id);
  static const char hex[] = "0123456789abcdef";
  std::string id;
  for (std::uint64_t seed : {11u, 12u}) {
    std::uint64_t h = stable_hash(key, seed);
    for (int i = 15; i >= 0; --i) id += hex[(h >> (4 * i)) & 15];
  }
  return id;
}

bool is_interrupt_id(std::string_view s) noexcept {
  return s.size() == 32 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

value task_context::interrupt(value v) {
  const std::size_t call = interrupt_calls_++;
  if (call < task_.rare->resume.size()) return task_.rare->resume[call];
  throw error::interrupt(
      value(object{{"value", std::move(v)}, {"id", interrupt_id(run_.checkpoint_ns, task_.id)}}));
}

void task_context::emit_custom(value data) {
  if (timeout_ && !timeout_->refresh_on_heartbeat_only) touch();
  run_.emit(stream_mode::custom, std::move(data));
}

void task_context::emit_tool_event(value event) {
  if (timeout_ && !timeout_->refresh_on_heartbeat_only) touch();
  run_.emit(stream_mode::tools, std::move(event));
}

const timeout_policy* task_context::timeout_of(const pregel_node& node) {
  if (task_.rare->timeout.is_null()) return node.timeout ? &*node.timeout : nullptr;
  if (!send_timeout_) send_timeout_ = timeout_from_value(task_.rare->timeout);
  return &*send_timeout_;
}

void task_context::check_timeout() const {
  if (!timeout_) return;
  using ms = std::chrono::duration<double, std::milli>;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = ms(now - attempt_start_).count();
  char text[256];
  if (timeout_->run_timeout_ms && elapsed > *timeout_->run_timeout_ms) {
    std::snprintf(text, sizeof text, "exceeded its run timeout of %.3fs (elapsed: %.3fs).",
                  *timeout_->run_timeout_ms / 1000, elapsed / 1000);
    throw error(error_code::node_timeout, "Node '" + task_.name + "' " + text);
  }
  const std::chrono::steady_clock::time_point last{
      std::chrono::steady_clock::duration(last_progress_.load(std::memory_order_relaxed))};
  if (timeout_->idle_timeout_ms && ms(now - last).count() > *timeout_->idle_timeout_ms) {
    std::snprintf(text, sizeof text,
                  "exceeded its idle timeout of %.3fs without making progress (elapsed: %.3fs).",
                  *timeout_->idle_timeout_ms / 1000, elapsed / 1000);
    throw error(error_code::node_timeout, "Node '" + task_.name + "' " + text);
  }
}

value task_context::message_metadata() const {
  object meta;
  if (const value* conf = run_.config.find("configurable"); conf && conf->is_object())
    for (const char* key : {"thread_id", "checkpoint_id", "checkpoint_ns", "task_id", "run_id",
                            "assistant_id", "graph_id"})
      if (const value* v = conf->find(key)) meta.set(key, *v);
  meta.set("langgraph_step", step_);
  meta.set("langgraph_node", task_.name.str());
  list triggers;
  if (task_.push) triggers.emplace_back(std::string(PUSH));
  for (const auto& t : task_.triggers) triggers.emplace_back(t);
  meta.set("langgraph_triggers", value(std::move(triggers)));
  // A Send's task: (PUSH, idx, False), False saying it is no call (LangGraph's translated
  // task path of a PUSH task's metadata).
  meta.set("langgraph_path",
           task_.push ? value::array(
                            {std::string(PUSH), static_cast<std::int64_t>(task_.push_index), false})
                      : value::array({std::string(PULL), task_.name.str()}));
  meta.set("langgraph_checkpoint_ns", (run_.checkpoint_ns.empty() ? "" : run_.checkpoint_ns + "|") +
                                          task_.name + ":" + task_.id);
  meta.set("ls_integration", "langgraph");
  return value(std::move(meta));
}

std::vector<stream_mode> task_context::subgraph_stream_modes() const {
  std::vector<stream_mode> modes;
  if (!run_.subgraphs || !run_.sink) return modes;
  for (unsigned m = 0; m <= static_cast<unsigned>(last_stream_mode); ++m)
    if (run_.wants(static_cast<stream_mode>(m))) modes.push_back(static_cast<stream_mode>(m));
  return modes;
}

void task_context::emit_subgraph_event(stream_event event) {
  if (!run_.subgraphs || !run_.sink || !run_.wants(event.mode)) return;
  std::lock_guard lock(*run_.sink_mutex);
  (*run_.sink)(event);
}

void task_context::emit_message(value chunk) {
  if (timeout_ && !timeout_->refresh_on_heartbeat_only) touch();
  if (!run_.wants(stream_mode::messages) || run_.message_events) return;
  run_.emit(stream_mode::messages, value::array({std::move(chunk), message_metadata()}));
}

void task_context::emit_message_event(value event, std::string_view call_id) {
  if (timeout_ && !timeout_->refresh_on_heartbeat_only) touch();
  if (!message_events()) return;
  value meta = message_metadata();
  object with_run = meta.as_object();
  with_run.set("run_id", std::string(call_id));
  run_.emit(stream_mode::messages, value::array({std::move(event), value(std::move(with_run))}));
}

void task_context::note_message_seen(std::string_view id) {
  if (!run_.wants(stream_mode::messages)) return;
  detail::note_messages_seen(*this, list{value(std::string(id))});
}

value task_context::push_message(value message, std::string_view state_key) {
  message = channels::as_message(message);
  const value* id = message.find("id");
  if (!id || !id->is_string())
    throw error(error_code::invalid_argument,
                "Message ID is required: push_message got " + message.to_json());
  // A whole message: streamed in either form of the messages stream (LangGraph's push_message
  // calls the handler's _emit directly).
  if (run_.wants(stream_mode::messages))
    run_.emit(stream_mode::messages, value::array({message, message_metadata()}));
  if (!state_key.empty()) write(std::string(state_key), message);
  return message;
}

std::optional<value> task_context::fresh_read(const std::string& channel) {
  auto it = channels_.find(channel);
  if (it == channels_.end()) return std::nullopt;
  std::vector<value> mine;
  for (const auto& [ch, v] : task_.writes)
    if (ch == channel) mine.push_back(v);
  if (mine.empty()) {
    if (!it->second->is_available()) return std::nullopt;
    return it->second->get();
  }
  auto copy = it->second->copy();
  copy->update(mine);
  if (!copy->is_available()) return std::nullopt;
  return copy->get();
}

namespace {

// Waits before the next attempt, as LangGraph's runner does.
void back_off(const pregel_graph& g, const retry_policy& p, std::int64_t failures) {
  double ms = p.initial_interval_ms * std::pow(p.backoff, static_cast<double>(failures - 1));
  ms = std::min(ms, p.max_interval_ms);
  if (p.jitter) {
    thread_local std::mt19937_64 rng{std::random_device{}()};
    ms += std::uniform_real_distribution<double>(0, 1000)(rng);
  }
  const std::chrono::duration<double, std::milli> wait(ms);
  if (g.retry_sleep)
    g.retry_sleep(wait);
  else
    std::this_thread::sleep_for(wait);
}

thread_local task_context* running_task = nullptr;

// Makes `ctx` the calling thread's current task while the node function runs.
class current_task_scope {
 public:
  explicit current_task_scope(task_context& ctx) noexcept : previous_(running_task) {
    running_task = &ctx;
  }
  ~current_task_scope() { running_task = previous_; }
  current_task_scope(const current_task_scope&) = delete;
  current_task_scope& operator=(const current_task_scope&) = delete;

 private:
  task_context* previous_;
};

// One attempt: the node function, then its writers. Throws what the node throws.
void attempt(const pregel_node& node, pregel_task& task, task_context& ctx) {
  task.writes.clear();
  task.writes.reserve(node.writers.size() + 1);
  if (ctx.node_attempt() > 1) ctx.throw_if_cancelled();  // no retry once cancelled
  ctx.reset_attempt();
  ctx.start_clock(ctx.timeout_of(node));
  value out;
  bool from_child = false;  // a Command a graph this node ran sent up: not this node's output
  if (!node.hidden) note_input_messages(ctx, task.input);
  try {
    current_task_scope scope(ctx);
    out = node.fn ? node.fn(task.input, ctx) : task.input;
  } catch (const error& e) {
    // A graph the node function invoked returned a Command for its parent: the Command is
    // this node's, applied to this graph (LangGraph's ParentCommand caught by the runner).
    // A Command.PARENT this node returns itself is thrown by its writers below and leaves
    // this graph.
    if (e.code() != error_code::parent_command || !e.payload()) throw;
    out = *e.payload();
    from_child = true;
  }
  task.output = out;
  // A node that returns past its timeout (or caught the timeout error) still timed out: LangGraph
  // would have cancelled it there, so its result is dropped. A node that returns once its
  // task is cancelled finished before it saw it: its result stands.
  ctx.check_timeout();
  const bool messages = !node.hidden && !from_child && ctx.run().wants(stream_mode::messages);
  if (messages) task.output = out = with_message_ids(ctx, out);
  for (const auto& w : node.writers) w(out, ctx);
  if (messages) emit_output_messages(ctx, out);
}

double seconds_since_epoch() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Runs `node` for the task with its retry policies (LangGraph run_with_retry). Returns the
// error it failed with, if it did; an interrupt is recorded on the task and is no failure.
std::optional<error> run_with_retry(const pregel_graph& g, const pregel_node& node,
                                    pregel_task& task, task_context& ctx) {
  const double first_time = seconds_since_epoch();
  for (std::int64_t failures = 0;;) {
    ctx.set_attempt(failures + 1, first_time);
    std::optional<error> failure;
    try {
      attempt(node, task, ctx);
      return std::nullopt;
    } catch (const error& e) {
      failure = e;
    } catch (const std::exception& e) {
      failure = error::node_failure(e);
    } catch (...) {
      failure = error(error_code::node_error, "unknown exception");
    }
    task.writes.clear();
    task.output = value();  // an attempt that failed has no output
    if (failure->code() == error_code::interrupted) {
      // Not a failure: the task waits for a resume value. The values it was given so far are
      // kept, so the re-run answers the same interrupt() calls the same way.
      // One interrupt from interrupt(), or a list: all those of a subgraph the task ran; null
      // (or no payload) a pause without one, as a subgraph's breakpoint.
      value raised = failure->payload() ? *failure->payload() : value();
      list& interrupts = task.rare.edit().interrupts;
      if (raised.is_list())
        interrupts.insert(interrupts.end(), raised.as_list().begin(), raised.as_list().end());
      else
        interrupts.push_back(std::move(raised));
      if (!task.rare->resume.empty())
        task.writes.emplace_back(std::string(RESUME), value(task.rare->resume));
      return std::nullopt;
    }
    // A Command for the parent graph, and a subgraph's drain (LangGraph's GraphBubbleUp),
    // leave the task as they are: never retried, nor handled by an error handler.
    if (failure->code() == error_code::parent_command || failure->code() == error_code::drained)
      return failure;
    // A cancelled task stops (LangGraph's CancelledError ends the task's coroutine).
    if (failure->code() == error_code::cancelled && ctx.cancelled()) return failure;
    // The first policy whose retry_on matches decides; the attempts count across policies.
    const retry_policy* matching = nullptr;
    for (const auto& p : node.retry)
      if (should_retry_on(p, *failure)) {
        matching = &p;
        break;
      }
    ++failures;
    if (!matching || failures >= matching->max_attempts) return failure;
    back_off(g, *matching, failures);
  }
}

const pregel_node* node_named(const pregel_graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

}  // namespace

task_context* current_task() noexcept { return running_task; }

void run_task(const pregel_graph& g, pregel_task& task, task_context& ctx) noexcept {
  const pregel_node& node = g.nodes[task.node];
  const pregel_node* handler =
      node.error_handler.empty() ? nullptr : node_named(g, node.error_handler);
  // A task that starts once its step is cancelled still runs (LangGraph's asyncio tasks all
  // start; a pool here may start some late): one that watches its stop token stops at once,
  // as an asyncio task at its first await.
  std::optional<error> failure;
  if (!task.rare->handled_error || !handler) failure = run_with_retry(g, node, task, ctx);
  const bool cancelled = failure && failure->code() == error_code::cancelled && ctx.cancelled();
  if (failure && handler && failure->code() != error_code::parent_command &&
      failure->code() != error_code::drained && !cancelled)
    task.set_handled_error(task_error::of(*failure));
  if (task.rare->handled_error && handler) {
    // The node's error handler takes over the task (LangGraph's node_error_handler task):
    // its writes are the task's, its failure the task's failure.
    ctx.set_node_error(
        node_failure{node.name, task.rare->handled_error->code, task.rare->handled_error->message});
    failure = run_with_retry(g, *handler, task, ctx);
  }
  if (failure) {
    task.writes.clear();
    task.set_error(task_error::of(*failure));
  }
  task.done = true;
}

}  // namespace superstep::detail

namespace superstep {

void node_context::throw_if_cancelled() const {
  if (!cancelled()) return;
  throw error(error_code::cancelled,
              "task '" + std::string(node()) + "' (" + std::string(task_id()) + ") was cancelled");
}

void node_context::sleep_for(std::chrono::duration<double, std::milli> d) const {
  std::mutex m;
  std::condition_variable_any cv;
  std::unique_lock lock(m);
  (void)cv.wait_for(lock, stop_token(), d, [] { return false; });
  throw_if_cancelled();
}

value node_context::push_message(value, std::string_view) {
  throw error(error_code::invalid_argument, "push_message: this node context cannot write state");
}

}  // namespace superstep
