// Approvals for consequential calls and read-only principals (issue 28), through REST and MCP on dynalite,
// with a loopback upstream that counts every request it gets. The policy holds destructive tools for
// approval; bob is the approver, alice and dave call, carol is read-only. A held call runs zero times
// until approved and once after (a repeat replays it); refused, expired, another caller's, the caller's own
// approval and other arguments never run it. A read-only principal is refused every write tool by every
// spelling and door. The app is wired by wire() as npm start is, plus what this issue adds (createGateway).
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolicyFile } from "../../../../registry/contract/policy.js";
import { createPolicy, sha256Hex } from "../../../../lambdas/core/auth.js";
import { expandBriefSelector } from "../../../../lambdas/core/governance.js";
import type { CallAudit } from "../../../../lambdas/core/call/audit.js";
import { loadConfig } from "../../../../lambdas/config.js";
import { wire } from "../../../../lambdas/handlers/wiring.js";
import { createApp } from "../../../../lambdas/http/app.js";
import { shareGateway } from "../../../../lambdas/http/call-gateway.js";
import { memoryLogger } from "../../../../lambdas/http/logger.js";
import { createCallModule } from "../../../../lambdas/http/routes/call.js";
import { createMcpModule } from "../../../../lambdas/http/routes/mcp.js";
import { createDynamoClient } from "../../../../lambdas/stores/dynamodb.js";
import { DynamoApprovalStore } from "../../../../lambdas/stores/approvals.js";
import { buildTestArtifact, testArtifactInput } from "../../../helpers/artifact.js";
import { startDynalite, type TestDynamo } from "../../../helpers/dynalite.js";
import { serveApp, type TestServer } from "../../../helpers/server.js";
import { catalogTool, startLoopback, type Loopback } from "../../call/helpers.js";
import { connect, type AnyClient } from "../../mcp/fixture.js";
import { approvalGateway } from "./wiring.js";

const key = (id: string) => `approvals-key-${id}-7c1d`;
const who = (id: string, extra: Record<string, unknown> = {}) => ({ id, keys: [sha256Hex(key(id))], allow: ["*"], deny: [], admin: false, ...extra });
const policy: PolicyFile = {
  version: 1,
  principals: [who("alice"), who("bob", { approver: true }), who("carol", { read_only: true }), who("dave")],
  approvals: [{ where: { destructive: true } }],
};

/** Every request the upstream got: which tool path, with which body. */
const ran: { path: string; body: string }[] = [];
const runs = (path: string) => ran.filter((r) => r.path === path).length;
/** The deletes of the one call whose upstream fails after acting. */
const booms = () => ran.filter((r) => r.path === "/delete" && r.body.includes('"boom"')).length;
const audits: CallAudit[] = [];
let upstream: Loopback;
let dynamo: TestDynamo;
let server: TestServer;
let closeModules: () => Promise<void>;
let clock = Date.now();
const TTL_SECS = 600;

type Answer = { status: number; json: Record<string, unknown> };
async function send(as: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key(as)}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
const call = (as: string, tool: string, args: Record<string, unknown>) => send(as, "POST", "/v1/call", { tool, args });
const decide = (as: string, id: string, decision: "approve" | "refuse", reason?: string) =>
  send(as, "POST", `/v1/approvals/${id}`, { decision, ...(reason ? { reason } : {}) });
const complete = (as: string, id: string, tool: string, args: Record<string, unknown>) => send(as, "POST", `/v1/approvals/${id}/call`, { tool, args });
const errorOf = (a: Answer) => a.json.error as { code: string; message: string; details: Record<string, unknown> };

/** Hold a call of alice's: 202 with the approval's id and where to approve and complete it. */
async function held(tool: string, args: Record<string, unknown>, as = "alice"): Promise<string> {
  const r = await call(as, tool, args);
  expect(r.status).toBe(202);
  const e = errorOf(r);
  expect(e.code).toBe("APPROVAL_REQUIRED");
  const id = String(e.details.approval_id);
  expect(e.details).toMatchObject({ approve: `/v1/approvals/${id}`, complete: `/v1/approvals/${id}/call`, status: "pending" });
  return id;
}

beforeAll(async () => {
  dynamo = await startDynalite();
  upstream = await startLoopback((req, res, body) => {
    ran.push({ path: req.url ?? "", body });
    // An upstream that acts and then fails: the approval must not run it again.
    if (body.includes('"boom"')) {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "half done" }));
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ done: req.url, body: JSON.parse(body || "{}") as unknown }));
  });
  const http = (path: string) => ({
    kind: "http" as const,
    method: "POST" as const,
    url: `${upstream.url}${path}`,
    body: "{{input}}",
    output: "json" as const,
  });
  const idArgs = { type: "object", required: ["id"], properties: { id: { type: "string" } } };
  const input = testArtifactInput([
    catalogTool("files.delete", http("/delete"), { input_schema: idArgs, governance: { destructive: true } }),
    catalogTool("files.read", http("/read"), { input_schema: idArgs, governance: { read_only: true } }),
    catalogTool("files.write", http("/write"), { input_schema: idArgs }),
    catalogTool("files.purge", http("/purge"), { input_schema: idArgs, governance: { destructive: true, read_only: false } }),
  ]);
  const work = await mkdtemp(join(tmpdir(), "toolbelt-approvals-"));
  const { artifact } = await buildTestArtifact(join(work, "artifact"), input);
  const env = { TOOLBELT_ARTIFACT_DIR: join(work, "artifact"), TOOLBELT_TABLE: dynamo.table, DYNAMODB_ENDPOINT: dynamo.endpoint };
  const client = createDynamoClient({ endpoint: dynamo.endpoint });
  const { deps, call: options } = wire({
    config: loadConfig(env),
    env,
    client,
    artifact,
    // The policy as wire() takes it, without the selectors createPolicy resolves from the catalog (deps below).
    policy: { ...policy, principals: policy.principals.map(({ read_only: _r, ...p }) => p) },
    // A read-only brief, and one choosing its tools by governance (expanded as the loader does).
    briefs: [
      { version: 1, name: "look", description: "Look, touch nothing", tools: ["files.*"], read_only: true },
      expandBriefSelector({ version: 1, name: "safe", description: "Nothing destructive", tools: ["files.*"], where: { destructive: false } }, artifact.tools),
    ],
    logger: memoryLogger(),
    models: {},
    defaultFileRoots: [],
    internalPaths: [work],
  });
  // What the lead wires in deps.ts: the policy loaded with the catalog, so governance selectors become grants.
  deps.policy = createPolicy(policy, { tools: artifact.tools });
  deps.clock = () => clock;
  const approvals = { store: new DynamoApprovalStore(client, dynamo.table), ttlSecs: TTL_SECS };
  const shared = shareGateway({ ...options, approvals, gateway: approvalGateway(options, approvals, (r) => audits.push(r)) });
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
  await upstream?.close();
  await dynamo?.close();
});

describe("approvals through REST", () => {
  it("runs a destructive call zero times before approval and exactly once after it; a repeat replays the answer", async () => {
    const id = await held("files.delete", { id: "a1" });
    expect(runs("/delete")).toBe(0);
    // Completing before a decision: refused, still nothing ran.
    expect(errorOf(await complete("alice", id, "files.delete", { id: "a1" })).code).toBe("APPROVAL_PENDING");
    const seen = await send("alice", "GET", `/v1/approvals/${id}`);
    expect(seen.json).toMatchObject({ id, status: "pending", tool: "files.delete", principal: "alice" });
    expect(runs("/delete")).toBe(0);

    const approved = await decide("bob", id, "approve");
    expect(approved.status).toBe(200);
    expect(approved.json).toMatchObject({ status: "approved", approver: "bob" });
    expect(runs("/delete")).toBe(0);

    const first = await complete("alice", id, "files.delete", { id: "a1" });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ tool: "files.delete", result: { done: "/delete", body: { id: "a1" } } });
    expect(runs("/delete")).toBe(1);
    // Once: the same completion again answers the same, and the upstream saw one request.
    const again = await complete("alice", id, "files.delete", { id: "a1" });
    expect(again.json).toEqual(first.json);
    expect(runs("/delete")).toBe(1);
    // The audit names the approver of the call that ran.
    expect(audits.filter((a) => a.tool === "files.delete" && a.outcome === "OK")).toEqual([
      expect.objectContaining({ approval: id, approver: "bob", principal: "alice", destructive: true }),
      expect.objectContaining({ approval: id, approver: "bob", idempotency: "replayed" }),
    ]);
    expect(audits).toContainEqual(expect.objectContaining({ tool: "files.delete", outcome: "APPROVAL_REQUIRED", status: 202, approval: id }));
  });

  it("regression: a completion that failed after reaching the upstream spends the approval (a retry ran it again)", async () => {
    const id = await held("files.delete", { id: "boom" });
    expect((await decide("bob", id, "approve")).status).toBe(200);
    expect((await complete("alice", id, "files.delete", { id: "boom" })).status).toBe(502);
    expect(booms()).toBe(1);
    const again = await complete("alice", id, "files.delete", { id: "boom" });
    expect(again.status).toBe(409);
    expect(errorOf(again).message).toContain("at most once");
    expect(booms()).toBe(1);
    // The other tests count every delete: this one's leaves no trace for them.
    ran.splice(0, ran.length, ...ran.filter((r) => !r.body.includes('"boom"')));
  });

  it("regression: an id longer than any approval's names none (a 2,100-character id was the store's 500)", async () => {
    expect((await send("alice", "GET", `/v1/approvals/${"a".repeat(2100)}`)).status).toBe(404);
    expect((await send("bob", "POST", `/v1/approvals/${"a".repeat(2100)}`, { decision: "approve" })).status).toBe(404);
  });

  it("holds a call by any spelling of the tool, and a plain call of the same tool is held again rather than run", async () => {
    const id = await held("files_delete", { id: "a2" });
    await decide("bob", id, "approve");
    // Approved, but a plain call is another call: held anew.
    await held("files.delete", { id: "a2" });
    expect(runs("/delete")).toBe(1);
  });

  it("never runs a refused call", async () => {
    const id = await held("files.delete", { id: "r1" });
    const refused = await decide("bob", id, "refuse", "not on a Friday");
    expect(refused.json).toMatchObject({ status: "refused", approver: "bob", reason: "not on a Friday" });
    const r = await complete("alice", id, "files.delete", { id: "r1" });
    expect(r.status).toBe(403);
    expect(errorOf(r)).toMatchObject({ code: "APPROVAL_REFUSED", details: { approver: "bob" } });
    // A decision is made once: approving it now is a conflict.
    expect((await decide("bob", id, "approve")).status).toBe(409);
    expect(errorOf(await complete("alice", id, "files.delete", { id: "r1" })).code).toBe("APPROVAL_REFUSED");
    expect(ran.filter((x) => x.body.includes('"r1"'))).toEqual([]);
  });

  it("never runs an expired approval, decided or not", async () => {
    const undecided = await held("files.delete", { id: "e1" });
    const approvedLate = await held("files.delete", { id: "e2" });
    await decide("bob", approvedLate, "approve");
    clock += (TTL_SECS + 1) * 1000;
    try {
      const r = await decide("bob", undecided, "approve");
      expect(r.status).toBe(410);
      expect(errorOf(r).code).toBe("APPROVAL_EXPIRED");
      expect(errorOf(await complete("alice", approvedLate, "files.delete", { id: "e2" })).code).toBe("APPROVAL_EXPIRED");
    } finally {
      clock -= (TTL_SECS + 1) * 1000;
    }
    expect(ran.filter((x) => x.body.includes('"e1"') || x.body.includes('"e2"'))).toEqual([]);
  });

  it("binds the approval to the caller, the tool and the arguments; nobody approves their own call", async () => {
    const id = await held("files.delete", { id: "b1" });
    // Not an approver, or the caller itself (bob holds a call of his own).
    expect((await decide("dave", id, "approve")).status).toBe(403);
    const bobs = await held("files.delete", { id: "b2" }, "bob");
    const own = await decide("bob", bobs, "approve");
    expect(own.status).toBe(403);
    expect(errorOf(own).message).toMatch(/never approves or refuses its own call/);

    await decide("bob", id, "approve");
    const other = await complete("alice", id, "files.delete", { id: "b9" });
    expect(other.status).toBe(409);
    expect(errorOf(other).code).toBe("APPROVAL_MISMATCH");
    expect(errorOf(await complete("alice", id, "files.purge", { id: "b1" })).code).toBe("APPROVAL_MISMATCH");
    // Another caller with alice's approval id: as if it did not exist.
    expect((await complete("dave", id, "files.delete", { id: "b1" })).status).toBe(404);
    expect((await send("dave", "GET", `/v1/approvals/${id}`)).status).toBe(404);
    expect(ran.filter((x) => x.body.includes('"b'))).toEqual([]);
    // The approval still stands for the call it was made for.
    expect((await complete("alice", id, "files.delete", { id: "b1" })).status).toBe(200);
    expect(ran.filter((x) => x.body.includes('"b1"'))).toHaveLength(1);
  });

  it("runs an approved call once when its caller completes it many times at once", async () => {
    const id = await held("files.delete", { id: "c1" });
    await decide("bob", id, "approve");
    const answers = await Promise.all(Array.from({ length: 8 }, () => complete("alice", id, "files.delete", { id: "c1" })));
    // Each completion either ran it, replayed its answer, or was told it is running: never a second run.
    for (const a of answers) expect(a.status === 200 || errorOf(a).code === "IDEMPOTENCY_IN_PROGRESS", JSON.stringify(a.json)).toBe(true);
    expect(ran.filter((x) => x.body.includes('"c1"'))).toHaveLength(1);
  });

  it("lets tools no rule names run at once", async () => {
    const before = runs("/write");
    expect((await call("alice", "files.write", { id: "w1" })).status).toBe(200);
    expect(runs("/write")).toBe(before + 1);
  });
});

describe("approvals through MCP", () => {
  let alice: AnyClient;
  beforeAll(async () => {
    alice = await connect(`${server.url}/mcp`, key("alice"), "2026-07-28");
  });
  afterAll(async () => {
    await alice?.close();
  });
  const text = (r: Record<string, unknown>) => (r.content as { text: string }[]).map((c) => c.text).join("\n");

  it("answers a held call with a tool result naming the approval, runs nothing, and runs it once when completed with the id in _meta", async () => {
    const before = runs("/delete");
    const r = await alice.callTool({ name: "files_delete", arguments: { id: "m1" } });
    expect(r.isError).toBe(true);
    const body = JSON.parse(text(r)) as { error: { code: string; details: { approval_id: string } } };
    expect(body.error.code).toBe("APPROVAL_REQUIRED");
    const id = body.error.details.approval_id;
    expect(runs("/delete")).toBe(before);

    const complete = (args: Record<string, unknown>) =>
      alice.callTool({ name: "files_delete", arguments: args, _meta: { "toolbelt/approval": id } } as Parameters<AnyClient["callTool"]>[0]);
    expect(JSON.parse(text(await complete({ id: "m1" }))).error.code).toBe("APPROVAL_PENDING");
    await decide("bob", id, "approve");
    expect(JSON.parse(text(await complete({ id: "m2" }))).error.code).toBe("APPROVAL_MISMATCH");
    const done = await complete({ id: "m1" });
    expect(done.isError).toBeUndefined();
    expect(done.structuredContent).toMatchObject({ done: "/delete", body: { id: "m1" } });
    await complete({ id: "m1" });
    expect(runs("/delete")).toBe(before + 1);
  });

  it("holds the call made through call_tool too, and never runs a refused one", async () => {
    const before = runs("/delete");
    const r = await alice.callTool({ name: "call_tool", arguments: { tool: "files.delete", args: { id: "m3" } } });
    const id = (JSON.parse(text(r)) as { error: { code: string; details: { approval_id: string } } }).error.details.approval_id;
    await decide("bob", id, "refuse");
    const after = await alice.callTool({
      name: "call_tool",
      arguments: { tool: "files.delete", args: { id: "m3" } },
      _meta: { "toolbelt/approval": id },
    } as Parameters<AnyClient["callTool"]>[0]);
    expect(JSON.parse(text(after)).error.code).toBe("APPROVAL_REFUSED");
    expect(runs("/delete")).toBe(before);
  });
});

describe("a read-only principal", () => {
  const writes = ["files.write", "files.delete", "files.purge"];
  const spellings = (name: string) => [name, name.replace(".", "_"), name.toUpperCase(), name.replace(".", "-")];

  it("is refused every write tool by every spelling through REST, and through toolbelt.call; read-only tools run", async () => {
    const before = ran.length;
    for (const tool of writes) {
      for (const name of spellings(tool)) {
        const r = await call("carol", name, { id: "ro" });
        expect([403, 404], `${name}: ${JSON.stringify(r.json)}`).toContain(r.status);
        expect(["TOOL_NOT_GRANTED", "TOOL_NOT_FOUND"]).toContain(errorOf(r).code);
        const nested = await call("carol", "toolbelt.call", { tool: name, args: { id: "ro" } });
        expect(nested.status, name).toBeGreaterThanOrEqual(400);
      }
    }
    expect(ran.length).toBe(before);
    expect((await call("carol", "files.read", { id: "ro" })).status).toBe(200);
  });

  it("is granted only read-only tools, so no surface shows it a write tool", async () => {
    const opened = await send("carol", "POST", "/v1/sessions", {});
    const surface = JSON.stringify(opened.json.surface);
    expect(surface).toContain("files.read");
    for (const tool of writes) expect(surface).not.toContain(tool);
  });

  it("is refused every write tool through MCP, directly and through call_tool, and is not shown them", async () => {
    const carol = await connect(`${server.url}/mcp`, key("carol"), "2026-07-28");
    try {
      const before = ran.length;
      const listed = (await carol.listTools()).tools.map((t) => t.name);
      for (const tool of writes) expect(listed).not.toContain(tool.replace(".", "_"));
      for (const tool of writes) {
        for (const name of spellings(tool)) {
          const direct = await carol.callTool({ name, arguments: { id: "ro" } }).catch((e: unknown) => ({ isError: true, thrown: String(e) }));
          expect(direct.isError, name).toBe(true);
          const viaCall = await carol.callTool({ name: "call_tool", arguments: { tool: name, args: { id: "ro" } } });
          expect(viaCall.isError, name).toBe(true);
        }
      }
      expect(ran.length).toBe(before);
    } finally {
      await carol.close();
    }
  });
});

describe("a read-only session", () => {
  it("never runs a write tool in a session opened with a read-only brief, by any spelling, directly or through toolbelt.call", async () => {
    const opened = await send("alice", "POST", "/v1/sessions", { brief: "look" });
    expect(opened.status).toBe(201);
    const session = (opened.json.session as { id: string }).id;
    const before = ran.length;
    for (const name of ["files.write", "files_write", "FILES.WRITE", "files.delete"]) {
      const r = await send("alice", "POST", "/v1/call", { tool: name, args: { id: "s1" }, session });
      expect(r.status, name).toBe(403);
      expect(errorOf(r)).toMatchObject({ code: "TOOL_NOT_GRANTED", details: { read_only: true } });
      const nested = await send("alice", "POST", "/v1/call", { tool: "toolbelt.call", args: { tool: name, args: { id: "s1" } }, session });
      expect(errorOf(nested).code, name).toBe("TOOL_NOT_GRANTED");
    }
    expect(ran.length).toBe(before);
    expect((await send("alice", "POST", "/v1/call", { tool: "files.read", args: { id: "s1" }, session })).status).toBe(200);
    // Outside the session the same principal may write.
    expect((await call("alice", "files.write", { id: "s1" })).status).toBe(200);
  });

  it("loads a brief's governance selector as the names it chooses", async () => {
    const opened = await send("alice", "POST", "/v1/sessions", { brief: "safe" });
    expect((opened.json.session as { declared: string[] }).declared.sort()).toEqual(["files.read", "files.write"]);
  });
});
