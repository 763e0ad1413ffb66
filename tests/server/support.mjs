// Starts `superstep serve` for a test file: a fresh data folder, a free port (the server
// binds port 0 and logs the one it got), stopped when the file's tests end. The program,
// the node library of the test graphs and the config come from the environment CTest sets.
import { Client } from "@langchain/langgraph-sdk";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";

export async function startServer(extraArgs = [], { config: configFile, data: dataDir } = {}) {
  const bin = process.env.SUPERSTEP_BIN;
  const plugin = process.env.SUPERSTEP_TEST_PLUGIN;
  const config = configFile ?? process.env.SUPERSTEP_SERVER_CONFIG;
  if (!bin || !plugin || !config)
    throw new Error("SUPERSTEP_BIN, SUPERSTEP_TEST_PLUGIN and SUPERSTEP_SERVER_CONFIG must be set");
  const data = dataDir ?? mkdtempSync(join(tmpdir(), "superstep-server-"));
  const args = ["serve", "--config", config, "--plugin", plugin, "--listen", "127.0.0.1:0",
                "--data", data, ...extraArgs];
  const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the server did not start in 20 s:\n" + log)), 20000);
    const onData = (chunk) => {
      log += chunk.toString();
      const m = /listening on (http:\/\/[0-9.]+:[0-9]+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stderr.on("data", onData);
    child.stdout.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before it listened:\n${log}`));
    });
  });
  child.stderr.on("data", (c) => { log += c.toString(); });
  return {
    url,
    data,
    log: () => log,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) {
        const ended = new Promise((resolve) => child.once("exit", resolve));
        child.kill(signal);
        const timer = setTimeout(() => child.kill("SIGKILL"), 10000);
        await ended;
        clearTimeout(timer);
      }
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
