// LangGraph's functional API (langgraph/func/__init__.py, pregel/_call.py): an entrypoint is a
// one-node Pregel graph; each task call is a PUSH task of the entrypoint's superstep, run on a
// thread of its own while its caller goes on, its result saved as the call's pending write.
#include "superstep/func/functional.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>
#include <unordered_map>
#include <vector>

#include "superstep/channels/ephemeral_value.hpp"
#include "superstep/channels/last_value.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/core/ids.hpp"
#include "superstep/pregel/run_cancel.hpp"
#include "superstep/pregel/run_config.hpp"
#include "superstep/pregel/run_context.hpp"

namespace superstep::functional {

struct future::state {
  std::string id;
  std::string name;  // the task's
  mutable std::mutex m;
  mutable std::condition_variable cv;
  bool finished = false;
  bool retrieved = false;   // result() was asked for: its error reached the caller
  bool completing = false;  // its outcome is being recorded: too late to cancel
  bool cancelled = false;
  std::stop_source stop;  // requested when the call is cancelled
  value result;
  std::exception_ptr failure;
  // Cancels the call when its run cancels the entrypoint's task (run_cancel.hpp).
  std::optional<std::stop_callback<std::function<void()>>> with_run;

  // As future::cancel: true when this cancelled the call.
  bool cancel() {
    {
      std::lock_guard lock(m);
      if (finished || completing) return false;
      cancelled = finished = true;
      failure = std::make_exception_ptr(cancelled_error());
    }
    stop.request_stop();
    cv.notify_all();
    return true;
  }

  // Claims the call's outcome for its thread before it is saved or streamed: false when the
  // call was cancelled (its outcome is dropped).
  bool begin_finish() {
    std::lock_guard lock(m);
    if (cancelled) return false;
    completing = true;
    return true;
  }
  void finish(value r, std::exception_ptr e) {
    {
      std::lock_guard lock(m);
      if (cancelled) return;  // the caller was told already
      result = std::move(r);
      failure = std::move(e);
      finished = true;
    }
    cv.notify_all();
  }
  error cancelled_error() const {
    return error(error_code::cancelled, "task call '" + name + "' (" + id + ") was cancelled");
  }
};

const value& future::result() const {
  if (!state_) throw error(error_code::invalid_argument, "result() of an empty future");
  std::unique_lock lock(state_->m);
  state_->cv.wait(lock, [&] { return state_->finished; });
  state_->retrieved = true;
  if (state_->failure) std::rethrow_exception(state_->failure);
  return state_->result;
}

bool future::done() const {
  if (!state_) return false;
  std::lock_guard lock(state_->m);
  return state_->finished;
}

bool future::cancel() {
  if (!state_) return false;
  return state_->cancel();
}

bool future::cancelled() const {
  if (!state_) return false;
  std::lock_guard lock(state_->m);
  return state_->cancelled;
}

const std::string& future::id() const {
  if (!state_) throw error(error_code::invalid_argument, "id() of an empty future");
  return state_->id;
}

namespace {

constexpr std::string_view final_key = "__final__";

bool reserved_name(std::string_view name) { return name.size() >= 2 && name.substr(0, 2) == "__"; }

// The `{__final__: {value, save}}` an entrypoint returns through `final`, or nullopt.
std::optional<std::pair<value, value>> as_final(const value& v) {
  if (!v.is_object() || v.as_object().size() != 1) return std::nullopt;
  const value* f = v.find(final_key);
  if (!f || !f->is_object()) return std::nullopt;
  return std::make_pair(f->get("value"), f->get("save"));
}

class call_ctx;

// The calls of one run of an entrypoint's task (its own and those of the tasks it calls), and
// what its thread saved of them before: the results of calls that finished, the resume values
// of calls that interrupted, and the answers of this resume meant for them.
class call_registry {
 public:
  explicit call_registry(detail::task_context& root) : root_(root) {
    // The run's max_concurrency holds for the calls the entrypoint makes (as LangGraph's
    // executor semaphore); calls made by calls are not held back, so a call waiting on the
    // calls it made never waits for its own place.
    const value& mc = root.config().get("max_concurrency");
    if (mc.is_int() && mc.as_int() > 0) gate_.emplace(static_cast<std::size_t>(mc.as_int()));
  }
  ~call_registry() { join_all(); }

  // Reads what the entrypoint's checkpoint holds of earlier runs of this step and takes the
  // answers meant for interrupted calls out of the entrypoint task's resume values.
  void load_saved();

  future start(const task& t, value input, const std::string& parent_id, std::uint64_t index);

  // Waits for every call started (a call may start more while we wait).
  void join_all() noexcept {
    for (;;) {
      std::vector<std::thread> threads;
      {
        std::lock_guard lock(m_);
        threads.swap(threads_);
      }
      if (threads.empty()) return;
      for (auto& th : threads) th.join();
    }
  }

  // As LangGraph's runner at the end of a step: a call whose error or interrupt nobody asked
  // for fails (or interrupts) the entrypoint, the first in call order.
  void rethrow_unretrieved() {
    std::vector<std::shared_ptr<future::state>> calls;
    {
      std::lock_guard lock(m_);
      calls = calls_;
    }
    for (const auto& c : calls) {
      std::lock_guard lock(c->m);
      if (c->failure && !c->retrieved && !c->cancelled) {
        c->retrieved = true;
        std::rethrow_exception(c->failure);
      }
    }
  }

  detail::task_context& root() noexcept { return root_; }
  const detail::run_shared& run() const noexcept { return root_.run(); }

 private:
  void run_call(const task& t, value input, std::shared_ptr<future::state> st, list resume,
                const std::optional<std::string>& cache_key);
  void save(const std::string& id, const std::string& name,
            std::vector<std::pair<std::string, value>> writes);
  checkpoint_config saved_at() const;

  detail::task_context& root_;
  std::mutex m_;
  std::vector<std::thread> threads_;
  std::vector<std::shared_ptr<future::state>> calls_;     // in call order
  std::unordered_map<std::string, value> saved_results_;  // call id -> its __return__
  std::unordered_map<std::string, list> saved_resume_;    // call id -> its resume values
  std::unordered_map<std::string, list> answers_;         // interrupt id -> new answers
  std::optional<detail::task_gate> gate_;                 // max_concurrency of the calls
};

// The context of the entrypoint's function or of one task call. A call runs on a task
// context of its own (a PUSH task with the call's id and name), so its interrupts, subgraphs
// and namespace are those of the call.
class call_ctx final : public call_context {
 public:
  // The entrypoint's own.
  call_ctx(call_registry& reg, detail::task_context& inner, value previous)
      : reg_(reg), inner_(&inner), previous_(std::move(previous)) {}
  // A task call's.
  call_ctx(call_registry& reg, std::string id, std::string name, list resume, std::stop_token stop)
      : reg_(reg), stop_(std::move(stop)) {
    own_task_.id = std::move(id);
    own_task_.name = std::move(name);
    own_task_.push = true;
    own_task_.set_resume(std::move(resume));
    own_ctx_.emplace(reg.run(), own_task_, reg.root().step(), no_channels_);
    inner_ = &*own_ctx_;
  }

  const value& config() const noexcept override { return inner_->config(); }
  std::string_view node() const noexcept override { return inner_->node(); }
  std::string_view task_id() const noexcept override { return inner_->task_id(); }
  std::int64_t step() const noexcept override { return inner_->step(); }
  std::int64_t remaining_steps() const noexcept override { return inner_->remaining_steps(); }
  std::string_view checkpoint_ns() const noexcept override { return inner_->checkpoint_ns(); }
  std::string_view checkpoint_id() const noexcept override { return inner_->checkpoint_id(); }
  value interrupt(value v) override { return inner_->interrupt(std::move(v)); }
  void emit_custom(value data) override { inner_->emit_custom(std::move(data)); }
  void emit_message(value chunk) override { inner_->emit_message(std::move(chunk)); }
  void emit_tool_event(value event) override { inner_->emit_tool_event(std::move(event)); }
  bool streams(stream_mode m) const noexcept override { return inner_->streams(m); }
  bool message_events() const noexcept override { return inner_->message_events(); }
  void emit_message_event(value event, std::string_view call_id) override {
    inner_->emit_message_event(std::move(event), call_id);
  }
  void note_message_seen(std::string_view id) override { inner_->note_message_seen(id); }
  storage::store* store() const noexcept override { return inner_->store(); }
  std::int64_t node_attempt() const noexcept override { return inner_->node_attempt(); }
  double node_first_attempt_time() const noexcept override {
    return inner_->node_first_attempt_time();
  }
  void heartbeat() noexcept override { inner_->heartbeat(); }
  void check_timeout() const override { inner_->check_timeout(); }
  const value& previous() const noexcept override { return previous_; }
  std::shared_ptr<run_control> control() const noexcept override { return inner_->control(); }
  // A call's own (cancelled by its caller, or with the run); the entrypoint's: its task's.
  std::stop_token stop_token() const noexcept override {
    return own_ctx_ ? stop_ : inner_->stop_token();
  }
  void check_cancelled() const override {
    if (stop_token().stop_requested())
      throw error(error_code::cancelled, "task call '" + std::string(inner_->node()) + "' (" +
                                             std::string(inner_->task_id()) + ") was cancelled");
  }

  future call(const task& t, value input) override {
    const std::uint64_t index = calls_.fetch_add(1);
    return reg_.start(t, std::move(input), std::string(inner_->task_id()), index);
  }

  value invoke(const pregel& graph, const value& input) override {
    return graph.run_nested(input, *inner_);
  }

  // Starts an attempt of a task call under the task's timeout (null: none).
  void start_attempt(const timeout_policy* timeout) noexcept {
    if (!own_ctx_) return;
    own_ctx_->reset_attempt();
    own_ctx_->start_clock(timeout);
  }
  const list& resume() const noexcept { return own_task_.rare->resume; }

 private:
  call_registry& reg_;
  detail::task_context* inner_ = nullptr;
  value previous_;
  std::stop_token stop_;
  pregel_task own_task_;
  algo::channel_map no_channels_;
  std::optional<detail::task_context> own_ctx_;
  std::atomic<std::uint64_t> calls_{0};
};

checkpoint_config call_registry::saved_at() const {
  checkpoint_config cfg = detail::checkpoint_config_of(run().config, false);
  cfg.checkpoint_ns = run().checkpoint_ns;
  cfg.checkpoint_id = run().checkpoint_id;
  return cfg;
}

void call_registry::load_saved() {
  const detail::run_shared& r = run();
  // Also on a run that does not resume: a retried entrypoint finds the calls of its earlier
  // attempts there.
  if (!r.saver || r.checkpoint_id.empty()) return;
  checkpoint_config cfg = saved_at();
  if (cfg.thread_id.empty()) return;
  auto tuple = r.saver->get_tuple(cfg);
  if (!tuple) return;
  const std::string own_id(root_.task_id());
  std::vector<std::string> pending;  // the interrupt ids the entrypoint task stopped at
  std::size_t own_resumes = 0;       // the resume values it had then
  for (const auto& w : tuple->pending_writes) {
    if (w.task_id == own_id) {
      if (w.channel == INTERRUPT)
        for (const auto& i : w.v.is_list() ? w.v.as_list() : list{w.v})
          if (i.get("id").is_string()) pending.push_back(i.get("id").as_string());
      if (w.channel == RESUME && w.v.is_list()) own_resumes = w.v.as_list().size();
    } else if (w.channel == RETURN) {
      saved_results_[w.task_id] = w.v;
    } else if (w.channel == RESUME && w.v.is_list()) {
      saved_resume_[w.task_id] = w.v.as_list();
    }
  }
  // The run loop answered the entrypoint task's pending interrupts by appending to its resume
  // values. An interrupt a call raised reached the entrypoint through the call's future: its
  // answer belongs to that call, not to the entrypoint's own interrupt() calls.
  list& resume = root_.resume_values();
  if (resume.size() <= own_resumes || pending.empty()) return;
  const std::string own_interrupt = detail::interrupt_id(r.checkpoint_ns, own_id);
  list kept(resume.begin(), resume.begin() + static_cast<std::ptrdiff_t>(own_resumes));
  for (std::size_t i = own_resumes, p = 0; i < resume.size(); ++i, ++p) {
    if (p < pending.size() && pending[p] != own_interrupt)
      answers_[pending[p]].push_back(resume[i]);
    else
      kept.push_back(resume[i]);
  }
  resume = std::move(kept);
}

void call_registry::save(const std::string& id, const std::string& name,
                         std::vector<std::pair<std::string, value>> writes) {
  checkpoint_saver* saver = run().saver;
  if (!saver || run().checkpoint_id.empty()) return;
  checkpoint_config cfg = saved_at();
  if (cfg.thread_id.empty()) return;
  saver->put_writes(cfg, writes, id, std::string(PUSH) + "," + name);
}

future call_registry::start(const task& t, value input, const std::string& parent_id,
                            std::uint64_t index) {
  const detail::run_shared& r = run();
  auto st = std::make_shared<future::state>();
  st->id = superstep::task_id(r.checkpoint_id, r.checkpoint_ns, root_.step(), t.name(),
                              std::string(PUSH), parent_id + "|" + std::to_string(index));
  st->name = t.name();
  // A saved result: the call finished before the entrypoint was interrupted.
  std::optional<value> restored;
  {
    std::lock_guard lock(m_);
    if (auto done = saved_results_.find(st->id); done != saved_results_.end())
      restored = done->second;
  }
  // As LangGraph, a call restored from its saved result is shown as a task too.
  if (r.wants(stream_mode::debug))
    r.emit(stream_mode::debug, object{{"type", "task"},
                                      {"timestamp", now_iso8601()},
                                      {"step", root_.step()},
                                      {"payload", object{{"id", st->id},
                                                         {"name", t.name()},
                                                         {"input", input},
                                                         {"triggers", list{std::string(PUSH)}}}}});
  if (restored) {  // its saved result, not a new run
    st->finish(std::move(*restored), nullptr);
    return future(st);
  }
  // Else the cache, for a task with a cache policy (LangGraph's match_cached_writes after
  // accepting a call): a hit does not run, and its update is marked cached.
  std::optional<std::string> cache_key;
  if (t.options().cache && r.cache) {
    cache_key = t.options().cache->key(input);
    if (auto hit = r.cache->get(detail::cache_namespace_of(t.name()), *cache_key)) {
      value out;
      for (auto& [channel, v] : *hit)
        if (channel == RETURN) out = std::move(v);
      if (r.wants(stream_mode::updates))
        r.emit(stream_mode::updates,
               object{{t.name(), out}, {"__metadata__", object{{"cached", true}}}});
      st->finish(std::move(out), nullptr);
      return future(st);
    }
  }
  list resume;
  {
    std::lock_guard lock(m_);
    if (auto s = saved_resume_.find(st->id); s != saved_resume_.end()) resume = s->second;
    if (auto a = answers_.find(detail::interrupt_id(r.checkpoint_ns, st->id)); a != answers_.end())
      resume.insert(resume.end(), a->second.begin(), a->second.end());
  }
  // Cancelling the run cancels its calls (future::cancel): their callers stop waiting.
  if (std::stop_token run_stop = root_.stop_token(); run_stop.stop_possible())
    st->with_run.emplace(std::move(run_stop),
                         std::function<void()>([raw = st.get()] { (void)raw->cancel(); }));
  const bool gated = gate_ && parent_id == root_.task_id();
  std::lock_guard lock(m_);
  calls_.push_back(st);
  threads_.emplace_back([this, t, input = std::move(input), st, resume = std::move(resume),
                         cache_key = std::move(cache_key), gated]() mutable {
    try {
      auto place = gated ? gate_->enter(st->stop.get_token()) : detail::task_gate::place();
      run_call(t, std::move(input), st, std::move(resume), cache_key);
    } catch (...) {  // nothing may leave a thread; the caller sees it as the call's error
      st->finish(value(), std::current_exception());
    }
  });
  return future(st);
}

void call_registry::run_call(const task& t, value input, std::shared_ptr<future::state> st,
                             list resume, const std::optional<std::string>& cache_key) {
  call_ctx ctx(*this, st->id, t.name(), std::move(resume), st->stop.get_token());
  const auto& retry = t.options().retry;
  const std::int64_t attempts = retry ? std::max<std::int64_t>(1, retry->max_attempts) : 1;
  std::exception_ptr failure;
  for (std::int64_t n = 1;; ++n) {
    // A call cancelled before an attempt starts does not run it (asyncio's cancel).
    if (st->stop.stop_requested()) return;
    try {
      ctx.start_attempt(t.options().timeout ? &*t.options().timeout : nullptr);
      value out = t.function()(input, ctx);
      // A call that returns past its timeout still timed out, as a node (run_task).
      ctx.check_timeout();
      // Cancelled: what it returned is dropped, nothing of it saved, cached or streamed.
      if (!st->begin_finish()) return;
      save(st->id, t.name(), {{std::string(RETURN), out}});
      const detail::run_shared& r = run();
      if (cache_key)
        r.cache->set(detail::cache_namespace_of(t.name()), *cache_key, {{std::string(RETURN), out}},
                     t.options().cache->ttl);
      if (r.wants(stream_mode::updates)) r.emit(stream_mode::updates, object{{t.name(), out}});
      if (r.wants(stream_mode::debug))
        r.emit(stream_mode::debug,
               object{{"type", "task_result"},
                      {"timestamp", now_iso8601()},
                      {"step", root_.step()},
                      {"payload", object{{"id", st->id},
                                         {"name", t.name()},
                                         {"error", value()},
                                         {"result", object{{std::string(RETURN), out}}},
                                         {"interrupts", list{}}}}});
      if (r.hooks) r.hooks->finished(t.name());
      st->finish(std::move(out), nullptr);
      return;
    } catch (const error& e) {
      failure = std::current_exception();
      if (st->stop.stop_requested()) return;  // cancelled: its error, or interrupt, is dropped
      if (e.code() == error_code::interrupted) {
        // The call waits for an answer: the values it was given so far are kept, so its next
        // run answers the same interrupt() calls the same way. The interrupt itself reaches
        // the entrypoint through this future, and is saved there.
        if (!ctx.resume().empty()) try {
            save(st->id, t.name(), {{std::string(RESUME), value(ctx.resume())}});
          } catch (...) {
            failure = std::current_exception();
          }
        break;
      }
      const bool again =
          n < attempts && e.code() != error_code::parent_command && should_retry_on(*retry, e);
      if (!again) break;
    } catch (const std::exception& e) {
      if (st->stop.stop_requested()) return;
      failure = std::make_exception_ptr(error(error_code::node_error, e.what()));
      const bool again = n < attempts && (!retry->retry_on ||
                                          retry->retry_on(error(error_code::node_error, e.what())));
      if (!again) break;
    } catch (...) {
      failure = std::make_exception_ptr(error(error_code::node_error, "unknown exception"));
      break;
    }
    double ms = retry->initial_interval_ms * std::pow(retry->backoff, static_cast<double>(n - 1));
    // The back-off ends early when the call is cancelled (the next attempt then does not run).
    std::mutex m;
    std::condition_variable_any backoff;
    std::unique_lock lock(m);
    backoff.wait_for(
        lock, st->stop.get_token(),
        std::chrono::duration<double, std::milli>(std::min(ms, retry->max_interval_ms)),
        [] { return false; });
  }
  st->finish(value(), failure);
}

}  // namespace

task::task(std::string name, call_function fn, task_options options)
    : name_(std::move(name)), fn_(std::move(fn)), options_(std::move(options)) {
  if (name_.empty()) throw error(error_code::invalid_argument, "a task needs a name");
  if (reserved_name(name_))
    throw error(error_code::invalid_argument,
                "task name '" + name_ + "' is reserved (names starting with __)");
  if (!fn_) throw error(error_code::invalid_argument, "task '" + name_ + "' has no function");
  if (const auto& t = options_.timeout)
    if (std::string problem = t->problem(); !problem.empty())
      throw error(error_code::invalid_argument, "task '" + name_ + "': " + problem);
}

void task::clear_cache(node_cache& cache) const {
  const std::vector<node_cache::cache_namespace> namespaces{detail::cache_namespace_of(name_)};
  cache.clear(&namespaces);
}

value final(value returned, value save) {
  return object{
      {std::string(final_key), object{{"value", std::move(returned)}, {"save", std::move(save)}}}};
}

std::shared_ptr<pregel> entrypoint(entrypoint_options options, call_function fn) {
  if (options.name.empty()) throw error(error_code::invalid_argument, "an entrypoint needs a name");
  if (reserved_name(options.name))
    throw error(error_code::invalid_argument,
                "entrypoint name '" + options.name + "' is reserved (names starting with __)");
  if (!fn)
    throw error(error_code::invalid_argument, "entrypoint '" + options.name + "' has no function");
  pregel_graph g;
  g.name = options.name;
  // Titled as LangGraph's entrypoint graph, which keeps Pregel's default name.
  auto titled = [&](const value& schema, const char* what, const char* title) {
    if (std::string problem = key_schema{schema}.problem(); !problem.empty())
      throw error(error_code::invalid_argument,
                  "entrypoint '" + options.name + "': its " + what + " schema: " + problem);
    object out = schema.is_object() ? schema.as_object() : object{};
    out.set("title", title);
    return sort_json_schema(value(std::move(out)));
  };
  g.input_schema = titled(options.input_schema, "input", "LangGraphInput");
  g.output_schema = titled(options.output_schema, "output", "LangGraphOutput");
  g.channels[std::string(START)] = std::make_shared<channels::ephemeral_value>(std::string(START));
  g.channels[std::string(END)] = std::make_shared<channels::last_value>(std::string(END));
  g.channels[std::string(PREVIOUS)] = std::make_shared<channels::last_value>(std::string(PREVIOUS));
  g.input_channels = {std::string(START)};
  g.input_single = true;
  g.output_channels = {std::string(END)};
  g.output_single = true;
  // As LangGraph's stream_channels=END: updates and snapshots show the return value itself.
  g.state_channels = {std::string(END)};
  g.state_single = true;

  pregel_node n;
  n.name = options.name;
  n.triggers = {std::string(START)};
  // As LangGraph's entrypoint node: its input is the value given to the run (its task shows
  // it as such); `previous` is read beside it, not part of it.
  n.reads = {std::string(START)};
  n.single_read = true;
  n.fresh_reads = {std::string(PREVIOUS)};
  n.retry = options.retry;
  n.cache = std::move(options.cache_policy);
  n.timeout = options.timeout;
  n.fn = [fn = std::move(fn)](const value& in, node_context& ctx) -> value {
    auto* tc = dynamic_cast<detail::task_context*>(&ctx);
    if (!tc) throw error(error_code::internal, "an entrypoint runs only in the runtime");
    call_registry reg(*tc);
    reg.load_saved();
    call_ctx root(reg, *tc, tc->fresh_read(std::string(PREVIOUS)).value_or(value()));
    value out;
    try {
      out = fn(in, root);
    } catch (...) {
      reg.join_all();
      throw;
    }
    reg.join_all();  // the step ends when every call it made has (LangGraph's runner)
    reg.rethrow_unretrieved();
    return out;
  };
  // The return value is the output, the save value what `previous` gives the next run.
  n.writers.push_back([](const value& out, write_scope& s) {
    if (auto f = as_final(out)) {
      s.write(std::string(END), f->first);
      s.write(std::string(PREVIOUS), f->second);
      return;
    }
    s.write(std::string(END), out);
    s.write(std::string(PREVIOUS), out);
  });
  g.nodes.push_back(std::move(n));
  return std::make_shared<pregel>(std::move(g), std::move(options.runtime));
}

}  // namespace superstep::functional
