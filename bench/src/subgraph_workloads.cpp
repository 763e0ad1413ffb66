// fanout_to_subgraph_{10,100}x, the shape of LangGraph's bench/fanout_to_subgraph.py: the
// parent sends one Send per subject to a node that is a compiled subgraph; the subgraph edits
// the subject, makes a joke of it and bumps the joke in a loop until it ends with " a" ten
// times; the parent folds the subgraphs' outputs with `append`.
#include <cstdint>
#include <random>
#include <string>

#include "bench.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/pregel/send.hpp"

namespace superstep::bench {

namespace {

const std::string start_node(START);
const std::string end_node(END);
constexpr int letters_per_subject = 1000;
constexpr int bumps = 10;
const std::string bump_suffix = " a";

// `count` subjects, each a list of 1000 one-letter strings drawn with a fixed seed, so every
// run and every build gets the same input.
list random_subjects(int count) {
  std::mt19937 rng(0x5eed + static_cast<std::uint32_t>(count));
  list subjects;
  subjects.reserve(static_cast<std::size_t>(count));
  for (int s = 0; s < count; ++s) {
    list letters;
    letters.reserve(letters_per_subject);
    for (int i = 0; i < letters_per_subject; ++i)
      letters.emplace_back(std::string(1, static_cast<char>('a' + rng() % 26)));
    subjects.emplace_back(std::move(letters));
  }
  return subjects;
}

// The subgraph: input {subject}, output {jokes}; both keys keep their last value, so a bump
// replaces the joke (the parent's `append` is what gathers them).
std::shared_ptr<pregel> joke_subgraph() {
  state_graph b;
  b.add_key("subject").add_key("jokes");
  b.set_input_keys({"subject"}).set_output_keys({"jokes"});
  b.add_node("edit", [](const value& st, node_context&) -> value {
    // As the Python f-string does with a list: its printed form, then the suffix.
    return object{{"subject", st.get("subject").to_json() + " - hohoho"}};
  });
  b.add_node("generate", [](const value& st, node_context&) -> value {
    return object{{"jokes", value::array({"Joke about " + st.get("subject").as_string()})}};
  });
  b.add_node("bump", [](const value& st, node_context&) -> value {
    return object{{"jokes", value::array({st.get("jokes").as_list().at(0).as_string() + " a"})}};
  });
  b.set_entry_point("edit");
  b.add_edge("edit", "generate").add_edge("generate", "bump");
  b.add_conditional_edges("bump", [](const value& st, node_context&) -> value {
    const std::string& joke = st.get("jokes").as_list().at(0).as_string();
    std::string tail;
    for (int i = 0; i < bumps; ++i) tail += bump_suffix;
    const bool done = joke.size() >= tail.size() &&
                      joke.compare(joke.size() - tail.size(), tail.size(), tail) == 0;
    return done ? value(end_node) : value("bump");
  });
  b.set_finish_point("generate");
  return b.compile();
}

// A timed run is `invokes` runs of the graph (10x alone is too short for the clock); the unit
// is one subgraph run (edit, generate, 10 bumps: 12 supersteps).
measurement fanout_to_subgraph(int subjects, int invokes, const options& opts,
                               const std::string& mode) {
  state_graph b;
  b.add_key("subjects").add_key("jokes", "append", value(list{}));
  b.add_node("generate_joke", joke_subgraph());
  b.add_conditional_edges(start_node, [](const value& st, node_context&) -> value {
    const list& all = st.get("subjects").as_list();
    list sends;
    sends.reserve(all.size());
    for (const value& s : all) sends.push_back(make_send("generate_joke", object{{"subject", s}}));
    return value(std::move(sends));
  });
  b.add_edge("generate_joke", end_node);
  graph_setup setup(mode);
  auto graph = b.compile(setup.compile());

  const value subject_list(random_subjects(subjects));
  const value input = object{{"subjects", subject_list}};
  std::vector<std::string> expected;
  for (const value& s : subject_list.as_list()) {
    std::string joke = "Joke about " + s.to_json() + " - hohoho";
    for (int i = 0; i < bumps; ++i) joke += bump_suffix;
    expected.push_back(std::move(joke));
  }
  const std::string name = "fanout_to_subgraph_" + std::to_string(subjects) + "x";
  return measure(
      mode, name, "subgraph", std::int64_t{subjects} * invokes, opts.runs,
      [&] {
        for (int r = 0; r < invokes; ++r) {
          value out = graph->invoke(input, setup.config());
          const list& jokes = out.get("jokes").as_list();
          check(jokes.size() == expected.size(), name + ": " + std::to_string(jokes.size()) +
                                                     " jokes, want " +
                                                     std::to_string(expected.size()));
          for (std::size_t i = 0; i < jokes.size(); ++i)
            check(jokes[i].is_string() && jokes[i].as_string() == expected[i],
                  name + ": joke " + std::to_string(i) + " is not the subject's, bumped " +
                      std::to_string(bumps) + " times (got " + jokes[i].to_json().substr(0, 80) +
                      "...)");
        }
      },
      setup.forget_runs(graph));
}

}  // namespace

std::vector<workload> subgraph_workloads() {
  return {
      {"fanout_to_subgraph_10x",
       [](const options& o, const std::string& m) { return fanout_to_subgraph(10, 10, o, m); }},
      {"fanout_to_subgraph_100x",
       [](const options& o, const std::string& m) { return fanout_to_subgraph(100, 1, o, m); }},
  };
}

}  // namespace superstep::bench
