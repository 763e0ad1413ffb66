// The server under bad input, clients that go away, many clients at once, and a SIGKILL: what
// LangGraph Server's users count on beyond the API's happy paths.
import { Client } from "@langchain/langgraph-sdk";
import assert from "node:assert/strict";
import { createServer, request } from "node:http";
import { connect } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";

import { gather, startServer, serveForFile } from "./support.mjs";

const config = join(dirname(fileURLToPath(import.meta.url)), "graphs", "robust.json");
const input = { messages: [{ type: "human", content: "foo" }] };
const served = serveForFile([], { config });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Sends raw bytes and returns what came back before the server closed (or `ms` passed).
function raw(url, bytes, ms = 3000) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let got = "";
    const done = () => { socket.destroy(); resolve(got); };
    socket.on("data", (d) => { got += d.toString(); });
    socket.on("end", done);
    socket.on("error", done);
    setTimeout(done, ms);
    socket.write(bytes);
  });
}

describe("bad input", () => {
  it("a body over the limit gets 413 and the server goes on", async () => {
    const big = JSON.stringify({ metadata: { blob: "x".repeat(2 << 20) } });
    const res = await fetch(`${served.server.url}/threads`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: big,
    }).catch((e) => ({ status: "closed", e }));
    if (res.status !== "closed") assert.equal(res.status, 413);
    assert.deepEqual(await (await fetch(`${served.server.url}/ok`)).json(), { ok: true });
  });

  it("malformed requests get an error, not a crash", async () => {
    const answers = await Promise.all([
      raw(served.server.url, "GARBAGE\r\n\r\n"),
      raw(served.server.url, "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n"),
      raw(served.server.url, "POST /threads HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{\"a\":"),
      raw(served.server.url, "GET /" + "a".repeat(100000) + " HTTP/1.1\r\nHost: x\r\n\r\n"),
      raw(served.server.url, "POST /threads/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n[]"),
    ]);
    assert.match(answers[4], /^HTTP\/1\.1 422/);
    const res = await fetch(`${served.server.url}/threads`, {
      method: "POST",
      headers: { "Content-Type": "text/plain" },  // browsers' way around a preflight
      body: JSON.stringify({ metadata: { via: "text/plain" } }),
    });
    assert.equal(res.status, 200);
    assert.deepEqual((await res.json()).metadata, { via: "text/plain" });
    assert.deepEqual(await (await fetch(`${served.server.url}/ok`)).json(), { ok: true });
  });

  it("bad fields are named", async () => {
    const thread = await served.client.threads.create();
    const post = (path, body) =>
      fetch(`${served.server.url}${path}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
    let res = await post(`/threads/${thread.thread_id}/runs/wait`, { assistant_id: "agent", stream_mode: "bogus", input });
    assert.equal(res.status, 422);
    assert.match(await res.text(), /stream_mode/);
    res = await post(`/threads/${thread.thread_id}/runs`, { assistant_id: "agent", multitask_strategy: "later", input });
    assert.equal(res.status, 422);
    assert.match(await res.text(), /multitask_strategy/);
    res = await post("/store/items/search", { namespace_prefix: ["a.b"] });
    assert.equal(res.status, 422);
    for (const route of ["/ok", "/info"]) {  // a known route, another method
      res = await fetch(`${served.server.url}${route}`, { method: "DELETE" });
      assert.equal(res.status, 405, route);
    }
    res = await fetch(`${served.server.url}/threads/${thread.thread_id}/runs?limit=many`);
    assert.equal(res.status, 422);
    assert.match(await res.text(), /limit/);
  });

  it("a browser's preflight is answered", async () => {
    const res = await fetch(`${served.server.url}/threads/search`, {
      method: "OPTIONS",
      headers: {
        Origin: "http://localhost:5173",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
        "Access-Control-Request-Private-Network": "true",
      },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("access-control-allow-origin"), "http://localhost:5173");
    assert.equal(res.headers.get("access-control-allow-private-network"), "true");
    const get = await fetch(`${served.server.url}/ok`, { headers: { Origin: "http://localhost:5173" } });
    assert.match(get.headers.get("access-control-expose-headers"), /Content-Location/);
  });
});

describe("clients", () => {
  it("a stream's client that goes away with on_disconnect=cancel cancels the run", async () => {
    const thread = await served.client.threads.create();
    const controller = new AbortController();
    let runId;
    try {
      for await (const chunk of served.client.runs.stream(thread.thread_id, "slow", {
        input: {},
        onDisconnect: "cancel",
        signal: controller.signal,
      })) {
        if (chunk.event === "metadata") {
          runId = chunk.data.run_id;
          controller.abort();
        }
      }
    } catch {
      // the abort
    }
    assert.ok(runId);
    for (let i = 0; i < 50; ++i) {
      const run = await served.client.runs.get(thread.thread_id, runId);
      if (run.status !== "running" && run.status !== "pending") break;
      await sleep(100);
    }
    assert.equal((await served.client.runs.get(thread.thread_id, runId)).status, "interrupted");
  });

  it("a stream's client that goes away leaves the run going by default", async () => {
    const thread = await served.client.threads.create();
    const controller = new AbortController();
    let runId;
    try {
      for await (const chunk of served.client.runs.stream(thread.thread_id, "slow", {
        input: {},
        signal: controller.signal,
      })) {
        if (chunk.event === "metadata") {
          runId = chunk.data.run_id;
          controller.abort();
        }
      }
    } catch {
      // the abort
    }
    const values = await served.client.runs.join(thread.thread_id, runId);
    assert.deepEqual(values.steps, ["one", "two", "three"]);
  });

  it("a stream joined midway gets the run's events from the start", async () => {
    const thread = await served.client.threads.create();
    const run = await served.client.runs.create(thread.thread_id, "slow", { input: {}, streamMode: "updates" });
    await sleep(500);
    const chunks = await gather(served.client.runs.joinStream(thread.thread_id, run.run_id));
    assert.equal(chunks[0].event, "metadata");
    assert.deepEqual(
      chunks.filter((c) => c.event === "updates").map((c) => Object.keys(c.data)[0]),
      ["one", "two", "three"],
    );
  });

  it("a hundred clients at once each get their run", async () => {
    const results = await Promise.all(
      Array.from({ length: 100 }, async () => {
        const thread = await served.client.threads.create();
        return served.client.runs.wait(thread.thread_id, "agent", { input });
      }),
    );
    assert.ok(results.every((v) => v.messages.length === 4));
  });

  it("a second run on a busy thread is refused under reject", async () => {
    const thread = await served.client.threads.create();
    await served.client.runs.create(thread.thread_id, "slow", { input: {} });
    await assert.rejects(
      served.client.runs.create(thread.thread_id, "slow", { input: {} }),
      /HTTP 409/,
    );
    await served.client.runs.create(thread.thread_id, "slow", { input: {}, multitaskStrategy: "enqueue" });
  });
});

describe("webhooks", () => {
  it("an ended run is posted to its webhook, with its status and the thread's values", async () => {
    const posts = [];
    let arrived;
    const hook = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => { body += c; });
      req.on("end", () => {
        posts.push({ path: req.url, type: req.headers["content-type"], body: JSON.parse(body) });
        res.end("ok");
        arrived?.();
      });
    });
    await new Promise((r) => hook.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${hook.address().port}/hooks/run?k=1`;
    try {
      const thread = await served.client.threads.create();
      const got = new Promise((r) => { arrived = r; });
      const run = await served.client.runs.create(thread.thread_id, "agent", { input, webhook: url });
      await served.client.runs.join(thread.thread_id, run.run_id);
      await Promise.race([got, sleep(10000)]);
      assert.equal(posts.length, 1);
      const [post] = posts;
      assert.equal(post.path, "/hooks/run?k=1");
      assert.equal(post.type, "application/json");
      assert.equal(post.body.run_id, run.run_id);
      assert.equal(post.body.thread_id, thread.thread_id);
      assert.equal(post.body.status, "success");
      assert.equal(post.body.values.messages.at(-1).content, "end");
      for (const k of ["run_started_at", "run_ended_at", "webhook_sent_at"])
        assert.ok(Date.parse(post.body[k]), k);
    } finally {
      hook.close();
    }
    // A webhook nobody answers costs the run nothing.
    const thread = await served.client.threads.create();
    const done = await served.client.runs.wait(thread.thread_id, "agent", {
      input, webhook: "http://127.0.0.1:1/nobody",
    });
    assert.equal(done.messages.at(-1).content, "end");
  });
});

describe("keep-alive", () => {
  it("idle streams get heartbeats and waits newlines, which the SDK reads past", async () => {
    const thread = await served.client.threads.create();
    const slow = { messages: [{ type: "human", content: "foo" }], sleep: 6 };
    const post = (path, body) => fetch(`${served.server.url}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    }).then((r) => r.text());
    const [streamed, waited, raw] = await Promise.all([
      post(`/threads/${thread.thread_id}/runs/stream`,
           { assistant_id: "agent", input: slow, stream_mode: "values" }),
      served.client.runs.wait(null, "agent", { input: slow }),
      post("/runs/wait", { assistant_id: "agent", input: slow }),
    ]);
    assert.match(streamed, /\n: heartbeat\n\n/);
    assert.match(streamed, /event: values/);
    assert.equal(waited.messages.at(-1).content, "end");
    assert.match(raw, /^\n+\{/);
    assert.equal(JSON.parse(raw).messages.at(-1).content, "end");
  });
});

describe("restart", () => {
  it("a server killed with SIGKILL comes back with its assistants, threads, runs and crons", async () => {
    const assistant = await served.client.assistants.create({ graphId: "agent", name: "kept" });
    const thread = await served.client.threads.create({ metadata: { kept: true } });
    await served.client.runs.wait(thread.thread_id, assistant.assistant_id, { input });
    const cron = await served.client.crons.create("agent", { schedule: "0 0 1 1 *", input });
    const busy = await served.client.threads.create();
    const running = await served.client.runs.create(busy.thread_id, "slow", { input: {} });
    await sleep(600);  // the first of its three steps saved, the second under way
    const data = served.server.data;
    await served.server.stop("SIGKILL");
    served.server = await startServer([], { config, data });
    served.client = new Client({ apiUrl: served.server.url });

    assert.equal((await served.client.assistants.get(assistant.assistant_id)).name, "kept");
    const again = await served.client.threads.get(thread.thread_id);
    assert.deepEqual(again.metadata.kept, true);
    assert.equal(again.status, "idle");
    assert.equal(again.values.messages.length, 4);
    assert.equal((await served.client.threads.getHistory(thread.thread_id)).length, 5);
    const crons = await served.client.crons.search({ assistantId: "agent" });
    assert.deepEqual(crons.map((c) => c.cron_id), [cron.cron_id]);
    assert.equal(crons[0].next_run_date, cron.next_run_date);
    // The run the kill stopped goes on from its last checkpoint, and ends as one that was
    // never stopped would have.
    await served.client.runs.join(busy.thread_id, running.run_id);
    assert.equal((await served.client.runs.get(busy.thread_id, running.run_id)).status, "success");
    assert.deepEqual((await served.client.threads.getState(busy.thread_id)).values.steps,
                     ["one", "two", "three"]);
    assert.equal((await served.client.threads.get(busy.thread_id)).status, "idle");
    const next = await served.client.runs.wait(busy.thread_id, "slow", { input: {} });
    assert.deepEqual(next.steps, ["one", "two", "three", "one", "two", "three"]);
    // The thread goes on: a second run appends to the first one's state.
    const more = await served.client.runs.wait(thread.thread_id, assistant.assistant_id, { input });
    assert.equal(more.messages.length, 8);
  });
});

describe("SIGTERM", () => {
  it("stops the server in order, a thread stream and a run's stream open", async () => {
    const server = await startServer([], { config });
    try {
      const client = new Client({ apiUrl: server.url });
      const thread = await client.threads.create();
      const joined = fetch(`${server.url}/threads/${thread.thread_id}/stream`)
        .then((r) => r.text()).catch(() => "");
      const running = gather(client.runs.stream(null, "slow", { input: {} })).catch(() => []);
      await sleep(300);
      await server.stop("SIGTERM");
      await Promise.all([joined, running]);
      // It shut down (the signal went to the thread that waits for it), not died by it: the
      // server's line, or a head's.
      assert.match(server.log(),
        /stopping: (runs in progress stop at their next step|new commands are refused)/);
      assert.match(server.log(), /\bstopped\b/);
    } finally {
      await server.stop("SIGKILL");
      server.cleanup();
    }
  });
});
