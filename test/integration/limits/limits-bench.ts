// npx tsx test/integration/limits/limits-bench.ts [--calls 2000] [--connections 16] [--rounds 3]
// The added cost of rate limits per call, in one process and one run: POST /v1/call through the wired
// app (app.fetch, no socket on the caller's side) to an http tool on a loopback upstream, with dynalite
// as the table, under three policies taken in turn each round: no limits (no limiter, no write), a
// per-minute limit (one conditional UpdateItem per call) and a concurrency limit (a lease taken and
// freed: two writes). Prints calls/s and p50/p99 per policy, median over rounds. dynalite is slower
// than DynamoDB per write but in-process (no network): read the ratios, not the absolute figures.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { PolicyFile } from "../../../registry/contract/policy.js";
import { sha256Hex } from "../../../lambdas/core/auth.js";
import { loadConfig } from "../../../lambdas/config.js";
import { wire } from "../../../lambdas/handlers/wiring.js";
import { createApp } from "../../../lambdas/http/app.js";
import { shareGateway } from "../../../lambdas/http/call-gateway.js";
import { memoryLogger } from "../../../lambdas/http/logger.js";
import { createCallModule } from "../../../lambdas/http/routes/call.js";
import { buildTestArtifact, testArtifactInput } from "../../helpers/artifact.js";
import { startDynalite } from "../../helpers/dynalite.js";
import { catalogTool, startLoopback } from "../call/helpers.js";

const { values } = parseArgs({
  options: { calls: { type: "string", default: "2000" }, connections: { type: "string", default: "16" }, rounds: { type: "string", default: "3" } },
});
const CALLS = Number(values.calls);
const CONNECTIONS = Number(values.connections);
const ROUNDS = Number(values.rounds);
const KEY = "bench-limits-key";

const upstream = await startLoopback((_req, res) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end('{"ok":true}');
});
const dynamo = await startDynalite();
const artifactDir = await mkdtemp(join(tmpdir(), "toolbelt-limits-bench-"));
const { artifact } = await buildTestArtifact(
  artifactDir,
  testArtifactInput([catalogTool("notes.add", { kind: "http", method: "POST", url: "${UPSTREAM}/add", body: "{{input}}", output: "json" })], {
    variables: { notes: { UPSTREAM: { secret: false } } },
  }),
);
const env = { TOOLBELT_ARTIFACT_DIR: artifactDir, TOOLBELT_TABLE: dynamo.table, DYNAMODB_ENDPOINT: dynamo.endpoint, UPSTREAM: upstream.url };

const policyWith = (limits?: PolicyFile["principals"][number]["limits"]): PolicyFile => ({
  version: 1,
  principals: [{ id: "bench", keys: [sha256Hex(KEY)], allow: ["*"], deny: [], admin: false, ...(limits ? { limits } : {}) }],
});

function appFor(policy: PolicyFile) {
  const { deps, call } = wire({
    config: loadConfig(env),
    env,
    client: dynamo.client,
    artifact,
    policy,
    briefs: [],
    logger: memoryLogger(),
    models: {},
    defaultFileRoots: [],
    internalPaths: [artifactDir],
  });
  return createApp(deps, { extraRoutes: [createCallModule(shareGateway(call))] });
}

const scenarios = [
  { name: "no limits", app: appFor(policyWith()) },
  { name: "requests_per_minute", app: appFor(policyWith({ requests_per_minute: 1_000_000_000 })) },
  { name: "concurrent_calls", app: appFor(policyWith({ concurrent_calls: 1_000 })) },
];

async function run(app: ReturnType<typeof appFor>): Promise<{ rps: number; p50: number; p99: number; errors: number }> {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const body = JSON.stringify({ tool: "notes.add", args: {} });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next++ < CALLS) {
        const t = performance.now();
        const res = await app.fetch(
          new Request("http://localhost/v1/call", { method: "POST", headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" }, body }),
        );
        await res.arrayBuffer();
        if (res.status !== 200) errors += 1;
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((x, y) => x - y);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]! * 100) / 100;
  return { rps: Math.round(latencies.length / seconds), p50: at(0.5), p99: at(0.99), errors };
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
// Warm every path (JIT, sockets, the table's first items) before measuring.
for (const s of scenarios) await run(s.app);
const results = new Map(scenarios.map((s) => [s.name, [] as Awaited<ReturnType<typeof run>>[]]));
for (let r = 0; r < ROUNDS; r++) for (const s of scenarios) results.get(s.name)!.push(await run(s.app));
const base = median(results.get("no limits")!.map((x) => x.rps));
console.log(`${CALLS} calls x ${ROUNDS} rounds, ${CONNECTIONS} at once, median of rounds`);
for (const [name, rs] of results) {
  const rps = median(rs.map((x) => x.rps));
  console.log(
    `${name.padEnd(20)} ${String(rps).padStart(6)} calls/s (${Math.round((rps / base) * 100)}%)  p50 ${median(rs.map((x) => x.p50))} ms  p99 ${median(rs.map((x) => x.p99))} ms  errors ${rs.reduce((n, x) => n + x.errors, 0)}`,
  );
}
await upstream.close();
await dynamo.close();
