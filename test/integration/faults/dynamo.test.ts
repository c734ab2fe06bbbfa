// The table failing under a running gateway, with real parts: dynalite stopped mid-run and started
// again on its port and data folder, and a loopback proxy in front of dynalite answering with
// DynamoDB's own throttling error. Stateless work keeps answering; what needs the table answers 503.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REUSE_MS } from "../../../lambdas/core/sessions.js";
import { createCallModule, type CallModule } from "../../../lambdas/http/routes/call.js";
import { createDynamoClient, DynamoSessionStore, type DynamoRetry } from "../../../lambdas/stores/dynamodb.js";
import { DynamoMissStore } from "../../../lambdas/stores/misses.js";
import { startTestApi, type TestApi } from "../../helpers/api.js";
import { testArtifactInput } from "../../helpers/artifact.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";
import { catalogTool, type Loopback, metaTools, startLoopback } from "../call/helpers.js";
import { startFaultProxy } from "./proxy.js";

const TABLE = "toolbelt-faults";
/** Short waits so the test stays fast; the bounds (attempt count, then 503) are the production ones. */
const FAST: Partial<DynamoRetry> = { baseDelayMs: 1, maxDelayMs: 5, connectTimeoutMs: 500, requestTimeoutMs: 500 };
const MAX_ATTEMPTS = 4;

let dataDir: string;
let dynamo: TestDynamo;
let port: number;
let upstream: Loopback;
let api: TestApi;
let calls: CallModule;
let client: ReturnType<typeof createDynamoClient>;
let clockAhead = 0;

type Proxy = { url: string; seen: string[]; throttle: number; hold: boolean; close(): Promise<void> };

/**
 * Forwards to dynalite; while `throttle` > 0, answers instead as DynamoDB does when it throttles (HTTP 400,
 * the error's JSON shape); while `hold`, never answers (a stalled table).
 */
async function throttlingProxy(target: string): Promise<Proxy> {
  const state = { seen: [] as string[], throttle: 0, hold: false };
  const proxy = await startFaultProxy(target, (req, res) => {
    state.seen.push(String(req.headers["x-amz-target"] ?? "").replace(/^DynamoDB_\d+\./, ""));
    if (state.hold) return true;
    if (state.throttle <= 0) return false;
    state.throttle--;
    res.writeHead(400, { "content-type": "application/x-amz-json-1.0", "x-amzn-requestid": "THROTTLED" });
    res.end(
      JSON.stringify({
        __type: "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
        message:
          "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.",
      }),
    );
    return true;
  });
  return Object.assign(state, proxy);
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "toolbelt-faults-"));
  dynamo = await startDynalite({ table: TABLE, dataDir });
  port = Number(new URL(dynamo.endpoint).port);
  upstream = await startLoopback((_req, res, body) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ echoed: body ? JSON.parse(body) : null }));
  });
  // The gateway's own client: it outlives the dynalite it points at.
  client = createDynamoClient({ endpoint: dynamo.endpoint, retry: FAST });
  calls = createCallModule({ env: {}, misses: new DynamoMissStore(client, TABLE) });
  const echo = catalogTool("demo.echo", { kind: "http", method: "POST", url: `${upstream.url}/echo`, body: { args: "{{input}}" }, output: "json" });
  api = await startTestApi({
    input: testArtifactInput([...metaTools(), echo]),
    // Moved on by the test: a call's session check re-uses this process's copy for REUSE_MS.
    clock: () => Date.now() + clockAhead,
    dynamo,
    store: new DynamoSessionStore(client, TABLE),
    briefs: [],
    extraRoutes: [calls],
  });
});

afterAll(async () => {
  await api?.close();
  await calls?.close();
  client?.destroy();
  await upstream?.close();
  await dynamo?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const surfaceOf = async (id: string) => api.request(`/v1/sessions/${id}/surface`);
const pinned = async (id: string) =>
  ((await (await surfaceOf(id)).json()) as { surface: { pins: { tools: { name: string }[] } } }).surface.pins.tools.map((p) => p.name);
const errorCode = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;

describe("dynalite stopped mid-run", () => {
  it("keeps find and stateless calls answering, answers pins 503 UNAVAILABLE, and recovers with the pins written before", async () => {
    const opened = await api.request("/v1/sessions", { json: {} });
    expect(opened.status).toBe(201);
    const { session } = (await opened.json()) as { session: { id: string } };
    expect((await api.request("/v1/call", { json: { tool: "demo.echo", args: { n: 1 }, session: session.id } })).status).toBe(200);
    expect(await pinned(session.id)).toEqual(["demo.echo"]);

    await dynamo.close();

    expect((await api.request("/v1/find", { json: { query: "echo" } })).status).toBe(200);
    expect((await api.request("/v1/call", { json: { tool: "demo.echo", args: { n: 2 } } })).status).toBe(200);
    // A near-miss still resolves; only its record in the miss log is lost (logged, not an error).
    expect((await api.request("/v1/call", { json: { tool: "Demo-Echo", args: { n: 3 } } })).status).toBe(200);
    // Past the time a call's session check may re-use this process's copy of the session: it reads the table.
    clockAhead += REUSE_MS;
    for (const res of [
      await api.request("/v1/call", { json: { tool: "demo.echo", args: { n: 4 }, session: session.id } }),
      await surfaceOf(session.id),
      await api.request("/v1/sessions", { json: {} }),
    ]) {
      expect(res.status).toBe(503);
      expect(await errorCode(res)).toBe("UNAVAILABLE");
    }

    // Started again on its port and data folder (what `npm start` does with TOOLBELT_DATA_DIR).
    dynamo = await startDynalite({ table: TABLE, dataDir, port });
    expect(await pinned(session.id)).toEqual(["demo.echo"]);
    expect((await api.request("/v1/call", { json: { tool: "toolbelt.call", args: { tool: "demo.echo", args: {} }, session: session.id } })).status).toBe(200);
    expect((await api.request("/v1/sessions", { json: {} })).status).toBe(201);
  });
});

describe("DynamoDB throttling (dynalite cannot throttle: a proxy answers with DynamoDB's error)", () => {
  let proxy: Proxy;
  let throttled: TestApi;
  let proxied: ReturnType<typeof createDynamoClient>;

  beforeAll(async () => {
    proxy = await throttlingProxy(dynamo.endpoint);
    proxied = createDynamoClient({ endpoint: proxy.url, retry: FAST });
    throttled = await startTestApi({ dynamo, store: new DynamoSessionStore(proxied, TABLE), briefs: [] });
  });
  afterAll(async () => {
    await throttled?.close();
    proxied?.destroy();
    await proxy?.close();
  });

  it("retries a throttled write with backoff and answers when the table does", async () => {
    proxy.seen.length = 0;
    proxy.throttle = 2;
    expect((await throttled.request("/v1/sessions", { json: {} })).status).toBe(201);
    expect(proxy.seen).toEqual(["PutItem", "PutItem", "PutItem"]);
  });

  it("gives up on a table that holds requests unanswered after a bounded number of attempts, each cut at the request timeout (503)", async () => {
    proxy.seen.length = 0;
    proxy.hold = true;
    try {
      const res = await throttled.request("/v1/sessions", { json: {} });
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ error: { code: "UNAVAILABLE", message: "session store is unavailable; retry shortly" } });
      expect(proxy.seen).toEqual(Array(MAX_ATTEMPTS).fill("PutItem"));
    } finally {
      proxy.hold = false;
    }
  });

  it("gives up after a bounded number of attempts with 503 UNAVAILABLE the caller may retry", async () => {
    proxy.seen.length = 0;
    proxy.throttle = 1_000;
    const res = await throttled.request("/v1/sessions", { json: {} });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: { code: "UNAVAILABLE", message: "session store is throttling; retry shortly" } });
    expect(proxy.seen).toEqual(Array(MAX_ATTEMPTS).fill("PutItem"));
    proxy.throttle = 0;
    expect((await throttled.request("/v1/sessions", { json: {} })).status).toBe(201);
  });
});
