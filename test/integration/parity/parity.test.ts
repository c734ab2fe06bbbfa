// Issue 24, "one call path behind every door": one table of call scenarios, run through every door a
// tool call can come in by (npm start's app and the bundled call and MCP Lambdas; REST direct and
// through toolbelt.call; MCP call_tool and direct tools/call, both protocol revisions, and a brief URL),
// and each door must give the same error code or the same success. The doors are read from the code:
// a handler file or a POST route that can dispatch a call and has no door in the table fails the suite.
// Issue 26's refusals go through every door too: the policy's own limit (429), a per-principal family
// without the caller's token (403), and an expired access token (401 with the resource metadata).
// About 11 s on 2 idle cores (each handler bundled once; two configurations: exec on and off).
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Hono } from "hono";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadArtifact } from "../../../lambdas/artifact.js";
import { loadConfig } from "../../../lambdas/config.js";
import { parsePolicy } from "../../../lambdas/core/auth.js";
import { ERROR_STATUS, type ErrorCode } from "../../../lambdas/core/errors.js";
import { memoryLogger } from "../../../lambdas/http/logger.js";
import { createLocalApp } from "../../../lambdas/local/local-app.js";
import { freePort } from "../../../lambdas/local/ports.js";
import { PROJECT_ROOT } from "../../../infra/toolbelt-gateway.js";
import { buildTestArtifact } from "../../helpers/artifact.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";
import { serveApp, type TestServer } from "../../helpers/server.js";
import { bundleHandler, copyDeploymentFiles } from "../../infra/bundle-harness.js";
import type { Revision } from "../mcp/fixture.js";
import {
  BRIEF,
  type CallInput,
  type Door,
  type LambdaHandler,
  lambdaFetch,
  mcpDoor,
  type Outcome,
  parityBriefs,
  parityInput,
  parityPolicy,
  recording,
  restDoor,
  SECRETS,
  startUpstreams,
  type Upstreams,
} from "./fixture.js";

type Config = "base" | "exec-off";
type Expected = { ok: true } | { code: ErrorCode };
type Refused = Extract<Outcome, { ok: false }>;
type Scenario = {
  name: string;
  config?: Config;
  /** Runs once before the doors are called. */
  before?: () => Promise<void>;
  call: () => CallInput;
  expect: Expected;
  /** What else a refusal must carry at this door: the problems found. */
  check?: (door: Door, got: Refused) => string[];
  after?: () => void;
};

type DoorSpec = {
  entry: "local" | "lambdas/handlers/call.ts" | "lambdas/handlers/mcp.ts";
  route: Door["route"];
  /** REST: the tool named in the body (`direct`) or wrapped in toolbelt.call; MCP: call_tool or tools/call by the tool's name (`direct`). */
  shape: "direct" | "toolbelt.call" | "call_tool";
  /** MCP's protocol revision: the v2 client pinned to 2026-07-28, or the v1 client (2025-11-25, the SDK's legacy path). */
  revision?: Revision;
};
const MODERN: Revision = "2026-07-28";
const LEGACY: Revision = "2025-11-25 (v1 client)";

/** Every door: npm start's app (`local`) and the Lambda handlers, each route that takes a call, each way of naming the tool there. */
const DOORS: DoorSpec[] = [
  { entry: "local", route: "/v1/call", shape: "direct" },
  { entry: "local", route: "/v1/call", shape: "toolbelt.call" },
  { entry: "local", route: "/mcp", shape: "call_tool", revision: MODERN },
  { entry: "local", route: "/mcp", shape: "call_tool", revision: LEGACY },
  { entry: "local", route: "/mcp", shape: "direct", revision: MODERN },
  { entry: "local", route: "/mcp", shape: "direct", revision: LEGACY },
  { entry: "local", route: "/mcp/briefs/:brief", shape: "call_tool", revision: MODERN },
  { entry: "local", route: "/mcp/briefs/:brief", shape: "direct", revision: LEGACY },
  { entry: "lambdas/handlers/call.ts", route: "/v1/call", shape: "direct" },
  { entry: "lambdas/handlers/call.ts", route: "/v1/call", shape: "toolbelt.call" },
  { entry: "lambdas/handlers/mcp.ts", route: "/mcp", shape: "call_tool", revision: MODERN },
  { entry: "lambdas/handlers/mcp.ts", route: "/mcp", shape: "call_tool", revision: LEGACY },
  { entry: "lambdas/handlers/mcp.ts", route: "/mcp", shape: "direct", revision: MODERN },
  { entry: "lambdas/handlers/mcp.ts", route: "/mcp", shape: "direct", revision: LEGACY },
  { entry: "lambdas/handlers/mcp.ts", route: "/mcp/briefs/:brief", shape: "call_tool", revision: LEGACY },
  { entry: "lambdas/handlers/mcp.ts", route: "/mcp/briefs/:brief", shape: "direct", revision: MODERN },
];

/** POST routes that take no tool call (find, sessions, the model APIs' search: find shaped as tool_reference blocks): any other POST route must be a door below. */
const NO_CALL_ROUTES = new Set([
  "/v1/find",
  "/v1/sessions",
  "/v1/tools/search",
  // An approver's decision on a held call: it runs nothing.
  "/v1/approvals/:id",
  // Completes only a call held at a door above, through the same gateway call (test/integration/governance/approvals).
  "/v1/approvals/:id/call",
  // The console's find playground: find as a principal, nothing called.
  "/v1/admin/find",
]);
/** Handler files that serve no call: their apps are read to hold them to it. */
const NO_CALL_HANDLERS = new Set(["api.ts", "console.ts"]);
const HANDLERS_DIR = join(PROJECT_ROOT, "lambdas/handlers");
const LAMBDA_URL = "https://api.example.test";
/** The policy's identity: access tokens from this issuer, for this audience, with keys from a loopback JWKS server. */
const ISSUER = "https://issuer.parity.test";
const AUDIENCE = "https://parity.example.test";
const DAY_MS = 86_400_000;

let work: string;
let root: string;
let outside: string;
let upstreams: Upstreams;
let dynamo: TestDynamo;
const saved = { ...process.env };
const servers: TestServer[] = [];
/** Every app that serves calls, by entry (`local`, or a handler file), from the base configuration. */
const apps = new Map<string, Hono>();
const doors = new Map<Config, Door[]>();
/** Every response body any door received, for the redaction check. */
const seen: string[] = [];
/** What the gateways logged: the Lambdas' JSON lines (held back from the test output) and npm start's logger. */
const logs: string[] = [];
const localLoggers: ReturnType<typeof memoryLogger>[] = [];
const stdoutWrite = process.stdout.write;
let jwks: Server;
let signingKey: CryptoKey;

/**
 * Uses notes.limited's one call of the day. The quota is per UTC day and the gateways read the real clock (no door
 * takes another): this close to midnight, wait for the new day, so the use and the doors' refusals share one.
 */
async function useTheDailyQuota(): Promise<void> {
  const left = DAY_MS - (Date.now() % DAY_MS);
  if (left < 30_000) await new Promise((done) => setTimeout(done, left + 100));
  expect(await doors.get("base")![0]!.call({ tool: "notes.limited", args: { text: "once" } })).toMatchObject({ ok: true });
}

const SCENARIOS: Scenario[] = [
  ...["notes.add", "notes_add", "Notes.Add", "NOTES_ADD", "notes-add"].map(
    (tool): Scenario => ({ name: `a granted tool spelled ${tool}`, call: () => ({ tool, args: { text: "hello" } }), expect: { ok: true } }),
  ),
  ...["admin.reset", "admin_reset"].map(
    (tool): Scenario => ({
      name: `an ungranted tool by its name ${tool}`,
      call: () => ({ tool, args: { text: "wipe" } }),
      expect: { code: "TOOL_NOT_GRANTED" },
    }),
  ),
  { name: "an unknown tool", call: () => ({ tool: "nothing.such_tool_here", args: {} }), expect: { code: "TOOL_NOT_FOUND" } },
  {
    name: "an exec tool with exec off",
    config: "exec-off",
    call: () => ({ tool: "files.head", args: { path: join(root, "a.txt") } }),
    expect: { code: "NOT_IMPLEMENTED" },
  },
  { name: "a file inside the roots", call: () => ({ tool: "files.head", args: { path: join(root, "a.txt") } }), expect: { ok: true } },
  { name: "a file outside the roots", call: () => ({ tool: "files.head", args: { path: join(outside, "b.txt") } }), expect: { code: "PATH_OUTSIDE_ROOTS" } },
  {
    name: "a URL outside the family's egress",
    call: () => ({ tool: "leaky.egress", args: {} }),
    expect: { code: "EGRESS_DENIED" },
    after: () => expect(upstreams.elsewhereHits(), "requests that reached the origin outside the egress").toBe(0),
  },
  { name: "arguments of the wrong type", call: () => ({ tool: "notes.add", args: { text: 42 } }), expect: { code: "INVALID_ARGUMENTS" } },
  {
    name: "a top-level __proto__ in the arguments",
    // JSON.parse makes `__proto__` an own key, as a request body carries it.
    call: () => ({ tool: "notes.add", args: JSON.parse('{"text": "hi", "__proto__": {"admin": true}}') as unknown }),
    expect: { code: "INVALID_ARGUMENTS" },
  },
  {
    name: "a nested __proto__ in the arguments of a tool with an open schema",
    call: () => ({ tool: "vault.peek", args: JSON.parse('{"q": {"__proto__": {"admin": true}}}') as unknown }),
    expect: { code: "INVALID_ARGUMENTS" },
  },
  { name: "a missing required argument", call: () => ({ tool: "notes.add", args: {} }), expect: { code: "INVALID_ARGUMENTS" } },
  { name: "a meta-tool by its name", call: () => ({ tool: "toolbelt.find", args: { query: "read the head of a file" } }), expect: { ok: true } },
  { name: "an upstream fault (HTTP 500) quoting the secret", call: () => ({ tool: "notes.fail", args: { text: "x" } }), expect: { code: "UPSTREAM_ERROR" } },
  { name: "an upstream rate limit (HTTP 429)", call: () => ({ tool: "notes.busy", args: { text: "x" } }), expect: { code: "UPSTREAM_RATE_LIMITED" } },
  { name: "an upstream echoing its family's secret", call: () => ({ tool: "notes.echo_auth", args: { text: "x" } }), expect: { ok: true } },
  { name: "an upstream echoing another family's secret", call: () => ({ tool: "vault.peek", args: {} }), expect: { ok: true } },
  { name: "a prompt tool without a model", call: () => ({ tool: "writing.summarize", args: { text: "x" } }), expect: { code: "MODEL_NOT_CONFIGURED" } },
  {
    name: "a tool whose daily quota (the policy's tool_limits) is used up",
    before: useTheDailyQuota,
    call: () => ({ tool: "notes.limited", args: { text: "again" } }),
    expect: { code: "TOO_MANY_REQUESTS" },
    check: (door, got) => [
      ...(got.details?.limit === "daily_quota" ? [] : [`${door.name}: details.limit ${JSON.stringify(got.details?.limit)}, not daily_quota`]),
      // REST says when to come back in Retry-After; a tool error has no headers, only the details.
      ...(door.route === "/v1/call" && (!got.retryAfter || got.retryAfter !== String(got.details?.retry_after_secs))
        ? [`${door.name}: Retry-After ${JSON.stringify(got.retryAfter)}, details.retry_after_secs ${JSON.stringify(got.details?.retry_after_secs)}`]
        : []),
    ],
    after: () => expect(upstreams.hits("/limited"), "requests that reached notes.limited's upstream").toBe(1),
  },
  {
    name: "a destructive tool under an approval rule",
    call: () => ({ tool: "notes.erase", args: { text: "x" } }),
    expect: { code: "APPROVAL_REQUIRED" },
    check: (door, got) => (typeof got.details?.approval_id === "string" ? [] : [`${door.name}: no details.approval_id`]),
    after: () => expect(upstreams.hits("/erase"), "requests that reached notes.erase's upstream").toBe(0),
  },
  {
    name: "a per-principal family the caller stored no token for",
    call: () => ({ tool: "mine.read", args: { text: "x" } }),
    expect: { code: "FORBIDDEN" },
    check: (door, got) => (got.details?.family === "mine" ? [] : [`${door.name}: details.family ${JSON.stringify(got.details?.family)}, not mine`]),
    after: () => expect(upstreams.hits("/mine"), "requests that reached mine.read's upstream").toBe(0),
  },
];

/** What a door must answer: the table's row, except that a direct MCP call of an unknown name is JSON-RPC -32602 (the MCP spec). */
function expectedAt(door: Door, expected: Expected): Expected | { code: number } {
  if ("code" in expected && expected.code === "TOOL_NOT_FOUND" && door.mcpDirect) return { code: -32602 };
  return expected;
}

const leakedIn = (text: string) => Object.entries(SECRETS).flatMap(([name, value]) => (text.includes(value) ? [name] : []));

/** The environment of a deployment: the families' settings, the table, the deployment files, the roots. */
function envFor(config: Config, artifactDir: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "test",
    AWS_SECRET_ACCESS_KEY: "test",
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    TOOLBELT_TABLE: dynamo.table,
    TOOLBELT_ARTIFACT_DIR: artifactDir,
    TOOLBELT_POLICY: join(work, "policy.json"),
    TOOLBELT_BRIEFS: join(work, "briefs.json"),
    TOOLBELT_FILE_ROOTS: root,
    ...(config === "exec-off" ? { TOOLBELT_EXEC: "off" } : {}),
    NOTES_URL: upstreams.notes.url,
    NOTES_TOKEN: SECRETS.NOTES_TOKEN,
    VAULT_URL: upstreams.notes.url,
    VAULT_KEY: SECRETS.VAULT_KEY,
    LEAKY_TARGET: upstreams.elsewhere.url,
    LEAKY_ALLOWED: upstreams.notes.url,
  };
}

/** npm start's app, built by the function start.ts serves (lambdas/local/local-app.ts). */
async function startLocal(config: Config, artifactDir: string): Promise<{ url: string; app: Hono }> {
  const env = envFor(config, artifactDir);
  const parsed = loadConfig(env);
  const port = await freePort();
  const logger = memoryLogger();
  localLoggers.push(logger);
  const { app } = createLocalApp({
    config: parsed,
    env,
    client: dynamo.client,
    artifact: loadArtifact(artifactDir),
    policy: parsePolicy(parsed.policyJson),
    briefs: parityBriefs(),
    logger,
    models: {},
    defaultFileRoots: [PROJECT_ROOT],
    internalPaths: [artifactDir],
    port,
  });
  const server = await serveApp(app, port);
  servers.push(server);
  return { url: server.url, app: app as unknown as Hono };
}

/** The doors of one configuration: npm start's app and both Lambda handlers (a copy of each bundle per configuration: ESM caches by URL). */
async function doorsFor(config: Config, bundles: { call: string; mcp: string }, artifactDir: string): Promise<Door[]> {
  const local = await startLocal(config, artifactDir);
  if (config === "base") apps.set("local", local.app);
  const rec = recording(fetch, seen);
  const imported: Record<string, { app: Hono; handler: LambdaHandler }> = {};
  for (const [entry, file] of [
    ["lambdas/handlers/call.ts", bundles.call],
    ["lambdas/handlers/mcp.ts", bundles.mcp],
  ] as const) {
    const copy = file.replace(/\.mjs$/, `-${config}.mjs`);
    await copyFile(file, copy);
    // The handler reads its environment at import (module scope), as on a cold start.
    Object.assign(process.env, envFor(config, join(copy, "..", "artifact")));
    imported[entry] = (await import(pathToFileURL(copy).href)) as { app: Hono; handler: LambdaHandler };
    if (config === "base") apps.set(entry, imported[entry].app);
  }
  const fetchOf: Record<DoorSpec["entry"], typeof fetch> = {
    local: rec,
    "lambdas/handlers/call.ts": recording(lambdaFetch(imported["lambdas/handlers/call.ts"]!.handler), seen),
    "lambdas/handlers/mcp.ts": recording(lambdaFetch(imported["lambdas/handlers/mcp.ts"]!.handler), seen),
  };
  return DOORS.map((spec) => {
    const base = spec.entry === "local" ? local.url : LAMBDA_URL;
    const name = [spec.entry === "local" ? "npm start" : spec.entry.slice("lambdas/handlers/".length), spec.route, spec.shape, spec.revision ?? ""]
      .join(" ")
      .trim();
    if (spec.shape === "direct" && spec.route === "/v1/call") return restDoor(name, spec.entry, base, fetchOf[spec.entry], false);
    if (spec.shape === "toolbelt.call") return restDoor(name, spec.entry, base, fetchOf[spec.entry], true);
    const url = `${base}${spec.route.replace(":brief", BRIEF)}`;
    return mcpDoor(name, spec.entry, {
      url,
      route: spec.route,
      fetch: fetchOf[spec.entry],
      revision: spec.revision!,
      shape: spec.shape as "call_tool" | "direct",
    });
  });
}

beforeAll(async () => {
  process.stdout.write = ((chunk: unknown, ...rest: never[]) =>
    typeof chunk === "string" && chunk.startsWith('{"level"')
      ? logs.push(chunk) > 0
      : stdoutWrite.call(process.stdout, chunk as string, ...rest)) as typeof stdoutWrite;
  work = await mkdtemp(join(tmpdir(), "toolbelt-parity-"));
  root = join(work, "root");
  outside = join(work, "outside");
  await mkdir(root);
  await mkdir(outside);
  await writeFile(join(root, "a.txt"), "inside the root\n");
  await writeFile(join(outside, "b.txt"), "outside the roots\n");
  // The identity's keys: one ES256 pair, its public half served as the JWKS on loopback.
  const pair = await generateKeyPair("ES256");
  signingKey = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: "parity", alg: "ES256" };
  jwks = createServer((_req, res) => void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [jwk] })));
  await new Promise<void>((done) => jwks.listen(0, "127.0.0.1", done));
  const identity = {
    issuer: ISSUER,
    audience: AUDIENCE,
    jwks_uri: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`,
    subject_claim: "sub",
    scopes: [],
  };
  await writeFile(join(work, "policy.json"), JSON.stringify(parityPolicy(identity)));
  await writeFile(join(work, "briefs.json"), JSON.stringify({ briefs: parityBriefs() }));
  upstreams = await startUpstreams();
  dynamo = await startDynalite({ table: "toolbelt-parity" });
  const { dir: artifactDir } = await buildTestArtifact(join(work, "artifact"), parityInput());
  // Each handler bundled once, laid out as /var/task with the deployment files.
  const [callBundle, mcpBundle] = await Promise.all([
    bundleHandler("lambdas/handlers/call.ts", join(work, "call")),
    bundleHandler("lambdas/handlers/mcp.ts", join(work, "mcp")),
  ]);
  for (const b of [callBundle, mcpBundle])
    copyDeploymentFiles(b.dir, { artifactDir, policyFile: join(work, "policy.json"), briefsFile: join(work, "briefs.json") });
  const bundles = { call: callBundle.file, mcp: mcpBundle.file };
  doors.set("base", await doorsFor("base", bundles, artifactDir));
  doors.set("exec-off", await doorsFor("exec-off", bundles, artifactDir));
}, 120_000);

afterAll(async () => {
  process.stdout.write = stdoutWrite;
  for (const d of [...doors.values()].flat()) await d.close?.();
  await Promise.all(servers.map((s) => s.close()));
  process.env = saved;
  await upstreams?.close();
  jwks?.closeAllConnections();
  await new Promise((done) => (jwks ? jwks.close(done) : done(undefined)));
  await dynamo?.close();
  await rm(work, { recursive: true, force: true });
});

/** The POST routes of an app (Hono's `app.routes`; middleware and 405 fallbacks are `ALL`). */
const postRoutes = (app: Hono) => [...new Set(app.routes.filter((r) => r.method === "POST").map((r) => r.path))].sort();

describe("the doors, read from the code", () => {
  it("covers every handler file with a door, or holds it to serving no call", async () => {
    // wiring.ts and wiring-deps.ts build the handlers' dependencies and adapter.ts turns their events into
    // requests; they are not handlers.
    const files = (await readdir(HANDLERS_DIR)).filter((f) => f.endsWith(".ts") && !f.startsWith("wiring") && f !== "adapter.ts").sort();
    const entries = new Set(doors.get("base")!.map((d) => d.entry));
    const uncovered = files.filter((f) => !entries.has(`lambdas/handlers/${f}`) && !NO_CALL_HANDLERS.has(f));
    expect(uncovered, "handler files with no door in the table (add their doors, or list them as serving no call)").toEqual([]);
    for (const f of NO_CALL_HANDLERS) {
      expect(files).toContain(f);
      Object.assign(process.env, envFor("base", join(work, "artifact")));
      const { app } = (await import(pathToFileURL(join(HANDLERS_DIR, f)).href)) as { app: Hono };
      const calls = postRoutes(app).filter((p) => !NO_CALL_ROUTES.has(p));
      expect(calls, `${f} serves POST routes that may dispatch a call`).toEqual([]);
    }
  });

  it("has a door for every POST route that can dispatch a call, in npm start's app and in each handler's", () => {
    expect([...apps.keys()].sort()).toEqual(["lambdas/handlers/call.ts", "lambdas/handlers/mcp.ts", "local"]);
    const missing: string[] = [];
    const stale: string[] = [];
    for (const [entry, app] of apps) {
      const routes = postRoutes(app);
      const covered = new Set(
        doors
          .get("base")!
          .filter((d) => d.entry === entry)
          .map((d) => d.route as string),
      );
      for (const path of routes) if (!NO_CALL_ROUTES.has(path) && !covered.has(path)) missing.push(`${entry}: POST ${path}`);
      for (const path of covered) if (!routes.includes(path)) stale.push(`${entry}: POST ${path}`);
    }
    expect(missing, "POST routes with no door in the table").toEqual([]);
    expect(stale, "doors whose route the app does not serve").toEqual([]);
    // The three routes the issue names are all doors of npm start's app.
    expect(
      new Set(
        doors
          .get("base")!
          .filter((d) => d.entry === "local")
          .map((d) => d.route),
      ),
    ).toEqual(new Set(["/v1/call", "/mcp", "/mcp/briefs/:brief"]));
  });
});

describe("one call path behind every door", () => {
  it.each(SCENARIOS.map((s) => [s.name, s] as const))("%s: the same answer at every door", async (_name, scenario) => {
    await scenario.before?.();
    const mismatches: string[] = [];
    const successes: { door: string; result: unknown }[] = [];
    for (const door of doors.get(scenario.config ?? "base")!) {
      const want = expectedAt(door, scenario.expect);
      const got: Outcome | undefined = await door.call(scenario.call()).catch((e: unknown) => ({ ok: false, code: `threw ${String(e)}` }));
      const leaks = leakedIn(JSON.stringify(got));
      if (leaks.length) mismatches.push(`${door.name}: the answer carries the value of ${leaks.join(", ")}`);
      if (!got) mismatches.push(`${door.name}: cannot send this call`);
      else if ("ok" in want) {
        if (got.ok) successes.push({ door: door.name, result: got.result });
        else mismatches.push(`${door.name}: expected success, got ${got.code}`);
      } else if (got.ok || got.code !== want.code) {
        mismatches.push(`${door.name}: expected ${want.code}, got ${got.ok ? `success ${JSON.stringify(got.result).slice(0, 200)}` : got.code}`);
      } else if (got.status !== undefined && got.status !== ERROR_STATUS[want.code as ErrorCode]) {
        mismatches.push(`${door.name}: ${want.code} with HTTP ${got.status}, not ${ERROR_STATUS[want.code as ErrorCode]}`);
      } else mismatches.push(...(scenario.check?.(door, got) ?? []));
    }
    // The same success: every door's result equals the first door's.
    const [first, ...rest] = successes;
    for (const s of rest) {
      if (JSON.stringify(s.result) !== JSON.stringify(first!.result)) {
        mismatches.push(`${s.door}: result ${JSON.stringify(s.result)} differs from ${first!.door}'s ${JSON.stringify(first!.result)}`);
      }
    }
    expect(mismatches).toEqual([]);
    scenario.after?.();
  });

  it("an idempotent repeat (same key) answers the same twice and reaches the upstream once, and the key with other arguments is refused, at every door that takes a key", async () => {
    const mismatches: string[] = [];
    const keyless: string[] = [];
    for (const door of doors.get("base")!) {
      const account = `acct ${door.name}`;
      const input = { tool: "notes.charge", args: { account }, idempotencyKey: `parity-${door.name.replace(/\W+/g, "-")}` };
      const first = await door.call(input);
      if (!first) {
        keyless.push(door.name);
        continue;
      }
      const second = await door.call(input);
      if (!first.ok) mismatches.push(`${door.name}: the first call failed with ${first.code}`);
      else if (JSON.stringify(second) !== JSON.stringify(first))
        mismatches.push(`${door.name}: the repeat answered ${JSON.stringify(second)}, the first ${JSON.stringify(first)}`);
      const hits = upstreams.charges.get(account) ?? 0;
      if (hits !== 1) mismatches.push(`${door.name}: the upstream was charged ${hits} times`);
      const reused = await door.call({ ...input, args: { account: `${account} again` } });
      if (reused?.ok !== false || reused.code !== "IDEMPOTENCY_KEY_REUSED")
        mismatches.push(`${door.name}: the key with other arguments answered ${JSON.stringify(reused)}`);
    }
    expect(mismatches).toEqual([]);
    // A direct tools/call has no argument for a key that is not the tool's own: only call_tool carries one.
    expect(keyless).toEqual(
      doors
        .get("base")!
        .filter((d) => d.mcpDirect)
        .map((d) => d.name),
    );
  });

  it("refuses an expired access token with 401 and the resource metadata's URL at every door, MCP's before any JSON-RPC", async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: "dana", iat: now - 600, exp: now - 120 })
      .setProtectedHeader({ alg: "ES256", kid: "parity" })
      .sign(signingKey);
    const mismatches: string[] = [];
    for (const door of doors.get("base")!) {
      const got = await door.callAs(expired, { tool: "notes.add", args: { text: "as dana" } });
      const metadata = door.route === "/v1/call" ? "/.well-known/oauth-protected-resource" : "/.well-known/oauth-protected-resource/mcp";
      const challenge = new RegExp(`^Bearer resource_metadata="[^"]+${metadata.replaceAll(".", "\\.")}", error="invalid_token"$`);
      if (got.status !== 401 || got.code !== "UNAUTHENTICATED" || !challenge.test(got.challenge ?? ""))
        mismatches.push(`${door.name}: HTTP ${got.status} ${String(got.code)}, WWW-Authenticate ${JSON.stringify(got.challenge)}`);
    }
    expect(mismatches).toEqual([]);
  });

  it("carried no declared secret in any response body of any door", () => {
    expect(seen.length).toBeGreaterThan(SCENARIOS.length * 10);
    const leaks = seen.flatMap((body) => leakedIn(body).map((name) => `${name} in ${body.slice(0, 300)}`));
    expect(leaks).toEqual([]);
  });

  it("wrote no declared secret in any log line of any gateway", () => {
    expect(logs.length).toBeGreaterThan(0);
    const lines = [...logs, ...localLoggers.flatMap((l) => l.entries.map((e) => JSON.stringify(e)))];
    expect(lines.flatMap((line) => leakedIn(line).map((name) => `${name} in ${line.slice(0, 300)}`))).toEqual([]);
  });
});
