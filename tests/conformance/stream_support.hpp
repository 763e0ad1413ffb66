#pragma once

// Helpers of the stream suites: a sink recording events, and gates that let a node wait for
// an event another task streams (instead of LangGraph's sleeps).

#include <chrono>
#include <functional>
#include <future>
#include <mutex>
#include <string>
#include <vector>

#include "conformance.hpp"

namespace superstep::conformance {

/// Opens once; waiters wait for it, at most a few seconds (then the test sees the wrong order).
class gate {
 public:
  void open() {
    std::call_once(once_, [this] { p_.set_value(); });
  }
  bool wait() const { return f_.wait_for(std::chrono::seconds(3)) == std::future_status::ready; }

 private:
  std::once_flag once_;
  std::promise<void> p_;
  std::shared_future<void> f_ = p_.get_future().share();
};

/// An event as text: "<ns> <json>", each namespace part cut after its ':' ("inner:"), and
/// "<mode> " in front when `with_mode`.
inline std::string event_text(const stream_event& e, bool with_mode = false) {
  std::string ns;
  for (const auto& part : e.ns) ns += (ns.empty() ? "" : "|") + part.substr(0, part.find(':') + 1);
  std::string out = with_mode ? std::string(stream_mode_name(e.mode)) + " " : "";
  return out + "(" + ns + ") " + e.data.to_json();
}

/// Records the events of runs as text; `on_event` (if set) sees each event after it.
struct recorder {
  std::mutex m;
  std::vector<stream_event> events;
  std::function<void(const stream_event&)> on_event;
  bool with_mode = false;

  stream_sink sink() {
    return [this](const stream_event& e) {
      {
        std::lock_guard lock(m);
        events.push_back(e);
      }
      if (on_event) on_event(e);
    };
  }
  std::vector<std::string> texts() {
    std::lock_guard lock(m);
    std::vector<std::string> out;
    for (const auto& e : events) out.push_back(event_text(e, with_mode));
    return out;
  }
  std::vector<std::string> take() {
    auto out = texts();
    std::lock_guard lock(m);
    events.clear();
    return out;
  }
};

/// Streams `input` on `graph` with `modes` and returns the events as text.
inline std::vector<std::string> stream_texts(const pregel& graph, const value& input,
                                             const value& config, std::vector<stream_mode> modes,
                                             bool subgraphs = false) {
  recorder r;
  stream_options so;
  so.modes = std::move(modes);
  so.subgraphs = subgraphs;
  graph.stream(input, config, so, r.sink());
  return r.texts();
}

}  // namespace superstep::conformance
