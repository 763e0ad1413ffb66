// `superstep serve --saver redis://...`: the checkpoints and the API's records (assistants,
// threads, runs, crons) on a real redis-server (started here on a free port): they survive a
// SIGKILL of the server, and another server on the same Redis with a data folder of its own
// lists the same threads, assistants and crons.
import { Client } from "@langchain/langgraph-sdk";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";

import { startServer } from "./support.mjs";

const haveRedis = (() => {
  try {
    execFileSync("sh", ["-c", "command -v redis-server"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// A redis-server on a free port, without persistence (it outlives the servers here).
async function startRedis() {
  const dir = mkdtempSync(join(tmpdir(), "superstep-redis-"));
  for (let attempt = 0; ; ++attempt) {
    const port = await freePort();
    const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1",
      "--save", "", "--appendonly", "no", "--dir", dir], { stdio: ["ignore", "pipe", "pipe"] });
    let log = "";
    const ready = await new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), 10000);
      child.stdout.on("data", (c) => {
        log += c.toString();
        if (/Ready to accept connections/.test(log)) {
          clearTimeout(timer);
          resolve(true);
        }
      });
      child.on("exit", () => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    if (ready) {
      return {
        url: `redis://127.0.0.1:${port}`,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) {
            const ended = new Promise((r) => child.once("exit", r));
            child.kill("SIGKILL");
            await ended;
          }
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    child.kill("SIGKILL");
    if (attempt >= 3) throw new Error("redis-server did not start:\n" + log);
  }
}

describe("records on Redis", { skip: haveRedis ? false : "no redis-server here" }, () => {
  let redis;
  const servers = [];
  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    for (const s of servers) {
      await s.stop("SIGKILL");
      s.cleanup();
    }
    await redis?.stop();
  });

  it("survive a killed server, and another server on the same Redis sees them", async () => {
    const first = await startServer(["--saver", redis.url]);
    servers.push(first);
    let client = new Client({ apiUrl: first.url });
    const assistant = await client.assistants.create({ graphId: "agent", name: "on redis" });
    const thread = await client.threads.create({ metadata: { owner: "redis-test" } });
    const state = await client.runs.wait(thread.thread_id, assistant.assistant_id, {
      input: { messages: [{ role: "human", content: "foo" }] },
      config: { configurable: { user_id: "123" } },
    });
    assert.ok(Array.isArray(state.messages));
    const cron = await client.crons.createForThread(thread.thread_id, assistant.assistant_id, {
      schedule: "0 0 1 1 *",
      input: { messages: [{ role: "human", content: "yearly" }] },
    });

    // Killed, then started again on the same folder and Redis: all there, state included.
    await first.stop("SIGKILL");
    const again = await startServer(["--saver", redis.url], { data: first.data });
    servers.push(again);
    client = new Client({ apiUrl: again.url });
    assert.equal((await client.assistants.get(assistant.assistant_id)).name, "on redis");
    const t = await client.threads.get(thread.thread_id);
    assert.deepEqual(t.metadata.owner, "redis-test");
    assert.equal(t.status, "idle");
    const s = await client.threads.getState(thread.thread_id);
    assert.deepEqual(s.values.messages.length, state.messages.length);
    assert.equal((await client.runs.list(thread.thread_id)).length, 1);
    assert.ok((await client.crons.search({ thread_id: thread.thread_id }))
      .some((c) => c.cron_id === cron.cron_id));

    // Another server on the same Redis with a data folder of its own lists the same records:
    // they are on Redis, not in a folder.
    const other = await startServer(["--saver", redis.url]);
    servers.push(other);
    const otherClient = new Client({ apiUrl: other.url });
    const found = await otherClient.threads.search({ metadata: { owner: "redis-test" } });
    assert.deepEqual(found.map((x) => x.thread_id), [thread.thread_id]);
    assert.equal((await otherClient.assistants.get(assistant.assistant_id)).name, "on redis");
  });
});
