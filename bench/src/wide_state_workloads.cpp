// wide_state_{25x300,15x600,9x1200}, the shape of LangGraph's bench/wide_state.py: a support
// bot's state of 15 keys with add, merge and custom reducers; six nodes one -> two -> {three,
// four} -> five (a join) -> six -> one, until more than n messages. Each node reads one key and
// writes others: list keys get the list it read, object keys its last element, string keys n
// random letters. "25x300": the input message is an object of 5 x 5 lists of 25 elements, n is
// 300. The lists grow fast: every lap appends the whole trigger_events and responses lists.
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/graph/state_graph.hpp"

namespace superstep::bench {

namespace {

const std::string start_node(START);
const std::string end_node(END);
constexpr int steps_per_lap = 5;  // one, two, {three, four}, five, six

enum class kind { list_key, object_key, string_key };

struct key_def {
  const char* name;
  kind k;
};

// The state's keys and what a node writes into each.
const std::vector<key_def>& keys() {
  static const std::vector<key_def> k = {{"messages", kind::list_key},
                                         {"trigger_events", kind::list_key},
                                         {"primary_issue_medium", kind::string_key},
                                         {"autoresponse", kind::object_key},
                                         {"issue", kind::object_key},
                                         {"relevant_rules", kind::list_key},
                                         {"memory_docs", kind::list_key},
                                         {"categorizations", kind::list_key},
                                         {"responses", kind::list_key},
                                         {"user_info", kind::object_key},
                                         {"crm_info", kind::object_key},
                                         {"email_thread_id", kind::string_key},
                                         {"slack_participants", kind::object_key},
                                         {"bot_id", kind::string_key},
                                         {"notified_assignees", kind::object_key}};
  return k;
}

kind kind_of_key(const std::string& name) {
  for (const auto& d : keys())
    if (name == d.name) return d.k;
  throw std::logic_error("wide_state: no key " + name);
}

// Custom reducers, as the Python lambdas: `y or x`, `y`, `y if y else x`, `y if y is not None
// else x`.
channels::reducer custom(const char* name, value (*fn)(const value&, const value&)) {
  return channels::reducer{name, fn, nullptr};
}
value y_or_x(const value& x, const value& y) { return y.truthy() ? y : x; }
value always_y(const value&, const value& y) { return y; }
value y_unless_null(const value& x, const value& y) { return y.is_null() ? x : y; }

std::string random_letters(std::size_t n) {
  thread_local std::mt19937 rng(0x3a11);
  std::string s(n, 'a');
  for (char& c : s) c = static_cast<char>('a' + rng() % 26);
  return s;
}

// A node that reads `read` and writes `writes`.
node_function read_write(std::string read, std::vector<std::string> writes, std::size_t n) {
  std::vector<std::pair<std::string, kind>> out;
  for (auto& w : writes) out.emplace_back(w, kind_of_key(w));
  return
      [read = std::move(read), out = std::move(out), n](const value& st, node_context&) -> value {
        value val = st.get(read);
        if (val.is_string()) val = object{{val.as_string(), val}};
        const value single = val.is_list() ? val.as_list().back() : val;
        const value as_list = val.is_list() ? val : value::array({val});
        object update;
        for (const auto& [key, k] : out)
          update.set(key, k == kind::list_key     ? as_list
                          : k == kind::object_key ? single
                                                  : value(random_letters(n)));
        return value(std::move(update));
      };
}

// {"0000000000": {"0000000000": ["hi?hi?...", true, 1, 6327816386138, null] * 5, ...}, ...}
value message(int outer, int inner) {
  list leaves;
  for (int r = 0; r < 5; ++r) {
    std::string hi;
    for (int i = 0; i < 10; ++i) hi += "hi?";
    for (value v : {value(hi), value(true), value(1), value(std::int64_t{6327816386138}), value()})
      leaves.push_back(v);
  }
  const value leaf_list(std::move(leaves));
  object top;
  for (int i = 0; i < outer; ++i) {
    object mid;
    for (int j = 0; j < inner; ++j) mid.set(std::string(10, static_cast<char>('0' + j)), leaf_list);
    top.set(std::string(10, static_cast<char>('0' + i)), value(std::move(mid)));
  }
  return value(std::move(top));
}

measurement wide_state_lg(int outer, int inner, std::size_t n, int invokes, const options& opts,
                          const std::string& mode) {
  state_graph b;
  const value empty_list(list{});
  b.add_key("messages", "add", empty_list).add_key("trigger_events", "add", empty_list);
  b.add_key("primary_issue_medium", custom("y_or_x", y_or_x), value("email"));
  b.add_key("autoresponse", custom("always_y", always_y), value());
  b.add_key("issue", custom("y_or_x", y_or_x), value());
  b.add_key("relevant_rules", value()).add_key("memory_docs", value());
  b.add_key("categorizations", "add", empty_list).add_key("responses", "add", empty_list);
  for (const char* k : {"user_info", "crm_info", "email_thread_id"})
    b.add_key(k, custom("y_unless_null", y_unless_null), value());
  b.add_key("slack_participants", "merge", value(object{}));
  b.add_key("bot_id", value()).add_key("notified_assignees", "merge", value(object{}));

  b.add_node("one", read_write("messages", {"trigger_events", "primary_issue_medium"}, n));
  b.add_node("two", read_write("trigger_events", {"autoresponse", "issue"}, n));
  b.add_node("three", read_write("autoresponse", {"relevant_rules"}, n));
  b.add_node("four",
             read_write("trigger_events", {"categorizations", "responses", "memory_docs"}, n));
  b.add_node("five", read_write("categorizations",
                                {"user_info", "crm_info", "email_thread_id", "slack_participants",
                                 "bot_id", "notified_assignees"},
                                n));
  b.add_node("six", read_write("responses", {"messages"}, n));
  b.add_edge(start_node, "one").add_edge("one", "two").add_edge("two", "three");
  b.add_edge("two", "four")
      .add_edge(std::vector<std::string>{"three", "four"}, "five")
      .add_edge("five", "six");
  b.add_conditional_edges("six", [n](const value& st, node_context&) -> value {
    return st.get("messages").as_list().size() > n ? value(end_node) : value("one");
  });
  graph_setup setup(mode);
  auto graph = b.compile(setup.compile());

  // The list lengths after each lap follow from the appends: trigger_events += messages;
  // categorizations and responses += trigger_events; messages += responses.
  std::size_t msgs = 1, triggers = 0, cats = 0, responses = 0;
  int laps = 0;
  while (msgs <= n) {
    triggers += msgs;
    cats += triggers;
    responses += triggers;
    msgs += responses;
    ++laps;
  }
  const value msg = message(outer, inner);
  const value input = object{{"messages", value::array({msg})}};
  if (setup.has_saver()) invokes = 1;  // a checkpointed run is long enough for the clock
  const std::string name = "wide_state_" + std::to_string(outer * inner) + "x" + std::to_string(n);
  auto size_is = [&](const value& out, const char* key, std::size_t want) {
    const value& v = out.get(key);
    check(v.is_list() && v.as_list().size() == want,
          name + ": " + key + " has " + std::to_string(v.is_list() ? v.as_list().size() : 0) +
              " items, want " + std::to_string(want));
  };
  auto string_of_n = [&](const value& out, const char* key) {
    const value& v = out.get(key);
    check(v.is_string() && v.as_string().size() == n,
          name + ": " + key + " is not " + std::to_string(n) + " letters");
  };
  return measure(
      mode, name, "step", std::int64_t{steps_per_lap} * laps * invokes, opts.runs,
      [&] {
        for (int r = 0; r < invokes; ++r) {
          value out = graph->invoke(input, setup.config(steps_per_lap * laps + 10));
          check(out.as_object().size() == keys().size(),
                name + ": output has " + std::to_string(out.as_object().size()) + " keys");
          size_is(out, "messages", msgs);
          size_is(out, "trigger_events", triggers);
          size_is(out, "categorizations", cats);
          size_is(out, "responses", responses);
          size_is(out, "memory_docs", triggers);
          check(out.get("relevant_rules") == value::array({msg}), name + ": relevant_rules");
          for (const char* k : {"autoresponse", "issue", "user_info", "crm_info"})
            check(out.get(k) == msg, name + ": " + k + " is not the message");
          for (const char* k : {"slack_participants", "notified_assignees"})
            check(out.get(k) == msg, name + ": " + k + " is not the message's keys");
          for (const char* k : {"primary_issue_medium", "email_thread_id", "bot_id"})
            string_of_n(out, k);
          check(out.get("messages").as_list().back() == msg, name + ": last message");
        }
      },
      setup.forget_runs(graph));
}

}  // namespace

std::vector<workload> wide_state_workloads() {
  return {
      {"wide_state_25x300",
       [](const options& o, const std::string& m) { return wide_state_lg(5, 5, 300, 10, o, m); },
       true},
      {"wide_state_15x600",
       [](const options& o, const std::string& m) { return wide_state_lg(3, 5, 600, 10, o, m); }},
      {"wide_state_9x1200",
       [](const options& o, const std::string& m) { return wide_state_lg(3, 3, 1200, 10, o, m); }},
  };
}

}  // namespace superstep::bench
