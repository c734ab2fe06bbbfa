// The REST app through a real listening server on 127.0.0.1 and real dynalite: every route, auth,
// grants, session ownership, briefs, the error shape and the codes it can answer with.
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerOf, type AppEnv } from "../../../lambdas/http/env.js";
import { ARTIFACT_FORMAT_VERSION } from "../../../registry/contract/artifact.js";
import { ERROR_STATUS } from "../../../lambdas/core/errors.js";
import { ToolbeltError } from "../../../lambdas/core/errors.js";
import { FindBody } from "../../../lambdas/contract/find.js";
import { jsonSchema } from "../../../lambdas/contract/schema.js";
import { OpenSessionBody } from "../../../lambdas/contract/sessions.js";
import type { SessionStore } from "../../../lambdas/core/ports.js";
import { startTestApi, type TestApi } from "../../helpers/api.js";
import { startDynalite, type TestDynamo } from "../../helpers/dynalite.js";

type ErrorJson = { error: { code: string; message: string; details: Record<string, unknown> } };

async function expectError(res: Response, code: keyof typeof ERROR_STATUS): Promise<ErrorJson> {
  const body = (await res.json()) as ErrorJson;
  expect({ status: res.status, code: body.error?.code }).toEqual({ status: ERROR_STATUS[code], code });
  expect(Object.keys(body.error).sort()).toEqual(["code", "details", "message"]);
  expect(body.error.message.length).toBeGreaterThan(10);
  return body;
}

let dynamo: TestDynamo;
let api: TestApi;

beforeAll(async () => {
  dynamo = await startDynalite();
  api = await startTestApi({ dynamo });
});
afterAll(async () => {
  await api?.close();
  await dynamo?.close();
});

describe("GET /v1/health and /v1/openapi.json (public)", () => {
  it("reports the artifact manifest without a key", async () => {
    const res = await api.request("/v1/health", { as: null });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toMatch(/\S/);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      status: "ok",
      format_version: ARTIFACT_FORMAT_VERSION,
      registry_hash: api.artifact.manifest.registry_hash,
      counts: { tools: 10, families: 4 },
      always_loaded: ["toolbelt.reshape"],
    });
  });

  it("generates the OpenAPI document from the zod schemas the routes parse with", async () => {
    const res = await api.request("/v1/openapi.json", { as: null });
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>>;
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths).sort()).toEqual([
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-protected-resource/{proxy+}",
      "/v1/find",
      "/v1/health",
      "/v1/openapi.json",
      "/v1/sessions",
      "/v1/sessions/{id}/surface",
      "/v1/tools/export",
      "/v1/tools/search",
    ]);
    const json = (s: Parameters<typeof jsonSchema>[0]) => JSON.parse(JSON.stringify(jsonSchema(s, "input")));
    expect(doc.paths["/v1/find"]?.post?.requestBody?.content["application/json"]?.schema).toEqual(json(FindBody));
    expect(doc.paths["/v1/sessions"]?.post?.requestBody?.content["application/json"]?.schema).toEqual(json(OpenSessionBody));
    // Strict bodies: the document says unknown fields are refused, as the route does.
    expect(json(FindBody)).toMatchObject({ additionalProperties: false, required: ["query"] });
  });
});

describe("authentication", () => {
  it("refuses a request without a key with 401 and a Bearer challenge", async () => {
    const res = await api.request("/v1/find", { as: null, json: { query: "commits" } });
    expect(res.headers.get("www-authenticate")).toContain("Bearer");
    const body = await expectError(res, "UNAUTHENTICATED");
    expect(body.error.message).toContain("Authorization: Bearer");
  });

  it("refuses a wrong key and a malformed header with 401", async () => {
    const wrong = await fetch(`${api.url}/v1/find`, {
      method: "POST",
      headers: { authorization: "Bearer not-a-key", "content-type": "application/json" },
      body: JSON.stringify({ query: "commits" }),
    });
    expect((await expectError(wrong, "UNAUTHENTICATED")).error.message).toBe("unknown API key");
    const basic = await fetch(`${api.url}/v1/sessions`, { method: "POST", headers: { authorization: "Basic YWxpY2U6eA==" } });
    await expectError(basic, "UNAUTHENTICATED");
  });
});

describe("POST /v1/find", () => {
  it("shows only granted tools (bob: git.* only)", async () => {
    const res = await api.request("/v1/find", { as: "bob", json: { query: "show", limit: 20, min_score: 0, schemas: "all" } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { tools: { name: string }[]; always: { name: string }[] };
    expect(body.tools.length).toBeGreaterThan(0);
    expect(body.tools.every((t) => t.name.startsWith("git."))).toBe(true);
    // The always-loaded reshape is not granted to bob either.
    expect(body.always).toEqual([]);
  });

  it("never shows a denied tool (alice is denied admin.*)", async () => {
    const res = await api.request("/v1/find", { json: { query: "reset the whole workspace", min_score: 0, limit: 50 } });
    const body = (await res.json()) as { tools: { name: string }[] };
    expect(body.tools.map((t) => t.name)).not.toContain("admin.reset");
    const carol = await api.request("/v1/find", { as: "carol", json: { query: "audit trail" } });
    expect(((await carol.json()) as { tools: { name: string }[] }).tools.map((t) => t.name)).toContain("admin.audit");
  });

  it("answers with the find contract and honours schemas=false", async () => {
    const res = await api.request("/v1/find", { json: { query: "recent commits", schemas: false } });
    const body = (await res.json()) as { mode: string; verdict: string; tools: Record<string, unknown>[] };
    expect(body.mode).toMatch(/keyword|decision/);
    expect(body.verdict).toBe("match");
    expect(body.tools[0]).toMatchObject({ name: "git.log" });
    expect(body.tools[0]).not.toHaveProperty("input_schema");
    expect(body).not.toHaveProperty("always");
  });

  it("leaves the always-loaded tools out by default (a client learns them once from the surface) and lists them with schemas all", async () => {
    const lean = (await (await api.request("/v1/find", { json: { query: "recent commits" } })).json()) as Record<string, unknown>;
    expect(lean).not.toHaveProperty("always");
    const all = (await (await api.request("/v1/find", { json: { query: "recent commits", schemas: "all" } })).json()) as { always: { name: string }[] };
    expect(all.always.map((t) => t.name)).toEqual(["toolbelt.reshape"]);
    const bad = await api.request("/v1/find", { json: { query: "recent commits", schemas: "some" } });
    expect(bad.status).toBe(400);
  });

  it("explains the matches when asked (explain: true), and refuses a non-boolean explain with a 400", async () => {
    const res = await api.request("/v1/find", { json: { query: "recent commits", schemas: false, explain: true, limit: 1 } });
    const body = (await res.json()) as { tools: { name: string; explain: { word: string; fields: string[] }[] }[] };
    expect(body.tools[0]!.name).toBe("git.log");
    expect(body.tools[0]!.explain.map((m) => m.word)).toContain("commits");
    expect((await api.request("/v1/find", { json: { query: "recent commits", explain: "yes" } })).status).toBe(400);
  });

  it("answers 404 naming the caller's families for a family it may use no tool of (regression: a misspelt family answered verdict none)", async () => {
    const own = await api.request("/v1/find", { as: "bob", json: { query: "diff", family: "git" } });
    expect(((await own.json()) as { verdict: string }).verdict).toBe("match");
    const typo = await expectError(await api.request("/v1/find", { as: "bob", json: { query: "diff", family: "gti" } }), "NOT_FOUND");
    expect(typo.error).toMatchObject({
      message: 'no family named "gti" has a tool you may use; omit `family` or use one of the listed names',
      details: { family: "gti", available: ["git"] },
    });
    // A family that exists but holds nothing bob may use is not told apart from one that does not exist.
    const notes = await expectError(await api.request("/v1/find", { as: "bob", json: { query: "note", family: "notes" } }), "NOT_FOUND");
    expect(notes.error.details).toEqual({ family: "notes", available: ["git"] });
  });

  it("checks that a named session is the caller's", async () => {
    const opened = (await (await api.request("/v1/sessions", { as: "bob", json: {} })).json()) as { session: { id: string } };
    const mine = await api.request("/v1/find", { as: "bob", json: { query: "diff", session: opened.session.id } });
    expect(mine.status).toBe(200);
    const found = (await mine.json()) as { session: string; tools: { name: string; on_belt: boolean }[] };
    expect(found.session).toBe(opened.session.id);
    // bob's 4 granted tools are under the bounds, so everything is on his belt.
    expect(found.tools.length).toBeGreaterThan(0);
    expect(found.tools.every((t) => t.on_belt)).toBe(true);
    await expectError(await api.request("/v1/find", { as: "alice", json: { query: "diff", session: opened.session.id } }), "SESSION_NOT_FOUND");
  });
});

describe("sessions and surfaces", () => {
  it("opens a session without a body and returns its surface", async () => {
    const res = await fetch(`${api.url}/v1/sessions`, { method: "POST", headers: { authorization: "Bearer alice-key-0123" } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { session: { id: string; brief: null }; surface: { narrowed: boolean; tools: { name: string }[] } };
    expect(res.headers.get("location")).toBe(`/v1/sessions/${body.session.id}/surface`);
    expect(body.session.brief).toBeNull();
    expect(body.surface.narrowed).toBe(false);
    expect(body.surface.tools.map((t) => t.name).slice(0, 2)).toEqual(["toolbelt.find", "toolbelt.call"]);
  });

  it("serves the surface to its owner and 404 to another principal (not its content)", async () => {
    const opened = (await (await api.request("/v1/sessions", { as: "carol", json: { brief: "notes" } })).json()) as { session: { id: string } };
    const own = await api.request(`/v1/sessions/${opened.session.id}/surface`, { as: "carol" });
    expect(own.status).toBe(200);
    const other = await api.request(`/v1/sessions/${opened.session.id}/surface`, { as: "alice" });
    const body = await expectError(other, "SESSION_NOT_FOUND");
    expect(JSON.stringify(body)).not.toContain("notes.");
    const missing = await api.request(`/v1/sessions/${"A".repeat(24)}/surface`, { as: "carol" });
    expect(await expectError(missing, "SESSION_NOT_FOUND")).toEqual({
      error: {
        code: "SESSION_NOT_FOUND",
        message: `no session ${"A".repeat(24)} for this API key: open one with POST /v1/sessions`,
        details: { session: "A".repeat(24) },
      },
    });
    await expectError(await api.request(`/v1/sessions/bad%20id/surface`, { as: "carol" }), "SESSION_NOT_FOUND");
  });

  it("pre-loads a brief as declared ∩ granted: a declared tool the principal is not granted is not on the belt", async () => {
    // The review brief declares git.diff, git.blame and admin.reset; alice is denied admin.*.
    const res = await api.request("/v1/sessions", { as: "alice", json: { brief: "review" } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as {
      session: { brief: string; declared: string[] };
      surface: { tools: { name: string; on_belt: string }[] };
    };
    expect(body.session).toMatchObject({ brief: "review", declared: ["git.blame", "git.diff"] });
    const names = body.surface.tools.map((t) => t.name);
    expect(names).not.toContain("admin.reset");
    expect(
      body.surface.tools
        .filter((t) => t.on_belt === "declared")
        .map((t) => t.name)
        .sort(),
    ).toEqual(["git.blame", "git.diff"]);
    // The brief is a floor, not a ceiling: everything granted stays findable.
    const found = await api.request("/v1/find", { json: { query: "create a note", min_score: 0.1 } });
    expect(((await found.json()) as { tools: { name: string }[] }).tools.map((t) => t.name)).toContain("notes.create");
  });

  it("refuses an unknown brief with 404 and the names it knows", async () => {
    const body = await expectError(await api.request("/v1/sessions", { json: { brief: "nope" } }), "NOT_FOUND");
    expect(body.error.details).toEqual({ brief: "nope", available: ["notes", "review"] });
  });

  it("returns the capability manifest of the granted families only (registry examples first)", async () => {
    const res = await api.request("/v1/sessions", { as: "bob", json: {} });
    const body = (await res.json()) as { surface: { manifest: unknown } };
    expect(body.surface.manifest).toEqual({
      families: [{ name: "git", description: "The git family.", tool_count: 4, examples: ["log", "diff", "status"] }],
      omitted: { families: 0, tools: 0 },
      note: "Every family you may use is listed (1); toolbelt.find searches all their tools.",
    });
  });
});

describe("errors: one shape, stable codes, never a 500 for client mistakes", () => {
  it("BAD_JSON for malformed JSON", async () => {
    const res = await api.request("/v1/find", { method: "POST", body: '{"query": ', headers: { "content-type": "application/json" } });
    expect((await expectError(res, "BAD_JSON")).error.message).toMatch(/^request body is not valid JSON: /);
  });

  it("names a number's own bound only (regression: limit 1e308 also said 'expected int to be <=9007199254740991')", async () => {
    const body = await expectError(await api.request("/v1/find", { json: { query: "x", limit: 1e308 } }), "INVALID_REQUEST");
    expect(body.error.details.issues).toEqual([{ path: "limit", code: "too_big", message: "limit: Too big: expected number to be <=50" }]);
  });

  it("INVALID_REQUEST lists every issue with its path: wrong types, missing and unknown fields", async () => {
    const res = await api.request("/v1/find", { json: { limit: "ten", extra: 1, schemas: "yes" } });
    const body = await expectError(res, "INVALID_REQUEST");
    expect(body.error.details.issues).toEqual([
      { path: "query", code: "missing_field", message: "query is required (string)" },
      { path: "limit", code: "invalid_type", message: "limit: expected number, received string" },
      { path: "schemas", code: "invalid_value", message: 'schemas: Invalid option: expected one of "top"|"all"|"none"|true|false' },
      {
        path: "extra",
        code: "unknown_field",
        message:
          'unknown field "extra": remove it (allowed: query, limit, min_score, family, schemas, explain, mode, min_probability, chunk_size, model, session)',
      },
    ]);
    const unknown = await api.request("/v1/sessions", { json: { brief: "review", tools: ["x"] } });
    expect((await expectError(unknown, "INVALID_REQUEST")).error.message).toContain('unknown field "tools"');
    await expectError(await api.request("/v1/find", { json: ["query"] }), "INVALID_REQUEST");
    await expectError(await api.request("/v1/find", { json: { query: "   " } }), "INVALID_REQUEST");
    await expectError(await api.request("/v1/find", { method: "POST", headers: { "content-type": "application/json" } }), "INVALID_REQUEST");
  });

  it("UNSUPPORTED_MEDIA_TYPE for a non-JSON body", async () => {
    const res = await api.request("/v1/find", { method: "POST", body: "query=commits", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect((await expectError(res, "UNSUPPORTED_MEDIA_TYPE")).error.message).toContain("application/json");
    const none = await api.request("/v1/sessions", { method: "POST", body: "{}", headers: { "content-type": "text/plain" } });
    await expectError(none, "UNSUPPORTED_MEDIA_TYPE");
  });

  it("PAYLOAD_TOO_LARGE for a 1 MB body, with or without a content length", async () => {
    const big = JSON.stringify({ query: "x".repeat(1024 * 1024) });
    const res = await api.request("/v1/find", { method: "POST", body: big, headers: { "content-type": "application/json" } });
    expect((await expectError(res, "PAYLOAD_TOO_LARGE")).error.details).toEqual({ limit_bytes: 64 * 1024 });
    // A streamed body has no content-length; the limit still holds.
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(big));
        c.close();
      },
    });
    const streamed = await fetch(`${api.url}/v1/find`, {
      method: "POST",
      body: stream,
      headers: { authorization: "Bearer alice-key-0123", "content-type": "application/json" },
      duplex: "half",
    } as RequestInit);
    await expectError(streamed, "PAYLOAD_TOO_LARGE");
  });

  it("URI_TOO_LONG for a 10 KB query string", async () => {
    const res = await api.request(`/v1/find?q=${"a".repeat(10 * 1024)}`, { json: { query: "commits" } });
    expect((await expectError(res, "URI_TOO_LONG")).error.message).toContain("send parameters in the JSON body");
    await expectError(await api.request(`/v1/sessions/${"a".repeat(5000)}/surface`), "URI_TOO_LONG");
  });

  it("the URL limit counts the path and query exactly: 4,096 characters pass, 4,097 do not", async () => {
    const path = (chars: number) => `/v1/find?q=${"a".repeat(chars - "/v1/find?q=".length)}`;
    const atLimit = await api.request(path(4096), { json: { query: "commits" } });
    expect(atLimit.status).toBe(200);
    const over = await expectError(await api.request(path(4097), { json: { query: "commits" } }), "URI_TOO_LONG");
    expect(over.error.message).toContain("URL is 4097 characters; the limit is 4096");
  });

  it("METHOD_NOT_ALLOWED on a known path, NOT_FOUND on an unknown one", async () => {
    expect((await expectError(await api.request("/v1/find"), "METHOD_NOT_ALLOWED")).error.details).toEqual({ allow: ["POST"] });
    await expectError(await api.request("/v1/sessions/x/surface", { method: "DELETE" }), "METHOD_NOT_ALLOWED");
    await expectError(await api.request("/v1/nowhere"), "NOT_FOUND");
    await expectError(await api.request("/elsewhere", { as: null }), "NOT_FOUND");
  });
});

describe("store failures", () => {
  const failing = (err: Error): SessionStore => ({
    create: async () => Promise.reject(err),
    get: async () => Promise.reject(err),
    putPin: async () => Promise.reject(err),
    dropPin: async () => Promise.reject(err),
    renew: async () => Promise.reject(err),
  });

  it("INTERNAL: a 500 body carries only a request id; the cause is logged", async () => {
    const broken = await startTestApi({ dynamo, store: failing(new Error("secret connection string leaked")) });
    try {
      const res = await broken.request("/v1/sessions", { json: {} });
      const body = await expectError(res, "INTERNAL");
      const requestId = res.headers.get("x-request-id");
      expect(body.error.details).toEqual({ request_id: requestId });
      expect(JSON.stringify(body)).not.toContain("secret");
      const logged = broken.logger.entries.find((e) => e.level === "error");
      expect(logged?.fields.request_id).toBe(requestId);
      expect(JSON.stringify(logged?.fields.error)).toContain("secret connection string leaked");
    } finally {
      await broken.close();
    }
  });

  it("UNAVAILABLE: a throttled store is a 503 the client may retry", async () => {
    const throttled = await startTestApi({ dynamo, store: failing(new ToolbeltError("UNAVAILABLE", "session store is throttling; retry shortly")) });
    try {
      await expectError(await throttled.request("/v1/sessions", { json: {} }), "UNAVAILABLE");
    } finally {
      await throttled.close();
    }
  });
});

describe("mounting another route module", () => {
  it("authenticates its /v1 routes, documents its paths and answers 405 on them", async () => {
    const extra = await startTestApi({
      dynamo,
      extraRoutes: [
        {
          routes: () => new Hono<AppEnv>().post("/v1/echo", (c) => c.json({ principal: callerOf(c).principal })),
          openapi: { "/v1/echo": { post: { operationId: "echo", responses: {} } } },
        },
      ],
    });
    try {
      expect(await (await extra.request("/v1/echo", { as: "bob", json: {} })).json()).toEqual({ principal: "bob" });
      await expectError(await extra.request("/v1/echo", { as: null, json: {} }), "UNAUTHENTICATED");
      await expectError(await extra.request("/v1/echo", { method: "GET" }), "METHOD_NOT_ALLOWED");
      const doc = (await (await extra.request("/v1/openapi.json", { as: null })).json()) as { paths: Record<string, unknown> };
      expect(doc.paths).toHaveProperty("/v1/echo");
    } finally {
      await extra.close();
    }
  });
});
