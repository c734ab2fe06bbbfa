// The wire contract holds: every answer of every route (success and error), from a real listening
// server over real dynalite and a real loopback upstream, matches the schema that the served OpenAPI
// document gives for its path, method and status (ajv, 2020-12: objects closed to unlisted fields),
// and parses with the contract's zod schema. A route whose answer drifts from its documented
// schema, or answers with an undocumented status, fails here.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import addFormats from "ajv-formats";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolicyFile } from "../../../registry/contract/policy.js";
import { ApprovalView } from "../../../lambdas/contract/approvals.js";
import { CallResponse } from "../../../lambdas/contract/call.js";
import { AdminDisconnectResponse, ConnectResponse, CredentialsList, DisconnectResponse } from "../../../lambdas/contract/credentials.js";
import { ErrorBody } from "../../../lambdas/contract/errors.js";
import { FindResponse } from "../../../lambdas/contract/find.js";
import { HealthResponse, LiveResponse } from "../../../lambdas/contract/health.js";
import { AdminSessionResponse, AuditListResponse, AuditStatsResponse, CatalogResponse } from "../../../lambdas/contract/admin.js";
import { createAdminModule } from "../../../lambdas/http/routes/admin.js";
import { liveRoutes } from "../../../lambdas/http/routes/live.js";
import { DynamoAuditReader, dynamoAuditSink } from "../../../lambdas/stores/audit.js";
import { metaToolDefinition } from "../../../lambdas/contract/meta-tools.js";
import { CORRELATION_ID_RE } from "../../../lambdas/contract/headers.js";
import { MissesResponse } from "../../../lambdas/contract/misses.js";
import { ExportResponse, SearchResponse } from "../../../lambdas/contract/model-apis.js";
import { ProtectedResourceMetadata } from "../../../lambdas/contract/oauth-metadata.js";
import { SessionResponse } from "../../../lambdas/contract/sessions.js";
import { sha256Hex } from "../../../lambdas/core/auth.js";
import { ToolbeltError } from "../../../lambdas/core/errors.js";
import type { SessionStore } from "../../../lambdas/core/ports.js";
import type * as z from "../../../lambdas/core/zod-mini.js";
import { createCallModule, type CallModule } from "../../../lambdas/http/routes/call.js";
import { DynamoLimitStore } from "../../../lambdas/stores/limits.js";
import { DynamoApprovalStore } from "../../../lambdas/stores/approvals.js";
import { DynamoMissStore } from "../../../lambdas/stores/misses.js";
import { startTestApi, TEST_KEYS, type TestApi } from "../../helpers/api.js";
import { testArtifactInput } from "../../helpers/artifact.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";
import { catalogTool, startLoopback, type Loopback } from "../call/helpers.js";

type Schema = Record<string, unknown>;
type Operation = { responses: Record<string, { content?: Record<string, { schema: Schema }> }> };
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

/** The zod schema of each documented success answer (errors are all ErrorBody). */
const SUCCESS: Record<string, z.ZodMiniType> = {
  "GET /v1/health": HealthResponse,
  "GET /v1/health/live": LiveResponse,
  "GET /v1/admin/catalog": CatalogResponse,
  "POST /v1/admin/find": FindResponse,
  "GET /v1/admin/sessions/{id}": AdminSessionResponse,
  "GET /v1/admin/audit": AuditListResponse,
  "GET /v1/admin/audit/stats": AuditStatsResponse,
  "POST /v1/find": FindResponse,
  "POST /v1/sessions": SessionResponse,
  "GET /v1/sessions/{id}/surface": SessionResponse,
  "POST /v1/call": CallResponse,
  "GET /v1/approvals/{id}": ApprovalView,
  "POST /v1/approvals/{id}": ApprovalView,
  "POST /v1/approvals/{id}/call": CallResponse,
  "GET /v1/admin/misses": MissesResponse,
  "GET /v1/credentials": CredentialsList,
  "PUT /v1/credentials/{family}": ConnectResponse,
  "DELETE /v1/credentials/{family}": DisconnectResponse,
  "DELETE /v1/admin/credentials/{principal}/{family}": AdminDisconnectResponse,
  "GET /.well-known/oauth-protected-resource": ProtectedResourceMetadata,
  "GET /.well-known/oauth-protected-resource/{proxy+}": ProtectedResourceMetadata,
  "GET /v1/tools/export": ExportResponse,
  "POST /v1/tools/search": SearchResponse,
};

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

/**
 * What is wrong with an answer, measured against the document: an undocumented operation or status,
 * a body that fails the documented schema or the contract's zod schema. Empty when it holds.
 */
function contractProblems(doc: Doc, method: string, path: string, status: number, body: unknown): string[] {
  const where = `${method} ${path} ${status}`;
  const op = doc.paths[path]?.[method.toLowerCase()];
  // A known path with another method (405), or no route at all (404): the one error body.
  const documented = op
    ? op.responses[String(status)]
    : status === 404 || status === 405
      ? { content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } }
      : undefined;
  if (!documented) return [`${where}: ${op ? "status not documented" : "operation not documented"}`];
  const problems: string[] = [];
  let schema = documented.content?.["application/json"]?.schema;
  // An error body under a 2xx too: a call held for approval answers 202 with it.
  const errorShaped = schema?.$ref === "#/components/schemas/Error";
  if (errorShaped) schema = doc.components.schemas.Error;
  if (schema) {
    const validate = ajv.compile(schema);
    if (!validate(body))
      problems.push(...(validate.errors ?? []).map((e) => `${where}: document: ${e.instancePath || "(body)"} ${e.message} ${JSON.stringify(e.params)}`));
  }
  const zodSchema = status >= 400 || errorShaped ? ErrorBody : op ? SUCCESS[`${method} ${path}`] : undefined;
  if (zodSchema) {
    const parsed = zodSchema.safeParse(body);
    if (!parsed.success) problems.push(...parsed.error.issues.map((i) => `${where}: contract: ${i.path.join(".")} ${i.message}`));
  } else if (schema) problems.push(`${where}: no contract schema for a documented answer`);
  return problems;
}

const ISSUER = "https://issuer.example";
/** An identity (so the resource metadata is served; nothing here sends a token) and alice's one call a day of metered.ping. */
const policy = (): PolicyFile => ({
  version: 1,
  identity: { issuer: ISSUER, subject_claim: "sub", scopes: [] },
  principals: [
    { id: "alice", keys: [sha256Hex(TEST_KEYS.alice)], allow: ["*"], deny: ["admin.*"], admin: false, tool_limits: { "metered.ping": { daily_quota: 1 } } },
    { id: "carol", keys: [sha256Hex(TEST_KEYS.carol)], allow: ["*"], deny: [], admin: true, approver: true },
  ],
  approvals: [{ where: { destructive: true } }],
});

/** Session ids the store fails on: a plain error (500) and an unavailable table (503). */
const BROKEN = "broken-broken-broken";
const BUSY = "busy-busy-busy-busy-";

// Near the real time: the miss log keeps events for 30 days of the wall clock. The limiter reads this clock too,
// so alice's daily quota cannot reset between her two calls.
let now = Date.now();
let upstream: Loopback;
let dynamo: TestDynamo;
let approvalStore: DynamoApprovalStore;
let calls: CallModule;
let auditSink: ReturnType<typeof dynamoAuditSink>;
let api: TestApi;
let doc: Doc;
/** What crm.lookup's upstream saw in Authorization (the caller's own token, per_principal). */
const crmAuthorizations: (string | undefined)[] = [];
/** Every answer seen: operation key → statuses. */
const seen = new Map<string, Set<number>>();
const problems: string[] = [];

beforeAll(async () => {
  upstream = await startLoopback((req, res) => {
    if (req.url === "/hang") return; // never answers: only the tool's timeout ends the call
    if (req.url === "/crm") crmAuthorizations.push(req.headers.authorization);
    if (req.url === "/limited") {
      res.writeHead(429, { "content-type": "application/json", "retry-after": "30" });
      res.end('{"error":"slow down"}');
      return;
    }
    const failed = req.url === "/fail";
    res.writeHead(failed ? 500 : 200, { "content-type": "application/json" });
    res.end(failed ? '{"oops":true}' : '{"id":"n1"}');
  });
  dynamo = await startDynalite();
  const real = dynamo.store;
  const store: SessionStore = {
    create: (s) => real.create(s),
    putPin: (id, pin, at) => real.putPin(id, pin, at),
    dropPin: (id, pin) => real.dropPin(id, pin),
    renew: (id, at) => real.renew(id, at),
    get: (id) => {
      if (id === BROKEN) throw new Error("disk on fire");
      if (id === BUSY) throw new ToolbeltError("UNAVAILABLE", "the session store is throttled; retry");
      return real.get(id);
    },
  };
  const http = (path: string) => ({ kind: "http" as const, method: "POST", url: `${upstream.url}${path}`, output: "json" as const });
  const meta = (name: "find" | "call" | "reshape") => {
    const { description, input_schema } = metaToolDefinition(`toolbelt.${name}`);
    return catalogTool(`toolbelt.${name}`, { kind: "builtin", handler: name }, { description, input_schema });
  };
  const thePolicy = policy();
  approvalStore = new DynamoApprovalStore(dynamo.client, dynamo.table);
  auditSink = dynamoAuditSink(dynamo.client, dynamo.table, 7, () => undefined);
  calls = createCallModule({
    env: {},
    auditSink,
    misses: new DynamoMissStore(dynamo.client, dynamo.table),
    credentials: {
      client: dynamo.client,
      table: dynamo.table,
      keys: { keyFile: join(await mkdtemp(join(tmpdir(), "toolbelt-contract-")), "credentials-key") },
    },
    limits: { store: new DynamoLimitStore(dynamo.client, dynamo.table), policy: thePolicy },
    approvals: { store: approvalStore },
  });
  const input = testArtifactInput([
    meta("find"),
    meta("call"),
    meta("reshape"),
    catalogTool("notes.create", http("/create"), { description: "Create a note with a title." }),
    catalogTool("notes.fail", http("/fail"), { description: "A note tool whose upstream fails." }),
    catalogTool("notes.hang", http("/hang"), { description: "A note tool whose upstream never answers.", timeout_ms: 300 }),
    catalogTool("imported.lookup", { kind: "builtin", handler: "unavailable" }, { description: "Imported without a backend." }),
    catalogTool("admin.reset", http("/reset"), { description: "Reset the workspace." }),
    catalogTool("quota.check", http("/limited"), { description: "A tool whose upstream is rate limiting." }),
    catalogTool("metered.ping", http("/create"), { description: "A tool alice may call once a day." }),
    catalogTool("crm.lookup", http("/crm"), { description: "Look a customer up with your own CRM token." }),
    catalogTool("vault.wipe", http("/create"), { description: "Wipe the vault (held for approval).", governance: { destructive: true } }),
  ]);
  for (const f of input.families) if (f.name === "crm") f.credentials = { per_principal: { header: "Authorization", scheme: "Bearer" } };
  api = await startTestApi({
    input,
    policy: thePolicy,
    briefs: [{ version: 1, name: "notes", description: "Take notes", tools: ["notes.*"] }],
    dynamo,
    store,
    clock: () => now,
    config: { sessionTtlSecs: 600, http: { maxBodyBytes: 8 * 1024, maxUrlChars: 2048 } },
    extraRoutes: [calls, liveRoutes, createAdminModule({ env: {}, audit: new DynamoAuditReader(dynamo.client, dynamo.table) })],
  });
  doc = (await (await api.request("/v1/openapi.json", { as: null })).json()) as Doc;
});

afterAll(async () => {
  await api?.close();
  await calls?.close();
  await dynamo?.close();
  await upstream?.close();
});

type Ask = { as?: keyof typeof TEST_KEYS | null; json?: unknown; body?: string; headers?: Record<string, string>; method?: string };

/** Send one request, hold its answer to the contract, and return the answer's status and body. */
// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field in the assertions below
async function answer(template: string, path: string, ask: Ask = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const method = ask.method ?? (ask.json !== undefined || ask.body !== undefined ? "POST" : "GET");
  const init: RequestInit & { as?: keyof typeof TEST_KEYS | null; json?: unknown } = { method, as: ask.as === undefined ? "alice" : ask.as };
  if (ask.json !== undefined) init.json = ask.json;
  if (ask.body !== undefined) init.body = ask.body;
  if (ask.headers) init.headers = ask.headers;
  const res = await api.request(path, init);
  const body: unknown = res.headers.get("content-type")?.includes("json") ? await res.json() : await res.text();
  problems.push(...contractProblems(doc, method, template, res.status, body));
  const key = `${method} ${template}`;
  seen.set(key, (seen.get(key) ?? new Set()).add(res.status));
  return { status: res.status, body, headers: res.headers };
}

describe("every route's answers match their documented schemas", () => {
  it("the public routes", async () => {
    expect((await answer("/v1/health", "/v1/health", { as: null })).status).toBe(200);
    expect((await answer("/v1/openapi.json", "/v1/openapi.json", { as: null })).status).toBe(200);
    expect((await answer("/v1/openapi.json", `/v1/openapi.json?${"x".repeat(3000)}`, { as: null })).status).toBe(414);
    expect((await answer("/v1/health", `/v1/health?${"x".repeat(3000)}`, { as: null })).status).toBe(414);
    const metadata = "/.well-known/oauth-protected-resource";
    expect((await answer(metadata, metadata, { as: null })).body).toMatchObject({ resource: api.url, authorization_servers: [ISSUER] });
    expect((await answer(metadata, `${metadata}?${"x".repeat(3000)}`, { as: null })).status).toBe(414);
    const below = `${metadata}/{proxy+}`;
    expect((await answer(below, `${metadata}/mcp`, { as: null })).body).toMatchObject({ resource: `${api.url}/mcp` });
    expect((await answer(below, `${metadata}/v1`, { as: null })).status).toBe(404);
    expect(problems).toEqual([]);
  });

  it("POST /v1/sessions, GET its surface, POST /v1/find within it", async () => {
    const opened = await answer("/v1/sessions", "/v1/sessions", { json: {} });
    expect(opened.status).toBe(201);
    const withBrief = await answer("/v1/sessions", "/v1/sessions", { json: { brief: "notes" } });
    expect(withBrief.body.session.declared).toEqual(["notes.create", "notes.fail", "notes.hang"]);
    const id = opened.body.session.id as string;
    expect((await answer("/v1/sessions", "/v1/sessions", { json: { brief: "nope" } })).status).toBe(404);
    expect((await answer("/v1/sessions", "/v1/sessions", { json: { colour: "red" } })).status).toBe(400);
    expect((await answer("/v1/sessions", "/v1/sessions", { json: {}, as: null })).status).toBe(401);
    expect((await answer("/v1/sessions", "/v1/sessions", { body: "brief=notes", headers: { "content-type": "text/plain" } })).status).toBe(415);

    expect((await answer("/v1/sessions/{id}/surface", `/v1/sessions/${id}/surface`)).status).toBe(200);
    expect((await answer("/v1/sessions/{id}/surface", `/v1/sessions/${id}/surface`, { as: "carol" })).status).toBe(404);
    expect((await answer("/v1/sessions/{id}/surface", "/v1/sessions/not-an-id/surface")).status).toBe(404);
    expect((await answer("/v1/sessions/{id}/surface", `/v1/sessions/${BROKEN}/surface`)).status).toBe(500);
    expect((await answer("/v1/sessions/{id}/surface", `/v1/sessions/${BUSY}/surface`)).status).toBe(503);
    expect((await answer("/v1/sessions/{id}/surface", `/v1/sessions/${id}/surface`, { as: null })).status).toBe(401);

    expect((await answer("/v1/find", "/v1/find", { json: { query: "create a note" } })).status).toBe(200);
    const inSession = await answer("/v1/find", "/v1/find", { json: { query: "create a note", session: withBrief.body.session.id } });
    expect(inSession.body.tools[0]).toMatchObject({ name: "notes.create", on_belt: true });
    expect((await answer("/v1/find", "/v1/find", { json: { query: "x".repeat(1001) } })).status).toBe(400);
    expect((await answer("/v1/find", "/v1/find", { body: "{", headers: { "content-type": "application/json" } })).status).toBe(400);
    expect((await answer("/v1/find", "/v1/find", { json: { query: "notes" }, as: null })).status).toBe(401);
    expect((await answer("/v1/find", "/v1/find", { json: { query: "notes", session: "x".repeat(20) } })).status).toBe(404);
    expect((await answer("/v1/find", "/v1/find", { json: { query: "notes", session: BUSY } })).status).toBe(503);
    expect((await answer("/v1/find", "/v1/find", { json: { query: "notes", session: BROKEN } })).status).toBe(500);
    expect((await answer("/v1/find", "/v1/find", { json: { query: "y".repeat(9000) } })).status).toBe(413);
    expect((await answer("/v1/find", `/v1/find?${"q".repeat(3000)}`, { json: { query: "notes" } })).status).toBe(414);
    expect((await answer("/v1/find", "/v1/find", { body: "query=notes", headers: { "content-type": "application/x-www-form-urlencoded" } })).status).toBe(415);
    expect(problems).toEqual([]);
  });

  it("POST /v1/call: results, resolutions and every kind of failure", async () => {
    const session = (await answer("/v1/sessions", "/v1/sessions", { json: {} })).body.session.id as string;
    const call = (json: unknown, as: Ask["as"] = "alice") => answer("/v1/call", "/v1/call", { json, as });
    expect((await call({ tool: "toolbelt.reshape", args: { data: { a: 1 }, mapping: { b: "a" } } })).body).toEqual({
      tool: "toolbelt.reshape",
      result: { b: 1 },
    });
    expect((await call({ tool: "notes.create", args: {}, session })).status).toBe(200);
    expect((await call({ tool: "Notes.Create" })).body).toMatchObject({ tool: "notes.create", resolved_from: "Notes.Create", resolution: "case" });
    expect((await call({ tool: "t".repeat(257) })).status).toBe(400);
    expect((await call({ tool: "notes.create", colour: "red" })).status).toBe(400);
    expect((await call({ tool: "notes.create" }, null)).status).toBe(401);
    expect((await call({ tool: "admin.reset" })).status).toBe(403);
    expect((await call({ tool: "nothing.here" })).status).toBe(404);
    expect((await call({ tool: "notes.create", session: "z".repeat(20) })).status).toBe(404);
    expect((await call({ tool: "toolbelt.reshape", args: { data: 1 } })).status).toBe(422);
    expect((await call({ tool: "imported.lookup" })).status).toBe(501);
    expect((await call({ tool: "notes.fail" })).status).toBe(502);
    const limited = await call({ tool: "quota.check" });
    expect([limited.status, limited.body.error.code, limited.body.error.details.retry_after_secs]).toEqual([429, "UPSTREAM_RATE_LIMITED", 30]);
    expect((await call({ tool: "notes.hang" })).status).toBe(504);
    // The gateway's own limit: the first call counts (RateLimit headers), the second is refused with Retry-After.
    const metered = await call({ tool: "metered.ping" });
    expect([metered.status, metered.headers.get("ratelimit-policy")]).toEqual([200, '"tool-daily-quota";q=1;w=86400']);
    expect(metered.headers.get("ratelimit")).toMatch(/^"tool-daily-quota";r=0;t=\d+$/);
    const refused = await call({ tool: "metered.ping" });
    expect([refused.status, refused.body.error.code, refused.body.error.details.limit]).toEqual([429, "TOO_MANY_REQUESTS", "daily_quota"]);
    expect(refused.headers.get("retry-after")).toBe(String(refused.body.error.details.retry_after_secs));
    expect((await call({ tool: "notes.create", session: BUSY })).status).toBe(503);
    expect((await call({ tool: "notes.create", session: BROKEN })).status).toBe(500);
    expect((await call({ tool: "notes.create", args: { text: "z".repeat(9000) } })).status).toBe(413);
    expect((await answer("/v1/call", "/v1/call", { body: "tool=x", headers: { "content-type": "text/plain" } })).status).toBe(415);
    // The session expires: calls in it are refused with 410, and so are its surface and searches in it.
    now += 601_000;
    expect((await call({ tool: "notes.create", session })).status).toBe(410);
    expect((await answer("/v1/sessions/{id}/surface", `/v1/sessions/${session}/surface`)).status).toBe(410);
    expect((await answer("/v1/find", "/v1/find", { json: { query: "notes", session } })).status).toBe(410);
    expect(problems).toEqual([]);
  });

  it("GET /v1/admin/misses: the top list, one name's events, and its refusals", async () => {
    const top = await answer("/v1/admin/misses", "/v1/admin/misses", { as: "carol" });
    expect(top.body.misses.length).toBeGreaterThan(0);
    const events = await answer("/v1/admin/misses", "/v1/admin/misses?name=Notes.Create&limit=5", { as: "carol" });
    expect(events.body).toMatchObject({ name: "Notes.Create", events: [{ name: "Notes.Create", outcome: "resolved", resolved_to: "notes.create" }] });
    expect((await answer("/v1/admin/misses", "/v1/admin/misses?kind=find", { as: "carol" })).body).toEqual({ misses: [] });
    expect((await answer("/v1/admin/misses", "/v1/admin/misses?limit=0", { as: "carol" })).status).toBe(400);
    expect((await answer("/v1/admin/misses", "/v1/admin/misses?kind=everything", { as: "carol" })).status).toBe(400);
    expect((await answer("/v1/admin/misses", "/v1/admin/misses", { as: "alice" })).status).toBe(403);
    expect((await answer("/v1/admin/misses", "/v1/admin/misses", { as: null })).status).toBe(401);
    expect(problems).toEqual([]);
  });

  it("the credentials routes: connect, list, call with it, remove, and the admin's remove", async () => {
    const family = "/v1/credentials/{family}";
    const put = (json: unknown, path = "/v1/credentials/crm", as: Ask["as"] = "alice") => answer(family, path, { method: "PUT", json, as });
    expect((await answer("/v1/call", "/v1/call", { json: { tool: "crm.lookup" } })).body.error).toMatchObject({
      code: "FORBIDDEN",
      details: { family: "crm" },
    });
    expect((await put({ token: "contract-crm-token-1" })).body.connected).toMatchObject({ family: "crm" });
    expect((await answer("/v1/credentials", "/v1/credentials")).body).toMatchObject({ principal: "alice", connected: [{ family: "crm" }], families: ["crm"] });
    expect((await answer("/v1/call", "/v1/call", { json: { tool: "crm.lookup" } })).status).toBe(200);
    expect(crmAuthorizations).toEqual(["Bearer contract-crm-token-1"]);
    expect((await put({ token: "short" })).status).toBe(400);
    expect((await put({ token: "contract-crm-token-1", colour: "red" })).status).toBe(400);
    expect((await answer(family, "/v1/credentials/crm", { method: "PUT", body: "{", headers: { "content-type": "application/json" } })).status).toBe(400);
    expect((await put({ token: "contract-crm-token-1" }, "/v1/credentials/notes")).status).toBe(404);
    expect((await put({ token: "t".repeat(9000) })).status).toBe(413);
    expect((await answer(family, "/v1/credentials/crm", { method: "PUT", body: "token=x", headers: { "content-type": "text/plain" } })).status).toBe(415);
    expect((await put({ token: "contract-crm-token-1" }, undefined, null)).status).toBe(401);
    expect((await answer("/v1/credentials", "/v1/credentials", { as: null })).status).toBe(401);

    expect((await answer(family, "/v1/credentials/crm", { method: "DELETE" })).body).toEqual({ family: "crm", removed: true });
    expect((await answer(family, "/v1/credentials/crm", { method: "DELETE", as: null })).status).toBe(401);
    await put({ token: "contract-crm-token-2" });
    const admin = "/v1/admin/credentials/{principal}/{family}";
    expect((await answer(admin, "/v1/admin/credentials/alice/crm", { method: "DELETE", as: "alice" })).status).toBe(403);
    expect((await answer(admin, "/v1/admin/credentials/alice/crm", { method: "DELETE", as: "carol" })).body).toEqual({
      principal: "alice",
      family: "crm",
      removed: true,
    });
    expect((await answer(admin, "/v1/admin/credentials/alice/crm", { method: "DELETE", as: null })).status).toBe(401);
    expect(problems).toEqual([]);
  });

  it("the approval routes: a held call read, decided once by an approver, and completions refused", async () => {
    const id = "contract-approval-1";
    await approvalStore.create({
      id,
      principal: "alice",
      tool: "notes.create",
      args_digest: "0".repeat(64),
      status: "pending",
      created_at: now,
      expires_at: Math.floor(now / 1000) + 600,
    });
    const one = "/v1/approvals/{id}";
    expect((await answer(one, `/v1/approvals/${id}`)).body).toMatchObject({ id, status: "pending", tool: "notes.create" });
    expect((await answer(one, "/v1/approvals/no-such-approval")).status).toBe(404);
    expect((await answer(one, `/v1/approvals/${id}`, { as: null })).status).toBe(401);
    const decide = (json: unknown, as: Ask["as"] = "carol") => answer(one, `/v1/approvals/${id}`, { method: "POST", json, as });
    expect((await decide({ decision: "approve" }, "alice")).status).toBe(403);
    expect((await decide({ decision: "maybe" })).status).toBe(400);
    expect((await decide({ decision: "approve", reason: "ok" })).body).toMatchObject({ status: "approved", approver: "carol", reason: "ok" });
    expect((await decide({ decision: "refuse" })).status).toBe(409);
    // Another caller's approval, or one for other arguments: nothing runs.
    const complete = (as: Ask["as"]) => answer("/v1/approvals/{id}/call", `/v1/approvals/${id}/call`, { method: "POST", json: { tool: "notes.create" }, as });
    expect((await complete("carol")).status).toBe(404);
    expect((await complete("alice")).body.error.code).toBe("APPROVAL_MISMATCH");

    // A call the policy holds: 202 naming the approval, then approved and completed once.
    const held = await answer("/v1/call", "/v1/call", { json: { tool: "vault.wipe", args: {} } });
    expect(held.status).toBe(202);
    expect(held.body.error).toMatchObject({ code: "APPROVAL_REQUIRED", details: { tool: "vault.wipe", status: "pending" } });
    const heldId = held.body.error.details.approval_id as string;
    expect((await answer(one, `/v1/approvals/${heldId}`, { method: "POST", json: { decision: "approve" }, as: "carol" })).status).toBe(200);
    const done = await answer("/v1/approvals/{id}/call", `/v1/approvals/${heldId}/call`, { method: "POST", json: { tool: "vault.wipe", args: {} } });
    expect(done.body).toMatchObject({ tool: "vault.wipe" });
    expect(problems).toEqual([]);
  });

  it("the model APIs' routes: export and search, and their refusals", async () => {
    const exported = await answer("/v1/tools/export", "/v1/tools/export?format=anthropic");
    expect(exported.status).toBe(200);
    expect((await answer("/v1/tools/export", "/v1/tools/export?format=openai")).status).toBe(200);
    expect((await answer("/v1/tools/export", "/v1/tools/export?format=gemini")).status).toBe(400);
    expect((await answer("/v1/tools/export", "/v1/tools/export?format=anthropic", { as: null })).status).toBe(401);
    const search = (json: unknown, as: Ask["as"] = "alice") => answer("/v1/tools/search", "/v1/tools/search", { json, as });
    expect((await search({ format: "anthropic", query: "add a note", tool_use_id: "toolu_1" })).status).toBe(200);
    expect((await search({ format: "openai", query: "add a note", call_id: "call_1" })).status).toBe(200);
    expect((await search({ format: "anthropic", query: "" })).status).toBe(400);
    expect((await search({ format: "anthropic", query: "add a note", tool_use_id: "toolu_1" }, null)).status).toBe(401);
    expect(problems).toEqual([]);
  });

  it("the console's admin routes and GET /v1/health/live", async () => {
    const admin = (path: string, ask: Ask = {}) => answer(path.split("?")[0]!.replace(/\/sessions\/[^/]+$/, "/sessions/{id}"), path, { as: "carol", ...ask });
    expect((await admin("/v1/admin/catalog")).body.families.length).toBeGreaterThan(0);
    expect((await admin("/v1/admin/catalog", { as: "alice" })).status).toBe(403);
    expect((await admin("/v1/admin/catalog", { as: null })).status).toBe(401);
    expect((await admin("/v1/admin/find", { json: { query: "create a note", principal: "alice" } })).body.tools[0].name).toBe("notes.create");
    expect((await admin("/v1/admin/find", { json: { query: "" } })).status).toBe(400);
    expect((await admin("/v1/admin/find", { json: { query: "notes", principal: "mallory" } })).status).toBe(404);
    expect((await admin("/v1/admin/find", { json: { query: "notes" }, as: "alice" })).status).toBe(403);
    const session = (await answer("/v1/sessions", "/v1/sessions", { json: { brief: "notes" } })).body.session.id as string;
    expect((await admin(`/v1/admin/sessions/${session}`)).body).toMatchObject({ id: session, principal: "alice", brief: "notes" });
    expect((await admin("/v1/admin/sessions/cccccccccccccccccccccccc")).status).toBe(404);
    expect((await admin(`/v1/admin/sessions/${session}`, { as: null })).status).toBe(401);
    await auditSink.idle();
    expect((await admin("/v1/admin/audit?limit=5")).body.records).toHaveLength(5);
    expect((await admin("/v1/admin/audit?limit=0")).status).toBe(400);
    expect((await admin("/v1/admin/audit", { as: "alice" })).status).toBe(403);
    expect((await admin("/v1/admin/audit/stats?minutes=30")).body.families.length).toBeGreaterThan(0);
    expect((await admin("/v1/admin/audit/stats?minutes=0")).status).toBe(400);
    expect((await admin("/v1/admin/audit/stats", { as: null })).status).toBe(401);
    expect((await answer("/v1/health/live", "/v1/health/live", { as: null })).body).toEqual({ status: "ok" });
    expect((await answer("/v1/health/live", `/v1/health/live?${"x".repeat(3000)}`, { as: null })).status).toBe(414);
    expect(problems).toEqual([]);
  });

  it("no route, and a known path with another method", async () => {
    expect((await answer("/v1/nothing", "/v1/nothing")).status).toBe(404);
    expect((await answer("/v1/find", "/v1/find", { method: "GET" })).status).toBe(405);
    expect(problems).toEqual([]);
  });

  it("documents X-Correlation-Id, with its bounds, on every operation, and its echo on every answer", async () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops) as [string, Operation & { parameters?: Schema[] }][]) {
        const where = `${method} ${path}`;
        expect(
          op.parameters?.find((p) => p.name === "X-Correlation-Id"),
          where,
        ).toMatchObject({ in: "header", required: false, schema: { type: "string", minLength: 1, maxLength: 128, pattern: CORRELATION_ID_RE.source } });
        for (const [status, r] of Object.entries(op.responses))
          expect((r as { headers?: Schema }).headers, `${where} ${status}`).toHaveProperty("X-Correlation-Id");
      }
    }
    // What the document says is what the gateway does.
    const ok = await api.request("/v1/find", { json: { query: "create a note" }, headers: { "x-correlation-id": "trace-1" } });
    expect(ok.headers.get("x-correlation-id")).toBe("trace-1");
    expect((await answer("/v1/find", "/v1/find", { json: { query: "notes" }, headers: { "x-correlation-id": "c".repeat(129) } })).status).toBe(400);
    expect(problems).toEqual([]);
  });

  it("passes an upstream's Retry-After on with 429 UPSTREAM_RATE_LIMITED, and documents both 429s and the RateLimit fields", async () => {
    const res = await api.request("/v1/call", { json: { tool: "quota.check" } });
    expect([res.status, res.headers.get("retry-after")]).toEqual([429, "30"]);
    const responses = doc.paths["/v1/call"]!.post!.responses as Record<string, { description: string; headers: Schema }>;
    expect(responses["429"]!.description).toContain("UPSTREAM_RATE_LIMITED");
    expect(responses["429"]!.description).toContain("TOO_MANY_REQUESTS");
    expect(responses["429"]!.headers).toHaveProperty("Retry-After");
    expect(Object.keys(responses["200"]!.headers)).toEqual(expect.arrayContaining(["RateLimit", "RateLimit-Policy"]));
  });

  it("documents the resource metadata as public, and every other operation behind the bearer scheme", () => {
    const publicOps = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).flatMap(([method, op]) => ((op as { security?: unknown[] }).security?.length === 0 ? [`${method} ${path}`] : [])),
    );
    expect(publicOps.sort()).toEqual([
      "get /.well-known/oauth-protected-resource",
      "get /.well-known/oauth-protected-resource/{proxy+}",
      "get /v1/health",
      "get /v1/health/live",
      "get /v1/openapi.json",
    ]);
  });

  it("covered a success and an error of every documented operation", () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) {
        const statuses = [...(seen.get(`${method.toUpperCase()} ${path}`) ?? [])];
        expect(
          statuses.some((s) => s < 300),
          `${method} ${path} success`,
        ).toBe(true);
        expect(
          statuses.some((s) => s >= 400),
          `${method} ${path} error`,
        ).toBe(true);
      }
    }
  });
});

describe("the contract check itself", () => {
  it("fails an answer with an unlisted field, a missing field, a wrong type or an undocumented status", async () => {
    const health = (await (await api.request("/v1/health", { as: null })).json()) as Record<string, unknown>;
    expect(contractProblems(doc, "GET", "/v1/health", 200, health)).toEqual([]);
    expect(contractProblems(doc, "GET", "/v1/health", 200, { ...health, uptime: 5 })).toEqual([expect.stringContaining("additional properties")]);
    const { registry_hash: _, ...missing } = health;
    expect(contractProblems(doc, "GET", "/v1/health", 200, missing).join("\n")).toMatch(/registry_hash/);
    expect(contractProblems(doc, "GET", "/v1/health", 200, { ...health, counts: { tools: "10", families: 4 } }).join("\n")).toMatch(/counts/);
    expect(contractProblems(doc, "GET", "/v1/health", 418, health)).toEqual(["GET /v1/health 418: status not documented"]);
    expect(contractProblems(doc, "POST", "/v1/find", 400, { error: { code: "NO_SUCH_CODE", message: "x", details: {} } })).not.toEqual([]);
  });
});
