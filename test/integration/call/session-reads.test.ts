// POST /v1/call with a session: the session check before dispatch and pin-on-use after it share one
// copy of the session, read from the table at most once per REUSE_MS (this process's copy in between),
// a re-use within COALESCE_MS writes nothing, and a foreign or expired session is still refused before
// the tool runs. Real app, real dynalite (its store wrapped to count reads), a real loopback upstream.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { PolicyFile } from "../../../registry/contract/policy.js";
import { sha256Hex } from "../../../lambdas/core/auth.js";
import { ERROR_STATUS } from "../../../lambdas/core/errors.js";
import { REUSE_MS } from "../../../lambdas/core/sessions.js";
import { createCallModule, type CallModule } from "../../../lambdas/http/routes/call.js";
import type { SessionRecord, SessionStore } from "../../../lambdas/core/ports.js";
import { startTestApi, TEST_KEYS, type TestApi } from "../../helpers/api.js";
import { testArtifactInput } from "../../helpers/artifact.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";
import { catalogTool, startLoopback, type Loopback } from "./helpers.js";

const policy = (): PolicyFile => ({
  version: 1,
  principals: [
    { id: "alice", keys: [sha256Hex(TEST_KEYS.alice)], allow: ["*"], deny: [], admin: false },
    { id: "bob", keys: [sha256Hex(TEST_KEYS.bob)], allow: ["*"], deny: [], admin: false },
  ],
});

const hits: string[] = [];
let reads = 0;
let writes = 0;
let now = Date.UTC(2026, 0, 1, 12, 0, 0);
let upstream: Loopback;
let dynamo: TestDynamo;
let calls: CallModule;
let api: TestApi;

beforeAll(async () => {
  upstream = await startLoopback((req, res) => {
    hits.push(req.url ?? "");
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"ok":true}');
  });
  dynamo = await startDynalite();
  const real = dynamo.store;
  const counting: SessionStore = {
    create: (s: SessionRecord) => real.create(s),
    get: (id: string) => {
      reads++;
      return real.get(id);
    },
    putPin: (id, pin, at) => (writes++, real.putPin(id, pin, at)),
    dropPin: (id, pin) => (writes++, real.dropPin(id, pin)),
    renew: (id, at) => (writes++, real.renew(id, at)),
  };
  const http = (path: string) => ({ kind: "http" as const, method: "POST", url: `${upstream.url}${path}`, output: "json" as const });
  calls = createCallModule({ env: {} });
  api = await startTestApi({
    input: testArtifactInput(
      [
        catalogTool("notes.create", http("/notes/create"), { description: "Create a note." }),
        catalogTool("notes.search", http("/notes/search"), { description: "Search notes." }),
      ],
      { always_loaded: [] },
    ),
    policy: policy(),
    briefs: [],
    dynamo,
    store: counting,
    clock: () => now,
    config: { sessionTtlSecs: 600 },
    extraRoutes: [calls],
  });
});

afterAll(async () => {
  await api.close();
  await calls.close();
  await dynamo.close();
  await upstream.close();
});

beforeEach(() => {
  reads = 0;
  hits.length = 0;
});

const open = async (as: "alice" | "bob") => ((await (await api.request("/v1/sessions", { as, json: {} })).json()) as { session: { id: string } }).session.id;
const call = (as: "alice" | "bob", json: unknown) => api.request("/v1/call", { as, json });
// A read as the surface route does it: after this process's pin writes in flight have landed.
const belt = (id: string) => api.deps.sessions.get(id, api.deps.policy.callerById("alice")!);

describe("POST /v1/call with a session", () => {
  it("reads the session at most once per REUSE_MS (none right after opening it), and pins the tool", async () => {
    const id = await open("alice");
    reads = 0;
    const res = await call("alice", { tool: "notes.create", args: {}, session: id });
    expect(res.status).toBe(200);
    expect(hits).toEqual(["/notes/create"]);
    expect(reads).toBe(0);
    expect((await belt(id)).pins.map((p) => p.name)).toEqual(["notes.create"]);
    now += REUSE_MS;
    reads = 0;
    expect((await call("alice", { tool: "notes.search", args: {}, session: id })).status).toBe(200);
    expect(reads).toBe(1);
    expect((await belt(id)).pins.map((p) => p.name)).toEqual(["notes.create", "notes.search"]);
  });

  it("writes nothing when the same tool is used again moments later, and keeps a pin another call made meanwhile", async () => {
    const id = await open("alice");
    expect((await call("alice", { tool: "notes.create", args: {}, session: id })).status).toBe(200);
    // The same tool again within COALESCE_MS (the test clock stands still): no read, no write.
    reads = 0;
    writes = 0;
    expect((await call("alice", { tool: "notes.create", args: {}, session: id })).status).toBe(200);
    expect([reads, writes]).toEqual([0, 0]);
    await Promise.all([
      call("alice", { tool: "notes.search", args: {}, session: id }),
      call("alice", { tool: "notes.create", args: {}, session: id }),
      call("alice", { tool: "notes.search", args: {}, session: id }),
    ]);
    expect((await belt(id)).pins.map((p) => p.name).sort()).toEqual(["notes.create", "notes.search"]);
  });

  it("refuses another principal's session before the tool runs", async () => {
    const id = await open("bob");
    const res = await call("alice", { tool: "notes.create", args: {}, session: id });
    expect(res.status).toBe(ERROR_STATUS.SESSION_NOT_FOUND);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("SESSION_NOT_FOUND");
    expect(hits).toEqual([]);
    expect((await dynamo.store.get(id))?.pins).toEqual([]);
  });

  it("refuses an expired session before the tool runs", async () => {
    const id = await open("alice");
    now += 601_000;
    const res = await call("alice", { tool: "notes.create", args: {}, session: id });
    expect(res.status).toBe(ERROR_STATUS.SESSION_EXPIRED);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("SESSION_EXPIRED");
    expect(hits).toEqual([]);
    expect((await dynamo.store.get(id))?.pins).toEqual([]);
  });
});
