// LangGraph's node cache tests of the graph API (libs/langgraph/tests/test_pregel.py), ported:
// a node with a cache policy does not run again for an input it has seen; its writes come
// from the graph's cache and its `updates` event is marked `"__metadata__": {"cached": true}`;
// clear_cache forgets them.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "conformance.hpp"
#include "support/expect_error.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

const std::string start{START};

// LangGraph's sorted_add: appends and sorts.
channels::reducer sorted_add() {
  channels::reducer r;
  r.name = "sorted_add";
  r.binary = [](const value& x, const value& y) {
    list out = x.is_list() ? x.as_list() : list{};
    for (const auto& v : y.as_list()) out.push_back(v);
    std::sort(out.begin(), out.end(),
              [](const value& a, const value& b) { return a.as_string() < b.as_string(); });
    return value(std::move(out));
  };
  return r;
}

// Opens once analyzer_one's update has been streamed: retriever_two, which LangGraph makes
// slower with a sleep, finishes after it, as the expected stream has it.
struct after_analyzer {
  std::mutex m;
  std::condition_variable cv;
  bool streaming = false;  // invoke streams nothing: no wait
  bool seen = false;

  void start() {
    std::lock_guard lock(m);
    streaming = true;
  }
  void saw(const stream_event& e) {
    if (!e.data.find("analyzer_one")) return;
    {
      std::lock_guard lock(m);
      seen = true;
    }
    cv.notify_all();
  }
  void wait() {
    std::unique_lock lock(m);
    if (!streaming) return;
    BOOST_TEST(cv.wait_for(lock, std::chrono::seconds(5), [&] { return seen; }));
    seen = false;  // the next step's retriever_two waits for the next analyzer_one
  }
  void stop() {
    std::lock_guard lock(m);
    streaming = false;
  }
};

value update(const char* node, value u, bool cached = false) {
  object o{{node, std::move(u)}};
  if (cached) o.set("__metadata__", object{{"cached", true}});
  return value(std::move(o));
}

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_in_one_fan_out_state_graph_waiting_edge_multiple
// (and test_pregel_async.py's; parametrized with_cache true/false)
BOOST_AUTO_TEST_CASE(test_in_one_fan_out_state_graph_waiting_edge_multiple) {
  for (bool with_cache : {true, false}) {
    BOOST_TEST_CONTEXT("with_cache " << with_cache) {
      std::atomic<int> rewrite_query_count = 0;
      after_analyzer gate;
      state_graph w;
      w.add_key("query");
      w.add_key("answer");
      w.add_key("docs", sorted_add());
      w.add_node(
          "rewrite_query",
          [&](const value& s, node_context&) -> value {
            ++rewrite_query_count;
            return object{{"query", "query: " + s.get("query").as_string()}};
          },
          {.cache = with_cache ? std::optional<cache_policy>(cache_policy{}) : std::nullopt});
      w.add_node("analyzer_one", [](const value& s, node_context&) -> value {
        return object{{"query", "analyzed: " + s.get("query").as_string()}};
      });
      w.add_node("retriever_one", [](const value&, node_context&) -> value {
        return object{{"docs", list{"doc1", "doc2"}}};
      });
      w.add_node("retriever_two", [&](const value&, node_context&) -> value {
        gate.wait();
        return object{{"docs", list{"doc3", "doc4"}}};
      });
      w.add_node("decider", [](const value&, node_context&) -> value { return value(); });
      w.add_node("qa", [](const value& s, node_context&) -> value {
        std::string joined;
        for (const auto& d : s.get("docs").as_list())
          joined += (joined.empty() ? "" : ",") + d.as_string();
        return object{{"answer", joined}};
      });
      w.set_entry_point("rewrite_query");
      w.add_edge("rewrite_query", "analyzer_one");
      w.add_edge("analyzer_one", "retriever_one");
      w.add_edge("rewrite_query", "retriever_two");
      w.add_edge(std::vector<std::string>{"retriever_one", "retriever_two"}, "decider");
      w.add_conditional_edges("decider", [](const value& s, node_context&) -> value {
        const std::string& q = s.get("query").as_string();
        std::size_t n = 0;
        for (auto at = q.find("analyzed"); at != std::string::npos; at = q.find("analyzed", at + 1))
          ++n;
        return n > 1 ? "qa" : "rewrite_query";
      });
      w.set_finish_point("qa");
      compile_options o = opts();
      o.cache = std::make_shared<memory_cache>();
      auto app = w.compile(o);

      const value expected =
          object{{"query", "analyzed: query: analyzed: query: what is weather in sf"},
                 {"answer", "doc1,doc1,doc2,doc2,doc3,doc3,doc4,doc4"},
                 {"docs", list{"doc1", "doc1", "doc2", "doc2", "doc3", "doc3", "doc4", "doc4"}}};
      BOOST_TEST(app->invoke(object{{"query", "what is weather in sf"}}) == expected);

      std::vector<value> chunks;
      gate.start();
      app->stream(object{{"query", "what is weather in sf"}}, value(),
                  stream_options{.modes = {stream_mode::updates}}, [&](const stream_event& e) {
                    chunks.push_back(e.data);
                    gate.saw(e);
                  });
      gate.stop();
      const std::vector<value> expected_chunks{
          update("rewrite_query", object{{"query", "query: what is weather in sf"}}, with_cache),
          update("analyzer_one", object{{"query", "analyzed: query: what is weather in sf"}}),
          update("retriever_two", object{{"docs", list{"doc3", "doc4"}}}),
          update("retriever_one", object{{"docs", list{"doc1", "doc2"}}}),
          update("decider", value()),
          update("rewrite_query",
                 object{{"query", "query: analyzed: query: what is weather in sf"}}, with_cache),
          update("analyzer_one",
                 object{{"query", "analyzed: query: analyzed: query: what is weather in sf"}}),
          update("retriever_two", object{{"docs", list{"doc3", "doc4"}}}),
          update("retriever_one", object{{"docs", list{"doc1", "doc2"}}}),
          update("decider", value()),
          update("qa", object{{"answer", "doc1,doc1,doc2,doc2,doc3,doc3,doc4,doc4"}}),
      };
      BOOST_TEST(value(list(chunks.begin(), chunks.end())).to_json() ==
                 value(list(expected_chunks.begin(), expected_chunks.end())).to_json());
      BOOST_TEST(rewrite_query_count == (with_cache ? 2 : 4));

      if (with_cache) {
        app->clear_cache();
        BOOST_TEST(app->invoke(object{{"query", "what is weather in sf"}}) == expected);
        BOOST_TEST(rewrite_query_count == 4);
      }
    }
  }
}
