// npm run bench:http -- [--json] [--seconds 5] [--connections 16] [--max-requests 30000] [--only find] [--base DIR] [--limits]
// The local gateway (`npm start`, its own process) driven from this process with autocannon over
// loopback, then the same requests against the bundled Lambda handlers (api and call) invoked
// in-process (the api one also behind hono/aws-lambda's adapter, target `hono`), to tell HTTP server
// cost from handler cost, and find's engine alone (createFinder on the same artifact), to tell the
// engine's cost from the rest of a request. Each run is bounded by time and by count. Prints
// requests/s, p50/p99 latency, errors and CPU per request per scenario, and the machine and its load.
// CPU per request (the serving process's own CPU time over the requests it served) moves far less
// than requests/s when other work shares the cores: compare those. `--base DIR`: a checkout of another
// commit (`git worktree add DIR <commit>` outside this tree, with a node_modules link): its api handler,
// bundled with its own artifact, takes turns with this tree's on the api scenarios (target `base`), and
// the report prints this tree's handler against it. `--limits`: the key's principal declares every kind of
// rate limit (policy `limits`, far above what the run sends, so nothing is refused): what counting costs.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
// autocannon ships no types: the part of its API used here.
// @ts-expect-error no declaration file
import autocannonUntyped from "autocannon";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { loadArtifact } from "../../lambdas/artifact.js";
import { localPolicyFile } from "../../lambdas/core/auth.js";
import { createFinder } from "../../lambdas/core/find/index.js";
import type { FindRequest } from "../../lambdas/core/find/types.js";
import { startLocalDynamo } from "../../lambdas/local/dynalite.js";
import { httpApiV2Event, lambdaContext } from "../helpers/lambda-events.js";
import { bundleHandler } from "../infra/bundle-harness.js";
import { build } from "esbuild";
import { esbuildOptions } from "../../infra/bundling.js";

type AutocannonResult = {
  requests: { total: number };
  latency: { p50: number; p99: number };
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
};
type AutocannonOptions = {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  connections: number;
  duration?: number;
  amount?: number;
  maxOverallRequests?: number;
};
const autocannon = autocannonUntyped as (opts: AutocannonOptions) => Promise<AutocannonResult>;

const { values } = parseArgs({
  options: {
    json: { type: "boolean", default: false },
    seconds: { type: "string", default: "5" },
    connections: { type: "string", default: "16" },
    "max-requests": { type: "string", default: "30000" },
    // Only the scenarios whose name starts with this (e.g. `find`: find and find answered none).
    only: { type: "string" },
    base: { type: "string" },
    limits: { type: "boolean", default: false },
  },
});
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const MAX_REQUESTS = Number(values["max-requests"]);
// Warm-up until the JIT has compiled the hot path: 300 requests left find's first measured seconds a quarter
// slower than its steady state (measured 2026-12-07: 617 → 509 µs per request over HTTP with 3,000).
const WARMUP_SECONDS = 2;
const KEY = "bench-http-key";
const DEMO_TOKEN = "bench-demo-token";
const root = resolve(import.meta.dirname, "../..");
// The gateway builds the example registry's artifact here; the handlers read the same one.
const work = await mkdtemp(join(tmpdir(), "toolbelt-bench-http-"));
const artifactDir = join(work, "artifact");
/** The policy both the gateway and the handlers read: the bench key's principal, with limits under --limits. */
const policy = JSON.stringify(
  values.limits
    ? {
        ...localPolicyFile(KEY),
        principals: localPolicyFile(KEY).principals.map((p) => ({
          ...p,
          limits: { requests_per_second: 1_000_000, requests_per_minute: 10_000_000, concurrent_calls: 10_000, daily_quota: 100_000_000 },
        })),
      }
    : localPolicyFile(KEY),
);

type Scenario = { name: string; method: "GET" | "POST"; path: string; body?: unknown };
/** `hono`: the api handler's app behind hono/aws-lambda's adapter instead of its own, for comparison in the same run. */
type Target = "http" | "http-base" | "handler" | "hono" | "base" | "engine";
type Row = {
  target: Target;
  scenario: string;
  requests: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  /** CPU time of the serving process per request, µs (null where the platform does not say). */
  cpu_us: number | null;
};

/** CPU time a process has used so far, in ms, from Linux's /proc (utime + stime, 100 ticks a second); undefined elsewhere. */
function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** This process's CPU time so far, in ms. */
const ownCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

const perRequestUs = (cpuMs: number | undefined, requests: number) => (cpuMs === undefined || requests === 0 ? null : Math.round((cpuMs * 1000) / requests));

/** A request no tool of the example registry serves (verdict none). */
const NONE_QUERY = "book a table for two at an italian restaurant";

/** find, surface, a builtin call, an http call, the same call with a session (its tool already pinned). */
function scenarios(session: string): Scenario[] {
  const percentage = { tool: "math.percentage", args: { value: 42, of: 168 } };
  const all: Scenario[] = [
    { name: "find", method: "POST", path: "/v1/find", body: { query: "convert a temperature from celsius to fahrenheit" } },
    // Answered none: recorded in the find-miss log in the background (the answer must not wait for it).
    { name: "find, none", method: "POST", path: "/v1/find", body: { query: NONE_QUERY } },
    { name: "surface", method: "GET", path: `/v1/sessions/${session}/surface` },
    { name: "call builtin", method: "POST", path: "/v1/call", body: { tool: "toolbelt.reshape", args: { data: { a: { b: [7] } }, mapping: { x: "a.b[0]" } } } },
    { name: "call http", method: "POST", path: "/v1/call", body: percentage },
    { name: "call http, session", method: "POST", path: "/v1/call", body: { ...percentage, session } },
  ];
  return all.filter((s) => s.name.startsWith(values.only ?? ""));
}

// ---- the local gateway over HTTP ----

type Gateway = { url: string; demoUrl: string; child: ChildProcess };

/**
 * `npm start` as its own process on a free port; resolves once it says where it listens. Its log (a line
 * per request) goes to a file, read here only until that line: drained through a pipe, it took CPU from
 * the load generator in this process, and a pipe read late blocks the gateway's synchronous writes.
 */
function startGateway(dir = root, name = "gateway"): Promise<Gateway> {
  const logFile = join(work, `${name}.log`);
  const out = openSync(logFile, "w");
  const child = spawn(process.execPath, ["--import", "tsx", join(dir, "lambdas/local/start.ts")], {
    cwd: dir,
    env: {
      ...process.env,
      PORT: "0",
      TOOLBELT_API_KEY: KEY,
      DEMO_SERVICE_TOKEN: DEMO_TOKEN,
      TOOLBELT_ARTIFACT_DIR: dir === root ? artifactDir : join(work, `${name}-artifact`),
      // The base checkout reads the policy without limits: an older policy format may refuse them.
      TOOLBELT_POLICY: dir === root ? policy : JSON.stringify(localPolicyFile(KEY)),
    },
    stdio: ["ignore", out, "pipe"],
  });
  closeSync(out);
  return new Promise((done, fail) => {
    const started = Date.now();
    const poll = setInterval(() => {
      const log = readFileSync(logFile, "utf8");
      const url = /listening on (http:\/\/\S+)/.exec(log)?.[1];
      if (url) {
        clearInterval(poll);
        done({ url, demoUrl: /demo http service on (\S+)/.exec(log)?.[1] ?? "", child });
      } else if (Date.now() - started > 120_000) {
        clearInterval(poll);
        fail(new Error("the gateway did not start within 120 s"));
      }
    }, 100);
    child.stderr!.resume();
    child.once("exit", (code) => {
      clearInterval(poll);
      fail(new Error(`the gateway exited with ${code} before listening`));
    });
  });
}

async function send(base: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json()) as unknown;
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

/**
 * A find scenario against this tree's gateway and the base checkout's (`--base`) in alternating one-second
 * turns (the order swapped each turn), SECONDS each: rows `http` and `http-base`. p99 is the worst turn's; CPU per request each process's own.
 */
async function httpPair(opts: AutocannonOptions, s: Scenario, targets: [Target, string, number][]): Promise<Row[]> {
  const totals = targets.map(() => ({ requests: 0, seconds: 0, cpuMs: 0, p50: [] as number[], p99: 0, errors: 0 }));
  for (const [, url] of targets) await autocannon({ ...opts, url: url + s.path, duration: WARMUP_SECONDS, maxOverallRequests: MAX_REQUESTS });
  for (let turn = 0; turn < SECONDS; turn++) {
    // The order swaps every turn: what a turn leaves behind (its process's GC, its log's flush) lands in the
    // next one, and an A/A run with a fixed order read about 7% for the first gateway.
    const order = [...targets.entries()];
    if (turn % 2) order.reverse();
    for (const [i, [, url, pid]] of order) {
      const cpu0 = processCpuMs(pid);
      const r = await autocannon({ ...opts, url: url + s.path, duration: 1, maxOverallRequests: MAX_REQUESTS / SECONDS });
      const cpu1 = processCpuMs(pid);
      const t = totals[i]!;
      t.requests += r.requests.total;
      t.seconds += r.duration;
      t.cpuMs += cpu0 === undefined || cpu1 === undefined ? Number.NaN : cpu1 - cpu0;
      t.p50.push(r.latency.p50);
      t.p99 = Math.max(t.p99, r.latency.p99);
      t.errors += r.errors + r.timeouts + r.non2xx;
    }
  }
  return targets.map(([target], i) => {
    const t = totals[i]!;
    const p50 = [...t.p50].sort((a, b) => a - b)[Math.floor(t.p50.length / 2)] ?? Number.NaN;
    return {
      target,
      scenario: s.name,
      requests: t.requests,
      rps: Math.round(t.requests / t.seconds),
      p50_ms: p50,
      p99_ms: t.p99,
      errors: t.errors,
      cpu_us: perRequestUs(Number.isNaN(t.cpuMs) ? undefined : t.cpuMs, t.requests),
    };
  });
}

async function overHttp(own: string, pid: number, other?: Gateway): Promise<Row[]> {
  const { session } = (await send(own, "POST", "/v1/sessions", {})) as { session: { id: string } };
  const rows: Row[] = [];
  for (const s of scenarios(session.id)) {
    await send(own, s.method, s.path, s.body); // fails loudly if the scenario itself is broken (and pins the tool)
    const opts: AutocannonOptions = {
      url: own + s.path,
      method: s.method,
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      ...(s.body ? { body: JSON.stringify(s.body) } : {}),
      connections: CONNECTIONS,
    };
    await autocannon({ ...opts, duration: WARMUP_SECONDS, maxOverallRequests: MAX_REQUESTS });
    if (other && s.path === "/v1/find") {
      rows.push(
        ...(await httpPair(opts, s, [
          ["http", own, pid],
          ["http-base", other.url, other.child.pid!],
        ])),
      );
      continue;
    }
    const cpu0 = processCpuMs(pid);
    const r = await autocannon({ ...opts, duration: SECONDS, maxOverallRequests: MAX_REQUESTS });
    const cpu1 = processCpuMs(pid);
    rows.push({
      target: "http",
      scenario: s.name,
      requests: r.requests.total,
      rps: Math.round(r.requests.total / r.duration),
      p50_ms: r.latency.p50,
      p99_ms: r.latency.p99,
      errors: r.errors + r.timeouts + r.non2xx,
      cpu_us: perRequestUs(cpu0 === undefined || cpu1 === undefined ? undefined : cpu1 - cpu0, r.requests.total),
    });
  }
  return rows;
}

// ---- the bundled Lambda handlers, invoked in this process ----

type Handler = (event: APIGatewayProxyEventV2, context: unknown) => Promise<APIGatewayProxyStructuredResultV2>;

/** One request of a scenario, invoked in this process; resolves to its HTTP status. */
type Invoke = (s: Scenario) => Promise<number>;

const viaHandler =
  (handler: Handler): Invoke =>
  async (s) => {
    const event = httpApiV2Event({ method: s.method, path: s.path, headers: { authorization: `Bearer ${KEY}` }, ...(s.body ? { body: s.body } : {}) });
    return (await handler(event, lambdaContext())).statusCode ?? 500;
  };

type Sample = { latencies: number[]; errors: number; cpuMs: number; seconds: number };

/** `CONNECTIONS` loops invoking back to back, until SECONDS or MAX_REQUESTS; latencies in ms. A handler's event is built inside the count, as Lambda's runtime builds one per invocation. */
async function sample(invoke: Invoke, s: Scenario, seconds: number, max: number): Promise<Sample> {
  const latencies: number[] = [];
  let errors = 0;
  let started = 0;
  const t0 = performance.now();
  const cpu0 = ownCpuMs();
  const end = t0 + seconds * 1000;
  const loop = async () => {
    while (performance.now() < end && started < max) {
      started++;
      const t = performance.now();
      const status = await invoke(s);
      latencies.push(performance.now() - t);
      if (status >= 300) errors++;
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, loop));
  return { latencies, errors, cpuMs: ownCpuMs() - cpu0, seconds: (performance.now() - t0) / 1000 };
}

function summary({ latencies, errors, cpuMs, seconds }: Sample): Omit<Row, "target" | "scenario"> {
  latencies.sort((a, b) => a - b);
  const q = (p: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]! * 100) / 100;
  return {
    requests: latencies.length,
    rps: Math.round(latencies.length / seconds),
    p50_ms: q(0.5),
    p99_ms: q(0.99),
    errors,
    cpu_us: perRequestUs(cpuMs, latencies.length),
  };
}

const drive = async (invoke: Invoke, s: Scenario, seconds: number, max: number) => summary(await sample(invoke, s, seconds, max));

/** Run one scenario: a first request that must succeed, a warm-up, then the measured run. */
async function measure(target: Target, invoke: Invoke, s: Scenario): Promise<Row> {
  await warm(target, invoke, s);
  return { target, scenario: s.name, ...(await drive(invoke, s, SECONDS, MAX_REQUESTS)) };
}

async function warm(target: Target, invoke: Invoke, s: Scenario): Promise<void> {
  const first = await drive(invoke, s, 60, 1);
  if (first.errors) throw new Error(`${s.name} failed against the ${target}`);
  await drive(invoke, s, WARMUP_SECONDS, MAX_REQUESTS);
}

/** Two targets on one scenario in alternating half-second turns, SECONDS each: a drift in the machine's load weighs on both alike. */
async function measurePair(targets: [Target, Invoke][], s: Scenario): Promise<Row[]> {
  for (const [target, invoke] of targets) await warm(target, invoke, s);
  const totals = targets.map((): Sample => ({ latencies: [], errors: 0, cpuMs: 0, seconds: 0 }));
  for (let turn = 0; turn < SECONDS * 2; turn++) {
    for (const [i, [, invoke]] of targets.entries()) {
      const t = await sample(invoke, s, 0.5, MAX_REQUESTS / (SECONDS * 2));
      const total = totals[i]!;
      total.latencies.push(...t.latencies);
      total.errors += t.errors;
      total.cpuMs += t.cpuMs;
      total.seconds += t.seconds;
    }
  }
  return targets.map(([target], i) => ({ target, scenario: s.name, ...summary(totals[i]!) }));
}

/** find's engine alone: the core finder on the same artifact, the same request bodies, every tool granted. */
async function engineOnly(): Promise<Row[]> {
  const finder = createFinder(loadArtifact(artifactDir));
  const invoke: Invoke = async (s) => {
    await finder.find(s.body as FindRequest);
    return 200;
  };
  const rows: Row[] = [];
  for (const s of scenarios("").filter((x) => x.path === "/v1/find")) rows.push(await measure("engine", invoke, s));
  return rows;
}

async function inProcess(demoUrl: string): Promise<Row[]> {
  const dynamo = await startLocalDynamo({ table: "toolbelt-bench" });
  try {
    // The handlers read their configuration at import, as on Lambda.
    Object.assign(process.env, {
      TOOLBELT_ARTIFACT_DIR: artifactDir,
      TOOLBELT_POLICY: policy,
      TOOLBELT_TABLE: dynamo.table,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      AWS_REGION: "us-east-1",
      DEMO_SERVICE_URL: demoUrl,
      DEMO_SERVICE_TOKEN: DEMO_TOKEN,
    });
    const load = async (entry: string, name: string) => {
      const bundle = await bundleHandler(entry, join(work, name));
      return ((await import(bundle.file)) as { handler: Handler }).handler;
    };
    const api = await load("lambdas/handlers/api.ts", "api");
    const call = await load("lambdas/handlers/call.ts", "call");
    // The same app behind Hono's own adapter: what the lean one saves, measured beside it.
    const honoEntry = join(work, "api-hono.ts");
    await writeFile(
      honoEntry,
      `import { handle } from ${JSON.stringify(join(root, "node_modules/hono/dist/adapter/aws-lambda/index.js"))};\n` +
        `import { app } from ${JSON.stringify(join(root, "lambdas/handlers/api.ts"))};\nexport const handler = handle(app);\n`,
    );
    const apiHono = await load(relative(root, honoEntry), "api-hono");
    const base = values.base ? await baseHandler(resolve(values.base)) : undefined;
    const opened = await api(httpApiV2Event({ method: "POST", path: "/v1/sessions", headers: { authorization: `Bearer ${KEY}` }, body: {} }), lambdaContext());
    const session = (JSON.parse(String(opened.body)) as { session: { id: string } }).session.id;
    const rows: Row[] = [];
    for (const s of scenarios(session)) {
      if (s.path === "/v1/call") rows.push(await measure("handler", viaHandler(call), s));
      else
        rows.push(
          ...(await measurePair(
            [["handler", viaHandler(api)], ["hono", viaHandler(apiHono)], ...(base ? [["base", viaHandler(base)] as [Target, Invoke]] : [])],
            s,
          )),
        );
    }
    // Pin writes the last calls left in flight (calls wait for them at most PIN_WAIT_MS), and the find-miss
    // writes still running in the background (at most 32), land before the table goes.
    await new Promise((r) => setTimeout(r, 5000));
    return rows;
  } finally {
    await dynamo.close();
  }
}

/** The api handler of another checkout, bundled as this tree's is, reading an artifact its own build wrote (formats change between commits). */
async function baseHandler(dir: string): Promise<Handler> {
  const artifact = join(work, "base-artifact");
  execFileSync(process.execPath, ["--import", "tsx", "build/cli.ts", "build", "--out", artifact], { cwd: dir, stdio: "ignore" });
  const file = join(work, "base", "index.mjs");
  await build({ ...esbuildOptions(join(dir, "lambdas/handlers/api.ts"), file), absWorkingDir: dir, write: true });
  // It reads its configuration at import: its artifact, and the policy without limits (an older policy format
  // refuses the key), for that moment only.
  const own = { TOOLBELT_ARTIFACT_DIR: process.env.TOOLBELT_ARTIFACT_DIR, TOOLBELT_POLICY: process.env.TOOLBELT_POLICY };
  Object.assign(process.env, { TOOLBELT_ARTIFACT_DIR: artifact, TOOLBELT_POLICY: JSON.stringify(localPolicyFile(KEY)) });
  try {
    return ((await import(file)) as { handler: Handler }).handler;
  } finally {
    Object.assign(process.env, own);
  }
}

// ---- run and report ----

const machine = () => ({
  cpus: cpus().length,
  cpu: cpus()[0]?.model ?? "?",
  memory_gb: Math.round(totalmem() / 2 ** 30),
  load: loadavg().map((l) => Math.round(l * 10) / 10),
});

const before = machine();
const gateway = await startGateway();
// With --base, the base checkout's own `npm start` too: find over HTTP takes turns between the two.
const baseGateway = values.base ? await startGateway(resolve(values.base), "base-gateway") : undefined;
let rows: Row[];
try {
  rows = [...(await overHttp(gateway.url, gateway.child.pid!, baseGateway)), ...(await inProcess(gateway.demoUrl)), ...(await engineOnly())];
} finally {
  gateway.child.kill("SIGTERM");
  baseGateway?.child.kill("SIGTERM");
  await rm(work, { recursive: true, force: true });
}
const after = machine();

const find = (target: Target, scenario: string) =>
  rows.find((r) => r.target === target && r.scenario === scenario) ?? { rps: Number.NaN, p99_ms: Number.NaN, cpu_us: null };
const sessionRatio = (target: Target) => Math.round((find(target, "call http").rps / find(target, "call http, session").rps) * 100) / 100;
/** Per find scenario: the engine's CPU per request beside a whole request's, in the handler and in the HTTP server. */
const split = scenarios("")
  .filter((s) => s.path === "/v1/find")
  .map((s) => {
    const engine = find("engine", s.name).cpu_us;
    const share = (target: Target) => {
      const whole = find(target, s.name).cpu_us;
      return whole && engine !== null ? Math.round((engine / whole) * 100) : null;
    };
    const base = find("base", s.name);
    return {
      scenario: s.name,
      engine_cpu_us: engine,
      handler_cpu_us: find("handler", s.name).cpu_us,
      ...(values.base
        ? {
            base_cpu_us: base.cpu_us,
            handler_vs_base_rps: Math.round((find("handler", s.name).rps / base.rps) * 100) / 100,
            http_base_rps: find("http-base", s.name).rps,
            http_vs_base_rps: Math.round((find("http", s.name).rps / find("http-base", s.name).rps) * 100) / 100,
            handler_vs_base_cpu: base.cpu_us && find("handler", s.name).cpu_us ? Math.round((base.cpu_us / find("handler", s.name).cpu_us!) * 100) / 100 : null,
          }
        : {}),
      hono_adapter_cpu_us: find("hono", s.name).cpu_us,
      http_cpu_us: find("http", s.name).cpu_us,
      engine_share_handler_pct: share("handler"),
      engine_share_http_pct: share("http"),
    };
  });
const report = {
  date: new Date().toISOString(),
  machine: { ...before, load_before: before.load, load_after: after.load },
  settings: { seconds: SECONDS, connections: CONNECTIONS, max_requests: MAX_REQUESTS, limits: values.limits, ...(values.base ? { base: values.base } : {}) },
  rows,
  split,
  goals: {
    find_rps: find("http", "find").rps,
    find_p99_ms: find("http", "find").p99_ms,
    find_ok: find("http", "find").rps >= 3000 && find("http", "find").p99_ms <= 15,
    session_slowdown_http: sessionRatio("http"),
    session_slowdown_handler: sessionRatio("handler"),
    session_ok: sessionRatio("http") <= 1.5,
  },
};

if (values.json) console.log(JSON.stringify(report, null, 2));
else {
  console.log(`${report.date}  ${before.cpus} × ${before.cpu}, ${before.memory_gb} GB; load ${before.load.join(" ")} → ${after.load.join(" ")}`);
  console.log(`${CONNECTIONS} connections, ${SECONDS} s or ${MAX_REQUESTS} requests per scenario${values.limits ? ", rate limits declared" : ""}\n`);
  console.log(
    `${"scenario".padEnd(20)} ${"target".padEnd(8)} ${"req/s".padStart(7)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"errors".padStart(7)} ${"cpu µs/req".padStart(11)}`,
  );
  for (const r of rows) {
    console.log(
      `${r.scenario.padEnd(20)} ${r.target.padEnd(8)} ${String(r.rps).padStart(7)} ${String(r.p50_ms).padStart(8)} ${String(r.p99_ms).padStart(8)} ${String(r.errors).padStart(7)} ${String(r.cpu_us ?? "-").padStart(11)}`,
    );
  }
  console.log("\nCPU per request, find's engine alone beside a whole request (the rest is HTTP, adapter, auth, JSON, logging):");
  for (const x of split) {
    console.log(
      `${x.scenario.padEnd(20)} engine ${x.engine_cpu_us ?? "-"} µs · handler ${x.handler_cpu_us ?? "-"} µs (engine ${x.engine_share_handler_pct ?? "-"}%; with hono's adapter ${x.hono_adapter_cpu_us ?? "-"} µs) · HTTP server ${x.http_cpu_us ?? "-"} µs (engine ${x.engine_share_http_pct ?? "-"}%)`,
    );
  }
  for (const x of split) {
    if ("base_cpu_us" in x) {
      console.log(
        `${x.scenario.padEnd(20)} handler against ${values.base}'s in the same run: ${x.handler_vs_base_rps}× the requests/s, the base's CPU per request over this tree's ${x.handler_vs_base_cpu}× (${x.base_cpu_us} → ${x.handler_cpu_us} µs)${values.limits ? "; the base ran without limits (its policy format may not read them)" : ""}`,
      );
      console.log(
        `${x.scenario.padEnd(20)} over HTTP against ${values.base}'s npm start, in alternating turns: ${x.http_vs_base_rps}× the requests/s (${x.http_base_rps} → ${find("http", x.scenario).rps})`,
      );
    }
  }
  const g = report.goals;
  console.log(`\nfind over HTTP: ${g.find_rps} req/s, p99 ${g.find_p99_ms} ms (goal ≥ 3,000 and ≤ 15 ms: ${g.find_ok ? "met" : "not met"})`);
  // With --only leaving out the calls there is no ratio to report (it would read NaN, "not met").
  if (Number.isFinite(g.session_slowdown_http))
    console.log(
      `a call with a session is ${g.session_slowdown_http}× the same call without over HTTP, ${g.session_slowdown_handler}× in-process (goal ≤ 1.5: ${g.session_ok ? "met" : "not met"})`,
    );
}
process.exit(0);
