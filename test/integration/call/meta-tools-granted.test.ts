// Bug (#7 sandbox, finding 6): a principal whose globs left out toolbelt.find and toolbelt.call saw
// both advertised on its belt, but calling them answered 403 TOOL_NOT_GRANTED. The meta-tools are now
// granted to every principal (they reach only its granted tools), so everything a belt shows is callable.
// Through the whole REST app on a real listening server, with narrow principals.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import type { PolicyFile } from "../../../registry/contract/policy.js";
import { sha256Hex } from "../../../lambdas/core/auth.js";
import { createCallModule, type CallModule } from "../../../lambdas/http/routes/call.js";
import { startTestApi, TEST_KEYS, type TestApi } from "../../helpers/api.js";
import { testArtifactInput } from "../../helpers/artifact.js";
import { catalogTool, type Loopback, metaTools, startLoopback } from "./helpers.js";

/** bob: one git tool and nothing of the toolbelt family; carol: notes.search, and `toolbelt.*` denied outright. */
const policy = (): PolicyFile => ({
  version: 1,
  principals: [
    { id: "alice", keys: [sha256Hex(TEST_KEYS.alice)], allow: ["*"], deny: [], admin: false },
    { id: "bob", keys: [sha256Hex(TEST_KEYS.bob)], allow: ["git.status"], deny: [], admin: false },
    { id: "carol", keys: [sha256Hex(TEST_KEYS.carol)], allow: ["notes.search"], deny: ["toolbelt.*"], admin: false },
  ],
});

let upstream: Loopback;
let api: TestApi;
/** The same tools without the toolbelt family, as in a registry started by registry:init. */
let bare: TestApi;
let calls: CallModule;

function tools(base: string): CatalogTool[] {
  const http = (path: string) => ({ kind: "http" as const, method: "POST", url: `${base}${path}`, body: { args: "{{input}}" }, output: "json" as const });
  const text = { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false };
  return [
    ...metaTools(),
    catalogTool("git.status", http("/git/status"), { description: "Show the working tree status." }),
    catalogTool("notes.search", http("/notes/search"), { description: "Search notes by words.", input_schema: text }),
    catalogTool("notes.create", http("/notes/create"), { description: "Create a note with a title and body.", input_schema: text }),
  ];
}

/** Arguments that satisfy each tool's schema, so a refusal can only be about grants. */
const ARGS: Record<string, unknown> = {
  "toolbelt.find": { query: "working tree status" },
  "toolbelt.call": { tool: "toolbelt.find", args: { query: "search" } },
  "toolbelt.reshape": { data: {}, mapping: {} },
  "git.status": {},
  "notes.search": { text: "milk" },
  "notes.create": { text: "milk" },
};

beforeAll(async () => {
  upstream = await startLoopback((req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ok: true, path: req.url }));
  });
  calls = createCallModule({ env: {} });
  api = await startTestApi({ input: testArtifactInput(tools(upstream.url)), policy: policy(), briefs: [], extraRoutes: [calls] });
  const withoutToolbelt = tools(upstream.url).filter((t) => t.family !== "toolbelt");
  bare = await startTestApi({ input: testArtifactInput(withoutToolbelt), policy: policy(), briefs: [], extraRoutes: [calls] });
});

afterAll(async () => {
  await api?.close();
  await bare?.close();
  await calls?.close();
  await upstream?.close();
});

type Who = "bob" | "carol";
const call = (as: Who, json: unknown) => api.request("/v1/call", { as, json });

async function belt(as: Who): Promise<string[]> {
  const res = await api.request("/v1/sessions", { as, json: {} });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { surface: { tools: { name: string; on_belt: string }[] } };
  return body.surface.tools.map((t) => t.name);
}

describe("meta-tools for principals whose globs leave them out (regression: advertised but 403)", () => {
  it.each<Who>(["bob", "carol"])("%s can call every tool its belt advertises, the meta-tools included", async (who) => {
    const names = await belt(who);
    expect(names).toEqual(expect.arrayContaining(["toolbelt.find", "toolbelt.call"]));
    for (const name of names) {
      const res = await call(who, { tool: name, args: ARGS[name] ?? {} });
      expect({ name, status: res.status }).toEqual({ name, status: 200 });
    }
  });

  it("toolbelt.call reaches only the caller's granted tools", async () => {
    const ok = await call("bob", { tool: "toolbelt.call", args: { tool: "git.status" } });
    expect(await ok.json()).toMatchObject({ tool: "toolbelt.call", result: { tool: "git.status", result: { path: "/git/status" } } });
    const refused = await call("bob", { tool: "toolbelt.call", args: { tool: "notes.create", args: { text: "x" } } });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: "TOOL_NOT_GRANTED", details: { tool: "notes.create" } } });
  });

  it("toolbelt.find shows only the caller's granted tools", async () => {
    const res = await call("carol", { tool: "toolbelt.find", args: { query: "notes", limit: 20, min_score: 0 } });
    expect(res.status).toBe(200);
    const names = ((await res.json()) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
    expect(names).toContain("notes.search");
    expect(names.filter((n) => !["notes.search", "toolbelt.find", "toolbelt.call"].includes(n))).toEqual([]);
  });

  it("other toolbelt tools still follow the globs: carol's deny of toolbelt.* refuses reshape", async () => {
    expect((await belt("carol")).includes("toolbelt.reshape")).toBe(false);
    const res = await call("carol", { tool: "toolbelt.reshape", args: ARGS["toolbelt.reshape"] });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: { code: "TOOL_NOT_GRANTED", details: { tool: "toolbelt.reshape" } } });
  });
});

describe("meta-tools in a registry without a toolbelt family (regression: registry:init's registry advertised them, call answered 404)", () => {
  it("find and call are on the belt and callable, and reach only the caller's granted tools", async () => {
    const opened = await bare.request("/v1/sessions", { as: "bob", json: {} });
    const names = ((await opened.json()) as { surface: { tools: { name: string }[] } }).surface.tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["toolbelt.find", "toolbelt.call"]));
    const found = await bare.request("/v1/call", { as: "bob", json: { tool: "toolbelt.find", args: { query: "working tree status", min_score: 0 } } });
    expect(found.status).toBe(200);
    expect(((await found.json()) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name)).toEqual(["git.status"]);
    const called = await bare.request("/v1/call", { as: "bob", json: { tool: "toolbelt_call", args: { tool: "git.status" } } });
    expect(await called.json()).toMatchObject({ tool: "toolbelt.call", result: { tool: "git.status", result: { path: "/git/status" } } });
    const refused = await bare.request("/v1/call", { as: "bob", json: { tool: "toolbelt.call", args: { tool: "notes.create", args: { text: "x" } } } });
    expect(await refused.json()).toMatchObject({ error: { code: "TOOL_NOT_GRANTED", details: { tool: "notes.create" } } });
  });
});
