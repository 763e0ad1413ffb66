// `superstep serve` and the LangGraph.js API server (`langgraphjs dev`, @langchain/langgraph-api,
// what `npx @langchain/langgraph-cli dev` runs) side by side, in one run on this machine, serving
// the same one-node graph (`append`: the node appends "ok" to `items`; superstep/append.json and
// js/graph.mjs). Measures
//   - checkpointed `POST /threads/{id}/runs/wait` throughput (runs/s), a new thread per run
//     (`if_not_exists: "create"` on a fresh uuid, or `--thread create`: POST /threads first; or
//     `--thread reuse`: each client runs --runs-per-thread runs on a thread, then takes a new one), with
//     1, 16 and 64 concurrent clients (keep-alive connections, one request in flight each), each
//     for a fixed time after a warm-up, in several repetitions, the two servers alternating;
//   - the latency of `POST /threads/{id}/runs/stream` (one client): to its first event
//     (`metadata`), to its first `values` event, and to its end: median and p99;
//   - each server's peak RSS (VmHWM of the server process and each of its children) and the CPU
//     time it spends per run (utime+stime of the same processes), and the load generator's.
// While one server is measured the other is paused (SIGSTOP), so it takes no CPU. Every answer
// is checked ({"items": ["hi", "ok"]}); a wrong one stops the program with exit status 2.
// Prints a Markdown table and writes JSON lines.
//
//   node bench/server/bench.mjs [--superstep build/cluster/superstep] [--json OUT.jsonl]
//     [--duration 10] [--warmup 3] [--reps 3] [--clients 1,16,64] [--streams 300]
//     [--servers superstep,js] [--thread if_not_exists|create|reuse] [--runs-per-thread 50]
//     [--js-log-level LEVEL]
//     [--run-threads N] [--keep-data]
//
// `make bench-server` installs the npm packages (npm ci) and runs it (~5 minutes).
import { spawn, execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  closeSync, existsSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Pool } from "undici";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");

// ---- options ----
const opts = {
  superstep: path.join(root, "build/cluster/superstep"),
  json: path.join(root, "build/bench/server_bench.jsonl"),
  duration: 10,
  warmup: 3,
  reps: 3,
  clients: [1, 16, 64],
  streams: 300,
  servers: ["superstep", "js"],
  thread: "if_not_exists",
  runsPerThread: 50, // --thread reuse: runs on one thread before a client takes a new one
  jsLogLevel: null, // the dev server's default (debug: a few lines per run)
  runThreads: null, // superstep's default (16)
  keepData: false,
};
{
  const a = process.argv.slice(2);
  const usage = () => {
    console.error(readFileSync(fileURLToPath(import.meta.url), "utf8").split("\n").filter((l) => l.startsWith("//   ")).join("\n"));
    process.exit(64);
  };
  for (let i = 0; i < a.length; i++) {
    const flag = a[i];
    const v = () => (i + 1 < a.length ? a[++i] : usage());
    switch (flag) {
      case "--superstep": opts.superstep = path.resolve(v()); break;
      case "--json": opts.json = path.resolve(v()); break;
      case "--duration": opts.duration = Number(v()); break;
      case "--warmup": opts.warmup = Number(v()); break;
      case "--reps": opts.reps = Number(v()); break;
      case "--clients": opts.clients = v().split(",").map(Number); break;
      case "--streams": opts.streams = Number(v()); break;
      case "--servers": opts.servers = v().split(","); break;
      case "--thread": opts.thread = v(); break;
      case "--runs-per-thread": opts.runsPerThread = Number(v()); break;
      case "--js-log-level": opts.jsLogLevel = v(); break;
      case "--run-threads": opts.runThreads = Number(v()); break;
      case "--keep-data": opts.keepData = true; break;
      default: usage();
    }
  }
  if (!["if_not_exists", "create", "reuse"].includes(opts.thread)) usage();
  if (opts.servers.some((s) => !["superstep", "js"].includes(s))) usage();
}

const GRAPH = "append";
const INPUT = { items: ["hi"] };
const EXPECTED = JSON.stringify(["hi", "ok"]);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

class WrongResult extends Error {}

// ---- processes: the tree under a pid, its peak RSS and CPU time ----
const TICK = 100; // clock ticks per second (CLK_TCK on Linux/x86-64)
function procStat(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = s.slice(s.lastIndexOf(")") + 2).split(" "); // fields from the 3rd (state) on
    return { ppid: Number(f[1]), cpuTicks: Number(f[11]) + Number(f[12]) };
  } catch {
    return null;
  }
}
function tree(pid) {
  const children = new Map();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    const st = procStat(d);
    if (!st) continue;
    if (!children.has(st.ppid)) children.set(st.ppid, []);
    children.get(st.ppid).push(Number(d));
  }
  const out = [];
  const walk = (p) => { out.push(p); for (const c of children.get(p) ?? []) walk(c); };
  walk(pid);
  return out;
}
function statusField(pid, field) {
  try {
    const m = readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}
function comm(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean)
      .map((x) => path.basename(x)).slice(0, 3).join(" ");
  } catch {
    return "?";
  }
}
// All the machine's busy CPU time (ms) since boot: user, nice, system, irq, softirq, steal.
function machineBusyMs() {
  const f = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  return (f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) * (1000 / TICK);
}
const cpuMs = (pids) => pids.reduce((t, p) => t + (procStat(p)?.cpuTicks ?? 0), 0) * (1000 / TICK);
const signalAll = (pids, sig) => { for (const p of pids) { try { process.kill(p, sig); } catch {} } };

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.unref();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

async function waitOk(base, child, logFile, timeoutMs) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (child.exitCode != null) break;
    try {
      const r = await fetch(`${base}/ok`);
      if (r.ok) return;
    } catch {}
    await sleep(100);
  }
  throw new Error(`${base} did not answer GET /ok; its log (${logFile}):\n` + tailOf(logFile));
}
const tailOf = (f) => { try { return readFileSync(f, "utf8").split("\n").slice(-30).join("\n"); } catch { return ""; } };

// ---- the two servers ----
async function startSuperstep(tmp) {
  if (!existsSync(opts.superstep)) throw new Error(`no superstep program at ${opts.superstep} (build it, or --superstep PATH)`);
  const data = path.join(tmp, "superstep-data");
  const log = path.join(tmp, "superstep.log");
  const fd = openSync(log, "w");
  const args = ["serve", "--config", path.join(here, "superstep/superstep.json"),
    "--listen", "127.0.0.1:0", "--data", data];
  if (opts.runThreads) args.push("--run-threads", String(opts.runThreads));
  const t0 = performance.now();
  const child = spawn(opts.superstep, args, { stdio: ["ignore", fd, fd], detached: true });
  closeSync(fd);
  // superstep serve logs "listening on http://HOST:PORT" once its port is bound.
  let base = null;
  for (const end = Date.now() + 30_000; !base && Date.now() < end && child.exitCode == null;) {
    const m = readFileSync(log, "utf8").match(/listening on (http:\/\/[\d.]+:\d+)/);
    if (m) base = m[1]; else await sleep(20);
  }
  if (!base) { signalAll([child.pid], "SIGKILL"); throw new Error(`superstep serve did not start:\n${tailOf(log)}`); }
  await waitOk(base, child, log, 30_000);
  return { name: "superstep", label: "superstep serve", child, base, log, data, startMs: performance.now() - t0 };
}

async function startJs(tmp) {
  const cli = path.join(here, "node_modules/@langchain/langgraph-cli/dist/cli/cli.mjs");
  if (!existsSync(cli)) throw new Error(`no ${cli}: run npm ci in ${here}`);
  const project = path.join(here, "js");
  // The dev server keeps its threads, runs and checkpoints in js/.langgraph_api: start empty.
  rmSync(path.join(project, ".langgraph_api"), { recursive: true, force: true });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const log = path.join(tmp, "langgraphjs.log");
  const fd = openSync(log, "w");
  const env = {
    ...process.env,
    LANGSMITH_TRACING: "false", LANGSMITH_TRACING_V2: "false",
    LANGCHAIN_TRACING: "false", LANGCHAIN_TRACING_V2: "false",
    LANGGRAPH_CLI_NO_ANALYTICS: "1", // the CLI's usage ping
    BROWSER: "none", NO_COLOR: "1", FORCE_COLOR: "0",
  };
  delete env.LANGSMITH_API_KEY; delete env.LANGCHAIN_API_KEY;
  if (opts.jsLogLevel) env.LOG_LEVEL = opts.jsLogLevel;
  const t0 = performance.now();
  const child = spawn(process.execPath, [cli, "dev", "--port", String(port), "--host", "127.0.0.1",
    "--no-browser", "--no-reload", "--config", path.join(project, "langgraph.json")],
  { cwd: project, stdio: ["ignore", fd, fd], detached: true, env });
  closeSync(fd);
  await waitOk(base, child, log, 120_000);
  return { name: "js", label: "LangGraph.js dev server", child, base, log, data: path.join(project, ".langgraph_api"),
    startMs: performance.now() - t0 };
}

const alive = (pid) => { try { return !/^[ZX]/.test(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1] ?? ""); } catch { return false; } };
async function stopServer(s) {
  const pids = tree(s.child.pid);
  signalAll(pids, "SIGCONT");
  signalAll([s.child.pid], "SIGTERM");
  for (const end = Date.now() + 8000; Date.now() < end && pids.some(alive);) await sleep(100);
  signalAll(pids.filter(alive), "SIGKILL");
  for (const end = Date.now() + 2000; Date.now() < end && s.child.exitCode == null && s.child.signalCode == null;) await sleep(50);
}

// ---- requests ----
const runBody = JSON.stringify({ assistant_id: GRAPH, input: INPUT, if_not_exists: "create" });
const runBodyExisting = JSON.stringify({ assistant_id: GRAPH, input: INPUT });
const streamBody = JSON.stringify({ assistant_id: GRAPH, input: INPUT, if_not_exists: "create", stream_mode: "values" });
const JSON_HEADERS = { "content-type": "application/json" };

async function newThread(pool) {
  const { statusCode, body } = await pool.request({ path: "/threads", method: "POST", headers: JSON_HEADERS, body: "{}" });
  const text = await body.text();
  if (statusCode !== 200) throw new WrongResult(`POST /threads: HTTP ${statusCode} ${text.slice(0, 200)}`);
  return JSON.parse(text).thread_id;
}

// One run. `client` keeps the thread of --thread reuse: {id, runs}.
async function oneWait(pool, client) {
  let id, body = runBody, expected = EXPECTED;
  if (opts.thread === "create") { id = await newThread(pool); body = runBodyExisting; }
  else if (opts.thread === "reuse") {
    if (!client.id || client.runs >= opts.runsPerThread) { client.id = randomUUID(); client.runs = 0; }
    id = client.id;
    client.runs++;
    // The thread's items grow by ["hi", "ok"] a run.
    expected = JSON.stringify(Array.from({ length: client.runs }, () => ["hi", "ok"]).flat());
  } else id = randomUUID();
  const r = await pool.request({ path: `/threads/${id}/runs/wait`, method: "POST", headers: JSON_HEADERS, body });
  const text = await r.body.text();
  if (r.statusCode !== 200) throw new WrongResult(`runs/wait: HTTP ${r.statusCode} ${text.slice(0, 300)}`);
  let items;
  try { items = JSON.stringify(JSON.parse(text).items); } catch {}
  if (items !== expected) throw new WrongResult(`runs/wait answered ${text.slice(0, 300)}, not {"items": ${expected.slice(0, 100)}}`);
}

// Closed-loop load: `clients` connections, each with one request in flight, for `seconds`.
async function load(s, pool, clients, seconds, measure) {
  const lat = [];
  let done = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  const cpu0 = measure ? { server: cpuMs(s.pids), client: process.cpuUsage(), machine: machineBusyMs() } : null;
  const loop = async () => {
    const client = {};
    while (performance.now() < end) {
      const a = performance.now();
      await oneWait(pool, client);
      const b = performance.now();
      if (b <= end) { done++; if (measure) lat.push(b - a); }
    }
  };
  await Promise.all(Array.from({ length: clients }, loop));
  if (!measure) return null;
  const wall = performance.now() - t0;
  const serverCpu = cpuMs(s.pids) - cpu0.server;
  const cu = process.cpuUsage(cpu0.client);
  const machineCpu = machineBusyMs() - cpu0.machine;
  lat.sort((x, y) => x - y);
  return {
    runs: done, seconds, runs_per_s: done / seconds,
    p50_ms: pct(lat, 0.5), p99_ms: pct(lat, 0.99),
    server_cpu_ms_per_run: done ? serverCpu / done : null,
    server_cores: serverCpu / wall,
    client_cpu_ms_per_run: done ? (cu.user + cu.system) / 1000 / done : null,
    client_cores: (cu.user + cu.system) / 1000 / wall,
    // What else kept the machine's cores busy meanwhile (other processes: a build, say).
    other_cores: Math.max(0, (machineCpu - serverCpu - (cu.user + cu.system) / 1000) / wall),
  };
}
const pct = (sorted, q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : null);

// One `runs/stream`: ms to the first event, to the first `values` event, to the end.
async function oneStream(pool) {
  const id = randomUUID();
  const t0 = performance.now();
  const r = await pool.request({ path: `/threads/${id}/runs/stream`, method: "POST", headers: JSON_HEADERS, body: streamBody });
  if (r.statusCode !== 200) throw new WrongResult(`runs/stream: HTTP ${r.statusCode} ${(await r.body.text()).slice(0, 300)}`);
  let buf = "", first = null, firstValues = null, lastValues = null, events = [];
  for await (const chunk of r.body) {
    buf += chunk.toString("utf8");
    let i;
    while ((i = buf.search(/\r?\n\r?\n/)) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(buf[i] === "\r" ? i + 4 : i + 2);
      const ev = /^event: ?(.*)$/m.exec(block)?.[1];
      if (!ev) continue;
      const now = performance.now() - t0;
      if (first == null) first = now;
      events.push(ev);
      if (ev === "values") {
        if (firstValues == null) firstValues = now;
        lastValues = block.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\n");
      }
    }
  }
  const total = performance.now() - t0;
  let items;
  try { items = JSON.stringify(JSON.parse(lastValues).items); } catch {}
  if (events[0] !== "metadata" || items !== EXPECTED)
    throw new WrongResult(`runs/stream: events ${events.join(",")}, last values ${lastValues}`);
  return { first, firstValues, total };
}

// ---- the run ----
const loadavg = () => os.loadavg().map((x) => Math.round(x * 100) / 100);
const jsonLines = [];
const emit = (o) => { jsonLines.push(JSON.stringify(o)); };

function versions() {
  const v = {};
  try {
    v.superstep = execFileSync(opts.superstep, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch { v.superstep = null; }
  try { v.superstep_git = execFileSync("git", ["-C", root, "describe", "--always", "--dirty"], { encoding: "utf8" }).trim(); } catch {}
  for (const p of ["@langchain/langgraph-api", "@langchain/langgraph-cli", "@langchain/langgraph", "@langchain/core"]) {
    try { v[p] = JSON.parse(readFileSync(path.join(here, "node_modules", p, "package.json"), "utf8")).version; } catch {}
  }
  v.node = process.version;
  return v;
}

const cpuModel = os.cpus()[0]?.model ?? "?";
const env = {
  kind: "env", date: new Date().toISOString(), host: os.hostname(), cpus: os.cpus().length, cpu_model: cpuModel,
  mem_gb: Math.round(os.totalmem() / 2 ** 30), loadavg_start: loadavg(), versions: versions(),
  options: { duration_s: opts.duration, warmup_s: opts.warmup, reps: opts.reps, clients: opts.clients,
    streams: opts.streams, thread: opts.thread, runs_per_thread: opts.thread === "reuse" ? opts.runsPerThread : undefined, js_log_level: opts.jsLogLevel ?? "default (debug)",
    superstep_run_threads: opts.runThreads ?? "default (16)" },
};
emit(env);
console.log(`server bench: ${env.cpus} × ${cpuModel}, load ${env.loadavg_start.join(" ")}; ` +
  `${opts.reps} × ${opts.duration} s per row after ${opts.warmup} s warm-up; threads: ${opts.thread}${opts.thread === "reuse" ? ` (${opts.runsPerThread} runs each)` : ""}`);
if (env.loadavg_start[0] > 0.7 * env.cpus)
  console.log(`server bench: WARNING: the 1-min load is ${env.loadavg_start[0]} on ${env.cpus} cores: figures are disturbed`);

const tmp = mkdtempSync(path.join(os.tmpdir(), "superstep-server-bench-"));
const servers = [];
let status = 0;
const stopAll = async () => {
  for (const s of servers) { try { await stopServer(s); } catch {} }
};
// After the table: removing superstep's data (a file per thread) takes a while on a busy disk.
const removeData = () => {
  if (opts.keepData) return;
  for (const s of servers) rmSync(s.data, { recursive: true, force: true });
  rmSync(tmp, { recursive: true, force: true });
};
process.on("SIGINT", async () => { await stopAll(); removeData(); process.exit(130); });

const results = [];
try {
  for (const name of opts.servers) {
    const s = name === "superstep" ? await startSuperstep(tmp) : await startJs(tmp);
    servers.push(s);
    s.pids = tree(s.child.pid);
    s.pool = new Pool(s.base, { connections: Math.max(...opts.clients, 1), pipelining: 1, keepAliveTimeout: 120_000 });
    console.log(`server bench: ${s.label} at ${s.base} (pid ${s.child.pid}, ${s.pids.length} process${s.pids.length > 1 ? "es" : ""}, ` +
      `up in ${(s.startMs / 1000).toFixed(1)} s)`);
  }
  // Only the server being measured runs; the others are paused.
  const only = (s) => { for (const o of servers) signalAll(o.pids, o === s ? "SIGCONT" : "SIGSTOP"); };

  // Streams first: one client, sequential.
  for (const s of servers) {
    only(s);
    await sleep(200);
    for (let i = 0; i < Math.min(30, opts.streams); i++) await oneStream(s.pool);
    const load0 = loadavg();
    const first = [], values = [], total = [];
    for (let i = 0; i < opts.streams; i++) {
      const r = await oneStream(s.pool);
      first.push(r.first); values.push(r.firstValues); total.push(r.total);
    }
    for (const a of [first, values, total]) a.sort((x, y) => x - y);
    const row = { kind: "stream", server: s.name, streams: opts.streams,
      first_event_p50_ms: pct(first, 0.5), first_event_p99_ms: pct(first, 0.99),
      first_values_p50_ms: pct(values, 0.5), first_values_p99_ms: pct(values, 0.99),
      end_p50_ms: pct(total, 0.5), end_p99_ms: pct(total, 0.99), loadavg: load0 };
    emit(row); results.push(row);
    console.log(`  stream ${s.name}: first event p50 ${row.first_event_p50_ms.toFixed(2)} ms, p99 ${row.first_event_p99_ms.toFixed(2)} ms`);
  }

  // Throughput: rep by rep, each client count, the servers alternating (their order flips each rep).
  for (let rep = 1; rep <= opts.reps; rep++) {
    for (const clients of opts.clients) {
      const order = rep % 2 ? servers : [...servers].reverse();
      for (const s of order) {
        only(s);
        await sleep(200);
        await load(s, s.pool, clients, opts.warmup, false);
        const load0 = loadavg();
        const r = await load(s, s.pool, clients, opts.duration, true);
        const row = { kind: "wait", server: s.name, clients, rep, ...r, loadavg: load0 };
        emit(row); results.push(row);
        console.log(`  rep ${rep} ${String(clients).padStart(2)} clients ${s.name.padEnd(9)}: ${r.runs_per_s.toFixed(1).padStart(8)} runs/s, ` +
          `p50 ${r.p50_ms.toFixed(2)} ms, p99 ${r.p99_ms.toFixed(2)} ms, server ${r.server_cores.toFixed(2)} cores ` +
          `(${r.server_cpu_ms_per_run.toFixed(3)} CPU-ms/run), client ${r.client_cores.toFixed(2)} cores, others ${r.other_cores.toFixed(2)} cores`);
      }
    }
  }
  for (const o of servers) signalAll(o.pids, "SIGCONT");

  // Peak RSS of each server's processes, read before they stop.
  for (const s of servers) {
    const pids = tree(s.child.pid);
    const procs = pids.map((p) => ({ pid: p, cmd: comm(p), vmhwm_kb: statusField(p, "VmHWM"), vmrss_kb: statusField(p, "VmRSS") }));
    const row = { kind: "memory", server: s.name, vmhwm_kb_total: procs.reduce((t, p) => t + p.vmhwm_kb, 0),
      vmhwm_kb_max: Math.max(...procs.map((p) => p.vmhwm_kb)), processes: procs,
      runs_served: results.filter((r) => r.kind === "wait" && r.server === s.name).reduce((t, r) => t + r.runs, 0) };
    emit(row); results.push(row);
  }
} catch (e) {
  status = e instanceof WrongResult ? 2 : 1;
  console.error(`server bench: ${e instanceof WrongResult ? "WRONG RESULT: " : ""}${e.stack ?? e}`);
} finally {
  for (const s of servers) await s.pool?.close().catch(() => {});
  await stopAll();
}
if (status) { removeData(); process.exit(status); }

// ---- the table ----
const fmt = (x, d) => (x == null || !Number.isFinite(x) ? "-" : x.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d }));
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : null; };
const label = { superstep: "superstep serve", js: "LangGraph.js dev" };
const lines = [];
const threadMode = opts.thread === "reuse" ? `a thread per ${opts.runsPerThread} runs of a client` : `a new thread per run (${opts.thread})`;
lines.push(`runs/wait, ${threadMode}, checkpointed: runs/s, median (min–max) of ${opts.reps} × ${opts.duration} s`);
lines.push("");
lines.push(`| clients | ${opts.servers.map((s) => `${label[s]} runs/s | p50 / p99 ms | CPU-ms/run`).join(" | ")} |${opts.servers.length === 2 ? " ratio |" : ""}`);
lines.push(`|---:|${opts.servers.map(() => "---:|---:|---:").join("|")}|${opts.servers.length === 2 ? "---:|" : ""}`);
const summary = { kind: "summary", wait: [] };
for (const c of opts.clients) {
  const cells = [];
  const meds = {};
  for (const s of opts.servers) {
    const rows = results.filter((r) => r.kind === "wait" && r.server === s && r.clients === c);
    const rates = rows.map((r) => r.runs_per_s);
    meds[s] = med(rates);
    cells.push(`${fmt(meds[s], meds[s] >= 100 ? 0 : 1)} (${fmt(Math.min(...rates), 0)}–${fmt(Math.max(...rates), 0)})`,
      `${fmt(med(rows.map((r) => r.p50_ms)), 2)} / ${fmt(med(rows.map((r) => r.p99_ms)), 1)}`,
      fmt(med(rows.map((r) => r.server_cpu_ms_per_run)), 3));
    summary.wait.push({ server: s, clients: c, runs_per_s_median: meds[s], runs_per_s_min: Math.min(...rates), runs_per_s_max: Math.max(...rates) });
  }
  const ratio = opts.servers.length === 2 && meds.js ? meds.superstep / meds.js : null;
  lines.push(`| ${c} | ${cells.join(" | ")} |${opts.servers.length === 2 ? ` ${fmt(ratio, 1)}× |` : ""}`);
}
lines.push("");
lines.push(`runs/stream (stream_mode values, one client, ${opts.streams} streams): ms`);
lines.push("");
lines.push("| server | first event p50 | p99 | first values p50 | p99 | end p50 | p99 |");
lines.push("|---|---:|---:|---:|---:|---:|---:|");
for (const r of results.filter((r) => r.kind === "stream"))
  lines.push(`| ${label[r.server]} | ${fmt(r.first_event_p50_ms, 2)} | ${fmt(r.first_event_p99_ms, 2)} | ${fmt(r.first_values_p50_ms, 2)} | ` +
    `${fmt(r.first_values_p99_ms, 2)} | ${fmt(r.end_p50_ms, 2)} | ${fmt(r.end_p99_ms, 2)} |`);
lines.push("");
lines.push("| server | peak RSS (VmHWM), all processes | largest process | processes | runs served |");
lines.push("|---|---:|---:|---:|---:|");
for (const r of results.filter((r) => r.kind === "memory"))
  lines.push(`| ${label[r.server]} | ${fmt(r.vmhwm_kb_total / 1024, 1)} MiB | ${fmt(r.vmhwm_kb_max / 1024, 1)} MiB | ${r.processes.length} | ${r.runs_served} |`);
const others = results.filter((r) => r.kind === "wait").map((r) => r.other_cores);
lines.push("");
lines.push(`machine: ${env.cpus} × ${cpuModel}, ${env.mem_gb} GiB; 1-min load ${env.loadavg_start[0]} before the start; ` +
  `other processes kept ${fmt(med(others), 2)} cores busy during the rows (median; ${fmt(Math.min(...others), 2)}–` +
  `${fmt(Math.max(...others), 2)}); ${env.date}`);
summary.other_cores_rows = { median: med(others), min: Math.min(...others), max: Math.max(...others) };
emit(summary);
console.log("\n" + lines.join("\n"));
try {
  writeFileSync(opts.json, jsonLines.join("\n") + "\n");
  console.log(`\nserver bench: JSON lines in ${opts.json}`);
} catch (e) {
  console.error(`server bench: could not write ${opts.json}: ${e.message}`);
}
removeData();
