#pragma once

// The fan-out graph of LangGraph's test_in_one_fan_out_state_graph_* tests (test_pregel.py):
// rewrite_query, analyzer_one, retriever_one, retriever_two, qa over {query, answer, docs}.
//
// LangGraph orders two tasks of one step by sleeping in one of them. Here the later task waits
// for the earlier one's `updates` event instead (an `order_gate`), so the order is the same
// and no test sleeps.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "superstep/graph/state_graph.hpp"

namespace superstep::conformance::fanout {

inline value J(std::string_view json) { return value::parse_json(json); }

// While a streamed run is watched (`watch`), the n-th call of a node that waits here returns
// only after the n-th `updates` event of node `after`; otherwise it does not wait.
class order_gate {
 public:
  explicit order_gate(std::string after) : after_(std::move(after)) {}
  void watch(bool on) {
    std::lock_guard lock(m_);
    watching_ = on;
    seen_ = calls_ = 0;
  }
  void saw(const value& event) {
    if (!event.is_object() || !event.find(after_)) return;
    std::lock_guard lock(m_);
    ++seen_;
    cv_.notify_all();
  }
  void wait() {
    std::unique_lock lock(m_);
    if (!watching_) return;
    const int mine = ++calls_;
    if (!cv_.wait_for(lock, std::chrono::seconds(10), [&] { return seen_ >= mine; }))
      throw std::runtime_error("'" + after_ + "' never finished");
  }

 private:
  std::string after_;
  std::mutex m_;
  std::condition_variable cv_;
  bool watching_ = false;
  int seen_ = 0, calls_ = 0;
};

// The fan-out graph's nodes. LangGraph's sorted_add: the lists added and sorted; a list of
// [removed, added] pairs replaces items.
struct retrievers {
  std::shared_ptr<order_gate> gate;

  static channels::reducer sorted_add() {
    return {"sorted_add",
            [](const value& x, const value& y) {
              std::vector<std::string> items;
              for (const auto& v : x.as_list()) items.push_back(v.as_string());
              for (const auto& v : y.as_list()) {
                if (v.is_list()) {
                  items.erase(std::find(items.begin(), items.end(), v.as_list()[0].as_string()));
                  items.push_back(v.as_list()[1].as_string());
                } else {
                  items.push_back(v.as_string());
                }
              }
              std::sort(items.begin(), items.end());
              return value(list(items.begin(), items.end()));
            },
            {}};
  }

  void add_keys(state_graph& w) const {
    w.add_key("query").add_key("answer").add_key("docs", sorted_add(), value(list{}));
  }
  void add_nodes(state_graph& w, node_options qa_options = {}) const {
    w.add_node("rewrite_query", [](const value& s, node_context&) -> value {
      return object{{"query", "query: " + s.get("query").as_string()}};
    });
    w.add_node("analyzer_one", [](const value& s, node_context&) -> value {
      return object{{"query", "analyzed: " + s.get("query").as_string()}};
    });
    w.add_node("retriever_one", [](const value&, node_context&) -> value {
      return J(R"({"docs":["doc1","doc2"]})");
    });
    w.add_node("retriever_two", [g = gate](const value&, node_context&) -> value {
      g->wait();
      return J(R"({"docs":["doc3","doc4"]})");
    });
    w.add_node(
        "qa",
        [](const value& s, node_context&) -> value {
          std::string a;
          for (const auto& d : s.get("docs").as_list()) a += (a.empty() ? "" : ",") + d.as_string();
          return object{{"answer", a}};
        },
        qa_options);
  }

  // The `updates` chunks of a run, as LangGraph's `[*app.stream(input, config)]`.
  value stream(const pregel& app, const value& input, const value& config = value()) const {
    list out;
    gate->watch(true);
    try {
      app.stream(input, config, stream_options{{stream_mode::updates}, false},
                 [&](const stream_event& e) {
                   gate->saw(e.data);
                   out.push_back(e.data);
                 });
    } catch (...) {
      gate->watch(false);
      throw;
    }
    gate->watch(false);
    return value(std::move(out));
  }
};

}  // namespace superstep::conformance::fanout
