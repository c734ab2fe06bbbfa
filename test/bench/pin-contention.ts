// npm run bench:pins -- [--json]
// Pin contention over HTTP: N parallel POST /v1/call into one session, each call a different tool,
// against the real app (listening server, in-process dynalite, a loopback upstream). Prints each
// round's latency (p50, p99, max) with and without the session, and how many pins were stored.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { DEFAULT_SURFACE_BOUNDS } from "../../lambdas/config.js";
import { createCallModule } from "../../lambdas/http/routes/call.js";
import { startTestApi } from "../helpers/api.js";
import { testArtifactInput, testTool } from "../helpers/artifact.js";

const { values } = parseArgs({ options: { json: { type: "boolean", default: false }, sizes: { type: "string", default: "50,200" } } });
const sizes = values.sizes.split(",").map(Number);
const most = Math.max(...sizes);

const upstream = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end('{"ok":true}');
});
await new Promise<void>((done) => upstream.listen(0, "127.0.0.1", done));
const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;

const tools = Array.from({ length: most }, (_, i) =>
  testTool(`bulk.tool_${String(i).padStart(3, "0")}`, {
    kind: "http",
    input_schema: { type: "object" },
    backend: { kind: "http", method: "POST", url: `${upstreamUrl}/t`, output: "json" },
  }),
);
const calls = createCallModule({ env: {} });
const api = await startTestApi({
  input: testArtifactInput([...tools, testTool("toolbelt.reshape")]),
  // Room for every pin: this measures waiting, not eviction.
  config: { surface: { ...DEFAULT_SURFACE_BOUNDS, maxTools: 5, maxSchemaBytes: 1 << 20, pinBudgetBytes: 1 << 24 } },
  extraRoutes: [calls],
});

const quantile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

async function round(n: number, withSession: boolean) {
  const session = withSession ? ((await (await api.request("/v1/sessions", { json: {} })).json()) as { session: { id: string } }).session.id : undefined;
  const started = performance.now();
  const results = await Promise.all(
    tools.slice(0, n).map(async (t) => {
      const t0 = performance.now();
      const res = await api.request("/v1/call", { json: { tool: t.name, args: {}, ...(session ? { session } : {}) } });
      const text = await res.text();
      if (res.status !== 200) failures.push(`${res.status} ${text.slice(0, 300)}`);
      return { ms: performance.now() - t0, ok: res.status === 200 };
    }),
  );
  const wall = performance.now() - started;
  const ms = results.map((r) => r.ms).sort((a, b) => a - b);
  const pins = session ? ((await api.dynamo.store.get(session))?.pins.length ?? 0) : null;
  return {
    parallel: n,
    session: withSession,
    p50_ms: Math.round(quantile(ms, 0.5)),
    p99_ms: Math.round(quantile(ms, 0.99)),
    max_ms: Math.round(ms.at(-1)!),
    wall_ms: Math.round(wall),
    errors: results.filter((r) => !r.ok).length,
    pins_stored: pins,
  };
}

const rows = [];
const failures: string[] = [];
await round(20, true); // warm up (JIT, connections, the table)
const print = (r: Awaited<ReturnType<typeof round>>) =>
  console.log(
    `${String(r.parallel).padStart(4)} parallel ${r.session ? "with a session   " : "without a session"}  p50 ${String(r.p50_ms).padStart(6)} ms  p99 ${String(r.p99_ms).padStart(6)} ms  max ${String(r.max_ms).padStart(6)} ms  errors ${r.errors}${r.pins_stored !== null ? `  pins stored ${r.pins_stored}/${r.parallel}` : ""}`,
  );
for (const n of sizes) {
  for (const withSession of [false, true]) {
    const r = await round(n, withSession);
    rows.push(r);
    if (!values.json) print(r);
  }
}
if (failures.length) console.log(`failures (${failures.length}):`, [...new Set(failures)].slice(0, 10));
await api.close();
await calls.close();
upstream.close();

if (values.json) console.log(JSON.stringify({ date: new Date().toISOString(), rows }, null, 2));
