// Rate limits across two gateway "processes": two apps wired by wiring.ts's wire() as npm start and the
// Lambdas are, each with its own DynamoDB client, sharing one dynalite table and one injected clock (so
// every request of a test lands in one window). A loopback upstream counts what reaches it.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { PolicyFile } from "../../../registry/contract/policy.js";
import { sha256Hex } from "../../../lambdas/core/auth.js";
import { createLimiter } from "../../../lambdas/core/limits.js";
import type { Caller } from "../../../lambdas/core/ports.js";
import { loadConfig } from "../../../lambdas/config.js";
import { wire } from "../../../lambdas/handlers/wiring.js";
import { createApp } from "../../../lambdas/http/app.js";
import { shareGateway } from "../../../lambdas/http/call-gateway.js";
import { memoryLogger } from "../../../lambdas/http/logger.js";
import { createCallModule } from "../../../lambdas/http/routes/call.js";
import { createMcpModule } from "../../../lambdas/http/routes/mcp.js";
import { createDynamoClient } from "../../../lambdas/stores/dynamodb.js";
import { DynamoLimitStore } from "../../../lambdas/stores/limits.js";
import { buildTestArtifact, testArtifactInput } from "../../helpers/artifact.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";
import { serveApp, type TestServer } from "../../helpers/server.js";
import { connect } from "../mcp/fixture.js";
import { catalogTool, latch, startLoopback, type Loopback } from "../call/helpers.js";

const key = (id: string) => `${id}-limits-key-7f3a`;
const who = (id: string, over: Partial<PolicyFile["principals"][number]> = {}) => ({
  id,
  keys: [sha256Hex(key(id))],
  allow: ["*"],
  deny: [],
  admin: false,
  ...over,
});
const policy: PolicyFile = {
  version: 1,
  principals: [
    who("minute", { limits: { requests_per_minute: 5 } }),
    who("conc", { tool_limits: { "slow.*": { concurrent_calls: 2 } } }),
    who("daily", { limits: { daily_quota: 3 } }),
    who("tools", { tool_limits: { "notes.*": { requests_per_minute: 2 } } }),
    who("fam1"),
    who("fam2"),
    who("free"),
  ],
  family_limits: { shared: { requests_per_minute: 3 } },
};

/** 10:00:15 UTC on day `d` of December 2026: each test its own windows. */
const day = (d: number) => Date.UTC(2026, 11, d, 10, 0, 15);
let now = day(1);
let dynamo: TestDynamo;
let upstream: Loopback;
const gate = { hold: latch(), inFlight: 0, maxInFlight: 0, arrived: 0 };
const apps: { server: TestServer; close(): Promise<void>; logger: ReturnType<typeof memoryLogger> }[] = [];

async function startApp(prefix: string, limits: PolicyFile) {
  const artifactDir = await mkdtemp(join(tmpdir(), prefix));
  const env = { TOOLBELT_ARTIFACT_DIR: artifactDir, TOOLBELT_TABLE: dynamo.table, DYNAMODB_ENDPOINT: dynamo.endpoint, UPSTREAM: upstream.url };
  const config = loadConfig(env);
  const logger = memoryLogger();
  const { artifact } = await buildTestArtifact(artifactDir, input());
  const { deps, call } = wire({
    config,
    env,
    // Each "process" its own client and connection pool.
    client: createDynamoClient({ endpoint: dynamo.endpoint }),
    artifact,
    policy: limits,
    briefs: [],
    logger,
    models: {},
    defaultFileRoots: [],
    internalPaths: [artifactDir],
  });
  // As local-app.ts builds it, with the test's clock for the limits (the one thing wire() does not take).
  const shared = shareGateway({ ...call, ...(call.limits ? { limits: { ...call.limits, clock: () => now } } : {}) });
  const rest = createCallModule(shared);
  const mcp = createMcpModule(shared);
  const server = await serveApp(createApp(deps, { extraRoutes: [rest, mcp] }));
  const app = {
    server,
    logger,
    close: async () => {
      await server.close();
      await rest.close();
      await mcp.close();
    },
  };
  apps.push(app);
  return app;
}

const input = () => {
  const http = (path: string) => ({ kind: "http" as const, method: "POST", url: `\${UPSTREAM}/${path}`, body: "{{input}}", output: "json" as const });
  return testArtifactInput(
    [
      catalogTool("notes.add", http("add")),
      catalogTool("notes.list", http("add")),
      catalogTool("shared.ping", http("add")),
      catalogTool("slow.wait", http("slow")),
    ],
    { variables: { notes: { UPSTREAM: { secret: false } }, shared: { UPSTREAM: { secret: false } }, slow: { UPSTREAM: { secret: false } } } },
  );
};

function call(app: { server: TestServer }, as: string, tool: string, args: unknown = {}) {
  return fetch(`${app.server.url}/v1/call`, {
    method: "POST",
    headers: { authorization: `Bearer ${key(as)}`, "content-type": "application/json" },
    body: JSON.stringify({ tool, args }),
  });
}

async function statuses(responses: Promise<Response>[]): Promise<number[]> {
  return Promise.all(responses.map(async (r) => (await r).status));
}

const limitItems = async () =>
  ((await dynamo.client.send(new ScanCommand({ TableName: dynamo.table }))).Items ?? []).filter((i) => String(i.pk).startsWith("LIMIT#"));

let a: Awaited<ReturnType<typeof startApp>>;
let b: Awaited<ReturnType<typeof startApp>>;

beforeAll(async () => {
  upstream = await startLoopback((req, res) => {
    const answer = () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"ok":true}');
    };
    if (req.url !== "/slow") return answer();
    gate.arrived += 1;
    gate.inFlight += 1;
    gate.maxInFlight = Math.max(gate.maxInFlight, gate.inFlight);
    void gate.hold.promise.then(() => {
      gate.inFlight -= 1;
      answer();
    });
  });
  dynamo = await startDynalite();
  a = await startApp("toolbelt-limits-a-", policy);
  b = await startApp("toolbelt-limits-b-", policy);
});

afterAll(async () => {
  gate.hold.release();
  await Promise.all(apps.map((x) => x.close()));
  await upstream?.close();
  await dynamo?.close();
});

beforeEach(() => {
  now = day(1);
});

describe("limits across two gateway processes sharing one table", () => {
  it("lets exactly k of N parallel calls through a per-minute limit of k, and answers the rest 429 with Retry-After and the limit named", async () => {
    now = day(2);
    const sent = Array.from({ length: 20 }, (_, i) => call(i % 2 ? a : b, "minute", "notes.add"));
    const got = await statuses(sent);
    expect(got.filter((s) => s === 200)).toHaveLength(5);
    expect(got.filter((s) => s === 429)).toHaveLength(15);
    const refused = await call(a, "minute", "notes.add");
    // 10:00:15: 45 seconds are left in the minute's window.
    expect(refused.headers.get("retry-after")).toBe("45");
    expect(((await refused.json()) as { error: unknown }).error).toEqual({
      code: "TOO_MANY_REQUESTS",
      message: "your limit of 5 calls per minute is reached; retry after 45 s",
      details: { limit: "requests_per_minute", scope: "principal", quota: 5, tool: "notes.add", retry_after_secs: 45 },
    });
    // Audited and counted as an error by its code.
    const audits = [...a.logger.entries, ...b.logger.entries].filter((e) => e.message === "call" && e.fields.principal === "minute");
    expect(audits.filter((e) => e.fields.outcome === "TOO_MANY_REQUESTS" && e.fields.status === 429 && e.fields.limit === "requests_per_minute")).toHaveLength(
      16,
    );
    // The next window lets calls through again.
    now = day(2) + 45_000;
    const next = await call(b, "minute", "notes.add");
    expect(next.status).toBe(200);
    // The caller sees what it has left (IETF RateLimit fields): 4 of 5 in a minute that resets in 60 s.
    expect(next.headers.get("ratelimit-policy")).toBe('"principal-requests-per-minute";q=5;w=60');
    expect(next.headers.get("ratelimit")).toBe('"principal-requests-per-minute";r=4;t=60');
  });

  it("never has more than c calls in flight at the upstream under a concurrency limit of c, and frees the slots when they end", async () => {
    gate.hold = latch();
    gate.maxInFlight = 0;
    gate.arrived = 0;
    const sent = Array.from({ length: 8 }, (_, i) => call(i % 2 ? a : b, "conc", "slow.wait"));
    // The refused answer at once; the admitted two wait at the upstream.
    const refused = await Promise.all(sent.map((p) => Promise.race([p.then((r) => r.status), new Promise((r) => setTimeout(() => r("held"), 1500))])));
    expect(refused.filter((s) => s === 429)).toHaveLength(6);
    expect(gate.inFlight).toBe(2);
    gate.hold.release();
    expect((await statuses(sent)).filter((s) => s === 200)).toHaveLength(2);
    expect(gate.maxInFlight).toBe(2);
    expect(gate.arrived).toBe(2);
    // Both leases were freed: two more get through at once.
    expect(await statuses([call(a, "conc", "slow.wait"), call(b, "conc", "slow.wait")])).toEqual([200, 200]);
  });

  it("frees the slot of a call whose process crashed once its lease (timeout + margin) has passed", async () => {
    now = day(3);
    const conc: Caller = { principal: "conc", admin: false, granted: () => true };
    // A third process admits two calls and dies before freeing them.
    const crashed = createLimiter({ store: new DynamoLimitStore(dynamo.client, dynamo.table), policy, clock: () => now })!;
    await crashed.admit(conc, { name: "slow.wait", family: "slow" }, 10_000);
    await crashed.admit(conc, { name: "slow.wait", family: "slow" }, 10_000);
    gate.hold.release();
    const full = await call(a, "conc", "slow.wait");
    expect(full.status).toBe(429);
    expect(full.headers.get("retry-after")).toBe("1");
    // The tool's timeout (10 s) and the margin (30 s) later, the dead calls' slots are taken back.
    now = day(3) + 40_000;
    expect(await statuses([call(a, "conc", "slow.wait"), call(b, "conc", "slow.wait")])).toEqual([200, 200]);
  });

  it("counts a daily quota per UTC day, and says so over MCP as a tool error with retry_after_secs", async () => {
    now = day(4);
    expect(await statuses([call(a, "daily", "notes.add"), call(b, "daily", "notes.add"), call(a, "daily", "notes.list")])).toEqual([200, 200, 200]);
    const rest = await call(b, "daily", "notes.add");
    expect(rest.status).toBe(429);
    expect(rest.headers.get("retry-after")).toBe(String(14 * 3600 - 15));
    const client = await connect(`${a.server.url}/mcp`, key("daily"), "2026-07-28");
    try {
      const result = (await client.callTool({ name: "call_tool", arguments: { tool: "notes.add", args: {} } })) as {
        isError?: boolean;
        content: { type: string; text: string }[];
      };
      expect(result.isError).toBe(true);
      expect(JSON.parse(result.content[0]!.text)).toMatchObject({
        error: { code: "TOO_MANY_REQUESTS", details: { limit: "daily_quota", retry_after_secs: 14 * 3600 - 15 } },
      });
    } finally {
      await client.close();
    }
    now = day(5);
    expect((await call(a, "daily", "notes.add")).status).toBe(200);
  });

  it("shares a family limit between principals and keeps tool limits per tool", async () => {
    now = day(6);
    const fam = await statuses([
      call(a, "fam1", "shared.ping"),
      call(b, "fam2", "shared.ping"),
      call(a, "fam2", "shared.ping"),
      call(b, "fam1", "shared.ping"),
    ]);
    expect(fam.sort()).toEqual([200, 200, 200, 429]);
    const refused = (await (await call(a, "fam1", "shared.ping")).json()) as { error: { details: unknown } };
    expect(refused.error.details).toMatchObject({ scope: "family", family: "shared", limit: "requests_per_minute" });

    expect(await statuses([call(a, "tools", "notes.add"), call(b, "tools", "notes.add")])).toEqual([200, 200]);
    expect((await call(a, "tools", "notes.add")).status).toBe(429);
    // notes.list matches the same glob and has counters of its own.
    expect(await statuses([call(a, "tools", "notes.list"), call(b, "tools", "notes.list")])).toEqual([200, 200]);
  });

  it("writes nothing for a caller no limit applies to, nor for any call when the policy declares no limit", async () => {
    now = day(7);
    const before = (await limitItems()).length;
    expect((await call(a, "free", "notes.add")).status).toBe(200);
    expect(await limitItems()).toHaveLength(before);

    const plain = await startApp("toolbelt-limits-c-", {
      ...policy,
      family_limits: {},
      principals: policy.principals.map(({ limits: _l, tool_limits: _t, ...p }) => p),
    });
    expect(await statuses(Array.from({ length: 8 }, () => call(plain, "minute", "notes.add")))).toEqual(Array(8).fill(200));
    expect(await limitItems()).toHaveLength(before);
  });
});
