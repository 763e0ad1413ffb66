// Threads copied, pruned, made from supersteps and updated while a run holds them; runs
// created in a batch and cancelled in bulk: LangGraph's API test cases for these (threads copy,
// update state while run in flight, batch update state, command update state), ported, and the
// SDK's other calls on the same routes.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";

import { gather, serveForFile } from "./support.mjs";

const config = join(dirname(fileURLToPath(import.meta.url)), "graphs", "robust.json");
const globalConfig = { configurable: { user_id: "123" } };
const input = { messages: [{ type: "human", content: "foo" }] };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const served = serveForFile([], { config });

// `state` with the thread id of its metadata and checkpoints replaced by `id`.
function movedTo(state, id) {
  const moved = structuredClone(state);
  if (moved.metadata && "thread_id" in moved.metadata) moved.metadata.thread_id = id;
  if (moved.checkpoint) moved.checkpoint.thread_id = id;
  if (moved.parent_checkpoint) moved.parent_checkpoint.thread_id = id;
  return moved;
}

describe("threads copy", () => {
  it("copy", async () => {
    const thread = await served.client.threads.create();
    await served.client.runs.wait(thread.thread_id, "agent", { input, config: globalConfig });
    const state = await served.client.threads.getState(thread.thread_id);
    const copied = await served.client.threads.copy(thread.thread_id);
    assert.notEqual(copied.thread_id, thread.thread_id);
    assert.equal(copied.status, "idle");
    assert.deepEqual(await served.client.threads.getState(copied.thread_id),
                     movedTo(state, copied.thread_id));
    const history = await served.client.threads.getHistory(thread.thread_id);
    const copiedHistory = await served.client.threads.getHistory(copied.thread_id);
    assert.equal(copiedHistory.length, history.length);
    history.forEach((s, i) => assert.deepEqual(copiedHistory[i], movedTo(s, copied.thread_id)));
  });

  it("copy runs", async () => {
    const thread = await served.client.threads.create();
    await served.client.runs.wait(thread.thread_id, "agent", { input, config: globalConfig });
    const original = await served.client.threads.getState(thread.thread_id);
    const copied = await served.client.threads.copy(thread.thread_id);
    await served.client.runs.wait(copied.thread_id, "agent", {
      input: { messages: [{ type: "human", content: "bar" }] },
      config: globalConfig,
    });
    const state = await served.client.threads.getState(copied.thread_id);
    assert.deepEqual(state.values.messages.map((m) => m.content), [
      "foo", "begin", "tool_call__begin", "end", "bar", "begin", "tool_call__begin", "end",
    ]);
    assert.deepEqual(await served.client.threads.getState(thread.thread_id), original);
  });

  it("copy update", async () => {
    const thread = await served.client.threads.create();
    await served.client.runs.wait(thread.thread_id, "agent", {
      input: { messages: [{ type: "human", content: "foo", id: "initial-message" }] },
      config: globalConfig,
    });
    const original = await served.client.threads.getState(thread.thread_id);
    const copied = await served.client.threads.copy(thread.thread_id);
    const update = await served.client.threads.updateState(copied.thread_id, {
      values: { messages: [{ type: "human", content: "bar", id: "initial-message" }] },
    });
    assert.equal(update.checkpoint.thread_id, copied.thread_id);
    assert.ok(update.checkpoint.checkpoint_id);
    const state = await served.client.threads.getState(copied.thread_id);
    assert.equal(state.values.messages[0].content, "bar");
    assert.equal(state.checkpoint.checkpoint_id, update.checkpoint.checkpoint_id);
    assert.deepEqual(await served.client.threads.getState(thread.thread_id), original);
  });

  it("a thread that never ran is copied with its metadata", async () => {
    const thread = await served.client.threads.create({ metadata: { owner: "me" } });
    const copied = await served.client.threads.copy(thread.thread_id);
    assert.equal(copied.metadata.owner, "me");
    assert.equal((await served.client.threads.get(copied.thread_id)).metadata.owner, "me");
    await assert.rejects(served.client.threads.copy("00000000-0000-4000-8000-000000000000"), /HTTP 404/);
  });
});

describe("thread state", () => {
  it("update state while run in flight", async () => {
    const thread = await served.client.threads.create();
    const run = await served.client.runs.create(thread.thread_id, "agent", { input, afterSeconds: 5 });
    await sleep(300);
    const sisyphus = {
      values: { messages: [{ type: "ai", content: "One must imagine Sisyphus happy." }] },
      asNode: "agent",
    };
    await assert.rejects(served.client.threads.updateState(thread.thread_id, sisyphus), /HTTP 409/);
    await served.client.runs.cancel(thread.thread_id, run.run_id);
    assert.ok(!JSON.stringify(await served.client.threads.getState(thread.thread_id)).includes("Sisyphus"));
    await served.client.runs.join(thread.thread_id, run.run_id);
    assert.equal((await served.client.runs.get(thread.thread_id, run.run_id)).status, "interrupted");
    assert.equal((await served.client.threads.get(thread.thread_id)).status, "idle");
    await served.client.threads.updateState(thread.thread_id, sisyphus);
    assert.ok(JSON.stringify(await served.client.threads.getState(thread.thread_id)).includes("Sisyphus"));
  });

  it("batch update state: a thread made from supersteps has the history of the run", async () => {
    const thread = await served.client.threads.create();
    const stream = await gather(served.client.runs.stream(thread.thread_id, "agent", {
      input, config: globalConfig, streamMode: ["updates"],
    }));
    const history = await served.client.threads.getHistory(thread.thread_id);
    const clone = await served.client.threads.create({
      graphId: "agent",
      supersteps: [
        { updates: [{ asNode: "__input__", values: history.at(-2).values }] },
        { updates: [{ asNode: "__start__", values: history.at(-2).values }] },
        ...stream.filter((i) => i.event === "updates").map(({ data }) => ({
          updates: Object.entries(data).map(([asNode, values]) => ({ asNode, values })),
        })),
      ],
    });
    const cloned = await served.client.threads.getHistory(clone.thread_id);
    assert.deepEqual(cloned.map(({ next, values }) => ({ next, values })),
                     history.map(({ next, values }) => ({ next, values })));
    await assert.rejects(
      served.client.threads.create({ supersteps: [{ updates: [{ values: {} }] }] }), /HTTP 422: supersteps/);
  });

  it("command update state", async () => {
    const thread = await served.client.threads.create();
    await served.client.runs.wait(thread.thread_id, "agent", { input, config: globalConfig });
    const stream = await gather(served.client.runs.stream(thread.thread_id, "agent", {
      command: { update: { keyOne: "value3", keyTwo: "value4" } }, config: globalConfig,
    }));
    assert.deepEqual(stream.filter((c) => c.event === "error"), []);
    const state = await served.client.threads.getState(thread.thread_id);
    assert.equal(state.values.keyOne, "value3");
    assert.equal(state.values.keyTwo, "value4");
  });
});

describe("prune", () => {
  it("keep_latest keeps one checkpoint; delete removes the threads", async () => {
    const a = await served.client.threads.create();
    const b = await served.client.threads.create();
    for (const t of [a, b]) await served.client.runs.wait(t.thread_id, "agent", { input });
    const before = await served.client.threads.getState(a.thread_id);
    assert.deepEqual(await served.client.threads.prune([a.thread_id], { strategy: "keep_latest" }),
                     { pruned_count: 1 });
    assert.equal((await served.client.threads.getHistory(a.thread_id)).length, 1);
    assert.deepEqual((await served.client.threads.getState(a.thread_id)).values, before.values);
    assert.deepEqual(await served.client.threads.prune([b.thread_id, "00000000-0000-4000-8000-000000000000"]),
                     { pruned_count: 1 });
    await assert.rejects(served.client.threads.get(b.thread_id), /HTTP 404/);
    await assert.rejects(served.client.threads.prune([a.thread_id], { strategy: "some" }),
                         /HTTP 422: strategy/);
  });
});

describe("run records", () => {
  it("a run's kwargs hold its stream modes as a list, [\"values\"] when none were asked", async () => {
    const thread = await served.client.threads.create();
    const plain = await served.client.runs.create(thread.thread_id, "agent", { input });
    await served.client.runs.join(thread.thread_id, plain.run_id);
    const one = await served.client.runs.create(thread.thread_id, "agent", { input, streamMode: "updates" });
    await served.client.runs.join(thread.thread_id, one.run_id);
    const got = async (r) => (await served.client.runs.get(thread.thread_id, r.run_id)).kwargs.stream_mode;
    assert.deepEqual(await got(plain), ["values"]);
    assert.deepEqual(await got(one), ["updates"]);
  });
});

describe("runs in bulk", () => {
  it("a batch of stateless runs", async () => {
    const runs = await served.client.runs.createBatch([
      { assistantId: "agent", input, on_completion: "keep" },
      { assistantId: "slow", input: {}, on_completion: "keep" },
    ]);
    assert.equal(runs.length, 2);
    assert.notEqual(runs[0].thread_id, runs[1].thread_id);
    for (const r of runs) await served.client.runs.join(r.thread_id, r.run_id);
    assert.equal((await served.client.threads.getState(runs[1].thread_id)).values.steps.length, 3);
    await assert.rejects(served.client.runs.createBatch([{ input }]), /HTTP 422: \[0\]: assistant_id/);
  });

  it("cancel many: by id, by thread and by status", async () => {
    const thread = await served.client.threads.create();
    const first = await served.client.runs.create(thread.thread_id, "slow", { input: {} });
    const second = await served.client.runs.create(thread.thread_id, "slow", {
      input: {}, multitaskStrategy: "enqueue",
    });
    await sleep(100);
    await served.client.runs.cancelMany({ threadId: thread.thread_id, runIds: [second.run_id] });
    await served.client.runs.join(thread.thread_id, second.run_id);
    assert.equal((await served.client.runs.get(thread.thread_id, second.run_id)).status, "interrupted");
    await served.client.runs.cancelMany({ threadId: thread.thread_id, status: "all" });
    await served.client.runs.join(thread.thread_id, first.run_id);
    assert.equal((await served.client.runs.get(thread.thread_id, first.run_id)).status, "interrupted");
    await assert.rejects(served.client.runs.cancelMany({ status: "some" }), /HTTP 422: status/);
  });
});

describe("resumable streams", () => {
  it("a resumable run's events are there for a while after it ends; another run's are not", async () => {
    const thread = await served.client.threads.create();
    const events = async (streamResumable) => {
      const source = await gather(served.client.runs.stream(thread.thread_id, "agent", {
        input, config: globalConfig, streamMode: ["values", "updates"], streamResumable,
      }));
      const runId = source[0].data.run_id;
      // The run has ended: joined from the start, and after its second event.
      const all = await gather(served.client.runs.joinStream(thread.thread_id, runId,
        { lastEventId: "-1" }));
      const rest = await gather(served.client.runs.joinStream(thread.thread_id, runId,
        { lastEventId: "1" }));
      return { source, all, rest };
    };
    const kept = await events(true);
    assert.ok(kept.source.length > 3, JSON.stringify(kept.source));
    assert.deepEqual(kept.all, kept.source);
    assert.deepEqual(kept.rest, kept.source.slice(2));
    const gone = await events(false);
    assert.deepEqual(gone.all, []);
  });
});

describe("thread stream", () => {
  it("joins the thread's run going now and the runs after it", async () => {
    const thread = await served.client.threads.create();
    const seen = [];
    const controller = new AbortController();
    const reading = (async () => {
      try {
        for await (const e of served.client.threads.joinStream(thread.thread_id,
          { signal: controller.signal }))
          seen.push(e);
      } catch (e) {
        if (e?.name !== "AbortError" && !controller.signal.aborted) throw e;
      }
    })();
    await sleep(200);  // the stream is open before the runs start
    const first = await served.client.runs.wait(thread.thread_id, "agent", { input, config: globalConfig });
    const second = await served.client.runs.wait(thread.thread_id, "agent", {
      input: { messages: [{ type: "human", content: "bar" }] }, config: globalConfig,
    });
    await sleep(200);
    controller.abort();
    await reading;
    const metadata = seen.filter((e) => e.event === "metadata");
    assert.equal(metadata.length, 2, JSON.stringify(seen.map((e) => e.event)));
    const values = seen.filter((e) => e.event === "values");
    assert.deepEqual(values.at(-1).data.messages.length, second.messages.length);
    assert.ok(values.some((v) => v.data.messages?.length === first.messages.length));
    // An unknown thread is a 404; a mode this server does not serve, a 422.
    const url = served.server.url;
    assert.equal((await fetch(`${url}/threads/${crypto.randomUUID()}/stream`)).status, 404);
    assert.equal((await fetch(`${url}/threads/${thread.thread_id}/stream?stream_modes=lifecycle`)).status, 422);
  });
});

describe("client flows", () => {
  const post = (path, body) => fetch(`${served.server.url}${path}`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });

  it("of runs created at once on an idle thread with reject, one is taken", async () => {
    for (let round = 0; round < 5; ++round) {
      const thread = await served.client.threads.create();
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) =>
        post(`/threads/${thread.thread_id}/runs`, {
          assistant_id: "agent", config: globalConfig,
          input: { messages: [{ type: "human", content: "m" + i }], sleep: 0.2 },
        })));
      assert.deepEqual(answers.map((a) => a.status).sort(), [200, ...Array(9).fill(409)]);
      const [run] = await served.client.runs.list(thread.thread_id);
      await served.client.runs.join(thread.thread_id, run.run_id);
    }
  });

  it("history pages with `before` as a checkpoint, and `checkpoint` with an id selects it", async () => {
    const thread = await served.client.threads.create();
    await served.client.runs.wait(thread.thread_id, "agent", { input, config: globalConfig });
    const all = await served.client.threads.getHistory(thread.thread_id, { limit: 100 });
    assert.ok(all.length > 3);
    // As RemoteGraph and the Python SDK send it: the checkpoint itself, not a config.
    const page = await (await post(`/threads/${thread.thread_id}/history`,
      { before: all[1].checkpoint, limit: 100 })).json();
    assert.deepEqual(page.map((s) => s.checkpoint.checkpoint_id),
      all.slice(2).map((s) => s.checkpoint.checkpoint_id));
    const one = await served.client.threads.getHistory(thread.thread_id,
      { checkpoint: { checkpoint_id: all[2].checkpoint.checkpoint_id }, limit: 100 });
    assert.deepEqual(one.map((s) => s.checkpoint.checkpoint_id), [all[2].checkpoint.checkpoint_id]);
  });

  it("metadata filters are containment, nested; assistant names match case-insensitively", async () => {
    const thread = await served.client.threads.create({
      metadata: { o: { a: 1, b: 2 }, arr: [1, 2, 3], tag: "client-flows" },
    });
    for (const metadata of [{ o: { a: 1 } }, { o: {} }, { arr: [2] }, { tag: "client-flows" }])
      assert.deepEqual((await served.client.threads.search({ metadata })).map((t) => t.thread_id),
        [thread.thread_id], JSON.stringify(metadata));
    assert.equal(await served.client.threads.count({ metadata: { o: { a: 2 } } }), 0);
    const zed = await served.client.assistants.create({ graphId: "agent", name: "Zed" });
    const found = await served.client.assistants.search({ name: "ze" });
    assert.ok(found.some((a) => a.assistant_id === zed.assistant_id));
  });

  it("a run cancelled ends its stream without an error, and leaves its thread idle", async () => {
    const thread = await served.client.threads.create();
    let runId;
    const reading = gather(served.client.runs.stream(thread.thread_id, "agent", {
      input: { ...input, sleep: 5 }, config: globalConfig,
      onRunCreated: ({ run_id }) => { runId = run_id; },
    }));
    while (!runId) await sleep(20);
    await sleep(200);
    await served.client.runs.cancel(thread.thread_id, runId, true);
    const events = await reading;
    assert.deepEqual(events.filter((e) => e.event === "error"), []);
    assert.equal((await served.client.runs.get(thread.thread_id, runId)).status, "interrupted");
    assert.equal((await served.client.threads.get(thread.thread_id)).status, "idle");
  });

  it("messages in debug and tasks events are serialized as LangChain's", async () => {
    const thread = await served.client.threads.create();
    const events = await gather(served.client.runs.stream(thread.thread_id, "agent", {
      input, config: globalConfig, streamMode: ["debug", "tasks"],
    }));
    const task = events.find((e) => e.event === "tasks" && e.data.input?.messages);
    assert.ok(task, JSON.stringify(events.map((e) => e.event)));
    assert.deepEqual(task.data.input.messages[0].additional_kwargs, {});
    const checkpoint = events.find((e) => e.event === "debug" && e.data.type === "checkpoint" &&
      e.data.payload.values.messages?.length);
    assert.deepEqual(checkpoint.data.payload.values.messages[0].response_metadata, {});
  });
});
