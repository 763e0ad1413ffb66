// Crons through the SDK's CronsClient: made on a thread or stateless, searched, counted,
// changed, deleted, and run on their schedule (croniter's six-field form, seconds last, keeps
// the waits short).
import { Client } from "@langchain/langgraph-sdk";
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";

import { startServer } from "./support.mjs";

const config = join(dirname(fileURLToPath(import.meta.url)), "graphs", "robust.json");
const input = { messages: [{ type: "human", content: "foo" }] };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let server;
let client;

before(async () => {
  server = await startServer([], { config });
  client = new Client({ apiUrl: server.url });
});

after(async () => {
  await server?.stop();
  server?.cleanup();
});

async function until(what, check, ms = 15000) {
  const end = Date.now() + ms;
  for (;;) {
    const got = await check();
    if (got) return got;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(200);
  }
}

describe("crons", () => {
  it("info says crons are served", async () => {
    const info = await (await fetch(`${server.url}/info`)).json();
    assert.equal(info.flags.crons, true);
  });

  it("a cron on a thread runs on its schedule, until it is disabled", async () => {
    const thread = await client.threads.create();
    const cron = await client.crons.createForThread(thread.thread_id, "slow", {
      schedule: "* * * * * */2", input: {}, metadata: { kind: "thread" },
      multitaskStrategy: "enqueue",
    });
    assert.equal(cron.thread_id, thread.thread_id);
    assert.equal(cron.schedule, "* * * * * */2");
    assert.equal(cron.enabled, true);
    assert.ok(Date.parse(cron.next_run_date) > Date.now() - 1000);
    assert.equal(cron.payload.input && typeof cron.payload.input, "object");
    const runs = await until("two runs", async () => {
      const r = await client.runs.list(thread.thread_id);
      return r.length >= 2 && r;
    });
    assert.ok(runs.every((r) => r.metadata.cron_id === cron.cron_id));
    await client.runs.join(thread.thread_id, runs[0].run_id);
    const state = await client.threads.getState(thread.thread_id);
    assert.ok(state.values.steps.length >= 3);

    const off = await client.crons.update(cron.cron_id, { enabled: false });
    assert.equal(off.enabled, false);
    assert.equal(off.next_run_date, null);
    await sleep(500);
    const count = (await client.runs.list(thread.thread_id, { limit: 100 })).length;
    await sleep(2500);
    assert.equal((await client.runs.list(thread.thread_id, { limit: 100 })).length, count);
    await client.crons.delete(cron.cron_id);
  });

  it("a stateless cron makes a thread per run, kept with on_run_completed keep", async () => {
    const cron = await client.crons.create("agent", {
      schedule: "* * * * * */2", input, onRunCompleted: "keep", metadata: { kind: "stateless" },
    });
    assert.equal(cron.thread_id, null);
    assert.equal(cron.on_run_completed, "keep");
    const threads = await until("a kept thread with the run's answer", async () => {
      const found = await client.threads.search({ metadata: { graph_id: "agent" }, limit: 100 });
      const done = [];
      for (const t of found) {
        const runs = await client.runs.list(t.thread_id);
        if (runs.some((r) => r.metadata.cron_id === cron.cron_id && r.status === "success"))
          done.push(t);
      }
      return done.length >= 1 && done;
    });
    assert.equal(threads[0].values.messages.at(-1).content, "end");
    await client.crons.delete(cron.cron_id);
  });

  it("search, count, update and delete", async () => {
    const thread = await client.threads.create();
    const a = await client.crons.createForThread(thread.thread_id, "agent", {
      schedule: "0 0 1 1 *", input, metadata: { group: "x" },
    });
    const b = await client.crons.create("slow", { schedule: "@daily", input: {},
                                                   metadata: { group: "x" } });
    assert.equal(new Date(a.next_run_date).getUTCMonth(), 0);
    assert.equal(new Date(a.next_run_date).getUTCDate(), 1);
    assert.equal(await client.crons.count({ metadata: { group: "x" } }), 2);
    assert.equal(await client.crons.count({ threadId: thread.thread_id }), 1);
    const bySlow = await client.crons.search({ assistantId: "slow", metadata: { group: "x" } });
    assert.deepEqual(bySlow.map((c) => c.cron_id), [b.cron_id]);
    const page = await client.crons.search({ metadata: { group: "x" }, limit: 1, sortBy: "created_at",
                                             sortOrder: "asc" });
    assert.deepEqual(page.map((c) => c.cron_id), [a.cron_id]);

    const changed = await client.crons.update(b.cron_id, { schedule: "0 12 * * *",
                                                          input: { steps: ["x"] } });
    assert.equal(changed.schedule, "0 12 * * *");
    assert.deepEqual(changed.payload.input, { steps: ["x"] });
    assert.equal(new Date(changed.next_run_date).getUTCHours(), 12);

    await client.crons.delete(b.cron_id);
    await assert.rejects(client.crons.delete(b.cron_id), /HTTP 404/);
    // Deleting the thread deletes its crons.
    await client.threads.delete(thread.thread_id);
    assert.equal(await client.crons.count({ metadata: { group: "x" } }), 0);
  });

  it("bad crons get 422 naming what is wrong", async () => {
    await assert.rejects(client.crons.create("agent", { schedule: "every day" }),
                         /HTTP 422: schedule/);
    await assert.rejects(client.crons.create("agent", { schedule: "61 * * * *" }),
                         /HTTP 422: schedule: minute/);
    await assert.rejects(client.crons.create("agent", { schedule: "* * * * *", timezone: "Mars/Base" }),
                         /HTTP 422: timezone/);
    await assert.rejects(client.crons.create("agent", { schedule: "* * * * *", endTime: "soon" }),
                         /HTTP 422: end_time/);
    await assert.rejects(client.crons.create("nope", { schedule: "* * * * *" }), /HTTP 404/);
    await assert.rejects(
      client.crons.createForThread("00000000-0000-4000-8000-000000000000", "agent",
                                   { schedule: "* * * * *" }), /HTTP 404/);
  });

  it("a cron past its end_time does not run", async () => {
    const cron = await client.crons.create("agent", {
      schedule: "* * * * * *", input, endTime: new Date(Date.now() - 1000).toISOString(),
    });
    assert.equal(cron.next_run_date, null);
    await client.crons.delete(cron.cron_id);
  });
});
