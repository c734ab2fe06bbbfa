// npm start's app (createLocalApp, the same function `npm start` serves) with the console mounted: calls
// through REST and MCP (a real MCP SDK client) land in the audit store and show in GET /v1/admin/audit;
// the page, the admin routes and /v1/health/live are served; an audit store that cannot be written
// neither fails nor holds a call, and the failure is logged with its cause.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../lambdas/config.js";
import { sha256Hex } from "../../../lambdas/core/auth.js";
import { memoryLogger } from "../../../lambdas/http/logger.js";
import { createLocalApp, type LocalApp } from "../../../lambdas/local/local-app.js";
import { freePort } from "../../../lambdas/local/ports.js";
import { createDynamoClient } from "../../../lambdas/stores/dynamodb.js";
import type { PolicyFile } from "../../../registry/contract/policy.js";
import { memoryTestArtifact, testArtifactInput } from "../../helpers/artifact.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";
import { serveApp } from "../../helpers/server.js";
import { catalogTool, metaTools, startLoopback, type Loopback } from "../call/helpers.js";
import { connect } from "../mcp/fixture.js";

const ADMIN_KEY = "console-admin-key-0123";
const AGENT_KEY = "console-agent-key-4567";
const policy: PolicyFile = {
  version: 1,
  principals: [
    { id: "ops", keys: [sha256Hex(ADMIN_KEY)], allow: ["*"], deny: [], admin: true },
    { id: "agent", keys: [sha256Hex(AGENT_KEY)], allow: ["notes.*"], deny: [], admin: false },
  ],
};

type Gateway = { url: string; local: LocalApp; logger: ReturnType<typeof memoryLogger>; close(): Promise<void> };

let dynamo: TestDynamo;
let upstream: Loopback;

async function startGateway(client = dynamo.client): Promise<Gateway> {
  const port = await freePort();
  const logger = memoryLogger();
  const artifact = await memoryTestArtifact(
    testArtifactInput([...metaTools(), catalogTool("notes.create", { kind: "http", method: "POST", url: `${upstream.url}/create`, output: "json" })]),
  );
  const local = createLocalApp({
    config: loadConfig({ TOOLBELT_TABLE: dynamo.table }),
    env: {},
    client,
    artifact,
    policy,
    briefs: [],
    logger,
    models: {},
    defaultFileRoots: [],
    internalPaths: [],
    port,
  });
  const server = await serveApp(local.app, port);
  return {
    url: server.url,
    local,
    logger,
    async close() {
      await server.close();
      await local.close();
    },
  };
}

const get = (g: Gateway, path: string, key?: string) => fetch(g.url + path, key ? { headers: { authorization: `Bearer ${key}` } } : {});
const callRest = (g: Gateway, tool: string) =>
  fetch(`${g.url}/v1/call`, {
    method: "POST",
    headers: { authorization: `Bearer ${AGENT_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ tool, args: { text: "hi" } }),
  });

beforeAll(async () => {
  dynamo = await startDynalite();
  upstream = await startLoopback((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"id":"n1"}');
  });
});

afterAll(async () => {
  await upstream?.close();
  await dynamo?.close();
});

describe("npm start's app with the console", () => {
  let g: Gateway;
  beforeAll(async () => {
    g = await startGateway();
  });
  afterAll(async () => {
    await g?.close();
  });

  it("serves the page, /v1/health/live and the admin routes (401 without a key, 403 for a non-admin one)", async () => {
    const page = await get(g, "/console");
    expect([page.status, page.headers.get("content-security-policy")]).toEqual([200, expect.stringContaining("default-src 'none'")]);
    expect(await (await get(g, "/v1/health/live")).json()).toEqual({ status: "ok" });
    expect((await get(g, "/v1/admin/catalog")).status).toBe(401);
    expect((await get(g, "/v1/admin/catalog", AGENT_KEY)).status).toBe(403);
    expect((await get(g, "/v1/admin/catalog", ADMIN_KEY)).status).toBe(200);
    const health = await (await get(g, "/v1/health", ADMIN_KEY)).json();
    expect(health).toMatchObject({
      status: "ok",
      checks: { table: { ok: true }, upstreams: expect.arrayContaining([{ family: "notes", ok: true, latency_ms: expect.any(Number) }]) },
    });
  });

  it("stores the audit record of a call at every door: REST and MCP (a direct tool and call_tool)", async () => {
    expect((await callRest(g, "notes.create")).status).toBe(200);
    const mcp = await connect(`${g.url}/mcp`, AGENT_KEY, "2026-07-28");
    try {
      expect((await mcp.callTool({ name: "notes_create", arguments: { text: "hi" } })).isError).toBeFalsy();
      expect((await mcp.callTool({ name: "call_tool", arguments: { tool: "notes.create", args: { text: "hi" } } })).isError).toBeFalsy();
    } finally {
      await mcp.close();
    }
    await g.local.close();
    const body = await (await get(g, "/v1/admin/audit?principal=agent&tool=notes.create", ADMIN_KEY)).json();
    expect(body.records.map((r: { via: string }) => r.via).sort()).toEqual(["mcp", "mcp", "rest"]);
    // Argument values are not stored (the tool does not set audit_args).
    const raw = await (await get(g, "/v1/admin/audit?limit=500", ADMIN_KEY)).text();
    expect(raw).not.toContain('"hi"');
  });
});

describe("an audit store that cannot be written", () => {
  it("neither fails nor holds the call, and logs the failure with its cause", async () => {
    // A client pointed at a port nothing listens on, with no retries: every write fails at once.
    const lost = createDynamoClient({ endpoint: "http://127.0.0.1:9", retry: { maxAttempts: 1 } });
    const g = await startGateway(lost);
    try {
      const res = await callRest(g, "notes.create");
      expect([res.status, (await res.json()).result]).toEqual([200, { id: "n1" }]);
      await g.local.close();
      const failed = g.logger.entries.find((r) => r.message === "could not store an audit record");
      expect(failed).toMatchObject({ level: "error", fields: { tool: "notes.create", error: expect.objectContaining({ name: expect.any(String) }) } });
    } finally {
      lost.destroy();
      await g.close();
    }
  });
});
