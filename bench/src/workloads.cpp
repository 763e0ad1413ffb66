// The graph workloads, built with the StateGraph API as LangGraph's own benchmark suite does.
#include <atomic>
#include <cmath>
#include <string>

#include "bench.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/pregel/send.hpp"

namespace superstep::bench {

namespace {

const std::string start_node(START);
const std::string end_node(END);

// sequential_N: START -> n0 -> ... -> n(N-1) -> END; every node is a no-op returning null.
// A timed run is `invokes` runs of the graph, so that short chains measure more than the clock
// and the per-run cost (start, input, output) is spread over their steps as a user sees it.
measurement sequential(int n, int invokes, const options& opts, const std::string& mode) {
  auto calls = std::make_shared<std::atomic<std::int64_t>>(0);
  state_graph b;
  b.add_key("x");
  for (int i = 0; i < n; ++i)
    b.add_node("n" + std::to_string(i), [calls](const value&, node_context&) -> value {
      calls->fetch_add(1, std::memory_order_relaxed);
      return value();
    });
  b.add_edge(start_node, "n0");
  for (int i = 0; i + 1 < n; ++i) b.add_edge("n" + std::to_string(i), "n" + std::to_string(i + 1));
  b.add_edge("n" + std::to_string(n - 1), end_node);
  graph_setup setup(mode);
  auto graph = b.compile(setup.compile());
  const value input = object{{"x", 1}};
  return measure(
      mode, "sequential_" + std::to_string(n), "step", std::int64_t{n} * invokes, opts.runs,
      [&] {
        for (int r = 0; r < invokes; ++r) {
          calls->store(0);
          value out = graph->invoke(input, setup.config(2 * n));
          check(calls->load() == n, "sequential: " + std::to_string(calls->load()) +
                                        " node calls, want " + std::to_string(n));
          check(out.get("x") == value(1), "sequential: output " + out.to_json());
        }
      },
      setup.forget_runs(graph));
}

// loop2_N: a -> b -> (router) a | END; both add 1 to `count`, so the run takes N supersteps.
measurement loop2(int n, const options& opts, const std::string& mode) {
  state_graph b;
  b.add_key("count", "add", value(0));
  auto bump = [](const value&, node_context&) -> value { return object{{"count", 1}}; };
  b.add_node("a", bump).add_node("b", bump);
  b.add_edge(start_node, "a").add_edge("a", "b");
  b.add_conditional_edges("b", [n](const value& st, node_context&) -> value {
    return st.get("count").as_int() >= n ? value(end_node) : value("a");
  });
  graph_setup setup(mode);
  auto graph = b.compile(setup.compile());
  const value input = object{{"count", 0}};
  return measure(
      mode, "loop2_" + std::to_string(n), "step", n, opts.runs,
      [&] {
        value out = graph->invoke(input, setup.config(2 * n));
        check(out.get("count") == value(n), "loop2: count " + out.get("count").to_json());
      },
      setup.forget_runs(graph));
}

}  // namespace

state_graph fanout_builder() {
  state_graph b;
  b.add_key("n").add_key("results", "append").add_key("total");
  b.add_node("fan", [](const value&, node_context&) -> value { return value(); });
  b.add_node("work", [](const value& in, node_context&) -> value {
    return object{{"results", value::array({in.get("i")})}};
  });
  b.add_node("sum", [](const value& st, node_context&) -> value {
    std::int64_t t = 0;
    for (const auto& v : st.get("results").as_list()) t += v.as_int();
    return object{{"total", t}};
  });
  b.add_edge(start_node, "fan");
  b.add_conditional_edges("fan", [](const value& st, node_context&) -> value {
    const std::int64_t count = st.get("n").as_int();
    list sends;
    sends.reserve(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i) sends.push_back(make_send("work", object{{"i", i}}));
    return value(std::move(sends));
  });
  b.add_edge("work", "sum").add_edge("sum", end_node);
  return b;
}

namespace {

// fanout_N: the graph of fanout_builder. Checks every result arrived, in Send order.
measurement fanout(std::int64_t n, const std::string& label, const options& opts,
                   const std::string& mode) {
  state_graph b = fanout_builder();
  graph_setup setup(mode);
  auto graph = b.compile(setup.compile());
  const value input = object{{"n", n}, {"results", list{}}};
  return measure(
      mode, "fanout_" + label, "Send", n, opts.runs,
      [&] {
        value out = graph->invoke(input, setup.config());
        const list& results = out.get("results").as_list();
        check(static_cast<std::int64_t>(results.size()) == n,
              "fanout: " + std::to_string(results.size()) + " results, want " + std::to_string(n));
        for (std::int64_t i = 0; i < n; i += 997)
          check(results[static_cast<std::size_t>(i)] == value(i),
                "fanout: results[" + std::to_string(i) + "] is not " + std::to_string(i));
        check(out.get("total") == value(n * (n - 1) / 2),
              "fanout: total " + out.get("total").to_json() + ", want " +
                  std::to_string(n * (n - 1) / 2));
      },
      setup.forget_runs(graph));
}

// wide_state_KxS: K keys (last-value, add, merge in turn), 10 nodes in a cycle each writing four
// keys, for S supersteps. Key k1 (add) counts the steps.
measurement wide_state(int keys, int steps, const options& opts, const std::string& mode) {
  constexpr int nodes = 10;
  auto key = [](int i) { return "k" + std::to_string(i); };
  state_graph b;
  object input;
  for (int i = 0; i < keys; ++i) {
    switch (i % 3) {
      case 0:
        b.add_key(key(i));
        input.set(key(i), "v" + std::to_string(i));
        break;
      case 1:
        b.add_key(key(i), "add", value(0));
        input.set(key(i), 0);
        break;
      default: b.add_key(key(i), "merge", value(object{})); input.set(key(i), object{{"init", i}});
    }
  }
  for (int j = 0; j < nodes; ++j) {
    // Node j writes the step counter k1 and one key of each kind from k(9j+9) on; the other
    // keys stay unchanged, as most of a wide state does in a real graph.
    const int base = (9 * (j + 1)) % (keys - 3) / 3 * 3;
    const std::string last = key(base), add = key(base + 1), merge = key(base + 2);
    const std::string self = "w" + std::to_string(j);
    b.add_node(self, [=](const value& st, node_context&) -> value {
      const std::int64_t step = st.get("k1").as_int();
      return object{{"k1", 1},
                    {last, "s" + std::to_string(step)},
                    {add, step},
                    {merge, object{{self, step}}}};
    });
  }
  b.add_edge(start_node, "w0");
  for (int j = 0; j + 1 < nodes; ++j)
    b.add_edge("w" + std::to_string(j), "w" + std::to_string(j + 1));
  b.add_conditional_edges("w" + std::to_string(nodes - 1),
                          [steps](const value& st, node_context&) -> value {
                            return st.get("k1").as_int() >= steps ? value(end_node) : value("w0");
                          });
  graph_setup setup(mode);
  auto graph = b.compile(setup.compile());
  const value in = value(std::move(input));
  const std::string name = "wide_state_" + std::to_string(keys) + "x" + std::to_string(steps);
  return measure(
      mode, name, "step", steps, opts.runs,
      [&] {
        value out = graph->invoke(in, setup.config(2 * steps));
        check(out.get("k1") == value(steps), "wide_state: step counter " + out.get("k1").to_json());
        check(out.as_object().size() == static_cast<std::size_t>(keys),
              "wide_state: output has " + std::to_string(out.as_object().size()) + " keys");
      },
      setup.forget_runs(graph));
}

}  // namespace

std::vector<workload> graph_workloads(const options& opts) {
  std::vector<workload> w;
  w.push_back({"sequential_10",
               [](const options& o, const std::string& m) { return sequential(10, 200, o, m); }});
  w.push_back({"sequential_1000",
               [](const options& o, const std::string& m) { return sequential(1000, 1, o, m); },
               true});
  w.push_back(
      {"loop2_1000", [](const options& o, const std::string& m) { return loop2(1000, o, m); }});
  int max_exp = opts.big ? 6 : 5;
  for (int e = 3; e <= max_exp; ++e) {
    const auto n = static_cast<std::int64_t>(std::llround(std::pow(10.0, e)));
    const std::string label = "10^" + std::to_string(e);
    w.push_back(
        {"fanout_" + label,
         [n, label](const options& o, const std::string& m) { return fanout(n, label, o, m); },
         e == 4});
  }
  w.push_back({"wide_state_100x20",
               [](const options& o, const std::string& m) { return wide_state(100, 20, o, m); }});
  for (auto& s : subgraph_workloads()) w.push_back(std::move(s));
  for (auto& s : wide_state_workloads()) w.push_back(std::move(s));
  return w;
}

}  // namespace superstep::bench
