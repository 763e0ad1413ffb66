// The API's own description: GET /openapi.json (cluster/server/openapi.json) and the page
// GET /docs shows it with. Every route the document names is asked for, so the document and
// the router cannot drift apart: a route the document has and the server does not serve answers
// the router's own 404 ("404 Not Found") or a 405, and fails here.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";

import { startServer } from "./support.mjs";

const source = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "cluster", "server", "openapi.json");
const methods = ["get", "put", "post", "patch", "delete"];
let server;
let doc;

before(async () => {
  server = await startServer();
});

after(async () => {
  await server?.stop();
  server?.cleanup();
});

// Every operation of `d`: [method, path, operation].
function operations(d) {
  const out = [];
  for (const [path, item] of Object.entries(d.paths ?? {}))
    for (const m of methods) if (item[m]) out.push([m, path, item[m]]);
  return out;
}

function resolve(d, ref) {
  assert.match(ref, /^#\//, `${ref}: only local references`);
  let node = d;
  for (const part of ref.slice(2).split("/")) node = node?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  return node;
}

describe("GET /openapi.json", () => {
  it("is an OpenAPI 3.1 document with paths", async () => {
    const res = await fetch(`${server.url}/openapi.json`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /application\/json/);
    doc = await res.json();
    assert.match(doc.openapi, /^3\.1\.\d+$/);
    assert.equal(typeof doc.info?.title, "string");
    assert.equal(typeof doc.info?.version, "string");
    assert.ok(operations(doc).length > 0, "the document has no operations");
  });

  it("is well formed: references resolve, operations are named once and answer something", () => {
    const d = doc ?? JSON.parse(readFileSync(source, "utf8"));  // the file's, if not served
    const unresolved = [];
    const walk = (node, where) => {
      if (Array.isArray(node)) node.forEach((x, i) => walk(x, `${where}/${i}`));
      else if (node && typeof node === "object")
        for (const [k, v] of Object.entries(node)) {
          if (k === "$ref" && typeof v === "string") {
            if (resolve(d, v) === undefined) unresolved.push(`${where}: ${v}`);
          } else walk(v, `${where}/${k}`);
        }
    };
    walk(d, "#");
    assert.deepEqual(unresolved, [], "references that name nothing");
    const ids = new Set();
    for (const [m, path, op] of operations(d)) {
      assert.ok(op.operationId, `${m.toUpperCase()} ${path}: no operationId`);
      assert.ok(!ids.has(op.operationId), `operationId ${op.operationId} twice`);
      ids.add(op.operationId);
      assert.ok(Object.keys(op.responses ?? {}).length > 0, `${m.toUpperCase()} ${path}: no responses`);
      for (const name of (path.match(/\{[^}]+\}/g) ?? []).map((p) => p.slice(1, -1))) {
        const params = [...(d.paths[path].parameters ?? []), ...(op.parameters ?? [])]
          .map((p) => (p.$ref ? resolve(d, p.$ref) : p));
        assert.ok(params.some((p) => p.in === "path" && p.name === name),
                  `${m.toUpperCase()} ${path}: path parameter ${name} is not described`);
      }
    }
  });

  it("is the source tree's cluster/server/openapi.json", () => {
    assert.ok(doc, "the document was not served");
    const file = JSON.parse(readFileSync(source, "utf8"));
    const names = (d) => operations(d).map(([m, p]) => `${m.toUpperCase()} ${p}`).sort();
    assert.deepEqual(names(doc), names(file));
  });
});

describe("the routes of the document", () => {
  // What the server answered each operation: [method, path, operation, status, body].
  const answers = [];

  before(async () => {
    // The source tree's document when the server's could not be read: the routes are still
    // checked (and the test above says why the document was not served).
    doc ??= JSON.parse(readFileSync(source, "utf8"));
    for (const [m, path, op] of operations(doc)) {
      const url = server.url + path.replace(/\{[^}]+\}/g, () => randomUUID());
      const init = { method: m.toUpperCase(), signal: AbortSignal.timeout(15000) };
      if (op.requestBody) {
        let schema = op.requestBody.content?.["application/json"]?.schema ?? {};
        if (schema.$ref) schema = resolve(doc, schema.$ref);
        init.body = schema.type === "array" ? "[]" : "{}";
        init.headers = { "Content-Type": "application/json" };
      }
      let status;
      let body = "";
      try {
        const res = await fetch(url, init);
        status = res.status;
        // A stream is not read to its end: its status and headers say enough.
        if ((res.headers.get("content-type") ?? "").includes("text/event-stream")) await res.body?.cancel();
        else body = await res.text();
      } catch (e) {
        status = `failed: ${e.message}`;
      }
      answers.push([m, path, op, status, body]);
    }
  });

  it("every path and method is served (no route-level 404, no 405)", () => {
    const missing = answers
      .filter(([, , , status, body]) =>
        typeof status !== "number" || status === 405 || status === 501 ||
        (status === 404 && body.trim() === "404 Not Found"))
      .map(([m, path, , status, body]) => `${m.toUpperCase()} ${path}: ${status} ${body.trim().slice(0, 80)}`);
    assert.deepEqual(missing, [], "routes of the document the server does not serve");
  });

  it("answers a status its operation lists, and no 5xx, to a minimal request", () => {
    const wrong = [];
    for (const [m, path, op, status, body] of answers) {
      if (typeof status !== "number" || status === 405 || (status === 404 && body.trim() === "404 Not Found"))
        continue;  // the test above names these
      const listed = Object.keys(op.responses ?? {});
      const ok = status < 500 &&
        (listed.includes(String(status)) || listed.includes("default") ||
         (status < 300 && listed.some((c) => c.startsWith("2"))));
      if (!ok)
        wrong.push(`${m.toUpperCase()} ${path}: ${status} (lists ${listed.join(", ")}) ${body.trim().slice(0, 80)}`);
    }
    assert.deepEqual(wrong, [], "answers the document does not describe");
  });
});

describe("GET /docs", () => {
  it("is an HTML page that needs nothing from elsewhere", async () => {
    const res = await fetch(`${server.url}/docs`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /text\/html/);
    const page = await res.text();
    assert.match(page, /<html/i);
    assert.match(page, /openapi\.json/);
    assert.doesNotMatch(page, /<script[^>]*\bsrc=/i, "an external script");
    assert.doesNotMatch(page, /<link[^>]*stylesheet/i, "an external stylesheet");
    assert.doesNotMatch(page, /\b(src|href)="(https?:)?\/\//i, "something loaded from another host");
  });
});
