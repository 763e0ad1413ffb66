// superstep_agent_bench: the framework's own cost per agent step (a model call and a tool call,
// two supersteps of create_react_agent), with a model that answers at once:
//  - "in-process": a chat_model double that answers without I/O (model time ~0);
//  - "http": the OpenAI-compatible client against the scripted server on loopback (adds the
//    HTTP client, JSON both ways and the loopback round trip).
// The tool does nothing. Prints one JSON line per mode: median, min and max of the per-step
// time over the repetitions.
//
//   superstep_agent_bench [STEPS=50] [REPEATS=15]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "agents/scripted_openai_server.hpp"
#include "superstep/agents/messages.hpp"
#include "superstep/agents/openai_chat_model.hpp"
#include "superstep/agents/react_agent.hpp"

using namespace superstep;
using namespace superstep::agents;

namespace {

// Asks for the tool until the conversation holds `steps` tool answers, then answers.
class instant_model final : public chat_model {
 public:
  explicit instant_model(int steps) : steps_(steps) {}
  std::string describe() const override { return "instant model"; }

 protected:
  value generate(const list& messages, const chat_options&) const override {
    int answered = 0;
    for (const value& m : messages) answered += message_type(m) == "tool";
    if (answered >= steps_) return ai_message("done");
    return ai_message("", {tool_call{"noop", object{}, "call_" + std::to_string(answered)}});
  }
  value generate_stream(const list& messages, const chat_options& options,
                        const chunk_callback&) const override {
    return generate(messages, options);
  }

 private:
  int steps_;
};

tool noop_tool() {
  tool t;
  t.name = "noop";
  t.description = "does nothing";
  t.function = [](const value&, tool_runtime&) -> value { return "ok"; };
  return t;
}

list script_for(int steps) {
  list script;
  for (int i = 0; i < steps; ++i)
    script.push_back(value::parse_json(R"({"tool_calls": [{"id": "call_)" + std::to_string(i) +
                                       R"(", "name": "noop", "args": {}}]})"));
  script.push_back(value::parse_json(R"({"content": "done"})"));
  return script;
}

struct figures {
  double median, min, max;
};

figures summarize(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

double run_once(const std::shared_ptr<const chat_model>& model, int steps) {
  react_agent_options o;
  o.stream_tokens = false;
  auto agent = create_react_agent(model, {noop_tool()}, o);
  value input(object{{"messages", value::array({human_message("go")})}});
  value config(object{{"recursion_limit", 2 * steps + 5}});
  auto start = std::chrono::steady_clock::now();
  value out = agent->invoke(input, config);
  auto end = std::chrono::steady_clock::now();
  const auto& messages = out.get("messages").as_list();
  if (messages.size() != static_cast<std::size_t>(2 * steps + 2) ||
      message_text(messages.back()) != "done") {
    std::fprintf(stderr, "unexpected output: %s\n", out.to_json().substr(0, 300).c_str());
    std::exit(1);
  }
  return std::chrono::duration<double, std::micro>(end - start).count() / steps;
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 50;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 15;
  if (steps < 1 || repeats < 1) {
    std::fprintf(stderr, "usage: superstep_agent_bench [STEPS>0] [REPEATS>0]\n");
    return 2;
  }
  auto instant = std::make_shared<instant_model>(steps);
  std::vector<double> local, http;
  run_once(instant, steps);  // warm-up
  for (int r = 0; r < repeats; ++r) local.push_back(run_once(instant, steps));
  for (int r = 0; r <= repeats; ++r) {
    test::scripted_openai_server server(script_for(steps));
    openai_chat_options oc;
    oc.base_url = server.base_url();
    oc.model = "bench";
    oc.key_env = "";
    auto model = make_openai_chat_model(oc);
    double t = run_once(model, steps);
    if (r > 0) http.push_back(t);  // the first is a warm-up
  }
  for (const auto& [mode, v] : {std::pair{"in-process", local}, std::pair{"http", http}}) {
    figures f = summarize(v);
    std::printf(
        "{\"workload\": \"react_agent_step\", \"model\": \"%s\", \"steps\": %d, \"repeats\": %d, "
        "\"us_per_step_median\": %.1f, \"us_per_step_min\": %.1f, \"us_per_step_max\": %.1f}\n",
        mode, steps, repeats, f.median, f.min, f.max);
  }
  return 0;
}
