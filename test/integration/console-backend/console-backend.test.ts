// The operator console's backend, with real parts: a listening server over dynalite, loopback upstreams
// (one stopped mid-test), the call module writing audit records to the table, and the admin routes
// reading them back. Health really probes: a stopped upstream turns it degraded, a stopped table 503.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolicyFile } from "../../../registry/contract/policy.js";
import { sha256Hex } from "../../../lambdas/core/auth.js";
import { createCallModule, type CallModule } from "../../../lambdas/http/routes/call.js";
import { createAdminModule } from "../../../lambdas/http/routes/admin.js";
import { liveRoutes } from "../../../lambdas/http/routes/live.js";
import { DynamoAuditReader, dynamoAuditSink } from "../../../lambdas/stores/audit.js";
import { startTestApi, TEST_KEYS, type TestApi } from "../../helpers/api.js";
import { testArtifactInput } from "../../helpers/artifact.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";
import { catalogTool, startLoopback, type Loopback } from "../call/helpers.js";

const policy = (): PolicyFile => ({
  version: 1,
  principals: [
    { id: "alice", keys: [sha256Hex(TEST_KEYS.alice)], allow: ["notes.*", "other.*", "down.*"], deny: [], admin: false },
    { id: "bob", keys: [sha256Hex(TEST_KEYS.bob)], allow: ["other.*"], deny: [], admin: false },
    { id: "carol", keys: [sha256Hex(TEST_KEYS.carol)], allow: ["*"], deny: [], admin: true },
  ],
});

let now = Date.now();
let dynamo: TestDynamo;
let upstream: Loopback;
let doomed: Loopback;
let calls: CallModule;
let api: TestApi;
let sink: ReturnType<typeof dynamoAuditSink>;
const sinkErrors: unknown[] = [];

beforeAll(async () => {
  dynamo = await startDynalite();
  upstream = await startLoopback((req, res) => {
    const failed = req.url === "/fail";
    res.writeHead(failed ? 500 : 200, { "content-type": "application/json" });
    res.end(req.method === "HEAD" ? undefined : failed ? '{"oops":true}' : '{"id":"n1"}');
  });
  doomed = await startLoopback((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
  const http = (base: string, path: string) => ({ kind: "http" as const, method: "POST", url: `${base}${path}`, output: "json" as const });
  const input = testArtifactInput(
    [
      catalogTool("notes.create", http(upstream.url, "/create"), { description: "Create a note with a <b>title</b>.", governance: { impact: 2 } }),
      catalogTool("notes.fail", http(upstream.url, "/fail"), { description: "A note tool whose upstream fails." }),
      catalogTool("other.echo", http(upstream.url, "/echo"), { description: "Echo a greeting back." }),
      catalogTool("down.ping", http(doomed.url, "/ping"), { description: "Ping a service that will stop." }),
      catalogTool("imported.lookup", { kind: "builtin", handler: "unavailable" }, { description: "Imported without a backend." }),
    ],
    { variables: { notes: { NOTES_TOKEN: { secret: true }, NOTES_REGION: { secret: false } } } },
  );
  sink = dynamoAuditSink(dynamo.client, dynamo.table, 7, (_m, fields) => sinkErrors.push(fields));
  calls = createCallModule({ env: {}, auditSink: sink });
  const admin = createAdminModule({
    env: { NOTES_TOKEN: "secret-notes-token-value", TOOLBELT_SECRETS: '{"NOTES_REGION":"/toolbelt/region"}' },
    audit: new DynamoAuditReader(dynamo.client, dynamo.table),
  });
  api = await startTestApi({
    input,
    policy: policy(),
    briefs: [{ version: 1, name: "notes", description: "Take notes", tools: ["notes.*"] }],
    dynamo,
    clock: () => now,
    extraRoutes: [calls, liveRoutes, admin],
    health: true,
  });
});

afterAll(async () => {
  await api?.close();
  await calls?.close();
  await upstream?.close();
  await dynamo?.close();
});

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
const json = async (res: Response): Promise<any> => res.json();

describe("GET /v1/health", () => {
  it("checks the table, each upstream and the artifact; details only with an admin key; a stopped upstream turns it degraded after the 30 s cache", async () => {
    const open = await json(await api.request("/v1/health", { as: null }));
    expect(open).toMatchObject({ status: "ok", artifact: { registry_hash: api.artifact.manifest.registry_hash, counts: { tools: 5 } } });
    expect(open.checks).toBeUndefined();
    expect(open.down).toBeUndefined();
    const admin = await json(await api.request("/v1/health", { as: "carol" }));
    expect(admin.checks.table).toMatchObject({ ok: true, latency_ms: expect.any(Number) });
    expect(admin.checks.upstreams).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ family: "notes", ok: true, latency_ms: expect.any(Number) }),
        expect.objectContaining({ family: "down", ok: true }),
        { family: "imported", ok: true },
      ]),
    );
    // A non-admin key sees what everyone sees.
    expect((await json(await api.request("/v1/health", { as: "alice" }))).checks).toBeUndefined();

    await doomed.close();
    // Within 30 s every caller gets the same probes: nothing is probed again.
    const cached = await json(await api.request("/v1/health", { as: "carol" }));
    expect([cached.status, cached.checks.checked_at]).toEqual(["ok", admin.checks.checked_at]);

    now += 31_000;
    // Past 30 s the last report still answers at once, and starts one round of probes in the background.
    const stale = await json(await api.request("/v1/health", { as: "carol" }));
    expect([stale.status, stale.checks.checked_at]).toEqual(["ok", admin.checks.checked_at]);
    let degraded = stale;
    for (let i = 0; i < 100 && degraded.checks.checked_at === admin.checks.checked_at; i++) {
      await new Promise((done) => setTimeout(done, 50));
      degraded = await json(await api.request("/v1/health", { as: "carol" }));
    }
    expect(degraded.status).toBe("degraded");
    expect(degraded.down).toEqual(["upstream down"]);
    expect(degraded.checks.upstreams.find((u: { family: string }) => u.family === "down")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/ECONNREFUSED/),
    });
    const publicView = await api.request("/v1/health", { as: null });
    expect(publicView.status).toBe(200);
    expect(await json(publicView)).not.toHaveProperty("down");
  });

  it("answers 503 when the table is unreachable, and /v1/health/live stays 200 without probing", async () => {
    const lost = await startDynalite();
    const other = await startTestApi({ dynamo: lost, store: lost.store, extraRoutes: [liveRoutes], health: true });
    try {
      await lost.close();
      const res = await other.request("/v1/health", { as: null });
      expect(res.status).toBe(503);
      expect((await json(res)).error).toMatchObject({ code: "UNAVAILABLE", details: { check: "table" } });
      const live = await other.request("/v1/health/live", { as: null });
      expect([live.status, await json(live)]).toEqual([200, { status: "ok" }]);
    } finally {
      await other.close();
    }
  });
});

describe("the admin data routes", () => {
  const routes: [string, string, unknown?][] = [
    ["GET", "/v1/admin/catalog"],
    ["POST", "/v1/admin/find", { query: "create a note" }],
    ["GET", "/v1/admin/sessions/aaaaaaaaaaaaaaaaaaaaaaaa"],
    ["GET", "/v1/admin/audit"],
    ["GET", "/v1/admin/audit/stats"],
  ];

  it.each(routes)("%s %s: 401 without a key, 403 for a non-admin principal", async (method, path, body) => {
    const send = (as: "alice" | null) => api.request(path, { method, as, ...(body ? { json: body } : {}) });
    const anonymous = await send(null);
    expect([anonymous.status, (await json(anonymous)).error.code]).toEqual([401, "UNAUTHENTICATED"]);
    const alice = await send("alice");
    expect([alice.status, (await json(alice)).error.code]).toEqual([403, "FORBIDDEN"]);
  });

  it("the catalog: each tool, whether callable, who reaches it, declared settings present or missing, never a value", async () => {
    const res = await api.request("/v1/admin/catalog", { as: "carol" });
    const text = await res.text();
    expect(text).not.toContain("secret-notes-token-value");
    const body = JSON.parse(text);
    const notes = body.families.find((f: { name: string }) => f.name === "notes");
    expect(notes.settings).toEqual([
      { name: "NOTES_TOKEN", present: true, secret: true },
      { name: "NOTES_REGION", present: true, secret: false },
    ]);
    const create = notes.tools.find((t: { name: string }) => t.name === "notes.create");
    expect(create).toMatchObject({
      description: "Create a note with a <b>title</b>.",
      kind: "http",
      callable: true,
      governance: { impact: 2 },
      reached_by: { principals: ["alice", "carol"], briefs: ["notes"] },
      input_schema: { type: "object" },
    });
    const imported = body.families.find((f: { name: string }) => f.name === "imported").tools[0];
    expect(imported).toMatchObject({ callable: false, not_callable_reason: expect.stringContaining("501"), reached_by: { principals: ["carol"], briefs: [] } });
    expect(body.artifact).toMatchObject({ registry_hash: api.artifact.manifest.registry_hash, counts: { families: 4, tools: 5 } });
  });

  it("find as a principal ranks exactly as that principal's POST /v1/find", async () => {
    for (const query of ["create a note", "echo a greeting", "ping"]) {
      const own = await json(await api.request("/v1/find", { json: { query }, as: "bob" }));
      const asBob = await json(await api.request("/v1/admin/find", { json: { query, principal: "bob" }, as: "carol" }));
      expect(asBob).toEqual(own);
    }
    const mine = await json(await api.request("/v1/admin/find", { json: { query: "create a note" }, as: "carol" }));
    expect(mine.tools[0].name).toBe("notes.create");
    const unknown = await api.request("/v1/admin/find", { json: { query: "x", principal: "mallory" }, as: "carol" });
    expect([unknown.status, (await json(unknown)).error.details.available]).toEqual([404, ["alice", "bob", "carol"]]);
    const bad = await api.request("/v1/admin/find", { json: { query: "" }, as: "carol" });
    expect(bad.status).toBe(400);
  });

  it("a session's belt: declared tools, pins with their share and last use, what its surface costs", async () => {
    const opened = await json(await api.request("/v1/sessions", { json: { brief: "notes" }, as: "alice" }));
    const id = opened.session.id as string;
    expect((await api.request("/v1/call", { json: { tool: "other.echo", args: {}, session: id }, as: "alice" })).status).toBe(200);
    const view = await json(await api.request(`/v1/admin/sessions/${id}`, { as: "carol" }));
    expect(view).toMatchObject({ id, principal: "alice", brief: "notes", budget_bytes: 8192, surface_tokens: expect.any(Number) });
    const echo = view.belt.find((b: { name: string }) => b.name === "other.echo");
    expect(echo).toMatchObject({ source: "pin", last_used_at: new Date(now).toISOString() });
    expect(echo.share).toBeCloseTo(echo.bytes / 8192, 3);
    expect(view.used_bytes).toBe(echo.bytes);
    expect(view.belt.find((b: { name: string }) => b.name === "notes.create")).toMatchObject({ source: "packing" });
    expect((await api.request("/v1/admin/sessions/bbbbbbbbbbbbbbbbbbbbbbbb", { as: "carol" })).status).toBe(404);
    expect((await api.request("/v1/admin/sessions/x", { as: "carol" })).status).toBe(404);
  });

  it("every call's audit record lands in the table: listed newest first with filters and a cursor, and counted per family per minute", async () => {
    for (const tool of ["notes.create", "notes.fail", "other.echo", "notes.create"]) await api.request("/v1/call", { json: { tool, args: {} }, as: "alice" });
    await api.request("/v1/call", { json: { tool: "other.echo", args: {} }, as: "bob" });
    await sink.idle();
    expect(sinkErrors).toEqual([]);
    const list = async (query: string) => json(await api.request(`/v1/admin/audit${query}`, { as: "carol" }));
    const all = await list("?limit=100");
    // The session test's call came first; these five after it, newest first.
    expect(all.records.slice(0, 5).map((r: { principal: string; tool: string }) => `${r.principal} ${r.tool}`)).toEqual([
      "bob other.echo",
      "alice notes.create",
      "alice other.echo",
      "alice notes.fail",
      "alice notes.create",
    ]);
    expect(all.records[3]).toMatchObject({ family: "notes", outcome: "UPSTREAM_ERROR", status: 502, upstream_status: 500, via: "rest" });
    expect(all.next).toBeUndefined();
    expect((await list("?principal=alice&outcome=OK&tool=notes.create")).records).toHaveLength(2);
    expect((await list("?family=other")).records.map((r: { principal: string }) => r.principal)).toEqual(["bob", "alice", "alice"]);
    const first = await list("?limit=2");
    const second = await list(`?limit=2&cursor=${first.next}`);
    expect([...first.records, ...second.records]).toEqual(all.records.slice(0, 4));
    expect((await list(`?since=${new Date(now + 60_000).toISOString()}`)).records).toEqual([]);
    for (const bad of ["?limit=0", "?since=yesterday", "?cursor=bm9wZQ", "?colour=red"]) {
      const res = await api.request(`/v1/admin/audit${bad}`, { as: "carol" });
      expect([bad, res.status, (await json(res)).error.code]).toEqual([bad, 400, "INVALID_REQUEST"]);
    }
    // The console's "a week ago" is the browser's clock: a minute (or a day) past 168 hours is read as 168 hours back, not refused.
    for (const early of [now - 168 * 3_600_000 - 60_000, now - 8 * 86_400_000]) {
      expect((await list(`?limit=100&since=${new Date(early).toISOString()}`)).records).toEqual(all.records);
    }
    // A forged cursor (sort key before `since`, or an hour outside the window) is a 400 naming `cursor`, not DynamoDB's 500.
    const forged = (pk: string, sk: string) => Buffer.from(JSON.stringify([pk, sk])).toString("base64url");
    const hour = (ms: number) => `AUDIT#${new Date(ms).toISOString().slice(0, 13)}`;
    for (const cursor of [forged(hour(now), "2000-01-01T00:00:00.000Z#00"), forged(hour(now - 3 * 3_600_000), new Date(now).toISOString())]) {
      const res = await api.request(`/v1/admin/audit?cursor=${cursor}`, { as: "carol" });
      const body = await json(res);
      expect([res.status, body.error.code, body.error.message]).toEqual([400, "INVALID_REQUEST", expect.stringContaining("cursor")]);
    }

    const stats = await json(await api.request("/v1/admin/audit/stats?minutes=5", { as: "carol" }));
    expect(stats).toMatchObject({ minutes: 5, bucket_secs: 60 });
    const family = (name: string) => stats.families.find((f: { family: string }) => f.family === name);
    expect(family("notes").buckets).toHaveLength(5);
    const total = (name: string, key: "calls" | "errors") => family(name).buckets.reduce((n: number, b: Record<string, number>) => n + b[key]!, 0);
    expect([total("notes", "calls"), total("notes", "errors"), total("other", "calls"), total("other", "errors")]).toEqual([3, 1, 3, 0]);
    expect((await api.request("/v1/admin/audit/stats?minutes=2000", { as: "carol" })).status).toBe(400);
    // Longer windows get wider buckets (a day at a minute each was 6.5 MB for 60 families): bucket_secs says which.
    for (const [minutes, bucket_secs, length] of [
      [61, 300, 13],
      [360, 300, 72],
      [1440, 900, 96],
    ] as const) {
      const wide = await json(await api.request(`/v1/admin/audit/stats?minutes=${minutes}`, { as: "carol" }));
      expect(wide).toMatchObject({ minutes, bucket_secs });
      const notes = wide.families.find((f: { family: string }) => f.family === "notes");
      expect(notes.buckets).toHaveLength(length);
      expect(Date.parse(notes.buckets[1].t) - Date.parse(notes.buckets[0].t)).toBe(bucket_secs * 1000);
      expect(notes.buckets.reduce((n: number, b: { calls: number }) => n + b.calls, 0)).toBe(total("notes", "calls"));
    }
  });
});
