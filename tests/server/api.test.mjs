// LangGraph's API test suite (libs/langgraph-api/tests/api.test.mts in langchain-ai/langgraphjs),
// ported: the same flows through the official SDK's Client, against `superstep serve`.
// Cases not ported yet are listed in tests/server/NOT_PORTED.md with the reason.
import { Client } from "@langchain/langgraph-sdk";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, beforeEach, describe, it } from "node:test";

import { gather, onHead, startServer, truncate } from "./support.mjs";

let server;
let client;
let API_URL;
const globalConfig = { configurable: { user_id: "123" } };

before(async () => {
  server = await startServer();
  API_URL = server.url;
  client = new Client({ apiUrl: API_URL });
});

after(async () => {
  await server?.stop();
  server?.cleanup();
});

async function rejects(promise, pattern) {
  await assert.rejects(promise, (e) => {
    assert.match(String(e?.message ?? e), pattern);
    return true;
  });
}

// Vitest's asymmetric matchers and its toEqual / toMatchObject, which the original cases use.
class Matcher {
  constructor(describe, test) {
    this.describe = describe;
    this.test = test;
  }
}
const expectAny = (type) =>
  new Matcher(`any(${type.name})`, (v) =>
    type === String ? typeof v === "string" : type === Number ? typeof v === "number" :
    type === Object ? v !== null && typeof v === "object" : v instanceof type);
const stringMatching = (re) =>
  new Matcher(`stringMatching(${re})`, (v) => typeof v === "string" && re.test(v));
const objectContaining = (o) =>
  new Matcher(`objectContaining(${JSON.stringify(o)})`, (v) => mismatch(v, o, true, "") === null);

// Where `actual` differs from `expected` (a path and what), or null. `partial`: toMatchObject
// (objects may have more keys), else toEqual (keys whose value is undefined do not count).
function mismatch(actual, expected, partial, path) {
  if (expected instanceof Matcher)
    return expected.test(actual) ? null : `${path || "."}: ${JSON.stringify(actual)} is not ${expected.describe}`;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path || "."}: ${JSON.stringify(actual)} is not an array`;
    if (actual.length !== expected.length)
      return `${path || "."}: ${actual.length} items, expected ${expected.length}: ${JSON.stringify(actual)}`;
    for (let i = 0; i < expected.length; ++i) {
      const m = mismatch(actual[i], expected[i], partial, `${path}[${i}]`);
      if (m) return m;
    }
    return null;
  }
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual))
      return `${path || "."}: ${JSON.stringify(actual)} is not an object`;
    for (const [k, v] of Object.entries(expected)) {
      if (v === undefined && partial) continue;
      const m = mismatch(actual[k], v, partial, `${path}.${k}`);
      if (m) return m;
    }
    if (!partial)
      for (const [k, v] of Object.entries(actual))
        if (v !== undefined && !(k in expected))
          return `${path || "."}: unexpected key "${k}" (${JSON.stringify(v)})`;
    return null;
  }
  return Object.is(actual, expected) ? null : `${path || "."}: ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`;
}
function assertEqual(actual, expected) {
  const m = mismatch(actual, expected, false, "");
  if (m) assert.fail(`toEqual: ${m}`);
}
function assertMatchObject(actual, expected) {
  const m = mismatch(actual, expected, true, "");
  if (m) assert.fail(`toMatchObject: ${m}`);
}

describe("meta", () => {
  it("ok and info", async () => {
    assert.deepEqual(await (await fetch(`${API_URL}/ok`)).json(), { ok: true });
    const info = await (await fetch(`${API_URL}/info`)).json();
    assert.equal(info.flags.assistants, true);
  });
});

describe("assistants", () => {
  it("create read update delete", async () => {
    const graphId = "agent";
    const config = { configurable: { model_name: "gpt" } };
    let res = await client.assistants.create({ graphId, config, description: "foo" });
    assert.equal(res.graph_id, graphId);
    assert.deepEqual(res.config, config);
    assert.equal(res.description, "foo");

    const metadata = { name: "woof" };
    await client.assistants.update(res.assistant_id, { graphId, metadata, description: "bar" });
    res = await client.assistants.get(res.assistant_id);
    assert.equal(res.graph_id, graphId);
    assert.deepEqual(res.config, config);
    assert.deepEqual(res.metadata, metadata);
    assert.equal(res.description, "bar");

    await client.assistants.delete(res.assistant_id);
    await rejects(client.assistants.get(res.assistant_id), /HTTP 404: Assistant not found/);
  });

  it("delete assistant and threads", async () => {
    const assistant = await client.assistants.create({
      graphId: "agent",
      config: { configurable: { model_name: "gpt" } },
      description: "foo",
    });
    const assistantId = assistant.assistant_id;
    const thread = await client.threads.create({
      metadata: { name: "test_thread", assistant_id: assistantId },
    });
    await client.assistants.delete(assistantId, { deleteThreads: true });
    await rejects(client.assistants.get(assistantId), /HTTP 404: Assistant not found/);
    await rejects(
      client.threads.get(thread.thread_id),
      new RegExp(`HTTP 404: Thread with ID ${thread.thread_id} not found`),
    );
  });

  it("schemas", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const schemas = await client.assistants.getSchemas(assistant.assistant_id);
    assert.equal(schemas.graph_id, "agent");
    assert.ok(schemas.input_schema.properties.messages);
    assert.ok(schemas.output_schema.properties.messages);
    const graph = await client.assistants.getGraph(assistant.assistant_id);
    const ids = graph.nodes.map((n) => n.id);
    for (const id of ["__start__", "agent", "tool", "__end__"]) assert.ok(ids.includes(id), id);
  });

  it("list assistants", async () => {
    let search = await client.assistants.search();
    assert.ok(search.length >= 1);
    const create = await client.assistants.create({ graphId: "agent" });
    search = await client.assistants.search();
    assert.ok(search.length >= 2);
    search = await client.assistants.search({ graphId: "agent" });
    assert.ok(search.length >= 2);
    assert.ok(search.every((i) => i.graph_id === "agent"));
    search = await client.assistants.search({ metadata: { created_by: "system" } });
    assert.ok(search.length >= 1);
    assert.ok(search.every((i) => i.assistant_id !== create.assistant_id));
  });

  it("count assistants", async () => {
    assert.ok((await client.assistants.count()) >= 1);
  });

  it("get assistant versions", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const versions = (opts) => client.assistants.getVersions(assistant.assistant_id, opts);
    assert.deepEqual((await versions()).map((v) => v.version), [1]);
    await client.assistants.update(assistant.assistant_id, {
      config: { configurable: { foo: "bar" } },
    });
    const two = await versions();
    assert.deepEqual(two.map((v) => v.version), [2, 1]);
    assert.deepEqual(two[0].config, { configurable: { foo: "bar" } });
    assert.deepEqual((await versions({ limit: 1 })).map((v) => v.version), [2]);
    assert.deepEqual((await versions({ offset: 1 })).map((v) => v.version), [1]);
    await client.assistants.update(assistant.assistant_id, { metadata: { foo: "baz" } });
    assert.deepEqual((await versions({ metadata: { foo: "baz" } })).map((v) => v.version), [3]);
    await client.assistants.update(assistant.assistant_id, {});
    assert.deepEqual((await versions()).map((v) => v.version), [4, 3, 2, 1]);
    await client.assistants.delete(assistant.assistant_id);
    await rejects(versions(), /HTTP 404/);
  });

  it("set latest version", async () => {
    const created = await client.assistants.create({ graphId: "agent" });
    const updated = await client.assistants.update(created.assistant_id, {});
    assert.equal(updated.version, 2);
    const changed = await client.assistants.setLatest(created.assistant_id, 1);
    assert.equal(changed.version, 1);
    const again = await client.assistants.update(created.assistant_id, {});
    assert.equal(again.version, 3);
    await assert.rejects(client.assistants.setLatest(created.assistant_id, 4));
  });

  it("config from env", async () => {
    // graphs/superstep.json sets LANGGRAPH_CONFIG in "env", as the original's langgraph.json.
    const search = await client.assistants.search({
      graphId: "agent",
      metadata: { created_by: "system" },
    });
    assert.equal(search.length, 1);
    assertMatchObject(search[0].config, { configurable: { model_name: "openai" } });
  });

  it("assistant name", async () => {
    let search = await client.assistants.search({
      graphId: "agent",
      metadata: { created_by: "system" },
    });
    assert.equal(search.length, 1);
    assert.equal(search[0].name, "agent");
    const assistant = await client.assistants.create({ graphId: "agent", name: "woof" });
    assert.equal(assistant.name, "woof");
    search = (await client.assistants.search({ graphId: "agent", limit: 100 })).filter(
      (i) => i.name === "woof",
    );
    assert.equal(search.length, 1);
  });
});

describe("threads crud", () => {
  beforeEach(() => truncate(API_URL, { threads: true }));

  it("create, read, update, delete thread", async () => {
    const metadata = { name: "test_thread" };
    const threadOne = await client.threads.create({ metadata });
    assert.deepEqual(threadOne.metadata, metadata);
    let get = await client.threads.get(threadOne.thread_id);
    assert.equal(get.thread_id, threadOne.thread_id);
    assert.deepEqual(get.metadata, metadata);
    await client.threads.update(threadOne.thread_id, { metadata: { modified: true } });
    get = await client.threads.get(threadOne.thread_id);
    assert.deepEqual(get.metadata, { ...metadata, modified: true });

    const threadTwo = await client.threads.create({ metadata: { name: "another_thread" } });
    let search = await client.threads.search();
    assert.equal(search.length, 2);
    assert.equal(search[0].thread_id, threadTwo.thread_id);
    assert.equal(search[1].thread_id, threadOne.thread_id);
    search = await client.threads.search({ metadata: { modified: true } });
    assert.equal(search.length, 1);
    assert.equal(search[0].thread_id, threadOne.thread_id);

    await client.threads.delete(threadOne.thread_id);
    search = await client.threads.search();
    assert.equal(search.length, 1);
    assert.equal(search[0].thread_id, threadTwo.thread_id);
  });

  it("list threads", async () => {
    let search = await client.threads.search();
    assert.equal(search.length, 0);
    const first = await client.threads.create();
    search = await client.threads.search();
    assert.equal(search.length, 1);
    assert.equal(first.thread_id, search[0].thread_id);

    const metadata = { name: "test_thread" };
    const create = await client.threads.create({ metadata });
    search = await client.threads.search();
    assert.equal(search.length, 2);
    assert.equal(create.thread_id, search[0].thread_id);
    search = await client.threads.search({ metadata });
    assert.equal(search.length, 1);
    assert.equal(create.thread_id, search[0].thread_id);
    search = await client.threads.search({ offset: 1, limit: 1 });
    assert.equal(search.length, 1);
    assert.equal(first.thread_id, search[0].thread_id);
    search = await client.threads.search({ sortBy: "created_at", sortOrder: "asc" });
    assert.deepEqual(search.map((t) => t.thread_id), [first.thread_id, create.thread_id]);
    search = await client.threads.search({ sortBy: "created_at", sortOrder: "desc" });
    assert.deepEqual(search.map((t) => t.thread_id), [create.thread_id, first.thread_id]);
    assert.equal(await client.threads.count(), 2);
  });

  it("get thread history", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const input = { messages: [{ type: "human", content: "foo" }] };
    assert.equal((await client.threads.getHistory(thread.thread_id)).length, 0);
    await client.runs.wait(thread.thread_id, assistant.assistant_id, {
      input,
      config: globalConfig,
    });
    const history = await client.threads.getHistory(thread.thread_id);
    assert.equal(history.length, 5);
    assert.equal(history[0].values.messages.length, 4);
    assert.equal(history[0].next.length, 0);
    assert.deepEqual(history.at(-1).next, ["__start__"]);

    const runMetadata = { run_metadata: "run_metadata" };
    await client.runs.wait(thread.thread_id, assistant.assistant_id, {
      input: { messages: [{ type: "human", content: "bar" }] },
      metadata: runMetadata,
      config: globalConfig,
    });
    const full = await client.threads.getHistory(thread.thread_id);
    const filtered = await client.threads.getHistory(thread.thread_id, { metadata: runMetadata });
    assert.equal(full.length, 10);
    assert.equal(full.at(-1).values.messages.length, 0);
    assert.equal(filtered.length, 5);
    assert.equal(filtered.at(-1).values.messages.length, 4);
  });
});

describe("runs", () => {
  before(() => truncate(API_URL, { store: true, threads: true }));

  it("list runs", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, assistant.assistant_id, {
      input: { messages: [{ type: "human", content: "foo" }] },
      config: globalConfig,
    });
    const pending = await client.runs.create(thread.thread_id, assistant.assistant_id, {
      input: { messages: [{ type: "human", content: "bar" }] },
      config: globalConfig,
      afterSeconds: 10,
    });
    assert.equal((await client.runs.list(thread.thread_id)).length, 2);
    assert.equal((await client.runs.list(thread.thread_id, { status: "pending" })).length, 1);
    await client.runs.cancel(thread.thread_id, pending.run_id);
    assert.equal((await client.runs.list(thread.thread_id, { status: "interrupted" })).length, 1);
  });

  it("stream values", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const input = { messages: [{ type: "human", content: "foo", id: "initial-message" }] };
    const stream = client.runs.stream(thread.thread_id, assistant.assistant_id, {
      input,
      streamMode: "values",
      config: globalConfig,
    });
    let runId = null;
    let previous = [];
    const seen = new Set();
    let chunk;
    for await (chunk of stream) {
      seen.add(chunk.event);
      if (chunk.event === "metadata") runId = chunk.data.run_id;
      if (chunk.event === "values") {
        const ids = chunk.data.messages.map((m) => m.id);
        assert.deepEqual(ids.slice(0, -1), previous);
        previous = ids;
      }
    }
    assert.equal(chunk.event, "values");
    assert.deepEqual(seen, new Set(["metadata", "values"]));
    assert.notEqual(runId, null);
    const run = await client.runs.get(thread.thread_id, runId);
    assert.equal(run.status, "success");
    assert.ok((await client.threads.getHistory(thread.thread_id)).length > 1);
  });

  it("wait error", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const input = { messages: [{ type: "human", content: "foo", id: "initial-message" }] };
    await rejects(
      client.runs.wait(thread.thread_id, assistant.assistant_id, {
        input,
        config: { ...globalConfig, recursion_limit: 1 },
      }),
      /GraphRecursionError/,
    );
    assert.equal((await client.threads.get(thread.thread_id)).status, "error");
  });

  it("wait", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const input = { messages: [{ type: "human", content: "foo", id: "initial-message" }] };
    let created = null;
    const values = await client.runs.wait(thread.thread_id, assistant.assistant_id, {
      input,
      config: globalConfig,
      onRunCreated: (meta) => { created = meta; },
    });
    assert.ok(Array.isArray(values.messages));
    assert.equal(created?.thread_id, thread.thread_id);
    assert.equal((await client.threads.get(thread.thread_id)).status, "idle");
  });

  it("stream updates", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const input = { messages: [{ type: "human", content: "foo", id: "initial-message" }] };
    const stream = client.runs.stream(thread.thread_id, assistant.assistant_id, {
      input,
      streamMode: "updates",
      config: globalConfig,
    });
    let runId = null;
    const seen = new Set();
    const nodes = [];
    let chunk;
    for await (chunk of stream) {
      seen.add(chunk.event);
      if (chunk.event === "metadata") runId = chunk.data.run_id;
      if (chunk.event === "updates") nodes.push(Object.keys(chunk.data)[0]);
    }
    assert.deepEqual(nodes, ["agent", "tool", "agent"]);
    assert.equal(chunk.event, "updates");
    assert.deepEqual(seen, new Set(["metadata", "updates"]));
    assert.equal((await client.runs.get(thread.thread_id, runId)).status, "success");
  });

  it("stream messages", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const input = { messages: [{ type: "human", content: "foo", id: "initial-message" }] };
    const stream = client.runs.stream(thread.thread_id, assistant.assistant_id, {
      input,
      streamMode: "messages",
      config: globalConfig,
    });
    let runId = null;
    const seen = new Set();
    const contentById = {};
    let lastMessage = null;
    let chunk;
    for await (chunk of stream) {
      seen.add(chunk.event);
      if (chunk.event === "metadata") runId = chunk.data.run_id;
      if (chunk.event === "messages/partial") contentById[chunk.data[0].id] = chunk.data[0].content;
      if (chunk.event === "messages/complete") {
        const message = chunk.data[0];
        assert.notEqual(message.content, null);
        if (message.type === "ai") assert.equal(message.content, contentById[message.id]);
        lastMessage = message;
      }
    }
    assert.notEqual(lastMessage, null);
    assert.equal(lastMessage.content, "end");
    assert.equal(chunk.event, "messages/complete");
    assert.deepEqual(
      seen,
      new Set(["metadata", "messages/metadata", "messages/partial", "messages/complete"]),
    );
    assert.notEqual(runId, null);
    assert.equal((await client.runs.get(thread.thread_id, runId)).status, "success");
  });

  it("stream messages tuple", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const input = { messages: [{ type: "human", content: "foo", id: "initial-message" }] };
    const chunks = await gather(
      client.runs.stream(thread.thread_id, assistant.assistant_id, {
        input,
        streamMode: "messages-tuple",
        config: globalConfig,
        streamSubgraphs: true,
      }),
    );
    const runId = chunks.findLast((i) => i.event === "metadata")?.data.run_id;
    assert.notEqual(runId, undefined);
    assert.notEqual(runId, null);
    const messages = chunks
      .filter((i) => i.event.startsWith("messages|") || i.event === "messages")
      .map((i) => i.data[0]);
    assert.equal(messages.length, "begin".length + "end".length + 1);
    assertMatchObject(messages, [
      ..."begin".split("").map((c) => ({ content: c })),
      { content: "tool_call__begin" },
      ..."end".split("").map((c) => ({ content: c })),
    ]);
    assert.deepEqual(new Set(chunks.map((i) => i.event.split("|")[0])), new Set(["metadata", "messages"]));
    assert.equal((await client.runs.get(thread.thread_id, runId)).status, "success");
  });

  it("stream mixed modes", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const input = { messages: [{ type: "human", content: "foo", id: "initial-message" }] };
    const chunks = await gather(
      client.runs.stream(thread.thread_id, assistant.assistant_id, {
        input,
        streamMode: ["values", "updates"],
        config: globalConfig,
      }),
    );
    assert.equal(chunks.at(-1).event, "values");
    assert.deepEqual(new Set(chunks.map((c) => c.event)), new Set(["metadata", "values", "updates"]));
    assert.deepEqual(
      chunks.filter((c) => c.event === "updates").map((c) => Object.keys(c.data)[0]),
      ["agent", "tool", "agent"],
    );
  });

  it("stateless wait and stream", async () => {
    const input = { messages: [{ type: "human", content: "foo" }] };
    const values = await client.runs.wait(null, "agent", { input, config: globalConfig });
    assert.equal(values.messages.length, 4);
    const chunks = await gather(client.runs.stream(null, "agent", { input, config: globalConfig }));
    assert.equal(chunks[0].event, "metadata");
    assert.equal(chunks.at(-1).data.messages.length, 4);
  });

  it("join a background run", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "agent", {
      input: { messages: [{ type: "human", content: "foo" }] },
      config: globalConfig,
    });
    const values = await client.runs.join(thread.thread_id, run.run_id);
    assert.equal(values.messages.length, 4);
    assert.equal((await client.runs.get(thread.thread_id, run.run_id)).status, "success");
    const state = await client.threads.getState(thread.thread_id);
    assert.deepEqual(state.next, []);
    assert.equal(state.values.messages.length, 4);
    assert.equal(state.checkpoint.thread_id, thread.thread_id);
  });

  it("human in the loop - no modification", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const input = { messages: [{ type: "human", content: "foo", id: "initial-message" }] };
    let chunks = await gather(
      client.runs.stream(thread.thread_id, assistant.assistant_id, {
        input,
        interruptBefore: ["tool"],
        config: globalConfig,
      }),
    );
    assert.equal(chunks.filter((c) => c.event === "error").length, 0);
    let messages = chunks.filter((c) => c.event === "values" && c.data.messages).at(-1).data.messages;
    assert.equal((await client.threads.get(thread.thread_id)).status, "interrupted");
    assert.equal(messages.at(-1).content, "begin");
    assert.deepEqual((await client.threads.getState(thread.thread_id)).next, ["tool"]);

    chunks = await gather(
      client.runs.stream(thread.thread_id, assistant.assistant_id, { input: null, config: globalConfig }),
    );
    assert.equal(chunks.filter((c) => c.event === "error").length, 0);
    messages = chunks.filter((c) => c.event === "values").at(-1).data.messages;
    assert.equal(messages.length, 4);
    assert.equal(messages[2].content, "tool_call__begin");
    assert.equal(messages.at(-1).content, "end");
    assert.equal((await client.threads.get(thread.thread_id)).status, "idle");
  });

  it("human in the loop - modification", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const input = { messages: [{ type: "human", content: "foo", id: "initial-message" }] };
    let chunks = await gather(
      client.runs.stream(thread.thread_id, assistant.assistant_id, {
        input,
        interruptBefore: ["tool"],
        config: globalConfig,
      }),
    );
    assert.equal(chunks.filter((c) => c.event === "error").length, 0);
    const last = chunks.filter((c) => c.event === "values" && c.data.messages).at(-1).data.messages.at(-1);
    last.content = "modified";
    await client.threads.updateState(thread.thread_id, { values: { messages: [last] } });
    await client.threads.update(thread.thread_id, { metadata: { modified: true } });
    const modified = await client.threads.get(thread.thread_id);
    assert.equal(modified.status, "interrupted");
    assert.equal(modified.metadata.modified, true);
    const state = await client.threads.getState(thread.thread_id);
    assert.equal(state.values.messages.at(-1).content, "modified");
    assert.deepEqual(state.next, ["tool"]);
    assert.equal(state.tasks.length, 1);
    assert.equal(state.tasks[0].name, "tool");
    assert.equal(state.tasks[0].error, null);
    assert.deepEqual(state.tasks[0].interrupts, []);
    assert.equal(typeof state.tasks[0].id, "string");

    chunks = await gather(
      client.runs.stream(thread.thread_id, assistant.assistant_id, { input: null, config: globalConfig }),
    );
    assert.equal((await client.threads.get(thread.thread_id)).status, "idle");
    assert.equal(chunks.filter((c) => c.event === "error").length, 0);
    const messages = chunks.filter((c) => c.event === "values").at(-1).data.messages;
    assert.equal(messages.length, 4);
    assert.equal(messages[2].content, "tool_call__modified");
    assert.equal(messages.at(-1).content, "end");
    const history = await client.threads.getHistory(thread.thread_id);
    assert.equal(history.length, 6);
    assert.equal(history[0].next.length, 0);
    assert.equal(history[0].values.messages.length, 4);
    assert.deepEqual(history.at(-1).next, ["__start__"]);
  });

  it("interrupt before", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, assistant.assistant_id, {
      input: { messages: [{ type: "human", content: "foo", id: "initial-message" }] },
      interruptBefore: ["agent"],
      config: globalConfig,
    });
    assert.equal((await client.threads.get(thread.thread_id)).status, "interrupted");
  });

  it("non-existent graph id", async () => {
    const thread = await client.threads.create();
    const input = { messages: [{ type: "human", content: "foo", id: "initial-message" }] };
    await rejects(client.runs.wait(thread.thread_id, "non-existent", { input }), /No assistant found for/);
    await rejects(
      gather(client.runs.stream(thread.thread_id, "non-existent", { input })),
      /No assistant found for/,
    );
  });
});

describe("multitasking", () => {
  const pollRun = async (threadId, runId) => {
    for (let i = 0; i < 600; ++i) {
      const run = await client.runs.get(threadId, runId);
      if (run.status !== "pending" && run.status !== "running") return run.status;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error("Max iterations reached");
  };

  it("multitasking reject", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const input = { messages: [{ role: "human", content: "foo", id: "initial-message" }], sleep: 1 };
    const run = await client.runs.create(thread.thread_id, assistant.assistant_id, { input, config: globalConfig });
    await assert.rejects(
      client.runs.create(thread.thread_id, assistant.assistant_id, {
        input,
        multitaskStrategy: "reject",
        config: globalConfig,
      }),
    );
    assert.equal(await pollRun(thread.thread_id, run.run_id), "success");
  });

  // On a head the first run's sleeping task is on a worker, where a cancelled run's tasks run
  // to their end: it then takes the scripted model's "begin" of the thread in that worker.
  const remoteTasksGoOn = onHead("a cancelled run's tasks on a worker run to their end " +
    "(remote tasks take no cancellation), taking the scripted model's next answer");

  it("multitasking interrupt", remoteTasksGoOn, async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const run1 = await client.runs.create(thread.thread_id, assistant.assistant_id, {
      input: { messages: [{ role: "human", content: "foo", id: "initial-message-1" }], sleep: 2 },
      config: globalConfig,
    });
    const run2 = await client.runs.create(thread.thread_id, assistant.assistant_id, {
      input: { messages: [{ role: "human", content: "bar", id: "initial-message-2" }], sleep: 0 },
      multitaskStrategy: "interrupt",
      config: globalConfig,
    });
    assert.equal(await pollRun(thread.thread_id, run1.run_id), "interrupted");
    assert.equal(await pollRun(thread.thread_id, run2.run_id), "success");
    const state = await client.threads.getState(thread.thread_id);
    if (state.values.messages.length === 4) {
      assert.equal(state.values.messages[0].content, "bar");
    } else {
      assert.ok(state.values.messages.length >= 5 && state.values.messages.length <= 8);
      assert.equal(state.values.messages[0].content, "foo");
    }
  });

  it("multitasking rollback", remoteTasksGoOn, async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const run1 = await client.runs.create(thread.thread_id, assistant.assistant_id, {
      input: { messages: [{ role: "human", content: "foo", id: "initial-message-1" }], sleep: 4 },
      config: globalConfig,
    });
    const run2 = await client.runs.create(thread.thread_id, assistant.assistant_id, {
      input: { messages: [{ role: "human", content: "bar", id: "initial-message-2" }] },
      multitaskStrategy: "rollback",
      config: globalConfig,
    });
    await assert.rejects(pollRun(thread.thread_id, run1.run_id));  // deleted
    assert.equal(await pollRun(thread.thread_id, run2.run_id), "success");
    const state = await client.threads.getState(thread.thread_id);
    assert.equal(state.values.messages.length, 4);
    assert.equal(state.values.messages[0].content, "bar");
  });

  it("multitasking enqueue", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const run1 = await client.runs.create(thread.thread_id, assistant.assistant_id, {
      input: { messages: [{ role: "human", content: "foo", id: "initial-message-1" }], sleep: 2 },
      config: globalConfig,
    });
    const run2 = await client.runs.create(thread.thread_id, assistant.assistant_id, {
      input: { messages: [{ role: "human", content: "bar", id: "initial-message-2" }], sleep: 0 },
      multitaskStrategy: "enqueue",
      config: globalConfig,
    });
    assert.equal(await pollRun(thread.thread_id, run1.run_id), "success");
    assert.equal(await pollRun(thread.thread_id, run2.run_id), "success");
    const state = await client.threads.getState(thread.thread_id);
    assert.equal(state.values.messages.length, 8);
    assert.equal(state.values.messages[0].content, "foo");
    assert.equal(state.values.messages.at(-4).content, "bar");
  });
});

describe("shared state", () => {
  beforeEach(() => truncate(API_URL, { store: true }));

  it("should be able to set and return data from store in config", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const input = { messages: [{ type: "human", content: "foo", id: "initial-message" }] };
    const config = { configurable: { user_id: "start_user_id" } };
    const res = await client.runs.wait(thread.thread_id, assistant.assistant_id, { input, config });
    assert.ok(res.sharedStateFromStoreConfig);
    assert.notEqual(res.sharedStateFromStoreConfig.id, undefined);
    assert.equal(res.sharedStateFromStoreConfig.id, config.configurable.user_id);
  });

  it("Should be able to use the store client to fetch values", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    const input = { messages: [{ type: "human", content: "foo", id: "initial-message" }] };
    const config = { configurable: { user_id: "start_user_id" } };
    const res = await client.runs.wait(thread.thread_id, assistant.assistant_id, { input, config });
    assert.ok(res.sharedStateFromStoreConfig);
    assert.equal(res.sharedStateFromStoreConfig.id, config.configurable.user_id);
    // What the agent node put in the store, read through the store API.
    const item = await client.store.getItem(["sharedState", "data"], "user_id");
    assert.ok(item);
    assert.deepEqual(item.value, { id: config.configurable.user_id });
  });
});

describe("StoreClient", () => {
  beforeEach(() => truncate(API_URL, { store: true }));

  it("Should be able to use the store client methods", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    const thread = await client.threads.create();
    // This first message routes the agent to checkSharedState, a node that fails unless the
    // store holds the item put here.
    const input = {
      messages: [{ type: "human", content: "___check_state_value", id: "initial-message" }],
    };
    const config = { configurable: { user_id: "start_user_id" } };
    const namespace = ["inputtedState", "data"];
    const key = "my_key";
    await client.store.putItem(namespace, key, { isTrue: true });
    await client.runs.wait(thread.thread_id, assistant.assistant_id, { input, config });
    // runs.wait rejects when the node fails; the thread says so too.
    assert.equal((await client.threads.get(thread.thread_id)).status, "idle");
    const item = await client.store.getItem(namespace, key);
    assert.ok(item);
    assert.deepEqual(item.value, { isTrue: true });
    await client.store.deleteItem(namespace, key);
    assert.equal(await client.store.getItem(namespace, key), null);
  });

  it("Can put, search, list, get and delete", async () => {
    const namespace = ["allMethods", "data"];
    const key = randomUUID();
    const value = { foo: "bar" };
    assert.equal((await client.store.searchItems(namespace)).items.length, 0);
    await client.store.putItem(namespace, key, value);
    assert.deepEqual((await client.store.getItem(namespace, key)).value, value);
    const afterPut = await client.store.searchItems(namespace);
    assert.equal(afterPut.items.length, 1);
    assert.equal(afterPut.items[0].key, key);
    assert.deepEqual(afterPut.items[0].value, value);
    assert.ok(afterPut.items[0].createdAt);
    assert.ok(afterPut.items[0].updatedAt);
    // superstep: unranked (no query), an item's score is null, as LangGraph Server's SearchItem.
    assert.strictEqual(afterPut.items[0].score, null);
    await client.store.putItem(namespace, key, { foo: "baz" });
    assert.deepEqual((await client.store.getItem(namespace, key)).value, { foo: "baz" });
    const afterUpdate = await client.store.searchItems(namespace);
    assert.ok(
      new Date(afterUpdate.items[0].updatedAt).getTime() >=
        new Date(afterPut.items[0].updatedAt).getTime(),
    );
    const namespaces = await client.store.listNamespaces();
    assert.ok(namespaces.namespaces.some((ns) => JSON.stringify(ns) === JSON.stringify(namespace)));
    await client.store.deleteItem(namespace, key);
    assert.equal(await client.store.getItem(namespace, key), null);
    assert.equal((await client.store.searchItems(namespace)).items.length, 0);
  });
});

// A message as the JS server serializes LangChain's messages.
const humanSF = {
  content: "SF",
  additional_kwargs: {},
  response_metadata: {},
  type: "human",
  id: "initial-message",
};
const aiMessage = (content) => ({
  content,
  additional_kwargs: {},
  response_metadata: {},
  type: "ai",
  id: expectAny(String),
  tool_calls: [],
  invalid_tool_calls: [],
});

describe("subgraphs", () => {
  it("get subgraphs", async () => {
    const assistant = await client.assistants.create({ graphId: "nested" });
    assertEqual(Object.keys(await client.assistants.getSubgraphs(assistant.assistant_id)), ["gp_two"]);
    const subgraphs = await client.assistants.getSubgraphs(assistant.assistant_id, { recurse: true });
    assertEqual(Object.keys(subgraphs), ["gp_two", "gp_two|p_two"]);
    assertMatchObject(subgraphs, {
      gp_two: {
        state: {
          type: "object",
          properties: {
            parent: { type: "string", enum: ["parent_one", "parent_two"] },
            messages: { type: "array" },
          },
        },
      },
      "gp_two|p_two": {
        state: {
          type: "object",
          properties: {
            child: { type: "string", enum: ["child_one", "child_two"] },
            messages: { type: "array" },
          },
        },
      },
    });
  });

  // (1) interrupt and then continue running, no modification. When the subgraph stops at its
  // breakpoint, LangGraph (Python, whose engine semantics superstep keeps) streams the pause as
  // an `updates` event {__interrupt__: []} only (_loop.py, _suppress_interrupt); LangGraph.js,
  // the original's engine, also as a `values` event, which the original expects last.
  it("human in the loop - no modification", async () => {
    const assistant = await client.assistants.create({ graphId: "weather" });
    const thread = await client.threads.create();
    const chunks = await gather(
      client.runs.stream(thread.thread_id, assistant.assistant_id, {
        input: { messages: [{ role: "human", content: "SF", id: "initial-message" }] },
        interruptBefore: ["tool"],
      }),
    );
    let lastMessageBeforeInterrupt = null;
    for (const chunk of chunks) {
      if (chunk.event === "values" && "messages" in chunk.data)
        lastMessageBeforeInterrupt = chunk.data.messages.at(-1);
      if (chunk.event === "error") throw new Error(chunk.data.error);
    }
    assert.equal(lastMessageBeforeInterrupt?.content, "SF");
    assertEqual(chunks, [
      { event: "metadata", data: { run_id: expectAny(String), attempt: 1 }, id: "0" },
      { event: "values", data: { messages: [humanSF] }, id: "1" },
      { event: "values", data: { messages: [humanSF], route: "weather" }, id: "2" },
    ]);

    const state = await client.threads.getState(thread.thread_id);
    assertEqual(state.next, ["weather_graph"]);
    assertEqual(state.tasks, [
      {
        id: expectAny(String),
        name: "weather_graph",
        path: ["__pregel_pull", "weather_graph"],
        error: null,
        interrupts: [],
        checkpoint: {
          checkpoint_ns: stringMatching(/^weather_graph:/),
          thread_id: expectAny(String),
        },
        state: null,
        result: null,
      },
    ]);

    const stateRecursive = await client.threads.getState(thread.thread_id, undefined, {
      subgraphs: true,
    });
    assertEqual(stateRecursive.next, ["weather_graph"]);
    assertEqual(stateRecursive.tasks, [
      {
        id: expectAny(String),
        name: "weather_graph",
        path: ["__pregel_pull", "weather_graph"],
        error: null,
        interrupts: [],
        checkpoint: null,
        result: null,
        state: {
          values: { city: "San Francisco", messages: [humanSF] },
          next: ["weather_node"],
          tasks: [
            {
              id: expectAny(String),
              name: "weather_node",
              path: ["__pregel_pull", "weather_node"],
              error: null,
              interrupts: [],
              checkpoint: null,
              state: null,
              result: null,
            },
          ],
          metadata: expectAny(Object),
          created_at: expectAny(String),
          checkpoint: expectAny(Object),
          parent_checkpoint: expectAny(Object),
        },
      },
    ]);
    assert.equal((await client.threads.get(thread.thread_id)).status, "interrupted");

    // continue after interrupt
    const chunksSubgraph = await gather(
      client.runs.stream(thread.thread_id, assistant.assistant_id, {
        input: null,
        streamMode: ["values", "updates"],
        streamSubgraphs: true,
      }),
    );
    assertEqual(chunksSubgraph.filter((i) => i.event === "error"), []);
    assert.equal(chunksSubgraph.at(-1)?.event, "values");
    const continueMessages = chunksSubgraph.findLast((i) => i.event === "values")?.data.messages;
    assert.equal(continueMessages.length, 2);
    assert.equal(continueMessages[0].content, "SF");
    assert.equal(continueMessages[1].content, "It's sunny in San Francisco!");
    const sunny = aiMessage("It's sunny in San Francisco!");
    assertEqual(
      chunksSubgraph
        .filter((chunk) => !chunk.event.startsWith("checkpoints"))
        .map(({ id: _id, ...chunk }) => chunk),
      [
        { event: "metadata", data: { run_id: expectAny(String), attempt: 1 } },
        { event: "values", data: { messages: [humanSF], route: "weather" } },
        {
          event: stringMatching(/^values\|weather_graph:/),
          data: { messages: [humanSF], city: "San Francisco" },
        },
        {
          event: stringMatching(/^updates\|weather_graph:/),
          data: { weather_node: { messages: [sunny] } },
        },
        {
          event: stringMatching(/^values\|weather_graph:/),
          data: { messages: [humanSF, sunny], city: "San Francisco" },
        },
        { event: "updates", data: { weather_graph: { messages: [humanSF, sunny] } } },
        { event: "values", data: { messages: [humanSF, sunny], route: "weather" } },
      ],
    );
    assert.equal((await client.threads.get(thread.thread_id)).status, "idle");
  });

  // (2) interrupt, modify the message and then continue running
  it("human in the loop - modification", async () => {
    const assistant = await client.assistants.create({ graphId: "weather" });
    const thread = await client.threads.create();
    const input = { messages: [{ role: "human", content: "SF", id: "initial-message" }] };
    let chunks = await gather(client.runs.stream(thread.thread_id, assistant.assistant_id, { input }));
    assertEqual(chunks.filter((i) => i.event === "error"), []);

    const state = await client.threads.getState(thread.thread_id);
    assertEqual(state.next, ["weather_graph"]);
    assertEqual(state.tasks, [
      {
        id: expectAny(String),
        name: "weather_graph",
        path: ["__pregel_pull", "weather_graph"],
        error: null,
        interrupts: [],
        checkpoint: {
          checkpoint_ns: stringMatching(/^weather_graph:/),
          thread_id: expectAny(String),
        },
        state: null,
        result: null,
      },
    ]);

    // edit the city in the subgraph state
    await client.threads.updateState(thread.thread_id, {
      values: { city: "LA" },
      checkpoint: state.tasks[0].checkpoint ?? undefined,
    });
    const innerState = await client.threads.getState(
      thread.thread_id,
      state.tasks[0].checkpoint ?? undefined,
    );
    assert.equal(innerState.values.city, "LA");
    assertEqual(innerState.next, ["weather_node"]);
    assertEqual(innerState.tasks, [
      {
        id: expectAny(String),
        name: "weather_node",
        path: ["__pregel_pull", "weather_node"],
        error: null,
        interrupts: [],
        checkpoint: null,
        state: null,
        result: null,
      },
    ]);

    // continue after interrupt
    chunks = await gather(
      client.runs.stream(thread.thread_id, assistant.assistant_id, { input: null }),
    );
    assertEqual(chunks.filter((i) => i.event === "error"), []);
    assert.equal(chunks.at(-1)?.event, "values");
    const continueMessages = chunks.findLast((i) => i.event === "values")?.data.messages;
    assert.equal(continueMessages.length, 2);
    assert.equal(continueMessages[0].content, "SF");
    assert.equal(continueMessages[1].content, "It's sunny in LA!");

    // the history of the root graph
    const history = await client.threads.getHistory(thread.thread_id);
    assert.equal(history.length, 4);
    assert.equal(history[0].next.length, 0);
    assert.equal(history[0].values.messages.length, 2);
    assertEqual(history.at(-1).next, ["__start__"]);

    // the history of the subgraph
    const innerHistory = await client.threads.getHistory(thread.thread_id, {
      checkpoint: state.tasks[0].checkpoint ?? undefined,
    });
    assert.equal(innerHistory.length, 5);
    assert.equal(innerHistory[0].next.length, 0);
    assert.equal(innerHistory[0].values.messages.length, 2);
    assertEqual(innerHistory.at(-1).next, ["__start__"]);
  });

  it("interrupt inside node", async () => {
    const assistant = await client.assistants.create({ graphId: "agent" });
    let thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, assistant.assistant_id, {
      input: {
        messages: [{ role: "human", content: "SF", id: "initial-message" }],
        interrupt: true,
      },
      config: globalConfig,
    });
    const state = await client.threads.getState(thread.thread_id);
    assertEqual(state.next, ["agent"]);
    assertMatchObject(state.tasks, [
      {
        id: expectAny(String),
        name: "agent",
        path: ["__pregel_pull", "agent"],
        error: null,
        interrupts: [{ id: expectAny(String), value: "i want to interrupt" }],
        checkpoint: null,
        state: null,
        result: null,
      },
    ]);
    thread = await client.threads.get(thread.thread_id);
    assert.equal(thread.status, "interrupted");
    assertMatchObject(thread.interrupts, {
      [state.tasks[0].id]: [{ id: expectAny(String), value: "i want to interrupt" }],
    });
    const stream = await gather(
      client.runs.stream(thread.thread_id, assistant.assistant_id, {
        command: { resume: "i want to resume" },
      }),
    );
    assert.equal(stream.at(-1)?.event, "values");
    assert.equal(stream.at(-1)?.data.messages.length, 4);
  });
});

describe("errors", () => {

  it("stream", async () => {
    const assistant = await client.assistants.create({ graphId: "error" });
    const thread = await client.threads.create();
    const stream = await gather(
      client.runs.stream(thread.thread_id, assistant.assistant_id, {
        input: { messages: [] },
        streamMode: ["debug", "events"],
      }),
    );
    assertMatchObject(stream.at(-1), {
      event: "error",
      data: { error: "CustomError", message: "Boo!" },
    });
  });

  it("create + join", async () => {
    const assistant = await client.assistants.create({ graphId: "error" });
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, assistant.assistant_id, {
      input: { messages: [] },
    });
    await client.runs.join(thread.thread_id, run.run_id);
    assert.equal((await client.runs.get(thread.thread_id, run.run_id)).status, "error");
  });

  it("create + stream join", async () => {
    const assistant = await client.assistants.create({ graphId: "error" });
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, assistant.assistant_id, {
      input: { messages: [] },
    });
    const stream = await gather(client.runs.joinStream(thread.thread_id, run.run_id));
    assertMatchObject(stream.at(-1), {
      event: "error",
      data: { error: "CustomError", message: "Boo!" },
    });
    assert.equal((await client.runs.get(thread.thread_id, run.run_id)).status, "error");
  });
});

describe("long running tasks", { concurrency: true }, () => {
  // As the original, the three run at once, each within 15 s.
  for (const delay of [1000, 8000, 12000]) {
    it(`long running task with ${delay}ms delay`, { timeout: 15_000 }, async () => {
      const assistant = await client.assistants.create({ graphId: "delay" });
      const thread = await client.threads.create();
      const run = await client.runs.create(thread.thread_id, assistant.assistant_id, {
        input: { messages: [], delay },
        config: globalConfig,
      });
      await client.runs.join(thread.thread_id, run.run_id);
      assert.equal((await client.runs.get(thread.thread_id, run.run_id)).status, "success");
      const result = await client.threads.getState(thread.thread_id);
      assertMatchObject(result.values.messages, [{ content: `finished after ${delay}ms` }]);
    });
  }
});

// The `debug` stream's checkpoint events of a run, as the thread's history has them.
const checkpointEvents = (chunks) =>
  chunks.filter((i) => i.event === "debug" && i.data?.type === "checkpoint").map((i) => i.data.payload);
const checkpointIds = (items) =>
  items.map((i) => ({
    step: i.metadata?.step,
    checkpoint: i.checkpoint,
    parent_checkpoint: i.parent_checkpoint,
  }));

it("stream debug checkpoint", async () => {
  const assistant = await client.assistants.create({ graphId: "weather" });
  const thread = await client.threads.create();
  const input = { messages: [{ role: "human", content: "What's the weather in SF?" }] };
  const stream = checkpointEvents(
    await gather(
      client.runs.stream(thread.thread_id, assistant.assistant_id, { input, streamMode: "debug" }),
    ),
  );
  const history = (await client.threads.getHistory(thread.thread_id, { limit: stream.length })).reverse();
  assertEqual(checkpointIds(stream), checkpointIds(history));
});

// LangGraph (Python, whose engine semantics superstep keeps) saves a "fork" checkpoint when a
// run is given a checkpoint id and no input (_loop.py: is_time_traveling), and streams it as
// the run's first checkpoint; LangGraph.js, the original's engine, goes on without one and
// streams the checkpoint it goes on from. So the whole continued stream is the rest of the
// thread's history here, where the original drops its first checkpoint (`.slice(1)`).
it("continue after interrupt must have checkpoint present", async () => {
  const assistant = await client.assistants.create({ graphId: "weather" });
  const thread = await client.threads.create();
  const input = { messages: [{ role: "human", content: "What's weather in SF?" }] };
  const initialStream = checkpointEvents(
    await gather(
      client.runs.stream(thread.thread_id, assistant.assistant_id, {
        input,
        streamMode: "debug",
        interruptBefore: ["router_node"],
      }),
    ),
  );
  const history = (await client.threads.getHistory(thread.thread_id)).reverse();
  const checkpoint = history[history.length - 1].checkpoint;
  // Continue the run from the checkpoint
  const continueStream = checkpointEvents(
    await gather(
      client.runs.stream(thread.thread_id, assistant.assistant_id, {
        streamMode: "debug",
        checkpoint,
      }),
    ),
  );
  const continueHistory = (await client.threads.getHistory(thread.thread_id)).reverse();
  assertEqual(
    checkpointIds([...initialStream, ...continueStream]),
    checkpointIds(continueHistory),
  );
});

// The original's graph is a factory that builds a one-node graph named after the configurable
// `nodeName`; graphs/dynamic.json has the three nodes the case names, and its entry routes
// to the one `nodeName` names.
it("dynamic graph", async () => {
  const defaultAssistant = await client.assistants.create({ graphId: "dynamic" });
  const updatedNodes = (chunks) =>
    chunks.filter((i) => i.event === "updates").flatMap((i) => Object.keys(i.data));
  let updates = await gather(
    client.runs.stream(null, defaultAssistant.assistant_id, {
      input: { messages: ["input"] },
      streamMode: ["updates"],
    }),
  );
  assert.ok(updatedNodes(updates).includes("default"), JSON.stringify(updates));

  updates = await gather(
    client.runs.stream(null, defaultAssistant.assistant_id, {
      input: { messages: ["input"] },
      config: { configurable: { nodeName: "runtime" } },
      streamMode: ["updates"],
    }),
  );
  assert.ok(updatedNodes(updates).includes("runtime"), JSON.stringify(updates));

  const configAssistant = await client.assistants.create({
    graphId: "dynamic",
    config: { configurable: { nodeName: "assistant" } },
  });
  let thread = await client.threads.create({ graphId: "dynamic" });
  updates = await gather(
    client.runs.stream(thread.thread_id, configAssistant.assistant_id, {
      input: { messages: ["input"], configurable: { nodeName: "assistant" } },
      streamMode: ["updates"],
    }),
  );
  assert.ok(updatedNodes(updates).includes("assistant"), JSON.stringify(updates));

  thread = await client.threads.get(thread.thread_id);
  // the thread's graph is made again with the configuration stored with the thread
  await client.threads.updateState(thread.thread_id, {
    values: { messages: "update" },
    asNode: "assistant",
  });
  const state = await client.threads.getState(thread.thread_id);
  assertEqual(state.values.messages, ["input", "assistant", "update"]);
});

it("resumable streams", { timeout: 10_000 }, async () => {
  const assistant = await client.assistants.create({ graphId: "agent" });
  const thread = await client.threads.create();
  let onRunCreated;
  const waitRun = new Promise((r) => (onRunCreated = r));
  const stream = client.runs.stream(thread.thread_id, assistant.assistant_id, {
    input: { messages: [{ role: "human", content: "input" }], sleep: { steps: 3, ms: 1000 } },
    streamResumable: true,
    streamMode: ["values", "custom"],
    config: globalConfig,
    onRunCreated,
  });
  const [join, source] = await Promise.all([
    (async () => {
      const [{ thread_id, run_id }] = await Promise.all([
        waitRun,
        new Promise((resolve) => setTimeout(resolve, 1500)),
      ]);
      return gather(client.runs.joinStream(thread_id, run_id, { lastEventId: "-1" }));
    })(),
    gather(stream),
  ]);
  assertEqual(join, source);
});

it("tasks / checkpoints stream mode", async () => {
  const assistant = await client.assistants.create({ graphId: "agent" });
  const thread = await client.threads.create();
  const stream = await gather(
    client.runs.stream(thread.thread_id, assistant.assistant_id, {
      input: { messages: [{ role: "human", content: "input" }] },
      streamMode: ["tasks", "checkpoints"],
      config: globalConfig,
    }),
  );
  const human = { content: "input", type: "human" };
  const begin = { content: "begin", type: "ai" };
  const tool = { content: "tool_call__begin", tool_call_id: "tool_call_id", type: "tool" };
  const end = { content: "end", type: "ai" };
  assertMatchObject(stream, [
    { event: "metadata", data: { run_id: expectAny(String) } },
    {
      event: "checkpoints",
      data: { values: { messages: [] }, metadata: { source: "input", step: -1 }, next: ["__start__"] },
    },
    {
      event: "checkpoints",
      data: { values: { messages: [human] }, metadata: { source: "loop", step: 0 }, next: ["agent"] },
    },
    {
      event: "tasks",
      data: { name: "agent", input: { messages: [human] }, triggers: ["branch:to:agent"], interrupts: [] },
    },
    {
      event: "tasks",
      data: { name: "agent", result: { messages: [objectContaining(begin)] }, interrupts: [] },
    },
    {
      event: "checkpoints",
      data: { values: { messages: [human, begin] }, metadata: { source: "loop", step: 1 }, next: ["tool"] },
    },
    {
      event: "tasks",
      data: { name: "tool", input: { messages: [human, begin] }, triggers: ["branch:to:tool"], interrupts: [] },
    },
    {
      event: "tasks",
      data: { name: "tool", result: { messages: [objectContaining(tool)] }, interrupts: [] },
    },
    {
      event: "checkpoints",
      data: {
        values: { messages: [human, begin, tool] },
        metadata: { source: "loop", step: 2 },
        next: ["agent"],
      },
    },
    {
      event: "tasks",
      data: {
        name: "agent",
        input: { messages: [human, begin, tool] },
        triggers: ["branch:to:agent"],
        interrupts: [],
      },
    },
    {
      event: "tasks",
      data: { name: "agent", result: { messages: [objectContaining(end)] }, interrupts: [] },
    },
    {
      event: "checkpoints",
      data: {
        values: { messages: [human, begin, tool, end] },
        metadata: { source: "loop", step: 3 },
        next: [],
      },
    },
  ]);
});

describe("runtime API", () => {
  it("simple", async () => {
    const assistant = await client.assistants.create({ graphId: "simple_runtime" });
    const thread = await client.threads.create();
    let created = 0;
    assertEqual(
      await client.runs.wait(thread.thread_id, assistant.assistant_id, {
        input: { messages: [{ role: "human", content: "input" }] },
        context: { model: "openai" },
        onRunCreated: () => { created += 1; },
      }),
      { model: "openai" },
    );
    assert.equal(created, 1);
  });

  it("schema", async () => {
    const assistant = await client.assistants.create({ graphId: "simple_runtime" });
    const schema = await client.assistants.getSchemas(assistant.assistant_id);
    // From JS PoV `configSchema` and `contextSchema` are indistinguishable: both are given.
    const model = { type: "string", enum: ["anthropic", "openai", "unknown"] };
    assertMatchObject(schema, {
      config_schema: { type: "object", properties: { model } },
      context_schema: { type: "object", properties: { model } },
    });
  });

  it("assistant crud", async () => {
    const assistant = await client.assistants.create({
      graphId: "simple_runtime",
      context: { model: "anthropic" },
    });
    let created = 0;
    const onRunCreated = () => { created += 1; };
    assertEqual(
      await client.runs.wait(null, assistant.assistant_id, {
        input: { messages: [{ role: "human", content: "input" }] },
        onRunCreated,
      }),
      { model: "anthropic" },
    );
    assert.equal(created, 1);
    await client.assistants.update(assistant.assistant_id, { context: { model: "openai" } });
    assertEqual(
      await client.runs.wait(null, assistant.assistant_id, {
        input: { messages: [{ role: "human", content: "input" }] },
        onRunCreated,
      }),
      { model: "openai" },
    );
    assert.equal(created, 2);
  });

  it("default from env", async () => {
    let created = 0;
    assertEqual(
      await client.runs.wait(null, "simple_runtime", {
        input: { messages: [{ role: "human", content: "input" }] },
        onRunCreated: () => { created += 1; },
      }),
      { model: "unknown" },
    );
    assert.equal(created, 1);
  });
});

describe("request errors", () => {
  it("bad bodies and unknown things get their status and a message", async () => {
    const post = (path, body, headers = { "Content-Type": "application/json" }) =>
      fetch(`${API_URL}${path}`, { method: "POST", headers, body });
    let res = await post("/threads", "{not json");
    assert.equal(res.status, 422);
    assert.match(await res.text(), /not JSON/);
    res = await post("/assistants", JSON.stringify({ graph_id: 7 }));
    assert.equal(res.status, 422);
    assert.match(await res.text(), /graph_id/);
    res = await fetch(`${API_URL}/threads/${randomUUID()}`);
    assert.equal(res.status, 404);
    res = await fetch(`${API_URL}/no/such/route`);
    assert.equal(res.status, 404);
    const thread = await client.threads.create();
    await rejects(client.threads.create({ threadId: thread.thread_id }), /HTTP 409/);
  });
});
