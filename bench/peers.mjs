// Joins a LangGraph.js benchmark run (the JSON lines of shared/peer/langgraphjs/bench.mjs) and
// a superstep_bench run (its JSON file) on the workloads both have, prints one Markdown table
// and writes it as JSON. Used by `make bench-peers`; needs only node.
//
//   node bench/peers.mjs --js LANGGRAPHJS.jsonl --superstep SUPERSTEP.json [--json OUT.json]
import { readFileSync, writeFileSync } from "node:fs";

const args = {};
for (let i = 2; i < process.argv.length; i += 2) {
  const flag = process.argv[i];
  const v = process.argv[i + 1];
  if (!["--js", "--superstep", "--json"].includes(flag) || v === undefined) {
    console.error(`usage: node peers.mjs --js FILE.jsonl --superstep FILE.json [--json OUT.json]`);
    process.exit(64);
  }
  args[flag.slice(2)] = v;
}
if (!args.js || !args.superstep) {
  console.error("peers.mjs: --js and --superstep are required");
  process.exit(64);
}

// LangGraph.js: one JSON object per line (then a Markdown table, which is skipped).
const jsLines = readFileSync(args.js, "utf8")
  .split("\n")
  .filter((l) => l.startsWith("{"))
  .map((l) => JSON.parse(l));
const jsEnv = jsLines.find((r) => r.kind === "env") ?? {};
const jsRows = jsLines.filter((r) => r.kind === "result");
const ss = JSON.parse(readFileSync(args.superstep, "utf8"));

// The workloads both sides run, with the same shape and unit: a chain step, a loop step, a
// Send, a wide-state step, a saver operation. `js` picks the LangGraph.js row, `ss` the
// superstep row (workload and mode: the execution mode, "+saver" for checkpointed runs).
const pairs = [
  ["sequential_1000", "none", { workload: "sequential", N: 1000, saver: "none" }, ["sequential_1000", "actors"], "step"],
  ["sequential_1000", "in-memory", { workload: "sequential", N: 1000, saver: "MemorySaver" }, ["sequential_1000", "actors+memory"], "step"],
  ["loop2_1000", "none", { workload: "loop2", supersteps: 1000, saver: "none" }, ["loop2_1000", "actors"], "step"],
  ["loop2_1000", "in-memory", { workload: "loop2", supersteps: 1000, saver: "MemorySaver" }, ["loop2_1000", "actors+memory"], "step"],
  ["fanout_10^3", "none", { workload: "fanout", N: 1000, saver: "none" }, ["fanout_10^3", "actors"], "Send"],
  ["fanout_10^3", "in-memory", { workload: "fanout", N: 1000, saver: "MemorySaver" }, ["fanout_10^3", "actors+memory"], "Send"],
  ["wide_state_100x20", "none", { workload: "wide_state", saver: "none" }, ["wide_state_100x20", "actors"], "step"],
  ["wide_state_100x20", "in-memory", { workload: "wide_state", saver: "MemorySaver" }, ["wide_state_100x20", "actors+memory"], "step"],
  ["checkpoint_put_1KB", "in-memory", { workload: "checkpoint_put", saver: "MemorySaver" }, ["checkpoint_put_1KB", "memory"], "put"],
  ["checkpoint_put_1KB", "SQLite :memory: / RocksDB (no fsync)", { workload: "checkpoint_put", saver: "SqliteSaver(:memory:)" }, ["checkpoint_put_1KB", "rocksdb"], "put"],
  ["checkpoint_get_tuple", "in-memory", { workload: "checkpoint_getTuple", saver: "MemorySaver" }, ["checkpoint_get_tuple", "memory"], "get"],
];

const matches = (row, want) => Object.entries(want).every(([k, v]) => row[k] === v);
const fmt = (x) => {
  if (x == null || !Number.isFinite(x)) return "-";
  const d = x >= 100 ? 0 : x >= 10 ? 1 : x >= 1 ? 2 : 3;
  return x.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
};

const joined = [];
for (const [workload, saver, jsWant, [ssName, ssMode], unit] of pairs) {
  const j = jsRows.find((r) => matches(r, jsWant));
  const s = (ss.workloads ?? []).find((r) => r.workload === ssName && r.mode === ssMode);
  const jsUs = j ? j.us_per_op : null;
  const jsMin = j ? (j.min_ms * 1000) / j.ops : null;
  joined.push({
    workload,
    saver,
    unit: `us/${unit}`,
    langgraphjs: j ? { median: jsUs, min: jsMin, runs: j.runs, ops_per_run: j.ops } : null,
    superstep: s ? { median: s.median, min: s.min, max: s.max, runs: s.runs, mode: s.mode } : null,
    ratio: j && s && s.median > 0 ? jsUs / s.median : null,
  });
}

const lines = [
  "| workload | saver | LangGraph.js median (min) | superstep (actors) median (min–max) | unit | ratio |",
  "|---|---|---:|---:|---|---:|",
];
for (const r of joined) {
  const js = r.langgraphjs ? `${fmt(r.langgraphjs.median)} (${fmt(r.langgraphjs.min)})` : "not run";
  const st = r.superstep
    ? `${fmt(r.superstep.median)} (${fmt(r.superstep.min)}–${fmt(r.superstep.max)})`
    : "not run";
  const ratio = r.ratio == null ? "-" : `${fmt(r.ratio)}×`;
  lines.push(`| ${r.workload} | ${r.saver} | ${js} | ${st} | ${r.unit.replace("us/", "µs/")} | ${ratio} |`);
}
console.log(lines.join("\n"));
console.log(
  `\nratio: LangGraph.js median / superstep median (higher: superstep faster). ` +
    `LangGraph.js ${jsEnv["@langchain/langgraph"] ?? "?"} on node ${jsEnv.node ?? "?"}; ` +
    `superstep ${ss.allocator ?? ""}, ${ss.cores ?? "?"} cores, ${ss.timestamp ?? ""}.`,
);
const missing = joined.filter((r) => !r.langgraphjs || !r.superstep).map((r) => `${r.workload} (${r.saver})`);
if (missing.length) console.log(`missing on one side: ${missing.join(", ")}`);

if (args.json) {
  const doc = {
    program: "bench/peers.mjs",
    timestamp: new Date().toISOString(),
    langgraphjs_env: jsEnv,
    superstep_env: { host: ss.host, cores: ss.cores, allocator: ss.allocator, runs: ss.runs, timestamp: ss.timestamp },
    rows: joined,
  };
  writeFileSync(args.json, JSON.stringify(doc, null, 2) + "\n");
  console.error(`wrote ${args.json}`);
}
