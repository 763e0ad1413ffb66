// LangGraph's v3 event streaming: protocol events, stream channels' stamps, the mux
// (langgraph/stream/_convert.py, stream_channel.py, _mux.py).
#include "superstep/stream/stream_mux.hpp"


#include <chrono>
#include <cstdlib>
#include <memory>
#include <typeinfo>

#include "superstep/checkpoint/constants.hpp"

namespace superstep {

std::int64_t protocol_timestamp_now() noexcept {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

protocol_event to_protocol_event(const stream_event& e) {
  protocol_event ev;
  ev.method = std::string(stream_mode_name(e.mode));
  ev.params.ns = e.ns;
  ev.params.timestamp = protocol_timestamp_now();
  ev.params.data = e.data;
  if (e.mode == stream_mode::values && e.data.is_object()) {
    if (const value* ints = e.data.find(INTERRUPT)) {
      ev.params.interrupts = ints->is_list() ? ints->as_list() : list{*ints};
      object rest = e.data.as_object();
      rest.erase(INTERRUPT);
      ev.params.data = value(std::move(rest));
    }
  }
  return ev;
}

std::uint64_t stream_channel_base::next_stamp() noexcept {
  return mux_ ? mux_->next_push_stamp() : 0;
}

std::string stream_transformer::name() const {
  return type_name(typeid(*this));
}

stream_mux::stream_mux(std::vector<transformer_factory> factories, std::vector<std::string> scope,
                       std::vector<std::shared_ptr<stream_transformer>> transformers,
                       bool assign_seq)
    : scope_(std::move(scope)), assign_seq_(assign_seq), factories_(std::move(factories)) {
  events_.bind_mux(this);
  // Each group in two lanes: before_builtins first, the given order within a lane.
  const auto register_lanes = [this](std::vector<std::shared_ptr<stream_transformer>> ts) {
    for (const auto& t : ts)
      if (t->before_builtins()) register_transformer(t);
    for (const auto& t : ts)
      if (!t->before_builtins()) register_transformer(t);
  };
  std::vector<std::shared_ptr<stream_transformer>> made;
  made.reserve(factories_.size());
  for (std::size_t i = 0; i < factories_.size(); ++i) {
    if (!factories_[i])
      throw error(error_code::invalid_argument,
                  "stream transformer factory #" + std::to_string(i) + " is empty");
    auto t = factories_[i](scope_);
    if (!t)
      throw error(error_code::invalid_argument,
                  "stream transformer factory #" + std::to_string(i) + " made no transformer");
    made.push_back(std::move(t));
  }
  register_lanes(std::move(made));
  for (std::size_t i = 0; i < transformers.size(); ++i)
    if (!transformers[i])
      throw error(error_code::invalid_argument,
                  "stream transformer #" + std::to_string(i) + " is null");
  register_lanes(std::move(transformers));
}

void stream_mux::register_transformer(std::shared_ptr<stream_transformer> t) {
  stream_projections projection = t->init();
  std::string conflicts;
  for (const auto& [key, p] : projection) {
    if (!p)
      throw error(error_code::invalid_argument,
                  "stream transformer " + t->name() + " returned a null projection '" + key + "'");
    if (auto it = owners_.find(key); it != owners_.end())
      conflicts +=
          (conflicts.empty() ? "'" : ", '") + key + "' (owned by " + it->second->name() + ")";
  }
  if (!conflicts.empty())
    throw error(
        error_code::invalid_argument,
        "stream transformer " + t->name() +
            " returned projection keys that conflict with already-registered keys: " + conflicts);
  const bool native = t->native();
  for (const auto& [key, p] : projection) {
    auto* ch = dynamic_cast<stream_channel_base*>(p.get());
    if (!ch || !ch->name()) continue;
    if (!ch->forwards_values())
      throw error(error_code::invalid_argument,
                  "stream transformer " + t->name() + ": the named channel '" + *ch->name() +
                      "' of projection '" + key +
                      "' carries items that are not values, so it cannot be forwarded");
  }
  transformers_.push_back(t);
  for (const auto& [key, p] : projection) {
    if (auto* ch = dynamic_cast<stream_channel_base*>(p.get())) {
      ch->bind_mux(this);
      if (pump_) ch->set_pump(pump_);
      channels_.push_back(ch);
      if (ch->name()) {
        std::string method = native ? *ch->name() : "custom:" + *ch->name();
        ch->wire([this, method = std::move(method)](const value& item) { forward(method, item); });
      }
    }
    owners_.emplace(key, t.get());
    extensions_.emplace(key, p);
    if (native) native_keys_.insert(key);
  }
  t->on_register(*this);
}

stream_transformer* stream_mux::transformer_by_key(const std::string& key) const {
  auto it = owners_.find(key);
  return it == owners_.end() ? nullptr : it->second;
}

std::vector<stream_mode> stream_mux::required_stream_modes() const {
  std::set<stream_mode> modes;
  for (const auto& t : transformers_)
    for (stream_mode m : t->required_stream_modes()) modes.insert(m);
  return {modes.begin(), modes.end()};
}

void stream_mux::push(protocol_event event) {
  bool keep = true;
  for (const auto& t : transformers_)
    if (!t->process(event)) keep = false;
  if (!keep) return;
  // Numbered as it enters the log: events forwarded while processing it come first.
  if (assign_seq_) event.seq = ++seq_;
  events_.push(std::move(event));
}

void stream_mux::forward(const std::string& method, const value& item) {
  protocol_event ev;
  ev.method = method;
  ev.params.timestamp = protocol_timestamp_now();
  ev.params.data = item;
  if (assign_seq_) ev.seq = ++seq_;
  events_.push(std::move(ev));
}

void stream_mux::close() {
  std::exception_ptr first;
  for (const auto& t : transformers_) {
    try {
      t->finalize();
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  for (auto* ch : channels_)
    if (!ch->closed()) ch->close();
  events_.close();
  if (first) std::rethrow_exception(first);
}

void stream_mux::fail(const std::exception_ptr& err) {
  for (const auto& t : transformers_) {
    try {
      t->fail(err);
    } catch (...) {  // NOLINT(bugprone-empty-catch): the run's own error is the one told
    }
  }
  for (auto* ch : channels_)
    if (!ch->closed()) ch->fail(err);
  events_.fail(err);
}

void stream_mux::bind_pump(std::function<bool()> pump) {
  pump_ = std::move(pump);
  events_.set_pump(pump_);
  for (auto* ch : channels_) ch->set_pump(pump_);
}

std::unique_ptr<stream_mux> stream_mux::make_child(std::vector<std::string> scope) const {
  if (factories_.empty())
    throw error(error_code::invalid_argument,
                "stream_mux::make_child needs a mux built with transformer factories: pre-built "
                "transformers cannot be cloned to a new scope");
  auto child = std::make_unique<stream_mux>(
      factories_, std::move(scope), std::vector<std::shared_ptr<stream_transformer>>{}, false);
  if (pump_) child->bind_pump(pump_);
  return child;
}

}  // namespace superstep
