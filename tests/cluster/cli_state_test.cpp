// `superstep run` with checkpoints, and `superstep state|history|update|delete`, on the seed's
// persistence example (node_a → node_b, `bar` with an append reducer) and on interrupts.
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "cluster/cli_support.hpp"

using namespace superstep;
using superstep::test::cli_result;
using superstep::test::example;
using superstep::test::quote;
using superstep::test::scratch;

namespace {

// A data folder of its own for each test, and the program run on it.
struct data_folder {
  scratch s;
  std::string dir = s.path("data");

  cli_result operator()(const std::string& args, const std::string& aes_key = "") const {
    return test::run_cli(args + " --data " + quote(dir), aes_key);
  }
};

const std::string seed_input = " --input '{\"foo\": \"\"}'";

std::string names(const value& list_value) {
  std::string s;
  for (const value& n : list_value.as_list()) s += (s.empty() ? "" : ",") + n.as_string();
  return s;
}

std::string checkpoint_id(const value& snapshot_or_config) {
  const value& config =
      snapshot_or_config.find("config") ? snapshot_or_config.get("config") : snapshot_or_config;
  return config.get("configurable").get("checkpoint_id").as_string();
}

std::string parent_id(const value& snapshot) {
  const value& parent = snapshot.get("parent_config");
  return parent.is_null() ? "" : checkpoint_id(parent);
}

}  // namespace

BOOST_AUTO_TEST_CASE(history_lists_the_four_checkpoints_of_the_seed_newest_first) {
  data_folder data;
  cli_result r = data("run " + example("seed_persistence") + seed_input + " --thread 1");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data").to_json() == R"({"foo":"b","bar":["a","b"]})");
  const value run_line = r.last();

  r = data("history --thread 1");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  std::vector<value> history = r.lines();
  BOOST_TEST_REQUIRE(history.size() == 4u);
  BOOST_TEST(run_line.get("checkpoint").as_string() == checkpoint_id(history[0]));
  const std::int64_t steps[] = {2, 1, 0, -1};
  const char* next[] = {"", "node_b", "node_a", "__start__"};
  const char* sources[] = {"loop", "loop", "loop", "input"};
  const char* values[] = {R"({"foo":"b","bar":["a","b"]})", R"({"foo":"a","bar":["a"]})",
                          R"({"foo":"","bar":[]})", R"({"bar":[]})"};
  for (std::size_t i = 0; i < 4; ++i) {
    BOOST_TEST_CONTEXT("checkpoint " << i) {
      BOOST_TEST(history[i].get("metadata").get("step").as_int() == steps[i]);
      BOOST_TEST(names(history[i].get("next")) == next[i]);
      BOOST_TEST(history[i].get("metadata").get("source").as_string() == sources[i]);
      BOOST_TEST(history[i].get("values").to_json() == values[i]);
      BOOST_TEST(parent_id(history[i]) == (i < 3 ? checkpoint_id(history[i + 1]) : ""));
      BOOST_TEST(history[i].get("created_at").as_string().size() > 20u);
    }
  }
  // The tasks of a past checkpoint show what they wrote.
  BOOST_TEST(history[1].get("tasks").as_list()[0].get("result").to_json() ==
             R"({"foo":"b","bar":["b"]})");

  // state is the newest checkpoint.
  cli_result now = data("state --thread 1");
  BOOST_TEST_REQUIRE(now.status == 0, now.err);
  BOOST_TEST(now.last().to_json() == history[0].to_json());

  BOOST_TEST(data("history --thread 1 --limit 2").lines().size() == 2u);
  std::vector<value> inputs = data("history --thread 1 --filter '{\"source\": \"input\"}'").lines();
  BOOST_TEST_REQUIRE(inputs.size() == 1u);
  BOOST_TEST(inputs[0].get("metadata").get("step").as_int() == -1);
  std::vector<value> older =
      data("history --thread 1 --before " + checkpoint_id(history[1])).lines();
  BOOST_TEST_REQUIRE(older.size() == 2u);
  BOOST_TEST(checkpoint_id(older[0]) == checkpoint_id(history[2]));
}

BOOST_AUTO_TEST_CASE(update_overwrites_foo_and_appends_to_bar) {
  data_folder data;
  BOOST_TEST_REQUIRE(
      data("run " + example("seed_persistence") + seed_input + " --thread 1").status == 0);
  cli_result r = data("update --thread 1 --values '{\"foo\": 2, \"bar\": [\"b\"]}'");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  value config = r.last();
  BOOST_TEST(config.get("configurable").get("thread_id") == value("1"));

  r = data("state --thread 1");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  value state = r.last();
  BOOST_TEST(state.get("values").to_json() == R"({"foo":2,"bar":["a","b","b"]})");
  BOOST_TEST(state.get("metadata").get("source") == value("update"));
  BOOST_TEST(state.get("metadata").get("step").as_int() == 3);
  BOOST_TEST(checkpoint_id(state) == checkpoint_id(config));
  BOOST_TEST(data("history --thread 1").lines().size() == 5u);

  // As node_a: node_b runs next, and continuing the thread runs it on the updated state.
  r = data("update --thread 1 --values '{\"foo\": \"x\"}' --as-node node_a");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(names(data("state --thread 1").last().get("next")) == "node_b");
  r = data("run --thread 1");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data").to_json() == R"({"foo":"b","bar":["a","b","b","b"]})");

  r = data("update --thread 1 --values '{\"foo\": 1}' --as-node ghost");
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("unknown node 'ghost'") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_CASE(running_from_the_middle_checkpoint_forks_the_thread) {
  data_folder data;
  BOOST_TEST_REQUIRE(
      data("run " + example("seed_persistence") + seed_input + " --thread 1").status == 0);
  std::vector<value> before = data("history --thread 1").lines();
  BOOST_TEST_REQUIRE(before.size() == 4u);
  const std::string middle = checkpoint_id(before[1]);  // after node_a, next node_b

  cli_result r = data("run --thread 1 --checkpoint " + middle);
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data").to_json() == R"({"foo":"b","bar":["a","b"]})");

  std::vector<value> after = data("history --thread 1").lines();
  BOOST_TEST_REQUIRE(after.size() == 6u);  // the 4 originals, the fork and node_b's rerun
  BOOST_TEST(after[1].get("metadata").get("source") == value("fork"));
  BOOST_TEST(parent_id(after[1]) == middle);
  BOOST_TEST(parent_id(after[0]) == checkpoint_id(after[1]));
  BOOST_TEST(r.last().get("checkpoint").as_string() == checkpoint_id(after[0]));

  // A state at a past checkpoint, by id.
  r = data("state --thread 1 --checkpoint " + middle);
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(names(r.last().get("next")) == "node_b");
}

BOOST_AUTO_TEST_CASE(continuing_a_finished_thread_prints_its_output_again) {
  data_folder data;
  cli_result first = data("run " + example("seed_persistence") + seed_input + " --thread 1");
  BOOST_TEST_REQUIRE(first.status == 0, first.err);
  cli_result again = data("run --thread 1");
  BOOST_TEST(again.status == 0, again.err);
  BOOST_TEST(again.last().to_json() == first.last().to_json());
  BOOST_TEST(data("history --thread 1").lines().size() == 4u);  // nothing ran
}

BOOST_AUTO_TEST_CASE(a_run_without_thread_gets_one_that_later_commands_use) {
  data_folder data;
  cli_result r = data("run " + example("seed_persistence") + seed_input + " --durability exit");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  const std::string thread = r.last().get("thread").as_string();
  BOOST_TEST(thread.size() == 36u);
  r = data("history --thread " + thread);
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(r.lines().size() == 1u);  // durability exit: the final checkpoint only
  BOOST_TEST(r.last().get("values").to_json() == R"({"foo":"b","bar":["a","b"]})");
}

BOOST_AUTO_TEST_CASE(an_interrupt_exits_with_three_and_resume_answers_it) {
  data_folder data;
  cli_result r = data("run " + example("ask_name") + " --input '{}' --thread t");
  BOOST_TEST_REQUIRE(r.status == 3, r.err);
  value line = r.last();
  BOOST_TEST(line.get("type") == value("interrupt"));
  BOOST_TEST(line.get("thread") == value("t"));
  BOOST_TEST_REQUIRE(line.get("interrupts").as_list().size() == 1u);
  BOOST_TEST(line.get("interrupts").as_list()[0].get("value") == value("what is your name?"));
  BOOST_TEST(line.get("interrupts").as_list()[0].get("id").as_string().size() == 32u);
  BOOST_TEST(names(line.get("next")) == "ask");

  value state = data("state --thread t").last();
  BOOST_TEST_REQUIRE(state.get("tasks").as_list().size() == 1u);
  BOOST_TEST(state.get("tasks").as_list()[0].get("interrupts").as_list().size() == 1u);
  BOOST_TEST(state.get("tasks").as_list()[0].get("result").is_null());

  r = data("run --thread t --resume '\"Lance\"'");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.last().get("type") == value("output"));
  BOOST_TEST(r.last().get("data").to_json() == R"({"name":"Lance","greeting":"hello Lance"})");

  // As LangGraph: a resume with no pending interrupt is no error; nothing is left to run.
  r = data("run --thread t --resume '\"again\"'");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data").to_json() == R"({"name":"Lance","greeting":"hello Lance"})");
}

BOOST_AUTO_TEST_CASE(a_static_interrupt_exits_with_three_and_continuing_passes_it) {
  data_folder data;
  std::string spec = data.s.write("static.json", R"({"spec": "superstep.graph/1",
    "state": {"foo": {}, "bar": {"reducer": "append"}},
    "nodes": {"node_a": {"fn": "std.set", "params": {"update": {"foo": "a", "bar": ["a"]}}},
              "node_b": {"fn": "std.set", "params": {"update": {"foo": "b", "bar": ["b"]}}}},
    "edges": [["__start__", "node_a"], ["node_a", "node_b"]],
    "interrupt_before": ["node_b"]})");
  cli_result r = data("run " + quote(spec) + seed_input + " --thread s");
  BOOST_TEST_REQUIRE(r.status == 3, r.err);
  BOOST_TEST(r.last().get("type") == value("interrupt"));
  BOOST_TEST(r.last().get("interrupts").as_list().empty());
  BOOST_TEST(names(r.last().get("next")) == "node_b");
  r = data("run --thread s");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data").to_json() == R"({"foo":"b","bar":["a","b"]})");
}

BOOST_AUTO_TEST_CASE(a_failed_step_is_resumed_without_rerunning_its_finished_tasks) {
  data_folder data;
  // "flaky" always fails (1000 attempts); the fixed spec (same nodes and edges) makes it
  // succeed: the fix is what changes between runs.
  auto spec = [&](const char* name, const char* flaky) {
    return data.s.write(name, std::string(R"({"spec": "superstep.graph/1",
      "state": {"log": {"reducer": "append"}},
      "nodes": {"ok": {"fn": "std.emit", "params": {"data": "ok ran", "update": {"log": ["ok"]}}},
                "flaky": )") + flaky +
                                  R"(},
      "edges": [["__start__", "ok"], ["__start__", "flaky"]]})");
  };
  std::string broken = spec("broken.json", R"({"fn": "std.fail", "params": {"times": 1000}})");
  std::string fixed =
      spec("fixed.json", R"({"fn": "std.set", "params": {"update": {"log": ["flaky"]}}})");
  cli_result r = data("run " + quote(broken) + " --input '{\"log\": []}' --thread f");
  BOOST_TEST_REQUIRE(r.status == 1);
  BOOST_TEST(r.err.find("fails on purpose") != std::string::npos, r.err);

  value state = data("state --thread f").last();
  BOOST_TEST_REQUIRE(state.get("tasks").as_list().size() == 2u);
  for (const value& t : state.get("tasks").as_list()) {
    BOOST_TEST_CONTEXT(t.get("name")) {
      if (t.get("name") == value("ok")) {
        BOOST_TEST(t.get("result").to_json() == R"({"log":["ok"]})");
        BOOST_TEST(t.get("error").is_null());
      } else {
        BOOST_TEST(t.get("error").as_string().find("fails on purpose") != std::string::npos);
        BOOST_TEST(t.get("result").is_null());
      }
    }
  }
  r = data("run --thread f --stream custom --graph " + quote(fixed));
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(r.lines().size() == 1u, r.out);  // no custom event: "ok" did not run again
  BOOST_TEST(r.last().get("data").to_json() == R"({"log":["flaky","ok"]})");
  // The fixed spec is the thread's spec from now on.
  BOOST_TEST(data("state --thread f").status == 0);
  BOOST_TEST(data("history --thread f").lines().front().get("values").to_json() ==
             R"({"log":["flaky","ok"]})");
}

BOOST_AUTO_TEST_CASE(state_of_a_failed_fan_out_shows_each_sends_result_and_the_error) {
  data_folder data;
  // 300 Sends beside a node that fails: the step's 300 results are saved, then the run fails.
  std::string spec = data.s.write("fan.json", R"({"spec": "superstep.graph/1",
    "state": {"results": {"reducer": "append"}, "total": {}},
    "nodes": {"worker": {"fn": "std.map",
                         "params": {"from": "item", "to": "results", "mul": 3, "add": 1,
                                    "wrap": "list"}},
              "flaky": {"fn": "std.fail", "params": {"times": 1000}},
              "reduce": {"fn": "std.sum", "params": {"from": "results", "to": "total"}}},
    "edges": [["__start__", "flaky"], ["worker", "reduce"], ["reduce", "__end__"]],
    "conditional_edges": [{"from": "__start__", "router": "std.send_each",
                           "params": {"items": 300, "node": "worker", "as": "item"}}]})");
  cli_result r = data("run " + quote(spec) + " --input '{\"results\": []}' --thread f");
  BOOST_TEST_REQUIRE(r.status == 1, r.err);

  const value state = data("state --thread f").last();
  const list& tasks = state.get("tasks").as_list();
  BOOST_TEST_REQUIRE(tasks.size() == 301u);
  // As LangGraph's snapshot: the Sends (PUSH tasks) first, then the PULL tasks.
  BOOST_TEST(tasks[300].get("name") == value("flaky"));
  BOOST_TEST(tasks[300].get("error").as_string().find("fails on purpose") != std::string::npos);
  BOOST_TEST(tasks[300].get("result").is_null());
  for (std::int64_t i = 0; i < 300; ++i) {
    const value& t = tasks[static_cast<std::size_t>(i)];
    BOOST_TEST_CONTEXT("Send " << i) {
      BOOST_TEST(t.get("name") == value("worker"));
      BOOST_TEST(t.get("error").is_null());
      BOOST_TEST(t.get("result").to_json() == R"({"results":[)" + std::to_string(3 * i + 1) + "]}");
    }
  }
  // The thread's state applies the Sends' saved results and names only the failed node next
  // (LangGraph get_state); history, and the state at that checkpoint's id, show it as saved.
  BOOST_TEST(state.get("values").get("results").as_list().size() == 300u);
  BOOST_TEST(state.get("next").to_json() == R"(["flaky"])");
  const value saved = data("history --thread f --limit 1").last();
  BOOST_TEST(saved.get("values").to_json() == R"({"results":[]})");
  // Each task still to run, in task order (LangGraph's next).
  list every_task(300, value("worker"));
  every_task.emplace_back("flaky");
  BOOST_TEST(saved.get("next").to_json() == value(every_task).to_json());
  BOOST_TEST(saved.get("tasks").to_json() == state.get("tasks").to_json());
  const std::string id = saved.get("config").get("configurable").get("checkpoint_id").as_string();
  BOOST_TEST(data("state --thread f --checkpoint " + id).last().to_json() == saved.to_json());
}

BOOST_AUTO_TEST_CASE(delete_removes_the_thread_and_its_spec) {
  data_folder data;
  BOOST_TEST_REQUIRE(
      data("run " + example("seed_persistence") + seed_input + " --thread 1").status == 0);
  BOOST_TEST_REQUIRE(data("run " + example("ask_name") + " --input '{}' --thread 2").status == 3);
  cli_result r = data("delete --thread 1");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(r.out == "{\"thread\":\"1\",\"deleted\":true}\n");

  const std::string missing = "error: thread '1' has no checkpoints in " + data.dir + "\n";
  for (const char* command : {"state --thread 1", "history --thread 1", "delete --thread 1",
                              "run --thread 1", "update --thread 1 --values '{}'"}) {
    BOOST_TEST_CONTEXT(command) {
      r = data(command);
      BOOST_TEST(r.status == 1);
      BOOST_TEST(r.err == missing);
      BOOST_TEST(r.out.empty());
    }
  }
  // The other thread is untouched, and it still finds its spec.
  BOOST_TEST(data("state --thread 2").status == 0);
  BOOST_TEST(data("run --thread 2 --resume '\"Ada\"'").last().get("data").get("greeting") ==
             value("hello Ada"));
}

BOOST_AUTO_TEST_CASE(a_missing_checkpoint_or_spec_is_an_error_naming_it) {
  data_folder data;
  BOOST_TEST_REQUIRE(
      data("run " + example("seed_persistence") + seed_input + " --thread 1").status == 0);
  for (const char* command :
       {"state --thread 1 --checkpoint bogus", "run --thread 1 --checkpoint bogus",
        "history --thread 1 --before bogus",
        "update --thread 1 --checkpoint bogus --values '{}'"}) {
    BOOST_TEST_CONTEXT(command) {
      cli_result r = data(command);
      BOOST_TEST(r.status == 1);
      BOOST_TEST(r.err == "error: checkpoint bogus not found in thread 1\n");
    }
  }
  // Without the saved spec, --graph gives it.
  test::fs::remove_all(test::fs::path(data.dir) / "graphs");
  cli_result r = data("state --thread 1");
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("thread '1' has no graph spec in") != std::string::npos, r.err);
  r = data("state --thread 1 --graph " + example("seed_persistence"));
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.last().get("values").to_json() == R"({"foo":"b","bar":["a","b"]})");
  r = data("state --thread 1 --graph " + quote(data.s.path("nowhere.json")));
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("cannot read it") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_CASE(a_wrong_encryption_key_is_a_clear_error) {
  data_folder data;
  const std::string key(64, '1'), other(64, '2');
  cli_result r = data("run " + example("seed_persistence") + seed_input + " --thread 1", key);
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  r = data("state --thread 1", other);
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("failed authentication") != std::string::npos, r.err);
  BOOST_TEST(r.out.empty());
  r = data("history --thread 1");  // no key at all
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.rfind("error: ", 0) == 0, r.err);
  r = data("state --thread 1", "not-a-key");
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("SUPERSTEP_AES_KEY") != std::string::npos, r.err);
  r = data("state --thread 1", key);
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.last().get("values").to_json() == R"({"foo":"b","bar":["a","b"]})");
}

BOOST_AUTO_TEST_CASE(a_damaged_data_folder_is_a_clear_error) {
  data_folder data;
  test::fs::create_directories(data.dir);
  data.s.write("data/CURRENT", "this is not a manifest name\n");
  for (std::string command :
       {std::string("state --thread 1"), "run " + example("seed_persistence") + seed_input}) {
    BOOST_TEST_CONTEXT(command) {
      cli_result r = data(command);
      BOOST_TEST(r.status == 1);  // not -1: no crash
      BOOST_TEST(r.err.rfind("error: ", 0) == 0, r.err);
      BOOST_TEST(r.err.find(data.dir) != std::string::npos, r.err);
    }
  }
  // A file where the folder should be.
  data_folder file;
  file.s.write("data", "x");
  cli_result r = file("state --thread 1");
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find(file.dir) != std::string::npos, r.err);
}

BOOST_AUTO_TEST_CASE(the_default_data_folder_is_in_the_working_directory) {
  // run_cli runs in a scratch directory of its own; run both commands in one shell there.
  cli_result r = test::run_cli("run " + example("seed_persistence") + seed_input +
                               " --thread 1 >/dev/null && " + quote(test::superstep_bin()) +
                               " history --thread 1 && test -d .superstep/graphs");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.lines().size() == 4u);
}

// issue 13: resuming a replayed fork wrote over the branch it left (the fork's head had lower
// channel versions than that branch, and values are stored once per channel version).
BOOST_AUTO_TEST_CASE(resuming_a_replayed_fork_leaves_the_old_branch_as_it_was) {
  data_folder data;
  BOOST_TEST_REQUIRE(data("run " + example("ask_name") + " --input '{}' --thread t").status == 3);
  cli_result r = data("run --thread t --resume '\"old\"'");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  std::vector<value> old_branch = data("history --thread t").lines();
  std::string before_ask;
  for (const value& s : old_branch)
    if (names(s.get("next")) == "ask") before_ask = checkpoint_id(s);
  BOOST_TEST_REQUIRE(!before_ask.empty());

  r = data("run --thread t --checkpoint " + before_ask);
  BOOST_TEST_REQUIRE(r.status == 3, r.err);
  r = data("run --thread t --resume '\"new\"'");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data").to_json() == R"({"name":"new","greeting":"hello new"})");

  for (const value& s : old_branch) {
    r = data("state --thread t --checkpoint " + checkpoint_id(s));
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    BOOST_TEST(r.last().get("values").to_json() == s.get("values").to_json());
  }
  BOOST_TEST(old_branch.front().get("values").to_json() ==
             R"({"name":"old","greeting":"hello old"})");
  // And through history: the old branch's checkpoints, unchanged, beside the new ones.
  std::vector<value> all = data("history --thread t").lines();
  BOOST_TEST(all.size() == old_branch.size() + 3u);  // the fork, after ask, after greet
  for (const value& s : all)
    for (const value& o : old_branch)
      if (checkpoint_id(s) == checkpoint_id(o))
        BOOST_TEST(s.get("values").to_json() == o.get("values").to_json());
}

// issue 13: Command(resume, update) lost its update when the resumed step interrupted again
// (here a parallel interrupt still pending: the step makes no checkpoint).
BOOST_AUTO_TEST_CASE(an_update_sent_with_a_resume_survives_a_step_that_interrupts_again) {
  data_folder data;
  std::string spec = data.s.write("two_asks.json", R"({"spec": "superstep.graph/1",
    "state": {"my_key": {"reducer": "add"}, "q1": {}, "q2": {}},
    "nodes": {"ask1": {"fn": "std.interrupt", "params": {"value": "one?", "to": "q1"}},
              "ask2": {"fn": "std.interrupt", "params": {"value": "two?", "to": "q2"}}},
    "edges": [["__start__", "ask1"], ["__start__", "ask2"]]})");
  cli_result r = data("run " + quote(spec) + " --input '{\"my_key\": \"DE\"}' --thread u");
  BOOST_TEST_REQUIRE(r.status == 3, r.err);
  std::string id1, id2;
  const value line = r.last();
  for (const value& i : line.get("interrupts").as_list())
    (i.get("value") == value("one?") ? id1 : id2) = i.get("id").as_string();
  BOOST_TEST_REQUIRE((!id1.empty() && !id2.empty()));

  r = data("run --thread u --resume '{\"" + id1 +
           "\": \"a1\"}' --update '{\"my_key\": \" foofoo \"}'");
  BOOST_TEST_REQUIRE(r.status == 3, r.err);
  BOOST_TEST(data("state --thread u").last().get("values").get("my_key") == value("DE foofoo "));

  // Both answers again: the task answered by the earlier partial resume keeps its result
  // (the map's answer to its old interrupt is not used), and the update is not applied twice.
  r = data("run --thread u --resume '{\"" + id1 + "\": \"a1\", \"" + id2 + "\": \"a2\"}'");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data").to_json() == R"({"my_key":"DE foofoo ","q1":"a1","q2":"a2"})");
  BOOST_TEST(data("history --thread u").lines().front().get("values").get("my_key") ==
             value("DE foofoo "));

  r = data("run --thread u --update '{\"my_key\": \"x\"}'");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(r.err.find("--update goes with --resume") != std::string::npos, r.err);
}

// The same through `superstep update` on the fork's head: new versions, not the old branch's.
BOOST_AUTO_TEST_CASE(an_update_to_a_replayed_fork_leaves_the_old_branch_as_it_was) {
  data_folder data;
  BOOST_TEST_REQUIRE(data("run " + example("ask_name") + " --input '{}' --thread t").status == 3);
  BOOST_TEST_REQUIRE(data("run --thread t --resume '\"old\"'").status == 0);
  std::vector<value> old_branch = data("history --thread t").lines();
  std::string before_ask;
  for (const value& s : old_branch)
    if (names(s.get("next")) == "ask") before_ask = checkpoint_id(s);
  BOOST_TEST_REQUIRE(!before_ask.empty());
  BOOST_TEST_REQUIRE(data("run --thread t --checkpoint " + before_ask).status == 3);

  cli_result r = data("update --thread t --values '{\"name\": \"patched\"}' --as-node ask");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(data("state --thread t").last().get("values").get("name") == value("patched"));
  for (const value& s : old_branch) {
    r = data("state --thread t --checkpoint " + checkpoint_id(s));
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    BOOST_TEST(r.last().get("values").to_json() == s.get("values").to_json());
  }
}

// `superstep update --as-node __end__` clears the pending interrupt and next tasks; `__copy__`
// forks the checkpoint, and a resume of the fork answers the interrupt it raises again.
BOOST_AUTO_TEST_CASE(update_as_end_clears_an_interrupt_and_update_as_copy_forks) {
  data_folder data;
  BOOST_TEST_REQUIRE(data("run " + example("ask_name") + " --input '{}' --thread t").status == 3);
  cli_result r = data("update --thread t --values null --as-node __end__");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  value state = data("state --thread t").last();
  BOOST_TEST(state.get("next").as_list().empty());
  BOOST_TEST(state.get("tasks").as_list().empty());
  BOOST_TEST(state.get("metadata").get("source") == value("update"));

  std::string before_ask;
  for (const value& s : data("history --thread t").lines())
    if (names(s.get("next")) == "ask") before_ask = checkpoint_id(s);
  BOOST_TEST_REQUIRE(!before_ask.empty());
  r = data("update --thread t --checkpoint " + before_ask + " --values null --as-node __copy__");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(data("state --thread t").last().get("metadata").get("source") == value("fork"));
  BOOST_TEST_REQUIRE(data("run --thread t").status == 3);
  r = data("run --thread t --resume '\"Lance\"'");
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data").to_json() == R"({"name":"Lance","greeting":"hello Lance"})");
}
