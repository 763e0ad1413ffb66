// LangGraph's API test suite (libs/langgraph-api/tests/api.test.mts in langchain-ai/langgraphjs),
// ported: the same flows through the official SDK's Client, against `superstep serve`.
// Cases not ported yet are listed in tests/server/NOT_PORTED.md with the reason.
import { Client } from "@langchain/langgraph-sdk";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, beforeEach, describe, it } from "node:test";

import { gather, startServer, truncate } from "./support.mjs";

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

  it("multitasking interrupt", async () => {
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

  it("multitasking rollback", async () => {
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

describe("StoreClient", () => {
  beforeEach(() => truncate(API_URL, { store: true }));

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

describe("errors", () => {
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
