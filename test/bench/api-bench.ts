// Throughput of the local server (the same app as the Lambdas) on this machine: requests per second
// and errors for find, surface reads and pin-on-use against in-process dynalite. Prints figures only.
// Run: npx tsx test/bench/api-bench.ts [seconds per phase, default 3] [concurrency, default 32]
import { Agent, request } from "node:http";
import { startTestApi, TEST_KEYS } from "../helpers/api.js";
import { defaultTestTools, testArtifactInput, testTool } from "../helpers/artifact.js";

const seconds = Number(process.argv[2] ?? 3);
const concurrency = Number(process.argv[3] ?? 32);
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });

function send(base: string, method: string, path: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      base + path,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${TEST_KEYS.alice}`,
          ...(body ? { "content-type": "application/json", "content-length": Buffer.byteLength(body) } : {}),
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function phase(name: string, op: () => Promise<number>, expected: number): Promise<void> {
  let ok = 0;
  let errors = 0;
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const t = performance.now();
        const status = await op().catch(() => -1);
        latencies.push(performance.now() - t);
        if (status === expected) ok++;
        else errors++;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const p = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(2);
  console.log(`${name.padEnd(22)} ${(ok / seconds).toFixed(0).padStart(6)} req/s  errors ${errors}  p50 ${p(0.5)} ms  p99 ${p(0.99)} ms`);
}

const tools = [
  ...defaultTestTools(),
  ...Array.from({ length: 200 }, (_, i) => testTool(`bulk${i % 10}.tool_${i}`, { description: `Bulk tool number ${i} for load.` })),
];
const api = await startTestApi({ input: testArtifactInput(tools) });
try {
  const opened = (await (await api.request("/v1/sessions", { json: { brief: "review" } })).json()) as { session: { id: string } };
  const id = opened.session.id;
  console.log(`local server bench: ${tools.length} tools, concurrency ${concurrency}, ${seconds} s per phase, node ${process.version}`);
  await phase("GET /v1/health", () => send(api.url, "GET", "/v1/health"), 200);
  await phase("POST /v1/find", () => send(api.url, "POST", "/v1/find", JSON.stringify({ query: "show recent commits", limit: 5 })), 200);
  await phase("GET surface", () => send(api.url, "GET", `/v1/sessions/${id}/surface`), 200);
  await phase("POST /v1/sessions", () => send(api.url, "POST", "/v1/sessions", "{}"), 201);
  let i = 0;
  const alice = api.deps.policy.callerById("alice")!;
  await phase("recordUse (1 session)", () => api.deps.sessions.recordUse(id, alice, `bulk${i % 10}.tool_${i++ % 200}`).then(() => 200), 200);
} finally {
  agent.destroy();
  await api.close();
}
