// LangGraph.js's RemoteGraph (npm @langchain/langgraph) on a graph superstep serves: invoked and
// streamed alone (LangGraph's API test case "RemoteGraph: stream values", ported), its state
// read through it, and used as a node of a LangGraph.js graph with a checkpointer.
import { Client } from "@langchain/langgraph-sdk";
import { RemoteGraph } from "@langchain/langgraph/remote";
import { Annotation, MemorySaver, StateGraph, START, END } from "@langchain/langgraph";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";

import { gather, startServer } from "./support.mjs";

const globalConfig = { configurable: { user_id: "123" } };
let server;
let client;

before(async () => {
  server = await startServer();
  client = new Client({ apiUrl: server.url });
});

after(async () => {
  await server?.stop();
  server?.cleanup();
});

const contents = (state) => state.messages.map((m) => m.content);

describe("RemoteGraph", () => {
  it("stream values", async () => {
    const graph = new RemoteGraph({ graphId: "agent", client, config: globalConfig });
    const chunks = await gather(graph.stream(
      { messages: [{ type: "human", content: "foo", id: "initial-message" }] },
      { streamMode: "values", ...globalConfig },
    ));
    assert.deepEqual(chunks.map(contents), [
      ["foo"],
      ["foo", "begin"],
      ["foo", "begin", "tool_call__begin"],
      ["foo", "begin", "tool_call__begin", "end"],
    ]);
  });

  it("invoke on a thread, then read its state and history through it", async () => {
    const graph = new RemoteGraph({ graphId: "agent", url: server.url });
    const thread = await client.threads.create();
    const config = { configurable: { thread_id: thread.thread_id } };
    const out = await graph.invoke({ messages: [{ type: "human", content: "foo" }] }, config);
    assert.deepEqual(contents(out), ["foo", "begin", "tool_call__begin", "end"]);
    const state = await graph.getState(config);
    assert.deepEqual(contents(state.values), contents(out));
    assert.deepEqual(state.next, []);
    const history = [];
    for await (const s of graph.getStateHistory(config)) history.push(s);
    assert.equal(history.length, 5);
    const updates = await gather(graph.stream(
      { messages: [{ type: "human", content: "bar" }] },
      { ...config, streamMode: "updates" },
    ));
    assert.deepEqual(updates.map((u) => Object.keys(u)[0]), ["agent", "tool", "agent"]);
  });

  it("a node of a LangGraph.js graph with a checkpointer", async () => {
    const remote = new RemoteGraph({ graphId: "agent", url: server.url });
    const State = Annotation.Root({
      messages: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
      seen: Annotation({ reducer: (a, b) => b ?? a, default: () => 0 }),
    });
    const outer = new StateGraph(State)
      .addNode("prepare", () => ({ messages: [{ type: "human", content: "foo" }] }))
      .addNode("remote", remote)
      .addNode("count", (s) => ({ seen: s.messages.length }))
      .addEdge(START, "prepare")
      .addEdge("prepare", "remote")
      .addEdge("remote", "count")
      .addEdge("count", END)
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: randomUUID() } };
    const out = await outer.invoke({}, config);
    // The remote agent answered the human message; the outer reducer appends what it returned.
    const texts = out.messages.map((m) => m.content ?? m.kwargs?.content);
    assert.ok(texts.includes("end"), JSON.stringify(texts));
    assert.equal(out.seen, out.messages.length);
    const saved = await outer.getState(config);
    assert.equal(saved.values.seen, out.seen);
    assert.deepEqual(saved.next, []);
  });
});
