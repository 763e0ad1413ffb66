// LangGraph's v3 run streams (langgraph/stream/run_stream.py) and pregel::stream_events
// (Pregel.stream_events(version="v3")): the design is told in graph_run_stream.hpp.
#include "superstep/stream/graph_run_stream.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <ostream>
#include <thread>

#include "superstep/pregel/pregel.hpp"
#include "superstep/pregel/run_control.hpp"
#include "superstep/stream/stream_transformers.hpp"

namespace superstep {

// ---- run_stream ----

run_stream::run_stream(std::unique_ptr<stream_mux> mux) : mux_(std::move(mux)) {}

void run_stream::observe_event(const protocol_event& event) {
  if (event.method != "values" || event.params.ns != mux_->scope()) return;
  latest_ = event.params.data;
  if (event.params.interrupts && !event.params.interrupts->empty()) {
    interrupted_ = true;
    interrupts_.insert(interrupts_.end(), event.params.interrupts->begin(),
                       event.params.interrupts->end());
  }
}

void run_stream::drive_until_done() {
  while (pump_next()) {
  }
}

value run_stream::output() {
  drive_until_done();
  if (const auto& err = mux_->events().error()) std::rethrow_exception(err);
  return latest_;
}

bool run_stream::interrupted() {
  drive_until_done();
  if (const auto& err = mux_->events().error()) std::rethrow_exception(err);
  return interrupted_;
}

const list& run_stream::interrupts() {
  drive_until_done();
  if (const auto& err = mux_->events().error()) std::rethrow_exception(err);
  return interrupts_;
}

interleaved_stream run_stream::interleave(const std::vector<std::string>& names) {
  std::vector<interleaved_stream::source> channels;
  // Check them all before taking any subscription, so a bad name leaves none taken.
  for (const auto& n : names) {
    interleaved_stream::source src{n, nullptr, nullptr, nullptr};
    auto it = mux_->extensions().find(n);
    if (it == mux_->extensions().end())
      throw error(error_code::not_found, "no projection '" + n + "' in the run stream");
    if (auto* ch = dynamic_cast<stream_channel<value>*>(it->second.get())) {
      src.channel = ch;
      src.front_stamp = [ch] { return ch->front_stamp(); };
      src.pop_front = [ch] { return interleaved_value(ch->pop_front()); };
    } else if (auto* ms = dynamic_cast<stream_channel<std::shared_ptr<chat_model_stream>>*>(
                   it->second.get())) {
      src.channel = ms;
      src.front_stamp = [ms] { return ms->front_stamp(); };
      src.pop_front = [ms] { return interleaved_value(ms->pop_front()); };
    } else {
      throw error(error_code::type_error,
                  "projection '" + n +
                      "' is not of the type asked for (interleave takes "
                      "stream_channel<value> projections and the messages projection)");
    }
    if (src.channel->subscribed())
      throw error(error_code::invalid_argument,
                  "stream_channel '" + n + "' already has a subscriber; use tee(n) for fan-out");
    for (const auto& seen : channels)
      if (seen.name == n)
        throw error(error_code::invalid_argument, "interleave() names '" + n + "' twice");
    channels.push_back(std::move(src));
  }
  for (auto& src : channels) src.channel->subscribe();
  return interleaved_stream(std::move(channels), mux_->pump());
}

// ---- interleaved_stream ----

interleaved_stream::interleaved_stream(std::vector<source> channels, std::function<bool()> pump)
    : channels_(std::move(channels)), done_(channels_.size(), false), pump_(std::move(pump)) {}

interleaved_stream::interleaved_stream(interleaved_stream&& other) noexcept
    : channels_(std::move(other.channels_)),
      done_(std::move(other.done_)),
      pump_(std::move(other.pump_)) {
  other.channels_.clear();
}

interleaved_stream::~interleaved_stream() { release(); }

void interleaved_stream::release() noexcept {
  for (auto& src : channels_) src.channel->unsubscribe();
  channels_.clear();
}

std::optional<interleaved_stream::item> interleaved_stream::next() {
  // Ends a channel that is closed and empty; throws its error.
  const auto settle = [this](std::size_t i) {
    auto* ch = channels_[i].channel;
    if (done_[i] || !ch->closed() || ch->size() != 0) return;
    if (ch->error()) {
      std::exception_ptr err = ch->error();
      release();
      std::rethrow_exception(err);
    }
    done_[i] = true;
  };
  for (;;) {
    if (channels_.empty()) return std::nullopt;
    std::optional<std::size_t> best;
    std::uint64_t best_stamp = 0;
    std::size_t live = 0;
    for (std::size_t i = 0; i < channels_.size(); ++i) {
      settle(i);
      if (done_[i]) continue;
      ++live;
      if (auto stamp = channels_[i].front_stamp(); stamp && (!best || *stamp < best_stamp)) {
        best = i;
        best_stamp = *stamp;
      }
    }
    if (best) return item{channels_[*best].name, channels_[*best].pop_front()};
    if (live == 0 || !pump_ || !pump_()) {
      // The run has nothing more: end the channels that ended; the others never will.
      for (std::size_t i = 0; i < channels_.size(); ++i) settle(i);
      bool any_buffered = false;
      for (auto& src : channels_) any_buffered |= src.channel->size() != 0;
      if (!any_buffered) {
        release();
        return std::nullopt;
      }
    }
  }
}

// ---- graph_run_stream ----

graph_run_stream::graph_run_stream(std::unique_ptr<stream_mux> mux,
                                   std::unique_ptr<stream_event_source> source)
    : run_stream(std::move(mux)), source_(std::move(source)) {
  mux_->bind_pump([this] { return pump_next(); });
}

graph_run_stream::~graph_run_stream() { abort(); }

bool graph_run_stream::pump_next() {
  if (exhausted_ || !source_) return false;
  std::optional<stream_event> part;
  try {
    part = source_->next();
  } catch (...) {
    exhausted_ = true;
    mux_->fail(std::current_exception());
    return false;
  }
  if (!part) {
    exhausted_ = true;
    mux_->close();  // a transformer's finalize error reaches the reader
    return false;
  }
  try {
    protocol_event ev = to_protocol_event(*part);
    observe_event(ev);
    mux_->push(std::move(ev));
    return true;
  } catch (...) {
    // A transformer failed: the run stream fails with its error and the run stops.
    exhausted_ = true;
    source_->close();
    mux_->fail(std::current_exception());
    return false;
  }
}

void run_stream::abort() noexcept {
  if (exhausted_) return;
  exhausted_ = true;
  try {
    mux_->close();
  } catch (...) {  // NOLINT(bugprone-empty-catch): an aborted stream reports nothing
  }
}

void graph_run_stream::abort() noexcept {
  if (exhausted_) return;
  if (source_) source_->close();
  run_stream::abort();
}

// ---- subgraph_run_stream ----

std::string_view subgraph_status_name(subgraph_status s) noexcept {
  switch (s) {
    case subgraph_status::started: return "started";
    case subgraph_status::completed: return "completed";
    case subgraph_status::failed: return "failed";
    case subgraph_status::interrupted: return "interrupted";
    case subgraph_status::drained: return "drained";
  }
  return "?";
}

std::ostream& operator<<(std::ostream& os, subgraph_status s) {
  return os << subgraph_status_name(s);
}

subgraph_run_stream::subgraph_run_stream(std::unique_ptr<stream_mux> mux,
                                         std::vector<std::string> path,
                                         std::optional<std::string> graph_name,
                                         std::optional<std::string> trigger_call_id)
    : run_stream(std::move(mux)),
      path_(std::move(path)),
      graph_name_(std::move(graph_name)),
      trigger_call_id_(std::move(trigger_call_id)) {}

bool subgraph_run_stream::mark_terminal(subgraph_status s,
                                        const std::optional<std::string>& error) {
  if (seen_terminal_) return false;
  status_ = s;
  if (error && !error_) error_ = error;
  seen_terminal_ = true;
  return true;
}

bool subgraph_run_stream::pump_next() {
  // The child mux's pump is the root's: reading here drives the whole run.
  if (exhausted_ || seen_terminal_ || mux_->events().closed() || !mux_->pump()) return false;
  return mux_->pump()();
}

// ---- pregel::stream_events ----

namespace {

/// Runs a graph on a thread of its own, handing its events to the consumer one at a time.
class run_thread_source final : public stream_event_source {
 public:
  run_thread_source(std::shared_ptr<const pregel> graph, value input, value config,
                    stream_options options, std::vector<std::string> ns_prefix)
      : graph_(std::move(graph)),
        input_(std::move(input)),
        config_(std::move(config)),
        options_(std::move(options)),
        ns_prefix_(std::move(ns_prefix)) {
    if (!options_.control) options_.control = std::make_shared<run_control>();
  }
  ~run_thread_source() override { close(); }

  std::optional<stream_event> next() override {
    if (!started_) start();
    std::unique_lock lock(m_);
    cv_.wait(lock, [&] { return has_event_ || done_; });
    if (has_event_) {
      stream_event e = std::move(event_);
      has_event_ = false;
      cv_.notify_all();
      return e;
    }
    lock.unlock();
    if (thread_.joinable()) thread_.join();
    if (error_) std::rethrow_exception(error_);
    return std::nullopt;
  }

  void close() noexcept override {
    {
      std::lock_guard lock(m_);
      if (aborted_) return;
      // Asked before the sink lets go, so the run cannot take another step in between.
      options_.control->request_drain("the run stream was aborted");
      aborted_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void start() {
    started_ = true;
    thread_ = std::thread([this] {
      std::exception_ptr err;
      try {
        graph_->stream(input_, config_, options_, [this](const stream_event& e) { hand_over(e); });
      } catch (...) {
        err = std::current_exception();
      }
      std::lock_guard lock(m_);
      error_ = err;
      done_ = true;
      cv_.notify_all();
    });
  }

  // The run's sink: waits until the consumer took the last event (or aborted).
  void hand_over(const stream_event& e) {
    std::unique_lock lock(m_);
    cv_.wait(lock, [&] { return !has_event_ || aborted_; });
    if (aborted_) return;
    event_ = e;
    if (!ns_prefix_.empty())
      event_.ns.insert(event_.ns.begin(), ns_prefix_.begin(), ns_prefix_.end());
    has_event_ = true;
    cv_.notify_all();
  }

  std::shared_ptr<const pregel> graph_;
  value input_, config_;
  stream_options options_;
  std::vector<std::string> ns_prefix_;  // where the caller runs: prefixed to every namespace
  bool started_ = false;
  std::thread thread_;
  std::mutex m_;
  std::condition_variable cv_;
  stream_event event_;
  bool has_event_ = false;
  bool done_ = false;
  bool aborted_ = false;
  std::exception_ptr error_;
};

}  // namespace

std::unique_ptr<graph_run_stream> pregel::stream_events(
    const value& input, const value& config, const stream_options& options,
    std::vector<transformer_factory> transformers) const {
  if (!options.modes.empty() || options.subgraphs) {
    std::string owned = !options.modes.empty() && options.subgraphs ? "modes, subgraphs"
                        : options.subgraphs                         ? "subgraphs"
                                                                    : "modes";
    throw error(error_code::invalid_argument,
                "stream_events does not accept stream_options " + owned +
                    ": it owns them (the modes are the ones its transformers require, subgraphs "
                    "are always streamed so that nested namespaces reach their handles)");
  }
  if (!config.is_null() && !config.is_object())
    throw error(error_code::invalid_argument, "config must be an object");
  std::vector<transformer_factory> factories{
      factory_of<values_transformer>(), factory_of<messages_transformer>(),
      factory_of<lifecycle_transformer>(), factory_of<subgraph_transformer>()};
  for (std::size_t i = 0; i < transformers.size(); ++i) {
    if (!transformers[i])
      throw error(error_code::invalid_argument,
                  "stream_events: transformer factory #" + std::to_string(i) + " is empty");
    factories.push_back(std::move(transformers[i]));
  }
  // The namespace the caller runs in (LangGraph's _resolve_parent_ns): a node that streams
  // a graph with its own config scopes the projections to it. Our run reports namespaces from
  // itself down, so they are prefixed with it.
  std::vector<std::string> scope;
  if (const value& ns = config.get("configurable").get("checkpoint_ns");
      ns.is_string() && !ns.as_string().empty()) {
    const std::string& text = ns.as_string();
    for (std::size_t start = 0;;) {
      const std::size_t bar = text.find('|', start);
      scope.push_back(text.substr(start, bar == std::string::npos ? bar : bar - start));
      if (bar == std::string::npos) break;
      start = bar + 1;
    }
  }
  auto mux = std::make_unique<stream_mux>(std::move(factories), scope);
  stream_options run_options = options;
  run_options.modes = mux->required_stream_modes();
  run_options.subgraphs = true;
  for (stream_mode m : run_options.modes)
    if (m == stream_mode::messages) run_options.message_events = true;
  auto source = std::make_unique<run_thread_source>(shared_from_this(), input, config,
                                                    std::move(run_options), std::move(scope));
  return std::make_unique<graph_run_stream>(std::move(mux), std::move(source));
}

}  // namespace superstep
