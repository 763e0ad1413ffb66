// Crons through the SDK's CronsClient: made on a thread or stateless, searched, counted,
// changed, deleted, and run on their schedule (croniter's six-field form, seconds last, keeps
// the waits short).
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";

import { serveForFile } from "./support.mjs";

const config = join(dirname(fileURLToPath(import.meta.url)), "graphs", "robust.json");
const input = { messages: [{ type: "human", content: "foo" }] };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const served = serveForFile([], { config });

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
    const info = await (await fetch(`${served.server.url}/info`)).json();
    assert.equal(info.flags.crons, true);
  });

  it("a cron on a thread runs on its schedule, until it is disabled", async () => {
    const thread = await served.client.threads.create();
    const cron = await served.client.crons.createForThread(thread.thread_id, "slow", {
      schedule: "* * * * * */2", input: {}, metadata: { kind: "thread" },
      multitaskStrategy: "enqueue",
    });
    assert.equal(cron.thread_id, thread.thread_id);
    assert.equal(cron.schedule, "* * * * * */2");
    assert.equal(cron.enabled, true);
    assert.ok(Date.parse(cron.next_run_date) > Date.now() - 1000);
    assert.equal(cron.payload.input && typeof cron.payload.input, "object");
    const runs = await until("two runs", async () => {
      const r = await served.client.runs.list(thread.thread_id);
      return r.length >= 2 && r;
    });
    assert.ok(runs.every((r) => r.metadata.cron_id === cron.cron_id));
    await served.client.runs.join(thread.thread_id, runs[0].run_id);
    const state = await served.client.threads.getState(thread.thread_id);
    assert.ok(state.values.steps.length >= 3);

    const off = await served.client.crons.update(cron.cron_id, { enabled: false });
    assert.equal(off.enabled, false);
    assert.equal(off.next_run_date, null);
    await sleep(500);
    const count = (await served.client.runs.list(thread.thread_id, { limit: 100 })).length;
    await sleep(2500);
    assert.equal((await served.client.runs.list(thread.thread_id, { limit: 100 })).length, count);
    await served.client.crons.delete(cron.cron_id);
  });

  it("a stateless cron makes a thread per run, kept with on_run_completed keep", async () => {
    const cron = await served.client.crons.create("agent", {
      schedule: "* * * * * */2", input, onRunCompleted: "keep", metadata: { kind: "stateless" },
    });
    assert.equal(cron.thread_id, null);
    assert.equal(cron.on_run_completed, "keep");
    const threads = await until("a kept thread with the run's answer", async () => {
      const found = await served.client.threads.search({ metadata: { graph_id: "agent" }, limit: 100 });
      const done = [];
      for (const t of found) {
        const runs = await served.client.runs.list(t.thread_id);
        if (runs.some((r) => r.metadata.cron_id === cron.cron_id && r.status === "success"))
          done.push(t);
      }
      return done.length >= 1 && done;
    });
    assert.equal(threads[0].values.messages.at(-1).content, "end");
    await served.client.crons.delete(cron.cron_id);
  });

  it("search, count, update and delete", async () => {
    const thread = await served.client.threads.create();
    const a = await served.client.crons.createForThread(thread.thread_id, "agent", {
      schedule: "0 0 1 1 *", input, metadata: { group: "x" },
    });
    const b = await served.client.crons.create("slow", { schedule: "@daily", input: {},
                                                   metadata: { group: "x" } });
    assert.equal(new Date(a.next_run_date).getUTCMonth(), 0);
    assert.equal(new Date(a.next_run_date).getUTCDate(), 1);
    assert.equal(await served.client.crons.count({ metadata: { group: "x" } }), 2);
    assert.equal(await served.client.crons.count({ threadId: thread.thread_id }), 1);
    const bySlow = await served.client.crons.search({ assistantId: "slow", metadata: { group: "x" } });
    assert.deepEqual(bySlow.map((c) => c.cron_id), [b.cron_id]);
    const page = await served.client.crons.search({ metadata: { group: "x" }, limit: 1, sortBy: "created_at",
                                             sortOrder: "asc" });
    assert.deepEqual(page.map((c) => c.cron_id), [a.cron_id]);

    const changed = await served.client.crons.update(b.cron_id, { schedule: "0 12 * * *",
                                                          input: { steps: ["x"] } });
    assert.equal(changed.schedule, "0 12 * * *");
    assert.deepEqual(changed.payload.input, { steps: ["x"] });
    assert.equal(new Date(changed.next_run_date).getUTCHours(), 12);

    await served.client.crons.delete(b.cron_id);
    await assert.rejects(served.client.crons.delete(b.cron_id), /HTTP 404/);
    // Deleting the thread deletes its crons.
    await served.client.threads.delete(thread.thread_id);
    assert.equal(await served.client.crons.count({ metadata: { group: "x" } }), 0);
  });

  it("a cron's schedule is read on its time zone's clocks", async () => {
    // The wall-clock time of `iso` in `timeZone`, "HH:MM".
    const clock = (iso, timeZone) => new Intl.DateTimeFormat("en-GB", {
      timeZone, hour: "2-digit", minute: "2-digit", hourCycle: "h23",
    }).format(new Date(iso));
    const thread = await served.client.threads.create();
    const tokyo = await served.client.crons.createForThread(thread.thread_id, "agent", {
      schedule: "0 9 * * *", input, timezone: "Asia/Tokyo",
    });
    assert.equal(tokyo.timezone, "Asia/Tokyo");
    // 09:00 in Tokyo (UTC+9, no summer time) is midnight UTC, within the next day.
    assert.match(tokyo.next_run_date, /T00:00:00\+00:00$/);
    assert.ok(Date.parse(tokyo.next_run_date) > Date.now());
    assert.ok(Date.parse(tokyo.next_run_date) <= Date.now() + 86400_000);

    const york = await served.client.crons.create("agent", {
      schedule: "30 9 * * *", input, timezone: "America/New_York",
    });
    assert.equal(york.timezone, "America/New_York");
    assert.equal(clock(york.next_run_date, "America/New_York"), "09:30");
    assert.ok(Date.parse(york.next_run_date) > Date.now());
    assert.ok(Date.parse(york.next_run_date) <= Date.now() + 25 * 3600_000);
    const [found] = await served.client.crons.search({ assistantId: "agent" }).then(
      (all) => all.filter((c) => c.cron_id === york.cron_id));
    assert.equal(found.timezone, "America/New_York");

    // Moved to London: the same fields, London's clocks.
    const london = await served.client.crons.update(york.cron_id, { timezone: "Europe/London" });
    assert.equal(london.timezone, "Europe/London");
    assert.equal(clock(london.next_run_date, "Europe/London"), "09:30");
    await assert.rejects(served.client.crons.update(york.cron_id, { timezone: "../etc/passwd" }),
                         /HTTP 422: timezone: '..\/etc\/passwd'/);

    // No timezone: UTC, and the cron says none (as LangGraph's does).
    const utc = await served.client.crons.create("agent", { schedule: "30 9 * * *", input });
    assert.equal(utc.timezone, null);
    assert.equal(new Date(utc.next_run_date).getUTCHours(), 9);

    for (const c of [tokyo, york, utc]) await served.client.crons.delete(c.cron_id);
    await served.client.threads.delete(thread.thread_id);
  });

  it("bad crons get 422 naming what is wrong", async () => {
    await assert.rejects(served.client.crons.create("agent", { schedule: "every day" }),
                         /HTTP 422: schedule/);
    await assert.rejects(served.client.crons.create("agent", { schedule: "61 * * * *" }),
                         /HTTP 422: schedule: minute/);
    await assert.rejects(served.client.crons.create("agent", { schedule: "* * * * *", timezone: "Mars/Base" }),
                         /HTTP 422: timezone: 'Mars\/Base'/);
    await assert.rejects(served.client.crons.create("agent", { schedule: "* * * * *", endTime: "soon" }),
                         /HTTP 422: end_time/);
    await assert.rejects(served.client.crons.create("nope", { schedule: "* * * * *" }), /HTTP 404/);
    await assert.rejects(
      served.client.crons.createForThread("00000000-0000-4000-8000-000000000000", "agent",
                                   { schedule: "* * * * *" }), /HTTP 404/);
  });

  it("a cron past its end_time does not run", async () => {
    const cron = await served.client.crons.create("agent", {
      schedule: "* * * * * *", input, endTime: new Date(Date.now() - 1000).toISOString(),
    });
    assert.equal(cron.next_run_date, null);
    await served.client.crons.delete(cron.cron_id);
  });
});
