// LangGraph's functional API with a task cache policy (libs/langgraph/tests/test_pregel.py),
// ported: a task's results cached by input in the entrypoint's cache, across interrupts,
// threads and clear_cache.

#include <atomic>
#include <memory>
#include <string>

#include "functional_support.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

// Runs the graph of the test on a new thread: the first call, then six resumes "a".."f";
// returns the last output.
value run_thread(const pregel& graph, const std::string& thread_id,
                 std::vector<value>* first_updates = nullptr) {
  const value config = thread(thread_id);
  if (first_updates)
    *first_updates = collect(graph, object{}, config);
  else
    graph.invoke(object{}, config);
  value result;
  for (const char* r : {"a", "b", "c", "d", "e", "f"}) result = graph.invoke(resume(r), config);
  return result;
}

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_multiple_interrupts_functional_cache
BOOST_AUTO_TEST_CASE(test_multiple_interrupts_functional_cache) {
  std::atomic<int> counter{0};
  fn::task_options task_opts;
  task_opts.cache = cache_policy{};
  fn::task double_(
      "double",
      [&](const value& x, fn::call_context&) {
        ++counter;
        return value(2 * x.as_int());
      },
      task_opts);
  auto cache = std::make_shared<memory_cache>();
  fn::entrypoint_options o = ep("graph", saver());
  o.runtime.cache = cache;
  auto graph = fn::entrypoint(o, [&](const value&, fn::call_context& ctx) {
    list values;
    for (int idx : {1, 1, 2, 2, 3, 3}) {
      values.push_back(double_(ctx, idx).result());
      values.push_back(ctx.interrupt(object{{"a", "boo"}}));
    }
    return value(object{{"values", value(std::move(values))}});
  });
  const value expected =
      object{{"values", value::array({2, "a", 2, "b", 4, "c", 4, "d", 6, "e", 6, "f"})}};

  // `double` value should be cached appropriately when used w/ `interrupt`
  BOOST_TEST(run_thread(*graph, "functional-cache-1") == expected);
  BOOST_TEST(counter == 3);

  // should all be cached now (and the cached result's update is marked so, as LangGraph's)
  std::vector<value> updates;
  BOOST_TEST(run_thread(*graph, "functional-cache-2", &updates) == expected);
  BOOST_TEST(counter == 3);
  BOOST_TEST(updates.size() == 2u);
  if (!updates.empty())
    BOOST_TEST(updates.front() ==
               value(object{{"double", 2}, {"__metadata__", object{{"cached", true}}}}));

  // clear cache
  double_.clear_cache(*cache);

  // should recompute now
  BOOST_TEST(run_thread(*graph, "functional-cache-3") == expected);
  BOOST_TEST(counter == 6);
}
