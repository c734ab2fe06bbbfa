// Bug (#7 sandbox, finding 6): a name that is exactly an ungranted tool's verb (`show`, git.show not
// granted) was typo-redirected to another granted tool (diagnostics.slow), which then ran with
// arguments meant for git.show. Now it answers 404 without naming git.show, and nothing runs.
// Through the whole REST app on a real listening server, with a narrow principal.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CatalogTool } from "../../../registry/contract/artifact.js";
import type { PolicyFile } from "../../../registry/contract/policy.js";
import { sha256Hex } from "../../../lambdas/core/auth.js";
import { createCallModule, type CallModule } from "../../../lambdas/http/routes/call.js";
import { startTestApi, TEST_KEYS, type TestApi } from "../../helpers/api.js";
import { testArtifactInput } from "../../helpers/artifact.js";
import { catalogTool, startLoopback, type Loopback } from "./helpers.js";

/** bob may run diagnostics only; alice everything. */
const policy = (): PolicyFile => ({
  version: 1,
  principals: [
    { id: "alice", keys: [sha256Hex(TEST_KEYS.alice)], allow: ["*"], deny: [], admin: false },
    { id: "bob", keys: [sha256Hex(TEST_KEYS.bob)], allow: ["diagnostics.*"], deny: [], admin: false },
  ],
});

const hits: string[] = [];
let upstream: Loopback;
let api: TestApi;
let calls: CallModule;

function tools(base: string): CatalogTool[] {
  const http = (path: string) => ({ kind: "http" as const, method: "POST", url: `${base}${path}`, body: { args: "{{input}}" }, output: "json" as const });
  return [
    catalogTool("git.show", http("/git/show"), { description: "Show one commit with its diff." }),
    catalogTool("git.log", http("/git/log"), { description: "List recent commits." }),
    catalogTool("diagnostics.slow", http("/diagnostics/slow"), { description: "Answer after a delay, for testing timeouts." }),
  ];
}

beforeAll(async () => {
  upstream = await startLoopback((req, res) => {
    hits.push(req.url ?? "");
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ok: true, path: req.url }));
  });
  calls = createCallModule({ env: {} });
  api = await startTestApi({ input: testArtifactInput(tools(upstream.url)), policy: policy(), briefs: [], extraRoutes: [calls] });
});

afterAll(async () => {
  await api?.close();
  await calls?.close();
  await upstream?.close();
});

const call = (as: "alice" | "bob", json: unknown) => api.request("/v1/call", { as, json });

describe("the exact verb of an ungranted tool (regression: `show` ran diagnostics.slow)", () => {
  it.each(["show", "Show", "SHOW"])("answers %j with 404, names no ungranted tool, and runs nothing", async (name) => {
    hits.length = 0;
    const res = await call("bob", { tool: name, args: { rev: "HEAD" } });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { code: string; message: string; details: { suggestions: string[] } } };
    expect(body.error).toMatchObject({ code: "TOOL_NOT_FOUND", details: { tool: name, suggestions: ["diagnostics.slow"] } });
    expect(body.error.message).toContain(`no tool you may call is named ${JSON.stringify(name)}`);
    expect(JSON.stringify(body)).not.toMatch(/git/);
    expect(hits).toEqual([]);
  });

  it("still refuses the exact full name with 403 (the caller already knows it), and runs nothing", async () => {
    hits.length = 0;
    const res = await call("bob", { tool: "git.show", args: {} });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: { code: "TOOL_NOT_GRANTED", details: { tool: "git.show" } } });
    expect(hits).toEqual([]);
  });

  it("keeps tolerant dispatch for the principal granted the verb, and for a typo nearer a granted tool", async () => {
    const shown = await call("alice", { tool: "show", args: {} });
    expect(await shown.json()).toMatchObject({ tool: "git.show", resolved_from: "show", resolution: "family_prefix" });
    const slow = await call("bob", { tool: "slw", args: {} });
    expect(await slow.json()).toMatchObject({ tool: "diagnostics.slow", resolved_from: "slw", resolution: "typo" });
  });
});
