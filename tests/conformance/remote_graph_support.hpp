#pragma once

// A head for the remote_graph suites: one `superstep head` (and a worker to run its nodes)
// per test process, started on a free loopback port on first use and killed when the process
// ends. It serves the graphs below by name (--serve) and logs each request as it received it
// (--log-requests), so that a case can check what reached the head as LangGraph's checks what
// its SDK client was called with. The head keeps its own database: the cases run against it
// whatever backend the harness gives the local graphs, and each case uses threads of its own.

#include <fstream>
#include <memory>
#include <string>

#include "cluster/cluster_support.hpp"
#include "conformance.hpp"
#include "superstep/cluster/function_registry.hpp"
#include "superstep/cluster/graph_spec.hpp"
#include "superstep/cluster/remote_graph.hpp"
#include "superstep/cluster/std_library.hpp"

namespace superstep::conformance {

/// LangGraph's example app as a spec: one node answering with an AI message.
inline const char* const agent_spec = R"({
  "spec": "superstep.graph/1", "name": "agent",
  "state": {"messages": {"reducer": "add_messages"}},
  "nodes": {"agent": {"fn": "std.set", "params": {"update":
    {"messages": [{"type": "ai", "content": "answer", "id": "ai3"}]}}}},
  "edges": [["__start__", "agent"], ["agent", "__end__"]]
})";

/// The events of LangGraph's test_stream from a real graph: values data1 to data3, a message
/// from `call_llm`, then an interrupt asking "Does this look good?".
inline const char* const chunks_spec = R"({
  "spec": "superstep.graph/1", "name": "chunks",
  "state": {"chunk": {}, "messages": {}, "answer": {}},
  "nodes": {
    "two": {"fn": "std.set", "params": {"update": {"chunk": "data2"}}},
    "three": {"fn": "std.set", "params": {"update": {"chunk": "data3"}}},
    "call_llm": {"fn": "std.set", "params": {"update": {"messages": [
      {"type": "ai", "content": [{"text": "Hello", "type": "text", "index": 0}], "id": "m1"}]}}},
    "ask": {"fn": "std.interrupt",
            "params": {"value": {"question": "Does this look good?"}, "to": "answer"}}
  },
  "edges": [["__start__", "two"], ["two", "three"], ["three", "call_llm"],
            ["call_llm", "ask"], ["ask", "__end__"]]
})";

/// A graph whose node `my` runs a subgraph with a node `subgraph` (namespaced events).
inline const char* const nested_spec = R"({
  "spec": "superstep.graph/1", "name": "nested",
  "state": {"chunk": {}},
  "nodes": {
    "my": {"fn": "graph", "graph": {
      "spec": "superstep.graph/1", "name": "inner",
      "state": {"chunk": {}},
      "nodes": {"subgraph": {"fn": "std.set", "params": {"update": {"chunk": "data3"}}}},
      "edges": [["__start__", "subgraph"], ["subgraph", "__end__"]]}},
    "bye": {"fn": "std.set", "params": {"update": {"chunk": "data4"}}}
  },
  "edges": [["__start__", "my"], ["my", "bye"], ["bye", "__end__"]]
})";

/// Two steps writing `foo` and appending to `bar` (the persistence seed): four checkpoints.
inline const char* const steps_spec = R"({
  "spec": "superstep.graph/1", "name": "steps",
  "state": {"foo": {}, "bar": {"reducer": "append"}},
  "nodes": {
    "node_a": {"fn": "std.set", "params": {"update": {"foo": "a", "bar": ["a"]}}},
    "node_b": {"fn": "std.set", "params": {"update": {"foo": "b", "bar": ["b"]}}}
  },
  "edges": [["__start__", "node_a"], ["node_a", "node_b"], ["node_b", "__end__"]]
})";

/// A run that goes on until it is cancelled: `tick` adds 1 to `n` and loops back while `n`
/// is below loop_limit (a million steps: hours), one checkpoint per step.
inline constexpr int loop_limit = 1000000;
inline const char* const loop_spec = R"({
  "spec": "superstep.graph/1", "name": "loop",
  "state": {"n": {}},
  "nodes": {"tick": {"fn": "std.increment", "params": {"key": "n"}}},
  "edges": [["__start__", "tick"]],
  "conditional_edges": [{"from": "tick", "router": "std.route",
    "params": {"key": "n", "less_than": 1000000, "then": "tick", "else": "__end__"}}],
  "recursion_limit": 2000000
})";

/// A graph whose run shows what it got of its request's headers: its config's trace (the
/// run's trace_context, under the caller's with distributed tracing) and configurable (with
/// the request's x-... headers).
inline const char* const traced_spec = R"({
  "spec": "superstep.graph/1", "name": "traced",
  "state": {"trace": {}, "configurable": {}},
  "nodes": {
    "read_trace": {"fn": "std.config", "params": {"from": "trace", "to": "trace"}},
    "read_configurable": {"fn": "std.config",
                          "params": {"from": "configurable", "to": "configurable"}}
  },
  "edges": [["__start__", "read_trace"], ["read_trace", "read_configurable"],
            ["read_configurable", "__end__"]]
})";

/// The head of this process (started on first use).
class remote_head {
 public:
  static remote_head& get() {
    static remote_head head;
    return head;
  }

  /// The served graph `name` ("agent", "chunks", "steps", "nested", "loop", "traced").
  remote_graph graph(const std::string& name, value config = value()) const {
    remote_graph_options o;
    o.config = std::move(config);
    return graph(name, std::move(o));
  }
  /// The same with the options `o` (its head set here).
  remote_graph graph(const std::string& name, remote_graph_options o) const {
    o.head = cluster_->address();
    return remote_graph(name, std::move(o));
  }
  std::string address() const { return cluster_->address(); }

  /// What the head logged so far (one "request: ..." line per request).
  std::string log() const { return cluster_->head().err_text(); }

  /// The head's log line of the last request on `thread` ("" when none).
  std::string last_request(const std::string& thread) const {
    const std::string text = log();
    const std::string marker = "thread '" + thread + "'";
    std::string found;
    for (std::size_t at = 0; (at = text.find("request: ", at)) != std::string::npos;) {
      std::size_t end = text.find('\n', at);
      std::string line = text.substr(at, end == std::string::npos ? end : end - at);
      if (line.find(marker) != std::string::npos) found = line;
      at = end == std::string::npos ? text.size() : end;
    }
    return found;
  }

  /// How many times the head logged `text` so far.
  std::size_t count_in_log(const std::string& text) const {
    const std::string all = log();
    std::size_t n = 0;
    for (std::size_t at = all.find(text); at != std::string::npos; at = all.find(text, at + 1)) ++n;
    return n;
  }

  /// The head's log line of the last request, whatever its thread.
  std::string last_request() const {
    const std::string text = log();
    std::size_t at = text.rfind("request: ");
    if (at == std::string::npos) return "";
    return text.substr(at, text.find('\n', at) - at);
  }

  /// The spec `text` compiled here, on the harness's backend and execution mode.
  static std::shared_ptr<pregel> local(const char* text, std::shared_ptr<checkpoint_saver> saver) {
    static const cluster::function_registry registry = [] {
      cluster::function_registry r;
      cluster::register_std_library(r);
      return r;
    }();
    runtime_options o;
    o.checkpointer = std::move(saver);
    o.mode = mode();
    return cluster::load_graph(value::parse_json(text), registry, std::move(o)).graph;
  }

 private:
  remote_head() {
    for (const auto& [name, text] :
         {std::pair{"agent", agent_spec}, std::pair{"chunks", chunks_spec},
          std::pair{"steps", steps_spec}, std::pair{"nested", nested_spec},
          std::pair{"loop", loop_spec}, std::pair{"traced", traced_spec}}) {
      std::ofstream(scratch_.path(std::string(name) + ".json")) << text;
      options_.push_back("--serve");
      options_.push_back(std::string(name) + "=" + scratch_.path(std::string(name) + ".json"));
    }
    options_.push_back("--log-requests");
    cluster_ = std::make_unique<test::test_cluster>(scratch_, options_);
    cluster_->add_worker("w1");
  }

  test::scratch scratch_;
  std::vector<std::string> options_;
  std::unique_ptr<test::test_cluster> cluster_;
};

/// The events of a stream, each as "(ns) mode data".
inline std::vector<std::string> event_texts(const std::vector<stream_event>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) {
    std::string ns;
    for (const auto& part : e.ns) ns += (ns.empty() ? "" : ",") + part;
    out.push_back("(" + ns + ") " + std::string(stream_mode_name(e.mode)) + " " + e.data.to_json());
  }
  return out;
}

}  // namespace superstep::conformance
