// LangGraph's functional API, ported: interrupts in entrypoints and in tasks, and resuming an
// entrypoint without running again the tasks that finished before it was interrupted.

#include <atomic>
#include <mutex>
#include <set>

#include "functional_support.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

// A saver that tells which tasks wrote (LangGraph's test patches PregelLoop.put_writes).
class spying_saver final : public checkpoint_saver {
 public:
  explicit spying_saver(std::shared_ptr<checkpoint_saver> inner) : inner_(std::move(inner)) {}

  checkpoint_config put(const checkpoint_config& c, const checkpoint& cp,
                        const checkpoint_metadata& m,
                        const std::map<std::string, channel_version>& v) override {
    return inner_->put(c, cp, m, v);
  }
  checkpoint_config put_changes(const checkpoint_config& c, const checkpoint& cp,
                                const checkpoint_metadata& m,
                                const checkpoint_changes& changes) override {
    return inner_->put_changes(c, cp, m, changes);
  }
  void put_writes(const checkpoint_config& c, const std::vector<std::pair<std::string, value>>& w,
                  const std::string& task_id, const std::string& task_path) override {
    {
      std::lock_guard lock(m_);
      task_ids_.push_back(task_id);
    }
    inner_->put_writes(c, w, task_id, task_path);
  }
  void put_writes_many(const checkpoint_config& c, const std::vector<task_writes>& tasks) override {
    {
      std::lock_guard lock(m_);
      for (const auto& t : tasks) task_ids_.push_back(t.task_id);
    }
    inner_->put_writes_many(c, tasks);
  }
  std::optional<checkpoint_tuple> get_tuple(const checkpoint_config& c) override {
    return inner_->get_tuple(c);
  }
  std::vector<checkpoint_tuple> list(const checkpoint_config& c, const list_options& o) override {
    return inner_->list(c, o);
  }
  void delete_thread(const std::string& t) override { inner_->delete_thread(t); }
  void copy_thread(const std::string& s, const std::string& t) override {
    inner_->copy_thread(s, t);
  }
  void prune(const std::vector<std::string>& t, std::size_t keep_last) override {
    inner_->prune(t, keep_last);
  }
  thread_runs& runs() noexcept override { return inner_->runs(); }
  channel_version latest_version(const checkpoint_config& c) override {
    return inner_->latest_version(c);
  }

  std::vector<std::string> take_task_ids() {
    std::lock_guard lock(m_);
    return std::exchange(task_ids_, {});
  }

 private:
  std::shared_ptr<checkpoint_saver> inner_;
  std::mutex m_;
  std::vector<std::string> task_ids_;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(functional_interrupt)

// libs/langgraph/tests/test_pregel.py::test_interrupt_functional
BOOST_AUTO_TEST_CASE(test_interrupt_functional) {
  fn::task foo("foo", [](const value& state, fn::call_context&) {
    return value(object{{"a", state.get("a").as_string() + "foo"}});
  });
  fn::task bar("bar", [](const value& state, fn::call_context&) {
    return value(object{{"a", state.get("a").as_string() + "bar"}, {"b", state.get("b")}});
  });
  auto graph =
      fn::entrypoint(ep("graph", saver()), [&](const value& inputs, fn::call_context& ctx) {
        auto fut_foo = foo(ctx, inputs);
        value v = ctx.interrupt("Provide value for bar:");
        object bar_input = fut_foo.result().as_object();
        bar_input.set("b", v);
        auto fut_bar = bar(ctx, value(std::move(bar_input)));
        return fut_bar.result();
      });
  const value config = thread("1");
  // First run, interrupted at bar
  value first = graph->invoke(object{{"a", ""}}, config);
  BOOST_TEST(first.as_object().size() == 1u);
  BOOST_TEST(interrupt_values(first) == std::vector<value>{value("Provide value for bar:")});
  BOOST_TEST(first.get(INTERRUPT).as_list()[0].get("id").is_string());
  // Resume with an answer
  BOOST_TEST(graph->invoke(resume("bar"), config) == value(object{{"a", "foobar"}, {"b", "bar"}}));
}

// libs/langgraph/tests/test_pregel.py::test_interrupt_task_functional
BOOST_AUTO_TEST_CASE(test_interrupt_task_functional) {
  fn::task foo("foo", [](const value& state, fn::call_context&) {
    return value(object{{"a", state.get("a").as_string() + "foo"}});
  });
  fn::task bar("bar", [](const value& state, fn::call_context& ctx) {
    value v = ctx.interrupt("Provide value for bar:");
    return value(object{{"a", state.get("a").as_string() + v.as_string()}});
  });
  auto checkpointer = saver();
  auto graph =
      fn::entrypoint(ep("graph", checkpointer), [&](const value& inputs, fn::call_context& ctx) {
        auto fut_foo = foo(ctx, inputs);
        auto fut_bar = bar(ctx, fut_foo.result());
        return fut_bar.result();
      });
  value config = thread("1");
  // First run, interrupted at bar
  value first = graph->invoke(object{{"a", ""}}, config);
  BOOST_TEST(first.as_object().size() == 1u);
  BOOST_TEST(interrupt_values(first) == std::vector<value>{value("Provide value for bar:")});
  // Resume with an answer
  BOOST_TEST(graph->invoke(resume("bar"), config) == value(object{{"a", "foobar"}}));

  // Test that we can interrupt the same task multiple times
  config = thread("2");
  auto graph2 =
      fn::entrypoint(ep("graph", checkpointer), [&](const value& inputs, fn::call_context& ctx) {
        value foo_result = foo(ctx, inputs).result();
        value bar_result = bar(ctx, foo_result).result();
        value baz_result = bar(ctx, bar_result).result();
        return baz_result;
      });
  // First run, interrupted at bar
  first = graph2->invoke(object{{"a", ""}}, config);
  BOOST_TEST(interrupt_values(first) == std::vector<value>{value("Provide value for bar:")});
  // Provide resumes
  graph2->invoke(resume("bar"), config);
  BOOST_TEST(graph2->invoke(resume("baz"), config) == value(object{{"a", "foobarbaz"}}));
}

// libs/langgraph/tests/test_pregel.py::test_multiple_interrupts_functional
BOOST_AUTO_TEST_CASE(test_multiple_interrupts_functional) {
  std::atomic<int> counter{0};
  fn::task double_("double", [&](const value& x, fn::call_context&) {
    ++counter;
    return value(2 * x.as_int());
  });
  auto graph = fn::entrypoint(ep("graph", saver()), [&](const value&, fn::call_context& ctx) {
    list values;
    for (int idx : {1, 2, 3}) {
      values.push_back(double_(ctx, idx).result());
      values.push_back(ctx.interrupt(object{{"a", "boo"}}));
    }
    return value(object{{"values", value(std::move(values))}});
  });
  const value config = thread("multiple-interrupts");
  graph->invoke(object{}, config);
  graph->invoke(resume("a"), config);
  graph->invoke(resume("b"), config);
  value result = graph->invoke(resume("c"), config);
  // `double` value should be cached appropriately when used w/ `interrupt`
  BOOST_TEST(result == value(object{{"values", value::array({2, "a", 4, "b", 6, "c"})}}));
  BOOST_TEST(counter == 3);
}

// libs/langgraph/tests/test_pregel.py::test_task_before_interrupt_resume
BOOST_AUTO_TEST_CASE(test_task_before_interrupt_resume) {
  fn::task ask(
      "ask", [](const value& question, fn::call_context& ctx) { return ctx.interrupt(question); });
  auto workflow = fn::entrypoint(
      ep("workflow", saver()), [&](const value& number_of_topics, fn::call_context& ctx) {
        fn::task setup("setup", [&](const value&, fn::call_context&) { return number_of_topics; });
        const std::int64_t n = setup(ctx, value()).result().as_int();
        list answers;
        for (std::int64_t i = 0; i < n; ++i) {
          std::string q = "Whats the answer for topic " + std::to_string(i + 1) + "?";
          answers.push_back(ask(ctx, q).result());
        }
        return value(object{{"answers", value(std::move(answers))}});
      });
  const value config = thread("1");

  // First invocation - should get first interrupt
  value result = workflow->invoke(2, config);
  BOOST_TEST(interrupt_values(result) ==
             std::vector<value>{value("Whats the answer for topic 1?")});

  // Resume with answer for topic 1 - should get second interrupt
  result = workflow->invoke(resume("answer1"), config);
  BOOST_TEST(interrupt_values(result) ==
             std::vector<value>{value("Whats the answer for topic 2?")});

  // Resume with answer for topic 2 - should get final result
  result = workflow->invoke(resume("answer2"), config);
  BOOST_TEST(result == value(object{{"answers", value::array({"answer1", "answer2"})}}));
}

// libs/langgraph/tests/test_pregel.py::test_multiple_tasks_before_interrupt_resume
BOOST_AUTO_TEST_CASE(test_multiple_tasks_before_interrupt_resume) {
  fn::task step_a("step_a",
                  [](const value& x, fn::call_context&) { return value(x.as_int() + 1); });
  fn::task step_b("step_b",
                  [](const value& x, fn::call_context&) { return value(x.as_int() * 2); });
  fn::task ask(
      "ask", [](const value& question, fn::call_context& ctx) { return ctx.interrupt(question); });
  auto workflow =
      fn::entrypoint(ep("workflow", saver()), [&](const value& inputs, fn::call_context& ctx) {
        value a = step_a(ctx, inputs.get("x")).result();
        value b = step_b(ctx, a).result();
        value answer =
            ask(ctx, "Result so far is " + std::to_string(b.as_int()) + ". What next?").result();
        return value(object{{"computed", b}, {"answer", answer}});
      });
  const value config = thread("1");

  // First invocation - should get interrupt
  value result = workflow->invoke(object{{"x", 5}}, config);
  BOOST_TEST(interrupt_values(result) ==
             std::vector<value>{value("Result so far is 12. What next?")});

  // Resume
  result = workflow->invoke(resume("continue"), config);
  BOOST_TEST(result == value(object{{"computed", 12}, {"answer", "continue"}}));
}

// libs/langgraph/tests/test_pregel.py::test_no_redundant_put_writes_for_cached_task
BOOST_AUTO_TEST_CASE(test_no_redundant_put_writes_for_cached_task) {
  auto spy = std::make_shared<spying_saver>(saver());
  fn::task setup("setup", [](const value& x, fn::call_context&) { return x; });
  fn::task ask(
      "ask", [](const value& question, fn::call_context& ctx) { return ctx.interrupt(question); });
  auto workflow = fn::entrypoint(ep("workflow", spy), [&](const value& x, fn::call_context& ctx) {
    value n = setup(ctx, x).result();
    value answer = ask(ctx, "q" + std::to_string(n.as_int())).result();
    return value(object{{"answer", answer}});
  });
  const value config = thread("1");
  value result = workflow->invoke(1, config);
  BOOST_TEST(result.find(INTERRUPT) != nullptr);

  spy->take_task_ids();
  result = workflow->invoke(resume("ans"), config);
  BOOST_TEST(result == value(object{{"answer", "ans"}}));
  // Exactly 2 tasks write: the ask task and the entrypoint task; the setup task that finished
  // before the interrupt is not committed again.
  std::set<std::string> non_null;
  for (const auto& id : spy->take_task_ids())
    if (id.rfind("00000000", 0) != 0) non_null.insert(id);
  BOOST_TEST(non_null.size() == 2u);
}

// libs/langgraph/tests/test_pregel_async.py::test_handles_multiple_interrupts_from_tasks
BOOST_AUTO_TEST_CASE(test_handles_multiple_interrupts_from_tasks) {
  fn::task add_participant("add_participant", [](const value& name, fn::call_context& ctx) {
    value feedback = ctx.interrupt("Hey do you want to add " + name.as_string() + "?");
    if (feedback == value(false))
      return value("The user changed their mind and doesn't want to add " + name.as_string() + "!");
    if (feedback == value(true)) return value("Added " + name.as_string() + "!");
    throw std::invalid_argument("Invalid feedback");
  });
  auto program = fn::entrypoint(ep("program", saver()), [&](const value&, fn::call_context& ctx) {
    value first = add_participant(ctx, "James").result();
    value second = add_participant(ctx, "Will").result();
    return value::array({first, second});
  });
  const value config = thread("1");

  value result = program->invoke("this is ignored", config);
  BOOST_TEST(result.as_object().size() == 1u);
  BOOST_TEST(interrupt_values(result) ==
             std::vector<value>{value("Hey do you want to add James?")});
  auto state = program->get_state(config);
  BOOST_REQUIRE(!state.tasks.empty());
  BOOST_REQUIRE(state.tasks[0].interrupts.size() == 1u);
  BOOST_TEST(state.tasks[0].interrupts[0].get("value") == value("Hey do you want to add James?"));

  result = program->invoke(resume(true), config);
  BOOST_TEST(interrupt_values(result) == std::vector<value>{value("Hey do you want to add Will?")});
  state = program->get_state(config);
  BOOST_REQUIRE(!state.tasks.empty());
  BOOST_REQUIRE(state.tasks[0].interrupts.size() == 1u);
  BOOST_TEST(state.tasks[0].interrupts[0].get("value") == value("Hey do you want to add Will?"));

  result = program->invoke(resume(true), config);
  BOOST_TEST(result == value::array({"Added James!", "Added Will!"}));
}

// libs/langgraph/tests/test_pregel_async.py::test_interrupts_in_tasks_surfaced_once
BOOST_AUTO_TEST_CASE(test_interrupts_in_tasks_surfaced_once) {
  fn::task add_participant("add_participant", [](const value& name, fn::call_context& ctx) {
    value feedback = ctx.interrupt("Hey do you want to add " + name.as_string() + "?");
    if (feedback == value(false))
      return value("The user changed their mind and doesn't want to add " + name.as_string() + "!");
    if (feedback == value(true)) return value("Added " + name.as_string() + "!");
    throw std::invalid_argument("Invalid feedback");
  });
  auto program = fn::entrypoint(ep("program", saver()), [&](const value&, fn::call_context& ctx) {
    value first = add_participant(ctx, "James").result();
    value second = add_participant(ctx, "Will").result();
    return value::array({first, second});
  });
  const value config = thread("1");
  auto interrupts_in = [](const std::vector<value>& events) {
    std::size_t n = 0;
    for (const auto& e : events)
      if (e.find(INTERRUPT)) ++n;
    return n;
  };

  BOOST_TEST(interrupts_in(collect(*program, "this is ignored", config)) == 1u);
  auto state = program->get_state(config);
  BOOST_REQUIRE(!state.tasks.empty());
  BOOST_REQUIRE(state.tasks[0].interrupts.size() == 1u);
  BOOST_TEST(state.tasks[0].interrupts[0].get("value") == value("Hey do you want to add James?"));

  BOOST_TEST(interrupts_in(collect(*program, resume(true), config)) == 1u);
  state = program->get_state(config);
  BOOST_REQUIRE(!state.tasks.empty());
  BOOST_REQUIRE(state.tasks[0].interrupts.size() == 1u);
  BOOST_TEST(state.tasks[0].interrupts[0].get("value") == value("Hey do you want to add Will?"));

  BOOST_TEST(program->invoke(resume(true), config) ==
             value::array({"Added James!", "Added Will!"}));
}

BOOST_AUTO_TEST_SUITE_END()
