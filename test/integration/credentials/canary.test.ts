// The per-user credential canary (issue 26): principals alice and bob store different upstream tokens
// for one http family and one mcp family; loopback upstreams record the Authorization header of every
// request and echo it back (in answers and in errors). Each principal's token reaches only its own
// calls, appears in no response, log line (memoryLogger) or the other's call; carol, who stored none,
// gets 403 naming the family; the table holds only ciphertext; delete and the admin route work.
// The app is wired by wiring.ts's wire() as npm start and the Lambdas are, on dynalite, with the local key file.
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { PutCommand, ScanCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import type { PolicyFile } from "../../../registry/contract/policy.js";
import { sha256Hex } from "../../../lambdas/core/auth.js";
import { loadConfig } from "../../../lambdas/config.js";
import { wire } from "../../../lambdas/handlers/wiring.js";
import { createApp } from "../../../lambdas/http/app.js";
import { shareGateway } from "../../../lambdas/http/call-gateway.js";
import { memoryLogger } from "../../../lambdas/http/logger.js";
import { createCallModule } from "../../../lambdas/http/routes/call.js";
import { createMcpModule } from "../../../lambdas/http/routes/mcp.js";
import { createDynamoClient } from "../../../lambdas/stores/dynamodb.js";
import { buildTestArtifact, testArtifactInput } from "../../helpers/artifact.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";
import { serveApp, type TestServer } from "../../helpers/server.js";
import { catalogTool, startLoopback, type Loopback } from "../call/helpers.js";

const TOKENS = { alice: "canary-alice-upstream-3f9c1a7e52", bob: "canary-bob-upstream-8d20b6c4f1" } as const;
const key = (id: string) => `canary-inbound-key-${id}-5b7e`;
const who = (id: string, admin = false) => ({ id, keys: [sha256Hex(key(id))], allow: ["*"], deny: [], admin });
const policy: PolicyFile = { version: 1, principals: [who("alice"), who("bob"), who("carol"), who("ops", true)] };

/** What the upstreams saw: whose call (from the arguments) and the Authorization header it carried. */
const seen: { via: "http" | "mcp"; who: unknown; authorization: string | undefined }[] = [];
let httpUp: Loopback;
let mcpUp: { url: string; close(): Promise<void> };
let dynamo: TestDynamo;
let server: TestServer;
let closeModules: () => Promise<void>;
let keyFile: string;
const logger = memoryLogger();
const bodies: string[] = [];

/** An MCP upstream (the official SDK, stateless JSON) whose `whoami` echoes the Authorization header it got. */
async function startMcpUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    const mcp = new McpServer({ name: "canary-upstream", version: "1" });
    mcp.tool("whoami", "Echo the caller", { who: z.string() }, async (args) => {
      seen.push({ via: "mcp", who: args.who, authorization: req.headers.authorization });
      return { content: [{ type: "text", text: `you sent ${req.headers.authorization}` }] };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => void transport.close());
    void mcp.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    close: () => new Promise<void>((r) => (http.closeAllConnections(), http.close(() => r()))),
  };
}

async function send(as: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown>; text: string }> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key(as)}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  bodies.push(text);
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {}, text };
}
const call = (as: string, tool: string, args: Record<string, unknown> = { who: as }) => send(as, "POST", "/v1/call", { tool, args });

beforeAll(async () => {
  dynamo = await startDynalite();
  httpUp = await startLoopback((req, res, body) => {
    const args = JSON.parse(body || "{}") as { who?: string; fail?: boolean };
    seen.push({ via: "http", who: args.who, authorization: req.headers.authorization });
    res.writeHead(args.fail ? 500 : 200, { "content-type": "application/json" });
    res.end(JSON.stringify({ echoed: `you sent ${req.headers.authorization}` }));
  });
  mcpUp = await startMcpUpstream();

  const work = await mkdtemp(join(tmpdir(), "toolbelt-credentials-"));
  keyFile = join(work, ".toolbelt", "credentials-key");
  const input = testArtifactInput([
    catalogTool("crm.lookup", { kind: "http", method: "POST", url: `${httpUp.url}/lookup`, body: "{{input}}", output: "json" }),
    catalogTool("wiki.whoami", { kind: "mcp", url: mcpUp.url, tool: "whoami" }),
    catalogTool("plain.echo", { kind: "http", method: "POST", url: `${httpUp.url}/plain`, body: "{{input}}", output: "json" }),
  ]);
  for (const f of input.families) {
    if (f.name === "crm") f.credentials = { per_principal: { header: "Authorization", scheme: "Bearer" } };
    if (f.name === "wiki") f.credentials = { per_principal: { header: "Authorization", scheme: "Bearer" } };
  }
  const artifactDir = join(work, "artifact");
  const { artifact } = await buildTestArtifact(artifactDir, input);
  const env = { TOOLBELT_ARTIFACT_DIR: artifactDir, TOOLBELT_TABLE: dynamo.table, DYNAMODB_ENDPOINT: dynamo.endpoint, TOOLBELT_CREDENTIALS_KEY_FILE: keyFile };
  const { deps, call: options } = wire({
    config: loadConfig(env),
    env,
    client: createDynamoClient({ endpoint: dynamo.endpoint }),
    artifact,
    policy,
    briefs: [],
    logger,
    models: {},
    defaultFileRoots: [],
    internalPaths: [artifactDir],
  });
  const shared = shareGateway(options);
  const rest = createCallModule(shared);
  const mcp = createMcpModule(shared);
  server = await serveApp(createApp(deps, { extraRoutes: [rest, mcp] }));
  closeModules = async () => {
    await rest.close();
    await mcp.close();
  };
});

afterAll(async () => {
  await server?.close();
  await closeModules?.();
  await httpUp?.close();
  await mcpUp?.close();
  await dynamo?.close();
});

describe("per-principal upstream credentials", () => {
  it("answers 403 naming the family and how to connect it (never 401) when the caller stored no token, and sends nothing upstream", async () => {
    for (const tool of ["crm.lookup", "wiki.whoami"]) {
      const family = tool.split(".")[0]!;
      const r = await call("carol", tool);
      expect(r.status).toBe(403);
      expect(r.json.error).toMatchObject({ code: "FORBIDDEN", details: { family, connect: `PUT /v1/credentials/${family}` } });
      expect((r.json.error as { message: string }).message).toContain(`PUT /v1/credentials/${family}`);
    }
    expect(seen).toEqual([]);
  });

  it("connects each principal's own token, lists families without the token, and seals it in the table (ciphertext only)", async () => {
    for (const [as, token] of Object.entries(TOKENS)) {
      for (const family of ["crm", "wiki"]) {
        const r = await send(as, "PUT", `/v1/credentials/${family}`, { token });
        expect(r.status, r.text).toBe(200);
        expect(r.text).not.toContain(token);
      }
    }
    const listed = await send("alice", "GET", "/v1/credentials");
    expect(listed.status).toBe(200);
    expect(listed.json).toMatchObject({ principal: "alice", families: ["crm", "wiki"] });
    expect((listed.json.connected as { family: string }[]).map((c) => c.family)).toEqual(["crm", "wiki"]);
    // The key file: 32 random bytes, readable by its owner only.
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);

    const items = (await createDynamoClient({ endpoint: dynamo.endpoint }).send(new ScanCommand({ TableName: dynamo.table }))).Items ?? [];
    const credentials = items.filter((i) => String(i.pk).startsWith("CREDENTIAL#"));
    expect(credentials).toHaveLength(4);
    for (const item of items) {
      for (const value of Object.values(item)) {
        const raw = value instanceof Uint8Array ? Buffer.from(value) : Buffer.from(JSON.stringify(value));
        for (const token of Object.values(TOKENS)) {
          expect(raw.includes(token)).toBe(false);
          expect(raw.includes(Buffer.from(token).toString("base64"))).toBe(false);
        }
      }
    }
  });

  it("sends each principal's token only on its own calls, over REST and MCP, interleaved, and redacts the echo", async () => {
    seen.length = 0;
    const runs = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? "alice" : "bob")).flatMap((as) => [call(as, "crm.lookup"), call(as, "wiki.whoami")]),
    );
    for (const r of runs) {
      expect(r.status, r.text).toBe(200);
      expect(r.text).toContain("[redacted]");
    }
    expect(seen).toHaveLength(12);
    for (const s of seen) expect(s.authorization, `${s.via} call of ${String(s.who)}`).toBe(`Bearer ${TOKENS[s.who as keyof typeof TOKENS]}`);
    // A family without the declaration gets no token, and the caller's own key is never forwarded.
    seen.length = 0;
    expect((await call("alice", "plain.echo")).status).toBe(200);
    expect(seen).toEqual([{ via: "http", who: "alice", authorization: undefined }]);
  });

  it("redacts the token from an upstream's error and from the MCP door's answer", async () => {
    const failed = await call("alice", "crm.lookup", { who: "alice", fail: true });
    expect(failed.status).toBe(502);
    expect(failed.text).toContain("[redacted]");

    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "canary", version: "1" } },
    };
    const mcpPost = (message: unknown) =>
      fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key("bob")}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-11-25",
        },
        body: JSON.stringify(message),
      });
    expect((await mcpPost(init)).status).toBe(200);
    seen.length = 0;
    const res = await mcpPost({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "wiki.whoami", arguments: { who: "bob" } } });
    const text = await res.text();
    bodies.push(text);
    expect(text).toContain("[redacted]");
    expect(seen).toEqual([{ via: "mcp", who: "bob", authorization: `Bearer ${TOKENS.bob}` }]);
  });

  it("opens a token only for the principal it was sealed for: an item copied onto carol's key does not open", async () => {
    const client = createDynamoClient({ endpoint: dynamo.endpoint });
    const items = (await client.send(new ScanCommand({ TableName: dynamo.table }))).Items ?? [];
    const alices = items.find((i) => i.pk === "CREDENTIAL#alice" && i.sk === "FAMILY#crm")!;
    await client.send(new PutCommand({ TableName: dynamo.table, Item: { ...alices, pk: "CREDENTIAL#carol" } }));
    seen.length = 0;
    const r = await call("carol", "crm.lookup");
    expect(r.status).toBe(403);
    expect(r.json.error).toMatchObject({ code: "FORBIDDEN", details: { family: "crm" } });
    expect(seen).toEqual([]);
    expect((await send("carol", "DELETE", "/v1/credentials/crm")).json).toEqual({ family: "crm", removed: true });
  });

  it("lets a principal remove only its own token; the admin route removes anyone's and is refused to others", async () => {
    // bob's DELETE removes bob's token, never alice's.
    expect((await send("bob", "DELETE", "/v1/credentials/crm")).json).toEqual({ family: "crm", removed: true });
    expect((await call("bob", "crm.lookup")).status).toBe(403);
    expect((await call("alice", "crm.lookup")).status).toBe(200);
    // No route reads another principal's token or list: bob's list is bob's.
    const bobs = await send("bob", "GET", "/v1/credentials");
    expect((bobs.json.connected as { family: string }[]).map((c) => c.family)).toEqual(["wiki"]);

    const refused = await send("bob", "DELETE", "/v1/admin/credentials/alice/wiki");
    expect(refused.status).toBe(403);
    expect((await call("alice", "wiki.whoami")).status).toBe(200);

    expect((await send("ops", "DELETE", "/v1/admin/credentials/alice/wiki")).json).toEqual({ principal: "alice", family: "wiki", removed: true });
    const gone = await call("alice", "wiki.whoami");
    expect(gone.status).toBe(403);
    expect(gone.json.error).toMatchObject({ code: "FORBIDDEN", details: { family: "wiki", connect: "PUT /v1/credentials/wiki" } });
  });

  it("refuses bad bodies and undeclared families without echoing what was sent", async () => {
    const secretish = "canary-refused-body-71c0e2";
    expect((await send("alice", "PUT", "/v1/credentials/plain", { token: secretish })).status).toBe(404);
    const bad = await fetch(`${server.url}/v1/credentials/crm`, {
      method: "PUT",
      headers: { authorization: `Bearer ${key("alice")}`, "content-type": "application/json" },
      body: `{"token": ${secretish}}`,
    });
    const badText = await bad.text();
    bodies.push(badText);
    expect(bad.status).toBe(400);
    expect(badText).not.toContain(secretish);
    expect((await send("alice", "PUT", "/v1/credentials/crm", { token: `${secretish}\nX-Injected: 1` })).status).toBe(400);
    expect(JSON.stringify(logger.entries)).not.toContain(secretish);
    // Regression: a caller-sized name was the store's key and its 500; no family or principal is that long.
    expect((await send("alice", "DELETE", `/v1/credentials/${"f".repeat(1100)}`)).json).toMatchObject({ removed: false });
    expect((await send("ops", "DELETE", `/v1/admin/credentials/${"p".repeat(2100)}/crm`)).json).toMatchObject({ removed: false });
  });

  it("leaked no token into any answer or log line", () => {
    const logs = JSON.stringify(logger.entries);
    expect(logger.entries.some((e) => e.message === "call")).toBe(true);
    for (const token of Object.values(TOKENS)) {
      expect(logs).not.toContain(token);
      for (const body of bodies) expect(body).not.toContain(token);
    }
    for (const id of ["alice", "bob", "carol", "ops"]) expect(seen.map((s) => s.authorization)).not.toContain(`Bearer ${key(id)}`);
  });
});
