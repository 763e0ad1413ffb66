// LangGraph.js's createReactAgent on the workload of superstep_agent_bench's "in-process" mode:
// a chat model that answers at once (asks for the no-op tool until the conversation holds
// STEPS tool answers, then says "done"), so the time per step is the framework's own. Prints
// one JSON line: median, min and max of the per-step time over REPEATS runs after a warm-up.
// Run it from a folder whose node_modules has the LangGraph.js harness's packages
// (../shared/peer/langgraphjs: npm install there, or copy its package*.json and install):
//
//   cp bench/langgraphjs_agent_step.mjs DIR/ && node DIR/langgraphjs_agent_step.mjs [STEPS] [REPEATS]
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { createReactAgent } from "@langchain/langgraph/prebuilt";

const steps = Number(process.argv[2] ?? 50);
const repeats = Number(process.argv[3] ?? 15);

class InstantModel extends BaseChatModel {
  constructor(n) {
    super({});
    this.n = n;
  }
  _llmType() {
    return "instant";
  }
  bindTools() {
    return this;
  }
  async _generate(messages) {
    const answered = messages.filter((m) => m._getType() === "tool").length;
    const message =
      answered >= this.n
        ? new AIMessage("done")
        : new AIMessage({
            content: "",
            tool_calls: [{ name: "noop", args: {}, id: `call_${answered}`, type: "tool_call" }],
          });
    return { generations: [{ text: "", message }] };
  }
}

const noop = tool(async () => "ok", {
  name: "noop",
  description: "does nothing",
  schema: { type: "object", properties: {} },
});

async function runOnce() {
  const agent = createReactAgent({ llm: new InstantModel(steps), tools: [noop] });
  const start = process.hrtime.bigint();
  const out = await agent.invoke(
    { messages: [new HumanMessage("go")] },
    { recursionLimit: 2 * steps + 5 },
  );
  const end = process.hrtime.bigint();
  if (out.messages.length !== 2 * steps + 2 || out.messages.at(-1).content !== "done")
    throw new Error(`unexpected output: ${out.messages.length} messages`);
  return Number(end - start) / 1000 / steps;
}

await runOnce();
const v = [];
for (let r = 0; r < repeats; ++r) v.push(await runOnce());
v.sort((a, b) => a - b);
console.log(
  JSON.stringify({
    workload: "react_agent_step",
    runtime: "langgraphjs",
    steps,
    repeats,
    us_per_step_median: +v[Math.floor(v.length / 2)].toFixed(1),
    us_per_step_min: +v[0].toFixed(1),
    us_per_step_max: +v.at(-1).toFixed(1),
  }),
);
