// Request parsing and error mapping of the HTTP layer: every malformed body is a 4xx, never a 500.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../../lambdas/http/app.js";
import { createDeps } from "../../../../lambdas/http/deps.js";
import { memoryLogger } from "../../../../lambdas/http/logger.js";
import { DEFAULT_HTTP_LIMITS, DEFAULT_SURFACE_BOUNDS, loadConfig } from "../../../../lambdas/config.js";
import { parseBriefs } from "../../../../lambdas/core/deployment-files.js";
import { jsonDepth } from "../../../../lambdas/http/parse.js";
import { testBriefs, testPolicy, TEST_KEYS } from "../../../helpers/api.js";
import { memoryTestArtifact } from "../../../helpers/artifact.js";
import { MemorySessionStore } from "../../../helpers/memory-store.js";

async function app() {
  const deps = createDeps({
    artifact: await memoryTestArtifact(),
    store: new MemorySessionStore(),
    policy: testPolicy(),
    briefs: testBriefs(),
    config: { http: DEFAULT_HTTP_LIMITS, surface: DEFAULT_SURFACE_BOUNDS, sessionTtlSecs: 60 },
    logger: memoryLogger(),
  });
  return createApp(deps);
}

describe("request bodies (property: any body is answered with 2xx or 4xx, never 5xx)", () => {
  it("holds for arbitrary JSON values and arbitrary text on every POST route", async () => {
    const a = await app();
    const body = fc.oneof(
      fc.json(),
      fc.string(),
      fc.jsonValue().map((v) => JSON.stringify({ query: v })),
      fc.jsonValue().map((v) => JSON.stringify({ brief: v })),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("/v1/find", "/v1/sessions"), body, async (path, text) => {
        const res = await a.request(path, {
          method: "POST",
          body: text,
          headers: { authorization: `Bearer ${TEST_KEYS.alice}`, "content-type": "application/json" },
        });
        expect(res.status).toBeLessThan(500);
        const json = (await res.json()) as { error?: { code: string; message: string } };
        if (res.status >= 400) expect(json.error?.message).toBeTruthy();
      }),
      { numRuns: 200 },
    );
  });
});

describe("paths (property: any path and method is answered below 500)", () => {
  it("holds for arbitrary session ids, percent signs and methods", async () => {
    const a = await app();
    const segment = fc.oneof(fc.string(), fc.stringMatching(/^[%A-Za-z0-9._~-]{0,40}$/));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH"), segment, async (method, seg) => {
        const path = `/v1/sessions/${seg.replace(/[/?#\s]/g, "")}/surface`;
        const res = await a.request(path, { method, headers: { authorization: `Bearer ${TEST_KEYS.alice}` } });
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 200 },
    );
  });
});

describe("config and briefs", () => {
  it("parses the environment once, with defaults and checked numbers", () => {
    const c = loadConfig({ TOOLBELT_SURFACE_MAX_TOOLS: "12", TOOLBELT_ALWAYS_LOADED: "a.b, c.*", TOOLBELT_POLICY: '{"principals":[]}' });
    expect(c.surface).toMatchObject({ maxTools: 12, maxTokens: 1500, manifestMaxTokens: 1000 });
    expect(loadConfig({ TOOLBELT_SURFACE_MAX_TOKENS: "3000", TOOLBELT_MANIFEST_MAX_TOKENS: "400" }).surface).toMatchObject({
      maxTokens: 3000,
      manifestMaxTokens: 400,
    });
    expect(c.alwaysLoaded).toEqual(["a.b", "c.*"]);
    expect(c.policyJson).toBe('{"principals":[]}');
    expect(c.table).toBe("toolbelt");
    expect(() => loadConfig({ TOOLBELT_PIN_BUDGET_BYTES: "lots" })).toThrow(/TOOLBELT_PIN_BUDGET_BYTES must be a positive integer/);
    expect(() => loadConfig({ TOOLBELT_POLICY: "/no/such/file.json" })).toThrow(/neither JSON nor an existing file/);
  });

  it("reads briefs as an array or {briefs} with the contract's strict schema", () => {
    expect(parseBriefs(JSON.stringify(testBriefs())).map((b) => b.name)).toEqual(["review", "notes"]);
    expect(parseBriefs({ briefs: testBriefs() })).toHaveLength(2);
    expect(() => parseBriefs([{ name: "x", description: "d", tools: [], extra: 1 }])).toThrow(/^invalid brief briefs\[0\]: /);
    expect(() => parseBriefs("[{}]", "TOOLBELT_BRIEFS")).toThrow(/^invalid brief TOOLBELT_BRIEFS\[0\]: /);
  });
});

describe("jsonDepth", () => {
  it("counts nesting of arrays and objects, not brackets inside strings or after escapes", () => {
    expect(jsonDepth("5")).toBe(0);
    expect(jsonDepth('{"a":[1,{"b":[]}]}')).toBe(4);
    expect(jsonDepth('{"a":"[[[{{\\"[["}')).toBe(1);
    expect(jsonDepth('["\\\\",[]]')).toBe(2);
  });
});
