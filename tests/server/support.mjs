// Starts `superstep serve` for a test file: a fresh data folder, a free port (the server
// binds port 0 and logs the one it got), stopped when the file's tests end. The program,
// the node library of the test graphs and the config come from the environment CTest sets.
// With SUPERSTEP_SERVER_MODE=head the API is a cluster's instead: `superstep head --http`
// (its link port and HTTP port both 0, read from its log) and two workers joined to it, the
// graphs' nodes running on the workers; the three are stopped together.
import { Client } from "@langchain/langgraph-sdk";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";

// Starts `bin args`; resolves with the child and its log (stdout and stderr, growing) once
// the log matches every pattern of `wanted`, with each one's match.
function startLogged(bin, args, what, wanted, seconds = 20) {
  const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
  const logged = { child, log: "" };
  return new Promise((resolve, reject) => {
    let found = null;
    const timer = setTimeout(
      () => reject(new Error(`${what} did not start in ${seconds} s:\n${logged.log}`)),
      seconds * 1000);
    const onData = (chunk) => {
      logged.log += chunk.toString();
      if (found) return;
      const matches = wanted.map((re) => re.exec(logged.log));
      if (matches.every(Boolean)) {
        found = matches;
        clearTimeout(timer);
        resolve({ ...logged, get log() { return logged.log; }, matches });
      }
    };
    child.stderr.on("data", onData);
    child.stdout.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (!found) reject(new Error(`${what} exited (${code}) before it started:\n${logged.log}`));
    });
  });
}

// Sends `signal` to a child that still runs and waits for it to end (SIGKILL after 10 s).
async function stopChild(child, signal = "SIGTERM") {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const ended = new Promise((resolve) => child.once("exit", resolve));
  child.kill(signal);
  const timer = setTimeout(() => child.kill("SIGKILL"), 10000);
  await ended;
  clearTimeout(timer);
}

// Whether the tests run against a head (SUPERSTEP_SERVER_MODE=head).
export const headMode = process.env.SUPERSTEP_SERVER_MODE === "head";

// A test's options that skip it on a head, saying why (what a head does not do as serve does).
export function onHead(why) {
  return headMode ? { skip: `head: ${why}` } : {};
}

const httpListening = /listening on (http:\/\/[0-9.]+:[0-9]+)/;

export async function startServer(extraArgs = [], { config: configFile, data: dataDir } = {}) {
  const bin = process.env.SUPERSTEP_BIN;
  const plugin = process.env.SUPERSTEP_TEST_PLUGIN;
  const config = configFile ?? process.env.SUPERSTEP_SERVER_CONFIG;
  if (!bin || !plugin || !config)
    throw new Error("SUPERSTEP_BIN, SUPERSTEP_TEST_PLUGIN and SUPERSTEP_SERVER_CONFIG must be set");
  const mode = process.env.SUPERSTEP_SERVER_MODE ?? "serve";
  if (mode !== "serve" && mode !== "head")
    throw new Error(`SUPERSTEP_SERVER_MODE: serve or head, not '${mode}'`);
  const data = dataDir ?? mkdtempSync(join(tmpdir(), "superstep-server-"));
  const children = [];
  let main;
  try {
    if (mode === "serve") {
      main = await startLogged(bin, ["serve", "--config", config, "--plugin", plugin, "--listen",
        "127.0.0.1:0", "--data", data, ...extraArgs], "the server", [httpListening]);
      children.push(main.child);
    } else {
      main = await startLogged(bin, ["head", "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0",
        "--config", config, "--plugin", plugin, "--data", data, ...extraArgs], "the head",
        [httpListening, /listening on 127\.0\.0\.1:([0-9]+)/]);
      children.push(main.child);
      const port = main.matches[1][1];
      let workersLog = "";
      for (const name of ["w1", "w2"]) {
        const worker = spawn(bin, ["worker", "--join", `127.0.0.1:${port}`, "--plugin", plugin,
          "--name", name], { stdio: ["ignore", "ignore", "pipe"] });
        worker.stderr.on("data", (c) => { workersLog += c.toString(); });
        children.push(worker);
      }
      // Both joined (the head logs it): runs find their nodes at once.
      await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(
          "the workers did not join in 20 s:\n" + main.log + "\n" + workersLog)), 20000);
        const check = () => {
          if (/worker w1 joined/.test(main.log) && /worker w2 joined/.test(main.log)) {
            clearTimeout(timer);
            resolve();
          } else {
            setTimeout(check, 20);
          }
        };
        check();
      });
    }
  } catch (e) {
    for (const child of children.reverse()) await stopChild(child, "SIGKILL");
    throw e;
  }
  return {
    url: main.matches[0][1],
    data,
    mode,
    log: () => main.log,
    // The head (or server) gets `signal`; the workers SIGTERM once it has ended.
    async stop(signal = "SIGTERM") {
      await stopChild(children[0], signal);
      for (const child of children.slice(1)) await stopChild(child);
    },
    cleanup() {
      rmSync(data, { recursive: true, force: true });
    },
  };
}

export async function gather(iterable) {
  const out = [];
  for await (const item of await iterable) out.push(item);
  return out;
}

export async function truncate(apiUrl, flags) {
  await fetch(`${apiUrl}/internal/truncate`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(flags),
  });
}

// A server for the test file that calls it: started before its tests, stopped (and its data
// folder removed) after them. `served.server` is startServer's, `served.client` an SDK client
// of it; a test that restarts the server sets both anew.
export function serveForFile(extraArgs = [], options = {}) {
  const served = {};
  before(async () => {
    served.server = await startServer(extraArgs, options);
    served.client = new Client({ apiUrl: served.server.url });
  });
  after(async () => {
    await served.server?.stop();
    served.server?.cleanup();
  });
  return served;
}
