#pragma once

// Helpers of the stream_v3_* suites (LangGraph's v3 event streaming tests): protocol events
// made by hand, the graphs the LangGraph tests share, a pass-through transformer, and a
// source of ready-made stream events.

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "conformance.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/pregel.hpp"
#include "superstep/stream/graph_run_stream.hpp"
#include "superstep/stream/stream_mux.hpp"
#include "superstep/stream/stream_transformers.hpp"

namespace superstep::conformance {

/// A protocol event as LangGraph's tests make them (`_event`).
inline protocol_event pevent(std::string method, value data = object{},
                             std::vector<std::string> ns = {},
                             std::optional<list> interrupts = std::nullopt) {
  protocol_event e;
  e.method = std::move(method);
  e.params.ns = std::move(ns);
  e.params.timestamp = protocol_timestamp_now();
  e.params.data = std::move(data);
  e.params.interrupts = std::move(interrupts);
  return e;
}

/// An exception_ptr to a std::runtime_error (LangGraph's ValueError / RuntimeError).
inline std::exception_ptr failure(const std::string& what) {
  return std::make_exception_ptr(std::runtime_error(what));
}

/// Whether calling `f` throws an exception whose what() contains `needle`.
template <class F>
bool throws_with(F&& f, const std::string& needle) {
  try {
    f();
  } catch (const std::exception& e) {
    if (std::string(e.what()).find(needle) != std::string::npos) return true;
    BOOST_TEST_MESSAGE("threw '" << e.what() << "', expected '" << needle << "'");
    return false;
  }
  return false;
}

/// The error code `f` throws (error_code::none when it throws none or no superstep::error).
template <class F>
error_code code_of(F&& f) {
  try {
    f();
  } catch (const error& e) {
    return e.code();
  } catch (...) {
  }
  return error_code::none;
}

/// Drains a channel (cursor) into a vector.
template <class T>
std::vector<T> drain(stream_cursor<T> c) {
  std::vector<T> out;
  while (auto item = c.next()) out.push_back(std::move(*item));
  return out;
}
template <class T>
std::vector<T> drain(stream_channel<T>& ch) {
  return drain(ch.cursor());
}

/// LangGraph's SimpleState: value (last value), items (added).
inline state_graph simple_state() {
  state_graph b;
  b.add_key("value");
  b.add_key("items", "add");
  return b;
}

inline node_function append_node(std::string suffix, std::string item) {
  return [suffix, item](const value& st, node_context&) -> value {
    return object{{"value", st.get("value").as_string() + suffix}, {"items", value::array({item})}};
  };
}

/// `_build_simple_graph`: node_a appends `a` to "value" and "a" to "items", node_b `b` and
/// "b" ("A"/"B" in test_pregel_stream_events_v3.py, "_a"/"_b" in test_stream_events_v3.py).
inline std::shared_ptr<pregel> simple_graph(std::string a = "A", std::string b = "B") {
  state_graph g = simple_state();
  g.add_node("node_a", append_node(std::move(a), "a"));
  g.add_node("node_b", append_node(std::move(b), "b"));
  g.add_edge("__start__", "node_a");
  g.add_edge("node_a", "node_b");
  g.add_edge("node_b", "__end__");
  return g.compile(opts());
}

/// `_build_interrupt_graph`: node_b interrupts ("need approval"); with a checkpointer.
inline std::shared_ptr<pregel> interrupt_graph() {
  state_graph g = simple_state();
  g.add_node("node_a", append_node("A", "a"));
  g.add_node("node_b", [](const value& st, node_context& ctx) -> value {
    ctx.interrupt("need approval");
    return object{{"value", st.get("value").as_string() + "B"}, {"items", value::array({"b"})}};
  });
  g.add_edge("__start__", "node_a");
  g.add_edge("node_a", "node_b");
  g.add_edge("node_b", "__end__");
  return g.compile(opts_with_saver());
}

/// `_build_error_graph`: node_b raises "boom".
inline std::shared_ptr<pregel> error_graph() {
  state_graph g = simple_state();
  g.add_node("node_a", append_node("A", "a"));
  g.add_node("node_b",
             [](const value&, node_context&) -> value { throw std::invalid_argument("boom"); });
  g.add_edge("__start__", "node_a");
  g.add_edge("node_a", "node_b");
  g.add_edge("node_b", "__end__");
  return g.compile(opts());
}

/// `_build_custom_stream_graph`: node_a writes {"step": "start"} and {"step": "end"} to the
/// custom stream.
inline std::shared_ptr<pregel> custom_stream_graph() {
  state_graph g = simple_state();
  g.add_node("node_a", [](const value& st, node_context& ctx) -> value {
    ctx.emit_custom(object{{"step", "start"}});
    ctx.emit_custom(object{{"step", "end"}});
    return object{{"value", st.get("value").as_string() + "A"}, {"items", value::array({"a"})}};
  });
  g.add_edge("__start__", "node_a");
  g.add_edge("node_a", "__end__");
  return g.compile(opts());
}

/// The input {"value": "x", "items": []}.
inline value simple_input() { return object{{"value", "x"}, {"items", list{}}}; }

/// `_CustomPassthroughTransformer`: asks for the custom mode, projects nothing.
class custom_passthrough : public stream_transformer {
 public:
  using stream_transformer::stream_transformer;
  stream_projections init() override { return {}; }
  bool process(protocol_event&) override { return true; }
  std::vector<stream_mode> required_stream_modes() const override { return {stream_mode::custom}; }
};

/// A transformer with no projection that keeps every event (overridable hooks for tests).
class plain_transformer : public stream_transformer {
 public:
  using stream_transformer::stream_transformer;
  stream_projections init() override { return {}; }
  bool process(protocol_event&) override { return true; }
};

/// Stream events given up front (LangGraph's tests pass `iter([...])` as the graph iterator).
class vector_source : public stream_event_source {
 public:
  explicit vector_source(std::vector<stream_event> events) : events_(std::move(events)) {}
  std::optional<stream_event> next() override {
    if (i_ == events_.size()) return std::nullopt;
    return events_[i_++];
  }

 private:
  std::vector<stream_event> events_;
  std::size_t i_ = 0;
};

}  // namespace superstep::conformance
