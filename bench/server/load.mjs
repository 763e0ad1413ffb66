// The bench's runs/wait load on a server that is already running (for profiling it: profile.sh):
// CLIENTS keep-alive connections, each with one `POST /threads/{uuid}/runs/wait` in flight
// (`if_not_exists: "create"`, graph `append`), for SECONDS; prints runs/s. Answers are checked.
// A new thread per run, or with RUNS_PER_THREAD, that many runs on a client's thread before it
// takes a new one.
//
//   node bench/server/load.mjs http://127.0.0.1:PORT [CLIENTS=64] [SECONDS=10] [RUNS_PER_THREAD=1]
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { Pool } from "undici";

const [base, clients = "64", seconds = "10", perThread = "1"] = process.argv.slice(2);
if (!base) {
  console.error("usage: node load.mjs http://HOST:PORT [CLIENTS] [SECONDS]");
  process.exit(64);
}
const pool = new Pool(base, { connections: Number(clients), pipelining: 1, keepAliveTimeout: 120_000 });
const body = JSON.stringify({ assistant_id: "append", input: { items: ["hi"] }, if_not_exists: "create" });
const end = performance.now() + Number(seconds) * 1000;
let done = 0;
const loop = async () => {
  let thread = null, runs = 0;
  while (performance.now() < end) {
    if (!thread || runs >= Number(perThread)) { thread = randomUUID(); runs = 0; }
    runs++;
    const r = await pool.request({
      path: `/threads/${thread}/runs/wait`, method: "POST",
      headers: { "content-type": "application/json" }, body,
    });
    const text = await r.body.text();
    const want = JSON.stringify(Array.from({ length: runs }, () => ["hi", "ok"]).flat());
    if (r.statusCode !== 200 || JSON.stringify(JSON.parse(text).items) !== want) {
      console.error(`wrong answer: HTTP ${r.statusCode} ${text.slice(0, 300)}`);
      process.exit(2);
    }
    done++;
  }
};
const t0 = performance.now();
const cpu0 = process.cpuUsage();
await Promise.all(Array.from({ length: Number(clients) }, loop));
const wall = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
console.log(`${done} runs in ${wall.toFixed(2)} s: ${(done / wall).toFixed(1)} runs/s ` +
  `(${clients} clients; load generator ${((cpu.user + cpu.system) / 1e6 / wall).toFixed(2)} cores)`);
await pool.close();
