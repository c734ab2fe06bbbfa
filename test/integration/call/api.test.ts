// POST /v1/call through the whole REST app: real dynalite (sessions, pins, miss log), a real
// loopback upstream, the real finder, and the test policy's principals.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import type { PolicyFile } from "../../../registry/contract/policy.js";
import { sha256Hex } from "../../../lambdas/core/auth.js";
import { MAX_LISTED_PROBLEMS } from "../../../lambdas/core/errors.js";
import { MAX_JSON_DEPTH } from "../../../lambdas/http/parse.js";
import { createCallModule, type CallModule } from "../../../lambdas/http/routes/call.js";
import { DynamoMissStore } from "../../../lambdas/stores/misses.js";
import { startTestApi, TEST_KEYS, type TestApi } from "../../helpers/api.js";
import { testArtifactInput } from "../../helpers/artifact.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";
import { catalogTool, latch, type Loopback, metaTools, startLoopback } from "./helpers.js";

/** alice: everything but admin.*; bob: git.* only; carol: everything, and admin (reads the miss log). */
const policy = (): PolicyFile => ({
  version: 1,
  principals: [
    { id: "alice", keys: [sha256Hex(TEST_KEYS.alice)], allow: ["*"], deny: ["admin.*"], admin: false },
    { id: "bob", keys: [sha256Hex(TEST_KEYS.bob)], allow: ["git.*", "toolbelt.*"], deny: [], admin: false },
    { id: "carol", keys: [sha256Hex(TEST_KEYS.carol)], allow: ["*"], deny: [], admin: true },
  ],
});

const hits: string[] = [];
const slow = latch();
let slowArrived: () => void;
const slowSeen = new Promise<void>((r) => (slowArrived = r));
let upstream: Loopback;
let dynamo: TestDynamo;
let api: TestApi;
let calls: CallModule;

function tools(base: string): CatalogTool[] {
  const http = (path: string, method = "POST") => ({
    kind: "http" as const,
    method,
    url: `${base}${path}`,
    body: { args: "{{input}}" },
    output: "json" as const,
  });
  const text = { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false };
  return [
    ...metaTools(),
    catalogTool("notes.create", http("/notes/create"), { description: "Create a note with a title and body.", input_schema: text }),
    catalogTool("notes.search", http("/notes/search"), { description: "Search notes by words.", input_schema: text }),
    catalogTool("notes.export", http("/notes/export"), { description: "Export every note as one archive." }),
    catalogTool("issues.search", http("/issues/search"), { description: "Search issues in the tracker by words.", input_schema: text }),
    catalogTool("git.status", http("/git/status"), { description: "Show the working tree status." }),
    catalogTool("admin.reset", http("/admin/reset"), { description: "Reset the whole workspace, wiping every note.", governance: { destructive: true } }),
    catalogTool("admin.audit", http("/admin/audit"), { description: "Read the audit trail of the workspace." }),
  ];
}

beforeAll(async () => {
  upstream = await startLoopback((req, res, body) => {
    hits.push(req.url ?? "");
    if (req.url === "/notes/export") {
      slowArrived();
      void slow.promise.then(() => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"exported":true}');
      });
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ok: true, path: req.url, received: body ? JSON.parse(body) : null }));
  });
  dynamo = await startDynalite();
  calls = createCallModule({ env: {}, misses: new DynamoMissStore(dynamo.client, dynamo.table) });
  api = await startTestApi({
    input: testArtifactInput(tools(upstream.url)),
    policy: policy(),
    briefs: [],
    dynamo,
    extraRoutes: [calls],
  });
});

afterAll(async () => {
  slow.release();
  await api.close();
  await calls.close();
  await dynamo.close();
  await upstream.close();
});

const call = (as: "alice" | "bob" | "carol", json: unknown) => api.request("/v1/call", { as, json });

describe("POST /v1/call", () => {
  it("calls a granted tool and answers {tool, result}", async () => {
    const res = await call("alice", { tool: "notes.create", args: { text: "milk" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ tool: "notes.create", result: { ok: true, path: "/notes/create", received: { args: { text: "milk" } } } });
  });

  it("is described in the OpenAPI document, and other methods get 405", async () => {
    const doc = (await (await api.request("/v1/openapi.json", { as: null })).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
    expect(doc.paths["/v1/call"]?.post?.operationId).toBe("call");
    expect(doc.paths["/v1/admin/misses"]?.get?.operationId).toBe("listMisses");
    const res = await api.request("/v1/call", { as: "alice", method: "GET" });
    expect(res.status).toBe(405);
  });

  it("answers other calls while a slow upstream holds one", async () => {
    const order: string[] = [];
    const slowCall = call("alice", { tool: "notes.export", args: {} }).then(async (r) => {
      order.push("slow");
      return r;
    });
    await slowSeen;
    const fast = await call("bob", { tool: "git.status", args: {} });
    order.push("fast");
    expect(fast.status).toBe(200);
    slow.release();
    expect((await slowCall).status).toBe(200);
    expect(order).toEqual(["fast", "slow"]);
  });

  it("requires an API key", async () => {
    const res = await api.request("/v1/call", { as: null, json: { tool: "notes.create", args: { text: "x" } } });
    expect(res.status).toBe(401);
  });

  it("answers a malformed body with 400 and the offending fields", async () => {
    const res = await call("alice", { tool: "notes.create", args: "text=milk", extra: 1 });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; details: { issues: { path: string }[] } } };
    expect(body.error.code).toBe("INVALID_REQUEST");
    expect(body.error.details.issues.map((i) => i.path).sort()).toEqual(["args", "extra"]);
  });

  it("answers deeply nested arguments with 400, not a 500 from a stack overflow (bug: structuredClone RangeError)", async () => {
    const nested = (depth: number) => `{"tool":"toolbelt.reshape","args":{"data":${"[".repeat(depth)}${"]".repeat(depth)},"mapping":{}}}`;
    const res = await api.request("/v1/call", { as: "alice", method: "POST", headers: { "content-type": "application/json" }, body: nested(20_000) });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: { code: "INVALID_REQUEST", details: { limit_depth: MAX_JSON_DEPTH, issues: [{ path: "(body)", code: "too_deep" }] } },
    });
    // At the limit the call goes through to the tool.
    const ok = await api.request("/v1/call", {
      as: "alice",
      method: "POST",
      headers: { "content-type": "application/json" },
      body: nested(MAX_JSON_DEPTH - 2),
    });
    expect(ok.status).toBe(200);
  });

  it("answers invalid arguments with 422 listing every problem by JSON path", async () => {
    const res = await call("alice", { tool: "notes.create", args: { text: 5, title: "x" } });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({
      error: {
        code: "INVALID_ARGUMENTS",
        details: {
          tool: "notes.create",
          problems: [
            { path: "$.title", keyword: "additionalProperties" },
            { path: "$.text", keyword: "type", message: "must be of type string, got number 5" },
          ],
        },
      },
    });
  });

  // 5,000 unknown keys in a 60 KB body once produced a 920 KB error answer (15× amplification).
  it("5,000 unknown keys made a 920 KB error: a request or argument error lists MAX_LISTED_PROBLEMS problems and counts the rest", async () => {
    const keys = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`key_${String(i).padStart(4, "0")}`, 1]));
    for (const [sent, code, list, more] of [
      [{ tool: "notes.create", args: { text: "x", ...keys } }, "INVALID_ARGUMENTS", "problems", "more_problems"],
      [{ tool: "notes.create", args: { text: "x" }, ...keys }, "INVALID_REQUEST", "issues", "more_issues"],
    ] as const) {
      const body = JSON.stringify(sent);
      const res = await api.request("/v1/call", { as: "alice", method: "POST", headers: { "content-type": "application/json" }, body });
      const answer = await res.text();
      expect(body.length).toBeGreaterThan(60_000);
      expect(answer.length).toBeLessThan(body.length / 10);
      const { error } = JSON.parse(answer) as { error: { code: string; message: string; details: Record<string, unknown> } };
      expect(error.code).toBe(code);
      expect(error.details[list]).toHaveLength(MAX_LISTED_PROBLEMS);
      expect(error.details[more]).toBe(5000 - MAX_LISTED_PROBLEMS);
      expect(error.message).toMatch(new RegExp(`; and ${5000 - MAX_LISTED_PROBLEMS} more$`));
    }
  });

  // Caller-caused failures were logged at error level with stacks, beside the real failures.
  it("caller-caused failures were logged at error with stacks: a 4xx is logged at warn with code and message, no stack", async () => {
    const before = api.logger.entries.length;
    const res = await call("alice", { tool: "notes.create", args: { text: 5 } });
    expect(res.status).toBe(422);
    const requestId = res.headers.get("x-request-id");
    // (Each call also writes an info audit record; failures are what this pins.)
    const logged = api.logger.entries.slice(before).filter((e) => e.level !== "info");
    expect(logged).toEqual([
      {
        level: "warn",
        message: "request refused",
        fields: expect.objectContaining({
          request_id: requestId,
          code: "INVALID_ARGUMENTS",
          message: expect.stringContaining("$.text must be of type string"),
        }),
      },
    ]);
    expect(JSON.stringify(logged)).not.toContain("stack");
  });

  it("pins the called tool on the session: the surface shows it afterwards", async () => {
    const opened = await api.request("/v1/sessions", { as: "alice", json: {} });
    const { session } = (await opened.json()) as { session: { id: string } };
    const before = (await (await api.request(`/v1/sessions/${session.id}/surface`, { as: "alice" })).json()) as {
      surface: { pins: { tools: { name: string }[] } };
    };
    expect(before.surface.pins.tools.map((t) => t.name)).not.toContain("notes.search");

    const res = await call("alice", { tool: "notes.search", args: { text: "milk" }, session: session.id });
    expect(res.status).toBe(200);

    const after = (await (await api.request(`/v1/sessions/${session.id}/surface`, { as: "alice" })).json()) as {
      surface: { pins: { tools: { name: string }[] }; tools: { name: string; on_belt: string }[] };
    };
    expect(after.surface.pins.tools.map((t) => t.name)).toContain("notes.search");
  });

  it("refuses another principal's session before running anything", async () => {
    const opened = await api.request("/v1/sessions", { as: "carol", json: {} });
    const { session } = (await opened.json()) as { session: { id: string } };
    const n = hits.length;
    const res = await call("alice", { tool: "notes.create", args: { text: "x" }, session: session.id });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("SESSION_NOT_FOUND");
    expect(hits.length).toBe(n);
  });

  it("resolves near-misses, says what it resolved from, and records each in the miss log", async () => {
    const cases: [string, string, string][] = [
      ["Notes.Create", "notes.create", "case"],
      ["notes-create", "notes.create", "separators"],
      ["status", "git.status", "family_prefix"],
      ["notes.craete", "notes.create", "typo"],
    ];
    for (const [sent, tool, resolution] of cases) {
      const res = await call("alice", { tool: sent, args: tool === "git.status" ? {} : { text: "x" } });
      expect(res.status, sent).toBe(200);
      expect(await res.json(), sent).toMatchObject({ tool, resolved_from: sent, resolution });
    }
    const misses = await api.request("/v1/admin/misses?limit=50", { as: "carol" });
    expect(misses.status).toBe(200);
    const { misses: list } = (await misses.json()) as { misses: { canonical: string; names: string[]; resolved_to?: string; last_principal: string }[] };
    expect(list).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ canonical: "notes_create", names: ["Notes.Create", "notes-create"], resolved_to: "notes.create", last_principal: "alice" }),
        expect.objectContaining({ canonical: "status", resolved_to: "git.status" }),
      ]),
    );
  });

  it("calls a tool by its model-safe name as an exact name: no resolved_from, no miss recorded", async () => {
    const res = await call("alice", { tool: "notes_search", args: { text: "x" } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ tool: "notes.search", result: { path: "/notes/search" } });
    expect(body).not.toHaveProperty("resolved_from");
    const misses = await api.request("/v1/admin/misses?name=notes_search", { as: "carol" });
    expect(await misses.json()).toEqual({ name: "notes_search", events: [] });
    const refused = await call("alice", { tool: "admin_reset", args: {} });
    expect(refused.status).toBe(403);
  });

  it("shows each found tool's model-safe name beside its name", async () => {
    const res = await api.request("/v1/find", { as: "alice", json: { query: "search notes by words" } });
    const found = ((await res.json()) as { tools: { name: string; model_name: string }[] }).tools;
    expect(found.find((t) => t.name === "notes.search")?.model_name).toBe("notes_search");
  });

  it("answers an ambiguous near-miss with 404 and the granted candidates", async () => {
    const res = await call("alice", { tool: "search", args: { text: "x" } });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { code: string; details: { suggestions: string[]; ambiguous: boolean } } };
    expect(body.error.code).toBe("TOOL_NOT_FOUND");
    expect(body.error.details.ambiguous).toBe(true);
    expect(body.error.details.suggestions.slice(0, 2)).toEqual(["issues.search", "notes.search"]);
  });

  it("keeps the miss log for admins only", async () => {
    expect((await api.request("/v1/admin/misses", { as: "alice" })).status).toBe(403);
    const res = await api.request("/v1/admin/misses?name=search", { as: "carol" });
    const body = (await res.json()) as { events: { name: string; principal: string; outcome: string }[] };
    expect(body.events[0]).toMatchObject({ name: "search", principal: "alice", outcome: "ambiguous" });
  });

  it("nests toolbelt.call through the same grants", async () => {
    const ok = await call("bob", { tool: "toolbelt.call", args: { tool: "git.status" } });
    expect(await ok.json()).toMatchObject({ tool: "toolbelt.call", result: { tool: "git.status" } });
    const refused = await call("bob", { tool: "toolbelt.call", args: { tool: "notes.create", args: { text: "x" } } });
    expect(refused.status).toBe(403);
  });

  it("runs toolbelt.find with the caller's grants", async () => {
    const res = await call("bob", { tool: "toolbelt.find", args: { query: "search notes by words" } });
    const found = ((await res.json()) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
    expect(found.every((n) => n.startsWith("git.") || n.startsWith("toolbelt."))).toBe(true);
  });
});

/** Every spelling an agent (or an attacker) might try: case, separators, no prefix, and all one-edit typos. */
function spellings(name: string): string[] {
  const out = new Set<string>([name, name.toUpperCase(), name[0]!.toUpperCase() + name.slice(1)]);
  for (const sep of ["_", "-", ".", "__", "-."]) out.add(name.replace(".", sep));
  const verb = name.slice(name.indexOf(".") + 1);
  out.add(verb).add(verb.toUpperCase());
  for (let i = 0; i < name.length; i++) {
    out.add(name.slice(0, i) + name.slice(i + 1)); // deletion
    if (i + 1 < name.length) out.add(name.slice(0, i) + name[i + 1] + name[i] + name.slice(i + 2)); // transposition
    for (const c of ["x", "e", "."]) out.add(name.slice(0, i) + c + name.slice(i + 1)); // substitution
    out.add(name.slice(0, i) + "z" + name.slice(i)); // insertion
  }
  return [...out];
}

describe("a tool found through search but not granted", () => {
  it("is found by a principal granted it", async () => {
    const res = await api.request("/v1/find", { as: "carol", json: { query: "reset the whole workspace" } });
    const found = ((await res.json()) as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(found).toContain("admin.reset");
  });

  it("can never be called by alice under any spelling, directly or through toolbelt.call", async () => {
    const before = hits.filter((h) => h.startsWith("/admin/")).length;
    const names = spellings("admin.reset");
    expect(names.length).toBeGreaterThan(60);
    for (const name of names) {
      for (const body of [
        { tool: name, args: {} },
        { tool: "toolbelt.call", args: { tool: name, args: {} } },
      ]) {
        const res = await call("alice", body);
        const text = await res.text();
        if (res.status === 200) {
          const out = JSON.parse(text) as { tool: string; result: { tool?: string } };
          expect(out.tool, name).not.toMatch(/^admin\./);
          expect(out.result.tool ?? "", name).not.toMatch(/^admin\./);
        } else {
          expect([403, 404], `${name}: ${text}`).toContain(res.status);
          // The exact names (full and model-safe) are refused as not granted; no other spelling learns the tool's name.
          if (name !== "admin.reset" && name !== "admin_reset") expect(text.split(name).join("<sent>"), name).not.toMatch(/admin\.(reset|audit)/);
        }
      }
    }
    expect(hits.filter((h) => h.startsWith("/admin/")).length).toBe(before);
  });
});
