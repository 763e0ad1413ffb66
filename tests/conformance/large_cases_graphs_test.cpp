// LangGraph's large cases of plain state graphs (libs/langgraph/tests/test_large_cases.py):
// fan-out and fan-in with every stream mode; see conformance.hpp.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "interrupts_helpers.hpp"

using namespace superstep;
using namespace superstep::conformance;
using strings = std::vector<std::string>;

namespace {

// A `debug` event with its timestamp and task id masked (LangGraph's AnyStr()).
value mask_debug(const value& event) {
  object o = event.as_object();
  if (o.contains("timestamp")) o.set("timestamp", "*");
  if (const value* p = o.find("payload"); p && p->is_object() && p->as_object().contains("id")) {
    object payload = p->as_object();
    payload.set("id", "*");
    o.set("payload", value(std::move(payload)));
  }
  return o;
}

// A one-shot event a node can wait for, with a bound so a broken run fails instead of hanging.
class latch {
 public:
  void open() {
    std::lock_guard lock(m_);
    open_ = true;
    cv_.notify_all();
  }
  void wait() {
    std::unique_lock lock(m_);
    cv_.wait_for(lock, std::chrono::seconds(10), [&] { return open_; });
  }
  void reset() {
    std::lock_guard lock(m_);
    open_ = false;
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool open_ = false;
};

}  // namespace

// libs/langgraph/tests/test_large_cases.py::test_in_one_fan_out_out_one_graph_state
// (retriever_one's sleep, which makes it stream after retriever_two, is here a wait until
// retriever_two's update was streamed). Disabled until the `debug` stream has LangGraph's
// shapes (issue 13, Streams): no checkpoint events without a checkpointer, no `__start__`
// task, a task's result as its update.
BOOST_AUTO_TEST_CASE(test_in_one_fan_out_out_one_graph_state, *boost::unit_test::disabled()) {
  auto two_streamed = std::make_shared<latch>();
  auto wait_for_two = std::make_shared<std::atomic<bool>>(false);
  channels::reducer sorted_add{
      "sorted_add",
      [](const value& x, const value& y) -> value {
        std::vector<std::string> items;
        for (const auto& v : x.as_list()) items.push_back(v.as_string());
        for (const auto& v : y.as_list()) items.push_back(v.as_string());
        std::sort(items.begin(), items.end());
        list out;
        for (auto& i : items) out.emplace_back(std::move(i));
        return out;
      },
      nullptr};
  state_graph w;
  w.add_key("query").add_key("answer").add_key("docs", sorted_add, list{});
  w.add_node("rewrite_query", [](const value& d, node_context&) -> value {
    return object{{"query", "query: " + d.get("query").as_string()}};
  });
  w.add_node("retriever_one", [two_streamed, wait_for_two](const value&, node_context&) -> value {
    if (*wait_for_two) two_streamed->wait();
    return object{{"docs", list{"doc1", "doc2"}}};
  });
  w.add_node("retriever_two", [](const value&, node_context&) -> value {
    return object{{"docs", list{"doc3", "doc4"}}};
  });
  w.add_node("qa", [](const value& d, node_context&) -> value {
    std::string joined;
    for (const auto& doc : d.get("docs").as_list())
      joined += (joined.empty() ? "" : ",") + doc.as_string();
    return object{{"answer", joined}};
  });
  w.set_entry_point("rewrite_query");
  w.add_edge("rewrite_query", "retriever_one").add_edge("rewrite_query", "retriever_two");
  w.add_edge("retriever_one", "qa").add_edge("retriever_two", "qa");
  w.set_finish_point("qa");
  auto app = w.compile(opts());
  const value input = object{{"query", "what is weather in sf"}};

  BOOST_TEST(app->invoke(input).to_json() ==
             R"({"query":"query: what is weather in sf","answer":"doc1,doc2,doc3,doc4",)"
             R"("docs":["doc1","doc2","doc3","doc4"]})");

  // Streams `modes`, retriever_one finishing once retriever_two's result was streamed.
  const auto run = [&](std::vector<stream_mode> modes) {
    two_streamed->reset();
    *wait_for_two = std::find(modes.begin(), modes.end(), stream_mode::updates) != modes.end();
    strings out;
    stream_options o{modes, false};
    app->stream(input, value(), o, [&](const stream_event& e) {
      value data = e.mode == stream_mode::debug ? mask_debug(e.data) : e.data;
      out.push_back(modes.size() > 1
                        ? value::array({std::string(stream_mode_name(e.mode)), data}).to_json()
                        : data.to_json());
      const bool two_done =
          (e.mode == stream_mode::debug && e.data.get("type") == value("task_result") &&
           e.data.get("payload").get("name") == value("retriever_two")) ||
          (e.mode == stream_mode::updates && e.data.get("retriever_two").is_object() &&
           std::find(modes.begin(), modes.end(), stream_mode::debug) == modes.end());
      if (two_done) two_streamed->open();
    });
    return out;
  };

  BOOST_TEST(run({stream_mode::updates}) ==
                 (strings{R"({"rewrite_query":{"query":"query: what is weather in sf"}})",
                          R"({"retriever_two":{"docs":["doc3","doc4"]}})",
                          R"({"retriever_one":{"docs":["doc1","doc2"]}})",
                          R"({"qa":{"answer":"doc1,doc2,doc3,doc4"}})"}),
             boost::test_tools::per_element());
  BOOST_TEST(run({stream_mode::values}) ==
                 (strings{R"({"query":"what is weather in sf","docs":[]})",
                          R"({"query":"query: what is weather in sf","docs":[]})",
                          R"({"query":"query: what is weather in sf","docs":["doc1","doc2","doc3","doc4"]})",
                          R"({"query":"query: what is weather in sf","answer":"doc1,doc2,doc3,doc4",)"
                          R"("docs":["doc1","doc2","doc3","doc4"]})"}),
             boost::test_tools::per_element());

  const std::string q0 = R"({"query":"what is weather in sf","docs":[]})";
  const std::string q1 = R"({"query":"query: what is weather in sf","docs":[]})";
  const std::string q2 = R"({"query":"query: what is weather in sf","docs":["doc1","doc2","doc3","doc4"]})";
  const auto task = [](int step, const char* name, const std::string& input) {
    return std::string(R"(["debug",{"type":"task","timestamp":"*","step":)") +
           std::to_string(step) + R"(,"payload":{"id":"*","name":")" + name + R"(","input":)" +
           input + R"(,"triggers":["branch:to:)" + name + R"("]}}])";
  };
  const auto result = [](int step, const char* name, const std::string& update) {
    return std::string(R"(["debug",{"type":"task_result","timestamp":"*","step":)") +
           std::to_string(step) + R"(,"payload":{"id":"*","name":")" + name + R"(","result":)" +
           update + R"(,"error":null,"interrupts":[]}}])";
  };
  BOOST_TEST(
      run({stream_mode::values, stream_mode::updates, stream_mode::debug}) ==
          (strings{
              R"(["values",)" + q0 + "]",
              task(1, "rewrite_query", q0),
              R"(["updates",{"rewrite_query":{"query":"query: what is weather in sf"}}])",
              result(1, "rewrite_query", R"({"query":"query: what is weather in sf"})"),
              R"(["values",)" + q1 + "]",
              task(2, "retriever_one", q1),
              task(2, "retriever_two", q1),
              R"(["updates",{"retriever_two":{"docs":["doc3","doc4"]}}])",
              result(2, "retriever_two", R"({"docs":["doc3","doc4"]})"),
              R"(["updates",{"retriever_one":{"docs":["doc1","doc2"]}}])",
              result(2, "retriever_one", R"({"docs":["doc1","doc2"]})"),
              R"(["values",)" + q2 + "]",
              task(3, "qa", q2),
              R"(["updates",{"qa":{"answer":"doc1,doc2,doc3,doc4"}}])",
              result(3, "qa", R"({"answer":"doc1,doc2,doc3,doc4"})"),
              R"(["values",{"query":"query: what is weather in sf","answer":"doc1,doc2,doc3,doc4",)"
              R"("docs":["doc1","doc2","doc3","doc4"]}])"}),
      boost::test_tools::per_element());
}
